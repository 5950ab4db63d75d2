/* SPDX-License-Identifier: MIT-0 */
/* <sys/sdt.h> -- statically defined tracing probes (USDT) for Linux.  sdtkit.

   A drop-in replacement for SystemTap's <sys/sdt.h>: same macros, same
   meaning, same ELF notes, for C, C++ and assembly.

     STAP_PROBE (provider, name)              DTRACE_PROBE (provider, name)
     STAP_PROBEn (provider, name, a1..an)     DTRACE_PROBEn (provider, name, ...)
                                              (n = 1..12)
     STAP_PROBEV (provider, name, ...)        with SDT_USE_VARIADIC, 0..12 args
     STAP_PROBE_ASM (provider, name, args)    inside an asm statement
     STAP_PROBE_ASM_TEMPLATE (n), STAP_PROBE_ASM_OPERANDS (n, a1..an)

   Each probe is one `nop' in the instruction stream plus a note in the
   .note.stapsdt section (name "stapsdt", type 3) that gives the nop's
   address, the address of .stapsdt.base, the address of the probe's
   semaphore (or 0), the provider, the probe name and one `SIZE@OPERAND'
   per argument.  Tracers (gdb, perf, bpftrace, bcc, libbpf, systemtap)
   read the note, put a breakpoint on the nop and decode each operand.

   Options, defined before including this header:

     _SDT_HAS_SEMAPHORES      every probe records the address of the
     (or STAP_HAS_SEMAPHORES)  `unsigned short PROVIDER_NAME_semaphore' it
                              is guarded by (dtrace -G defines them); with
                              STAP_SDT_V1 the dtrace -h header redirects that
                              name to NAME_semaphore.
     SDT_USE_VARIADIC         define STAP_PROBEV.
     SDT_NOP10                x86-64: a 1-byte nop then a 10-byte nop per
                              probe, as <usdt.h> does (see below).
     SDT_FLOAT_MARKER         mark floating-point arguments `4f@'/`8f@' as
                              SystemTap 4.6+ does.  Off by default: libbpf,
                              bpftrace >= 0.24, bcc, gdb and Oracle DTrace
                              reject or misread the marker; only systemtap
                              reads it.
     STAP_SDT_ARG_CONSTRAINT  the asm constraint for argument operands,
                              unquoted (e.g. -DSTAP_SDT_ARG_CONSTRAINT=nor).
     SDT_STRICT_ARGS          an argument whose note cannot give the whole
                              value (below) stops the build instead of
                              warning.

   What this header does differently from SystemTap's, and why:

   - Operands every tracer can read.  On x86-64 registers are named in full
     (%rdi, not %dil or %r10b, which gdb cannot name: the width before the
     `@' governs the value), and optimised GCC builds keep arguments in
     registers or immediates, never `sym(%rip)' or indexed memory, which
     gdb, libbpf and perf cannot read (at every optimisation level: the
     choice does not follow __OPTIMIZE__, which #pragma GCC optimize and
     __attribute__ ((optimize)) leave undefined).  clang always gets register operands
     (given memory operands it spills every argument to the stack, and on
     riscv64 it crashes).
   - Bit-fields, arrays and function designators are accepted as arguments.
   - Structs and unions of 1, 2, 4 or 8 bytes are arguments like unsigned
     integers of that size, as in SystemTap's header.
   - Arguments wider than a register are never half-described: 8-byte values
     on 32-bit targets are passed in memory (a register pair could be named
     only by half, an immediate gdb reads as 32 bits).  Values the note
     cannot give whole (__int128, long double, structs of other sizes:
     SystemTap's `-16@', `16f@', `12@' notes make gdb read none of the
     probe's arguments, libbpf refuse to attach and bpftrace 0.17 abort)
     get an 8-byte note every tracer reads (an integer's low 8 bytes, a
     float converted to double, anything else's first 8 bytes) and a
     compile-time warning naming the argument; SDT_STRICT_ARGS makes it an
     error.
   - ARM register operands are written rN (gdb reads neither fp, ip, sl,
     sp nor lr there); s390 memory operands never use an index register.
   - Under -masm=intel, x86 operands are still written as AT&T syntax
     writes them (%rax, $42, 8(%ebp)), the only form tracers read.
   - No warning under -Wall -Wextra -Wpedantic, in any C or C++ standard.
   - .stapsdt.base survives --gc-sections with lld, gold and mold.  */

#ifndef _SYS_SDT_H
#define _SYS_SDT_H 1

#include "sdt-config.h"


#if defined STAP_HAS_SEMAPHORES && !defined _SDT_HAS_SEMAPHORES
# define _SDT_HAS_SEMAPHORES 1
#endif


/* The target and the argument operands: see sdt-operands.h. */
#include "sdt-operands.h"

/* SDT_NOP10 (x86-64 only): the probe is sdt-operands.h's _SDT_NOP10, a
   1-byte nop then a 10-byte nop, as in <usdt.h>.  Costs 10 bytes and one
   more instruction per probe (make bench). */
#if defined SDT_NOP10 && defined __x86_64__
# define _SDT_PROBE_NOP _SDT_NOP10
#else
# define _SDT_PROBE_NOP _SDT_NOP
#endif


/* The semaphore the note points to, or 0.  Whether probes have semaphores
   is decided where each probe expands, not here: a dtrace -h header that
   defines _SDT_HAS_SEMAPHORES works even when <sys/sdt.h> was included
   before it.  (Defined as 1, as empty or as 0.)  The name is pasted, then
   expanded before it is stringified, so that the dtrace -h header's
   STAP_SDT_V1 redirection (#define prov_name_semaphore name_semaphore)
   applies. */
#define _SDT_SEMAPHORE(provider, name) \
  _SDT_CAT (_SDT_SEMAPHORE_, _SDT_HAS_SEMAPHORES) (provider, name)
#define _SDT_SEMAPHORE__SDT_HAS_SEMAPHORES(provider, name) 0
#define _SDT_SEMAPHORE_0(provider, name) 0
#define _SDT_SEMAPHORE_1(provider, name) provider##_##name##_semaphore
#define _SDT_SEMAPHORE_(provider, name) provider##_##name##_semaphore


#ifdef __ASSEMBLER__
/* ---- Assembly (.S files) --------------------------------------------

   Arguments are assembler operands, copied into the note as written,
   e.g. STAP_PROBE2 (prov, name, 8@%rdi, -4@8(%rsp)).  The C preprocessor
   does not join string literals, so each piece is its own .ascii. */

# define _SDT_ASM_ARG(x) .ascii _SDT_STR (x);
# define _SDT_ASM_SP .ascii " ";
# define _SDT_ASM_ARGS_0()
# define _SDT_ASM_ARGS_1(a) _SDT_ASM_ARG (a)
# define _SDT_ASM_ARGS_2(a, b) _SDT_ASM_ARGS_1 (a) _SDT_ASM_SP _SDT_ASM_ARG (b)
# define _SDT_ASM_ARGS_3(a, b, c) \
  _SDT_ASM_ARGS_2 (a, b) _SDT_ASM_SP _SDT_ASM_ARG (c)
# define _SDT_ASM_ARGS_4(a, b, c, d) \
  _SDT_ASM_ARGS_3 (a, b, c) _SDT_ASM_SP _SDT_ASM_ARG (d)
# define _SDT_ASM_ARGS_5(a, b, c, d, e) \
  _SDT_ASM_ARGS_4 (a, b, c, d) _SDT_ASM_SP _SDT_ASM_ARG (e)
# define _SDT_ASM_ARGS_6(a, b, c, d, e, f) \
  _SDT_ASM_ARGS_5 (a, b, c, d, e) _SDT_ASM_SP _SDT_ASM_ARG (f)
# define _SDT_ASM_ARGS_7(a, b, c, d, e, f, g) \
  _SDT_ASM_ARGS_6 (a, b, c, d, e, f) _SDT_ASM_SP _SDT_ASM_ARG (g)
# define _SDT_ASM_ARGS_8(a, b, c, d, e, f, g, h) \
  _SDT_ASM_ARGS_7 (a, b, c, d, e, f, g) _SDT_ASM_SP _SDT_ASM_ARG (h)
# define _SDT_ASM_ARGS_9(a, b, c, d, e, f, g, h, i) \
  _SDT_ASM_ARGS_8 (a, b, c, d, e, f, g, h) _SDT_ASM_SP _SDT_ASM_ARG (i)
# define _SDT_ASM_ARGS_10(a, b, c, d, e, f, g, h, i, j) \
  _SDT_ASM_ARGS_9 (a, b, c, d, e, f, g, h, i) _SDT_ASM_SP _SDT_ASM_ARG (j)
# define _SDT_ASM_ARGS_11(a, b, c, d, e, f, g, h, i, j, k) \
  _SDT_ASM_ARGS_10 (a, b, c, d, e, f, g, h, i, j) _SDT_ASM_SP _SDT_ASM_ARG (k)
# define _SDT_ASM_ARGS_12(a, b, c, d, e, f, g, h, i, j, k, l) \
  _SDT_ASM_ARGS_11 (a, b, c, d, e, f, g, h, i, j, k) _SDT_ASM_SP \
  _SDT_ASM_ARG (l)

# define _SDT_PROBE(provider, name, n, arglist)                             \
  1770: _SDT_PROBE_NOP;                                                           \
  .pushsection .note.stapsdt, _SDT_NOTE_FLAGS, "note";                      \
  .balign 4;                                                                \
  .4byte 1772f-1771f, 1774f-1773f, 3;                                       \
  1771: .asciz "stapsdt";                                                   \
  1772: .balign 4;                                                          \
  1773: _SDT_ASM_ADDR 1770b;                                                \
  _SDT_ASM_ADDR _.stapsdt.base;                                             \
  _SDT_ASM_ADDR _SDT_SEMAPHORE (provider, name);                            \
  .asciz _SDT_XSTR (provider);                                              \
  .asciz _SDT_XSTR (name);                                                  \
  _SDT_ASM_ARGS_##n arglist                                                 \
  .byte 0;                                                                  \
  1774: .balign 4;                                                          \
  .popsection;                                                              \
  .ifndef _.stapsdt.base;                                                   \
  .pushsection .stapsdt.base, _SDT_BASE_FLAGS, "progbits", .stapsdt.base, comdat; \
  .weak _.stapsdt.base;                                                     \
  .hidden _.stapsdt.base;                                                   \
  _.stapsdt.base: .space 1;                                                 \
  .size _.stapsdt.base, 1;                                                  \
  .popsection;                                                              \
  .endif

#else /* C and C++ */

/* ---- The note: sdt-operands.h's template, with this header's nop and
   semaphore (STAP_PROBE_ASM uses it too). */

# define _SDT_ASM_NOTE(provider, name, argdirectives)                       \
  _SDT_ASM_NOTE_TEXT (_SDT_XSTR (_SDT_PROBE_NOP),                           \
                      _SDT_XSTR (_SDT_SEMAPHORE (provider, name)),          \
                      provider, name, argdirectives)

/* The semaphore's "m" operand, when there is one: decided where the probe
   expands, like _SDT_SEMAPHORE. */
# define _SDT_SEMAPHORE_OPERAND(provider, name) \
  _SDT_CAT (_SDT_SEMOP_, _SDT_HAS_SEMAPHORES) (provider, name)
# define _SDT_SEMOP__SDT_HAS_SEMAPHORES(provider, name)
# define _SDT_SEMOP_0(provider, name)
# define _SDT_SEMOP_1(provider, name) \
  _SDT_SEM_OPERAND (_SDT_SEMAPHORE_1 (provider, name))
# define _SDT_SEMOP_(provider, name) _SDT_SEMOP_1 (provider, name)

/* The probe.  LTTng-UST calls this directly, with (args) parenthesised. */
# define _SDT_PROBE(provider, name, n, arglist)                             \
  do {                                                                      \
    _SDT_PROBE_BODY (_SDT_XSTR (_SDT_PROBE_NOP),                            \
                     _SDT_XSTR (_SDT_SEMAPHORE (provider, name)),           \
                     provider, name, n, arglist,                            \
                     _SDT_SEMAPHORE_OPERAND (provider, name))               \
  } while (0)

#endif /* C and C++ */


/* ---- The public macros ----------------------------------------------- */

#define STAP_PROBE(provider, name) \
  _SDT_PROBE (provider, name, 0, ())
#define STAP_PROBE1(provider, name, a1) \
  _SDT_PROBE (provider, name, 1, (a1))
#define STAP_PROBE2(provider, name, a1, a2) \
  _SDT_PROBE (provider, name, 2, (a1, a2))
#define STAP_PROBE3(provider, name, a1, a2, a3) \
  _SDT_PROBE (provider, name, 3, (a1, a2, a3))
#define STAP_PROBE4(provider, name, a1, a2, a3, a4) \
  _SDT_PROBE (provider, name, 4, (a1, a2, a3, a4))
#define STAP_PROBE5(provider, name, a1, a2, a3, a4, a5) \
  _SDT_PROBE (provider, name, 5, (a1, a2, a3, a4, a5))
#define STAP_PROBE6(provider, name, a1, a2, a3, a4, a5, a6) \
  _SDT_PROBE (provider, name, 6, (a1, a2, a3, a4, a5, a6))
#define STAP_PROBE7(provider, name, a1, a2, a3, a4, a5, a6, a7) \
  _SDT_PROBE (provider, name, 7, (a1, a2, a3, a4, a5, a6, a7))
#define STAP_PROBE8(provider, name, a1, a2, a3, a4, a5, a6, a7, a8) \
  _SDT_PROBE (provider, name, 8, (a1, a2, a3, a4, a5, a6, a7, a8))
#define STAP_PROBE9(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
  _SDT_PROBE (provider, name, 9, (a1, a2, a3, a4, a5, a6, a7, a8, a9))
#define STAP_PROBE10(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, \
                     a10) \
  _SDT_PROBE (provider, name, 10, (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10))
#define STAP_PROBE11(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, \
                     a10, a11) \
  _SDT_PROBE (provider, name, 11, \
              (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11))
#define STAP_PROBE12(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, \
                     a10, a11, a12) \
  _SDT_PROBE (provider, name, 12, \
              (a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12))

/* DTrace spellings. */
#define DTRACE_PROBE(provider, name) STAP_PROBE (provider, name)
#define DTRACE_PROBE1(provider, name, a1) STAP_PROBE1 (provider, name, a1)
#define DTRACE_PROBE2(provider, name, a1, a2) \
  STAP_PROBE2 (provider, name, a1, a2)
#define DTRACE_PROBE3(provider, name, a1, a2, a3) \
  STAP_PROBE3 (provider, name, a1, a2, a3)
#define DTRACE_PROBE4(provider, name, a1, a2, a3, a4) \
  STAP_PROBE4 (provider, name, a1, a2, a3, a4)
#define DTRACE_PROBE5(provider, name, a1, a2, a3, a4, a5) \
  STAP_PROBE5 (provider, name, a1, a2, a3, a4, a5)
#define DTRACE_PROBE6(provider, name, a1, a2, a3, a4, a5, a6) \
  STAP_PROBE6 (provider, name, a1, a2, a3, a4, a5, a6)
#define DTRACE_PROBE7(provider, name, a1, a2, a3, a4, a5, a6, a7) \
  STAP_PROBE7 (provider, name, a1, a2, a3, a4, a5, a6, a7)
#define DTRACE_PROBE8(provider, name, a1, a2, a3, a4, a5, a6, a7, a8) \
  STAP_PROBE8 (provider, name, a1, a2, a3, a4, a5, a6, a7, a8)
#define DTRACE_PROBE9(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9) \
  STAP_PROBE9 (provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9)
#define DTRACE_PROBE10(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, \
                       a10) \
  STAP_PROBE10 (provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10)
#define DTRACE_PROBE11(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, \
                       a10, a11) \
  STAP_PROBE11 (provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11)
#define DTRACE_PROBE12(provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, \
                       a10, a11, a12) \
  STAP_PROBE12 (provider, name, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, \
                a11, a12)


/* ---- Variadic forms (C99 and C++11 preprocessors) -------------------

   STAP_PROBEV takes provider and name inside its `...', so STAP_PROBEV
   (p, n) with no probe argument is still a non-empty variadic call, which
   strict C99 and C++11 require.  _SDT_NARGS: see sdt-operands.h. */

#ifdef SDT_USE_VARIADIC
# define STAP_PROBEV(...) \
  _SDT_CAT (_SDT_PROBEV_, _SDT_NARGS (__VA_ARGS__)) (__VA_ARGS__)
# define _SDT_PROBEV_2(p, n) STAP_PROBE (p, n)
# define _SDT_PROBEV_3(p, n, a) STAP_PROBE1 (p, n, a)
# define _SDT_PROBEV_4(p, n, a, b) STAP_PROBE2 (p, n, a, b)
# define _SDT_PROBEV_5(p, n, a, b, c) STAP_PROBE3 (p, n, a, b, c)
# define _SDT_PROBEV_6(p, n, a, b, c, d) STAP_PROBE4 (p, n, a, b, c, d)
# define _SDT_PROBEV_7(p, n, a, b, c, d, e) STAP_PROBE5 (p, n, a, b, c, d, e)
# define _SDT_PROBEV_8(p, n, a, b, c, d, e, f) \
  STAP_PROBE6 (p, n, a, b, c, d, e, f)
# define _SDT_PROBEV_9(p, n, a, b, c, d, e, f, g) \
  STAP_PROBE7 (p, n, a, b, c, d, e, f, g)
# define _SDT_PROBEV_10(p, n, a, b, c, d, e, f, g, h) \
  STAP_PROBE8 (p, n, a, b, c, d, e, f, g, h)
# define _SDT_PROBEV_11(p, n, a, b, c, d, e, f, g, h, i) \
  STAP_PROBE9 (p, n, a, b, c, d, e, f, g, h, i)
# define _SDT_PROBEV_12(p, n, a, b, c, d, e, f, g, h, i, j) \
  STAP_PROBE10 (p, n, a, b, c, d, e, f, g, h, i, j)
# define _SDT_PROBEV_13(p, n, a, b, c, d, e, f, g, h, i, j, k) \
  STAP_PROBE11 (p, n, a, b, c, d, e, f, g, h, i, j, k)
# define _SDT_PROBEV_14(p, n, a, b, c, d, e, f, g, h, i, j, k, l) \
  STAP_PROBE12 (p, n, a, b, c, d, e, f, g, h, i, j, k, l)
#endif


/* ---- Probes inside asm statements (glibc, zlib) ---------------------

   asm ("insn1\n" STAP_PROBE_ASM (prov, name, %eax 4(%esi)) "insn2");
     puts a probe between two instructions; the arguments are assembler
     operands copied as written (write %%reg in an extended asm).
   asm ("..." STAP_PROBE_ASM (prov, name, STAP_PROBE_ASM_TEMPLATE (2)) "..."
        : : ..., STAP_PROBE_ASM_OPERANDS (2, x, y));
     takes the arguments from C values, sized and signed as in STAP_PROBE2.

   STAP_PROBE_ASM_TEMPLATE (n) expands to two comma-separated items; the
   count tells STAP_PROBE_ASM which form it was given. */

#ifndef __ASSEMBLER__
# ifdef _SDT_VARIADIC
#  define STAP_PROBE_ASM(provider, name, ...)                               \
  _SDT_CAT (_SDT_PROBE_ASM_, _SDT_NARGS (__VA_ARGS__)) (provider, name,     \
                                                         __VA_ARGS__)
#  define _SDT_PROBE_ASM_1(provider, name, text) \
  _SDT_ASM_NOTE (provider, name, "\t.asciz \"" #text "\"\n")
#  define _SDT_PROBE_ASM_2(provider, name, argtext, marker) \
  _SDT_ATT_TEXT _SDT_ASM_NOTE (provider, name, _SDT_ARGDIRS (argtext))
#  define STAP_PROBE_ASM_TEMPLATE(n) _SDT_ARGTEXT_##n, _SDT_TEMPLATE
#  define STAP_PROBE_ASM_OPERANDS(n, ...) _SDT_INPLACE_##n (__VA_ARGS__)
# else
#  define STAP_PROBE_ASM(provider, name, text) \
  _SDT_ASM_NOTE (provider, name, "\t.asciz \"" #text "\"\n")
# endif
#endif

#endif /* sys/sdt.h */
