/* SPDX-License-Identifier: MIT */
/* bench/redzone.c: does tracing a probe clobber the red zone?  A leaf
   function keeps locals below %rsp (the x86-64 red zone), fires a probe,
   then checks them.  Prints "corrupted calls: N" for N calls out of
   ITERATIONS (argv[1]) whose locals changed. */
#include <sys/sdt.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__ ((noinline)) static long
leaf (long a)
{
  volatile long buf[15];
  long bad = 0;
  for (int i = 0; i < 15; i++)
    buf[i] = a + i;
  STAP_PROBE1 (redzone, hit, a);
  for (int i = 0; i < 15; i++)
    bad += buf[i] != a + i;
  return bad;
}

int
main (int argc, char **argv)
{
  long n = argc > 1 ? atol (argv[1]) : 10, corrupted = 0;
  for (long i = 0; i < n; i++)
    corrupted += leaf (i) != 0;
  printf ("corrupted calls: %ld\n", corrupted);
  return 0;
}
