/* SPDX-License-Identifier: MIT */
/*
 * elf.h: the ELF constants sdtkit reads and writes, in one place.
 *
 * Values from the System V gABI and the processor supplements (the same
 * numbers as glibc's <elf.h>, which is not used so that the tools build
 * against any C library and for any target).  Only what the code uses.
 */
#ifndef SDTKIT_LIB_ELF_H
#define SDTKIT_LIB_ELF_H

/* e_ident */
enum {
    ELFCLASS32 = 1,
    ELFCLASS64 = 2,
    ELFDATA2LSB = 1,
    ELFDATA2MSB = 2,
    EV_CURRENT = 1,
    ELFOSABI_NONE = 0,
    ELFOSABI_GNU = 3,
};

/* e_type */
enum {
    ET_REL = 1,
    ET_EXEC = 2,
    ET_DYN = 3,
};

/* e_machine */
enum {
    EM_SPARC = 2,
    EM_386 = 3,
    EM_68K = 4,
    EM_MIPS = 8,
    EM_PARISC = 15,
    EM_SPARC32PLUS = 18,
    EM_PPC = 20,
    EM_PPC64 = 21,
    EM_S390 = 22,
    EM_ARM = 40,
    EM_SH = 42,
    EM_SPARCV9 = 43,
    EM_X86_64 = 62,
    EM_AARCH64 = 183,
    EM_RISCV = 243,
    EM_ALPHA = 0x9026,
};

/* e_flags, per machine */
enum {
    EF_ARM_EABI_VER5 = 0x05000000,
    EF_RISCV_RVC = 0x1,
    EF_RISCV_FLOAT_ABI_SINGLE = 0x2,
    EF_RISCV_FLOAT_ABI_DOUBLE = 0x4,
    EF_RISCV_FLOAT_ABI_QUAD = 0x6,
    EF_RISCV_RVE = 0x8,
    EF_RISCV_TSO = 0x10,
    EF_MIPS_PIC = 0x2,
    EF_MIPS_CPIC = 0x4,
    EF_MIPS_ABI2 = 0x20, /* n32 */
    EF_MIPS_FP64 = 0x200,
    EF_MIPS_NAN2008 = 0x400,
    EF_MIPS_ABI_O32 = 0x1000,
    EF_PPC_RELOCATABLE_LIB = 0x8000,
    EF_SPARCV9_RMO = 0x2,
    EF_PARISC_ARCH_1_1 = 0x210,
    EF_SH1 = 0x1,
};

/* Sections */
enum {
    SHN_UNDEF = 0,
    SHN_ABS = 0xfff1,
    SHN_XINDEX = 0xffff,
    SHT_NULL = 0,
    SHT_PROGBITS = 1,
    SHT_SYMTAB = 2,
    SHT_STRTAB = 3,
    SHT_RELA = 4,
    SHT_HASH = 5,
    SHT_DYNAMIC = 6,
    SHT_NOTE = 7,
    SHT_NOBITS = 8,
    SHT_REL = 9,
    SHT_DYNSYM = 11,
    SHF_WRITE = 0x1,
    SHF_ALLOC = 0x2,
    SHF_EXECINSTR = 0x4,
};

/* Symbols */
enum {
    STB_LOCAL = 0,
    STB_GLOBAL = 1,
    STB_WEAK = 2,
    STT_NOTYPE = 0,
    STT_OBJECT = 1,
    STT_FUNC = 2,
    STT_SECTION = 3,
    STV_DEFAULT = 0,
    STV_HIDDEN = 2,
};

/* Program headers */
enum {
    PT_LOAD = 1,
    PT_DYNAMIC = 2,
    PT_NOTE = 4,
    PT_PHDR = 6,
    PF_X = 0x1,
    PF_W = 0x2,
    PF_R = 0x4,
};
#define PT_GNU_STACK 0x6474e551u

/* The dynamic section */
enum {
    DT_NULL = 0,
    DT_PLTGOT = 3,
    DT_HASH = 4,
    DT_STRTAB = 5,
    DT_SYMTAB = 6,
    DT_STRSZ = 10,
    DT_SYMENT = 11,
    DT_SONAME = 14,
};
#define DT_MIPS_RLD_VERSION 0x70000001u
#define DT_MIPS_FLAGS 0x70000005u
#define DT_MIPS_BASE_ADDRESS 0x70000006u
#define DT_MIPS_LOCAL_GOTNO 0x7000000au
#define DT_MIPS_SYMTABNO 0x70000011u
#define DT_MIPS_GOTSYM 0x70000013u

/* Notes */
enum {
    NT_GNU_BUILD_ID = 3,
    NT_GNU_PROPERTY_TYPE_0 = 5,
    NT_STAPSDT = 3, /* in a note named "stapsdt" */
};
#define GNU_PROPERTY_X86_FEATURE_1_AND 0xc0000002u     /* IBT = 1, SHSTK = 2 */
#define GNU_PROPERTY_AARCH64_FEATURE_1_AND 0xc0000000u /* BTI = 1, PAC = 2 */

/* Sizes of the fixed structures, per class (index: is64). */
#define ELF_EHDR_SIZE(is64) ((is64) ? 64u : 52u)
#define ELF_SHOFF_AT(is64) ((is64) ? 40u : 32u) /* e_shoff, an address-sized field */
#define ELF_SHDR_SIZE(is64) ((is64) ? 64u : 40u)
#define ELF_PHDR_SIZE(is64) ((is64) ? 56u : 32u)
#define ELF_SYM_SIZE(is64) ((is64) ? 24u : 16u)
#define ELF_DYN_SIZE(is64) ((is64) ? 16u : 8u)
#define ELF_REL_SIZE(is64) ((is64) ? 16u : 8u)
#define ELF_RELA_SIZE(is64) ((is64) ? 24u : 12u)

#endif
