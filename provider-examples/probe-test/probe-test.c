/* SPDX-License-Identifier: MIT */
/* probe-test: a counter with one probe, probe_test:increment, whose only
   argument is the counter (a uint32_t, 1, 2, 3 ...).  The program prints
   nothing: attach a tracer to see it, e.g.

     ./probe-test & bpftrace -p $! -e 'usdt:./probe-test:probe_test:increment
                                       { printf("%u\n", arg0); }'

     ./probe-test [COUNT [SECONDS]]     default: forever, once a second */
#define _POSIX_C_SOURCE 200809L   /* nanosleep (common/pace.h), also with -std=c99 */
#include <sys/sdt.h>
#include <stdint.h>
#include "../common/pace.h"

int
main (int argc, char **argv)
{
    struct pace pace;
    uint32_t ctr = 0;
    long i;

    if (pace_parse (&pace, argc, argv, 1.0) != 0)
        return 2;
    for (i = 1; pace_more (&pace, i); i++) {
        ctr++;
        DTRACE_PROBE1 (probe_test, increment, ctr);
        pace_sleep (&pace);
    }
    return 0;
}
