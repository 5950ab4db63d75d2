/* SPDX-License-Identifier: MIT */
/* hello-semaphore-usdt: hello-usdt's two probes, declared in a provider
   file and guarded by their semaphores.  A probe's *_ENABLED() macro is
   true only while a tracer is attached to it, so a program can skip
   preparing arguments that nobody will read.  Run it plainly and both
   probes report "disabled"; run it under a tracer, e.g.

     bpftrace -e 'usdt:./hello-semaphore-usdt:hello_semaphore_usdt:exit
                  { printf("exit %d\n", arg0); }' -c './hello-semaphore-usdt 3'

   and the traced probe reports "enabled" and fires.

     ./hello-semaphore-usdt [EXIT_CODE]     exits with EXIT_CODE (default 0) */
#include "tp_provider.h"
#include <stdio.h>
#include <stdlib.h>

int
main (int argc, char **argv)
{
    int reval = argc > 1 ? atoi (argv[1]) : 0;

    if (HELLO_SEMAPHORE_USDT_ENTER_ENABLED ()) {
        printf ("enter: enabled\n");
        HELLO_SEMAPHORE_USDT_ENTER ();
    } else {
        printf ("enter: disabled\n");
    }
    if (HELLO_SEMAPHORE_USDT_EXIT_ENABLED ()) {
        printf ("exit: enabled\n");
        HELLO_SEMAPHORE_USDT_EXIT (reval);
    } else {
        printf ("exit: disabled\n");
    }
    return reval;
}
