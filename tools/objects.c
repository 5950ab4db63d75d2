/*
 * objects.c: the object files given to -G.
 *
 * SystemTap's script never opens them.  We do, for two reasons:
 *
 *  - the target: class, byte order, machine, OS ABI and flags of the
 *    object we write are those of the objects it will be linked with (they
 *    must all agree on class, byte order and machine);
 *  - a cross-check: each .note.stapsdt note records a probe the code fires
 *    and its argument count.  A probe of a provider declared in the .d
 *    file that the file does not declare, or declares with another number
 *    of arguments, gets a warning (not an error: the build still works,
 *    but the probe is probably not what the author meant).
 *
 * What is tolerated quietly (-v says so): objects without notes, GCC LTO
 * objects (their notes only appear after link-time compilation), LLVM
 * bitcode, members of thin archives that are not on disk.  Libtool .lo
 * files are followed to the object they name.  A file that is missing is
 * an error: the build is broken.  Other files that are neither ELF nor
 * archives get a warning and are skipped.
 */
#include "dtrace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct scan {
    const struct program *prog;
    bool verbose;
    struct objects_result *res;
    const char *path;        /* the file being read */
    struct strmap warned;    /* "label\0provider\0probe\0nargs" already reported */
    struct strvec thin;      /* thin-archive members named by the current file */
    size_t nnotes;
    int rc;
};

static char *label_for(const struct scan *sc, const char *member)
{
    struct buf b = {0};
    if (member)
        buf_printf(&b, "%s(%s)", sc->path, member);
    else
        buf_adds(&b, sc->path);
    return b.data;
}

static void describe(const struct target *t, char *out, size_t n) { target_describe(t, out, n); }

static void on_elf(void *ctx, const char *member, const struct elf_info *elf)
{
    struct scan *sc = ctx;
    struct target t = {elf->elfclass, elf->data, elf->machine, elf->flags, elf->osabi};
    if (!sc->res->have_target) {
        sc->res->have_target = true;
        sc->res->target = t;
        sc->res->target_from = label_for(sc, member);
        return;
    }
    const struct target *first = &sc->res->target;
    if (t.elfclass != first->elfclass || t.data != first->data || t.machine != first->machine) {
        char a[96], b[96];
        char *label = label_for(sc, member);
        describe(&t, a, sizeof a);
        describe(first, b, sizeof b);
        error("%s is %s, but %s is %s: the objects cannot be linked together", label, a,
              sc->res->target_from, b);
        free(label);
        sc->rc = -1;
    }
}

static int count_args(const char *args)
{
    int n = 0;
    bool in = false;
    for (const char *p = args; *p; p++) {
        bool space = *p == ' ' || *p == '\t';
        if (!space && !in)
            n++;
        in = !space;
    }
    return n;
}

static bool first_time(struct scan *sc, const char *label, const char *provider,
                       const char *name, int nargs)
{
    struct buf key = {0};
    buf_printf(&key, "%s%c%s%c%s%c%d", label, 0, provider, 0, name, 0, nargs);
    bool fresh = strmap_put(&sc->warned, key.data, key.len, sc) == NULL;
    buf_free(&key);
    return fresh;
}

static void on_note(void *ctx, const char *member, const struct elf_info *elf,
                    const struct sdt_note *note)
{
    struct scan *sc = ctx;
    (void)elf;
    sc->nnotes++;
    if (!note->strings_ok)
        return;
    const struct provider *pv =
        strmap_get(&sc->prog->provider_index, note->provider, strlen(note->provider));
    if (!pv)
        return; /* a provider from some other .d file, or plain STAP_PROBE use */
    int nargs = count_args(note->args);
    const struct probe *pr = program_find_probe(sc->prog, note->provider, note->name);
    if (pr && pr->nargs == nargs)
        return;
    char *label = label_for(sc, member);
    if (first_time(sc, label, note->provider, note->name, nargs)) {
        if (!pr) {
            warning("%s: probe '%.100s:%.100s' is used in the code but not declared in "
                    "provider '%s'", label, note->provider, note->name, pv->name);
            note_at(&pv->loc, "provider '%s' is declared here", pv->name);
        } else {
            warning("%s: probe '%s:%s' is used with %d argument%s but declared with %d", label,
                    pv->name, pr->name, nargs, nargs == 1 ? "" : "s", pr->nargs);
            note_at(&pr->loc, "'%s:%s' is declared here", pv->name, pr->name);
        }
    }
    free(label);
}

static void on_elf_done(void *ctx, const char *member, const struct elf_info *elf)
{
    struct scan *sc = ctx;
    if (!sc->verbose)
        return;
    char *label = label_for(sc, member);
    if (elf->has_lto && elf->nnotes == 0)
        info("%s: GCC LTO object without probe notes: its probes cannot be checked", label);
    else
        info("%s: %zu probe site%s", label, elf->nnotes, elf->nnotes == 1 ? "" : "s");
    free(label);
}

static void on_thin_member(void *ctx, const char *name)
{
    struct scan *sc = ctx;
    strvec_push(&sc->thin, name);
}

static void on_problem(void *ctx, const char *member, const char *what)
{
    struct scan *sc = ctx;
    char *label = label_for(sc, member);
    warning("%s: %s; ignoring what follows", label, what);
    free(label);
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

static const struct objread_ops scan_ops_template = {
    .on_elf = on_elf,
    .on_note = on_note,
    .on_elf_done = on_elf_done,
    .on_thin_member = on_thin_member,
    .on_problem = on_problem,
};

static void scan_file(struct scan *sc, const char *path, bool optional, int depth);

static void scan_buffer(struct scan *sc, const char *path, const struct buf *data, int depth)
{
    struct objread_ops ops = scan_ops_template;
    ops.ctx = sc;
    const char *saved_path = sc->path;
    struct strvec saved_thin = sc->thin;
    memset(&sc->thin, 0, sizeof sc->thin);
    sc->path = path;

    enum obj_kind kind = read_notes((const unsigned char *)data->data, data->len, &ops);

    if (kind == OBJ_THIN_ARCHIVE) {
        char *dir = path_dirname(path);
        for (size_t i = 0; i < sc->thin.n; i++) {
            char *member = path_join(dir, sc->thin.v[i]);
            scan_file(sc, member, true, depth + 1);
            free(member);
        }
        free(dir);
    } else if (kind == OBJ_LLVM_BITCODE) {
        if (sc->verbose)
            info("%s: LLVM bitcode (LTO): its probes cannot be checked", path);
    } else if (kind == OBJ_UNKNOWN) {
        char *lo = libtool_object(path, data);
        if (lo) {
            if (sc->verbose)
                info("%s: libtool object for '%s'", path, lo);
            scan_file(sc, lo, true, depth + 1);
            free(lo);
        } else {
            warning("%s: not an ELF object, archive or libtool object; ignored", path);
        }
    }
    strvec_free(&sc->thin);
    sc->thin = saved_thin;
    sc->path = saved_path;
}

static void scan_file(struct scan *sc, const char *path, bool optional, int depth)
{
    if (depth > 4)
        return;
    if (optional) {
        FILE *f = fopen(path, "rb");
        if (!f) {
            if (sc->verbose)
                info("%s: not found; skipped", path);
            return;
        }
        fclose(f);
    }
    struct buf data = {0};
    if (read_file(path, &data) != 0) {
        sc->rc = -1;
        buf_free(&data);
        return;
    }
    scan_buffer(sc, path, &data, depth);
    buf_free(&data);
}

int objects_scan(const struct program *prog, const struct strvec *paths, bool verbose,
                 struct objects_result *res)
{
    struct scan sc = {.prog = prog, .verbose = verbose, .res = res};
    memset(res, 0, sizeof *res);
    for (size_t i = 0; i < paths->n; i++)
        scan_file(&sc, paths->v[i], false, 0);
    if (verbose && paths->n)
        info("%zu object file%s: %zu probe site%s", paths->n, paths->n == 1 ? "" : "s",
             sc.nnotes, sc.nnotes == 1 ? "" : "s");
    strmap_free(&sc.warned);
    return sc.rc;
}
