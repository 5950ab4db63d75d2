/* SPDX-License-Identifier: MIT */
/* bench/runtime.c: what run-time probes cost, beside a compiled-in probe.

     runtime MODE N      N iterations of a loop over one probe site, then
                         "ns/iter"; MODE is
       none              the loop without a probe
       compiled          if (BENCH_HIT_ENABLED ()) STAP_PROBE2 (bench, hit, ...)
       gated             if (sdtkit_probe_enabled (p)) sdtkit_probe_fire (p, ...)
       plain             STAP_PROBE2 (bench, hit, ...), unguarded
       native            sdtkit_probe_fire (p, ...), unguarded
       compat            probeFire (p, ...) (libstapsdt's API), unguarded
       cgated            if (probeIsEnabled (p)) probeFire (p, ...)
     runtime traced-compiled N OFFSET, runtime traced-runtime N
                         plain and compat with a uprobe on the probe,
                         enabled, counting (the compiled probe at file
                         OFFSET of this program): root and tracefs needed
     runtime load N PROBES
                         N times: create a provider of PROBES probes (two
                         arguments each), load, destroy; prints "ms/load",
                         the object's size and the memory a loaded provider
                         holds (RSS growth over 100 loaded providers).
     runtime reload N [native|compat]
                         N unload/load cycles of a loaded provider of two
                         probes, with the native API or libstapsdt's
                         (whichever libstapsdt.so.0 the loader finds);
                         prints the cycles that failed, the time per cycle,
                         and descriptors, mappings and RSS before, at their
                         peak (sampled every 100 cycles) and after.
     runtime churn N [native|compat]
                         N cycles of a short-lived provider with a name of
                         its own (jitK: create, add 4 probes, load, fire
                         each, unload, destroy); prints the cycles that
                         failed and the heap bytes held (malloc's), RSS,
                         descriptors and mappings after N/10 cycles and
                         after N, the heap bytes a cycle between, and
                         the objects (memory files and named files
                         mapped) after N/10 and after N.
     runtime many N P [native|compat]
                         N providers of P probes each (2 arguments), all
                         loaded at once; prints the loads that failed, the
                         CPU seconds of the N loads, the dlopen calls and
                         objects (memory files and named files mapped) they
                         made, and the RSS, heap and descriptors they hold.
     runtime growth N P [native|compat [FDS]]
                         the same loads, each timed: prints the loads that
                         failed and the CPU microseconds a load took on
                         average in each tenth of the N, first to last
                         (flat when a load's work does not grow with the
                         providers loaded before it); with FDS, as many
                         descriptors (of /dev/null) opened first.
     runtime forks N [native|compat]
                         a threaded server: a thread unloads and loads a
                         provider over and over while the main thread forks
                         N workers, one after the other; each loads the
                         provider again, fires it, destroys it and exits.
                         A worker not done within 10 seconds is stuck
                         (killed).  Prints the workers that finished, those
                         stuck, and the seconds of the N forks and waits.

   BENCH_THREADS=T runs a loop mode in T threads at once (each N iterations)
   and prints the wall time per iteration of one thread.
   Prints a checksum too, so that nothing is optimised away. */
#define _GNU_SOURCE
#define _SDT_HAS_SEMAPHORES 1
#include <libstapsdt.h>
#include <sdtkit.h>
#include <sys/sdt.h>

#include <dirent.h>
#include <dlfcn.h>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* What dtrace -h and -G would give for "probe hit(long, unsigned long)". */
__extension__ unsigned short bench_hit_semaphore
    __attribute__((section(".probes"), visibility("hidden")));
#define BENCH_HIT_ENABLED() __builtin_expect(bench_hit_semaphore, 0)

static const char *tracefs = "/sys/kernel/tracing";

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Write text to a tracefs file (appending, or replacing): 0 or -1. */
static int tracefs_write(const char *file, const char *text, int append)
{
    char path[256];
    snprintf(path, sizeof path, "%s/%s", tracefs, file);
    int fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A counting uprobe on path at offset, enabled; 0 or -1. */
static int uprobe_on(const char *path, unsigned long offset)
{
    char spec[4200];
    snprintf(spec, sizeof spec, "p:sdtkit_bench_rt/hit %s:0x%lx\n", path, offset);
    if (tracefs_write("uprobe_events", spec, 1) != 0)
        return -1;
    tracefs_write("tracing_on", "0", 0); /* counted, not logged */
    return tracefs_write("events/sdtkit_bench_rt/hit/enable", "1", 0);
}

static void uprobe_off(void)
{
    tracefs_write("events/sdtkit_bench_rt/hit/enable", "0", 0);
    tracefs_write("uprobe_events", "-:sdtkit_bench_rt/hit\n", 1);
    tracefs_write("tracing_on", "1", 0);
}

static sdtkit_provider *pv;
static sdtkit_probe *probe;
static SDTProvider_t *cpv;
static SDTProbe_t *cprobe;

static void setup(void)
{
    static const int types[] = {SDTKIT_INT64, SDTKIT_UINT64};
    if (sdtkit_provider_create("bench", &pv) ||
        sdtkit_provider_add_probe(pv, "hit", types, 2, &probe) || sdtkit_provider_load(pv)) {
        fprintf(stderr, "runtime: %s\n", sdtkit_provider_error(pv));
        exit(1);
    }
    cpv = providerInit("cbench");
    cprobe = cpv ? providerAddProbe(cpv, "hit", 2, int64, uint64) : NULL;
    if (!cprobe || providerLoad(cpv) != 0) {
        fprintf(stderr, "runtime: libstapsdt's API failed\n");
        exit(1);
    }
}

enum mode {
    NONE,
    COMPILED,
    GATED,
    PLAIN,
    NATIVE,
    COMPAT,
    CGATED
};

__attribute__((noinline)) static unsigned long run(enum mode m, long n)
{
    unsigned long x = 88172645463325252UL;
    for (long i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17; /* carried from one iteration to the next */
        switch (m) {
        case NONE:
            break;
        case COMPILED:
            if (BENCH_HIT_ENABLED())
                STAP_PROBE2(bench, hit, i, x);
            break;
        case GATED:
            if (sdtkit_probe_enabled(probe)) {
                sdtkit_value v[2] = {{.i = i}, {.u = x}};
                sdtkit_probe_fire(probe, v);
            }
            break;
        case PLAIN:
            STAP_PROBE2(bench, hit, i, x);
            break;
        case NATIVE: {
            sdtkit_value v[2] = {{.i = i}, {.u = x}};
            sdtkit_probe_fire(probe, v);
            break;
        }
        case COMPAT:
            probeFire(cprobe, (int64_t)i, (uint64_t)x);
            break;
        case CGATED:
            if (probeIsEnabled(cprobe))
                probeFire(cprobe, (int64_t)i, (uint64_t)x);
            break;
        }
    }
    return x;
}

struct job {
    enum mode mode;
    long n;
    unsigned long x;
};

static void *run_job(void *arg)
{
    struct job *j = arg;
    j->x = run(j->mode, j->n);
    return NULL;
}

/* run() in nthreads threads at once; the checksums xor'ed. */
static unsigned long run_threads(enum mode m, long n, int nthreads)
{
    struct job jobs[64];
    pthread_t t[64];
    unsigned long x = 0;
    for (int i = 0; i < nthreads; i++) {
        jobs[i] = (struct job){m, n, 0};
        if (pthread_create(&t[i], NULL, run_job, &jobs[i]) != 0)
            exit(1);
    }
    for (int i = 0; i < nthreads; i++) {
        pthread_join(t[i], NULL);
        x ^= jobs[i].x;
    }
    return x;
}

static long rss_kib(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    long pages = 0, resident = 0;
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

/* One provider of nprobes probes, loaded: 0 or -1. */
static int make(sdtkit_provider **p, const char *name, int nprobes)
{
    static const int types[] = {SDTKIT_INT64, SDTKIT_UINT64};
    if (sdtkit_provider_create(name, p) != 0)
        return -1;
    for (int k = 0; k < nprobes; k++) {
        char probe_name[32];
        sdtkit_probe *q;
        snprintf(probe_name, sizeof probe_name, "probe%d", k);
        if (sdtkit_provider_add_probe(*p, probe_name, types, 2, &q) != 0)
            return -1;
    }
    if (sdtkit_provider_load(*p) == 0)
        return 0;
    fprintf(stderr, "runtime: %s\n", sdtkit_provider_error(*p));
    return -1;
}

static int load(long n, int nprobes)
{
    double best = 1e9, total = 0;
    long size = 0;
    for (long r = 0; r < n; r++) {
        sdtkit_provider *p;
        double t0 = now();
        if (make(&p, "loadbench", nprobes) != 0)
            return 1;
        double t = now() - t0;
        total += t;
        best = t < best ? t : best;
        FILE *f = fopen(sdtkit_provider_path(p), "r");
        if (f && fseek(f, 0, SEEK_END) == 0)
            size = ftell(f);
        if (f)
            fclose(f);
        sdtkit_provider_destroy(p);
    }
    /* memory: 100 providers of one probe, loaded at once */
    sdtkit_provider *many[100];
    long before = rss_kib();
    for (int k = 0; k < 100; k++) {
        char name[32];
        snprintf(name, sizeof name, "mem%d", k);
        if (make(&many[k], name, 1) != 0)
            return 1;
    }
    long after = rss_kib();
    for (int k = 0; k < 100; k++)
        sdtkit_provider_destroy(many[k]);
    printf("%.3f ms/load (best %.3f), object %ld bytes, %.1f KiB per loaded provider\n",
           total * 1e3 / (double)n, best * 1e3, size, (double)(after - before) / 100);
    return 0;
}

/* Open descriptors and mappings of this process. */
static long count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    long n = 0;
    for (int c; f && (c = getc(f)) != EOF;)
        n += c == '\n';
    if (f)
        fclose(f);
    return n;
}

static long count_fds(void)
{
    long n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n - 1; /* the directory's own */
}

struct usage {
    long fds, maps, rss;
};

static void sample(struct usage *now, struct usage *peak)
{
    now->fds = count_fds();
    now->maps = count_lines("/proc/self/maps");
    now->rss = rss_kib();
    if (peak) {
        peak->fds = now->fds > peak->fds ? now->fds : peak->fds;
        peak->maps = now->maps > peak->maps ? now->maps : peak->maps;
        peak->rss = now->rss > peak->rss ? now->rss : peak->rss;
    }
}

/* n unload/load cycles of one loaded provider, native or libstapsdt's. */
static int reload(long n, bool use_compat)
{
    static const int types[] = {SDTKIT_INT64, SDTKIT_UINT64};
    sdtkit_provider *p = NULL;
    sdtkit_probe *q;
    SDTProvider_t *c = NULL;
    if (use_compat) {
        c = providerInit("reload");
        if (!c || !providerAddProbe(c, "a", 2, int64, uint64) ||
            !providerAddProbe(c, "b", 1, int32) || providerLoad(c) != 0)
            return 1;
    } else if (sdtkit_provider_create("reload", &p) != 0 ||
               sdtkit_provider_add_probe(p, "a", types, 2, &q) != 0 ||
               sdtkit_provider_add_probe(p, "b", types, 1, &q) != 0 ||
               sdtkit_provider_load(p) != 0) {
        return 1;
    }
    struct usage before, peak, after;
    sample(&before, NULL);
    peak = before;
    long failed = 0;
    double spent = 0;
    for (long i = 0; i < n; i++) {
        double t0 = now();
        int rc = use_compat ? providerUnload(c) | providerLoad(c)
                            : sdtkit_provider_unload(p) | sdtkit_provider_load(p);
        spent += now() - t0;
        failed += rc != 0;
        if (i % 100 == 99)
            sample(&after, &peak);
    }
    sample(&after, &peak);
    printf("reload %ld cycles %ld failed %.1f us/cycle fds %ld %ld %ld maps %ld %ld %ld "
           "rss %ld %ld %ld\n",
           n, failed, spent * 1e6 / (double)n, before.fds, peak.fds, after.fds, before.maps,
           peak.maps, after.maps, before.rss, peak.rss, after.rss);
    if (use_compat)
        providerDestroy(c);
    else
        sdtkit_provider_destroy(p);
    return 0;
}

/* dlopen, counted: the library's calls reach this one (the program's
 * definition comes first in the lookup scope), which calls libc's. */
static long dlopens;

void *dlopen(const char *file, int flags)
{
    static void *(*real)(const char *, int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "dlopen");
    dlopens++;
    return real(file, flags);
}

/* The heap bytes malloc holds for the program (in use, not free). */
static long heap_bytes(void)
{
    struct mallinfo2 mi = mallinfo2();
    return (long)(mi.uordblks + mi.hblkhd);
}

/* Objects mapped: memory files and named files of either library, each
 * counted once however many mappings it has (by inode). */
static long count_objects(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[4352];
    unsigned long seen[4096];
    long n = 0;
    while (f && fgets(line, sizeof line, f)) {
        unsigned long inode;
        int path = 0;
        if (sscanf(line, "%*s %*s %*s %*s %lu %n", &inode, &path) != 1 || !path)
            continue;
        const char *p = line + path;
        if (strncmp(p, "/memfd:sdtkit", 13) != 0 && strncmp(p, "/memfd:libstapsdt", 17) != 0 &&
            !strstr(p, "/sdtkit-") && !strstr(p, ".so (deleted)"))
            continue;
        bool dup = false;
        for (long k = 0; k < n && k < 4096; k++)
            dup |= seen[k] == inode;
        if (!dup && n < 4096)
            seen[n++] = inode;
    }
    if (f)
        fclose(f);
    return n;
}

static double cpu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One provider of libstapsdt's API called name, of nprobes probes with
 * two arguments, loaded: its probes in probes[] (NULL on failure). */
static SDTProvider_t *make_compat(const char *name, int nprobes, SDTProbe_t **probes)
{
    SDTProvider_t *c = providerInit(name);
    for (int k = 0; c && k < nprobes; k++) {
        char probe_name[32];
        snprintf(probe_name, sizeof probe_name, "probe%d", k);
        if (!(probes[k] = providerAddProbe(c, probe_name, 2, int64, uint64)))
            return NULL;
    }
    if (c && providerLoad(c) == 0)
        return c;
    fprintf(stderr, "runtime: %s\n", c && c->error ? c->error : "providerInit failed");
    return NULL;
}

/* n cycles of a provider with a name of its own, four probes. */
static int churn(long n, bool use_compat)
{
    static const int types[] = {SDTKIT_INT64, SDTKIT_UINT64};
    long warm = n / 10, failed = 0;
    struct usage u[2];
    long heap[2] = {0, 0}, objects[2] = {0, 0};
    for (long i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "jit%ld", i);
        if (use_compat) {
            SDTProbe_t *q[4];
            SDTProvider_t *c = make_compat(name, 4, q);
            failed += !c;
            for (int k = 0; c && k < 4; k++)
                probeFire(q[k], (int64_t)i, (uint64_t)k);
            if (c) {
                providerUnload(c);
                providerDestroy(c);
            }
        } else {
            sdtkit_provider *p;
            sdtkit_probe *q[4] = {NULL, NULL, NULL, NULL};
            int rc = sdtkit_provider_create(name, &p);
            for (int k = 0; rc == 0 && k < 4; k++) {
                char probe_name[32];
                snprintf(probe_name, sizeof probe_name, "probe%d", k);
                rc = sdtkit_provider_add_probe(p, probe_name, types, 2, &q[k]);
            }
            rc = rc ? rc : sdtkit_provider_load(p);
            failed += rc != 0;
            for (int k = 0; rc == 0 && k < 4; k++) {
                sdtkit_value v[2] = {{.i = i}, {.u = (uint64_t)k}};
                sdtkit_probe_fire(q[k], v);
            }
            if (rc == 0)
                sdtkit_provider_unload(p);
            sdtkit_provider_destroy(p);
        }
        if (i + 1 == warm || i + 1 == n) {
            int at = i + 1 == n;
            sample(&u[at], NULL);
            heap[at] = heap_bytes();
            objects[at] = count_objects();
        }
    }
    printf("churn %ld cycles %ld failed heap %ld %ld rss %ld %ld fds %ld %ld maps %ld %ld "
           "bytes/cycle %.1f objects %ld %ld\n",
           n, failed, heap[0], heap[1], u[0].rss, u[1].rss, u[0].fds, u[1].fds, u[0].maps,
           u[1].maps, (double)(heap[1] - heap[0]) / (double)(n - warm), objects[0], objects[1]);
    return 0;
}

/* n providers of nprobes probes, loaded at once. */
static int many(long n, int nprobes, bool use_compat)
{
    void **pv = calloc((size_t)n, sizeof *pv);
    sdtkit_probe **np = calloc((size_t)(n * nprobes), sizeof *np);
    SDTProbe_t **cp = calloc((size_t)(n * nprobes), sizeof *cp);
    if (!pv || !np || !cp || nprobes < 1 || nprobes > 64)
        return 1;
    static const int types[] = {SDTKIT_INT64, SDTKIT_UINT64};
    long rss0 = rss_kib(), heap0 = heap_bytes(), dl0 = dlopens, obj0 = count_objects();
    long fds0 = count_fds(), failed = 0;
    double spent = 0;
    for (long i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "unit%ld", i);
        if (use_compat) {
            SDTProvider_t *c = providerInit(name);
            for (int k = 0; c && k < nprobes; k++) {
                char probe_name[32];
                snprintf(probe_name, sizeof probe_name, "probe%d", k);
                cp[i * nprobes + k] = providerAddProbe(c, probe_name, 2, int64, uint64);
            }
            double t0 = cpu_now();
            int rc = c ? providerLoad(c) : -1;
            spent += cpu_now() - t0;
            failed += rc != 0;
            pv[i] = c;
        } else {
            sdtkit_provider *p = NULL;
            int rc = sdtkit_provider_create(name, &p);
            for (int k = 0; rc == 0 && k < nprobes; k++) {
                char probe_name[32];
                snprintf(probe_name, sizeof probe_name, "probe%d", k);
                rc = sdtkit_provider_add_probe(p, probe_name, types, 2, &np[i * nprobes + k]);
            }
            double t0 = cpu_now();
            rc = rc ? rc : sdtkit_provider_load(p);
            spent += cpu_now() - t0;
            failed += rc != 0;
            pv[i] = p;
        }
    }
    long rss1 = rss_kib(), heap1 = heap_bytes(), dl1 = dlopens, obj1 = count_objects();
    long fds1 = count_fds();
    for (long i = 0; i < n * nprobes; i++) {
        if (use_compat && cp[i]) {
            probeFire(cp[i], (int64_t)i, (uint64_t)i);
        } else if (!use_compat && np[i]) {
            sdtkit_value v[2] = {{.i = i}, {.u = (uint64_t)i}};
            sdtkit_probe_fire(np[i], v);
        }
    }
    for (long i = 0; i < n; i++) {
        if (use_compat && pv[i])
            providerDestroy(pv[i]);
        else if (!use_compat)
            sdtkit_provider_destroy(pv[i]);
    }
    printf("many %ld providers %d probes %ld failed cpu %.4f s dlopens %ld objects %ld "
           "rss %ld KiB heap %ld bytes fds %ld\n",
           n, nprobes, failed, spent, dl1 - dl0, obj1 - obj0, rss1 - rss0, heap1 - heap0,
           fds1 - fds0);
    free(pv);
    free(np);
    free(cp);
    return 0;
}

static double thread_cpu(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* n providers of nprobes probes loaded at once, each load timed, fds
 * more descriptors open: the mean CPU of a load in each tenth of the n. */
static int growth(long n, int nprobes, bool use_compat, long fds)
{
    enum { TENTHS = 10 };
    void **pv = calloc((size_t)n, sizeof *pv);
    if (!pv || n < TENTHS || nprobes < 1 || nprobes > 64)
        return 1;
    for (long i = 0; i < fds; i++) {
        if (open("/dev/null", O_RDONLY) < 0) {
            perror("runtime: growth: /dev/null");
            return 1;
        }
    }
    static const int types[] = {SDTKIT_INT64, SDTKIT_UINT64};
    double spent[TENTHS] = {0};
    long failed = 0;
    for (long i = 0; i < n; i++) {
        char name[32], probe_name[32];
        snprintf(name, sizeof name, "unit%ld", i);
        int rc;
        double t0;
        if (use_compat) {
            SDTProvider_t *c = providerInit(name);
            for (int k = 0; c && k < nprobes; k++) {
                snprintf(probe_name, sizeof probe_name, "probe%d", k);
                if (!providerAddProbe(c, probe_name, 2, int64, uint64))
                    c = NULL;
            }
            t0 = thread_cpu();
            rc = c ? providerLoad(c) : -1;
            pv[i] = c;
        } else {
            sdtkit_provider *p = NULL;
            sdtkit_probe *q;
            rc = sdtkit_provider_create(name, &p);
            for (int k = 0; rc == 0 && k < nprobes; k++) {
                snprintf(probe_name, sizeof probe_name, "probe%d", k);
                rc = sdtkit_provider_add_probe(p, probe_name, types, 2, &q);
            }
            t0 = thread_cpu();
            rc = rc ? rc : sdtkit_provider_load(p);
            pv[i] = p;
        }
        spent[i * TENTHS / n] += thread_cpu() - t0;
        failed += rc != 0;
    }
    printf("growth %ld providers %d probes %ld failed us/load", n, nprobes, failed);
    for (int t = 0; t < TENTHS; t++) {
        long first = (t * n + TENTHS - 1) / TENTHS, end = ((t + 1) * n + TENTHS - 1) / TENTHS;
        printf(" %.1f", spent[t] * 1e6 / (double)(end - first));
    }
    printf("\n");
    for (long i = 0; i < n; i++) {
        if (use_compat && pv[i])
            providerDestroy(pv[i]);
        else if (!use_compat)
            sdtkit_provider_destroy(pv[i]);
    }
    free(pv);
    return 0;
}

/* forks: the provider the toggling thread and the workers share. */
static struct {
    bool compat;
    sdtkit_provider *pv;
    sdtkit_probe *probe;
    SDTProvider_t *cpv;
    SDTProbe_t *cprobe;
    volatile int done;
} shared;

static void *toggling(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&shared.done, __ATOMIC_RELAXED)) {
        if (shared.compat) {
            providerUnload(shared.cpv);
            providerLoad(shared.cpv);
        } else {
            sdtkit_provider_unload(shared.pv);
            sdtkit_provider_load(shared.pv);
        }
    }
    return NULL;
}

/* A worker's own load, fire and destroy: its exit status. */
static int work(void)
{
    if (shared.compat) {
        providerUnload(shared.cpv);
        if (providerLoad(shared.cpv) != 0)
            return 1;
        probeFire(shared.cprobe, 1);
        providerDestroy(shared.cpv);
        return 0;
    }
    sdtkit_provider_unload(shared.pv); /* E_STATE when the toggler had unloaded it */
    if (sdtkit_provider_load(shared.pv) != 0)
        return 1;
    sdtkit_value v = {.i = 1};
    sdtkit_probe_fire(shared.probe, &v);
    sdtkit_provider_destroy(shared.pv);
    return 0;
}

/* Wait for worker pid, at most 10 seconds: 1 when it exited 0, 0 when it
 * failed, -1 when it was stuck (then killed). */
static int reap(pid_t pid)
{
    int status;
    for (double t0 = now(); now() - t0 < 10;) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid)
            return WIFEXITED(status) && WEXITSTATUS(status) == 0;
        if (got < 0)
            return 0;
        struct timespec ms = {0, 1000000};
        nanosleep(&ms, NULL);
    }
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    return -1;
}

static int forks(long n, bool use_compat)
{
    static const int types[] = {SDTKIT_INT64};
    shared.compat = use_compat;
    if (use_compat ? !(shared.cpv = providerInit("forks")) ||
                         !(shared.cprobe = providerAddProbe(shared.cpv, "tick", 1, int64)) ||
                         providerLoad(shared.cpv) != 0
                   : sdtkit_provider_create("forks", &shared.pv) != 0 ||
                         sdtkit_provider_add_probe(shared.pv, "tick", types, 1, &shared.probe) != 0 ||
                         sdtkit_provider_load(shared.pv) != 0)
        return 1;
    pthread_t t;
    if (pthread_create(&t, NULL, toggling, NULL) != 0)
        return 1;
    long finished = 0, stuck = 0;
    double t0 = now();
    for (long i = 0; i < n; i++) {
        pid_t pid = fork();
        if (pid < 0)
            return 1;
        if (pid == 0)
            _exit(work());
        int r = reap(pid);
        finished += r == 1;
        stuck += r < 0;
    }
    double spent = now() - t0;
    __atomic_store_n(&shared.done, 1, __ATOMIC_RELAXED);
    pthread_join(t, NULL);
    printf("forks %ld workers %ld finished %ld stuck %.2f s\n", n, finished, stuck, spent);
    return 0;
}

/* The uprobe a traced mode needs: 0, or -1 when the machine refuses. */
static int trace(const char *mode, int argc, char **argv)
{
    if (strcmp(mode, "traced-compiled") == 0)
        return argc > 3 ? uprobe_on("/proc/self/exe", strtoul(argv[3], NULL, 0)) : -1;
    /* libstapsdt's _fire is the probe's address: its offset in the object
     * (whose load address dladdr gives) is its file offset */
    Dl_info info;
    if (!dladdr(cprobe->_fire, &info))
        return -1;
    return uprobe_on(cpv->_filename,
                     (unsigned long)((uintptr_t)cprobe->_fire - (uintptr_t)info.dli_fbase));
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        enum mode mode;
    } modes[] = {{"none", NONE},
                 {"compiled", COMPILED},
                 {"gated", GATED},
                 {"plain", PLAIN},
                 {"native", NATIVE},
                 {"compat", COMPAT},
                 {"cgated", CGATED},
                 {"traced-compiled", PLAIN},
                 {"traced-runtime", COMPAT}};
    if (argc < 3) {
        fprintf(stderr, "usage: runtime MODE N [OFFSET | PROBES]\n");
        return 2;
    }
    long n = atol(argv[2]);
    if (strcmp(argv[1], "reload") == 0)
        return reload(n, argc > 3 && strcmp(argv[3], "compat") == 0);
    if (strcmp(argv[1], "load") == 0)
        return load(n, argc > 3 ? atoi(argv[3]) : 1000);
    if (strcmp(argv[1], "churn") == 0)
        return churn(n, argc > 3 && strcmp(argv[3], "compat") == 0);
    if (strcmp(argv[1], "many") == 0)
        return many(n, argc > 3 ? atoi(argv[3]) : 2, argc > 4 && strcmp(argv[4], "compat") == 0);
    if (strcmp(argv[1], "forks") == 0)
        return forks(n, argc > 3 && strcmp(argv[3], "compat") == 0);
    if (strcmp(argv[1], "growth") == 0)
        return growth(n, argc > 3 ? atoi(argv[3]) : 2, argc > 4 && strcmp(argv[4], "compat") == 0,
                      argc > 5 ? atol(argv[5]) : 0);
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(argv[1], modes[i].name) != 0)
            continue;
        setup();
        bool traced = strncmp(argv[1], "traced", 6) == 0;
        if (traced && trace(argv[1], argc, argv) != 0) {
            fprintf(stderr, "runtime: cannot register a uprobe (root and tracefs needed)\n");
            return 1;
        }
        const char *env = getenv("BENCH_THREADS");
        int nthreads = env ? atoi(env) : 1;
        if (nthreads < 1 || nthreads > 64)
            nthreads = 1;
        double t0 = now();
        unsigned long x =
            nthreads > 1 ? run_threads(modes[i].mode, n, nthreads) : run(modes[i].mode, n);
        double t = now() - t0;
        if (traced)
            uprobe_off();
        printf("%.3f ns/iter %lu\n", t * 1e9 / (double)n, x);
        sdtkit_provider_destroy(pv);
        providerDestroy(cpv);
        return 0;
    }
    fprintf(stderr, "runtime: unknown mode %s\n", argv[1]);
    return 2;
}
