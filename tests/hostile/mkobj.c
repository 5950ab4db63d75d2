/* SPDX-License-Identifier: MIT */
/*
 * mkobj.c: write hostile object files for tests/dtrace-hostile.bats.
 *
 *   mkobj overlap OUT SECTIONS NOTES   an ELF64 object whose SECTIONS note
 *                                      sections all cover the same NOTES notes
 *   mkobj names OUT SECTIONS SIZE      an ELF64 object whose SECTIONS sections
 *                                      are all named by offset 0 of a SIZE-byte
 *                                      string table with one NUL, at its end
 *   mkobj longnames OUT MEMBERS SIZE   an ar archive whose "//" table is SIZE
 *                                      bytes without a newline, and MEMBERS
 *                                      empty members all named "/0"
 *   mkobj thin OUT MEMBERS NAME        a thin archive naming NAME MEMBERS times
 *
 * Each is well formed as far as sizes and offsets go: only the counts,
 * overlaps and lengths are unreasonable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *out;

static void put(uint64_t v, int width)
{
    for (int i = 0; i < width; i++)
        fputc((int)(v >> (8 * i)) & 0xff, out);
}

static void zeros(size_t n)
{
    while (n--)
        fputc(0, out);
}

/* ELF64 little-endian x86-64 relocatable header. */
static void elf_header(uint64_t shoff, uint64_t shnum, unsigned shstrndx)
{
    fwrite("\177ELF\2\1\1\0", 1, 8, out);
    zeros(8);
    put(1, 2);  /* ET_REL */
    put(62, 2); /* EM_X86_64 */
    put(1, 4);
    put(0, 8);
    put(0, 8);
    put(shoff, 8);
    put(0, 4);
    put(64, 2);
    put(0, 2);
    put(0, 2);
    put(64, 2);
    put(shnum < 0xff00 ? shnum : 0, 2); /* extended numbering beyond */
    put(shstrndx, 2);
}

static void shdr(uint32_t name, uint32_t type, uint64_t off, uint64_t size, uint64_t align)
{
    put(name, 4);
    put(type, 4);
    put(0, 8);     /* flags */
    put(0, 8);     /* addr */
    put(off, 8);
    put(size, 8);
    put(0, 4);     /* link */
    put(0, 4);     /* info */
    put(align, 8);
    put(0, 8);     /* entsize */
}

/* [0] null (holding the count), [1] .shstrtab, [2..] the note sections. */
static void overlap(long sections, long notes)
{
    static const char strtab[] = "\0.shstrtab\0.note.stapsdt";
    size_t strsz = sizeof strtab;
    size_t note_size = 12 + 8 + 24 + 8; /* header, "stapsdt", 3 addresses, "p\0x\0\0" + pad */
    uint64_t notes_off = 64 + 64; /* after the header, 64-aligned */
    uint64_t region = (uint64_t)notes * note_size;
    uint64_t str_off = notes_off + region;
    uint64_t shoff = (str_off + strsz + 63) / 64 * 64;
    uint64_t shnum = (uint64_t)sections + 2;
    elf_header(shoff, shnum, 1);
    zeros(notes_off - 64);
    for (long i = 0; i < notes; i++) {
        put(8, 4);
        put(29, 4); /* 24 + "p\0x\0\0", padded to 32 */
        put(3, 4);
        fwrite("stapsdt\0", 1, 8, out);
        zeros(24);
        fwrite("p\0x\0\0\0\0\0", 1, 8, out);
    }
    fwrite(strtab, 1, strsz, out);
    zeros(shoff - str_off - strsz);
    shdr(0, 0, 0, shnum >= 0xff00 ? shnum : 0, 0);
    shdr(1, 3, str_off, strsz, 1);
    for (long i = 0; i < sections; i++)
        shdr(11, 7, notes_off, region, 4);
}

/* [0] null, [1] the string table, [2..] PROGBITS sections named at 0. */
static void names(long sections, long size)
{
    uint64_t str_off = 64;
    uint64_t shoff = (str_off + (uint64_t)size + 63) / 64 * 64;
    uint64_t shnum = (uint64_t)sections + 2;
    elf_header(shoff, shnum, 1);
    for (long i = 0; i + 1 < size; i++)
        fputc('n', out);
    fputc(0, out);
    zeros(shoff - str_off - (uint64_t)size);
    shdr(0, 0, 0, shnum >= 0xff00 ? shnum : 0, 0);
    shdr(0, 3, str_off, (uint64_t)size, 1);
    for (long i = 0; i < sections; i++)
        shdr(0, 1, 0, 0, 1);
}

static void ar_header(const char *name, long size)
{
    fprintf(out, "%-16s%-12s%-6s%-6s%-8s%-10ld`\n", name, "0", "0", "0", "644", size);
}

static void longnames(long members, long size)
{
    fputs("!<arch>\n", out);
    ar_header("//", size);
    for (long i = 0; i < size; i++)
        fputc('a', out);
    if (size & 1)
        fputc('\n', out);
    for (long i = 0; i < members; i++)
        ar_header("/0", 0);
}

static void thin(long members, const char *name)
{
    char field[32];
    snprintf(field, sizeof field, "%s/", name);
    fputs("!<thin>\n", out);
    for (long i = 0; i < members; i++)
        ar_header(field, 1000);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: mkobj overlap|names|longnames|thin OUT N M\n");
        return 2;
    }
    out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 1;
    }
    long n = atol(argv[3]);
    if (strcmp(argv[1], "overlap") == 0)
        overlap(n, atol(argv[4]));
    else if (strcmp(argv[1], "names") == 0)
        names(n, atol(argv[4]));
    else if (strcmp(argv[1], "longnames") == 0)
        longnames(n, atol(argv[4]));
    else if (strcmp(argv[1], "thin") == 0)
        thin(n, argv[4]);
    else
        return 2;
    return fclose(out) == 0 ? 0 : 1;
}
