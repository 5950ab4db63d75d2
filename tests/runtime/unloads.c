/* SPDX-License-Identifier: MIT */
/* unloads PROVIDER THREADS ROUNDS [compat]: threads fire while the main
   thread unloads and loads their provider, for the LTTng-UST test that no
   fire that began after an unload returned is recorded.

   Each thread fires probe x (its number t, then k: the number of this
   fire of this thread, from 1) over and over, a few microseconds apart,
   and says, after each fire returned, the number of the last one done.
   The main thread, ROUNDS times: waits until every thread has done 3
   fires more while loaded; unloads; reads each thread's last done, c1;
   waits until every thread has done 3 more; reads them again, c2; loads.
   Fire c1 + 1 of thread t had not returned when c1 was read, after the
   unload returned, so fire c1 + 2 began after the unload returned, and
   fire c2 had returned before the load began: it prints, for each round
   and thread, "window t c1+2 c2", the fires a session must not have
   recorded.  Then "fires N" (all of them) and exits 0.  compat: through
   libstapsdt's API (the probe's arguments are then int32 and int64). */
#define _GNU_SOURCE
#include <libstapsdt.h>
#include <sdtkit.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXT 16

static sdtkit_provider *pv;
static sdtkit_probe *probe;
static SDTProvider_t *cpv;
static SDTProbe_t *cprobe;
static atomic_long done[MAXT];
static atomic_int stop;

static void pause_us(long us)
{
    struct timespec t = {0, us * 1000};
    nanosleep(&t, NULL);
}

static void *firing(void *arg)
{
    int t = (int)(long)arg;
    for (long k = 1; !atomic_load(&stop); k++) {
        if (probe) {
            sdtkit_value v[2] = {{.i = t}, {.i = k}};
            sdtkit_probe_fire(probe, v);
        } else {
            probeFire(cprobe, (int32_t)t, (int64_t)k);
        }
        atomic_store_explicit(&done[t], k, memory_order_release);
        pause_us(5);
    }
    return NULL;
}

/* Wait until every thread's last done is at least from[t] + n. */
static void wait_done(int threads, const long *from, long n)
{
    for (int t = 0; t < threads; t++)
        while (atomic_load_explicit(&done[t], memory_order_acquire) < from[t] + n)
            pause_us(50);
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "unloads: %s failed\n", what);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    check(argc >= 4, "usage: unloads PROVIDER THREADS ROUNDS [compat]");
    int threads = atoi(argv[2]), rounds = atoi(argv[3]);
    bool compat = argc > 4 && strcmp(argv[4], "compat") == 0;
    check(threads > 0 && threads <= MAXT, "THREADS (1 to 16)");
    if (compat) {
        check((cpv = providerInit(argv[1])) && (cprobe = providerAddProbe(cpv, "x", 2, int32, int64)) &&
                  providerLoad(cpv) == 0,
              "libstapsdt's load");
    } else {
        static const int types[] = {SDTKIT_INT32, SDTKIT_INT64};
        static const char *const names[] = {"t", "k"};
        check(sdtkit_provider_create(argv[1], &pv) == 0 &&
                  sdtkit_provider_add_probe_named(pv, "x", types, names, 2, &probe) == 0 &&
                  sdtkit_provider_load(pv) == 0,
              "load");
    }
    pthread_t tid[MAXT];
    for (int t = 0; t < threads; t++)
        check(pthread_create(&tid[t], NULL, firing, (void *)(long)t) == 0, "thread");
    long c1[MAXT], c2[MAXT];
    for (int r = 0; r < rounds; r++) {
        for (int t = 0; t < threads; t++)
            c1[t] = atomic_load(&done[t]);
        wait_done(threads, c1, 3); /* fired while loaded */
        check((compat ? providerUnload(cpv) : sdtkit_provider_unload(pv)) == 0, "unload");
        for (int t = 0; t < threads; t++)
            c1[t] = atomic_load_explicit(&done[t], memory_order_acquire);
        wait_done(threads, c1, 3);
        for (int t = 0; t < threads; t++)
            c2[t] = atomic_load_explicit(&done[t], memory_order_acquire);
        check((compat ? providerLoad(cpv) : sdtkit_provider_load(pv)) == 0, "load");
        for (int t = 0; t < threads; t++)
            printf("window %d %ld %ld\n", t, c1[t] + 2, c2[t]);
    }
    atomic_store(&stop, 1);
    long n = 0;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        n += atomic_load(&done[t]);
    }
    printf("fires %ld\n", n);
    return 0;
}
