/* SPDX-License-Identifier: MIT */
/*
 * dso.c: the shared object that holds run-time probes, for the target the
 * run-time library runs on (or any of the 18, for the tests).
 *
 *   offset 0         ELF header, program headers (a reader starts here)
 *   image            what is loaded (vaddr = offset - image):
 *     RX segment       ELF header, program headers again
 *                      .note.gnu.build-id  (perf needs it)
 *                      .hash .dynsym .dynstr  (no symbol)
 *                      .text          a stub per slot
 *                      .stapsdt.base  inside a PT_LOAD: gdb warns otherwise
 *                      zeros up to the next DSO_SEG: no hole between the
 *                      segments, so every loader maps the image as two
 *                      mappings of the file and nothing else
 *     RW segment       .dynamic, .got (MIPS only: ld.so's), .probes: a
 *                      semaphore per slot
 *   tail             not loaded: section headers, .shstrtab,
 *                      .note.stapsdt  a note per probe, .symtab .strtab
 *
 * The object has `capacity' slots (at least as many as probes): slot i is
 * probe i's stub and semaphore, or the slot the caller gives each probe
 * (an object holding several providers' probes, each of which names its
 * provider, in the slots they were given).  The image depends on the
 * target and the capacity alone, never on the names or the number of
 * probes (but for the build-id): the run-time library writes a new tail
 * for a loaded object, or maps the same image again from a new file at
 * the same addresses, and the loaded bytes stay what they were.  Names
 * live in the tail: the notes, and the stubs' symbols in .symtab (gdb,
 * perf and bcc name them from there; the dynamic symbol table has only
 * its null symbol).  Section headers come first in the tail, so that the
 * ELF header's e_shoff alone says which tail a reader reads.
 *
 * Program headers: PT_LOAD (R+X), PT_LOAD (RW), PT_DYNAMIC, PT_NOTE (the
 * build-id), PT_GNU_STACK (not executable).  No relocation: the stubs are
 * position-independent, and every address a tracer reads (the notes' pc,
 * base and semaphore, the symbols) is a link-time address like a linker
 * writes.  The build-id is the SHA-1 of the file with the build-id zeroed,
 * or of the tail alone, then of the caller's salt, or of the salt alone
 * (d->hash): without a salt, the same provider gives the same bytes; the
 * run-time library gives each tail it writes a salt of its own, because
 * perf keys its cache by build-id and would take a new object for an old
 * one with the same probes, and hashing the salt alone spares it the
 * hashing of every tail it writes.
 *
 * Pure: no allocation, no output.  dso_layout() says where everything
 * goes; dso_write() writes the whole file into a buffer, dso_write_head(),
 * _image() and _tail() its parts.
 */
#include "core.h"
#include "elf.h"

#include <stdio.h>

/* The operand of each argument slot ("(%rdi)", "16(%rdi)"), once per
 * object: slot memory as the target's GCC prints it (see arch.c). */
static void make_operands(struct dso *d)
{
    const struct stub_arch *a = d->arch;
    for (int i = 0; i < MAX_PROBE_ARGS; i++) {
        bool far = a->far && i >= a->far;
        unsigned disp = 8u * (unsigned)(far ? i - a->far : i);
        const char *fmt =
            far ? (disp ? a->far_operand : a->far_operand0) : (disp ? a->operand : a->operand0);
        int n = snprintf(d->lo.operand[i], sizeof d->lo.operand[i], fmt, disp);
        assert(n > 0 && (size_t)n < sizeof d->lo.operand[i]);
        d->lo.operand_len[i] = (unsigned char)n;
    }
}

/* The note's argument string ("-4@(%rdi) 8@8(%rdi)"), written to buf when
 * buf is not NULL; its length with the NUL. */
static size_t arg_string(const struct dso *d, const struct dso_probe *p, char *buf)
{
    size_t n = 0;
    for (int i = 0; i < p->nargs; i++) {
        char size[4];
        size_t sl = 0;
        if (i)
            size[sl++] = ' ';
        if (p->sizes[i] < 0)
            size[sl++] = '-';
        int v = p->sizes[i] < 0 ? -p->sizes[i] : p->sizes[i];
        assert(v == 1 || v == 2 || v == 4 || v == 8);
        size[sl++] = (char)('0' + v);
        if (buf) {
            memcpy(buf + n, size, sl);
            buf[n + sl] = '@';
            memcpy(buf + n + sl + 1, d->lo.operand[i], d->lo.operand_len[i]);
        }
        n += sl + 1 + d->lo.operand_len[i];
    }
    if (buf)
        buf[n] = '\0';
    return n + 1;
}

static const char *provider_of(const struct dso *d, const struct dso_probe *p)
{
    return p->provider ? p->provider : d->provider;
}

/* The descriptor of a probe's note: three addresses, then provider, name
 * and arguments, each NUL-terminated, ending at the last NUL. */
static uint32_t note_desc_size(const struct dso *d, const struct dso_probe *p)
{
    size_t word = d->target->elfclass == ELFCLASS64 ? 8 : 4;
    return (uint32_t)(3 * word + strlen(provider_of(d, p)) + 1 + strlen(p->name) + 1 +
                      arg_string(d, p, NULL));
}

/* A note's whole size: header, name and descriptor, padded. */
static uint64_t note_size(const struct dso *d, const struct dso_probe *p)
{
    return 12 + 8 + align_up(note_desc_size(d, p), 4);
}

static size_t add(struct dso_layout *lo, struct elf_section s)
{
    assert(lo->nsec < DSO_SECTIONS);
    lo->sec[lo->nsec] = s;
    return lo->nsec++;
}

/* The soname every object carries: nothing loaded names a provider. */
static const char soname[] = "sdtkit-probes";

/* The sections, in the order they are laid out: the image's, then the
 * tail's (whose section headers come before them). */
static void add_sections(struct dso *d)
{
    const struct stub_arch *a = d->arch;
    struct dso_layout *lo = &d->lo;
    bool is64 = d->target->elfclass == ELFCLASS64;
    uint64_t word = is64 ? 8 : 4, hw = a->hash_word;
    size_t ndyn = 7 + (a->mips_got ? 7 : 0);
    uint64_t strtab = 1, notes = 0;
    for (size_t i = 0; i < d->nprobes; i++) {
        strtab += strlen(d->probes[i].name) + 1;
        notes += note_size(d, &d->probes[i]);
    }
    lo->nsec = 1;
    lo->build_id =
        add(lo, (struct elf_section){".note.gnu.build-id", .type = SHT_NOTE, .flags = SHF_ALLOC,
                                     .size = 16 + DSO_BUILD_ID_SIZE, .align = 4});
    /* one bucket, one chain: the null symbol only */
    lo->hash = add(lo, (struct elf_section){".hash", .type = SHT_HASH, .flags = SHF_ALLOC,
                                            .size = hw * 4, .align = hw, .entsize = hw});
    lo->dynsym = add(lo, (struct elf_section){".dynsym", .type = SHT_DYNSYM, .flags = SHF_ALLOC,
                                              .size = ELF_SYM_SIZE(is64), .info = 1, .align = word,
                                              .entsize = ELF_SYM_SIZE(is64)});
    lo->dynstr = add(lo, (struct elf_section){".dynstr", .type = SHT_STRTAB, .flags = SHF_ALLOC,
                                              .size = 1 + sizeof soname, .align = 1});
    lo->text = add(
        lo, (struct elf_section){".text", .type = SHT_PROGBITS, .flags = SHF_ALLOC | SHF_EXECINSTR,
                                 .size = (uint64_t)a->align * d->capacity, .align = a->align});
    lo->base = add(lo, (struct elf_section){".stapsdt.base", .type = SHT_PROGBITS,
                                            .flags = SHF_ALLOC, .size = 1, .align = 1});
    lo->dynamic = add(lo, (struct elf_section){".dynamic", .type = SHT_DYNAMIC,
                                               .flags = SHF_ALLOC | SHF_WRITE,
                                               .size = ELF_DYN_SIZE(is64) * ndyn, .align = word,
                                               .entsize = ELF_DYN_SIZE(is64)});
    if (a->mips_got)
        lo->got = add(lo, (struct elf_section){".got", .type = SHT_PROGBITS,
                                               .flags = SHF_ALLOC | SHF_WRITE, .size = 2 * word,
                                               .align = word, .entsize = word});
    lo->probes = add(
        lo, (struct elf_section){".probes", .type = SHT_PROGBITS, .flags = SHF_ALLOC | SHF_WRITE,
                                 .size = 2 * (d->capacity ? d->capacity : 1), .align = 2});
    lo->shstrtab = add(lo, (struct elf_section){".shstrtab", .type = SHT_STRTAB, .align = 1});
    lo->notes =
        add(lo, (struct elf_section){".note.stapsdt", .type = SHT_NOTE, .size = notes, .align = 4});
    lo->symtab =
        add(lo, (struct elf_section){".symtab", .type = SHT_SYMTAB,
                                     .size = ELF_SYM_SIZE(is64) * (d->nprobes + 1), .info = 1,
                                     .align = word, .entsize = ELF_SYM_SIZE(is64)});
    lo->strtab =
        add(lo, (struct elf_section){".strtab", .type = SHT_STRTAB, .size = strtab, .align = 1});
    lo->sec[lo->dynsym].link = (uint32_t)lo->dynstr;
    lo->sec[lo->hash].link = (uint32_t)lo->dynsym;
    lo->sec[lo->dynamic].link = (uint32_t)lo->dynstr;
    lo->sec[lo->symtab].link = (uint32_t)lo->strtab;
    elf_name_sections(lo->sec, lo->nsec, lo->shstrtab);
}

/* The offsets: the image's sections from d->image on (the RW segment at
 * the next DSO_SEG after the RX one), the tail's after its section
 * headers; the addresses of the loaded ones.  0, or -1 with *why. */
static int place_parts(struct dso *d, const char **why)
{
    struct dso_layout *lo = &d->lo;
    bool is64 = d->target->elfclass == ELFCLASS64;
    lo->nphdr = 5;
    lo->head_size = ELF_EHDR_SIZE(is64) + lo->nphdr * ELF_PHDR_SIZE(is64);
    uint64_t rx_end = elf_place_sections(lo->sec, 1, lo->dynamic, d->image + lo->head_size);
    lo->rw = align_up(rx_end - d->image, DSO_SEG);
    uint64_t rw_end = elf_place_sections(lo->sec, lo->dynamic, lo->shstrtab, d->image + lo->rw);
    lo->image_size = rw_end - d->image;
    uint64_t image_end = align_up(rw_end, 8);
    if (d->image % DSO_SEG != 0 || (d->tail && (d->tail < image_end || d->tail % 8 != 0))) {
        *why = "the image or the tail misplaced";
        return -1;
    }
    uint64_t tail = lo->tail = d->tail ? d->tail : image_end;
    uint64_t shdrs = lo->nsec * ELF_SHDR_SIZE(is64);
    uint64_t end = elf_place_sections(lo->sec, lo->shstrtab, lo->nsec, tail + shdrs);
    lo->tail_size = align_up(end, 8) - tail;
    d->size = tail + lo->tail_size;
    for (size_t i = 1; i < lo->nsec; i++)
        if (lo->sec[i].flags & SHF_ALLOC)
            lo->sec[i].addr = lo->sec[i].offset - d->image;
    lo->build_id_at = lo->sec[lo->build_id].offset + 16;
    return 0;
}

/* Each probe's addresses and note. */
static void place_probes(struct dso *d)
{
    const struct stub_arch *a = d->arch;
    uint64_t note = d->lo.sec[d->lo.notes].offset;
    for (size_t i = 0; i < d->nprobes; i++) {
        struct dso_probe *p = &d->probes[i];
        size_t slot = d->slotted ? p->slot : i;
        p->stub = dso_slot_stub(d, slot);
        p->pc = p->stub + (uint64_t)a->unit * a->prologue_len;
        p->semaphore = dso_slot_semaphore(d, slot);
        p->note = note;
        p->note_size = note_size(d, p);
        note += p->note_size;
    }
}

int dso_layout(struct dso *d, const char **why)
{
    d->arch = stub_arch_for(d->target);
    if (!d->arch) {
        *why = "no run-time probe stub for this machine";
        return -1;
    }
    if (d->capacity < d->nprobes)
        d->capacity = d->nprobes;
    if (d->capacity > DSO_MAX_SLOTS) {
        *why = "too many probes for one object";
        return -1;
    }
    for (size_t i = 0; i < d->nprobes; i++) {
        assert(d->probes[i].nargs >= 0 && d->probes[i].nargs <= MAX_PROBE_ARGS);
        assert(!d->slotted || d->probes[i].slot < d->capacity);
    }
    memset(&d->lo, 0, sizeof d->lo);
    make_operands(d);
    add_sections(d);
    if (place_parts(d, why) != 0)
        return -1;
    place_probes(d);
    return 0;
}

struct dso_slots dso_slots(const struct dso *d)
{
    return (struct dso_slots){d->lo.sec[d->lo.text].addr, d->arch->align,
                              d->lo.sec[d->lo.probes].addr};
}

uint64_t dso_slot_stub_at(const struct dso_slots *s, size_t slot)
{
    return s->text + slot * s->stride;
}

uint64_t dso_slot_semaphore_at(const struct dso_slots *s, size_t slot)
{
    return s->semaphores + 2 * slot;
}

uint64_t dso_slot_stub(const struct dso *d, size_t slot)
{
    struct dso_slots s = dso_slots(d);
    return dso_slot_stub_at(&s, slot);
}

uint64_t dso_slot_semaphore(const struct dso *d, size_t slot)
{
    struct dso_slots s = dso_slots(d);
    return dso_slot_semaphore_at(&s, slot);
}

/* ---- writing ----
 *
 * Each part is written into a buffer of its own that starts at the part's
 * offset in the file (w's offsets are relative to it: `at'). */

/* Where the tail begins in the file. */
static uint64_t tail_at(const struct dso *d) { return d->lo.tail; }

static void pad_to(struct elfw *w, uint64_t at, uint64_t off)
{
    assert(off >= at);
    elfw_pad_to(w, off - at);
}

static void write_build_id_note(struct elfw *w)
{
    elfw_note_head(w, "GNU", DSO_BUILD_ID_SIZE, NT_GNU_BUILD_ID);
    for (int i = 0; i < DSO_BUILD_ID_SIZE; i++) /* filled in once the file is whole */
        elfw_put(w, 0, 1);
}

/* One bucket and one chain, both empty: the null symbol alone. */
static void write_hash(struct elfw *w, const struct dso *d)
{
    unsigned hw = d->arch->hash_word;
    elfw_put(w, 1, hw); /* nbucket */
    elfw_put(w, 1, hw); /* nchain */
    elfw_put(w, 0, hw); /* bucket[0] */
    elfw_put(w, 0, hw); /* chain[0] */
}

static void write_dynsym_dynstr(struct elfw *w, const struct dso *d)
{
    const struct dso_layout *lo = &d->lo;
    pad_to(w, d->image, lo->sec[lo->dynsym].offset);
    elfw_sym(w, 0, 0, 0, 0, SHN_UNDEF, 0, 0);
    pad_to(w, d->image, lo->sec[lo->dynstr].offset);
    elfw_put(w, 0, 1);
    elfw_bytes(w, soname, sizeof soname);
}

/* Every slot's stub, used or not: the loaded bytes do not depend on how
 * many probes there are. */
static void write_stubs(struct elfw *w, const struct dso *d)
{
    const struct stub_arch *a = d->arch;
    for (size_t i = 0; i < d->capacity; i++) {
        pad_to(w, d->image, d->lo.sec[d->lo.text].offset + i * a->align);
        for (int k = 0; k < a->prologue_len; k++)
            elfw_put(w, a->prologue[k], a->unit);
        for (int k = 0; k < a->probe_len; k++)
            elfw_put(w, a->probe[k], a->unit);
        for (int k = 0; k < a->epilogue_len; k++)
            elfw_put(w, a->epilogue[k], a->unit);
    }
}

static void dyn(struct elfw *w, uint64_t tag, uint64_t value)
{
    elfw_addr(w, tag);
    elfw_addr(w, value);
}

static void write_dynamic(struct elfw *w, const struct dso *d)
{
    const struct dso_layout *lo = &d->lo;
    const struct elf_section *s = lo->sec;
    pad_to(w, d->image, s[lo->dynamic].offset);
    dyn(w, DT_SONAME, 1);
    dyn(w, DT_HASH, s[lo->hash].addr);
    dyn(w, DT_STRTAB, s[lo->dynstr].addr);
    dyn(w, DT_SYMTAB, s[lo->dynsym].addr);
    dyn(w, DT_STRSZ, s[lo->dynstr].size);
    dyn(w, DT_SYMENT, s[lo->dynsym].entsize);
    if (d->arch->mips_got) {
        dyn(w, DT_PLTGOT, s[lo->got].addr);
        dyn(w, DT_MIPS_RLD_VERSION, 1);
        dyn(w, DT_MIPS_FLAGS, 0);
        dyn(w, DT_MIPS_BASE_ADDRESS, 0);
        dyn(w, DT_MIPS_LOCAL_GOTNO, 2);
        dyn(w, DT_MIPS_SYMTABNO, 1);
        dyn(w, DT_MIPS_GOTSYM, 1); /* no global GOT entries */
    }
    dyn(w, DT_NULL, 0);
    if (d->arch->mips_got) {
        pad_to(w, d->image, s[lo->got].offset);
        elfw_addr(w, 0); /* ld.so's resolver */
        /* the GNU mark ld.so looks for in the second entry */
        elfw_addr(w, w->is64 ? (uint64_t)1 << 63 : (uint64_t)1 << 31);
    }
}

static void write_notes(struct elfw *w, const struct dso *d)
{
    const struct dso_layout *lo = &d->lo;
    uint64_t base = lo->sec[lo->base].addr;
    pad_to(w, tail_at(d), lo->sec[lo->notes].offset);
    for (size_t i = 0; i < d->nprobes; i++) {
        const struct dso_probe *p = &d->probes[i];
        uint32_t descsz = note_desc_size(d, p);
        elfw_note_head(w, "stapsdt", descsz, p->hidden ? DSO_NT_HIDDEN : NT_STAPSDT);
        elfw_addr(w, p->pc);
        elfw_addr(w, base);
        elfw_addr(w, p->semaphore);
        elfw_bytes(w, provider_of(d, p), strlen(provider_of(d, p)) + 1);
        elfw_bytes(w, p->name, strlen(p->name) + 1);
        size_t args = arg_string(d, p, NULL);
        if (w->cap - w->len < args) { /* as elfw_bytes would refuse */
            elfw_bytes(w, NULL, args);
            return;
        }
        arg_string(d, p, (char *)w->buf + w->len);
        w->len += args;
        elfw_pad_to(w, align_up(w->len, 4));
    }
}

/* The stubs' names, for debuggers and profilers. */
static void write_symtab(struct elfw *w, const struct dso *d)
{
    const struct dso_layout *lo = &d->lo;
    size_t stub = stub_size(d->arch);
    uint32_t name = 1;
    pad_to(w, tail_at(d), lo->sec[lo->symtab].offset);
    elfw_sym(w, 0, 0, 0, 0, SHN_UNDEF, 0, 0);
    for (size_t i = 0; i < d->nprobes; i++) {
        elfw_sym(w, name, STB_GLOBAL, STT_FUNC, STV_DEFAULT, (unsigned)lo->text, d->probes[i].stub,
                 stub);
        name += (uint32_t)strlen(d->probes[i].name) + 1;
    }
    pad_to(w, tail_at(d), lo->sec[lo->strtab].offset);
    elfw_put(w, 0, 1);
    for (size_t i = 0; i < d->nprobes; i++)
        elfw_bytes(w, d->probes[i].name, strlen(d->probes[i].name) + 1);
}

static void write_phdrs(struct elfw *w, const struct dso *d)
{
    const struct dso_layout *lo = &d->lo;
    const struct elf_section *s = lo->sec;
    uint64_t rw_size = lo->image_size - lo->rw;
    const struct elf_phdr ph[] = {
        {PT_LOAD, PF_R | PF_X, d->image, 0, lo->rw, lo->rw, DSO_SEG},
        {PT_LOAD, PF_R | PF_W, d->image + lo->rw, lo->rw, rw_size, rw_size, DSO_SEG},
        {PT_DYNAMIC, PF_R | PF_W, s[lo->dynamic].offset, s[lo->dynamic].addr, s[lo->dynamic].size,
         s[lo->dynamic].size, s[lo->dynamic].align},
        {PT_NOTE, PF_R, s[lo->build_id].offset, s[lo->build_id].addr, s[lo->build_id].size,
         s[lo->build_id].size, 4},
        {PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 0, 16},
    };
    _Static_assert(sizeof ph / sizeof ph[0] == 5, "place_parts's nphdr");
    for (size_t i = 0; i < sizeof ph / sizeof ph[0]; i++)
        elfw_phdr(w, &ph[i]);
}

/* The headers, at w's start: e_shoff is the tail's offset. */
static void write_head(struct elfw *w, const struct dso *d)
{
    const struct dso_layout *lo = &d->lo;
    bool is64 = d->target->elfclass == ELFCLASS64;
    elfw_ehdr(w, d->target, ET_DYN, 0, ELF_EHDR_SIZE(is64), lo->nphdr, tail_at(d), lo->nsec,
              lo->shstrtab);
    write_phdrs(w, d);
}

int dso_write_head(const struct dso *d, void *buf)
{
    struct elfw w;
    elfw_init(&w, d->target, buf, (size_t)d->lo.head_size);
    write_head(&w, d);
    return elfw_done(&w);
}

int dso_write_image(const struct dso *d, void *buf)
{
    const struct dso_layout *lo = &d->lo;
    const struct elf_section *s = lo->sec;
    struct elfw w;
    elfw_init(&w, d->target, buf, (size_t)lo->image_size);
    write_head(&w, d);
    pad_to(&w, d->image, s[lo->build_id].offset);
    write_build_id_note(&w);
    pad_to(&w, d->image, s[lo->hash].offset);
    write_hash(&w, d);
    write_dynsym_dynstr(&w, d);
    write_stubs(&w, d);
    pad_to(&w, d->image, s[lo->base].offset);
    elfw_put(&w, 0, 1);
    write_dynamic(&w, d);
    elfw_pad_to(&w, lo->image_size); /* the semaphores: zero */
    return elfw_done(&w);
}

/* The build-id of hash bytes (the tail, or the file with a zero
 * build-id; none with DSO_HASH_SALT), and the salt. */
static void build_id(const struct dso *d, const void *bytes, size_t len, unsigned char *id)
{
    struct sha1 h;
    sha1_init(&h);
    if (d->hash != DSO_HASH_SALT)
        sha1_update(&h, bytes, len);
    if (d->salt)
        sha1_update(&h, d->salt, d->salt_len);
    sha1_final(&h, id);
}

int dso_write_tail(const struct dso *d, void *buf, unsigned char *id)
{
    const struct dso_layout *lo = &d->lo;
    struct elfw w;
    elfw_init(&w, d->target, buf, (size_t)lo->tail_size);
    for (size_t i = 0; i < lo->nsec; i++)
        elfw_shdr(&w, &lo->sec[i]);
    pad_to(&w, tail_at(d), lo->sec[lo->shstrtab].offset);
    elfw_shstrtab(&w, lo->sec, lo->nsec);
    write_notes(&w, d);
    write_symtab(&w, d);
    elfw_pad_to(&w, lo->tail_size);
    if (elfw_done(&w) != 0)
        return -1;
    if (id && d->hash != DSO_HASH_FILE)
        build_id(d, buf, (size_t)lo->tail_size, id);
    return 0;
}

int dso_write(const struct dso *d, void *buf)
{
    const struct dso_layout *lo = &d->lo;
    unsigned char *b = buf, id[DSO_BUILD_ID_SIZE];
    if (lo->tail + lo->tail_size != d->size || d->image + lo->image_size > lo->tail)
        return -1; /* the layout changed under the writer: a bug, caught */
    memset(b, 0, (size_t)d->size);
    if (dso_write_head(d, b) != 0 || dso_write_image(d, b + d->image) != 0 ||
        dso_write_tail(d, b + tail_at(d), id) != 0)
        return -1;
    if (d->hash == DSO_HASH_FILE)
        build_id(d, b, (size_t)d->size, id);
    memcpy(b + lo->build_id_at, id, DSO_BUILD_ID_SIZE);
    return 0;
}
