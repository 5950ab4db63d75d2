/* SPDX-License-Identifier: MIT */
/* shared SDT_LIST: small providers share an object, and its notes say
   exactly which probes are loaded.

   Loads two native providers, "one" (probe a) and "two" (probes b and c);
   says whether their paths name one file, and lists that file's notes
   with SDT_LIST (provider, name, arguments, sorted; and how many notes,
   distinct sites and distinct semaphores).  Then, listing the notes after
   each step: unloads "two"; destroys "one" and loads a new "four" (probe
   e); loads "two" again.  Last, two providers of libstapsdt's API (whose
   library, libstapsdt.so.0, has objects of its own), "three_app" and
   "five_app": whether their _filename and _memfd name one file, and its
   notes. */
#define _GNU_SOURCE
#include <libstapsdt.h>
#include <sdtkit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *sdt_list;

/* The notes of the file at path: "PROVIDER NAME ARGS" lines, sorted, then
 * how many notes, distinct sites and distinct semaphores. */
static void notes(const char *step, const char *path)
{
    char cmd[8192];
    snprintf(cmd, sizeof cmd,
             "'%s' --check '%s' | awk -F'\\t' '{ print $2, $3, $7; pc[$4]; sem[$6]; n++ } "
             "END { printf \"# %%d notes, %%d sites, %%d semaphores\\n\", n, length(pc), "
             "length(sem) }' | sort",
             sdt_list, path);
    printf("== %s\n", step);
    fflush(stdout);
    if (system(cmd) != 0)
        printf("sdt-list failed\n");
    fflush(stdout);
}

static sdtkit_provider *native(const char *name, const char *const *probes, int n)
{
    static const int types[] = {SDTKIT_INT32, SDTKIT_STRING};
    sdtkit_provider *pv;
    sdtkit_probe *p;
    if (sdtkit_provider_create(name, &pv) != 0)
        exit(2);
    for (int i = 0; i < n; i++)
        if (sdtkit_provider_add_probe(pv, probes[i], types, i + 1, &p) != 0)
            exit(2);
    if (sdtkit_provider_load(pv) != 0) {
        fprintf(stderr, "%s: %s\n", name, sdtkit_provider_error(pv));
        exit(2);
    }
    return pv;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    sdt_list = argv[1];
    static const char *const a[] = {"a"}, *const bc[] = {"b", "c"}, *const e[] = {"e"};
    sdtkit_provider *one = native("one", a, 1), *two = native("two", bc, 2);
    char path[4096];
    snprintf(path, sizeof path, "%s", sdtkit_provider_path(one));
    printf("one and two: %s\n", strcmp(path, sdtkit_provider_path(two)) == 0 ? "one file" : "two files");
    notes("loaded", path);
    sdtkit_provider_unload(two);
    notes("two unloaded", path);
    sdtkit_provider_destroy(one);
    sdtkit_provider *four = native("four", e, 1);
    printf("four: %s\n", strcmp(path, sdtkit_provider_path(four)) == 0 ? "the same file" : "another file");
    notes("one destroyed, four loaded", path);
    if (sdtkit_provider_load(two) != 0)
        return 2;
    notes("two loaded again", path);
    sdtkit_provider_destroy(two);
    sdtkit_provider_destroy(four);

    SDTProvider_t *three = providerInit("three_app"), *five = providerInit("five_app");
    if (!three || !five || !providerAddProbe(three, "d", 1, int32) ||
        !providerAddProbe(five, "f", 2, uint8, int64) || providerLoad(three) != 0 ||
        providerLoad(five) != 0)
        return 2;
    char fd3[64], fd5[64], t3[4096] = "", t5[4096] = "";
    snprintf(fd3, sizeof fd3, "/proc/self/fd/%d", three->_memfd);
    snprintf(fd5, sizeof fd5, "/proc/self/fd/%d", five->_memfd);
    ssize_t n3 = readlink(three->_filename, t3, sizeof t3 - 1);
    ssize_t n5 = readlink(fd5, t5, sizeof t5 - 1);
    t3[n3 > 0 ? n3 : 0] = '\0';
    t5[n5 > 0 ? n5 : 0] = '\0';
    printf("_filename: %s\n", strcmp(three->_filename, five->_filename) == 0 ? "one file" : "two files");
    printf("_memfd: %s\n", n3 > 0 && strcmp(t3, t5) == 0 && strcmp(fd3, fd5) == 0 ? "that file's" : t5);
    notes("libstapsdt's API", three->_filename);
    providerDestroy(three);
    providerDestroy(five);
    return 0;
}
