/* SPDX-License-Identifier: MIT */
/* cmq: runs N jobs (default 3) and prints what each probe got.

     ./cmq [N] */
#include "probes.h"
#include "work.h"
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
    static const char name[] = "job";
    int n = argc > 1 ? atoi (argv[1]) : 3;
    int id;

    for (id = 1; id <= n; id++)
        printf ("job %d name=%p result=%ld probed=%d\n", id, (const void *) name,
                run_job (id, name), CMQ_DONE_ENABLED () ? 1 : 0);
    return 0;
}
