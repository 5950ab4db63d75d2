/* SPDX-License-Identifier: MIT */
/* greet.d: the probes of libgreet.so.  The semaphores dtrace -G defines
   are linked into the library itself, so each process that loads it has
   its own copy, which tracers find through the library's notes. */
provider greet {
    probe hello(const char *who, int n);   /* guarded by GREET_HELLO_ENABLED() */
    probe done(long total);                /* always fired */
};
