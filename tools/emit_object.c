/* SPDX-License-Identifier: MIT */
/*
 * emit_object.c: the -G object, an ELF relocatable file written byte by
 * byte (no compiler, no temporary source file).
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

#include <stdlib.h>
#include <string.h>

enum {
    SHT_PROGBITS = 1,
    SHT_SYMTAB = 2,
    SHT_STRTAB = 3,
    SHT_NOTE = 7,
    SHF_WRITE = 1,
    SHF_ALLOC = 2,
    STB_GLOBAL = 1,
    STT_OBJECT = 1,
    STV_DEFAULT = 0,
    STV_HIDDEN = 2,
    NT_GNU_PROPERTY_TYPE_0 = 5,
    EM_386 = 3,
    EM_X86_64 = 62,
    EM_AARCH64 = 183,
};

#define GNU_PROPERTY_X86_FEATURE_1_AND 0xc0000002u     /* IBT = 1, SHSTK = 2 */
#define GNU_PROPERTY_AARCH64_FEATURE_1_AND 0xc0000000u /* BTI = 1, PAC = 2 */

struct writer {
    struct buf *out;
    size_t base; /* where the object starts in out */
    int data;
    bool is64;
};

static void put(struct writer *w, uint64_t v, int width)
{
    unsigned char b[8];
    for (int i = 0; i < width; i++) {
        int shift = w->data == 2 ? 8 * (width - 1 - i) : 8 * i;
        b[i] = (unsigned char)(v >> shift);
    }
    buf_add(w->out, b, (size_t)width);
}

static void put16(struct writer *w, uint64_t v) { put(w, v, 2); }
static void put32(struct writer *w, uint64_t v) { put(w, v, 4); }
static void put_addr(struct writer *w, uint64_t v) { put(w, v, w->is64 ? 8 : 4); }

/* Zeros up to offset off of the object (the layout never goes backwards). */
static void pad_to(struct writer *w, size_t off) { buf_zero(w->out, w->base + off - w->out->len); }

static size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }

/* The semaphore names, in probe order, each once. */
static size_t collect_semaphores(const struct program *prog, enum semaphore_style style,
                                 struct strvec *names)
{
    struct strmap seen = {0};
    struct buf name = {0};
    strmap_reserve(&seen, prog->nprobes);
    for (size_t i = 0; i < prog->nproviders; i++) {
        const struct provider *pv = prog->providers[i];
        for (size_t j = 0; j < pv->nprobes; j++) {
            name.len = 0;
            if (style == SEM_V1)
                buf_cat(&name, pv->probes[j]->name, "_semaphore", (char *)NULL);
            else
                probe_semaphore_name(pv->probes[j], &name);
            if (!strmap_put(&seen, name.data, name.len, names))
                strvec_push(names, name.data);
        }
    }
    buf_free(&name);
    strmap_free(&seen);
    return names->n;
}

struct section {
    const char *name;
    uint32_t name_off;
    uint32_t type;
    uint64_t flags;
    size_t offset;
    size_t size;
    uint32_t link;
    uint32_t info;
    size_t align;
    size_t entsize;
};

static void put_shdr(struct writer *w, const struct section *s)
{
    put32(w, s->name_off);
    put32(w, s->type);
    put_addr(w, s->flags);
    put_addr(w, 0); /* sh_addr */
    put_addr(w, s->offset);
    put_addr(w, s->size);
    put32(w, s->link);
    put32(w, s->info);
    put_addr(w, s->align);
    put_addr(w, s->entsize);
}

static void put_sym(struct writer *w, uint32_t name, unsigned info, unsigned other,
                    unsigned shndx, uint64_t value, uint64_t size)
{
    put32(w, name);
    if (w->is64) {
        buf_addc(w->out, (char)info);
        buf_addc(w->out, (char)other);
        put16(w, shndx);
        put(w, value, 8);
        put(w, size, 8);
    } else {
        put32(w, value);
        put32(w, size);
        buf_addc(w->out, (char)info);
        buf_addc(w->out, (char)other);
        put16(w, shndx);
    }
}

static uint32_t gnu_property_type(unsigned machine)
{
    if (machine == EM_X86_64 || machine == EM_386)
        return GNU_PROPERTY_X86_FEATURE_1_AND;
    if (machine == EM_AARCH64)
        return GNU_PROPERTY_AARCH64_FEATURE_1_AND;
    return 0;
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

void emit_object(const struct program *prog, const struct target *t,
                 enum semaphore_style style, struct buf *out)
{
    struct writer w = {out, out->len, t->data, t->elfclass == 2};
    size_t word = w.is64 ? 8 : 4;
    size_t ehsize = w.is64 ? 64 : 52;
    size_t shentsize = w.is64 ? 64 : 40;
    size_t symsize = w.is64 ? 24 : 16;

    struct strvec sems = {0};
    size_t nsem = collect_semaphores(prog, style, &sems);
    uint32_t prop_type = gnu_property_type(t->machine);
    size_t prop_desc = align_up(12, word); /* pr_type, pr_datasz, pr_data, padding */

    /* The sections, in file order. */
    struct section sec[8];
    size_t n = 0;
    memset(sec, 0, sizeof sec);
    n++; /* [0] is the null section */
    size_t probes_ix = 0, prop_ix = 0;
    if (nsem) {
        probes_ix = n;
        sec[n++] = (struct section){.name = ".probes", .type = SHT_PROGBITS,
                                    .flags = SHF_ALLOC | SHF_WRITE, .size = 2 * nsem, .align = 2};
    }
    sec[n++] = (struct section){.name = ".note.GNU-stack", .type = SHT_PROGBITS, .align = 1};
    if (prop_type) {
        prop_ix = n;
        sec[n++] = (struct section){.name = ".note.gnu.property", .type = SHT_NOTE,
                                    .flags = SHF_ALLOC, .size = 16 + prop_desc, .align = word};
    }
    size_t symtab_ix = n++;
    size_t strtab_ix = n++;
    size_t shstrtab_ix = n++;

    /* String tables. */
    struct buf strtab = {0}, shstrtab = {0};
    buf_addc(&strtab, '\0');
    uint32_t *sym_name = xcalloc(nsem ? nsem : 1, sizeof *sym_name);
    for (size_t i = 0; i < nsem; i++) {
        sym_name[i] = (uint32_t)strtab.len;
        buf_add(&strtab, sems.v[i], strlen(sems.v[i]) + 1);
    }
    sec[symtab_ix] = (struct section){.name = ".symtab", .type = SHT_SYMTAB,
                                      .size = symsize * (nsem + 1), .link = (uint32_t)strtab_ix,
                                      .info = 1, .align = word, .entsize = symsize};
    sec[strtab_ix] = (struct section){.name = ".strtab", .type = SHT_STRTAB,
                                      .size = strtab.len, .align = 1};
    sec[shstrtab_ix] = (struct section){.name = ".shstrtab", .type = SHT_STRTAB, .align = 1};
    buf_addc(&shstrtab, '\0');
    for (size_t i = 1; i < n; i++) {
        sec[i].name_off = (uint32_t)shstrtab.len;
        buf_add(&shstrtab, sec[i].name, strlen(sec[i].name) + 1);
    }
    sec[shstrtab_ix].size = shstrtab.len;

    /* Layout. */
    size_t off = ehsize;
    for (size_t i = 1; i < n; i++) {
        off = align_up(off, sec[i].align);
        sec[i].offset = off;
        off += sec[i].size;
    }
    size_t shoff = align_up(off, word);

    /* ELF header. */
    static const unsigned char magic[4] = {0x7f, 'E', 'L', 'F'};
    buf_add(out, magic, 4);
    buf_addc(out, (char)t->elfclass);
    buf_addc(out, (char)t->data);
    buf_addc(out, 1); /* EV_CURRENT */
    buf_addc(out, (char)t->osabi);
    buf_zero(out, 8); /* EI_ABIVERSION and padding */
    put16(&w, 1);     /* ET_REL */
    put16(&w, t->machine);
    put32(&w, 1);
    put_addr(&w, 0); /* e_entry */
    put_addr(&w, 0); /* e_phoff */
    put_addr(&w, shoff);
    put32(&w, t->flags);
    put16(&w, ehsize);
    put16(&w, 0); /* e_phentsize */
    put16(&w, 0); /* e_phnum */
    put16(&w, shentsize);
    put16(&w, n);
    put16(&w, shstrtab_ix);

    /* Section contents. */
    if (probes_ix) {
        pad_to(&w, sec[probes_ix].offset);
        buf_zero(out, sec[probes_ix].size);
    }
    if (prop_ix) {
        pad_to(&w, sec[prop_ix].offset);
        put32(&w, 4); /* namesz */
        put32(&w, prop_desc);
        put32(&w, NT_GNU_PROPERTY_TYPE_0);
        buf_add(out, "GNU", 4);
        put32(&w, prop_type);
        put32(&w, 4); /* pr_datasz */
        put32(&w, 3); /* both feature bits */
        pad_to(&w, sec[prop_ix].offset + sec[prop_ix].size);
    }
    pad_to(&w, sec[symtab_ix].offset);
    put_sym(&w, 0, 0, 0, 0, 0, 0);
    unsigned other = style == SEM_HIDDEN ? STV_HIDDEN : STV_DEFAULT;
    for (size_t i = 0; i < nsem; i++)
        put_sym(&w, sym_name[i], (STB_GLOBAL << 4) | STT_OBJECT, other, (unsigned)probes_ix,
                2 * i, 2);
    pad_to(&w, sec[strtab_ix].offset);
    buf_add(out, strtab.data, strtab.len);
    pad_to(&w, sec[shstrtab_ix].offset);
    buf_add(out, shstrtab.data, shstrtab.len);

    /* Section headers. */
    pad_to(&w, shoff);
    for (size_t i = 0; i < n; i++)
        put_shdr(&w, &sec[i]);

    free(sym_name);
    buf_free(&strtab);
    buf_free(&shstrtab);
    strvec_free(&sems);
}
