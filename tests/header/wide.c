/* SPDX-License-Identifier: MIT */
/* Arguments no tracer can read: must not compile.  WIDE selects which. */
#include <sys/sdt.h>
struct pair { int a, b; };
void wide (void);
void wide (void)
{
#if WIDE == 1
  __int128 v = 1;
#elif WIDE == 2
  long double v = 1.0L;
#elif WIDE == 3
  struct pair v = { 1, 2 };
#endif
  int ok = 3;
  STAP_PROBE2 (t, wide, ok, v);
}
