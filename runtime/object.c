/* SPDX-License-Identifier: MIT */
/*
 * object.c: the objects providers' probes are loaded into.
 *
 * An object is a file holding a shared object of `capacity' slots (a stub
 * and a semaphore each), written by the core (lib/dso.c) for the target
 * this library was loaded as, loaded once (place.c) and never unloaded.
 * Providers share objects: a provider lodged in an object holds a slot
 * for each of its probes, and the object's file describes the probes of
 * every provider lodged there that is loaded (its notes name each probe's
 * provider).  So a thousand small providers are a few dozen objects, and
 * a load costs what writing one object costs, however many are loaded:
 * the dynamic loader, whose dlopen walks every object it has, runs once
 * for an object's worth of providers.
 *
 *   lodge    a provider's probes get slots (their own again when they
 *            fit, else in an object with room, else in a new object), the
 *            file is written whole with every loaded provider's notes (or,
 *            for a provider reloaded in place, its own notes written back)
 *            and the probes are published;
 *   hide     the probes are unpublished and their notes zeroed in the
 *            file; they keep their slots for the next load;
 *   leave    the slots are given back.
 *
 * A slot given back is pending until no tracer is on it (its semaphore
 * reads zero and its stub holds its own bytes: a uprobe or a debugger's
 * breakpoint changes them); then it is free for any provider.  See the
 * contract at the top of provider.c.
 *
 * Only the process that made an object writes its file or hands out its
 * slots: after fork, a child never touches the objects it inherited.
 */
#define _GNU_SOURCE
#include "runtime.h"

#include "../lib/elf.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The slots of a new object: at least this many, and a power of two
 * (a provider of more probes gets an object of the next power of two,
 * and shares what it leaves). */
enum {
    MIN_SLOTS = 64,
    BUCKETS = 21 /* objects by free slots: 1, 2-3, 4-7 ... up to DSO_MAX_SLOTS */
};
_Static_assert((size_t)1 << (BUCKETS - 1) == DSO_MAX_SLOTS, "a bucket for every count");

enum slot_state {
    SLOT_FREE,    /* for any provider */
    SLOT_HELD,    /* a lodged provider's probe's */
    SLOT_PENDING, /* given back, until no tracer is on it */
};

struct object {
    struct placement pl; /* its file and where it is loaded (place.c) */
    long owner;          /* the process that made it: only it writes the file */
    size_t capacity;
    uint64_t text, stride,
        semaphores;         /* slot 0's stub and semaphore (in the object), slot stride */
    unsigned char stub[64]; /* a stub's bytes, as every slot holds them */
    size_t stub_len;
    uint64_t loaded_end;              /* the loaded bytes: never change */
    unsigned long serial, generation; /* for the build-id's salt */
    /* slots */
    unsigned char *state;               /* enum slot_state, capacity of them */
    const struct sdtkit_probe **holder; /* the probe a slot is or was held by */
    size_t nfree, npending;
    /* the file */
    struct tenant *tenants; /* lodged here, loaded or not */
    unsigned char *saved;   /* the file after loaded_end, as last written whole */
    uint64_t saved_size;
    bool stale; /* a write failed: what the file holds is unknown */
    /* lists */
    struct object *next;                  /* every object of the process */
    struct object *next_open, *prev_open; /* in the bucket of its free slots */
    struct object *next_pending;          /* with pending slots */
    int bucket;                           /* -1: in none */
};

/* The library's objects, under one lock, which is taken inside calls on
 * providers only, so that fork, which waits for those to end (provider.c),
 * never leaves it held. */
static struct {
    pthread_mutex_t lock;
    struct object *objects;       /* every object made */
    struct object *open[BUCKETS]; /* this process's, by free slots */
    struct object *pending;       /* this process's, with pending slots */
    unsigned long serial;
} lib = {PTHREAD_MUTEX_INITIALIZER, NULL, {NULL}, NULL, 0};

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

/* ---- objects and their slots ---- */

static bool owned(const struct object *o) { return o->owner == (long)getpid(); }

static uintptr_t slot_stub(const struct object *o, size_t i)
{
    return o->pl.base + (uintptr_t)(o->text + i * o->stride);
}

static const volatile unsigned short *slot_semaphore(const struct object *o, size_t i)
{
    return (const volatile unsigned short *)(o->pl.base + (uintptr_t)(o->semaphores + 2 * i));
}

/* No tracer is on slot i: its semaphore reads zero and its stub holds its
 * own bytes. */
static bool untraced(const struct object *o, size_t i)
{
    return !*slot_semaphore(o, i) &&
           memcmp((const void *)slot_stub(o, i), o->stub, o->stub_len) == 0;
}

/* The bucket of n free slots: floor(log2(n)), or -1 for none. */
static int bucket_of(size_t n)
{
    int b = -1;
    for (; n; n >>= 1)
        b++;
    return b < BUCKETS ? b : BUCKETS - 1;
}

/* Put o in the bucket of its free slots (in none when full, or not
 * this process's). */
static void rebucket(struct object *o)
{
    int b = owned(o) ? bucket_of(o->nfree) : -1;
    if (b == o->bucket)
        return;
    if (o->bucket >= 0) {
        if (o->prev_open)
            o->prev_open->next_open = o->next_open;
        else
            lib.open[o->bucket] = o->next_open;
        if (o->next_open)
            o->next_open->prev_open = o->prev_open;
    }
    o->bucket = b;
    o->prev_open = NULL;
    o->next_open = NULL;
    if (b >= 0) {
        o->next_open = lib.open[b];
        if (o->next_open)
            o->next_open->prev_open = o;
        lib.open[b] = o;
    }
}

/* o is of the kind a tenant asks for: a memory file, or a named file (in
 * dir, when one is named). */
static bool of_kind(const struct object *o, bool named, const char *dir)
{
    return o->pl.named == named && (!named || !dir || (o->pl.dir && strcmp(o->pl.dir, dir) == 0));
}

/* An object of this process of the kind asked for, with need free slots:
 * one of the fullest that fit.  The buckets below need's may hold some
 * that fit; a few are looked at, then those above, any of which fits. */
static struct object *find_room(bool named, const char *dir, size_t need)
{
    for (int b = need ? bucket_of(need) : 0, looked = 0; b < BUCKETS; b++) {
        for (struct object *o = lib.open[b]; o && looked < 16; o = o->next_open, looked++) {
            assert(owned(o));
            if (o->nfree < need || !of_kind(o, named, dir))
                continue;
            return o;
        }
        looked = 0;
    }
    return NULL;
}

/* Slot i of o for p. */
static void slot_take(struct object *o, size_t i, const struct sdtkit_probe *p)
{
    assert(o->state[i] == SLOT_FREE && o->nfree > 0);
    o->state[i] = SLOT_HELD;
    o->holder[i] = p;
    o->nfree--;
}

/* Give slot i of o back: pending, until reclaim() finds no tracer on it
 * and no thread firing the probe that held it. */
static void slot_give(struct object *o, size_t i)
{
    assert(o->state[i] == SLOT_HELD);
    o->state[i] = SLOT_PENDING;
    if (o->npending++ == 0) {
        o->next_pending = lib.pending;
        lib.pending = o;
    }
}

/* A slot of o never published (a lodging that failed): free at once. */
static void slot_untake(struct object *o, size_t i)
{
    assert(o->state[i] == SLOT_HELD);
    o->state[i] = SLOT_FREE;
    o->holder[i] = NULL;
    o->nfree++;
}

/* Free the pending slots no tracer is on and no thread is firing, as f
 * saw the threads (lib locked). */
static void reclaim(const struct flights *f)
{
    for (struct object **link = &lib.pending, *o; (o = *link);) {
        for (size_t i = 0; i < o->capacity && o->npending; i++) {
            if (o->state[i] != SLOT_PENDING || !untraced(o, i) || fire_flying(f, o->holder[i]))
                continue;
            o->state[i] = SLOT_FREE;
            o->holder[i] = NULL;
            o->nfree++;
            o->npending--;
        }
        rebucket(o);
        if (o->npending)
            link = &o->next_pending;
        else
            *link = o->next_pending;
    }
}

void object_forked(void)
{
    /* the child owns none of the objects: none has room for it, none is
     * pending (lib's lock is free: fork waited for the calls) */
    for (struct object *o = lib.objects; o; o = o->next) {
        o->bucket = -1;
        o->next_open = o->prev_open = o->next_pending = NULL;
    }
    memset(lib.open, 0, sizeof lib.open);
    lib.pending = NULL;
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

/* ---- images ---- */

/* What makes each object's build-id differ from every other's: the
 * process, the object and its contents' generation (see lib/dso.c). */
struct salt {
    long pid;
    unsigned long serial, generation;
};

/* The probes an image of o describes: those of its loaded tenants, and
 * t's (being loaded), each tenant's together, with their slots. */
static struct dso_probe *image_probes(const struct object *o, const struct tenant *t, size_t *n)
{
    size_t count = 0;
    for (const struct tenant *u = o->tenants; u; u = u->next)
        if (u->visible || u == t)
            count += u->nslots;
    struct dso_probe *probes = calloc(count ? count : 1, sizeof *probes);
    if (!probes)
        return NULL;
    size_t k = 0;
    for (const struct tenant *u = o->tenants; u; u = u->next) {
        if (!u->visible && u != t)
            continue;
        for (size_t i = 0; i < u->nslots; i++) {
            const struct sdtkit_probe *p = u->probes[i];
            probes[k++] = (struct dso_probe){.name = p->name,
                                             .nargs = p->nargs,
                                             .sizes = p->size,
                                             .provider = u->name,
                                             .slot = p->slot};
        }
    }
    *n = count;
    return probes;
}

/* Lay out and write d (its probes set) into *buf (malloc'd). */
static int make_image(struct dso *d, const struct target *tg, size_t capacity,
                      const struct salt *salt, void **buf, struct failure *why)
{
    const char *bad = NULL;
    d->target = tg;
    d->provider = "";
    d->capacity = capacity;
    d->slotted = true;
    d->salt = salt;
    d->salt_len = sizeof *salt;
    d->hash_tail = true; /* the salt names the object: its target, its capacity */
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

/* Keep in o what the loaded part of an image holds (fixed for good):
 * where its slots are, and a stub's bytes. */
static void describe(struct object *o, const struct dso *d, const void *buf)
{
    const struct dso_layout *lo = &d->lo;
    o->capacity = d->capacity;
    o->text = lo->sec[lo->text].addr;
    o->stride = d->arch->align;
    o->semaphores = lo->sec[lo->probes].addr;
    o->stub_len = stub_size(d->arch);
    assert(o->stub_len <= sizeof o->stub);
    memcpy(o->stub, (const unsigned char *)buf + lo->sec[lo->text].offset, o->stub_len);
    o->loaded_end = lo->loaded_end;
}

/* The smallest capacity for n probes: MIN_SLOTS, doubled until it fits. */
static size_t capacity_for(size_t n)
{
    size_t c = MIN_SLOTS;
    while (c < n && c < DSO_MAX_SLOTS)
        c *= 2;
    return c;
}

/* The image of o's file with the notes of its loaded tenants and of t
 * (of the generation gen, for the build-id): d (its probes malloc'd) and
 * *buf (malloc'd); the copy of what follows the loaded part in *saved. */
static int image_of(const struct object *o, const struct tenant *t, const struct target *tg,
                    unsigned long gen, struct dso *d, void **buf, unsigned char **saved,
                    struct failure *why)
{
    memset(d, 0, sizeof *d);
    *buf = NULL;
    *saved = NULL;
    if (!(d->probes = image_probes(o, t, &d->nprobes)))
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
    struct salt salt = {o->owner, o->serial, gen};
    int rc = make_image(d, tg, o->capacity, &salt, buf, why);
    if (rc == SDTKIT_OK && o->loaded_end && d->lo.loaded_end != o->loaded_end)
        rc = fail(why, SDTKIT_E_LOAD, STAGE_OBJECT,
                  "internal error: a rewritten object's loaded part moved");
    uint64_t after = rc == SDTKIT_OK ? d->size - d->lo.loaded_end : 0;
    if (rc == SDTKIT_OK && !(*saved = malloc(after ? (size_t)after : 1)))
        rc = fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
    if (rc == SDTKIT_OK)
        memcpy(*saved, (unsigned char *)*buf + d->lo.loaded_end, (size_t)after);
    return rc;
}

/* o's file now holds the image d of generation gen: keep its copy, and
 * where each tenant written has its notes (those are visible). */
static void written(struct object *o, const struct tenant *t, const struct dso *d,
                    unsigned long gen, unsigned char *saved)
{
    free(o->saved);
    o->saved = saved;
    o->saved_size = d->size - d->lo.loaded_end;
    o->stale = false;
    o->generation = gen;
    size_t k = 0;
    for (struct tenant *u = o->tenants; u; u = u->next) {
        if (!u->visible && u != t)
            continue;
        u->visible = true;
        u->written = gen;
        u->note_off = u->nslots ? d->probes[k].note : 0;
        u->note_len = 0;
        for (size_t i = 0; i < u->nslots; i++)
            u->note_len += d->probes[k++].note_size;
    }
    assert(k == d->nprobes);
}

/* Slots of o for t's probes from the first on (the others hold theirs in
 * o already). */
static void take_slots(struct object *o, struct tenant *t, size_t first)
{
    for (size_t i = first, s = 0; i < t->nprobes; i++, s++) {
        while (o->state[s] != SLOT_FREE)
            s++;
        assert(s < o->capacity);
        slot_take(o, s, t->probes[i]);
        t->probes[i]->slot = (uint32_t)s;
    }
}

/* Give back at once the slots take_slots() gave t's probes from the
 * first on, never published (a lodging that failed). */
static void untake_slots(struct object *o, struct tenant *t, size_t first)
{
    for (size_t i = first; i < t->nprobes; i++)
        slot_untake(o, t->probes[i]->slot);
}

static void free_object(struct object *o)
{
    free(o->state);
    free(o->holder);
    free(o->saved);
    free(o);
}

/* A new object of capacity slots of the kind t asks for, with t lodged
 * in it (visible, not yet published): made, loaded (lib unlocked
 * meanwhile: dlopen takes the loader's lock, never under ours) and in the
 * library's lists. */
static int new_object(struct tenant *t, const struct target *tg, size_t capacity,
                      struct object **out, struct failure *why)
{
    struct object *o = calloc(1, sizeof *o);
    if (o) {
        o->state = calloc(capacity, sizeof *o->state);
        o->holder = calloc(capacity, sizeof *o->holder);
    }
    if (!o || !o->state || !o->holder) {
        if (o)
            free_object(o);
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
    }
    o->pl.fd = -1;
    o->owner = (long)getpid();
    o->serial = ++lib.serial;
    o->bucket = -1;
    o->capacity = capacity;
    o->nfree = capacity;
    take_slots(o, t, 0);
    t->nslots = t->nprobes;
    o->tenants = t;
    struct dso d;
    void *buf;
    unsigned char *saved;
    int rc = image_of(o, t, tg, 1, &d, &buf, &saved, why);
    if (rc == SDTKIT_OK) {
        describe(o, &d, buf);
        lib_unlock();
        rc = place_object(t->name, t->named, t->dir, buf, (size_t)d.size, &o->pl, why);
        lib_lock();
    }
    if (rc == SDTKIT_OK) {
        t->obj = o;
        t->visible = false;
        t->next = NULL;
        written(o, t, &d, 1, saved);
        saved = NULL;
        o->next = lib.objects;
        lib.objects = o;
        rebucket(o);
        *out = o;
    } else {
        free_object(o);
    }
    free(saved);
    free(buf);
    free(d.probes);
    return rc;
}

/* Write o's file whole: the notes of its loaded tenants and of t, with a
 * new build-id. */
static int write_whole(struct object *o, struct tenant *t, const struct target *tg,
                       struct failure *why)
{
    struct dso d;
    void *buf;
    unsigned char *saved;
    unsigned long gen = o->generation + 1;
    int rc = image_of(o, t, tg, gen, &d, &buf, &saved, why);
    if (rc == SDTKIT_OK) {
        o->stale = true; /* until the write is whole */
        rc = place_write(&o->pl, buf, (size_t)d.size, 0, why);
    }
    if (rc == SDTKIT_OK) {
        written(o, t, &d, gen, saved);
        saved = NULL;
    }
    free(saved);
    free(buf);
    free(d.probes);
    return rc;
}

/* Zero t's notes in its object's file: tracers that read it again find no
 * probe of t (zeros read as notes with no name).  The notes are not
 * loaded. */
static void hide_notes(struct tenant *t)
{
    static const char zeros[4096];
    struct object *o = t->obj;
    struct failure ignored;
    if (!t->visible || !owned(o))
        return;
    t->visible = false;
    if (o->stale || t->written != o->generation || !t->note_len)
        return; /* written whole next time, without t; or nothing to hide */
    assert(t->note_off >= o->loaded_end &&
           t->note_off + t->note_len <= o->loaded_end + o->saved_size);
    for (uint64_t off = 0; off < t->note_len;) {
        size_t n = t->note_len - off < sizeof zeros ? (size_t)(t->note_len - off) : sizeof zeros;
        if (place_write(&o->pl, zeros, n, t->note_off + off, &ignored) != SDTKIT_OK) {
            o->stale = true; /* the probes stay visible, and inert */
            return;
        }
        off += n;
    }
}

/* Show t's notes again where they were, from the copy of the file. */
static int show_notes(struct tenant *t, struct failure *why)
{
    struct object *o = t->obj;
    if (!t->note_len) {
        t->visible = true;
        return SDTKIT_OK;
    }
    assert(t->note_off >= o->loaded_end &&
           t->note_off + t->note_len <= o->loaded_end + o->saved_size);
    int rc = place_write(&o->pl, o->saved + (t->note_off - o->loaded_end), (size_t)t->note_len,
                         t->note_off, why);
    if (rc != SDTKIT_OK)
        o->stale = true;
    else
        t->visible = true;
    return rc;
}

static void unlink_tenant(struct object *o, struct tenant *t)
{
    for (struct tenant **link = &o->tenants; *link; link = &(*link)->next) {
        if (*link == t) {
            *link = t->next;
            break;
        }
    }
    t->next = NULL;
}

/* t leaves its object: notes hidden, slots given back (lib locked). */
static void leave_locked(struct tenant *t)
{
    struct object *o = t->obj;
    if (!o)
        return;
    if (owned(o)) {
        hide_notes(t);
        for (size_t i = 0; i < t->nslots; i++)
            slot_give(o, t->probes[i]->slot);
        unlink_tenant(o, t);
    }
    t->obj = NULL;
    t->nslots = 0;
    t->visible = false;
}

/* Point each of t's probes at its stub and semaphore. */
static void publish(const struct tenant *t)
{
    for (size_t i = 0; i < t->nprobes; i++) {
        struct sdtkit_probe *p = t->probes[i];
        probe_publish(p, slot_stub(t->obj, p->slot), slot_semaphore(t->obj, p->slot));
    }
}

/* ---- for provider.c ---- */

/* A debugger is attached (ptrace): gdb reads an object's probes once,
 * when it is loaded, so a provider joining an object already loaded would
 * be lost on it; then each load takes an object of its own. */
static bool debugged(void)
{
    char buf[4096];
    int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof buf - 1);
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    const char *t = strstr(buf, "\nTracerPid:");
    return t && strtol(t + 11, NULL, 10) != 0;
}

/* An object of this process with room for t's probes, for t to join:
 * none while debugged().  Pending slots are reclaimed first when none
 * has room (those of a provider destroyed while a thread fired it). */
static struct object *room_for(const struct tenant *t)
{
    if (debugged())
        return NULL;
    struct object *o = find_room(t->named, t->dir, t->nprobes);
    struct flights f;
    if (!o && lib.pending && fire_quiesce(&f) == 0) {
        reclaim(&f);
        fire_landed(&f);
        o = find_room(t->named, t->dir, t->nprobes);
    }
    return o;
}

/* t lodges again in its own object, where its probes added since fit. */
static int lodge_again(struct tenant *t, const struct target *tg, struct failure *why)
{
    struct object *o = t->obj;
    size_t had = t->nslots;
    take_slots(o, t, had);
    rebucket(o);
    t->nslots = t->nprobes;
    int rc;
    if (had == t->nprobes && !o->stale && t->written == o->generation)
        rc = t->visible ? SDTKIT_OK : show_notes(t, why);
    else
        rc = write_whole(o, t, tg, why);
    if (rc != SDTKIT_OK) {
        untake_slots(o, t, had);
        rebucket(o);
        t->nslots = had;
        return rc;
    }
    publish(t);
    return SDTKIT_OK;
}

/* t moves to object o (NULL: a new one) from its own (NULL: none); on
 * failure t is as it was. */
static int lodge_in(struct tenant *t, struct object *o, const struct target *tg,
                    struct failure *why)
{
    struct object *from = t->obj;
    struct tenant was = *t;
    uint32_t *old = malloc((t->nslots ? t->nslots : 1) * sizeof *old);
    if (!old)
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
    for (size_t i = 0; i < t->nslots; i++)
        old[i] = t->probes[i]->slot;
    if (from)
        unlink_tenant(from, t);
    int rc;
    if (!o) {
        rc = new_object(t, tg, capacity_for(t->nprobes), &o, why);
    } else {
        take_slots(o, t, 0);
        rebucket(o);
        t->obj = o;
        t->nslots = t->nprobes;
        t->visible = false;
        t->next = o->tenants;
        o->tenants = t;
        if ((rc = write_whole(o, t, tg, why)) != SDTKIT_OK) {
            untake_slots(o, t, 0);
            rebucket(o);
            unlink_tenant(o, t);
        }
    }
    if (rc != SDTKIT_OK) { /* t as it was */
        *t = was;
        for (size_t i = 0; i < t->nslots; i++)
            t->probes[i]->slot = old[i];
        if (from) {
            t->next = from->tenants;
            from->tenants = t;
        }
    } else {
        publish(t); /* in o, before the old slots go back */
    }
    if (rc == SDTKIT_OK && from) {
        was.next = NULL;
        hide_notes(&was);
        for (size_t i = 0; i < was.nslots; i++)
            slot_give(from, old[i]);
    }
    free(old);
    return rc;
}

int object_lodge(struct tenant *t, struct failure *why)
{
    struct target tg;
    if (own_target(&tg) != 0)
        return fail(why, SDTKIT_E_UNSUPPORTED, STAGE_NONE,
                    "this program cannot load shared objects (it is statically "
                    "linked: dladdr finds no ELF header for this library)");
    lib_lock();
    struct object *o = t->obj;
    if (o && !owned(o)) { /* inherited through fork: the parent's */
        t->obj = o = NULL;
        t->nslots = 0;
        t->visible = false;
    }
    if (o && !of_kind(o, t->named, t->dir)) {
        leave_locked(t); /* another kind of file asked for */
        o = NULL;
    }
    int rc;
    if (o && o->nfree >= t->nprobes - t->nslots)
        rc = lodge_again(t, &tg, why);
    else /* another object (t outgrew its own) */
        rc = lodge_in(t, room_for(t), &tg, why);
    lib_unlock();
    return rc;
}

void object_hide(struct tenant *t)
{
    lib_lock();
    for (size_t i = 0; i < t->nslots; i++)
        probe_unpublish(t->probes[i]);
    if (t->obj)
        hide_notes(t);
    lib_unlock();
}

void object_leave(struct tenant *t)
{
    lib_lock();
    leave_locked(t);
    lib_unlock();
}

void object_reclaim(const struct flights *f)
{
    lib_lock();
    reclaim(f);
    lib_unlock();
}

void object_describe(const struct tenant *t, char *buf, size_t len, struct loaded *out)
{
    out->path = place_path(&t->obj->pl, buf, len);
    out->handle = t->obj->pl.handle;
    out->fd = t->obj->pl.fd;
}
