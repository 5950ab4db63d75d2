/* SPDX-License-Identifier: MIT */
/*
 * util.c: checked allocation (running out of memory ends a one-shot
 * program), growable buffers, arenas, string vectors, a string hash map,
 * shell-like word splitting, path helpers and C identifiers.
 */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- allocation: running out of memory ends a one-shot program ---- */

void *xmalloc(size_t size)
{
    void *p = malloc(size ? size : 1);
    if (!p)
        diag_out_of_memory();
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        diag_out_of_memory();
    return p;
}

void *xrealloc(void *ptr, size_t size)
{
    void *p = realloc(ptr, size ? size : 1);
    if (!p)
        diag_out_of_memory();
    return p;
}

void *xreallocarray(void *ptr, size_t count, size_t size)
{
    if (size && count > SIZE_MAX / size)
        diag_out_of_memory();
    return xrealloc(ptr, count * size);
}

char *xstrndup(const char *s, size_t n)
{
    char *p = xmalloc(n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *xstrdup(const char *s) { return xstrndup(s, strlen(s)); }

/* ---- buffers ---- */

void buf_reserve(struct buf *b, size_t extra)
{
    if (extra > SIZE_MAX - b->len - 1)
        diag_out_of_memory();
    size_t need = b->len + extra + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    b->data = xrealloc(b->data, cap);
    b->cap = cap;
}

void buf_adds(struct buf *b, const char *s) { buf_add(b, s, strlen(s)); }

void buf_cat(struct buf *b, ...)
{
    va_list ap;
    va_start(ap, b);
    for (const char *s; (s = va_arg(ap, const char *));)
        buf_adds(b, s);
    va_end(ap);
}

void buf_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char small[256];
    int n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n < sizeof small) {
        buf_add(b, small, (size_t)n);
        return;
    }
    buf_reserve(b, (size_t)n);
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
}

void buf_add_upper(struct buf *b, const char *s, size_t len)
{
    buf_reserve(b, len); /* room for it all: one check, not one per byte */
    char *out = b->data + b->len;
    for (size_t i = 0; i < len; i++)
        out[i] = (s[i] >= 'a' && s[i] <= 'z') ? (char)(s[i] - 'a' + 'A') : s[i];
    b->len += len;
    b->data[b->len] = '\0';
}

void buf_free(struct buf *b)
{
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
}

/* ---- arenas ---- */

struct arena_chunk {
    struct arena_chunk *next;
    size_t used;
    size_t cap;
    max_align_t data[];
};

/* size bytes at an offset that is a multiple of align (1 or 16) in the
 * newest chunk, or in a new one when they do not fit. */
static inline void *arena_place(struct arena *a, size_t size, size_t align)
{
    struct arena_chunk *c = a->head;
    size_t start = c ? (c->used + align - 1) & ~(align - 1) : 0;
    if (!c || start > c->cap || c->cap - start < size) {
        size_t cap = c && c->cap < (1u << 20) ? c->cap * 2 : 1u << 16;
        if (cap < size)
            cap = size;
        if (cap > SIZE_MAX - sizeof *c)
            diag_out_of_memory();
        c = xmalloc(sizeof *c + cap);
        c->next = a->head;
        c->cap = cap;
        a->head = c;
        start = 0;
    }
    c->used = start + size;
    return (char *)c->data + start;
}

void *arena_alloc(struct arena *a, size_t size)
{
    void *p = arena_place(a, size, 16);
    memset(p, 0, size);
    return p;
}

/* Strings need no alignment: names and types are mostly a few bytes. */
char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        diag_out_of_memory();
    char *p = arena_place(a, n + 1, 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

void arena_free(struct arena *a)
{
    struct arena_chunk *c = a->head;
    while (c) {
        struct arena_chunk *next = c->next;
        free(c);
        c = next;
    }
    a->head = NULL;
}

/* ---- string vectors ---- */

void strvec_pushn(struct strvec *sv, const char *s, size_t n)
{
    if (sv->n + 1 >= sv->cap) {
        sv->cap = sv->cap ? sv->cap * 2 : 8;
        sv->v = xreallocarray(sv->v, sv->cap, sizeof *sv->v);
    }
    sv->v[sv->n++] = xstrndup(s, n);
    sv->v[sv->n] = NULL; /* always usable as an argv */
}

void strvec_push(struct strvec *sv, const char *s) { strvec_pushn(sv, s, strlen(s)); }

void strvec_free(struct strvec *sv)
{
    for (size_t i = 0; i < sv->n; i++)
        free(sv->v[i]);
    free(sv->v);
    sv->v = NULL;
    sv->n = sv->cap = 0;
}

/* ---- hash map ---- */

/* FNV-1a, 32 bits, from basis, then a final mix: FNV's low bits alone
 * cluster on names that differ only at the end (p1, p2, ...), and the table
 * indexes with the low bits. */
static uint32_t fnv_mixed(uint32_t basis, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint32_t h = basis;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= 16777619u;
    }
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

uint32_t hash_bytes(const void *data, size_t len) { return fnv_mixed(2166136261u, data, len); }

/*
 * The maps hash with a key drawn once per run, so that no input can hold
 * names prepared to share a bucket (90,000 such provider names took 11 s
 * instead of 0.07 s, quadratic).  Only lookups see it: nothing iterates a
 * map in an order that reaches the output, which stays the same bytes.
 */
static uint32_t map_basis(void)
{
    static uint32_t basis; /* one-shot CLI state, like program_name */
    static bool drawn;
    if (drawn)
        return basis;
    uint32_t r = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0 || read(fd, &r, sizeof r) != (ssize_t)sizeof r) {
        /* No /dev (a bare chroot): where we were loaded, and when. */
        uintptr_t here = (uintptr_t)&basis;
        r = (uint32_t)here ^ (uint32_t)(here >> 16 >> 16) ^ (uint32_t)time(NULL) ^
            (uint32_t)getpid() << 16;
    }
    if (fd >= 0)
        close(fd);
    basis = 2166136261u ^ r;
    drawn = true;
    return basis;
}

static uint32_t map_hash(const void *key, size_t len) { return fnv_mixed(map_basis(), key, len); }

static struct strmap_slot *strmap_find(const struct strmap *m, const char *key, size_t keylen,
                                       uint32_t h)
{
    size_t mask = m->cap - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        struct strmap_slot *s = &m->slots[i];
        if (!s->key)
            return s;
        if (s->hash == h && s->keylen == keylen && memcmp(s->key, key, keylen) == 0)
            return s;
    }
}

static void strmap_resize(struct strmap *m, size_t cap)
{
    struct strmap old = *m;
    m->cap = cap;
    m->slots = xcalloc(m->cap, sizeof *m->slots);
    for (size_t i = 0; i < old.cap; i++) {
        struct strmap_slot *s = &old.slots[i];
        if (s->key)
            *strmap_find(m, s->key, s->keylen, s->hash) = *s;
    }
    free(old.slots);
}

static void strmap_grow(struct strmap *m) { strmap_resize(m, m->cap ? m->cap * 2 : 64); }

void strmap_reserve(struct strmap *m, size_t n)
{
    if (n > SIZE_MAX / 8 / sizeof *m->slots)
        diag_out_of_memory();
    size_t cap = m->cap ? m->cap : 64;
    while (n * 4 > cap * 3)
        cap *= 2;
    if (cap != m->cap)
        strmap_resize(m, cap);
}

void *strmap_get(const struct strmap *m, const char *key, size_t keylen)
{
    if (!m->cap)
        return NULL;
    struct strmap_slot *s = strmap_find(m, key, keylen, map_hash(key, keylen));
    return s->key ? s->value : NULL;
}

static struct strmap_slot *strmap_slot_for(struct strmap *m, const char *key, size_t keylen,
                                           bool *found)
{
    if ((m->count + 1) * 4 > m->cap * 3)
        strmap_grow(m);
    uint32_t h = map_hash(key, keylen);
    struct strmap_slot *s = strmap_find(m, key, keylen, h);
    *found = s->key != NULL;
    if (!*found) {
        s->key = arena_strndup(&m->keys, key, keylen);
        s->keylen = keylen;
        s->hash = h;
        s->value = NULL;
        m->count++;
    }
    return s;
}

void *strmap_put(struct strmap *m, const char *key, size_t keylen, void *value)
{
    bool found;
    struct strmap_slot *s = strmap_slot_for(m, key, keylen, &found);
    if (found)
        return s->value;
    s->value = value;
    return NULL;
}

const char *strmap_intern(struct strmap *m, const char *key, size_t keylen)
{
    bool found;
    return strmap_slot_for(m, key, keylen, &found)->key;
}

void strmap_free(struct strmap *m)
{
    arena_free(&m->keys);
    free(m->slots);
    m->slots = NULL;
    m->cap = m->count = 0;
}

/* ---- shell-like word splitting ---- */

static bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* A backslash at p: it escapes the next character, or with a newline (also
 * before CR LF) joins lines; a trailing one stands for nothing.  Returns
 * what follows. */
static const char *split_backslash(const char *p, struct buf *word, bool *in_word)
{
    if (p[1] == '\n')
        return p + 2;
    if (p[1] == '\r' && p[2] == '\n')
        return p + 3;
    if (p[1] == '\0')
        return p + 1;
    buf_addc(word, p[1]);
    *in_word = true;
    return p + 2;
}

/* '...' at p, every character as it is, into word.  Returns what follows
 * the closing quote, or NULL with *why set when there is none. */
static const char *split_single_quoted(const char *p, struct buf *word, const char **why)
{
    const char *q = strchr(p + 1, '\'');
    if (!q) {
        *why = "unterminated single quote";
        return NULL;
    }
    buf_add(word, p + 1, (size_t)(q - p - 1));
    return q + 1;
}

/* "..." at p, where a backslash escapes only " \ $ ` and joins lines,
 * into word.  Returns as split_single_quoted does. */
static const char *split_double_quoted(const char *p, struct buf *word, const char **why)
{
    p++;
    while (*p && *p != '"') {
        if (*p == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`')) {
            buf_addc(word, p[1]);
            p += 2;
        } else if (*p == '\\' && p[1] == '\n') {
            p += 2;
        } else {
            buf_addc(word, *p++);
        }
    }
    if (*p != '"') {
        *why = "unterminated double quote";
        return NULL;
    }
    return p + 1;
}

int split_words(const char *s, struct strvec *out, const char **why)
{
    struct buf word = {0};
    bool in_word = false;
    const char *p = s;
    while (p && *p) {
        if (is_blank(*p)) {
            if (in_word)
                strvec_pushn(out, word.data ? word.data : "", word.len);
            word.len = 0;
            in_word = false;
            p++;
        } else if (*p == '\\') {
            p = split_backslash(p, &word, &in_word);
        } else if (*p == '\'') {
            p = split_single_quoted(p, &word, why);
            in_word = true; /* even when empty */
        } else if (*p == '"') {
            p = split_double_quoted(p, &word, why);
            in_word = true;
        } else {
            buf_addc(&word, *p++);
            in_word = true;
        }
    }
    if (p && in_word)
        strvec_pushn(out, word.data ? word.data : "", word.len);
    buf_free(&word);
    return p ? 0 : -1;
}

/* ---- paths ---- */

const char *path_basename(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

char *path_dirname(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return xstrdup(".");
    while (slash > path && slash[-1] == '/')
        slash--;
    if (slash == path)
        return xstrdup("/");
    return xstrndup(path, (size_t)(slash - path));
}

char *path_join(const char *dir, const char *name)
{
    if (name[0] == '/' || strcmp(dir, ".") == 0)
        return xstrdup(name);
    struct buf b = {0};
    buf_adds(&b, dir);
    if (b.len && b.data[b.len - 1] != '/')
        buf_addc(&b, '/');
    buf_adds(&b, name);
    return b.data;
}
