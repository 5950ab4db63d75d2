/* SPDX-License-Identifier: MIT */
/* stapsdt-calls.h: what the bindings written in C share on libstapsdt's
   API (the Ruby extension, the N-API addon, the cgo preamble): the argument
   types by name, its two variadic calls made from arrays (cgo cannot make a
   variadic call; Ruby and Node hold the arguments in arrays), and a forked
   worker for a language that cannot run in a forked child (Go).  Nothing
   here includes <errno.h>: the member errno is read by its name. */
#ifndef STAPSDT_CALLS_H
#define STAPSDT_CALLS_H

#include "fork-worker.h"

#include <stdint.h>
#include <string.h>
#include <libstapsdt.h>

/* The ArgType_t named s (and node-usdt's "int" and "char *"); strings go as
   uint64.  noarg when unknown. */
static inline ArgType_t bind_arg_type(const char *s)
{
    static const struct {
        const char *name;
        ArgType_t type;
    } types[] = {{"int8", int8},     {"uint8", uint8},   {"int16", int16}, {"uint16", uint16},
                 {"int32", int32},   {"uint32", uint32}, {"int64", int64}, {"uint64", uint64},
                 {"string", uint64}, {"int", int32},     {"char *", uint64}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(s, types[i].name) == 0)
            return types[i].type;
    return noarg;
}

/* providerAddProbe with the n types of t. */
static inline SDTProbe_t *bind_add_probe(SDTProvider_t *p, const char *name, int n,
                                         const ArgType_t *t)
{
    switch (n) {
    case 0: return providerAddProbe(p, name, 0);
    case 1: return providerAddProbe(p, name, 1, t[0]);
    case 2: return providerAddProbe(p, name, 2, t[0], t[1]);
    case 3: return providerAddProbe(p, name, 3, t[0], t[1], t[2]);
    case 4: return providerAddProbe(p, name, 4, t[0], t[1], t[2], t[3]);
    case 5: return providerAddProbe(p, name, 5, t[0], t[1], t[2], t[3], t[4]);
    default: return providerAddProbe(p, name, 6, t[0], t[1], t[2], t[3], t[4], t[5]);
    }
}

/* probeFire with the probe's argCount values of a, each as its 64 bits. */
static inline void bind_fire(SDTProbe_t *p, const uint64_t *a)
{
    switch (p->argCount) {
    case 0: probeFire(p); break;
    case 1: probeFire(p, a[0]); break;
    case 2: probeFire(p, a[0], a[1]); break;
    case 3: probeFire(p, a[0], a[1], a[2]); break;
    case 4: probeFire(p, a[0], a[1], a[2], a[3]); break;
    case 5: probeFire(p, a[0], a[1], a[2], a[3], a[4]); break;
    default: probeFire(p, a[0], a[1], a[2], a[3], a[4], a[5]); break;
    }
}

static inline int bind_probe_enabled(const void *p) { return probeIsEnabled((SDTProbe_t *)p); }

static inline void bind_probe_fire(const void *p, const uint64_t *a, int n)
{
    (void)n;
    bind_fire((SDTProbe_t *)p, a);
}

/* A worker that fires p with a (fork-worker.h). */
static inline int bind_fork_worker(SDTProbe_t *p, const uint64_t *a)
{
    return bind_worker(p, bind_probe_enabled, bind_probe_fire, a, p->argCount);
}

#endif
