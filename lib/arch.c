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
 * first row matching a target's machine and class is its stub. */
static const struct stub_arch stubs[] = {
    /* nop; ret.  The pointer is in %rdi.  libstapsdt's users read the first
     * byte of a stub and take 0x90 as "not traced" (a Go wrapper does), so
     * nothing may come before the nop. */
    {"x86-64", EM_X86_64, ELFCLASS64, 1, {0}, 0, {0x90}, 1, {0xc3}, 1, 16, "%u(%%rdi)"},
    /* x32: the same code; GCC names the pointer %edi */
    {"x32", EM_X86_64, ELFCLASS32, 1, {0}, 0, {0x90}, 1, {0xc3}, 1, 16, "%u(%%edi)"},
    /* movl 4(%esp),%eax; nop; ret: cdecl passes the pointer on the stack */
    {"i386", EM_386, 0, 1, {0x8b, 0x44, 0x24, 0x04}, 4, {0x90}, 1, {0xc3}, 1, 16, "%u(%%eax)"},
    /* nop; ret */
    {"arm64", EM_AARCH64, 0, 4, {0}, 0, {0xd503201f}, 1, {0xd65f03c0}, 1, 16, "[x0, %u]"},
    /* mov r0, r0 (the nop of every ARM architecture, v5 included); bx lr */
    {"arm", EM_ARM, 0, 4, {0}, 0, {0xe1a00000}, 1, {0xe12fff1e}, 1, 16, "[r0, #%u]"},
    /* nop; blr.  GCC names general registers by number */
    {"ppc64", EM_PPC64, 0, 4, {0}, 0, {0x60000000}, 1, {0x4e800020}, 1, 16, "%u(3)"},
    {"powerpc", EM_PPC, 0, 4, {0}, 0, {0x60000000}, 1, {0x4e800020}, 1, 16, "%u(3)"},
    /* nop 0 (bc 0,0); br %r14 */
    {"s390x", EM_S390, 0, 2, {0}, 0, {0x4700, 0x0000}, 2, {0x07fe}, 1, 16, "%u(%%r2)"},
    /* nop; ret, uncompressed */
    {"riscv64", EM_RISCV, 0, 4, {0}, 0, {0x00000013}, 1, {0x00008067}, 1, 16, "%u(a0)"},
    /* nop; jr $ra; nop (the delay slot) */
    {"mips", EM_MIPS, 0, 4, {0}, 0, {0x00000000}, 1, {0x03e00008, 0x00000000}, 2, 16, "%u($4)"},
    /* nop; retl; nop (the delay slot); a leaf has no register window: %o0 */
    {"sparc64",
     EM_SPARCV9,
     0,
     4,
     {0},
     0,
     {0x01000000},
     1,
     {0x81c3e008, 0x01000000},
     2,
     16,
     "[%%o0+%u]"},
    /* movea.l 4(%sp),%a0; nop; rts */
    {"m68k", EM_68K, 0, 2, {0x206f, 0x0004}, 2, {0x4e71}, 1, {0x4e75}, 1, 16, "%u(%%a0)"},
    /* nop (or %r0,%r0,%r0); bv,n %r0(%rp) */
    {"hppa", EM_PARISC, 0, 4, {0}, 0, {0x08000240}, 1, {0xe840c002}, 1, 16, "%u(%%r26)"},
    /* nop (bis $31,$31,$31); ret $31,($26),1 */
    {"alpha", EM_ALPHA, 0, 4, {0}, 0, {0x47ff041f}, 1, {0x6bfa8001}, 1, 16, "%u($16)"},
    /* nop; rts; nop (the delay slot) */
    {"sh4", EM_SH, 0, 2, {0}, 0, {0x0009}, 1, {0x000b, 0x0009}, 2, 16, "@(%u,r4)"},
};

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
