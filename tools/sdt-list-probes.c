/* SPDX-License-Identifier: MIT */
/*
 * sdt-list-probes.c: the notes of an ELF file, an archive or a directory
 * tree, gathered per unit (a file or an archive member) into probes
 * (provider:name) and their sites, for the JSON listing and --diff.
 *
 * Everything is copied out of the file's buffer, which is gone once the
 * file has been read.  A malformed object or note is an error here, not a
 * warning: a comparison or a listing that silently left part of a file out
 * would be believed.
 */
#include "../lib/elf.h"
#include "sdt-list.h"

#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>

struct collector {
    struct units *us;
    const struct filter *filter;
    const char *top; /* the path file_read_notes() was given */
    const char *rel; /* its path relative to the tree, "" for a file */
    struct unit *cur;
    int errors;
};

bool filter_keeps(const struct filter *f, const char *provider, const char *name)
{
    if (f->providers.n) {
        size_t i = 0;
        while (i < f->providers.n && fnmatch(f->providers.v[i], provider, 0) != 0)
            i++;
        if (i == f->providers.n)
            return false;
    }
    if (f->ignored_probes.n) {
        struct buf full = {0};
        buf_printf(&full, "%s:%s", provider, name);
        bool ignored = false;
        for (size_t i = 0; i < f->ignored_probes.n && !ignored; i++)
            ignored = fnmatch(f->ignored_probes.v[i], full.data, 0) == 0;
        buf_free(&full);
        if (ignored)
            return false;
    }
    return true;
}

void warn_notes_nobits(const char *label)
{
    warning("%s: its .note.stapsdt section has no contents (SHT_NOBITS): a separate debug "
            "file whose notes stayed in the stripped file; read that file",
            label);
}

void describe_target(const struct target *t, char *buf, size_t len)
{
    char machine[48];
    snprintf(buf, len, "ELF%d %s (%s-endian)", t->elfclass == ELFCLASS64 ? 64 : 32,
             arch_machine_name(t->machine, machine, sizeof machine),
             t->data == ELFDATA2MSB ? "big" : "little");
}

static char *copy(struct units *us, const char *s) { return arena_strndup(&us->mem, s, strlen(s)); }

/* The member's name in "top(member)", or NULL. */
static const char *member_of(struct collector *c, const char *label)
{
    size_t n = strlen(c->top), len = strlen(label);
    if (len < n + 2 || strncmp(label, c->top, n) != 0 || label[n] != '(' || label[len - 1] != ')')
        return NULL;
    return arena_strndup(&c->us->mem, label + n + 1, len - n - 2);
}

/* The unit's key: its path in the tree, then "(member)"; a second member
 * of the same name in one archive (ar allows it) gets "#2", and so on. */
static const char *unit_key(struct collector *c, const char *label)
{
    struct buf k = {0};
    size_t n = strlen(c->top);
    if (strncmp(label, c->top, n) == 0)
        buf_printf(&k, "%s%s", c->rel, label + n);
    else
        buf_adds(&k, label); /* a thin archive's member, by its own path */
    size_t base = k.len;
    for (int i = 2; strmap_get(&c->us->keys, k.data, k.len); i++) {
        k.len = base;
        buf_printf(&k, "#%d", i);
    }
    const char *key = strmap_intern(&c->us->keys, k.data, k.len);
    buf_free(&k);
    return key;
}

static void on_elf(void *ctx, const char *label, const struct elf_info *elf)
{
    struct collector *c = ctx;
    struct units *us = c->us;
    struct unit *u = arena_alloc(&us->mem, sizeof *u);
    u->label = copy(us, label);
    u->member = member_of(c, label);
    u->key = unit_key(c, label);
    u->target = elf->target;
    u->type = elf->type;
    if (us->n == us->cap) {
        us->cap = us->cap ? 2 * us->cap : 16;
        us->v = xreallocarray(us->v, us->cap, sizeof *us->v);
    }
    us->v[us->n++] = u;
    c->cur = u;
}

static struct probe *add_probe(struct units *us, struct unit *u, const char *provider,
                               const char *name)
{
    struct buf key = {0};
    buf_printf(&key, "%s%c%s", provider, 0, name);
    uintptr_t at = (uintptr_t)strmap_get(&u->index, key.data, key.len);
    if (!at) {
        if (u->nprobes == u->cap) {
            u->cap = u->cap ? 2 * u->cap : 16;
            u->probes = xreallocarray(u->probes, u->cap, sizeof *u->probes);
        }
        struct probe *p = &u->probes[u->nprobes++];
        memset(p, 0, sizeof *p);
        p->provider = copy(us, provider);
        p->name = copy(us, name);
        at = u->nprobes;
        strmap_put(&u->index, key.data, key.len, (void *)at);
    }
    buf_free(&key);
    return &u->probes[at - 1];
}

static void on_note(void *ctx, const char *label, const struct elf_info *elf,
                    const struct sdt_note *n)
{
    struct collector *c = ctx;
    (void)elf;
    assert(c->cur);
    if (!n->strings_ok) {
        error("%s: a malformed stapsdt note (its descriptor does not hold three strings)", label);
        c->errors++;
        return;
    }
    if (!filter_keeps(c->filter, n->provider, n->name))
        return;
    struct probe *p = add_probe(c->us, c->cur, n->provider, n->name);
    if (p->nsites == p->cap) {
        p->cap = p->cap ? 2 * p->cap : 4;
        p->sites = xreallocarray(p->sites, p->cap, sizeof *p->sites);
    }
    p->sites[p->nsites++] =
        (struct site){n->pc, n->base, n->semaphore, n->semaphore_relocated, copy(c->us, n->args)};
}

static void on_elf_done(void *ctx, const char *label, const struct elf_info *elf)
{
    struct collector *c = ctx;
    struct unit *u = c->cur;
    assert(u);
    if (elf->build_id) {
        char *hex = arena_alloc(&c->us->mem, 2 * elf->build_id_len + 1);
        for (size_t i = 0; i < elf->build_id_len; i++)
            snprintf(hex + 2 * i, 3, "%02x", elf->build_id[i]);
        u->build_id = hex;
    }
    if (elf->soname)
        u->soname = copy(c->us, elf->soname);
    u->notes_nobits = elf->notes_nobits;
    if (u->notes_nobits)
        warn_notes_nobits(label);
    c->cur = NULL;
}

static void on_problem(void *ctx, const char *label, const char *what)
{
    struct collector *c = ctx;
    error("%s: %s", label, what);
    c->errors++;
}

static int read_one(struct collector *c, const char *path)
{
    struct objread_ops ops = {
        .ctx = c,
        .on_elf = on_elf,
        .on_note = on_note,
        .on_elf_done = on_elf_done,
        .on_problem = on_problem,
    };
    c->top = path;
    c->cur = NULL;
    int rc = file_read_notes(path, &ops, FILE_OBJECTS_ONLY);
    return rc == 0 && c->errors == 0 ? 0 : -1;
}

int units_read(struct units *us, const char *path, bool tree, const struct filter *f)
{
    struct collector c = {.us = us, .filter = f, .rel = ""};
    if (!tree)
        return read_one(&c, path);
    struct strvec rels = {0};
    int rc = dir_objects(path, &rels);
    for (size_t i = 0; i < rels.n; i++) {
        char *full = path_join(path, rels.v[i]);
        c.rel = rels.v[i];
        if (read_one(&c, full) != 0)
            rc = -1;
        c.errors = 0;
        free(full);
    }
    strvec_free(&rels);
    return rc;
}

struct probe *unit_probe(const struct unit *u, const char *provider, const char *name)
{
    struct buf key = {0};
    buf_printf(&key, "%s%c%s", provider, 0, name);
    uintptr_t at = (uintptr_t)strmap_get(&u->index, key.data, key.len);
    buf_free(&key);
    return at ? &u->probes[at - 1] : NULL;
}

void units_free(struct units *us)
{
    for (size_t i = 0; i < us->n; i++) {
        struct unit *u = us->v[i];
        for (size_t j = 0; j < u->nprobes; j++)
            free(u->probes[j].sites);
        free(u->probes);
        strmap_free(&u->index);
    }
    free(us->v);
    strmap_free(&us->keys);
    arena_free(&us->mem);
}
