/* SPDX-License-Identifier: MIT */
/*
 * dtrace.h: what the stages of the dtrace tool share.
 *
 * The program reads the same way it runs:
 *
 *   main.c          argv -> options -> driver
 *   source.c        the input text (read a file, or run $CPP for -C)
 *   tokenize.c      text -> tokens with file, line and column
 *   parse.c         tokens -> providers and probes
 *   emit_header.c   providers -> the -h header
 *   target.c        which ELF flavour -G writes (objects, -32/-64, $CC, host)
 *   objread.c       ELF objects and ar archives -> their .note.stapsdt notes
 *   objfile.c       object files on disk (archives, thin archives, .lo) -> objread
 *   objects.c       the -G object files: their target, and a check of their probes
 *   emit_object.c   providers -> the -G ELF relocatable object
 *   output.c        writing the result atomically
 *   spawn.c         running $CPP / $CC without a shell
 *   diag.c          diagnostics: message, source line and caret, colour, hints
 *   util.c          checked allocation, buffers, hash map, words
 */
#ifndef SDTKIT_TOOLS_DTRACE_H
#define SDTKIT_TOOLS_DTRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* SDTKIT_VERSION (a string) comes from the top-level VERSION file: the Makefile
   passes it as -DSDTKIT_VERSION=\"x.y.z\", the one place the version is kept. */
#ifndef SDTKIT_VERSION
#error "build with -DSDTKIT_VERSION=\"$(cat VERSION)\" (the Makefile does)"
#endif

/* sys/sdt.h has STAP_PROBE1 .. STAP_PROBE12 and nothing beyond. */
#define MAX_PROBE_ARGS 12

/* Limits far beyond any real provider file that keep memory in proportion
 * to what a real one needs, whatever the input (parse.c): */
#define MAX_NESTING 256          /* brackets open at once (clang's default too) */
#define MAX_ARG_TOKENS 4096      /* tokens in one argument declaration */
#define MAX_PROBES 1000000       /* probes, and providers, in all -s files */
/* The largest header or object written, checked before the names it
 * repeats are built: a 10,000-character provider name with 100,000 probes
 * (a 1.6 MB file) would otherwise make a 12 GB header.  100,000 probes
 * make an 80 MB one. */
#define MAX_OUTPUT_SIZE ((size_t)256 << 20)

/* ---- diag.c, util.c ---- */

/* A position in an input file, as the user knows it (after #line markers). */
struct loc {
    const char *file; /* interned; lives as long as the program */
    int line;
    int col;
};

void diag_set_program(const char *name);
const char *diag_program(void);
void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void error_at(const struct loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void warning_at(const struct loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void note_at(const struct loc *loc, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The word of words[] (NULL-terminated) closest to s, if close enough to
 * be a likely misspelling of it (and not s itself); else NULL. */
const char *diag_near(const char *s, size_t len, const char *const words[]);
void diag_finish(void);

void *xmalloc(size_t size);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *ptr, size_t size);
void *xreallocarray(void *ptr, size_t count, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* A growable byte buffer; data is always NUL-terminated for convenience. */
struct buf {
    char *data;
    size_t len;
    size_t cap;
};

void buf_reserve(struct buf *b, size_t extra);

/* Inline: the header and object writers append to buffers hundreds of
 * times per probe.  (len < cap whenever cap > 0: the NUL always fits.) */
static inline void buf_add(struct buf *b, const void *data, size_t len)
{
    if (b->cap - b->len <= len)
        buf_reserve(b, len);
    if (len)
        memcpy(b->data + b->len, data, len);
    b->len += len;
    b->data[b->len] = '\0';
}

static inline void buf_addc(struct buf *b, char c)
{
    if (b->cap - b->len <= 1)
        buf_reserve(b, 1);
    b->data[b->len++] = c;
    b->data[b->len] = '\0';
}

void buf_adds(struct buf *b, const char *s);
void buf_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append the strings given, up to a NULL (cheaper than printf for the
 * header, which is mostly fixed text). */
void buf_cat(struct buf *b, ...) __attribute__((sentinel));
void buf_zero(struct buf *b, size_t len);
void buf_free(struct buf *b);

/* An arena: many small allocations freed at once, never moved. */
struct arena_chunk;
struct arena {
    struct arena_chunk *head;
};

void *arena_alloc(struct arena *a, size_t size); /* zeroed, 16-byte aligned */
char *arena_strndup(struct arena *a, const char *s, size_t n);
void arena_free(struct arena *a);

/* A growable vector of owned strings. */
struct strvec {
    char **v;
    size_t n;
    size_t cap;
};

void strvec_push(struct strvec *sv, const char *s);
void strvec_pushn(struct strvec *sv, const char *s, size_t n);
void strvec_free(struct strvec *sv);

/* A hash map from byte strings to pointers (open addressing, linear probing). */
struct strmap_slot {
    char *key;
    size_t keylen;
    uint32_t hash;
    void *value;
};

struct strmap {
    struct strmap_slot *slots;
    size_t cap; /* a power of two, or 0 */
    size_t count;
    struct arena keys; /* the map's copies of its keys */
};

/* The same for the same bytes in every run (the header's include guard);
 * the maps hash with a key of their own, drawn for each run. */
uint32_t hash_bytes(const void *data, size_t len);
void *strmap_get(const struct strmap *m, const char *key, size_t keylen);
/* Insert key -> value.  Returns the existing value (and inserts nothing)
 * when the key is present, NULL otherwise. */
void *strmap_put(struct strmap *m, const char *key, size_t keylen, void *value);
/* Room for n keys in all without growing (a map sized once, not doubled). */
void strmap_reserve(struct strmap *m, size_t n);
/* The map's own copy of a key: interning. */
const char *strmap_intern(struct strmap *m, const char *key, size_t keylen);
void strmap_free(struct strmap *m);

/* Split a string into words like a POSIX shell does (blanks and newlines
 * separate, '...' and "..." quote, backslash escapes, backslash-newline
 * joins), without any expansion.  Returns 0, or -1 with *why set. */
int split_words(const char *s, struct strvec *out, const char **why);

/* The last path component, and the directory part ("." when none). */
const char *path_basename(const char *path);
char *path_dirname(const char *path);
char *path_join(const char *dir, const char *name);

/* The largest provider file (or $CPP output) read: far beyond any real one,
 * and a clean error instead of memory exhaustion on /dev/zero. */
#define MAX_TEXT_SIZE ((size_t)256 << 20)
/* How long reading a FIFO waits for a process to open it for writing. */
#define FIFO_WAIT_SECONDS 5

/* open(), giving up with EINTR after FIFO_WAIT_SECONDS: only a FIFO blocks
 * there, until a process opens its other end. */
int open_waiting(const char *path, int flags);
/* Read a provider file: a regular file, a pipe or FIFO (waiting at most
 * FIFO_WAIT_SECONDS for a writer), a character device; at most
 * MAX_TEXT_SIZE bytes, NUL-terminated.  0 or -1 (reported). */
int read_text(const char *path, struct buf *out);
/* Read an object file: a regular file only, any size (never blocks on a
 * FIFO, never reads a device forever).  0 or -1 (reported). */
int read_object(const char *path, struct buf *out);

/* ---- spawn.c ---- */

/* Run argv[0] (found on PATH) with stdin from /dev/null and stdout captured
 * into out, without a shell.  Returns 0 when it ran and exited 0; -1
 * otherwise, after reporting what happened as "WHAT: ...". */
int run_capture(char *const argv[], const char *what, struct buf *out);

/* ---- source.c ---- */

struct cpp_options {
    bool enabled;           /* -C */
    const char *cpp;        /* $CPP or "cpp" */
    struct strvec args;     /* -I/-D/-U words in command-line order */
};

/* The text of one -s file: read as is, or its $CPP output with -C. */
int source_load(const char *path, const struct cpp_options *cpp, struct buf *text);

/* ---- tokenize.c ---- */

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
bool token_is(const struct token *tok, const char *s);

/* ---- parse.c ---- */

struct arg {
    char *text;  /* the declaration as written, whitespace normalised */
    char *ctype; /* its C type for a prototype: no name, D string -> const char * */
    struct loc loc;
};  /* (text and ctype are NULL when the program was parsed with skip_text) */

struct provider;

struct probe {
    char *name;
    struct loc loc;
    int nargs;
    struct arg *args;
    struct provider *provider;
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
    bool skip_text;               /* set before parsing: no argument text
                                     (-G needs only the argument counts) */
    bool define_semaphores;       /* -h --define-semaphores: the header
                                     defines each semaphore (weak), no -G */
};

void program_init(struct program *prog);
void program_free(struct program *prog);
/* Parse one input (a whole file's text) into prog.  Returns 0, or -1 after
 * reporting every error found.  Safe on any bytes. */
int parse_buffer(struct program *prog, const char *name, const char *text, size_t len);
/* Checks across all inputs: generated names that would collide.  0 or -1. */
int program_check(const struct program *prog);
/* Append PROVIDER_PROBE with "__" -> "_", upper case (the macro name). */
void probe_macro_name(const struct probe *pr, struct buf *out);
/* Append provider_probe_semaphore (the default semaphore name). */
void probe_semaphore_name(const struct probe *pr, struct buf *out);
struct probe *program_find_probe(const struct program *prog, const char *provider,
                                 const char *name);

/* ---- emit_header.c ---- */

/* At least the size of the header emit_header() writes, computed without
 * writing it (fuzz/parse_fuzz.c checks that it is never less). */
uint64_t header_size_bound(const struct program *prog, const struct strvec *inputs);
/* The header, into out; with a sink, in pieces of about 1 MiB as it grows
 * (out then keeps only the last piece, which the caller writes).  -1 when
 * writing to the sink failed (reported), 0 otherwise. */
struct output;
int emit_header(const struct program *prog, const struct strvec *inputs, struct buf *out,
                struct output *sink);

/* ---- target.c ---- */

struct target {
    int elfclass;      /* 1 = ELFCLASS32, 2 = ELFCLASS64 */
    int data;          /* 1 = little endian, 2 = big endian */
    unsigned machine;  /* e_machine */
    unsigned flags;    /* e_flags */
    unsigned osabi;    /* EI_OSABI */
};

/* From `cc -E -dM` output (lines "#define NAME VALUE"). 0, or -1 with *why. */
int target_from_macros(const char *text, size_t len, struct target *t, const char **why);
/* What this dtrace itself was compiled for. */
int target_host(struct target *t, const char **why);
/* The 32- or 64-bit member of t's machine family (-32 / -64). */
int target_variant(struct target *t, int bits, const char **why);
/* Ask $CC $CFLAGS for its predefined macros. */
int target_from_cc(const char *cc, const char *cflags, struct target *t);
void target_describe(const struct target *t, char *out, size_t outlen);

/* ---- objread.c ---- */

enum obj_kind {
    OBJ_ELF,
    OBJ_ARCHIVE,
    OBJ_THIN_ARCHIVE,
    OBJ_LLVM_BITCODE,
    OBJ_UNKNOWN,
};

/* What an ELF file says about itself. */
struct elf_info {
    int elfclass;
    int data;
    unsigned type;    /* e_type */
    unsigned machine;
    unsigned flags;
    unsigned osabi;
    bool has_stapsdt_base; /* a .stapsdt.base section */
    bool has_lto;          /* .gnu.lto_* sections (GCC LTO IR) */
    size_t nnotes;         /* stapsdt notes seen */
};

/* One stapsdt note, decoded; the strings point into the caller's buffer
 * and are NUL-terminated within the descriptor when their flag says so. */
struct sdt_note {
    const char *section;      /* its section's name, NULL when unknown */
    uint64_t section_flags;   /* sh_flags */
    uint64_t section_align;   /* sh_addralign */
    uint32_t namesz;
    uint32_t descsz;
    uint32_t type;
    bool strings_ok;   /* provider, name and args all NUL-terminated in desc */
    bool desc_exact;   /* the descriptor ends exactly at the args' NUL */
    unsigned ptrsize;  /* 4 or 8, from the ELF class */
    uint64_t pc;
    uint64_t base;
    uint64_t semaphore;
    const char *provider;
    const char *name;
    const char *args;
};

struct objread_ops {
    void *ctx;
    /* Every ELF file or archive member, before its notes. */
    void (*on_elf)(void *ctx, const char *member, const struct elf_info *elf);
    /* Every note named "stapsdt". */
    void (*on_note)(void *ctx, const char *member, const struct elf_info *elf,
                    const struct sdt_note *note);
    /* Every ELF file or member after its notes (elf->nnotes is final). */
    void (*on_elf_done)(void *ctx, const char *member, const struct elf_info *elf);
    /* A member of a thin archive: the caller may load that file itself. */
    void (*on_thin_member)(void *ctx, const char *name);
    /* Something malformed; reading goes on where it safely can. */
    void (*on_problem)(void *ctx, const char *member, const char *what);
};

/* Read the notes of an ELF file or an ar archive held in memory.  Never
 * reads outside buf[0..len).  member is NULL for a plain file. */
enum obj_kind read_notes(const unsigned char *buf, size_t len, const struct objread_ops *ops);

/* ---- objfile.c ---- */

/* Read the notes of one file on disk: an ELF file, an archive (thin ones
 * through their members), or a libtool .lo file.  The callbacks get a
 * label ("file" or "file(member)") where read_notes() passes the member.
 * 0, or -1 when the file (not a thin member) cannot be read. */
int objfile_read(const char *path, const struct objread_ops *ops, bool verbose);

/* ---- objects.c ---- */

struct objects_result {
    bool have_target;  /* some input was an ELF object */
    struct target target;
    char *target_from; /* the first object that set it (owned) */
};

/* Load every object named on the command line (error when one is missing),
 * take the ELF target from them (error when they disagree) and warn about
 * probes used in them that prog does not declare, or declares with another
 * number of arguments.  0 or -1. */
int objects_scan(const struct program *prog, const struct strvec *paths, bool verbose,
                 struct objects_result *res);

/* ---- emit_object.c ---- */

enum semaphore_style {
    SEM_HIDDEN,  /* provider_probe_semaphore, hidden (default) */
    SEM_V2,      /* provider_probe_semaphore, default visibility (STAP_SDT_V2) */
    SEM_V1,      /* probe_semaphore, default visibility (STAP_SDT_V1) */
};

/* At least the size of the object emit_object() writes. */
uint64_t object_size_bound(const struct program *prog);
void emit_object(const struct program *prog, const struct target *t,
                 enum semaphore_style style, struct buf *out);

/* ---- output.c ---- */

/* Replace path with data atomically (regular files), or write it straight
 * to a character device, FIFO or socket.  0, or -1 after reporting, with
 * any previous file left as it was and no temporary file left behind. */
int output_write(const char *path, const void *data, size_t len);

/* The same in pieces: output_open() (NULL after reporting), any number of
 * output_append(), then output_close() to put the result in place (0, or
 * -1 after reporting) or output_discard() to drop it.  Until then a regular
 * file's old contents stay as they were. */
struct output;
struct output *output_open(const char *path);
int output_append(struct output *o, const void *data, size_t len);
int output_close(struct output *o);
void output_discard(struct output *o);

#endif
