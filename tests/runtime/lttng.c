/* SPDX-License-Identifier: MIT */
/* lttng: the run-time libraries' calls, read from stdin one per line, for
   tests/runtime-lttng.bats: run-time probes recorded by LTTng-UST.

     native P [NAME] | compat P [NAME]
                             sdtkit_provider_create / providerInit of
                             provider NAME (default P), called P below
     probe P N SPEC...       add probe N to provider P: SPEC is a type (u8
                             i8 u16 i16 u32 i32 u64 i64 ptr str flt dbl;
                             libstapsdt's API: the integers), NAME=TYPE
                             names the argument (native API)
     load P | unload P | destroy P
     fire P N VALUE...       fire it once: each value as its type reads it
                             (a number, a string), libstapsdt's probeFire
                             with every value as 64 bits (its x86-64 slots)
     burst P N COUNT VALUE...
                             fire COUNT times; a value "#" is the index
     enabled P N             whether is-enabled says so now
     await P N 0|1           wait (1 ms at a time) until is-enabled says so
     reload P N              unload and load P (1 ms apart) until is-enabled
                             of N says 1: a name taken becomes free once
                             lttng.c's thread unregistered its events
     status                  sdtkit_lttng_status()
     enable                  sdtkit_lttng_enable()
     dlopen FILE             dlopen(FILE, RTLD_NOW)
     path P                  the provider's object
     fork P N COUNT          a child fires P:N COUNT times (its index),
                             prints "in the child: " and its status, and
                             exits; the parent waits: child STATUS
     threads                 the number of threads of the process, and
                             those called sdtkit-lttng
     counts                  its threads, descriptors and mappings
     quit

   Each command prints one line, after which stdout is flushed; "ready
   PID" comes first. */
#define _GNU_SOURCE
#include <libstapsdt.h>
#include <sdtkit.h>

#include <dirent.h>
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX 64

static struct {
    char name[400];
    sdtkit_provider *pv;
    SDTProvider_t *cpv;
} provs[MAX];
static int nprovs;

static struct {
    char prov[400], name[400];
    sdtkit_probe *p;
    SDTProbe_t *cp;
    int types[SDTKIT_MAX_ARGS];
} probes[MAX];
static int nprobes;

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
    return w;
}

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
    return 0;
}

static int prov(const char *name)
{
    for (int i = 0; name && i < nprovs; i++)
        if (strcmp(provs[i].name, name) == 0)
            return i;
    return -1;
}

static int probe(const char *p, const char *n)
{
    for (int i = nprobes - 1; p && n && i >= 0; i--)
        if (strcmp(probes[i].prov, p) == 0 && strcmp(probes[i].name, n) == 0)
            return i;
    return -1;
}

static int enabled(int i)
{
    return probes[i].cp ? probeIsEnabled(probes[i].cp) : sdtkit_probe_enabled(probes[i].p);
}

/* Fire probe i once, its values the words of line ("#": k). */
static void fire(int i, const char *line, long k)
{
    sdtkit_value v[SDTKIT_MAX_ARGS] = {{0}};
    char buf[1024], strs[SDTKIT_MAX_ARGS][256];
    snprintf(buf, sizeof buf, "%s", line);
    char *s = buf;
    int n = 0;
    for (const char *w; n < SDTKIT_MAX_ARGS && (w = word(&s)); n++) {
        int t = probes[i].types[n];
        if (strcmp(w, "#") == 0) {
            v[n].i = k;
        } else if (t == SDTKIT_STRING) {
            snprintf(strs[n], sizeof strs[n], "%s", w);
            v[n].p = strs[n];
        } else if (t == SDTKIT_FLOAT || t == SDTKIT_DOUBLE) {
            v[n].d = strtod(w, NULL);
        } else if (t == SDTKIT_POINTER || t > 0) {
            v[n].u = strtoull(w, NULL, 0);
        } else {
            v[n].i = strtoll(w, NULL, 0);
        }
    }
    if (probes[i].p)
        sdtkit_probe_fire(probes[i].p, v);
    else /* libstapsdt's: every value in a 64-bit slot, as x86-64 passes them */
        probeFire(probes[i].cp, v[0].u, v[1].u, v[2].u, v[3].u, v[4].u, v[5].u);
}

/* The entries of directory path (sep 0), or its lines (sep '\n'). */
static int count(const char *path, char sep)
{
    int n = 0;
    if (sep) {
        FILE *f = fopen(path, "r");
        for (int c; f && (c = getc(f)) != EOF;)
            n += c == sep;
        if (f)
            fclose(f);
        return n;
    }
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n - (strcmp(path, "/proc/self/fd") == 0); /* opendir's own */
}

static void threads(void)
{
    DIR *d = opendir("/proc/self/task");
    int n = 0, ours = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (e->d_name[0] == '.')
            continue;
        n++;
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (f && fgets(comm, sizeof comm, f) && strncmp(comm, "sdtkit-lttng", 12) == 0)
            ours++;
        if (f)
            fclose(f);
    }
    if (d)
        closedir(d);
    printf("threads %d sdtkit-lttng %d\n", n, ours);
}

static void run(char *line)
{
    const char *cmd = word(&line), *pn = word(&line);
    if (!cmd)
        return;
    int p = prov(pn);
    if (strcmp(cmd, "native") == 0 || strcmp(cmd, "compat") == 0) {
        if (!pn || nprovs == MAX) {
            puts("bad");
            return;
        }
        snprintf(provs[nprovs].name, sizeof provs[nprovs].name, "%s", pn);
        const char *real = word(&line);
        real = real ? real : pn;
        int rc = 0;
        if (cmd[0] == 'n')
            rc = sdtkit_provider_create(real, &provs[nprovs].pv);
        else
            rc = (provs[nprovs].cpv = providerInit(real)) ? 0 : -1;
        nprovs++;
        printf("%s %d\n", cmd, rc);
    } else if (strcmp(cmd, "probe") == 0 && p >= 0 && nprobes < MAX) {
        const char *n = word(&line);
        int types[SDTKIT_MAX_ARGS], k = 0;
        char names[SDTKIT_MAX_ARGS][64];
        const char *argnames[SDTKIT_MAX_ARGS];
        bool named = false;
        for (const char *w; k < SDTKIT_MAX_ARGS && (w = word(&line)); k++) {
            const char *eq = strchr(w, '=');
            snprintf(names[k], sizeof names[k], "%.*s", eq ? (int)(eq - w) : 0, w);
            argnames[k] = names[k];
            named |= eq != NULL;
            types[k] = eq ? type_of(eq + 1) : type_of(w);
        }
        int rc;
        memcpy(probes[nprobes].types, types, sizeof types);
        snprintf(probes[nprobes].prov, sizeof probes[nprobes].prov, "%s", pn);
        snprintf(probes[nprobes].name, sizeof probes[nprobes].name, "%s", n ? n : "");
        if (provs[p].pv) {
            rc = sdtkit_provider_add_probe_named(provs[p].pv, n, types, named ? argnames : NULL,
                                                 k, &probes[nprobes].p);
            if (rc)
                printf("probe %s %s\n", sdtkit_strerror(rc), sdtkit_provider_error(provs[p].pv));
        } else {
            probes[nprobes].cp = providerAddProbe(provs[p].cpv, n, k, types[0], types[1],
                                                  types[2], types[3], types[4], types[5]);
            rc = probes[nprobes].cp ? 0 : -1;
        }
        if (rc == 0) {
            nprobes++;
            puts("probe 0");
        } else if (!provs[p].pv) {
            puts("probe -1");
        }
    } else if ((strcmp(cmd, "load") == 0 || strcmp(cmd, "unload") == 0) && p >= 0) {
        int rc;
        if (provs[p].pv)
            rc = cmd[0] == 'l' ? sdtkit_provider_load(provs[p].pv)
                               : sdtkit_provider_unload(provs[p].pv);
        else
            rc = cmd[0] == 'l' ? providerLoad(provs[p].cpv) : providerUnload(provs[p].cpv);
        if (provs[p].cpv && provs[p].cpv->error)
            printf("%s %d error %s\n", cmd, rc, provs[p].cpv->error);
        else
            printf("%s %d\n", cmd, rc);
    } else if (strcmp(cmd, "destroy") == 0 && p >= 0) {
        if (provs[p].pv)
            sdtkit_provider_destroy(provs[p].pv);
        else
            providerDestroy(provs[p].cpv);
        provs[p].name[0] = '\0';
        provs[p].pv = NULL;
        provs[p].cpv = NULL;
        puts("destroy 0");
    } else if (strcmp(cmd, "path") == 0 && p >= 0) {
        const char *path = provs[p].pv ? sdtkit_provider_path(provs[p].pv) : provs[p].cpv->_filename;
        printf("path %s\n", path ? path : "(null)");
    } else if (strcmp(cmd, "fire") == 0 || strcmp(cmd, "burst") == 0 ||
               strcmp(cmd, "enabled") == 0 || strcmp(cmd, "await") == 0 ||
               strcmp(cmd, "fork") == 0 || strcmp(cmd, "reload") == 0) {
        int i = probe(pn, word(&line));
        if (i < 0) {
            puts("no such probe");
            return;
        }
        if (cmd[0] == 'f' && cmd[1] == 'i') {
            fire(i, line, 0);
        } else if (cmd[0] == 'b') {
            long count = atol(word(&line));
            for (long k = 0; k < count; k++)
                fire(i, line, k);
        } else if (cmd[0] == 'r') {
            struct timespec ms = {0, 1000000};
            while (enabled(i) != 1 && p >= 0) {
                nanosleep(&ms, NULL);
                if (provs[p].pv)
                    sdtkit_provider_unload(provs[p].pv), sdtkit_provider_load(provs[p].pv);
                else
                    providerUnload(provs[p].cpv), providerLoad(provs[p].cpv);
            }
            cmd = "reloaded";
        } else if (cmd[0] == 'a') {
            const char *w = word(&line);
            int want = w && atoi(w);
            struct timespec ms = {0, 1000000};
            while (enabled(i) != want)
                nanosleep(&ms, NULL);
        } else if (cmd[0] == 'f') {
            long count = atol(word(&line));
            fflush(stdout);
            pid_t c = fork();
            if (c == 0) {
                for (long k = 0; k < count; k++)
                    fire(i, "#", k);
                printf("in the child: %s\n", sdtkit_lttng_status());
                fflush(stdout);
                _exit(0);
            }
            int st = -1;
            waitpid(c, &st, 0);
            printf("child %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
            return;
        }
        printf("%s %s:%s %d\n", cmd[0] == 'a' ? "enabled" : cmd, probes[i].prov, probes[i].name,
               enabled(i));
    } else if (strcmp(cmd, "status") == 0) {
        printf("%s\n", sdtkit_lttng_status());
    } else if (strcmp(cmd, "enable") == 0) {
        printf("enable %s\n", sdtkit_strerror(sdtkit_lttng_enable()));
    } else if (strcmp(cmd, "dlopen") == 0) {
        printf("dlopen %s\n", pn && dlopen(pn, RTLD_NOW) ? "ok" : dlerror());
    } else if (strcmp(cmd, "threads") == 0) {
        threads();
    } else if (strcmp(cmd, "counts") == 0) {
        printf("threads %d fds %d maps %d\n", count("/proc/self/task", '\0'),
               count("/proc/self/fd", '\0'), count("/proc/self/maps", '\n'));
    } else if (strcmp(cmd, "quit") == 0) {
        exit(0);
    } else {
        printf("bad command %s\n", cmd);
    }
}

int main(void)
{
    printf("ready %ld\n", (long)getpid());
    fflush(stdout);
    char line[2048];
    while (fgets(line, sizeof line, stdin)) {
        line[strcspn(line, "\n")] = '\0';
        run(line);
        fflush(stdout);
    }
    return 0;
}
