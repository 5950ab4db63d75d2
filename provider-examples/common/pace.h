/* SPDX-License-Identifier: MIT */
/* pace.h: the command line of the looping examples, `PROGRAM [COUNT [SECONDS]]'.

   COUNT is how many iterations to run (0, the default, loops until killed);
   SECONDS is the pause between two iterations and may be a fraction (0.1)
   or 0.  Tests run the examples briefly (`./tick 5 0.1') or as long-lived
   targets for a tracer to attach to (`./tick 0 0.05').  Header-only so that
   each example stays one directory plus this file. */
#ifndef PACE_H
#define PACE_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct pace {
    long count;              /* iterations to run; 0 means forever */
    struct timespec pause;   /* between two iterations */
};

/* pace_parse: fill P from argv[1] and argv[2]; print usage and return -1 on
   bad input. */
static int
pace_parse (struct pace *p, int argc, char **argv, double default_seconds)
{
    double seconds = default_seconds;
    char *end;

    p->count = 0;
    if (argc > 3)
        goto usage;
    if (argc > 1) {
        errno = 0;
        p->count = strtol (argv[1], &end, 10);
        if (errno || end == argv[1] || *end || p->count < 0)
            goto usage;
    }
    if (argc > 2) {
        errno = 0;
        seconds = strtod (argv[2], &end);
        if (errno || end == argv[2] || *end || !(seconds >= 0 && seconds < 86400))
            goto usage;
    }
    p->pause.tv_sec = (time_t) seconds;
    p->pause.tv_nsec = (long) ((seconds - (double) p->pause.tv_sec) * 1e9);
    return 0;
usage:
    fprintf (stderr, "usage: %s [COUNT [SECONDS]]  (COUNT 0 = forever)\n", argv[0]);
    return -1;
}

/* pace_more: whether iteration I (counting from 1) should run. */
static int
pace_more (const struct pace *p, long i)
{
    return p->count == 0 || i <= p->count;
}

/* pace_sleep: pause between iterations, resuming after signals. */
static void
pace_sleep (const struct pace *p)
{
    struct timespec left = p->pause;

    while (nanosleep (&left, &left) == -1 && errno == EINTR)
        ;
}

#endif
