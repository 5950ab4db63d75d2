/* SPDX-License-Identifier: MIT */
/* greet-dlopen: the same calls as greet-linked, but libgreet.so is loaded
   at run time with dlopen (searched through the program's $ORIGIN run
   path), after the program has started: tracers must find the library's
   probes and semaphores in a mapping that appears late.

     ./greet-dlopen [COUNT [SECONDS]]     default: forever, once a second */
#define _POSIX_C_SOURCE 200809L   /* nanosleep (common/pace.h), also with -std=c99 */
#include <dlfcn.h>
#include "../common/pace.h"

int
main (int argc, char **argv)
{
    static const char who[] = "dlopen";
    long (*greet) (const char *, int);
    unsigned (*greet_semaphore) (void);
    struct pace pace;
    void *lib;
    long i;

    if (pace_parse (&pace, argc, argv, 1.0) != 0)
        return 2;
    setvbuf (stdout, NULL, _IOLBF, 0);
    lib = dlopen ("libgreet.so", RTLD_NOW);
    if (!lib) {
        fprintf (stderr, "greet-dlopen: %s\n", dlerror ());
        return 1;
    }
    /* POSIX's way to turn dlsym's void * into a function pointer. */
    *(void **) &greet = dlsym (lib, "greet");
    *(void **) &greet_semaphore = dlsym (lib, "greet_semaphore");
    if (!greet || !greet_semaphore) {
        fprintf (stderr, "greet-dlopen: %s\n", dlerror ());
        return 1;
    }
    for (i = 1; pace_more (&pace, i); i++) {
        unsigned semaphore = greet_semaphore ();
        long total = greet (who, (int) i);

        printf ("greet who=%p n=%ld total=%ld (semaphore %u)\n",
                (const void *) who, i, total, semaphore);
        pace_sleep (&pace);
    }
    dlclose (lib);
    return 0;
}
