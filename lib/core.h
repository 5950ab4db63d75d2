/* SPDX-License-Identifier: MIT */
/*
 * core.h: sdtkit's shared core, one section per file.
 *
 * Built once into build/libsdtcore.a; the programs (tools/) and the
 * run-time probe library (runtime/) link what they use.  Two tiers:
 *
 *   pure      arch.c, elfwrite.c, sha1.c, dso.c: tables and writers that
 *             never allocate, print or exit; the run-time library uses
 *             only these.
 *   programs  util.c, file.c, diag.c, spawn.c, output.c, target.c,
 *             elfread.c, fileread.c: for one-shot command-line programs,
 *             which may report errors on stderr and exit when memory runs
 *             out.
 *
 * The error idiom everywhere: a function returns 0 or -1 (or a pointer or
 * NULL).  In the programs tier, -1 means the error was reported already
 * (diag.c); a `why' out-parameter is used only where the caller reports,
 * and in the pure tier, which never reports.  Cleanup is one label at the
 * end of the function.  Invariants are asserted.
 */
#ifndef SDTKIT_LIB_CORE_H
#define SDTKIT_LIB_CORE_H

#include <assert.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* SDTKIT_VERSION (a string) comes from the top-level VERSION file: the Makefile
   passes it as -DSDTKIT_VERSION=\"x.y.z\", the one place the version is kept. */
#ifndef SDTKIT_VERSION
#error "build with -DSDTKIT_VERSION=\"$(cat VERSION)\" (the Makefile does)"
#endif

/* sys/sdt.h has STAP_PROBE1 .. STAP_PROBE12 and nothing beyond; every
 * tracer takes at most 12 arguments from a note. */
#define MAX_PROBE_ARGS 12

/* A run of bytes that need not be NUL-terminated. */
struct str {
    const char *s;
    size_t len;
};

/* clang-format off */
#define STR(lit) {lit, sizeof lit - 1} /* an initializer */
/* clang-format on */

/* ======================================================================
 * arch.c: the targets (pure)
 * ====================================================================== */

/* The ELF identity of a target: what an object for it says about itself. */
struct target {
    int elfclass;     /* ELFCLASS32 or ELFCLASS64 */
    int data;         /* ELFDATA2LSB or ELFDATA2MSB */
    unsigned machine; /* e_machine */
    unsigned flags;   /* e_flags */
    unsigned osabi;   /* EI_OSABI */
};

/* The target's name, for messages: "x86-64", "AArch64", "machine 1234". */
const char *arch_machine_name(unsigned machine, char *buf, size_t len);

/* The target an ELF header e[0..len) says (its class, byte order, OS
 * ABI, machine and flags): 0, or -1 when it is not a whole ELF header of a
 * known class and byte order. */
int elf_header_target(const unsigned char *e, size_t len, struct target *t);

/* A run-time probe stub on one target (see arch.c): the code of a function
 * called with a pointer to the argument slots, and how a note names slot
 * memory while its probe instruction runs. */
struct stub_arch {
    const char *name; /* Debian's name of the architecture (family) */
    unsigned machine;
    int elfclass;         /* 0: either class */
    unsigned char unit;   /* bytes per instruction unit: 1, 2 or 4 */
    uint32_t prologue[4]; /* puts the pointer in the base register */
    unsigned char prologue_len;
    uint32_t probe[2]; /* the instruction tracers trap on */
    unsigned char probe_len;
    uint32_t epilogue[2]; /* the return, and its delay slot */
    unsigned char epilogue_len;
    unsigned char align; /* of each stub; also its stride (a stub is smaller) */
    /* Slot memory in the note, as the target's GCC prints a memory operand:
     * at displacement 0, and at a displacement (printf: one %u). */
    const char *operand0, *operand;
    /* Where the probe instruction cannot reach every slot from one register
     * (SuperH: 60 bytes at most), slots from `far' on are addressed from a
     * second register that the prologue points `far' slots further on;
     * 0 elsewhere. */
    unsigned char far;
    const char *far_operand0, *far_operand;
    /* The object around the stubs: the size of a DT_HASH word (8 on Alpha
     * and 64-bit s390, glibc's Elf_Symndx there; 4 elsewhere), and whether
     * ld.so needs a GOT described by DT_MIPS_* entries (MIPS: it reads them
     * whatever the object holds). */
    unsigned char hash_word;
    bool mips_got;
};

/* The stub of t's machine and class, or NULL when it is not one of the 18
 * targets. */
const struct stub_arch *stub_arch_for(const struct target *t);
/* A stub's size in bytes (at most its alignment). */
size_t stub_size(const struct stub_arch *a);

/* ======================================================================
 * elfwrite.c: writing ELF files into a buffer (pure)
 * ====================================================================== */

/* Bytes written in a target's byte order into buf[0..cap).  Writing past
 * cap, or padding backwards, is a bug: asserted, and refused in every build
 * (overflow is set, and nothing more is written). */
struct elfw {
    unsigned char *buf;
    size_t len;
    size_t cap;
    int data; /* ELFDATA2LSB or ELFDATA2MSB */
    bool is64;
    bool overflow; /* a write did not fit: the buffer is incomplete */
};

struct elf_section {
    const char *name;
    uint32_t type;
    uint64_t flags;
    uint64_t addr;
    uint64_t size;
    uint32_t link;
    uint32_t info;
    uint64_t align;
    uint64_t entsize;
    /* Set by elf_layout(): */
    uint64_t offset;
    uint32_t name_off; /* in .shstrtab */
};

struct elf_phdr {
    uint32_t type;
    uint32_t flags;
    uint64_t offset;
    uint64_t vaddr;
    uint64_t filesz;
    uint64_t memsz;
    uint64_t align;
};

void elfw_init(struct elfw *w, const struct target *t, void *buf, size_t cap);
void elfw_put(struct elfw *w, uint64_t value, unsigned width); /* 1, 2, 4, 8 */
static inline void elfw_u16(struct elfw *w, uint64_t v) { elfw_put(w, v, 2); }
static inline void elfw_u32(struct elfw *w, uint64_t v) { elfw_put(w, v, 4); }
static inline void elfw_addr(struct elfw *w, uint64_t v) { elfw_put(w, v, w->is64 ? 8 : 4); }
void elfw_bytes(struct elfw *w, const void *data, size_t len);
/* Zeros up to offset off (the layout never goes backwards: asserted). */
void elfw_pad_to(struct elfw *w, uint64_t off);
/* 0 when every write fitted and the buffer is full, else -1. */
int elfw_done(const struct elfw *w);

/* Give each section (sec[1..n), sec[0] being the null section) its name's
 * offset in .shstrtab (sec[shstrndx], whose size this sets) and its file
 * offset, from `start' on, each at its alignment.  Returns where the
 * section header table goes (the end, aligned to the address size). */
uint64_t elf_layout(struct elf_section *sec, size_t n, size_t shstrndx, uint64_t start, bool is64);
/* elf_layout's two halves: the names alone; the offsets of sec[from..to)
 * alone, from `start' on (returns the end of the last). */
void elf_name_sections(struct elf_section *sec, size_t n, size_t shstrndx);
uint64_t elf_place_sections(struct elf_section *sec, size_t from, size_t to, uint64_t start);
/* The ELF header. */
void elfw_ehdr(struct elfw *w, const struct target *t, unsigned type, uint64_t entry,
               uint64_t phoff, size_t phnum, uint64_t shoff, size_t shnum, size_t shstrndx);
void elfw_phdr(struct elfw *w, const struct elf_phdr *ph);
void elfw_shdr(struct elfw *w, const struct elf_section *s);
void elfw_sym(struct elfw *w, uint32_t name, unsigned bind, unsigned type, unsigned other,
              unsigned shndx, uint64_t value, uint64_t size);
/* .shstrtab's contents: every section name in order, after a NUL. */
void elfw_shstrtab(struct elfw *w, const struct elf_section *sec, size_t n);
/* A note's header and name (padded to 4); the descriptor follows. */
void elfw_note_head(struct elfw *w, const char *name, uint32_t descsz, uint32_t type);
/* Alignment helper. */
static inline uint64_t align_up(uint64_t v, uint64_t a) { return a > 1 ? (v + a - 1) / a * a : v; }

/* ======================================================================
 * sha1.c, dso.c: the run-time probes' shared object (pure)
 * ====================================================================== */

/* SHA-1, for build-ids: init, update with the bytes, final. */
struct sha1 {
    uint32_t h[5];
    unsigned char buf[64];
    size_t used;    /* bytes in buf */
    uint64_t total; /* bytes hashed */
};

void sha1_init(struct sha1 *s);
void sha1_update(struct sha1 *s, const void *data, size_t len);
void sha1_final(struct sha1 *s, unsigned char out[20]);

/* One probe of a run-time provider. */
struct dso_probe {
    const char *name;         /* any string (the notes carry it as it is) */
    int nargs;                /* 0 .. MAX_PROBE_ARGS */
    const signed char *sizes; /* nargs sizes: 1, 2, 4, 8, negative when signed */
    const char *provider;     /* its provider, or NULL: the object's */
    size_t slot;              /* its slot, where the object says so (slotted) */
    bool hidden;              /* its note is of type DSO_NT_HIDDEN, which readers skip */
    /* Set by dso_layout(), addresses in the object (add the load base): */
    uint64_t stub;            /* the stub: call it with the argument slots */
    uint64_t pc;              /* its probe instruction, where tracers trap */
    uint64_t semaphore;       /* its semaphore, an unsigned short */
    uint64_t note, note_size; /* its note's offset in the file, and size */
};

enum {
    DSO_SECTIONS = 14,
    DSO_MAX_SLOTS = 1 << 20, /* slots in one object */
    /* The image's file offset and its RW segment's are multiples of this,
     * the largest page size of any target (64 KiB: aarch64, ppc64, mips),
     * so that offsets and addresses agree modulo every kernel's page size
     * and the two segments never share a page. */
    DSO_SEG = 0x10000,
    /* A note's type where it says NT_STAPSDT (3) while its probe is shown:
     * every tracer skips a note of another type in .note.stapsdt (bcc,
     * libbpf and gdb's BFD read type 3 alone), and changing the type word
     * alone keeps the notes around it where they were. */
    DSO_NT_HIDDEN = 0x7364,
    DSO_BUILD_ID_SIZE = 20
};

struct dso_layout {
    struct elf_section sec[DSO_SECTIONS];
    size_t nsec, nphdr;
    size_t build_id, hash, dynsym, dynstr, text, base, dynamic, got, probes, notes, symtab, strtab,
        shstrtab;
    uint64_t head_size;  /* the ELF and program headers: at offset 0, and the image's first bytes */
    uint64_t image_size; /* the loaded image, from d->image on */
    uint64_t rw;         /* where the RW segment starts, in the image */
    uint64_t tail, tail_size; /* section headers, .shstrtab, notes, symbols */
    uint64_t build_id_at; /* the build-id's bytes, in the file */
    char operand[MAX_PROBE_ARGS][32]; /* each argument slot's, as the notes write it */
    unsigned char operand_len[MAX_PROBE_ARGS];
};

/* A provider's shared object, or several providers'.  The caller sets
 * target, provider, probes and capacity (the slots: 0 means as many as
 * probes); dso_layout() the rest.  Probe i is in slot i, or in its own
 * slot when slotted (distinct slots, each below the capacity).
 *
 * The file has three parts: the headers at offset 0; the image, the part
 * that is loaded, at `image' (0, or a multiple of DSO_SEG: the headers at
 * 0 are then the image's first bytes again), whose bytes depend on the
 * target and the capacity alone but for the build-id; the tail, which
 * describes the probes and is not loaded, at `tail' (0: just after the
 * image), section headers first, so that the ELF header's e_shoff is the
 * tail's offset.  A reader finds everything from the headers at 0. */
struct dso {
    const struct target *target;
    const char *provider; /* any string: the provider of probes that name none */
    struct dso_probe *probes;
    size_t nprobes;
    size_t capacity;
    bool slotted;
    uint64_t image;   /* the image's file offset */
    uint64_t tail;    /* the tail's file offset, at least image + image_size, or 0 */
    const void *salt; /* hashed into the build-id after the file, or NULL */
    size_t salt_len;
    enum dso_hash {
        DSO_HASH_FILE, /* the build-id hashes the file (its build-id zero), then the salt */
        DSO_HASH_TAIL, /* the tail, then the salt */
        DSO_HASH_SALT  /* the salt alone, which then must name the object and its tail */
    } hash;
    /* Set by dso_layout(): */
    const struct stub_arch *arch;
    uint64_t size; /* of the file */
    struct dso_layout lo;
};

/* Lay the object out: sizes, offsets, each probe's addresses.  0, or -1
 * with *why (a machine without a stub, too many slots, a misplaced tail). */
int dso_layout(struct dso *d, const char **why);
/* Write the whole file into buf, d->size bytes (the parts, zeros between,
 * the build-id): 0, or -1 when the layout and the writer disagree (a bug:
 * nothing is written past d->size). */
int dso_write(const struct dso *d, void *buf);
/* Its parts, each into a buffer of its size (lo.head_size, image_size,
 * tail_size), the same way: the image with a zero build-id; the tail, and
 * the build-id it gives but with DSO_HASH_FILE (id may be NULL). */
int dso_write_head(const struct dso *d, void *buf);
int dso_write_image(const struct dso *d, void *buf);
int dso_write_tail(const struct dso *d, void *buf, unsigned char *id);
/* Where an object's slots are: slot i's stub at text + i * stride, its
 * semaphore at semaphores + 2 * i, addresses in the object.  What the
 * run-time library keeps of a laid-out object to reach its slots. */
struct dso_slots {
    uint64_t text, stride, semaphores;
};
struct dso_slots dso_slots(const struct dso *d);
uint64_t dso_slot_stub_at(const struct dso_slots *s, size_t slot);
uint64_t dso_slot_semaphore_at(const struct dso_slots *s, size_t slot);
/* Slot i's stub and semaphore in a laid-out object. */
uint64_t dso_slot_stub(const struct dso *d, size_t slot);
uint64_t dso_slot_semaphore(const struct dso *d, size_t slot);

/* ======================================================================
 * util.c: memory, buffers, maps, words, names (programs)
 * ====================================================================== */

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
/* Append s in upper case (ASCII letters only). */
void buf_add_upper(struct buf *b, const char *s, size_t len);
void buf_free(struct buf *b);

/* An arena: many small allocations freed at once, never moved. */
struct arena_chunk;
struct arena {
    struct arena_chunk *head;
};

void *arena_alloc(struct arena *a, size_t size); /* zeroed, 16-byte aligned */
char *arena_strndup(struct arena *a, const char *s, size_t n);
void arena_free(struct arena *a);

/* A growable vector of owned strings, always NULL-terminated (an argv). */
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

/* C identifiers, in ASCII (what a note's provider and name must be). */
static inline bool is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
static inline bool is_digit(int c) { return c >= '0' && c <= '9'; }
static inline bool is_ident_char(int c) { return is_ident_start(c) || is_digit(c); }
static inline bool is_identifier(const char *s)
{
    if (!is_ident_start((unsigned char)*s))
        return false;
    while (*++s)
        if (!is_ident_char((unsigned char)*s))
            return false;
    return true;
}

/* ======================================================================
 * file.c: reading files (programs)
 * ====================================================================== */

/* The largest provider file (or $CPP output) read: far beyond any real one,
 * and a clean error instead of memory exhaustion on /dev/zero. */
#define MAX_TEXT_SIZE ((size_t)256 << 20)
/* How long reading a FIFO waits for a process to open it for writing. */
#define FIFO_WAIT_SECONDS 5

/* open(), giving up with EINTR after FIFO_WAIT_SECONDS: only a FIFO blocks
 * there, until a process opens its other end. */
int open_waiting(const char *path, int flags);
/* Open path for reading only if it is a regular file, never blocking on a
 * FIFO: a descriptor (and its status in *st unless st is NULL), or -1 with
 * errno set (EISDIR for a directory, EINVAL for anything else that is not
 * a regular file). */
struct stat;
int open_regular(const char *path, struct stat *st);
/* Read fd to its end into out (NUL-terminated), at most max bytes: 0, or
 * -1 with errno set (EFBIG when there is more). */
int read_fd(int fd, size_t max, struct buf *out);
/* Read a provider file: a regular file, a pipe or FIFO (waiting at most
 * FIFO_WAIT_SECONDS for a writer), a character device; at most
 * MAX_TEXT_SIZE bytes, NUL-terminated.  0 or -1 (reported). */
int read_text(const char *path, struct buf *out);
/* Read an object file: a regular file only, any size (never blocks on a
 * FIFO, never reads a device forever).  0 or -1 (reported). */
int read_object(const char *path, struct buf *out);

/* ======================================================================
 * diag.c: diagnostics (programs)
 * ====================================================================== */

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
void error_at(const struct loc *loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void warning_at(const struct loc *loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void note_at(const struct loc *loc, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The word of words[] (NULL-terminated) closest to s, if close enough to
 * be a likely misspelling of it (and not s itself); else NULL. */
const char *diag_near(const char *s, size_t len, const char *const words[]);
/* Out of memory: report and exit 1. */
_Noreturn void diag_out_of_memory(void);
void diag_finish(void);

/* ======================================================================
 * spawn.c: running a program (programs)
 * ====================================================================== */

/* Run argv[0] (found on PATH) with stdin from /dev/null and stdout captured
 * into out, without a shell.  Returns 0 when it ran and exited 0; -1
 * otherwise, after reporting what happened as "WHAT: ...". */
int run_capture(char *const argv[], const char *what, struct buf *out);

/* ======================================================================
 * output.c: writing a result atomically (programs)
 * ====================================================================== */

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

/* ======================================================================
 * target.c: the ELF identity of a compiler's target (programs)
 * ====================================================================== */

/* From `cc -E -dM` output (lines "#define NAME VALUE"). 0, or -1 with *why. */
int target_from_macros(const char *text, size_t len, struct target *t, const char **why);
/* What this program itself was compiled for. */
int target_host(struct target *t, const char **why);
/* The 32- or 64-bit member of t's machine family (-32 / -64). */
int target_variant(struct target *t, int bits, const char **why);
/* Ask CC (split into words) with the given flags for its predefined macros.
 * 0, or -1 after reporting. */
int target_from_cc(const char *cc, const struct strvec *flags, struct target *t);
void target_describe(const struct target *t, char *out, size_t outlen);

/* ======================================================================
 * elfread.c: ELF files and ar archives in memory -> notes (programs)
 * ====================================================================== */

enum obj_kind {
    OBJ_ELF,
    OBJ_ARCHIVE,
    OBJ_THIN_ARCHIVE,
    OBJ_LLVM_BITCODE,
    OBJ_UNKNOWN,
};

/* What an ELF file says about itself.  Pointers are into the caller's
 * buffer. */
struct elf_info {
    struct target target;
    unsigned type;         /* e_type */
    bool has_stapsdt_base; /* a .stapsdt.base section */
    bool has_lto;          /* .gnu.lto_* sections (GCC LTO IR) */
    /* A .note.stapsdt section without contents (SHT_NOBITS): a separate
     * debug file made by a tool (eu-strip -f, or objcopy --only-keep-debug
     * of allocated notes) that left the notes in the stripped file. */
    bool notes_nobits;
    const char *soname; /* DT_SONAME, NUL-terminated, or NULL */
    /* The GNU build-id note's bytes (known from on_elf_done on), or NULL. */
    const unsigned char *build_id;
    size_t build_id_len;
    size_t nnotes; /* stapsdt notes seen */
};

/* One stapsdt note, decoded; the strings point into the caller's buffer
 * and are NUL-terminated within the descriptor when their flag says so. */
struct sdt_note {
    const char *section;    /* its section's name, NULL when unknown */
    uint64_t section_flags; /* sh_flags */
    uint64_t section_align; /* sh_addralign */
    uint32_t namesz;
    uint32_t descsz;
    uint32_t type;
    bool strings_ok;  /* provider, name and args all NUL-terminated in desc */
    bool desc_exact;  /* the descriptor ends exactly at the args' NUL */
    unsigned ptrsize; /* 4 or 8, from the ELF class */
    uint64_t pc;
    uint64_t base;
    uint64_t semaphore;
    /* In a relocatable object the addresses are zero until linked: a
     * relocation of the semaphore field says the note names a semaphore. */
    bool semaphore_relocated;
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

/* Where the note argument ("SIZE@OPERAND") starting at arg ends: at the
 * next space that a SIZE@ follows, or at the end of the string.  Operands
 * may hold spaces: GCC writes ARM's and AArch64's memory operands as
 * [x0, 8], and the notes copy them. */
const char *note_arg_end(const char *arg);
/* The number of arguments in a note's argument string. */
int note_arg_count(const char *args);

/* One argument of a note, SIZE@OPERAND, split (pointers into the string). */
struct note_arg {
    const char *text; /* the whole argument */
    size_t len;
    const char *size; /* SIZE: what precedes '@' (empty without '@') */
    size_t size_len;
    const char *operand; /* what follows '@' (the whole argument without '@') */
    size_t operand_len;
    int bytes;      /* 1, 2, 4 or 8; 0 when SIZE is none of them */
    bool is_signed; /* SIZE is negative */
    bool is_float;  /* SIZE has SystemTap's 'f' marker */
};

/* Split a note's argument string into out[0 .. max); returns how many
 * arguments there are (more than max when they do not all fit). */
int note_args_split(const char *args, struct note_arg *out, int max);

/* ======================================================================
 * fileread.c: object files on disk -> elfread (programs)
 * ====================================================================== */

enum {
    FILE_VERBOSE = 1,      /* say (info) what is skipped quietly */
    FILE_OBJECTS_ONLY = 2, /* a file that is not an ELF file, an archive or a
                              libtool object naming one is an error, not a
                              warning; so is LLVM bitcode */
};

/* Read the notes of one file on disk: an ELF file, an archive (thin ones
 * through their members), or a libtool .lo file.  The callbacks get a
 * label ("file" or "file(member)") where read_notes() passes the member.
 * flags: FILE_*.  0, or -1 when the file (not a thin member) cannot be
 * read. */
int file_read_notes(const char *path, const struct objread_ops *ops, unsigned flags);

/* The deepest directory tree dir_objects() walks. */
#define MAX_DIR_DEPTH 64

/* Every ELF file and ar archive under dir (by their first bytes), as paths
 * relative to dir, sorted bytewise, into out.  Only regular files count:
 * symbolic links are not followed (an unpacked package's links name files
 * of the same tree, and a loop cannot make the walk endless), FIFOs,
 * devices and sockets are never opened.  0, or -1 after reporting (what
 * could be listed is in out). */
int dir_objects(const char *dir, struct strvec *out);

#endif
