/* SPDX-License-Identifier: MIT */
/*
 * elfread.c: ELF files and ar archives in memory -> their stapsdt notes.
 *
 * Built to survive hostile input (a fuzzer calls read_notes() directly):
 * every offset and size read from the file is checked against the buffer
 * with arithmetic that cannot overflow, counts are bounded by what the
 * buffer can hold, and nothing is trusted to be NUL-terminated.  Malformed
 * parts are reported through ops->on_problem and skipped.  The work stays
 * linear in the size of the input: note sections together may not cover
 * more bytes than the file has (overlapping ones could otherwise make a
 * small file read like a huge one), and names are looked for only within
 * MAX_NAME bytes.
 *
 * ELF: both classes and byte orders; section headers (with extended
 * section numbering) locate the SHT_NOTE sections; notes named "stapsdt"
 * are decoded, and the GNU build-id note and DT_SONAME are noted.  In
 * relocatable objects the pc, base and semaphore fields are still zero
 * (relocations fill them in at link time): that is normal, and whether
 * the semaphore field has a relocation tells whether the note names a
 * semaphore.  Relocation sections, like note sections, may together cover
 * no more bytes than the file has.
 *
 * ar: the common format ("!<arch>"), GNU ("name/", "//" long names,
 * "/N" references, "/" and "/SYM64/" symbol tables) and BSD ("#1/N")
 * member names; GNU thin archives ("!<thin>") hold no member data, so their
 * member names go to ops->on_thin_member for the caller to load.
 */
#include "core.h"
#include "elf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The longest section or archive member name we look at: real ones are far
 * shorter (a member of a thin archive is a path, so PATH_MAX); a longer
 * one is treated as malformed rather than scanned on every use. */
#define MAX_NAME 4096

struct elf {
    const unsigned char *buf;
    size_t len;
    int elfclass; /* 1 or 2 */
    int data;     /* 1 little, 2 big */
};

struct shdr {
    uint32_t name;
    uint32_t type;
    uint64_t flags;
    uint64_t offset;
    uint64_t size;
    uint32_t link;
    uint32_t info;
    uint64_t addralign;
    uint64_t entsize;
};

/* The section header table, checked to lie within the file: n is 0 when
 * the file has none, or one that cannot be read. */
struct sections {
    uint64_t off; /* e_shoff */
    unsigned entsize;
    uint64_t n;
    const unsigned char *names; /* the section names' string table, or NULL */
    uint64_t names_size;
};

/* The offsets a relocation section patches in its note section, sorted. */
struct relocs {
    uint64_t *off;
    size_t n;
};

/* off + size lies within len, without overflowing. */
static bool fits(size_t len, uint64_t off, uint64_t size)
{
    return off <= len && size <= len - off;
}

static uint64_t rd(const struct elf *e, size_t off, int width)
{
    uint64_t v = 0;
    for (int i = 0; i < width; i++) {
        unsigned b = e->data == ELFDATA2MSB ? e->buf[off + (size_t)i]
                                            : e->buf[off + (size_t)(width - 1 - i)];
        v = (v << 8) | b;
    }
    return v;
}

static void problem(const struct objread_ops *ops, const char *member, const char *what)
{
    if (ops->on_problem)
        ops->on_problem(ops->ctx, member, what);
}

/* Section header i of table s; the caller checked that it lies within the
 * file. */
static void get_shdr(const struct elf *e, const struct sections *s, uint64_t i, struct shdr *sh)
{
    size_t p = (size_t)(s->off + i * s->entsize);
    if (e->elfclass == ELFCLASS64) {
        sh->name = (uint32_t)rd(e, p, 4);
        sh->type = (uint32_t)rd(e, p + 4, 4);
        sh->flags = rd(e, p + 8, 8);
        sh->offset = rd(e, p + 24, 8);
        sh->size = rd(e, p + 32, 8);
        sh->link = (uint32_t)rd(e, p + 40, 4);
        sh->info = (uint32_t)rd(e, p + 44, 4);
        sh->addralign = rd(e, p + 48, 8);
        sh->entsize = rd(e, p + 56, 8);
    } else {
        sh->name = (uint32_t)rd(e, p, 4);
        sh->type = (uint32_t)rd(e, p + 4, 4);
        sh->flags = rd(e, p + 8, 4);
        sh->offset = rd(e, p + 16, 4);
        sh->size = rd(e, p + 20, 4);
        sh->link = (uint32_t)rd(e, p + 24, 4);
        sh->info = (uint32_t)rd(e, p + 28, 4);
        sh->addralign = rd(e, p + 32, 4);
        sh->entsize = rd(e, p + 36, 4);
    }
}

/* The NUL-terminated string at off in [base, base+size), or NULL. */
static const char *bounded_str(const unsigned char *base, uint64_t size, uint64_t off)
{
    if (off >= size)
        return NULL;
    const unsigned char *s = base + off;
    if (!memchr(s, '\0', (size_t)(size - off)))
        return NULL;
    return (const char *)s;
}

/* A section's name: a string of at most MAX_NAME bytes, or NULL. */
static const char *section_name(const unsigned char *strtab, uint64_t strsz, uint64_t off)
{
    if (!strtab || off >= strsz)
        return NULL;
    uint64_t max = strsz - off < MAX_NAME + 1 ? strsz - off : MAX_NAME + 1;
    return bounded_str(strtab + off, max, 0);
}

/* Is a note's name "stapsdt" (allowing missing or extra NUL padding)? */
static bool is_stapsdt_name(const unsigned char *name, uint32_t namesz)
{
    if (namesz < 7 || memcmp(name, "stapsdt", 7) != 0)
        return false;
    for (uint32_t i = 7; i < namesz; i++)
        if (name[i] != '\0')
            return false;
    return true;
}

static void decode_note(const struct elf *e, const unsigned char *desc, uint32_t descsz,
                        struct sdt_note *n)
{
    unsigned ps = e->elfclass == ELFCLASS64 ? 8 : 4;
    n->ptrsize = ps;
    if (descsz < 3 * ps)
        return;
    struct elf view = {desc, descsz, e->elfclass, e->data};
    n->pc = rd(&view, 0, (int)ps);
    n->base = rd(&view, ps, (int)ps);
    n->semaphore = rd(&view, 2 * ps, (int)ps);
    const unsigned char *s = desc + 3 * ps;
    uint64_t left = descsz - 3 * ps;
    const char *strs[3] = {NULL, NULL, NULL};
    uint64_t off = 0;
    for (int i = 0; i < 3; i++) {
        strs[i] = bounded_str(s, left, off);
        if (!strs[i])
            return;
        off += strlen(strs[i]) + 1;
    }
    n->provider = strs[0];
    n->name = strs[1];
    n->args = strs[2];
    n->strings_ok = true;
    n->desc_exact = off == left;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* The offsets relocation section rs patches; the caller checked that it
 * lies within the file. */
static void read_relocs(const struct elf *e, const struct shdr *rs, struct relocs *r)
{
    bool is64 = e->elfclass == ELFCLASS64;
    uint64_t min = rs->type == SHT_RELA ? ELF_RELA_SIZE(is64) : ELF_REL_SIZE(is64);
    uint64_t ent = rs->entsize >= min && rs->entsize <= rs->size ? rs->entsize : min;
    size_t n = (size_t)(rs->size / ent);
    r->off = xreallocarray(r->off, r->n + n + 1, sizeof *r->off);
    for (size_t i = 0; i < n; i++)
        r->off[r->n++] = rd(e, (size_t)(rs->offset + i * ent), is64 ? 8 : 4);
    qsort(r->off, r->n, sizeof *r->off, cmp_u64);
}

static bool relocated(const struct relocs *r, uint64_t off)
{
    return r->n && bsearch(&off, r->off, r->n, sizeof *r->off, cmp_u64);
}

/* The GNU build-id note (name "GNU", type 3). */
static void note_build_id(const unsigned char *name, uint32_t namesz, uint32_t type,
                          const unsigned char *desc, uint32_t descsz, struct elf_info *info)
{
    if (namesz == 4 && memcmp(name, "GNU", 4) == 0 && type == NT_GNU_BUILD_ID && descsz > 0 &&
        !info->build_id) {
        info->build_id = desc;
        info->build_id_len = descsz;
    }
}

static void read_note_section(const struct elf *e, const struct shdr *sh, const char *name,
                              const struct relocs *rel, const char *member, struct elf_info *info,
                              const struct objread_ops *ops)
{
    const unsigned char *sec = e->buf + sh->offset;
    uint64_t size = sh->size;
    uint64_t align = sh->addralign == 8 ? 8 : 4;
    uint64_t off = 0;
    while (size - off >= 12) {
        struct elf view = {sec + off, 12, e->elfclass, e->data};
        uint32_t namesz = (uint32_t)rd(&view, 0, 4);
        uint32_t descsz = (uint32_t)rd(&view, 4, 4);
        uint32_t type = (uint32_t)rd(&view, 8, 4);
        /* The descriptor starts, and the next note starts, at the note
         * section's alignment (4, or 8 for .note.gnu.property on 64-bit)
         * counted from the start of the note. */
        uint64_t name_off = off + 12;
        uint64_t desc_off = off + ((12 + (uint64_t)namesz + align - 1) & ~(align - 1));
        uint64_t next = off + ((desc_off - off + descsz + align - 1) & ~(align - 1));
        if (!fits((size_t)size, name_off, namesz) || !fits((size_t)size, desc_off, descsz)) {
            problem(ops, member, "a note extends past the end of its section");
            return;
        }
        if (is_stapsdt_name(sec + name_off, namesz) && type == DSO_NT_HIDDEN) {
            /* a run-time probe its library hides (lib/dso.c): no probe,
             * as every tracer skips it */
        } else if (is_stapsdt_name(sec + name_off, namesz)) {
            struct sdt_note n = {0};
            n.section = name;
            n.section_flags = sh->flags;
            n.section_align = sh->addralign;
            n.namesz = namesz;
            n.descsz = descsz;
            n.type = type;
            decode_note(e, sec + desc_off, descsz, &n);
            n.semaphore_relocated = relocated(rel, desc_off + 2 * (uint64_t)n.ptrsize);
            info->nnotes++;
            if (ops->on_note)
                ops->on_note(ops->ctx, member, info, &n);
        } else {
            note_build_id(sec + name_off, namesz, type, sec + desc_off, descsz, info);
        }
        if (next >= size)
            return;
        off = next;
    }
}

/* DT_SONAME of dynamic section dyn, in the string table it links to; NULL
 * when there is none (or it is not a string within the file). */
static const char *dynamic_soname(const struct elf *e, const struct sections *s,
                                  const struct shdr *dyn)
{
    bool is64 = e->elfclass == ELFCLASS64;
    unsigned ent = ELF_DYN_SIZE(is64), w = is64 ? 8 : 4;
    if (!fits(e->len, dyn->offset, dyn->size) || dyn->link == 0 || dyn->link >= s->n)
        return NULL;
    struct shdr str;
    get_shdr(e, s, dyn->link, &str);
    if (str.type != SHT_STRTAB || !fits(e->len, str.offset, str.size))
        return NULL;
    for (uint64_t off = 0; dyn->size - off >= ent; off += ent) {
        uint64_t tag = rd(e, (size_t)(dyn->offset + off), (int)w);
        if (tag == DT_NULL)
            break;
        if (tag == DT_SONAME)
            return section_name(e->buf + str.offset, str.size,
                                rd(e, (size_t)(dyn->offset + off + w), (int)w));
    }
    return NULL;
}

/* The ELF header: its class and byte order, and the target and type it
 * gives (info).  0, or -1 after reporting one that cannot be read. */
static int read_ehdr(const struct elf *e, const char *member, const struct objread_ops *ops,
                     struct elf_info *info)
{
    if ((e->elfclass != ELFCLASS32 && e->elfclass != ELFCLASS64) ||
        (e->data != ELFDATA2LSB && e->data != ELFDATA2MSB)) {
        problem(ops, member, "unknown ELF class or byte order");
        return -1;
    }
    if (e->len < ELF_EHDR_SIZE(e->elfclass == ELFCLASS64) ||
        elf_header_target(e->buf, e->len, &info->target) != 0) {
        problem(ops, member, "truncated ELF header");
        return -1;
    }
    info->type = (unsigned)rd(e, 16, 2);
    return 0;
}

/* The section header table the ELF header points to, and the section names
 * when there is a usable string table.  A table that does not fit in the
 * file is reported and left out (s->n is 0). */
static void find_sections(const struct elf *e, const char *member, const struct objread_ops *ops,
                          struct sections *s)
{
    bool is64 = e->elfclass == ELFCLASS64;
    *s = (struct sections){0};
    s->off = rd(e, is64 ? 40 : 32, is64 ? 8 : 4);
    s->entsize = (unsigned)rd(e, is64 ? 58 : 46, 2);
    uint64_t n = rd(e, is64 ? 60 : 48, 2);
    unsigned strndx = (unsigned)rd(e, is64 ? 62 : 50, 2);
    if (s->off == 0)
        return;
    if (s->entsize < ELF_SHDR_SIZE(is64) || !fits(e->len, s->off, s->entsize)) {
        problem(ops, member, "bad section header table");
        return;
    }
    struct shdr s0;
    get_shdr(e, s, 0, &s0);
    if (n == 0) /* extended numbering: the count is in section 0 */
        n = s0.size;
    if (strndx == SHN_XINDEX)
        strndx = s0.link;
    if (n > (e->len - s->off) / s->entsize) {
        problem(ops, member, "section header table extends past the end of the file");
        return;
    }
    s->n = n;
    if (strndx < n) {
        struct shdr st;
        get_shdr(e, s, strndx, &st);
        if (st.type != SHT_NOBITS && fits(e->len, st.offset, st.size)) {
            s->names = e->buf + st.offset;
            s->names_size = st.size;
        }
    }
}

/* What the sections say before any note is read: the SONAME, a
 * .stapsdt.base, LTO, notes without contents (into info).  Returns, in a
 * relocatable object, the relocation section of each section (its index +
 * 1; s->n is bounded by the file's size), else NULL. */
static uint64_t *survey_sections(const struct elf *e, const struct sections *s,
                                 struct elf_info *info)
{
    uint64_t *rel_of = NULL;
    if (s->n > 0 && info->type == ET_REL)
        rel_of = xcalloc((size_t)s->n, sizeof *rel_of);
    for (uint64_t i = 0; i < s->n; i++) {
        struct shdr sh;
        get_shdr(e, s, i, &sh);
        if (rel_of && (sh.type == SHT_REL || sh.type == SHT_RELA) && sh.info < s->n &&
            !rel_of[sh.info])
            rel_of[sh.info] = i + 1;
        if (sh.type == SHT_DYNAMIC && !info->soname)
            info->soname = dynamic_soname(e, s, &sh);
        const char *name = section_name(s->names, s->names_size, sh.name);
        if (!name)
            continue;
        if (strcmp(name, ".stapsdt.base") == 0)
            info->has_stapsdt_base = true;
        if (strncmp(name, ".gnu.lto_", 9) == 0)
            info->has_lto = true;
        if (strcmp(name, ".note.stapsdt") == 0 && sh.type == SHT_NOBITS)
            info->notes_nobits = true;
    }
    return rel_of;
}

/* The offsets relocation section i patches, into rel, unless it lies
 * outside the file or overlaps those read before (*rel_bytes, the bytes
 * they cover, stays at most the file's size). */
static void read_section_relocs(const struct elf *e, const struct sections *s, uint64_t i,
                                uint64_t *rel_bytes, const char *member,
                                const struct objread_ops *ops, struct relocs *rel)
{
    struct shdr rs;
    get_shdr(e, s, i, &rs);
    if (!fits(e->len, rs.offset, rs.size)) {
        problem(ops, member, "a relocation section extends past the end of the file");
    } else if (rs.size > e->len - *rel_bytes) {
        problem(ops, member, "relocation sections overlap");
    } else {
        *rel_bytes += rs.size;
        read_relocs(e, &rs, rel);
    }
}

/* The notes of every note section, with the relocations survey_sections
 * found for it (rel_of, or NULL). */
static void read_note_sections(const struct elf *e, const struct sections *s,
                               const uint64_t *rel_of, const char *member, struct elf_info *info,
                               const struct objread_ops *ops)
{
    uint64_t note_bytes = 0, rel_bytes = 0; /* read so far, each at most len */
    for (uint64_t i = 0; i < s->n; i++) {
        struct shdr sh;
        get_shdr(e, s, i, &sh);
        if (sh.type != SHT_NOTE)
            continue;
        if (!fits(e->len, sh.offset, sh.size)) {
            problem(ops, member, "a note section extends past the end of the file");
            continue;
        }
        if (sh.size > e->len - note_bytes) {
            problem(ops, member, "note sections overlap");
            break;
        }
        note_bytes += sh.size;
        struct relocs rel = {0};
        if (rel_of && rel_of[i])
            read_section_relocs(e, s, rel_of[i] - 1, &rel_bytes, member, ops, &rel);
        read_note_section(e, &sh, section_name(s->names, s->names_size, sh.name), &rel, member,
                          info, ops);
        free(rel.off);
    }
}

/* An ELF file: its header, its sections, then its notes. */
static void read_elf(const unsigned char *buf, size_t len, const char *member,
                     const struct objread_ops *ops)
{
    struct elf e = {buf, len, buf[4], buf[5]};
    struct elf_info info = {0};
    if (read_ehdr(&e, member, ops, &info) != 0)
        return;
    struct sections s;
    find_sections(&e, member, ops, &s);
    uint64_t *rel_of = survey_sections(&e, &s, &info);
    if (ops->on_elf)
        ops->on_elf(ops->ctx, member, &info);
    read_note_sections(&e, &s, rel_of, member, &info, ops);
    free(rel_of);
    if (ops->on_elf_done)
        ops->on_elf_done(ops->ctx, member, &info);
}

/* ---- ar archives ---- */

/* A decimal field of an archive member header; -1 when malformed. */
static int64_t ar_number(const unsigned char *field, size_t width)
{
    int64_t n = 0;
    size_t i = 0;
    while (i < width && field[i] == ' ')
        i++;
    if (i == width || field[i] < '0' || field[i] > '9')
        return -1;
    for (; i < width && field[i] >= '0' && field[i] <= '9'; i++) {
        if (n > (INT64_MAX - 9) / 10)
            return -1;
        n = n * 10 + (field[i] - '0');
    }
    for (; i < width; i++)
        if (field[i] != ' ')
            return -1;
    return n;
}

static bool starts(const unsigned char *p, const char *s) { return memcmp(p, s, strlen(s)) == 0; }

/* A long name "/N" from the "//" table: it ends at "/\n" (GNU) or "\n";
 * NULL when it does not end within MAX_NAME bytes. */
static char *ar_long_name(const unsigned char *names, size_t names_len, int64_t off)
{
    if (!names || off < 0 || (uint64_t)off >= names_len)
        return NULL;
    const unsigned char *s = names + off;
    size_t max = names_len - (size_t)off;
    const unsigned char *nl = memchr(s, '\n', max < MAX_NAME + 2 ? max : MAX_NAME + 2);
    size_t n = nl ? (size_t)(nl - s) : max;
    if (n > 0 && s[n - 1] == '/')
        n--;
    if (n > MAX_NAME)
        return NULL;
    return xstrndup((const char *)s, n);
}

/* An archive being read, and its long-name table ("//") once met. */
struct archive {
    const unsigned char *buf;
    size_t len;
    bool thin; /* a thin archive: its members' data is in other files */
    const struct objread_ops *ops;
    const unsigned char *names;
    size_t names_len;
};

/* One member, from its header. */
struct ar_member {
    const unsigned char *h; /* the 60-byte header */
    size_t data;            /* the offset of its data */
    uint64_t size;          /* the data's size, as the header says */
    bool symtab;            /* the symbol table */
    bool longnames;         /* the long-name table */
    bool has_data;          /* its data is in the archive */
};

/* The member header at off into m; false after reporting it malformed. */
static bool ar_header(const struct archive *ar, size_t off, struct ar_member *m)
{
    const unsigned char *h = ar->buf + off;
    if (h[58] != '`' || h[59] != '\n') {
        problem(ar->ops, NULL, "malformed archive member header");
        return false;
    }
    int64_t size = ar_number(h + 48, 10);
    if (size < 0) {
        problem(ar->ops, NULL, "malformed archive member size");
        return false;
    }
    m->h = h;
    m->data = off + 60;
    m->size = (uint64_t)size;
    m->symtab = starts(h, "/ ") || starts(h, "/SYM64/") || starts(h, "__.SYMDEF");
    m->longnames = starts(h, "// ");
    /* Only the symbol table and long-name table have data in a thin archive. */
    m->has_data = !ar->thin || m->symtab || m->longnames;
    if (m->has_data && !fits(ar->len, m->data, m->size)) {
        problem(ar->ops, NULL, "an archive member extends past the end of the file");
        return false;
    }
    return true;
}

/* The name of member m, neither table: "/N" in the long-name table, BSD's
 * "#1/N" at the front of its data (*mdata and *msize then skip it), or the
 * header's own.  NULL when malformed. */
static char *ar_member_name(const struct archive *ar, const struct ar_member *m,
                            const unsigned char **mdata, uint64_t *msize)
{
    const unsigned char *h = m->h;
    if (h[0] == '/' && h[1] >= '0' && h[1] <= '9')
        return ar_long_name(ar->names, ar->names_len, ar_number(h + 1, 15));
    if (starts(h, "#1/")) {
        int64_t n = ar_number(h + 3, 13);
        if (n < 0 || n > MAX_NAME || (uint64_t)n > *msize || !m->has_data)
            return NULL;
        char *name = xstrndup((const char *)*mdata, strnlen((const char *)*mdata, (size_t)n));
        *mdata += n;
        *msize -= (uint64_t)n;
        return name;
    }
    size_t n = 16;
    while (n > 0 && h[n - 1] == ' ')
        n--;
    if (n > 0 && h[n - 1] == '/')
        n--;
    return xstrndup((const char *)h, n);
}

/* Member m, neither table: its ELF object read, or in a thin archive its
 * name given.  false after reporting a malformed name. */
static bool ar_object(const struct archive *ar, const struct ar_member *m)
{
    const unsigned char *mdata = ar->buf + m->data;
    uint64_t msize = m->size;
    char *name = ar_member_name(ar, m, &mdata, &msize);
    if (!name) {
        problem(ar->ops, NULL, "an archive member has a malformed name");
        return false;
    }
    if (ar->thin) {
        if (ar->ops->on_thin_member)
            ar->ops->on_thin_member(ar->ops->ctx, name);
    } else if (msize >= 16 && memcmp(mdata, "\177ELF", 4) == 0) {
        read_elf(mdata, (size_t)msize, name, ar->ops);
    }
    free(name);
    return true;
}

/* Each member in turn: its header, then the long-name table kept or an
 * object read, then on to the next (2-aligned); a malformed member ends it. */
static void read_archive(const unsigned char *buf, size_t len, bool thin,
                         const struct objread_ops *ops)
{
    struct archive ar = {buf, len, thin, ops, NULL, 0};
    size_t off = 8;
    while (len - off >= 60) {
        struct ar_member m;
        if (!ar_header(&ar, off, &m))
            return;
        if (m.longnames) {
            ar.names = buf + m.data;
            ar.names_len = (size_t)m.size;
        } else if (!m.symtab && !ar_object(&ar, &m)) {
            return;
        }
        if (!m.has_data) {
            off = m.data;
            continue;
        }
        uint64_t next = (uint64_t)m.data + m.size + (m.size & 1);
        if (next > len)
            return;
        off = (size_t)next;
    }
}

enum obj_kind read_notes(const unsigned char *buf, size_t len, const struct objread_ops *ops)
{
    if (len >= 4 && memcmp(buf, "\177ELF", 4) == 0) {
        if (len < 16) {
            problem(ops, NULL, "truncated ELF header");
            return OBJ_ELF;
        }
        read_elf(buf, len, NULL, ops);
        return OBJ_ELF;
    }
    if (len >= 8 && memcmp(buf, "!<arch>\n", 8) == 0) {
        read_archive(buf, len, false, ops);
        return OBJ_ARCHIVE;
    }
    if (len >= 8 && memcmp(buf, "!<thin>\n", 8) == 0) {
        read_archive(buf, len, true, ops);
        return OBJ_THIN_ARCHIVE;
    }
    if (len >= 4 && (memcmp(buf, "BC\xc0\xde", 4) == 0 || memcmp(buf, "\xde\xc0\x17\x0b", 4) == 0))
        return OBJ_LLVM_BITCODE;
    return OBJ_UNKNOWN;
}

const char *note_arg_end(const char *arg)
{
    for (const char *q = arg; (q = strchr(q, ' ')); q++) {
        const char *r = q + 1;
        if (*r == '-')
            r++;
        if (!is_digit((unsigned char)*r))
            continue;
        while (is_digit((unsigned char)*r))
            r++;
        if (*r == 'f')
            r++;
        if (*r == '@')
            return q;
    }
    return arg + strlen(arg);
}

int note_args_split(const char *args, struct note_arg *out, int max)
{
    int n = 0;
    for (const char *p = args; *p; n++) {
        const char *end = note_arg_end(p);
        if (n < max) {
            struct note_arg *a = &out[n];
            memset(a, 0, sizeof *a);
            a->text = p;
            a->len = (size_t)(end - p);
            const char *at = memchr(p, '@', a->len);
            a->size = p;
            a->size_len = at ? (size_t)(at - p) : 0;
            a->operand = at ? at + 1 : p;
            a->operand_len = (size_t)(end - a->operand);
            const char *q = p, *stop = p + a->size_len;
            a->is_signed = q < stop && *q == '-';
            q += a->is_signed;
            if (q < stop && (*q == '1' || *q == '2' || *q == '4' || *q == '8')) {
                a->bytes = *q++ - '0';
                a->is_float = q < stop && *q == 'f';
                q += a->is_float;
                if (q != stop) {
                    a->bytes = 0;
                    a->is_float = false;
                }
            }
        }
        p = *end ? end + 1 : end;
    }
    return n;
}

int note_arg_count(const char *args) { return note_args_split(args, NULL, 0); }
