/* SPDX-License-Identifier: MIT */
/*
 * stapsdt.c: libstapsdt's API (<libstapsdt.h>), a thin front end over the
 * native one (<sdtkit.h>).
 *
 * libstapsdt's structures are public and bindings read their members, so
 * each is the first member of a larger one of ours: a provider carries its
 * native provider (libstapsdt's rules: any name, probes of the same name,
 * probes added while loaded) and the strings we own; a probe's list node
 * is the extra bytes of its native probe, in its allocation, which the
 * native API keeps for SDTKIT_RETIRED_PROBES more destroyed probes after
 * its provider's destroy (provider.c): so a binding's stale probe stays,
 * that long, a probe that does nothing.  A binding only ever holds
 * pointers to them.
 *
 * Every call holds the native provider's lock while it reads or writes the
 * provider's state, ours and the native one's; the native provider's it
 * reaches through provider.c's functions alone.
 *
 * Where bindings rely on what libstapsdt returned, this returns it: a
 * provider for any name, 0 from a second providerLoad (which loads the
 * probes added since) and from a second providerUnload (which notes in
 * error that there was nothing to unload).
 */
#include "runtime.h"

#include "../include/libstapsdt.h"

#include <stdio.h>
#include <stdlib.h>

struct compat_provider {
    SDTProvider_t pub; /* first: an SDTProvider_t * is one of these */
    sdtkit_provider *native;
    char *filename; /* what pub._filename was set to */
    char *error;    /* what pub.error was set to */
};

static struct compat_provider *compat(SDTProvider_t *p) { return (struct compat_provider *)p; }

/* A probe's list node: the extra bytes of its native probe. */
enum {
    NODE_SIZE = sizeof(SDTProbeList_t)
};

static SDTProbeList_t *node_of(SDTProbe_t *probe) { return (SDTProbeList_t *)(void *)probe; }

static struct sdtkit_probe *native_of(SDTProbe_t *probe)
{
    return (struct sdtkit_probe *)(void *)((char *)node_of(probe) - PROBE_EXTRA);
}

static SDTProbe_t *probe_of(struct sdtkit_probe *p)
{
    return &((SDTProbeList_t *)(void *)((char *)p + PROBE_EXTRA))->probe;
}

/* The errno member, whatever <errno.h> made of the name. */
#pragma push_macro("errno")
#undef errno
static void set_errno(SDTProvider_t *p, SDTError_t code) { p->errno = code; }
#pragma pop_macro("errno")

/* Set the error members: code and message (NULL for none). */
static void set_error(struct compat_provider *cp, SDTError_t code, const char *msg)
{
    free(cp->error);
    cp->error = msg ? strdup(msg) : NULL;
    set_errno(&cp->pub, code);
    cp->pub.error = cp->error;
}

SDTProvider_t *providerInit(const char *name)
{
    struct compat_provider *cp = calloc(1, sizeof *cp);
    if (!cp)
        return NULL;
    if (provider_create(name, true, &cp->native) != SDTKIT_OK || !(cp->pub.name = strdup(name))) {
        sdtkit_provider_destroy(cp->native);
        free(cp);
        return NULL;
    }
    set_errno(&cp->pub, noError);
    cp->pub._memfd = -1;
    cp->pub._use_memfd = memfd_enabled;
    return &cp->pub;
}

int providerUseMemfd(SDTProvider_t *provider, const MemFDOption_t use_memfd)
{
    if (!provider || (use_memfd != memfd_enabled && use_memfd != memfd_disabled))
        return 0;
    struct sdtkit_provider *pv = compat(provider)->native;
    provider_call_begin(pv);
    int applied = provider_prefer_file_locked(pv, use_memfd == memfd_disabled);
    if (applied)
        provider->_use_memfd = use_memfd;
    provider_call_end(pv);
    return applied;
}

SDTProbe_t *providerAddProbe(SDTProvider_t *provider, const char *name, int argCount, ...)
{
    if (!provider)
        return NULL;
    struct compat_provider *cp = compat(provider);
    int types[MAX_ARGUMENTS];
    char msg[160];
    SDTProbe_t *probe = NULL;
    provider_call_begin(cp->native);
    if (argCount < 0 || argCount > MAX_ARGUMENTS) {
        snprintf(msg, sizeof msg, "probe '%s': %d arguments (0 to %d)", name ? name : "(null)",
                 argCount, MAX_ARGUMENTS);
        set_error(cp, elfCreationError, msg);
        goto done;
    }
    va_list ap;
    va_start(ap, argCount);
    for (int i = 0; i < argCount; i++)
        types[i] = va_arg(ap, int);
    va_end(ap);
    for (int i = 0; i < argCount; i++) {
        int t = types[i];
        if (t != uint8 && t != int8 && t != uint16 && t != int16 && t != uint32 && t != int32 &&
            t != uint64 && t != int64) {
            snprintf(msg, sizeof msg, "probe '%s': argument %d has the unknown type %d",
                     name ? name : "(null)", i + 1, t);
            set_error(cp, elfCreationError, msg);
            goto done;
        }
    }
    struct sdtkit_probe *native;
    if (provider_add_probe_locked(cp->native, name, types, NULL, argCount, NODE_SIZE, &native) !=
        SDTKIT_OK) {
        set_error(cp, elfCreationError, provider_failure_locked(cp->native)->msg);
        goto done;
    }
    probe = probe_of(native);
    probe->name = (char *)sdtkit_probe_name(native);
    for (int i = 0; i < argCount; i++)
        probe->argFmt[i] = (ArgType_t)types[i];
    probe->argCount = argCount;
    probe->provider = provider;
    node_of(probe)->next = provider->probes;
    provider->probes = node_of(probe);
done:
    provider_call_end(cp->native);
    return probe;
}

/* Each probe's _fire: its stub while loaded, else NULL.  Locked. */
static void set_fire(SDTProvider_t *provider, bool loaded)
{
    for (SDTProbeList_t *n = provider->probes; n; n = n->next) {
        uintptr_t stub = loaded ? probe_stub(native_of(&n->probe)) : 0;
        __atomic_store_n(&n->probe._fire, (void *)stub, __ATOMIC_RELEASE);
    }
}

int providerLoad(SDTProvider_t *provider)
{
    if (!provider)
        return -1;
    struct compat_provider *cp = compat(provider);
    struct sdtkit_provider *pv = cp->native;
    provider_call_begin(pv);
    int rc = 0;
    struct loaded l;
    if (provider_current_locked(pv)) {
        /* loaded, and nothing added since: as libstapsdt, success */
    } else if (provider_load_locked(pv) != SDTKIT_OK) {
        const struct failure *f = provider_failure_locked(pv);
        set_error(cp,
                  f->stage == STAGE_DLOPEN ? sharedLibraryOpenError
                  : f->stage == STAGE_FILE ? tmpCreationError
                                           : elfCreationError,
                  f->msg);
        /* a loaded provider stays loaded, with the probes it had: their
         * _fire and the members stay as they were */
        set_fire(provider, true);
        rc = -1;
    } else if (provider_loaded_locked(pv, &l)) {
        free(cp->filename);
        cp->filename = strdup(l.path);
        provider->_filename = cp->filename;
        provider->_handle = l.handle;
        provider->_memfd = l.fd;
        set_fire(provider, true);
        /* loaded; a probe that is not an LTTng event says why (lttng.c) */
        char why[512];
        set_error(cp, noError, lttng_call_problem(why, sizeof why) ? why : NULL);
    }
    provider_call_end(pv);
    return rc;
}

int providerUnload(SDTProvider_t *provider)
{
    if (!provider)
        return -1;
    struct compat_provider *cp = compat(provider);
    struct sdtkit_provider *pv = cp->native;
    provider_call_begin(pv);
    set_fire(provider, false);
    if (provider_unload_locked(pv) != SDTKIT_OK) {
        /* libstapsdt returned 0: a binding toggling tracing relies on it */
        set_error(cp, noError, provider_failure_locked(pv)->msg);
    } else {
        set_error(cp, noError, NULL);
    }
    /* a binding may have set _filename to NULL (or its own string) first */
    if (provider->_filename == cp->filename)
        provider->_filename = NULL;
    free(cp->filename);
    cp->filename = NULL;
    provider->_handle = NULL;
    provider->_memfd = -1;
    provider_call_end(pv);
    return 0;
}

void providerDestroy(SDTProvider_t *provider)
{
    if (!provider)
        return;
    struct compat_provider *cp = compat(provider);
    provider_call_begin(cp->native);
    set_fire(provider, false);
    for (SDTProbeList_t *n = provider->probes; n; n = n->next)
        n->probe.provider = NULL; /* freed below; the probe stays */
    provider_call_end(cp->native);
    sdtkit_provider_destroy(cp->native);
    free(provider->name);
    free(cp->filename);
    free(cp->error);
    free(cp);
}

void probeFire(SDTProbe_t *probe, ...)
{
    if (!probe)
        return;
    va_list ap;
    va_start(ap, probe);
    probe_fire_va(native_of(probe), &ap);
    va_end(ap);
}

/* On x86-64, what libstapsdt tested: an int3 in place of the stub's nop.
 * Every tracer there traps on the probe with one (a uprobe, with or
 * without a semaphore, and gdb's breakpoints), and a fire reaches a
 * tracer exactly while it is there: so it is the whole test, at
 * libstapsdt's cost (its semaphore, raised a moment before the int3
 * lands, would only say so earlier).  The byte is read through the
 * native probe's trap, which is the stub (what _fire points at) while
 * loaded, and an int3 of lttng.c's while LTTng-UST records the probe.
 * Elsewhere, the semaphore, which every tracer raises while attached
 * (and lttng.c points at a one while LTTng records the probe). */
int probeIsEnabled(SDTProbe_t *probe)
{
    if (!probe)
        return 0;
#if defined __x86_64__
    return *__atomic_load_n(&native_of(probe)->trap, __ATOMIC_ACQUIRE) == 0xcc;
#else
    return sdtkit_probe_enabled(native_of(probe));
#endif
}
