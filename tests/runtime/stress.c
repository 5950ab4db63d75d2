/* SPDX-License-Identifier: MIT */
/* stress THREADS CYCLES [SECONDS]: THREADS threads fire probes of a native
   and a libstapsdt provider, test them and read their semaphores, while the
   main thread unloads, adds a probe to and loads each provider CYCLES times
   and for SECONDS at least; each cycle it also makes and loads a provider
   whose probe the threads fire next, and destroys the one before (so the
   threads fire probes whose provider is being destroyed, and objects pass
   from one provider to another under them).
   Prints "ok FIRES CYCLES" when every call returned as documented; any
   crash, hang or race (under ThreadSanitizer) fails the test. */
#include <libstapsdt.h>
#include <sdtkit.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static sdtkit_provider *pv;
static sdtkit_probe *probe[3];
static SDTProvider_t *cpv;
static SDTProbe_t *cprobe;
static _Atomic(sdtkit_probe *) churn;
static atomic_int stop;
static atomic_long fires;

static void *firing(void *arg)
{
    (void)arg;
    sdtkit_value v[3] = {{.i = -1}, {.u = 2}, {.p = "three"}};
    long n = 0;
    while (!atomic_load(&stop)) {
        for (int i = 0; i < 3; i++) {
            if (sdtkit_probe_enabled(probe[i]) || sdtkit_probe_is_enabled(probe[i]))
                n += 0; /* no tracer here: reads 0, or whatever a raised one says */
            sdtkit_probe_fire(probe[i], v);
            (void)*sdtkit_probe_semaphore(probe[i]);
        }
        sdtkit_probe_firev(probe[2], -1, 2u, "three");
        sdtkit_probe_fire(atomic_load(&churn), v);
        probeFire(cprobe, 1, (uint64_t)2);
        (void)probeIsEnabled(cprobe);
        n += 6;
    }
    atomic_fetch_add(&fires, n);
    return NULL;
}

static int check(int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "stress: %s: %s: %s\n", what, sdtkit_strerror(rc),
                sdtkit_provider_error(pv));
        exit(1);
    }
    return rc;
}

int main(int argc, char **argv)
{
    int nthreads = argc > 1 ? atoi(argv[1]) : 4, cycles = argc > 2 ? atoi(argv[2]) : 100;
    double seconds = argc > 3 ? atof(argv[3]) : 0;
    struct timespec t0, now;
    static const int types[] = {SDTKIT_INT32, SDTKIT_UINT64, SDTKIT_STRING};
    pthread_t t[64];
    if (nthreads < 1 || nthreads > 64)
        return 2;
    check(sdtkit_provider_create("stress", &pv), "create");
    check(sdtkit_provider_add_probe(pv, "a", types, 1, &probe[0]), "add a");
    check(sdtkit_provider_add_probe(pv, "b", types, 2, &probe[1]), "add b");
    check(sdtkit_provider_add_probe(pv, "c", types, 3, &probe[2]), "add c");
    check(sdtkit_provider_load(pv), "load");
    cpv = providerInit("cstress");
    cprobe = cpv ? providerAddProbe(cpv, "x", 2, int32, uint64) : NULL;
    if (!cprobe || providerLoad(cpv) != 0)
        return 1;
    for (int i = 0; i < nthreads; i++)
        pthread_create(&t[i], NULL, firing, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sdtkit_provider *old = NULL;
    for (int c = 0;; c++) {
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (c >= cycles && (double)(now.tv_sec - t0.tv_sec) + (now.tv_nsec - t0.tv_nsec) / 1e9 >= seconds) {
            cycles = c;
            break;
        }
        char name[32];
        sdtkit_probe *extra, *z;
        sdtkit_provider *next;
        check(sdtkit_provider_create("churn", &next), "create churn");
        check(sdtkit_provider_add_probe(next, "z", types, 1, &z), "add z");
        check(sdtkit_provider_load(next), "load churn");
        atomic_store(&churn, z);
        sdtkit_provider_destroy(old); /* while threads may still fire its probe */
        old = next;
        snprintf(name, sizeof name, "extra%d", c);
        check(sdtkit_provider_unload(pv), "unload");
        check(sdtkit_provider_add_probe(pv, name, NULL, 0, &extra), "add");
        check(sdtkit_provider_load(pv), "load");
        snprintf(name, sizeof name, "cextra%d", c);
        if (providerUnload(cpv) != 0 || !providerAddProbe(cpv, name, 0) || providerLoad(cpv) != 0) {
            fprintf(stderr, "stress: libstapsdt: %s\n", cpv->error ? cpv->error : "?");
            return 1;
        }
    }
    atomic_store(&stop, 1);
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    sdtkit_provider_destroy(old);
    sdtkit_provider_destroy(pv);
    providerDestroy(cpv);
    printf("ok %ld %d\n", atomic_load(&fires), cycles);
    return 0;
}
