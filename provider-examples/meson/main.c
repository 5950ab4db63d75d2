/* SPDX-License-Identifier: MIT */
/* jobq: runs N jobs (default 3) and prints what each probe got.

     ./jobq [N] */
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
        printf ("job %d name=%p result=%ld\n", id, (const void *) name,
                run_job (id, name));
    return 0;
}
