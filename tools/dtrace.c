/* SPDX-License-Identifier: MIT */
/*
 * dtrace.c: dtrace -h / dtrace -G, command line to result.
 *
 *   argv -> struct options -> each -s file: source -> parse -> output size, checks
 *        -> -h: emit_header | -G: objects_scan, choose_target, emit_object
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
    bool header;            /* -h */
    bool object;            /* -G */
    bool verbose;           /* -v */
    bool define_semaphores; /* --define-semaphores (with -h) */
    int bits;               /* -32 / -64, or 0 */
    const char *output;     /* -o */
    struct strvec inputs;   /* -s, in order */
    struct strvec objects;  /* the other words */
    struct cpp_options cpp;
    char *triplet; /* of dtrace's name, TRIPLET-dtrace (name_triplet) */
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
          "Environment: CPP (for -C), CC, CFLAGS and DEB_HOST_GNU_TYPE (the -G target when\n"
          "no OBJECT gives it).  Installed as TRIPLET-dtrace (aarch64-linux-gnu-dtrace ...),\n"
          "the -G target is TRIPLET's, and -C runs TRIPLET-cpp.  See dtrace(1).\n",
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
    static const char *const known[] = {"-h",      "-G",     "-C",        "-v",    "-k",
                                        "-32",     "-64",    "-fpic",     "-fPIC", "--no-pyparsing",
                                        "--types", "--help", "--version", "-s",    "-o",
                                        "-x",      "-I",     "-D",        "-U",    NULL};
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

/* An option with a value (-s, -o, -x, -I, -D, -U) at argv[*i], the value
 * attached or the next word (then *i moves on to it): 0, or 2 for a usage
 * error. */
static int value_option(int argc, char **argv, int *i, struct options *o)
{
    const char *a = argv[*i];
    const char *v = option_value(argc, argv, i, 2);
    if (!v)
        return usage_error("option '%s' requires an argument", a);
    if (a[1] == 's') {
        strvec_push(&o->inputs, v);
    } else if (a[1] == 'o') {
        o->output = v;
    } else if (a[1] == 'x') {
        /* accepted for compatibility */
    } else if (a[1] == 'D' && strcmp(v, "PIC") == 0) {
        /* libtool's -DPIC means nothing to a provider file */
    } else { /* -I, -D, -U: for the preprocessor */
        struct buf w = {0};
        buf_printf(&w, "-%c%s", a[1], v);
        strvec_push(&o->cpp.args, w.data);
        buf_free(&w);
    }
    return 0;
}

/* The option at argv[*i] (but "--"), its value too: 0 to go on, 2 for a
 * usage error, or -1 when --help/--version answered. */
static int parse_option(int argc, char **argv, int *i, struct options *o)
{
    const char *a = argv[*i];
    if (strcmp(a, "-h") == 0) {
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
    } else if (a[1] == 's' || a[1] == 'o' || a[1] == 'x' || a[1] == 'I' || a[1] == 'D' ||
               a[1] == 'U') {
        return value_option(argc, argv, i, o);
    } else {
        return unknown_option(a);
    }
    return 0;
}

/* The options read make sense together: 0, or 2 for a usage error. */
static int check_options(const struct options *o)
{
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

/* argv's words into o: the options, then whether they make sense
 * together.  0 to go on, 2 for a usage error, or -1 when --help/--version
 * answered. */
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
            continue;
        }
        int rc = parse_option(argc, argv, &i, o);
        if (rc != 0)
            return rc;
    }
    return check_options(o);
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

/* The -G object: its target from the objects given, or from $CC, the host
 * and -32/-64; its semaphores named as -D/-U and $CFLAGS say. */
static int build_object(const struct options *o, const struct program *prog, struct buf *out)
{
    struct objects_result res;
    struct build_env env;
    struct target t;
    struct buf from = {0};
    int rc = -1;
    bool env_loaded = false;
    if (objects_scan(prog, &o->objects, o->verbose, &res) != 0)
        goto done;
    if (build_env_load(&env, o->triplet) != 0)
        goto done;
    env_loaded = true;
    if (res.have_target) {
        t = res.target;
        buf_adds(&from, res.target_from);
    } else if (choose_target(&env, o->bits, &t, &from) != 0) {
        goto done;
    }
    enum semaphore_style style = semaphore_style(&env, &o->cpp.args);
    if (o->verbose) {
        char desc[128];
        target_describe(&t, desc, sizeof desc);
        info("object: %s (from %s); %s semaphores", desc, from.data,
             style == SEM_V1   ? "STAP_SDT_V1 (probe_semaphore)"
             : style == SEM_V2 ? "STAP_SDT_V2 (default visibility)"
                               : "hidden");
    }
    emit_object(prog, &t, style, out);
    rc = 0;
done:
    if (env_loaded)
        build_env_free(&env);
    free(res.target_from);
    buf_free(&from);
    return rc;
}

/* Before anything builds the names the output repeats for each probe. */
static int check_output_size(const struct options *o, const struct program *prog,
                             const struct header_options *hopt)
{
    uint64_t bound = o->header ? header_size_bound(prog, hopt) : object_size_bound(prog);
    if (bound <= MAX_OUTPUT_SIZE)
        return 0;
    error("the %s for these %zu probes would be larger than %zu MiB",
          o->header ? "header" : "object", prog->nprobes, MAX_OUTPUT_SIZE >> 20);
    return -1;
}

/* The header goes to the output as it is made: a header for 100,000
 * probes is over 100 MB, and never needs to be in memory whole. */
static int write_header(const struct options *o, const struct program *prog,
                        const struct header_options *hopt, const char *path)
{
    struct output *sink = output_open(path);
    if (!sink)
        return -1;
    struct buf last = {0};
    if (emit_header(prog, hopt, &last, sink) != 0 ||
        output_append(sink, last.data ? last.data : "", last.len) != 0) {
        buf_free(&last);
        output_discard(sink);
        return -1;
    }
    buf_free(&last);
    if (output_close(sink) != 0)
        return -1;
    if (o->verbose)
        info("wrote %s", path);
    return 0;
}

static int write_object(const struct options *o, const struct program *prog, const char *path)
{
    struct buf out = {0};
    int rc = -1;
    if (build_object(o, prog, &out) != 0)
        goto done;
    if (output_write(path, out.data ? out.data : "", out.len) != 0)
        goto done;
    if (o->verbose)
        info("wrote %s (%zu bytes)", path, out.len);
    rc = 0;
done:
    buf_free(&out);
    return rc;
}

/* Read and parse every -s file into prog.  0 or -1 (reported). */
static int load_inputs(const struct options *o, struct program *prog)
{
    if (o->verbose && o->cpp.enabled)
        info("preprocessor: %s (from %s)", o->cpp.cpp, o->cpp.from);
    for (size_t i = 0; i < o->inputs.n; i++) {
        struct buf text = {0};
        const char *path = o->inputs.v[i];
        size_t before = prog->nprobes;
        int rc = source_load(path, &o->cpp, &text);
        if (rc == 0)
            rc = parse_buffer(prog, path, text.data ? text.data : "", text.len, o->header);
        buf_free(&text);
        if (rc != 0)
            return -1;
        if (o->verbose)
            info("%s: %zu probe%s (%zu provider%s so far)%s", path, prog->nprobes - before,
                 prog->nprobes - before == 1 ? "" : "s", prog->nproviders,
                 prog->nproviders == 1 ? "" : "s", o->cpp.enabled ? ", preprocessed" : "");
    }
    return 0;
}

static int run(const struct options *o)
{
    struct program prog;
    struct header_options hopt = {&o->inputs, o->define_semaphores};
    char *dflt = NULL;
    int rc = -1;
    program_init(&prog);
    if (load_inputs(o, &prog) != 0 || check_output_size(o, &prog, &hopt) != 0 ||
        program_check(&prog) != 0)
        goto done;
    dflt = o->output ? NULL : default_output(o);
    const char *path = o->output ? o->output : dflt;
    if (o->header && o->verbose && o->objects.n)
        info("-h ignores the %zu object file%s given", o->objects.n, o->objects.n == 1 ? "" : "s");
    rc = o->header ? write_header(o, &prog, &hopt, path) : write_object(o, &prog, path);
done:
    free(dflt);
    program_free(&prog);
    return rc == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct options o;
    memset(&o, 0, sizeof o);
    o.triplet = argc > 0 ? name_triplet(argv[0]) : NULL;
    cpp_choose(&o.cpp, o.triplet);

    int rc = parse_options(argc, argv, &o);
    if (rc == 0)
        rc = run(&o);
    else if (rc < 0)
        rc = 0;
    strvec_free(&o.inputs);
    strvec_free(&o.objects);
    strvec_free(&o.cpp.args);
    buf_free(&o.cpp.own);
    free(o.triplet);
    diag_finish();
    return rc;
}
