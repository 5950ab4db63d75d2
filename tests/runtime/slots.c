/* SPDX-License-Identifier: MIT */
/* slots: what each probe's stub is handed, seen from inside the process
   (traps.h: a breakpoint on every stub).  Fires probes of 0 to 12
   arguments of 64-bit integers (to 6 with libstapsdt's API; a variadic
   call's first five are where its registers were saved, the others on
   the stack) and of mixed types, through probeFire, sdtkit_probe_firev
   and sdtkit_probe_fire, and prints, one line a fire, whether the stub
   was reached once with every argument as fired.  x86-64 only. */
#define _GNU_SOURCE
#include <libstapsdt.h>
#include <sdtkit.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "traps.h"
#if TRAPS

/* Argument i of the 64-bit probes: large, negative, each its own. */
#define V(i) ((int64_t) - ((i) + 1) * 1000000000001LL)
#define A1 V(0)
#define A2 A1, V(1)
#define A3 A2, V(2)
#define A4 A3, V(3)
#define A5 A4, V(4)
#define A6 A5, V(5)
#define A7 A6, V(6)
#define A8 A7, V(7)
#define A9 A8, V(8)
#define A10 A9, V(9)
#define A11 A10, V(10)
#define A12 A11, V(11)

/* The variadic fires of n 64-bit arguments, each call with its own count
 * (a variadic call passes what it is given). */
static void fire_n(SDTProbe_t *c, sdtkit_probe *p, int n, int native)
{
#define BOTH(...) native ? sdtkit_probe_firev(p, __VA_ARGS__) : probeFire(c, __VA_ARGS__)
    switch (n) {
    case 0:
        native ? sdtkit_probe_firev(p) : probeFire(c);
        break;
    case 1:
        BOTH(A1);
        break;
    case 2:
        BOTH(A2);
        break;
    case 3:
        BOTH(A3);
        break;
    case 4:
        BOTH(A4);
        break;
    case 5:
        BOTH(A5);
        break;
    case 6:
        BOTH(A6);
        break;
    case 7:
        BOTH(A7);
        break;
    case 8:
        BOTH(A8);
        break;
    case 9:
        BOTH(A9);
        break;
    case 10:
        BOTH(A10);
        break;
    case 11:
        BOTH(A11);
        break;
    case 12:
        BOTH(A12);
        break;
    }
#undef BOTH
}

/* After a fire: the stub at index k reached once, with want[0 .. n). */
static void report(const char *api, const char *probe, int k, const uint64_t *want, int n)
{
    printf("%s %s: ", api, probe);
    if (atomic_load(&hits) != 1 || last != k) {
        printf("%d traps, the last at stub %d, not 1 at %d\n", atomic_load(&hits), (int)last, k);
    } else {
        int bad = -1;
        for (int i = 0; i < n && bad < 0; i++)
            if (got[i] != want[i])
                bad = i;
        if (bad < 0)
            printf("%d arguments as fired\n", n);
        else
            printf("slot %d is %#llx, not %#llx\n", bad, (unsigned long long)got[bad],
                   (unsigned long long)want[bad]);
    }
    atomic_store(&hits, 0);
    last = -1;
}

/* The first sizes[i] bytes of each v[i], the rest zero. */
static void keep(uint64_t *v, const int *sizes, int n)
{
    for (int i = 0; i < n; i++)
        if (sizes[i] < 8)
            v[i] &= (1ull << (8 * sizes[i])) - 1;
}

int main(void)
{
    traps_begin();

    sdtkit_provider *pv;
    SDTProvider_t *cpv = providerInit("cslots");
    if (sdtkit_provider_create("slots", &pv) != 0 || !cpv)
        die("create");
    static const int i64s[SDTKIT_MAX_ARGS] = {
        SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64,
        SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64};
    sdtkit_probe *n[SDTKIT_MAX_ARGS + 1];
    SDTProbe_t *c[SDTKIT_MAX_ARGS + 1];
    char name[16];
    for (int k = 0; k <= SDTKIT_MAX_ARGS; k++) {
        snprintf(name, sizeof name, "n%d", k);
        if (sdtkit_provider_add_probe(pv, name, i64s, k, &n[k]) != 0)
            die("add");
        snprintf(name, sizeof name, "c%d", k);
        c[k] = k > MAX_ARGUMENTS
                   ? NULL
                   : providerAddProbe(cpv, name, k, int64, int64, int64, int64, int64, int64);
        if (k <= MAX_ARGUMENTS && !c[k])
            die("providerAddProbe");
    }
    /* mixed: each in the first bytes of its slot (a float's 4 bytes) */
    static const int mixed[] = {SDTKIT_INT8,   SDTKIT_UINT16, SDTKIT_INT32, SDTKIT_DOUBLE,
                                SDTKIT_STRING, SDTKIT_INT64,  SDTKIT_FLOAT};
    sdtkit_probe *nm;
    if (sdtkit_provider_add_probe(pv, "nmixed", mixed, 7, &nm) != 0)
        die("add mixed");
    SDTProbe_t *cm = providerAddProbe(cpv, "cmixed", 5, int8, uint16, int32, uint64, int64);
    if (!cm || sdtkit_provider_load(pv) != 0 || providerLoad(cpv) != 0)
        die("load");

    int nk[SDTKIT_MAX_ARGS + 1], ck[SDTKIT_MAX_ARGS + 1];
    for (int k = 0; k <= SDTKIT_MAX_ARGS; k++) {
        snprintf(name, sizeof name, "n%d", k);
        nk[k] = trap(stub_named(sdtkit_provider_path(pv), name), k);
        ck[k] = c[k] ? trap((uintptr_t)c[k]->_fire, k) : -1;
    }
    int nmk = trap(stub_named(sdtkit_provider_path(pv), "nmixed"), 7),
        cmk = trap((uintptr_t)cm->_fire, 5);

    uint64_t want[SDTKIT_MAX_ARGS];
    sdtkit_value values[SDTKIT_MAX_ARGS];
    for (int i = 0; i < SDTKIT_MAX_ARGS; i++) {
        want[i] = (uint64_t)V(i);
        values[i].i = V(i);
    }
    for (int k = 0; k <= SDTKIT_MAX_ARGS; k++) {
        snprintf(name, sizeof name, "%d", k);
        if (c[k]) {
            fire_n(c[k], n[k], k, 0);
            report("probeFire", name, ck[k], want, k);
        }
        fire_n(c[k], n[k], k, 1);
        report("sdtkit_probe_firev", name, nk[k], want, k);
        sdtkit_probe_fire(n[k], values);
        report("sdtkit_probe_fire", name, nk[k], want, k);
    }

    static const char text[] = "mixed";
    union {
        double d;
        float f;
        uint64_t u;
    } dbl = {.d = 2.5}, flt = {.u = 0};
    flt.f = 1.5f;
    uint64_t mwant[] = {(uint64_t)(int64_t)-5,
                        60000,
                        (uint64_t)(int64_t)-2000000000,
                        dbl.u,
                        (uint64_t)(uintptr_t)text,
                        (uint64_t)INT64_MIN,
                        flt.u};
    /* a tracer reads a slot's first bytes only, as many as the note
     * says: those are compared */
    static const int sizes[] = {1, 2, 4, 8, 8, 8, 4};
    keep(mwant, sizes, 7);
    uint64_t cwant[] = {mwant[0], mwant[1], mwant[2], mwant[4], mwant[5]};
    probeFire(cm, -5, 60000, -2000000000, (uint64_t)(uintptr_t)text, INT64_MIN);
    keep(got, sizes, 5);
    report("probeFire", "mixed", cmk, cwant, 5);
    sdtkit_probe_firev(nm, -5, 60000, -2000000000, 2.5, text, INT64_MIN, 1.5f);
    keep(got, sizes, 7);
    report("sdtkit_probe_firev", "mixed", nmk, mwant, 7);
    sdtkit_value mv[] = {{.i = -5},   {.u = 60000},     {.i = -2000000000}, {.d = 2.5},
                         {.p = text}, {.i = INT64_MIN}, {.d = 1.5}};
    sdtkit_probe_fire(nm, mv);
    keep(got, sizes, 7);
    report("sdtkit_probe_fire", "mixed", nmk, mwant, 7);
    return 0;
}

#endif
