/* SPDX-License-Identifier: MIT */
/*
 * dtrace.h: what the stages of the dtrace program share, on top of the
 * core (lib/core.h).  The program reads the same way it runs:
 *
 *   dtrace.c          argv -> options -> driver
 *   dtrace-source.c   the input text (read a file, or run $CPP for -C)
 *   dtrace-lex.c      text -> tokens with file, line and column
 *   dtrace-parse.c    tokens -> providers and probes
 *   dtrace-header.c   providers -> the -h header
 *   dtrace-scan.c     -G: the object files given, their target and a check
 *                     of their probes against the providers
 *   dtrace-target.c   -G: the target when no object gives it (dtrace's
 *                     name, $CC, $DEB_HOST_GNU_TYPE, the host, -32/-64)
 *                     and the semaphores' names ($CFLAGS, -D/-U)
 *   dtrace-object.c   providers -> the -G ELF relocatable object
 */
#ifndef SDTKIT_TOOLS_DTRACE_H
#define SDTKIT_TOOLS_DTRACE_H

#include "../lib/core.h"

/* Limits far beyond any real provider file that keep memory in proportion
 * to what a real one needs, whatever the input (dtrace-parse.c): */
#define MAX_NESTING 256     /* brackets open at once (clang's default too) */
#define MAX_ARG_TOKENS 4096 /* tokens in one argument declaration */
#define MAX_PROBES 1000000  /* probes, and providers, in all -s files */
/* The largest header or object written, checked before the names it
 * repeats are built: a 10,000-character provider name with 100,000 probes
 * (a 1.6 MB file) would otherwise make a 12 GB header.  100,000 probes
 * make an 80 MB one. */
#define MAX_OUTPUT_SIZE ((size_t)256 << 20)

/* ---- dtrace-source.c ---- */

struct cpp_options {
    bool enabled;       /* -C */
    const char *cpp;    /* the preprocessor: see cpp_choose */
    const char *from;   /* where cpp came from, for -v */
    struct strvec args; /* -I/-D/-U words in command-line order */
    struct buf own;     /* cpp, when made here */
};

/* -C's preprocessor: $CPP when set; else, for dtrace named TRIPLET-dtrace
 * (triplet, or NULL), TRIPLET-cpp when it is on $PATH (the target's
 * predefined macros, as TRIPLET-gcc's); else cpp. */
void cpp_choose(struct cpp_options *cpp, const char *triplet);

/* The text of one -s file: read as is, or its $CPP output with -C. */
int source_load(const char *path, const struct cpp_options *cpp, struct buf *text);

/* ---- dtrace-lex.c ---- */

enum token_kind {
    TK_EOF,
    TK_IDENT,
    TK_NUMBER,
    TK_STRING,
    TK_CHAR,
    TK_PUNCT,
};

struct token {
    enum token_kind kind;
    const char *text; /* points into the source buffer */
    size_t len;
    struct loc loc;
    bool space_before; /* whitespace, a comment or a line break precedes it */
    unsigned char kw;  /* the parser's: what the word is in a C type */
};

struct lexer {
    const char *start;
    const char *p;
    const char *end;
    const char *line_start; /* for columns */
    const char *file;       /* presumed file name (line markers change it) */
    int line;               /* presumed line number */
    bool at_bol;            /* only whitespace so far on this line */
    bool space;             /* whitespace seen since the last token */
    struct strmap *names;   /* interned file names */
};

void lexer_init(struct lexer *lx, const char *name, const char *text, size_t len,
                struct strmap *names);
/* The next token.  Returns 0, or -1 after reporting a lexical error. */
int lexer_next(struct lexer *lx, struct token *tok);

/* ---- dtrace-parse.c ---- */

struct arg {
    char *text;  /* the declaration as written, whitespace normalised */
    char *ctype; /* its C type for a prototype: no name, D string -> const char * */
    struct loc loc;
}; /* (text and ctype are NULL when the program was parsed without text) */

struct provider;

struct probe {
    char *name;
    struct loc loc;
    int nargs;
    struct arg *args;
    struct provider *provider;
    /* Set by program_check: the names the outputs give the probe. */
    struct str macro;     /* PROVIDER_PROBE */
    struct str semaphore; /* provider_probe_semaphore */
};

struct provider {
    char *name;
    struct loc loc;
    struct probe **probes;
    size_t nprobes;
    size_t cap;
};

struct program {
    struct provider **providers;
    size_t nproviders;
    size_t cap;
    size_t nprobes;
    struct strmap provider_index; /* name -> struct provider * */
    struct strmap probe_index;    /* provider address + probe name -> struct probe * */
    struct strmap names;          /* interned file names for locations */
    struct arena arena;           /* providers, probes, arguments, names */
};

void program_init(struct program *prog);
void program_free(struct program *prog);
/* Parse one input (a whole file's text) into prog.  with_text: keep each
 * argument's declaration and C type (-h); without, only the argument
 * counts (-G).  Returns 0, or -1 after reporting every error found.  Safe
 * on any bytes. */
int parse_buffer(struct program *prog, const char *name, const char *text, size_t len,
                 bool with_text);
/* Checks across all inputs: generated names that would collide.  Records
 * each probe's names (macro, semaphore) for the outputs.  0 or -1. */
int program_check(struct program *prog);
struct provider *program_find_provider(const struct program *prog, const char *name);
struct probe *program_find_probe(const struct program *prog, const char *provider,
                                 const char *name);

/* ---- dtrace-header.c ---- */

struct header_options {
    const struct strvec *inputs; /* the -s files, named in the header */
    bool define_semaphores;      /* --define-semaphores: the header defines each
                                    semaphore (weak), no -G needed */
};

/* At least the size of the header emit_header() writes, computed without
 * writing it (fuzz/parse_fuzz.c checks that it is never less). */
uint64_t header_size_bound(const struct program *prog, const struct header_options *opt);
/* The header, into out; with a sink, in pieces as it grows (out then
 * keeps only the last piece, which the caller writes).  -1 when writing to
 * the sink failed (reported), 0 otherwise. */
int emit_header(const struct program *prog, const struct header_options *opt, struct buf *out,
                struct output *sink);

/* ---- dtrace-scan.c ---- */

struct objects_result {
    bool have_target; /* some input was an ELF object */
    struct target target;
    char *target_from; /* the first object that set it (owned) */
};

/* Load every object named on the command line (error when one is missing),
 * take the ELF target from them (error when they disagree) and warn about
 * probes used in them that prog does not declare, or declares with another
 * number of arguments.  0 or -1. */
int objects_scan(const struct program *prog, const struct strvec *paths, bool verbose,
                 struct objects_result *res);

/* ---- dtrace-target.c ---- */

enum semaphore_style {
    SEM_HIDDEN, /* provider_probe_semaphore, hidden (default) */
    SEM_V2,     /* provider_probe_semaphore, default visibility (STAP_SDT_V2) */
    SEM_V1,     /* probe_semaphore, default visibility (STAP_SDT_V1) */
};

/* TRIPLET when dtrace's name (argv0's last component) is TRIPLET-dtrace
 * and TRIPLET has a '-' (a GNU triplet has at least cpu-system: not
 * sdtkit-dtrace); else NULL.  Owned by the caller. */
char *name_triplet(const char *argv0);

/* What -G takes from its environment, read once: $CC and $CFLAGS (split
 * into words as a shell would), $DEB_HOST_GNU_TYPE, and dtrace's name. */
struct build_env {
    const char *cc;       /* $CC, NULL when unset or empty */
    struct strvec cflags; /* $CFLAGS */
    const char *deb_host; /* $DEB_HOST_GNU_TYPE, NULL when unset or empty */
    const char *triplet;  /* name_triplet(argv[0]), or NULL */
};

/* triplet: name_triplet()'s, or NULL.  0, or -1 after reporting (CFLAGS
 * cannot be split). */
int build_env_load(struct build_env *env, const char *triplet);
void build_env_free(struct build_env *env);
/* The -G target when no object gave one: the family from the first of
 * dtrace's name (TRIPLET-dtrace), $CC, $DEB_HOST_GNU_TYPE and the host;
 * then the class from -32/-64 (bits, or 0), or else from -m32/-m64 in
 * $CFLAGS unless $CC was asked (with them).  Appends to *from where the
 * target came from, for -v.  0 or -1 (reported: a triplet that is none of
 * the 18 is an error). */
int choose_target(const struct build_env *env, int bits, struct target *t, struct buf *from);
/* The semaphores' names and visibility: STAP_SDT_V1 or STAP_SDT_V2 from
 * our -D/-U options, then $CFLAGS (the order SystemTap's compiler saw). */
enum semaphore_style semaphore_style(const struct build_env *env, const struct strvec *cpp_args);

/* ---- dtrace-object.c ---- */

/* At least the size of the object emit_object() writes. */
uint64_t object_size_bound(const struct program *prog);
/* Append the object to out. */
void emit_object(const struct program *prog, const struct target *t, enum semaphore_style style,
                 struct buf *out);

#endif
