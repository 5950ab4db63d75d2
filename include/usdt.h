/* SPDX-License-Identifier: MIT-0 */
/* <usdt.h> -- USDT probes with libbpf's usdt.h API.  sdtkit.

   The API of libbpf's single-file usdt.h (github.com/libbpf/usdt): the
   same macro names and meaning, the same ELF notes, the same semaphore
   symbols, sections and visibility, so a program switches headers without
   changing anything else, and objects built with either header link
   together.  The operands come from <sys/sdt.h>'s machinery
   (sys/sdt-operands.h), so they carry its guarantees.

     USDT (group, name, args...)                 0..12 arguments
     USDT_WITH_SEMA (group, name, args...)       with an implicit semaphore
     USDT_IS_ACTIVE (group, name)                is that semaphore set?
     USDT_DEFINE_SEMA (sema)                     an explicit semaphore,
     USDT_DECLARE_SEMA (sema)                    shared by several probes
     USDT_SEMA (sema)                            its C name
     USDT_WITH_EXPLICIT_SEMA (sema, group, name, args...)
     USDT_SEMA_IS_ACTIVE (sema)

   Semaphores.  The implicit one of group:name is the 2-byte object
   __usdt_sema_GROUP__NAME, defined by the probe (or by USDT_IS_ACTIVE) in
   assembly, weak and hidden in section .probes: every translation unit
   that uses it shares one per executable or shared library.  An explicit
   one is __usdt_sema_SEMA, defined once by USDT_DEFINE_SEMA, hidden, in
   .probes.  Both are `struct usdt_sema', an unsigned short the kernel
   increments while a tracer is attached.

   Options, defined before the first include of <usdt.h> or <sys/sdt.h>:

     USDT_NOP              the probe instruction(s), unquoted assembler
                           text.  Default: on x86-64 a 1-byte nop followed
                           by a 10-byte nop (the note points at the first:
                           every tracer traps there as before; a kernel
                           with the nop10 uprobe optimisation lets libbpf
                           attach to the second and skip the trap);
                           `nop 0' on s390; `nop' elsewhere.
     USDT_ARG_CONSTRAINT   the asm constraint of argument operands,
                           unquoted (as STAP_SDT_ARG_CONSTRAINT).

   Where this header differs from libbpf's on purpose:

   - Structs and unions of 1, 2, 4 or 8 bytes are arguments as in
     libbpf's header.  A wider or odd-sized struct, an __int128 or a long
     double gets an 8-byte note every tracer reads and a compile-time
     warning naming the argument (libbpf's header writes `16@...' or
     `24@...', which makes libbpf refuse to attach, gdb read no argument
     and bpftrace 0.17 abort); SDT_STRICT_ARGS makes it an error.
   - Operands gdb, libbpf and perf can read on every target (full register
     names on x86-64, no `sym(%rip)', ARM rN names, 8-byte values in memory
     on 32-bit targets): see <sys/sdt.h>.
   - No warning under -Wall -Wextra -Wpedantic in C99..C2x and
     C++11..C++20 (C89/C++98 have no variadic macros: not supported).
   - The note section joins the COMDAT group of the code around it (C++
     inline functions), and .stapsdt.base survives --gc-sections.  */

#ifndef __USDT_H
#define __USDT_H 1

/* The API level of libbpf's usdt.h this header provides. */
#define USDT_MAJOR_VERSION 0
#define USDT_MINOR_VERSION 1
#define USDT_PATCH_VERSION 0

/* USDT_ARG_CONSTRAINT is sdt-operands.h's STAP_SDT_ARG_CONSTRAINT. */
#if defined USDT_ARG_CONSTRAINT && !defined STAP_SDT_ARG_CONSTRAINT
# define STAP_SDT_ARG_CONSTRAINT USDT_ARG_CONSTRAINT
#endif

#include "sys/sdt-operands.h"

#ifdef __ASSEMBLER__
# error "<usdt.h> is for C and C++; assembly uses <sys/sdt.h>"
#endif

/* ---- The probe instruction ------------------------------------------ */

#ifndef USDT_NOP
# if defined __x86_64__
#  define USDT_NOP _SDT_NOP10
# else
#  define USDT_NOP _SDT_NOP
# endif
#endif


/* ---- Semaphores ------------------------------------------------------ */

struct usdt_sema { volatile unsigned short active; };

#define USDT_SEMA(sema) __usdt_sema_##sema
#define _USDT_IMPLICIT(group, name) __usdt_sema_##group##__##name
#define _USDT_IMPLICIT_X(group, name) _USDT_IMPLICIT (group, name)

/* Define the implicit semaphore in this assembly file unless an earlier
   probe did: weak, so every object file's copy folds into one; hidden, so
   each executable and shared library keeps its own (the note cannot be
   relocated against another module's symbol). */
#define _USDT_DEFINE_IMPLICIT(sym)                                          \
  __asm__ __volatile__ (                                                    \
    ".ifndef " _SDT_XSTR (sym) "\n"                                         \
    "\t.pushsection .probes,\"aw\",\"progbits\"\n"                          \
    "\t.weak " _SDT_XSTR (sym) "\n"                                         \
    "\t.hidden " _SDT_XSTR (sym) "\n"                                       \
    "\t.balign 2\n"                                                         \
    _SDT_XSTR (sym) ":\n"                                                   \
    "\t.zero 2\n"                                                           \
    "\t.type " _SDT_XSTR (sym) ",%object\n"                                 \
    "\t.size " _SDT_XSTR (sym) ",2\n"                                       \
    "\t.popsection\n"                                                       \
    ".endif\n");

/* The C name of a semaphore, whatever defined it (the asm label keeps C++
   from mangling it). */
#define _USDT_EXTERN(sym) \
  extern struct usdt_sema sym __asm__ (_SDT_XSTR (sym))

#define USDT_DEFINE_SEMA(sema)                                              \
  struct usdt_sema USDT_SEMA (sema) __asm__ (_SDT_XSTR (USDT_SEMA (sema)))  \
    __attribute__ ((__section__ (".probes"), __visibility__ ("hidden")))    \
    = { 0 }
#define USDT_DECLARE_SEMA(sema) _USDT_EXTERN (USDT_SEMA (sema))

/* A statement expression (GNU C and C++), marked so -Wpedantic accepts it. */
#define USDT_IS_ACTIVE(group, name)                                         \
  (__extension__ ({                                                         \
    _USDT_EXTERN (_USDT_IMPLICIT (group, name));                            \
    _USDT_DEFINE_IMPLICIT (_USDT_IMPLICIT (group, name))                    \
    _USDT_IMPLICIT (group, name).active > 0;                                \
  }))
#define USDT_SEMA_IS_ACTIVE(sema) (USDT_SEMA (sema).active > 0)


/* ---- The probe, by semaphore kind ------------------------------------

   kind is _USDT_KNONE, _USDT_KIMPLICIT or _USDT_KEXPLICIT (names no
   program defines as macros: they are pasted after being passed on); sym is the semaphore symbol (0 for
   NONE).  The semaphore is also an "m" operand, never printed: a reference
   the compiler sees, so LTO keeps it. */

#define _USDT_SEMDEF__USDT_KNONE(sym)
#define _USDT_SEMDEF__USDT_KIMPLICIT(sym) \
  _USDT_EXTERN (sym); _USDT_DEFINE_IMPLICIT (sym)
#define _USDT_SEMDEF__USDT_KEXPLICIT(sym)
#define _USDT_SEMOP__USDT_KNONE(sym)
#define _USDT_SEMOP__USDT_KIMPLICIT(sym) _SDT_SEM_OPERAND (sym)
#define _USDT_SEMOP__USDT_KEXPLICIT(sym) _SDT_SEM_OPERAND (sym)

/* The probe: sdt-operands.h's, with this header's nop and semaphore. */
#define _USDT_PROBE(kind, sym, group, name, n, arglist)                     \
  do {                                                                      \
    _USDT_SEMDEF_##kind (sym)                                               \
    _SDT_PROBE_BODY (_SDT_VXSTR (USDT_NOP), _SDT_XSTR (sym), group, name,   \
                     n, arglist, _USDT_SEMOP_##kind (sym))                  \
  } while (0)

/* Group and name travel inside `...' with the arguments, so USDT (g, n)
   is a non-empty variadic call, as strict C99..C17 and C++11 require;
   _SDT_NARGS counts them: 2..14 (group, name and 0..12 arguments). */
#define _USDT_CALL(kind, sym, ...) \
  _SDT_CAT (_USDT_ARGS_, _SDT_NARGS (__VA_ARGS__)) (kind, sym, __VA_ARGS__)

#define _USDT_ARGS_2(k, s, g, n) _USDT_PROBE (k, s, g, n, 0, ())
#define _USDT_ARGS_3(k, s, g, n, a) _USDT_PROBE (k, s, g, n, 1, (a))
#define _USDT_ARGS_4(k, s, g, n, a, b) _USDT_PROBE (k, s, g, n, 2, (a, b))
#define _USDT_ARGS_5(k, s, g, n, a, b, c) \
  _USDT_PROBE (k, s, g, n, 3, (a, b, c))
#define _USDT_ARGS_6(k, s, g, n, a, b, c, d) \
  _USDT_PROBE (k, s, g, n, 4, (a, b, c, d))
#define _USDT_ARGS_7(k, s, g, n, a, b, c, d, e) \
  _USDT_PROBE (k, s, g, n, 5, (a, b, c, d, e))
#define _USDT_ARGS_8(k, s, g, n, a, b, c, d, e, f) \
  _USDT_PROBE (k, s, g, n, 6, (a, b, c, d, e, f))
#define _USDT_ARGS_9(k, s, g, n, a, b, c, d, e, f, h) \
  _USDT_PROBE (k, s, g, n, 7, (a, b, c, d, e, f, h))
#define _USDT_ARGS_10(k, s, g, n, a, b, c, d, e, f, h, i) \
  _USDT_PROBE (k, s, g, n, 8, (a, b, c, d, e, f, h, i))
#define _USDT_ARGS_11(k, s, g, n, a, b, c, d, e, f, h, i, j) \
  _USDT_PROBE (k, s, g, n, 9, (a, b, c, d, e, f, h, i, j))
#define _USDT_ARGS_12(k, s, g, n, a, b, c, d, e, f, h, i, j, l) \
  _USDT_PROBE (k, s, g, n, 10, (a, b, c, d, e, f, h, i, j, l))
#define _USDT_ARGS_13(k, s, g, n, a, b, c, d, e, f, h, i, j, l, m) \
  _USDT_PROBE (k, s, g, n, 11, (a, b, c, d, e, f, h, i, j, l, m))
#define _USDT_ARGS_14(k, s, g, n, a, b, c, d, e, f, h, i, j, l, m, o) \
  _USDT_PROBE (k, s, g, n, 12, (a, b, c, d, e, f, h, i, j, l, m, o))


/* ---- The public probe macros ----------------------------------------- */

#define USDT(...) _USDT_CALL (_USDT_KNONE, 0, __VA_ARGS__)
#define USDT_WITH_SEMA(group, ...) \
  _USDT_CALL (_USDT_KIMPLICIT, _USDT_IMPLICIT_X (group, _USDT_FIRST (__VA_ARGS__)), \
              group, __VA_ARGS__)
#define USDT_WITH_EXPLICIT_SEMA(sema, ...) \
  _USDT_CALL (_USDT_KEXPLICIT, USDT_SEMA (sema), __VA_ARGS__)
#define _USDT_FIRST(...) _USDT_FIRST_ (__VA_ARGS__, _)
#define _USDT_FIRST_(first, ...) first

#endif /* usdt.h */
