/* SPDX-License-Identifier: MIT */
/*
 * target.c: which ELF flavour the -G object is for, when no input object
 * says so: class, byte order, e_machine and the e_flags a linker checks
 * (ARM EABI version and float ABI, PowerPC64 ELFv1/v2, RISC-V float ABI
 * and RVC).  One table reads predefined macros, either from `$CC $CFLAGS
 * -E -dM` or, for the host, from the macros this program was compiled
 * with, so both paths agree.
 */
#include "dtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    EM_386 = 3,
    EM_68K = 4,
    EM_MIPS = 8,
    EM_PARISC = 15,
    EM_SPARC32PLUS = 18,
    EM_PPC = 20,
    EM_PPC64 = 21,
    EM_S390 = 22,
    EM_ARM = 40,
    EM_X86_64 = 62,
    EM_SPARC = 2,
    EM_SH = 42,
    EM_SPARCV9 = 43,
    EM_AARCH64 = 183,
    EM_RISCV = 243,
    EM_ALPHA = 0x9026,
};

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
    EF_MIPS_ABI2 = 0x20,          /* n32 */
    EF_MIPS_FP64 = 0x200,
    EF_MIPS_NAN2008 = 0x400,
    EF_MIPS_ABI_O32 = 0x1000,
    EF_PPC_RELOCATABLE_LIB = 0x8000,
    EF_SPARCV9_RMO = 0x2,
    EF_PARISC_ARCH_1_1 = 0x210,
    EF_SH1 = 0x1,
    ELFOSABI_GNU = 3,
};

/* ---- predefined macros ---- */

struct macros {
    struct strmap map; /* name -> value (owned strings) */
};

static void macros_parse(struct macros *m, const char *text, size_t len)
{
    const char *p = text, *end = text + len;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if ((size_t)(eol - p) > 8 && memcmp(p, "#define ", 8) == 0) {
            const char *name = p + 8;
            const char *q = name;
            while (q < eol && *q != ' ' && *q != '(')
                q++;
            if (q < eol && *q == '(') { /* function-like: not ours */
                p = eol + 1;
                continue;
            }
            const char *value = q < eol ? q + 1 : eol;
            const char *vend = eol;
            while (vend > value && (vend[-1] == '\r' || vend[-1] == ' '))
                vend--;
            char *v = xstrndup(value, (size_t)(vend - value));
            if (strmap_put(&m->map, name, (size_t)(q - name), v))
                free(v);
        }
        p = eol + 1;
    }
}

static const char *macro(const struct macros *m, const char *name)
{
    return strmap_get(&m->map, name, strlen(name));
}

static bool defined(const struct macros *m, const char *name) { return macro(m, name) != NULL; }

static long macro_num(const struct macros *m, const char *name, long dflt)
{
    const char *v = macro(m, name);
    if (!v || !*v)
        return dflt;
    char *end;
    long n = strtol(v, &end, 0);
    while (*end == 'L' || *end == 'l' || *end == 'U' || *end == 'u')
        end++;
    return *end ? dflt : n;
}

static void macros_free(struct macros *m)
{
    for (size_t i = 0; i < m->map.cap; i++)
        free(m->map.slots[i].value);
    strmap_free(&m->map);
}

static int byte_order(const struct macros *m)
{
    const char *bo = macro(m, "__BYTE_ORDER__");
    if (bo && (strcmp(bo, "__ORDER_BIG_ENDIAN__") == 0 || strcmp(bo, "4321") == 0))
        return 2;
    if (bo)
        return 1;
    if (defined(m, "__BIG_ENDIAN__") || defined(m, "__AARCH64EB__") || defined(m, "__ARMEB__"))
        return 2;
    return 1;
}

/* _MIPS_SIM names the ABI: _ABIO32 (1), _ABIN32 (2) or _ABI64 (3). */
static long mips_sim(const struct macros *m)
{
    const char *v = macro(m, "_MIPS_SIM");
    if (v && strcmp(v, "_ABI64") == 0)
        return 3;
    if (v && strcmp(v, "_ABIN32") == 0)
        return 2;
    return v && strcmp(v, "_ABIO32") != 0 ? macro_num(m, "_MIPS_SIM", 1) : 1;
}

/* MIPS e_flags: ISA level (high nibble), ABI (o32; n32 is ABI2; n64 has no
   bit), PIC/CPIC, NaN encoding and FP64, as GCC's assembler writes them. */
static unsigned mips_flags(const struct macros *m)
{
    long isa = macro_num(m, "__mips", 1), rev = macro_num(m, "__mips_isa_rev", 0);
    long sim = mips_sim(m);
    unsigned f = 0, arch;
    if (rev >= 6)
        arch = isa == 64 ? 0xa : 0x9;
    else if (rev >= 2)
        arch = isa == 64 ? 0x8 : 0x7;
    else if (isa == 64 || isa == 32)
        arch = isa == 64 ? 0x6 : 0x5;
    else
        arch = isa >= 1 && isa <= 5 ? (unsigned)(isa - 1) : 0;
    f |= arch << 28;
    if (sim == 1)
        f |= EF_MIPS_ABI_O32;
    else if (sim == 2)
        f |= EF_MIPS_ABI2;
    if (defined(m, "__mips_abicalls") || defined(m, "__PIC__"))
        f |= EF_MIPS_CPIC;
    if (defined(m, "__PIC__"))
        f |= EF_MIPS_PIC;
    if (defined(m, "__mips_nan2008"))
        f |= EF_MIPS_NAN2008;
    if (sim == 1 && macro_num(m, "__mips_fpr", 32) == 64)
        f |= EF_MIPS_FP64;
    return f;
}

static int decide(const struct macros *m, struct target *t, const char **why)
{
    bool ilp32 = defined(m, "__ILP32__") || defined(m, "_ILP32");
    memset(t, 0, sizeof *t);
    t->data = byte_order(m);

    if (defined(m, "__x86_64__")) {
        t->machine = EM_X86_64;
        t->elfclass = ilp32 ? 1 : 2; /* x32 is ELF32 with EM_X86_64 */
    } else if (defined(m, "__i386__")) {
        t->machine = EM_386;
        t->elfclass = 1;
    } else if (defined(m, "__aarch64__")) {
        t->machine = EM_AARCH64;
        t->elfclass = ilp32 ? 1 : 2;
    } else if (defined(m, "__arm__")) {
        t->machine = EM_ARM;
        t->elfclass = 1;
        /* hard- and soft-float alike: the assemblers (gas and clang's)
         * record the float ABI in .ARM.attributes, not in a relocatable
         * object's flags; ld sets the hard-float bit in the executable */
        if (defined(m, "__ARM_EABI__"))
            t->flags = EF_ARM_EABI_VER5;
    } else if (defined(m, "__powerpc64__")) {
        t->machine = EM_PPC64;
        t->elfclass = 2;
        /* the assembler records the ABI only when the code names it:
         * GCC says ".abiversion 2" for ELFv2 and nothing for ELFv1, so
         * its ELFv1 objects carry 0, not 1 */
        t->flags = macro_num(m, "_CALL_ELF", 0) == 2 ? 2 : 0;
    } else if (defined(m, "__powerpc__")) {
        t->machine = EM_PPC;
        t->elfclass = 1;
        /* GCC passes "-K PIC" to gas for PIC and PIE code (Debian's
         * default), which marks the object relocatable-lib; clang's own
         * assembler does not */
        if (defined(m, "__PIC__") && !defined(m, "__clang__"))
            t->flags = EF_PPC_RELOCATABLE_LIB;
    } else if (defined(m, "__s390x__")) {
        t->machine = EM_S390;
        t->elfclass = 2;
    } else if (defined(m, "__s390__")) {
        t->machine = EM_S390;
        t->elfclass = 1;
    } else if (defined(m, "__riscv")) {
        t->machine = EM_RISCV;
        t->elfclass = macro_num(m, "__riscv_xlen", 64) == 32 ? 1 : 2;
        if (defined(m, "__riscv_compressed"))
            t->flags |= EF_RISCV_RVC;
        if (defined(m, "__riscv_float_abi_single"))
            t->flags |= EF_RISCV_FLOAT_ABI_SINGLE;
        else if (defined(m, "__riscv_float_abi_double"))
            t->flags |= EF_RISCV_FLOAT_ABI_DOUBLE;
        else if (defined(m, "__riscv_float_abi_quad"))
            t->flags |= EF_RISCV_FLOAT_ABI_QUAD;
        if (defined(m, "__riscv_abi_rve"))
            t->flags |= EF_RISCV_RVE;
        if (defined(m, "__riscv_ztso"))
            t->flags |= EF_RISCV_TSO;
    } else if (defined(m, "__mips__")) {
        t->machine = EM_MIPS;
        t->elfclass = mips_sim(m) == 3 ? 2 : 1;
        t->flags = mips_flags(m);
    } else if (defined(m, "__sparc__")) {
        /* what GCC's assembler writes for a data-only object */
        bool v9 = defined(m, "__arch64__");
        t->machine = v9 ? EM_SPARCV9 : EM_SPARC;
        t->elfclass = v9 ? 2 : 1;
        t->flags = v9 ? EF_SPARCV9_RMO : 0;
    } else if (defined(m, "__m68k__")) {
        t->machine = EM_68K;
        t->elfclass = 1;
    } else if (defined(m, "__hppa__")) {
        /* PA-RISC 1.1, the GNU OS ABI: what Linux's assembler writes */
        t->machine = EM_PARISC;
        t->elfclass = defined(m, "__LP64__") ? 2 : 1;
        t->flags = EF_PARISC_ARCH_1_1;
        t->osabi = ELFOSABI_GNU;
    } else if (defined(m, "__alpha__")) {
        t->machine = EM_ALPHA;
        t->elfclass = 2;
    } else if (defined(m, "__sh__")) {
        /* a data-only object: the assembler marks it SH1, the base ISA */
        t->machine = EM_SH;
        t->elfclass = 1;
        t->flags = EF_SH1;
    } else {
        *why = "unknown target architecture (supported: x86-64, x32, i386, aarch64, arm, "
               "ppc64, ppc, s390x, s390, riscv64, riscv32, mips, mips64, sparc, sparc64, "
               "m68k, hppa, alpha, sh); pass an object file to take it from";
        return -1;
    }
    return 0;
}

int target_from_macros(const char *text, size_t len, struct target *t, const char **why)
{
    struct macros m = {0};
    macros_parse(&m, text, len);
    int rc = decide(&m, t, why);
    macros_free(&m);
    return rc;
}

/* ---- the host: the same table, fed with our own predefined macros ---- */

#define SDTKIT_STR_(x) #x
#define SDTKIT_STR(x) SDTKIT_STR_(x)

static const char host_macros[] =
#if defined __BYTE_ORDER__ && defined __ORDER_BIG_ENDIAN__ && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    "#define __BYTE_ORDER__ __ORDER_BIG_ENDIAN__\n"
#else
    "#define __BYTE_ORDER__ __ORDER_LITTLE_ENDIAN__\n"
#endif
#ifdef __ILP32__
    "#define __ILP32__ 1\n"
#endif
#ifdef __x86_64__
    "#define __x86_64__ 1\n"
#endif
#ifdef __i386__
    "#define __i386__ 1\n"
#endif
#ifdef __aarch64__
    "#define __aarch64__ 1\n"
#endif
#ifdef __arm__
    "#define __arm__ 1\n"
#endif
#ifdef __ARM_EABI__
    "#define __ARM_EABI__ 1\n"
#endif
#ifdef __ARM_PCS_VFP
    "#define __ARM_PCS_VFP 1\n"
#endif
#ifdef __powerpc64__
    "#define __powerpc64__ 1\n"
#endif
#ifdef __powerpc__
    "#define __powerpc__ 1\n"
#endif
#ifdef _CALL_ELF
    "#define _CALL_ELF " SDTKIT_STR(_CALL_ELF) "\n"
#endif
#ifdef __s390x__
    "#define __s390x__ 1\n"
#endif
#ifdef __s390__
    "#define __s390__ 1\n"
#endif
#ifdef __riscv
    "#define __riscv 1\n"
#endif
#ifdef __riscv_xlen
    "#define __riscv_xlen " SDTKIT_STR(__riscv_xlen) "\n"
#endif
#ifdef __riscv_compressed
    "#define __riscv_compressed 1\n"
#endif
#ifdef __riscv_float_abi_single
    "#define __riscv_float_abi_single 1\n"
#endif
#ifdef __riscv_float_abi_double
    "#define __riscv_float_abi_double 1\n"
#endif
#ifdef __riscv_float_abi_quad
    "#define __riscv_float_abi_quad 1\n"
#endif
#ifdef __riscv_abi_rve
    "#define __riscv_abi_rve 1\n"
#endif
    "";

int target_host(struct target *t, const char **why)
{
    return target_from_macros(host_macros, sizeof host_macros - 1, t, why);
}

/* ---- -32 / -64 ---- */

int target_variant(struct target *t, int bits, const char **why)
{
    int want = bits == 64 ? 2 : 1;
    switch (t->machine) {
    case EM_X86_64:
    case EM_386:
        t->machine = want == 2 ? EM_X86_64 : EM_386;
        t->flags = 0;
        break;
    case EM_AARCH64:
    case EM_ARM:
        if (t->elfclass == want && (t->machine == EM_ARM) == (want == 1))
            return 0;
        t->machine = want == 2 ? EM_AARCH64 : EM_ARM;
        t->flags = want == 2 ? 0 : EF_ARM_EABI_VER5;
        break;
    case EM_PPC64:
    case EM_PPC:
        t->machine = want == 2 ? EM_PPC64 : EM_PPC;
        t->flags = want == 2 && t->data == 1 ? 2u : 0u; /* ELFv2 little-endian, ELFv1 0 */
        break;
    case EM_S390:
    case EM_RISCV:
        break;
    default:
        *why = "-32/-64: no known 32/64-bit pair for this machine";
        return -1;
    }
    t->elfclass = want;
    return 0;
}

/* ---- asking $CC ---- */

/* CFLAGS words that would make `cc -E -dM` write files or stop early. */
static bool skip_cflag(const char *w, bool *skip_next)
{
    static const char *const with_arg[] = {"-o", "-MF", "-MT", "-MQ", NULL};
    for (int i = 0; with_arg[i]; i++) {
        if (strcmp(w, with_arg[i]) == 0) {
            *skip_next = true;
            return true;
        }
    }
    return strncmp(w, "-M", 2) == 0 || strncmp(w, "-o", 2) == 0 || strcmp(w, "-c") == 0 ||
           strcmp(w, "-S") == 0 || strcmp(w, "-E") == 0 || strncmp(w, "-save-temps", 11) == 0 ||
           strncmp(w, "-Wp,", 4) == 0;
}

int target_from_cc(const char *cc, const char *cflags, struct target *t)
{
    struct strvec argv = {0}, flags = {0};
    const char *why = NULL;
    int rc = -1;
    if (split_words(cc, &argv, &why) != 0 || argv.n == 0) {
        error("cannot use CC='%s': %s", cc, why ? why : "no command");
        goto done;
    }
    if (cflags && split_words(cflags, &flags, &why) != 0) {
        error("cannot use CFLAGS: %s", why);
        goto done;
    }
    bool skip_next = false;
    for (size_t i = 0; i < flags.n; i++) {
        if (skip_next) {
            skip_next = false;
            continue;
        }
        if (!skip_cflag(flags.v[i], &skip_next))
            strvec_push(&argv, flags.v[i]);
    }
    const char *tail[] = {"-E", "-dM", "-x", "c", "/dev/null", NULL};
    for (int i = 0; tail[i]; i++)
        strvec_push(&argv, tail[i]);

    struct buf out = {0};
    if (run_capture(argv.v, "asking $CC for its target", &out) == 0) {
        if (target_from_macros(out.data ? out.data : "", out.len, t, &why) == 0)
            rc = 0;
        else
            error("CC='%s': %s", cc, why);
    }
    buf_free(&out);
done:
    strvec_free(&argv);
    strvec_free(&flags);
    return rc;
}

/* ---- for -v ---- */

void target_describe(const struct target *t, char *out, size_t outlen)
{
    const char *name;
    switch (t->machine) {
    case EM_386: name = "i386"; break;
    case EM_PPC: name = "PowerPC"; break;
    case EM_PPC64: name = "PowerPC64"; break;
    case EM_S390: name = "S/390"; break;
    case EM_ARM: name = "ARM"; break;
    case EM_X86_64: name = "x86-64"; break;
    case EM_AARCH64: name = "AArch64"; break;
    case EM_RISCV: name = "RISC-V"; break;
    default: name = NULL; break;
    }
    char machine[32];
    if (!name) {
        snprintf(machine, sizeof machine, "machine %u", t->machine);
        name = machine;
    }
    snprintf(out, outlen, "ELF%d %s-endian %s, e_flags 0x%x", t->elfclass == 2 ? 64 : 32,
             t->data == 2 ? "big" : "little", name, t->flags);
}
