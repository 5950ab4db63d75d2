/* SPDX-License-Identifier: MIT */
/* hello-usdt: the smallest USDT program.  Two probes straight from
   <sys/sdt.h>, no provider file and no semaphore: each probe is a single
   nop plus a note that tracers read.

     ./hello-usdt [EXIT_CODE]     fires hello_usdt:enter, then
                                  hello_usdt:exit with EXIT_CODE (default 0)
                                  and exits with it. */
#include <sys/sdt.h>
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
    int reval = argc > 1 ? atoi (argv[1]) : 0;

    DTRACE_PROBE (hello_usdt, enter);
    printf ("hello, usdt\n");
    DTRACE_PROBE1 (hello_usdt, exit, reval);
    return reval;
}
