/* SPDX-License-Identifier: MIT */
/*
 * sdt-list.h: what the stages of sdt-list share, one section per file.
 *
 *   sdt-list.c         main: options, the text listing, --check
 *   sdt-list-probes.c  the notes of files and trees, gathered into probes
 *   sdt-list-json.c    JSON output (the listing's, and the writer --diff uses)
 *   sdt-list-diff.c    --diff: two builds' probes compared
 */
#ifndef SDTKIT_TOOLS_SDT_LIST_H
#define SDTKIT_TOOLS_SDT_LIST_H

#include "../lib/core.h"

#include <stdio.h>

/* The version of the JSON output's schema (sdt-list(1), JSON OUTPUT): it
 * changes only when a key changes meaning or goes; keys may be added. */
#define SDT_LIST_SCHEMA 1

/* Which probes to look at: --provider and --ignore-probe patterns
 * (fnmatch), none meaning every probe. */
struct filter {
    struct strvec providers;      /* a probe's provider matches one of these */
    struct strvec ignored_probes; /* and its PROVIDER:NAME none of these */
};

/* ======================================================================
 * sdt-list-probes.c: notes -> probes
 * ====================================================================== */

/* One note: a site of a probe. */
struct site {
    uint64_t pc, base, semaphore;
    bool semaphore_relocated;
    const char *args; /* the argument string */
};

/* A probe of one ELF file: its sites, in the order of their notes. */
struct probe {
    const char *provider, *name;
    struct site *sites;
    size_t nsites, cap;
};

/* One ELF file, or one member of an archive. */
struct unit {
    const char *label;  /* as sdt-list shows it: "path" or "path(member)" */
    const char *key;    /* what it is matched by in --diff: see unit_key (sdt-list-probes.c) */
    const char *member; /* the archive member's name, or NULL */
    struct target target;
    unsigned type;        /* e_type */
    const char *build_id; /* lower-case hex, or NULL */
    const char *soname;   /* or NULL */
    bool notes_nobits;
    struct probe *probes; /* in the order of their first notes */
    size_t nprobes, cap;
    struct strmap index; /* "provider\0name" -> probe number + 1 */
};

/* The units of one file or tree, and the memory they live in. */
struct units {
    struct unit **v;
    size_t n, cap;
    struct arena mem;
    struct strmap keys; /* the keys in use, to tell duplicates apart */
};

/* Read the units of path (an ELF file, an archive, or with tree a
 * directory: every object under it) into us, keeping the probes the filter
 * lets through.  A unit's key is its path relative to the tree (or "" for
 * the file itself), then "(member)" for an archive member.  Malformed
 * objects are errors.  0, or -1 after reporting. */
int units_read(struct units *us, const char *path, bool tree, const struct filter *f);
void units_free(struct units *us);
/* The probe of unit u named provider:name, or NULL. */
struct probe *unit_probe(const struct unit *u, const char *provider, const char *name);
/* Does the filter let the probe through? */
bool filter_keeps(const struct filter *f, const char *provider, const char *name);
/* Warn that label's notes are not in it (elf_info.notes_nobits). */
void warn_notes_nobits(const char *label);
/* The name of machine and class, as "ELF64 x86-64 (little-endian)". */
void describe_target(const struct target *t, char *buf, size_t len);

/* ======================================================================
 * sdt-list-json.c: JSON
 * ====================================================================== */

/* A JSON writer: values in order, commas and indentation kept for the
 * caller.  Strings are bytes: each byte outside printable ASCII is written
 * as \u00XX (\n, \t ... for the usual ones), so the output is ASCII and
 * the bytes come back from each character's code point. */
struct json {
    FILE *f;
    int depth;
    bool first;    /* no value yet at this depth */
    bool key;      /* a key was just written: its value follows */
    int flat_from; /* the depth of the container written on one line, or 0 */
};

void json_open(struct json *j, char bracket);  /* '{' or '[' */
void json_close(struct json *j, char bracket); /* '}' or ']' */
/* A container written on one line, whatever it holds. */
void json_open_flat(struct json *j, char bracket);
void json_key(struct json *j, const char *key);
void json_str(struct json *j, const char *s); /* NULL: null */
void json_strn(struct json *j, const char *s, size_t len);
void json_int(struct json *j, long long v);
void json_bool(struct json *j, bool v);
void json_null(struct json *j);
void json_addr(struct json *j, uint64_t v); /* "0x..." */
/* A key and its value. */
void json_kv_str(struct json *j, const char *key, const char *s);
void json_kv_int(struct json *j, const char *key, long long v);
void json_kv_bool(struct json *j, const char *key, bool v);
void json_kv_addr(struct json *j, const char *key, uint64_t v);
/* The object describing a unit's file, without its probes (keys "file",
 * "member", "class", ... : sdt-list(1)); the caller closes it. */
void json_unit_head(struct json *j, const struct unit *u);
/* A probe's sites and their arguments, as a "sites" key of an open object. */
void json_sites(struct json *j, const struct probe *p);
/* The whole listing of us: {"schema": ..., "files": [...]}; written when
 * every file has been read. */
void json_listing(FILE *f, const struct units *us);

/* ======================================================================
 * sdt-list-diff.c: --diff
 * ====================================================================== */

struct diff_options {
    bool json;
    bool quiet;
    bool ignore_sites;     /* site counts are not compared */
    bool sites_compatible; /* a change of site count is compatible */
    struct filter filter;
};

/* Exit statuses of --diff. */
enum {
    DIFF_SAME = 0,
    DIFF_COMPATIBLE = 1,   /* only additions */
    DIFF_INCOMPATIBLE = 2, /* something a tracer's user relies on changed or went */
    DIFF_ERROR = 3,
};

/* Compare the probes of old_path and new_path (both files or both
 * directories) and write the changes: one of the statuses above. */
int diff_run(const char *old_path, const char *new_path, const struct diff_options *o);

#endif
