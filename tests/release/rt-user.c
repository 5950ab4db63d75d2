/* SPDX-License-Identifier: MIT */
/* rt-user [COPY]: a user of the installed run-time libraries, for the
   packaging suites.  Built with -DSTAPSDT it uses libstapsdt's API, else
   sdtkit's.  It makes provider "release" with probe "tick" (a 4-byte
   signed integer and a string), loads it, copies the loaded object to COPY
   when given (for readelf and sdt-list), fires the probe with 42 and
   "hello", unloads and says "fired 42 hello".  A load that fails prints
   "load failed: MESSAGE", fires the probe anyway (which must do nothing),
   and exits 3. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#ifdef STAPSDT
#include <libstapsdt.h>
#else
#include <sdtkit.h>
#endif

static int copy(const char *from, const char *to)
{
    char buf[4096];
    size_t n;
    int rc = -1;
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    if (!in || !out)
        goto done;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (fwrite(buf, 1, n, out) != n)
            goto done;
    rc = ferror(in) ? -1 : 0;
done:
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        rc = -1;
    return rc;
}

int main(int argc, char **argv)
{
    const char *path;
#ifdef STAPSDT
    SDTProvider_t *pv = providerInit("release");
    SDTProbe_t *tick = pv ? providerAddProbe(pv, "tick", 2, int32, uint64) : NULL;
    if (!tick)
        return puts("add failed"), 1;
    if (providerLoad(pv) != 0) {
        printf("load failed: %s\n", pv->error ? pv->error : "(no message)");
        probeFire(tick, (int32_t)42, (uint64_t)(uintptr_t) "hello");
        providerDestroy(pv);
        return 3;
    }
    path = pv->_filename;
#else
    static const int types[] = {SDTKIT_INT32, SDTKIT_STRING};
    sdtkit_provider *pv;
    sdtkit_probe *tick;
    if (sdtkit_provider_create("release", &pv) != 0 ||
        sdtkit_provider_add_probe(pv, "tick", types, 2, &tick) != 0)
        return puts("add failed"), 1;
    int rc = sdtkit_provider_load(pv);
    if (rc != 0) {
        printf("load failed: %s: %s\n", sdtkit_strerror(rc), sdtkit_provider_error(pv));
        sdtkit_probe_firev(tick, 42, "hello");
        sdtkit_provider_destroy(pv);
        return 3;
    }
    path = sdtkit_provider_path(pv);
#endif
    if (argc > 1 && copy(path, argv[1]) != 0)
        return printf("cannot copy %s to %s\n", path, argv[1]), 1;
#ifdef STAPSDT
    probeFire(tick, (int32_t)42, (uint64_t)(uintptr_t) "hello");
    providerUnload(pv);
    providerDestroy(pv);
#else
    sdtkit_value v[2];
    v[0].i = 42;
    v[1].p = "hello";
    sdtkit_probe_fire(tick, v);
    sdtkit_provider_unload(pv);
    sdtkit_provider_destroy(pv);
#endif
    puts("fired 42 hello");
    return 0;
}
