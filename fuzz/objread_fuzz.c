/* SPDX-License-Identifier: MIT */
/*
 * objread_fuzz.c: libFuzzer harness for the object-file reader that -G and
 * sdt-list use (lib/elfread.c): ELF32 and ELF64 of either byte order, section
 * tables, note sections, and ar archives (GNU, BSD and thin) -- here fed
 * any bytes at all.
 *
 * Besides the sanitizers, the harness checks what read_notes() promises:
 * every string it hands out (provider, name, arguments, section name,
 * SONAME) is NUL-terminated inside the buffer it was given, the build-id
 * lies inside it, and a member name is a string.  The input is copied into a buffer of exactly its size, so ASan
 * sees any read past the end.
 *
 * Build and run with `make fuzz` (see fuzz/run).
 */
#include "../lib/core.h"

#include <stdlib.h>
#include <string.h>

struct view {
    const unsigned char *buf;
    size_t len;
    size_t sum; /* touches every byte handed out */
};

/* s must be a NUL-terminated string lying inside the input. */
static void inside(struct view *v, const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    if (p < v->buf || p >= v->buf + v->len)
        abort();
    const unsigned char *nul = memchr(p, '\0', (size_t)(v->buf + v->len - p));
    if (!nul)
        abort();
    v->sum += (size_t)(nul - p);
}

static void member_name(struct view *v, const char *member)
{
    if (member)
        v->sum += strlen(member);
}

/* n bytes at p must lie inside the input. */
static void inside_bytes(struct view *v, const unsigned char *p, size_t n)
{
    if (p < v->buf || n > v->len || p > v->buf + v->len - n)
        abort();
    for (size_t i = 0; i < n; i++)
        v->sum += p[i];
}

static void on_elf(void *ctx, const char *member, const struct elf_info *elf)
{
    struct view *v = ctx;
    member_name(v, member);
    if (elf->soname)
        inside(v, elf->soname);
    const struct target *t = &elf->target;
    if ((t->elfclass != 1 && t->elfclass != 2) || (t->data != 1 && t->data != 2))
        abort();
}

static void on_note(void *ctx, const char *member, const struct elf_info *elf,
                    const struct sdt_note *n)
{
    struct view *v = ctx;
    member_name(v, member);
    if (n->ptrsize != (elf->target.elfclass == 2 ? 8u : 4u))
        abort();
    if (n->section)
        inside(v, n->section);
    if (n->strings_ok) {
        inside(v, n->provider);
        inside(v, n->name);
        inside(v, n->args);
    } else if (n->provider || n->name || n->args) {
        abort();
    }
}

static void on_elf_done(void *ctx, const char *member, const struct elf_info *elf)
{
    struct view *v = ctx;
    member_name(v, member);
    v->sum += elf->nnotes;
    if (elf->build_id)
        inside_bytes(v, elf->build_id, elf->build_id_len);
    else if (elf->build_id_len)
        abort();
}

static void on_thin_member(void *ctx, const char *name)
{
    struct view *v = ctx;
    v->sum += strlen(name);
}

static void on_problem(void *ctx, const char *member, const char *what)
{
    struct view *v = ctx;
    member_name(v, member);
    v->sum += strlen(what);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    unsigned char *copy = malloc(size ? size : 1);
    if (!copy)
        return 0;
    if (size)
        memcpy(copy, data, size);
    struct view v = {copy, size, 0};
    struct objread_ops ops = {
        .ctx = &v,
        .on_elf = on_elf,
        .on_note = on_note,
        .on_elf_done = on_elf_done,
        .on_thin_member = on_thin_member,
        .on_problem = on_problem,
    };
    read_notes(copy, size, &ops);
    free(copy);
    return 0;
}
