/* SPDX-License-Identifier: MIT */
/* work.c: the jobs cmq runs, with their probes. */
#include "probes.h"
#include "work.h"

long
run_job (int id, const char *name)
{
    long result = 0;
    const char *p;

    CMQ_START (id, name);
    for (p = name; *p; p++)
        result = result * 31 + (unsigned char) *p;
    result *= id;
    if (CMQ_DONE_ENABLED ())
        CMQ_DONE (id, result);
    return result;
}
