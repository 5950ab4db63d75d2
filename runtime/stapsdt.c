/* SPDX-License-Identifier: MIT */
/*
 * stapsdt.c: libstapsdt's API (<libstapsdt.h>), a thin front end over the
 * native one (<sdtkit.h>).
 *
 * libstapsdt's structures are public and bindings read their members, so
 * each is the first member of a larger one of ours: a provider carries its
 * native provider and the strings we own, a probe (inside the list node
 * libstapsdt allocated for it) its native probe.  A binding only ever holds
 * pointers to them, so the rest stays ours.
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

struct compat_probe {
    SDTProbeList_t node; /* first: an SDTProbe_t * is one of these */
    sdtkit_probe *native;
};

static struct compat_provider *compat(SDTProvider_t *p) { return (struct compat_provider *)p; }

/* As native probes (provider.c), a destroyed provider's probes stay valid
 * and inert (_fire NULL) for bindings that still hold them, until a probe
 * with as many arguments reuses them. */
static struct {
    pthread_mutex_t lock;
    struct compat_probe *free[MAX_ARGUMENTS + 1];
} pool = {PTHREAD_MUTEX_INITIALIZER, {NULL}};

static struct compat_probe *pool_take(int argc)
{
    pthread_mutex_lock(&pool.lock);
    struct compat_probe *n = pool.free[argc];
    if (n)
        pool.free[argc] = (struct compat_probe *)n->node.next;
    pthread_mutex_unlock(&pool.lock);
    return n;
}

static void pool_put(struct compat_probe *n)
{
    int argc = n->node.probe.argCount;
    pthread_mutex_lock(&pool.lock);
    struct compat_probe *head = pool.free[argc];
    n->node.next = head ? &head->node : NULL;
    pool.free[argc] = n;
    pthread_mutex_unlock(&pool.lock);
}

/* Set the error members: code and message (NULL for noError). */
static void set_error(struct compat_provider *cp, SDTError_t code, const char *msg)
{
    free(cp->error);
    cp->error = msg ? strdup(msg) : NULL;
    cp->pub.errno_code = code;
    cp->pub.error = cp->error;
}

SDTProvider_t *providerInit(const char *name)
{
    struct compat_provider *cp = calloc(1, sizeof *cp);
    if (!cp)
        return NULL;
    if (sdtkit_provider_create(name, &cp->native) != SDTKIT_OK || !(cp->pub.name = strdup(name))) {
        sdtkit_provider_destroy(cp->native);
        free(cp);
        return NULL;
    }
    cp->pub.errno_code = noError;
    cp->pub._handle = cp->native;
    cp->pub._memfd = -1;
    cp->pub._use_memfd = memfd_enabled;
    return &cp->pub;
}

int providerUseMemfd(SDTProvider_t *provider, const MemFDOption_t use_memfd)
{
    if (!provider || sdtkit_provider_path(compat(provider)->native) ||
        (use_memfd != memfd_enabled && use_memfd != memfd_disabled))
        return 0;
    provider->_use_memfd = use_memfd;
    compat(provider)->native->prefer_file = use_memfd == memfd_disabled;
    return 1;
}

static SDTProbe_t *add_probe(struct compat_provider *cp, const char *name, int argc, va_list ap)
{
    int types[MAX_ARGUMENTS];
    char msg[160];
    if (argc < 0 || argc > MAX_ARGUMENTS) {
        snprintf(msg, sizeof msg, "probe '%s': %d arguments (0 to %d)", name ? name : "(null)",
                 argc, MAX_ARGUMENTS);
        set_error(cp, elfCreationError, msg);
        return NULL;
    }
    for (int i = 0; i < argc; i++)
        types[i] = va_arg(ap, int);
    for (int i = 0; i < argc; i++) {
        int t = types[i];
        if (t != uint8 && t != int8 && t != uint16 && t != int16 && t != uint32 && t != int32 &&
            t != uint64 && t != int64) {
            snprintf(msg, sizeof msg, "probe '%s': argument %d has the unknown type %d",
                     name ? name : "(null)", i + 1, t);
            set_error(cp, elfCreationError, msg);
            return NULL;
        }
    }
    char *copy = name ? strdup(name) : NULL;
    struct compat_probe *node = copy ? pool_take(argc) : NULL;
    bool reused = node != NULL;
    if (!node && copy)
        node = calloc(1, sizeof *node);
    if (!node) {
        free(copy);
        set_error(cp, elfCreationError, name ? "out of memory" : "probe of no name (NULL)");
        return NULL;
    }
    sdtkit_probe *native;
    int rc = sdtkit_provider_add_probe(cp->native, name, types, argc, &native);
    if (rc != SDTKIT_OK) {
        set_error(cp, elfCreationError, sdtkit_provider_error(cp->native));
        free(copy);
        if (reused)
            pool_put(node); /* as it was: inert, argCount == argc */
        else
            free(node);
        return NULL;
    }
    if (reused)
        free(node->node.probe.name);
    node->native = native;
    SDTProbe_t *p = &node->node.probe;
    p->name = copy;
    for (int i = 0; i < argc; i++)
        p->argFmt[i] = (ArgType_t)types[i];
    p->argCount = argc;
    p->provider = &cp->pub;
    node->node.next = cp->pub.probes;
    cp->pub.probes = &node->node;
    return p;
}

SDTProbe_t *providerAddProbe(SDTProvider_t *provider, const char *name, int argCount, ...)
{
    if (!provider)
        return NULL;
    va_list ap;
    va_start(ap, argCount);
    SDTProbe_t *p = add_probe(compat(provider), name, argCount, ap);
    va_end(ap);
    return p;
}

int providerLoad(SDTProvider_t *provider)
{
    if (!provider)
        return -1;
    struct compat_provider *cp = compat(provider);
    int rc = sdtkit_provider_load(cp->native);
    if (rc != SDTKIT_OK) {
        enum load_stage stage = cp->native->stage;
        set_error(cp,
                  stage == STAGE_DLOPEN ? sharedLibraryOpenError
                  : stage == STAGE_FILE ? tmpCreationError
                                        : elfCreationError,
                  sdtkit_provider_error(cp->native));
        return -1;
    }
    free(cp->filename);
    cp->filename = strdup(sdtkit_provider_path(cp->native));
    provider->_filename = cp->filename;
    provider->_memfd = cp->native->objects->fd;
    for (SDTProbeList_t *n = provider->probes; n; n = n->next) {
        const struct sdtkit_probe *np = ((struct compat_probe *)n)->native;
        __atomic_store_n(&n->probe._fire, (void *)np->stub, __ATOMIC_RELEASE);
    }
    set_error(cp, noError, NULL);
    return 0;
}

int providerUnload(SDTProvider_t *provider)
{
    if (!provider)
        return -1;
    struct compat_provider *cp = compat(provider);
    for (SDTProbeList_t *n = provider->probes; n; n = n->next)
        __atomic_store_n(&n->probe._fire, NULL, __ATOMIC_RELEASE);
    if (sdtkit_provider_unload(cp->native) != SDTKIT_OK) {
        set_error(cp, sharedLibraryCloseError, sdtkit_provider_error(cp->native));
        return -1;
    }
    /* a binding may have set _filename to NULL (or its own string) first */
    if (provider->_filename == cp->filename)
        provider->_filename = NULL;
    free(cp->filename);
    cp->filename = NULL;
    provider->_memfd = -1;
    set_error(cp, noError, NULL);
    return 0;
}

void providerDestroy(SDTProvider_t *provider)
{
    if (!provider)
        return;
    struct compat_provider *cp = compat(provider);
    for (SDTProbeList_t *n = provider->probes; n; n = n->next)
        __atomic_store_n(&n->probe._fire, NULL, __ATOMIC_RELEASE);
    sdtkit_provider_destroy(cp->native);
    for (SDTProbeList_t *n = provider->probes, *next; n; n = next) {
        next = n->next;
        pool_put((struct compat_probe *)n);
    }
    free(provider->name);
    free(cp->filename);
    free(cp->error);
    free(cp);
}

void probeFire(SDTProbe_t *probe, ...)
{
    if (!probe || !__atomic_load_n(&probe->_fire, __ATOMIC_ACQUIRE))
        return;
    sdtkit_value v[MAX_ARGUMENTS];
    int argc = probe->argCount < MAX_ARGUMENTS ? probe->argCount : MAX_ARGUMENTS;
    va_list ap;
    va_start(ap, probe);
    for (int i = 0; i < argc; i++) {
        switch (probe->argFmt[i]) {
        case uint64:
        case int64:
            v[i].u = va_arg(ap, uint64_t);
            break;
        case int8:
        case int16:
        case int32:
            v[i].i = va_arg(ap, int);
            break;
        default:
            v[i].u = va_arg(ap, unsigned);
            break;
        }
    }
    va_end(ap);
    sdtkit_probe_fire(((struct compat_probe *)probe)->native, v);
}

/* The semaphore, which every tracer raises while attached; and, on x86-64,
 * what libstapsdt tested: an int3 in place of the stub's nop, which a
 * uprobe without a semaphore (a raw one, an older perf) also sets. */
int probeIsEnabled(SDTProbe_t *probe)
{
    if (!probe)
        return 0;
    if (sdtkit_probe_is_enabled(((struct compat_probe *)probe)->native))
        return 1;
#if defined __x86_64__
    const unsigned char *stub = __atomic_load_n(&probe->_fire, __ATOMIC_ACQUIRE);
    return stub && *(const volatile unsigned char *)stub == 0xcc;
#else
    return 0;
#endif
}
