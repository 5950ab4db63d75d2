/* SPDX-License-Identifier: MIT */
/* model.h: the run-time library's two APIs as an executable model, for
   tests/runtime/model.c, which calls the library and the model alike and
   compares every answer.

   The rules are the contracts: the comments of <sdtkit.h> and
   <libstapsdt.h> and docs/runtime.md, and for libstapsdt's API, where its
   header is silent, what libstapsdt did.  Never how the library does it:
   where a contract leaves a choice open, a rule allows every answer it
   allows (a set), and says so.  Each rule is named (N1 ..., C1 ...) and
   its function says what it reads in the contract.

   The model knows nothing of the library.  It also writes the random
   sequences: its state decides what is worth calling next (generate()).
   Deterministic: a seed gives one sequence. */
#ifndef MODEL_H
#define MODEL_H

#include <libstapsdt.h>
#include <sdtkit.h>

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    SLOTS = 4,           /* providers of each API a sequence holds at once */
    MAX_HANDLES = 16384, /* probes a sequence adds, at most */
    NAME_CAP = 320,      /* the longest name of the pools, and then some */
    MAX_OPS = 100000,
    BATCH_MAX = 140, /* probes one "adds" adds: past 64 and 128 slots */
};

/* A set of statuses: bit -S for status S (SDTKIT_OK .. SDTKIT_E_UNSUPPORTED). */
#define ST(s) (1u << -(s))

enum api {
    NATIVE,
    COMPAT
};

/* Whose library answers libstapsdt's API: sdtkit's (the rules of
   <libstapsdt.h>) or libstapsdt's own (its behaviour where <libstapsdt.h>
   lists a deliberate difference; the sequences then keep to what
   libstapsdt documents: see generate()). */
enum target {
    SDTKIT,
    LIBSTAPSDT
};

/* Where a loaded object is: a memory file, or a named file. */
enum {
    IN_MEMORY = 1,
    IN_NAMED = 2
};

/* libstapsdt's errno and error members, as a set of the four cases. */
enum {
    CE_OK_NULL = 1,
    CE_OK_SET = 2,
    CE_ERR_NULL = 4,
    CE_ERR_SET = 8
};

enum kind {
    /* <sdtkit.h>, on provider slot `slot' (NULL when the slot is empty) */
    N_CREATE,  /* sdtkit_provider_create (name, null_out ? NULL : &out) */
    N_ADD,     /* sdtkit_provider_add_probe (name, types or NULL, nargs, out) */
    N_ADDS,    /* `count' adds of probes g<first> ..., as N_ADD each */
    N_LOAD,    /* sdtkit_provider_load */
    N_UNLOAD,  /* sdtkit_provider_unload */
    N_DESTROY, /* sdtkit_provider_destroy */
    N_NAMED,   /* sdtkit_provider_use_named_file (pv, option ? dir : NULL) */
    N_ERROR,   /* sdtkit_provider_error */
    N_PATH,    /* sdtkit_provider_path */
    STRERROR,  /* sdtkit_strerror (slot) */
    NOFILE,    /* option 1: no descriptor left to open (RLIMIT_NOFILE at the
                  lowest free one); 0: the limit as it was */
    /* on handle `slot' of the sequence, of either API: every call on a
       probe (name, nargs, is-enabled, the semaphore, fire; _fire,
       probeIsEnabled, probeFire ...) */
    PROBE,
    /* <libstapsdt.h>, on provider slot `slot' (never empty, but for init) */
    C_INIT,    /* providerInit (name) */
    C_MEMFD,   /* providerUseMemfd (p, option) */
    C_ADD,     /* providerAddProbe (p, name, nargs, types...) */
    C_ADDS,    /* `count' of them, probes g<first> ... */
    C_LOAD,    /* providerLoad */
    C_UNLOAD,  /* providerUnload */
    C_DESTROY, /* providerDestroy */
    KINDS
};

struct op {
    enum kind kind;
    int slot;         /* provider slot; handle for PROBE; status for STRERROR */
    const char *name; /* NULL: the null pointer */
    int nargs;
    int types[SDTKIT_MAX_ARGS + 1];
    bool null_types, null_out;
    int option;       /* C_MEMFD: the MemFDOption_t; N_NAMED: 1 the directory, 0 NULL */
    int count, first; /* N_ADDS, C_ADDS */
};

/* The message of a native provider's last failed call, as the model knows
   it: its status (0: no call failed), and what it must name. */
struct mfail {
    int status;
    bool loaded; /* E_STATE: the provider was loaded */
    bool has_probe;
    char probe[NAME_CAP];
};

/* A probe handle, as the model knows it. */
struct mhandle {
    enum api api;
    int slot;      /* its provider's slot */
    long provider; /* its provider's serial */
    char name[NAME_CAP];
    int nargs;
    int types[SDTKIT_MAX_ARGS];
    bool published; /* loaded by its provider's last load (libstapsdt's _fire) */
    long retired;   /* -1 while its provider lives, else the destroyed count before */
    bool expired;   /* past its lifetime: never used again */
};

struct mprovider {
    bool live;
    long serial;
    char name[NAME_CAP];
    bool loaded;
    int *handles; /* its probes, in the order added */
    int nhandles;
    unsigned asked;        /* IN_MEMORY or IN_NAMED: what the next load is to use */
    unsigned had;          /* where it has been loaded so far */
    struct mfail fail;     /* native */
    struct mfail fail_alt; /* or this one, when `alt' */
    bool alt;
    int use_memfd; /* libstapsdt's _use_memfd */
    unsigned cerr; /* libstapsdt's errno and error: the cases allowed */
};

struct model {
    enum target target;
    struct mprovider nat[SLOTS], com[SLOTS];
    struct mhandle *h; /* MAX_HANDLES of them */
    int nh;
    long destroyed; /* probes destroyed in the process, of either API */
    long serial;
    bool nofile; /* no descriptor left (NOFILE) */
};

static inline void model_init(struct model *m, enum target target)
{
    struct mhandle *h = m->h;
    for (int s = 0; s < SLOTS; s++) {
        free(m->nat[s].handles);
        free(m->com[s].handles);
    }
    memset(m, 0, sizeof *m);
    m->h = h ? h : calloc(MAX_HANDLES, sizeof *m->h);
    m->target = target;
    if (!m->h) {
        perror("model");
        exit(2);
    }
}

static inline struct mprovider *provider_of(struct model *m, enum api api, int slot)
{
    return api == NATIVE ? &m->nat[slot] : &m->com[slot];
}

/* ---- names and types ---------------------------------------------------- */

static inline bool is_identifier(const char *s)
{
    if (!*s || (*s >= '0' && *s <= '9'))
        return false;
    for (; *s; s++)
        if (!(*s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
              (*s >= '0' && *s <= '9')))
            return false;
    return true;
}

/* N0. A native name: a C identifier of 1 to SDTKIT_NAME_MAX bytes. */
static inline bool native_name(const char *name)
{
    return name && strlen(name) <= SDTKIT_NAME_MAX && is_identifier(name);
}

/* The size a note gives an argument of this type (enum sdtkit_type: an
   integer's value, negative when signed; a pointer's size for pointers and
   strings; 4 for a float, 8 for a double), 0 for no type of <sdtkit.h>. */
static inline int native_size(int type)
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

/* C0. An ArgType_t an argument may have: a size, signed or not (noarg is
   no argument's type: <libstapsdt.h> returns NULL for it). */
static inline bool compat_type(int t)
{
    return t == uint8 || t == int8 || t == uint16 || t == int16 || t == uint32 || t == int32 ||
           t == uint64 || t == int64;
}

/* The name and types of probe k of a batch starting at `first'. */
static inline void batch_probe(const struct op *o, int k, char *name, int *nargs, int *types)
{
    static const int native[] = {SDTKIT_INT64, SDTKIT_UINT32, SDTKIT_STRING,
                                 SDTKIT_INT8,  SDTKIT_DOUBLE, SDTKIT_UINT64};
    static const int compat[] = {int64, uint32, uint64, int8, int16, uint8};
    int n = o->first + k;
    snprintf(name, NAME_CAP, "g%d", n);
    *nargs = n % 3;
    for (int i = 0; i < *nargs; i++)
        types[i] = o->kind == N_ADDS ? native[(n + i) % 6] : compat[(n + i) % 6];
}

/* ---- <sdtkit.h> ---------------------------------------------------------- */

/* N1. create: SDTKIT_E_INVALID for a NULL out, or a name that is NULL,
   empty, longer than SDTKIT_NAME_MAX or not a C identifier (*out then
   NULL); else 0.  ("SDTKIT_E_NOMEM" is out of memory: never here.) */
static inline unsigned rule_create(const struct op *o)
{
    return o->null_out || !native_name(o->name) ? ST(SDTKIT_E_INVALID) : ST(SDTKIT_OK);
}

/* N2. add: SDTKIT_E_INVALID for a NULL out or provider ("an argument is
   invalid: NULL"), a bad name, a number of arguments out of 0 ..
   SDTKIT_MAX_ARGS, no types for arguments, an unknown type;
   SDTKIT_E_STATE when the provider is loaded; SDTKIT_E_EXISTS when it has
   a probe of the name.  The header gives no order among them: when
   several apply, any one of them is the answer. */
static inline unsigned rule_add(const struct model *m, int slot, const char *name, int nargs,
                                const int *types, bool null_types, bool null_out)
{
    const struct mprovider *p = &m->nat[slot];
    if (null_out || !p->live)
        return ST(SDTKIT_E_INVALID);
    unsigned bad = 0;
    if (!native_name(name) || nargs < 0 || nargs > SDTKIT_MAX_ARGS || (nargs > 0 && null_types))
        bad |= ST(SDTKIT_E_INVALID);
    for (int i = 0; !bad && i < nargs; i++)
        if (!native_size(types[i]))
            bad |= ST(SDTKIT_E_INVALID);
    if (p->loaded)
        bad |= ST(SDTKIT_E_STATE);
    for (int i = 0; name && i < p->nhandles; i++)
        if (strcmp(m->h[p->handles[i]].name, name) == 0)
            bad |= ST(SDTKIT_E_EXISTS);
    return bad ? bad : ST(SDTKIT_OK);
}

/* N3, N4, N5. load needs the provider unloaded, unload loaded,
   use_named_file unloaded ("Before loading"): SDTKIT_E_STATE otherwise,
   SDTKIT_E_INVALID for NULL.  A load of any number of probes, none
   included, succeeds; with no descriptor left to open, it may fail,
   SDTKIT_E_LOAD, "PV is then as it was" (a load that needs no new file
   succeeds: which do is the library's affair).  SDTKIT_E_NOMEM and
   SDTKIT_E_UNSUPPORTED are for a machine out of memory or without
   run-time probes: never here. */
static inline unsigned rule_native(const struct model *m, const struct op *o)
{
    const struct mprovider *p = &m->nat[o->slot];
    if (!p->live)
        return ST(SDTKIT_E_INVALID);
    if (o->kind == N_UNLOAD)
        return p->loaded ? ST(SDTKIT_OK) : ST(SDTKIT_E_STATE);
    if (p->loaded)
        return ST(SDTKIT_E_STATE);
    return o->kind == N_LOAD && m->nofile ? ST(SDTKIT_OK) | ST(SDTKIT_E_LOAD) : ST(SDTKIT_OK);
}

/* N7. sdtkit_provider_error: "" while no call on the provider failed, or
   when a load succeeded since, else the message of its last failed call
   (another call that succeeds does not change it: the header says "last
   failed call", and "" when a load succeeded since).  What the message
   must say of the failure (its wording is the library's): something
   ("what was tried, and why it failed"), naming the provider or the
   probe; for SDTKIT_E_EXISTS, the probe; for SDTKIT_E_STATE, "not
   loaded" exactly when the provider was not loaded. */
static inline bool message_fits(const struct mfail *f, const char *pname, const char *msg)
{
    if (!msg)
        return false;
    if (!f->status)
        return !*msg;
    if (!*msg)
        return false;
    bool names = strstr(msg, pname) || (f->has_probe && *f->probe && strstr(msg, f->probe));
    if (f->status == SDTKIT_E_EXISTS && !strstr(msg, f->probe))
        return false;
    if (f->status == SDTKIT_E_STATE && !!strstr(msg, "not loaded") == f->loaded)
        return false;
    return names;
}

/* What message_fits expects, in words, for a report. */
static inline const char *message_class(const struct mfail *f, char *buf, size_t len)
{
    if (!f->status)
        snprintf(buf, len, "\"\"");
    else
        snprintf(buf, len, "a message of status %d%s%s%s", f->status,
                 f->has_probe ? " naming probe '" : " naming the provider",
                 f->has_probe ? f->probe : "", f->has_probe ? "' or its provider" : "");
    if (f->status == SDTKIT_E_STATE)
        snprintf(buf + strlen(buf), len - strlen(buf),
                 f->loaded ? ", not \"not loaded\"" : ", \"not loaded\"");
    return buf;
}

/* Record a failed call's message on a live provider (into f). */
static inline void note_failure_in(struct mfail *f, const struct mprovider *p, int status,
                                   const char *probe)
{
    f->status = status;
    f->loaded = p->loaded;
    f->has_probe = probe != NULL;
    snprintf(f->probe, sizeof f->probe, "%s", probe ? probe : "");
}

static inline void note_failure(struct mprovider *p, int status, const char *probe)
{
    note_failure_in(&p->fail, p, status, probe);
    p->alt = false;
}

/* N7 for an add given no out-parameter: it fails, SDTKIT_E_INVALID; the
   header does not say whether a call that has nowhere to put its answer
   reaches the provider: its message may be this failure's or stay as it
   was. */
static inline void note_failure_or_not(struct mprovider *p, const char *probe)
{
    note_failure_in(&p->fail_alt, p, SDTKIT_E_INVALID, probe);
    p->alt = true;
}

/* Whether msg is the provider's message as N7 allows; the model then
   knows which it was. */
static inline bool message_check(struct mprovider *p, const char *msg)
{
    if (message_fits(&p->fail, p->name, msg)) {
        p->alt = false;
        return true;
    }
    if (p->alt && message_fits(&p->fail_alt, p->name, msg)) {
        p->fail = p->fail_alt;
        p->alt = false;
        return true;
    }
    return false;
}

/* ---- both: probes ------------------------------------------------------------ */

/* A new probe handle of provider p (slot, api). */
static inline int model_new_handle(struct model *m, enum api api, int slot, const char *name,
                                   int nargs, const int *types)
{
    struct mprovider *p = provider_of(m, api, slot);
    int k = m->nh++;
    struct mhandle *h = &m->h[k];
    memset(h, 0, sizeof *h);
    h->api = api;
    h->slot = slot;
    h->provider = p->serial;
    snprintf(h->name, sizeof h->name, "%s", name);
    h->nargs = nargs;
    for (int i = 0; i < nargs && i < SDTKIT_MAX_ARGS; i++)
        h->types[i] = types[i];
    h->retired = -1;
    int *v = realloc(p->handles, (size_t)(p->nhandles + 1) * sizeof *v);
    if (!v) {
        perror("model");
        exit(2);
    }
    p->handles = v;
    p->handles[p->nhandles++] = k;
    return k;
}

/* N6, C6. A handle of a destroyed provider stays a handle of its probe,
   inert, "until SDTKIT_RETIRED_PROBES more probes have been destroyed in
   the process".  The probes destroyed with it may count as "more": so a
   handle is used while at most SDTKIT_RETIRED_PROBES probes, its own
   provider's included, were destroyed since its provider's destroy began.
   (libstapsdt freed them at once.)  Whether handle k is used no more once
   `more' probes more are destroyed. */
static inline bool expires(const struct model *m, int k, long more)
{
    const struct mhandle *h = &m->h[k];
    if (h->expired)
        return true;
    if (h->retired < 0)
        return false;
    return m->target == LIBSTAPSDT || m->destroyed + more - h->retired > SDTKIT_RETIRED_PROBES;
}

/* A destroy: the provider's probes retire, and those past their time
   expire. */
static inline void model_destroy(struct model *m, enum api api, int slot)
{
    struct mprovider *p = provider_of(m, api, slot);
    if (!p->live)
        return;
    for (int i = 0; i < p->nhandles; i++) {
        struct mhandle *h = &m->h[p->handles[i]];
        h->retired = m->destroyed;
        h->published = false;
    }
    m->destroyed += p->nhandles;
    for (int k = 0; k < m->nh; k++)
        if (expires(m, k, 0))
            m->h[k].expired = true;
    free(p->handles);
    memset(p, 0, sizeof *p);
}

static inline void model_create(struct model *m, enum api api, int slot, const char *name)
{
    struct mprovider *p = provider_of(m, api, slot);
    memset(p, 0, sizeof *p);
    p->live = true;
    p->serial = ++m->serial;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->asked = IN_MEMORY;
    p->use_memfd = memfd_enabled;
    p->cerr = CE_OK_NULL;
}

/* ---- <libstapsdt.h> -------------------------------------------------------- */

/* C1. providerInit: NULL for a NULL name; else a provider of any name,
   with no probes, errno noError, error NULL, no _handle or _filename,
   _memfd -1 and _use_memfd memfd_enabled (as libstapsdt's). */

/* C2. providerUseMemfd: 1 when applied (_use_memfd is then the option),
   0 when the provider is loaded or the option is unknown ("(or the
   option unknown)": libstapsdt applied any, and generate() asks it only
   the two it knows). */
static inline int rule_memfd(const struct mprovider *p, int option)
{
    return (option == memfd_enabled || option == memfd_disabled) && !p->loaded;
}

/* C3. providerAddProbe: NULL, errno an SDTError_t other than noError and
   error a message, for a NULL name, more than MAX_ARGUMENTS arguments or
   an unknown type (noarg included: no argument has it); and for fewer
   than 0, which <libstapsdt.h>'s list of differences does not name
   (libstapsdt made a probe of -1 arguments): no count of arguments is
   negative.  Else a probe of any name, also one the provider has (two
   sites of one probe), also while the provider is loaded (it loads at the
   next providerLoad); errno and error as they were. */
static inline bool rule_cadd(const char *name, int nargs, const int *types)
{
    if (!name || nargs < 0 || nargs > MAX_ARGUMENTS)
        return false;
    for (int i = 0; i < nargs; i++)
        if (!compat_type(types[i]))
            return false;
    return true;
}

/* C4. providerLoad: 0 (loaded already: 0 again, the probes added since
   loaded too); with no descriptor left, also -1 with errno and error set,
   the provider as it was ("A second providerLoad() that fails ... leaves
   the provider loaded with the probes it had"), but when it is loaded
   with every probe already.  Success leaves errno and error as they were (libstapsdt)
   or clears them (noError, NULL): <libstapsdt.h> says only what a failure
   sets, so either.  C5. providerUnload: 0, errno and error likewise when
   it unloads; when not loaded, "error says so, errno is noError"
   (libstapsdt's own: as they were). */
static inline unsigned after_success(unsigned cerr) { return cerr | CE_OK_NULL; }

/* Whether providerLoad may fail (-1) now. */
static inline bool cload_may_fail(const struct model *m, int slot)
{
    const struct mprovider *p = &m->com[slot];
    bool current = p->loaded;
    for (int i = 0; current && i < p->nhandles; i++)
        current = m->h[p->handles[i]].published;
    return m->nofile && !current;
}

/* ---- one step ---------------------------------------------------------------- */

/* The model after op o, the library having answered `status' (a status
   of <sdtkit.h>; for libstapsdt's calls 0 success, -1 failure): the
   answer the rules allow, as model.c checked, or the one predicted. */
static inline void model_apply(struct model *m, const struct op *o, int status)
{
    int slot = o->kind == PROBE || o->kind == STRERROR || o->kind == NOFILE ? 0 : o->slot;
    struct mprovider *n = &m->nat[slot], *c = &m->com[slot];
    char name[NAME_CAP];
    int nargs, types[SDTKIT_MAX_ARGS];
    switch (o->kind) {
    case N_CREATE:
        if (status == SDTKIT_OK)
            model_create(m, NATIVE, o->slot, o->name);
        break;
    case N_ADD:
        if (status == SDTKIT_OK)
            model_new_handle(m, NATIVE, o->slot, o->name, o->nargs, o->types);
        else if (n->live && !o->null_out)
            note_failure(n, status, o->name);
        else if (n->live)
            note_failure_or_not(n, o->name);
        break;
    case N_ADDS: /* each add's status is model.c's to apply, as N_ADD */
        break;
    case N_LOAD:
        if (status == SDTKIT_OK) {
            n->loaded = true;
            n->fail = (struct mfail){0}; /* N7: a load that succeeds clears it */
            n->alt = false;
        } else if (n->live) {
            note_failure(n, status, NULL);
        }
        break;
    case N_UNLOAD:
        if (status == SDTKIT_OK)
            n->loaded = false;
        else if (n->live)
            note_failure(n, status, NULL);
        break;
    case N_NAMED:
        if (status == SDTKIT_OK)
            n->asked = IN_NAMED;
        else if (n->live)
            note_failure(n, status, NULL);
        break;
    case N_DESTROY:
        model_destroy(m, NATIVE, o->slot);
        break;
    case C_INIT:
        if (o->name)
            model_create(m, COMPAT, o->slot, o->name);
        break;
    case C_MEMFD:
        if (status) {
            c->use_memfd = o->option;
            c->asked = o->option == memfd_disabled ? IN_NAMED : IN_MEMORY;
        }
        break;
    case C_ADD:
        if (rule_cadd(o->name, o->nargs, o->types))
            model_new_handle(m, COMPAT, o->slot, o->name, o->nargs, o->types);
        else
            c->cerr = CE_ERR_SET;
        break;
    case C_ADDS:
        for (int k = 0; k < o->count; k++) {
            batch_probe(o, k, name, &nargs, types);
            model_new_handle(m, COMPAT, o->slot, name, nargs, types);
        }
        break;
    case C_LOAD:
        if (status == 0) {
            c->loaded = true;
            for (int i = 0; i < c->nhandles; i++)
                m->h[c->handles[i]].published = true;
            c->cerr = after_success(c->cerr);
        } else {
            c->cerr = CE_ERR_SET;
        }
        break;
    case NOFILE:
        m->nofile = o->option;
        break;
    case C_UNLOAD:
        if (c->loaded) {
            c->cerr = after_success(c->cerr);
        } else if (m->target == SDTKIT) {
            c->cerr = CE_OK_SET;
        }
        c->loaded = false;
        for (int i = 0; i < c->nhandles; i++)
            m->h[c->handles[i]].published = false;
        break;
    case C_DESTROY:
        model_destroy(m, COMPAT, o->slot);
        break;
    default: /* N_ERROR, N_PATH, STRERROR, PROBE: nothing changes */
        break;
    }
}

/* ---- the sequences ---------------------------------------------------------- */

/* The first status of a set, for a prediction: failures all leave the
   state as it was, and differ only in the message. */
static inline int first_status(unsigned set)
{
    int s = 0;
    while (s > -31 && !(set & ST(s)))
        s--;
    return s;
}

/* What generate() may call. */
struct gen {
    bool native, compat; /* the APIs */
    bool late_adds;      /* add to loaded providers (libstapsdt's API takes them) */
    bool named;          /* named files (a directory is given) */
    /* only what libstapsdt documents and did without harm: no NULL name,
       count or type it did not take, no handle of a destroyed provider,
       no name of a provider over 249 bytes, memory files only */
    bool documented;
};

struct rng {
    uint64_t s;
};

static inline uint64_t next(struct rng *r) /* splitmix64 */
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline int pick(struct rng *r, int n) { return (int)(next(r) % (uint64_t)n); }

static inline bool chance(struct rng *r, int percent) { return pick(r, 100) < percent; }

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const char long60[] = "L123456789abcdefghij0123456789ABCDEFGHIJ0123456789abcdefghij";
static const char long61[] = "L123456789abcdefghij0123456789ABCDEFGHIJ0123456789abcdefghijX";
static const char long300[] =
    "long/name/"
    "x123456789x123456789x123456789x123456789x123456789x123456789x123456789x123456789x123456789"
    "x123456789x123456789x123456789x123456789x123456789x123456789x123456789x123456789x123456789"
    "x123456789x123456789x123456789x123456789x123456789x123456789x123456789x123456789x123456789"
    "x123456789x12345678";

/* Names: valid ones often (so that they collide), and the limits. */
static const char *const native_providers[] = {"app", "jit", "srv_2", "Zq", "app", long60};
static const char *const native_bad_providers[] = {"", "9lives", "my-app", "a:b", long61, NULL};
static const char *const native_probes[] = {"tick", "tock", "req_start", "gc__begin", "x7", long60};
static const char *const native_bad_probes[] = {"", "1st", "a.b", long61, NULL};
static const char *const compat_providers[] = {"app", "my-app",     "a.b", "a:b",  "1abc",
                                               "",    "with/slash", "app", long300};
static const char *const compat_probes[] = {"tick", "tock", "my-probe", "a.b",  "",
                                            "x:y",  "1abc", "tick",     long300};
static const int native_types[] = {SDTKIT_UINT8,   SDTKIT_INT8,   SDTKIT_UINT16, SDTKIT_INT16,
                                   SDTKIT_UINT32,  SDTKIT_INT32,  SDTKIT_UINT64, SDTKIT_INT64,
                                   SDTKIT_POINTER, SDTKIT_STRING, SDTKIT_FLOAT,  SDTKIT_DOUBLE};
static const int native_bad_types[] = {0, 3, -3, 20, 99, -16};
static const int compat_types[] = {uint8, int8, uint16, int16, uint32, int32, uint64, int64};
static const int compat_bad_types[] = {noarg, 3, 16};

/* What a sequence mostly does: a few small batches of adds (LIGHT);
   batches that grow providers past 64 and 128 probes, into bigger objects
   (HEAVY); or that and destroys, so that more than SDTKIT_RETIRED_PROBES
   probes retire while the first ones' handles are used (CHURN). */
enum mood {
    LIGHT,
    HEAVY,
    CHURN
};

/* How often each call is made, by mood: native add, adds, load, unload,
   destroy, named, error, path; libstapsdt's add, adds, load, unload,
   destroy, memfd. */
static const int native_weights[3][8] = {
    {30, 3, 17, 11, 7, 4, 8, 20}, {25, 10, 17, 11, 7, 4, 8, 18}, {15, 14, 15, 8, 18, 2, 6, 20}};
static const int compat_weights[3][6] = {
    {32, 3, 25, 20, 8, 8}, {27, 10, 25, 20, 8, 6}, {15, 14, 22, 12, 18, 4}};

/* An index into weights[0 .. n), at random in their proportions. */
static inline int weighted(struct rng *r, const int *weights, int n)
{
    int sum = 0, i = 0;
    for (int k = 0; k < n; k++)
        sum += weights[k];
    for (int x = pick(r, sum); x >= weights[i]; i++)
        x -= weights[i];
    return i;
}

/* A handle the sequence may still use, of either API, or -1: mostly a
   recent one; at times the one of a destroyed provider nearest its end. */
static inline int pick_handle(const struct model *m, struct rng *r, bool documented)
{
    if (!m->nh)
        return -1;
    if (!documented && chance(r, 20)) {
        int oldest = -1;
        for (int k = 0; k < m->nh; k++)
            if (!m->h[k].expired && m->h[k].retired >= 0 &&
                (oldest < 0 || m->h[k].retired < m->h[oldest].retired))
                oldest = k;
        if (oldest >= 0)
            return oldest;
    }
    for (int tries = 0; tries < 8; tries++) {
        int k = m->nh - 1 - pick(r, m->nh < 64 ? m->nh : 64); /* mostly recent ones */
        if (tries > 3)
            k = pick(r, m->nh);
        if (!m->h[k].expired && (!documented || m->h[k].retired < 0))
            return k;
    }
    return -1;
}

static inline void gen_native(const struct model *m, struct rng *r, const struct gen *g,
                              enum mood mood, int *batch, struct op *o)
{
    static const enum kind kinds[] = {N_ADD,     N_ADDS,  N_LOAD,  N_UNLOAD,
                                      N_DESTROY, N_NAMED, N_ERROR, N_PATH};
    const struct mprovider *p = &m->nat[o->slot];
    if (!p->live) {
        /* mostly a create, else calls on NULL */
        if (chance(r, 80)) {
            o->kind = N_CREATE;
            o->name = chance(r, 85) ? native_providers[pick(r, COUNT(native_providers))]
                                    : native_bad_providers[pick(r, COUNT(native_bad_providers))];
            o->null_out = chance(r, 3);
            return;
        }
        static const enum kind on_null[] = {N_ADD, N_LOAD, N_UNLOAD, N_DESTROY, N_NAMED};
        o->kind = on_null[pick(r, COUNT(on_null))];
    } else {
        o->kind = kinds[weighted(r, native_weights[mood], 8)];
    }
    if (o->kind == N_NAMED && !g->named)
        o->kind = N_PATH;
    if (p->live && p->loaded && !g->late_adds && (o->kind == N_ADD || o->kind == N_ADDS))
        o->kind = N_UNLOAD;
    if (o->kind == N_ADD) {
        o->name = chance(r, 88) ? native_probes[pick(r, COUNT(native_probes))]
                                : native_bad_probes[pick(r, COUNT(native_bad_probes))];
        int y = pick(r, 100);
        o->nargs = y < 85   ? pick(r, 5)
                   : y < 93 ? SDTKIT_MAX_ARGS
                   : y < 97 ? SDTKIT_MAX_ARGS + 1
                            : -1;
        for (int i = 0; i < o->nargs; i++)
            o->types[i] = native_types[pick(r, COUNT(native_types))];
        if (o->nargs > 0 && chance(r, 4))
            o->types[pick(r, o->nargs)] = native_bad_types[pick(r, COUNT(native_bad_types))];
        o->null_types = (o->nargs == 0 && chance(r, 50)) || chance(r, 2);
        o->null_out = chance(r, 2);
    } else if (o->kind == N_ADDS) {
        o->count = 1 + pick(r, mood == LIGHT ? 24 : BATCH_MAX);
        o->first = *batch;
        *batch += o->count;
    } else if (o->kind == N_NAMED) {
        o->option = chance(r, 70);
    }
}

static inline void gen_compat(const struct model *m, struct rng *r, const struct gen *g,
                              enum mood mood, int *batch, struct op *o)
{
    static const enum kind kinds[] = {C_ADD, C_ADDS, C_LOAD, C_UNLOAD, C_DESTROY, C_MEMFD};
    const struct mprovider *p = &m->com[o->slot];
    bool lib = g->documented;
    if (!p->live) {
        o->kind = C_INIT;
        do
            o->name = compat_providers[pick(r, COUNT(compat_providers))];
        while (lib && o->name == long300); /* a memory file's name: 249 bytes at most */
        if (!lib && chance(r, 5))
            o->name = NULL;
        return;
    }
    o->kind = kinds[weighted(r, compat_weights[mood], 6)];
    if (p->loaded && !g->late_adds && (o->kind == C_ADD || o->kind == C_ADDS))
        o->kind = C_UNLOAD;
    if (o->kind == C_ADD) {
        o->name = compat_probes[pick(r, COUNT(compat_probes))];
        int y = pick(r, 100);
        o->nargs = y < 90 || lib ? pick(r, MAX_ARGUMENTS + 1) : y < 96 ? MAX_ARGUMENTS + 1 : -1;
        for (int i = 0; i < o->nargs && i < SDTKIT_MAX_ARGS; i++)
            o->types[i] = compat_types[pick(r, COUNT(compat_types))];
        if (!lib && o->nargs > 0 && o->nargs <= MAX_ARGUMENTS && chance(r, 4))
            o->types[pick(r, o->nargs)] = compat_bad_types[pick(r, COUNT(compat_bad_types))];
        if (!lib && chance(r, 3))
            o->name = NULL;
    } else if (o->kind == C_ADDS) {
        o->count = 1 + pick(r, mood == LIGHT ? 24 : BATCH_MAX);
        o->first = *batch;
        *batch += o->count;
    } else if (o->kind == C_MEMFD) {
        /* memfd_disabled only with a directory for the named files (and
           never to libstapsdt, whose files in /tmp stay after a crash) */
        o->option = !g->named || lib ? memfd_enabled : pick(r, 2);
        if (!lib && chance(r, 10))
            o->option = 7;
    }
}

/* A random sequence of `calls' calls from seed, for the APIs g names,
   into ops: how many were written.  One sequence in four is HEAVY, one
   in four CHURN, the others LIGHT (see enum mood). */
static inline int generate(struct model *m, uint64_t seed, int calls, const struct gen *g,
                           struct op *ops)
{
    struct rng r = {seed};
    int x = pick(&r, 4);
    enum mood mood = x == 0 ? HEAVY : x == 1 ? CHURN : LIGHT;
    int batch = 0;
    model_init(m, SDTKIT); /* what is called does not depend on the library's rules */
    for (int i = 0; i < calls && i < MAX_OPS; i++) {
        struct op *o = &ops[i];
        memset(o, 0, sizeof *o);
        enum api api = !g->compat ? NATIVE : !g->native ? COMPAT : pick(&r, 2) ? NATIVE : COMPAT;
        o->slot = pick(&r, SLOTS);
        int x = pick(&r, 100);
        if (x < 14 && (o->slot = pick_handle(m, &r, g->documented)) >= 0) {
            o->kind = PROBE;
        } else if (x < 15 && g->native) {
            o->kind = STRERROR;
            o->slot = -pick(&r, 8); /* 0 .. -7: the statuses and one past */
        } else if (!g->documented && (m->nofile ? chance(&r, 8) : x < 16 && chance(&r, 40))) {
            o->kind = NOFILE; /* now and then, for a while */
            o->option = !m->nofile;
        } else {
            o->slot = pick(&r, SLOTS);
            if (api == NATIVE)
                gen_native(m, &r, g, mood, &batch, o);
            else
                gen_compat(m, &r, g, mood, &batch, o);
        }
        /* the handles a sequence keeps are bounded */
        if ((o->kind == N_ADDS || o->kind == C_ADDS) && m->nh + o->count >= MAX_HANDLES - 1)
            o->kind = api == NATIVE ? N_ERROR : C_LOAD;
        if ((o->kind == N_ADD || o->kind == C_ADD) && m->nh >= MAX_HANDLES - 1)
            o->kind = api == NATIVE ? N_ERROR : C_LOAD;
        /* the answer predicted: the first status allowed */
        int status = 0;
        if (o->kind == N_CREATE || o->kind == N_ADD || o->kind == N_LOAD || o->kind == N_UNLOAD ||
            o->kind == N_NAMED) {
            unsigned set = o->kind == N_CREATE ? rule_create(o)
                           : o->kind == N_ADD  ? rule_add(m, o->slot, o->name, o->nargs, o->types,
                                                          o->null_types, o->null_out)
                                               : rule_native(m, o);
            status = first_status(set);
        } else if (o->kind == N_ADDS) {
            for (int k = 0; k < o->count; k++) {
                struct op one = {.kind = N_ADD, .slot = o->slot};
                char name[NAME_CAP];
                batch_probe(o, k, name, &one.nargs, one.types);
                one.name = name;
                model_apply(
                    m, &one,
                    first_status(rule_add(m, o->slot, name, one.nargs, one.types, false, false)));
            }
        } else if (o->kind == C_MEMFD) {
            status = rule_memfd(&m->com[o->slot], o->option);
        }
        model_apply(m, o, status);
    }
    return calls < MAX_OPS ? calls : MAX_OPS;
}

#endif
