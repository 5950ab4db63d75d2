/* SPDX-License-Identifier: MIT */
/*
 * sdt-list.c: list the USDT probes (.note.stapsdt notes) of ELF files and
 * archive members, and with --check validate them against what every
 * tracer needs.
 *
 * Output, one line per note, fields separated by one tab:
 *
 *   FILE  PROVIDER  NAME  PC  BASE  SEMAPHORE  ARGUMENTS
 *
 * FILE is the path as given, or "archive(member)"; PC, BASE and SEMAPHORE
 * are "0x" and lower-case hex without padding (zero in relocatable
 * objects, where relocations fill them in); ARGUMENTS is the note's
 * argument string as is (empty for a probe without arguments).  Text
 * fields escape a backslash as \\, a tab as \t, a newline as \n and any
 * other byte outside printable ASCII as \xHH, so a line always has
 * exactly seven fields.
 *
 * --check reports on stderr, as "FILE: PROVIDER:NAME: problem", each note
 * that breaks a rule some consumer relies on (see consumers.md): the note
 * in an unallocated SHT_NOTE section named .note.stapsdt, 4-byte aligned;
 * name "stapsdt" with namesz 8; type 3; a descriptor of three addresses of
 * the file's pointer size then three NUL-terminated strings, ending exactly
 * at the last NUL; provider and name non-empty C identifiers; at most 12
 * arguments separated by single spaces, each SIZE@OPERAND with SIZE one of
 * 1, 2, 4, 8, -1, -2, -4, -8 (no "f" float marker); and, in linked files,
 * a .stapsdt.base section.  The exit status is then 1.
 *
 * --json writes the listing as JSON (sdt-list-json.c), and --diff OLD NEW
 * compares the probes of two builds (sdt-list-diff.c).  Options common to
 * them all, and the text listing and --check, are here.
 */
#include "sdt-list.h"
#include "../lib/elf.h"

#include <inttypes.h>
#include <stdio.h>

struct lister {
    bool check;
    size_t violations;
    size_t errors;
    const struct filter *filter;
    struct strmap reported; /* section problems already reported, per file */
};

static void put_escaped(FILE *f, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '\\')
            fputs("\\\\", f);
        else if (*p == '\t')
            fputs("\\t", f);
        else if (*p == '\n')
            fputs("\\n", f);
        else if (*p < 0x20 || *p >= 0x7f)
            fprintf(f, "\\x%02x", *p);
        else
            fputc(*p, f);
    }
}

static void violation(struct lister *ls, const char *label, const struct sdt_note *n,
                      const char *what)
{
    ls->violations++;
    fprintf(stderr, "%s: ", diag_program());
    put_escaped(stderr, label);
    fputs(": ", stderr);
    if (n && n->strings_ok) {
        put_escaped(stderr, n->provider);
        fputc(':', stderr);
        put_escaped(stderr, n->name);
        fputs(": ", stderr);
    }
    fprintf(stderr, "%s\n", what);
}

/* One argument, SIZE@OPERAND; NULL when fine, else what is wrong. */
static const char *check_arg(const struct note_arg *a)
{
    if (a->operand == a->text)
        return "an argument has no '@' (SIZE@OPERAND)";
    if (a->is_float)
        return "an argument has the float marker 'f' (libbpf, bcc and gdb reject it)";
    if (!a->bytes)
        return "an argument's size is not 1, 2, 4 or 8 (negative when signed)";
    if (a->operand_len == 0)
        return "an argument has an empty operand";
    return NULL;
}

static void check_args(struct lister *ls, const char *label, const struct sdt_note *n)
{
    struct note_arg args[MAX_PROBE_ARGS];
    int count = note_args_split(n->args, args, MAX_PROBE_ARGS);
    for (int i = 0; i < count && i < MAX_PROBE_ARGS; i++) {
        const struct note_arg *a = &args[i];
        if (a->len == 0 || a->text[a->len - 1] == ' ') {
            violation(ls, label, n, "arguments are not separated by exactly one space");
            return;
        }
        const char *why = check_arg(a);
        if (why) {
            violation(ls, label, n, why);
            return;
        }
    }
    if (count > MAX_PROBE_ARGS) {
        char msg[80];
        snprintf(msg, sizeof msg, "%d arguments; at most 12 are allowed", count);
        violation(ls, label, n, msg);
    }
}

/* Section-level problems, once per file and section. */
static void check_section(struct lister *ls, const char *label, const struct sdt_note *n)
{
    const char *sec = n->section ? n->section : "(unnamed)";
    struct buf key = {0};
    buf_printf(&key, "%s%c%s", label, 0, sec);
    bool fresh = strmap_put(&ls->reported, key.data, key.len, ls) == NULL;
    buf_free(&key);
    if (!fresh)
        return;
    char msg[160];
    if (!n->section || strcmp(n->section, ".note.stapsdt") != 0) {
        snprintf(msg, sizeof msg, "note in section '%.60s', not .note.stapsdt", sec);
        violation(ls, label, NULL, msg);
    }
    if (n->section_flags & SHF_ALLOC) {
        snprintf(msg, sizeof msg, "section %.60s is allocated (SHF_ALLOC)", sec);
        violation(ls, label, NULL, msg);
    }
    if (n->section_align != 4) {
        snprintf(msg, sizeof msg, "section %.60s is aligned to %" PRIu64 ", not 4", sec,
                 n->section_align);
        violation(ls, label, NULL, msg);
    }
}

static void check_note(struct lister *ls, const char *label, const struct sdt_note *n)
{
    char msg[120];
    check_section(ls, label, n);
    if (n->namesz != 8) {
        snprintf(msg, sizeof msg, "note name size is %" PRIu32 ", not 8", n->namesz);
        violation(ls, label, n, msg);
    }
    if (n->type != NT_STAPSDT) {
        snprintf(msg, sizeof msg, "note type is %" PRIu32 ", not 3", n->type);
        violation(ls, label, n, msg);
    }
    if (!n->strings_ok) {
        violation(ls, label, n,
                  "descriptor too short for three addresses and three NUL-terminated strings");
        return;
    }
    if (!n->desc_exact)
        violation(ls, label, n, "descriptor does not end at the argument string's NUL");
    if (!is_identifier(n->provider) || !is_identifier(n->name))
        violation(ls, label, n,
                  "provider or name is not a C identifier (or the address size does not match "
                  "the ELF class)");
    check_args(ls, label, n);
}

static void on_note(void *ctx, const char *label, const struct elf_info *elf,
                    const struct sdt_note *n)
{
    struct lister *ls = ctx;
    (void)elf;
    if (n->strings_ok && !filter_keeps(ls->filter, n->provider, n->name))
        return;
    if (n->strings_ok) {
        put_escaped(stdout, label);
        putchar('\t');
        put_escaped(stdout, n->provider);
        putchar('\t');
        put_escaped(stdout, n->name);
        printf("\t0x%" PRIx64 "\t0x%" PRIx64 "\t0x%" PRIx64 "\t", n->pc, n->base, n->semaphore);
        put_escaped(stdout, n->args);
        putchar('\n');
    } else if (!ls->check) {
        error("%s: a malformed stapsdt note (its descriptor does not hold three strings)", label);
        ls->errors++;
    }
    if (ls->check)
        check_note(ls, label, n);
}

static void on_elf_done(void *ctx, const char *label, const struct elf_info *elf)
{
    struct lister *ls = ctx;
    if (elf->notes_nobits)
        warn_notes_nobits(label);
    if (ls->check && elf->nnotes > 0 && (elf->type == ET_EXEC || elf->type == ET_DYN) &&
        !elf->has_stapsdt_base)
        violation(ls, label, NULL,
                  "linked file with probes but no .stapsdt.base section (gdb, perf and "
                  "systemtap need it)");
}

static void on_problem(void *ctx, const char *label, const char *what)
{
    struct lister *ls = ctx;
    if (ls->check) {
        violation(ls, label, NULL, what);
        return;
    }
    error("%s: %s", label, what);
    ls->errors++;
}

static void usage(FILE *f)
{
    fputs("Usage: sdt-list [--check | --json] [--provider PATTERN] [--ignore-probe PATTERN] "
          "FILE...\n"
          "       sdt-list --diff [--json] [-q] [--ignore-sites] [--sites-compatible]\n"
          "                [--provider PATTERN] [--ignore-probe PATTERN] OLD NEW\n",
          f);
}

static void help(void)
{
    usage(stdout);
    fputs("\n"
          "List the USDT probes (.note.stapsdt notes) of ELF files and archives, one\n"
          "per line, fields separated by a tab:\n"
          "\n"
          "  FILE  PROVIDER  NAME  PC  BASE  SEMAPHORE  ARGUMENTS\n"
          "\n"
          "FILE is the path or archive(member); addresses are 0x-prefixed hex; text is\n"
          "escaped (\\\\, \\t, \\n, \\xHH) so every line has seven fields.\n"
          "\n"
          "  --check     also check every note against what tracers rely on (section,\n"
          "              name, type, descriptor size, identifiers, argument format,\n"
          "              .stapsdt.base); report problems on stderr and exit 1\n"
          "  --json      write the listing (or the comparison) as JSON (schema 1)\n"
          "  --diff OLD NEW\n"
          "              compare the probes of two builds: two ELF files or archives,\n"
          "              or two directories (every object, matched by its path); one\n"
          "              line per change, then a summary.  Exit 0: no change; 1: only\n"
          "              additions; 2: a probe removed or changed; 3: an error\n"
          "  --ignore-sites      with --diff: do not compare the number of sites\n"
          "  --sites-compatible  with --diff: a changed number of sites is compatible\n"
          "  -q, --quiet         with --diff: print nothing, only exit with the status\n"
          "  --provider PATTERN  only the probes of providers matching PATTERN (a shell\n"
          "                      pattern; may be given again)\n"
          "  --ignore-probe PATTERN\n"
          "                      leave out the probes whose PROVIDER:NAME matches\n"
          "  --help      this text\n"
          "  --version   the version\n",
          stdout);
}

/* The value of option a (argv[*i]) named name: "--name=value" or
 * "--name value"; NULL when a is not that option. */
static const char *option_value(int argc, char **argv, int *i, const char *name, bool *missing)
{
    const char *a = argv[*i];
    size_t n = strlen(name);
    if (strncmp(a, name, n) != 0)
        return NULL;
    if (a[n] == '=')
        return a + n + 1;
    if (a[n] != '\0')
        return NULL;
    if (*i + 1 >= argc) {
        *missing = true;
        return NULL;
    }
    return argv[++*i];
}

static int list_text(const struct strvec *files, struct lister *ls)
{
    struct objread_ops ops = {
        .ctx = ls,
        .on_note = on_note,
        .on_elf_done = on_elf_done,
        .on_problem = on_problem,
    };
    int rc = 0;
    for (size_t i = 0; i < files->n; i++)
        if (file_read_notes(files->v[i], &ops, FILE_OBJECTS_ONLY) != 0)
            rc = 1;
    if (ls->errors)
        rc = 1;
    return rc;
}

static int list_json(const struct strvec *files, const struct filter *f)
{
    struct units us = {0};
    int rc = 0;
    for (size_t i = 0; i < files->n; i++)
        if (units_read(&us, files->v[i], false, f) != 0)
            rc = 1;
    json_listing(stdout, &us);
    units_free(&us);
    return rc;
}

/* What the command line asks for. */
struct options {
    struct strvec files;
    bool check, json, diff;
    struct diff_options d; /* --diff's, and the filter every listing uses */
};

/* The status of a usage error: 2, but 3 with --diff, whose 2 means
 * "incompatible". */
static int usage_status(int argc, char **argv)
{
    for (int i = 1; i < argc && strcmp(argv[i], "--") != 0; i++)
        if (strcmp(argv[i], "--diff") == 0)
            return DIFF_ERROR;
    return 2;
}

/* The option argv[*i] (and its value, *i then moving past it) into o: 0,
 * 1 after saying what is wrong with it, or -1 when --help or --version
 * answered. */
static int parse_option(int argc, char **argv, int *i, struct options *o)
{
    const char *a = argv[*i], *v;
    bool missing = false;
    if (strcmp(a, "--check") == 0) {
        o->check = true;
    } else if (strcmp(a, "--json") == 0) {
        o->json = true;
    } else if (strcmp(a, "--diff") == 0) {
        o->diff = true;
    } else if (strcmp(a, "--ignore-sites") == 0) {
        o->d.ignore_sites = true;
    } else if (strcmp(a, "--sites-compatible") == 0) {
        o->d.sites_compatible = true;
    } else if (strcmp(a, "-q") == 0 || strcmp(a, "--quiet") == 0) {
        o->d.quiet = true;
    } else if ((v = option_value(argc, argv, i, "--provider", &missing))) {
        strvec_push(&o->d.filter.providers, v);
    } else if ((v = option_value(argc, argv, i, "--ignore-probe", &missing))) {
        strvec_push(&o->d.filter.ignored_probes, v);
    } else if (missing) {
        fprintf(stderr, "sdt-list: option '%s' needs a value\n", a);
        return 1;
    } else if (strcmp(a, "--help") == 0) {
        help();
        return -1;
    } else if (strcmp(a, "--version") == 0) {
        printf("sdt-list (sdtkit) %s\n", SDTKIT_VERSION);
        return -1;
    } else {
        fprintf(stderr, "sdt-list: unknown option '%s'\n", a);
        return 1;
    }
    return 0;
}

/* Options that do not go together: false, or true after saying which. */
static bool options_conflict(const struct options *o)
{
    const struct diff_options *d = &o->d;
    if (o->diff && o->files.n != 2) {
        fprintf(stderr, "sdt-list: --diff compares two files or directories, OLD and NEW\n");
        return true;
    }
    if (o->diff && o->check) {
        fprintf(stderr, "sdt-list: --check lists and checks; it does not go with --diff\n");
        return true;
    }
    if (!o->diff && (d->ignore_sites || d->sites_compatible || d->quiet)) {
        fprintf(stderr,
                "sdt-list: --ignore-sites, --sites-compatible and --quiet go with --diff\n");
        return true;
    }
    if (o->json && o->check) {
        fprintf(stderr, "sdt-list: --check reports on stderr; it does not go with --json\n");
        return true;
    }
    return false;
}

/* 0 to go on, the usage status after the usage, or -1 when --help or
 * --version answered. */
static int parse_options(int argc, char **argv, struct options *o)
{
    bool only_files = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        int rc = 0;
        if (only_files || a[0] != '-' || a[1] == '\0')
            strvec_push(&o->files, a);
        else if (strcmp(a, "--") == 0)
            only_files = true;
        else
            rc = parse_option(argc, argv, &i, o);
        if (rc < 0)
            return -1;
        if (rc > 0)
            goto usage;
    }
    if (options_conflict(o) || o->files.n == 0)
        goto usage;
    return 0;
usage:
    usage(stderr);
    return usage_status(argc, argv);
}

/* The listing, or the comparison: the exit status. */
static int run(struct options *o)
{
    if (o->diff) {
        o->d.json = o->json;
        return diff_run(o->files.v[0], o->files.v[1], &o->d);
    }
    struct lister ls = {.check = o->check, .filter = &o->d.filter};
    int rc = o->json ? list_json(&o->files, &o->d.filter) : list_text(&o->files, &ls);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        error("cannot write the listing");
        rc = 1;
    }
    if (ls.violations) {
        fprintf(stderr, "sdt-list: %zu problem%s found\n", ls.violations,
                ls.violations == 1 ? "" : "s");
        rc = 1;
    }
    strmap_free(&ls.reported);
    return rc;
}

int main(int argc, char **argv)
{
    diag_set_program("sdt-list");
    struct options o = {0};
    int rc = parse_options(argc, argv, &o);
    if (rc == 0)
        rc = run(&o);
    else if (rc < 0)
        rc = 0;
    strvec_free(&o.files);
    strvec_free(&o.d.filter.providers);
    strvec_free(&o.d.filter.ignored_probes);
    return rc;
}
