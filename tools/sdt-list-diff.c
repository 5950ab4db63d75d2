/* SPDX-License-Identifier: MIT */
/*
 * sdt-list-diff.c: sdt-list --diff OLD NEW, the probes of two builds
 * compared as an interface (sdt-list(1), COMPARING BUILDS).
 *
 * Units (ELF files and archive members) are paired by their path within
 * the tree (or are the two files given), then, among those left over, by
 * their DT_SONAME within one directory (libx.so.1.2 and libx.so.1.3 are
 * the same library).  Within a pair, probes are matched by provider:name
 * and compared by what a tracer's user relies on: that the probe exists,
 * how many sites it has, how many arguments and each one's size and
 * signedness, and whether it has a semaphore.  Operands and addresses are
 * the compiler's and the linker's choice and are never compared.
 *
 * Where a probe's sites disagree among themselves (a probe used with an
 * int in one place and a long in another), a value is the set of what the
 * sites have, written "a|b", and sets are compared.
 */
#include "../lib/elf.h"
#include "sdt-list.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>

enum kind {
    CH_ADDED,
    CH_REMOVED,
    CH_SITES,
    CH_ARG_COUNT,
    CH_ARG,
    CH_SEMAPHORE,
};

static const char *const kind_names[] = {"added",     "removed",  "sites",
                                         "arguments", "argument", "semaphore"};

/* What is compared of a probe. */
struct shape {
    size_t nsites;
    char *counts;                /* argument counts: "3", or "3|4" */
    int maxargs;                 /* the largest count, at most 12 */
    char *sizes[MAX_PROBE_ARGS]; /* per argument: "-4", or "-4|8" */
    const char *semaphore;       /* "none", "some" or "all" (sites) */
};

struct change {
    const char *provider, *name;
    enum kind kind;
    bool compatible;
    int arg; /* CH_ARG */
    const struct shape *old, *new;
    size_t seq; /* keeps the order of one probe's changes */
};

/* One row of the output: a pair of units, or a unit on one side only. */
struct row {
    const char *shown; /* the name the lines give */
    const struct unit *old, *new;
    bool by_soname;
    size_t seq;
};

struct differ {
    const struct diff_options *o;
    bool tree;
    struct json j;
    size_t files, probes, added, removed, changed;
    bool incompatible, compatible;
    struct change *ch;
    size_t nch, capch;
    struct arena mem;
};

/* ---- shapes ---- */

static int cmp_cstr(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* "a|b|c" of the distinct strings of v[0..n), sorted. */
static char *join_set(struct arena *mem, const char **v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_cstr);
    struct buf b = {0};
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && strcmp(v[i], v[i - 1]) == 0)
            continue;
        if (b.len)
            buf_addc(&b, '|');
        buf_adds(&b, v[i]);
    }
    char *s = arena_strndup(mem, b.data ? b.data : "", b.len);
    buf_free(&b);
    return s;
}

static void shape_of(struct arena *mem, const struct probe *p, struct shape *s)
{
    memset(s, 0, sizeof *s);
    s->nsites = p->nsites;
    const char **vals = xcalloc(p->nsites, sizeof *vals);
    char(*counts)[8] = xcalloc(p->nsites, sizeof *counts);
    struct note_arg(*args)[MAX_PROBE_ARGS] = xcalloc(p->nsites, sizeof *args);
    int *n = xcalloc(p->nsites, sizeof *n);
    size_t with_sem = 0;
    for (size_t i = 0; i < p->nsites; i++) {
        n[i] = note_args_split(p->sites[i].args, args[i], MAX_PROBE_ARGS);
        snprintf(counts[i], sizeof counts[i], "%d", n[i]);
        vals[i] = counts[i];
        if (n[i] > s->maxargs)
            s->maxargs = n[i] < MAX_PROBE_ARGS ? n[i] : MAX_PROBE_ARGS;
        with_sem += p->sites[i].semaphore || p->sites[i].semaphore_relocated;
    }
    s->counts = join_set(mem, vals, p->nsites);
    for (int a = 0; a < s->maxargs; a++) {
        size_t k = 0;
        for (size_t i = 0; i < p->nsites; i++) {
            if (a >= n[i])
                continue;
            const struct note_arg *x = &args[i][a];
            vals[k++] = x->size_len ? arena_strndup(mem, x->size, x->size_len) : "?";
        }
        s->sizes[a] = join_set(mem, vals, k);
    }
    s->semaphore = with_sem == 0 ? "none" : with_sem == p->nsites ? "all" : "some";
    free(n);
    free(args);
    free(counts);
    free(vals);
}

/* A size as a type: "-4" -> "int32", "8f" -> "float64"; NULL for a set or
 * anything else. */
static const char *type_of(const char *size, char *buf, size_t len)
{
    bool sign = *size == '-';
    const char *p = size + sign;
    if (!(*p == '1' || *p == '2' || *p == '4' || *p == '8'))
        return NULL;
    int bits = 8 * (*p - '0');
    if (p[1] == 'f' && p[2] == '\0' && bits >= 32)
        snprintf(buf, len, "float%d", bits);
    else if (p[1] == '\0')
        snprintf(buf, len, "%sint%d", sign ? "" : "u", bits);
    else
        return NULL;
    return buf;
}

/* "2 sites, 3 arguments: -4 8 8, semaphore" */
static void describe_shape(struct buf *b, const struct shape *s)
{
    buf_printf(b, "%zu site%s, %s argument%s", s->nsites, s->nsites == 1 ? "" : "s", s->counts,
               strcmp(s->counts, "1") == 0 ? "" : "s");
    for (int a = 0; a < s->maxargs; a++)
        buf_printf(b, "%s%s", a ? " " : ": ", s->sizes[a]);
    if (strcmp(s->semaphore, "none") != 0)
        buf_printf(b, ", semaphore%s", strcmp(s->semaphore, "some") == 0 ? " (some sites)" : "");
}

static void sizes_list(struct buf *b, const struct shape *s)
{
    for (int a = 0; a < s->maxargs; a++)
        buf_printf(b, "%s%s", a ? " " : "", s->sizes[a]);
    if (s->maxargs == 0)
        buf_adds(b, "none");
}

/* The words of a change after "PROVIDER:NAME: ". */
static void describe(struct buf *b, const struct change *c)
{
    char t1[16], t2[16];
    const char *a, *z;
    switch (c->kind) {
    case CH_ADDED:
        buf_adds(b, "added (");
        describe_shape(b, c->new);
        buf_addc(b, ')');
        break;
    case CH_REMOVED:
        buf_adds(b, "removed (");
        describe_shape(b, c->old);
        buf_addc(b, ')');
        break;
    case CH_SITES:
        buf_printf(b, "sites %zu -> %zu", c->old->nsites, c->new->nsites);
        break;
    case CH_ARG_COUNT:
        buf_printf(b, "arguments %s -> %s (", c->old->counts, c->new->counts);
        sizes_list(b, c->old);
        buf_adds(b, " -> ");
        sizes_list(b, c->new);
        buf_addc(b, ')');
        break;
    case CH_ARG:
        buf_printf(b, "arg%d %s -> %s", c->arg, c->old->sizes[c->arg], c->new->sizes[c->arg]);
        a = type_of(c->old->sizes[c->arg], t1, sizeof t1);
        z = type_of(c->new->sizes[c->arg], t2, sizeof t2);
        if (a && z)
            buf_printf(b, " (%s -> %s)", a, z);
        break;
    case CH_SEMAPHORE:
        if (strcmp(c->old->semaphore, "none") == 0)
            buf_adds(b, "semaphore added (the probe fires only while a tracer raises it)");
        else if (strcmp(c->new->semaphore, "none") == 0)
            buf_adds(b, "semaphore removed (*_ENABLED() no longer tells whether it is traced)");
        else
            buf_printf(b, "semaphore on %s sites -> %s sites", c->old->semaphore,
                       c->new->semaphore);
        break;
    }
}

/* ---- comparing ---- */

static void add_change(struct differ *d, const struct probe *p, enum kind k, bool compatible,
                       const struct shape *old, const struct shape *new, int arg)
{
    if (d->nch == d->capch) {
        d->capch = d->capch ? 2 * d->capch : 16;
        d->ch = xreallocarray(d->ch, d->capch, sizeof *d->ch);
    }
    d->ch[d->nch] = (struct change){p->provider, p->name, k, compatible, arg, old, new, d->nch};
    d->nch++;
}

/* The changes of one probe present on both sides. */
static void compare_probe(struct differ *d, const struct probe *op, const struct probe *np)
{
    struct shape *o = arena_alloc(&d->mem, sizeof *o), *n = arena_alloc(&d->mem, sizeof *n);
    shape_of(&d->mem, op, o);
    shape_of(&d->mem, np, n);
    size_t before = d->nch;
    if (!d->o->ignore_sites && o->nsites != n->nsites)
        add_change(d, np, CH_SITES, d->o->sites_compatible || n->nsites > o->nsites, o, n, 0);
    if (strcmp(o->counts, n->counts) != 0) {
        /* sizes alone cannot tell an argument appended from one inserted:
         * the positions after it are not compared */
        add_change(d, np, CH_ARG_COUNT, false, o, n, 0);
    } else {
        for (int a = 0; a < o->maxargs; a++)
            if (strcmp(o->sizes[a], n->sizes[a]) != 0)
                add_change(d, np, CH_ARG, false, o, n, a);
    }
    if (strcmp(o->semaphore, n->semaphore) != 0)
        add_change(d, np, CH_SEMAPHORE, false, o, n, 0);
    if (d->nch > before)
        d->changed++;
}

static int cmp_change(const void *a, const void *b)
{
    const struct change *x = a, *y = b;
    int c = strcmp(x->provider, y->provider);
    if (!c)
        c = strcmp(x->name, y->name);
    if (!c)
        c = x->seq < y->seq ? -1 : x->seq > y->seq;
    return c;
}

/* The changes of one row, into d->ch. */
static void compare_row(struct differ *d, const struct row *r)
{
    d->nch = 0;
    const struct unit *o = r->old, *n = r->new;
    for (size_t i = 0; o && i < o->nprobes; i++) {
        const struct probe *op = &o->probes[i];
        const struct probe *np = n ? unit_probe(n, op->provider, op->name) : NULL;
        d->probes++;
        if (np) {
            compare_probe(d, op, np);
        } else {
            struct shape *s = arena_alloc(&d->mem, sizeof *s);
            shape_of(&d->mem, op, s);
            add_change(d, op, CH_REMOVED, false, s, NULL, 0);
            d->removed++;
        }
    }
    for (size_t i = 0; n && i < n->nprobes; i++) {
        const struct probe *np = &n->probes[i];
        if (o && unit_probe(o, np->provider, np->name))
            continue;
        struct shape *s = arena_alloc(&d->mem, sizeof *s);
        shape_of(&d->mem, np, s);
        add_change(d, np, CH_ADDED, true, NULL, s, 0);
        d->probes++;
        d->added++;
    }
    if (d->nch > 1)
        qsort(d->ch, d->nch, sizeof *d->ch, cmp_change);
    for (size_t i = 0; i < d->nch; i++) {
        if (d->ch[i].compatible)
            d->compatible = true;
        else
            d->incompatible = true;
    }
}

/* ---- output ---- */

static void text_row(struct differ *d, const struct row *r)
{
    char a[96], b[96];
    if (r->by_soname)
        printf("= %s: compared with %s (the same SONAME %s)\n", r->shown, r->old->key,
               r->new->soname);
    if (r->old && r->new &&memcmp(&r->old->target, &r->new->target, sizeof r->old->target)) {
        describe_target(&r->old->target, a, sizeof a);
        describe_target(&r->new->target, b, sizeof b);
        if (strcmp(a, b) != 0)
            printf("= %s: %s -> %s\n", r->shown, a, b);
    }
    struct buf line = {0};
    for (size_t i = 0; i < d->nch; i++) {
        const struct change *c = &d->ch[i];
        line.len = 0;
        describe(&line, c);
        char sigil = c->kind == CH_ADDED     ? '+'
                     : c->kind == CH_REMOVED ? '-'
                     : c->compatible         ? '~'
                                             : '!';
        printf("%c %s: %s:%s: %s\n", sigil, r->shown, c->provider, c->name, line.data);
    }
    buf_free(&line);
}

static void json_shape(struct json *j, const char *key, const struct shape *s)
{
    json_key(j, key);
    json_open(j, '{');
    json_kv_int(j, "sites", (long long)s->nsites);
    json_kv_str(j, "argument_count", s->counts);
    json_key(j, "arguments");
    json_open(j, '[');
    for (int a = 0; a < s->maxargs; a++)
        json_str(j, s->sizes[a]);
    json_close(j, ']');
    json_kv_str(j, "semaphore", s->semaphore);
    json_close(j, '}');
}

/* What changed, as the keys of change c's object. */
static void json_change_values(struct json *j, const struct change *c)
{
    switch (c->kind) {
    case CH_ADDED:
        json_shape(j, "new", c->new);
        break;
    case CH_REMOVED:
        json_shape(j, "old", c->old);
        break;
    case CH_SITES:
        json_kv_int(j, "old", (long long)c->old->nsites);
        json_kv_int(j, "new", (long long)c->new->nsites);
        break;
    case CH_ARG_COUNT:
        json_kv_str(j, "old", c->old->counts);
        json_kv_str(j, "new", c->new->counts);
        break;
    case CH_ARG:
        json_kv_int(j, "argument", c->arg);
        json_kv_str(j, "old", c->old->sizes[c->arg]);
        json_kv_str(j, "new", c->new->sizes[c->arg]);
        break;
    case CH_SEMAPHORE:
        json_kv_str(j, "old", c->old->semaphore);
        json_kv_str(j, "new", c->new->semaphore);
        break;
    }
}

/* The object of change c; line is the caller's, for its message. */
static void json_change(struct json *j, const struct change *c, struct buf *line)
{
    json_open(j, '{');
    json_kv_str(j, "provider", c->provider);
    json_kv_str(j, "name", c->name);
    json_kv_str(j, "change", kind_names[c->kind]);
    json_kv_bool(j, "compatible", c->compatible);
    json_change_values(j, c);
    line->len = 0;
    describe(line, c);
    json_kv_str(j, "message", line->data);
    json_close(j, '}');
}

/* A row: its file, its two sides, then its changes. */
static void json_row(struct differ *d, const struct row *r)
{
    struct json *j = &d->j;
    json_open(j, '{');
    json_kv_str(j, "file", r->shown);
    json_kv_str(j, "matched_by", !r->old || !r->new ? NULL : r->by_soname ? "soname" : "path");
    const struct unit *sides[2] = {r->old, r->new};
    for (int s = 0; s < 2; s++) {
        json_key(j, s ? "new" : "old");
        if (!sides[s]) {
            json_null(j);
            continue;
        }
        json_unit_head(j, sides[s]);
        json_kv_int(j, "probes", (long long)sides[s]->nprobes);
        json_close(j, '}');
    }
    json_key(j, "changes");
    json_open(j, '[');
    struct buf line = {0};
    for (size_t i = 0; i < d->nch; i++)
        json_change(j, &d->ch[i], &line);
    buf_free(&line);
    json_close(j, ']');
    json_close(j, '}');
}

/* ---- pairing ---- */

static int cmp_row(const void *a, const void *b)
{
    const struct row *x = a, *y = b;
    int c = strcmp(x->shown, y->shown);
    return c ? c : x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The units of one side with one SONAME in one directory. */
struct named {
    size_t index; /* the last one */
    size_t count;
};

/* "directory\0soname" of a unit, for pairing by SONAME. */
static void soname_key(struct buf *k, const struct unit *u)
{
    const char *slash = strrchr(u->key, '/');
    k->len = 0;
    buf_add(k, u->key, slash ? (size_t)(slash - u->key) : 0);
    buf_addc(k, '\0');
    buf_adds(k, u->soname);
}

/* The rows being made of two sides' units, and which units are in one. */
struct pairing {
    const struct units *old, *new;
    bool *old_used, *new_used;
    struct row *rows;
    size_t n;
};

/* Old unit old_i and new unit new_i, as one row. */
static void pair(struct pairing *p, size_t old_i, size_t new_i, bool by_soname)
{
    p->rows[p->n++] = (struct row){NULL, p->old->v[old_i], p->new->v[new_i], by_soname, 0};
    p->old_used[old_i] = p->new_used[new_i] = true;
}

/* The units with the same key on both sides. */
static void pair_by_key(struct pairing *p)
{
    struct strmap by_key = {0};
    for (size_t i = 0; i < p->old->n; i++)
        strmap_put(&by_key, p->old->v[i]->key, strlen(p->old->v[i]->key), (void *)(i + 1));
    for (size_t i = 0; i < p->new->n; i++) {
        const struct unit *u = p->new->v[i];
        uintptr_t at = (uintptr_t)strmap_get(&by_key, u->key, strlen(u->key));
        if (at)
            pair(p, at - 1, i, false);
    }
    strmap_free(&by_key);
}

/* The units of us left over (not used), by soname_key into m. */
static void count_sonames(struct differ *d, const struct units *us, const bool *used,
                          struct strmap *m, struct buf *k)
{
    for (size_t i = 0; i < us->n; i++) {
        if (used[i] || !us->v[i]->soname)
            continue;
        soname_key(k, us->v[i]);
        struct named *x = strmap_get(m, k->data, k->len);
        if (!x) {
            x = arena_alloc(&d->mem, sizeof *x);
            strmap_put(m, k->data, k->len, x);
        }
        x->index = i;
        x->count++;
    }
}

/* A SONAME pairs two units left over when it names one unit in that
 * directory on each side. */
static void pair_by_soname(struct differ *d, struct pairing *p)
{
    struct strmap old_so = {0}, new_so = {0};
    struct buf k = {0};
    count_sonames(d, p->old, p->old_used, &old_so, &k);
    count_sonames(d, p->new, p->new_used, &new_so, &k);
    for (size_t i = 0; i < p->new->n; i++) {
        const struct unit *u = p->new->v[i];
        if (p->new_used[i] || !u->soname)
            continue;
        soname_key(&k, u);
        const struct named *mine = strmap_get(&new_so, k.data, k.len);
        const struct named *theirs = strmap_get(&old_so, k.data, k.len);
        if (mine->count == 1 && theirs && theirs->count == 1)
            pair(p, theirs->index, i, true);
    }
    buf_free(&k);
    strmap_free(&old_so);
    strmap_free(&new_so);
}

/* The units left over, each a row of its own. */
static void pair_rest(struct pairing *p)
{
    for (size_t i = 0; i < p->old->n; i++)
        if (!p->old_used[i])
            p->rows[p->n++] = (struct row){NULL, p->old->v[i], NULL, false, 0};
    for (size_t i = 0; i < p->new->n; i++)
        if (!p->new_used[i])
            p->rows[p->n++] = (struct row){NULL, NULL, p->new->v[i], false, 0};
}

/* The rows: pairs by key, then by SONAME, then what is left on each side;
 * sorted by the names they are shown by. */
static struct row *pair_units(struct differ *d, const struct units *old, const struct units *new,
                              size_t *nrows)
{
    struct pairing p = {old, new, NULL, NULL, NULL, 0};
    p.rows = xcalloc(old->n + new->n + 1, sizeof *p.rows);
    p.old_used = xcalloc(old->n + 1, sizeof *p.old_used);
    p.new_used = xcalloc(new->n + 1, sizeof *p.new_used);
    pair_by_key(&p);
    pair_by_soname(d, &p);
    pair_rest(&p);
    for (size_t i = 0; i < p.n; i++) {
        const struct unit *u = p.rows[i].new ? p.rows[i].new : p.rows[i].old;
        p.rows[i].shown = d->tree ? u->key : u->label;
        p.rows[i].seq = i;
    }
    if (p.n > 1)
        qsort(p.rows, p.n, sizeof *p.rows, cmp_row);
    free(p.old_used);
    free(p.new_used);
    *nrows = p.n;
    return p.rows;
}

/* ---- the whole ---- */

/* A path that cannot be stat'ed is no directory: reading it says why. */
static bool is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static void summary(struct differ *d, int status)
{
    const char *verdict = status == DIFF_SAME         ? "no change"
                          : status == DIFF_COMPATIBLE ? "compatible"
                                                      : "incompatible";
    if (d->o->json) {
        struct json *j = &d->j;
        json_key(j, "summary");
        json_open(j, '{');
        json_kv_int(j, "files", (long long)d->files);
        json_kv_int(j, "probes", (long long)d->probes);
        json_kv_int(j, "added", (long long)d->added);
        json_kv_int(j, "removed", (long long)d->removed);
        json_kv_int(j, "changed", (long long)d->changed);
        json_kv_str(j, "verdict", verdict);
        json_kv_int(j, "status", status);
        json_close(j, '}');
        json_close(j, '}');
    } else {
        printf("%zu file%s, %zu probe%s compared: ", d->files, d->files == 1 ? "" : "s", d->probes,
               d->probes == 1 ? "" : "s");
        if (status == DIFF_SAME)
            printf("no change\n");
        else
            printf("%zu added, %zu removed, %zu changed: %s\n", d->added, d->removed, d->changed,
                   verdict);
    }
}

int diff_run(const char *old_path, const char *new_path, const struct diff_options *o)
{
    bool old_dir = is_dir(old_path), new_dir = is_dir(new_path);
    if (old_dir != new_dir) {
        error("'%s' is a directory and '%s' is not: compare two files or two directories",
              old_dir ? old_path : new_path, old_dir ? new_path : old_path);
        return DIFF_ERROR;
    }
    struct units old = {0}, new = {0};
    int rc = units_read(&old, old_path, old_dir, &o->filter);
    if (units_read(&new, new_path, new_dir, &o->filter) != 0)
        rc = -1;
    if (rc != 0) {
        units_free(&old);
        units_free(&new);
        return DIFF_ERROR;
    }

    struct differ d = {.o = o, .tree = old_dir, .j = {.f = stdout, .first = true}};
    size_t nrows;
    struct row *rows = pair_units(&d, &old, &new, &nrows);
    if (o->json && !o->quiet) {
        json_open(&d.j, '{');
        json_kv_int(&d.j, "schema", SDT_LIST_SCHEMA);
        json_kv_str(&d.j, "kind", "diff");
        json_kv_str(&d.j, "old", old_path);
        json_kv_str(&d.j, "new", new_path);
        json_key(&d.j, "files");
        json_open(&d.j, '[');
    }
    for (size_t i = 0; i < nrows; i++) {
        const struct row *r = &rows[i];
        if ((!r->old || !r->old->nprobes) && (!r->new || !r->new->nprobes))
            continue; /* no probes on either side: nothing to compare */
        d.files++;
        compare_row(&d, r);
        if (o->quiet)
            continue;
        if (o->json)
            json_row(&d, r);
        else
            text_row(&d, r);
    }
    int status = d.incompatible ? DIFF_INCOMPATIBLE : d.compatible ? DIFF_COMPATIBLE : DIFF_SAME;
    if (o->json && !o->quiet)
        json_close(&d.j, ']');
    if (!o->quiet)
        summary(&d, status);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        error("cannot write the comparison: %s", strerror(errno));
        status = DIFF_ERROR;
    }
    free(rows);
    free(d.ch);
    arena_free(&d.mem);
    units_free(&old);
    units_free(&new);
    return status;
}
