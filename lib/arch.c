/* SPDX-License-Identifier: MIT */
/*
 * arch.c: the 18 targets, as tables: each machine's name, and what a
 * run-time probe stub is there.
 *
 * A stub is a function the run-time library calls with one argument, a
 * pointer to the probe's argument slots (8 bytes each, the value in the
 * first bytes of its slot, in the target's byte order).  It is the probe
 * instruction, then a return; where the ABI passes that pointer on the
 * stack (i386, m68k), a load into a register comes first, so that every
 * argument is "base register plus displacement" when the probe instruction
 * runs: the one memory operand every tracer reads (consumers.md).  The
 * operand is written as the target's GCC prints that memory operand (the
 * run-time tests compare with the compiler's own output).
 *
 * Instructions are given in units of the target's instruction width
 * (bytes on x86, halfwords on m68k and SuperH, words elsewhere), and
 * written in the target's byte order.
 *
 * Pure: no allocation, no output (the run-time library links it).
 */
#include "core.h"
#include "elf.h"

#include <stdio.h>

static const struct {
    unsigned machine;
    const char *name;
} machines[] = {
    {EM_X86_64, "x86-64"},    {EM_386, "i386"},        {EM_AARCH64, "AArch64"},
    {EM_ARM, "ARM"},          {EM_PPC64, "PowerPC64"}, {EM_PPC, "PowerPC"},
    {EM_S390, "S/390"},       {EM_RISCV, "RISC-V"},    {EM_MIPS, "MIPS"},
    {EM_SPARCV9, "SPARC V9"}, {EM_SPARC, "SPARC"},     {EM_SPARC32PLUS, "SPARC32+"},
    {EM_68K, "m68k"},         {EM_PARISC, "PA-RISC"},  {EM_ALPHA, "Alpha"},
    {EM_SH, "SuperH"},
};

const char *arch_machine_name(unsigned machine, char *buf, size_t len)
{
    for (size_t i = 0; i < sizeof machines / sizeof machines[0]; i++)
        if (machines[i].machine == machine)
            return machines[i].name;
    snprintf(buf, len, "machine %u", machine);
    return buf;
}

/* One row per target; elfclass 0 matches either class of the machine.  The
 * first row matching a target's machine and class is its stub.  Operands
 * are printf formats given the displacement (operand0 ignores it).  One
 * target per row, as written: */
/* clang-format off */
static const struct stub_arch stubs[] = {
    /* nop; ret.  The pointer is in %rdi.  libstapsdt's users read the first
     * byte of a stub and take 0x90 as "not traced" (a Go wrapper does), so
     * nothing may come before the nop. */
    {.name = "x86-64", .machine = EM_X86_64, .elfclass = ELFCLASS64, .unit = 1,
     .probe = {0x90}, .probe_len = 1, .epilogue = {0xc3}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "(%%rdi)", .operand = "%u(%%rdi)"},
    /* x32: the same code; GCC names the pointer %edi */
    {.name = "x32", .machine = EM_X86_64, .elfclass = ELFCLASS32, .unit = 1,
     .probe = {0x90}, .probe_len = 1, .epilogue = {0xc3}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "(%%edi)", .operand = "%u(%%edi)"},
    /* movl 4(%esp),%eax; nop; ret: cdecl passes the pointer on the stack */
    {.name = "i386", .machine = EM_386, .unit = 1,
     .prologue = {0x8b, 0x44, 0x24, 0x04}, .prologue_len = 4,
     .probe = {0x90}, .probe_len = 1, .epilogue = {0xc3}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "(%%eax)", .operand = "%u(%%eax)"},
    /* nop; ret */
    {.name = "arm64", .machine = EM_AARCH64, .unit = 4,
     .probe = {0xd503201f}, .probe_len = 1, .epilogue = {0xd65f03c0}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "[x0]", .operand = "[x0, %u]"},
    /* mov r0, r0 (the nop of every ARM architecture, v5 included); bx lr.
     * ARM code: a caller in Thumb code switches with blx. */
    {.name = "arm", .machine = EM_ARM, .unit = 4,
     .probe = {0xe1a00000}, .probe_len = 1, .epilogue = {0xe12fff1e}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "[r0]", .operand = "[r0, #%u]"},
    /* nop; blr.  GCC names general registers by number */
    {.name = "ppc64", .machine = EM_PPC64, .unit = 4,
     .probe = {0x60000000}, .probe_len = 1, .epilogue = {0x4e800020}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "0(3)", .operand = "%u(3)"},
    {.name = "powerpc", .machine = EM_PPC, .unit = 4,
     .probe = {0x60000000}, .probe_len = 1, .epilogue = {0x4e800020}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "0(3)", .operand = "%u(3)"},
    /* nop 0 (bc 0,0); br %r14.  64-bit s390's DT_HASH words are 8 bytes. */
    {.name = "s390x", .machine = EM_S390, .elfclass = ELFCLASS64, .unit = 2,
     .probe = {0x4700, 0x0000}, .probe_len = 2, .epilogue = {0x07fe}, .epilogue_len = 1,
     .align = 16, .hash_word = 8, .operand0 = "0(%%r2)", .operand = "%u(%%r2)"},
    /* 31-bit s390: the same code, 4-byte hash words */
    {.name = "s390", .machine = EM_S390, .elfclass = ELFCLASS32, .unit = 2,
     .probe = {0x4700, 0x0000}, .probe_len = 2, .epilogue = {0x07fe}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "0(%%r2)", .operand = "%u(%%r2)"},
    /* nop; ret, uncompressed */
    {.name = "riscv64", .machine = EM_RISCV, .unit = 4,
     .probe = {0x00000013}, .probe_len = 1, .epilogue = {0x00008067}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "0(a0)", .operand = "%u(a0)"},
    /* nop; jr $ra; nop (the delay slot).  ld.so relocates a GOT described
     * by DT_MIPS_* entries: the object has one (two reserved entries). */
    {.name = "mips", .machine = EM_MIPS, .unit = 4,
     .probe = {0x00000000}, .probe_len = 1, .epilogue = {0x03e00008, 0x00000000},
     .epilogue_len = 2, .align = 16, .hash_word = 4, .mips_got = true,
     .operand0 = "0($4)", .operand = "%u($4)"},
    /* nop; retl; nop (the delay slot).  No register window (a leaf, as GCC
     * -mflat compiles one): the pointer stays in %o0. */
    {.name = "sparc64", .machine = EM_SPARCV9, .unit = 4,
     .probe = {0x01000000}, .probe_len = 1, .epilogue = {0x81c3e008, 0x01000000},
     .epilogue_len = 2, .align = 16, .hash_word = 4, .operand0 = "[%%o0]", .operand = "[%%o0+%u]"},
    /* movea.l 4(%sp),%a0; nop; rts */
    {.name = "m68k", .machine = EM_68K, .unit = 2,
     .prologue = {0x206f, 0x0004}, .prologue_len = 2,
     .probe = {0x4e71}, .probe_len = 1, .epilogue = {0x4e75}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "(%%a0)", .operand = "%u(%%a0)"},
    /* nop (or %r0,%r0,%r0); bv,n %r0(%rp) */
    {.name = "hppa", .machine = EM_PARISC, .unit = 4,
     .probe = {0x08000240}, .probe_len = 1, .epilogue = {0xe840c002}, .epilogue_len = 1,
     .align = 16, .hash_word = 4, .operand0 = "0(%%r26)", .operand = "%u(%%r26)"},
    /* nop (bis $31,$31,$31); ret $31,($26),1.  DT_HASH words of 8 bytes. */
    {.name = "alpha", .machine = EM_ALPHA, .unit = 4,
     .probe = {0x47ff041f}, .probe_len = 1, .epilogue = {0x6bfa8001}, .epilogue_len = 1,
     .align = 16, .hash_word = 8, .operand0 = "0($16)", .operand = "%u($16)"},
    /* mov r4,r5; add #64,r5; nop; rts; nop (the delay slot).  @(disp,rN)
     * reaches 60 bytes at most: slots 8 to 11 are read from r5, as GCC
     * reads past the 60th byte (it adds 64 to a base register). */
    {.name = "sh4", .machine = EM_SH, .unit = 2,
     .prologue = {0x6543, 0x7540}, .prologue_len = 2,
     .probe = {0x0009}, .probe_len = 1, .epilogue = {0x000b, 0x0009}, .epilogue_len = 2,
     .align = 16, .hash_word = 4, .operand0 = "@r4", .operand = "@(%u,r4)",
     .far = 8, .far_operand0 = "@r5", .far_operand = "@(%u,r5)"},
};
/* clang-format on */

const struct stub_arch *stub_arch_for(const struct target *t)
{
    for (size_t i = 0; i < sizeof stubs / sizeof stubs[0]; i++)
        if (stubs[i].machine == t->machine &&
            (stubs[i].elfclass == 0 || stubs[i].elfclass == t->elfclass))
            return &stubs[i];
    return NULL;
}

size_t stub_size(const struct stub_arch *a)
{
    return (size_t)a->unit * (a->prologue_len + a->probe_len + a->epilogue_len);
}

/* A field of an ELF header in its byte order. */
static uint64_t ehdr_field(const unsigned char *e, size_t off, int width)
{
    uint64_t v = 0;
    for (int i = 0; i < width; i++)
        v = v << 8 | e[e[5] == ELFDATA2MSB ? off + (size_t)i : off + (size_t)(width - 1 - i)];
    return v;
}

int elf_header_target(const unsigned char *e, size_t len, struct target *t)
{
    if (len < 52 || memcmp(e, "\177ELF", 4) != 0 ||
        (e[4] != ELFCLASS32 && e[4] != ELFCLASS64) || (e[5] != ELFDATA2LSB && e[5] != ELFDATA2MSB))
        return -1;
    bool is64 = e[4] == ELFCLASS64;
    if (len < ELF_EHDR_SIZE(is64))
        return -1;
    t->elfclass = e[4];
    t->data = e[5];
    t->osabi = e[7];
    t->machine = (unsigned)ehdr_field(e, 18, 2);
    t->flags = (unsigned)ehdr_field(e, is64 ? 48 : 36, 4);
    return 0;
}
