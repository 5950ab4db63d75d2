/* SPDX-License-Identifier: MIT */
/*
 * elfwrite.c: the pieces of an ELF file, written in the target's byte order
 * into a buffer the caller sized.
 *
 * Pure: nothing here allocates, prints or exits, so the run-time library
 * uses it as dtrace -G does.  A caller lays its sections out (elf_layout),
 * computes the total size, provides a buffer of exactly that size and writes
 * front to back.  Writing past the end or backwards is a bug in the caller:
 * assert catches it in a debug build, and every build refuses it (nothing
 * is written, w->overflow is set and stays set, elfw_done() says so), so a
 * layout that disagrees with its writer never writes outside the buffer,
 * which in the run-time library is the traced process's heap.
 */
#include "core.h"
#include "elf.h"

#include <assert.h>

void elfw_init(struct elfw *w, const struct target *t, void *buf, size_t cap)
{
    w->buf = buf;
    w->len = 0;
    w->cap = cap;
    w->data = t->data;
    w->is64 = t->elfclass == ELFCLASS64;
    w->overflow = false;
}

/* Room for n more bytes: true, or false with w->overflow set. */
static bool room(struct elfw *w, size_t n)
{
    assert(!w->overflow && w->cap - w->len >= n);
    if (w->overflow || w->cap - w->len < n)
        w->overflow = true;
    return !w->overflow;
}

int elfw_done(const struct elfw *w) { return !w->overflow && w->len == w->cap ? 0 : -1; }

void elfw_put(struct elfw *w, uint64_t value, unsigned width)
{
    assert(width == 1 || width == 2 || width == 4 || width == 8);
    if (width > 8 || !room(w, width))
        return;
    unsigned char *p = w->buf + w->len;
    for (unsigned i = 0; i < width; i++) {
        unsigned shift = w->data == ELFDATA2MSB ? 8 * (width - 1 - i) : 8 * i;
        p[i] = (unsigned char)(value >> shift);
    }
    w->len += width;
}

void elfw_bytes(struct elfw *w, const void *data, size_t len)
{
    if (!room(w, len))
        return;
    if (len)
        memcpy(w->buf + w->len, data, len);
    w->len += len;
}

void elfw_pad_to(struct elfw *w, uint64_t off)
{
    assert(off >= w->len);
    if (off < w->len)
        w->overflow = true;
    if (w->overflow || !room(w, (size_t)(off - w->len)))
        return;
    memset(w->buf + w->len, 0, (size_t)(off - w->len));
    w->len = (size_t)off;
}

void elf_name_sections(struct elf_section *sec, size_t n, size_t shstrndx)
{
    assert(shstrndx > 0 && shstrndx < n);
    uint32_t name_off = 1; /* after the leading NUL */
    for (size_t i = 1; i < n; i++) {
        sec[i].name_off = name_off;
        name_off += (uint32_t)strlen(sec[i].name) + 1;
    }
    sec[shstrndx].size = name_off;
}

uint64_t elf_place_sections(struct elf_section *sec, size_t from, size_t to, uint64_t start)
{
    uint64_t off = start;
    for (size_t i = from; i < to; i++) {
        off = align_up(off, sec[i].align);
        sec[i].offset = off;
        if (sec[i].type != SHT_NOBITS)
            off += sec[i].size;
    }
    return off;
}

uint64_t elf_layout(struct elf_section *sec, size_t n, size_t shstrndx, uint64_t start, bool is64)
{
    elf_name_sections(sec, n, shstrndx);
    return align_up(elf_place_sections(sec, 1, n, start), is64 ? 8 : 4);
}

void elfw_ehdr(struct elfw *w, const struct target *t, unsigned type, uint64_t entry,
               uint64_t phoff, size_t phnum, uint64_t shoff, size_t shnum, size_t shstrndx)
{
    static const unsigned char magic[4] = {0x7f, 'E', 'L', 'F'};
    assert(w->len == 0 && shnum < SHN_XINDEX && phnum < 0xffff);
    elfw_bytes(w, magic, 4);
    elfw_put(w, (uint64_t)t->elfclass, 1);
    elfw_put(w, (uint64_t)t->data, 1);
    elfw_put(w, EV_CURRENT, 1);
    elfw_put(w, t->osabi, 1);
    elfw_pad_to(w, 16); /* EI_ABIVERSION and padding */
    elfw_u16(w, type);
    elfw_u16(w, t->machine);
    elfw_u32(w, EV_CURRENT);
    elfw_addr(w, entry);
    elfw_addr(w, phoff);
    elfw_addr(w, shoff);
    elfw_u32(w, t->flags);
    elfw_u16(w, ELF_EHDR_SIZE(w->is64));
    elfw_u16(w, phnum ? ELF_PHDR_SIZE(w->is64) : 0);
    elfw_u16(w, phnum);
    elfw_u16(w, ELF_SHDR_SIZE(w->is64));
    elfw_u16(w, shnum);
    elfw_u16(w, shstrndx);
}

void elfw_phdr(struct elfw *w, const struct elf_phdr *ph)
{
    elfw_u32(w, ph->type);
    if (w->is64) {
        elfw_u32(w, ph->flags);
        elfw_put(w, ph->offset, 8);
        elfw_put(w, ph->vaddr, 8);
        elfw_put(w, ph->vaddr, 8); /* p_paddr */
        elfw_put(w, ph->filesz, 8);
        elfw_put(w, ph->memsz, 8);
        elfw_put(w, ph->align, 8);
    } else {
        elfw_u32(w, ph->offset);
        elfw_u32(w, ph->vaddr);
        elfw_u32(w, ph->vaddr);
        elfw_u32(w, ph->filesz);
        elfw_u32(w, ph->memsz);
        elfw_u32(w, ph->flags);
        elfw_u32(w, ph->align);
    }
}

void elfw_shdr(struct elfw *w, const struct elf_section *s)
{
    elfw_u32(w, s->name_off);
    elfw_u32(w, s->type);
    elfw_addr(w, s->flags);
    elfw_addr(w, s->addr);
    elfw_addr(w, s->offset);
    elfw_addr(w, s->size);
    elfw_u32(w, s->link);
    elfw_u32(w, s->info);
    elfw_addr(w, s->align);
    elfw_addr(w, s->entsize);
}

void elfw_sym(struct elfw *w, uint32_t name, unsigned bind, unsigned type, unsigned other,
              unsigned shndx, uint64_t value, uint64_t size)
{
    unsigned info = (bind << 4) | type;
    elfw_u32(w, name);
    if (w->is64) {
        elfw_put(w, info, 1);
        elfw_put(w, other, 1);
        elfw_u16(w, shndx);
        elfw_put(w, value, 8);
        elfw_put(w, size, 8);
    } else {
        elfw_u32(w, value);
        elfw_u32(w, size);
        elfw_put(w, info, 1);
        elfw_put(w, other, 1);
        elfw_u16(w, shndx);
    }
}

void elfw_shstrtab(struct elfw *w, const struct elf_section *sec, size_t n)
{
    elfw_put(w, 0, 1);
    for (size_t i = 1; i < n; i++)
        elfw_bytes(w, sec[i].name, strlen(sec[i].name) + 1);
}

void elfw_note_head(struct elfw *w, const char *name, uint32_t descsz, uint32_t type)
{
    size_t namesz = strlen(name) + 1;
    elfw_u32(w, namesz);
    elfw_u32(w, descsz);
    elfw_u32(w, type);
    elfw_bytes(w, name, namesz);
    while (namesz++ % 4)
        elfw_put(w, 0, 1);
}
