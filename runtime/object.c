/* SPDX-License-Identifier: MIT */
/*
 * object.c: the objects providers' probes are loaded into.
 *
 * An object is a shared object of `capacity' slots (a stub and a
 * semaphore each) in a file, written by the core (lib/dso.c) for the
 * target this library was loaded as, loaded once (place.c) and never
 * unloaded: a thread stopped anywhere in fire or is-enabled resumes on
 * mapped memory.  Providers share objects: a provider lodged in an
 * object holds a slot for each of its probes, and the object's file
 * describes the probes of every provider lodged there (its notes name
 * each probe's provider).  So a thousand small providers are a few dozen
 * objects, and the dynamic loader, whose dlopen walks every object it
 * has, runs once for an object's worth of providers.
 *
 * What a tracer does forces the rest:
 *
 *   - It reads the notes, then attaches to a file and an offset (uprobes
 *     are keyed by inode and offset), at any time later.  So a slot, once
 *     a probe's, is never another probe's while its file lives: a slot
 *     given back is dead, not free.  An object whose slots are all free or
 *     dead, and none of whose dead slots' probes a thread is firing
 *     (fire.c's riders), is renewed: a new file (a new inode) is mapped
 *     over it at the same addresses, its slots all free.  A tracer that
 *     attaches to the old file finds nothing of this process's there; one
 *     that opens the path again finds the new file, where the image is at
 *     another offset (image, a multiple of DSO_SEG further on with each
 *     renewal of a memory file), so that the old offset is no stub there.
 *
 *   - It reads the file while we write it.  So every change keeps the
 *     notes well formed at every moment: a probe hidden (its provider
 *     unloaded) or shown again changes its note's type word alone (a
 *     4-byte write: DSO_NT_HIDDEN, which readers skip, or NT_STAPSDT); a
 *     provider joining or growing gets a whole new tail (section headers,
 *     notes, symbols) written where the file's header does not point, and
 *     then the header's e_shoff, which a reader reads first, is pointed at
 *     it.  The two places a tail takes (tail_place()) are a power of two
 *     apart, so that e_shoff changes in one byte.
 *
 *   - After fork, parent and child map the same files.  A file a child
 *     also maps is never written again by either (shared(): the notes are
 *     the child's as much as ours): unloading then leaves the notes shown,
 *     a provider that needs a change moves to an object of this process's
 *     own, and the object, once idle, is renewed, the other process
 *     keeping the old file.
 *
 *   - gdb reads an object's probes when the loader's list gains it; while
 *     a debugger is attached, a load takes a new object of its own.
 *
 *   lodge   a provider's probes get slots (their own again when they
 *           fit, else in an object with room, else in a renewed or a new
 *           object), are shown and published;
 *   hide    they are unpublished and hidden; they keep their slots;
 *   leave   the slots die.
 *
 * Only the process that made a named file removes it, at exit.
 */
#define _GNU_SOURCE
#include "runtime.h"

#include "../lib/elf.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

enum {
    /* The slots of a new object: at least this many, and a power of two
     * (a provider of more probes gets an object of the next power of two,
     * and shares what it leaves). */
    MIN_SLOTS = 64,
    /* Objects by free slots: 1, 2-3, 4-7 ... up to DSO_MAX_SLOTS. */
    BUCKETS = 21,
    /* find_room() looks at this many objects of a bucket below the one
     * that surely fits before it goes up: a bound on a load's work that
     * does not grow with the number of objects. */
    LOOK = 16
};
_Static_assert((size_t)1 << (BUCKETS - 1) == DSO_MAX_SLOTS, "a bucket for every count");

enum slot_state {
    SLOT_FREE, /* never a probe's in this file */
    SLOT_HELD, /* a lodged provider's probe's */
    SLOT_DEAD, /* was a probe's: no other's until the object is renewed */
};

struct object {
    struct placement pl; /* its file and where it is loaded (place.c) */
    long owner;          /* the process that made its file */
    unsigned long epoch; /* lib.forks when its file was made */
    size_t capacity;
    struct dso_slots slots;   /* where its slots are (addresses in the object) */
    uint64_t image_size, rw;  /* the image's size, its RW segment's start */
    uint64_t image;           /* the image's offset in the file */
    unsigned long renewals;   /* files it had before this one */
    uint64_t tail, tail_size; /* the tail the file's header points at */
    uint64_t build_id_at;
    unsigned long serial, generation; /* for the build-id's salt */
    /* slots */
    unsigned char *state;               /* enum slot_state, capacity of them */
    const struct sdtkit_probe **holder; /* the probe a slot is or was held by, in this file */
    uint64_t *note;                     /* where its note is in the file, or 0 */
    size_t nfree, nheld;
    struct tenant *tenants; /* lodged here, loaded or not */
    bool stale;             /* a write failed: what the notes say is not known */
    bool torn;              /* half of a renewal failed: never used again */
    /* lists */
    struct object *next;                  /* every object of the process */
    struct object *next_open, *prev_open; /* in the bucket of its free slots */
    int bucket;                           /* -1: in none */
    struct object *next_idle, *prev_idle; /* in lib.idle */
    bool idle;
};

/* The library's objects, under one lock, which is taken inside calls on
 * providers only, so that fork, which waits for those to end (provider.c),
 * never leaves it held; forks counts the forks this process went through
 * (atomically: fork's handlers change it without the lock when the
 * forking thread holds it, see object_forked). */
static struct {
    pthread_mutex_t lock;
    struct object *objects;       /* every object made */
    struct object *open[BUCKETS]; /* with free slots, by their number */
    struct object *idle;          /* with dead slots and none held: to renew */
    unsigned long serial;
    unsigned long forks;
} lib = {PTHREAD_MUTEX_INITIALIZER, NULL, {NULL}, NULL, 0, 0};

static void lib_lock(void) { pthread_mutex_lock(&lib.lock); }
static void lib_unlock(void) { pthread_mutex_unlock(&lib.lock); }

/* The ELF identity of the object this library was loaded as (or linked
 * into): the loader accepted its class, machine and flags, so an object
 * carrying the same ones is accepted too (ARM hard-float, MIPS ABI and
 * NaN, PowerPC64 ELFv1/v2 ...).  Its header is mapped at its base. */
static int own_target(struct target *t)
{
    Dl_info info;
    if (!dladdr((void *)(uintptr_t)own_target, &info) || !info.dli_fbase)
        return -1;
    if (elf_header_target(info.dli_fbase, ELF_EHDR_SIZE(sizeof(void *) == 8), t) != 0)
        return -1;
    bool msb = __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__;
    if ((t->elfclass == ELFCLASS64) != (sizeof(void *) == 8) || (t->data == ELFDATA2MSB) != msb)
        return -1;
    return 0;
}

/* ---- objects and their slots ---- */

static uintptr_t slot_stub(const struct object *o, size_t i)
{
    return o->pl.base + (uintptr_t)dso_slot_stub_at(&o->slots, i);
}

static const volatile unsigned short *slot_semaphore(const struct object *o, size_t i)
{
    return (const volatile unsigned short *)(o->pl.base +
                                             (uintptr_t)dso_slot_semaphore_at(&o->slots, i));
}

/* Another process may map o's file: a fork since it was made. */
static bool shared(const struct object *o)
{
    return o->epoch != __atomic_load_n(&lib.forks, __ATOMIC_RELAXED);
}

/* This process may write o's file. */
static bool writable(const struct object *o) { return !shared(o) && !o->stale && !o->torn; }

/* o is of the kind a lodging asks for: a memory file, or a named file (in
 * dir, when one is named). */
static bool of_kind(const struct object *o, bool named, const char *dir)
{
    return o->pl.named == named && (!named || !dir || (o->pl.dir && strcmp(o->pl.dir, dir) == 0));
}

/* The bucket of n free slots: floor(log2(n)), or -1 for none. */
static int bucket_of(size_t n)
{
    int b = -1;
    for (; n; n >>= 1)
        b++;
    return b < BUCKETS ? b : BUCKETS - 1;
}

/* o can be renewed when no slot is held and some are dead, unless a
 * renewal failed half way, or a shared named file must keep its name for
 * the other process. */
static bool idle(const struct object *o)
{
    return o->nheld == 0 && o->nfree < o->capacity && !o->torn && !(o->pl.named && shared(o));
}

/* Put o where its state says: in the bucket of its free slots (in none
 * when it has none, or takes no new provider), and in lib.idle or not. */
static void refile(struct object *o)
{
    int b = writable(o) ? bucket_of(o->nfree) : -1;
    if (b != o->bucket) {
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
    bool now = idle(o);
    if (now == o->idle)
        return;
    if (o->idle) {
        if (o->prev_idle)
            o->prev_idle->next_idle = o->next_idle;
        else
            lib.idle = o->next_idle;
        if (o->next_idle)
            o->next_idle->prev_idle = o->prev_idle;
        o->prev_idle = o->next_idle = NULL;
    } else {
        o->next_idle = lib.idle;
        if (lib.idle)
            lib.idle->prev_idle = o;
        lib.idle = o;
    }
    o->idle = now;
}

/* An object of this process with need free slots, of the kind asked for:
 * one of the fullest that fit.  The buckets below need's may hold some
 * that fit; LOOK of each are looked at, then those above, any of which
 * fits.  One that a fork made shared leaves its bucket when met. */
static struct object *find_room(bool named, const char *dir, size_t need)
{
    for (int b = need ? bucket_of(need) : 0; b < BUCKETS; b++) {
        struct object *o = lib.open[b], *next;
        for (int looked = 0; o && looked < LOOK; o = next, looked++) {
            next = o->next_open;
            if (!writable(o))
                refile(o); /* out of every bucket: a fork made it shared */
            else if (o->nfree >= need && of_kind(o, named, dir))
                return o;
        }
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
    o->nheld++;
}

/* Slot i of o dies (its probe keeps its note, for a reader that holds
 * it; the holder stays, for renew_idle()). */
static void slot_kill(struct object *o, size_t i)
{
    assert(o->state[i] == SLOT_HELD && o->nheld > 0);
    o->state[i] = SLOT_DEAD;
    o->nheld--;
}

/* A slot taken for a lodging that failed: free again, never published. */
static void slot_untake(struct object *o, size_t i)
{
    assert(o->state[i] == SLOT_HELD && o->nheld > 0);
    o->state[i] = SLOT_FREE;
    o->holder[i] = NULL;
    o->note[i] = 0;
    o->nfree++;
    o->nheld--;
}

/* The first free slot of o at or after i. */
static size_t next_free(const struct object *o, size_t i)
{
    while (i < o->capacity && o->state[i] != SLOT_FREE)
        i++;
    assert(i < o->capacity);
    return i;
}

/* Take slots of o for probes[0..n), the first free ones. */
static void take_slots(struct object *o, struct sdtkit_probe *const *probes, size_t n)
{
    for (size_t i = 0, s = 0; i < n; i++, s++) {
        s = next_free(o, s);
        slot_take(o, s, probes[i]);
        probes[i]->slot = (uint32_t)s;
    }
    refile(o);
}

/* Give the slots of probes[0..n) back to o, never published. */
static void untake_slots(struct object *o, struct sdtkit_probe *const *probes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        slot_untake(o, probes[i]->slot);
    refile(o);
}

/* At exit, this process's named files go (a child's exit leaves its
 * parent's alone: they are not its own). */
__attribute__((destructor)) static void remove_named_files(void)
{
    lib_lock();
    for (struct object *o = lib.objects; o; o = o->next)
        if (o->pl.named && o->owner == (long)getpid())
            unlink(o->pl.path);
    lib_unlock();
}

/* ---- files ---- */

/* What makes each object's build-id differ from every other's, the
 * build-id being the SHA-1 of it alone (lib/dso.c): the process, this
 * copy of the library (a process may hold several: libsdtkit, libstapsdt,
 * a binding's static one) and a random number of its own (a process of
 * the same number, later or in another PID namespace, has another), the
 * object and its tail's generation.  place.c tells its object from
 * another by it; perf keys its cache by it. */
struct salt {
    long pid;
    const void *copy;
    unsigned char random[16];
    unsigned long serial, generation;
};

/* A salt for o's tail of generation gen (lib locked). */
static struct salt salt_of(long pid, unsigned long serial, unsigned long generation)
{
    static unsigned char random[16];
    static bool drawn;
    if (!drawn) {
        /* getrandom(2); where it fails, the time and the stack's address
         * (randomised by the kernel) are a number of this copy's own */
        if (getrandom(random, sizeof random, GRND_NONBLOCK) != (ssize_t)sizeof random) {
            struct timespec ts;
            clock_gettime(CLOCK_REALTIME, &ts);
            uintptr_t here = (uintptr_t)&ts;
            memcpy(random, &ts, sizeof ts < sizeof random ? sizeof ts : sizeof random);
            memcpy(random + sizeof random - sizeof here, &here, sizeof here);
        }
        drawn = true;
    }
    struct salt s;
    memset(&s, 0, sizeof s); /* its padding too: it is hashed */
    s.pid = pid;
    s.copy = &lib;
    memcpy(s.random, random, sizeof random);
    s.serial = serial;
    s.generation = generation;
    return s;
}

/* The probes o's tail describes: those of its tenants, each tenant's
 * together, hidden unless the tenant is shown.  (malloc'd; NULL out of
 * memory.) */
static struct dso_probe *tail_probes(const struct object *o, size_t *n)
{
    size_t count = 0;
    for (const struct tenant *u = o->tenants; u; u = u->next)
        count += u->nheld;
    struct dso_probe *probes = calloc(count ? count : 1, sizeof *probes);
    if (!probes)
        return NULL;
    size_t k = 0;
    for (const struct tenant *u = o->tenants; u; u = u->next) {
        for (size_t i = 0; i < u->nheld; i++) {
            const struct sdtkit_probe *p = u->held[i];
            probes[k++] = (struct dso_probe){.name = p->name,
                                             .nargs = p->nargs,
                                             .sizes = p->size,
                                             .provider = p->pname,
                                             .slot = p->slot,
                                             .hidden = !u->shown};
        }
    }
    *n = count;
    return probes;
}

/* A dso for o (or an object of capacity slots) with probes, its image at
 * `image' and its tail at `tail' (0: where it falls), laid out. */
static int lay_out(struct dso *d, const struct target *tg, size_t capacity,
                   struct dso_probe *probes, size_t n, uint64_t image, uint64_t tail,
                   const struct salt *salt, struct failure *why)
{
    const char *bad = NULL;
    *d = (struct dso){.target = tg,
                      .provider = "",
                      .probes = probes,
                      .nprobes = n,
                      .capacity = capacity,
                      .slotted = true,
                      .image = image,
                      .tail = tail,
                      .salt = salt,
                      .salt_len = sizeof *salt,
                      .hash = DSO_HASH_SALT};
    if (dso_layout(d, &bad) == 0)
        return SDTKIT_OK;
    char machine[32];
    return fail(why, SDTKIT_E_UNSUPPORTED, STAGE_OBJECT, "%s: %s",
                arch_machine_name(tg->machine, machine, sizeof machine), bad);
}

/* Where a new tail of size bytes goes in a file whose image ends at
 * image_end and whose header points at the tail [now, now + now_size)
 * (now 0: none): one of two places Z apart, Z a power of two at least
 * the tail, the first of them a multiple of 2Z, so that e_shoff changes
 * in bit log2(Z) alone from one to the other; the one the current tail
 * is not in. */
static uint64_t tail_place(uint64_t image_end, uint64_t size, uint64_t now, uint64_t now_size)
{
    uint64_t z = 4096;
    while (z < size)
        z *= 2;
    uint64_t first = align_up(image_end, 2 * z), second = first + z;
    bool overlaps = now && first < now + now_size && now < first + size;
    return overlaps ? second : first;
}

/* The e_shoff of o's file (its header, at offset 0) is now tail. */
static int point_at(struct object *o, uint64_t tail, struct failure *why)
{
    bool is64 = sizeof(void *) == 8;
    uint64_t v64 = tail;
    uint32_t v32 = (uint32_t)tail;
    return place_write(&o->pl, is64 ? (const void *)&v64 : (const void *)&v32, is64 ? 8 : 4,
                       ELF_SHOFF_AT(is64), why);
}

/* Write o's file a new tail from its tenants, and point its header at it
 * (see the top).  On failure before the header changed, the file is as it
 * was; after, o is stale. */
static int write_tail(struct object *o, const struct target *tg, struct failure *why)
{
    struct dso d;
    size_t n = 0;
    unsigned char *buf = NULL, id[DSO_BUILD_ID_SIZE];
    struct dso_probe *probes = tail_probes(o, &n);
    struct salt salt = salt_of(o->owner, o->serial, o->generation + 1);
    int rc;
    if (!probes)
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
    if ((rc = lay_out(&d, tg, o->capacity, probes, n, o->image, 0, &salt, why)) != SDTKIT_OK ||
        (rc = lay_out(&d, tg, o->capacity, probes, n, o->image,
                      tail_place(o->image + d.lo.image_size, d.lo.tail_size, o->tail, o->tail_size),
                      &salt, why)) != SDTKIT_OK)
        goto done;
    if (!(buf = malloc((size_t)d.lo.tail_size))) {
        rc = fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
        goto done;
    }
    if (dso_write_tail(&d, buf, id) != 0) {
        rc = fail(why, SDTKIT_E_LOAD, STAGE_OBJECT,
                  "internal error: the object's layout and writer disagree");
        goto done;
    }
    if ((rc = place_write(&o->pl, buf, (size_t)d.lo.tail_size, d.lo.tail, why)) != SDTKIT_OK)
        goto done;
    if ((rc = point_at(o, d.lo.tail, why)) != SDTKIT_OK ||
        (rc = place_write(&o->pl, id, sizeof id, o->build_id_at, why)) != SDTKIT_OK)
        o->stale = true;
    o->tail = d.lo.tail;
    o->tail_size = d.lo.tail_size;
    o->generation++;
    /* the notes of this tail alone: a dead slot's note was in an older
     * one, whose place a later tail takes */
    memset(o->note, 0, o->capacity * sizeof *o->note);
    for (size_t i = 0; i < n; i++)
        o->note[probes[i].slot] = probes[i].note;
done:
    free(buf);
    free(probes);
    return rc;
}

/* Set the type of t's notes in its object's file: shown or hidden.  Does
 * nothing where the file may not be written; a write that fails makes the
 * object stale. */
static int set_shown(struct tenant *t, bool shown, struct failure *why)
{
    struct object *o = t->obj;
    uint32_t type = shown ? NT_STAPSDT : DSO_NT_HIDDEN;
    if (t->shown == shown || !writable(o))
        return SDTKIT_OK;
    for (size_t i = 0; i < t->nheld; i++) {
        uint64_t note = o->note[t->held[i]->slot];
        int rc = note ? place_write(&o->pl, &type, sizeof type, note + 8, why) : SDTKIT_OK;
        if (rc != SDTKIT_OK) {
            o->stale = true; /* some shown, some not: the next file says */
            refile(o);
            return rc;
        }
    }
    t->shown = shown;
    return SDTKIT_OK;
}

/* Point each of t's probes at its stub and semaphore. */
static void publish(const struct tenant *t)
{
    for (size_t i = 0; i < t->nheld; i++) {
        struct sdtkit_probe *p = t->held[i];
        probe_publish(p, slot_stub(t->obj, p->slot), slot_semaphore(t->obj, p->slot));
    }
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

/* Keep in o what its image says (the same for every file it has). */
static void note_image(struct object *o, const struct dso *d)
{
    const struct dso_layout *lo = &d->lo;
    o->capacity = d->capacity;
    o->slots = dso_slots(d);
    o->image_size = lo->image_size;
    o->rw = lo->rw;
}

/* The pieces of a file laid out in d: the headers (when the image is not
 * at 0), the image with its build-id, the tail; in bufs (malloc'd, freed
 * by the caller, also on failure), their count in *n. */
static int file_pieces(const struct dso *d, void *bufs[3], struct piece out[3], size_t *n,
                       struct failure *why)
{
    const struct dso_layout *lo = &d->lo;
    unsigned char id[DSO_BUILD_ID_SIZE];
    bufs[0] = malloc((size_t)lo->head_size);
    bufs[1] = malloc((size_t)lo->image_size);
    bufs[2] = malloc((size_t)lo->tail_size);
    if (!bufs[0] || !bufs[1] || !bufs[2])
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory for a %zu-byte object",
                    (size_t)lo->image_size);
    if (dso_write_head(d, bufs[0]) != 0 || dso_write_image(d, bufs[1]) != 0 ||
        dso_write_tail(d, bufs[2], id) != 0)
        return fail(why, SDTKIT_E_LOAD, STAGE_OBJECT,
                    "internal error: the object's layout and writer disagree");
    memcpy((unsigned char *)bufs[1] + (lo->build_id_at - d->image), id, sizeof id);
    *n = 0;
    if (d->image)
        out[(*n)++] = (struct piece){bufs[0], lo->head_size, 0};
    out[(*n)++] = (struct piece){bufs[1], lo->image_size, d->image};
    out[(*n)++] = (struct piece){bufs[2], lo->tail_size, lo->tail};
    return SDTKIT_OK;
}

/* d laid out for a file of o's (or a new object's) with probes, its image
 * at `image' and its tail where tail_place() puts it in a new file. */
static int lay_out_file(struct dso *d, const struct target *tg, size_t capacity,
                        struct dso_probe *probes, size_t n, uint64_t image, const struct salt *salt,
                        struct failure *why)
{
    int rc = lay_out(d, tg, capacity, probes, n, image, 0, salt, why);
    if (rc != SDTKIT_OK)
        return rc;
    return lay_out(d, tg, capacity, probes, n, image,
                   tail_place(image + d->lo.image_size, d->lo.tail_size, 0, 0), salt, why);
}

static void free_object(struct object *o)
{
    free(o->state);
    free(o->holder);
    free(o->note);
    free(o);
}

/* The description of l's probes for the core, probe i in slot i; NULL
 * out of memory. */
static struct dso_probe *dso_probes(const struct lodging *l)
{
    struct dso_probe *probes = calloc(l->nprobes ? l->nprobes : 1, sizeof *probes);
    if (!probes)
        return NULL;
    for (size_t i = 0; i < l->nprobes; i++) {
        const struct sdtkit_probe *p = l->probes[i];
        probes[i] = (struct dso_probe){
            .name = p->name, .nargs = p->nargs, .sizes = p->size, .provider = p->pname, .slot = i};
    }
    return probes;
}

/* A new object of capacity slots, this process's, with no file yet
 * (locked: its serial is the library's next); NULL out of memory. */
static struct object *object_alloc(size_t capacity)
{
    struct object *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->state = calloc(capacity, sizeof *o->state);
    o->holder = calloc(capacity, sizeof *o->holder);
    o->note = calloc(capacity, sizeof *o->note);
    if (!o->state || !o->holder || !o->note) {
        free_object(o);
        return NULL;
    }
    o->pl.fd = -1;
    o->owner = (long)getpid();
    o->epoch = __atomic_load_n(&lib.forks, __ATOMIC_RELAXED);
    o->serial = ++lib.serial;
    o->generation = 1;
    o->bucket = -1;
    return o;
}

/* New object o's first file, of capacity slots with probes (l's), written
 * and loaded where l asks (lib unlocked meanwhile). */
static int load_first_file(struct object *o, const struct lodging *l, const struct target *tg,
                           size_t capacity, struct dso_probe *probes, struct failure *why)
{
    struct salt salt = salt_of(o->owner, o->serial, o->generation);
    struct dso d;
    void *bufs[3] = {NULL, NULL, NULL};
    struct piece pieces[3];
    size_t npieces;
    int rc;
    if ((rc = lay_out_file(&d, tg, capacity, probes, l->nprobes, 0, &salt, why)) != SDTKIT_OK ||
        (rc = file_pieces(&d, bufs, pieces, &npieces, why)) != SDTKIT_OK)
        goto done;
    note_image(o, &d);
    o->build_id_at = d.lo.build_id_at;
    o->tail = d.lo.tail;
    o->tail_size = d.lo.tail_size;
    o->nfree = o->capacity;
    lib_unlock();
    rc = place_object(l->name, l->named, l->dir, pieces, npieces,
                      (const unsigned char *)bufs[1] + d.lo.build_id_at, d.lo.build_id_at, &o->pl,
                      why);
    lib_lock();
done:
    for (int i = 0; i < 3; i++)
        free(bufs[i]);
    return rc;
}

/* A new object of capacity slots of the kind l asks for, made, loaded
 * (lib unlocked meanwhile: dlopen takes the loader's lock, never under
 * ours) and in the library's lists, its first slots taken for l's probes
 * (slot i for probe i), their notes shown.  Nothing of the caller's
 * tenant changes. */
static int new_object(const struct lodging *l, const struct target *tg, size_t capacity,
                      struct object **out, struct failure *why)
{
    struct dso_probe *probes = dso_probes(l);
    struct object *o = probes ? object_alloc(capacity) : NULL;
    if (!o) {
        free(probes);
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
    }
    int rc = load_first_file(o, l, tg, capacity, probes, why);
    if (rc != SDTKIT_OK)
        goto fail;
    for (size_t i = 0; i < l->nprobes; i++) {
        slot_take(o, i, l->probes[i]);
        o->note[i] = probes[i].note;
    }
    o->next = lib.objects;
    lib.objects = o;
    refile(o);
    *out = o;
    o = NULL;
fail:
    if (o)
        free_object(o);
    free(probes);
    return rc;
}

/* ---- renewal ---- */

/* Where the image of o's next memory file goes: a DSO_SEG multiple past
 * the last one's, so that an offset of a stub in one file is no stub in
 * the next; back to 0 after as many renewals as the class's offsets
 * allow (2^24 of them, or 2^14 for a 32-bit class).  A named file's
 * image is at 0: the new file has a name of its own. */
static uint64_t next_image(const struct object *o)
{
    if (o->pl.named)
        return 0;
    uint64_t unit = align_up(o->image_size, DSO_SEG);
    uint64_t room = (sizeof(void *) == 8 ? (uint64_t)1 << 40 : (uint64_t)1 << 30) / unit;
    return (uint64_t)((o->renewals + 1) % room) * unit;
}

/* The segments of o's image in a file that has it at image: the RX one
 * and the RW one, as the loader mapped them. */
static void segments_at(const struct object *o, uint64_t image, struct segment segs[2])
{
    uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
    segs[0] = (struct segment){0, o->rw, image, PROT_READ | PROT_EXEC};
    segs[1] = (struct segment){o->rw, align_up(o->image_size, page) - o->rw, image + o->rw,
                               PROT_READ | PROT_WRITE};
}

/* Give o, idle, a new file, its slots all free (see the top). */
static int renew(struct object *o, const struct target *tg, struct failure *why)
{
    uint64_t image = next_image(o);
    struct salt salt = salt_of((long)getpid(), o->serial, o->generation + 1);
    struct dso d;
    void *bufs[3] = {NULL, NULL, NULL};
    struct piece pieces[3];
    struct segment segs[2], old[2];
    size_t npieces;
    bool torn = false;
    int rc;
    if ((rc = lay_out_file(&d, tg, o->capacity, NULL, 0, image, &salt, why)) != SDTKIT_OK ||
        (rc = file_pieces(&d, bufs, pieces, &npieces, why)) != SDTKIT_OK)
        goto done;
    if (d.lo.image_size != o->image_size) {
        rc = fail(why, SDTKIT_E_LOAD, STAGE_OBJECT, "internal error: a renewed image differs");
        goto done;
    }
    /* the RW segment but its semaphores as the loader left it (it
     * relocates .dynamic in place, MIPS's .got) */
    memcpy((unsigned char *)bufs[1] + o->rw, (const void *)(o->pl.base + (uintptr_t)o->rw),
           (size_t)(o->slots.semaphores - o->rw));
    segments_at(o, image, segs);
    segments_at(o, o->image, old);
    rc = place_renew(&o->pl, pieces, npieces, segs, old, 2, &torn, why);
    o->torn |= torn;
    if (rc != SDTKIT_OK)
        goto done;
    o->image = image;
    o->renewals++;
    o->owner = (long)getpid();
    o->epoch = __atomic_load_n(&lib.forks, __ATOMIC_RELAXED);
    o->generation++;
    o->build_id_at = d.lo.build_id_at;
    o->tail = d.lo.tail;
    o->tail_size = d.lo.tail_size;
    o->stale = false;
    memset(o->state, SLOT_FREE, o->capacity);
    memset(o->holder, 0, o->capacity * sizeof *o->holder);
    memset(o->note, 0, o->capacity * sizeof *o->note);
    o->nfree = o->capacity;
done:
    refile(o);
    for (int i = 0; i < 3; i++)
        free(bufs[i]);
    return rc;
}

/* A thread was firing, when f was taken, a probe that held a slot of o. */
static bool flown(const struct object *o, const struct flights *f)
{
    for (size_t i = 0; i < o->capacity; i++)
        if (o->state[i] == SLOT_DEAD && fire_flying(f, o->holder[i]))
            return true;
    return false;
}

/* An idle object renewed for need slots of the kind asked for, or NULL:
 * LOOK of them are tried, as find_room() does. */
static struct object *renew_idle(bool named, const char *dir, size_t need, const struct target *tg)
{
    struct object *o = lib.idle, *next;
    while (o && (o->capacity < need || !of_kind(o, named, dir)))
        o = o->next_idle;
    struct flights f;
    if (!o || fire_quiesce(&f) != 0)
        return NULL;
    struct failure ignored;
    struct object *renewed = NULL;
    for (int looked = 0; o && !renewed && looked < LOOK; o = next, looked++) {
        next = o->next_idle;
        assert(idle(o));
        if (o->capacity >= need && of_kind(o, named, dir) && !flown(o, &f) &&
            renew(o, tg, &ignored) == SDTKIT_OK)
            renewed = o;
    }
    fire_landed(&f);
    return renewed;
}

/* ---- lodging ---- */

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

/* The smallest capacity for n probes: MIN_SLOTS, doubled until it fits. */
static size_t capacity_for(size_t n)
{
    size_t c = MIN_SLOTS;
    while (c < n && c < DSO_MAX_SLOTS)
        c *= 2;
    return c;
}

/* t's object can take l again: of the kind asked for, with room for the
 * probes added since, and a file it may write when it needs to. */
static bool fits_in_place(const struct tenant *t, const struct lodging *l)
{
    const struct object *o = t->obj;
    size_t added = l->nprobes - t->nheld;
    if (!o || o->torn || !of_kind(o, l->named, l->dir))
        return false;
    return added ? writable(o) && o->nfree >= added : t->shown || writable(o);
}

/* t lodges again in its own object: its notes shown, or, with probes
 * added since, slots for them and a new tail. */
static int lodge_again(struct tenant *t, const struct lodging *l, const struct target *tg,
                       struct failure *why)
{
    struct object *o = t->obj;
    size_t had = t->nheld, added = l->nprobes - had;
    bool was_shown = t->shown;
    int rc;
    if (!added) {
        if ((rc = set_shown(t, true, why)) != SDTKIT_OK)
            return rc;
        publish(t);
        return SDTKIT_OK;
    }
    struct sdtkit_probe **held = realloc(t->held, l->nprobes * sizeof *held);
    if (!held)
        return fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
    t->held = held;
    memcpy(held + had, l->probes + had, added * sizeof *held);
    take_slots(o, held + had, added);
    t->nheld = l->nprobes;
    t->shown = true;
    /* a write that failed after the header changed leaves o stale, with
     * the probes there all the same */
    if ((rc = write_tail(o, tg, why)) != SDTKIT_OK && !o->stale) {
        untake_slots(o, held + had, added);
        t->nheld = had;
        t->shown = was_shown;
        return rc;
    }
    publish(t);
    return SDTKIT_OK;
}

/* An object with room for l's probes: one with free slots, or an idle
 * one renewed; NULL (make one) while debugged. */
static struct object *room_for(const struct lodging *l, const struct target *tg)
{
    if (debugged())
        return NULL;
    struct object *o = find_room(l->named, l->dir, l->nprobes);
    return o ? o : renew_idle(l->named, l->dir, l->nprobes, tg);
}

/* n probes leave o, which they held slots of: their notes hidden where o
 * may be written (shown: they were shown), the slots dead. */
static void vacate(struct object *o, const uint32_t *slots, size_t n, bool shown)
{
    uint32_t hidden = DSO_NT_HIDDEN;
    struct failure ignored;
    for (size_t i = 0; i < n; i++) {
        if (shown && writable(o) && o->note[slots[i]] &&
            place_write(&o->pl, &hidden, sizeof hidden, o->note[slots[i]] + 8, &ignored) !=
                SDTKIT_OK)
            o->stale = true;
        slot_kill(o, slots[i]);
    }
    refile(o);
}

/* t moves, whole, to another object (one with room, a renewed one or a
 * new one): there its probes are shown and published before they leave
 * the old one, so that a tracer always finds them somewhere.  On failure
 * t is as it was. */
static int lodge_elsewhere(struct tenant *t, const struct lodging *l, const struct target *tg,
                           struct failure *why)
{
    size_t n = l->nprobes;
    struct sdtkit_probe **held = malloc((n ? n : 1) * sizeof *held);
    uint32_t *old = malloc((t->nheld ? t->nheld : 1) * sizeof *old);
    struct object *from = t->obj, *to;
    struct tenant was = *t;
    int rc = SDTKIT_OK;
    if (!held || !old) {
        rc = fail(why, SDTKIT_E_NOMEM, STAGE_OBJECT, "out of memory");
        goto fail;
    }
    if (n) /* memcpy's source may not be NULL, even for 0 bytes */
        memcpy(held, l->probes, n * sizeof *held);
    for (size_t i = 0; i < t->nheld; i++)
        old[i] = t->held[i]->slot;
    bool made = !(to = room_for(l, tg));
    if (made) { /* its file has the notes, slot i for probe i */
        if ((rc = new_object(l, tg, capacity_for(n), &to, why)) != SDTKIT_OK)
            goto fail;
        for (size_t i = 0; i < n; i++)
            held[i]->slot = (uint32_t)i;
    } else {
        take_slots(to, held, n);
    }
    if (from)
        unlink_tenant(from, t);
    *t = (struct tenant){.obj = to, .held = held, .nheld = n, .shown = true, .next = to->tenants};
    to->tenants = t;
    /* a tail with t's notes; a write that failed after the header changed
     * leaves to stale, with t's probes there all the same */
    if (!made && (rc = write_tail(to, tg, why)) != SDTKIT_OK && !to->stale)
        goto back;
    publish(t);
    if (from)
        vacate(from, old, was.nheld, was.shown);
    free(was.held);
    free(old);
    return SDTKIT_OK;
back: /* t as it was */
    unlink_tenant(to, t);
    untake_slots(to, held, n);
    *t = was;
    for (size_t i = 0; i < t->nheld; i++)
        t->held[i]->slot = old[i];
    if (from) {
        t->next = from->tenants;
        from->tenants = t;
    }
fail:
    free(held);
    free(old);
    return rc;
}

/* ---- for provider.c ---- */

int object_lodge(struct tenant *t, const struct lodging *l, struct failure *why)
{
    struct target tg;
    if (own_target(&tg) != 0)
        return fail(why, SDTKIT_E_UNSUPPORTED, STAGE_NONE,
                    "this program cannot load shared objects (it is statically "
                    "linked: dladdr finds no ELF header for this library)");
    lib_lock();
    assert(l->nprobes >= t->nheld);
    for (size_t i = 0; i < t->nheld; i++)
        assert(t->held[i] == l->probes[i]);
    int rc = fits_in_place(t, l) ? lodge_again(t, l, &tg, why) : lodge_elsewhere(t, l, &tg, why);
    lib_unlock();
    return rc;
}

void object_hide(struct tenant *t)
{
    struct failure ignored;
    lib_lock();
    for (size_t i = 0; i < t->nheld; i++)
        probe_unpublish(t->held[i]);
    if (t->obj)
        set_shown(t, false, &ignored);
    lib_unlock();
}

void object_leave(struct tenant *t)
{
    lib_lock();
    struct object *o = t->obj;
    if (o) {
        uint32_t *slots = malloc((t->nheld ? t->nheld : 1) * sizeof *slots);
        if (slots) {
            for (size_t i = 0; i < t->nheld; i++)
                slots[i] = t->held[i]->slot;
            unlink_tenant(o, t);
            vacate(o, slots, t->nheld, t->shown);
        } else { /* out of memory: the notes stay, the slots die all the same */
            unlink_tenant(o, t);
            for (size_t i = 0; i < t->nheld; i++)
                slot_kill(o, t->held[i]->slot);
            refile(o);
        }
        free(slots);
    }
    free(t->held);
    *t = (struct tenant){0};
    lib_unlock();
}

void object_forked(bool child)
{
    /* Every file is now another process's too.  The forking thread may
     * hold lib's lock, in a call a signal handler interrupted to fork:
     * the count changes without it, buckets learn it when met
     * (find_room), and the loader's list is fixed only when the lock is
     * free. */
    __atomic_add_fetch(&lib.forks, 1, __ATOMIC_RELAXED);
    if (!child || pthread_mutex_trylock(&lib.lock) != 0)
        return;
    for (struct object *o = lib.objects; o; o = o->next)
        place_forked(&o->pl);
    lib_unlock();
}

void object_describe(const struct tenant *t, char *buf, size_t len, struct loaded *out)
{
    out->path = place_path(&t->obj->pl, buf, len);
    out->handle = t->obj->pl.handle;
    out->fd = t->obj->pl.fd;
}
