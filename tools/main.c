/* SPDX-License-Identifier: MIT */
/*
 * main.c: dtrace -h / dtrace -G, command line to result.
 *
 *   argv -> struct options -> each -s file: source -> parse -> output size, checks
 *        -> -h: emit_header | -G: objects_scan, target, emit_object
 *        -> output_write, or for -h the output opened once everything above
 *           succeeded and the header streamed into it
 *
 * Exit status: 0 success (warnings included), 1 error, 2 usage error.
 */
#include "dtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct options {
    bool header;        /* -h */
    bool object;        /* -G */
    bool verbose;       /* -v */
    bool define_semaphores; /* --define-semaphores (with -h) */
    int bits;           /* -32 / -64, or 0 */
    const char *output; /* -o */
    struct strvec inputs;  /* -s, in order */
    struct strvec objects; /* the other words */
    struct cpp_options cpp;
};

static void usage(FILE *f)
{
    fprintf(f, "Usage: dtrace [-h | -G] -s FILE.d [-s FILE.d ...] [-o OUTPUT] [-C] [-I DIR]\n"
               "              [-D NAME[=VALUE]] [-U NAME] [-32 | -64] [-v] [OBJECT ...]\n");
}

static void help(void)
{
    usage(stdout);
    fputs("\n"
          "Generate USDT probe definitions from a D provider file (sdtkit, a\n"
          "drop-in replacement for SystemTap's dtrace script).\n"
          "\n"
          "  -h          write a C header: PROVIDER_PROBE(...) and PROVIDER_PROBE_ENABLED()\n"
          "              macros (default output: ./FILE.h)\n"
          "  -G          write an ELF object defining the probe semaphores (default output:\n"
          "              ./FILE.o); OBJECT files are checked against the provider and set\n"
          "              the ELF class and machine\n"
          "  --define-semaphores\n"
          "              with -h: the header defines the semaphores itself (weak, hidden),\n"
          "              so no -G object is needed (linking one as well still works)\n"
          "  -s FILE     a provider file; may be repeated, all files are read\n"
          "  -o OUTPUT   the output file (replaced atomically)\n"
          "  -C          run the C preprocessor ($CPP, default cpp) on each input first\n"
          "  -I DIR, -D NAME[=VALUE], -U NAME\n"
          "              passed to the preprocessor, in order; -D STAP_SDT_V1 or\n"
          "              -D STAP_SDT_V2 (here or in $CFLAGS) select old semaphore names\n"
          "              and visibility for -G\n"
          "  -32, -64    the ELF class for -G when no OBJECT gives it\n"
          "  -v          say what is being done\n"
          "  -k          accepted for compatibility: no temporary files are ever made\n"
          "  -x ARG, -xARG, -fpic, -fPIC, -DPIC, --no-pyparsing, --types\n"
          "              accepted and ignored (Solaris and SystemTap options)\n"
          "  --help      this text\n"
          "  --version   the version\n"
          "\n"
          "Environment: CPP (for -C), CC and CFLAGS (the -G target when no OBJECT gives it).\n"
          "See dtrace(1).\n",
          stdout);
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", diag_program());
    fprintf(stderr, fmt, arg);
    fputc('\n', stderr);
    usage(stderr);
    return 2;
}

/* An unknown option, with the known one it is likely a misspelling of. */
static int unknown_option(const char *a)
{
    static const char *const known[] = {
        "-h", "-G", "-C", "-v", "-k", "-32", "-64", "-fpic", "-fPIC", "--no-pyparsing",
        "--types", "--help", "--version", "-s", "-o", "-x", "-I", "-D", "-U", NULL};
    const char *near = diag_near(a, strlen(a), known);
    if (!near)
        return usage_error("unknown option '%s'", a);
    fprintf(stderr, "%s: unknown option '%s'; did you mean '%s'?\n", diag_program(), a, near);
    usage(stderr);
    return 2;
}

/* Options taking a value, either attached (-Ifoo) or in the next word.
 * Returns the value, or NULL when it is missing. */
static const char *option_value(int argc, char **argv, int *i, size_t optlen)
{
    if (argv[*i][optlen])
        return argv[*i] + optlen;
    if (*i + 1 >= argc)
        return NULL;
    return argv[++*i];
}

/* 0 to go on, 2 for a usage error, or -1 when --help/--version answered. */
static int parse_options(int argc, char **argv, struct options *o)
{
    bool only_objects = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_objects || a[0] != '-' || a[1] == '\0') {
            strvec_push(&o->objects, a);
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_objects = true;
        } else if (strcmp(a, "-h") == 0) {
            o->header = true;
        } else if (strcmp(a, "-G") == 0) {
            o->object = true;
        } else if (strcmp(a, "-C") == 0) {
            o->cpp.enabled = true;
        } else if (strcmp(a, "-v") == 0) {
            o->verbose = true;
        } else if (strcmp(a, "-k") == 0) {
            /* nothing to keep */
        } else if (strcmp(a, "-32") == 0 || strcmp(a, "-64") == 0) {
            o->bits = a[1] == '3' ? 32 : 64;
        } else if (strcmp(a, "-fpic") == 0 || strcmp(a, "-fPIC") == 0 ||
                   strcmp(a, "--no-pyparsing") == 0 || strcmp(a, "--types") == 0) {
            /* accepted for compatibility */
        } else if (strcmp(a, "--define-semaphores") == 0) {
            o->define_semaphores = true;
        } else if (strcmp(a, "--help") == 0) {
            help();
            return -1;
        } else if (strcmp(a, "--version") == 0) {
            printf("dtrace (sdtkit) %s\n", SDTKIT_VERSION);
            return -1;
        } else if (a[1] == 's' || a[1] == 'o' || a[1] == 'x') {
            const char *v = option_value(argc, argv, &i, 2);
            if (!v)
                return usage_error("option '%s' requires an argument", a);
            if (a[1] == 's')
                strvec_push(&o->inputs, v);
            else if (a[1] == 'o')
                o->output = v;
        } else if (a[1] == 'I' || a[1] == 'D' || a[1] == 'U') {
            char opt[3] = {'-', a[1], '\0'};
            const char *v = option_value(argc, argv, &i, 2);
            if (!v)
                return usage_error("option '%s' requires an argument", a);
            if (a[1] == 'D' && strcmp(v, "PIC") == 0)
                continue; /* libtool's -DPIC means nothing to a provider file */
            struct buf w = {0};
            buf_printf(&w, "%s%s", opt, v);
            strvec_push(&o->cpp.args, w.data);
            buf_free(&w);
        } else {
            return unknown_option(a);
        }
    }
    if (o->header && o->object)
        return usage_error("%s", "-h and -G cannot be combined: run dtrace once for each");
    if (!o->header && !o->object)
        return usage_error("%s", "one of -h or -G is required");
    if (o->inputs.n == 0)
        return usage_error("%s", "no provider file: -s FILE.d is required");
    if (o->define_semaphores && !o->header)
        return usage_error("%s", "--define-semaphores goes with -h");
    return 0;
}

/* ./BASENAME.h or ./BASENAME.o, BASENAME being the first -s file's name
 * without its last extension (a leading dot is not an extension). */
static char *default_output(const struct options *o)
{
    const char *base = path_basename(o->inputs.v[0]);
    const char *dot = strrchr(base, '.');
    size_t n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
    struct buf b = {0};
    buf_add(&b, base, n);
    buf_adds(&b, o->header ? ".h" : ".o");
    return b.data;
}

/* Track -DNAME / -UNAME for the STAP_SDT_V1 / STAP_SDT_V2 names. */
static void track_define(const char *word, const char *next, bool *v1, bool *v2)
{
    if (word[0] != '-' || (word[1] != 'D' && word[1] != 'U'))
        return;
    const char *name = word[2] ? word + 2 : next;
    if (!name)
        return;
    size_t n = strcspn(name, "=");
    bool def = word[1] == 'D';
    if (n == 11 && strncmp(name, "STAP_SDT_V1", n) == 0)
        *v1 = def;
    else if (n == 11 && strncmp(name, "STAP_SDT_V2", n) == 0)
        *v2 = def;
}

/* Our -D/-U first, then $CFLAGS: the order SystemTap's compiler run saw. */
static int semaphore_style(const struct options *o, enum semaphore_style *style)
{
    bool v1 = false, v2 = false;
    for (size_t i = 0; i < o->cpp.args.n; i++)
        track_define(o->cpp.args.v[i], NULL, &v1, &v2);
    const char *cflags = getenv("CFLAGS");
    if (cflags) {
        struct strvec words = {0};
        const char *why = NULL;
        if (split_words(cflags, &words, &why) != 0) {
            error("cannot use CFLAGS: %s", why);
            strvec_free(&words);
            return -1;
        }
        for (size_t i = 0; i < words.n; i++)
            track_define(words.v[i], i + 1 < words.n ? words.v[i + 1] : NULL, &v1, &v2);
        strvec_free(&words);
    }
    *style = v1 ? SEM_V1 : v2 ? SEM_V2 : SEM_HIDDEN;
    return 0;
}

/* -m32 / -m64 among $CFLAGS (used only when $CC is not set). */
static int cflags_bits(void)
{
    const char *cflags = getenv("CFLAGS");
    int bits = 0;
    struct strvec words = {0};
    const char *why = NULL;
    if (cflags && split_words(cflags, &words, &why) == 0) {
        for (size_t i = 0; i < words.n; i++) {
            if (strcmp(words.v[i], "-m32") == 0)
                bits = 32;
            else if (strcmp(words.v[i], "-m64") == 0)
                bits = 64;
        }
    }
    strvec_free(&words);
    return bits;
}

/*
 * The -G target when no object gave one: the family from $CC (when set)
 * or from the host, then the class from -32/-64 (or -m32/-m64 in CFLAGS
 * when $CC is not set).
 */
static int choose_target(const struct options *o, struct target *t, const char **how)
{
    const char *cc = getenv("CC");
    const char *why = NULL;
    if (cc && *cc) {
        if (target_from_cc(cc, getenv("CFLAGS"), t) != 0)
            return -1;
        *how = "$CC";
    } else {
        if (target_host(t, &why) != 0) {
            error("%s", why);
            return -1;
        }
        *how = "the host";
    }
    int bits = o->bits;
    if (!bits && !(cc && *cc))
        bits = cflags_bits();
    if (bits) {
        if (target_variant(t, bits, &why) != 0) {
            error("%s", why);
            return -1;
        }
        *how = o->bits ? (bits == 32 ? "-32" : "-64") : "-m32/-m64 in $CFLAGS";
    }
    return 0;
}

static int build_object(const struct options *o, const struct program *prog, struct buf *out)
{
    struct objects_result res;
    int rc = objects_scan(prog, &o->objects, o->verbose, &res);
    struct target t;
    const char *how = NULL;
    char desc[128];
    if (rc == 0 && res.have_target) {
        t = res.target;
        how = res.target_from;
    } else if (rc == 0) {
        rc = choose_target(o, &t, &how);
    }
    enum semaphore_style style = SEM_HIDDEN;
    if (rc == 0)
        rc = semaphore_style(o, &style);
    if (rc == 0) {
        if (o->verbose) {
            target_describe(&t, desc, sizeof desc);
            info("object: %s (from %s); %s semaphores", desc, how,
                 style == SEM_V1 ? "STAP_SDT_V1 (probe_semaphore)"
                 : style == SEM_V2 ? "STAP_SDT_V2 (default visibility)" : "hidden");
        }
        emit_object(prog, &t, style, out);
    }
    free(res.target_from);
    return rc;
}

/* Before anything builds the names the output repeats for each probe. */
static int check_output_size(const struct options *o, const struct program *prog)
{
    uint64_t bound = o->header ? header_size_bound(prog, &o->inputs) : object_size_bound(prog);
    if (bound <= MAX_OUTPUT_SIZE)
        return 0;
    error("the %s for these %zu probes would be larger than %zu MiB",
          o->header ? "header" : "object", prog->nprobes, MAX_OUTPUT_SIZE >> 20);
    return -1;
}

/* The header goes to the output as it is made: a header for 100,000
 * probes is over 100 MB, and never needs to be in memory whole. */
static int write_header(const struct options *o, const struct program *prog, const char *path)
{
    struct output *sink = output_open(path);
    if (!sink)
        return -1;
    struct buf last = {0};
    int rc = emit_header(prog, &o->inputs, &last, sink);
    if (rc == 0)
        rc = output_append(sink, last.data ? last.data : "", last.len);
    buf_free(&last);
    if (rc != 0) {
        output_discard(sink);
        return -1;
    }
    rc = output_close(sink);
    if (rc == 0 && o->verbose)
        info("wrote %s", path);
    return rc;
}

static int run(const struct options *o)
{
    struct program prog;
    program_init(&prog);
    prog.skip_text = !o->header;
    prog.define_semaphores = o->define_semaphores;
    struct buf out = {0};
    int rc = 0;

    for (size_t i = 0; i < o->inputs.n && rc == 0; i++) {
        struct buf text = {0};
        const char *path = o->inputs.v[i];
        size_t before = prog.nprobes;
        rc = source_load(path, &o->cpp, &text);
        if (rc == 0)
            rc = parse_buffer(&prog, path, text.data ? text.data : "", text.len);
        if (rc == 0 && o->verbose)
            info("%s: %zu probe%s (%zu provider%s so far)%s", path, prog.nprobes - before,
                 prog.nprobes - before == 1 ? "" : "s", prog.nproviders,
                 prog.nproviders == 1 ? "" : "s", o->cpp.enabled ? ", preprocessed" : "");
        buf_free(&text);
    }
    if (rc == 0)
        rc = check_output_size(o, &prog);
    if (rc == 0)
        rc = program_check(&prog);

    char *dflt = rc == 0 && !o->output ? default_output(o) : NULL;
    const char *path = o->output ? o->output : dflt;
    if (rc == 0 && o->header) {
        if (o->verbose && o->objects.n)
            info("-h ignores the %zu object file%s given", o->objects.n,
                 o->objects.n == 1 ? "" : "s");
        rc = write_header(o, &prog, path);
    } else if (rc == 0) {
        rc = build_object(o, &prog, &out);
        if (rc == 0)
            rc = output_write(path, out.data ? out.data : "", out.len);
        if (rc == 0 && o->verbose)
            info("wrote %s (%zu bytes)", path, out.len);
    }
    free(dflt);
    buf_free(&out);
    program_free(&prog);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct options o;
    memset(&o, 0, sizeof o);
    const char *cpp = getenv("CPP");
    o.cpp.cpp = cpp && *cpp ? cpp : "cpp";

    int rc = parse_options(argc, argv, &o);
    if (rc == 0)
        rc = run(&o);
    else if (rc < 0)
        rc = 0;
    strvec_free(&o.inputs);
    strvec_free(&o.objects);
    strvec_free(&o.cpp.args);
    diag_finish();
    return rc;
}
