/* SPDX-License-Identifier: MIT */
/* usdt-jobs: probes written with <usdt.h> (libbpf's USDT API) -- no
   provider file, no dtrace -h or -G step.  A pretend job queue:

     jobs:submit(int id, int size)       USDT: no semaphore
     jobs:done(int id, long micros)      USDT_WITH_SEMA: an implicit
                                         semaphore, shared by jobs.c and
                                         stats.c (one per program)
     jobs:queue(int depth, char *names)  USDT_WITH_EXPLICIT_SEMA (jobs_debug):
     jobs:stats(int id, long total)      one semaphore for both probes, so
                                         attaching to either turns on the
                                         debug work for both

   Each iteration prints both semaphores, so you can watch them change as a
   tracer attaches and detaches.

     ./usdt-jobs [COUNT [SECONDS]]     default: forever, one job a second */
#define _POSIX_C_SOURCE 200809L   /* nanosleep (common/pace.h), also with -std=c99 */
#include <stdio.h>
#include "jobs.h"
#include "../common/pace.h"

USDT_DEFINE_SEMA (jobs_debug);

int
main (int argc, char **argv)
{
    struct pace pace;
    long i;

    if (pace_parse (&pace, argc, argv, 1.0) != 0)
        return 2;
    setvbuf (stdout, NULL, _IOLBF, 0);
    for (i = 1; pace_more (&pace, i); i++) {
        int id = (int) i, size = (int) (i * 10);
        char names[64];

        USDT (jobs, submit, id, size);
        /* the debug text is only worth building while someone looks */
        if (USDT_SEMA_IS_ACTIVE (jobs_debug)) {
            snprintf (names, sizeof names, "job%d", id);
            USDT_WITH_EXPLICIT_SEMA (jobs_debug, jobs, queue, 1, names);
        }
        USDT_WITH_SEMA (jobs, done, id, (long) size * 3);
        stats_record (id, (long) size * 3);
        printf ("job %d: done %s, debug %s\n", id,
                USDT_IS_ACTIVE (jobs, done) ? "traced" : "untraced",
                USDT_SEMA_IS_ACTIVE (jobs_debug) ? "traced" : "untraced");
        pace_sleep (&pace);
    }
    return 0;
}
