/* SPDX-License-Identifier: MIT */
/* bench/lttng.c: a traced event's cost, the same probe (a string and a
   64-bit integer) through sdtkit's run-time probe recorded by LTTng-UST,
   through a tracepoint lttng-gen-tp made (bench/lttng-tp.tp, compiled in:
   the program links liblttng-ust), and through the run-time probe under
   a uprobe; bench/run's figure 9.

     lttng MODE N [RATE]   N iterations of a loop over one site, then
                           "NS ns/iter CPU cpu-ns/iter": wall time, and the
                           thread's CPU time (user and system: a uprobe's
                           trap too), which other work on the machine
                           changes less; RATE events a second (paced: the
                           loop waits for its time every 64 iterations),
                           0 or none as fast as it goes.  MODE is
       none                the loop without a probe
       sdtkit              sdtkit_probe_fire (p, v): probe sdtbench:hit (s, n)
       gentp               lttng_ust_tracepoint (gentp, hit, s, n)
       traced              sdtkit's, once a tracer is attached (its
                           semaphore raised): prints "ready PID PATH" first
                           and waits for it
     lttng tick N SECONDS  N probes loaded (liblttng-ust in the process, no
                           session), then SECONDS of sleep: prints the CPU
                           time sdtkit's thread (sdtkit-lttng) took meanwhile,
                           looking at the events' state every 10 ms:
                           "tick N probes NS ns-cpu S s" */
#define _GNU_SOURCE
#include <sdtkit.h>

#include "gentp.h" /* lttng-gen-tp's (gentp.c defines the tracepoint) */

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double clock_of(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now(void) { return clock_of(CLOCK_MONOTONIC); }

/* The CPU time (ns, schedstat's) of this process's thread called
 * sdtkit-lttng, or -1. */
static long long worker_cpu(void)
{
    DIR *d = opendir("/proc/self/task");
    long long ns = -1;
    for (struct dirent *e; d && (e = readdir(d));) {
        char path[300], comm[32] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int ours = fgets(comm, sizeof comm, f) && strncmp(comm, "sdtkit-lttng", 12) == 0;
        fclose(f);
        snprintf(path, sizeof path, "/proc/self/task/%s/schedstat", e->d_name);
        if (ours && (f = fopen(path, "r"))) {
            if (fscanf(f, "%lld", &ns) != 1)
                ns = -1;
            fclose(f);
        }
    }
    if (d)
        closedir(d);
    return ns;
}

/* tick N SECONDS (see the top). */
static int tick(long n, int seconds)
{
    sdtkit_provider *pv;
    static const int types[] = {SDTKIT_INT64};
    if (sdtkit_provider_create("sdttick", &pv) != 0)
        return 1;
    for (long i = 0; i < n; i++) {
        char name[32];
        sdtkit_probe *p;
        snprintf(name, sizeof name, "p%ld", i);
        if (sdtkit_provider_add_probe(pv, name, types, 1, &p) != 0)
            return 1;
    }
    if (sdtkit_provider_load(pv) != 0)
        return 1;
    long long c0 = worker_cpu();
    sleep((unsigned)seconds);
    long long c1 = worker_cpu();
    printf("tick %ld probes %lld ns-cpu %d s\n", n, c0 < 0 || c1 < 0 ? -1 : c1 - c0, seconds);
    sdtkit_provider_destroy(pv);
    return 0;
}

/* What the loop hands each site: a string that changes with i (as a
   request's path would), and i. */
static const char *const paths[] = {"/index.html", "/about", "/api/v1/items", "/login"};

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: lttng none|sdtkit|gentp|traced N [RATE]\n");
        return 2;
    }
    const char *mode = argv[1];
    long n = atol(argv[2]);
    if (strcmp(mode, "tick") == 0)
        return tick(n, argc > 3 ? atoi(argv[3]) : 5);
    double rate = argc > 3 ? atof(argv[3]) : 0;
    static const int types[] = {SDTKIT_STRING, SDTKIT_INT64};
    static const char *const names[] = {"s", "n"};
    sdtkit_provider *pv;
    sdtkit_probe *p;
    if (sdtkit_provider_create("sdtbench", &pv) ||
        sdtkit_provider_add_probe_named(pv, "hit", types, names, 2, &p) ||
        sdtkit_provider_load(pv)) {
        fprintf(stderr, "lttng: %s\n", sdtkit_provider_error(pv));
        return 1;
    }
    int m = strcmp(mode, "none") == 0     ? 0
            : strcmp(mode, "sdtkit") == 0 ? 1
            : strcmp(mode, "gentp") == 0  ? 2
            : strcmp(mode, "traced") == 0 ? 1
                                          : -1;
    if (m < 0) {
        fprintf(stderr, "lttng: no mode %s\n", mode);
        return 2;
    }
    if (strcmp(mode, "traced") == 0) {
        printf("ready %ld %s\n", (long)getpid(), sdtkit_provider_path(pv));
        fflush(stdout);
        struct timespec ms = {0, 1000000};
        while (!sdtkit_probe_enabled(p))
            nanosleep(&ms, NULL);
    }
    volatile long sink = 0;
    double t0 = now(), c0 = clock_of(CLOCK_THREAD_CPUTIME_ID);
    for (long i = 0; i < n; i++) {
        if (rate > 0 && (i & 63) == 0)
            while (now() - t0 < (double)i / rate)
                ;
        const char *s = paths[i & 3];
        switch (m) {
        case 1: {
            sdtkit_value v[2] = {{.p = s}, {.i = i}};
            sdtkit_probe_fire(p, v);
            break;
        }
        case 2:
            lttng_ust_tracepoint(gentp, hit, s, i);
            break;
        default:
            sink += (long)s[0];
            break;
        }
    }
    double t = now() - t0, c = clock_of(CLOCK_THREAD_CPUTIME_ID) - c0;
    printf("%.2f ns/iter %.2f cpu-ns/iter %ld\n", t * 1e9 / (double)n, c * 1e9 / (double)n, (long)sink);
    sdtkit_provider_destroy(pv);
    return 0;
}
