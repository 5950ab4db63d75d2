/* SPDX-License-Identifier: MIT */
/* minijit: probes a program creates while it runs, with <sdtkit.h>.

   A toy interpreter: the "functions" it runs are only known once it has
   started (here: the words in $MINIJIT_FUNCS, default "fib fact gcd"), so
   it cannot declare their probes in a provider file.  It makes one
   provider, `minijit', with an `entry' and a `return' probe per function
   (`fib__entry(long n)', `fib__return(long n, long result)'), loads it, and
   fires them as it runs: only when a tracer is attached, which
   sdtkit_probe_enabled() tells for the price of two loads.

   minijit [COUNT [SECONDS]]: COUNT rounds (0: forever) SECONDS apart.  The
   first line it prints is the file tracers open (/proc/PID/fd/N). */
#define _POSIX_C_SOURCE 200809L   /* nanosleep (common/pace.h), also with -std=c99 */
#include <sdtkit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/pace.h"

#define MAX_FUNCS 16

struct func {
    char name[48];
    sdtkit_probe *entry, *ret;
};

static long run(const char *name, long n)
{
    if (strcmp(name, "fib") == 0) {
        long a = 0, b = 1;
        for (long i = 0; i < n; i++) {
            long t = a + b;
            a = b;
            b = t;
        }
        return a;
    }
    if (strcmp(name, "fact") == 0) {
        long r = 1;
        for (long i = 2; i <= n; i++)
            r *= i;
        return r;
    }
    long a = n * 12, b = 18; /* gcd */
    while (b) {
        long t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* The probes of every function named in list, added to pv. */
static int add_functions(sdtkit_provider *pv, char *list, struct func *f, int *n)
{
    static const int entry[] = {SDTKIT_INT64}, ret[] = {SDTKIT_INT64, SDTKIT_INT64};
    for (char *w = strtok(list, " "); w && *n < MAX_FUNCS; w = strtok(NULL, " ")) {
        struct func *fn = &f[(*n)++];
        char probe[64];
        snprintf(fn->name, sizeof fn->name, "%s", w);
        snprintf(probe, sizeof probe, "%s__entry", w);
        int rc = sdtkit_provider_add_probe(pv, probe, entry, 1, &fn->entry);
        snprintf(probe, sizeof probe, "%s__return", w);
        if (rc == 0)
            rc = sdtkit_provider_add_probe(pv, probe, ret, 2, &fn->ret);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct pace pace;
    struct func funcs[MAX_FUNCS];
    int nfuncs = 0;
    sdtkit_provider *pv = NULL;
    const char *env = getenv("MINIJIT_FUNCS");
    char list[512];
    if (pace_parse(&pace, argc, argv, 1.0) != 0)
        return 2;
    snprintf(list, sizeof list, "%s", env && *env ? env : "fib fact gcd");

    int rc = sdtkit_provider_create("minijit", &pv);
    if (rc == 0)
        rc = add_functions(pv, list, funcs, &nfuncs);
    if (rc == 0)
        rc = sdtkit_provider_load(pv);
    if (rc != 0) {
        fprintf(stderr, "minijit: %s: %s\n", sdtkit_strerror(rc),
                pv ? sdtkit_provider_error(pv) : "");
        sdtkit_provider_destroy(pv);
        return 1;
    }
    printf("%s\n", sdtkit_provider_path(pv));
    fflush(stdout);

    for (long i = 1; pace_more(&pace, i); i++) {
        for (int k = 0; k < nfuncs; k++) {
            struct func *fn = &funcs[k];
            long n = 10 + i % 10;
            if (sdtkit_probe_enabled(fn->entry))
                sdtkit_probe_firev(fn->entry, (int64_t)n);
            long r = run(fn->name, n);
            if (sdtkit_probe_enabled(fn->ret))
                sdtkit_probe_firev(fn->ret, (int64_t)n, (int64_t)r);
            printf("%s(%ld) = %ld%s\n", fn->name, n, r,
                   sdtkit_probe_enabled(fn->ret) ? "  [traced]" : "");
        }
        fflush(stdout);
        pace_sleep(&pace);
    }
    sdtkit_provider_destroy(pv);
    return 0;
}
