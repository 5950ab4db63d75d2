/* SPDX-License-Identifier: MIT */
/* script: runs the run-time library's calls read from stdin, one per line,
   and prints what each returned, for the cases of tests/runtime/cases/.

     create NAME          sdtkit_provider_create       (NAME: a word, "" or NULL)
     add NAME TYPE...     sdtkit_provider_add_probe    (TYPE: u8 i8 u16 i16 u32 i32
                                                        u64 i64 ptr str flt dbl, or a number)
     load | unload | destroy | path [raw] | error
                          (path: /proc/PID/fd/N for a memory file's,
                          unless raw)
     fire NAME | enabled NAME
     sem NAME             which semaphore the probe reads: #K, the K-th
                          address seen (a slot's, or the library's zero)
     raise NAME | lower NAME
                          add 1 to its semaphore, or take 1, as a tracer
                          does; a probe not loaded has no semaphore of its
                          own (it reads the library's zero, which every
                          such probe shares): an error that ends the run
     init NAME            providerInit                 (libstapsdt's API)
     cadd NAME COUNT TYPE...  providerAddProbe         (TYPE: a number, as ArgType_t)
     cload | cunload | cdestroy | cmemfd 0|1 | cfilename [raw]
     cmany PREFIX N       providerAddProbe of PREFIX0 .. PREFIXN-1, an int32 each
     nofile [max]         no descriptor left to open (the limit set to the
                          lowest free one), or the limit back at its maximum
     cfire NAME | cenabled NAME
     handles NAME | chandles NAME
                          every handle of that name added so far (native or
                          libstapsdt's): how many, whether any two are the
                          same, and the names they read

   Each prints one line: the status (0 or the SDTKIT_E_ name; for libstapsdt
   calls the return value, then errno and error), and after a failed
   native call the provider's message.  "fire" and "enabled" print what the
   probe reads.  Probes are found by name among those added, also after
   their provider is destroyed (the handles stay valid).

   script -e echoes each command, "> COMMAND", before what it prints: the
   transcript a case file holds.  A command the driver refuses ends the
   run with a message on stderr and status 2. */
#include <libstapsdt.h>
#include <sdtkit.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MAX 512

static sdtkit_provider *pv;
static SDTProvider_t *cpv;
/* The native providers created, in order: loaded[K] while the K-th is
   loaded (the current one is pv, the last). */
static int loaded[MAX + 1];
static int nprovs;
static struct {
    char name[512];
    sdtkit_probe *p;
    SDTProbe_t *cp;
    int prov; /* the native provider it was added to */
} probes[MAX];
static int nprobes;
static const volatile unsigned short *sems[MAX];
static int nsems;

static const char *word(char **s)
{
    while (**s == ' ')
        (*s)++;
    if (!**s)
        return NULL;
    char *w = *s;
    while (**s && **s != ' ')
        (*s)++;
    if (**s)
        *(*s)++ = '\0';
    if (strcmp(w, "NULL") == 0)
        return "\1"; /* stands for the null pointer */
    return strcmp(w, "\"\"") == 0 ? "" : w;
}

static const char *arg(const char *w) { return w && strcmp(w, "\1") == 0 ? NULL : w; }

static int type_of(const char *w)
{
    static const char *const names[] = {"u8", "i8", "u16", "i16", "u32", "i32", "u64", "i64",
                                        "ptr", "str", "flt", "dbl"};
    static const int types[] = {SDTKIT_UINT8,   SDTKIT_INT8,   SDTKIT_UINT16, SDTKIT_INT16,
                                SDTKIT_UINT32,  SDTKIT_INT32,  SDTKIT_UINT64, SDTKIT_INT64,
                                SDTKIT_POINTER, SDTKIT_STRING, SDTKIT_FLOAT,  SDTKIT_DOUBLE};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(w, names[i]) == 0)
            return types[i];
    return atoi(w);
}

static void status(int rc)
{
    if (rc == 0) {
        puts("0");
        return;
    }
    const char *s = sdtkit_strerror(rc), *msg = sdtkit_provider_error(pv);
    printf("%.*s%s%s\n", (int)strcspn(s, ":"), s, *msg ? " " : "", msg);
}

static void cstatus(long rc)
{
    printf("%ld errno %d error %s\n", rc, cpv ? (int)providerErrno(cpv) : 0,
           cpv && cpv->error ? cpv->error : "(null)");
}

/* The last probe of that name added with the API compat says (libstapsdt's
 * or the native one). */
static int find(const char *name, int compat)
{
    for (int i = nprobes - 1; i >= 0; i--)
        if (name && strcmp(probes[i].name, name) == 0 && (compat ? !!probes[i].cp : !!probes[i].p))
            return i;
    return -1;
}

static void remember(const char *name, sdtkit_probe *p, SDTProbe_t *cp)
{
    if (nprobes < MAX && name && (p || cp)) {
        snprintf(probes[nprobes].name, sizeof probes[nprobes].name, "%s", name);
        probes[nprobes].p = p;
        probes[nprobes].cp = cp;
        probes[nprobes].prov = nprovs;
        nprobes++;
    }
}

/* Set the current native provider's state after a call that returned RC:
   loaded when it succeeded and LOAD is 1, not loaded when it succeeded and
   LOAD is 0. */
static void track(int rc, int load)
{
    if (rc == 0)
        loaded[nprovs] = load;
    status(rc);
}

/* raise or lower NAME's semaphore: refused (status 2) for a probe not
   loaded, whose semaphore address is the library's shared zero. */
static void move_semaphore(const char *cmd, const char *name, int i)
{
    if (i < 0) {
        puts("no such probe");
        return;
    }
    if (!loaded[probes[i].prov]) {
        fflush(stdout);
        fprintf(stderr,
                "script: %s %s: the probe is not loaded: only a loaded probe has a "
                "semaphore of its own to raise or lower (this write would go to the zero "
                "every unloaded probe reads)\n",
                cmd, name);
        exit(2);
    }
    volatile unsigned short *s = (volatile unsigned short *)sdtkit_probe_semaphore(probes[i].p);
    *s = (unsigned short)(*s + (cmd[0] == 'r' ? 1 : -1));
    printf("%s enabled %d\n", name, sdtkit_probe_is_enabled(probes[i].p));
}

static void run(char *line)
{
    const char *cmd = word(&line), *name = arg(word(&line));
    if (!cmd)
        return;
    int i = find(name, cmd[0] == 'c');
    if (strcmp(cmd, "create") == 0) {
        if (nprovs == MAX) {
            fprintf(stderr, "script: more than %d providers\n", MAX);
            exit(2);
        }
        nprovs++;
        status(sdtkit_provider_create(name, &pv));
    } else if (strcmp(cmd, "add") == 0) {
        int types[32], n = 0;
        for (const char *w; n < 32 && (w = word(&line));)
            types[n++] = type_of(w);
        sdtkit_probe *p = NULL;
        status(sdtkit_provider_add_probe(pv, name, types, n, &p));
        remember(name, p, NULL);
    } else if (strcmp(cmd, "load") == 0) {
        track(sdtkit_provider_load(pv), 1);
    } else if (strcmp(cmd, "unload") == 0) {
        track(sdtkit_provider_unload(pv), 0);
    } else if (strcmp(cmd, "destroy") == 0) {
        sdtkit_provider_destroy(pv);
        pv = NULL;
        track(0, 0);
    } else if (strcmp(cmd, "path") == 0) {
        const char *path = sdtkit_provider_path(pv);
        bool raw = name && strcmp(name, "raw") == 0;
        puts(!path ? "(null)" : !raw && strncmp(path, "/proc/", 6) == 0 ? "/proc/PID/fd/N" : path);
    } else if (strcmp(cmd, "error") == 0) {
        printf("[%s]\n", sdtkit_provider_error(pv));
    } else if (strcmp(cmd, "fire") == 0 || strcmp(cmd, "enabled") == 0) {
        sdtkit_value v[SDTKIT_MAX_ARGS] = {{0}};
        if (i < 0) {
            puts("no such probe");
            return;
        }
        if (cmd[0] == 'f')
            sdtkit_probe_fire(probes[i].p, v);
        printf("%s enabled %d\n", sdtkit_probe_name(probes[i].p),
               sdtkit_probe_is_enabled(probes[i].p));
    } else if (strcmp(cmd, "sem") == 0 && i >= 0) {
        const volatile unsigned short *s = sdtkit_probe_semaphore(probes[i].p);
        int k = 0;
        while (k < nsems && sems[k] != s)
            k++;
        if (k == nsems && nsems < MAX)
            sems[nsems++] = s;
        printf("%s semaphore #%d\n", name, k + 1);
    } else if (strcmp(cmd, "raise") == 0 || strcmp(cmd, "lower") == 0) {
        move_semaphore(cmd, name, i);
    } else if (strcmp(cmd, "handles") == 0 || strcmp(cmd, "chandles") == 0) {
        int n = 0, shared = 0;
        char names[512] = "";
        for (int k = 0; k < nprobes; k++) {
            void *hk = cmd[0] == 'c' ? (void *)probes[k].cp : (void *)probes[k].p;
            if (!hk || !name || strcmp(probes[k].name, name) != 0)
                continue;
            n++;
            for (int j = 0; j < k; j++)
                shared |= hk == (cmd[0] == 'c' ? (void *)probes[j].cp : (void *)probes[j].p);
            size_t used = strlen(names);
            snprintf(names + used, sizeof names - used, " %s",
                     cmd[0] == 'c' ? probes[k].cp->name : sdtkit_probe_name(probes[k].p));
        }
        printf("%s: %d handles, %s, named%s\n", name ? name : "(null)", n,
               shared ? "some the same" : "all different", names);
    } else if (strcmp(cmd, "init") == 0) {
        cpv = providerInit(name);
        puts(cpv ? "provider" : "NULL");
    } else if (strcmp(cmd, "cadd") == 0) {
        const char *count = word(&line);
        int t[8] = {0};
        for (int k = 0; k < 8; k++) {
            const char *w = word(&line);
            t[k] = w ? atoi(w) : 0;
        }
        SDTProbe_t *p = providerAddProbe(cpv, name, count ? atoi(count) : 0, t[0], t[1], t[2],
                                         t[3], t[4], t[5], t[6], t[7]);
        if (p)
            printf("probe %s argCount %d\n", p->name, p->argCount);
        else
            cstatus(0);
        remember(name, NULL, p);
    } else if (strcmp(cmd, "cload") == 0) {
        cstatus(providerLoad(cpv));
    } else if (strcmp(cmd, "cmany") == 0) {
        const char *count = word(&line);
        int n = count ? atoi(count) : 0, added = 0;
        for (int k = 0; k < n; k++) {
            char probe_name[64];
            snprintf(probe_name, sizeof probe_name, "%s%d", name ? name : "", k);
            SDTProbe_t *p = providerAddProbe(cpv, probe_name, 1, int32);
            added += p != NULL;
            remember(probe_name, NULL, p);
        }
        printf("%d probes\n", added);
    } else if (strcmp(cmd, "nofile") == 0) {
        struct rlimit rl;
        getrlimit(RLIMIT_NOFILE, &rl);
        if (name && strcmp(name, "max") == 0) {
            rl.rlim_cur = rl.rlim_max;
        } else { /* the lowest free descriptor: the next one opened */
            int fd = dup(0);
            rl.rlim_cur = fd < 0 ? 0 : (rlim_t)fd;
            if (fd >= 0)
                close(fd);
        }
        puts(setrlimit(RLIMIT_NOFILE, &rl) == 0 ? "0" : "setrlimit failed");
    } else if (strcmp(cmd, "cunload") == 0) {
        cstatus(providerUnload(cpv));
    } else if (strcmp(cmd, "cdestroy") == 0) {
        providerDestroy(cpv);
        cpv = NULL;
        puts("0");
    } else if (strcmp(cmd, "cmemfd") == 0) {
        printf("%d\n", providerUseMemfd(cpv, (MemFDOption_t)(name ? atoi(name) : 0)));
    } else if (strcmp(cmd, "cfilename") == 0) {
        const char *f = cpv ? cpv->_filename : NULL;
        bool raw = name && strcmp(name, "raw") == 0;
        puts(!f ? "(null)" : !raw && strncmp(f, "/proc/", 6) == 0 ? "/proc/PID/fd/N" : f);
    } else if (strcmp(cmd, "cfire") == 0 || strcmp(cmd, "cenabled") == 0) {
        if (i < 0) {
            puts("no such probe");
            return;
        }
        if (cmd[1] == 'f')
            probeFire(probes[i].cp, 1, 2, 3, 4, 5, 6);
        printf("%s fire %s enabled %d\n", probes[i].cp->name,
               probes[i].cp->_fire ? "set" : "NULL", probeIsEnabled(probes[i].cp));
    } else {
        printf("unknown command %s\n", cmd);
    }
}

int main(int argc, char **argv)
{
    int echo = argc > 1 && strcmp(argv[1], "-e") == 0;
    char line[4096];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        if (line[0] == '#' || !line[0])
            continue;
        if (echo)
            printf("> %s\n", line);
        run(line);
        fflush(stdout);
    }
    return 0;
}
