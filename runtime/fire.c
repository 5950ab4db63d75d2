/* SPDX-License-Identifier: MIT */
/*
 * fire.c: firing a probe and testing it, which take no lock, and what
 * makes it safe to give a probe's slot to another probe, or to free the
 * probe, while other threads may be firing it.
 *
 * A thread firing probe p says so, in a record of its own (its rider,
 * registered at its first fire), from before it reads where p's stub is
 * until the stub has returned.  Giving p's slot away, or freeing p, waits
 * until no rider says p: after p is unpublished, fire_quiesce() makes the
 * riders' stores visible with membarrier(2) (an asymmetric fence: fire
 * itself needs no fence) and takes a snapshot of them.  A thread that was
 * about to call p's stub is then in the snapshot; one that was not reads
 * p unpublished.  A thread stopped anywhere in fire, for any time, keeps
 * p's slot and p itself from reuse until it has returned.
 *
 * Where the process cannot have membarrier's private expedited command
 * (ENOSYS under a seccomp filter, kernels before 4.14: the library asks
 * when it is loaded), fire fences instead: a rider at rest says `resting'
 * rather than nothing, which sends every fire down fire_nested(), whose
 * full fence between the rider's store and the stub's load pairs with one
 * in fire_quiesce() (each side's store is seen by the other's load, or
 * the other way round).  Nothing in the common path changes; a fire
 * costs a fence more (BENCHMARKS.md).
 *
 * Firing writes only its own thread's rider, no counter and no atomic
 * read-modify-write, so threads firing the same probe do not contend.
 * A thread's first fire registers its rider, under a lock, once; the
 * thread finds it in a thread-local variable (fire_rider), and a pthread
 * key gives it back when the thread ends.  A fire inside a fire (a signal
 * handler's) says its own probe, then the outer one again: fire_nested.
 *
 * The rider's share of an untraced fire (BENCHMARKS.md, figure 7): the
 * variable's address (on x86-64, a call to the loader's TLS descriptor
 * function, a load when the variable has static TLS), its test, the outer
 * probe's test and two stores; fire_slots keeps only the rider across the
 * stub's call, so that the frame is one register.
 */
#define _GNU_SOURCE
#include "runtime.h"

/* sdtkit:fire, the library's own probe (below), has a semaphore. */
#define _SDT_HAS_SEMAPHORES 1
#include "../include/sys/sdt.h"

#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

const volatile unsigned short probe_zero_semaphore = 0;
const volatile unsigned char probe_zero_trap = 0;

/* The stores themselves are lttng.c's (probe_store, under its lock): it
 * puts LTTng-UST's trampoline in the stub's place while the probe is an
 * LTTng event, whoever publishes it. */
void probe_publish(struct sdtkit_probe *p, uintptr_t stub, const volatile unsigned short *sem)
{
    p->stub = stub;
    uintptr_t call = stub;
#if defined __powerpc64__ && (!defined _CALL_ELF || _CALL_ELF == 1)
    p->descriptor[0] = stub; /* the stub uses no TOC */
    call = (uintptr_t)p->descriptor;
#endif
    lttng_publish(p, call, sem);
}

void probe_unpublish(struct sdtkit_probe *p) { lttng_unpublish(p); }

uintptr_t probe_stub(const struct sdtkit_probe *p)
{
    return __atomic_load_n(&p->call, __ATOMIC_ACQUIRE) ? p->stub : 0;
}

/* ---- riders ---- */

/* membarrier(2)'s commands (linux/membarrier.h, which musl lacks). */
enum {
    BARRIER_QUERY = 0,
    BARRIER_GLOBAL = 1,
    BARRIER_PRIVATE_EXPEDITED = 8,
    BARRIER_REGISTER_PRIVATE_EXPEDITED = 16,
};

static struct {
    pthread_mutex_t lock;
    struct rider *all;
    int barrier; /* the command fire_quiesce uses; 0: none, fence */
} riders = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

/* What a rider says at rest while fire fences (riders.barrier 0). */
static const struct sdtkit_probe resting;

/* This thread holds riders.lock: a signal handler's first fire on it
 * does not fire (rather than wait for itself), and its fork's handlers
 * leave the lock to the interrupted holder. */
static _Thread_local bool riders_mine;

static void riders_lock(void)
{
    pthread_mutex_lock(&riders.lock);
    riders_mine = true;
}

static void riders_unlock(void)
{
    riders_mine = false;
    pthread_mutex_unlock(&riders.lock);
}

/* What a rider says at rest. */
static const struct sdtkit_probe *rest(void) { return riders.barrier ? NULL : &resting; }

struct thread_key fire_key;
_Thread_local struct rider *fire_rider;

void thread_key_begin(struct thread_key *k, void (*dtor)(void *))
{
    k->keyed = pthread_key_create(&k->key, dtor) == 0;
}

void thread_key_end(struct thread_key *k)
{
    if (k->keyed)
        pthread_key_delete(k->key);
    k->keyed = false;
}

static void rider_gone(void *arg)
{
    struct rider *r = arg;
    riders_lock();
    __atomic_store_n(&r->flying, NULL, __ATOMIC_RELAXED);
    r->taken = false;
    riders_unlock();
    fire_rider = NULL; /* a fire by a later destructor registers again */
}

static int barrier_command(void);

__attribute__((constructor)) static void riders_begin(void)
{
    thread_key_begin(&fire_key, rider_gone);
    riders.barrier = barrier_command(); /* before any rider: it says how they rest */
}

__attribute__((destructor)) static void riders_end(void) { thread_key_end(&fire_key); }

/* This thread's rider, registered at its first fire; NULL out of memory
 * (then it does not fire). */
__attribute__((noinline)) struct rider *rider_new(void)
{
    if (!fire_key.keyed || riders_mine)
        return NULL;
    riders_lock();
    struct rider *r = riders.all;
    while (r && r->taken)
        r = r->next;
    void *line;
    if (!r && posix_memalign(&line, RIDER_ALIGN, RIDER_ALIGN) == 0) {
        _Static_assert(sizeof *r <= RIDER_ALIGN, "a rider in its line");
        r = memset(line, 0, RIDER_ALIGN);
        r->next = riders.all;
        riders.all = r;
    }
    if (r && pthread_setspecific(fire_key.key, r) != 0)
        r = NULL; /* left untaken, for another thread */
    if (r) {
        r->taken = true;
        __atomic_store_n(&r->flying, rest(), __ATOMIC_RELAXED);
    }
    riders_unlock();
    fire_rider = r;
    return r;
}

/* membarrier(2), or -1. */
static long barrier(int cmd)
{
#ifdef SYS_membarrier
    return syscall(SYS_membarrier, cmd, 0, 0);
#else
    (void)cmd;
    return -1;
#endif
}

/* The command that makes every thread's stores visible: the process's
 * own, registered; else 0, and fire fences.  (The global command, which
 * waits for every CPU of the machine, would cost a load milliseconds.) */
static int barrier_command(void)
{
    long cmds = barrier(BARRIER_QUERY);
    if (cmds > 0 && (cmds & BARRIER_PRIVATE_EXPEDITED) &&
        barrier(BARRIER_REGISTER_PRIVATE_EXPEDITED) == 0)
        return BARRIER_PRIVATE_EXPEDITED;
    return 0;
}

int fire_quiesce(struct flights *f)
{
    f->n = 0;
    f->probes = NULL;
    riders_lock();
    size_t n = 0;
    for (struct rider *r = riders.all; r; r = r->next)
        n++;
    if (riders.barrier)
        n = barrier(riders.barrier) == 0 ? n : SIZE_MAX;
    else
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* fire_nested's pair */
    if (n == SIZE_MAX || !(f->probes = malloc((n ? n : 1) * sizeof *f->probes))) {
        riders_unlock();
        return -1;
    }
    for (struct rider *r = riders.all; r; r = r->next) {
        const struct sdtkit_probe *p = __atomic_load_n(&r->flying, __ATOMIC_ACQUIRE);
        if (p && p != &resting)
            f->probes[f->n++] = p;
    }
    riders_unlock();
    return 0;
}

bool fire_flying(const struct flights *f, const struct sdtkit_probe *p)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->probes[i] == p)
            return true;
    return false;
}

void fire_landed(struct flights *f)
{
    free(f->probes);
    f->probes = NULL;
    f->n = 0;
}

/* fork: the riders' lock is held across it, unless this thread holds it
 * already (a signal handler that interrupted it forks): then the
 * interrupted holder lets it go, in both processes. */
static _Thread_local bool riders_forked;

void fire_fork_prepare(void)
{
    riders_forked = !riders_mine;
    if (riders_forked)
        riders_lock();
}

void fire_fork_parent(void)
{
    if (riders_forked)
        riders_unlock();
}

void fire_fork_child(void)
{
    /* the other threads are not in the child */
    struct rider *me = fire_rider;
    for (struct rider *r = riders.all; r; r = r->next) {
        if (r == me)
            continue;
        r->flying = NULL;
        r->taken = false;
    }
    /* the child's mm is registered again (idempotent where it was
     * inherited); riders rest as they did, so fencing stays fencing */
    if (riders.barrier && barrier(BARRIER_REGISTER_PRIVATE_EXPEDITED) != 0)
        riders.barrier = BARRIER_GLOBAL; /* slow, but it reclaims */
    if (riders_forked)
        riders_unlock();
}

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
__extension__ unsigned short sdtkit_fire_semaphore __attribute__((section(".probes")));

void fire_watched(const struct sdtkit_probe *p, uintptr_t call, const union slot *slots)
{
    STAP_PROBE4(sdtkit, fire, p->pname, p->name, p->nargs, slots);
    ((stub_fn *)call)(slots);
}

void fire_first(const struct sdtkit_probe *p, const union slot *slots)
{
    struct rider *r = rider_new();
    if (r)
        fire_nested(r, p, slots);
}

void fire_nested(struct rider *r, const struct sdtkit_probe *p, const union slot *slots)
{
    const struct sdtkit_probe *outer = r->flying;
    board(r, p);
    if (!riders.barrier) /* no membarrier: fire_quiesce's pair (see the top) */
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
    uintptr_t call = __atomic_load_n(&p->call, __ATOMIC_ACQUIRE);
    if (call)
        call_stub(p, call, slots);
    land(r, outer);
}

/* The values of a probe whose slots they are not (a float, or a
 * big-endian target), put in slots of its own: out of line, so that the
 * direct path needs no stack frame for them.  An unloaded probe's are not
 * converted. */
static __attribute__((noinline)) void fire_converted(const sdtkit_probe *p,
                                                     const sdtkit_value *args)
{
    if (!__atomic_load_n(&p->call, __ATOMIC_RELAXED))
        return;
    union slot slots[SDTKIT_MAX_ARGS];
    for (int i = 0; i < p->nargs; i++)
        put_slot(&slots[i], p->kind[i], &args[i]);
    fire_slots(p, slots);
}

/* Firing reads p and calls the stub, its rider saying p meanwhile; it
 * writes nothing else (see the top). */
void sdtkit_probe_fire(const sdtkit_probe *p, const sdtkit_value *args)
{
    if (!p || (!args && p->nargs > 0))
        return;
    /* A value is 8 bytes, its bits first in the order a little-endian
     * target reads a slot, and a tracer reads only the size the note
     * gives: the values are the slots, but for a float (a double, made
     * one) or on a big-endian target (where a short value goes first). */
    _Static_assert(sizeof(sdtkit_value) == sizeof(union slot), "a value per slot");
    if (p->direct)
        fire_slots(p, (const union slot *)(const void *)args);
    else
        fire_converted(p, args);
}

/* The next argument of ap, of the kind given, after the default
 * promotions, as a value put_slot() stores. */
static sdtkit_value va_value(unsigned kind, va_list *ap)
{
    sdtkit_value v;
    switch (kind) {
    case KIND_U8:
    case KIND_U16:
    case KIND_U32:
        v.u = va_arg(*ap, unsigned);
        break;
    case KIND_POINTER:
        v.p = va_arg(*ap, const void *);
        break;
    case KIND_FLOAT:
    case KIND_DOUBLE:
        v.d = va_arg(*ap, double);
        break;
    default: /* KIND_U64 */
        v.u = va_arg(*ap, uint64_t);
        break;
    }
    return v;
}

void fire_va_copied(const struct sdtkit_probe *p, va_list *ap)
{
    if (!__atomic_load_n(&p->call, __ATOMIC_RELAXED))
        return; /* not loaded: nothing to read */
    union slot slots[SDTKIT_MAX_ARGS];
    for (int i = 0; i < p->nargs; i++) {
        sdtkit_value v = va_value(p->kind[i], ap);
        put_slot(&slots[i], p->kind[i], &v);
    }
    fire_slots(p, slots);
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
