/* SPDX-License-Identifier: MIT */
/*
 * fileread.c: object files on disk -> read_notes(), for dtrace -G and
 * sdt-list alike.
 *
 * elfread.c works on one buffer and knows no file names; this layer reads
 * the file, names what it reports ("lib.a(member.o)" for archive members),
 * loads the members of thin archives (paths relative to the archive),
 * follows libtool .lo files to the object they name, and says what it
 * skips: LLVM bitcode and missing thin members quietly (-v), other files
 * that are not objects with a warning.
 *
 * What a file names cannot make the work explode: each file a thin archive
 * lists is read once however often (and under whatever name) it is listed,
 * and a thin archive inside a thin archive is not followed (GNU ar flattens
 * them; following one that lists itself would read it N^depth times).
 * Only regular files are read (read_object).
 *
 * dir_objects() finds the objects of a directory tree (an unpacked
 * package, a build's output) for sdt-list --diff: regular files only,
 * by their first bytes, never following a link or opening a FIFO.
 */
#include "core.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct relay {
    const struct objread_ops *user;
    const char *path;   /* the file being read */
    char *member;       /* the member the cached label is for */
    char *label;        /* "path(member)" */
    struct strvec thin; /* members named by a thin archive */
};

/* "path" for a plain file, "path(member)" for an archive member. */
static const char *label(struct relay *r, const char *member)
{
    if (!member)
        return r->path;
    if (!r->member || strcmp(r->member, member) != 0) {
        free(r->member);
        free(r->label);
        struct buf b = {0};
        buf_printf(&b, "%s(%s)", r->path, member);
        r->member = xstrdup(member);
        r->label = b.data;
    }
    return r->label;
}

static void relay_elf(void *ctx, const char *member, const struct elf_info *elf)
{
    struct relay *r = ctx;
    if (r->user->on_elf)
        r->user->on_elf(r->user->ctx, label(r, member), elf);
}

static void relay_note(void *ctx, const char *member, const struct elf_info *elf,
                       const struct sdt_note *note)
{
    struct relay *r = ctx;
    if (r->user->on_note)
        r->user->on_note(r->user->ctx, label(r, member), elf, note);
}

static void relay_elf_done(void *ctx, const char *member, const struct elf_info *elf)
{
    struct relay *r = ctx;
    if (r->user->on_elf_done)
        r->user->on_elf_done(r->user->ctx, label(r, member), elf);
}

static void relay_thin(void *ctx, const char *name)
{
    struct relay *r = ctx;
    strvec_push(&r->thin, name);
}

static void relay_problem(void *ctx, const char *member, const char *what)
{
    struct relay *r = ctx;
    if (r->user->on_problem)
        r->user->on_problem(r->user->ctx, label(r, member), what);
    else
        warning("%s: %s; ignoring what follows", label(r, member), what);
}

/* The object a libtool .lo file names (pic_object, else non_pic_object). */
static char *libtool_object(const char *path, const struct buf *text)
{
    static const char *const keys[] = {"pic_object='", "non_pic_object='", NULL};
    if (text->len < 2 || text->data[0] != '#' || memchr(text->data, '\0', text->len))
        return NULL;
    for (int k = 0; keys[k]; k++) {
        size_t klen = strlen(keys[k]);
        for (const char *line = text->data; line && *line;) {
            const char *eol = strchr(line, '\n');
            if (strncmp(line, keys[k], klen) == 0) {
                const char *v = line + klen;
                const char *q = strchr(v, '\'');
                if (q && (!eol || q < eol) && q > v && strncmp(v, "none'", 5) != 0) {
                    char *name = xstrndup(v, (size_t)(q - v));
                    char *dir = path_dirname(path);
                    char *full = path_join(dir, name);
                    free(dir);
                    free(name);
                    return full;
                }
            }
            line = eol ? eol + 1 : NULL;
        }
    }
    return NULL;
}

static int read_path(const char *path, const struct objread_ops *ops, unsigned flags, bool in_thin,
                     int depth);

/* Whether a thin archive listed this file before (by device and inode:
 * "x.o" and "./x.o" are one file).  A file that cannot be stat'ed is not
 * on disk: read_path skips it. */
static bool seen_before(struct strmap *seen, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return false;
    unsigned char key[sizeof st.st_dev + sizeof st.st_ino];
    memcpy(key, &st.st_dev, sizeof st.st_dev);
    memcpy(key + sizeof st.st_dev, &st.st_ino, sizeof st.st_ino);
    return strmap_put(seen, (const char *)key, sizeof key, seen) != NULL;
}

/* The members of a thin archive, each file once. */
static int read_thin_members(const char *path, const struct strvec *names,
                             const struct objread_ops *ops, unsigned flags, int depth)
{
    struct strmap seen = {0};
    char *dir = path_dirname(path);
    int rc = 0;
    for (size_t i = 0; i < names->n; i++) {
        char *member = path_join(dir, names->v[i]);
        if (seen_before(&seen, member)) {
            if (flags & FILE_VERBOSE)
                info("%s: '%s' is listed again; read once", path, member);
        } else if (read_path(member, ops, flags, true, depth + 1) != 0) {
            rc = -1;
        }
        free(member);
    }
    free(dir);
    strmap_free(&seen);
    return rc;
}

static int read_buffer(const char *path, const struct buf *data, const struct objread_ops *ops,
                       unsigned flags, bool in_thin, int depth)
{
    struct relay r = {.user = ops, .path = path};
    struct objread_ops relay_ops = {
        .ctx = &r,
        .on_elf = relay_elf,
        .on_note = relay_note,
        .on_elf_done = relay_elf_done,
        .on_thin_member = relay_thin,
        .on_problem = relay_problem,
    };
    int rc = 0;
    enum obj_kind kind = read_notes((const unsigned char *)data->data, data->len, &relay_ops);
    free(r.member);
    free(r.label);

    if (kind == OBJ_THIN_ARCHIVE && in_thin) {
        warning("%s: a thin archive inside a thin archive; its members are not read", path);
    } else if (kind == OBJ_THIN_ARCHIVE) {
        rc = read_thin_members(path, &r.thin, ops, flags, depth);
    } else if (kind == OBJ_LLVM_BITCODE && (flags & FILE_OBJECTS_ONLY)) {
        error("%s: LLVM bitcode (LTO), not an ELF object: its probes are known only once it "
              "is compiled",
              path);
        rc = -1;
    } else if (kind == OBJ_LLVM_BITCODE) {
        if (flags & FILE_VERBOSE)
            info("%s: LLVM bitcode (LTO): its probes cannot be checked", path);
    } else if (kind == OBJ_UNKNOWN) {
        char *lo = libtool_object(path, data);
        if (lo) {
            if (flags & FILE_VERBOSE)
                info("%s: libtool object for '%s'", path, lo);
            rc = read_path(lo, ops, flags, in_thin, depth + 1);
            free(lo);
        } else if (flags & FILE_OBJECTS_ONLY) {
            error("%s: not an ELF file, an archive or a libtool object", path);
            rc = -1;
        } else {
            warning("%s: not an ELF object, archive or libtool object; ignored", path);
        }
    }
    strvec_free(&r.thin);
    return rc;
}

/* depth > 0: a file named by another (thin member, .lo target), skipped
 * when missing.  in_thin: named, directly or through .lo files, by a thin
 * archive. */
static int read_path(const char *path, const struct objread_ops *ops, unsigned flags, bool in_thin,
                     int depth)
{
    if (depth > 4) {
        warning("%s: nested too deeply; ignored", path);
        return 0;
    }
    if (depth > 0 && access(path, F_OK) != 0) {
        if (flags & FILE_VERBOSE)
            info("%s: not found; skipped", path);
        return 0;
    }
    struct buf data = {0};
    int rc = read_object(path, &data);
    if (rc == 0)
        rc = read_buffer(path, &data, ops, flags, in_thin, depth);
    buf_free(&data);
    return rc;
}

int file_read_notes(const char *path, const struct objread_ops *ops, unsigned flags)
{
    return read_path(path, ops, flags, false, 0);
}

/* ---- directory trees ---- */

/* Whether the regular file at path starts like an ELF file or an archive
 * (1), not (0), or cannot be read (-1, reported). */
static int looks_like_object(const char *path)
{
    int fd = open_regular(path, NULL);
    if (fd < 0) {
        error("cannot open '%s': %s", path,
              errno == EINVAL ? "not a regular file" : strerror(errno));
        return -1;
    }
    unsigned char head[8];
    size_t got = 0;
    while (got < sizeof head) {
        ssize_t n = read(fd, head + got, sizeof head - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            error("cannot read '%s': %s", path, strerror(errno));
            close(fd);
            return -1;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    return (got >= 4 && memcmp(head, "\177ELF", 4) == 0) ||
           (got == 8 && (memcmp(head, "!<arch>\n", 8) == 0 || memcmp(head, "!<thin>\n", 8) == 0));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The objects under root/rel (rel "" for root itself) into out. */
static int walk(const char *root, const char *rel, int depth, struct strvec *out)
{
    char *dir = *rel ? path_join(root, rel) : xstrdup(root);
    if (depth > MAX_DIR_DEPTH) {
        error("%s: directories nested more than %d deep", dir, MAX_DIR_DEPTH);
        free(dir);
        return -1;
    }
    DIR *d = opendir(dir);
    if (!d) {
        error("cannot read the directory '%s': %s", dir, strerror(errno));
        free(dir);
        return -1;
    }
    struct strvec names = {0};
    struct dirent *ent;
    while ((errno = 0, ent = readdir(d)))
        if (strcmp(ent->d_name, ".") != 0 && strcmp(ent->d_name, "..") != 0)
            strvec_push(&names, ent->d_name);
    int rc = 0;
    if (errno) {
        error("cannot read the directory '%s': %s", dir, strerror(errno));
        rc = -1;
    }
    closedir(d);
    if (names.n > 1)
        qsort(names.v, names.n, sizeof *names.v, cmp_str);
    for (size_t i = 0; i < names.n; i++) {
        char *sub = *rel ? path_join(rel, names.v[i]) : xstrdup(names.v[i]);
        char *full = path_join(root, sub);
        struct stat st;
        if (lstat(full, &st) != 0) {
            error("cannot read '%s': %s", full, strerror(errno));
            rc = -1;
        } else if (S_ISDIR(st.st_mode)) {
            if (walk(root, sub, depth + 1, out) != 0)
                rc = -1;
        } else if (S_ISREG(st.st_mode)) {
            int obj = looks_like_object(full);
            if (obj < 0)
                rc = -1;
            else if (obj)
                strvec_push(out, sub);
        }
        free(full);
        free(sub);
    }
    strvec_free(&names);
    free(dir);
    return rc;
}

int dir_objects(const char *dir, struct strvec *out)
{
    int rc = walk(dir, "", 0, out);
    /* "a/b" and "a.b": the walk sorts each directory, the caller wants
     * whole paths in order */
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_str);
    return rc;
}
