/* SPDX-License-Identifier: MIT */
/*
 * runtime.h: what the run-time probe library's files share.
 *
 *   provider.c   the native API (<sdtkit.h>): providers, probes, load,
 *                unload, fire
 *   place.c      where a loaded object lives: an executable memory file,
 *                or a named file in a directory mounted exec, loaded with
 *                dlopen
 *   stapsdt.c    libstapsdt's API (<libstapsdt.h>) on the native one
 *
 * The object itself is written by the core (lib/dso.c), for the target
 * this library was loaded as (own_target).  Nothing here prints or exits;
 * every failure is a status code and a message in the provider.
 */
#ifndef SDTKIT_RUNTIME_H
#define SDTKIT_RUNTIME_H

#include "../include/sdtkit.h"
#include "../lib/core.h"

#include <pthread.h>
#include <stdarg.h>
#include <time.h>

/* What failed in a load, for libstapsdt's SDTError_t. */
enum load_stage {
    STAGE_NONE,
    STAGE_OBJECT, /* writing the object */
    STAGE_FILE,   /* making a file for it */
    STAGE_DLOPEN, /* loading it */
};

/* The stub's calling convention: called with the argument slots. */
typedef void stub_fn(const void *slots);

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

/* A probe.  Never freed and never reused (see provider.c): a handle stays
 * a handle of this probe for the life of the process. */
struct sdtkit_probe {
    /* First, as <sdtkit.h> promises: the semaphore, or a zero of ours.
     * Written under the provider's lock, read by anyone (atomically). */
    const volatile unsigned short *semaphore;
    /* The stub to call, as an address (0 when not loaded), atomically. */
    uintptr_t call;
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
    bool direct;  /* the values are the slots as they are (see sdtkit_probe_fire) */
    bool all_u64; /* every argument is KIND_U64: probe_fire_va's fast path */
    struct sdtkit_probe *next_retired; /* once its provider is destroyed */
};

/* An object: a file holding a loaded shared object of `capacity' probe
 * slots, loaded once and never unloaded (see provider.c), which providers
 * take, rewrite and give back. */
struct object {
    void *handle;
    int fd;
    long owner;   /* the process that made it: only it writes the file */
    bool named;   /* a file of ours on disk (perf's mode, or no memory file) */
    bool in_use;  /* a provider's (else free, for the next load that fits) */
    bool visible; /* the notes are in the file (not zeroed) */
    char *dir;    /* named: its directory */
    size_t capacity;
    uintptr_t base; /* where it is loaded */
    uint64_t text, stride,
        semaphores;         /* slot 0's stub and semaphore (in the object), slot stride */
    unsigned char stub[64]; /* a stub's bytes, as every slot holds them */
    size_t stub_len;
    uint64_t notes_offset, notes_size; /* .note.stapsdt of what the file holds */
    unsigned char *notes;              /* its bytes, to show them again */
    uint64_t loaded_end;               /* the loaded bytes: never change */
    uint64_t file_size;
    const void *tenant;               /* the provider whose probes the file describes */
    size_t tenant_probes;             /* and how many */
    unsigned long serial, generation; /* for the build-id's salt */
    char path[4096];                  /* /proc/PID/fd/N, or the named file */
    struct object *next;              /* every object of the process */
};

struct sdtkit_provider {
    pthread_mutex_t lock;
    char *name;
    struct sdtkit_probe **probes;
    size_t nprobes, cap;
    struct sdtkit_probe **index; /* the probes by name (provider.c), strict only */
    size_t index_cap;            /* a power of two, or 0 */
    bool lax;                    /* libstapsdt's rules (see provider_create) */
    bool loaded;
    size_t published;      /* probes published by the last load */
    bool prefer_file;      /* libstapsdt's memfd_disabled: not in memory */
    bool named;            /* in a named file (for perf) */
    char *named_dir;       /* in this directory, or NULL: the candidates */
    struct object *obj;    /* the object it loads into, or NULL */
    enum load_stage stage; /* of the last failed load */
    char path[64];         /* sdtkit_provider_path's answer for a memory file */
    char error[512];
};

/* Record msg (printf) as pv's error and return status. */
int provider_fail(struct sdtkit_provider *pv, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- provider.c, for stapsdt.c (pv locked where it says so) ---- */

/* A provider; lax: libstapsdt's rules: any name, probes of the same name,
 * probes added while loaded (they fire once it is loaded again). */
int provider_create(const char *name, bool lax, struct sdtkit_provider **out);
/* Add a probe with `prefix' bytes before it in the same allocation (for
 * libstapsdt's SDTProbeList_t), which never moves nor is freed.  Locked. */
int provider_add_probe_locked(struct sdtkit_provider *pv, const char *name, const int *types,
                              int nargs, size_t prefix, struct sdtkit_probe **out);
/* Load (a loaded provider is loaded again when probes were added since),
 * unload.  Locked. */
int provider_load_locked(struct sdtkit_provider *pv);
int provider_unload_locked(struct sdtkit_provider *pv);
/* The path of the loaded object, or NULL.  Locked. */
const char *provider_path_locked(struct sdtkit_provider *pv);
/* Fire p, if loaded, with its arguments read from ap in the types it
 * declares after the default promotions (sdtkit_probe_firev, probeFire). */
void probe_fire_va(const struct sdtkit_probe *p, va_list *ap);

/* ---- place.c ---- */

/* Put the object buf[0..size) in a new file that can be mapped
 * executable, load it and fill obj (handle, fd, named, dir, path, base);
 * 0, or -1 with the reasons of every attempt in pv's error and pv->stage
 * set.  named: a named file (in dir, or the first candidate); else a memory
 * file when the kernel gives one, else a named file. */
int place_object(struct sdtkit_provider *pv, bool named, const char *dir, const void *buf,
                 size_t size, struct object *obj);
/* Write buf[0..size) at offset off of obj's file: 0 or -1 (errno). */
int object_write(struct object *obj, const void *buf, size_t size, uint64_t off);
/* The path of obj for this process, into buf (a memory file's, through
 * this process's descriptor). */
const char *object_path(const struct object *obj, char *buf, size_t len);

#endif
