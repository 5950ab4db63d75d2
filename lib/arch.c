/* SPDX-License-Identifier: MIT */
/*
 * arch.c: the machines of the 18 targets, as one table.
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
