/* SPDX-License-Identifier: MIT */
/* One type per probe, each passed twice: by STAP_PROBE1, whose argument
   is classified by declarations in the probe, and by STAP_PROBE_ASM with
   STAP_PROBE_ASM_OPERANDS, where the same rules are computed in place.
   Provider d holds the first, provider i the second; their notes' sizes
   must agree for every type, in C and C++, on every target.  The types
   are data: one TYPE (name, type) row each. */
#include <sys/sdt.h>
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

enum small { SMALL_A = 1 };
enum neg { NEG_A = -1 };
struct s1 { unsigned char c; };
struct s2 { short h; };
struct s4 { int x; };
struct s8 { int a, b; };
union u4 { int i; float f; };
union u8 { long long l; double d; };
struct s3 { unsigned char b[3]; };
struct s12 { int v[3]; };
typedef int (*fnptr) (int);
#ifdef __cplusplus
typedef bool boolean;
#else
typedef _Bool boolean;
#endif

#define TYPES(TYPE)                                                         \
  TYPE (char_, char) TYPE (schar, signed char) TYPE (uchar, unsigned char)  \
  TYPE (boolean_, boolean) TYPE (short_, short)                             \
  TYPE (ushort_, unsigned short) TYPE (int_, int) TYPE (uint_, unsigned)    \
  TYPE (long_, long) TYPE (ulong_, unsigned long) TYPE (llong, long long)   \
  TYPE (ullong, unsigned long long) TYPE (wchar, wchar_t)                   \
  TYPE (size, size_t) TYPE (ptrdiff, ptrdiff_t) TYPE (intptr, intptr_t)     \
  TYPE (int8, int8_t) TYPE (uint16, uint16_t) TYPE (int32, int32_t)         \
  TYPE (uint64, uint64_t) TYPE (enum_small, enum small)                     \
  TYPE (enum_neg, enum neg) TYPE (float_, float) TYPE (double_, double)     \
  TYPE (ldouble, long double) TYPE (voidp, void *)                          \
  TYPE (cstr, const char *) TYPE (fn, fnptr) TYPE (s1_, struct s1)          \
  TYPE (s2_, struct s2) TYPE (s4_, struct s4) TYPE (s8_, struct s8)         \
  TYPE (u4_, union u4) TYPE (u8_, union u8) TYPE (s3_, struct s3)           \
  TYPE (s12_, struct s12) INT128 (TYPE)

#ifdef __SIZEOF_INT128__
# define INT128(TYPE) TYPE (int128, __int128) TYPE (uint128, unsigned __int128)
#else
# define INT128(TYPE)
#endif

#define PROBE_BOTH(name, type)                                              \
  void p_##name (type v);                                                   \
  void p_##name (type v)                                                    \
  {                                                                         \
    STAP_PROBE1 (d, name, v);                                               \
    __asm__ __volatile__ (STAP_PROBE_ASM (i, name, STAP_PROBE_ASM_TEMPLATE (1)) \
                          : : STAP_PROBE_ASM_OPERANDS (1, v));              \
  }

TYPES (PROBE_BOTH)
