/* SPDX-License-Identifier: MIT */
/*
 * sdt-list-json.c: sdt-list's JSON (sdt-list(1), JSON OUTPUT): a small
 * writer, and the listing written with it.
 *
 * Strings are written byte for byte: the printable ASCII characters as
 * themselves (a quote and a backslash escaped), every other byte as
 * \u00XX (or \n, \t, \r, \b, \f), so the output is ASCII whatever a note
 * or a file name holds, every parser accepts it, and a reader gets the
 * bytes back as the code points of the characters.  Addresses are strings
 * ("0x..."): a JSON number is a double to many readers (jq, JavaScript),
 * and a 64-bit address does not fit one.
 */
#include "../lib/elf.h"
#include "sdt-list.h"

#include <inttypes.h>

/* Inside a container opened flat: on one line. */
static bool flat(const struct json *j) { return j->flat_from && j->depth >= j->flat_from; }

/* Before an element of the container (after its comma, if any). */
static void newline(struct json *j)
{
    if (flat(j)) {
        if (!j->first)
            fputc(' ', j->f);
        return;
    }
    fputc('\n', j->f);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->f);
}

/* Before a value: the comma and line of an array element; nothing after a
 * key. */
static void before_value(struct json *j)
{
    if (j->key) {
        j->key = false;
    } else {
        if (!j->first)
            fputc(',', j->f);
        if (j->depth > 0)
            newline(j);
    }
    j->first = false;
}

void json_open(struct json *j, char bracket)
{
    assert(bracket == '{' || bracket == '[');
    before_value(j);
    fputc(bracket, j->f);
    j->depth++;
    j->first = true;
}

void json_open_flat(struct json *j, char bracket)
{
    json_open(j, bracket);
    if (!j->flat_from)
        j->flat_from = j->depth;
}

void json_close(struct json *j, char bracket)
{
    assert((bracket == '}' || bracket == ']') && j->depth > 0 && !j->key);
    if (!j->first && !flat(j)) {
        j->depth--;
        newline(j);
    } else {
        j->depth--;
    }
    if (j->flat_from > j->depth)
        j->flat_from = 0;
    fputc(bracket, j->f);
    j->first = false;
    if (j->depth == 0)
        fputc('\n', j->f);
}

/* The characters JSON escapes with a letter, and the letters. */
static const char escaped[] = "\"\\\n\t\r\b\f", letters[] = "\"\\ntrbf";

static void put_string(FILE *f, const char *s, size_t len)
{
    fputc('"', f);
    size_t run = 0; /* bytes written as themselves, not yet written */
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            run++;
            continue;
        }
        fwrite(s + i - run, 1, run, f);
        run = 0;
        const char *e = c ? strchr(escaped, c) : NULL;
        if (e)
            fprintf(f, "\\%c", letters[e - escaped]);
        else
            fprintf(f, "\\u%04x", c);
    }
    fwrite(s + len - run, 1, run, f);
    fputc('"', f);
}

void json_key(struct json *j, const char *key)
{
    assert(!j->key && j->depth > 0);
    if (!j->first)
        fputc(',', j->f);
    newline(j);
    put_string(j->f, key, strlen(key));
    fputs(": ", j->f);
    j->first = false;
    j->key = true;
}

void json_strn(struct json *j, const char *s, size_t len)
{
    before_value(j);
    put_string(j->f, s, len);
}

void json_str(struct json *j, const char *s)
{
    if (!s)
        json_null(j);
    else
        json_strn(j, s, strlen(s));
}

void json_int(struct json *j, long long v)
{
    before_value(j);
    fprintf(j->f, "%lld", v);
}

void json_bool(struct json *j, bool v)
{
    before_value(j);
    fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j)
{
    before_value(j);
    fputs("null", j->f);
}

void json_addr(struct json *j, uint64_t v)
{
    before_value(j);
    fprintf(j->f, "\"0x%" PRIx64 "\"", v);
}

void json_kv_str(struct json *j, const char *key, const char *s)
{
    json_key(j, key);
    json_str(j, s);
}

void json_kv_int(struct json *j, const char *key, long long v)
{
    json_key(j, key);
    json_int(j, v);
}

void json_kv_bool(struct json *j, const char *key, bool v)
{
    json_key(j, key);
    json_bool(j, v);
}

void json_kv_addr(struct json *j, const char *key, uint64_t v)
{
    json_key(j, key);
    json_addr(j, v);
}

static const char *type_name(unsigned type)
{
    switch (type) {
    case ET_REL:
        return "rel";
    case ET_EXEC:
        return "exec";
    case ET_DYN:
        return "dyn";
    case 4:
        return "core";
    default:
        return "other";
    }
}

void json_unit_head(struct json *j, const struct unit *u)
{
    char machine[48];
    json_open(j, '{');
    json_kv_str(j, "file", u->label);
    json_kv_str(j, "member", u->member);
    json_kv_int(j, "class", u->target.elfclass == ELFCLASS64 ? 64 : 32);
    json_kv_str(j, "byte_order", u->target.data == ELFDATA2MSB ? "big" : "little");
    json_kv_str(j, "machine", arch_machine_name(u->target.machine, machine, sizeof machine));
    json_kv_int(j, "e_machine", u->target.machine);
    json_kv_str(j, "type", type_name(u->type));
    json_kv_str(j, "build_id", u->build_id);
    json_kv_str(j, "soname", u->soname);
}

static bool has_semaphore(const struct site *s) { return s->semaphore || s->semaphore_relocated; }

static void json_args(struct json *j, const char *args)
{
    struct note_arg a[MAX_PROBE_ARGS];
    int n = note_args_split(args, a, MAX_PROBE_ARGS);
    json_key(j, "arguments");
    json_open(j, '[');
    for (int i = 0; i < n && i < MAX_PROBE_ARGS; i++) {
        json_open_flat(j, '{');
        json_key(j, "size");
        if (a[i].bytes)
            json_int(j, a[i].bytes);
        else
            json_null(j);
        json_kv_bool(j, "signed", a[i].is_signed);
        json_kv_bool(j, "float", a[i].is_float);
        json_key(j, "operand");
        json_strn(j, a[i].operand, a[i].operand_len);
        json_key(j, "text");
        json_strn(j, a[i].text, a[i].len);
        json_close(j, '}');
    }
    json_close(j, ']');
    json_kv_int(j, "argument_count", n);
}

void json_sites(struct json *j, const struct probe *p)
{
    json_key(j, "sites");
    json_open(j, '[');
    for (size_t i = 0; i < p->nsites; i++) {
        const struct site *s = &p->sites[i];
        json_open(j, '{');
        json_kv_addr(j, "pc", s->pc);
        json_kv_addr(j, "base", s->base);
        json_key(j, "semaphore");
        if (has_semaphore(s))
            json_addr(j, s->semaphore);
        else
            json_null(j);
        json_kv_str(j, "argument_string", s->args);
        json_args(j, s->args);
        json_close(j, '}');
    }
    json_close(j, ']');
}

static void json_probe(struct json *j, const struct probe *p)
{
    json_open(j, '{');
    json_kv_str(j, "provider", p->provider);
    json_kv_str(j, "name", p->name);
    json_key(j, "semaphore");
    const struct site *sem = NULL;
    for (size_t i = 0; i < p->nsites && !sem; i++)
        if (has_semaphore(&p->sites[i]))
            sem = &p->sites[i];
    if (sem)
        json_addr(j, sem->semaphore);
    else
        json_null(j);
    json_sites(j, p);
    json_close(j, '}');
}

void json_listing(FILE *f, const struct units *us)
{
    struct json j = {.f = f, .first = true};
    json_open(&j, '{');
    json_kv_int(&j, "schema", SDT_LIST_SCHEMA);
    json_kv_str(&j, "kind", "listing");
    json_key(&j, "files");
    json_open(&j, '[');
    for (size_t i = 0; i < us->n; i++) {
        const struct unit *u = us->v[i];
        json_unit_head(&j, u);
        json_key(&j, "probes");
        json_open(&j, '[');
        for (size_t k = 0; k < u->nprobes; k++)
            json_probe(&j, &u->probes[k]);
        json_close(&j, ']');
        json_close(&j, '}');
    }
    json_close(&j, ']');
    json_close(&j, '}');
}
