/* SPDX-License-Identifier: MIT */
/* dropped: a program that keeps no handle once it has destroyed its
   providers, as most bindings do, for valgrind's leak check: a provider of
   each API with two probes, loaded, fired, unloaded and destroyed; a
   second pair destroyed while loaded.  What the library keeps of them
   (the probes of destroyed providers, for stale handles) must be
   reachable from it, never only through a pointer into the middle of a
   block ("possibly lost", which valgrind counts as an error). */
#include <libstapsdt.h>
#include <sdtkit.h>

#include <stdio.h>

static int cycle(const char *name, const char *cname, int unload)
{
    static const int types[] = {SDTKIT_INT8, SDTKIT_UINT8, SDTKIT_INT64, SDTKIT_UINT64};
    sdtkit_provider *pv;
    sdtkit_probe *a, *b;
    if (sdtkit_provider_create(name, &pv) != 0 ||
        sdtkit_provider_add_probe(pv, "a", types, 4, &a) != 0 ||
        sdtkit_provider_add_probe(pv, "b", types, 2, &b) != 0 || sdtkit_provider_load(pv) != 0)
        return 1;
    sdtkit_probe_firev(a, 1, 2, (int64_t)3, (uint64_t)4);
    sdtkit_probe_firev(b, -3, 8);
    if (unload && sdtkit_provider_unload(pv) != 0)
        return 1;
    sdtkit_provider_destroy(pv);

    SDTProvider_t *cp = providerInit(cname);
    SDTProbe_t *ca = cp ? providerAddProbe(cp, "a", 4, int8, uint8, int64, uint64) : NULL;
    SDTProbe_t *cb = cp ? providerAddProbe(cp, "b", 2, int8, uint8) : NULL;
    if (!ca || !cb || providerLoad(cp) != 0)
        return 1;
    probeFire(ca, 1, 2, 3, 4);
    probeFire(cb, -3, 8);
    if (unload)
        providerUnload(cp);
    providerDestroy(cp);
    return 0;
}

int main(void)
{
    if (cycle("dropped", "dropped-app", 1) != 0 || cycle("dropped2", "dropped2-app", 0) != 0) {
        fputs("dropped: a call failed\n", stderr);
        return 2;
    }
    return 0;
}
