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
 */
#include "../lib/core.h"
#include "../lib/elf.h"

#include <inttypes.h>
#include <stdio.h>

struct lister {
    bool check;
    size_t violations;
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
static const char *check_arg(const char *a, size_t len)
{
    const char *at = memchr(a, '@', len);
    if (!at)
        return "an argument has no '@' (SIZE@OPERAND)";
    const char *p = a;
    if (*p == '-')
        p++;
    if (p == at || !(*p == '1' || *p == '2' || *p == '4' || *p == '8'))
        return "an argument's size is not 1, 2, 4 or 8 (negative when signed)";
    p++;
    if (p < at && *p == 'f')
        return "an argument has the float marker 'f' (libbpf, bcc and gdb reject it)";
    if (p != at)
        return "an argument's size is not 1, 2, 4 or 8 (negative when signed)";
    if ((size_t)(at + 1 - a) == len)
        return "an argument has an empty operand";
    return NULL;
}

static void check_args(struct lister *ls, const char *label, const struct sdt_note *n)
{
    int count = 0;
    for (const char *p = n->args; *p; count++) {
        const char *end = note_arg_end(p);
        size_t len = (size_t)(end - p);
        if (len == 0 || p[len - 1] == ' ') {
            violation(ls, label, n, "arguments are not separated by exactly one space");
            return;
        }
        const char *why = check_arg(p, len);
        if (why) {
            violation(ls, label, n, why);
            return;
        }
        p = *end ? end + 1 : end;
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
        warning("%s: a malformed stapsdt note; skipped", label);
    }
    if (ls->check)
        check_note(ls, label, n);
}

static void on_elf_done(void *ctx, const char *label, const struct elf_info *elf)
{
    struct lister *ls = ctx;
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
    warning("%s: %s; ignoring what follows", label, what);
}

static void usage(FILE *f) { fputs("Usage: sdt-list [--check] FILE...\n", f); }

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
          "  --check    also check every note against what tracers rely on (section,\n"
          "             name, type, descriptor size, identifiers, argument format,\n"
          "             .stapsdt.base); report problems on stderr and exit 1\n"
          "  --help     this text\n"
          "  --version  the version\n",
          stdout);
}

int main(int argc, char **argv)
{
    diag_set_program("sdt-list");
    struct lister ls = {0};
    struct strvec files = {0};
    bool only_files = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_files || a[0] != '-' || a[1] == '\0') {
            strvec_push(&files, a);
        } else if (strcmp(a, "--") == 0) {
            only_files = true;
        } else if (strcmp(a, "--check") == 0) {
            ls.check = true;
        } else if (strcmp(a, "--help") == 0) {
            help();
            strvec_free(&files);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("sdt-list (sdtkit) %s\n", SDTKIT_VERSION);
            strvec_free(&files);
            return 0;
        } else {
            fprintf(stderr, "sdt-list: unknown option '%s'\n", a);
            usage(stderr);
            strvec_free(&files);
            return 2;
        }
    }
    if (files.n == 0) {
        usage(stderr);
        return 2;
    }

    struct objread_ops ops = {
        .ctx = &ls,
        .on_note = on_note,
        .on_elf_done = on_elf_done,
        .on_problem = on_problem,
    };
    int rc = 0;
    for (size_t i = 0; i < files.n; i++)
        if (file_read_notes(files.v[i], &ops, false) != 0)
            rc = 1;
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
    strvec_free(&files);
    return rc;
}
