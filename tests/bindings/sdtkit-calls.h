/* SPDX-License-Identifier: MIT */
/* sdtkit-calls.h: what the bindings written in C share on the native API
   (the Ruby extension, the N-API addon, the cgo preamble): the argument
   types by name, a fire with the values as their 64 bits, and a forked
   worker for a language that cannot run in a forked child (Go). */
#ifndef SDTKIT_CALLS_H
#define SDTKIT_CALLS_H

#include "fork-worker.h"

#include <stdint.h>
#include <string.h>
#include <sdtkit.h>

/* A probe as a binding holds it: the native API does not give its types
   back, which converting the values to fire with needs. */
typedef struct {
    sdtkit_probe *p;
    int types[SDTKIT_MAX_ARGS];
} probe_t;

/* The enum sdtkit_type named s, 0 (which the library refuses) when unknown. */
static inline int bind_type(const char *s)
{
    static const struct {
        const char *name;
        int type;
    } types[] = {{"int8", SDTKIT_INT8},     {"uint8", SDTKIT_UINT8},   {"int16", SDTKIT_INT16},
                 {"uint16", SDTKIT_UINT16}, {"int32", SDTKIT_INT32},   {"uint32", SDTKIT_UINT32},
                 {"int64", SDTKIT_INT64},   {"uint64", SDTKIT_UINT64}, {"pointer", SDTKIT_POINTER},
                 {"string", SDTKIT_STRING}, {"float", SDTKIT_FLOAT},   {"double", SDTKIT_DOUBLE}};
    for (size_t i = 0; i < sizeof types / sizeof types[0]; i++)
        if (strcmp(s, types[i].name) == 0)
            return types[i].type;
    return 0;
}

/* sdtkit_probe_fire with the n values of a, each as its 64 bits (the
   union's members share them). */
static inline void bind_fire(const sdtkit_probe *p, const uint64_t *a, int n)
{
    sdtkit_value v[SDTKIT_MAX_ARGS];
    for (int i = 0; i < n && i < SDTKIT_MAX_ARGS; i++)
        v[i].u = a[i];
    sdtkit_probe_fire(p, v);
}

static inline int bind_probe_enabled(const void *p) { return sdtkit_probe_enabled(p); }

static inline void bind_probe_fire(const void *p, const uint64_t *a, int n) { bind_fire(p, a, n); }

/* A worker that fires p with the n values of a (fork-worker.h). */
static inline int bind_fork_worker(const sdtkit_probe *p, const uint64_t *a, int n)
{
    return bind_worker(p, bind_probe_enabled, bind_probe_fire, a, n);
}

#endif
