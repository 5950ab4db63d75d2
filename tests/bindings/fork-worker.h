/* SPDX-License-Identifier: MIT */
/* fork-worker.h: a pre-fork server's worker in C, for a binding whose
   language cannot run in a forked child (Go): the child, once traced, fires
   the probe it inherited every millisecond until the tracer has gone (as
   the drivers' serve), then exits through exit(3): status 0, or 3 when no
   tracer came or went within $SDTKIT_HANG_SECONDS (default 300), a bound
   against a hang only.  The child's pid in the parent. */
#ifndef FORK_WORKER_H
#define FORK_WORKER_H

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

static inline int bind_worker(const void *probe, int (*enabled)(const void *),
                              void (*fire)(const void *, const uint64_t *, int), const uint64_t *a,
                              int n)
{
    pid_t pid = fork();
    if (pid != 0)
        return (int)pid;
    const char *h = getenv("SDTKIT_HANG_SECONDS");
    long ms = 1000L * (h && atol(h) > 0 ? atol(h) : 300);
    for (long i = 0; i < ms && !enabled(probe); i++)
        usleep(1000);
    if (!enabled(probe))
        exit(3);
    for (long i = 0; i < ms && enabled(probe); i++) {
        fire(probe, a, n);
        usleep(1000);
    }
    exit(enabled(probe) ? 3 : 0);
}

#endif
