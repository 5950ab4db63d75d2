/* SPDX-License-Identifier: MIT */
/*
 * provider.c: <sdtkit.h>, the native API of the run-time probe library:
 * providers, their probes and their lifecycle.
 *
 * A provider holds its probes.  Loading it lodges them in an object (a
 * shared object written for the running target and loaded: object.c),
 * which small providers share, and publishes each probe's stub and
 * semaphore with release stores, which fire and the inline is-enabled
 * test read with acquire loads (fire.c).  Unloading publishes a zero
 * semaphore and no stub, and hides the provider's notes in the file.
 *
 * What a structure of this file points to, and for how long: a probe's
 * pname and name are copies in its own allocation; pv->probes and
 * pv->index are the provider's, moved by add_probe (nothing else keeps a
 * pointer into them: object.c copies what it keeps, see struct tenant);
 * a probe is freed only by free_retired(), never while a thread fires it (7).
 *
 * The contract, each promise with the test that holds it (in
 * tests/runtime.bats unless another file is named; model.c is
 * tests/runtime/model.c, which drives both APIs through random sequences
 * and checks every answer against a model of these rules):
 *
 * Threads
 *   1. The calls on one provider (add, load, unload, destroy,
 *      use_named_file, error, path, and libstapsdt's) take its mutex;
 *      calls on different providers share only the library's locks (the
 *      objects', the retired probes', the firing threads' records), each
 *      held while what it guards changes, never across dlopen.
 *      ("many threads fire while another unloads, loads and adds probes",
 *      and the same under ThreadSanitizer; model.c under ThreadSanitizer)
 *   2. Fire and is-enabled take no lock.  Is-enabled writes nothing; fire
 *      writes only its own thread's record of the probe it is firing (a
 *      thread's first fire registers that record, once, under a lock).
 *      ("firing takes no lock")
 *   3. fork() waits for the calls of the other threads in progress and
 *      holds new ones back until it returns: a child never inherits a lock
 *      held or a provider half changed by another thread.  A fork from a
 *      signal handler that interrupted a call of its own thread does not
 *      wait for it: both processes go on with it when the handler returns.
 *      ("a threaded server forks 2,000 workers"; "fork() in a signal
 *      handler that interrupted a call")
 *   4. error and path answer copies for the calling thread, made under
 *      the provider's lock.  (stress.c's threads read them, under
 *      ThreadSanitizer)
 *
 * Lifetimes: what fire and is-enabled may reach
 *   5. An object is loaded once (RTLD_NODELETE) and never unmapped: a
 *      thread stopped anywhere in fire or is-enabled, for any time,
 *      resumes on mapped memory.  ("threads stopped inside fire")
 *   6. A slot, once a probe's, is no other probe's while its object's file
 *      lives: a tracer that read the notes and attaches later, by the file
 *      or by its path, gets that probe's firings or none.  The object is
 *      given a new file (renewed) once none of its slots is held and no
 *      thread is firing a probe that held one; no fire ever reaches
 *      another probe's slot, however long its thread was stopped.
 *      ("threads stopped inside fire": none of 200 providers takes the
 *      stopped thread's slot, one made after it returned does;
 *      runtime-tracers.bats "a tracer that read a destroyed provider's
 *      notes")
 *   7. A probe of a destroyed provider stays allocated and inert
 *      (semaphore the library's zero, no stub) until SDTKIT_RETIRED_PROBES
 *      more probes have been destroyed, and while a thread fires it; then
 *      it is freed, and using its handle is undefined (as libstapsdt's
 *      were at once).  Until then it is never handed out again.
 *      (cases/lifecycle.case; model.c; runtime-tracers.bats "a handle kept
 *      past its provider's destroy fires nothing")
 *   8. An old semaphore address (the first load of is-enabled, held)
 *      reads a semaphore: its probe's, or once its object was renewed,
 *      another probe's or a zero; at worst one needless call of fire,
 *      which does nothing.  ("threads stopped ... between is-enabled's two
 *      loads")
 *
 * What tracers see
 *   9. Every loaded probe is in its object's notes, shown, at every
 *      moment a tracer may read the file, whatever was loaded, unloaded,
 *      destroyed or grown beside it; an unloaded or destroyed one is
 *      hidden (but see 14).  ("a loaded provider stays listed by readelf and
 *      sdt-list whatever neighbour"; runtime-tracers.bats "every tracer
 *      sees a loaded provider after a neighbour")
 *
 * Costs
 *  10. What a process holds is what is live: the live providers' probes
 *      and objects, the retired probes of 7, and the objects whose dead
 *      slots a stopped fire keeps from renewal.  A provider made, loaded
 *      and destroyed over and over, with a new name each time or not, holds
 *      nothing more.  ("20,000 short-lived providers"; "a program that
 *      drops its handles ... leaks nothing")
 *  11. A load makes a new object only when no object of this process, of
 *      the kind asked for (a memory file, or named files in a directory),
 *      has free slots for all of the provider's probes among the first it
 *      looks at (object.c's LOOK of each size), and none can be renewed,
 *      or while a debugger is attached (gdb reads an object's probes when
 *      it is loaded).  A new object has the smallest power of two of
 *      slots, at least 64, that holds the provider's probes.  So one
 *      dlopen serves an object's worth of small providers, and a load's
 *      work does not grow with the number of providers.  ("1,000
 *      providers of 2 probes ... 32 objects and 32 dlopen calls";
 *      shared.c)
 *  12. A reload keeps its object and slots: no file, mapping or
 *      descriptor, and the tracers attached before see its probes again.
 *      ("10,000 unload and load cycles")
 *  13. A load that fails leaves the provider as it was: a loaded one stays
 *      loaded with what it had.  (cases/reload-fails.case; model.c)
 *
 * Fork
 *  14. After fork, the objects' files are both processes': neither writes
 *      them again.  A probe unloaded then stays shown (inert); a provider
 *      that grows or is loaded again hidden moves to an object of the
 *      process's own; an object renewed gets a file of the process's own
 *      (the other keeps the old one).  So each process's tracers see its
 *      own probes, and no other's.  The child's loader list names its own
 *      descriptors; only the process that made a named file removes it.
 *      (runtime-tracers.bats "after fork"; bindings.bats "a pre-fork
 *      worker")
 *
 * LTTng-UST (lttng.c; the tests in runtime-lttng.bats)
 *  15. Without liblttng-ust in the process the library makes no thread,
 *      descriptor or mapping more, and fire and is-enabled are as above.
 *      ("without LTTng-UST the library makes no thread ...")
 *  16. With it, the promises above hold with a session recording ("with
 *      a session recording: threads fire ..."); a load returns once its
 *      probes' events are registered; an unload makes no call into
 *      LTTng-UST, and no fire that began after it returned is recorded
 *      ("threads firing while their provider is unloaded ...").
 *  17. LTTng-UST's unregistration waits for a grace period of its RCU:
 *      lttng.c's thread makes it, so a thread stopped inside a recording
 *      holds no unload or destroy ("a thread stopped inside LTTng's
 *      recording ..."), and a destroyed provider's events go once no
 *      thread fires its probes.
 */
#define _GNU_SOURCE
#include "runtime.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

struct sdtkit_provider {
    pthread_mutex_t lock;
    char *name;
    struct sdtkit_probe **probes;
    size_t nprobes, cap;
    struct sdtkit_probe **index; /* the probes by name, strict only */
    size_t index_cap;            /* a power of two, or 0 */
    bool lax;                    /* libstapsdt's rules (see provider_create) */
    bool loaded;
    size_t published;     /* probes published by the last load */
    bool prefer_file;     /* libstapsdt's memfd_disabled: not in memory */
    bool named;           /* in a named file (for perf) */
    char *named_dir;      /* in this directory, or NULL: the candidates */
    struct tenant tenant; /* its probes in an object (object.c) */
    struct failure last;  /* of the last failed call */
    char path[64];        /* sdtkit_provider_path's answer for a memory file */
};

/* The probes of destroyed providers, oldest first: the last
 * SDTKIT_RETIRED_PROBES of them are kept, inert, and older ones freed
 * once no thread is firing them. */
static struct {
    pthread_mutex_t lock;
    struct sdtkit_probe *first, *last;
    size_t n;
} retired = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0};

/* ---- calls and fork ----
 *
 * fork() copies the memory of every thread but runs only the one that
 * called it: a lock another thread held (a provider's, across a load's
 * dlopen) stays held in the child for ever, and what that thread was
 * writing stays half written.  So fork waits for the calls in progress
 * to end and holds the next ones back until it is done: every call on a
 * provider is one, from provider_call_begin() to provider_call_end(); the locks a
 * call takes inside (the objects', the retired probes') are free between
 * calls.  The handlers are registered when the library is loaded, before
 * any provider exists.
 *
 * The gate is two counters and no lock, so that a fork from a signal
 * handler that interrupted a call (or the gate itself) on the same thread
 * cannot wait for itself: the forking thread waits for the calls of the
 * other threads alone, and a call made inside one of this thread's own
 * (a signal handler's) goes through.  The child then holds what the
 * interrupted call held, as the parent does: the call goes on when the
 * handler returns, in both; until then, a call on the provider it was
 * changing waits for itself, in the child as in the parent. */
static struct {
    int calls;   /* in progress, of every thread (a futex word) */
    int forking; /* forks waiting for them, or under way (a futex word) */
} gate;

/* This thread's calls in progress (more than one: a signal handler's call
 * inside one of its own), and whether it is forking. */
static _Thread_local unsigned gate_depth;
static _Thread_local bool gate_forker;

/* futex(2)'s operations on a word of this process (linux/futex.h, which
 * musl lacks). */
enum {
    WAIT_PRIVATE = 128, /* FUTEX_WAIT | FUTEX_PRIVATE_FLAG */
    WAKE_PRIVATE = 129  /* FUTEX_WAKE | FUTEX_PRIVATE_FLAG */
};

static void futex_wait(int *word, int value)
{
    syscall(SYS_futex, word, WAIT_PRIVATE, value, NULL, NULL, 0);
}

static void futex_wake(int *word)
{
    syscall(SYS_futex, word, WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

static void gate_enter(void)
{
    if (gate_depth == 0 && !gate_forker) {
        for (;;) {
            int f;
            while ((f = __atomic_load_n(&gate.forking, __ATOMIC_SEQ_CST)) != 0)
                futex_wait(&gate.forking, f);
            __atomic_add_fetch(&gate.calls, 1, __ATOMIC_SEQ_CST);
            if (__atomic_load_n(&gate.forking, __ATOMIC_SEQ_CST) == 0)
                break;
            __atomic_sub_fetch(&gate.calls, 1, __ATOMIC_SEQ_CST); /* let the fork go first */
            futex_wake(&gate.calls);
        }
    } else { /* inside a call of this thread's own: the fork waits for it anyway */
        __atomic_add_fetch(&gate.calls, 1, __ATOMIC_SEQ_CST);
    }
    gate_depth++;
}

static void gate_leave(void)
{
    assert(gate_depth > 0);
    gate_depth--;
    __atomic_sub_fetch(&gate.calls, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&gate.forking, __ATOMIC_SEQ_CST) != 0)
        futex_wake(&gate.calls);
}

/* Before fork: wait for the other threads' calls in progress; new ones
 * wait until the fork is done. */
static void gate_close(void)
{
    gate_forker = true;
    __atomic_add_fetch(&gate.forking, 1, __ATOMIC_SEQ_CST);
    int c;
    while ((c = __atomic_load_n(&gate.calls, __ATOMIC_SEQ_CST)) > (int)gate_depth)
        futex_wait(&gate.calls, c);
    fire_fork_prepare();  /* a thread's first fire registers it, under a lock */
    lttng_fork_prepare(); /* lttng.c's thread may be in LTTng's tracepoint registry */
}

static void gate_open_parent(void)
{
    lttng_fork_parent();
    fire_fork_parent();
    object_forked(false);
    gate_forker = false;
    if (__atomic_sub_fetch(&gate.forking, 1, __ATOMIC_SEQ_CST) == 0)
        futex_wake(&gate.forking);
}

/* In the child, the one thread: its own calls in progress, no fork (the
 * threads waiting in the parent are not in the child). */
static void gate_open_child(void)
{
    __atomic_store_n(&gate.calls, (int)gate_depth, __ATOMIC_SEQ_CST);
    __atomic_store_n(&gate.forking, 0, __ATOMIC_SEQ_CST);
    gate_forker = false;
    fire_fork_child();
    object_forked(true);
    lttng_fork_child();
}

__attribute__((constructor)) static void gate_register(void)
{
    /* on failure (out of memory at load), fork is as unsafe as before */
    (void)pthread_atfork(gate_close, gate_open_parent, gate_open_child);
}

/* ---- status codes ---- */

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

/* What sdtkit_provider_error and sdtkit_provider_path return: a copy for
 * the calling thread, made under the provider's lock (another thread's
 * call on the provider may change the provider's own meanwhile), in a
 * block of the thread's own found through a pthread key.  The copy of a
 * provider's message is kept up to date with the thread's calls on that
 * provider: bindings ask for it in the expression that makes the call,
 * before or after it as the compiler likes. */
struct copies {
    const struct sdtkit_provider *pv; /* whose message msg is */
    char msg[sizeof(((struct failure *)0)->msg)];
    char path[sizeof(((struct placement *)0)->path)];
};

static struct thread_key copies_key;

__attribute__((constructor)) static void copies_begin(void) { thread_key_begin(&copies_key, free); }

__attribute__((destructor)) static void copies_end(void) { thread_key_end(&copies_key); }

/* The thread's copies, made at its first need; NULL (no key, out of
 * memory) when make is false or none can be. */
static struct copies *copies(bool make)
{
    struct copies *c = copies_key.keyed ? pthread_getspecific(copies_key.key) : NULL;
    if (!c && make && copies_key.keyed && (c = calloc(1, sizeof *c)) &&
        pthread_setspecific(copies_key.key, c) != 0) {
        free(c);
        c = NULL;
    }
    return c;
}

void provider_call_begin(struct sdtkit_provider *pv)
{
    gate_enter();
    pthread_mutex_lock(&pv->lock);
}

void provider_call_end(struct sdtkit_provider *pv)
{
    struct copies *c = copies(false);
    if (c && c->pv == pv)
        memcpy(c->msg, pv->last.msg, sizeof c->msg);
    pthread_mutex_unlock(&pv->lock);
    /* liblttng-ust loaded since? (lttng.c): inside the call, as it reads
     * the loader's list, which a fork must not copy half read */
    lttng_look(false);
    gate_leave();
    /* the call's LTTng events registered, outside every lock: LTTng's
     * fork helper holds LTTng's lock across fork, which waits for the
     * calls in progress (gate_close) */
    lttng_settle();
}

/* ---- LTTng-UST (lttng.c), calls on no provider ---- */

int sdtkit_lttng_enable(void)
{
    gate_enter(); /* as a call on a provider: it reads the loader's list, and loads */
    int rc = lttng_look(true);
    gate_leave();
    lttng_settle();
    return rc;
}

const char *sdtkit_lttng_status(void)
{
    gate_enter();
    lttng_look(false);
    gate_leave();
    return lttng_status();
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

/* A new probe, inert, with extra bytes after it (at PROBE_EXTRA) and its
 * names after those (its arguments' too, when given: argnames[0 ..
 * nargs)), in one allocation that starts with the probe. */
static struct sdtkit_probe *probe_new(size_t extra, const char *pname, const char *name,
                                      const char *const *argnames, int nargs)
{
    size_t lp = strlen(pname) + 1, ln = strlen(name) + 1, la = 0;
    for (int i = 0; argnames && i < nargs; i++)
        la += strlen(argnames[i]) + 1; /* at most SDTKIT_NAME_MAX each (checked) */
    if (extra > SIZE_MAX / 4 || lp > SIZE_MAX / 4 || ln > SIZE_MAX / 4)
        return NULL;
    char *block = calloc(1, PROBE_EXTRA + extra + lp + ln + la);
    if (!block)
        return NULL;
    struct sdtkit_probe *p = (struct sdtkit_probe *)(void *)block;
    char *names = block + PROBE_EXTRA + extra;
    p->pname = memcpy(names, pname, lp);
    p->name = memcpy(names + lp, name, ln);
    if (argnames) {
        char *a = names + lp + ln;
        p->argnames = a;
        for (int i = 0; i < nargs; i++)
            a = stpcpy(a, argnames[i]) + 1;
    }
    p->semaphore = &probe_zero_semaphore;
    p->trap = &probe_zero_trap;
    return p;
}

/* NULL when argnames (NULL: none) names nargs arguments, each a valid
 * name of its own, else what is wrong, in buf. */
static const char *bad_argnames(const char *const *argnames, int nargs, char *buf, size_t len)
{
    for (int i = 0; argnames && i < nargs; i++) {
        const char *bad = bad_name(argnames[i], false);
        for (int j = 0; !bad && j < i; j++)
            if (strcmp(argnames[i], argnames[j]) == 0)
                bad = "the name of an argument before it";
        if (bad) {
            snprintf(buf, len, "argument %d's name: %s", i + 1, bad);
            return buf;
        }
    }
    return NULL;
}

/* Keep pv's probes, inert, among the retired (retired locked). */
static void retire(struct sdtkit_provider *pv)
{
    for (size_t i = 0; i < pv->nprobes; i++) {
        struct sdtkit_probe *p = pv->probes[i];
        p->next_retired = NULL;
        if (retired.last)
            retired.last->next_retired = p;
        else
            retired.first = p;
        retired.last = p;
        retired.n++;
    }
}

/* Free the oldest retired probes beyond SDTKIT_RETIRED_PROBES that no
 * thread is firing (retired locked). */
static void free_retired(const struct flights *f)
{
    struct sdtkit_probe **link = &retired.first, *prev = NULL;
    while (retired.n > SDTKIT_RETIRED_PROBES && *link) {
        struct sdtkit_probe *p = *link;
        if (fire_flying(f, p)) { /* a thread stopped in fire: later */
            prev = p;
            link = &p->next_retired;
            continue;
        }
        *link = p->next_retired;
        if (retired.last == p)
            retired.last = prev;
        retired.n--;
        free(p);
    }
}

/* Check and add a probe; pv is locked. */
int provider_add_probe_locked(struct sdtkit_provider *pv, const char *name, const int *types,
                              const char *const *argnames, int nargs, size_t extra,
                              sdtkit_probe **out)
{
    struct failure *why = &pv->last;
    *out = NULL;
    const char *bad = bad_name(name, pv->lax);
    if (bad)
        return fail(why, SDTKIT_E_INVALID, STAGE_NONE, "probe of provider '%s': %s", pv->name, bad);
    if (nargs < 0 || nargs > SDTKIT_MAX_ARGS || (nargs > 0 && !types))
        return fail(why, SDTKIT_E_INVALID, STAGE_NONE,
                    "probe '%s': %d arguments (0 to %d, with their types)", name, nargs,
                    SDTKIT_MAX_ARGS);
    for (int i = 0; i < nargs; i++)
        if (!type_size(types[i]))
            return fail(why, SDTKIT_E_INVALID, STAGE_NONE,
                        "probe '%s': argument %d has the unknown type %d", name, i + 1, types[i]);
    char buf[128];
    if ((bad = bad_argnames(argnames, nargs, buf, sizeof buf)))
        return fail(why, SDTKIT_E_INVALID, STAGE_NONE, "probe '%s': %s", name, bad);
    if (pv->loaded && !pv->lax)
        return fail(why, SDTKIT_E_STATE, STAGE_NONE,
                    "probe '%s': provider '%s' is loaded (unload it, add the probe, "
                    "load it again)",
                    name, pv->name);
    if (!pv->lax) {
        if (find_probe(pv, name))
            return fail(why, SDTKIT_E_EXISTS, STAGE_NONE, "provider '%s' has a probe '%s' already",
                        pv->name, name);
        if (index_reserve(pv) != 0)
            return fail(why, SDTKIT_E_NOMEM, STAGE_NONE, "out of memory");
    }
    if (pv->nprobes == pv->cap) {
        size_t cap = pv->cap ? 2 * pv->cap : 8;
        void *v = realloc(pv->probes, cap * sizeof *pv->probes);
        if (!v)
            return fail(why, SDTKIT_E_NOMEM, STAGE_NONE, "out of memory");
        pv->probes = v;
        pv->cap = cap;
    }
    struct sdtkit_probe *p = probe_new(extra, pv->name, name, argnames, nargs);
    if (!p)
        return fail(why, SDTKIT_E_NOMEM, STAGE_NONE, "out of memory");
    p->nargs = nargs;
    p->direct = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
    p->all_u64 = true;
    for (int i = 0; i < nargs; i++) {
        p->kind[i] = kind_of(types[i]);
        p->all_u64 &= p->kind[i] == KIND_U64;
        p->size[i] = (signed char)type_size(types[i]);
        p->type[i] = (signed char)types[i];
        p->direct &= types[i] != SDTKIT_FLOAT;
    }
    if (!pv->lax)
        *index_slot(pv, p->name) = p;
    pv->probes[pv->nprobes++] = p;
    *out = p;
    return SDTKIT_OK;
}

int sdtkit_provider_add_probe_named(sdtkit_provider *pv, const char *name, const int *types,
                                    const char *const *argnames, int nargs, sdtkit_probe **out)
{
    if (!out)
        return SDTKIT_E_INVALID;
    *out = NULL;
    if (!pv)
        return SDTKIT_E_INVALID;
    provider_call_begin(pv);
    int rc = provider_add_probe_locked(pv, name, types, argnames, nargs, 0, out);
    provider_call_end(pv);
    return rc;
}

int sdtkit_provider_add_probe(sdtkit_provider *pv, const char *name, const int *types, int nargs,
                              sdtkit_probe **out)
{
    return sdtkit_provider_add_probe_named(pv, name, types, NULL, nargs, out);
}

/* ---- load and unload ---- */

int provider_unload_locked(struct sdtkit_provider *pv)
{
    if (!pv->loaded)
        return fail(&pv->last, SDTKIT_E_STATE, STAGE_NONE, "provider '%s' is not loaded", pv->name);
    object_hide(&pv->tenant);
    pv->published = 0;
    pv->loaded = false;
    return SDTKIT_OK;
}

int provider_load_locked(struct sdtkit_provider *pv)
{
    /* loaded, lax, with probes added since: they are loaded too, and the
     * others stay loaded (also when that fails) */
    if (pv->loaded && (!pv->lax || pv->published == pv->nprobes))
        return fail(&pv->last, SDTKIT_E_STATE, STAGE_NONE, "provider '%s' is loaded already",
                    pv->name);
    const char *env = getenv("SDTKIT_RUNTIME_NAMED");
    struct lodging l = {.name = pv->name,
                        .probes = pv->probes,
                        .nprobes = pv->nprobes,
                        .named = pv->named || pv->prefer_file || (env && strcmp(env, "1") == 0),
                        .dir = pv->named_dir};
    int rc = object_lodge(&pv->tenant, &l, &pv->last);
    if (rc != SDTKIT_OK)
        return rc;
    pv->published = pv->nprobes;
    pv->loaded = true;
    fail_clear(&pv->last);
    return SDTKIT_OK;
}

int sdtkit_provider_load(sdtkit_provider *pv)
{
    if (!pv)
        return SDTKIT_E_INVALID;
    provider_call_begin(pv);
    int rc = provider_load_locked(pv);
    provider_call_end(pv);
    return rc;
}

int sdtkit_provider_unload(sdtkit_provider *pv)
{
    if (!pv)
        return SDTKIT_E_INVALID;
    provider_call_begin(pv);
    int rc = provider_unload_locked(pv);
    provider_call_end(pv);
    return rc;
}

void sdtkit_provider_destroy(sdtkit_provider *pv)
{
    if (!pv)
        return;
    provider_call_begin(pv);
    if (pv->loaded)
        provider_unload_locked(pv);
    object_leave(&pv->tenant);
    pthread_mutex_lock(&retired.lock);
    retire(pv);
    /* their LTTng events, unregistered once no thread fires them (lttng.c) */
    lttng_retire(pv->probes, pv->nprobes);
    /* the oldest retired probes, as soon as no thread is firing them */
    struct flights f;
    if (retired.n > SDTKIT_RETIRED_PROBES && fire_quiesce(&f) == 0) {
        free_retired(&f);
        fire_landed(&f);
    }
    pthread_mutex_unlock(&retired.lock);
    provider_call_end(pv);
    struct copies *c = copies(false);
    if (c && c->pv == pv)
        c->pv = NULL; /* its address may be another provider's next */
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
    provider_call_begin(pv);
    char *copy = dir ? strdup(dir) : NULL;
    int rc = SDTKIT_OK;
    if (dir && !copy) {
        rc = fail(&pv->last, SDTKIT_E_NOMEM, STAGE_NONE, "out of memory");
    } else if (pv->loaded) {
        rc = fail(&pv->last, SDTKIT_E_STATE, STAGE_NONE, "provider '%s' is loaded already",
                  pv->name);
        free(copy);
    } else {
        free(pv->named_dir);
        pv->named_dir = copy;
        pv->named = true;
    }
    provider_call_end(pv);
    return rc;
}

const char *sdtkit_provider_error(const sdtkit_provider *cpv)
{
    struct sdtkit_provider *pv = (struct sdtkit_provider *)cpv; /* for its lock */
    if (!pv)
        return "";
    struct copies *c = copies(true);
    if (!c)
        return pv->last.msg; /* out of memory: the provider's own */
    provider_call_begin(pv);
    c->pv = pv;
    provider_call_end(pv); /* which copies the message */
    return c->msg;
}

const char *sdtkit_provider_path(const sdtkit_provider *cpv)
{
    struct sdtkit_provider *pv = (struct sdtkit_provider *)cpv;
    if (!pv)
        return NULL;
    struct loaded l;
    struct copies *c = copies(true);
    provider_call_begin(pv);
    bool loaded = provider_loaded_locked(pv, &l);
    const char *path = !loaded ? NULL : c ? c->path : l.path; /* out of memory: the provider's */
    if (loaded && c)
        snprintf(c->path, sizeof c->path, "%s", l.path);
    provider_call_end(pv);
    return path;
}

/* ---- for stapsdt.c ---- */

bool provider_current_locked(const struct sdtkit_provider *pv)
{
    return pv->loaded && pv->published == pv->nprobes;
}

bool provider_prefer_file_locked(struct sdtkit_provider *pv, bool prefer)
{
    if (pv->loaded)
        return false;
    pv->prefer_file = prefer;
    return true;
}

bool provider_loaded_locked(struct sdtkit_provider *pv, struct loaded *out)
{
    if (!pv->loaded)
        return false;
    object_describe(&pv->tenant, pv->path, sizeof pv->path, out);
    return true;
}

const struct failure *provider_failure_locked(const struct sdtkit_provider *pv)
{
    return &pv->last;
}
