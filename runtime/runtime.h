/* SPDX-License-Identifier: MIT */
/*
 * runtime.h: what the run-time probe library's files share, one section
 * per file.  Each file calls only the files below it in this list, and
 * fire.c and lttng.c, which call none of them (they are what every layer
 * fires through):
 *
 *   stapsdt.c    libstapsdt's API (<libstapsdt.h>) on the native one
 *   provider.c   the native API (<sdtkit.h>): providers, their probes and
 *                their lifecycle; calls on providers and fork
 *   object.c     objects: the shared objects providers' probes are loaded
 *                into, written by the core (lib/dso.c) for the target
 *                this library was loaded as
 *   place.c      where an object lives: an executable memory file, or a
 *                named file in a directory mounted exec, loaded with dlopen
 *   failure.c    how a failure is reported
 *
 *   fire.c       firing and is-enabled, which take no lock
 *   lttng.c      every probe an LTTng-UST event too, when liblttng-ust
 *                is in the process (found with dlopen, never linked)
 *
 * fire.c and lttng.c call each other and none of the others: fire.c
 * publishes a probe through lttng.c, which puts LTTng-UST's trampoline
 * in the stub's place while the probe is an LTTng event; lttng.c reads
 * fire.c's riders and flights.
 *
 * Nothing here prints or exits.  One way to report a failure: a function
 * that can fail returns 0 (or a descriptor) or a negative SDTKIT_E_*
 * status and, when it fails, says why in the struct failure its caller
 * passed (fail(), fail_attempt()); early returns while nothing needs
 * releasing, then one cleanup label.
 *
 * Words used throughout, once:
 *
 *   object     a shared object the library writes and loads, holding the
 *              probes of one or more providers
 *   slot       one stub and one semaphore of an object: free (never a
 *              probe's in the object's file), held (a provider's probe's)
 *              or dead (was a probe's: no other's while the file lives)
 *   tenant     a provider's place in an object: the probes holding slots
 *              there; lodging a provider puts its probes in an object
 *   shown, hidden  a probe's note, as tracers that read it see it or not
 *   renew      give an idle object (no slot held) a new file at the same
 *              addresses, its slots all free
 *   shared     an object's file after fork: both processes map it, and
 *              neither writes it
 *   rider      a thread's record of the probe it is firing; boarding and
 *              landing set and clear it
 *   flights    a snapshot of the riders, taken by fire_quiesce() after
 *              every thread's stores were made visible
 *   retired    the probes of destroyed providers, kept inert for a while
 */
#ifndef SDTKIT_RUNTIME_H
#define SDTKIT_RUNTIME_H

#include "../include/sdtkit.h"
#include "../lib/core.h"

#include <pthread.h>
#include <stdarg.h>

/* ---- failure.c: why a call failed ---- */

/* What failed in a load, for libstapsdt's SDTError_t. */
enum load_stage {
    STAGE_NONE,
    STAGE_OBJECT, /* writing the object */
    STAGE_FILE,   /* making a file for it */
    STAGE_DLOPEN, /* loading it */
};

/* Why a call failed: the status it returns, the stage of a load, the
 * errno of the last attempt (0: none), and the message (what was tried,
 * and why it failed). */
struct failure {
    int status;
    enum load_stage stage;
    int err;
    char msg[512];
};

/* Record in f that the call fails with status at stage, msg (printf);
 * return status. */
int fail(struct failure *f, int status, enum load_stage stage, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Append "what: why" to f's message, after those appended before (the
 * attempts of a load that tried several places), and record status,
 * stage and err (an errno, or 0); return status. */
int fail_attempt(struct failure *f, int status, enum load_stage stage, int err, const char *what,
                 const char *why);
/* Forget f's failure: status 0, no message. */
void fail_clear(struct failure *f);

/* ---- provider.c: a probe, as fire.c and object.c see it ---- */

/* How firing reads an argument and puts it in its slot: the types that
 * read and store alike, as one dense range (a jump table, not a tree of
 * comparisons over enum sdtkit_type's sparse values). */
enum arg_kind {
    KIND_U64,
    KIND_U32,
    KIND_U16,
    KIND_U8,
    KIND_POINTER,
    KIND_FLOAT,
    KIND_DOUBLE
};

/* What lttng.c keeps in a probe (written under its lock). */
struct probe_lttng {
    struct lttng_event *ev; /* the LTTng event it fires, or NULL; read by its trampoline */
    /* While published: its own call and semaphore, for which the
     * trampoline and the gates stand in (lttng.c). */
    uintptr_t call;
    const volatile unsigned short *semaphore;
    bool published;
    struct sdtkit_probe *prev, *next; /* in its event's published probes, or the dormant */
};

/* A probe, in an allocation that starts with it: the library's bytes up to
 * PROBE_EXTRA, a front end's extra bytes (libstapsdt's SDTProbeList_t),
 * the names.  Kept, inert, for a while after its provider is destroyed
 * (see provider.c). */
struct sdtkit_probe {
    /* First, as <sdtkit.h> promises: the semaphore, or a zero of ours.
     * Written under lttng.c's lock, read by anyone (atomically). */
    const volatile unsigned short *semaphore;
    /* The stub to call, as an address (0 when not loaded), atomically. */
    uintptr_t call;
    /* The byte libstapsdt's is-enabled tests on x86-64 (an int3 there
     * while a tracer is on the stub): the stub, a byte of lttng.c's while
     * LTTng records the probe, a zero while not loaded; atomically. */
    const volatile unsigned char *trap;
    uintptr_t stub; /* the stub's code (the same as call but on ppc64 ELFv1) */
#if defined __powerpc64__ && (!defined _CALL_ELF || _CALL_ELF == 1)
    /* ELFv1 calls through a function descriptor: entry, TOC, environment. */
    uintptr_t descriptor[3];
#endif
    /* Set when added, then read-only: */
    const char *pname; /* the provider's name, a copy that lives as long */
    char *name;
    int nargs;
    unsigned char kind[SDTKIT_MAX_ARGS]; /* enum arg_kind: how fire reads it */
    signed char size[SDTKIT_MAX_ARGS];   /* in the note: 1, 2, 4, 8, negative when signed */
    signed char type[SDTKIT_MAX_ARGS];   /* enum sdtkit_type, as added */
    const char *argnames; /* "a\0b\0...": one per argument, or NULL (LTTng's field names) */
    bool direct;          /* the values are the slots as they are (see sdtkit_probe_fire) */
    bool all_u64;         /* every argument is KIND_U64: probe_fire_va's fast path */
    uint32_t slot;        /* in its provider's object (object.c's) */
    struct sdtkit_probe *next_retired; /* once its provider is destroyed */
    struct probe_lttng lt;             /* lttng.c's */
};

/* ---- provider.c, for stapsdt.c ---- */

/* A provider; lax: libstapsdt's rules: any name, probes of the same name,
 * probes added while loaded (they fire once it is loaded again). */
int provider_create(const char *name, bool lax, struct sdtkit_provider **out);
/* A call on the provider, which every function below needs (but
 * create): begin passes fork's gate and takes the provider's lock; end
 * keeps the calling thread's copy of its message up to date (see
 * sdtkit_provider_error), then lets both go. */
void provider_call_begin(struct sdtkit_provider *pv);
void provider_call_end(struct sdtkit_provider *pv);
/* Where the extra bytes of a probe begin. */
#define PROBE_EXTRA align_up(sizeof(struct sdtkit_probe), _Alignof(max_align_t))
/* Add a probe with `extra' bytes after it in its allocation (at
 * PROBE_EXTRA), which never moves; argnames: its arguments' names, or
 * NULL. */
int provider_add_probe_locked(struct sdtkit_provider *pv, const char *name, const int *types,
                              const char *const *argnames, int nargs, size_t extra,
                              struct sdtkit_probe **out);
/* Load (a loaded provider is loaded again when probes were added since),
 * unload. */
int provider_load_locked(struct sdtkit_provider *pv);
int provider_unload_locked(struct sdtkit_provider *pv);
/* Loaded, with every probe added so far. */
bool provider_current_locked(const struct sdtkit_provider *pv);
/* Ask for a named file (true) or a memory file (false) for the next load:
 * false when loaded (nothing changes). */
bool provider_prefer_file_locked(struct sdtkit_provider *pv, bool prefer);
/* The loaded object: its path, dlopen handle and descriptor; false when
 * not loaded. */
struct loaded {
    const char *path;
    void *handle;
    int fd;
};
bool provider_loaded_locked(struct sdtkit_provider *pv, struct loaded *out);
/* The failure of the provider's last failed call. */
const struct failure *provider_failure_locked(const struct sdtkit_provider *pv);

/* ---- object.c, for provider.c ---- */

struct object;

/* A provider's place in an object: object.c's alone (provider.c only
 * embeds it, zeroed).  held is object.c's own copy of the probes that
 * hold slots in obj, taken when they were lodged: nothing here points
 * into the provider's storage, which its later calls may move. */
struct tenant {
    struct object *obj;         /* its object, or NULL */
    struct sdtkit_probe **held; /* the probes holding slots in obj, nheld of them */
    size_t nheld;
    bool shown;          /* its notes say NT_STAPSDT: tracers see its probes */
    struct tenant *next; /* obj's tenants */
};

/* What a provider asks of a load: its name, its probes now (read during
 * the call alone; the first nheld are the tenant's held probes, in the
 * same order), and the kind of file. */
struct lodging {
    const char *name;
    struct sdtkit_probe *const *probes;
    size_t nprobes;
    bool named;      /* in a named file */
    const char *dir; /* of the named file, or NULL: the candidates */
};

/* Put the probes of l in an object, show them to tracers and publish
 * them: in t's own object when they fit, else in another with room, else
 * in a renewed or a new one.  On failure t is as it was (a loaded
 * provider stays loaded, with what it had). */
int object_lodge(struct tenant *t, const struct lodging *l, struct failure *why);
/* Unpublish t's probes and hide them from tracers that read the object
 * again; they keep their slots. */
void object_hide(struct tenant *t);
/* t gives its slots up (t->obj NULL): they go to no other probe while
 * their file lives (see object.c). */
void object_leave(struct tenant *t);
/* fork: in both processes, every object's file is now shared with
 * another process; in the child, the loader's list names its own
 * descriptors. */
void object_forked(bool child);
/* t's object: its path for this process (into buf), handle, descriptor. */
void object_describe(const struct tenant *t, char *buf, size_t len, struct loaded *out);

/* ---- place.c, for object.c ---- */

struct link_map; /* <link.h>'s */

/* Where an object lives and how it is loaded (place.c fills it). */
struct placement {
    void *handle;
    int fd;
    bool named;           /* a file of ours on disk (perf's mode, or no memory file) */
    char *dir;            /* named: its directory */
    uintptr_t base;       /* where it is loaded */
    struct link_map *map; /* the loader's entry for it */
    char *name;           /* our copy of its path in the loader's entry, or NULL */
    char *loader_name;    /* the loader's own, once ours replaced it */
    char path[4096];      /* the named file (empty for a memory file) */
    /* a fork's child's path of a memory file, written in fork's child
     * handler, which must not allocate (the allocator's locks may be
     * held by a thread that is not in the child: ASan's are): two, so
     * that the one the loader's list names is never rewritten */
    char forked[2][48];
    int forked_next;
};

/* buf[0..size) at offset off of a file. */
struct piece {
    const void *buf;
    uint64_t size, off;
};

/* A segment of a loaded object: [base + vaddr, + size) mapped from off,
 * with prot (PROT_*). */
struct segment {
    uint64_t vaddr, size, off;
    int prot;
};

/* Put an object, its pieces, in a new file that can be mapped executable
 * and load it, filling pl.  named: a named file (in dir, or the first
 * candidate); else a memory file when the kernel gives one, else a named
 * file.  id: its build-id's DSO_BUILD_ID_SIZE bytes, at id_at in the
 * loaded object, which no other object has.  0, or SDTKIT_E_LOAD with the
 * reasons of every attempt in why (for the provider called pname). */
int place_object(const char *pname, bool named, const char *dir, const struct piece *pieces,
                 size_t n, const unsigned char *id, uint64_t id_at, struct placement *pl,
                 struct failure *why);
/* Give pl's object a new file of the same kind, its pieces, mapped at the
 * same addresses (segs; old: the same from the current file): 0, or
 * SDTKIT_E_LOAD with pl as it was, or, when even that could not be had
 * (*torn), with pl half in each file. */
int place_renew(struct placement *pl, const struct piece *pieces, size_t n,
                const struct segment *segs, const struct segment *old, size_t nsegs, bool *torn,
                struct failure *why);
/* Write buf[0..size) at offset off of pl's file: 0, or SDTKIT_E_LOAD. */
int place_write(const struct placement *pl, const void *buf, size_t size, uint64_t off,
                struct failure *why);
/* The path of pl for this process, into buf (a memory file's, through
 * this process's descriptor). */
const char *place_path(const struct placement *pl, char *buf, size_t len);
/* In a child of fork: the loader's list names pl's memory file by this
 * process's descriptor (its parent's may name another file by now). */
void place_forked(struct placement *pl);

/* ---- fire.c ---- */

/* The stub's calling convention: called with the argument slots. */
typedef void stub_fn(const void *slots);

/* What an unloaded probe's semaphore and trap byte read. */
extern const volatile unsigned short probe_zero_semaphore;
extern const volatile unsigned char probe_zero_trap;

/* Point p at its stub and semaphore, or at nothing: through lttng.c,
 * which may put LTTng-UST's trampoline and gates in their place. */
void probe_publish(struct sdtkit_probe *p, uintptr_t stub, const volatile unsigned short *sem);
void probe_unpublish(struct sdtkit_probe *p);
/* p's stub while published, else 0 (acquire). */
uintptr_t probe_stub(const struct sdtkit_probe *p);

/* Store what fire and is-enabled read of p (release stores): a call
 * after the gates it goes with, none before them. */
static inline void probe_store(struct sdtkit_probe *p, uintptr_t call,
                               const volatile unsigned short *sem,
                               const volatile unsigned char *trap)
{
    if (!call)
        __atomic_store_n(&p->call, call, __ATOMIC_RELEASE);
    __atomic_store_n(&p->trap, trap, __ATOMIC_RELEASE);
    __atomic_store_n(&p->semaphore, sem, __ATOMIC_RELEASE);
    if (call)
        __atomic_store_n(&p->call, call, __ATOMIC_RELEASE);
}

/* A thread's record: the probe it is firing, or NULL.  Each in a cache
 * line of its own (128 bytes: the largest line, or pair of lines, a
 * processor fetches together), so that threads firing at once do not
 * write one line. */
enum {
    RIDER_ALIGN = 128
};
struct rider {
    const struct sdtkit_probe *flying; /* its thread's stores, the others' loads */
    bool taken;                        /* by a live thread */
    struct rider *next;                /* every rider */
};

/* A pthread key: the library's per-thread blocks that need freeing when
 * their thread ends. */
struct thread_key {
    pthread_key_t key;
    bool keyed; /* made (else every thread's value reads NULL) */
};
/* Make k (a constructor's work), its destructor dtor; delete it (a
 * destructor's: no thread's end may call into an unloaded library). */
void thread_key_begin(struct thread_key *k, void (*dtor)(void *))
    __attribute__((visibility("hidden")));
void thread_key_end(struct thread_key *k) __attribute__((visibility("hidden")));

/* This thread's rider, NULL until its first fire (and again once its
 * thread's end gave it back through fire_key's destructor).
 *
 * A thread-local variable, never initial-exec (a dlopen would then fail
 * where static TLS is short).  Where the compiler reaches it through a TLS
 * descriptor (x86 with -mtls-dialect=gnu2, which the Makefile gives the
 * compilers that take it; AArch64's default), reading it is a call to a
 * function of the dynamic loader that preserves every register, and a
 * load where the loader gave the variable static TLS, which glibc gives
 * a library loaded by dlopen only from the part it keeps for that; the
 * library then needs no __tls_get_addr, nor the loader among its
 * libraries.  Elsewhere it is a call to __tls_get_addr, no dearer than
 * pthread_getspecific.  glibc before 2.40 (bug 31372) let that function's
 * slow path, which allocates a thread's dynamic TLS, change the vector
 * registers: no floating-point value is held in one across a read. */
extern _Thread_local struct rider *fire_rider __attribute__((visibility("hidden")));

/* Gives a thread's rider back when the thread ends; without a key no
 * thread has a rider, and fire does nothing. */
extern struct thread_key fire_key __attribute__((visibility("hidden")));

/* This thread's rider, registered at its first fire; NULL out of memory
 * (then it does not fire). */
struct rider *rider_new(void) __attribute__((cold, visibility("hidden")));

/* r says p, before p is read: a compiler barrier keeps the store first,
 * and fire_quiesce's membarrier orders it for the processor. */
static inline __attribute__((always_inline)) void board(struct rider *r,
                                                        const struct sdtkit_probe *p)
{
    __atomic_store_n(&r->flying, p, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}

/* r says outer again, once the stub has returned. */
static inline __attribute__((always_inline)) void land(struct rider *r,
                                                       const struct sdtkit_probe *outer)
{
    __atomic_store_n(&r->flying, outer, __ATOMIC_RELEASE);
}

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

/* sdtkit:fire's semaphore, and the probe, then the stub (fire.c). */
extern unsigned short sdtkit_fire_semaphore __attribute__((visibility("hidden")));
void fire_watched(const struct sdtkit_probe *p, uintptr_t call, const union slot *slots)
    __attribute__((cold, visibility("hidden")));

/* Call p's stub with its slots, through sdtkit:fire when watched (out of
 * line, so that nothing of the fire but its rider outlives a call). */
static inline __attribute__((always_inline)) void call_stub(const struct sdtkit_probe *p,
                                                            uintptr_t call, const union slot *slots)
{
    if (__builtin_expect(sdtkit_fire_semaphore, 0))
        fire_watched(p, call, slots);
    else
        ((stub_fn *)call)(slots);
}

/* fire_slots() of a fire inside another fire of the same thread (a
 * signal handler's): r says the outer probe again once the inner has
 * landed (fire.c). */
void fire_nested(struct rider *r, const struct sdtkit_probe *p, const union slot *slots)
    __attribute__((cold, visibility("hidden")));
/* fire_slots() of a thread's first fire, which registers its rider. */
void fire_first(const struct sdtkit_probe *p, const union slot *slots)
    __attribute__((cold, visibility("hidden")));

/* The core of every fire, inline in each API's function: fire p, its
 * arguments in slots, while this thread's rider says p (see fire.c's
 * top).  p->call is read after boarding, never before: the read that
 * decides.  A rider that says nothing lands back on nothing, so that only
 * the rider is kept across the stub's call (a fire inside a fire, which
 * must restore what its rider said, is fire_nested's). */
static inline __attribute__((always_inline)) void fire_slots(const struct sdtkit_probe *p,
                                                             const union slot *slots)
{
    struct rider *r = fire_rider;
    if (__builtin_expect(r == NULL, 0)) {
        fire_first(p, slots);
        return;
    }
    if (__builtin_expect(r->flying != NULL, 0)) { /* only this thread writes it */
        fire_nested(r, p, slots);
        return;
    }
    board(r, p);
    uintptr_t call = __atomic_load_n(&p->call, __ATOMIC_ACQUIRE);
    if (call)
        call_stub(p, call, slots);
    land(r, NULL);
}

/* Fire p, its arguments read from ap in their declared types after the
 * default promotions into slots of its own: out of line (fire.c), where
 * they are not in place. */
void fire_va_copied(const struct sdtkit_probe *p, va_list *ap)
    __attribute__((noinline, visibility("hidden")));

/* Fire p, with its arguments read from ap (sdtkit_probe_firev, probeFire). */
static inline __attribute__((always_inline)) void probe_fire_va(const struct sdtkit_probe *p,
                                                                va_list *ap)
{
#if defined __x86_64__ && defined __LP64__
    /* x86-64: the psABI's va_list (System V AMD64 psABI, 3.5.7) points at
     * the register save area, where a variadic function's prologue stored
     * the six integer argument registers in order, 8 bytes each, and
     * gp_offset is where the next va_arg of an integer reads in it.  A
     * probe whose arguments are all 8-byte integers, passed in the
     * registers left, has its slots there as they are.  The empty asm
     * takes ap's address, which tells GCC that ap escapes: it stores the
     * registers and fills ap only as far as the va_args it sees need. */
    __asm__("" : : "r"(*ap));
    unsigned next = (*ap)->gp_offset;
    if (p->all_u64 && next + 8u * (unsigned)p->nargs <= 48u) {
        fire_slots(p,
                   (const union slot *)(const void *)((const char *)(*ap)->reg_save_area + next));
        return;
    }
#endif
    fire_va_copied(p, ap);
}

/* The probes threads are firing, as fire_quiesce() saw them. */
struct flights {
    const struct sdtkit_probe **probes;
    size_t n;
};
/* After probes were unpublished: a snapshot of the probes being fired,
 * after which every other fire of those probes sees them unpublished.
 * 0, or -1 where the system has no membarrier(2) (or out of memory):
 * nothing unpublished may then be reused or freed. */
int fire_quiesce(struct flights *f);
/* A thread was firing p when f was taken (it may still be). */
bool fire_flying(const struct flights *f, const struct sdtkit_probe *p);
void fire_landed(struct flights *f);
/* fork: the riders' lock held across it; in the child, the riders of
 * the threads that are not there freed. */
void fire_fork_prepare(void);
void fire_fork_parent(void);
void fire_fork_child(void);

/* ---- lttng.c ---- */

/* Publish p (probe_publish's work: call is its stub's, as fire calls it):
 * its call, semaphore and trap byte, or LTTng-UST's trampoline and gates
 * in their place while p is an LTTng event; unpublish it.  Every store
 * to what fire and is-enabled read of p is made here, under lttng.c's
 * lock, which is taken inside every other lock of the library. */
void lttng_publish(struct sdtkit_probe *p, uintptr_t call, const volatile unsigned short *sem);
void lttng_unpublish(struct sdtkit_probe *p);
/* The n probes of a destroyed provider are retired (unpublished): they
 * no longer hold their LTTng events, which lttng.c's thread unregisters
 * once no probe holds them and it saw no thread firing them. */
void lttng_retire(struct sdtkit_probe *const *probes, size_t n);
/* At the end of each call, inside it (fork waits for it: it reads the
 * loader's list, whose lock a child of fork would inherit held) but out
 * of the provider's lock: notice liblttng-ust loaded since (load: load
 * it, for sdtkit_lttng_enable).  0 when LTTng-UST is in use, else
 * SDTKIT_E_UNSUPPORTED. */
int lttng_look(bool load);
/* After each call, outside every lock of the library: wait until the
 * LTTng events the call made are registered (so that a load that
 * returned records). */
void lttng_settle(void);
/* Whether this thread's calls met a probe that could not be an LTTng
 * event (or another failure) since it last asked; the last one's text in
 * buf (libstapsdt's providerLoad says it in the provider's error). */
bool lttng_call_problem(char *buf, size_t len);
/* sdtkit_lttng_status()'s answer: a copy for the calling thread. */
const char *lttng_status(void);
/* fork (inside provider.c's handlers, after the calls have ended). */
void lttng_fork_prepare(void);
void lttng_fork_parent(void);
void lttng_fork_child(void);

#endif
