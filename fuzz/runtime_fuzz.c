/* SPDX-License-Identifier: MIT */
/*
 * runtime_fuzz.c: libFuzzer harness for the run-time probe library's two
 * APIs (runtime/: <sdtkit.h> and <libstapsdt.h>), driven by sequences of
 * calls: create, add (any name, type and number of arguments, one probe
 * or a few hundred), load, unload, fire, is-enabled and destroy, on up to
 * four providers of each API, while a second thread fires, tests and
 * reads the semaphore of every handle the sequence made that is still
 * valid, those of destroyed providers included; fork (a child that fires,
 * calls the API and exits; one an input); and a reader of the loaded
 * objects' notes.
 *
 * The input is a list of commands, one byte each, most followed by their
 * operands (see run()); a name is a length byte and that many bytes.  What
 * the harness checks besides the sanitizers: every call returns what its
 * API documents (a status of <sdtkit.h>, 0 or -1 for libstapsdt's), a
 * failed call leaves no handle, a successful load has a path, a probe
 * fired from either thread never crashes, whatever its provider's state,
 * a child of fork exits 0, and the notes of a loaded native provider's
 * object, read as tracers read them (stepping over empty notes 12 bytes
 * at a time), list every probe of it.  Each input ends by destroying what
 * it made (the firing thread joined first).
 *
 * What the harness may touch: a probe's handle stays valid until
 * SDTKIT_RETIRED_PROBES more probes have been destroyed after its
 * provider was; the harness counts the probes destroyed, and stops using
 * a handle (the firing thread included: it fires each handle under a lock
 * of the harness's, taken to drop handles) before the destroy that may
 * free it.
 * Providers grown past a few hundred probes, past 64 (a larger object)
 * and past SDTKIT_RETIRED_PROBES retirements are reached by the bulk
 * adds.
 *
 * Memory files only: named files would be left in a directory by a crash.
 *
 * Build and run with `make fuzz` (see fuzz/run).
 */
#define _GNU_SOURCE
#include "../include/libstapsdt.h"
#include "../include/sdtkit.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

enum {
    PROVIDERS = 4,
    HANDLES = 8192, /* probes an input may add */
    MAX_NAME = 80,
    NOTED = 1024, /* names kept per native provider, for the notes' check */
    FORKS = 1,    /* an input's */
    BULK = 128    /* probes a bulk add adds, at most */
};

struct input {
    const uint8_t *p;
    size_t n;
};

static int byte(struct input *in)
{
    if (!in->n)
        return -1;
    in->n--;
    return *in->p++;
}

/* A name from the input: a length, then its bytes (NUL ends it early). */
static void name(struct input *in, char *out)
{
    int len = byte(in);
    size_t k = 0;
    for (int i = 0; len > 0 && i < len % MAX_NAME; i++) {
        int c = byte(in);
        if (c <= 0)
            break;
        out[k++] = (char)c;
    }
    out[k] = '\0';
}

/* The sanitizers' report of a finding, where the harness has them. */
void __sanitizer_report_error_summary(const char *summary) __attribute__((weak));

/* A check that failed says which before the abort (libFuzzer's
 * -close_fd_mask closes stderr; the sanitizers' reports still go out). */
#define check(ok) check_at((ok), __LINE__, #ok)
static void check_at(bool ok, int line, const char *what)
{
    if (ok)
        return;
    char msg[256];
    snprintf(msg, sizeof msg, "runtime_fuzz.c:%d: check failed: %s", line, what);
    if (__sanitizer_report_error_summary)
        __sanitizer_report_error_summary(msg);
    abort();
}

/* ---- providers and handles ---- */

static sdtkit_provider *native[PROVIDERS];
static SDTProvider_t *compat[PROVIDERS];
/* A native provider as the harness knows it: loaded, its probes' names
 * (the first NOTED), how many it has. */
static struct {
    bool loaded;
    long nprobes;
    char pname[MAX_NAME + 1];
    char names[NOTED][MAX_NAME + 1];
} known[PROVIDERS];
static long cprobes[PROVIDERS]; /* a compat provider's probes */

/* Every handle made, with its provider (slot, API) and the count of
 * destroyed probes when that provider was destroyed (-1 while it lives).
 * The firing thread reads p and cp, under pass while the harness drops
 * handles. */
static struct handle {
    _Atomic(sdtkit_probe *) p;
    _Atomic(SDTProbe_t *) cp;
    int slot;
    long retired; /* destroyed probes before its provider's destroy, or -1 */
} handles[HANDLES];
static atomic_int nhandles, stop, started;
static long destroyed; /* probes destroyed in the process (both APIs) */
static pthread_mutex_t pass = PTHREAD_MUTEX_INITIALIZER;

static void *firing(void *arg)
{
    (void)arg;
    sdtkit_value v[SDTKIT_MAX_ARGS];
    memset(v, 0, sizeof v);
    v[0].p = "a string";
    atomic_store(&started, 1);
    while (!atomic_load(&stop)) {
        for (int i = 0; i < atomic_load(&nhandles); i++) {
            pthread_mutex_lock(&pass);
            sdtkit_probe *p = atomic_load(&handles[i].p);
            SDTProbe_t *cp = atomic_load(&handles[i].cp);
            if (p) {
                (void)sdtkit_probe_enabled(p);
                sdtkit_probe_fire(p, v);
                (void)*sdtkit_probe_semaphore(p);
            }
            if (cp) {
                probeFire(cp, 1, 2, 3, 4, 5, 6);
                (void)probeIsEnabled(cp);
            }
            pthread_mutex_unlock(&pass);
        }
    }
    return NULL;
}

static void keep(sdtkit_probe *p, SDTProbe_t *cp, int slot)
{
    int i = atomic_load(&nhandles);
    check(i < HANDLES);
    handles[i].slot = slot;
    handles[i].retired = -1;
    atomic_store(&handles[i].p, p);
    atomic_store(&handles[i].cp, cp);
    atomic_store(&nhandles, i + 1);
}

/* Before a destroy of the provider in slot (native or compat) of count
 * probes: its handles retire, and those the destroy may free are dropped
 * (the firing thread not in a pass meanwhile). */
static void retiring(int slot, bool is_compat, long count)
{
    long after = destroyed + count;
    pthread_mutex_lock(&pass);
    for (int i = 0; i < atomic_load(&nhandles); i++) {
        struct handle *h = &handles[i];
        if (h->slot == slot && h->retired < 0 &&
            (is_compat ? atomic_load(&h->cp) != NULL : atomic_load(&h->p) != NULL))
            h->retired = destroyed;
        if (h->retired >= 0 && after - h->retired >= SDTKIT_RETIRED_PROBES) {
            atomic_store(&h->p, NULL);
            atomic_store(&h->cp, NULL);
        }
    }
    pthread_mutex_unlock(&pass);
    destroyed = after;
}

/* A valid handle of the API, picked by k, or NULL. */
static struct handle *pick(int k, bool is_compat)
{
    int n = atomic_load(&nhandles);
    for (int j = 0; j < n; j++) {
        struct handle *h = &handles[(k + j) % n];
        if (is_compat ? atomic_load(&h->cp) != NULL : atomic_load(&h->p) != NULL)
            return h;
    }
    return NULL;
}

static bool status_ok(int rc) { return rc <= 0 && rc >= SDTKIT_E_UNSUPPORTED; }

static void native_destroy(int slot)
{
    if (native[slot])
        retiring(slot, false, known[slot].nprobes);
    sdtkit_provider_destroy(native[slot]);
    native[slot] = NULL;
    known[slot].loaded = false;
    known[slot].nprobes = 0;
}

static void compat_destroy(int slot)
{
    if (compat[slot])
        retiring(slot, true, cprobes[slot]);
    providerDestroy(compat[slot]);
    compat[slot] = NULL;
    cprobes[slot] = 0;
}

static void native_add(int slot, const char *nm, const int *types, int nargs)
{
    sdtkit_probe *p = NULL;
    if (atomic_load(&nhandles) >= HANDLES)
        return;
    int rc = sdtkit_provider_add_probe(native[slot], nm, types, nargs, &p);
    check(status_ok(rc) && (rc == 0) == (p != NULL));
    if (!p)
        return;
    keep(p, NULL, slot);
    if (known[slot].nprobes < NOTED)
        strcpy(known[slot].names[known[slot].nprobes], nm);
    known[slot].nprobes++;
}

static void compat_add(int slot, const char *nm, int argc, const int *t)
{
    if (!compat[slot] || atomic_load(&nhandles) >= HANDLES)
        return;
    SDTProbe_t *p =
        providerAddProbe(compat[slot], nm, argc, t[0], t[1], t[2], t[3], t[4], t[5], t[6]);
    check(!p || (p->argCount == argc && strcmp(p->name, nm) == 0));
    if (!p)
        return;
    keep(NULL, p, slot);
    cprobes[slot]++;
}

/* ---- the notes, as tracers read them ---- */

#if defined __LP64__
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Shdr Shdr;
#else
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Shdr Shdr;
#endif

static size_t align4(size_t n) { return (n + 3) & ~(size_t)3; }

/* The file at path, mapped, its size in *n; NULL when unreadable.  (A
 * memory file renewed many times has its image far into the file, after
 * a hole: mapped, only the pages read are touched.) */
static unsigned char *map_file(const char *path, size_t *n)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    void *f = MAP_FAILED;
    if (fstat(fd, &st) == 0 && st.st_size > 0)
        f = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (f == MAP_FAILED)
        return NULL;
    *n = (size_t)st.st_size;
    return f;
}

/* provider:name is in the .note.stapsdt section of the object f[0..n),
 * read note after note from its start: a note is a 12-byte header (name
 * size, descriptor size, type), its name and its descriptor, each padded
 * to 4 bytes; a run of zeros reads as empty notes. */
static bool noted(const unsigned char *f, size_t n, const char *provider, const char *probe)
{
    const Ehdr *e = (const void *)f;
    if (n < sizeof *e || memcmp(f, ELFMAG, SELFMAG) != 0 || e->e_shoff > n ||
        e->e_shnum > (n - e->e_shoff) / sizeof(Shdr) || e->e_shstrndx >= e->e_shnum)
        return false;
    const Shdr *sh = (const void *)(f + e->e_shoff), *strs = &sh[e->e_shstrndx];
    for (size_t s = 0; s < e->e_shnum; s++) {
        if (sh[s].sh_type != SHT_NOTE || sh[s].sh_offset > n ||
            sh[s].sh_size > n - sh[s].sh_offset || sh[s].sh_name >= strs->sh_size ||
            strs->sh_offset + strs->sh_size > n ||
            strncmp((const char *)f + strs->sh_offset + sh[s].sh_name, ".note.stapsdt", 14) != 0)
            continue;
        const unsigned char *p = f + sh[s].sh_offset, *end = p + sh[s].sh_size;
        while (end - p >= 12) {
            uint32_t nsz, dsz, type;
            memcpy(&nsz, p, 4);
            memcpy(&dsz, p + 4, 4);
            memcpy(&type, p + 8, 4);
            if (align4(nsz) > (size_t)(end - p - 12) ||
                align4(dsz) > (size_t)(end - p - 12) - align4(nsz))
                break; /* the readers stop here */
            const unsigned char *d = p + 12 + align4(nsz);
            size_t at = 3 * sizeof(void *);
            if (type == 3 && nsz == 8 && memcmp(p + 12, "stapsdt", 8) == 0 && dsz > at) {
                const char *prov = (const char *)d + at;
                size_t pl = strnlen(prov, dsz - at);
                if (pl < dsz - at && strcmp(prov, provider) == 0 &&
                    strncmp(prov + pl + 1, probe, dsz - at - pl - 1) == 0 &&
                    strnlen(prov + pl + 1, dsz - at - pl - 1) == strlen(probe))
                    return true;
            }
            p = d + align4(dsz);
        }
    }
    return false;
}

/* Every loaded native provider's probes are in its object's notes. */
static void look(void)
{
    for (int s = 0; s < PROVIDERS; s++) {
        if (!native[s] || !known[s].loaded)
            continue;
        const char *path = sdtkit_provider_path(native[s]);
        check(path != NULL);
        size_t n;
        unsigned char *f = map_file(path, &n);
        if (!f)
            continue; /* (out of descriptors or memory: nothing to read) */
        for (long i = 0; i < known[s].nprobes && i < NOTED; i++)
            check(noted(f, n, known[s].pname, known[s].names[i]));
        munmap(f, n);
    }
}

/* ---- fork ---- */

/* In a child of fork: fire every valid handle, call the API on the
 * providers inherited and on one of its own; 0 when all answered as
 * documented. */
static int child(void)
{
    static const int types[] = {SDTKIT_INT64, SDTKIT_STRING};
    sdtkit_value v[SDTKIT_MAX_ARGS];
    memset(v, 0, sizeof v);
    v[1].p = "child";
    for (int i = 0; i < atomic_load(&nhandles); i++) {
        sdtkit_probe *p = atomic_load(&handles[i].p);
        SDTProbe_t *cp = atomic_load(&handles[i].cp);
        if (p)
            sdtkit_probe_fire(p, v);
        if (cp)
            probeFire(cp, 1, 2, 3, 4, 5, 6);
    }
    for (int s = 0; s < PROVIDERS; s++) {
        if (native[s]) {
            int rc = known[s].loaded ? sdtkit_provider_unload(native[s]) : SDTKIT_OK;
            if (!status_ok(rc) || !status_ok(sdtkit_provider_load(native[s])))
                return 1;
        }
        if (compat[s] && providerLoad(compat[s]) != 0 && providerLoad(compat[s]) != -1)
            return 1;
    }
    sdtkit_provider *pv;
    sdtkit_probe *p;
    if (sdtkit_provider_create("child", &pv) != 0 ||
        sdtkit_provider_add_probe(pv, "p", types, 2, &p) != 0 ||
        !status_ok(sdtkit_provider_load(pv)))
        return 1;
    sdtkit_probe_fire(p, v);
    sdtkit_provider_destroy(pv);
    return 0;
}

static void forked(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(child());
    int status = 0;
    pid_t got;
    check(pid > 0);
    while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
        ; /* (libFuzzer's SIGALRM, which checks for timeouts) */
    check(got == pid);
    check(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- the commands ---- */

static void run(struct input *in)
{
    char nm[MAX_NAME + 1];
    int forks = 0;
    for (int op; (op = byte(in)) >= 0;) {
        int k = byte(in);
        if (k < 0)
            return;
        int slot = k % PROVIDERS;
        switch (op % 16) {
        case 0: /* create */
            name(in, nm);
            if (!native[slot]) {
                int rc = sdtkit_provider_create(nm, &native[slot]);
                check(status_ok(rc) && (rc == 0) == (native[slot] != NULL));
                snprintf(known[slot].pname, sizeof known[slot].pname, "%s", nm);
            }
            break;
        case 1: { /* add */
            int nargs = byte(in), types[16];
            name(in, nm);
            nargs = nargs < 0 ? 0 : nargs % 16 - 1; /* -1 .. 14 */
            for (int i = 0; i < nargs; i++)
                types[i] = (signed char)byte(in);
            native_add(slot, nm, types, nargs);
            break;
        }
        case 2: { /* load */
            int rc = sdtkit_provider_load(native[slot]);
            check(status_ok(rc) && (rc != 0 || sdtkit_provider_path(native[slot])));
            known[slot].loaded |= rc == 0;
            break;
        }
        case 3: {
            int rc = sdtkit_provider_unload(native[slot]);
            check(status_ok(rc));
            known[slot].loaded &= rc != 0;
            break;
        }
        case 4: /* destroy */
            native_destroy(slot);
            break;
        case 5: { /* fire, firev, is-enabled from this thread */
            struct handle *h = pick(k, false);
            if (h) {
                sdtkit_probe *p = atomic_load(&h->p);
                sdtkit_value v[SDTKIT_MAX_ARGS];
                memset(v, 0, sizeof v);
                sdtkit_probe_fire(p, v);
                sdtkit_probe_firev(p, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
                check(sdtkit_probe_is_enabled(p) == sdtkit_probe_enabled(p));
            }
            break;
        }
        case 6: /* providerInit */
            name(in, nm);
            if (!compat[slot])
                check((compat[slot] = providerInit(nm)) != NULL);
            break;
        case 7: { /* providerAddProbe, 0 to 7 arguments */
            int argc = byte(in), t[7];
            name(in, nm);
            argc = argc < 0 ? 0 : argc % 9 - 1; /* -1 .. 7 */
            for (int i = 0; i < 7; i++)
                t[i] = (signed char)byte(in);
            compat_add(slot, nm, argc, t);
            break;
        }
        case 8:
            if (compat[slot]) {
                int rc = providerLoad(compat[slot]);
                check(rc == -1 || (rc == 0 && compat[slot]->_filename));
            }
            break;
        case 9:
            if (compat[slot])
                check(providerUnload(compat[slot]) == 0);
            break;
        case 10:
            compat_destroy(slot);
            break;
        case 11: { /* probeFire, probeIsEnabled from this thread */
            struct handle *h = pick(k, true);
            if (h) {
                SDTProbe_t *p = atomic_load(&h->cp);
                probeFire(p, 6, 5, 4, 3, 2, 1);
                check(probeIsEnabled(p) == 0 || probeIsEnabled(p) == 1);
            }
            break;
        }
        case 12: { /* add COUNT probes: bN with N % 4 int64 arguments */
            static const int types[] = {SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64};
            int count = byte(in) % BULK;
            for (int i = 0; i < count; i++) {
                snprintf(nm, sizeof nm, "b%ld", known[slot].nprobes);
                native_add(slot, nm, types, i % 4);
            }
            break;
        }
        case 13: { /* providerAddProbe COUNT times: bN, N % 4 int64s */
            static const int t[7] = {int64, int64, int64, 0, 0, 0, 0};
            int count = byte(in) % BULK;
            for (int i = 0; i < count; i++) {
                snprintf(nm, sizeof nm, "b%ld", cprobes[slot]);
                compat_add(slot, nm, i % 4, t);
            }
            break;
        }
        case 14: /* (a fork copies the fuzzer's memory: one an input) */
            if (forks++ < FORKS)
                forked();
            break;
        case 15:
            look();
            break;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size};
    pthread_t t;
    atomic_store(&stop, 0);
    atomic_store(&nhandles, 0);
    atomic_store(&started, 0);
    bool threaded = pthread_create(&t, NULL, firing, NULL) == 0;
    /* run() forks: not while the new thread starts.  clang 14's ASan
     * allocator has no fork handler (glibc's malloc takes its locks
     * around fork): a child forked just after the thread was created
     * waited for ever in the allocator (gdb: GetFromAllocator, under the
     * child's first free), a lock the starting thread held.  Once in
     * firing(), the thread allocates only under the riders' lock (its
     * first fire), which fork's prepare handler takes. */
    while (threaded && !atomic_load(&started))
        sched_yield();
    run(&in);
    atomic_store(&stop, 1);
    if (threaded)
        pthread_join(t, NULL);
    for (int i = 0; i < PROVIDERS; i++) {
        native_destroy(i);
        compat_destroy(i);
    }
    return 0;
}
