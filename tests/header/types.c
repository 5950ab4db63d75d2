/* SPDX-License-Identifier: MIT */
/* One probe per group of C scalar types; the test compares the sizes and
   signs in the notes with the target's ABI (and with SystemTap's header
   where it is installed). */
#include <sys/sdt.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>
#include <stdbool.h>
#include <sys/types.h>

enum small { SMALL_A, SMALL_B };
enum neg { NEG_A = -1, NEG_B };
extern char g_char;
extern unsigned short g_ushort;
extern volatile int g_vint;
int fn (int);

void types (char c, signed char sc, unsigned char uc, short s, unsigned short us,
            int i, unsigned u, long l, unsigned long ul, long long ll,
            unsigned long long ull, bool b, wchar_t wc, enum small es,
            enum neg en, void *p, const char *str, size_t sz, ptrdiff_t pd,
            intptr_t ip, float fl, double d, int arr[4], ssize_t ss);

void
types (char c, signed char sc, unsigned char uc, short s, unsigned short us,
       int i, unsigned u, long l, unsigned long ul, long long ll,
       unsigned long long ull, bool b, wchar_t wc, enum small es,
       enum neg en, void *p, const char *str, size_t sz, ptrdiff_t pd,
       intptr_t ip, float fl, double d, int arr[4], ssize_t ss)
{
  char carr[8] = "abc";
  STAP_PROBE12 (t, ints, c, sc, uc, s, us, i, u, l, ul, ll, ull, b);
  STAP_PROBE12 (t, more, wc, es, en, p, str, sz, pd, ip, fl, d, arr, carr);
  STAP_PROBE7 (t, misc, fn, 42, -7, g_char, g_ushort, g_vint, ss);
  STAP_PROBE5 (t, consts, 'x', 1ULL << 40, NEG_A, sizeof (int), (int8_t) -1);
  STAP_PROBE6 (t, fixed, (int8_t) c, (uint8_t) c, (int16_t) s, (uint16_t) s,
               (int64_t) ll, (uint64_t) ull);
}
