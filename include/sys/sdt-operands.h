/* SPDX-License-Identifier: MIT-0 */
/* <sys/sdt-operands.h> -- the per-target operand machinery shared by
   <sys/sdt.h> and <usdt.h>.  sdtkit.  Internal: include one of those.

   What it defines, for both headers: the target (address size, nop,
   register width, note section flags) and, for C and C++, how each probe
   argument becomes a `SIZE@OPERAND' pair: its classification, the
   compile-time checks, the asm operands and the argument-string template
   (_SDT_ARGUMENTS_n, _SDT_OPERANDS_n, _SDT_INPLACE_n, _SDT_ARGTEXT_n,
   _SDT_PROBETEXT_n, _SDT_ARGDIRS).  Each header writes its own note around them.  */

#ifndef _SYS_SDT_OPERANDS_H
#define _SYS_SDT_OPERANDS_H 1

#include "sdt-config.h"

#define _SDT_STR(x) #x
#define _SDT_XSTR(x) _SDT_STR (x)           /* expand, then stringify */
#define _SDT_CAT(a, b) _SDT_CAT_ (a, b)     /* expand, then paste */
#define _SDT_CAT_(a, b) a##b

/* Variadic macros: C99 and C++11 have them, and so does the preprocessor
   of assembly files.  <usdt.h> needs them; <sys/sdt.h> uses them for
   STAP_PROBEV and STAP_PROBE_ASM where the language has them (or where
   SDT_USE_VARIADIC asks for them).  _SDT_NARGS counts 1..14 arguments;
   _SDT_VXSTR stringifies text that may hold commas. */
#if (defined __STDC_VERSION__ && __STDC_VERSION__ >= 199901L) \
    || (defined __cplusplus && __cplusplus >= 201103L) \
    || defined __ASSEMBLER__ || defined SDT_USE_VARIADIC
# define _SDT_VARIADIC 1
# define _SDT_NARGS(...) \
  _SDT_NARGS_ (__VA_ARGS__, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
# define _SDT_NARGS_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, \
                     _14, n, ...) n
# define _SDT_VSTR(...) #__VA_ARGS__
# define _SDT_VXSTR(...) _SDT_VSTR (__VA_ARGS__)
#endif


/* ---- The target: address size, nop, register width ----------------- */

#if defined __SIZEOF_POINTER__
# define _SDT_POINTER_BYTES __SIZEOF_POINTER__
#elif defined __LP64__ || defined _LP64
# define _SDT_POINTER_BYTES 8
#else
# define _SDT_POINTER_BYTES 4
#endif

#if _SDT_POINTER_BYTES == 8
# define _SDT_ASM_ADDR .8byte
#else
# define _SDT_ASM_ADDR .4byte
#endif

/* s390's nop takes an operand (ia64's too). */
#if defined __s390__ || defined __s390x__ || defined __ia64__
# define _SDT_NOP nop 0
#else
# define _SDT_NOP nop
#endif

/* x86-64: the probe as a 1-byte nop followed by a 10-byte nop (nopw
   %cs:0(%rax,%rax,1)), as libbpf's usdt.h emits it: <usdt.h>'s default,
   <sys/sdt.h>'s with SDT_NOP10.  The note points at the 1-byte nop, so
   every tracer traps there as before; on a kernel with the nop10 uprobe
   optimisation libbpf can attach to the second and skip the trap.
   Written without commas: the text goes through one macro argument. */
#if defined __x86_64__
# define _SDT_NOP10 nop; .byte 0x66; .byte 0x2e; .byte 0x0f; .byte 0x1f; \
  .byte 0x84; .byte 0; .byte 0; .byte 0; .byte 0; .byte 0
#endif

/* The width of a general register: what one argument operand can hold.
   x32 has 4-byte pointers but 8-byte registers. */
#if defined __x86_64__
# define _SDT_REG_BYTES 8
#elif (defined __m68k__ || defined __hppa__ || defined __sh__) \
      && !defined __clang__
/* GCC on m68k, hppa and sh4 still allocates registers with the old
   "reload" pass, which cannot give an 8-byte box (below) to a "nor"
   operand at -O1 and up ("cannot reload integer constant operand").
   0 boxes every value, and _SDT_CONSTRAINT passes it as memory. */
# define _SDT_REG_BYTES 0
#elif defined __riscv_xlen
# define _SDT_REG_BYTES (__riscv_xlen / 8)
#else
# define _SDT_REG_BYTES _SDT_POINTER_BYTES
#endif

/* Section flags: "?" joins the note to the group of the code around it
   (C++ inline functions, templates), "R" keeps .stapsdt.base alive under
   --gc-sections.  See sdt-config.h. */
#if _SDT_ASM_SECTION_AUTOGROUP_SUPPORT
# define _SDT_NOTE_FLAGS "?"
#else
# define _SDT_NOTE_FLAGS ""
#endif
#if _SDT_ASM_SECTION_RETAIN_SUPPORT
# define _SDT_BASE_FLAGS "aGR"
#else
# define _SDT_BASE_FLAGS "aG"
#endif


#ifndef __ASSEMBLER__

/* ---- The note, as inline-asm text -----------------------------------

   One template for both headers: the probe instruction(s) NOP and the
   semaphore SEM (a symbol, or 0) as strings, then provider (group), name
   and the argument directives.  Local labels: 1770 the probe, 1771..1774
   the note's name and descriptor.  The descriptor ends at the argument
   string's NUL (gdb, bcc and systemtap check descsz); .balign pads after
   it.  The constant text is in as few string literals as it can be: the
   parser pays for each literal at each probe site. */

# define _SDT_ASM_NOTE_TEXT(nop, sem, provider, name, argdirectives)        \
  "1770:\t" nop "\n" _SDT_NOTE_HEAD sem "\n\t.asciz "                       \
  _SDT_XSTR (_SDT_XSTR (provider)) "\n\t.asciz "                            \
  _SDT_XSTR (_SDT_XSTR (name)) "\n" argdirectives _SDT_NOTE_TAIL

/* The note's header up to the semaphore's address: "?" joins the note
   to the group of the code around it (see sdt-config.h). */
# if _SDT_ASM_SECTION_AUTOGROUP_SUPPORT && _SDT_POINTER_BYTES == 8
#  define _SDT_NOTE_HEAD "\t.pushsection .note.stapsdt,\"?\",\"note\"\n"     \
  "\t.balign 4\n\t.4byte 1772f-1771f,1774f-1773f,3\n"                       \
  "1771:\t.asciz \"stapsdt\"\n1772:\t.balign 4\n"                          \
  "1773:\t.8byte 1770b\n\t.8byte _.stapsdt.base\n\t.8byte "
# elif _SDT_ASM_SECTION_AUTOGROUP_SUPPORT
#  define _SDT_NOTE_HEAD "\t.pushsection .note.stapsdt,\"?\",\"note\"\n"     \
  "\t.balign 4\n\t.4byte 1772f-1771f,1774f-1773f,3\n"                       \
  "1771:\t.asciz \"stapsdt\"\n1772:\t.balign 4\n"                          \
  "1773:\t.4byte 1770b\n\t.4byte _.stapsdt.base\n\t.4byte "
# elif _SDT_POINTER_BYTES == 8
#  define _SDT_NOTE_HEAD "\t.pushsection .note.stapsdt,\"\",\"note\"\n"      \
  "\t.balign 4\n\t.4byte 1772f-1771f,1774f-1773f,3\n"                       \
  "1771:\t.asciz \"stapsdt\"\n1772:\t.balign 4\n"                          \
  "1773:\t.8byte 1770b\n\t.8byte _.stapsdt.base\n\t.8byte "
# else
#  define _SDT_NOTE_HEAD "\t.pushsection .note.stapsdt,\"\",\"note\"\n"      \
  "\t.balign 4\n\t.4byte 1772f-1771f,1774f-1773f,3\n"                       \
  "1771:\t.asciz \"stapsdt\"\n1772:\t.balign 4\n"                          \
  "1773:\t.4byte 1770b\n\t.4byte _.stapsdt.base\n\t.4byte "
# endif

/* The note's end, then .stapsdt.base: one byte in a COMDAT group of its
   own, so a linked file has exactly one; consumers compare its address
   with the note's to detect prelinking.  Emitted once per assembly file;
   "R" keeps it under --gc-sections (see sdt-config.h). */
# if _SDT_ASM_SECTION_RETAIN_SUPPORT
#  define _SDT_NOTE_TAIL "1774:\t.balign 4\n\t.popsection\n"                 \
  ".ifndef _.stapsdt.base\n"                                                \
  "\t.pushsection .stapsdt.base,\"aGR\",\"progbits\",.stapsdt.base,comdat\n" \
  "\t.weak _.stapsdt.base\n\t.hidden _.stapsdt.base\n_.stapsdt.base:\n"    \
  "\t.space 1\n\t.size _.stapsdt.base,1\n\t.popsection\n.endif\n"
# else
#  define _SDT_NOTE_TAIL "1774:\t.balign 4\n\t.popsection\n"                 \
  ".ifndef _.stapsdt.base\n"                                                \
  "\t.pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
  "\t.weak _.stapsdt.base\n\t.hidden _.stapsdt.base\n_.stapsdt.base:\n"    \
  "\t.space 1\n\t.size _.stapsdt.base,1\n\t.popsection\n.endif\n"
# endif

/* The probe statement, for both headers: each argument's declarations
   (its code and checks), then the asm statement with the note.  nop and
   sem are strings; semop is the semaphore's operand, or nothing. */
# define _SDT_PROBE_BODY(nop, sem, provider, name, n, arglist, semop)       \
  _SDT_ARGUMENTS_##n arglist                                                \
  _SDT_ASM_STMT (__asm__ __volatile__ _SDT_ASM_INLINE (                     \
    _SDT_ATT_TEXT _SDT_ASM_NOTE_TEXT (nop, sem, provider, name,             \
                                      _SDT_ARGDIRS (_SDT_PROBETEXT_##n))    \
    : : _SDT_OPERANDS_##n arglist semop));

/* C only promises string literals of 509 (C90) or 4095 (C99) characters,
   and clang says so under -Wpedantic; a 12-argument template is longer on
   ARM or with SDT_FLOAT_MARKER, any template is in C90.  In C the asm goes
   inside an __extension__ statement expression, which silences that. */
# ifndef __cplusplus
#  define _SDT_ASM_STMT(stmt) __extension__ ({ stmt; })
# else
#  define _SDT_ASM_STMT(stmt) stmt
# endif

/* The semaphore is also an "m" operand (never printed): a reference the
   compiler can see, so LTO keeps a semaphore defined in C. */
# define _SDT_SEM_OPERAND(sym) , [_SDT_SEM] "m" (sym)

/* ---- Argument operands ----------------------------------------------

   Each argument N is two asm operands: _SDT_SN, an immediate holding the
   negated signed size (printed with %n, which negates again: "-4" for a
   signed int), and _SDT_AN, the value itself.  The per-target template
   prints the value operand the way the consumers expect:

     x86-64   %q: full 64-bit register names (gdb cannot name %r10b)
     i386     %k: 32-bit names (gcc.gnu.org/PR80115)
     powerpc  %I prints "i" before an immediate; registers are bare numbers
     others   as the compiler prints them (aarch64 and riscv registers are
              always named in full) */

# if defined __x86_64__
#  define _SDT_OPND(a) "%q" a
# elif defined __i386__
#  define _SDT_OPND(a) "%k" a
# elif defined __powerpc__ || defined __powerpc64__
#  define _SDT_OPND(a) "%I" a "%" a
# else
#  define _SDT_OPND(a) "%" a
# endif

/* The constraint.  "n" lets constants be immediates; the rest decides
   between registers and memory:
   - clang turns any memory alternative into a stack spill (extra stores
     at every probe site) and crashes on riscv64 with "o": registers only,
     except on 32-bit targets, where registers are few and 8-byte values
     are boxed into memory.
   - GCC on x86-64 with optimisation would pick `sym(%rip)' and indexed
     addresses, which gdb, libbpf and perf cannot read: registers only, at
     every level.  (The choice cannot follow __OPTIMIZE__: code optimised
     by #pragma GCC optimize or __attribute__ ((optimize)) does not see it
     change.)
   - GCC on aarch64 optimising gives "o" `[x25, #:lo12:sym]', which gdb
     cannot read: memory only through "Q", a base register.
   - Elsewhere GCC keeps SystemTap's proven choices. */
# ifdef STAP_SDT_ARG_CONSTRAINT
#  define _SDT_CONSTRAINT _SDT_XSTR (STAP_SDT_ARG_CONSTRAINT)
# elif defined __arm__ && !defined __clang__
#  define _SDT_CONSTRAINT "g"     /* with "nor", constants go to the literal
                                     pool and read as `.L2+8' */
# elif _SDT_REG_BYTES == 0 && defined __sh__
#  define _SDT_CONSTRAINT "SraSdd" /* sh4: every value boxed, as @rN or
                                     @(disp,rN); "m" also allows the indexed
                                     @(r0,rN) no tracer reads, and GCC has no
                                     "o" here ("impossible constraint") */
# elif _SDT_REG_BYTES == 0
#  define _SDT_CONSTRAINT "o"     /* m68k, hppa: every value boxed, passed as
                                     base register plus offset */
# elif defined __powerpc__ && !defined __powerpc64__ && !defined __clang__
#  define _SDT_CONSTRAINT "nQr"   /* 32-bit PowerPC, base register only: "o"
                                     gives .LC1-.LCTOC1(30), "Z" gives 31,27 */
# elif _SDT_REG_BYTES < 8
#  define _SDT_CONSTRAINT "nor"
# elif defined __clang__ || defined __x86_64__
#  define _SDT_CONSTRAINT "nr"
# elif defined __aarch64__
#  define _SDT_CONSTRAINT "nrQ"
# elif defined __powerpc__ || defined __powerpc64__
#  define _SDT_CONSTRAINT "nZr"
# elif defined __s390__ || defined __s390x__
#  define _SDT_CONSTRAINT "nrQS"  /* memory without an index register: gdb
                                     cannot read 8(%r9,%r11) */
# else
#  define _SDT_CONSTRAINT "nor"
# endif

/* Structs and unions of 1, 2, 4 or 8 bytes are operands as they are,
   except on Alpha, where GCC's register allocator cannot take an 8-byte
   struct ("cannot reload integer constant operand", as with SystemTap's
   header): there their bytes are copied into an integer (conversion 4
   below).  As bits of GCC's type classes (below): 1..5 and 8, and 12 and
   13 (struct, union) where they can be operands. */
# if defined __alpha__ && !defined __clang__
#  define _SDT_AGG_ASIS 0
#  define _SDT_ASIS_CLASSES 0x013E
# else
#  define _SDT_AGG_ASIS 1
#  define _SDT_ASIS_CLASSES 0x313E
# endif

/* Floating-point marker: the size immediate of a float argument is
   offset by 1000 so that the assembler can tell it apart (.ifc) and
   write "4f@" or "8f@". */
# ifdef SDT_FLOAT_MARKER
#  define _SDT_FLOAT_CODE 1000
# else
#  define _SDT_FLOAT_CODE 0
# endif


/* ---- Classifying an argument: one code per argument -----------------

   Everything the note needs about an argument is folded into one integer
   constant, computed once per argument and probe site:

     code = 64 + ssize + 256 * float + 512 * conv

   ssize is the size the note gives (1, 2, 4 or 8), negative when signed;
   float marks floating-point values; conv says how the operand is made:

     0  the value itself
     1  an integer wider than 8 bytes (__int128): its low 8 bytes
     2  a floating-point value wider than 8 bytes (long double on most
        64-bit targets, __float128): converted to double
     3  a value of 3, 5, 6, 7 or more than 8 bytes (a struct, a union):
        its first 8 bytes (4 when it is smaller), zero-padded
     4  a value of 1, 2, 4 or 8 bytes that the compiler cannot pass as an
        operand as it is (complex and vector values; in C++, a class that
        is not trivially copyable): its bytes, as an unsigned integer

   1 to 3 cannot say the whole value, and the compiler warns (below).
   Signedness follows C: plain char and wchar_t as the target defines them,
   enums as their underlying type, bool unsigned.  Pointers, arrays and
   functions are unsigned pointers; floats, structs and unions are
   unsigned, as in SystemTap's header.  Sizes of structs and unions are
   SystemTap's too (1, 2, 4, 8: the note SystemTap's header writes). */

# define _SDT_EXACT_SIZE(z) ((z) < 9 && (0x116 >> (z) & 1))   /* 1, 2, 4, 8 */
# define _SDT_CODE_OF_KIND(integral, real, sgn, asis, z)                     \
  (64 + ((sgn) ? -1 : 1) * (_SDT_EXACT_SIZE (z) ? (z) : 8) + 256 * (real)  \
   + 512 * (_SDT_EXACT_SIZE (z) ? 4 - 4 * (asis)                           \
                                : 3 - 2 * (integral) - (real)))

# define _SDT_SSIZE_OF(code)  ((code) % 256 - 64)
# define _SDT_FLOAT_OF(code)  ((code) / 256 % 2)
# define _SDT_CONV_OF(code)   ((code) / 512)
# define _SDT_LOSSY_OF(code)  ((code) / 512 % 4)   /* 1..3, or 0 */

# ifdef __cplusplus

extern "C++" {

/* 8-byte integers without naming long long, which C++98 lacks. */
typedef int __sdt_ll __attribute__ ((__mode__ (__DI__)));
typedef unsigned int __sdt_ull __attribute__ ((__mode__ (__DI__)));

template <bool _Cond, typename _Tp> struct __sdt_if {};
template <typename _Tp> struct __sdt_if<true, _Tp> { typedef _Tp __type; };
/* A class or union (named in function signatures: clang 14 cannot mangle
   __is_class there). */
template <typename _Tp>
struct __sdt_agg { enum { __value = __is_class (_Tp) || __is_union (_Tp) }; };

/* The integer type behind an enum, so enums get their underlying type's
   signedness (and `enum class' works). */
template <typename _Tp, bool _IsEnum = __is_enum (_Tp)>
struct __sdt_int_of { typedef _Tp __type; };
template <typename _Tp>
struct __sdt_int_of<_Tp, true> { typedef __underlying_type (_Tp) __type; };

/* Integral types (the primary case), then the other kinds.  __asis: the
   value can be an asm operand as it is (GCC keeps a class that is not
   trivially copyable in memory, "non-memory input must stay in memory"). */
template <typename _Tp, bool _IsAggregate = __is_class (_Tp) || __is_union (_Tp)>
struct __sdt_kind
{
  typedef typename __sdt_int_of<_Tp>::__type __int;
  enum { __sdt_integral = 1, __sdt_float = 0, __sdt_signed = __int (-1) < __int (1),
         __sdt_asis = 1 };
};
template <typename _Tp>
struct __sdt_kind<_Tp, true>
{ enum { __sdt_integral = 0, __sdt_float = 0, __sdt_signed = 0,
         __sdt_asis = __is_trivially_copyable (_Tp) && _SDT_AGG_ASIS }; };
template <typename _Tp>
struct __sdt_kind<_Tp *, false>
{ enum { __sdt_integral = 0, __sdt_float = 0, __sdt_signed = 0, __sdt_asis = 1 }; };
template <typename _Tp, typename _Cp>
struct __sdt_kind<_Tp _Cp::*, false>
{ enum { __sdt_integral = 0, __sdt_float = 0, __sdt_signed = 0, __sdt_asis = 1 }; };
template <typename _Tp>
struct __sdt_real { enum { __sdt_integral = 0, __sdt_float = 1, __sdt_signed = 0, __sdt_asis = 1 }; };
template <> struct __sdt_kind<float, false> : __sdt_real<float> {};
template <> struct __sdt_kind<double, false> : __sdt_real<double> {};
template <> struct __sdt_kind<long double, false> : __sdt_real<long double> {};
#  ifdef __SIZEOF_FLOAT128__
template <> struct __sdt_kind<__float128, false> : __sdt_real<__float128> {};
#  endif
#  if __cplusplus >= 201103L
template <> struct __sdt_kind<decltype (nullptr), false>
{ enum { __sdt_integral = 0, __sdt_float = 0, __sdt_signed = 0, __sdt_asis = 1 }; };
#  endif

template <typename _Tp>
struct __sdt_code_of
{
  typedef __sdt_kind<_Tp> __k;
  enum { __code = _SDT_CODE_OF_KIND (__k::__sdt_integral, __k::__sdt_float,
                                     __k::__sdt_signed, __k::__sdt_asis,
                                     int (sizeof (_Tp))) };
  typedef char (&__array)[__code];
};

/* The code comes back as an array size, a constant in every C++
   standard, and nothing is evaluated.  Scalars are taken by value, which
   decays arrays and functions and accepts bit-fields; classes by
   reference, which copies nothing. */
template <typename _Tp>
typename __sdt_if<!__sdt_agg<_Tp>::__value,
                  __sdt_code_of<_Tp> >::__type::__array __sdt_code (_Tp);
template <typename _Tp>
typename __sdt_if<__sdt_agg<_Tp>::__value,
                  __sdt_code_of<_Tp> >::__type::__array __sdt_code (const _Tp &);

#  define _SDT_CODE(x) int (sizeof (__sdt_code (x)))
#  define _SDT_ARGUMENT(n, x)                                               \
  enum { __sdt_c##n = _SDT_CODE (x),                                        \
         __sdt_s##n = _SDT_SIZE_OPERAND (__sdt_c##n) _SDT_WARN_ITEM (n) };  \
  _SDT_CHECK (n)

/* Conversions 1 to 4 (none for 0). */
template <int _Size> struct __sdt_uint { typedef __sdt_ull __type; };
template <> struct __sdt_uint<1> { typedef unsigned char __type; };
template <> struct __sdt_uint<2> { typedef unsigned short __type; };
template <> struct __sdt_uint<4> { typedef unsigned int __type; };

template <typename _Tp, int _Code = __sdt_code_of<_Tp>::__code,
          int _Conv = _SDT_CONV_OF (_Code)>
struct __sdt_conv {};
template <typename _Tp, typename _Rp>
struct __sdt_cast
{
  typedef _Rp __type;
  static __inline__ __attribute__ ((__always_inline__))
  __type __get (const _Tp &__v) { return static_cast<__type> (__v); }
};
template <typename _Tp, int _Code>
struct __sdt_conv<_Tp, _Code, 1> : __sdt_cast<_Tp, __sdt_ll> {};
template <typename _Tp, int _Code>
struct __sdt_conv<_Tp, _Code, 2> : __sdt_cast<_Tp, double> {};
template <typename _Tp, int _Code>
struct __sdt_bytes
{
  typedef typename __sdt_uint<_SDT_SSIZE_OF (_Code)>::__type __type;
  static __inline__ __attribute__ ((__always_inline__))
  __type __get (const _Tp &__v)
  {
    __type __r = 0;
    __builtin_memcpy (&__r, const_cast<const char *> (
                        &reinterpret_cast<const volatile char &> (__v)),
                      sizeof (_Tp) < sizeof __r ? sizeof (_Tp) : sizeof __r);
    return __r;
  }
};
template <typename _Tp, int _Code>
struct __sdt_conv<_Tp, _Code, 3> : __sdt_bytes<_Tp, _Code> {};
template <typename _Tp, int _Code>
struct __sdt_conv<_Tp, _Code, 4> : __sdt_bytes<_Tp, _Code> {};
/* Named in the operators' signatures without computing anything (the
   default arguments above would, even for types the operators skip). */
template <typename _Tp> struct __sdt_conv_of : __sdt_conv<_Tp> {};

/* The operand: (__sdt_conv_tag (), (x)) is x itself, by the built-in
   comma, unless x needs a conversion; then overload resolution finds one
   of these (scalars by value, classes by reference).  Nothing else is
   called, so objects are the same as with (x). */
struct __sdt_conv_tag {};
template <typename _Tp>
static __inline__ __attribute__ ((__always_inline__))
typename __sdt_if<!__sdt_agg<_Tp>::__value,
                  __sdt_conv_of<_Tp> >::__type::__type
operator, (__sdt_conv_tag, _Tp __v)
{ return __sdt_conv<_Tp>::__get (__v); }
template <typename _Tp>
static __inline__ __attribute__ ((__always_inline__))
typename __sdt_if<__sdt_agg<_Tp>::__value,
                  __sdt_conv_of<_Tp> >::__type::__type
operator, (__sdt_conv_tag, const _Tp &__v)
{ return __sdt_conv<_Tp>::__get (__v); }

#  if _SDT_REG_BYTES < 8
/* 32-bit targets: an 8-byte value would sit in a register pair, and the
   note could name only half of it, or be an immediate, which gdb reads as
   32 bits.  Boxed in a struct the compiler cannot keep in registers, it is
   passed as a memory operand whose first 8 bytes are the value.
   always_inline keeps -O0 from calling anything. */
template <typename _Tp, bool _Wide = (sizeof (_Tp) > _SDT_REG_BYTES)>
struct __sdt_slot
{
  typedef _Tp __type;
  static __inline__ __attribute__ ((__always_inline__))
  __type __put (_Tp __v) { return __v; }
};
template <typename _Tp>
struct __sdt_slot<_Tp, true>
{
  struct __type { _Tp __v; char __pad; };
  static __inline__ __attribute__ ((__always_inline__))
  __type __put (_Tp __v) { __type __b; __b.__v = __v; __b.__pad = 0; return __b; }
};
template <typename _Tp>
static __inline__ __attribute__ ((__always_inline__))
typename __sdt_slot<_Tp>::__type __sdt_value (_Tp __v)
{ return __sdt_slot<_Tp>::__put (__v); }
#   define _SDT_VALUE(x, t, c) __sdt_value ((__sdt_conv_tag (), (x)))
#  else
#   define _SDT_VALUE(x, t, c) (__sdt_conv_tag (), (x))
#  endif
#  define _SDT_OPERAND(n, x) \
  "n" (__sdt_s##n), _SDT_CONSTRAINT (_SDT_VALUE (x, ~, ~))
#  define _SDT_LOSSY_N(n) _SDT_LOSSY_OF (__sdt_c##n)

} /* extern "C++" */

# else /* C */

/* The argument as an rvalue: arrays and functions decay to pointers, and
   a bit-field becomes a plain value that sizeof and __typeof__ accept
   (SystemTap's header fails to compile bit-field arguments). */
#  define _SDT_RV(x) ((void) 0, (x))

/* The code of an argument from GCC's type class k (1..4 integer, char,
   enum, bool; 5 pointer; 8 real; 12 struct; 13 union; clang's are the
   same: bit masks of them below), its size z and it: its type where it is
   integral, unsigned int otherwise, so that the casts from -1 are always
   valid. */
#  define _SDT_CODE_C(k, it, z)                                             \
  _SDT_CODE_OF_KIND (0x1E >> (k) & 1, (k) == 8, (it) -1 < (it) 1,           \
                     _SDT_ASIS_CLASSES >> (k) & 1, z)

/* In a probe, the same rules written out (tests/header/classify.c checks
   that both give the same notes, for every type on every target).  The
   preprocessor and the parser are most of what a probe site costs to
   compile, and every token counts: each operator of a constant expression
   is a tree built and folded, each nested macro call copies its arguments
   again (and each call, even of a one-token argument, costs as much as a
   few operators).  So: the argument's type is named once (a typedef:
   *(t *) 0 is an lvalue of it for the builtins, never evaluated), one
   enum, the argument passed on to no other macro, and the parts of the
   code as enumerators of their own rather than one packed code
   (callgrind, 200 sites of 3 arguments at -O2: the probes added 856M
   instructions with the packed code and nested calls, 685M now; SystemTap's
   header adds 1190M):

     k  GCC's type class      z  the size      e  z is 1, 2, 4 or 8
     s  the size operand      w  the warning (_SDT_WARN_ITEM)
     q  how the operand is made: 0 as it is, 1 and 2 conversions 1 and 2
        (a cast to __sdt_vN), 3 conversions 3 and 4 (its bytes)
     h  for its bytes: 64 - 8 * min (z, 8), the bits the mask leaves out
     r  big-endian: how far the bytes shift down into the note's size

   Conversions 1 to 3 are exactly the sizes that are not 1, 2, 4 or 8, so
   the warning needs only e. */
#  if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#   define _SDT_BE_ITEM(n) \
  , __sdt_r##n = 64 - 8 * (__sdt_e##n ? __sdt_z##n : 8)
#  else
#   define _SDT_BE_ITEM(n)
#  endif
#  ifdef SDT_FLOAT_MARKER
#   define _SDT_FLOAT_ITEM(n) - _SDT_FLOAT_CODE * (__sdt_k##n == 8)
#  else
#   define _SDT_FLOAT_ITEM(n)
#  endif
#  define _SDT_ARGUMENT(n, x)                                               \
  typedef __typeof__ (((void) 0, (x))) __sdt_t##n;                          \
  enum { __sdt_k##n = __builtin_classify_type (*(__sdt_t##n *) 0),          \
         __sdt_z##n = sizeof (__sdt_t##n),                                  \
         __sdt_e##n = __sdt_z##n < 9 && 0x116 >> __sdt_z##n & 1,            \
         __sdt_s##n = ((__typeof__ (__builtin_choose_expr (                  \
                         0x1E >> __sdt_k##n & 1, *(__sdt_t##n *) 0, 0U))) -1 \
                       < 1 ? 1 : -1) * (__sdt_e##n ? __sdt_z##n : 8)        \
                      _SDT_FLOAT_ITEM (n),                                  \
         __sdt_q##n = __sdt_e##n                                            \
                      ? 3 - 3 * (_SDT_ASIS_CLASSES >> __sdt_k##n & 1)       \
                      : 0x1E >> __sdt_k##n & 1 ? 1 : 3 - (__sdt_k##n == 8), \
         __sdt_h##n = 64 - 8 * (__sdt_z##n < 8 ? __sdt_z##n : 8)           \
         _SDT_BE_ITEM (n) _SDT_WARN_ITEM (n) };                             \
  typedef __typeof__ (__builtin_choose_expr (__sdt_q##n == 1, (__sdt_u64) 0, \
                      __builtin_choose_expr (__sdt_q##n == 2, 0.0,          \
                                             *(__sdt_t##n *) 0))) __sdt_v##n; \
  _SDT_BOX_TYPE (n) _SDT_CHECK (n)
#  define _SDT_LOSSY_N(n) (!__sdt_e##n)

/* In the user's own asm statement (STAP_PROBE_ASM_OPERANDS), where
   nothing can be declared, the same rules in place. */
#  define _SDT_TYPE(x) __typeof__ (_SDT_RV (x))
#  define _SDT_CLASS(x) __builtin_classify_type (_SDT_RV (x))
#  define _SDT_CODE(x)                                                      \
  _SDT_CODE_C (_SDT_CLASS (x),                                              \
               __typeof__ (__builtin_choose_expr (0x1E >> _SDT_CLASS (x) & 1, \
                                                  _SDT_RV (x), 0U)),        \
               (int) sizeof (_SDT_TYPE (x)))

/* The operand of argument x of type t and code c: x itself, or its
   conversion, computed from values only: an object (a compound literal,
   a statement expression's variable) takes stack space at -O0 even in an
   arm __builtin_choose_expr drops, and would change every probe site.
   1: the integer cast to 8 bytes (its low bytes); 2: cast to double;
   3 and 4: its bytes, read through a union cast (valid for rvalues too),
   zero-padded and, on big-endian targets, as an integer of the note's
   size.  The union's member is x's type only for the values converted
   there (others, pointers to variable-length arrays among them, cannot
   be union members). */
typedef unsigned int __sdt_u64 __attribute__ ((__mode__ (__DI__)));
#  define _SDT_CONVERTED(x, t, c)                                           \
  __builtin_choose_expr ((c) / 512 == 1,                                    \
    (__sdt_u64) __builtin_choose_expr ((c) / 512 == 1, _SDT_RV (x), 0),     \
  __builtin_choose_expr ((c) / 512 == 2,                                    \
    (double) __builtin_choose_expr ((c) / 512 == 2, _SDT_RV (x), 0.0),      \
    _SDT_BYTES (x, sizeof (t), c)))
#  define _SDT_AGG(x, c) __builtin_choose_expr ((c) / 512 > 2, _SDT_RV (x), 0)
#  define _SDT_UNION_BYTES(x, c) \
  ((union { __typeof__ (_SDT_AGG (x, c)) __v; __sdt_u64 __u; }) _SDT_AGG (x, c)).__u
#  if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
/* The first z bytes are the high ones; the note reads an integer of its
   size w (z when it is 1, 2, 4 or 8, else 8). */
#   define _SDT_BYTES(x, z, c)                                              \
  __extension__                                                             \
  ((__typeof__ (__builtin_choose_expr ((c) % 256 == 65, (unsigned char) 0,  \
                __builtin_choose_expr ((c) % 256 == 66, (unsigned short) 0, \
                __builtin_choose_expr ((c) % 256 == 68, 0U, (__sdt_u64) 0))))) \
   ((_SDT_UNION_BYTES (x, c)                                                \
     & ((z) < 8 ? ~(~(__sdt_u64) 0 >> ((z) & 7) * 8) : ~(__sdt_u64) 0))     \
    >> ((c) % 256 - 64 < 8 ? (72 - (c) % 256) * 8 % 64 : 0)))
#  else
/* The first z bytes are the low ones. */
#   define _SDT_BYTES(x, z, c)                                              \
  __extension__ (_SDT_UNION_BYTES (x, c)                                    \
                 & ((z) < 8 ? ~(~(__sdt_u64) 0 << ((z) & 7) * 8)            \
                    : ~(__sdt_u64) 0))
#  endif
#  define _SDT_CONV_OR_RV(x, t, c) \
  __builtin_choose_expr ((c) / 512, _SDT_CONVERTED (x, t, c), _SDT_RV (x))

/* The operand of argument N in a probe, from its declarations: its
   bytes (q 3, as in _SDT_BYTES, between _SDT_BYTES_HEAD and _TAIL), or the
   argument cast to __sdt_vN (its own type for q 0: a cast to the same
   type, an extension for structs and unions, changes nothing).  The
   argument is copied twice, and through one macro call (each nested call
   copies the argument again: callgrind, 1% of a probe site per level). */
#  if defined __BYTE_ORDER__ && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#   define _SDT_BYTES_TYPE(n)                                               \
  __typeof__ (__builtin_choose_expr (__sdt_r##n == 56, (unsigned char) 0,   \
              __builtin_choose_expr (__sdt_r##n == 48, (unsigned short) 0,  \
              __builtin_choose_expr (__sdt_r##n == 32, 0U, (__sdt_u64) 0))))
#   define _SDT_BYTES_HEAD(n) ((_SDT_BYTES_TYPE (n)) ((
#   define _SDT_BYTES_TAIL(n) & ~(__sdt_u64) 0 << __sdt_h##n) >> __sdt_r##n))
#  else
#   define _SDT_BYTES_TYPE(n) __sdt_u64
#   define _SDT_BYTES_HEAD(n) (
#   define _SDT_BYTES_TAIL(n) & ~(__sdt_u64) 0 >> __sdt_h##n)
#  endif
#  define _SDT_IN_PROBE(n, x)                                               \
  __builtin_choose_expr (__sdt_q##n == 3, __extension__ _SDT_BYTES_HEAD (n) \
    ((union { __typeof__ (__builtin_choose_expr (__sdt_q##n == 3,           \
                                                 *(__sdt_t##n *) 0, 0)) __v; \
              __sdt_u64 __u; })                                             \
     __builtin_choose_expr (__sdt_q##n == 3, (x), 0)).__u                   \
    _SDT_BYTES_TAIL (n), __extension__ (__sdt_v##n) (x))

#  if _SDT_REG_BYTES < 8
/* 32-bit targets: see the C++ branch.  One box per argument, of the
   value's type, as before conversions existed (so that -O0 frames do not
   change). */
#   define _SDT_BOX(t, v) \
  (__extension__ (struct { t __v; char __pad; }) { v, 0 })
#   define _SDT_VALUE(x, t, c)                                              \
  __builtin_choose_expr (                                                   \
    sizeof (__typeof__ (_SDT_CONV_OR_RV (x, t, c))) > _SDT_REG_BYTES,       \
    _SDT_BOX (__typeof__ (_SDT_CONV_OR_RV (x, t, c)),                       \
              _SDT_CONV_OR_RV (x, t, c)),                                   \
    _SDT_CONV_OR_RV (x, t, c))
/* In a probe, the operand's type is declared (__sdt_bN). */
#   define _SDT_BOX_TYPE(n)                                                 \
  typedef __typeof__ (__builtin_choose_expr (__sdt_q##n == 3,               \
    (_SDT_BYTES_TYPE (n)) 0, *(__sdt_v##n *) 0)) __sdt_b##n;
#   define _SDT_OPERAND(n, x)                                               \
  "n" (__sdt_s##n), _SDT_CONSTRAINT (__builtin_choose_expr (                \
    sizeof (__sdt_b##n) > _SDT_REG_BYTES,                                   \
    _SDT_BOX (__sdt_b##n, _SDT_IN_PROBE (n, x)), _SDT_IN_PROBE (n, x)))
#  else
#   define _SDT_VALUE(x, t, c) _SDT_CONV_OR_RV (x, t, c)
#   define _SDT_BOX_TYPE(n)
#   define _SDT_OPERAND(n, x) \
  "n" (__sdt_s##n), _SDT_CONSTRAINT (_SDT_IN_PROBE (n, x))
#  endif

# endif /* C */


/* ---- Compile-time checks, one per argument ---------------------------

   An argument the note cannot give whole (conversions 1 to 3 above) gets
   a warning naming it and the note it gets: the use of a deprecated
   member, chosen by the argument's code, so the warning appears only
   where it applies, once, in every C and C++ standard (in C, a member of
   a struct object chosen by __builtin_choose_expr; in C++, a static member
   function of a class chosen by a template).  With SDT_STRICT_ARGS it is
   an error instead (static_assert where the language has it, otherwise a
   negative array size whose name is the message).  Nothing is defined:
   the objects and functions are only named inside sizeof. */

# define _SDT_ARG_TABLE(m) m (1) m (2) m (3) m (4) m (5) m (6) m (7) m (8) \
  m (9) m (10) m (11) m (12)
# define _SDT_LOSSY_DEPRECATED(n) __attribute__ ((__deprecated__ (           \
  "sdt probe argument " #n " is wider than 8 bytes or not 1, 2, 4 or 8 "    \
  "bytes long: its note gives an integer's low 8 bytes, a floating-point "  \
  "value converted to double, anything else's first 8 bytes zero-padded "   \
  "(SDT_STRICT_ARGS makes this an error)")))

# ifdef __cplusplus
#  define _SDT_LOSSY_ITEM(n) \
  static char __sdt_probe_argument_##n () _SDT_LOSSY_DEPRECATED (n);
#  define _SDT_PLAIN_ITEM(n) static char __sdt_probe_argument_##n ();
extern "C++" {
struct __sdt_plain_args { _SDT_ARG_TABLE (_SDT_PLAIN_ITEM) };
struct __sdt_lossy_args { _SDT_ARG_TABLE (_SDT_LOSSY_ITEM) };
template <bool _Lossy> struct __sdt_args { typedef __sdt_plain_args __type; };
template <> struct __sdt_args<true> { typedef __sdt_lossy_args __type; };
}
#  define _SDT_WARN_EXPR(n, c) \
  sizeof (__sdt_args<_SDT_LOSSY_OF (c) != 0>::__type::__sdt_probe_argument_##n ())
#  define _SDT_WARN_OF(n) _SDT_WARN_EXPR (n, __sdt_c##n)
# else
#  define _SDT_LOSSY_ITEM(n) char __sdt_probe_argument_##n _SDT_LOSSY_DEPRECATED (n);
#  define _SDT_PLAIN_ITEM(n) char __sdt_probe_argument_##n;
extern struct { _SDT_ARG_TABLE (_SDT_PLAIN_ITEM) } __sdt_plain_args;
extern struct { _SDT_ARG_TABLE (_SDT_LOSSY_ITEM) } __sdt_lossy_args;
#  define _SDT_WARN_EXPR(n, c)                                              \
  sizeof (__builtin_choose_expr (_SDT_LOSSY_OF (c), __sdt_lossy_args,        \
                                 __sdt_plain_args).__sdt_probe_argument_##n)
/* The same in a probe, written out (see _SDT_ARGUMENT). */
#  define _SDT_WARN_OF(n)                                                   \
  sizeof (__builtin_choose_expr (__sdt_e##n, __sdt_plain_args,              \
                                 __sdt_lossy_args).__sdt_probe_argument_##n)
# endif

# if defined __cplusplus && __cplusplus >= 201103L
#  define _SDT_ASSERT(cond, tag, msg) static_assert (cond, msg);
# elif !defined __cplusplus && defined __STDC_VERSION__ \
       && __STDC_VERSION__ >= 201112L
#  define _SDT_ASSERT(cond, tag, msg) _Static_assert (cond, msg);
# else
#  define _SDT_ASSERT(cond, tag, msg) \
  typedef char tag[(cond) ? 1 : -1] __attribute__ ((__unused__));
# endif

/* _SDT_WARN_ITEM is an enumerator beside the code (one declaration fewer
   per argument); _SDT_CHECK follows the declarations. */
# ifdef SDT_STRICT_ARGS
#  define _SDT_WARN_ITEM(n)
#  define _SDT_CHECK(n)                                                     \
  _SDT_ASSERT (!_SDT_LOSSY_N (n),                                          \
               __sdt_probe_argument_##n##_is_not_a_scalar_of_8_bytes_or_less, \
               "sdt probe argument " #n " must be an integer, enum, pointer " \
               "or floating-point value of at most 8 bytes, or a value of " \
               "1, 2, 4 or 8 bytes")
#  define _SDT_INPLACE_CHECK(n, c) 0
# else
#  define _SDT_WARN_ITEM(n) , __sdt_w##n = _SDT_WARN_OF (n)
#  define _SDT_CHECK(n)
#  define _SDT_INPLACE_CHECK(n, c) 0 * _SDT_WARN_EXPR (n, c)
# endif


/* ---- Operands ----------------------------------------------------------

   The size operand is the negated signed size (printed with %n, which
   negates again), offset by _SDT_FLOAT_CODE for floating-point values. */

# define _SDT_SIZE_OPERAND(c) \
  (-(_SDT_SSIZE_OF (c) + _SDT_FLOAT_OF (c) * _SDT_FLOAT_CODE))

/* In the user's own asm statement (STAP_PROBE_ASM_OPERANDS), where nothing
   could be declared, the code is computed in place (and warns in place;
   SDT_STRICT_ARGS does not apply there). */
# define _SDT_OPERAND_INPLACE(n, x)                                         \
  [_SDT_S##n] "n" (_SDT_SIZE_OPERAND (_SDT_CODE (x))                        \
                   + _SDT_INPLACE_CHECK (n, _SDT_CODE (x))),                \
  [_SDT_A##n] _SDT_CONSTRAINT (_SDT_VALUE (x, _SDT_TYPE (x), _SDT_CODE (x)))


/* ---- The tables, one flat row per argument count ---------------------- */

# define _SDT_ARGUMENTS_0()
# define _SDT_ARGUMENTS_1(a) _SDT_ARGUMENT (1, a)
# define _SDT_ARGUMENTS_2(a, b) _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b)
# define _SDT_ARGUMENTS_3(a, b, c) \
  _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b) _SDT_ARGUMENT (3, c)
# define _SDT_ARGUMENTS_4(a, b, c, d) \
  _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b) _SDT_ARGUMENT (3, c) \
  _SDT_ARGUMENT (4, d)
# define _SDT_ARGUMENTS_5(a, b, c, d, e) \
  _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b) _SDT_ARGUMENT (3, c) \
  _SDT_ARGUMENT (4, d) _SDT_ARGUMENT (5, e)
# define _SDT_ARGUMENTS_6(a, b, c, d, e, f) \
  _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b) _SDT_ARGUMENT (3, c) \
  _SDT_ARGUMENT (4, d) _SDT_ARGUMENT (5, e) _SDT_ARGUMENT (6, f)
# define _SDT_ARGUMENTS_7(a, b, c, d, e, f, g) \
  _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b) _SDT_ARGUMENT (3, c) \
  _SDT_ARGUMENT (4, d) _SDT_ARGUMENT (5, e) _SDT_ARGUMENT (6, f) \
  _SDT_ARGUMENT (7, g)
# define _SDT_ARGUMENTS_8(a, b, c, d, e, f, g, h) \
  _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b) _SDT_ARGUMENT (3, c) \
  _SDT_ARGUMENT (4, d) _SDT_ARGUMENT (5, e) _SDT_ARGUMENT (6, f) \
  _SDT_ARGUMENT (7, g) _SDT_ARGUMENT (8, h)
# define _SDT_ARGUMENTS_9(a, b, c, d, e, f, g, h, i) \
  _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b) _SDT_ARGUMENT (3, c) \
  _SDT_ARGUMENT (4, d) _SDT_ARGUMENT (5, e) _SDT_ARGUMENT (6, f) \
  _SDT_ARGUMENT (7, g) _SDT_ARGUMENT (8, h) _SDT_ARGUMENT (9, i)
# define _SDT_ARGUMENTS_10(a, b, c, d, e, f, g, h, i, j) \
  _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b) _SDT_ARGUMENT (3, c) \
  _SDT_ARGUMENT (4, d) _SDT_ARGUMENT (5, e) _SDT_ARGUMENT (6, f) \
  _SDT_ARGUMENT (7, g) _SDT_ARGUMENT (8, h) _SDT_ARGUMENT (9, i) \
  _SDT_ARGUMENT (10, j)
# define _SDT_ARGUMENTS_11(a, b, c, d, e, f, g, h, i, j, k) \
  _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b) _SDT_ARGUMENT (3, c) \
  _SDT_ARGUMENT (4, d) _SDT_ARGUMENT (5, e) _SDT_ARGUMENT (6, f) \
  _SDT_ARGUMENT (7, g) _SDT_ARGUMENT (8, h) _SDT_ARGUMENT (9, i) \
  _SDT_ARGUMENT (10, j) _SDT_ARGUMENT (11, k)
# define _SDT_ARGUMENTS_12(a, b, c, d, e, f, g, h, i, j, k, l) \
  _SDT_ARGUMENT (1, a) _SDT_ARGUMENT (2, b) _SDT_ARGUMENT (3, c) \
  _SDT_ARGUMENT (4, d) _SDT_ARGUMENT (5, e) _SDT_ARGUMENT (6, f) \
  _SDT_ARGUMENT (7, g) _SDT_ARGUMENT (8, h) _SDT_ARGUMENT (9, i) \
  _SDT_ARGUMENT (10, j) _SDT_ARGUMENT (11, k) _SDT_ARGUMENT (12, l)

/* With no argument the asm still gets an operand, so that it is always an
   extended asm and the semaphore operand can follow after a comma. */
# define _SDT_OPERANDS_0() [_SDT_NONE] "n" (0)
# define _SDT_OPERANDS_1(a) _SDT_OPERAND (1, a)
# define _SDT_OPERANDS_2(a, b) _SDT_OPERAND (1, a), _SDT_OPERAND (2, b)
# define _SDT_OPERANDS_3(a, b, c) \
  _SDT_OPERAND (1, a), _SDT_OPERAND (2, b), _SDT_OPERAND (3, c)
# define _SDT_OPERANDS_4(a, b, c, d) \
  _SDT_OPERAND (1, a), _SDT_OPERAND (2, b), _SDT_OPERAND (3, c), \
  _SDT_OPERAND (4, d)
# define _SDT_OPERANDS_5(a, b, c, d, e) \
  _SDT_OPERAND (1, a), _SDT_OPERAND (2, b), _SDT_OPERAND (3, c), \
  _SDT_OPERAND (4, d), _SDT_OPERAND (5, e)
# define _SDT_OPERANDS_6(a, b, c, d, e, f) \
  _SDT_OPERAND (1, a), _SDT_OPERAND (2, b), _SDT_OPERAND (3, c), \
  _SDT_OPERAND (4, d), _SDT_OPERAND (5, e), _SDT_OPERAND (6, f)
# define _SDT_OPERANDS_7(a, b, c, d, e, f, g) \
  _SDT_OPERAND (1, a), _SDT_OPERAND (2, b), _SDT_OPERAND (3, c), \
  _SDT_OPERAND (4, d), _SDT_OPERAND (5, e), _SDT_OPERAND (6, f), \
  _SDT_OPERAND (7, g)
# define _SDT_OPERANDS_8(a, b, c, d, e, f, g, h) \
  _SDT_OPERAND (1, a), _SDT_OPERAND (2, b), _SDT_OPERAND (3, c), \
  _SDT_OPERAND (4, d), _SDT_OPERAND (5, e), _SDT_OPERAND (6, f), \
  _SDT_OPERAND (7, g), _SDT_OPERAND (8, h)
# define _SDT_OPERANDS_9(a, b, c, d, e, f, g, h, i) \
  _SDT_OPERAND (1, a), _SDT_OPERAND (2, b), _SDT_OPERAND (3, c), \
  _SDT_OPERAND (4, d), _SDT_OPERAND (5, e), _SDT_OPERAND (6, f), \
  _SDT_OPERAND (7, g), _SDT_OPERAND (8, h), _SDT_OPERAND (9, i)
# define _SDT_OPERANDS_10(a, b, c, d, e, f, g, h, i, j) \
  _SDT_OPERAND (1, a), _SDT_OPERAND (2, b), _SDT_OPERAND (3, c), \
  _SDT_OPERAND (4, d), _SDT_OPERAND (5, e), _SDT_OPERAND (6, f), \
  _SDT_OPERAND (7, g), _SDT_OPERAND (8, h), _SDT_OPERAND (9, i), \
  _SDT_OPERAND (10, j)
# define _SDT_OPERANDS_11(a, b, c, d, e, f, g, h, i, j, k) \
  _SDT_OPERAND (1, a), _SDT_OPERAND (2, b), _SDT_OPERAND (3, c), \
  _SDT_OPERAND (4, d), _SDT_OPERAND (5, e), _SDT_OPERAND (6, f), \
  _SDT_OPERAND (7, g), _SDT_OPERAND (8, h), _SDT_OPERAND (9, i), \
  _SDT_OPERAND (10, j), _SDT_OPERAND (11, k)
# define _SDT_OPERANDS_12(a, b, c, d, e, f, g, h, i, j, k, l) \
  _SDT_OPERAND (1, a), _SDT_OPERAND (2, b), _SDT_OPERAND (3, c), \
  _SDT_OPERAND (4, d), _SDT_OPERAND (5, e), _SDT_OPERAND (6, f), \
  _SDT_OPERAND (7, g), _SDT_OPERAND (8, h), _SDT_OPERAND (9, i), \
  _SDT_OPERAND (10, j), _SDT_OPERAND (11, k), _SDT_OPERAND (12, l)

/* The same operands for STAP_PROBE_ASM_OPERANDS, codes computed in place. */
# define _SDT_INPLACE_0() _SDT_OPERANDS_0 ()
# define _SDT_INPLACE_1(a) \
  _SDT_OPERAND_INPLACE (1, a)
# define _SDT_INPLACE_2(a, b) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b)
# define _SDT_INPLACE_3(a, b, c) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b), \
  _SDT_OPERAND_INPLACE (3, c)
# define _SDT_INPLACE_4(a, b, c, d) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b), \
  _SDT_OPERAND_INPLACE (3, c), _SDT_OPERAND_INPLACE (4, d)
# define _SDT_INPLACE_5(a, b, c, d, e) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b), \
  _SDT_OPERAND_INPLACE (3, c), _SDT_OPERAND_INPLACE (4, d), \
  _SDT_OPERAND_INPLACE (5, e)
# define _SDT_INPLACE_6(a, b, c, d, e, f) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b), \
  _SDT_OPERAND_INPLACE (3, c), _SDT_OPERAND_INPLACE (4, d), \
  _SDT_OPERAND_INPLACE (5, e), _SDT_OPERAND_INPLACE (6, f)
# define _SDT_INPLACE_7(a, b, c, d, e, f, g) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b), \
  _SDT_OPERAND_INPLACE (3, c), _SDT_OPERAND_INPLACE (4, d), \
  _SDT_OPERAND_INPLACE (5, e), _SDT_OPERAND_INPLACE (6, f), \
  _SDT_OPERAND_INPLACE (7, g)
# define _SDT_INPLACE_8(a, b, c, d, e, f, g, h) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b), \
  _SDT_OPERAND_INPLACE (3, c), _SDT_OPERAND_INPLACE (4, d), \
  _SDT_OPERAND_INPLACE (5, e), _SDT_OPERAND_INPLACE (6, f), \
  _SDT_OPERAND_INPLACE (7, g), _SDT_OPERAND_INPLACE (8, h)
# define _SDT_INPLACE_9(a, b, c, d, e, f, g, h, i) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b), \
  _SDT_OPERAND_INPLACE (3, c), _SDT_OPERAND_INPLACE (4, d), \
  _SDT_OPERAND_INPLACE (5, e), _SDT_OPERAND_INPLACE (6, f), \
  _SDT_OPERAND_INPLACE (7, g), _SDT_OPERAND_INPLACE (8, h), \
  _SDT_OPERAND_INPLACE (9, i)
# define _SDT_INPLACE_10(a, b, c, d, e, f, g, h, i, j) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b), \
  _SDT_OPERAND_INPLACE (3, c), _SDT_OPERAND_INPLACE (4, d), \
  _SDT_OPERAND_INPLACE (5, e), _SDT_OPERAND_INPLACE (6, f), \
  _SDT_OPERAND_INPLACE (7, g), _SDT_OPERAND_INPLACE (8, h), \
  _SDT_OPERAND_INPLACE (9, i), _SDT_OPERAND_INPLACE (10, j)
# define _SDT_INPLACE_11(a, b, c, d, e, f, g, h, i, j, k) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b), \
  _SDT_OPERAND_INPLACE (3, c), _SDT_OPERAND_INPLACE (4, d), \
  _SDT_OPERAND_INPLACE (5, e), _SDT_OPERAND_INPLACE (6, f), \
  _SDT_OPERAND_INPLACE (7, g), _SDT_OPERAND_INPLACE (8, h), \
  _SDT_OPERAND_INPLACE (9, i), _SDT_OPERAND_INPLACE (10, j), \
  _SDT_OPERAND_INPLACE (11, k)
# define _SDT_INPLACE_12(a, b, c, d, e, f, g, h, i, j, k, l) \
  _SDT_OPERAND_INPLACE (1, a), _SDT_OPERAND_INPLACE (2, b), \
  _SDT_OPERAND_INPLACE (3, c), _SDT_OPERAND_INPLACE (4, d), \
  _SDT_OPERAND_INPLACE (5, e), _SDT_OPERAND_INPLACE (6, f), \
  _SDT_OPERAND_INPLACE (7, g), _SDT_OPERAND_INPLACE (8, h), \
  _SDT_OPERAND_INPLACE (9, i), _SDT_OPERAND_INPLACE (10, j), \
  _SDT_OPERAND_INPLACE (11, k), _SDT_OPERAND_INPLACE (12, l)

/* The argument string.  Normally one .asciz for all arguments.  Three
   things need more:
   - SDT_FLOAT_MARKER: .ifc on the size immediate spells "4f"/"8f", one
     argument after the other;
   - ARM: GCC names r10, r11 and r12 sl, fp and ip, and both compilers
     write sp and lr, but gdb reads only rN there: .ifc renames a register
     operand.  (Inside [..] memory operands the names are read fine.)
   - x86 under -masm=intel: see _SDT_INTEL below.
   The texts of the arguments, _SDT_PROBETEXT_n and _SDT_ARGTEXT_n, take
   the form of one argument and what separates two (A, SP), so that x86
   writes them in two forms. */
# ifdef SDT_FLOAT_MARKER
#  define _SDT_SIZE_DIRS(s)                                                 \
  "\t.ifc %n" s ",1004\n\t.ascii \"4f\"\n"                                  \
  "\t.else\n\t.ifc %n" s ",1008\n\t.ascii \"8f\"\n"                         \
  "\t.else\n\t.ascii \"%n" s "\"\n\t.endif\n\t.endif\n"
# else
#  define _SDT_SIZE_DIRS(s) "\t.ascii \"%n" s "\"\n"
# endif

/* x86 under -masm=intel (no predefined macro says so): GCC and clang print
   an operand as Intel syntax writes it, rax or 42, where every tracer
   reads AT&T's %rax or $42 (a bare 42 is memory at address 42).  Both
   honour the template's {AT&T|Intel} dialect alternatives: the Intel one
   hands the operands to the assembler macro _sdt_args (_sdt_att for one
   operand), which writes a register's name after a '%', an immediate after
   a '$', and memory through _sdt_mem (x86-64's operands are registers or
   immediates; i386's may be memory).  _SDT_ATT_TEXT defines them, once per
   assembly file, in the Intel alternative at the head of every probe's
   asm statement (and of the user's, with STAP_PROBE_ASM_TEMPLATE): the
   first probe of a file, wherever the compiler puts it, comes with them.
   GCC weighs an asm statement by its lines when it decides what to
   inline, and these lines are most of a probe's: the probe is `asm
   inline' (_SDT_ASM_INLINE), which GCC weighs as one instruction, as the
   one nop it is (GCC 9 and clang have it; GCC 8 and older get no Intel
   form, and their probes weigh their lines as before).  In the macros,
   '%' and '$' are written \045 and \044 ('$' is clang's operand escape). */
# if (defined __x86_64__ || defined __i386__) \
     && (defined __clang__ || __GNUC__ >= 9)
#  define _SDT_INTEL 1
#  define _SDT_ATT_MACROS                                                   \
  ".ifndef .Lsdt_att\n.set .Lsdt_att,1\n" _SDT_MEM_MACRO                    \
  _SDT_ATT_ARGS_MACROS ".endif\n"
#  define _SDT_ATT_TEXT "{|" _SDT_ATT_MACROS "}"
#  define _SDT_ASM_INLINE __inline__
/* _sdt_att OPERAND: a register (rax, eax) after a '%', an immediate after
   a '$', memory (GCC writes its size first: DWORD PTR 8[ebp]) through
   _sdt_mem.  _sdt_args SIZE,"OPERAND",...: the argument string, NUL
   included. */
#  define _SDT_ATT_ARGS_MACROS                                              \
  ".macro _sdt_att op,ptr,mem:vararg\n.ifnb \\ptr\n_sdt_mem 0,\\mem\n"      \
  ".else\n.set .Lsdt_k,0\n"                                                 \
  ".irp r,rax,rbx,rcx,rdx,rsi,rdi,rbp,rsp,r8,r9,r10,r11,r12,r13,r14,r15,"   \
  "eax,ebx,ecx,edx,esi,edi,ebp,esp\n"                                       \
  ".ifc \\r,\\op\n.set .Lsdt_k,1\n.endif\n.endr\n.if .Lsdt_k\n"             \
  ".ascii \"\\045\\op\"\n.else\n_sdt_mem 1,\\op\n.endif\n.endif\n"          \
  ".endm\n.macro _sdt_args s,o,rest:vararg\n.ifnb \\s\n"                    \
  ".ascii \"\\s@\"\n_sdt_att \\o\n.ifnb \\rest\n.ascii \" \"\n"             \
  "_sdt_args \\rest\n.else\n.byte 0\n.endif\n.else\n.byte 0\n.endif\n"      \
  ".endm\n"
/* _sdt_mem IMM, ADDRESS: in GNU as, base plus displacement in AT&T's form,
   as GCC writes it in AT&T syntax (8[ebp], [ebp+8] and [ebp-8] as 8(%ebp)
   and -8(%ebp), [esp] as (%esp), g@GOTOFF[ebx] as g@GOTOFF(%ebx)); with an
   index or a symbolic displacement inside the brackets, as written;
   without brackets, an immediate after a '$' when IMM is 1 (a lone word),
   else an absolute address as written.  Three passes over its characters:
   is it base plus displacement, the displacement, the base register.
   Clang writes memory as one word ([ebp-8]) that LLVM's assembler cannot
   take apart (its .irpc takes no brackets): as an immediate, so that
   tracers reject the note rather than misread it (docs/compatibility.md).
   On x86-64 only STAP_SDT_ARG_CONSTRAINT can bring memory: as written (the
   passes cost each probe site's compile the text of their definition). */
#  if defined __clang__ || !defined __i386__
#   define _SDT_MEM_MACRO                                                   \
  ".macro _sdt_mem imm,m:vararg\n.if \\imm\n.ascii \"\\044\\m\"\n"          \
  ".else\n.ascii \"\\m\"\n.endif\n.endm\n"
#  else
#   define _SDT_MEM_MACRO                                                   \
  ".macro _sdt_mem imm,m:vararg\n.set .Lsdt_s,0\n.set .Lsdt_ok,0\n"         \
  ".irpc c,\"\\m\"\n.ifc \\c,[\n.set .Lsdt_s,1\n.set .Lsdt_ok,1\n"          \
  ".else\n.ifc \\c,]\n.set .Lsdt_s,3\n.else\n.if .Lsdt_s==1\n"              \
  ".ifc \\c,+\n.set .Lsdt_s,2\n.endif\n.ifc \\c,-\n.set .Lsdt_s,2\n"        \
  ".endif\n.elseif .Lsdt_s==2\n.set .Lsdt_d,0\n.irpc d,0123456789\n"        \
  ".ifc \\c,\\d\n.set .Lsdt_d,1\n.endif\n.endr\n.if .Lsdt_d==0\n"           \
  ".set .Lsdt_ok,2\n.endif\n.endif\n.endif\n.endif\n.endr\n"                \
  ".if .Lsdt_ok==0&&\\imm\n.ascii \"\\044\\m\"\n.elseif .Lsdt_ok!=1\n"      \
  ".ascii \"\\m\"\n.else\n.set .Lsdt_s,0\n.set .Lsdt_p,0\n"                 \
  ".irpc c,\"\\m\"\n.ifc \\c,[\n.set .Lsdt_s,1\n.else\n.ifc \\c,]\n"        \
  ".set .Lsdt_s,3\n.else\n.if .Lsdt_s==0\n.ascii \"\\c\"\n"                 \
  ".set .Lsdt_p,1\n.elseif .Lsdt_s==1\n.ifc \\c,-\n.ascii \"-\"\n"          \
  ".set .Lsdt_s,2\n.endif\n.ifc \\c,+\n.if .Lsdt_p\n.ascii \"+\"\n"         \
  ".endif\n.set .Lsdt_s,2\n.endif\n.elseif .Lsdt_s==2\n"                    \
  ".ascii \"\\c\"\n.endif\n.endif\n.endif\n.endr\n.ascii \"(\\045\"\n"      \
  ".set .Lsdt_s,0\n.irpc c,\"\\m\"\n.ifc \\c,[\n.set .Lsdt_s,1\n"           \
  ".else\n.ifc \\c,+\n.set .Lsdt_s,2\n.endif\n.ifc \\c,-\n"                 \
  ".set .Lsdt_s,2\n.endif\n.ifc \\c,]\n.set .Lsdt_s,2\n.endif\n"            \
  ".if .Lsdt_s==1\n.ascii \"\\c\"\n.endif\n.endif\n.endr\n"                 \
  ".ascii \")\"\n.endif\n.endm\n"
#  endif

#  define _SDT_OPND_DIRS(a)                                                 \
  "{\t.ascii \"" _SDT_OPND (a) "\"|\t_sdt_att " _SDT_OPND (a) "}\n"
# else
#  define _SDT_ATT_TEXT ""
#  define _SDT_ASM_INLINE
#  if defined __arm__
#   define _SDT_ARM_ALIAS(a, alias, reg)                                    \
  "\t.ifc \"%" a "\",\"" alias "\"\n\t.ascii \"" reg "\"\n\t.else\n"
#   define _SDT_OPND_DIRS(a)                                                \
  _SDT_ARM_ALIAS (a, "sl", "r10") _SDT_ARM_ALIAS (a, "fp", "r11")           \
  _SDT_ARM_ALIAS (a, "ip", "r12") _SDT_ARM_ALIAS (a, "sp", "r13")           \
  _SDT_ARM_ALIAS (a, "lr", "r14")                                           \
  "\t.ascii \"" _SDT_OPND (a) "\"\n"                                        \
  "\t.endif\n\t.endif\n\t.endif\n\t.endif\n\t.endif\n"
#  else
#   define _SDT_OPND_DIRS(a) "\t.ascii \"" _SDT_OPND (a) "\"\n"
#  endif
# endif

/* One argument, from the references S and A to its two operands: by name
   in STAP_PROBE_ASM_TEMPLATE, where the user's asm may have operands of
   its own ("[_SDT_S1]"), by number in a probe, whose operands are all ours
   ("0": the parser and the compiler resolve no name, and the template is
   fewer literals).  In the .asciz (_SDT_ARG_TEXT, " "), as directives
   (_SDT_ARG_DIRS, _SDT_SP_DIRS), or for _sdt_args (_SDT_ARG_INTEL, ","). */
# define _SDT_ARG_TEXT(s, a) "%n" s "@" _SDT_OPND (a)
# define _SDT_ARG_DIRS(s, a) \
  _SDT_SIZE_DIRS (s) "\t.ascii \"@\"\n" _SDT_OPND_DIRS (a)
# define _SDT_SP_DIRS "\t.ascii \" \"\n"
# define _SDT_ARG_INTEL(s, a) "%n" s ",\"" _SDT_OPND (a) "\""
# if defined SDT_FLOAT_MARKER || defined __arm__
#  define _SDT_ARGDIRS(text) text (_SDT_ARG_DIRS, _SDT_SP_DIRS) "\t.byte 0\n"
# elif defined _SDT_INTEL
#  define _SDT_ARGDIRS(text)                                                \
  "{\t.asciz \"" text (_SDT_ARG_TEXT, " ") "\"|\t_sdt_args "                \
  text (_SDT_ARG_INTEL, ",") "}\n"
# else
#  define _SDT_ARGDIRS(text) "\t.asciz \"" text (_SDT_ARG_TEXT, " ") "\"\n"
# endif

/* In STAP_PROBE_ASM_TEMPLATE: argument N is operands [_SDT_SN] and
   [_SDT_AN]. */
# define _SDT_NAMED(A, n) A ("[_SDT_S" #n "]", "[_SDT_A" #n "]")
# define _SDT_ARGTEXT_0(A, SP) ""
# define _SDT_ARGTEXT_1(A, SP) _SDT_NAMED (A, 1)
# define _SDT_ARGTEXT_2(A, SP) _SDT_ARGTEXT_1 (A, SP) SP _SDT_NAMED (A, 2)
# define _SDT_ARGTEXT_3(A, SP) _SDT_ARGTEXT_2 (A, SP) SP _SDT_NAMED (A, 3)
# define _SDT_ARGTEXT_4(A, SP) _SDT_ARGTEXT_3 (A, SP) SP _SDT_NAMED (A, 4)
# define _SDT_ARGTEXT_5(A, SP) _SDT_ARGTEXT_4 (A, SP) SP _SDT_NAMED (A, 5)
# define _SDT_ARGTEXT_6(A, SP) _SDT_ARGTEXT_5 (A, SP) SP _SDT_NAMED (A, 6)
# define _SDT_ARGTEXT_7(A, SP) _SDT_ARGTEXT_6 (A, SP) SP _SDT_NAMED (A, 7)
# define _SDT_ARGTEXT_8(A, SP) _SDT_ARGTEXT_7 (A, SP) SP _SDT_NAMED (A, 8)
# define _SDT_ARGTEXT_9(A, SP) _SDT_ARGTEXT_8 (A, SP) SP _SDT_NAMED (A, 9)
# define _SDT_ARGTEXT_10(A, SP) _SDT_ARGTEXT_9 (A, SP) SP _SDT_NAMED (A, 10)
# define _SDT_ARGTEXT_11(A, SP) _SDT_ARGTEXT_10 (A, SP) SP _SDT_NAMED (A, 11)
# define _SDT_ARGTEXT_12(A, SP) _SDT_ARGTEXT_11 (A, SP) SP _SDT_NAMED (A, 12)
/* In a probe: argument N is operands 2N-2 and 2N-1.  Flat: each level of
   macro call copies its arguments again, at every probe site. */
# define _SDT_PROBETEXT_0(A, SP) ""
# define _SDT_PROBETEXT_1(A, SP) A ("0", "1")
# define _SDT_PROBETEXT_2(A, SP) A ("0", "1") SP A ("2", "3")
# define _SDT_PROBETEXT_3(A, SP) A ("0", "1") SP A ("2", "3") SP A ("4", "5")
# define _SDT_PROBETEXT_4(A, SP) \
  A ("0", "1") SP A ("2", "3") SP A ("4", "5") SP A ("6", "7")
# define _SDT_PROBETEXT_5(A, SP) \
  A ("0", "1") SP A ("2", "3") SP A ("4", "5") SP A ("6", "7") \
  SP A ("8", "9")
# define _SDT_PROBETEXT_6(A, SP) \
  A ("0", "1") SP A ("2", "3") SP A ("4", "5") SP A ("6", "7") \
  SP A ("8", "9") SP A ("10", "11")
# define _SDT_PROBETEXT_7(A, SP) \
  A ("0", "1") SP A ("2", "3") SP A ("4", "5") SP A ("6", "7") \
  SP A ("8", "9") SP A ("10", "11") SP A ("12", "13")
# define _SDT_PROBETEXT_8(A, SP) \
  A ("0", "1") SP A ("2", "3") SP A ("4", "5") SP A ("6", "7") \
  SP A ("8", "9") SP A ("10", "11") SP A ("12", "13") SP A ("14", "15")
# define _SDT_PROBETEXT_9(A, SP) \
  A ("0", "1") SP A ("2", "3") SP A ("4", "5") SP A ("6", "7") \
  SP A ("8", "9") SP A ("10", "11") SP A ("12", "13") SP A ("14", "15") \
  SP A ("16", "17")
# define _SDT_PROBETEXT_10(A, SP) \
  A ("0", "1") SP A ("2", "3") SP A ("4", "5") SP A ("6", "7") \
  SP A ("8", "9") SP A ("10", "11") SP A ("12", "13") SP A ("14", "15") \
  SP A ("16", "17") SP A ("18", "19")
# define _SDT_PROBETEXT_11(A, SP) \
  A ("0", "1") SP A ("2", "3") SP A ("4", "5") SP A ("6", "7") \
  SP A ("8", "9") SP A ("10", "11") SP A ("12", "13") SP A ("14", "15") \
  SP A ("16", "17") SP A ("18", "19") SP A ("20", "21")
# define _SDT_PROBETEXT_12(A, SP) \
  A ("0", "1") SP A ("2", "3") SP A ("4", "5") SP A ("6", "7") \
  SP A ("8", "9") SP A ("10", "11") SP A ("12", "13") SP A ("14", "15") \
  SP A ("16", "17") SP A ("18", "19") SP A ("20", "21") SP A ("22", "23")

#endif /* !__ASSEMBLER__ */

#endif /* sys/sdt-operands.h */
