/* SPDX-License-Identifier: MIT */
/*
 * provider.c: <sdtkit.h>, the native API of the run-time probe library.
 *
 * A provider holds its probes; loading it writes a shared object for the
 * running target (lib/dso.c) into an object (a file, loaded: place.c), and
 * publishes each probe's stub and semaphore with release stores, which
 * fire and the inline is-enabled test read with acquire loads.  Unloading
 * publishes a zero semaphore and no stub, and zeroes the notes in the file.
 * Lifecycle calls on one provider take its mutex.
 *
 * The contract that makes fire and is-enabled safe without a lock, a
 * count or a clock:
 *
 *   Nothing that sdtkit_probe_fire(), sdtkit_probe_firev(),
 *   sdtkit_probe_enabled() or libstapsdt's probeFire() and probeIsEnabled()
 *   can read or call is ever freed or unmapped while the process lives.
 *
 *   - A probe is allocated once and never freed nor reused: destroying its
 *     provider unpublishes it and moves it to the retired list.  A handle
 *     kept past destroy therefore reads its own probe, whose stub is 0 and
 *     semaphore the library's zero: it does nothing, and can never become
 *     another probe's handle.  Everything fire reads of the probe (its
 *     arguments' types, its names) is written before it is first published
 *     and never again.
 *   - An object is loaded once (RTLD_NODELETE) and never unloaded.  A
 *     provider's loads reuse its object while its probes fit; an object
 *     outgrown, or whose provider was destroyed, is free, and the next load
 *     that fits takes it, rewriting its file.  What the loader mapped never
 *     changes when the file is rewritten: the stubs of every slot are the
 *     same code, the semaphores stay where they are (lib/dso.c lays out
 *     the loaded bytes from the capacity alone).
 *
 *   So a thread stopped anywhere -- between the two loads of is-enabled,
 *   or inside fire, inside the stub -- for any time, while other threads
 *   unload, load, destroy and create providers, resumes on mapped memory:
 *   an old semaphore address reads a semaphore (its probe's, or after the
 *   object was taken by another provider, another probe's: at worst one
 *   needless call of fire, which then does nothing or fires its own
 *   probe), and an old stub is the same stub.  Fire writes nothing shared
 *   between threads.
 *
 *   The cost: a probe's handle (its struct and names) stays allocated
 *   after destroy, and the objects a process holds are as many as it had
 *   loaded at once, never more: a reload loop reuses one object, with no
 *   new file, mapping or descriptor.
 *
 *   An object is taken for another provider only when no tracer is on it:
 *   every semaphore reads zero and every stub still holds its own bytes (a
 *   uprobe's breakpoint would show there).  A provider reloading its own
 *   object keeps the tracers already attached: they see its probes again.
 *
 * After fork, the child inherits the objects but does not own them: it
 * never writes their files (the parent's probes stay as they are) and its
 * next load makes objects of its own; only the process that made a named
 * file removes it.
 */
#define _GNU_SOURCE
#include "runtime.h"

#include "../lib/elf.h"

/* sdtkit:fire, the library's own probe (below), has a semaphore. */
#define _SDT_HAS_SEMAPHORES 1
#include "../include/sys/sdt.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

/* What an unloaded probe's semaphore reads. */
static const volatile unsigned short zero_semaphore = 0;

/* The slots of a new object: at least this many, and a power of two, so
 * that a provider adding probes one by one rewrites its object in place
 * and moves to a new one only when it doubles. */
enum {
    MIN_SLOTS = 64
};

/* The library's state besides providers: every object the process made
 * (loaded for good), and the probes of destroyed providers (allocated for
 * good).  fork() takes the lock first, so a child never inherits it held. */
static struct {
    pthread_mutex_t lock;
    struct object *objects;
    struct sdtkit_probe *retired;
    unsigned long serial;
    bool atfork;
} lib = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0, false};

static void lib_lock(void) { pthread_mutex_lock(&lib.lock); }
static void lib_unlock(void) { pthread_mutex_unlock(&lib.lock); }

static void atfork_once(void)
{
    if (!lib.atfork && pthread_atfork(lib_lock, lib_unlock, lib_unlock) == 0)
        lib.atfork = true;
}

int provider_fail(struct sdtkit_provider *pv, int status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pv->error, sizeof pv->error, fmt, ap);
    va_end(ap);
    return status;
}

const char *sdtkit_strerror(int status)
{
    switch (status) {
    case SDTKIT_OK:
        return "SDTKIT_OK: success";
    case SDTKIT_E_INVALID:
        return "SDTKIT_E_INVALID: an invalid argument";
    case SDTKIT_E_NOMEM:
        return "SDTKIT_E_NOMEM: out of memory";
    case SDTKIT_E_EXISTS:
        return "SDTKIT_E_EXISTS: the provider has a probe of that name";
    case SDTKIT_E_STATE:
        return "SDTKIT_E_STATE: not allowed in the provider's state";
    case SDTKIT_E_LOAD:
        return "SDTKIT_E_LOAD: the probes' object could not be made or loaded";
    case SDTKIT_E_UNSUPPORTED:
        return "SDTKIT_E_UNSUPPORTED: no run-time probes on this machine";
    default:
        return "unknown sdtkit status";
    }
}

/* NULL when name is a valid provider or probe name, else what is wrong.
 * lax (libstapsdt's API): any string; the notes carry it as it is. */
static const char *bad_name(const char *name, bool lax)
{
    if (!name)
        return "no name (NULL)";
    if (lax)
        return NULL;
    if (!*name)
        return "an empty name";
    _Static_assert(SDTKIT_NAME_MAX == 60, "the message below says 60");
    if (strlen(name) > SDTKIT_NAME_MAX)
        return "a name longer than 60 bytes (SDTKIT_NAME_MAX)";
    if (!is_identifier(name))
        return "a name that is not a C identifier (letters, digits, '_', not a digit first)";
    return NULL;
}

int provider_create(const char *name, bool lax, struct sdtkit_provider **out)
{
    if (!out)
        return SDTKIT_E_INVALID;
    *out = NULL;
    if (bad_name(name, lax))
        return SDTKIT_E_INVALID;
    struct sdtkit_provider *pv = calloc(1, sizeof *pv);
    if (!pv)
        return SDTKIT_E_NOMEM;
    pv->name = strdup(name);
    if (!pv->name || pthread_mutex_init(&pv->lock, NULL) != 0) {
        free(pv->name);
        free(pv);
        return SDTKIT_E_NOMEM;
    }
    pv->lax = lax;
    *out = pv;
    return SDTKIT_OK;
}

int sdtkit_provider_create(const char *name, sdtkit_provider **out)
{
    return provider_create(name, false, out);
}

/* The note's size of a type, or 0 for an unknown type. */
static int type_size(int type)
{
    switch (type) {
    case SDTKIT_UINT8:
    case SDTKIT_INT8:
    case SDTKIT_UINT16:
    case SDTKIT_INT16:
    case SDTKIT_UINT32:
    case SDTKIT_INT32:
    case SDTKIT_UINT64:
    case SDTKIT_INT64:
        return type;
    case SDTKIT_POINTER:
    case SDTKIT_STRING:
        return (int)sizeof(void *);
    case SDTKIT_FLOAT:
        return 4;
    case SDTKIT_DOUBLE:
        return 8;
    default:
        return 0;
    }
}

static unsigned char kind_of(int type)
{
    switch (type) {
    case SDTKIT_UINT8:
    case SDTKIT_INT8:
        return KIND_U8;
    case SDTKIT_UINT16:
    case SDTKIT_INT16:
        return KIND_U16;
    case SDTKIT_UINT32:
    case SDTKIT_INT32:
        return KIND_U32;
    case SDTKIT_POINTER:
    case SDTKIT_STRING:
        return KIND_POINTER;
    case SDTKIT_FLOAT:
        return KIND_FLOAT;
    case SDTKIT_DOUBLE:
        return KIND_DOUBLE;
    default: /* SDTKIT_UINT64, SDTKIT_INT64 (add_probe took no other) */
        return KIND_U64;
    }
}

/* ---- the probes by name: open addressing, at most half full ---- */

static size_t name_hash(const char *name)
{
    size_t h = 2166136261u; /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 16777619u;
    return h;
}

/* The slot of name in pv's index: its probe's, or the empty one it would
 * take. */
static struct sdtkit_probe **index_slot(const struct sdtkit_provider *pv, const char *name)
{
    size_t mask = pv->index_cap - 1;
    for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask)
        if (!pv->index[i] || strcmp(pv->index[i]->name, name) == 0)
            return &pv->index[i];
}

static struct sdtkit_probe *find_probe(const struct sdtkit_provider *pv, const char *name)
{
    return pv->index_cap ? *index_slot(pv, name) : NULL;
}

/* Room in the index for one more probe: 0, or -1 out of memory. */
static int index_reserve(struct sdtkit_provider *pv)
{
    if (2 * (pv->nprobes + 1) <= pv->index_cap)
        return 0;
    size_t cap = pv->index_cap ? 2 * pv->index_cap : 16;
    struct sdtkit_probe **old = pv->index;
    size_t old_cap = pv->index_cap;
    if (!(pv->index = calloc(cap, sizeof *pv->index))) {
        pv->index = old;
        return -1;
    }
    pv->index_cap = cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i])
            *index_slot(pv, old[i]->name) = old[i];
    free(old);
    return 0;
}

/* A new probe, inert, with prefix bytes before it and its names after it,
 * in one allocation that is never freed (see the contract above). */
static struct sdtkit_probe *probe_new(size_t prefix, const char *pname, const char *name)
{
    size_t head = align_up(prefix, _Alignof(max_align_t));
    size_t lp = strlen(pname) + 1, ln = strlen(name) + 1;
    if (lp > SIZE_MAX / 4 || ln > SIZE_MAX / 4)
        return NULL;
    char *block = calloc(1, head + sizeof(struct sdtkit_probe) + lp + ln);
    if (!block)
        return NULL;
    struct sdtkit_probe *p = (struct sdtkit_probe *)(void *)(block + head);
    char *names = (char *)(p + 1);
    p->pname = memcpy(names, pname, lp);
    p->name = memcpy(names + lp, name, ln);
    p->semaphore = &zero_semaphore;
    return p;
}

/* Check and add a probe; pv is locked. */
int provider_add_probe_locked(struct sdtkit_provider *pv, const char *name, const int *types,
                              int nargs, size_t prefix, sdtkit_probe **out)
{
    *out = NULL;
    const char *why = bad_name(name, pv->lax);
    if (why)
        return provider_fail(pv, SDTKIT_E_INVALID, "probe of provider '%s': %s", pv->name, why);
    if (nargs < 0 || nargs > SDTKIT_MAX_ARGS || (nargs > 0 && !types))
        return provider_fail(pv, SDTKIT_E_INVALID,
                             "probe '%s': %d arguments (0 to %d, with their types)", name, nargs,
                             SDTKIT_MAX_ARGS);
    for (int i = 0; i < nargs; i++)
        if (!type_size(types[i]))
            return provider_fail(pv, SDTKIT_E_INVALID,
                                 "probe '%s': argument %d has the unknown type %d", name, i + 1,
                                 types[i]);
    if (pv->loaded && !pv->lax)
        return provider_fail(pv, SDTKIT_E_STATE,
                             "probe '%s': provider '%s' is loaded (unload it, add the probe, "
                             "load it again)",
                             name, pv->name);
    if (!pv->lax) {
        if (find_probe(pv, name))
            return provider_fail(pv, SDTKIT_E_EXISTS, "provider '%s' has a probe '%s' already",
                                 pv->name, name);
        if (index_reserve(pv) != 0)
            return provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
    }
    if (pv->nprobes == pv->cap) {
        size_t cap = pv->cap ? 2 * pv->cap : 8;
        void *v = realloc(pv->probes, cap * sizeof *pv->probes);
        if (!v)
            return provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
        pv->probes = v;
        pv->cap = cap;
    }
    struct sdtkit_probe *p = probe_new(prefix, pv->name, name);
    if (!p)
        return provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
    p->nargs = nargs;
    p->direct = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    p->all_u64 = true;
    for (int i = 0; i < nargs; i++) {
        p->kind[i] = kind_of(types[i]);
        p->all_u64 &= p->kind[i] == KIND_U64;
        p->size[i] = (signed char)type_size(types[i]);
        p->direct &= types[i] != SDTKIT_FLOAT;
    }
    if (!pv->lax)
        *index_slot(pv, p->name) = p;
    pv->probes[pv->nprobes++] = p;
    *out = p;
    return SDTKIT_OK;
}

int sdtkit_provider_add_probe(sdtkit_provider *pv, const char *name, const int *types, int nargs,
                              sdtkit_probe **out)
{
    if (!out)
        return SDTKIT_E_INVALID;
    *out = NULL;
    if (!pv)
        return SDTKIT_E_INVALID;
    pthread_mutex_lock(&pv->lock);
    int rc = provider_add_probe_locked(pv, name, types, nargs, 0, out);
    pthread_mutex_unlock(&pv->lock);
    return rc;
}

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

/* No tracer is on o: every semaphore reads zero and every stub holds its
 * own bytes (a uprobe or a debugger's breakpoint changes them). */
static bool untraced(const struct object *o)
{
    for (size_t i = 0; i < o->capacity; i++) {
        const volatile unsigned short *sem =
            (const volatile unsigned short *)(o->base + (uintptr_t)(o->semaphores + 2 * i));
        if (*sem || memcmp((const void *)(o->base + (uintptr_t)(o->text + i * o->stride)), o->stub,
                           o->stub_len) != 0)
            return false;
    }
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
        if (o->in_use || !owned(o) || o->capacity < need || (named && !o->named) ||
            (named && dir && (!o->dir || strcmp(o->dir, dir) != 0)))
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
        if (o->named && owned(o))
            unlink(o->path);
    lib_unlock();
}

/* What makes each object's build-id differ from every other's: the
 * process, the object and its contents' generation (see lib/dso.c). */
struct salt {
    long pid;
    unsigned long serial, generation;
};

/* Lay out and write pv's probes into an object of capacity slots: *buf
 * (malloc'd) and d; pv locked. */
static int make_image(struct sdtkit_provider *pv, const struct target *t, size_t capacity,
                      const struct salt *salt, struct dso *d, void **buf)
{
    const char *why = NULL;
    d->target = t;
    d->provider = pv->name;
    d->nprobes = pv->nprobes;
    d->capacity = capacity;
    d->salt = salt;
    d->salt_len = sizeof *salt;
    d->probes = calloc(pv->nprobes ? pv->nprobes : 1, sizeof *d->probes);
    if (!d->probes)
        return provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
    for (size_t i = 0; i < pv->nprobes; i++) {
        d->probes[i].name = pv->probes[i]->name;
        d->probes[i].nargs = pv->probes[i]->nargs;
        d->probes[i].sizes = pv->probes[i]->size;
    }
    if (dso_layout(d, &why) != 0) {
        char machine[32];
        return provider_fail(pv, SDTKIT_E_UNSUPPORTED, "%s: %s",
                             arch_machine_name(t->machine, machine, sizeof machine), why);
    }
    *buf = malloc((size_t)d->size);
    if (!*buf)
        return provider_fail(pv, SDTKIT_E_NOMEM, "out of memory for a %zu-byte object",
                             (size_t)d->size);
    if (dso_write(d, *buf) != 0)
        return provider_fail(pv, SDTKIT_E_LOAD,
                             "internal error: the object's layout and writer disagree");
    return SDTKIT_OK;
}

/* Note in o what the image d holds: where its slots and notes are, and
 * the notes' bytes (to show them again after an unload).  0, or -1 out of
 * memory (o unchanged). */
static int describe(struct object *o, const struct dso *d, const void *buf)
{
    const struct dso_layout *lo = &d->lo;
    const struct elf_section *notes = &lo->sec[lo->notes];
    unsigned char *copy = malloc(notes->size ? (size_t)notes->size : 1);
    if (!copy)
        return -1;
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
    if (d->size > o->file_size)
        o->file_size = d->size;
    return 0;
}

/* The smallest capacity for n probes: MIN_SLOTS, doubled until it fits. */
static size_t capacity_for(size_t n)
{
    size_t c = MIN_SLOTS;
    while (c < n && c < DSO_MAX_SLOTS)
        c *= 2;
    return c;
}

/* A new object for pv's probes, made and loaded; marked in use. */
static int new_object(struct sdtkit_provider *pv, const struct target *t, bool named,
                      const char *dir, struct object **out)
{
    struct dso d;
    void *buf = NULL;
    memset(&d, 0, sizeof d);
    struct object *o = calloc(1, sizeof *o);
    if (!o)
        return provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
    o->fd = -1;
    o->owner = (long)getpid();
    lib_lock();
    o->serial = ++lib.serial;
    lib_unlock();
    struct salt salt = {o->owner, o->serial, 0};
    pv->stage = STAGE_OBJECT;
    int rc = make_image(pv, t, capacity_for(pv->nprobes), &salt, &d, &buf);
    if (rc == SDTKIT_OK) {
        rc = SDTKIT_E_LOAD;
        if (describe(o, &d, buf) != 0) {
            rc = provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
        } else if (place_object(pv, named, dir, buf, (size_t)d.size, o) == 0) {
            o->tenant = pv;
            o->tenant_probes = pv->nprobes;
            o->visible = true;
            o->in_use = true;
            lib_lock();
            atfork_once();
            o->next = lib.objects;
            lib.objects = o;
            lib_unlock();
            *out = o;
            o = NULL;
            rc = SDTKIT_OK;
        }
    }
    if (o)
        free(o->notes);
    free(o);
    free(buf);
    free(d.probes);
    return rc;
}

/* Make o's file describe pv's probes, visibly: its notes again when it
 * holds them already, else a new image (a new generation, so a new
 * build-id), whose loaded bytes are the ones already there. */
static int rewrite(struct sdtkit_provider *pv, const struct target *t, struct object *o)
{
    struct dso d;
    void *buf = NULL;
    memset(&d, 0, sizeof d);
    if (o->tenant == pv && o->tenant_probes == pv->nprobes) {
        if (!o->visible && object_write(o, o->notes, (size_t)o->notes_size, o->notes_offset) != 0) {
            pv->stage = STAGE_FILE;
            return provider_fail(pv, SDTKIT_E_LOAD, "cannot write the probes' object %s: %s",
                                 o->path, strerror(errno));
        }
        o->visible = true;
        return SDTKIT_OK;
    }
    struct salt salt = {o->owner, o->serial, o->generation + 1};
    pv->stage = STAGE_OBJECT;
    int rc = make_image(pv, t, o->capacity, &salt, &d, &buf);
    if (rc == SDTKIT_OK && d.lo.loaded_end != o->loaded_end)
        rc = provider_fail(pv, SDTKIT_E_LOAD,
                           "internal error: a rewritten object's loaded part moved");
    if (rc == SDTKIT_OK && describe(o, &d, buf) != 0)
        rc = provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
    if (rc == SDTKIT_OK) {
        pv->stage = STAGE_FILE;
        o->generation = salt.generation;
        o->tenant = pv;
        o->tenant_probes = pv->nprobes;
        o->visible = true;
        if (object_write(o, buf, (size_t)d.size, 0) != 0) {
            rc = provider_fail(pv, SDTKIT_E_LOAD, "cannot write the probes' object %s: %s", o->path,
                               strerror(errno));
            o->tenant = NULL; /* what the file holds is unknown: all of it next time */
        }
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
    if (!o->visible || !owned(o))
        return;
    for (uint64_t off = 0; off < o->notes_size;) {
        size_t n =
            o->notes_size - off < sizeof zeros ? (size_t)(o->notes_size - off) : sizeof zeros;
        if (object_write(o, zeros, n, o->notes_offset + off) != 0)
            return; /* the probes stay visible, and inert */
        off += n;
    }
    o->visible = false;
}

/* Point each probe at its stub and semaphore in pv's object. */
static void publish(struct sdtkit_provider *pv)
{
    const struct object *o = pv->obj;
    for (size_t i = 0; i < pv->nprobes; i++) {
        struct sdtkit_probe *p = pv->probes[i];
        p->stub = o->base + (uintptr_t)(o->text + i * o->stride);
        uintptr_t call = p->stub;
#if defined __powerpc64__ && (!defined _CALL_ELF || _CALL_ELF == 1)
        p->descriptor[0] = p->stub; /* the stub uses no TOC */
        call = (uintptr_t)p->descriptor;
#endif
        const volatile unsigned short *sem =
            (const volatile unsigned short *)(o->base + (uintptr_t)(o->semaphores + 2 * i));
        __atomic_store_n(&p->semaphore, sem, __ATOMIC_RELEASE);
        __atomic_store_n(&p->call, call, __ATOMIC_RELEASE);
    }
    pv->published = pv->nprobes;
}

static void unpublish(struct sdtkit_provider *pv)
{
    for (size_t i = 0; i < pv->nprobes; i++) {
        __atomic_store_n(&pv->probes[i]->call, 0, __ATOMIC_RELEASE);
        __atomic_store_n(&pv->probes[i]->semaphore, &zero_semaphore, __ATOMIC_RELEASE);
    }
    pv->published = 0;
}

int provider_unload_locked(struct sdtkit_provider *pv)
{
    if (!pv->loaded)
        return provider_fail(pv, SDTKIT_E_STATE, "provider '%s' is not loaded", pv->name);
    unpublish(pv);
    hide(pv->obj);
    pv->loaded = false;
    return SDTKIT_OK;
}

int provider_load_locked(struct sdtkit_provider *pv)
{
    struct target t;
    if (pv->loaded) {
        if (!pv->lax || pv->published == pv->nprobes)
            return provider_fail(pv, SDTKIT_E_STATE, "provider '%s' is loaded already", pv->name);
        provider_unload_locked(pv); /* probes were added: load them too */
    }
    if (own_target(&t) != 0)
        return provider_fail(pv, SDTKIT_E_UNSUPPORTED,
                             "this program cannot load shared objects (it is statically "
                             "linked: dladdr finds no ELF header for this library)");
    const char *env = getenv("SDTKIT_RUNTIME_NAMED");
    bool named = pv->named || pv->prefer_file || (env && strcmp(env, "1") == 0);
    const char *dir = pv->named_dir;
    struct object *o = pv->obj;
    if (o && (!owned(o) || o->capacity < pv->nprobes || (named && !o->named) ||
              (named && dir && (!o->dir || strcmp(o->dir, dir) != 0)))) {
        if (owned(o))
            release(o); /* outgrown: free for a smaller provider */
        pv->obj = o = NULL;
    }
    int rc = SDTKIT_OK;
    if (!o && (o = take_free(named, dir, pv->nprobes)))
        pv->obj = o;
    if (o) {
        rc = rewrite(pv, &t, o);
    } else if ((rc = new_object(pv, &t, named, dir, &o)) == SDTKIT_OK) {
        pv->obj = o;
    }
    if (rc != SDTKIT_OK)
        return rc;
    publish(pv);
    pv->loaded = true;
    pv->stage = STAGE_NONE;
    pv->error[0] = '\0';
    return SDTKIT_OK;
}

int sdtkit_provider_load(sdtkit_provider *pv)
{
    if (!pv)
        return SDTKIT_E_INVALID;
    pthread_mutex_lock(&pv->lock);
    int rc = provider_load_locked(pv);
    pthread_mutex_unlock(&pv->lock);
    return rc;
}

int sdtkit_provider_unload(sdtkit_provider *pv)
{
    if (!pv)
        return SDTKIT_E_INVALID;
    pthread_mutex_lock(&pv->lock);
    int rc = provider_unload_locked(pv);
    pthread_mutex_unlock(&pv->lock);
    return rc;
}

void sdtkit_provider_destroy(sdtkit_provider *pv)
{
    if (!pv)
        return;
    pthread_mutex_lock(&pv->lock);
    if (pv->loaded)
        provider_unload_locked(pv);
    if (pv->obj && owned(pv->obj))
        release(pv->obj);
    pv->obj = NULL;
    pthread_mutex_unlock(&pv->lock);
    lib_lock();
    for (size_t i = 0; i < pv->nprobes; i++) {
        pv->probes[i]->next_retired = lib.retired;
        lib.retired = pv->probes[i];
    }
    lib_unlock();
    free(pv->probes);
    free(pv->index);
    free(pv->name);
    free(pv->named_dir);
    pthread_mutex_destroy(&pv->lock);
    free(pv);
}

int sdtkit_provider_use_named_file(sdtkit_provider *pv, const char *dir)
{
    if (!pv)
        return SDTKIT_E_INVALID;
    pthread_mutex_lock(&pv->lock);
    char *copy = dir ? strdup(dir) : NULL;
    int rc = SDTKIT_OK;
    if (dir && !copy) {
        rc = provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
    } else if (pv->loaded) {
        rc = provider_fail(pv, SDTKIT_E_STATE, "provider '%s' is loaded already", pv->name);
        free(copy);
    } else {
        free(pv->named_dir);
        pv->named_dir = copy;
        pv->named = true;
    }
    pthread_mutex_unlock(&pv->lock);
    return rc;
}

const char *sdtkit_provider_error(const sdtkit_provider *pv) { return pv ? pv->error : ""; }

const char *provider_path_locked(struct sdtkit_provider *pv)
{
    return pv->loaded ? object_path(pv->obj, pv->path, sizeof pv->path) : NULL;
}

const char *sdtkit_provider_path(const sdtkit_provider *cpv)
{
    struct sdtkit_provider *pv = (struct sdtkit_provider *)cpv; /* for its lock */
    if (!pv)
        return NULL;
    pthread_mutex_lock(&pv->lock);
    const char *path = provider_path_locked(pv);
    pthread_mutex_unlock(&pv->lock);
    return path;
}

/* ---- firing ---- */

/* An argument slot: the value in its first bytes (see lib/arch.c). */
union slot {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    float f;
    double d;
    const void *p;
};

static void put_slot(union slot *s, unsigned kind, const sdtkit_value *v)
{
    s->u64 = 0;
    switch (kind) {
    case KIND_U8:
        s->u8 = (uint8_t)v->u;
        break;
    case KIND_U16:
        s->u16 = (uint16_t)v->u;
        break;
    case KIND_U32:
        s->u32 = (uint32_t)v->u;
        break;
    case KIND_POINTER:
        s->p = v->p;
        break;
    case KIND_FLOAT:
        s->f = (float)v->d;
        break;
    case KIND_DOUBLE:
        s->d = v->d;
        break;
    default: /* KIND_U64 */
        s->u64 = v->u;
        break;
    }
}

/* sdtkit:fire(provider, name, nargs, slots): every run-time probe, of
 * every provider of every process using this library, passes through it
 * when it fires, so one attach sees them all:
 *
 *   bpftrace -e 'usdt:/usr/lib/x86_64-linux-gnu/libsdtkit.so.1:sdtkit:fire {
 *       printf("%s:%s\n", str(arg0), str(arg1)); }'
 *
 * slots holds the arguments, 8 bytes apart.  Its semaphore keeps it to a
 * load and a branch while nobody watches. */
__extension__ unsigned short sdtkit_fire_semaphore
    __attribute__((section(".probes"), visibility("hidden")));

/* Call p's stub with its slots, through sdtkit:fire when watched. */
static inline __attribute__((always_inline)) void call_stub(const sdtkit_probe *p, uintptr_t call,
                                                            const union slot *slots)
{
    if (__builtin_expect(sdtkit_fire_semaphore, 0))
        STAP_PROBE4(sdtkit, fire, p->pname, p->name, p->nargs, slots);
    ((stub_fn *)call)(slots);
}

/* Out of line, so that the direct path needs no stack frame of its own. */
static __attribute__((noinline)) void fire_converted(const sdtkit_probe *p, uintptr_t call,
                                                     const sdtkit_value *args)
{
    union slot slots[SDTKIT_MAX_ARGS];
    for (int i = 0; i < p->nargs; i++)
        put_slot(&slots[i], p->kind[i], &args[i]);
    call_stub(p, call, slots);
}

/* Firing reads p and calls the stub; it writes nothing shared between
 * threads (see the contract at the top). */
void sdtkit_probe_fire(const sdtkit_probe *p, const sdtkit_value *args)
{
    if (!p || (p->nargs > 0 && !args))
        return;
    uintptr_t call = __atomic_load_n(&p->call, __ATOMIC_ACQUIRE);
    if (!call)
        return;
    /* A value is 8 bytes, its bits first in the order a little-endian
     * target reads a slot, and a tracer reads only the size the note
     * gives: the values are the slots, but for a float (a double, made
     * one) or on a big-endian target (where a short value goes first). */
    _Static_assert(sizeof(sdtkit_value) == sizeof(union slot), "a value per slot");
    if (p->direct)
        call_stub(p, call, (const union slot *)(const void *)args);
    else
        fire_converted(p, call, args);
}

void probe_fire_va(const sdtkit_probe *p, va_list *ap)
{
    uintptr_t call = __atomic_load_n(&p->call, __ATOMIC_ACQUIRE);
    if (!call)
        return;
    union slot slots[SDTKIT_MAX_ARGS];
    if (p->all_u64) {
        for (int i = 0; i < p->nargs; i++)
            slots[i].u64 = va_arg(*ap, uint64_t);
        call_stub(p, call, slots);
        return;
    }
    for (int i = 0; i < p->nargs; i++) {
        union slot *s = &slots[i];
        s->u64 = 0;
        switch (p->kind[i]) {
        case KIND_U8:
            s->u8 = (uint8_t)va_arg(*ap, unsigned);
            break;
        case KIND_U16:
            s->u16 = (uint16_t)va_arg(*ap, unsigned);
            break;
        case KIND_U32:
            s->u32 = va_arg(*ap, uint32_t);
            break;
        case KIND_POINTER:
            s->p = va_arg(*ap, const void *);
            break;
        case KIND_FLOAT:
            s->f = (float)va_arg(*ap, double);
            break;
        case KIND_DOUBLE:
            s->d = va_arg(*ap, double);
            break;
        default: /* KIND_U64 */
            s->u64 = va_arg(*ap, uint64_t);
            break;
        }
    }
    call_stub(p, call, slots);
}

void sdtkit_probe_firev(const sdtkit_probe *p, ...)
{
    if (!p)
        return;
    va_list ap;
    va_start(ap, p);
    probe_fire_va(p, &ap);
    va_end(ap);
}

int sdtkit_probe_is_enabled(const sdtkit_probe *p) { return p && sdtkit_probe_enabled(p); }

const char *sdtkit_probe_name(const sdtkit_probe *p) { return p ? p->name : NULL; }

int sdtkit_probe_nargs(const sdtkit_probe *p) { return p ? p->nargs : -1; }

const volatile unsigned short *sdtkit_probe_semaphore(const sdtkit_probe *p)
{
    return p ? __atomic_load_n(&p->semaphore, __ATOMIC_ACQUIRE) : NULL;
}
