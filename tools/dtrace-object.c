/* SPDX-License-Identifier: MIT */
/*
 * dtrace-object.c: the -G object, an ELF relocatable file written byte by
 * byte (no compiler, no temporary source file) with lib/elfwrite.c.
 *
 *   [0] NULL
 *   [1] .probes             PROGBITS, WA, align 2: one zeroed unsigned short
 *                           per semaphore (absent when there are no probes)
 *   [.] .note.GNU-stack     empty: the stack need not be executable
 *   [.] .note.gnu.property  x86 and AArch64 only: IBT+SHSTK / BTI+PAC.  The
 *                           object holds no code, so it is compatible with
 *                           every control-flow protection; without the note
 *                           the linker would drop the program's marking
 *   [.] .symtab .strtab .shstrtab
 *
 * Each semaphore is a global STT_OBJECT of size 2 named
 * provider_probe_semaphore, STV_HIDDEN like the header declares it; with
 * STAP_SDT_V2 it has default visibility, with STAP_SDT_V1 it is called
 * probe_semaphore (one per distinct name).  Nothing in the file depends on
 * time, paths or memory contents: the same input gives the same bytes.
 */
#include "dtrace.h"

#include "../lib/elf.h"

#include <stdlib.h>

/* The semaphore names, in probe order, each once, as one string table
 * (after its leading NUL) and the offset of each name in it. */
struct semaphores {
    struct buf strtab;
    uint32_t *name;
    size_t n;
};

static void collect_semaphores(const struct program *prog, enum semaphore_style style,
                               struct semaphores *sems)
{
    struct strmap seen = {0};
    struct buf name = {0};
    strmap_reserve(&seen, prog->nprobes);
    sems->name = xreallocarray(NULL, prog->nprobes ? prog->nprobes : 1, sizeof *sems->name);
    buf_addc(&sems->strtab, '\0');
    for (size_t i = 0; i < prog->nproviders; i++) {
        const struct provider *pv = prog->providers[i];
        for (size_t j = 0; j < pv->nprobes; j++) {
            name.len = 0;
            if (style == SEM_V1)
                buf_cat(&name, pv->probes[j]->name, "_semaphore", (char *)NULL);
            else
                buf_add(&name, pv->probes[j]->semaphore.s, pv->probes[j]->semaphore.len);
            if (strmap_put(&seen, name.data, name.len, sems))
                continue;
            sems->name[sems->n++] = (uint32_t)sems->strtab.len;
            buf_add(&sems->strtab, name.data, name.len + 1);
        }
    }
    buf_free(&name);
    strmap_free(&seen);
}

static uint32_t gnu_property_type(unsigned machine)
{
    if (machine == EM_X86_64 || machine == EM_386)
        return GNU_PROPERTY_X86_FEATURE_1_AND;
    if (machine == EM_AARCH64)
        return GNU_PROPERTY_AARCH64_FEATURE_1_AND;
    return 0;
}

/* The sections, in file order, and where each one that has contents is. */
struct layout {
    struct elf_section sec[8];
    size_t n;
    size_t probes, prop, symtab, strtab, shstrtab; /* indexes; 0 when absent */
    uint32_t prop_type;
    uint64_t prop_desc; /* the property note's descriptor size */
    uint64_t shoff;
    uint64_t size; /* of the whole file */
};

static size_t add_section(struct layout *lo, struct elf_section s)
{
    assert(lo->n < sizeof lo->sec / sizeof lo->sec[0]);
    lo->sec[lo->n] = s;
    return lo->n++;
}

static void lay_out(const struct target *t, const struct semaphores *sems, struct layout *lo)
{
    bool is64 = t->elfclass == ELFCLASS64;
    uint64_t word = is64 ? 8 : 4;
    memset(lo, 0, sizeof *lo);
    lo->n = 1; /* [0] is the null section */
    if (sems->n)
        lo->probes = add_section(lo, (struct elf_section){.name = ".probes",
                                                          .type = SHT_PROGBITS,
                                                          .flags = SHF_ALLOC | SHF_WRITE,
                                                          .size = 2 * sems->n,
                                                          .align = 2});
    add_section(lo,
                (struct elf_section){.name = ".note.GNU-stack", .type = SHT_PROGBITS, .align = 1});
    lo->prop_type = gnu_property_type(t->machine);
    lo->prop_desc = align_up(12, word); /* pr_type, pr_datasz, pr_data, padding */
    if (lo->prop_type)
        lo->prop = add_section(lo, (struct elf_section){.name = ".note.gnu.property",
                                                        .type = SHT_NOTE,
                                                        .flags = SHF_ALLOC,
                                                        .size = 16 + lo->prop_desc,
                                                        .align = word});
    lo->symtab = lo->n;
    lo->strtab = lo->n + 1;
    add_section(lo, (struct elf_section){.name = ".symtab",
                                         .type = SHT_SYMTAB,
                                         .size = ELF_SYM_SIZE(is64) * (sems->n + 1),
                                         .link = (uint32_t)lo->strtab,
                                         .info = 1,
                                         .align = word,
                                         .entsize = ELF_SYM_SIZE(is64)});
    add_section(lo,
                (struct elf_section){
                    .name = ".strtab", .type = SHT_STRTAB, .size = sems->strtab.len, .align = 1});
    lo->shstrtab =
        add_section(lo, (struct elf_section){.name = ".shstrtab", .type = SHT_STRTAB, .align = 1});
    lo->shoff = elf_layout(lo->sec, lo->n, lo->shstrtab, ELF_EHDR_SIZE(is64), is64);
    lo->size = lo->shoff + lo->n * ELF_SHDR_SIZE(is64);
}

static void write_contents(struct elfw *w, const struct layout *lo, const struct semaphores *sems,
                           enum semaphore_style style)
{
    const struct elf_section *sec = lo->sec;
    if (lo->probes)
        elfw_pad_to(w, sec[lo->probes].offset + sec[lo->probes].size); /* zeros */
    if (lo->prop) {
        elfw_pad_to(w, sec[lo->prop].offset);
        elfw_note_head(w, "GNU", (uint32_t)lo->prop_desc, NT_GNU_PROPERTY_TYPE_0);
        elfw_u32(w, lo->prop_type);
        elfw_u32(w, 4); /* pr_datasz */
        elfw_u32(w, 3); /* both feature bits */
        elfw_pad_to(w, sec[lo->prop].offset + sec[lo->prop].size);
    }
    elfw_pad_to(w, sec[lo->symtab].offset);
    elfw_sym(w, 0, 0, 0, 0, SHN_UNDEF, 0, 0);
    unsigned other = style == SEM_HIDDEN ? STV_HIDDEN : STV_DEFAULT;
    for (size_t i = 0; i < sems->n; i++)
        elfw_sym(w, sems->name[i], STB_GLOBAL, STT_OBJECT, other, (unsigned)lo->probes, 2 * i, 2);
    elfw_pad_to(w, sec[lo->strtab].offset);
    elfw_bytes(w, sems->strtab.data, sems->strtab.len);
    elfw_pad_to(w, sec[lo->shstrtab].offset);
    elfw_shstrtab(w, sec, lo->n);
}

/*
 * Per probe at most one semaphore: two bytes of .probes, a symbol (24 bytes
 * in ELF64) and its name, at most the provider's and the probe's names and
 * "_semaphore"; around less than 1 KiB of headers, section headers,
 * .note.gnu.property, .shstrtab and alignment.
 */
uint64_t object_size_bound(const struct program *prog)
{
    uint64_t n = 1024;
    for (size_t i = 0; i < prog->nproviders; i++) {
        const struct provider *pv = prog->providers[i];
        uint64_t pvlen = strlen(pv->name);
        for (size_t j = 0; j < pv->nprobes; j++)
            n += 2 + 24 + pvlen + strlen(pv->probes[j]->name) + 12;
    }
    return n;
}

void emit_object(const struct program *prog, const struct target *t, enum semaphore_style style,
                 struct buf *out)
{
    struct semaphores sems = {{0}, NULL, 0};
    struct layout lo;
    collect_semaphores(prog, style, &sems);
    lay_out(t, &sems, &lo);
    assert(lo.size <= object_size_bound(prog));

    buf_reserve(out, (size_t)lo.size);
    struct elfw w;
    elfw_init(&w, t, out->data + out->len, (size_t)lo.size);
    elfw_ehdr(&w, t, ET_REL, 0, 0, 0, lo.shoff, lo.n, lo.shstrtab);
    write_contents(&w, &lo, &sems, style);
    elfw_pad_to(&w, lo.shoff);
    for (size_t i = 0; i < lo.n; i++)
        elfw_shdr(&w, &lo.sec[i]);
    assert(w.len == lo.size);
    out->len += w.len;
    out->data[out->len] = '\0';

    free(sems.name);
    buf_free(&sems.strtab);
}
