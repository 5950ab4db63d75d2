/* SPDX-License-Identifier: MIT */
/* stale: a handle kept past its provider's destroy fires nothing.  Loads
   provider "lcold" (probe p, one int32), destroys it, keeps the handle;
   loads "lcnew" (probe p, one int32: as many arguments, which a pool of
   probes by argument count would hand out again), prints its path and
   "ready", then every 20 ms fires the stale handle with 1 and lcnew's
   with 2, until killed. */
#include <sdtkit.h>

#include <stdio.h>
#include <time.h>

int main(void)
{
    static const int types[] = {SDTKIT_INT32};
    sdtkit_provider *old, *pv;
    sdtkit_probe *stale, *p;
    if (sdtkit_provider_create("lcold", &old) ||
        sdtkit_provider_add_probe(old, "p", types, 1, &stale) || sdtkit_provider_load(old))
        return 1;
    sdtkit_provider_destroy(old);
    if (sdtkit_provider_create("lcnew", &pv) || sdtkit_provider_add_probe(pv, "p", types, 1, &p) ||
        sdtkit_provider_load(pv))
        return 1;
    printf("%s\nready\n", sdtkit_provider_path(pv));
    fflush(stdout);
    sdtkit_value one = {.i = 1}, two = {.i = 2};
    for (;;) {
        sdtkit_probe_fire(stale, &one);
        sdtkit_probe_fire(p, &two);
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
}
