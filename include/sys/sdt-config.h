/* SPDX-License-Identifier: MIT-0 */
/* <sys/sdt-config.h> -- assembler features used by <sys/sdt.h>.  sdtkit.

   SystemTap generates this file at configure time.  sdtkit decides the same
   things from the compiler's own predefined macros, so the header needs no
   configure step.  Define either macro before including <sys/sdt.h> to
   override the guess.  */

#ifndef _SYS_SDT_CONFIG_H
#define _SYS_SDT_CONFIG_H 1

/* sdtkit's version, the three numbers of the project's VERSION file, in
   <sys/sdt.h> and <usdt.h> alike.  SystemTap's and libbpf's headers define
   none of these: `#ifdef SDTKIT_VERSION_MAJOR' in a program, or `cc -E -dM'
   of an include, tells which header a build gets.  A new VERSION changes
   them too (tests/readme.bats compares).  */
#define SDTKIT_VERSION_MAJOR 0
#define SDTKIT_VERSION_MINOR 1
#define SDTKIT_VERSION_PATCH 0

/* 1 when the assembler understands the "?" section flag ("put this section
   in the group of the section being assembled"), which GNU as has had since
   2.26 (2016) and LLVM's integrated assembler since LLVM 11.  With it, the
   note of a probe inside a C++ inline function or template lands in that
   function's COMDAT group and is discarded with it by the linker.  */
#ifndef _SDT_ASM_SECTION_AUTOGROUP_SUPPORT
# define _SDT_ASM_SECTION_AUTOGROUP_SUPPORT 1
#endif

/* 1 when the assembler understands the "R" section flag (SHF_GNU_RETAIN):
   GNU as 2.36 and later, LLVM's integrated assembler 13 and later.  It keeps
   .stapsdt.base alive under --gc-sections with lld, gold and mold (nothing
   allocated refers to it, so they would otherwise discard it, and gdb then
   lists no probes).  GCC 11 shipped with binutils 2.36, so GCC 11 and clang
   13 are taken as the sign; older toolchains simply do without.  */
#ifndef _SDT_ASM_SECTION_RETAIN_SUPPORT
# if defined __clang__
#  if __clang_major__ >= 13
#   define _SDT_ASM_SECTION_RETAIN_SUPPORT 1
#  else
#   define _SDT_ASM_SECTION_RETAIN_SUPPORT 0
#  endif
# elif defined __GNUC__ && __GNUC__ >= 11
#  define _SDT_ASM_SECTION_RETAIN_SUPPORT 1
# else
#  define _SDT_ASM_SECTION_RETAIN_SUPPORT 0
# endif
#endif

#endif /* sys/sdt-config.h */
