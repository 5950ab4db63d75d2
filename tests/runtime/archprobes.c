/* SPDX-License-Identifier: MIT */
/* archprobes WANT: run-time probes on any target, for tests/runtime-arch.bats
   (built with the run-time library's sources for each target, run under
   qemu-user, watched by gdb on qemu's gdb stub).

   It creates provider "rt": one probe per argument type, each with one
   argument ("u8" ... "dbl"), "all" with the twelve, "none" with none; loads
   it and calls provider_loaded() (where a debugger stops to set its probe
   breakpoints: the probes exist from then on); then fires every probe once,
   in that order, printing "enabled NAME" before firing a probe whose
   semaphore is raised, "fired NAME" after, and "done" at the end.

   WANT receives one line per argument, "NAME argN VALUE": the value a
   tracer that decodes the note (its size and sign) reads, in decimal.
   Exits 1, saying why on stderr, when the provider does not load. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* A debugger's breakpoint: called once, when the provider is loaded,
   through a pointer (on Alpha a direct call enters past the GP setup, where
   gdb does not put the breakpoint). */
__attribute__((noinline)) void provider_loaded(const char *path)
{
    printf("loaded %s\n", path);
    fflush(stdout);
}
static void (*volatile loaded_hook)(const char *) = provider_loaded;

/* What a tracer reads from the note of an argument: its bits in the
   type's size, sign-extended when signed.  Written independently of the
   library's slot code. */
static void print_want(FILE *out, const char *probe, int n, const struct arg *a)
{
    uint64_t bits;
    int size;
    switch (a->type) {
    case SDTKIT_POINTER:
    case SDTKIT_STRING:
        bits = (uint64_t)(uintptr_t)a->value.p;
        size = (int)sizeof(void *);
        break;
    case SDTKIT_FLOAT: {
        float f = (float)a->value.d;
        uint32_t b;
        memcpy(&b, &f, 4);
        bits = b;
        size = 4;
        break;
    }
    case SDTKIT_DOUBLE:
        memcpy(&bits, &a->value.d, 8);
        size = 8;
        break;
    default:
        bits = a->value.u;
        size = a->type;
        break;
    }
    int bytes = size < 0 ? -size : size;
    if (bytes < 8)
        bits &= ((uint64_t)1 << (8 * bytes)) - 1;
    if (size < 0) {
        int shift = 64 - 8 * bytes;
        fprintf(out, "%s arg%d %lld\n", probe, n, (long long)((int64_t)(bits << shift) >> shift));
    } else {
        fprintf(out, "%s arg%d %llu\n", probe, n, (unsigned long long)bits);
    }
}

static void fire(const sdtkit_probe *p, const char *name, const sdtkit_value *v)
{
    if (sdtkit_probe_enabled(p))
        printf("enabled %s\n", name);
    if (v)
        sdtkit_probe_fire(p, v);
    else
        sdtkit_probe_firev(p);
    printf("fired %s\n", name);
}

int main(int argc, char **argv)
{
    struct rt rt;
    FILE *want;
    if (argc != 2 || !(want = fopen(argv[1], "w"))) {
        fprintf(stderr, "usage: archprobes WANT\n");
        return 2;
    }
    int rc = rt_load(&rt);
    if (rc != 0) {
        fprintf(stderr, "archprobes: %s: %s\n", sdtkit_strerror(rc),
                rt.pv ? sdtkit_provider_error(rt.pv) : "");
        return 1;
    }
    for (size_t i = 0; i < NARGS; i++)
        print_want(want, args[i].probe, 0, &args[i]);
    for (size_t i = 0; i < NARGS; i++)
        print_want(want, "all", (int)i, &args[i]);
    fclose(want);
    loaded_hook(sdtkit_provider_path(rt.pv));
    for (size_t i = 0; i < NARGS; i++)
        fire(rt.one[i], args[i].probe, &rt.values[i]);
    fire(rt.all, "all", rt.values);
    fire(rt.none, "none", NULL);
    printf("done\n");
    sdtkit_provider_destroy(rt.pv);
    return 0;
}
