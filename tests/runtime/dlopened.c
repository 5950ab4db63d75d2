/* SPDX-License-Identifier: MIT */
/* dlopened SDTKIT STAPSDT [IE...]: the run-time libraries loaded with
   dlopen, as bindings load them (ctypes, node, ruby), after libraries
   whose thread-local variables are initial-exec (IE...: each needs static
   TLS, which the dynamic loader has a little of to give) took all the
   static TLS there was: dlopen each IE (the last ones the smallest, the
   last of all refused), then SDTKIT (libsdtkit.so.1) and STAPSDT
   (libstapsdt.so.0).  A probe of each API is
   loaded and fired, 1000 times each, by a thread that was running before
   the dlopen, one started after it and the main thread; breakpoints on
   their stubs (traps.h) count the fires that reached them.  Prints what it saw, one line a step. */
#define _GNU_SOURCE
#include <libstapsdt.h>
#include <sdtkit.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "traps.h"
#if TRAPS

enum {
    FIRES = 1000
};

/* The functions of both libraries, found by dlsym. */
static struct {
    int (*create)(const char *, sdtkit_provider **);
    int (*add)(sdtkit_provider *, const char *, const int *, int, sdtkit_probe **);
    int (*load)(sdtkit_provider *);
    const char *(*path)(sdtkit_provider *);
    void (*fire)(const sdtkit_probe *, const sdtkit_value *);
    SDTProvider_t *(*init)(const char *);
    SDTProbe_t *(*cadd)(SDTProvider_t *, const char *, int, ...);
    int (*cload)(SDTProvider_t *);
    void (*cfire)(SDTProbe_t *, ...);
} api;

static sdtkit_probe *probe;
static SDTProbe_t *cprobe;
static int go[2];

/* Each stored through a void * (POSIX's dlsym returns one). */
static void find(void *lib, const char *name, void *fn)
{
    void *f = dlsym(lib, name);
    if (!f)
        die(name);
    memcpy(fn, &f, sizeof f);
}

static void fire_all(void)
{
    sdtkit_value v = {.i = 42};
    for (int i = 0; i < FIRES; i++) {
        api.fire(probe, &v);
        api.cfire(cprobe, (int64_t)42);
    }
}

/* The thread that runs before the libraries are loaded: fires once told. */
static void *early(void *arg)
{
    (void)arg;
    char c;
    if (read(go[0], &c, 1) != 1)
        die("read");
    fire_all();
    return NULL;
}

static void *late(void *arg)
{
    (void)arg;
    fire_all();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fputs("usage: dlopened SDTKIT STAPSDT [IE...]\n", stderr);
        return 2;
    }
    pthread_t t1, t2;
    if (pipe(go) != 0 || pthread_create(&t1, NULL, early, NULL) != 0)
        die("the early thread");
    if (argc > 3) {
        /* every one tried: the last ones, the smallest, fill what the
         * larger left */
        int took = 0;
        const char *refused = NULL;
        for (int i = 3; i < argc; i++) {
            refused = NULL;
            if (dlopen(argv[i], RTLD_NOW | RTLD_LOCAL))
                took++;
            else
                refused = dlerror();
        }
        printf("%s after %d libraries with initial-exec TLS\n",
               !refused                        ? "static TLS left"
               : strstr(refused, "static TLS") ? "static TLS full"
                                               : refused,
               took);
    }
    void *sk = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    printf("libsdtkit.so.1: %s\n", sk ? "loaded" : dlerror());
    void *ss = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
    printf("libstapsdt.so.0: %s\n", ss ? "loaded" : dlerror());
    if (!sk || !ss)
        return 1;
    find(sk, "sdtkit_provider_create", &api.create);
    find(sk, "sdtkit_provider_add_probe", &api.add);
    find(sk, "sdtkit_provider_load", &api.load);
    find(sk, "sdtkit_provider_path", &api.path);
    find(sk, "sdtkit_probe_fire", &api.fire);
    find(ss, "providerInit", &api.init);
    find(ss, "providerAddProbe", &api.cadd);
    find(ss, "providerLoad", &api.cload);
    find(ss, "probeFire", &api.cfire);

    static const int types[] = {SDTKIT_INT64};
    sdtkit_provider *pv;
    SDTProvider_t *cpv;
    if (api.create("dlopened", &pv) != 0 || api.add(pv, "n", types, 1, &probe) != 0 ||
        api.load(pv) != 0 || !(cpv = api.init("cdlopened")) ||
        !(cprobe = api.cadd(cpv, "c", 1, int64)) || api.cload(cpv) != 0)
        die("loading a provider of each API");
    traps_begin();
    int n = trap(stub_named(api.path(pv), "n"), 1), c = trap((uintptr_t)cprobe->_fire, 1);

    if (write(go[1], "g", 1) != 1 || pthread_create(&t2, NULL, late, NULL) != 0)
        die("the late thread");
    fire_all();
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    printf("3 threads fired each API %d times: %d reached libsdtkit's stub, %d libstapsdt's\n",
           FIRES, atomic_load(&stubs[n].hits), atomic_load(&stubs[c].hits));
    return 0;
}

#endif
