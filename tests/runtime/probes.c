/* SPDX-License-Identifier: MIT */
/* probes [-c] [-n COUNT] [-i MS] [-u]: a program with run-time probes, for
   the tracer tests.  Provider "rt" (with -c, built with libstapsdt's API
   as provider "rtc", integer types only) has one probe per argument type,
   each fired with a value of its own, one with every type (12 arguments)
   and one with none.  It prints the object's path, "ready", then fires
   every probe COUNT times (default: until killed), every MS milliseconds
   (default 100), saying "enabled NAME" each time a probe reads as enabled,
   and "done" at the end.  -u unloads before exiting and prints what the
   probes read after.  The values are in tests/runtime/values. */
#define _GNU_SOURCE
#include <sdtkit.h>
#include <libstapsdt.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"

/* The object's path, the file it is ("file TARGET": a memory file, an
 * unnamed file ...), and "ready". */
static void report(const char *path)
{
    char target[4096] = "";
    ssize_t n = readlink(path, target, sizeof target - 1);
    target[n > 0 ? n : 0] = '\0';
    printf("%s\nfile %s\nready\n", path, n > 0 ? target : path);
    fflush(stdout);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

static int native(long count, long ms, int unload)
{
    struct rt rt;
    int rc = rt_load(&rt);
    if (rc != 0) {
        fprintf(stderr, "probes: %s: %s\n", sdtkit_strerror(rc),
                rt.pv ? sdtkit_provider_error(rt.pv) : "");
        return 1;
    }
    report(sdtkit_provider_path(rt.pv));
    for (long n = 0; count < 0 || n < count; n++) {
        for (size_t i = 0; i < NARGS; i++) {
            if (sdtkit_probe_enabled(rt.one[i]))
                printf("enabled %s\n", args[i].probe);
            sdtkit_probe_fire(rt.one[i], &rt.values[i]);
        }
        if (sdtkit_probe_enabled(rt.all))
            printf("enabled all\n");
        sdtkit_probe_fire(rt.all, rt.values);
        if (sdtkit_probe_enabled(rt.none))
            printf("enabled none\n");
        sdtkit_probe_firev(rt.none);
        fflush(stdout);
        if (ms)
            sleep_ms(ms);
    }
    if (unload) {
        rc = sdtkit_provider_unload(rt.pv);
        printf("unloaded %d enabled %d path %s\n", rc, sdtkit_probe_is_enabled(rt.all),
               sdtkit_provider_path(rt.pv) ? sdtkit_provider_path(rt.pv) : "(none)");
        sdtkit_probe_fire(rt.all, rt.values); /* a no-op */
    }
    printf("done\n");
    sdtkit_provider_destroy(rt.pv);
    return 0;
}

/* libstapsdt's API: integer types, at most 6 arguments. */
static int compat(long count, long ms, int unload)
{
    SDTProvider_t *pv = providerInit("rtc");
    SDTProbe_t *p8 = pv ? providerAddProbe(pv, "i8", 1, int8) : NULL;
    SDTProbe_t *p32 = pv ? providerAddProbe(pv, "u32", 1, uint32) : NULL;
    SDTProbe_t *six = pv ? providerAddProbe(pv, "six", 6, uint8, int16, int32, uint64, int64,
                                             uint64) : NULL;
    if (!six || providerLoad(pv) != 0) {
        fprintf(stderr, "probes: %s\n", pv && pv->error ? pv->error : "providerInit failed");
        return 1;
    }
    report(pv->_filename);
    for (long n = 0; count < 0 || n < count; n++) {
        if (probeIsEnabled(six))
            printf("enabled six\n");
        probeFire(p8, -100);
        probeFire(p32, 4000000000u);
        probeFire(six, 250, -30000, -2000000000, (uint64_t)18000000000000000000ull,
                  (int64_t)-9000000000000000000ll, (uint64_t)(uintptr_t)text);
        fflush(stdout);
        if (ms)
            sleep_ms(ms);
    }
    if (unload) {
        int rc = providerUnload(pv);
        printf("unloaded %d fire %p enabled %d\n", rc, six->_fire, probeIsEnabled(six));
    }
    printf("done\n");
    providerDestroy(pv);
    return 0;
}

int main(int argc, char **argv)
{
    long count = -1, ms = 100;
    int use_compat = 0, unload = 0, opt;
    while ((opt = getopt(argc, argv, "cn:i:u")) != -1) {
        switch (opt) {
        case 'c': use_compat = 1; break;
        case 'n': count = atol(optarg); break;
        case 'i': ms = atol(optarg); break;
        case 'u': unload = 1; break;
        default:
            fprintf(stderr, "usage: probes [-c] [-n COUNT] [-i MS] [-u]\n");
            return 2;
        }
    }
    return use_compat ? compat(count, ms, unload) : native(count, ms, unload);
}
