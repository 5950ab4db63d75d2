/* SPDX-License-Identifier: MIT */
/* jobs.h: what jobs.c and stats.c share -- the explicit semaphore of the
   `jobs_debug' probes, declared here, defined once in jobs.c. */
#ifndef JOBS_H
#define JOBS_H

#include <usdt.h>

USDT_DECLARE_SEMA (jobs_debug);

/* stats.c: record a finished job; fires jobs:stats (shared semaphore) and
   jobs:done (implicit semaphore, also fired from jobs.c). */
void stats_record (int id, long micros);

#endif
