/* SPDX-License-Identifier: MIT */
/*
 * triplets.h: the 18 targets by their GNU triplets, as Debian names them
 * (its DEB_HOST_GNU_TYPE, and the prefix of its cross compilers and
 * binutils), each with what its compiler says of its target: the
 * predefined macros of Debian 12's TRIPLET-gcc that target.c's families
 * read (`TRIPLET-gcc -E -dM -x c /dev/null`, position-independent code
 * where it is that compiler's default).  So a triplet gives the object
 * that $CC=TRIPLET-gcc gives, bit for bit (tests/dtrace-object.bats).
 *
 * Two readers: target.c, through SDT_TRIPLETS, and make install, which
 * installs TRIPLET-dtrace beside dtrace for each row: keep one row a line,
 * its triplet first, as `    T("TRIPLET", ...`.
 */
#ifndef SDTKIT_LIB_TRIPLETS_H
#define SDTKIT_LIB_TRIPLETS_H

/* "#define NAME VALUE\n", as `cc -E -dM` writes it. */
#define SDT_M(name, value) "#define " #name " " #value "\n"
#define SDT_LE SDT_M(__BYTE_ORDER__, __ORDER_LITTLE_ENDIAN__)
#define SDT_BE SDT_M(__BYTE_ORDER__, __ORDER_BIG_ENDIAN__)

/* T(triplet, macros) */
/* clang-format off */
#define SDT_TRIPLETS(T) \
    T("x86_64-linux-gnu", SDT_LE SDT_M(__x86_64__, 1) SDT_M(__LP64__, 1) SDT_M(__PIC__, 2)) \
    T("i686-linux-gnu", SDT_LE SDT_M(__i386__, 1) SDT_M(__ILP32__, 1) SDT_M(__PIC__, 2)) \
    T("aarch64-linux-gnu", SDT_LE SDT_M(__aarch64__, 1) SDT_M(__LP64__, 1) SDT_M(__PIC__, 2)) \
    T("arm-linux-gnueabihf", SDT_LE SDT_M(__arm__, 1) SDT_M(__ARM_EABI__, 1) SDT_M(__PIC__, 2)) \
    T("arm-linux-gnueabi", SDT_LE SDT_M(__arm__, 1) SDT_M(__ARM_EABI__, 1) SDT_M(__PIC__, 2)) \
    T("powerpc64le-linux-gnu", SDT_LE SDT_M(__powerpc64__, 1) SDT_M(__powerpc__, 1) \
      SDT_M(_CALL_ELF, 2) SDT_M(__LP64__, 1) SDT_M(__PIC__, 2)) \
    T("powerpc64-linux-gnu", SDT_BE SDT_M(__powerpc64__, 1) SDT_M(__powerpc__, 1) \
      SDT_M(_CALL_ELF, 1) SDT_M(__LP64__, 1) SDT_M(__PIC__, 2)) \
    T("powerpc-linux-gnu", SDT_BE SDT_M(__powerpc__, 1) SDT_M(__PIC__, 2)) \
    T("s390x-linux-gnu", SDT_BE SDT_M(__s390x__, 1) SDT_M(__s390__, 1) SDT_M(__LP64__, 1) \
      SDT_M(__PIC__, 2)) \
    T("mips64el-linux-gnuabi64", SDT_LE SDT_M(__mips__, 1) SDT_M(__mips, 64) \
      SDT_M(__mips_isa_rev, 2) SDT_M(_MIPS_SIM, _ABI64) SDT_M(__mips_abicalls, 1) \
      SDT_M(__mips_fpr, 64) SDT_M(__LP64__, 1) SDT_M(__PIC__, 1)) \
    T("mipsel-linux-gnu", SDT_LE SDT_M(__mips__, 1) SDT_M(__mips, 32) SDT_M(__mips_isa_rev, 2) \
      SDT_M(_MIPS_SIM, _ABIO32) SDT_M(__mips_abicalls, 1) SDT_M(__mips_fpr, 0) \
      SDT_M(__PIC__, 1)) \
    T("riscv64-linux-gnu", SDT_LE SDT_M(__riscv, 1) SDT_M(__riscv_xlen, 64) \
      SDT_M(__riscv_compressed, 1) SDT_M(__riscv_float_abi_double, 1) SDT_M(__LP64__, 1) \
      SDT_M(__PIC__, 2)) \
    T("sparc64-linux-gnu", SDT_BE SDT_M(__sparc__, 1) SDT_M(__arch64__, 1) SDT_M(__LP64__, 1) \
      SDT_M(__PIC__, 2)) \
    T("x86_64-linux-gnux32", SDT_LE SDT_M(__x86_64__, 1) SDT_M(__ILP32__, 1)) \
    T("m68k-linux-gnu", SDT_BE SDT_M(__m68k__, 1)) \
    T("hppa-linux-gnu", SDT_BE SDT_M(__hppa__, 1)) \
    T("alpha-linux-gnu", SDT_LE SDT_M(__alpha__, 1) SDT_M(__LP64__, 1)) \
    T("sh4-linux-gnu", SDT_LE SDT_M(__sh__, 1))
/* clang-format on */

#endif
