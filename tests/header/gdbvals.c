/* SPDX-License-Identifier: MIT */
/* Probes whose argument values gdb must decode: every kind of integer
   argument a program passes (registers, stack-passed parameters, globals,
   statics, volatiles, struct members, bit-fields, array elements,
   constants, enums, pointers, expressions).  The program writes the value
   of each argument to the file named by argv[1] ("probe argN value"),
   then fires the probe; the test compares with gdb's $_probe_argN. */
#include <sys/sdt.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <wchar.h>

enum color { RED = 1, GREEN = 2 };
enum sign { NEG = -3, POS = 3 };
struct rec { int a; unsigned b : 3; signed c : 5; long l; unsigned char uc; short sh; };

char g_char = -5;
unsigned short g_ushort = 65000;
volatile int g_vint = -123456;
long g_arr[4] = { 10, -20, 30, -40 };
#if LONG_MAX > 2147483647L
# define BIG_LONG (-1234567890123L)
#else
# define BIG_LONG (-1234567890L)
#endif
struct rec g_rec = { 7, 5, -9, BIG_LONG, 200, -300 };
long long g_ll = -9000000000LL;
static int s_int = -77;
static unsigned long long s_ull = 18000000000000000000ULL;
const char *g_str = "hello";

/* SystemTap's header cannot take bit-field arguments: for side-by-side
   runs with it, -DBITFIELD_AS_INT passes them as plain ints. */
#ifdef BITFIELD_AS_INT
# define BF(x) ((int) (x))
#else
# define BF(x) (x)
#endif

/* Optimisation asked for inside the file, after the header, where
   __OPTIMIZE__ does not say it: -DOPT_PRAGMA=O2 puts `#pragma GCC optimize
   ("O2")' here, -DOPT_ATTR=O2 gives each probe function
   __attribute__ ((optimize ("O2"))). */
#define OPT_STR_(x) #x
#define OPT_STR(x) OPT_STR_ (x)
#define OPT_DO_PRAGMA_(text) _Pragma (#text)
#define OPT_DO_PRAGMA__(level) OPT_DO_PRAGMA_ (GCC optimize (#level))
#define OPT_DO_PRAGMA(level) OPT_DO_PRAGMA__ (level)
#ifdef OPT_PRAGMA
OPT_DO_PRAGMA (OPT_PRAGMA)
#endif
#ifdef OPT_ATTR
# define FN_OPT __attribute__ ((optimize (OPT_STR (OPT_ATTR))))
#else
# define FN_OPT
#endif

static FILE *out;

#define V(probe, n, fmt, val) fprintf (out, "%s arg%d " fmt "\n", probe, n, val)

/* Many parameters: on x86-64 the last ones arrive on the stack. */
__attribute__ ((noinline)) FN_OPT static int
params (int a, long b, short c, unsigned char d, char e, long long f,
        unsigned g, signed char h, unsigned short i, unsigned long j,
        bool k, int l)
{
  V ("params", 0, "%d", a); V ("params", 1, "%ld", b); V ("params", 2, "%d", c);
  V ("params", 3, "%u", d); V ("params", 4, "%d", e); V ("params", 5, "%lld", f);
  V ("params", 6, "%u", g); V ("params", 7, "%d", h); V ("params", 8, "%u", i);
  V ("params", 9, "%lu", j); V ("params", 10, "%d", k); V ("params", 11, "%d", l);
  fflush (out);
  STAP_PROBE12 (t, params, a, b, c, d, e, f, g, h, i, j, k, l);
  return a + l;
}

__attribute__ ((noinline)) FN_OPT static void
globals (int idx)
{
  static short st_short = -31000;
  V ("globals", 0, "%d", g_char); V ("globals", 1, "%u", g_ushort);
  V ("globals", 2, "%d", g_vint); V ("globals", 3, "%ld", g_arr[idx]);
  V ("globals", 4, "%d", g_rec.a); V ("globals", 5, "%lld", g_ll);
  V ("globals", 6, "%d", s_int); V ("globals", 7, "%llu", s_ull);
  V ("globals", 8, "%d", st_short); V ("globals", 9, "%ld", g_rec.l);
  V ("globals", 10, "%u", g_rec.uc); V ("globals", 11, "%d", g_rec.sh);
  fflush (out);
  STAP_PROBE12 (t, globals, g_char, g_ushort, g_vint, g_arr[idx], g_rec.a,
                g_ll, s_int, s_ull, st_short, g_rec.l, g_rec.uc, g_rec.sh);
  s_int++; st_short++;
}

__attribute__ ((noinline)) FN_OPT static void
members (const struct rec *r, const long *arr, int idx)
{
  V ("members", 0, "%d", r->a); V ("members", 1, "%u", r->b);
  V ("members", 2, "%d", r->c); V ("members", 3, "%ld", r->l);
  V ("members", 4, "%u", r->uc); V ("members", 5, "%d", r->sh);
  V ("members", 6, "%ld", arr[idx]); V ("members", 7, "%ld", arr[idx + 1]);
  fflush (out);
  STAP_PROBE8 (t, members, r->a, BF (r->b), BF (r->c), r->l, r->uc, r->sh, arr[idx],
               arr[idx + 1]);
}

__attribute__ ((noinline)) FN_OPT static void
constants (int x)
{
  enum color col = (enum color) (x + 1);
  enum sign sg = x ? NEG : POS;
  volatile int vloc = x * 1000 + 7;
  size_t sz = (size_t) x * 4096;
  ptrdiff_t pd = -(ptrdiff_t) x * 3;
  wchar_t wc = L'A' + x;
  V ("constants", 0, "%d", 42); V ("constants", 1, "%d", -7);
  V ("constants", 2, "%llu", 1ULL << 40); V ("constants", 3, "%d", 'x');
  V ("constants", 4, "%d", (int) col); V ("constants", 5, "%d", (int) sg);
  V ("constants", 6, "%d", vloc); V ("constants", 7, "%zu", sz);
  V ("constants", 8, "%td", pd); V ("constants", 9, "%d", (int) wc);
  V ("constants", 10, "%d", x * 7 - 100); V ("constants", 11, "%d", (int) POS);
  fflush (out);
  STAP_PROBE12 (t, constants, 42, -7, 1ULL << 40, 'x', col, sg, vloc, sz, pd,
                wc, x * 7 - 100, POS);
}

__attribute__ ((noinline)) FN_OPT static void
pointers (const char *s, int *ip)
{
  char buf[8] = "abc";
  V ("pointers", 0, "%zu", (size_t) (uintptr_t) s);
  V ("pointers", 1, "%zu", (size_t) (uintptr_t) ip);
  V ("pointers", 2, "%zu", (size_t) (uintptr_t) g_str);
  V ("pointers", 3, "%zu", (size_t) (uintptr_t) &g_vint);
  V ("pointers", 4, "%zu", (size_t) (uintptr_t) buf);
  V ("pointers", 5, "%zu", (size_t) (uintptr_t) g_arr);
  V ("pointers", 6, "%jd", (intmax_t) (intptr_t) -1);
  fflush (out);
  STAP_PROBE7 (t, pointers, s, ip, g_str, &g_vint, buf, g_arr, (intptr_t) -1);
  __asm__ __volatile__ ("" : : "r" (buf) : "memory");
}

int
main (int argc, char **argv)
{
  int n = argc;  /* 2 when run by the test: values the compiler can't fold */
  int local = 5;
  if (argc < 2 || !(out = fopen (argv[1], "w")))
    return 2;
  params (n * 1000, -70000L * n, (short) -300, (unsigned char) 250, (char) -2,
          -5000000000LL * n, 4000000000U, (signed char) -128, (unsigned short) 65535,
          (unsigned long) 0xfedcba9876543210ULL, n == 2, -n);
  globals (n - 1);
  members (&g_rec, g_arr, n - 1);
  constants (n);
  pointers (argv[0], &local);
  fclose (out);
  return 0;
}
