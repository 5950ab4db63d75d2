/* SPDX-License-Identifier: MIT */
/* bench/loop.c: a hot loop over one probe site, for counting what a
   disabled probe costs (callgrind) and what a fired one costs (uprobe).

     -DARGS=REGS     probe arguments already in registers (loop counter and
                     a value carried from one iteration to the next)
     -DARGS=FIELDS   arguments read from a struct through a pointer
     -DARGS=GLOBALS  arguments that are global variables
     -DGUARDED       the probe is inside if (LOOP_HOT_ENABLED ())
     -DNOPROBE       the same loop with the probe macro empty

   Usage: loop ITERATIONS; prints a checksum so nothing is optimised away.
   The header (ours or SystemTap's) and the -h header generated from
   loop.d are chosen with -I. */
#include <stdio.h>
#include <stdlib.h>
#include "loop_probes.h"

#define REGS 1
#define FIELDS 2
#define GLOBALS 3

#ifdef NOPROBE
# undef LOOP_HOT
# define LOOP_HOT(a, b) do { } while (0)
# undef LOOP_HOT_ENABLED
# define LOOP_HOT_ENABLED() 0
#endif

struct item { long key; unsigned len; };
long g_key;
unsigned g_len;

__attribute__ ((noinline)) static unsigned long
run (long n, const struct item *items)
{
  unsigned long x = 88172645463325252UL;
  for (long i = 0; i < n; i++)
    {
      const struct item *it = &items[i & 255];
      x ^= x << 13; x ^= x >> 7; x ^= x << 17;   /* carried from one iteration to the next */
      x += (unsigned long) it->key;
#if ARGS == REGS
# define A1 i
# define A2 x
#elif ARGS == FIELDS
# define A1 it->key
# define A2 it->len
#else
# define A1 g_key
# define A2 g_len
#endif
#ifdef GUARDED
      if (LOOP_HOT_ENABLED ())
#endif
        LOOP_HOT (A1, A2);
#if ARGS == GLOBALS
      g_key += (long) (x & 7);
#endif
    }
  return x;
}

int
main (int argc, char **argv)
{
  static struct item items[256];
  long n = argc > 1 ? atol (argv[1]) : 1000000;
  for (int i = 0; i < 256; i++)
    {
      items[i].key = i * 7;
      items[i].len = (unsigned) i;
    }
  printf ("%lu\n", run (n, items));
  return 0;
}
