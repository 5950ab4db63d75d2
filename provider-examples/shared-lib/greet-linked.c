/* SPDX-License-Identifier: MIT */
/* greet-linked: calls libgreet.so, linked at build time (found next to the
   program through its $ORIGIN run path).  Each iteration prints what it
   passed to the library's probes.

     ./greet-linked [COUNT [SECONDS]]     default: forever, once a second */
#define _POSIX_C_SOURCE 200809L   /* nanosleep (common/pace.h), also with -std=c99 */
#include "libgreet.h"
#include "../common/pace.h"

int
main (int argc, char **argv)
{
    static const char who[] = "linked";
    struct pace pace;
    long i;

    if (pace_parse (&pace, argc, argv, 1.0) != 0)
        return 2;
    setvbuf (stdout, NULL, _IOLBF, 0);
    for (i = 1; pace_more (&pace, i); i++) {
        unsigned semaphore = greet_semaphore ();
        long total = greet (who, (int) i);

        printf ("greet who=%p n=%ld total=%ld (semaphore %u)\n",
                (const void *) who, i, total, semaphore);
        pace_sleep (&pace);
    }
    return 0;
}
