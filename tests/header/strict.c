/* SPDX-License-Identifier: MIT */
/* Compiled under -Wall -Wextra -Wpedantic -Werror in every C and C++
   standard (and -Wold-style-cast in C++): every kind of probe must be
   warning-free, including zero-argument probes and semaphores. */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#ifdef __cplusplus
extern "C" {
#endif
__extension__ extern unsigned short p_zero_semaphore __attribute__ ((unused))
  __attribute__ ((section (".probes")));
__extension__ extern unsigned short p_one_semaphore __attribute__ ((unused))
  __attribute__ ((section (".probes")));
__extension__ extern unsigned short p_twelve_semaphore __attribute__ ((unused))
  __attribute__ ((section (".probes")));
__extension__ extern unsigned short p_mixed_semaphore __attribute__ ((unused))
  __attribute__ ((section (".probes")));
__extension__ extern unsigned short p_byval_semaphore __attribute__ ((unused))
  __attribute__ ((section (".probes")));
#ifdef __cplusplus
}
#endif

struct rec { int a; unsigned b : 3; const char *name; };
enum state { IDLE, BUSY };
/* Passed by value: structs and unions of 1, 2, 4 and 8 bytes. */
struct one { unsigned char c; };
struct four { int x; };
union two { short s; unsigned char b[2]; };
struct eight { int a, b; };

int f (int x, const char *str, struct rec *r, double d, enum state st);
int
f (int x, const char *str, struct rec *r, double d, enum state st)
{
  char c = 'c';
  unsigned char uc = 1;
  short sh = -2;
  long l = 3;
  unsigned long ul = 4u;
  float fl = 1.5f;
  int arr[2];
  struct one o;
  struct four fo;
  union two tw;
  struct eight e;
  o.c = 1;
  fo.x = x;
  tw.s = sh;
  e.a = x;
  e.b = 2;
  arr[0] = x;
  arr[1] = 0;
  STAP_PROBE (p, zero);
  DTRACE_PROBE (p, zero);
  if (p_one_semaphore)
    STAP_PROBE1 (p, one, x);
  STAP_PROBE12 (p, twelve, x, str, r->a, r->b, d, c, uc, sh, l, ul, fl, arr);
  DTRACE_PROBE6 (p, mixed, r->name, st, x + 1, -1, 'a', sizeof (struct rec));
  DTRACE_PROBE4 (p, byval, o, fo, tw, e);
  return arr[1];
}
