/* SPDX-License-Identifier: MIT */
/*
 * fire.c: firing a probe and testing it, which take no lock and write
 * nothing shared between threads (see the contract at the top of
 * provider.c), and publishing a probe's stub and semaphore for them.
 */
#include "runtime.h"

/* sdtkit:fire, the library's own probe (below), has a semaphore. */
#define _SDT_HAS_SEMAPHORES 1
#include "../include/sys/sdt.h"

const volatile unsigned short probe_zero_semaphore = 0;

void probe_publish(struct sdtkit_probe *p, uintptr_t stub, const volatile unsigned short *sem)
{
    p->stub = stub;
    uintptr_t call = stub;
#if defined __powerpc64__ && (!defined _CALL_ELF || _CALL_ELF == 1)
    p->descriptor[0] = stub; /* the stub uses no TOC */
    call = (uintptr_t)p->descriptor;
#endif
    __atomic_store_n(&p->semaphore, sem, __ATOMIC_RELEASE);
    __atomic_store_n(&p->call, call, __ATOMIC_RELEASE);
}

void probe_unpublish(struct sdtkit_probe *p)
{
    __atomic_store_n(&p->call, 0, __ATOMIC_RELEASE);
    __atomic_store_n(&p->semaphore, &probe_zero_semaphore, __ATOMIC_RELEASE);
}

uintptr_t probe_stub(const struct sdtkit_probe *p)
{
    return __atomic_load_n(&p->call, __ATOMIC_ACQUIRE) ? p->stub : 0;
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
