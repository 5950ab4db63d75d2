/* SPDX-License-Identifier: MIT */
/* A probe with three arguments fired N times, built with <sys/sdt.h> and
   -DSDT_NOP10 (or with <usdt.h> and -DUSE_USDT_H, where the nop pair is
   the x86-64 default). */
#include <stdio.h>
#include <stdlib.h>
#ifdef USE_USDT_H
# include <usdt.h>
# define PROBE(i, l, c) USDT (app, fire, i, l, c)
#else
# include <sys/sdt.h>
# define PROBE(i, l, c) STAP_PROBE3 (app, fire, i, l, c)
#endif

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 1;
  /* computed at run time, so -O2 keeps them in registers: perf reads no
     immediate operands */
  long l = -7 - (argc > 9);
  unsigned char c = (unsigned char) (200 + (argc > 9));
  int i;

  for (i = 0; i < n; i++)
    PROBE (i, l, c);
  printf ("done %d\n", n);
  (void) argv;
  return 0;
}
