/* SPDX-License-Identifier: MIT */
/*
 * runtime_fuzz.c: libFuzzer harness for the run-time probe library's two
 * APIs (runtime/: <sdtkit.h> and <libstapsdt.h>), driven by sequences of
 * calls: create, add (any name, type and number of arguments), load,
 * unload, fire, is-enabled and destroy, on up to four providers of each
 * API, while a second thread fires, tests and reads the semaphore of every
 * handle the sequence made so far, those of destroyed providers included.
 *
 * The input is a list of commands, one byte each, most followed by their
 * operands (see run()); a name is a length byte and that many bytes.  What
 * the harness checks besides the sanitizers: every call returns what its
 * API documents (a status of <sdtkit.h>, 0 or -1 for libstapsdt's), a
 * failed call leaves no handle, a successful load has a path, and a probe
 * fired from either thread never crashes, whatever its provider's state.
 * Each input ends by destroying what it made (the firing thread joined
 * first).  The handles of destroyed providers stay valid until
 * SDTKIT_RETIRED_PROBES more probes have been destroyed: an input adds
 * fewer probes than that, so all of its handles stay valid to the end.
 *
 * Memory files only: named files would be left in a directory by a crash.
 *
 * Build and run with `make fuzz` (see fuzz/run).
 */
#include "../include/libstapsdt.h"
#include "../include/sdtkit.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum {
    PROVIDERS = 4,
    HANDLES = 64,
    MAX_NAME = 80
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

static sdtkit_provider *native[PROVIDERS];
static SDTProvider_t *compat[PROVIDERS];
/* Every handle made so far, read by the firing thread. */
static _Atomic(sdtkit_probe *) nhandle[HANDLES];
static _Atomic(SDTProbe_t *) chandle[HANDLES];
static atomic_int nhandles, chandles, stop;
static int added; /* probes added by this input: fewer than SDTKIT_RETIRED_PROBES */

static void *firing(void *arg)
{
    (void)arg;
    sdtkit_value v[SDTKIT_MAX_ARGS];
    memset(v, 0, sizeof v);
    v[0].p = "a string";
    while (!atomic_load(&stop)) {
        for (int i = 0; i < atomic_load(&nhandles); i++) {
            sdtkit_probe *p = atomic_load(&nhandle[i]);
            (void)sdtkit_probe_enabled(p);
            sdtkit_probe_fire(p, v);
            (void)*sdtkit_probe_semaphore(p);
        }
        for (int i = 0; i < atomic_load(&chandles); i++) {
            SDTProbe_t *p = atomic_load(&chandle[i]);
            probeFire(p, 1, 2, 3, 4, 5, 6);
            (void)probeIsEnabled(p);
        }
    }
    return NULL;
}

static bool status_ok(int rc) { return rc <= 0 && rc >= SDTKIT_E_UNSUPPORTED; }

static void check(bool ok)
{
    if (!ok)
        abort();
}

static void run(struct input *in)
{
    char nm[MAX_NAME + 1];
    for (int op; (op = byte(in)) >= 0;) {
        int k = byte(in);
        if (k < 0)
            return;
        int slot = k % PROVIDERS;
        sdtkit_provider **pv = &native[slot];
        SDTProvider_t **cp = &compat[slot];
        switch (op % 12) {
        case 0: /* create */
            name(in, nm);
            if (!*pv) {
                int rc = sdtkit_provider_create(nm, pv);
                check(status_ok(rc) && (rc == 0) == (*pv != NULL));
            }
            break;
        case 1: { /* add */
            int nargs = byte(in), types[16];
            name(in, nm);
            nargs = nargs < 0 ? 0 : nargs % 16 - 1; /* -1 .. 14 */
            for (int i = 0; i < nargs; i++)
                types[i] = (signed char)byte(in);
            if (added >= SDTKIT_RETIRED_PROBES - 1)
                break;
            sdtkit_probe *p = NULL;
            int rc = sdtkit_provider_add_probe(*pv, nm, types, nargs, &p);
            check(status_ok(rc) && (rc == 0) == (p != NULL));
            added += p != NULL;
            int i = atomic_load(&nhandles);
            if (p && i < HANDLES) {
                atomic_store(&nhandle[i], p);
                atomic_store(&nhandles, i + 1);
            }
            break;
        }
        case 2: { /* load */
            int rc = sdtkit_provider_load(*pv);
            check(status_ok(rc) && (rc != 0 || sdtkit_provider_path(*pv)));
            break;
        }
        case 3:
            check(status_ok(sdtkit_provider_unload(*pv)));
            break;
        case 4: /* destroy */
            sdtkit_provider_destroy(*pv);
            *pv = NULL;
            break;
        case 5: { /* fire, firev, is-enabled from this thread */
            int i = atomic_load(&nhandles);
            if (i) {
                sdtkit_probe *p = atomic_load(&nhandle[k % i]);
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
            if (!*cp)
                check((*cp = providerInit(nm)) != NULL);
            break;
        case 7: { /* providerAddProbe, 0 to 7 arguments */
            int argc = byte(in), t[7];
            name(in, nm);
            argc = argc < 0 ? 0 : argc % 9 - 1; /* -1 .. 7 */
            for (int i = 0; i < 7; i++)
                t[i] = (signed char)byte(in);
            if (!*cp || added >= SDTKIT_RETIRED_PROBES - 1)
                break;
            SDTProbe_t *p =
                providerAddProbe(*cp, nm, argc, t[0], t[1], t[2], t[3], t[4], t[5], t[6]);
            check(!p || (p->argCount == argc && strcmp(p->name, nm) == 0));
            added += p != NULL;
            int i = atomic_load(&chandles);
            if (p && i < HANDLES) {
                atomic_store(&chandle[i], p);
                atomic_store(&chandles, i + 1);
            }
            break;
        }
        case 8:
            if (*cp) {
                int rc = providerLoad(*cp);
                check(rc == -1 || (rc == 0 && (*cp)->_filename));
            }
            break;
        case 9:
            if (*cp)
                check(providerUnload(*cp) == 0);
            break;
        case 10:
            providerDestroy(*cp);
            *cp = NULL;
            break;
        case 11: { /* probeFire, probeIsEnabled from this thread */
            int i = atomic_load(&chandles);
            if (i) {
                SDTProbe_t *p = atomic_load(&chandle[k % i]);
                probeFire(p, 6, 5, 4, 3, 2, 1);
                check(probeIsEnabled(p) == 0 || probeIsEnabled(p) == 1);
            }
            break;
        }
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct input in = {data, size};
    pthread_t t;
    atomic_store(&stop, 0);
    atomic_store(&nhandles, 0);
    atomic_store(&chandles, 0);
    added = 0;
    bool threaded = pthread_create(&t, NULL, firing, NULL) == 0;
    run(&in);
    atomic_store(&stop, 1);
    if (threaded)
        pthread_join(t, NULL);
    for (int i = 0; i < PROVIDERS; i++) {
        sdtkit_provider_destroy(native[i]);
        providerDestroy(compat[i]);
        native[i] = NULL;
        compat[i] = NULL;
    }
    return 0;
}
