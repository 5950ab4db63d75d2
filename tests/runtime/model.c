/* SPDX-License-Identifier: MIT */
/* model [-s SEED] [-n SEQUENCES] [-c CALLS] [-a both|native|compat] [-l] [-t]
         [-d DIR] [-U | -L] [-x] [-w SECONDS] [-m SHOWN] [-P]
   model -r [-d DIR] [-U | -L] [-t] < REPLAY

   Random sequences of calls of both run-time APIs (<sdtkit.h>,
   <libstapsdt.h>), on SLOTS providers of each at once, run through the
   library and through the model of their contracts (model.h), comparing
   every answer: statuses and return values, out-parameters, messages,
   paths, libstapsdt's members (errno, error, _filename, _handle, _memfd,
   _use_memfd, the probe list, each probe's name, argCount, argFmt and
   _fire), each probe's name, arguments, is-enabled and semaphore, and the
   notes of every loaded provider's object: exactly the loaded probes, each
   note naming its probe's own semaphore (native) or stub (libstapsdt's
   _fire).  Meanwhile a second thread fires and tests every handle made so
   far, those of destroyed providers included while they are valid (its
   answers are not compared: it must not crash, and sanitizers must stay
   quiet).

   Each sequence runs in a child process of its own, from seed SEED + i
   (deterministic: the seed alone gives the calls), so that a crash is one
   sequence's.  On a mismatch: the seed, the call's number, the call, both
   answers; on a crash, the call it died in.  The first failing sequence
   is then shrunk to a minimal replay, printed as "> " lines that -r reads
   back (the lines without "> " too) and runs in this process, printing
   every call and answer.  The last line counts what was compared:
     model: S sequences of C calls (seeds A-B, API): K calls, X answers
       compared; F crashed, M mismatched
   and the exit status is 0 when none failed, 1 otherwise, 2 for usage.

     -a   the APIs (both)            -l   no probe added to a loaded provider
     -c   calls a sequence (300)     -n   sequences (60)
     -s   first seed (1)             -t   no firing thread
     -d   a directory for named files (sdtkit_provider_use_named_file,
          memfd_disabled); without it none are asked for
     -U   libstapsdt's API only, used as libstapsdt documents it (no NULL
          name, count or type it did not take, no handle used after
          destroy, no provider name over 249 bytes, memory files only)
     -L   the same, on libstapsdt's own library (LD_LIBRARY_PATH): its
          rules where <libstapsdt.h> lists a difference, and no firing
          thread (libstapsdt did not take fires beside unloads)
     -x   no shrinking               -w   seconds a sequence may take (600)
     -m   mismatches shown of a sequence (3)
     -P   print the sequences' calls, as replays, and run none */
#define _GNU_SOURCE
#include "model.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr Ehdr;
typedef Elf64_Phdr Phdr;
typedef Elf64_Shdr Shdr;
typedef Elf64_Nhdr Nhdr;
#else
typedef Elf32_Ehdr Ehdr;
typedef Elf32_Phdr Phdr;
typedef Elf32_Shdr Shdr;
typedef Elf32_Nhdr Nhdr;
#endif

enum {
    MISMATCH_EXIT = 97
}; /* a child's status when a mismatch was found */

/* ---- options ------------------------------------------------------------------ */

static struct {
    struct gen gen;
    enum target target;
    uint64_t seed;
    int sequences, calls;
    bool firing, shrink, replay, print;
    int shown; /* mismatches shown of a sequence */
    const char *dir;
    unsigned wait;
} opt = {.gen = {.native = true, .compat = true, .late_adds = true},
         .target = SDTKIT,
         .seed = 1,
         .sequences = 60,
         .calls = 300,
         .firing = true,
         .shrink = true,
         .shown = 3,
         .wait = 600};

/* ---- what a child tells its parent --------------------------------------- */

struct record {
    long calls, answers;
    int at, mismatches;
    bool stopped;
    char sig[128];  /* the first mismatch: "CALL: FIELD" */
    char call[256]; /* the call in progress */
    int nkinds;     /* the kinds of mismatch: "n load: notes", each once */
    char kinds[16][48];
};

static struct record *rec;

/* ---- text ----------------------------------------------------------------------- */

/* printf into one of a ring of buffers (the main thread's). */
static const char *fmt(const char *f, ...) __attribute__((format(printf, 1, 2)));
static const char *fmt(const char *f, ...)
{
    static char ring[32][640];
    static unsigned i;
    char *b = ring[i++ % 32];
    va_list ap;
    va_start(ap, f);
    vsnprintf(b, sizeof ring[0], f, ap);
    va_end(ap);
    return b;
}

static const char *const status_names[] = {"0",
                                           "SDTKIT_E_INVALID",
                                           "SDTKIT_E_NOMEM",
                                           "SDTKIT_E_EXISTS",
                                           "SDTKIT_E_STATE",
                                           "SDTKIT_E_LOAD",
                                           "SDTKIT_E_UNSUPPORTED"};

static const char *status_name(int s)
{
    return s <= 0 && s > -COUNT(status_names) ? status_names[-s] : fmt("%d", s);
}

static const char *status_set(unsigned set)
{
    char *b = (char *)fmt("%s", "");
    for (int s = 0; s < COUNT(status_names); s++)
        if (set & ST(-s))
            snprintf(b + strlen(b), 640 - strlen(b), "%s%s", *b ? "|" : "", status_names[s]);
    return b;
}

static bool in_set(unsigned set, int s)
{
    return s <= 0 && s > -COUNT(status_names) && (set & ST(s));
}

static const char *const type_names[] = {"u8",  "i8",  "u16", "i16", "u32", "i32",
                                         "u64", "i64", "ptr", "str", "flt", "dbl"};

static const char *type_text(int t)
{
    for (int i = 0; i < COUNT(native_types); i++)
        if (native_types[i] == t)
            return type_names[i];
    return fmt("%d", t);
}

static int type_parse(const char *w)
{
    for (int i = 0; i < COUNT(type_names); i++)
        if (strcmp(w, type_names[i]) == 0)
            return native_types[i];
    return atoi(w);
}

static const char *name_text(const char *n) { return !n ? "NULL" : !*n ? "\"\"" : n; }

static const char *const verbs[KINDS] = {
    [N_CREATE] = "create", [N_ADD] = "add",         [N_ADDS] = "adds",       [N_LOAD] = "load",
    [N_UNLOAD] = "unload", [N_DESTROY] = "destroy", [N_NAMED] = "named",     [N_ERROR] = "error",
    [N_PATH] = "path",     [NOFILE] = "nofile",     [STRERROR] = "strerror", [PROBE] = "probe",
    [C_INIT] = "init",     [C_MEMFD] = "memfd",     [C_ADD] = "add",         [C_ADDS] = "adds",
    [C_LOAD] = "load",     [C_UNLOAD] = "unload",   [C_DESTROY] = "destroy"};

/* An op as a line of a replay. */
static const char *op_text(const struct op *o)
{
    char *b = (char *)fmt("%s", "");
    size_t n = 640;
#define ADD(...) snprintf(b + strlen(b), n - strlen(b), __VA_ARGS__)
    if (o->kind == STRERROR)
        return fmt("strerror %d", o->slot);
    if (o->kind == NOFILE)
        return fmt("nofile %d", o->option);
    if (o->kind == PROBE)
        return fmt("h%d probe", o->slot);
    ADD("%c%d %s", o->kind < STRERROR ? 'n' : 'c', o->slot, verbs[o->kind]);
    switch (o->kind) {
    case N_CREATE:
    case C_INIT:
        ADD(" %s%s", name_text(o->name), o->null_out ? " nullout" : "");
        break;
    case N_ADD:
        ADD(" %s", name_text(o->name));
        if (o->null_types)
            ADD(" nulltypes %d", o->nargs);
        else
            for (int i = 0; i < o->nargs; i++)
                ADD(" %s", type_text(o->types[i]));
        if (o->null_out)
            ADD(" nullout");
        break;
    case C_ADD:
        ADD(" %s %d", name_text(o->name), o->nargs);
        for (int i = 0; i < o->nargs && i < SDTKIT_MAX_ARGS; i++)
            ADD(" %d", o->types[i]);
        break;
    case N_ADDS:
    case C_ADDS:
        ADD(" %d %d", o->count, o->first);
        break;
    case N_NAMED:
        ADD(" %s", o->option ? "dir" : "NULL");
        break;
    case C_MEMFD:
        ADD(" %d", o->option);
        break;
    default:
        break;
    }
#undef ADD
    return b;
}

static char *word(char **s)
{
    while (**s == ' ' || **s == '\t')
        (*s)++;
    if (!**s)
        return NULL;
    char *w = *s;
    while (**s && **s != ' ' && **s != '\t')
        (*s)++;
    if (**s)
        *(*s)++ = '\0';
    return w;
}

static const char *name_parse(const char *w)
{
    if (!w || strcmp(w, "NULL") == 0)
        return NULL;
    return strcmp(w, "\"\"") == 0 ? "" : strdup(w);
}

/* A line of a replay into o: false when it is none. */
static bool op_parse(char *line, struct op *o)
{
    memset(o, 0, sizeof *o);
    if (strncmp(line, "> ", 2) == 0)
        line += 2;
    char *w = word(&line), *v;
    if (!w || *w == '#')
        return false;
    if (strcmp(w, "strerror") == 0 || strcmp(w, "nofile") == 0) {
        o->kind = *w == 's' ? STRERROR : NOFILE;
        o->slot = o->option = (v = word(&line)) ? atoi(v) : 0;
        return true;
    }
    char api = w[0];
    o->slot = atoi(w + 1);
    if ((api != 'n' && api != 'c' && api != 'h') || o->slot < 0 || !(v = word(&line)))
        return false;
    if (api == 'h') {
        o->kind = PROBE;
        return o->slot < MAX_HANDLES;
    }
    if (o->slot >= SLOTS)
        return false;
    int k;
    for (k = 0; k < KINDS; k++)
        if (verbs[k] && strcmp(verbs[k], v) == 0 && (k < STRERROR) == (api == 'n') &&
            k != STRERROR && k != NOFILE && k != PROBE)
            break;
    if (k == KINDS)
        return false;
    o->kind = (enum kind)k;
    switch (o->kind) {
    case N_CREATE:
    case C_INIT:
        o->name = name_parse(word(&line));
        o->null_out = (v = word(&line)) && strcmp(v, "nullout") == 0;
        break;
    case N_ADD:
        o->name = name_parse(word(&line));
        while ((v = word(&line))) {
            if (strcmp(v, "nullout") == 0) {
                o->null_out = true;
            } else if (strcmp(v, "nulltypes") == 0) {
                o->null_types = true;
                o->nargs = (v = word(&line)) ? atoi(v) : 0;
            } else if (o->nargs <= SDTKIT_MAX_ARGS) {
                o->types[o->nargs++] = type_parse(v);
            }
        }
        break;
    case C_ADD:
        o->name = name_parse(word(&line));
        o->nargs = (v = word(&line)) ? atoi(v) : 0;
        for (int i = 0; i < o->nargs && i < SDTKIT_MAX_ARGS && (v = word(&line)); i++)
            o->types[i] = atoi(v);
        break;
    case N_ADDS:
    case C_ADDS:
        o->count = (v = word(&line)) ? atoi(v) : 0;
        o->first = (v = word(&line)) ? atoi(v) : 0;
        if (o->count < 0 || o->count > BATCH_MAX)
            return false;
        break;
    case N_NAMED:
        o->option = (v = word(&line)) && strcmp(v, "dir") == 0;
        break;
    case C_MEMFD:
        o->option = (v = word(&line)) ? atoi(v) : 0;
        break;
    default:
        break;
    }
    return true;
}

/* ---- an answer: the library's beside the model's ------------------------------ */

struct answer {
    char lib[2048], mod[2048];
    const char *bad; /* the first field that differs */
    bool fatal;      /* in a return value: the states part */
};

/* One field of the answer: ok when the library's value lib is what the
   model allows, mod. */
static void field(struct answer *a, const char *name, bool ok, const char *lib, const char *mod)
{
    size_t l = strlen(a->lib), m = strlen(a->mod);
    snprintf(a->lib + l, sizeof a->lib - l, "%s%s=%s", l ? " " : "", name, lib);
    snprintf(a->mod + m, sizeof a->mod - m, "%s%s=%s", m ? " " : "", name, mod);
    rec->answers++;
    if (!ok && !a->bad)
        a->bad = name;
}

/* A return value: a mismatch there ends the sequence. */
static void result(struct answer *a, const char *name, bool ok, const char *lib, const char *mod)
{
    field(a, name, ok, lib, mod);
    if (!ok)
        a->fatal = true;
}

static const char *ptr_text(const void *p) { return p ? "set" : "NULL"; }
static const char *str_text(const char *s) { return s ? fmt("\"%.200s\"", s) : "NULL"; }

/* ---- the library's side ---------------------------------------------------------- */

static struct {
    struct model m;
    sdtkit_provider *nat[SLOTS];
    SDTProvider_t *com[SLOTS];
    sdtkit_probe *nh[MAX_HANDLES];
    SDTProbe_t *ch[MAX_HANDLES];
    const struct op *ops;
    int nops;
    bool verbose, quiet;
    uint64_t seed;
} run;

static char junk; /* what out-parameters hold before a call */
#define JUNK ((void *)&junk)

/* ---- the firing thread ---------------------------------------------------------- */

/* What the firing thread fires: every handle made, until the main thread
   takes it back (before it expires), under lock, which the firing thread
   holds for a pass over them. */
struct target_probe {
    _Atomic(sdtkit_probe *) np;
    _Atomic(SDTProbe_t *) cp;
    int nargs, types[SDTKIT_MAX_ARGS];
};

static struct {
    pthread_t thread;
    bool running;
    atomic_int stop, waiting, n;
    atomic_long passes;
    pthread_mutex_t lock;
    struct target_probe t[MAX_HANDLES];
} firing = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* How a probe's arguments can go through a variadic call: all as uint64_t,
   all as int (for types of 4 bytes or fewer: unsigned int reads a small
   int), all as pointers, all as double; else not at all. */
enum {
    AS_NONE,
    AS_U64,
    AS_INT,
    AS_PTR,
    AS_DBL
};

static int passing(enum api api, int nargs, const int *types)
{
    int as = AS_NONE;
    for (int i = 0; i < nargs; i++) {
        int t = types[i], a = t == 8 || t == -8                           ? AS_U64
                              : (t >= -4 && t <= 4)                       ? AS_INT
                              : t == SDTKIT_POINTER || t == SDTKIT_STRING ? AS_PTR
                                                                          : AS_DBL;
        /* libstapsdt reads every argument as a uint64_t */
        if (api == COMPAT && opt.target == LIBSTAPSDT)
            a = AS_U64;
        if (i > 0 && a != as)
            return AS_NONE;
        as = a;
    }
    return nargs ? as : AS_U64;
}

/* A switch's cases calling call(p, ...) with the first 0 .. 6 (or 12)
   of v's values. */
/* clang-format off */
#define CASES6(call, p)                                                                            \
    case 0: call(p); break;                                                                        \
    case 1: call(p, v[0]); break;                                                                  \
    case 2: call(p, v[0], v[1]); break;                                                            \
    case 3: call(p, v[0], v[1], v[2]); break;                                                      \
    case 4: call(p, v[0], v[1], v[2], v[3]); break;                                                \
    case 5: call(p, v[0], v[1], v[2], v[3], v[4]); break;                                          \
    case 6: call(p, v[0], v[1], v[2], v[3], v[4], v[5]); break;
#define CASES12(call, p)                                                                           \
    CASES6(call, p)                                                                                \
    case 7: call(p, v[0], v[1], v[2], v[3], v[4], v[5], v[6]); break;                              \
    case 8: call(p, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7]); break;                        \
    case 9: call(p, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8]); break;                  \
    case 10: call(p, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]); break;           \
    case 11: call(p, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10]); break;    \
    case 12: call(p, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],        \
                  v[11]); break;
/* clang-format on */

#define FIREV(T, init)                                                                             \
    static void firev_##T(const sdtkit_probe *p, int n)                                            \
    {                                                                                              \
        T v[SDTKIT_MAX_ARGS];                                                                      \
        for (int i = 0; i < SDTKIT_MAX_ARGS; i++)                                                  \
            v[i] = init;                                                                           \
        switch (n) {                                                                               \
            CASES12(sdtkit_probe_firev, p)                                                         \
        }                                                                                          \
    }
typedef const char *text;
FIREV(uint64_t, (uint64_t)i * 1000003u)
FIREV(int, i + 7)
FIREV(text, "a string")
FIREV(double, i + 0.5)

#define PROBEFIRE(T, init)                                                                         \
    static void probefire_##T(SDTProbe_t *p, int n)                                                \
    {                                                                                              \
        T v[MAX_ARGUMENTS];                                                                        \
        for (int i = 0; i < MAX_ARGUMENTS; i++)                                                    \
            v[i] = init;                                                                           \
        switch (n) {                                                                               \
            CASES6(probeFire, p)                                                                   \
        }                                                                                          \
    }
PROBEFIRE(uint64_t, (uint64_t)i * 1000003u)
PROBEFIRE(int, i + 7)

/* Fire a native probe both ways, and test it; true when it read enabled. */
static bool fire_native(const sdtkit_probe *p, int nargs, const int *types)
{
    sdtkit_value v[SDTKIT_MAX_ARGS];
    for (int i = 0; i < SDTKIT_MAX_ARGS; i++) {
        int t = i < nargs ? types[i] : 0;
        if (t == SDTKIT_POINTER || t == SDTKIT_STRING)
            v[i].p = "a string";
        else if (t == SDTKIT_FLOAT || t == SDTKIT_DOUBLE)
            v[i].d = i + 0.25;
        else
            v[i].u = (uint64_t)i * 77;
    }
    bool on = sdtkit_probe_enabled(p) || sdtkit_probe_is_enabled(p);
    sdtkit_probe_fire(p, nargs ? v : NULL);
    switch (passing(NATIVE, nargs, types)) {
    case AS_U64:
        firev_uint64_t(p, nargs);
        break;
    case AS_INT:
        firev_int(p, nargs);
        break;
    case AS_PTR:
        firev_text(p, nargs);
        break;
    case AS_DBL:
        firev_double(p, nargs);
        break;
    default:
        break;
    }
    return on;
}

static bool fire_compat(SDTProbe_t *p, int nargs, const int *types)
{
    bool on = probeIsEnabled(p);
    switch (passing(COMPAT, nargs, types)) {
    case AS_U64:
        probefire_uint64_t(p, nargs);
        break;
    case AS_INT:
        probefire_int(p, nargs);
        break;
    default:
        break;
    }
    return on;
}

/* What the firing thread read, kept (the reads are the test). */
static volatile unsigned long sink;

static void *fire_all(void *arg)
{
    (void)arg;
    while (!atomic_load(&firing.stop)) {
        while (atomic_load(&firing.waiting) && !atomic_load(&firing.stop))
            sched_yield();
        pthread_mutex_lock(&firing.lock);
        int n = atomic_load_explicit(&firing.n, memory_order_acquire);
        for (int i = 0; i < n; i++) {
            struct target_probe *t = &firing.t[i];
            sdtkit_probe *np = atomic_load(&t->np);
            SDTProbe_t *cp = atomic_load(&t->cp);
            if (np) {
                sink += fire_native(np, t->nargs, t->types);
                sink += *sdtkit_probe_semaphore(np) + (unsigned)sdtkit_probe_nargs(np) +
                        strlen(sdtkit_probe_name(np));
            }
            if (cp)
                sink += fire_compat(cp, t->nargs, t->types);
        }
        pthread_mutex_unlock(&firing.lock);
        atomic_fetch_add(&firing.passes, 1);
    }
    return NULL;
}

static void firing_add(int k, sdtkit_probe *np, SDTProbe_t *cp, int nargs, const int *types)
{
    struct target_probe *t = &firing.t[k];
    t->nargs = nargs;
    memcpy(t->types, types, sizeof t->types);
    atomic_store(&t->np, np);
    atomic_store(&t->cp, cp);
    if (atomic_load(&firing.n) <= k)
        atomic_store_explicit(&firing.n, k + 1, memory_order_release);
}

/* Take back the handles that expire when `more' probes more are destroyed,
   before they do: the firing thread is between passes, then. */
static void firing_expire(long more)
{
    bool any = false;
    for (int k = 0; k < run.m.nh && !any; k++)
        any = !run.m.h[k].expired && expires(&run.m, k, more);
    if (!any)
        return;
    atomic_store(&firing.waiting, 1);
    pthread_mutex_lock(&firing.lock);
    for (int k = 0; k < run.m.nh; k++)
        if (expires(&run.m, k, more)) {
            atomic_store(&firing.t[k].np, NULL);
            atomic_store(&firing.t[k].cp, NULL);
        }
    pthread_mutex_unlock(&firing.lock);
    atomic_store(&firing.waiting, 0);
}

static void firing_start(void)
{
    atomic_store(&firing.stop, 0);
    atomic_store(&firing.n, 0);
    if (opt.firing && pthread_create(&firing.thread, NULL, fire_all, NULL) == 0)
        firing.running = true;
}

static void firing_stop(void)
{
    atomic_store(&firing.stop, 1);
    if (firing.running)
        pthread_join(firing.thread, NULL);
    firing.running = false;
}

/* ---- the objects: notes, as tracers read them ------------------------------------ */

struct mapping {
    uintptr_t start, end;
    uint64_t offset;
    unsigned major, minor;
    unsigned long inode;
};

static struct mapping *maps;
static int nmaps;

static void read_maps(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4096];
    static int cap;
    nmaps = 0;
    while (f && fgets(line, sizeof line, f)) {
        struct mapping m;
        unsigned long start, end, off, inode;
        if (sscanf(line, "%lx-%lx %*s %lx %x:%x %lu", &start, &end, &off, &m.major, &m.minor,
                   &inode) != 6)
            continue;
        if (nmaps == cap) {
            cap = cap ? 2 * cap : 256;
            if (!(maps = realloc(maps, (size_t)cap * sizeof *maps))) {
                perror("model");
                exit(2);
            }
        }
        m.start = start, m.end = end, m.offset = off, m.inode = inode;
        maps[nmaps++] = m;
    }
    if (f)
        fclose(f);
}

static bool same_file(const struct mapping *m, const struct stat *st)
{
    return m->inode == st->st_ino && m->major == major(st->st_dev) && m->minor == minor(st->st_dev);
}

/* Whether addr lies in a mapping of the file. */
static bool in_file(const struct stat *st, uintptr_t addr)
{
    for (int i = 0; i < nmaps; i++)
        if (same_file(&maps[i], st) && addr >= maps[i].start && addr < maps[i].end)
            return true;
    return false;
}

/* A note of a file, as tracers read it. */
struct note {
    char provider[NAME_CAP], name[NAME_CAP];
    int nargs, sizes[SDTKIT_MAX_ARGS + 1];
    uintptr_t pc, sem; /* where they are in this process (0: nowhere) */
    bool matched;
};

/* Where the file's address vaddr is in this process, or 0: the loader
   maps the object from its first segment's page at the lowest address of
   its mappings. */
static uintptr_t runtime_address(const unsigned char *buf, size_t size, const struct stat *st,
                                 uint64_t vaddr)
{
    const Ehdr *eh = (const void *)buf;
    uintptr_t low = UINTPTR_MAX;
    for (int i = 0; i < nmaps; i++)
        if (same_file(&maps[i], st) && maps[i].start < low)
            low = maps[i].start;
    for (int i = 0; low != UINTPTR_MAX && i < eh->e_phnum; i++) {
        Phdr ph;
        size_t at = eh->e_phoff + (size_t)i * sizeof ph;
        if (at + sizeof ph > size)
            break;
        memcpy(&ph, buf + at, sizeof ph);
        if (ph.p_type != PT_LOAD)
            continue;
        uintptr_t addr = low - (uintptr_t)(ph.p_vaddr & ~(uint64_t)0xfff) + (uintptr_t)vaddr;
        return in_file(st, addr) ? addr : 0;
    }
    return 0;
}

static uint64_t word_at(const unsigned char *p)
{
    uintptr_t v;
    memcpy(&v, p, sizeof v);
    return v;
}

/* The stapsdt notes of the file at path, read as a note reader does
   (headers of 12 bytes, name and descriptor padded to 4: a zeroed run
   reads as empty notes), into *out: how many, or -1 with why. */
static int read_notes(const char *path, struct stat *st, struct note **out, const char **why)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC), n = 0, cap = 0;
    unsigned char *buf = NULL;
    *out = NULL;
    if (fd < 0 || fstat(fd, st) != 0 || st->st_size < (off_t)sizeof(Ehdr) ||
        st->st_size > (64 << 20) || !(buf = malloc((size_t)st->st_size)) ||
        pread(fd, buf, (size_t)st->st_size, 0) != st->st_size) {
        *why = fmt("cannot read %s: %s", path, strerror(errno));
        n = -1;
        goto done;
    }
    size_t size = (size_t)st->st_size;
    const Ehdr *eh = (const void *)buf;
    if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 || eh->e_shoff >= size ||
        eh->e_shstrndx >= eh->e_shnum || eh->e_shoff + (size_t)eh->e_shnum * sizeof(Shdr) > size) {
        *why = fmt("%s: not an ELF file with sections", path);
        n = -1;
        goto done;
    }
    Shdr strs;
    memcpy(&strs, buf + eh->e_shoff + (size_t)eh->e_shstrndx * sizeof strs, sizeof strs);
    for (int i = 0; i < eh->e_shnum; i++) {
        Shdr sh;
        memcpy(&sh, buf + eh->e_shoff + (size_t)i * sizeof sh, sizeof sh);
        if (sh.sh_type != SHT_NOTE || strs.sh_offset + sh.sh_name >= size ||
            strcmp((const char *)buf + strs.sh_offset + sh.sh_name, ".note.stapsdt") != 0)
            continue;
        if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset) {
            *why = "the notes run past the file";
            n = -1;
            goto done;
        }
        const unsigned char *p = buf + sh.sh_offset, *end = p + sh.sh_size;
        while (end - p >= (long)sizeof(Nhdr)) {
            Nhdr nh;
            memcpy(&nh, p, sizeof nh);
            const unsigned char *name = p + sizeof nh;
            const unsigned char *desc = name + ((nh.n_namesz + 3u) & ~3u);
            const unsigned char *next = desc + ((nh.n_descsz + 3u) & ~3u);
            if (nh.n_namesz > sh.sh_size || nh.n_descsz > sh.sh_size || next > end) {
                *why = fmt("a note runs past the section at offset %ld", (long)(p - buf));
                n = -1;
                goto done;
            }
            p = next;
            if (nh.n_type != 3 || nh.n_namesz != 8 || memcmp(name, "stapsdt", 8) != 0)
                continue;
            const char *s = (const char *)desc + 3 * sizeof(uintptr_t),
                       *e = (const char *)desc + nh.n_descsz;
            const char *prov = s, *pn = prov + strnlen(prov, (size_t)(e - prov)) + 1;
            const char *args = pn < e ? pn + strnlen(pn, (size_t)(e - pn)) + 1 : e;
            if (nh.n_descsz < 3 * sizeof(uintptr_t) + 3 || args >= e) {
                *why = fmt("a stapsdt note without its three strings at offset %ld",
                           (long)(name - buf - (long)sizeof nh));
                n = -1;
                goto done;
            }
            if (n == cap &&
                !(*out = realloc(*out, (size_t)(cap = cap ? 2 * cap : 64) * sizeof **out))) {
                perror("model");
                exit(2);
            }
            struct note *t = &(*out)[n++];
            memset(t, 0, sizeof *t);
            snprintf(t->provider, sizeof t->provider, "%s", prov);
            snprintf(t->name, sizeof t->name, "%s", pn);
            for (const char *a = args; *a && a < e && t->nargs <= SDTKIT_MAX_ARGS;) {
                t->sizes[t->nargs++] = atoi(a);
                while (a < e && *a && *a != ' ')
                    a++;
                while (a < e && *a == ' ')
                    a++;
            }
            uint64_t pc = word_at(desc), sem = word_at(desc + 2 * sizeof(uintptr_t));
            t->pc = runtime_address(buf, size, st, pc);
            t->sem = sem ? runtime_address(buf, size, st, sem) : 0;
        }
    }
done:
    free(buf);
    if (fd >= 0)
        close(fd);
    return n;
}

/* A loaded probe as its object's notes must list it. */
struct want {
    const char *provider, *name;
    int nargs, sizes[SDTKIT_MAX_ARGS];
    uintptr_t sem, pc; /* the probe's semaphore (native), stub (libstapsdt's _fire), or 0 */
    int file;          /* which of the files */
};

/* The file a loaded provider's probes are in: its path (NULL: none). */
static const char *loaded_path(enum api api, int slot)
{
    return api == NATIVE ? sdtkit_provider_path(run.nat[slot]) : run.com[slot]->_filename;
}

/* R12, N11. Every loaded provider's object lists exactly the loaded
   probes of the providers in it, each under its provider's name, with
   its arguments' sizes (model.h, native_size; an ArgType_t's value), its
   note's semaphore the probe's own (native) and its site the probe's stub
   (libstapsdt's _fire, on x86-64 where that is the site); no two loaded
   probes share a semaphore or a stub. */
static void check_objects(struct answer *a)
{
    struct stat files[2 * SLOTS];
    char paths[2 * SLOTS][4096];
    int nfiles = 0;
    static struct want w[MAX_HANDLES];
    int nw = 0;
    for (int api = NATIVE; api <= COMPAT; api++)
        for (int s = 0; s < SLOTS; s++) {
            struct mprovider *p = provider_of(&run.m, (enum api)api, s);
            const char *path;
            struct stat st;
            if (!p->live || !p->loaded || !(path = loaded_path((enum api)api, s)) ||
                stat(path, &st) != 0)
                continue; /* a provider's path is its own check */
            int f = 0;
            while (f < nfiles && (files[f].st_ino != st.st_ino || files[f].st_dev != st.st_dev))
                f++;
            if (f == nfiles) {
                files[nfiles] = st;
                snprintf(paths[nfiles++], sizeof paths[0], "%s", path);
            }
            for (int i = 0; i < p->nhandles; i++) {
                struct mhandle *h = &run.m.h[p->handles[i]];
                if (api == COMPAT && !h->published)
                    continue;
                struct want *x = &w[nw++];
                memset(x, 0, sizeof *x);
                x->provider = p->name;
                x->name = h->name;
                x->nargs = h->nargs;
                x->file = f;
                for (int k = 0; k < h->nargs; k++)
                    x->sizes[k] = api == NATIVE ? native_size(h->types[k]) : h->types[k];
                if (api == NATIVE)
                    x->sem = (uintptr_t)sdtkit_probe_semaphore(run.nh[p->handles[i]]);
#if defined __x86_64__
                else
                    x->pc = (uintptr_t)run.ch[p->handles[i]]->_fire;
#endif
            }
        }
    if (!nfiles || run.m.nofile) /* (no descriptor to read them with) */
        return;
    read_maps();
    /* each probe a site of its own (sdtkit: "two sites of one probe") */
    bool own_sites = opt.target == SDTKIT;
    char diff[1024] = "";
#define SAY(...) snprintf(diff + strlen(diff), sizeof diff - strlen(diff), __VA_ARGS__)
    for (int i = 0; i < nw; i++)
        for (int j = 0; j < i && opt.target == SDTKIT; j++)
            if ((w[i].sem && w[i].sem == w[j].sem) || (w[i].pc && w[i].pc == w[j].pc))
                SAY("%s%s:%s and %s:%s share a %s", *diff ? "; " : "", w[i].provider, w[i].name,
                    w[j].provider, w[j].name, w[i].sem ? "semaphore" : "stub");
    for (int f = 0; f < nfiles; f++) {
        struct note *notes;
        const char *why = "";
        struct stat st;
        int n = read_notes(paths[f], &st, &notes, &why);
        if (n < 0) {
            SAY("%s%s", *diff ? "; " : "", why);
            continue;
        }
        for (int i = 0; i < nw; i++) {
            struct want *x = &w[i];
            if (x->file != f)
                continue;
            int k = 0;
            for (; k < n; k++) {
                struct note *t = &notes[k];
                if (t->matched || strcmp(t->provider, x->provider) != 0 ||
                    strcmp(t->name, x->name) != 0 || t->nargs != x->nargs ||
                    memcmp(t->sizes, x->sizes, (size_t)x->nargs * sizeof x->sizes[0]) != 0 ||
                    (x->sem && t->sem != x->sem) || (x->pc && own_sites && t->pc != x->pc))
                    continue;
                t->matched = true;
                break;
            }
            if (k == n)
                SAY("%sno note for %s:%s (%d arguments, semaphore %s)", *diff ? "; " : "",
                    x->provider, x->name, x->nargs, x->sem ? "its own" : "-");
            /* libstapsdt found a probe's stub by its name: probes of one
               name share the first one's, which is one of their sites */
            for (k = 0; !own_sites && x->pc && k < n; k++)
                if (notes[k].pc == x->pc && strcmp(notes[k].provider, x->provider) == 0 &&
                    strcmp(notes[k].name, x->name) == 0)
                    break;
            if (!own_sites && x->pc && k == n)
                SAY("%s%s:%s: its _fire is no site of its name", *diff ? "; " : "", x->provider,
                    x->name);
        }
        for (int k = 0; k < n; k++)
            if (!notes[k].matched)
                SAY("%sa note %s:%s (%d arguments) of no loaded probe", *diff ? "; " : "",
                    notes[k].provider, notes[k].name, notes[k].nargs);
        free(notes);
    }
#undef SAY
    field(a, "notes", !*diff, *diff ? fmt("%.600s", diff) : "as loaded",
          fmt("the %d loaded probes, in %d files", nw, nfiles));
}

/* The kind of file a path names: IN_MEMORY for /proc/PID/fd/N (this
   process's), IN_NAMED for DIR/sdtkit-PID-N.so of the directory given,
   0 for anything else or a file that is not there. */
static unsigned path_kind(const char *path, int *fd)
{
    struct stat st;
    char tail[32];
    int n = -1;
    *fd = -1;
    if (!path || stat(path, &st) != 0)
        return 0;
    if (sscanf(path, "/proc/%*d/fd/%d%31s", &n, tail) == 1 &&
        strcmp(path, fmt("/proc/%d/fd/%d", (int)getpid(), n)) == 0) {
        *fd = n;
        return IN_MEMORY;
    }
    const char *prefix = opt.dir ? fmt("%s/sdtkit-%d-", opt.dir, (int)getpid()) : NULL;
    size_t len = strlen(path);
    if (prefix && strncmp(path, prefix, strlen(prefix)) == 0 && len > 3 &&
        strcmp(path + len - 3, ".so") == 0)
        return IN_NAMED;
    return 0;
}

static const char *kinds_text(unsigned k)
{
    return k == IN_MEMORY  ? "/proc/PID/fd/N"
           : k == IN_NAMED ? "DIR/sdtkit-PID-N.so"
           : k             ? "/proc/PID/fd/N|DIR/sdtkit-PID-N.so"
                           : "another";
}

/* N8. sdtkit_provider_path: NULL while not loaded; loaded, the file the
   provider was asked to be in (a memory file, or a named file in the
   directory given), or the one it was in before: "loading again writes
   them back into the same object" leaves open which of the two a load
   after use_named_file (or memfd_disabled) is in.  The file exists. */
static void check_path(struct answer *a, enum api api, int slot, const char *path)
{
    struct mprovider *p = provider_of(&run.m, api, slot);
    int fd;
    if (!p->loaded) {
        if (api == NATIVE)
            field(a, "path", !path, str_text(path), "NULL");
        return;
    }
    unsigned allowed = p->asked | p->had, k = path_kind(path, &fd);
    bool ok = path && (k & allowed);
    field(a, api == NATIVE ? "path" : "_filename", ok,
          path ? fmt("%s", path_kind(path, &fd) ? kinds_text(k) : path) : "NULL",
          kinds_text(allowed));
    if (ok)
        p->had |= k;
    if (api == COMPAT && k == IN_MEMORY)
        field(a, "_memfd", run.com[slot]->_memfd == fd, fmt("%d", run.com[slot]->_memfd),
              fmt("%d (the N of _filename)", fd));
}

/* ---- <sdtkit.h> ------------------------------------------------------------------ */

static void check_message(struct answer *a, int slot)
{
    struct mprovider *p = &run.m.nat[slot];
    char want[512], alt[256];
    const char *msg = sdtkit_provider_error(run.nat[slot]);
    rec->calls++;
    message_class(&p->fail, want, sizeof want);
    if (p->alt)
        snprintf(want + strlen(want), sizeof want - strlen(want), " | %s",
                 message_class(&p->fail_alt, alt, sizeof alt));
    field(a, "error", message_check(p, msg), str_text(msg), want);
}

static void do_create(struct answer *a, const struct op *o)
{
    unsigned want = rule_create(o);
    sdtkit_provider *out = JUNK;
    int rc = sdtkit_provider_create(o->name, o->null_out ? NULL : &out);
    rec->calls++;
    result(a, "status", in_set(want, rc), status_name(rc), status_set(want));
    if (!o->null_out)
        result(a, "out", rc == 0 ? out && out != JUNK : !out, out == JUNK ? "unset" : ptr_text(out),
               rc == 0 ? "set" : "NULL");
    if (rc == 0 && out && out != JUNK)
        run.nat[o->slot] = out; /* destroyed at the end, whatever the model said */
    if (in_set(want, rc))
        model_apply(&run.m, o, rc);
}

/* N2, and the handle it gives: its name and number of arguments. */
static void do_add(struct answer *a, const struct op *o, const char *name, int nargs,
                   const int *types)
{
    struct model *m = &run.m;
    unsigned want = rule_add(m, o->slot, name, nargs, types, o->null_types, o->null_out);
    sdtkit_probe *out = JUNK;
    sdtkit_provider *pv = m->nat[o->slot].live ? run.nat[o->slot] : NULL;
    int rc = sdtkit_provider_add_probe(pv, name, o->null_types ? NULL : types, nargs,
                                       o->null_out ? NULL : &out);
    rec->calls++;
    result(a, "status", in_set(want, rc), status_name(rc), status_set(want));
    if (!o->null_out)
        result(a, "out", rc == 0 ? out && out != JUNK : !out, out == JUNK ? "unset" : ptr_text(out),
               rc == 0 ? "set" : "NULL");
    if (!in_set(want, rc))
        return;
    struct op one = *o;
    one.kind = N_ADD;
    one.name = name;
    one.nargs = nargs;
    memcpy(one.types, types, sizeof one.types);
    model_apply(m, &one, rc);
    if (rc == 0) {
        int k = m->nh - 1;
        run.nh[k] = out;
        field(a, "name", strcmp(sdtkit_probe_name(out), name) == 0,
              str_text(sdtkit_probe_name(out)), str_text(name));
        field(a, "nargs", sdtkit_probe_nargs(out) == nargs, fmt("%d", sdtkit_probe_nargs(out)),
              fmt("%d", nargs));
        rec->calls += 2;
        firing_add(k, out, NULL, nargs, m->h[k].types);
    } else if (pv) {
        check_message(a, o->slot);
    }
}

static void do_native(struct answer *a, const struct op *o)
{
    struct model *m = &run.m;
    sdtkit_provider *pv = m->nat[o->slot].live ? run.nat[o->slot] : NULL;
    unsigned want = rule_native(m, o);
    int rc = o->kind == N_LOAD     ? sdtkit_provider_load(pv)
             : o->kind == N_UNLOAD ? sdtkit_provider_unload(pv)
                                   : sdtkit_provider_use_named_file(pv, o->option ? opt.dir : NULL);
    rec->calls++;
    result(a, "status", in_set(want, rc), status_name(rc), status_set(want));
    if (!in_set(want, rc))
        return;
    model_apply(m, o, rc);
    if (!pv)
        return;
    if (rc != 0)
        check_message(a, o->slot);
    if (o->kind != N_NAMED) {
        const char *path = sdtkit_provider_path(pv);
        rec->calls++;
        check_path(a, NATIVE, o->slot, path);
        check_objects(a);
    }
}

static void do_destroy(struct answer *a, const struct op *o, enum api api)
{
    struct mprovider *p = provider_of(&run.m, api, o->slot);
    firing_expire(p->live ? p->nhandles : 0);
    if (api == NATIVE) {
        sdtkit_provider_destroy(p->live ? run.nat[o->slot] : NULL);
        run.nat[o->slot] = NULL;
    } else {
        providerDestroy(run.com[o->slot]);
        run.com[o->slot] = NULL;
    }
    rec->calls++;
    model_apply(&run.m, o, 0);
    check_objects(a);
}

/* R10, C6, C7: a handle, live or kept after its provider's destroy. */
static void do_probe(struct answer *a, const struct op *o)
{
    const struct mhandle *h = &run.m.h[o->slot];
    if (h->api == NATIVE) {
        const sdtkit_probe *p = run.nh[o->slot];
        const char *name = sdtkit_probe_name(p);
        const volatile unsigned short *sem = sdtkit_probe_semaphore(p);
        field(a, "name", name && strcmp(name, h->name) == 0, str_text(name), str_text(h->name));
        field(a, "nargs", sdtkit_probe_nargs(p) == h->nargs, fmt("%d", sdtkit_probe_nargs(p)),
              fmt("%d", h->nargs));
        field(a, "semaphore", sem && *sem == 0, sem ? fmt("%u", *sem) : "NULL", "0");
        bool on = fire_native(p, h->nargs, h->types);
        field(a, "enabled", !on, fmt("%d", on), "0 (no tracer)");
        rec->calls += 8;
        return;
    }
    SDTProbe_t *p = run.ch[o->slot];
    field(a, "name", p->name && strcmp(p->name, h->name) == 0, str_text(p->name),
          str_text(h->name));
    field(a, "argCount", p->argCount == h->nargs, fmt("%d", p->argCount), fmt("%d", h->nargs));
    bool fmt_ok = true;
    for (int i = 0; i < MAX_ARGUMENTS; i++)
        fmt_ok &= p->argFmt[i] == (i < h->nargs ? (ArgType_t)h->types[i] : noarg);
    field(a, "argFmt", fmt_ok, fmt_ok ? "as added" : "other", "the types, then noarg");
    if (h->retired < 0)
        field(a, "provider", p->provider == run.com[h->slot], ptr_text(p->provider),
              "its provider");
    void *fire = p->_fire;
    field(a, "_fire", !!fire == h->published, ptr_text(fire), h->published ? "set" : "NULL");
#if defined __x86_64__
    if (fire && h->published)
        field(a, "*_fire", *(const unsigned char *)fire == 0x90,
              fmt("%02x", *(const unsigned char *)fire), "90 (no tracer)");
#endif
    bool on = fire_compat(p, h->nargs, h->types);
    field(a, "probeIsEnabled", !on, fmt("%d", on), "0 (no tracer)");
    rec->calls += 2;
}

/* R9. sdtkit_strerror: "A status code's name and meaning, e.g.
   "SDTKIT_E_STATE: ..."": its name, a colon; something for any other. */
static void do_strerror(struct answer *a, const struct op *o)
{
    const char *s = sdtkit_strerror(o->slot);
    bool known = o->slot <= 0 && o->slot > -COUNT(status_names);
    const char *name = o->slot == 0 ? "SDTKIT_OK" : status_name(o->slot);
    bool ok = s && (!known || (strncmp(s, name, strlen(name)) == 0 && s[strlen(name)] == ':'));
    rec->calls++;
    field(a, "strerror", ok, str_text(s), known ? fmt("\"%s: ...\"", name) : "a string");
}

/* No descriptor left to open, or the limit as it was: RLIMIT_NOFILE at
   the lowest descriptor free (as tests/runtime/script.c's nofile). */
static void do_nofile(struct answer *a, const struct op *o)
{
    static struct rlimit was;
    static bool saved;
    struct rlimit rl;
    if (!saved && getrlimit(RLIMIT_NOFILE, &was) == 0)
        saved = true;
    rl = was;
    if (o->option) {
        int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
        rl.rlim_cur = fd < 0 ? 0 : (rlim_t)fd;
        if (fd >= 0)
            close(fd);
    }
    bool ok = saved && setrlimit(RLIMIT_NOFILE, &rl) == 0;
    field(a, "setrlimit", ok, ok ? "0" : strerror(errno), "0");
    if (ok)
        model_apply(&run.m, o, 0);
}

/* ---- <libstapsdt.h> --------------------------------------------------------------- */

static unsigned cerr_of(const SDTProvider_t *p)
{
    bool ok = providerErrno(p) == noError;
    return p->error ? (ok ? CE_OK_SET : CE_ERR_SET) : (ok ? CE_OK_NULL : CE_ERR_NULL);
}

static const char *cerr_text(unsigned set)
{
    static const char *const names[] = {"noError/NULL", "noError/message", "error/NULL",
                                        "error/message"};
    char *b = (char *)fmt("%s", "");
    for (int i = 0; i < 4; i++)
        if (set & (1u << i))
            snprintf(b + strlen(b), 640 - strlen(b), "%s%s", *b ? "|" : "", names[i]);
    return b;
}

/* The errno and error members against the cases the model allows; an
   error is an SDTError_t and a message is something.  What they are
   then is what the next call leaves "as they were". */
static void check_cerr(struct answer *a, int slot)
{
    struct mprovider *p = &run.m.com[slot];
    const SDTProvider_t *c = run.com[slot];
    unsigned got = cerr_of(c);
    int e = providerErrno(c);
    bool ok = (got & p->cerr) &&
              (e == noError || (e >= elfCreationError && e <= sharedLibraryCloseError)) &&
              (!c->error || *c->error);
    field(a, "errno/error", ok,
          fmt("%s%s", cerr_text(got), c->error ? fmt(" \"%.160s\"", c->error) : ""),
          cerr_text(p->cerr));
    if (ok)
        p->cerr = got;
}

/* C4, C5: the probe list (every probe added, newest first, as libstapsdt
   linked them) and each probe's _fire (set exactly while loaded by the
   provider's last load). */
static void check_probes(struct answer *a, int slot)
{
    struct mprovider *p = &run.m.com[slot];
    const SDTProbeList_t *n = run.com[slot]->probes;
    int i = p->nhandles - 1, fires = 0, wrong = 0;
    for (; n && i >= 0; n = n->next, i--) {
        const struct mhandle *h = &run.m.h[p->handles[i]];
        if (&n->probe != run.ch[p->handles[i]])
            break;
        fires += !!n->probe._fire;
        wrong += !!n->probe._fire != h->published;
    }
    field(a, "probes", !n && i < 0, !n && i < 0 ? "as added" : "other",
          fmt("the %d added, newest first", p->nhandles));
    field(a, "_fire", !wrong, fmt("%d set", fires), fmt("%d wrong", wrong));
}

static void do_init(struct answer *a, const struct op *o)
{
    SDTProvider_t *p = providerInit(o->name);
    rec->calls++;
    result(a, "provider", !!p == !!o->name, ptr_text(p), o->name ? "set" : "NULL");
    if (!p || !o->name) {
        if (p)
            run.com[o->slot] = p;
        return;
    }
    run.com[o->slot] = p;
    model_apply(&run.m, o, 0);
    field(a, "name", p->name && strcmp(p->name, o->name) == 0, str_text(p->name),
          str_text(o->name));
    field(a, "probes", !p->probes, ptr_text(p->probes), "NULL");
    field(a, "_handle", !p->_handle, ptr_text(p->_handle), "NULL");
    field(a, "_filename", !p->_filename, str_text(p->_filename), "NULL");
    field(a, "_memfd", p->_memfd == -1, fmt("%d", p->_memfd), "-1");
    field(a, "_use_memfd", p->_use_memfd == memfd_enabled, fmt("%d", p->_use_memfd), "1");
    check_cerr(a, o->slot);
}

static void do_memfd(struct answer *a, const struct op *o)
{
    SDTProvider_t *c = run.com[o->slot];
    struct mprovider *p = &run.m.com[o->slot];
    int want = rule_memfd(p, o->option), before = c->_use_memfd;
    int rc = providerUseMemfd(c, (MemFDOption_t)o->option);
    rec->calls++;
    result(a, "return", rc == want, fmt("%d", rc), fmt("%d", want));
    field(a, "_use_memfd", (int)c->_use_memfd == (rc ? o->option : before),
          fmt("%d", c->_use_memfd), fmt("%d", rc ? o->option : before));
    if (rc == want)
        model_apply(&run.m, o, rc);
    check_cerr(a, o->slot);
}

static void do_cadd(struct answer *a, const struct op *o, const char *name, int nargs,
                    const int *types)
{
    SDTProvider_t *c = run.com[o->slot];
    bool want = rule_cadd(name, nargs, types);
    SDTProbe_t *p = providerAddProbe(c, name, nargs, types[0], types[1], types[2], types[3],
                                     types[4], types[5], types[6]);
    rec->calls++;
    result(a, "probe", !!p == want, ptr_text(p), want ? "set" : "NULL");
    if (!!p != want)
        return;
    struct op one = *o;
    one.kind = C_ADD;
    one.name = name;
    one.nargs = nargs;
    memcpy(one.types, types, sizeof one.types);
    model_apply(&run.m, &one, 0);
    if (p) {
        int k = run.m.nh - 1;
        run.ch[k] = p;
        field(a, "name", strcmp(p->name, name) == 0, str_text(p->name), str_text(name));
        field(a, "argCount", p->argCount == nargs, fmt("%d", p->argCount), fmt("%d", nargs));
        field(a, "_fire", !p->_fire, ptr_text(p->_fire), "NULL");
        firing_add(k, NULL, p, nargs, run.m.h[k].types);
    }
    check_cerr(a, o->slot);
    if (o->kind == C_ADD)
        check_probes(a, o->slot);
}

static void do_cload(struct answer *a, const struct op *o)
{
    SDTProvider_t *c = run.com[o->slot];
    bool may_fail = o->kind == C_LOAD && cload_may_fail(&run.m, o->slot);
    int rc = o->kind == C_LOAD ? providerLoad(c) : providerUnload(c);
    rec->calls++;
    result(a, "return", rc == 0 || (rc == -1 && may_fail), fmt("%d", rc), may_fail ? "0|-1" : "0");
    if (rc != 0 && !(rc == -1 && may_fail)) {
        field(a, "errno/error", true,
              fmt("%d \"%.200s\"", (int)providerErrno(c), c->error ? c->error : "(null)"), "-");
        return;
    }
    model_apply(&run.m, o, rc);
    bool loaded = run.m.com[o->slot].loaded;
    field(a, "_handle", !!c->_handle == loaded, ptr_text(c->_handle), loaded ? "set" : "NULL");
    if (loaded)
        check_path(a, COMPAT, o->slot, c->_filename);
    else
        field(a, "_memfd", c->_memfd == -1, fmt("%d", c->_memfd), "-1");
    check_cerr(a, o->slot);
    check_probes(a, o->slot);
    check_objects(a);
}

/* ---- a sequence ------------------------------------------------------------------- */

/* A kind of mismatch: the API, the verb and the field. */
static void count_kind(const struct op *o, const char *field)
{
    char kind[48];
    snprintf(kind, sizeof kind, "%s %s: %s",
             o->kind == PROBE      ? (run.m.h[o->slot].api == NATIVE ? "n" : "c")
             : o->kind == STRERROR ? "n"
             : o->kind < STRERROR  ? "n"
                                   : "c",
             verbs[o->kind], field);
    for (int i = 0; i < rec->nkinds; i++)
        if (strcmp(rec->kinds[i], kind) == 0)
            return;
    if (rec->nkinds < 16)
        snprintf(rec->kinds[rec->nkinds++], sizeof rec->kinds[0], "%s", kind);
}

static void report(int at, const char *call, const struct answer *a)
{
    count_kind(&run.ops[at], a->bad);
    rec->mismatches++;
    if (rec->mismatches == 1)
        snprintf(rec->sig, sizeof rec->sig, "%.80s: %s", call, a->bad);
    if (run.quiet || rec->mismatches > opt.shown)
        return;
    printf("%s: call %d of %d, %s: %s differs%s\n  library: %s\n  model:   %s\n",
           opt.replay ? "replay" : fmt("seed %llu", (unsigned long long)run.seed), at + 1, run.nops,
           call, a->bad, a->fatal ? " (the sequence stops)" : "", a->lib, a->mod);
    fflush(stdout);
}

/* Whether o can run: a replay's op may name what it does not hold. */
static bool runnable(const struct op *o)
{
    const struct model *m = &run.m;
    switch (o->kind) {
    case N_CREATE:
        return !m->nat[o->slot].live;
    case N_ERROR:
    case N_PATH:
        return m->nat[o->slot].live;
    case N_NAMED:
        return opt.dir || !o->option;
    case PROBE:
        return o->slot >= 0 && o->slot < m->nh && !m->h[o->slot].expired;
    case C_INIT:
        return !m->com[o->slot].live;
    case C_MEMFD:
    case C_ADD:
    case C_ADDS:
    case C_LOAD:
    case C_UNLOAD:
    case C_DESTROY:
        return m->com[o->slot].live;
    default:
        return true;
    }
}

/* Run op i; false when the sequence stops. */
static bool step(int i)
{
    const struct op *o = &run.ops[i];
    char call[640];
    struct answer a;
    snprintf(call, sizeof call, "%s", op_text(o));
    rec->at = i;
    snprintf(rec->call, sizeof rec->call, "%.250s", call);
    if (!runnable(o)) {
        if (run.verbose)
            printf("%d: %s: (skipped: nothing to call it on)\n", i + 1, call);
        return true;
    }
    if (o->kind == N_ADDS || o->kind == C_ADDS) {
        for (int k = 0; k < o->count; k++) {
            char name[NAME_CAP];
            int nargs, types[SDTKIT_MAX_ARGS + 1] = {0};
            batch_probe(o, k, name, &nargs, types);
            memset(&a, 0, sizeof a);
            snprintf(rec->call, sizeof rec->call, "%.200s (%.40s)", call, name);
            if (o->kind == N_ADDS)
                do_add(&a, o, name, nargs, types);
            else
                do_cadd(&a, o, name, nargs, types);
            if (run.verbose && (k == 0 || k == o->count - 1 || a.bad))
                printf("%d: %s, %s: %s\n", i + 1, call, name, a.lib);
            if (a.bad)
                report(i, fmt("%s (%s)", call, name), &a);
            if (a.bad && a.fatal)
                return false;
        }
        if (o->kind == C_ADDS) {
            memset(&a, 0, sizeof a);
            check_probes(&a, o->slot);
            if (a.bad)
                report(i, call, &a);
        }
        return true;
    }
    memset(&a, 0, sizeof a);
    switch (o->kind) {
    case N_CREATE:
        do_create(&a, o);
        break;
    case N_ADD:
        do_add(&a, o, o->name, o->nargs, o->types);
        break;
    case N_LOAD:
    case N_UNLOAD:
    case N_NAMED:
        do_native(&a, o);
        break;
    case N_DESTROY:
        do_destroy(&a, o, NATIVE);
        break;
    case C_DESTROY:
        do_destroy(&a, o, COMPAT);
        break;
    case N_ERROR:
        check_message(&a, o->slot);
        break;
    case N_PATH:
        rec->calls++;
        check_path(&a, NATIVE, o->slot, sdtkit_provider_path(run.nat[o->slot]));
        break;
    case STRERROR:
        do_strerror(&a, o);
        break;
    case NOFILE:
        do_nofile(&a, o);
        break;
    case PROBE:
        do_probe(&a, o);
        break;
    case C_INIT:
        do_init(&a, o);
        break;
    case C_MEMFD:
        do_memfd(&a, o);
        break;
    case C_ADD:
        do_cadd(&a, o, o->name, o->nargs, o->types);
        break;
    case C_LOAD:
    case C_UNLOAD:
        do_cload(&a, o);
        break;
    default:
        break;
    }
    if (run.verbose)
        printf("%d: %s: %s\n", i + 1, call, *a.lib ? a.lib : "-");
    if (a.bad)
        report(i, call, &a);
    return !(a.bad && a.fatal);
}

/* Run ops[0 .. n) in this process, from a fresh model; then destroy what
   is left.  0, or MISMATCH_EXIT. */
static int run_sequence(const struct op *ops, int n)
{
    model_init(&run.m, opt.target);
    memset(run.nat, 0, sizeof run.nat);
    memset(run.com, 0, sizeof run.com);
    run.ops = ops;
    run.nops = n;
    firing_start();
    for (int i = 0; i < n && step(i); i++)
        ;
    firing_stop();
    rec->stopped = true;
    for (int s = 0; s < SLOTS; s++) {
        snprintf(rec->call, sizeof rec->call, "the end: n%d destroy, c%d destroy", s, s);
        sdtkit_provider_destroy(run.nat[s]);
        if (run.com[s])
            providerDestroy(run.com[s]);
    }
    fflush(stdout);
    return rec->mismatches ? MISMATCH_EXIT : 0;
}

/* ---- processes ----------------------------------------------------------------- */

/* How a sequence ended. */
struct outcome {
    enum {
        PASSED,
        MISMATCHED,
        CRASHED
    } how;
    char what[300]; /* the signature: a crash's signal and call, or the first mismatch */
};

/* Run ops in a child process; quiet: its output to /dev/null. */
static struct outcome run_child(const struct op *ops, int n, bool quiet)
{
    struct outcome out = {PASSED, ""};
    memset(rec, 0, sizeof *rec);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) {
        perror("model: fork");
        exit(2);
    }
    if (pid == 0) {
        if (quiet) {
            int null = open("/dev/null", O_WRONLY);
            dup2(null, 1);
            dup2(null, 2);
        }
        run.quiet = quiet;
        alarm(opt.wait);
        exit(run_sequence(ops, n));
    }
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0 && !rec->mismatches)
        return out;
    if (WIFEXITED(status) &&
        (WEXITSTATUS(status) == MISMATCH_EXIT || (WEXITSTATUS(status) == 0 && rec->mismatches))) {
        out.how = MISMATCHED;
        snprintf(out.what, sizeof out.what, "%s", rec->sig);
        return out;
    }
    /* a signal (a crash, or a sanitizer's abort), or another status (a
       sanitizer's or valgrind's report at exit) */
    out.how = CRASHED;
    bool signaled = WIFSIGNALED(status);
    const char *how = signaled && WTERMSIG(status) == SIGALRM
                          ? fmt("hung (no end in %u s)", opt.wait)
                      : signaled ? fmt("crashed (%s)", strsignal(WTERMSIG(status)))
                                 : fmt("died (exit %d)", WEXITSTATUS(status));
    const char *where = !rec->stopped ? fmt("in call %d of %d: %.200s", rec->at + 1, n, rec->call)
                        : signaled    ? fmt("in the end's destroys: %s", rec->call)
                                      : "at exit";
    snprintf(out.what, sizeof out.what, "%s %s", how, where);
    return out;
}

static bool same_failure(const struct outcome *a, const struct outcome *b)
{
    if (a->how != b->how)
        return false;
    if (a->how == MISMATCHED) {
        /* the same field of the same kind of call */
        const char *fa = strrchr(a->what, ':'), *fb = strrchr(b->what, ':');
        return fa && fb && strcmp(fa, fb) == 0;
    }
    return strncmp(a->what, b->what, strcspn(a->what, ")")) == 0; /* the same signal */
}

/* Shrink ops[0 .. *n) to fewer calls that fail as `was' does: drop runs of
   calls, halving their length down to single calls, again while that
   dropped some; then shrink batches.  At most `budget' runs. */
static void shrink(struct op *ops, int *n, const struct outcome *was, int budget)
{
    struct op *try = malloc((size_t)*n * sizeof *try);
    if (!try)
        return;
    for (bool dropped = true; dropped && budget > 0;) {
        dropped = false;
        for (int chunk = *n / 2 > 0 ? *n / 2 : 1; chunk >= 1 && budget > 0; chunk /= 2) {
            for (int at = 0; at + chunk <= *n && budget > 0;) {
                int m = 0;
                for (int i = 0; i < *n; i++)
                    if (i < at || i >= at + chunk)
                        try[m++] = ops[i];
                budget--;
                struct outcome o = run_child(try, m, true);
                if (same_failure(&o, was)) {
                    memcpy(ops, try, (size_t)m * sizeof *ops);
                    *n = m;
                    dropped = true;
                } else {
                    at += chunk;
                }
            }
        }
    }
    for (int i = 0; i < *n && budget > 0; i++)
        while ((ops[i].kind == N_ADDS || ops[i].kind == C_ADDS) && ops[i].count > 1 && budget > 0) {
            struct op keep = ops[i];
            ops[i].count = keep.count - (keep.count > 8 ? keep.count / 4 : 1);
            budget--;
            struct outcome o = run_child(ops, *n, true);
            if (!same_failure(&o, was)) {
                ops[i] = keep;
                break;
            }
        }
    free(try);
}

/* ---- main ------------------------------------------------------------------------- */

/* How many sequences failed in each way. */
struct failures {
    char kind[64];
    int sequences;
};

static void tally(struct failures *kinds, int *n, const char *kind)
{
    int j = 0;
    while (j < *n && strcmp(kinds[j].kind, kind) != 0)
        j++;
    if (j == *n && *n < 64) {
        snprintf(kinds[j].kind, sizeof kinds[j].kind, "%s", kind);
        kinds[(*n)++].sequences = 0;
    }
    if (j < *n)
        kinds[j].sequences++;
}

static int by_count(const void *a, const void *b)
{
    const struct failures *x = a, *y = b;
    return x->sequences != y->sequences ? y->sequences - x->sequences : strcmp(x->kind, y->kind);
}

static int usage(void)
{
    fputs("usage: model [-s SEED] [-n SEQUENCES] [-c CALLS] [-a both|native|compat] [-l] [-t]\n"
          "             [-d DIR] [-U | -L] [-x] [-w SECONDS] [-m SHOWN] [-P]\n"
          "       model -r [-d DIR] [-U | -L] [-t] < REPLAY\n",
          stderr);
    return 2;
}

static int replay(void)
{
    static struct op ops[MAX_OPS];
    char line[4096];
    int n = 0;
    while (n < MAX_OPS && fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\r\n")] = '\0';
        char *copy = strdup(line);
        if (op_parse(line, &ops[n]))
            n++;
        else if (copy && *copy && *copy != '#' && strncmp(copy, "> #", 3) != 0)
            fprintf(stderr, "model: not a call: %s\n", copy);
        free(copy);
    }
    run.verbose = true;
    int rc = run_sequence(ops, n);
    printf("model: replay of %d calls: %ld calls, %ld answers compared; %d mismatched\n", n,
           rec->calls, rec->answers, rec->mismatches);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    const char *api = "both";
    int c;
    while ((c = getopt(argc, argv, "a:c:d:lLm:n:Prs:tUw:x")) != -1) {
        switch (c) {
        case 'a':
            api = optarg;
            break;
        case 'c':
            opt.calls = atoi(optarg);
            break;
        case 'd':
            opt.dir = optarg;
            break;
        case 'l':
            opt.gen.late_adds = false;
            break;
        case 'L':
            opt.target = LIBSTAPSDT; /* fall through */
        case 'U':
            opt.gen.documented = true;
            break;
        case 'm':
            opt.shown = atoi(optarg);
            break;
        case 'n':
            opt.sequences = atoi(optarg);
            break;
        case 'P':
            opt.print = true;
            break;
        case 'r':
            opt.replay = true;
            break;
        case 's':
            opt.seed = strtoull(optarg, NULL, 10);
            break;
        case 't':
            opt.firing = false;
            break;
        case 'w':
            opt.wait = (unsigned)atoi(optarg);
            break;
        case 'x':
            opt.shrink = false;
            break;
        default:
            return usage();
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0); /* what was said before a crash */
    opt.gen.native = strcmp(api, "compat") != 0;
    opt.gen.compat = strcmp(api, "native") != 0;
    if (optind != argc || opt.calls < 1 || opt.calls > MAX_OPS || opt.sequences < 1 ||
        (strcmp(api, "both") && strcmp(api, "native") && strcmp(api, "compat")))
        return usage();
    if (opt.gen.documented) {
        /* libstapsdt's API alone, used as libstapsdt documents it */
        opt.gen.native = false;
        opt.gen.compat = true;
        opt.dir = NULL;
    }
    if (opt.target == LIBSTAPSDT)
        opt.firing = false; /* libstapsdt did not take fires beside unloads */
    opt.gen.named = opt.dir != NULL;
    /* the model's rules of where objects live: nothing from the caller's
       environment, and the named files in the directory given */
    unsetenv("SDTKIT_RUNTIME_NAMED");
    if (opt.dir && setenv("SDTKIT_RUNTIME_DIR", opt.dir, 1) != 0)
        return 2;
    rec = mmap(NULL, sizeof *rec, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (rec == MAP_FAILED) {
        perror("model: mmap");
        return 2;
    }
    if (opt.replay)
        return replay();

    static struct op ops[MAX_OPS];
    long calls = 0, answers = 0;
    int crashed = 0, mismatched = 0, shrunk = 0, nkinds = 0;
    static struct failures kinds[64];
    for (int i = 0; i < opt.sequences; i++) {
        uint64_t seed = opt.seed + (uint64_t)i;
        int n = generate(&run.m, seed, opt.calls, &opt.gen, ops);
        run.seed = seed;
        if (opt.print) {
            printf("# seed %llu\n", (unsigned long long)seed);
            for (int k = 0; k < n; k++)
                printf("> %s\n", op_text(&ops[k]));
            continue;
        }
        struct outcome o = run_child(ops, n, false);
        calls += rec->calls;
        answers += rec->answers;
        for (int k = 0; k < rec->nkinds; k++)
            tally(kinds, &nkinds, rec->kinds[k]);
        if (o.how == PASSED)
            continue;
        if (o.how == CRASHED) {
            crashed++;
            printf("seed %llu: %s\n", (unsigned long long)seed, o.what);
            /* and by the call it died in */
            char verb[32] = "";
            if (!rec->stopped && sscanf(rec->call, "%*s %31s", verb) == 1)
                tally(kinds, &nkinds,
                      fmt("%.*s in %c %s", (int)strcspn(o.what, " "), o.what, rec->call[0], verb));
            else
                tally(kinds, &nkinds, fmt("%.*s", (int)strcspn(o.what, ":"), o.what));
        } else {
            mismatched++;
            if (rec->mismatches > opt.shown)
                printf("seed %llu: %d more mismatches\n", (unsigned long long)seed,
                       rec->mismatches - opt.shown);
        }
        if (opt.shrink && !shrunk++) {
            shrink(ops, &n, &o, 1000);
            printf("replay of seed %llu, %d calls (model -r%s%s < FILE, these lines):\n",
                   (unsigned long long)seed, n, opt.dir ? " -d DIR" : "",
                   opt.target == LIBSTAPSDT ? " -L"
                   : opt.gen.documented     ? " -U"
                                            : "");
            for (int k = 0; k < n; k++)
                printf("> %s\n", op_text(&ops[k]));
        }
        fflush(stdout);
    }
    if (opt.print)
        return 0;
    qsort(kinds, (size_t)nkinds, sizeof kinds[0], by_count);
    if (nkinds)
        printf("sequences, by the calls that crashed and the answers that differed:\n");
    for (int j = 0; j < nkinds; j++)
        printf("%6d  %s\n", kinds[j].sequences, kinds[j].kind);
    printf("model: %d sequences of %d calls (seeds %llu-%llu, %s%s%s): %ld calls, %ld answers "
           "compared; %d crashed, %d mismatched\n",
           opt.sequences, opt.calls, (unsigned long long)opt.seed,
           (unsigned long long)(opt.seed + (uint64_t)opt.sequences - 1),
           opt.target == LIBSTAPSDT ? "libstapsdt's library, its documented use"
           : opt.gen.documented     ? "libstapsdt's API, its documented use"
                                    : api,
           opt.gen.late_adds ? "" : ", no adds to loaded providers",
           opt.firing ? ", a firing thread" : "", calls, answers, crashed, mismatched);
    return crashed || mismatched ? 1 : 0;
}
