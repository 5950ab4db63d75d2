/* SPDX-License-Identifier: MIT */
/*
 * runtime.h: what the run-time probe library's files share.
 *
 *   provider.c   the native API (<sdtkit.h>): providers, probes, load,
 *                unload, fire
 *   place.c      where a loaded object lives: an executable memory file,
 *                or an unnamed file in a directory mounted exec, loaded
 *                with dlopen
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
    /* Fires between reading call and the stub's return, atomically: an
     * object is unmapped only while no fire of its provider is in flight. */
    unsigned long firing;
    struct sdtkit_provider *provider;
    struct sdtkit_probe *next_free; /* in the pool, once its provider is gone */
    char *name;
    int nargs;
    signed char type[SDTKIT_MAX_ARGS]; /* enum sdtkit_type */
    signed char size[SDTKIT_MAX_ARGS]; /* in the note: 1, 2, 4, 8, negative when signed */
};

/* An object a load made: kept mapped, with its file open, until the
 * provider is destroyed (see <sdtkit.h> on unloading). */
struct object {
    void *handle;
    int fd;
    bool named;                        /* path is a file of ours, removed at unload */
    struct timespec unloaded;          /* CLOCK_MONOTONIC, once unloaded */
    uint64_t notes_offset, notes_size; /* .note.stapsdt, zeroed at unload */
    char path[4096];                   /* /proc/PID/fd/N, or the named file */
    struct object *next;               /* the provider's, newest first */
    struct object *next_named;         /* place.c's list of named files */
};

struct sdtkit_provider {
    pthread_mutex_t lock;
    char *name;
    struct sdtkit_probe **probes;
    size_t nprobes, cap;
    struct sdtkit_probe **index; /* the probes by name (provider.c) */
    size_t index_cap;            /* a power of two, or 0 */
    bool loaded;
    bool prefer_file;       /* libstapsdt's memfd_disabled: not in memory */
    bool named;             /* in a named file (for perf) */
    char *named_dir;        /* in this directory, or NULL: the candidates */
    struct object *objects; /* newest first: the loaded one while loaded */
    enum load_stage stage;  /* of the last failed load */
    char error[512];
};

/* Record msg (printf) as pv's error and return status. */
int provider_fail(struct sdtkit_provider *pv, int status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- place.c ---- */

/* Put the object buf[0..size) in a file that can be mapped executable,
 * load it and fill obj; 0, or -1 with the reasons of every attempt in pv's
 * error and pv->stage set. */
int place_object(struct sdtkit_provider *pv, const void *buf, size_t size, struct object *obj);
/* Hide the object's probes from tracers that read its file again (and
 * remove a named file). */
void hide_object(struct object *obj);
/* Unmap the object and close its file. */
void drop_object(struct object *obj);
/* The load address of a dlopen'ed object. */
int object_base(const struct object *obj, uintptr_t *base);

#endif
