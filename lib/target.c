/* SPDX-License-Identifier: MIT */
/*
 * target.c: the ELF identity of a compiler's target, as an object it
 * assembles would carry it: class, byte order, e_machine, OS ABI and the
 * e_flags a linker checks (ARM EABI version, PowerPC64 ELFv1/v2, RISC-V
 * float ABI and RVC, MIPS ISA and ABI ...).  One table reads predefined
 * macros, either from `$CC $CFLAGS -E -dM` or, for the host, from the
 * macros this program was compiled with, so both paths agree.
 */
#include "core.h"
#include "elf.h"
#include "triplets.h"

#include <stdio.h>
#include <stdlib.h>

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
        return ELFDATA2MSB;
    if (bo)
        return ELFDATA2LSB;
    if (defined(m, "__BIG_ENDIAN__") || defined(m, "__AARCH64EB__") || defined(m, "__ARMEB__"))
        return ELFDATA2MSB;
    return ELFDATA2LSB;
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

/* ---- the families, one row each ---- */

/* Class and flags beyond a row's constants, from more macros. */
typedef void fill_fn(const struct macros *m, struct target *t);

static void fill_ilp32(const struct macros *m, struct target *t)
{
    /* x32 and aarch64 ILP32 are ELF32 with the 64-bit machine */
    t->elfclass = defined(m, "__ILP32__") || defined(m, "_ILP32") ? ELFCLASS32 : ELFCLASS64;
}

static void fill_arm(const struct macros *m, struct target *t)
{
    /* hard- and soft-float alike: the assemblers (gas and clang's) record
     * the float ABI in .ARM.attributes, not in a relocatable object's
     * flags; ld sets the hard-float bit in the executable */
    if (defined(m, "__ARM_EABI__"))
        t->flags = EF_ARM_EABI_VER5;
}

static void fill_ppc64(const struct macros *m, struct target *t)
{
    /* the assembler records the ABI only when the code names it: GCC says
     * ".abiversion 2" for ELFv2 and nothing for ELFv1, so its ELFv1
     * objects carry 0, not 1 */
    t->flags = macro_num(m, "_CALL_ELF", 0) == 2 ? 2 : 0;
}

static void fill_ppc(const struct macros *m, struct target *t)
{
    /* GCC passes "-K PIC" to gas for PIC and PIE code (Debian's default),
     * which marks the object relocatable-lib; clang's own assembler does
     * not */
    if (defined(m, "__PIC__") && !defined(m, "__clang__"))
        t->flags = EF_PPC_RELOCATABLE_LIB;
}

static void fill_riscv(const struct macros *m, struct target *t)
{
    static const struct {
        const char *macro;
        unsigned flag;
    } bits[] = {
        {"__riscv_compressed", EF_RISCV_RVC},
        {"__riscv_float_abi_single", EF_RISCV_FLOAT_ABI_SINGLE},
        {"__riscv_float_abi_double", EF_RISCV_FLOAT_ABI_DOUBLE},
        {"__riscv_float_abi_quad", EF_RISCV_FLOAT_ABI_QUAD},
        {"__riscv_abi_rve", EF_RISCV_RVE},
        {"__riscv_ztso", EF_RISCV_TSO},
    };
    t->elfclass = macro_num(m, "__riscv_xlen", 64) == 32 ? ELFCLASS32 : ELFCLASS64;
    for (size_t i = 0; i < sizeof bits / sizeof bits[0]; i++)
        if (defined(m, bits[i].macro))
            t->flags |= bits[i].flag;
}

static void fill_mips(const struct macros *m, struct target *t)
{
    t->elfclass = mips_sim(m) == 3 ? ELFCLASS64 : ELFCLASS32;
    t->flags = mips_flags(m);
}

static void fill_sparc(const struct macros *m, struct target *t)
{
    /* what GCC's assembler writes for a data-only object */
    bool v9 = defined(m, "__arch64__");
    t->machine = v9 ? EM_SPARCV9 : EM_SPARC;
    t->elfclass = v9 ? ELFCLASS64 : ELFCLASS32;
    t->flags = v9 ? EF_SPARCV9_RMO : 0;
}

static void fill_hppa(const struct macros *m, struct target *t)
{
    t->elfclass = defined(m, "__LP64__") ? ELFCLASS64 : ELFCLASS32;
}

/* The first row whose macro the compiler defines is its family (so
 * __x86_64__ before __i386__, __powerpc64__ before __powerpc__, __s390x__
 * before __s390__).  X(macro, names, machine, class (0: fill decides),
 * flags, OS ABI, fill). */
#define FAMILIES(X)                                                                                \
    X("__x86_64__", "x86-64, x32", EM_X86_64, 0, 0, 0, fill_ilp32)                                 \
    X("__i386__", "i386", EM_386, ELFCLASS32, 0, 0, NULL)                                          \
    X("__aarch64__", "aarch64", EM_AARCH64, 0, 0, 0, fill_ilp32)                                   \
    X("__arm__", "arm", EM_ARM, ELFCLASS32, 0, 0, fill_arm)                                        \
    X("__powerpc64__", "ppc64", EM_PPC64, ELFCLASS64, 0, 0, fill_ppc64)                            \
    X("__powerpc__", "ppc", EM_PPC, ELFCLASS32, 0, 0, fill_ppc)                                    \
    X("__s390x__", "s390x", EM_S390, ELFCLASS64, 0, 0, NULL)                                       \
    X("__s390__", "s390", EM_S390, ELFCLASS32, 0, 0, NULL)                                         \
    X("__riscv", "riscv64, riscv32", EM_RISCV, 0, 0, 0, fill_riscv)                                \
    X("__mips__", "mips, mips64", EM_MIPS, 0, 0, 0, fill_mips)                                     \
    X("__sparc__", "sparc, sparc64", 0, 0, 0, 0, fill_sparc)                                       \
    X("__m68k__", "m68k", EM_68K, ELFCLASS32, 0, 0, NULL)                                          \
    /* PA-RISC 1.1, the GNU OS ABI: what Linux's assembler writes */                               \
    X("__hppa__", "hppa", EM_PARISC, 0, EF_PARISC_ARCH_1_1, ELFOSABI_GNU, fill_hppa)               \
    X("__alpha__", "alpha", EM_ALPHA, ELFCLASS64, 0, 0, NULL)                                      \
    /* a data-only object: the assembler marks it SH1, the base ISA */                             \
    X("__sh__", "sh", EM_SH, ELFCLASS32, EF_SH1, 0, NULL)

static const struct family {
    const char *macro;
    unsigned machine;
    int elfclass;
    unsigned flags;
    unsigned osabi;
    fill_fn *fill;
} families[] = {
#define ROW(macro, names, machine, elfclass, flags, osabi, fill)                                   \
    {macro, machine, elfclass, flags, osabi, fill},
    FAMILIES(ROW)
#undef ROW
};

/* ", x86-64, x32, i386, ..." from the same rows. */
#define NAMES(macro, names, machine, elfclass, flags, osabi, fill) ", " names
static const char unknown_target[] = "unknown target architecture (supported" FAMILIES(
    NAMES) "); pass an object file to take it from";
#undef NAMES

static int decide(const struct macros *m, struct target *t, const char **why)
{
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        const struct family *f = &families[i];
        if (!defined(m, f->macro))
            continue;
        *t = (struct target){f->elfclass, byte_order(m), f->machine, f->flags, f->osabi};
        if (f->fill)
            f->fill(m, t);
        assert(t->elfclass == ELFCLASS32 || t->elfclass == ELFCLASS64);
        return 0;
    }
    *why = unknown_target;
    return -1;
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
/* "#define NAME VALUE\n" for a macro this file was compiled with. */
#define HOST(name) "#define " #name " " SDTKIT_STR(name) "\n"

/* Every macro the families and their fill functions read. */
static const char host_macros[] =
#if defined __BYTE_ORDER__ && defined __ORDER_BIG_ENDIAN__ && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    "#define __BYTE_ORDER__ __ORDER_BIG_ENDIAN__\n"
#else
    "#define __BYTE_ORDER__ __ORDER_LITTLE_ENDIAN__\n"
#endif
#ifdef __ILP32__
    HOST(__ILP32__)
#endif
#ifdef _ILP32
        HOST(_ILP32)
#endif
#ifdef __LP64__
            HOST(__LP64__)
#endif
#ifdef __PIC__
                HOST(__PIC__)
#endif
#ifdef __clang__
                    HOST(__clang__)
#endif
#ifdef __x86_64__
                        HOST(__x86_64__)
#endif
#ifdef __i386__
                            HOST(__i386__)
#endif
#ifdef __aarch64__
                                HOST(__aarch64__)
#endif
#ifdef __arm__
                                    HOST(__arm__)
#endif
#ifdef __ARM_EABI__
                                        HOST(__ARM_EABI__)
#endif
#ifdef __powerpc64__
                                            HOST(__powerpc64__)
#endif
#ifdef __powerpc__
                                                HOST(__powerpc__)
#endif
#ifdef _CALL_ELF
                                                    HOST(_CALL_ELF)
#endif
#ifdef __s390x__
                                                        HOST(__s390x__)
#endif
#ifdef __s390__
                                                            HOST(__s390__)
#endif
#ifdef __riscv
                                                                HOST(__riscv)
#endif
#ifdef __riscv_xlen
                                                                    HOST(__riscv_xlen)
#endif
#ifdef __riscv_compressed
                                                                        HOST(__riscv_compressed)
#endif
#ifdef __riscv_float_abi_single
                                                                            HOST(
                                                                                __riscv_float_abi_single)
#endif
#ifdef __riscv_float_abi_double
                                                                                HOST(
                                                                                    __riscv_float_abi_double)
#endif
#ifdef __riscv_float_abi_quad
                                                                                    HOST(
                                                                                        __riscv_float_abi_quad)
#endif
#ifdef __riscv_abi_rve
                                                                                        HOST(
                                                                                            __riscv_abi_rve)
#endif
#ifdef __riscv_ztso
                                                                                            HOST(
                                                                                                __riscv_ztso)
#endif
#ifdef __mips__
                                                                                                HOST(
                                                                                                    __mips__)
#endif
#ifdef __mips
                                                                                                    HOST(
                                                                                                        __mips)
#endif
#ifdef _MIPS_SIM
                                                                                                        HOST(
                                                                                                            _MIPS_SIM)
#endif
#ifdef __mips_isa_rev
                                                                                                            HOST(
                                                                                                                __mips_isa_rev)
#endif
#ifdef __mips_abicalls
                                                                                                                HOST(
                                                                                                                    __mips_abicalls)
#endif
#ifdef __mips_nan2008
                                                                                                                    HOST(
                                                                                                                        __mips_nan2008)
#endif
#ifdef __mips_fpr
                                                                                                                        HOST(
                                                                                                                            __mips_fpr)
#endif
#ifdef __sparc__
                                                                                                                            HOST(
                                                                                                                                __sparc__)
#endif
#ifdef __arch64__
                                                                                                                                HOST(
                                                                                                                                    __arch64__)
#endif
#ifdef __m68k__
                                                                                                                                    HOST(
                                                                                                                                        __m68k__)
#endif
#ifdef __hppa__
                                                                                                                                        HOST(
                                                                                                                                            __hppa__)
#endif
#ifdef __alpha__
                                                                                                                                            HOST(
                                                                                                                                                __alpha__)
#endif
#ifdef __sh__
                                                                                                                                                HOST(
                                                                                                                                                    __sh__)
#endif
                                                                                                                                                    "";

int target_host(struct target *t, const char **why)
{
    return target_from_macros(host_macros, sizeof host_macros - 1, t, why);
}

/* ---- a GNU triplet: its compiler's macros (triplets.h) ---- */

static const struct triplet {
    const char *name;
    const char *macros;
} triplets[] = {
#define ROW(name, macros) {name, macros},
    SDT_TRIPLETS(ROW)
#undef ROW
};

#define NAME(name, macros) ", " name
static const char triplet_names[] = SDT_TRIPLETS(NAME);
#undef NAME

const char *target_triplets(void) { return triplet_names + 2; }

static const struct triplet *triplet_find(const char *s, size_t len)
{
    for (size_t i = 0; i < sizeof triplets / sizeof triplets[0]; i++)
        if (strlen(triplets[i].name) == len && memcmp(triplets[i].name, s, len) == 0)
            return &triplets[i];
    return NULL;
}

/* Debian's triplets have no vendor (aarch64-linux-gnu); GNU's canonical
 * ones do (aarch64-unknown-linux-gnu, x86_64-pc-linux-gnu), and i386 to
 * i786 are one target (Debian's is i686). */
static const struct triplet *triplet_lookup(const char *s)
{
    const struct triplet *row = triplet_find(s, strlen(s));
    if (row)
        return row;
    struct buf b = {0};
    const char *cpu_end = strchr(s, '-');
    const char *vendor_end = cpu_end ? strchr(cpu_end + 1, '-') : NULL;
    if (!cpu_end)
        return NULL;
    bool x86 =
        cpu_end - s == 4 && s[0] == 'i' && s[1] >= '3' && s[1] <= '7' && s[2] == '8' && s[3] == '6';
    buf_add(&b, x86 ? "i686" : s, x86 ? 4 : (size_t)(cpu_end - s));
    /* cpu-vendor-linux-*: a vendor before the kernel */
    bool vendor = vendor_end && strncmp(vendor_end, "-linux-", 7) == 0;
    buf_adds(&b, vendor ? vendor_end : cpu_end);
    row = triplet_find(b.data, b.len);
    buf_free(&b);
    return row;
}

int target_from_triplet(const char *triplet, struct target *t)
{
    const struct triplet *row = triplet_lookup(triplet);
    if (!row)
        return -1;
    const char *why = NULL;
    int rc = target_from_macros(row->macros, strlen(row->macros), t, &why);
    assert(rc == 0); /* every row is one of the families */
    return rc;
}

/* ---- -32 / -64 ---- */

int target_variant(struct target *t, int bits, const char **why)
{
    int want = bits == 64 ? ELFCLASS64 : ELFCLASS32;
    switch (t->machine) {
    case EM_X86_64:
    case EM_386:
        t->machine = want == ELFCLASS64 ? EM_X86_64 : EM_386;
        t->flags = 0;
        break;
    case EM_AARCH64:
    case EM_ARM:
        if (t->elfclass == want && (t->machine == EM_ARM) == (want == ELFCLASS32))
            return 0;
        t->machine = want == ELFCLASS64 ? EM_AARCH64 : EM_ARM;
        t->flags = want == ELFCLASS64 ? 0 : EF_ARM_EABI_VER5;
        break;
    case EM_PPC64:
    case EM_PPC:
        t->machine = want == ELFCLASS64 ? EM_PPC64 : EM_PPC;
        /* ELFv2 little-endian, ELFv1 (flags 0) big-endian */
        t->flags = want == ELFCLASS64 && t->data == ELFDATA2LSB ? 2u : 0u;
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

int target_from_cc(const char *cc, const struct strvec *flags, struct target *t)
{
    struct strvec argv = {0};
    struct buf out = {0};
    const char *why = NULL;
    int rc = -1;
    if (split_words(cc, &argv, &why) != 0 || argv.n == 0) {
        error("cannot use CC='%s': %s", cc, why ? why : "no command");
        goto done;
    }
    bool skip_next = false;
    for (size_t i = 0; i < flags->n; i++) {
        if (skip_next)
            skip_next = false;
        else if (!skip_cflag(flags->v[i], &skip_next))
            strvec_push(&argv, flags->v[i]);
    }
    static const char *const tail[] = {"-E", "-dM", "-x", "c", "/dev/null", NULL};
    for (int i = 0; tail[i]; i++)
        strvec_push(&argv, tail[i]);
    if (run_capture(argv.v, "asking $CC for its target", &out) != 0)
        goto done;
    if (target_from_macros(out.data ? out.data : "", out.len, t, &why) != 0) {
        error("CC='%s': %s", cc, why);
        goto done;
    }
    rc = 0;
done:
    buf_free(&out);
    strvec_free(&argv);
    return rc;
}

/* ---- for -v and messages ---- */

void target_describe(const struct target *t, char *out, size_t outlen)
{
    char machine[32];
    snprintf(out, outlen, "ELF%d %s-endian %s, e_flags 0x%x", t->elfclass == ELFCLASS64 ? 64 : 32,
             t->data == ELFDATA2MSB ? "big" : "little",
             arch_machine_name(t->machine, machine, sizeof machine), t->flags);
}
