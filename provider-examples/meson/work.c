/* SPDX-License-Identifier: MIT */
/* work.c: the jobs jobq runs, with their probes. */
#include "probes.h"
#include "work.h"

long
run_job (int id, const char *name)
{
    long result = 0;
    const char *p;

    JOBQ_START (id, name);
    for (p = name; *p; p++)
        result = result * 31 + (unsigned char) *p;
    result *= id;
    if (JOBQ_DONE_ENABLED ())
        JOBQ_DONE (id, result);
    return result;
}
