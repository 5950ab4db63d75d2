/* SPDX-License-Identifier: MIT */
/* tick: a counter that fires two probes per iteration.

   tick:loop1 is fired unconditionally.  tick:loop2 is guarded by
   TICK_LOOP2_ENABLED(), which reads the probe's semaphore: the kernel (or
   the tracer) increments it while something is attached to tick:loop2, so
   the guarded code costs one load and branch when nobody is tracing.  Each
   iteration prints the counter and the semaphore's value, so you can watch
   it change as a tracer attaches and detaches.

     ./tick [COUNT [SECONDS]]     default: forever, one tick per second */
#define _POSIX_C_SOURCE 200809L   /* nanosleep (common/pace.h), also with -std=c99 */
#include "tick.h"
#include "../common/pace.h"

int
main (int argc, char **argv)
{
    struct pace pace;
    int counter = 0;
    long i;

    if (pace_parse (&pace, argc, argv, 1.0) != 0)
        return 2;
    setvbuf (stdout, NULL, _IOLBF, 0);
    for (i = 1; pace_more (&pace, i); i++) {
        unsigned semaphore;

        counter++;
        TICK_LOOP1 (counter);
        semaphore = TICK_LOOP2_ENABLED ();
        if (semaphore)
            TICK_LOOP2 (counter);
        printf ("tick %d: loop2 %s (semaphore %u)\n", counter,
                semaphore ? "enabled" : "disabled", semaphore);
        pace_sleep (&pace);
    }
    return 0;
}
