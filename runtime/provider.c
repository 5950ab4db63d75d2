/* SPDX-License-Identifier: MIT */
/*
 * provider.c: <sdtkit.h>, the native API of the run-time probe library.
 *
 * A provider holds its probes; loading it writes a shared object for the
 * running target (lib/dso.c), places and loads it (place.c), and publishes
 * each probe's stub and semaphore with release stores, which fire and the
 * inline is-enabled test read with acquire loads.  Unloading publishes a
 * zero semaphore and no stub, and hides the notes; the object stays mapped
 * for a while (drop_old_objects), so a reader that loaded the old
 * addresses still reads mapped memory.  Lifecycle calls on one provider
 * take its mutex.
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

/* Probes outlive their provider: sdtkit_probe_fire() and
 * sdtkit_probe_enabled() on a probe whose provider was destroyed must do
 * nothing, not touch freed memory.  A destroyed provider's probes, inert,
 * wait here by number of arguments until a new probe with as many reuses
 * one, so a stale handle always reads a probe whose arguments are as many
 * as its caller passes, and memory stays bounded by the most probes alive
 * at once. */
static struct {
    pthread_mutex_t lock;
    struct sdtkit_probe *free[SDTKIT_MAX_ARGS + 1];
} pool = {PTHREAD_MUTEX_INITIALIZER, {NULL}};

static struct sdtkit_probe *pool_take(int nargs)
{
    pthread_mutex_lock(&pool.lock);
    struct sdtkit_probe *p = pool.free[nargs];
    if (p)
        pool.free[nargs] = p->next_free;
    pthread_mutex_unlock(&pool.lock);
    return p;
}

/* p is inert (no stub, the zero semaphore) already. */
static void pool_put(struct sdtkit_probe *p)
{
    p->provider = NULL;
    pthread_mutex_lock(&pool.lock);
    p->next_free = pool.free[p->nargs];
    pool.free[p->nargs] = p;
    pthread_mutex_unlock(&pool.lock);
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

/* NULL when name is a valid provider or probe name, else what is wrong. */
static const char *bad_name(const char *name)
{
    if (!name)
        return "no name (NULL)";
    if (!*name)
        return "an empty name";
    _Static_assert(SDTKIT_NAME_MAX == 60, "the message below says 60");
    if (strlen(name) > SDTKIT_NAME_MAX)
        return "a name longer than 60 bytes (SDTKIT_NAME_MAX)";
    if (!is_identifier(name))
        return "a name that is not a C identifier (letters, digits, '_', not a digit first)";
    return NULL;
}

int sdtkit_provider_create(const char *name, sdtkit_provider **out)
{
    if (!out)
        return SDTKIT_E_INVALID;
    *out = NULL;
    if (bad_name(name))
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
    *out = pv;
    return SDTKIT_OK;
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

/* Check and add a probe; pv is locked. */
static int add_probe(struct sdtkit_provider *pv, const char *name, const int *types, int nargs,
                     sdtkit_probe **out)
{
    const char *why = bad_name(name);
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
    if (pv->loaded)
        return provider_fail(pv, SDTKIT_E_STATE,
                             "probe '%s': provider '%s' is loaded (unload it, add the probe, "
                             "load it again)",
                             name, pv->name);
    if (find_probe(pv, name))
        return provider_fail(pv, SDTKIT_E_EXISTS, "provider '%s' has a probe '%s' already",
                             pv->name, name);
    if (index_reserve(pv) != 0)
        return provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
    if (pv->nprobes == pv->cap) {
        size_t cap = pv->cap ? 2 * pv->cap : 8;
        void *v = realloc(pv->probes, cap * sizeof *pv->probes);
        if (!v)
            return provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
        pv->probes = v;
        pv->cap = cap;
    }
    char *copy = strdup(name);
    struct sdtkit_probe *p = copy ? pool_take(nargs) : NULL;
    if (p) {
        free(p->name); /* a probe of a destroyed provider, inert */
    } else if (!copy || !(p = calloc(1, sizeof *p))) {
        free(copy);
        return provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
    } else {
        p->semaphore = &zero_semaphore;
    }
    p->name = copy;
    p->provider = pv;
    p->nargs = nargs;
    for (int i = 0; i < nargs; i++) {
        p->type[i] = (signed char)types[i];
        p->size[i] = (signed char)type_size(types[i]);
    }
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
    int rc = add_probe(pv, name, types, nargs, out);
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

/* Write pv's object for target t into *buf (malloc'd).  pv is locked. */
static int make_object(struct sdtkit_provider *pv, const struct target *t, struct dso *d,
                       void **buf)
{
    const char *why = NULL;
    d->target = t;
    d->provider = pv->name;
    d->soname = pv->name;
    d->nprobes = pv->nprobes;
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
    dso_write(d, *buf);
    return SDTKIT_OK;
}

/* Point each probe at its stub and semaphore in the object loaded at base. */
static void publish(struct sdtkit_provider *pv, const struct dso *d, uintptr_t base)
{
    for (size_t i = 0; i < pv->nprobes; i++) {
        struct sdtkit_probe *p = pv->probes[i];
        p->stub = base + (uintptr_t)d->probes[i].stub;
        uintptr_t call = p->stub;
#if defined __powerpc64__ && (!defined _CALL_ELF || _CALL_ELF == 1)
        p->descriptor[0] = p->stub; /* the stub uses no TOC */
        call = (uintptr_t)p->descriptor;
#endif
        const volatile unsigned short *sem =
            (const volatile unsigned short *)(base + (uintptr_t)d->probes[i].semaphore);
        __atomic_store_n(&p->semaphore, sem, __ATOMIC_RELEASE);
        __atomic_store_n(&p->call, call, __ATOMIC_RELEASE);
    }
}

/* An unloaded object stays mapped so that a thread that read a probe's
 * old stub or semaphore address just before the unload still reads mapped
 * memory.  It is unmapped at a later load once all of these hold:
 *  - 16 loads are newer (KEPT_OBJECTS);
 *  - it was unloaded a second ago or more (GRACE_NS): together, a thread
 *    would have had to stall that long between the two loads of the inline
 *    sdtkit_probe_enabled(), or libstapsdt's probeIsEnabled(), to read it;
 *  - no fire of the provider is in flight: fire counts itself in the probe
 *    before it reads the stub's address (sequentially consistent, as is
 *    unload's store and the count read here), so a fire that read an old
 *    stub is always seen here and its stub stays mapped. */
enum {
    KEPT_OBJECTS = 16
};
static const long long GRACE_NS = 1000000000;

static long long ns_since(const struct timespec *then)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (long long)(now.tv_sec - then->tv_sec) * 1000000000 + (now.tv_nsec - then->tv_nsec);
}

static bool any_firing(const struct sdtkit_provider *pv)
{
    for (size_t i = 0; i < pv->nprobes; i++)
        if (__atomic_load_n(&pv->probes[i]->firing, __ATOMIC_SEQ_CST))
            return true;
    return false;
}

static void drop_old_objects(struct sdtkit_provider *pv)
{
    struct object **p = &pv->objects;
    for (int kept = 0; *p && kept <= KEPT_OBJECTS; kept++)
        p = &(*p)->next;
    if (!*p || any_firing(pv))
        return;
    while (*p) {
        struct object *o = *p;
        if (ns_since(&o->unloaded) < GRACE_NS) {
            p = &o->next;
            continue;
        }
        *p = o->next;
        drop_object(o);
        free(o);
    }
}

/* What makes this load's object differ from every other's: the process,
 * the time and a counter (see lib/dso.c on build-ids). */
struct salt {
    long pid;
    struct timespec when;
    unsigned long seq;
};

static void make_salt(struct salt *s)
{
    static unsigned long seq;
    memset(s, 0, sizeof *s);
    s->pid = (long)getpid();
    clock_gettime(CLOCK_REALTIME, &s->when);
    s->seq = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
}

static int load(struct sdtkit_provider *pv)
{
    struct target t;
    struct salt salt;
    struct dso d;
    void *buf = NULL;
    struct object *obj = NULL;
    uintptr_t base;
    memset(&d, 0, sizeof d);
    pv->stage = STAGE_OBJECT;
    if (pv->loaded) {
        pv->stage = STAGE_NONE;
        return provider_fail(pv, SDTKIT_E_STATE, "provider '%s' is loaded already", pv->name);
    }
    if (own_target(&t) != 0)
        return provider_fail(pv, SDTKIT_E_UNSUPPORTED,
                             "this program cannot load shared objects (it is statically "
                             "linked: dladdr finds no ELF header for this library)");
    make_salt(&salt);
    d.salt = &salt;
    d.salt_len = sizeof salt;
    int rc = make_object(pv, &t, &d, &buf);
    if (rc != SDTKIT_OK)
        goto done;
    rc = SDTKIT_E_NOMEM;
    if (!(obj = calloc(1, sizeof *obj))) {
        provider_fail(pv, rc, "out of memory");
        goto done;
    }
    rc = SDTKIT_E_LOAD;
    if (place_object(pv, buf, (size_t)d.size, obj) != 0)
        goto done;
    if (object_base(obj, &base) != 0) {
        provider_fail(pv, rc, "cannot find where %s was loaded: %s", obj->path, dlerror());
        drop_object(obj);
        goto done;
    }
    obj->notes_offset = d.lo.sec[d.lo.notes].offset;
    obj->notes_size = d.lo.sec[d.lo.notes].size;
    obj->next = pv->objects;
    pv->objects = obj;
    obj = NULL;
    publish(pv, &d, base);
    drop_old_objects(pv);
    pv->loaded = true;
    pv->stage = STAGE_NONE;
    pv->error[0] = '\0';
    rc = SDTKIT_OK;
done:
    free(obj);
    free(buf);
    free(d.probes);
    return rc;
}

int sdtkit_provider_load(sdtkit_provider *pv)
{
    if (!pv)
        return SDTKIT_E_INVALID;
    pthread_mutex_lock(&pv->lock);
    int rc = load(pv);
    pthread_mutex_unlock(&pv->lock);
    return rc;
}

static int unload(struct sdtkit_provider *pv)
{
    if (!pv->loaded)
        return provider_fail(pv, SDTKIT_E_STATE, "provider '%s' is not loaded", pv->name);
    for (size_t i = 0; i < pv->nprobes; i++) {
        __atomic_store_n(&pv->probes[i]->call, 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&pv->probes[i]->semaphore, &zero_semaphore, __ATOMIC_RELEASE);
    }
    hide_object(pv->objects);
    clock_gettime(CLOCK_MONOTONIC, &pv->objects->unloaded);
    pv->loaded = false;
    return SDTKIT_OK;
}

int sdtkit_provider_unload(sdtkit_provider *pv)
{
    if (!pv)
        return SDTKIT_E_INVALID;
    pthread_mutex_lock(&pv->lock);
    int rc = unload(pv);
    pthread_mutex_unlock(&pv->lock);
    return rc;
}

void sdtkit_provider_destroy(sdtkit_provider *pv)
{
    if (!pv)
        return;
    pthread_mutex_lock(&pv->lock);
    if (pv->loaded)
        unload(pv);
    pthread_mutex_unlock(&pv->lock);
    for (struct object *o = pv->objects, *next; o; o = next) {
        next = o->next;
        drop_object(o);
        free(o);
    }
    for (size_t i = 0; i < pv->nprobes; i++)
        pool_put(pv->probes[i]);
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
    char *copy = dir ? strdup(dir) : NULL;
    if (dir && !copy)
        return provider_fail(pv, SDTKIT_E_NOMEM, "out of memory");
    pthread_mutex_lock(&pv->lock);
    int rc = SDTKIT_OK;
    if (pv->loaded) {
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

const char *sdtkit_provider_path(const sdtkit_provider *pv)
{
    return pv && pv->loaded ? pv->objects->path : NULL;
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

static void put_slot(union slot *s, int type, const sdtkit_value *v)
{
    s->u64 = 0;
    switch (type) {
    case SDTKIT_UINT8:
    case SDTKIT_INT8:
        s->u8 = (uint8_t)v->u;
        break;
    case SDTKIT_UINT16:
    case SDTKIT_INT16:
        s->u16 = (uint16_t)v->u;
        break;
    case SDTKIT_UINT32:
    case SDTKIT_INT32:
        s->u32 = (uint32_t)v->u;
        break;
    case SDTKIT_UINT64:
    case SDTKIT_INT64:
        s->u64 = v->u;
        break;
    case SDTKIT_POINTER:
    case SDTKIT_STRING:
        s->p = v->p;
        break;
    case SDTKIT_FLOAT:
        s->f = (float)v->d;
        break;
    case SDTKIT_DOUBLE:
        s->d = v->d;
        break;
    default:
        assert(!"a type add_probe let through");
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

/* Fire p with args, if it is loaded: the fire counts itself in p from
 * before it reads the stub's address until the stub returns, so that
 * drop_old_objects() never unmaps a stub under it. */
static void fire(sdtkit_probe *p, const sdtkit_value *args)
{
    __atomic_add_fetch(&p->firing, 1, __ATOMIC_SEQ_CST);
    uintptr_t call = __atomic_load_n(&p->call, __ATOMIC_SEQ_CST);
    if (call) {
        union slot slots[SDTKIT_MAX_ARGS];
        for (int i = 0; i < p->nargs; i++)
            put_slot(&slots[i], p->type[i], &args[i]);
        if (__builtin_expect(sdtkit_fire_semaphore, 0))
            STAP_PROBE4(sdtkit, fire, p->provider->name, p->name, p->nargs, slots);
        ((stub_fn *)call)(slots);
    }
    __atomic_sub_fetch(&p->firing, 1, __ATOMIC_RELEASE);
}

void sdtkit_probe_fire(const sdtkit_probe *cp, const sdtkit_value *args)
{
    sdtkit_probe *p = (sdtkit_probe *)cp; /* only its counter is written */
    if (!p || !__atomic_load_n(&p->call, __ATOMIC_RELAXED) || (p->nargs > 0 && !args))
        return;
    fire(p, args);
}

void sdtkit_probe_firev(const sdtkit_probe *cp, ...)
{
    sdtkit_probe *p = (sdtkit_probe *)cp; /* only its counter is written */
    if (!p || !__atomic_load_n(&p->call, __ATOMIC_RELAXED))
        return;
    sdtkit_value v[SDTKIT_MAX_ARGS];
    va_list ap;
    va_start(ap, cp);
    for (int i = 0; i < p->nargs; i++) {
        switch (p->type[i]) {
        case SDTKIT_INT8:
        case SDTKIT_INT16:
        case SDTKIT_INT32:
            v[i].i = va_arg(ap, int);
            break;
        case SDTKIT_UINT8:
        case SDTKIT_UINT16:
        case SDTKIT_UINT32:
            v[i].u = va_arg(ap, unsigned);
            break;
        case SDTKIT_INT64:
            v[i].i = va_arg(ap, int64_t);
            break;
        case SDTKIT_UINT64:
            v[i].u = va_arg(ap, uint64_t);
            break;
        case SDTKIT_POINTER:
        case SDTKIT_STRING:
            v[i].p = va_arg(ap, const void *);
            break;
        default:
            v[i].d = va_arg(ap, double);
            break; /* SDTKIT_FLOAT, SDTKIT_DOUBLE */
        }
    }
    va_end(ap);
    fire(p, v);
}

int sdtkit_probe_is_enabled(const sdtkit_probe *p) { return p && sdtkit_probe_enabled(p); }

const char *sdtkit_probe_name(const sdtkit_probe *p) { return p ? p->name : NULL; }

int sdtkit_probe_nargs(const sdtkit_probe *p) { return p ? p->nargs : -1; }

const volatile unsigned short *sdtkit_probe_semaphore(const sdtkit_probe *p)
{
    return p ? __atomic_load_n(&p->semaphore, __ATOMIC_ACQUIRE) : NULL;
}
