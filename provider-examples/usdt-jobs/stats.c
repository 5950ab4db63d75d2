/* SPDX-License-Identifier: MIT */
/* stats.c: a second translation unit of usdt-jobs.  jobs:done here uses
   the same implicit semaphore as in jobs.c; jobs:stats the shared
   jobs_debug one declared in jobs.h. */
#include "jobs.h"

static long total;

void
stats_record (int id, long micros)
{
    total += micros;
    if (USDT_IS_ACTIVE (jobs, done))
        USDT_WITH_SEMA (jobs, done, -id, total);
    USDT_WITH_EXPLICIT_SEMA (jobs_debug, jobs, stats, id, total);
}
