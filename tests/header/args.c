/* SPDX-License-Identifier: MIT */
/* Probe arguments of every kind, one probe per group (at most four
   arguments, which every tracer reads): every scalar type, structs and
   unions passed by value, arrays, pointers, bit-fields, globals, TLS
   variables, const and volatile, and values wider than 8 bytes.  The same
   file is C and C++ (C++ adds its own types); -DUSE_USDT_H builds it with
   <usdt.h> instead of <sys/sdt.h>.

   args.sizes gives each probe's note sizes on every target.  Run as
   `args FILE', the program writes to FILE, before each probe fires, one
   line per argument: "probe argN VALUE", VALUE being what a tracer reading
   the note's size and sign gives, as a signed 64-bit decimal (the low 8
   bytes of a wider integer, the bits of a float or of a double, a
   struct's bytes as an integer), then fires the probe. */
#include <stdio.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <wchar.h>
#ifdef USE_USDT_H
# include <usdt.h>
# define P1(n, a) USDT (args, n, a)
# define P2(n, a, b) USDT (args, n, a, b)
# define P3(n, a, b, c) USDT (args, n, a, b, c)
# define P4(n, a, b, c, d) USDT (args, n, a, b, c, d)
#else
# include <sys/sdt.h>
# define P1(n, a) STAP_PROBE1 (args, n, a)
# define P2(n, a, b) STAP_PROBE2 (args, n, a, b)
# define P3(n, a, b, c) STAP_PROBE3 (args, n, a, b, c)
# define P4(n, a, b, c, d) STAP_PROBE4 (args, n, a, b, c, d)
#endif
#ifndef __cplusplus
# include <stdbool.h>
#endif

static FILE *out;

/* The expected value of argument I of probe NAME: an integer or pointer
   as the note's signedness gives it; anything else as its first bytes,
   read as an unsigned integer of the note's size W (the note of a value
   of 1, 2, 4 or 8 bytes is that size, otherwise 8). */
#define INT(name, i, v) expect (#name, i, (long long) (v))
#define PTR(name, i, v) expect (#name, i, (long long) (uintptr_t) (v))
#define BYTES(name, i, v) bytes (#name, i, &(v), sizeof (v))

static void
expect (const char *name, int i, long long v)
{
  fprintf (out, "%s arg%d %lld\n", name, i, v);
}

static void
bytes (const char *name, int i, const void *p, size_t size)
{
  unsigned char b[8] = { 0 };
  size_t w = size == 1 || size == 2 || size == 4 || size == 8 ? size : 8;
  uint8_t u8;
  uint16_t u16;
  uint32_t u32;
  uint64_t u64;

  memcpy (b, p, size < 8 ? size : 8);
  switch (w)
    {
    case 1: memcpy (&u8, b, 1); expect (name, i, u8); break;
    case 2: memcpy (&u16, b, 2); expect (name, i, u16); break;
    case 4: memcpy (&u32, b, 4); expect (name, i, u32); break;
    default: memcpy (&u64, b, 8); expect (name, i, (long long) u64); break;
    }
  fflush (out);
}

enum small { SMALL_A = 1, SMALL_B = 200 };
enum neg { NEG_A = -5, NEG_B = 5 };
struct s1 { unsigned char c; };
struct s2 { short h; };
struct s4 { int x; };
struct s8 { int a, b; };
union u1 { signed char c; unsigned char u; };
union u4 { int i; float f; };
union u8 { long long l; double d; };
struct s3 { unsigned char b[3]; };
struct s12 { int v[3]; };
struct s16 { long long a, b; };
struct bits { unsigned u3 : 3; int s5 : 5; unsigned long long u40 : 40; bool b1 : 1; };
struct rec { short h; long l; char name[6]; };

int g_int = -77;
char g_char = 'g';
long long g_llong = -9000000000LL;
struct rec g_rec = { -300, 123456, "rec" };
__thread int t_int = -1234;
static __thread long long t_llong = 77777777777LL;
__thread char t_char = 'T';
__thread struct rec t_rec = { 321, -7, "tls" };
const long c_long = -424242;
volatile short v_short = -2222;
volatile struct rec v_rec = { 11, 22, "vol" };

static int fn (int x) { return x + 1; }

__attribute__ ((noinline)) static void
p_chars (int k)
{
  char c = (char) ('a' + k);
  signed char sc = (signed char) (-100 + k);
  unsigned char uc = (unsigned char) (250 + k);
  bool b = k == 0;
  INT (chars, 0, c); INT (chars, 1, sc); INT (chars, 2, uc); INT (chars, 3, b);
  fflush (out);
  P4 (chars, c, sc, uc, b);
}

__attribute__ ((noinline)) static void
p_ints (int k)
{
  short s = (short) (-30000 + k);
  unsigned short us = (unsigned short) (65000 + k);
  int i = -2000000000 + k;
  unsigned u = 4000000000u + (unsigned) k;
  INT (ints, 0, s); INT (ints, 1, us); INT (ints, 2, i); INT (ints, 3, u);
  fflush (out);
  P4 (ints, s, us, i, u);
}

__attribute__ ((noinline)) static void
p_longs (int k)
{
  long l = -2000000001L - k;
  unsigned long ul = 4000000001UL + (unsigned long) k;
  long long ll = -9000000000000000000LL + k;
  unsigned long long ull = 0xfffffffffffffff0ULL + (unsigned long long) k;
  INT (longs, 0, l); INT (longs, 1, ul); INT (longs, 2, ll); INT (longs, 3, ull);
  fflush (out);
  P4 (longs, l, ul, ll, ull);
}

__attribute__ ((noinline)) static void
p_sizes (int k)
{
  size_t sz = (size_t) 4096 + (size_t) k;
  ptrdiff_t pd = -4096 - k;
  intptr_t ip = -1 - k;
  wchar_t wc = (wchar_t) (L'W' + k);
  INT (sizes, 0, sz); INT (sizes, 1, pd); INT (sizes, 2, ip); INT (sizes, 3, wc);
  fflush (out);
  P4 (sizes, sz, pd, ip, wc);
}

__attribute__ ((noinline)) static void
p_enums (int k)
{
  enum small es = k ? SMALL_A : SMALL_B;
  enum neg en = k ? NEG_B : NEG_A;
  int8_t i8 = (int8_t) (-8 - k);
  uint16_t u16 = (uint16_t) (60000 + k);
  INT (enums, 0, es); INT (enums, 1, en); INT (enums, 2, i8); INT (enums, 3, u16);
  fflush (out);
  P4 (enums, es, en, i8, u16);
}

__attribute__ ((noinline)) static void
p_floats (int k)
{
  float f = 1.5f + (float) k;
  double d = -2.25 + k;
  long double ld = 1.0L / 3 + k;
  double ldd = (double) ld;      /* the note of a long double: a double */
  BYTES (floats, 0, f); BYTES (floats, 1, d); BYTES (floats, 2, ldd);
  P3 (floats, f, d, ld);
}

#ifdef __SIZEOF_INT128__
__attribute__ ((noinline)) static void
p_int128 (int k)
{
  __int128 w = ((__int128) 0x1122334455667788LL << 64) - 5 - k;
  unsigned __int128 uw = ((unsigned __int128) 7 << 64) + 42 + (unsigned) k;
  INT (int128, 0, w); INT (int128, 1, uw);
  fflush (out);
  P2 (int128, w, uw);
}
#endif

__attribute__ ((noinline)) static void
p_structs (int k)
{
  struct s1 a = { (unsigned char) (1 + k) };
  struct s2 b = { (short) (-2 - k) };
  struct s4 c = { 3 + k };
  struct s8 d = { 4 + k, -5 };
  BYTES (structs, 0, a); BYTES (structs, 1, b); BYTES (structs, 2, c); BYTES (structs, 3, d);
  P4 (structs, a, b, c, d);
}

__attribute__ ((noinline)) static void
p_unions (int k)
{
  union u1 a;
  union u4 b;
  union u8 c;
  a.c = (signed char) (-1 - k);
  b.f = 0.5f + (float) k;
  c.l = -3000000000LL - k;
  BYTES (unions, 0, a); BYTES (unions, 1, b); BYTES (unions, 2, c);
  P3 (unions, a, b, c);
}

__attribute__ ((noinline)) static void
p_odd (int k)
{
  struct s3 a = { { 0x11, 0x22, (unsigned char) (0x33 + k) } };
  struct s12 b = { { 7 + k, 8, 9 } };
  struct s16 c = { -10 - k, 20 };
  BYTES (odd, 0, a); BYTES (odd, 1, b); BYTES (odd, 2, c);
  P3 (odd, a, b, c);
}

__attribute__ ((noinline)) static void
p_arrays (int k)
{
  int arr[4] = { 1, 2, 3, 4 };
  char carr[8] = "abc";
  int m[2][3] = { { 1, 2, 3 }, { 4, 5, 6 } };
  arr[k & 3] = k;
  PTR (arrays, 0, arr); PTR (arrays, 1, carr); PTR (arrays, 2, m[1]); PTR (arrays, 3, g_rec.name);
  fflush (out);
  P4 (arrays, arr, carr, m[1], g_rec.name);
  __asm__ __volatile__ ("" : : "r" (arr), "r" (carr), "r" (m) : "memory");
}

__attribute__ ((noinline)) static void
p_pointers (int k, const char *s)
{
  void *vp = &k;
  int (*fp) (int) = fn;
  PTR (pointers, 0, vp); PTR (pointers, 1, s); PTR (pointers, 2, fp); PTR (pointers, 3, fn);
  fflush (out);
  P4 (pointers, vp, s, fp, fn);
}

__attribute__ ((noinline)) static void
p_bits (struct bits *bf)
{
  INT (bits, 0, bf->u3); INT (bits, 1, bf->s5); INT (bits, 2, bf->u40); INT (bits, 3, bf->b1);
  fflush (out);
  P4 (bits, bf->u3, bf->s5, bf->u40, bf->b1);
}

__attribute__ ((noinline)) static void
p_globals (int k)
{
  INT (globals, 0, g_int); INT (globals, 1, g_char); INT (globals, 2, g_llong);
  INT (globals, 3, g_rec.l);
  fflush (out);
  P4 (globals, g_int, g_char, g_llong, g_rec.l);
  g_int += k;
}

__attribute__ ((noinline)) static void
p_tls (int k)
{
  INT (tls, 0, t_int); INT (tls, 1, t_llong); INT (tls, 2, t_char); INT (tls, 3, t_rec.h);
  fflush (out);
  P4 (tls, t_int, t_llong, t_char, t_rec.h);
  t_int += k;
}

__attribute__ ((noinline)) static void
p_consts (int k)
{
  const int ci = 31 + k;
  INT (consts, 0, ci); INT (consts, 1, c_long); INT (consts, 2, 42); INT (consts, 3, 1ULL << 40);
  fflush (out);
  P4 (consts, ci, c_long, 42, 1ULL << 40);
}

__attribute__ ((noinline)) static void
p_volatiles (int k)
{
  volatile int vi = -5 - k;
  volatile unsigned char vc = (unsigned char) (200 + k);
  INT (volatiles, 0, vi); INT (volatiles, 1, v_short); INT (volatiles, 2, vc);
  INT (volatiles, 3, v_rec.l);
  fflush (out);
  P4 (volatiles, vi, v_short, vc, v_rec.l);
}

#ifdef __cplusplus
enum class Small : unsigned char { A = 9 };
enum class Wide : long long { A = -99 };
/* Not trivially copyable: GCC keeps it in memory, the note has its bytes. */
struct Counted
{
  int v;
  Counted (int x) : v (x) {}
  Counted (const Counted &o) : v (o.v) {}
  ~Counted () {}
};

__attribute__ ((noinline)) static void
p_cxx (int k)
{
  Small sm = Small::A;
  Wide wd = k ? Wide::A : static_cast<Wide> (-100);
  char16_t c16 = static_cast<char16_t> (u'x' + k);
  char32_t c32 = static_cast<char32_t> (U'y' + k);
  INT (cxx, 0, sm); INT (cxx, 1, wd); INT (cxx, 2, c16); INT (cxx, 3, c32);
  fflush (out);
  P4 (cxx, sm, wd, c16, c32);
}

__attribute__ ((noinline)) static void
p_cxxrefs (int k, const int &ref)
{
  Counted cn (50 + k);
  struct rec *rp = &g_rec;
  long rec::*mp = &rec::l;
  INT (cxxrefs, 0, ref); BYTES (cxxrefs, 1, cn); PTR (cxxrefs, 2, rp); PTR (cxxrefs, 3, 0);
  fflush (out);
  P4 (cxxrefs, ref, cn, rp, nullptr);
  (void) mp;
}
#endif

int
main (int argc, char **argv)
{
  int k = argc - 2;     /* 0 when run as `args FILE' */
  struct bits bf;

  if (argc < 2 || !(out = fopen (argv[1], "w")))
    return 2;
  bf.u3 = (unsigned) (5 + k);
  bf.s5 = -9 - k;
  bf.u40 = 0xabcdef0123ULL + (unsigned) k;
  bf.b1 = k == 0;
  p_chars (k);
  p_ints (k);
  p_longs (k);
  p_sizes (k);
  p_enums (k);
  p_floats (k);
#ifdef __SIZEOF_INT128__
  p_int128 (k);
#endif
  p_structs (k);
  p_unions (k);
  p_odd (k);
  p_arrays (k);
  p_pointers (k, argv[1]);
  p_bits (&bf);
  p_globals (k);
  p_tls (k);
  p_consts (k);
  p_volatiles (k);
#ifdef __cplusplus
  p_cxx (k);
  p_cxxrefs (k, g_int);
#endif
  fclose (out);
  return 0;
}
