/* SPDX-License-Identifier: MIT */
/* Every kind of argument the headers accept, built with <sys/sdt.h> or,
   with -DUSE_USDT_H, with <usdt.h>.  The values depend on argc (run it
   with no argument), so optimised builds keep them in registers; the
   probe "consts" passes constants (immediate operands).  Prints the
   addresses passed as pointers, for the test to compare. */
#include <stdio.h>
#ifdef USE_USDT_H
# include <usdt.h>
# define PROBE6(name, a, b, c, d, e, f) USDT (types, name, a, b, c, d, e, f)
# define PROBE12(name, a, b, c, d, e, f, g, h, i, j, k, l) \
  USDT (types, name, a, b, c, d, e, f, g, h, i, j, k, l)
#else
# include <sys/sdt.h>
# define PROBE6(name, a, b, c, d, e, f) STAP_PROBE6 (types, name, a, b, c, d, e, f)
# define PROBE12(name, a, b, c, d, e, f, g, h, i, j, k, l) \
  STAP_PROBE12 (types, name, a, b, c, d, e, f, g, h, i, j, k, l)
#endif

enum color { RED = -2, GREEN = 7 };
struct bits { unsigned u5 : 5; int s4 : 4; };

int
main (int argc, char **argv)
{
  int k = argc - 1;
  char c = (char) (65 + k);
  signed char sc = (signed char) (-100 + k);
  unsigned char uc = (unsigned char) (250 + k);
  short s = (short) (-30000 + k);
  unsigned short us = (unsigned short) (65000 + k);
  int i = -2000000000 + k;
  unsigned u = 4000000000u + (unsigned) k;
  long l = -9000000000000000000L + k;
  unsigned long ul = 18000000000000000000UL + (unsigned long) k;
  long long ll = -5LL + k;
  unsigned long long ull = 0xfffffffffffffff0ULL + (unsigned long long) k;
  _Bool b = k == 0;
  enum color e = k ? GREEN : RED;
  struct bits bf;
  void *p = &k;
  char *str = argv[0];

  bf.u5 = (unsigned) (31 - k);
  bf.s4 = -8 + k;
  PROBE6 (small, c, sc, uc, s, us, i);
  PROBE6 (wide, u, l, ul, ll, ull, b);
  PROBE6 (misc, e, bf.u5, bf.s4, p, str, k);
  PROBE12 (consts, 1, -1, 'x', 255, -32768, 65535, 2147483647, -2147483647 - 1,
           4294967295U, 9223372036854775807LL, -9223372036854775807LL - 1, 0);
  printf ("p=%lld str=%lld\n", (long long) (unsigned long) p,
          (long long) (unsigned long) str);
  return 0;
}
