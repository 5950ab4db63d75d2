/* SPDX-License-Identifier: MIT */
/*
 * lttng.c: every run-time probe an LTTng-UST event too, "provider:probe"
 * with one typed field per argument, recorded in LTTng-UST's ring buffers
 * in this process's memory, with no trap.  Through liblttng-ust's public
 * registration interface only: the descriptions LTTng-UST reads (a probe
 * provider, its events, their fields and types, the call sites) are built
 * here at run time (lttng-abi.h), and liblttng-ust is found with dlopen
 * and dlsym, never linked: without it the library needs only libc and
 * makes no thread, descriptor or mapping more.
 *
 * When.  LTTng-UST is used while liblttng-ust.so.1 is in the process,
 * however it came (linked, LD_PRELOAD, dlopen), unless SDTKIT_LTTNG=0;
 * SDTKIT_LTTNG=1 or sdtkit_lttng_enable() loads it.  It is looked for
 * after each call on a provider, when the dynamic loader has loaded
 * anything since it last looked (dl_iterate_phdr's count of loads): the
 * probes loaded before it came become events then.  Another soname of
 * liblttng-ust (2.12's .so.0, a future one) or a library without the
 * functions below: nothing is done, and sdtkit_lttng_status() says why.
 *
 * How a probe fires its event.  While a probe is published and its event
 * registered, its call (what fire calls, fire.c) is lttng_trampoline(),
 * which calls the probe's own stub (the uprobe's nop: bpftrace still
 * sees it) and then, while LTTng-UST arms the event's call site (its
 * state), calls the probes LTTng-UST lists there, inside LTTng-UST's RCU
 * read side, as a tracepoint compiled with lttng-gen-tp does: each is
 * record(), the class's probe callback, which checks the session,
 * channel and event, runs LTTng's filter, and reserves, writes and
 * commits the event through the channel's ring buffer operations.  The
 * trampoline finds the probe through the firing thread's rider (fire.c),
 * so the fire path is the same with LTTng and without: not an
 * instruction more without.
 *
 * Is-enabled.  The inline sdtkit_probe_enabled() reads the semaphore the
 * probe's first word points at, and libstapsdt's probeIsEnabled() the
 * byte its trap points at: the kernel's while LTTng does not record the
 * event, a one (an int3) of ours while it does (gates below).  LTTng
 * tells nobody when it arms a call site, so lttng.c's thread looks at
 * every registered event's state every TICK_MS (less often when that
 * would take more than 1% of a CPU), and at once when it
 * registers one; what is ungated records from the moment LTTng arms it.
 *
 * Events and their lifetimes.  An event is a provider name, a probe name
 * and a layout (its fields' types and names: the signature), shared by
 * the probes of that name of every provider of that name (LTTng-UST would
 * record a fire once per event of the name).  A probe that cannot be an
 * event (a name LTTng-UST refuses, another layout under its name) stays a
 * probe: the reason is in sdtkit_lttng_status().  An event is registered
 * (lttng_ust_tracepoint_module_register, lttng_ust_probe_register) with
 * the others of its provider that a call made, as one LTTng provider, by
 * lttng.c's thread, which the call waits for (lttng_settle, outside
 * every lock); unloading makes no LTTng call (the trampoline is no longer
 * called: no fire that began after an unload returned is recorded), and
 * an event is unregistered, by the thread, once no probe of a live
 * provider holds it and no thread is firing a probe that held it: LTTng-
 * UST's unregistration waits for a grace period, which a thread stopped
 * inside a recording can hold for any time, so nothing but that thread
 * waits for it.
 *
 * Fork.  LTTng-UST traces the child of a fork only when its fork helper,
 * liblttng-ust-fork.so, is preloaded (LTTng-UST's rule: its fork() holds
 * LTTng's lock across the fork and starts LTTng again in the child).
 * With it, a child's probes are events as its parent's; without it, a
 * child's probes stop being events (LTTng-UST's state in the child is a
 * copy that nothing keeps), and nothing is asked of LTTng in it.
 *
 * Locks.  ltt.lock guards everything here and every store to what fire
 * and is-enabled read (probe_store); it is taken inside every other lock
 * of the library and held across no call into LTTng-UST nor dlopen.
 * module_lock is held across LTTng-UST's tracepoint module calls, which
 * take its tracepoint lock, which LTTng's fork helper does not hold across
 * fork: fork waits for them.
 */
#define _GNU_SOURCE
#include "runtime.h"

#include "lttng-abi.h"

#include <dlfcn.h>
#include <float.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* How often lttng.c's thread looks at the registered events' states
 * (for the gates), while any is registered: every TICK_MS, or less often
 * when a look takes more than 1/TICK_SHARE of that (very many events, or
 * a machine too busy to run it): about 1% of a CPU at most. */
enum {
    TICK_MS = 10,
    TICK_SHARE = 100
};

/* ---- the fields of an event ---- */

/* LTTng-UST packs an event's fields where unaligned loads are cheap, and
 * aligns each to its type elsewhere: part of its ABI, chosen by the
 * architecture (LTTNG_UST_ARCH_HAS_EFFICIENT_UNALIGNED_ACCESS, lttng/
 * ust-arch.h: x86 and powerpc), which is the process's and so ours. */
#if defined __i386__ || defined __x86_64__ || defined __powerpc__ || defined __powerpc64__
#define RB_ALIGN(type) 1
#else
#define RB_ALIGN(type) _Alignof(type)
#endif

/* How a field is written, one per argument type. */
enum field_kind {
    FK_U8,
    FK_S8,
    FK_U16,
    FK_S16,
    FK_U32,
    FK_S32,
    FK_U64,
    FK_S64,
    FK_POINTER,
    FK_STRING,
    FK_FLOAT,
    FK_DOUBLE,
    FK_COUNT
};

#define INTEGER(type, sign, base)                                                                  \
    {                                                                                              \
        {UST_TYPE_INTEGER}, sizeof(struct ust_type_integer), sizeof(type) * 8, RB_ALIGN(type) * 8, \
            sign, 0, base                                                                          \
    }
/* a double's two words swapped in memory (old ARM FPA): GCC says so */
#if defined __FLOAT_WORD_ORDER__ && __FLOAT_WORD_ORDER__ != __BYTE_ORDER__
#define FLOAT_WORDS_SWAPPED 1
#else
#define FLOAT_WORDS_SWAPPED 0
#endif
#define FLOATING(type, mant)                                                                       \
    {                                                                                              \
        {UST_TYPE_FLOAT}, sizeof(struct ust_type_float), sizeof(type) * 8 - (mant), mant,          \
            RB_ALIGN(type) * 8, FLOAT_WORDS_SWAPPED                                                \
    }

static const struct ust_type_integer type_u8 = INTEGER(uint8_t, 0, 10),
                                     type_s8 = INTEGER(int8_t, 1, 10),
                                     type_u16 = INTEGER(uint16_t, 0, 10),
                                     type_s16 = INTEGER(int16_t, 1, 10),
                                     type_u32 = INTEGER(uint32_t, 0, 10),
                                     type_s32 = INTEGER(int32_t, 1, 10),
                                     type_u64 = INTEGER(uint64_t, 0, 10),
                                     type_s64 = INTEGER(int64_t, 1, 10),
                                     type_pointer = INTEGER(uintptr_t, 0, 16);
static const struct ust_type_string type_string = {
    {UST_TYPE_STRING}, sizeof(struct ust_type_string), UST_ENCODING_UTF8};
static const struct ust_type_float type_float = FLOATING(float, FLT_MANT_DIG),
                                   type_double = FLOATING(double, DBL_MANT_DIG);

/* Each kind: its C type in the signature, its size and alignment in the
 * event (0 for a string: its bytes and NUL), its LTTng type. */
static const struct {
    const char *ctype;
    unsigned char size, align;
    const struct ust_type_common *type;
} kinds[FK_COUNT] = {
    [FK_U8] = {"uint8_t", 1, RB_ALIGN(uint8_t), &type_u8.parent},
    [FK_S8] = {"int8_t", 1, RB_ALIGN(int8_t), &type_s8.parent},
    [FK_U16] = {"uint16_t", 2, RB_ALIGN(uint16_t), &type_u16.parent},
    [FK_S16] = {"int16_t", 2, RB_ALIGN(int16_t), &type_s16.parent},
    [FK_U32] = {"uint32_t", 4, RB_ALIGN(uint32_t), &type_u32.parent},
    [FK_S32] = {"int32_t", 4, RB_ALIGN(int32_t), &type_s32.parent},
    [FK_U64] = {"uint64_t", 8, RB_ALIGN(uint64_t), &type_u64.parent},
    [FK_S64] = {"int64_t", 8, RB_ALIGN(int64_t), &type_s64.parent},
    [FK_POINTER] = {"void *", sizeof(void *), RB_ALIGN(uintptr_t), &type_pointer.parent},
    [FK_STRING] = {"const char *", 0, 1, &type_string.parent},
    [FK_FLOAT] = {"float", 4, RB_ALIGN(float), &type_float.parent},
    [FK_DOUBLE] = {"double", 8, RB_ALIGN(double), &type_double.parent},
};

/* The field kind of an argument type (enum sdtkit_type). */
static enum field_kind kind_of_type(int type)
{
    switch (type) {
    case SDTKIT_UINT8:
        return FK_U8;
    case SDTKIT_INT8:
        return FK_S8;
    case SDTKIT_UINT16:
        return FK_U16;
    case SDTKIT_INT16:
        return FK_S16;
    case SDTKIT_UINT32:
        return FK_U32;
    case SDTKIT_INT32:
        return FK_S32;
    case SDTKIT_INT64:
        return FK_S64;
    case SDTKIT_POINTER:
        return FK_POINTER;
    case SDTKIT_STRING:
        return FK_STRING;
    case SDTKIT_FLOAT:
        return FK_FLOAT;
    case SDTKIT_DOUBLE:
        return FK_DOUBLE;
    default: /* SDTKIT_UINT64 (add_probe took no other) */
        return FK_U64;
    }
}

/* ---- events and the LTTng providers they are registered in ---- */

enum event_state {
    EV_QUEUED,     /* to be registered by lttng.c's thread */
    EV_REGISTERED, /* LTTng-UST has it (or refused it: failed) */
    EV_ABANDONED,  /* in a fork's child, registered or not: never touched again */
};

struct batch;

/* An LTTng event: what fire reads first, then LTTng's descriptions of it,
 * then lttng.c's (under ltt.lock), then its names. */
struct lttng_event {
    struct ust_tracepoint tp; /* the call site LTTng-UST arms */
    /* what lttng.c's thread looks at every TICK_MS, beside tp.state */
    bool gate_on; /* its probes' gates say enabled: LTTng records it */
    bool failed;  /* LTTng-UST refused it */
    enum event_state state;
    struct sdtkit_probe *published; /* its published probes (lt.next) */
    ptrdiff_t watched;              /* at ltt.watch[watched], or -1 */
    int nfields;
    unsigned char kind[SDTKIT_MAX_ARGS]; /* enum field_kind */
    struct ust_event_desc desc;
    struct ust_tracepoint_class cls;
    struct ust_event_field field[SDTKIT_MAX_ARGS];
    const struct ust_event_field *fieldp[SDTKIT_MAX_ARGS];
    const char *pname, *name, *signature; /* in names[] */
    size_t refs;                          /* probes of live providers that hold it */
    size_t stragglers;                    /* retired probes a thread may still be firing */
    bool in_table;                        /* found by name (a new probe of the name joins it) */
    uint64_t ticket;                      /* the job that registers it */
    struct batch *batch;
    struct lttng_event *hnext;       /* in the name table's chain */
    struct lttng_event *prev, *next; /* every event */
    struct lttng_event *qnext;       /* in the registration queue */
    char names[];
};

/* One LTTng provider: the events of one provider name that one job
 * registered together. */
struct batch {
    struct ust_probe_desc desc;
    const struct ust_event_desc **descs;
    struct ust_tracepoint **tps;
    struct lttng_event **events;
    size_t n, live; /* events, and those not dead */
    void *cookie;   /* lttng_ust_probe_register's answer */
    bool module;    /* the call sites are registered */
    bool abandoned; /* in a fork's child: never touched again */
    uint64_t ticket;
    struct batch *qnext; /* in the unregistration queue */
};

/* What lttng_trampoline() hands record() through LTTng's probe list. */
struct firing {
    const struct lttng_event *ev;
    const union slot *slots;
    void *ip; /* the probe's stub: the ip context */
};

typedef void record_fn(void *event, const struct firing *f);

enum lttng_state {
    L_UNKNOWN, /* not looked for yet */
    L_ABSENT,  /* not in the process (looked for again when something loads) */
    L_ACTIVE,  /* in use */
    L_OFF,     /* not to be used (SDTKIT_LTTNG=0, an unknown one, a fork's child ...) */
};

/* A retired probe a thread may still be firing, and its event. */
struct straggler {
    const struct sdtkit_probe *p;
    struct lttng_event *ev;
};

static struct {
    pthread_mutex_t lock;
    pthread_cond_t work; /* for the thread: jobs, or exiting */
    pthread_cond_t done; /* jobs done */
    enum lttng_state state;
    unsigned long adds; /* the loader's loads when found absent (a word:
                         * 32-bit targets may have no 64-bit atomics) */
    /* LTTng-UST's functions, set once it is found */
    void *(*probe_register)(const struct ust_probe_desc *desc);
    void (*probe_unregister)(void *cookie);
    int (*module_register)(struct ust_tracepoint *const *tps, int n);
    int (*module_unregister)(struct ust_tracepoint *const *tps);
    void (*read_lock)(void);
    void (*read_unlock)(void);
    bool fork_helper; /* liblttng-ust-fork is preloaded */
    char library[32]; /* ours, in the signatures: libsdtkit, libstapsdt */
    /* events */
    struct lttng_event **table; /* by name: chains */
    size_t table_cap, intable;
    struct lttng_event *events; /* every one */
    size_t registered;          /* of them, registered */
    /* those registered (not failed) with published probes, whose gates
     * the thread looks after: a dense array, for the cache */
    struct lttng_event **watch;
    size_t nwatch, cap_watch;
    struct sdtkit_probe *dormant; /* published while LTTng-UST is not in use */
    struct straggler *stragglers;
    size_t nstragglers, cap_stragglers;
    /* jobs, in order: registrations and unregistrations */
    struct lttng_event *rq_head, **rq_tail;
    struct batch *uq_head, **uq_tail;
    uint64_t queued, finished;         /* tickets */
    struct lttng_event *flying_events; /* being registered: in no queue */
    struct batch *flying;              /* being registered or unregistered */
    bool thread, sleeping, exiting;
    int want;          /* SDTKIT_LTTNG: 0 never, 1 load it, -1 when loaded; -2 not read */
    char status[256];  /* the state, said */
    char problem[384]; /* the last probe that could not be an event, or failure */
} ltt = {.lock = PTHREAD_MUTEX_INITIALIZER,
         .rq_tail = &ltt.rq_head,
         .uq_tail = &ltt.uq_head,
         .want = -2};

static pthread_mutex_t module_lock = PTHREAD_MUTEX_INITIALIZER;

/* The locks this thread holds or is taking (HELD_*, set before the lock
 * is taken: a signal may come at any instruction of pthread_mutex_lock).
 * A fork from a signal handler that interrupted this thread there must not
 * wait for the lock: fork's prepare handler skips it, and the child makes
 * it anew (lttng_fork_child).  The same as fire.c's riders lock. */
enum {
    HELD_LTT = 1,
    HELD_MODULE = 2
};
static _Thread_local unsigned held_here;
static unsigned held_at_fork; /* the locks fork's prepare handler did not take */

static void ltt_lock(void)
{
    held_here |= HELD_LTT;
    pthread_mutex_lock(&ltt.lock);
}

static void ltt_unlock(void)
{
    pthread_mutex_unlock(&ltt.lock);
    held_here &= ~(unsigned)HELD_LTT;
}

static void module_lock_take(void)
{
    held_here |= HELD_MODULE;
    pthread_mutex_lock(&module_lock);
}

static void module_lock_give(void)
{
    pthread_mutex_unlock(&module_lock);
    held_here &= ~(unsigned)HELD_MODULE;
}

/* The last job this thread's call made or joined, which lttng_settle
 * waits for. */
static _Thread_local uint64_t ltt_need;
/* This thread said a problem since lttng_call_problem() last looked. */
static _Thread_local bool ltt_problem;

static const volatile unsigned short gate_one = 1;
static const volatile unsigned char gate_int3 = 0xcc;

static void lttng_trampoline(const void *slots);

/* ---- status ---- */

static void say(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *buf, size_t len, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, len, fmt, ap);
    va_end(ap);
}

#define STATUS(...) say(ltt.status, sizeof ltt.status, __VA_ARGS__)
#define PROBLEM(...) (say(ltt.problem, sizeof ltt.problem, __VA_ARGS__), ltt_problem = true)

/* ---- the name table ---- */

static size_t hash_names(const char *pname, const char *name)
{
    size_t h = 2166136261u; /* FNV-1a, the two names and a separator */
    for (const unsigned char *c = (const unsigned char *)pname; *c; c++)
        h = (h ^ *c) * 16777619u;
    h = (h ^ 0xff) * 16777619u;
    for (const unsigned char *c = (const unsigned char *)name; *c; c++)
        h = (h ^ *c) * 16777619u;
    return h;
}

static struct lttng_event **chain_of(const char *pname, const char *name)
{
    return &ltt.table[hash_names(pname, name) & (ltt.table_cap - 1)];
}

static struct lttng_event *table_find(const char *pname, const char *name)
{
    if (!ltt.table_cap)
        return NULL;
    for (struct lttng_event *e = *chain_of(pname, name); e; e = e->hnext)
        if (strcmp(e->name, name) == 0 && strcmp(e->pname, pname) == 0)
            return e;
    return NULL;
}

/* Put ev in the table: 0, or -1 out of memory. */
static int table_add(struct lttng_event *ev)
{
    if (ltt.intable + 1 > ltt.table_cap) {
        size_t cap = ltt.table_cap ? 2 * ltt.table_cap : 64;
        struct lttng_event **t = calloc(cap, sizeof *t), **old = ltt.table;
        if (!t)
            return -1;
        size_t old_cap = ltt.table_cap;
        ltt.table = t;
        ltt.table_cap = cap;
        for (size_t i = 0; i < old_cap; i++)
            for (struct lttng_event *e = old[i], *n; e; e = n) {
                n = e->hnext;
                struct lttng_event **c = chain_of(e->pname, e->name);
                e->hnext = *c;
                *c = e;
            }
        free(old);
    }
    struct lttng_event **c = chain_of(ev->pname, ev->name);
    ev->hnext = *c;
    *c = ev;
    ev->in_table = true;
    ltt.intable++;
    return 0;
}

static void table_remove(struct lttng_event *ev)
{
    if (!ev->in_table)
        return;
    struct lttng_event **c = chain_of(ev->pname, ev->name);
    while (*c != ev)
        c = &(*c)->hnext;
    *c = ev->hnext;
    ev->in_table = false;
    ltt.intable--;
}

/* ---- probes' publication and gates ---- */

/* Which list a published probe is in. */
static struct sdtkit_probe **list_of(const struct sdtkit_probe *p)
{
    return p->lt.ev ? &p->lt.ev->published : &ltt.dormant;
}

static void watch_update(struct lttng_event *ev);

static void link_probe(struct sdtkit_probe *p)
{
    struct sdtkit_probe **head = list_of(p);
    p->lt.prev = NULL;
    p->lt.next = *head;
    if (*head)
        (*head)->lt.prev = p;
    *head = p;
    if (p->lt.ev)
        watch_update(p->lt.ev);
}

static void unlink_probe(struct sdtkit_probe *p)
{
    if (p->lt.prev)
        p->lt.prev->lt.next = p->lt.next;
    else
        *list_of(p) = p->lt.next;
    if (p->lt.next)
        p->lt.next->lt.prev = p->lt.prev;
    p->lt.prev = p->lt.next = NULL;
    if (p->lt.ev)
        watch_update(p->lt.ev);
}

/* Watch ev (its gates) while it is registered and has published
 * probes, and only then. */
static void watch_update(struct lttng_event *ev)
{
    bool want = ev->state == EV_REGISTERED && !ev->failed && ev->published;
    if (want && ev->watched < 0) {
        if (ltt.nwatch == ltt.cap_watch) {
            size_t cap = ltt.cap_watch ? 2 * ltt.cap_watch : 64;
            void *v = realloc(ltt.watch, cap * sizeof *ltt.watch);
            if (!v)
                return; /* out of memory: its gates stay as they are */
            ltt.watch = v;
            ltt.cap_watch = cap;
        }
        ev->watched = (ptrdiff_t)ltt.nwatch;
        ltt.watch[ltt.nwatch++] = ev;
    } else if (!want && ev->watched >= 0) {
        struct lttng_event *last = ltt.watch[--ltt.nwatch];
        ltt.watch[ev->watched] = last;
        last->watched = ev->watched;
        ev->watched = -1;
    }
}

/* Store published p's call and gates: its own, or its event's. */
static void store_gates(struct sdtkit_probe *p)
{
    const struct lttng_event *ev = p->lt.ev;
    if (!ev) {
        probe_store(p, p->lt.call, p->lt.semaphore, (const volatile unsigned char *)p->stub);
        return;
    }
    /* the trampoline is the call while the event exists, registered or
     * not yet: it calls the stub first */
    probe_store(p, (uintptr_t)lttng_trampoline, ev->gate_on ? &gate_one : p->lt.semaphore,
                ev->gate_on ? &gate_int3 : (const volatile unsigned char *)p->stub);
}

/* Point ev's probes' gates at what LTTng-UST's state of its call site
 * says now. */
static void sync_gates(struct lttng_event *ev)
{
    bool on = ev->state == EV_REGISTERED && __atomic_load_n(&ev->tp.state, __ATOMIC_RELAXED);
    if (on == ev->gate_on)
        return;
    ev->gate_on = on;
    for (struct sdtkit_probe *p = ev->published; p; p = p->lt.next)
        store_gates(p);
}

/* ---- making an event ---- */

/* NULL when LTTng-UST takes provider:probe as an event's name and its
 * trace metadata carries it, else why not.  lttng-sessiond writes the
 * name between quotes as it is: printable ASCII without '"' or '\'. */
static const char *bad_event_name(const char *pname, const char *name)
{
    if (!*pname || !*name)
        return "an empty name";
    if (strlen(pname) + 1 + strlen(name) >= UST_SYM_NAME_LEN)
        return "longer than LTTng-UST takes (255 bytes for provider:probe)";
    for (int k = 0; k < 2; k++)
        for (const unsigned char *c = (const unsigned char *)(k ? name : pname); *c; c++)
            if (*c < 0x20 || *c > 0x7e || *c == '"' || *c == '\\')
                return "a byte LTTng's trace metadata cannot carry (printable ASCII "
                       "but '\"' and '\\' only)";
    return NULL;
}

/* p's i-th argument's name, or NULL: argI. */
static const char *argname(const struct sdtkit_probe *p, int i)
{
    const char *a = p->argnames;
    for (int k = 0; a && k < i; k++)
        a += strlen(a) + 1;
    return a;
}

/* p's layout, LTTng's signature of its event, in buf: "LIBRARY: TYPE
 * NAME, ...": two probes of one name share an event only when equal. */
static void signature(const struct sdtkit_probe *p, char *buf, size_t len)
{
    size_t n = (size_t)snprintf(buf, len, "%s:", ltt.library);
    for (int i = 0; i < p->nargs && n < len; i++) {
        const char *a = argname(p, i);
        if (a)
            n += (size_t)snprintf(buf + n, len - n, "%s %s %s", i ? "," : "",
                                  kinds[kind_of_type(p->type[i])].ctype, a);
        else
            n += (size_t)snprintf(buf + n, len - n, "%s %s arg%d", i ? "," : "",
                                  kinds[kind_of_type(p->type[i])].ctype, i);
    }
}

/* A new event for p, its signature sig: its descriptions but the
 * provider's (the batch's), queued for registration.  NULL out of
 * memory. */
static struct lttng_event *event_new(const struct sdtkit_probe *p, const char *sig)
{
    size_t lp = strlen(p->pname) + 1, ln = strlen(p->name) + 1, ls = strlen(sig) + 1;
    size_t la = 0;
    for (int i = 0; i < p->nargs; i++)
        la += (argname(p, i) ? strlen(argname(p, i)) : 4 + 2) + 1;
    struct lttng_event *ev = calloc(1, sizeof *ev + lp + ln + ls + la);
    if (!ev)
        return NULL;
    char *s = ev->names;
    ev->pname = memcpy(s, p->pname, lp);
    ev->name = memcpy(s += lp, p->name, ln);
    ev->signature = memcpy(s += ln, sig, ls);
    s += ls;
    ev->watched = -1;
    ev->nfields = p->nargs;
    for (int i = 0; i < p->nargs; i++) {
        enum field_kind k = kind_of_type(p->type[i]);
        ev->kind[i] = (unsigned char)k;
        const char *a = argname(p, i);
        char *fname = s;
        s += a ? (size_t)sprintf(s, "%s", a) + 1 : (size_t)sprintf(s, "arg%d", i) + 1;
        ev->field[i] = (struct ust_event_field){
            .struct_size = sizeof(struct ust_event_field), .name = fname, .type = kinds[k].type};
        ev->fieldp[i] = &ev->field[i];
    }
    ev->cls = (struct ust_tracepoint_class){
        .struct_size = sizeof ev->cls,
        .fields = ev->fieldp,
        .nr_fields = (size_t)p->nargs,
        .probe_callback = NULL, /* record (below) */
        .signature = ev->signature,
    };
    ev->desc = (struct ust_event_desc){
        .struct_size = sizeof ev->desc, .event_name = ev->name, .tp_class = &ev->cls};
    ev->tp = (struct ust_tracepoint){.struct_size = sizeof ev->tp,
                                     .provider_name = ev->pname,
                                     .event_name = ev->name,
                                     .signature = ev->signature};
    return ev;
}

static void record(void *event, const struct firing *f);

/* Queue ev's registration (locked). */
static void queue_register(struct lttng_event *ev)
{
    ev->state = EV_QUEUED;
    ev->ticket = ++ltt.queued;
    ev->qnext = NULL;
    *ltt.rq_tail = ev;
    ltt.rq_tail = &ev->qnext;
    pthread_cond_signal(&ltt.work);
}

static void queue_unregister(struct batch *b)
{
    b->ticket = ++ltt.queued;
    b->qnext = NULL;
    *ltt.uq_tail = b;
    ltt.uq_tail = &b->qnext;
    for (size_t i = 0; i < b->n; i++)
        table_remove(b->events[i]);
    pthread_cond_signal(&ltt.work);
}

static bool dead(const struct lttng_event *ev) { return !ev->refs && !ev->stragglers; }

/* ev has just died: its LTTng provider is unregistered once all its
 * events have (an event not yet registered is dropped by the thread). */
static void event_died(struct lttng_event *ev)
{
    struct batch *b = ev->batch;
    /* (one being registered is queued by the thread once registered) */
    if (b && !b->abandoned && --b->live == 0 && b != ltt.flying)
        queue_unregister(b);
}

/* p's event, found or made, which p now holds; NULL (with the problem
 * said) when p cannot be one, or out of memory.  Locked, LTTng in use. */
static struct lttng_event *attach(struct sdtkit_probe *p)
{
    const char *bad = bad_event_name(p->pname, p->name);
    if (bad) {
        PROBLEM("probe '%s' of provider '%s' is not an LTTng event: %s", p->name, p->pname, bad);
        return NULL;
    }
    char sig[SDTKIT_MAX_ARGS * (SDTKIT_NAME_MAX + 24) + 64];
    signature(p, sig, sizeof sig);
    struct lttng_event *ev = table_find(p->pname, p->name);
    if (ev && strcmp(ev->signature, sig) != 0) {
        PROBLEM("probe '%s' of provider '%s' is not an LTTng event: another probe of that "
                "name has other arguments (LTTng-UST has one layout a name)",
                p->name, p->pname);
        return NULL;
    }
    if (!ev) {
        if (!(ev = event_new(p, sig)) || table_add(ev) != 0) {
            free(ev);
            PROBLEM("probe '%s' of provider '%s' is not an LTTng event: out of memory", p->name,
                    p->pname);
            return NULL;
        }
        ev->cls.probe_callback = (void (*)(void))(record_fn *)record;
        ev->next = ltt.events;
        if (ltt.events)
            ltt.events->prev = ev;
        ltt.events = ev;
        queue_register(ev);
    } else if (dead(ev) && ev->batch && !ev->batch->abandoned) {
        ev->batch->live++; /* back to life: its provider stays registered */
    }
    ev->refs++;
    __atomic_store_n(&p->lt.ev, ev, __ATOMIC_RELEASE);
    return ev;
}

/* Make published p an event's (locked, LTTng in use). */
static void activate_probe(struct sdtkit_probe *p)
{
    if (!p->lt.ev && !attach(p))
        return;
    if (p->lt.ev->state == EV_QUEUED && p->lt.ev->ticket > ltt_need)
        ltt_need = p->lt.ev->ticket;
    sync_gates(p->lt.ev);
}

/* ---- for fire.c and provider.c ---- */

void lttng_publish(struct sdtkit_probe *p, uintptr_t call, const volatile unsigned short *sem)
{
    ltt_lock();
    if (p->lt.published)
        unlink_probe(p);
    p->lt.call = call;
    p->lt.semaphore = sem;
    p->lt.published = ltt.state != L_OFF; /* off: in no list */
    if (ltt.state == L_ACTIVE)
        activate_probe(p);
    else if (ltt.state == L_OFF) /* its event kept, unused */
        __atomic_store_n(&p->lt.ev, NULL, __ATOMIC_RELEASE);
    if (p->lt.published) {
        link_probe(p); /* in its event's list, or the dormant (LTTng may come) */
        if (p->lt.ev && ltt.sleeping)
            pthread_cond_signal(&ltt.work); /* its gates to look after */
    }
    store_gates(p);
    ltt_unlock();
}

void lttng_unpublish(struct sdtkit_probe *p)
{
    ltt_lock();
    if (p->lt.published)
        unlink_probe(p);
    p->lt.published = false;
    probe_store(p, 0, &probe_zero_semaphore, &probe_zero_trap);
    ltt_unlock();
}

/* Forget the stragglers no thread is firing any more, as f saw them. */
static void land_stragglers(const struct flights *f)
{
    size_t k = 0;
    for (size_t i = 0; i < ltt.nstragglers; i++) {
        struct straggler s = ltt.stragglers[i];
        if (fire_flying(f, s.p)) {
            ltt.stragglers[k++] = s;
            continue;
        }
        if (--s.ev->stragglers == 0 && !s.ev->refs)
            event_died(s.ev);
    }
    ltt.nstragglers = k;
}

void lttng_retire(struct sdtkit_probe *const *probes, size_t n)
{
    ltt_lock();
    for (size_t i = 0; i < n; i++) {
        struct sdtkit_probe *p = probes[i];
        struct lttng_event *ev = p->lt.ev;
        if (!ev)
            continue;
        assert(!p->lt.published && ev->refs > 0);
        __atomic_store_n(&p->lt.ev, NULL, __ATOMIC_RELEASE);
        ev->refs--;
        /* a thread may be in its trampoline, which reads ev: kept until
         * lttng.c's thread sees none (out of memory: for good) */
        ev->stragglers++;
        if (ltt.nstragglers == ltt.cap_stragglers) {
            size_t cap = ltt.cap_stragglers ? 2 * ltt.cap_stragglers : 16;
            void *v = realloc(ltt.stragglers, cap * sizeof *ltt.stragglers);
            if (!v)
                continue;
            ltt.stragglers = v;
            ltt.cap_stragglers = cap;
        }
        ltt.stragglers[ltt.nstragglers++] = (struct straggler){p, ev};
    }
    if (ltt.nstragglers)
        pthread_cond_signal(&ltt.work);
    ltt_unlock();
}

/* ---- firing ---- */

/* The interpreter's stack of LTTng's filters and captures: each field's
 * value as its interpreter reads it (an integer as 64 bits, a floating
 * point one as a double, a string as its address). */
static void stack_values(const struct lttng_event *ev, const union slot *s, char *stack)
{
    for (int i = 0; i < ev->nfields; i++) {
        int64_t v;
        double d;
        const void *ptr;
        switch ((enum field_kind)ev->kind[i]) {
        case FK_U8:
            v = s[i].u8;
            break;
        case FK_S8:
            v = (int8_t)s[i].u8;
            break;
        case FK_U16:
            v = s[i].u16;
            break;
        case FK_S16:
            v = (int16_t)s[i].u16;
            break;
        case FK_U32:
            v = s[i].u32;
            break;
        case FK_S32:
            v = (int32_t)s[i].u32;
            break;
        case FK_POINTER:
            v = (int64_t)(uintptr_t)s[i].p;
            break;
        case FK_STRING:
            ptr = s[i].p ? s[i].p : "(null)";
            memcpy(stack, &ptr, sizeof ptr);
            stack += sizeof ptr;
            continue;
        case FK_FLOAT:
        case FK_DOUBLE:
            d = ev->kind[i] == FK_FLOAT ? (double)s[i].f : s[i].d;
            memcpy(stack, &d, sizeof d);
            stack += sizeof d;
            continue;
        default:
            v = (int64_t)s[i].u64;
            break; /* FK_U64, FK_S64 */
        }
        memcpy(stack, &v, sizeof v);
        stack += sizeof v;
    }
}

/* e records a fire now: a recorder whose session and channel are active,
 * or a notifier, and enabled (not a newer LTTng's kind of event: not ours
 * to serve). */
static bool recording(const struct ust_event_common *e)
{
    switch (e->type) {
    case UST_EVENT_RECORDER: {
        const struct ust_event_recorder *r = e->child;
        const struct ust_channel_common *c = r->chan->parent;
        if (!__atomic_load_n(&c->session->active, __ATOMIC_RELAXED) ||
            !__atomic_load_n(&c->enabled, __ATOMIC_RELAXED))
            return false;
        break;
    }
    case UST_EVENT_NOTIFIER:
        break;
    default:
        return false;
    }
    return __atomic_load_n(&e->enabled, __ATOMIC_RELAXED);
}

/* Send notifier n's notification of f, its captures from stack (filled
 * here unless stacked already). */
static void notify(const struct ust_event_notifier *n, const struct firing *f, char *stack,
                   bool stacked, struct ust_probe_ctx *pctx)
{
    struct ust_notification_ctx nctx = {.struct_size = sizeof nctx,
                                        .eval_capture =
                                            __atomic_load_n(&n->eval_capture, __ATOMIC_RELAXED)};
    if (!stacked && nctx.eval_capture)
        stack_values(f->ev, f->slots, stack);
    n->notification_send(n, stack, pctx, &nctx);
}

/* The payload of ev's event fired with slots s: its size, each field at
 * its alignment, a string's bytes and NUL (str[i] and strl[i] the string
 * of field i and its size); *largest, the largest alignment. */
static size_t payload(const struct lttng_event *ev, const union slot *s, const char **str,
                      size_t *strl, size_t *largest)
{
    size_t len = 0;
    *largest = 1;
    for (int i = 0; i < ev->nfields; i++) {
        unsigned k = ev->kind[i];
        if (k == FK_STRING) {
            str[i] = s[i].p ? s[i].p : "(null)";
            len += strl[i] = strlen(str[i]) + 1;
            continue;
        }
        size_t a = kinds[k].align; /* a power of two: its padding by mask */
        len += (-len & (a - 1)) + kinds[k].size;
        *largest = a > *largest ? a : *largest;
    }
    return len;
}

/* Write f's event through recorder r's channel: reserve, write each
 * field, commit. */
static void write_event(const struct ust_event_recorder *r, const struct firing *f,
                        struct ust_probe_ctx *pctx)
{
    const struct lttng_event *ev = f->ev;
    const union slot *s = f->slots;
    const char *str[SDTKIT_MAX_ARGS];
    size_t strl[SDTKIT_MAX_ARGS], largest;
    size_t len = payload(ev, s, str, strl, &largest);
    const struct ust_channel_buffer_ops *ops = r->chan->ops;
    struct ust_ring_buffer_ctx ctx = {.struct_size = sizeof ctx,
                                      .client_priv = (void *)r,
                                      .data_size = len,
                                      .largest_align = (int)largest,
                                      .probe_ctx = pctx};
    if (ops->event_reserve(&ctx) < 0)
        return; /* the buffer is full: LTTng counts it discarded */
    for (int i = 0; i < ev->nfields; i++) {
        unsigned k = ev->kind[i];
        if (k == FK_STRING)
            ops->event_strcpy(&ctx, str[i], strl[i]);
        else /* the value is in its slot's first bytes */
            ops->event_write(&ctx, &s[i], kinds[k].size, kinds[k].align);
    }
    ops->event_commit(&ctx);
}

/* The probe callback of every event (its class's): what a compiled
 * tracepoint's does, for a layout known at run time.  event is LTTng's
 * (a recorder or a notifier), armed on the event's call site: the
 * session, channel and event checked, LTTng's filter run, then the
 * notification sent or the event written. */
static void record(void *event, const struct firing *f)
{
    const struct ust_event_common *e = event;
    if (!recording(e))
        return;
    struct ust_probe_ctx pctx = {.struct_size = sizeof pctx, .ip = f->ip};
    char stack[2 * sizeof(unsigned long) * SDTKIT_MAX_ARGS];
    bool stacked = false;
    if (__atomic_load_n(&e->eval_filter, __ATOMIC_RELAXED)) {
        stack_values(f->ev, f->slots, stack);
        stacked = true;
        if (e->run_filter(e, stack, &pctx, NULL) != UST_FILTER_ACCEPT)
            return;
    }
    if (e->type == UST_EVENT_NOTIFIER)
        notify(e->child, f, stack, stacked, &pctx);
    else
        write_event(e->child, f, &pctx);
}

/* Call the probes LTTng-UST armed ev's call site with, inside its RCU
 * read side (an acquire load reads the list as urcu's rcu_dereference
 * does, on every architecture but Alpha, which LTTng-UST lacks). */
static __attribute__((noinline)) void
fire_event(const struct lttng_event *ev, const struct sdtkit_probe *p, const union slot *slots)
{
    struct firing f = {ev, slots, (void *)p->stub};
    ltt.read_lock();
    const struct ust_tracepoint_probe *t = __atomic_load_n(&ev->tp.probes, __ATOMIC_ACQUIRE);
    for (; t && t->func; t++)
        ((record_fn *)(void (*)(void))t->func)(t->data, &f);
    ltt.read_unlock();
}

/* A probe's call while it is an LTTng event (fire.c calls it as it
 * would the stub): the stub, for the tracers trapping on it, then the
 * event while LTTng-UST arms its call site.  The probe is the one the
 * firing thread's rider says: nothing was added to the fire path for it. */
static void lttng_trampoline(const void *slots)
{
    const struct sdtkit_probe *p = fire_rider->flying;
    ((stub_fn *)__atomic_load_n(&p->lt.call, __ATOMIC_RELAXED))(slots);
    const struct lttng_event *ev = __atomic_load_n(&p->lt.ev, __ATOMIC_ACQUIRE);
    if (ev && __atomic_load_n(&ev->tp.state, __ATOMIC_RELAXED))
        fire_event(ev, p, slots);
}

/* ---- lttng.c's thread: registering and unregistering ---- */

/* Take ev out of the list of every event (locked). */
static void events_unlink(struct lttng_event *ev)
{
    if (ev->prev)
        ev->prev->next = ev->next;
    else
        ltt.events = ev->next;
    if (ev->next)
        ev->next->prev = ev->prev;
}

static void batch_free(struct batch *b)
{
    for (size_t i = 0; i < b->n; i++) {
        struct lttng_event *ev = b->events[i];
        assert(dead(ev) && !ev->published);
        if (ev->state == EV_REGISTERED)
            ltt.registered--;
        events_unlink(ev);
        free(ev);
    }
    free(b->descs);
    free(b->tps);
    free(b->events);
    free(b);
}

/* How many events queued for registration at the queue's head are of
 * its first's provider name and before the first unregistration queued
 * (locked; the queue not empty). */
static size_t batch_size(void)
{
    const struct lttng_event *first = ltt.rq_head;
    uint64_t limit = ltt.uq_head ? ltt.uq_head->ticket : UINT64_MAX;
    size_t n = 0;
    for (const struct lttng_event *e = first;
         e && e->ticket < limit && strcmp(e->pname, first->pname) == 0; e = e->qnext)
        n++;
    return n;
}

/* An empty batch with room for n events; NULL out of memory. */
static struct batch *batch_new(size_t n)
{
    struct batch *b = calloc(1, sizeof *b);
    if (b && (!(b->descs = calloc(n, sizeof *b->descs)) || !(b->tps = calloc(n, sizeof *b->tps)) ||
              !(b->events = calloc(n, sizeof *b->events)))) {
        free(b->descs);
        free(b->tps);
        free(b);
        b = NULL;
    }
    return b;
}

/* The event at the registration queue's head out of the queue (*last:
 * its ticket) and into b; dropped when dead, failed when b is NULL (out
 * of memory: an event that records nothing).  Locked. */
static void take_event(struct batch *b, uint64_t *last)
{
    struct lttng_event *e = ltt.rq_head;
    ltt.rq_head = e->qnext;
    *last = e->ticket;
    if (dead(e)) { /* destroyed before it was registered */
        table_remove(e);
        events_unlink(e);
        free(e);
        return;
    }
    if (!b) {
        e->state = EV_REGISTERED;
        e->failed = true;
        ltt.registered++;
        return;
    }
    e->batch = b;
    b->events[b->n] = e;
    b->descs[b->n] = &e->desc;
    b->tps[b->n++] = &e->tp;
}

/* b, its events taken, one LTTng provider: its description, which its
 * events point at. */
static void describe_batch(struct batch *b)
{
    b->live = b->n;
    b->desc = (struct ust_probe_desc){.struct_size = sizeof b->desc,
                                      .provider_name = b->events[0]->pname,
                                      .event_desc = b->descs,
                                      .nr_events = (unsigned)b->n,
                                      .major = UST_PROVIDER_MAJOR,
                                      .minor = UST_PROVIDER_MINOR};
    for (size_t i = 0; i < b->n; i++) {
        b->events[i]->desc.probe_desc = &b->desc;
        b->events[i]->cls.probe_desc = &b->desc;
    }
}

/* The events queued for registration at the queue's head, of one
 * provider name and before the first unregistration queued, out of the
 * queue, as a batch; those dead already dropped (locked).  *last: the
 * last ticket taken.  NULL when none is left, or out of memory (the
 * events are then failed).  Counted, allocated, taken, described. */
static struct batch *take_batch(uint64_t *last)
{
    size_t n = batch_size();
    struct batch *b = batch_new(n);
    char pname[UST_SYM_NAME_LEN]; /* the head's, which may be freed below */
    snprintf(pname, sizeof pname, "%s", ltt.rq_head->pname);
    for (size_t k = 0; k < n; k++)
        take_event(b, last);
    if (!ltt.rq_head)
        ltt.rq_tail = &ltt.rq_head;
    if (b && !b->n) {
        batch_free(b);
        return NULL;
    }
    if (!b) {
        PROBLEM("provider '%s': its LTTng events could not be registered: out of memory", pname);
        return NULL;
    }
    describe_batch(b);
    return b;
}

/* Register b with LTTng-UST: its call sites, then its provider, which
 * arms them when a session records an event of it. */
static void register_batch(struct batch *b)
{
    module_lock_take();
    b->module = ltt.module_register(b->tps, (int)b->n) == 0;
    module_lock_give();
    void *cookie = b->module ? ltt.probe_register(&b->desc) : NULL;
    ltt_lock();
    b->cookie = cookie;
    if (!cookie)
        PROBLEM("provider '%s': LTTng-UST refused its %zu events (LTTNG_UST_DEBUG=1 says why)",
                b->desc.provider_name, b->n);
    for (size_t i = 0; i < b->n; i++) {
        struct lttng_event *ev = b->events[i];
        ev->state = EV_REGISTERED;
        ev->failed = !cookie;
        ltt.registered++;
        watch_update(ev);
        sync_gates(ev);
    }
    ltt_unlock();
}

/* Unregister b (its provider, whose unregistration waits for a grace
 * period of LTTng's RCU, then its call sites) and free it. */
static void unregister_batch(struct batch *b)
{
    if (b->cookie)
        ltt.probe_unregister(b->cookie);
    module_lock_take();
    if (b->module)
        ltt.module_unregister(b->tps);
    b->module = false;
    module_lock_give();
}

/* Every published event's gates as LTTng-UST's state says; whether any
 * registered event has published probes (to look after). */
static bool tick(void)
{
    for (size_t i = 0; i < ltt.nwatch; i++)
        sync_gates(ltt.watch[i]);
    return ltt.nwatch > 0;
}

/* A job of ticket done: said to those waiting (locked). */
static void job_done(uint64_t ticket)
{
    if (ticket > ltt.finished)
        ltt.finished = ticket;
    pthread_cond_broadcast(&ltt.done);
}

/* The registration job at the queue's head: a batch taken and
 * registered, ltt.lock released meanwhile (locked). */
static void run_registration(void)
{
    uint64_t ticket = 0;
    struct batch *b = take_batch(&ticket);
    if (b) {
        ltt.flying = b;
        ltt_unlock();
        register_batch(b);
        ltt_lock();
        ltt.flying = NULL;
        if (!b->live && !b->abandoned)
            queue_unregister(b); /* all destroyed meanwhile */
    }
    job_done(ticket);
}

/* The unregistration job at the queue's head: its batch unregistered,
 * ltt.lock released meanwhile, and freed (locked). */
static void run_unregistration(void)
{
    struct batch *b = ltt.uq_head;
    ltt.uq_head = b->qnext;
    if (!ltt.uq_head)
        ltt.uq_tail = &ltt.uq_head;
    ltt.flying = b;
    ltt_unlock();
    unregister_batch(b);
    ltt_lock();
    ltt.flying = NULL;
    uint64_t ticket = b->ticket;
    if (!b->abandoned)
        batch_free(b);
    job_done(ticket);
}

/* Retired probes a thread was firing: landed since?  (Locked; the riders
 * are looked at without ltt.lock, which is released meanwhile.) */
static void look_at_stragglers(void)
{
    struct flights f;
    ltt_unlock();
    int rc = fire_quiesce(&f);
    ltt_lock();
    if (rc == 0) {
        land_stragglers(&f);
        fire_landed(&f);
    }
}

/* A tick, then a wait for work (locked, as pthread_cond_wait releases
 * it): until the next tick while there is anything to look after (TICK_MS
 * on, or TICK_SHARE times what the tick took), else until work comes. */
static void tick_and_wait(void)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    /* (a job queued while the lock was left before found no sleeper to
     * wake: looked at again before sleeping) */
    if (!tick() && !ltt.nstragglers && !ltt.rq_head && !ltt.uq_head) {
        ltt.sleeping = true;
        pthread_cond_wait(&ltt.work, &ltt.lock);
        ltt.sleeping = false;
        return;
    }
    clock_gettime(CLOCK_MONOTONIC, &t);
    long took = (t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec);
    long wait = took * TICK_SHARE > TICK_MS * 1000000L ? took * TICK_SHARE : TICK_MS * 1000000L;
    t.tv_nsec += wait % 1000000000L;
    t.tv_sec += wait / 1000000000L + t.tv_nsec / 1000000000L;
    t.tv_nsec %= 1000000000L;
    pthread_cond_timedwait(&ltt.work, &ltt.lock, &t);
}

/* The thread: jobs in order, and a tick while any registered event has
 * published probes (their gates), or a retired probe was being fired
 * (its event is unregistered once no thread fires it). */
static void *worker(void *arg)
{
    (void)arg;
    ltt_lock();
    while (!ltt.exiting) {
        /* the registrations and unregistrations in the order queued */
        if (ltt.rq_head && (!ltt.uq_head || ltt.rq_head->ticket < ltt.uq_head->ticket)) {
            run_registration();
            continue;
        }
        if (ltt.uq_head) {
            run_unregistration();
            continue;
        }
        if (ltt.nstragglers)
            look_at_stragglers();
        tick_and_wait();
    }
    ltt.thread = false;
    pthread_cond_broadcast(&ltt.done); /* no more jobs done */
    ltt_unlock();
    return NULL;
}

/* Start the thread if need be (locked): 0, or -1 (said). */
static int start_worker(void)
{
    if (ltt.thread)
        return 0;
    if (ltt.exiting)
        return -1;
    pthread_attr_t attr;
    sigset_t all, old;
    sigfillset(&all);
    pthread_t t;
    int rc = pthread_attr_init(&attr);
    if (rc == 0) {
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        /* no signal of the program's for it */
        pthread_sigmask(SIG_SETMASK, &all, &old);
        rc = pthread_create(&t, &attr, worker, NULL);
        pthread_sigmask(SIG_SETMASK, &old, NULL);
        pthread_attr_destroy(&attr);
    }
    if (rc != 0) {
        PROBLEM("LTTng events are not registered: no thread for it (%s)", strerror(rc));
        return -1;
    }
#if defined __GLIBC__
    pthread_setname_np(t, "sdtkit-lttng");
#endif
    ltt.thread = true;
    return 0;
}

/* ---- finding LTTng-UST ---- */

static int count_loads(struct dl_phdr_info *info, size_t size, void *data)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_adds) + sizeof info->dlpi_adds)
        *(unsigned long *)data = (unsigned long)info->dlpi_adds;
    return 1;
}

/* The loader's count of the objects it has loaded, modulo a word (0: not
 * known). */
static unsigned long loads(void)
{
    unsigned long n = 0;
    dl_iterate_phdr(count_loads, &n);
    return n;
}

/* dl_iterate_phdr: the file name of a liblttng-ust.so* the loader has
 * (into data, 128 bytes), found by name, not dlopen (which would count as
 * a load).  ThreadSanitizer does not see the loader's lock, which
 * dl_iterate_phdr holds while it reads the names that dlopen writes under
 * it: not instrumented, and no string function it intercepts. */
__attribute__((no_sanitize("thread"))) static int find_ust(struct dl_phdr_info *info, size_t size,
                                                           void *data)
{
    (void)size;
    static const char want[] = "liblttng-ust.so";
    const char *base = info->dlpi_name;
    for (const char *c = base; *c; c++)
        if (*c == '/')
            base = c + 1;
    size_t i = 0;
    while (want[i] && base[i] == want[i])
        i++;
    if (want[i] || (base[i] && base[i] != '.'))
        return 0;
    char *out = data;
    for (i = 0; i < 127 && base[i]; i++)
        out[i] = base[i];
    out[i] = '\0';
    return 1;
}

/* What lttng.c needs of LTTng-UST, found. */
struct binding {
    void *(*probe_register)(const struct ust_probe_desc *desc);
    void (*probe_unregister)(void *cookie);
    int (*module_register)(struct ust_tracepoint *const *tps, int n);
    int (*module_unregister)(struct ust_tracepoint *const *tps);
    void (*read_lock)(void);
    void (*read_unlock)(void);
    bool fork_helper;
};

#define SYM(handle, var, name) (*(void **)(void *)&(var) = dlsym(handle, name), (var) ? NULL : name)

/* Find liblttng-ust.so.1 (load it: load), its tracepoint library and
 * their functions: 1 (b filled), 0 when not in the process, -1 when not
 * to be used (why in msg).  Without ltt.lock: dlopen. */
static int find_lttng(bool load, struct binding *b, char *msg, size_t len)
{
    char found[128] = "";
    dl_iterate_phdr(find_ust, found);
    if (!found[0] && !load)
        return 0;
    void *ust = dlopen(UST_LIB_SONAME, RTLD_NOW | (found[0] ? RTLD_NOLOAD : 0));
    if (!ust && found[0]) {
        say(msg, len,
            "%s is loaded, an LTTng-UST whose ABI this library does not speak (it speaks "
            "%s's: LTTng-UST 2.13 to 2.15)",
            found, UST_LIB_SONAME);
        return -1;
    }
    if (!ust) {
        say(msg, len, "%s could not be loaded: %s", UST_LIB_SONAME, dlerror());
        return -1;
    }
    void *tp = dlopen(UST_TRACEPOINT_LIB_SONAME, RTLD_NOW | RTLD_NOLOAD);
    const char *missing = !tp ? UST_TRACEPOINT_LIB_SONAME : NULL;
    if (!missing)
        missing = SYM(ust, b->probe_register, "lttng_ust_probe_register");
    if (!missing)
        missing = SYM(ust, b->probe_unregister, "lttng_ust_probe_unregister");
    if (!missing)
        missing = SYM(tp, b->module_register, "lttng_ust_tracepoint_module_register");
    if (!missing)
        missing = SYM(tp, b->module_unregister, "lttng_ust_tracepoint_module_unregister");
    if (!missing)
        missing = SYM(tp, b->read_lock, "lttng_ust_tp_rcu_read_lock");
    if (!missing)
        missing = SYM(tp, b->read_unlock, "lttng_ust_tp_rcu_read_unlock");
    if (missing) {
        say(msg, len, "%s is loaded, but %s is not there: an LTTng-UST this library does not know",
            UST_LIB_SONAME, missing);
        return -1;
    }
    b->fork_helper = dlopen(UST_FORK_LIB_SONAME, RTLD_NOW | RTLD_NOLOAD) != NULL;
    /* LTTng-UST keeps our descriptions and calls record() for as long as
     * it runs: this library stays loaded from now on, as LTTng-UST does */
    Dl_info self;
    if (dladdr((void *)(uintptr_t)find_lttng, &self) && self.dli_fname) {
        (void)dlopen(self.dli_fname, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        const char *base = strrchr(self.dli_fname, '/');
        base = base ? base + 1 : self.dli_fname;
        snprintf(ltt.library, sizeof ltt.library, "%.*s", (int)strcspn(base, "."), base);
    }
    return 1;
}

/* LTTng-UST is found (locked): every published probe an event's. */
static void activate(const struct binding *b)
{
    ltt.probe_register = b->probe_register;
    ltt.probe_unregister = b->probe_unregister;
    ltt.module_register = b->module_register;
    ltt.module_unregister = b->module_unregister;
    ltt.read_lock = b->read_lock;
    ltt.read_unlock = b->read_unlock;
    ltt.fork_helper = b->fork_helper;
    if (!ltt.library[0])
        snprintf(ltt.library, sizeof ltt.library, "sdtkit");
    ltt.state = L_ACTIVE;
    STATUS("in use: %s%s", UST_LIB_SONAME,
           ltt.fork_helper ? ", and liblttng-ust-fork.so (a fork's child records too)"
                           : " (a fork's child records only with liblttng-ust-fork.so preloaded)");
    struct sdtkit_probe *p = ltt.dormant, *next;
    ltt.dormant = NULL;
    for (; p; p = next) {
        next = p->lt.next;
        p->lt.prev = p->lt.next = NULL;
        activate_probe(p);
        link_probe(p);
        store_gates(p);
    }
}

/* Not to be used any more (locked): every probe its own again. */
static void go_off(void)
{
    ltt.state = L_OFF;
    for (struct lttng_event *ev = ltt.events; ev; ev = ev->next) {
        for (struct sdtkit_probe *p = ev->published, *next; p; p = next) {
            next = p->lt.next;
            p->lt.prev = p->lt.next = NULL;
            p->lt.published = false;
            __atomic_store_n(&p->lt.ev, NULL, __ATOMIC_RELEASE); /* its event kept */
            store_gates(p);
        }
        ev->published = NULL;
        watch_update(ev);
    }
    for (struct sdtkit_probe *p = ltt.dormant, *next; p; p = next) {
        next = p->lt.next;
        p->lt.prev = p->lt.next = NULL;
        p->lt.published = false;
    }
    ltt.dormant = NULL;
}

/* SDTKIT_LTTNG, read once: 0 never, 1 load liblttng-ust, else (unset,
 * empty, another value) when it is loaded. */
static int wanted(void)
{
    int w = __atomic_load_n(&ltt.want, __ATOMIC_RELAXED);
    if (w == -2) {
        const char *e = getenv("SDTKIT_LTTNG");
        w = !e ? -1 : strcmp(e, "0") == 0 ? 0 : strcmp(e, "1") == 0 ? 1 : -1;
        __atomic_store_n(&ltt.want, w, __ATOMIC_RELAXED);
    }
    return w;
}

/* Look for LTTng-UST (load it: load) unless it is in use or off; 0 when
 * it is in use then, else SDTKIT_E_UNSUPPORTED.  Without ltt.lock (it
 * may dlopen), in a call (provider.c's: fork waits for it; glibc's fork
 * leaves the loader's list locked in the child of a fork that happens
 * while another thread reads it). */
static int look(bool load)
{
    enum lttng_state st = __atomic_load_n(&ltt.state, __ATOMIC_ACQUIRE);
    if (st == L_ACTIVE)
        return SDTKIT_OK;
    if (st == L_OFF)
        return SDTKIT_E_UNSUPPORTED;
    int want = wanted();
    unsigned long n = loads();
    if (st == L_ABSENT && !load && want != 1 && n &&
        n == __atomic_load_n(&ltt.adds, __ATOMIC_RELAXED))
        return SDTKIT_E_UNSUPPORTED; /* nothing loaded since it was absent */
    struct binding b;
    char msg[sizeof ltt.status];
    int found = want == 0 ? -1 : find_lttng(load || want == 1, &b, msg, sizeof msg);
    ltt_lock();
    if (ltt.state == L_UNKNOWN || ltt.state == L_ABSENT) {
        if (found > 0) {
            activate(&b);
        } else if (found < 0) {
            if (want == 0)
                STATUS("not used: SDTKIT_LTTNG=0");
            else
                STATUS("not used: %s", msg);
            go_off();
        } else {
            __atomic_store_n(&ltt.adds, n, __ATOMIC_RELAXED);
            STATUS("not in use: %s is not loaded (SDTKIT_LTTNG=1 or sdtkit_lttng_enable() "
                   "loads it)",
                   UST_LIB_SONAME);
            __atomic_store_n(&ltt.state, L_ABSENT, __ATOMIC_RELEASE);
        }
    }
    int rc = ltt.state == L_ACTIVE ? SDTKIT_OK : SDTKIT_E_UNSUPPORTED;
    ltt_unlock();
    return rc;
}

/* Wait until the jobs this thread made or joined are done. */
static void wait_jobs(void)
{
    if (!ltt_need)
        return;
    ltt_lock();
    if (start_worker() == 0)
        while (ltt.finished < ltt_need && ltt.thread)
            pthread_cond_wait(&ltt.done, &ltt.lock); /* (taking it again: held) */
    ltt_unlock();
    ltt_need = 0;
}

int lttng_look(bool load)
{
    int rc = look(load);
    if (rc == SDTKIT_OK) {
        ltt_lock();
        /* jobs queued by destroys, or inherited by a fork's child */
        if (ltt.rq_head || ltt.uq_head)
            start_worker();
        ltt_unlock();
    }
    return rc;
}

void lttng_settle(void) { wait_jobs(); }

/* ---- the API ---- */

static struct thread_key status_key;

__attribute__((constructor)) static void lttng_begin(void)
{
    thread_key_begin(&status_key, free);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&ltt.work, &a);
    pthread_cond_init(&ltt.done, NULL);
    pthread_condattr_destroy(&a);
}

__attribute__((destructor)) static void lttng_end(void)
{
    ltt_lock();
    ltt.exiting = true; /* the thread ends after its call in progress */
    pthread_cond_broadcast(&ltt.work);
    ltt_unlock();
    thread_key_end(&status_key);
}

const char *lttng_status(void)
{
    enum {
        LEN = sizeof ltt.status + sizeof ltt.problem + 32
    };
    char *buf = status_key.keyed ? pthread_getspecific(status_key.key) : NULL;
    if (!buf && status_key.keyed && (buf = malloc(LEN)) &&
        pthread_setspecific(status_key.key, buf) != 0) {
        free(buf);
        buf = NULL;
    }
    if (!buf)
        return "LTTng-UST: (out of memory)";
    ltt_lock();
    snprintf(buf, LEN, "LTTng-UST %s%s%s", ltt.status, ltt.problem[0] ? "; last: " : "",
             ltt.problem);
    ltt_unlock();
    return buf;
}

bool lttng_call_problem(char *buf, size_t len)
{
    if (!ltt_problem)
        return false;
    ltt_problem = false;
    ltt_lock();
    snprintf(buf, len, "%s", ltt.problem);
    ltt_unlock();
    return true;
}

/* ---- fork ---- */

void lttng_fork_prepare(void)
{
    held_at_fork = held_here;
    if (!(held_at_fork & HELD_MODULE))
        pthread_mutex_lock(&module_lock);
    if (!(held_at_fork & HELD_LTT))
        pthread_mutex_lock(&ltt.lock);
}

void lttng_fork_parent(void)
{
    if (!(held_at_fork & HELD_LTT))
        pthread_mutex_unlock(&ltt.lock);
    if (!(held_at_fork & HELD_MODULE))
        pthread_mutex_unlock(&module_lock);
}

void lttng_fork_child(void)
{
    /* the locks the prepare handler took, released by the thread that
     * took them; one the interrupted call held or was taking made anew (a
     * thread that was waiting takes it; one that held it releases it,
     * alone in its process: a normal mutex's unlock of a free one leaves
     * it free) */
    if (held_at_fork & HELD_MODULE)
        pthread_mutex_init(&module_lock, NULL);
    else
        pthread_mutex_unlock(&module_lock);
    if (held_at_fork & HELD_LTT)
        pthread_mutex_init(&ltt.lock, NULL);
    else
        pthread_mutex_unlock(&ltt.lock);
    pthread_condattr_t a;
    pthread_condattr_init(&a);
    pthread_condattr_setclock(&a, CLOCK_MONOTONIC);
    pthread_cond_init(&ltt.work, &a);
    pthread_cond_init(&ltt.done, NULL);
    pthread_condattr_destroy(&a);
    ltt.thread = false;
    /* what the parent's thread was registering or unregistering: LTTng-UST
     * may or may not have it in the child; kept as it is, for good */
    struct batch *b = ltt.flying;
    if (b) {
        b->abandoned = true;
        for (size_t i = 0; i < b->n; i++)
            b->events[i]->state = EV_ABANDONED;
        ltt.finished = b->ticket > ltt.finished ? b->ticket : ltt.finished;
        ltt.flying = NULL;
    }
    ltt_need = 0;
    if (ltt.state == L_ACTIVE && !ltt.fork_helper) {
        STATUS("not used in this process: a child of fork without liblttng-ust-fork.so "
               "preloaded, which LTTng-UST does not trace");
        go_off();
    }
}
