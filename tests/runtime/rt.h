/* SPDX-License-Identifier: MIT */
/* rt.h: provider "rt" of the run-time test programs (probes.c, archprobes.c):
   one probe per argument type with one argument each ("u8" ... "dbl"),
   "all" with the twelve, "none" with none.  The values are those of
   tests/runtime/values: each fills its type, so that a tracer reading the
   wrong size or sign reads something else. */
#ifndef RT_H
#define RT_H

#include <sdtkit.h>

static const char text[] = "hello, tracer";

struct arg {
    const char *probe;
    int type;
    sdtkit_value value;
};

static struct arg args[] = {
    {"u8", SDTKIT_UINT8, {.u = 250}},
    {"i8", SDTKIT_INT8, {.i = -100}},
    {"u16", SDTKIT_UINT16, {.u = 65000}},
    {"i16", SDTKIT_INT16, {.i = -30000}},
    {"u32", SDTKIT_UINT32, {.u = 4000000000u}},
    {"i32", SDTKIT_INT32, {.i = -2000000000}},
    {"u64", SDTKIT_UINT64, {.u = 18000000000000000000ull}},
    {"i64", SDTKIT_INT64, {.i = -9000000000000000000ll}},
    {"ptr", SDTKIT_POINTER, {.p = NULL}}, /* text, set by rt_load */
    {"str", SDTKIT_STRING, {.p = NULL}},  /* text */
    {"flt", SDTKIT_FLOAT, {.d = 1.5}},    /* bits 0x3fc00000 */
    {"dbl", SDTKIT_DOUBLE, {.d = 2.25}},  /* bits 0x4002000000000000 */
};
#define NARGS (sizeof args / sizeof args[0])

struct rt {
    sdtkit_provider *pv;
    sdtkit_probe *one[NARGS], *all, *none;
    sdtkit_value values[NARGS]; /* args' values, in order: all's arguments */
};

/* Create provider rt with its probes and load it: 0, or a status code
   (rt->pv is NULL when not even the provider was made). */
static int rt_load(struct rt *rt)
{
    int types[NARGS];
    args[8].value.p = text;
    args[9].value.p = text;
    int rc = sdtkit_provider_create("rt", &rt->pv);
    for (size_t i = 0; i < NARGS && rc == 0; i++) {
        types[i] = args[i].type;
        rt->values[i] = args[i].value;
        rc = sdtkit_provider_add_probe(rt->pv, args[i].probe, &args[i].type, 1, &rt->one[i]);
    }
    if (rc == 0)
        rc = sdtkit_provider_add_probe(rt->pv, "all", types, NARGS, &rt->all);
    if (rc == 0)
        rc = sdtkit_provider_add_probe(rt->pv, "none", NULL, 0, &rt->none);
    if (rc == 0)
        rc = sdtkit_provider_load(rt->pv);
    return rc;
}

#endif
