/* SPDX-License-Identifier: MIT */
/*
 * object.c: the objects providers' probes are loaded into.
 *
 * An object is a file holding a shared object of `capacity' probe slots
 * (a stub and a semaphore each), written by the core (lib/dso.c) for the
 * target this library was loaded as, loaded once (place.c) and never
 * unloaded.  A provider takes an object, its file is rewritten to
 * describe the provider's probes, and gives it back; see the contract at
 * the top of provider.c.
 */
#define _GNU_SOURCE
#include "runtime.h"

#include "../lib/elf.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The slots of a new object: at least this many, and a power of two, so
 * that a provider adding probes one by one rewrites its object in place
 * and moves to a new one only when it doubles. */
enum {
    MIN_SLOTS = 64
};

/* An object: a file holding a loaded shared object of `capacity' probe
 * slots, loaded once and never unloaded (see provider.c), which providers
 * take, rewrite and give back. */
struct object {
    struct placement pl; /* its file and where it is loaded (place.c) */
    long owner;          /* the process that made it: only it writes the file */
    bool in_use;         /* a provider's (else free, for the next load that fits) */
    bool visible;        /* the notes are in the file (not zeroed) */
    size_t capacity;
    uint64_t text, stride,
        semaphores;         /* slot 0's stub and semaphore (in the object), slot stride */
    unsigned char stub[64]; /* a stub's bytes, as every slot holds them */
    size_t stub_len;
    uint64_t notes_offset, notes_size; /* .note.stapsdt of what the file holds */
    unsigned char *notes;              /* its bytes, to show them again */
    uint64_t loaded_end;               /* the loaded bytes: never change */
    const void *tenant;               /* the tenant whose probes the file describes */
    size_t tenant_probes;             /* and how many */
    unsigned long serial, generation; /* for the build-id's salt */
    struct object *next;              /* every object of the process */
};

/* The library's objects: every object the process made (loaded for good).
 * The lock is taken inside calls on providers only, so that fork, which
 * waits for those to end (provider.c), never leaves it held. */
static struct {
    pthread_mutex_t lock;
    struct object *objects;
    unsigned long serial;
} lib = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

static void lib_lock(void) { pthread_mutex_lock(&lib.lock); }
static void lib_unlock(void) { pthread_mutex_unlock(&lib.lock); }

/* The ELF identity of the object this library was loaded as (or linked
 * into): the loader accepted its class, machine and flags, so an object
 * carrying the same ones is accepted too (ARM hard-float, MIPS ABI and
 * NaN, PowerPC64 ELFv1/v2 ...).  Its header is mapped at its base, in the
 * running byte order. */
static int own_target(struct target *t)
{
    Dl_info info;
    if (!dladdr((void *)(uintptr_t)own_target, &info) || !info.dli_fbase)
        return -1;
    const unsigned char *e = info.dli_fbase;
    if (memcmp(e, "\177ELF", 4) != 0)
        return -1;
    uint16_t machine;
    uint32_t flags;
    t->elfclass = e[4];
    t->data = e[5];
    t->osabi = e[7];
    memcpy(&machine, e + 18, 2);
    memcpy(&flags, e + (t->elfclass == ELFCLASS64 ? 48 : 36), 4);
    t->machine = machine;
    t->flags = flags;
    bool msb = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
    if ((t->elfclass == ELFCLASS64) != (sizeof(void *) == 8) || (t->data == ELFDATA2MSB) != msb)
        return -1;
    return 0;
}

/* ---- objects ---- */

static bool owned(const struct object *o) { return o->owner == (long)getpid(); }

static uintptr_t slot_stub(const struct object *o, size_t i)
{
    return o->pl.base + (uintptr_t)(o->text + i * o->stride);
}

static const volatile unsigned short *slot_semaphore(const struct object *o, size_t i)
{
    return (const volatile unsigned short *)(o->pl.base + (uintptr_t)(o->semaphores + 2 * i));
}

/* No tracer is on o: every semaphore reads zero and every stub holds its
 * own bytes (a uprobe or a debugger's breakpoint changes them). */
static bool untraced(const struct object *o)
{
    for (size_t i = 0; i < o->capacity; i++)
        if (*slot_semaphore(o, i) ||
            memcmp((const void *)slot_stub(o, i), o->stub, o->stub_len) != 0)
            return false;
    return true;
}

/* A free object of this process, untraced, of the kind asked for (named
 * when named, and in dir when given), with room for need probes: the
 * smallest.  Marked in use. */
static struct object *take_free(bool named, const char *dir, size_t need)
{
    struct object *best = NULL;
    lib_lock();
    for (struct object *o = lib.objects; o; o = o->next) {
        if (o->in_use || !owned(o) || o->capacity < need || (named && !o->pl.named) ||
            (named && dir && (!o->pl.dir || strcmp(o->pl.dir, dir) != 0)))
            continue;
        if ((!best || o->capacity < best->capacity) && untraced(o))
            best = o;
    }
    if (best)
        best->in_use = true;
    lib_unlock();
    return best;
}

/* Give o back: free for the next load that fits (whose image it then
 * takes whole: a new generation). */
static void release(struct object *o)
{
    lib_lock();
    o->in_use = false;
    o->tenant = NULL;
    lib_unlock();
}

/* At exit, this process's named files go (a child's exit leaves its
 * parent's alone: they are not its own). */
__attribute__((destructor)) static void remove_named_files(void)
{
    lib_lock();
    for (struct object *o = lib.objects; o; o = o->next)
        if (o->pl.named && owned(o))
            unlink(o->pl.path);
    lib_unlock();
}

/* What makes each object's build-id differ from every other's: the
 * process, the object and its contents' generation (see lib/dso.c). */
struct salt {
    long pid;
    unsigned long serial, generation;
};

/* Lay out and write t's probes into an object of capacity slots: *buf
 * (malloc'd) and d. */
static int make_image(const struct tenant *t, const struct target *tg, size_t capacity,
                      const struct salt *salt, struct dso *d, void **buf, struct failure *why)
{
    const char *bad = NULL;
    d->target = tg;
    d->provider = t->name;
    d->nprobes = t->nprobes;
    d->capacity = capacity;
    d->salt = salt;
    d->salt_len = sizeof *salt;
    d->probes = calloc(t->nprobes ? t->nprobes : 1, sizeof *d->probes);
    if (!d->probes)
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
    for (size_t i = 0; i < t->nprobes; i++) {
        d->probes[i].name = t->probes[i]->name;
        d->probes[i].nargs = t->probes[i]->nargs;
        d->probes[i].sizes = t->probes[i]->size;
    }
    if (dso_layout(d, &bad) != 0) {
        char machine[32];
        return fail(why, SDTKIT_E_UNSUPPORTED, STAGE_OBJECT, "%s: %s",
                    arch_machine_name(tg->machine, machine, sizeof machine), bad);
    }
    *buf = malloc((size_t)d->size);
    if (!*buf)
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory for a %zu-byte object",
                    (size_t)d->size);
    if (dso_write(d, *buf) != 0)
        return fail(why, SDTKIT_E_LOAD, STAGE_OBJECT,
                    "internal error: the object's layout and writer disagree");
    return SDTKIT_OK;
}

/* Note in o what the image d holds: where its slots and notes are, and
 * the notes' bytes (to show them again after an unload).  0, or
 * SDTKIT_E_NOMEM (o unchanged). */
static int describe(struct object *o, const struct dso *d, const void *buf, struct failure *why)
{
    const struct dso_layout *lo = &d->lo;
    const struct elf_section *notes = &lo->sec[lo->notes];
    unsigned char *copy = malloc(notes->size ? (size_t)notes->size : 1);
    if (!copy)
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
    memcpy(copy, (const unsigned char *)buf + notes->offset, (size_t)notes->size);
    free(o->notes);
    o->notes = copy;
    o->notes_offset = notes->offset;
    o->notes_size = notes->size;
    o->capacity = d->capacity;
    o->text = lo->sec[lo->text].addr;
    o->stride = d->arch->align;
    o->semaphores = lo->sec[lo->probes].addr;
    o->stub_len = stub_size(d->arch);
    assert(o->stub_len <= sizeof o->stub);
    memcpy(o->stub, (const unsigned char *)buf + lo->sec[lo->text].offset, o->stub_len);
    o->loaded_end = lo->loaded_end;
    return SDTKIT_OK;
}

/* The smallest capacity for n probes: MIN_SLOTS, doubled until it fits. */
static size_t capacity_for(size_t n)
{
    size_t c = MIN_SLOTS;
    while (c < n && c < DSO_MAX_SLOTS)
        c *= 2;
    return c;
}

/* A new object for t's probes, made and loaded; marked in use. */
static int new_object(const struct tenant *t, const struct target *tg, struct object **out,
                      struct failure *why)
{
    struct dso d;
    void *buf = NULL;
    memset(&d, 0, sizeof d);
    struct object *o = calloc(1, sizeof *o);
    if (!o)
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
    o->pl.fd = -1;
    o->owner = (long)getpid();
    lib_lock();
    o->serial = ++lib.serial;
    lib_unlock();
    struct salt salt = {o->owner, o->serial, 0};
    int rc = make_image(t, tg, capacity_for(t->nprobes), &salt, &d, &buf, why);
    if (rc == SDTKIT_OK)
        rc = describe(o, &d, buf, why);
    if (rc == SDTKIT_OK)
        rc = place_object(t->name, t->named, t->dir, buf, (size_t)d.size, &o->pl, why);
    if (rc == SDTKIT_OK) {
        o->tenant = t;
        o->tenant_probes = t->nprobes;
        o->visible = true;
        o->in_use = true;
        lib_lock();
        o->next = lib.objects;
        lib.objects = o;
        lib_unlock();
        *out = o;
        o = NULL;
    }
    if (o)
        free(o->notes);
    free(o);
    free(buf);
    free(d.probes);
    return rc;
}

/* Make o's file describe t's probes, visibly: its notes again when it
 * holds them already, else a new image (a new generation, so a new
 * build-id), whose loaded bytes are the ones already there. */
static int rewrite(const struct tenant *t, const struct target *tg, struct object *o,
                   struct failure *why)
{
    struct dso d;
    void *buf = NULL;
    memset(&d, 0, sizeof d);
    if (o->tenant == t && o->tenant_probes == t->nprobes) {
        if (!o->visible &&
            place_write(&o->pl, o->notes, (size_t)o->notes_size, o->notes_offset, why) != 0)
            return SDTKIT_E_LOAD;
        o->visible = true;
        return SDTKIT_OK;
    }
    struct salt salt = {o->owner, o->serial, o->generation + 1};
    int rc = make_image(t, tg, o->capacity, &salt, &d, &buf, why);
    if (rc == SDTKIT_OK && d.lo.loaded_end != o->loaded_end)
        rc = fail(why, SDTKIT_E_LOAD, STAGE_OBJECT,
                  "internal error: a rewritten object's loaded part moved");
    if (rc == SDTKIT_OK)
        rc = describe(o, &d, buf, why);
    if (rc == SDTKIT_OK) {
        o->generation = salt.generation;
        o->tenant = t;
        o->tenant_probes = t->nprobes;
        o->visible = true;
        rc = place_write(&o->pl, buf, (size_t)d.size, 0, why);
        if (rc != SDTKIT_OK)
            o->tenant = NULL; /* what the file holds is unknown: all of it next time */
    }
    free(buf);
    free(d.probes);
    return rc;
}

/* Zero o's notes in its file: tracers that read it again find no probe
 * (zeros read as notes with no name).  The notes are not loaded. */
static void hide(struct object *o)
{
    static const char zeros[4096];
    struct failure ignored;
    if (!o->visible || !owned(o))
        return;
    for (uint64_t off = 0; off < o->notes_size;) {
        size_t n =
            o->notes_size - off < sizeof zeros ? (size_t)(o->notes_size - off) : sizeof zeros;
        if (place_write(&o->pl, zeros, n, o->notes_offset + off, &ignored) != 0)
            return; /* the probes stay visible, and inert */
        off += n;
    }
    o->visible = false;
}

/* ---- for provider.c ---- */

int object_lodge(struct tenant *t, struct failure *why)
{
    struct target tg;
    if (own_target(&tg) != 0)
        return fail(why, SDTKIT_E_UNSUPPORTED, STAGE_NONE,
                    "this program cannot load shared objects (it is statically "
                    "linked: dladdr finds no ELF header for this library)");
    struct object *o = t->obj;
    if (o && (!owned(o) || o->capacity < t->nprobes || (t->named && !o->pl.named) ||
              (t->named && t->dir && (!o->pl.dir || strcmp(o->pl.dir, t->dir) != 0)))) {
        if (owned(o))
            release(o); /* outgrown: free for a smaller provider */
        t->obj = o = NULL;
    }
    int rc = SDTKIT_OK;
    if (!o && (o = take_free(t->named, t->dir, t->nprobes)))
        t->obj = o;
    if (o) {
        rc = rewrite(t, &tg, o, why);
    } else if ((rc = new_object(t, &tg, &o, why)) == SDTKIT_OK) {
        t->obj = o;
    }
    return rc;
}

void object_hide(struct tenant *t)
{
    if (t->obj)
        hide(t->obj);
}

void object_leave(struct tenant *t)
{
    if (t->obj && owned(t->obj))
        release(t->obj);
    t->obj = NULL;
}

void object_slot(const struct tenant *t, size_t i, uintptr_t *stub,
                 const volatile unsigned short **semaphore)
{
    *stub = slot_stub(t->obj, i);
    *semaphore = slot_semaphore(t->obj, i);
}

void object_describe(const struct tenant *t, char *buf, size_t len, struct loaded *out)
{
    out->path = place_path(&t->obj->pl, buf, len);
    out->handle = t->obj->pl.handle;
    out->fd = t->obj->pl.fd;
}
