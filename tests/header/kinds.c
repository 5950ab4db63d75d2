/* SPDX-License-Identifier: MIT */
/* The four kinds of argument a probe passes (issue 41, for -masm=intel):
   a register (a parameter), a constant, a global, and an element of an
   array of structs, through <sys/sdt.h>, or <usdt.h> with -DUSE_USDT.
   Prints the values it passes, as "x 42 g weight"; fires with argc + 100
   and the element argc. */
#include <stdio.h>
#ifdef USE_USDT
# include <usdt.h>
# define FIRE(x, g, w) USDT (t, kinds, x, 42, g, w)
#else
# include <sys/sdt.h>
# define FIRE(x, g, w) STAP_PROBE4 (t, kinds, x, 42, g, w)
#endif

struct item { int id; long weight; };
int g = 7;
struct item items[4] = { { 1, 10 }, { 2, -20 }, { 3, 30 }, { 4, -40 } };

__attribute__ ((noinline)) int
fire (int x, int i)
{
  FIRE (x, g, items[i].weight);
  return x + 1;
}

int
main (int argc, char **argv)
{
  (void) argv;
  printf ("%d 42 %d %ld\n", argc + 100, g, items[argc].weight);
  fflush (stdout);
  return fire (argc + 100, argc) == 0;
}
