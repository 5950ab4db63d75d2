/* SPDX-License-Identifier: MIT */
/* stress THREADS CYCLES: THREADS threads fire probes of a native and a
   libstapsdt provider, test them and read their semaphores, while the main
   thread unloads, adds a probe to and loads each provider CYCLES times; each
   cycle it also makes and loads a provider whose probe the threads fire
   next, and destroys the one before (so the threads fire probes whose
   provider is being destroyed, and objects pass from one provider to
   another under them).  Before the next cycle, the main thread waits until
   a thread has made a whole pass over the probes as that cycle left them:
   the work is CYCLES cycles however loaded the machine is (no clock), and
   every cycle's state is fired at.  The threads also read the native
   provider's path and last error message, which the main thread changes
   (an unload of the unloaded provider fails each cycle).
   Prints "ok FIRES CYCLES" when every call returned as documented; any
   crash, hang or race (under ThreadSanitizer) fails the test. */
#include <libstapsdt.h>
#include <sdtkit.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static sdtkit_provider *pv;
static sdtkit_probe *probe[3];
static SDTProvider_t *cpv;
static SDTProbe_t *cprobe;
static _Atomic(sdtkit_probe *) churn;
static atomic_int stop;
static atomic_long fires;
/* passes[i]: the passes thread i has finished over every probe */
static atomic_long passes[64];

static void *firing(void *arg)
{
    atomic_long *done = arg;
    sdtkit_value v[3] = {{.i = -1}, {.u = 2}, {.p = "three"}};
    long n = 0;
    volatile size_t read_bytes = 0; /* what the strings read, kept */
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
        const char *path = sdtkit_provider_path(pv);
        read_bytes += (path ? strlen(path) : 0) + strlen(sdtkit_provider_error(pv));
        n += 6;
        atomic_fetch_add(done, 1);
    }
    atomic_fetch_add(&fires, n);
    return NULL;
}

/* await_pass N: until one of the N threads has finished a pass begun after
   this call (a pass it was in the middle of does not count).  One, not
   each, and spinning, not yielding: the threads outnumber the processors,
   and a yield, or a wait for each of them to be scheduled again, hands the
   others whole time slices in which they spin. */
static void await_pass(int n)
{
    long from[64];
    for (int i = 0; i < n; i++)
        from[i] = atomic_load(&passes[i]);
    for (;;) {
        for (int i = 0; i < n; i++)
            if (atomic_load(&passes[i]) >= from[i] + 2)
                return;
    }
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
    static const int types[] = {SDTKIT_INT32, SDTKIT_UINT64, SDTKIT_STRING};
    pthread_t t[64];
    if (nthreads < 1 || nthreads > 64 || cycles < 1)
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
        pthread_create(&t[i], NULL, firing, &passes[i]);
    sdtkit_provider *old = NULL;
    for (int c = 0; c < cycles; c++) {
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
        if (sdtkit_provider_unload(pv) != SDTKIT_E_STATE) /* a message for the threads */
            return 1;
        check(sdtkit_provider_add_probe(pv, name, NULL, 0, &extra), "add");
        check(sdtkit_provider_load(pv), "load");
        snprintf(name, sizeof name, "cextra%d", c);
        if (providerUnload(cpv) != 0 || !providerAddProbe(cpv, name, 0) || providerLoad(cpv) != 0) {
            fprintf(stderr, "stress: libstapsdt: %s\n", cpv->error ? cpv->error : "?");
            return 1;
        }
        await_pass(nthreads);
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
