/* SPDX-License-Identifier: MIT */
/*
 * dtrace-scan.c: the object files given to -G.
 *
 * SystemTap's script never opens them.  We do (through fileread.c), for
 * two reasons:
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
 * bitcode, members of thin archives that are not on disk.  A file that is
 * missing is an error: the build is broken.
 */
#include "dtrace.h"

struct scan {
    const struct program *prog;
    bool verbose;
    struct objects_result *res;
    struct strmap warned; /* "label\0provider\0probe\0nargs" already reported */
    size_t nnotes;
    int rc;
};

static void on_elf(void *ctx, const char *label, const struct elf_info *elf)
{
    struct scan *sc = ctx;
    const struct target *t = &elf->target;
    if (!sc->res->have_target) {
        sc->res->have_target = true;
        sc->res->target = *t;
        sc->res->target_from = xstrdup(label);
        return;
    }
    const struct target *first = &sc->res->target;
    if (t->elfclass != first->elfclass || t->data != first->data || t->machine != first->machine) {
        char a[96], b[96];
        target_describe(t, a, sizeof a);
        target_describe(first, b, sizeof b);
        error("%s is %s, but %s is %s: the objects cannot be linked together", label, a,
              sc->res->target_from, b);
        sc->rc = -1;
    }
}

static bool first_time(struct scan *sc, const char *label, const char *provider, const char *name,
                       int nargs)
{
    struct buf key = {0};
    buf_printf(&key, "%s%c%s%c%s%c%d", label, 0, provider, 0, name, 0, nargs);
    bool fresh = strmap_put(&sc->warned, key.data, key.len, sc) == NULL;
    buf_free(&key);
    return fresh;
}

static void on_note(void *ctx, const char *label, const struct elf_info *elf,
                    const struct sdt_note *note)
{
    struct scan *sc = ctx;
    (void)elf;
    sc->nnotes++;
    if (!note->strings_ok)
        return;
    const struct provider *pv = program_find_provider(sc->prog, note->provider);
    if (!pv)
        return; /* a provider from some other .d file, or plain STAP_PROBE use */
    int nargs = note_arg_count(note->args);
    const struct probe *pr = program_find_probe(sc->prog, note->provider, note->name);
    if (pr && pr->nargs == nargs)
        return;
    if (first_time(sc, label, note->provider, note->name, nargs)) {
        if (!pr) {
            warning("%s: probe '%.100s:%.100s' is used in the code but not declared in "
                    "provider '%s'",
                    label, note->provider, note->name, pv->name);
            note_at(&pv->loc, "provider '%s' is declared here", pv->name);
        } else {
            warning("%s: probe '%s:%s' is used with %d argument%s but declared with %d", label,
                    pv->name, pr->name, nargs, nargs == 1 ? "" : "s", pr->nargs);
            note_at(&pr->loc, "'%s:%s' is declared here", pv->name, pr->name);
        }
    }
}

static void on_elf_done(void *ctx, const char *label, const struct elf_info *elf)
{
    struct scan *sc = ctx;
    if (!sc->verbose)
        return;
    if (elf->has_lto && elf->nnotes == 0)
        info("%s: GCC LTO object without probe notes: its probes cannot be checked", label);
    else
        info("%s: %zu probe site%s", label, elf->nnotes, elf->nnotes == 1 ? "" : "s");
}

int objects_scan(const struct program *prog, const struct strvec *paths, bool verbose,
                 struct objects_result *res)
{
    struct scan sc = {.prog = prog, .verbose = verbose, .res = res};
    struct objread_ops ops = {
        .ctx = &sc,
        .on_elf = on_elf,
        .on_note = on_note,
        .on_elf_done = on_elf_done,
    };
    memset(res, 0, sizeof *res);
    for (size_t i = 0; i < paths->n; i++)
        if (file_read_notes(paths->v[i], &ops, verbose ? FILE_VERBOSE : 0) != 0)
            sc.rc = -1;
    if (verbose && paths->n)
        info("%zu object file%s: %zu probe site%s", paths->n, paths->n == 1 ? "" : "s", sc.nnotes,
             sc.nnotes == 1 ? "" : "s");
    strmap_free(&sc.warned);
    return sc.rc;
}
