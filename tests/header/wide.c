/* SPDX-License-Identifier: MIT */
/* Arguments whose note cannot give the whole value: they compile with a
   warning naming the argument, and SDT_STRICT_ARGS makes that an error.
   WIDE selects which; WIDE=4 is an 8-byte struct, which is a plain
   argument. */
#include <sys/sdt.h>
struct triple { int a, b, c; };
struct pair { int a, b; };
void wide (void);
void wide (void)
{
#if WIDE == 1
  __int128 v = 1;
#elif WIDE == 2
  long double v = 1.0L;
#elif WIDE == 3
  struct triple v = { 1, 2, 3 };
#elif WIDE == 4
  struct pair v = { 1, 2 };
#endif
  int ok = 3;
  STAP_PROBE2 (t, wide, ok, v);
}
