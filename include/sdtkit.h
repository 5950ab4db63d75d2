/* SPDX-License-Identifier: MIT-0 */
/* <sdtkit.h> -- USDT probes created at run time.  sdtkit.

   For programs that cannot declare their probes when they are compiled:
   interpreters, JITs and their bindings.  A provider is a named set of
   probes; loading it writes a small shared object in memory (one stub
   function and one .note.stapsdt note per probe, the same notes
   <sys/sdt.h> emits) and loads it, so that every tracer finds the probes
   of the running process as it finds compiled-in ones:

     bpftrace -l 'usdt:*' -p PID
     bpftrace -p PID -e 'usdt::PROVIDER:NAME { printf("%d\n", arg0); }'
     tplist-bpfcc -p PID; trace-bpfcc -p PID 'u::PROVIDER:NAME "%d", arg1'
     gdb -p PID -ex 'info probes'
     perf buildid-cache --add FILE; perf probe sdt_PROVIDER:NAME  (FILE: a
       named file, see sdtkit_provider_use_named_file)

     sdtkit_provider *pv;
     sdtkit_probe *req;
     static const int types[] = { SDTKIT_STRING, SDTKIT_INT64 };
     if (sdtkit_provider_create ("myapp", &pv) != 0 ||
         sdtkit_provider_add_probe (pv, "request", types, 2, &req) != 0 ||
         sdtkit_provider_load (pv) != 0)
       fprintf (stderr, "probes: %s\n", sdtkit_provider_error (pv));
     ...
     if (sdtkit_probe_enabled (req))          two loads, no call
       {
         sdtkit_value v[2];
         v[0].p = path; v[1].i = id;
         sdtkit_probe_fire (req, v);
       }
     ...
     sdtkit_provider_destroy (pv);

   System-wide: every run-time probe also passes through the library's own
   probe, sdtkit:fire (provider, name, nargs, arguments: a pointer to the
   arguments, 8 bytes apart), so one attach to the library's file traces
   every process that uses it:

     bpftrace -e 'usdt:/usr/lib/x86_64-linux-gnu/libsdtkit.so.1:sdtkit:fire {
         printf ("%d %s:%s\n", pid, str (arg0), str (arg1)); }'

   Link with -lsdtkit (pkg-config sdtkit-runtime).  libstapsdt's API, for
   the bindings written for it, is <libstapsdt.h> (-lstapsdt).

   Errors: every function that can fail returns 0 or a negative
   SDTKIT_E_* code; sdtkit_strerror() names a code, and
   sdtkit_provider_error() gives the message of a provider's last failed
   call (what was tried, and why it failed).  Nothing is printed.

   Threads: calls on different providers are independent.  On one
   provider, create, add_probe, load, unload and destroy are serialised by
   the library; sdtkit_probe_enabled() and sdtkit_probe_fire() take no lock
   and may run in any number of threads at once, also while another thread
   loads, unloads or destroys the provider: they then see the probe loaded
   (and fire it) or not loaded (and do nothing).  Is-enabled writes
   nothing; fire writes only a record of its own thread's, saying which
   probe it fires (a thread's first fire registers it, once).  fork()
   waits for the calls on providers in progress, so a child never inherits
   a provider half changed.

   Lifetimes, without a clock: nothing these two can reach is freed,
   unmapped or given to another probe while they can reach it, so a thread
   stopped anywhere inside them (a debugger, a signal, SIGSTOP), for any
   time, resumes on mapped memory and fires no other probe.
   - A probe of a destroyed provider stays a handle of that probe, inert
     (disabled, firing does nothing), until SDTKIT_RETIRED_PROBES more
     probes have been destroyed in the process; then it is freed and its
     handle must not be used (libstapsdt freed probes at once).
   - An object, once loaded, stays mapped: unloading hides the probes
     from tracers that look again (their notes are marked hidden) and
     makes them inert; loading again shows them in the same object (no
     new file, mapping or descriptor), and tracers attached before see
     them again.  Small providers share objects: a provider's probes each
     hold a slot (a stub and a semaphore) in an object of 64 slots or
     more, and a load makes a new object only when none has room (or
     while a debugger is attached: gdb reads an object's probes once, when
     it is loaded).  A slot, once a probe's, is no other probe's while its
     object's file lives, so a tracer that read the notes earlier never
     gets another probe's firings; an object none of whose slots is held
     and none of whose probes a thread is firing gets a new file (at the
     same addresses), its slots free for any probe.  An old semaphore
     address reads a semaphore (at worst another probe's: one call of fire
     too many, which does nothing).
   After fork, a child's probes fire as its parent's did, and the objects'
   files are both processes': neither writes them again (a probe unloaded
   then stays in the notes, inert; a provider that changes moves to an
   object of the process's own), so each process's tracers see its own
   probes.  Only the process that made a named file removes it.

   LTTng-UST: while liblttng-ust.so.1 (LTTng-UST 2.13 to 2.15) is in the
   process, linked, preloaded (LD_PRELOAD=liblttng-ust.so.1) or loaded
   since, every run-time probe is also an LTTng-UST event PROVIDER:NAME,
   one typed field per argument (named as given to
   sdtkit_provider_add_probe_named, arg0, arg1 ... otherwise), recorded by
   LTTng's sessions in its ring buffers in the process, with no trap:

     lttng create s; lttng enable-event -u 'PROVIDER:*'; lttng start
     ... ; lttng stop; babeltrace2 ~/lttng-traces/s*

   and the uprobe tracers still see the probe.  A liblttng-ust loaded
   after probes were loaded is noticed at the library's next call (on any
   provider), or at once by sdtkit_lttng_enable().  While LTTng records a
   probe, is-enabled says so (within 10 ms of LTTng arming it; a probe
   fired ungated records at once).  SDTKIT_LTTNG=0 in the environment:
   never; SDTKIT_LTTNG=1: load liblttng-ust.so.1 at the first call.  A
   child of fork records only with liblttng-ust-fork.so preloaded (LTTng-
   UST's rule).  sdtkit_lttng_status() says what is done and why.

   Where the object lives: in memory (memfd_create, with MFD_EXEC where
   the kernel knows the flag, and without it where the kernel refuses it:
   vm.memfd_noexec=2, Linux 6.3+), loaded as /proc/PID/fd/N, which
   sdtkit_provider_path() gives and tracers open; nothing is on disk.
   When no memory file can be made or loaded, or one was asked against
   (sdtkit_provider_use_named_file, libstapsdt's memfd_disabled), in a
   named file DIR/sdtkit-PID-N.so of the first directory mounted exec
   among $SDTKIT_RUNTIME_DIR, $XDG_RUNTIME_DIR, $TMPDIR, /dev/shm, /tmp and
   /var/tmp: tracers' -p lookups find a memory file or a named file, not
   an unnamed one.  */

#ifndef _SDTKIT_H
#define _SDTKIT_H 1

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* At most this many arguments per probe, as <sys/sdt.h> and libbpf. */
#define SDTKIT_MAX_ARGS 12
/* A destroyed provider's probe handles stay valid, and inert, until this
   many more probes have been destroyed in the process (see Lifetimes). */
#define SDTKIT_RETIRED_PROBES 1024
/* Provider and probe names are C identifiers of at most this many bytes:
   perf names a provider's events sdt_PROVIDER, and the kernel takes event
   names of at most 64 bytes; bpftrace and gdb take a ':' for a separator.
   (<libstapsdt.h> takes any name, as libstapsdt did.) */
#define SDTKIT_NAME_MAX 60

/* The type of a probe argument.  An integer type's value is the size the
   note gives it, negative when signed (as in libstapsdt's ArgType_t). */
enum sdtkit_type
{
  SDTKIT_UINT8 = 1,
  SDTKIT_INT8 = -1,
  SDTKIT_UINT16 = 2,
  SDTKIT_INT16 = -2,
  SDTKIT_UINT32 = 4,
  SDTKIT_INT32 = -4,
  SDTKIT_UINT64 = 8,
  SDTKIT_INT64 = -8,
  SDTKIT_POINTER = 16,  /* an address, unsigned, the size of a pointer */
  SDTKIT_STRING = 17,   /* a pointer to a NUL-terminated string: bpftrace
                           and bcc read it with str(argN) */
  SDTKIT_FLOAT = 18,    /* a float, as the 4 bytes of its IEEE 754 bits */
  SDTKIT_DOUBLE = 19    /* a double, as the 8 bytes of its IEEE 754 bits:
                           tracers read floating-point arguments as integers
                           (no note marks them without breaking libbpf, bcc
                           and gdb); reinterpret the bits */
};

/* What a function returns. */
enum sdtkit_status
{
  SDTKIT_OK = 0,
  SDTKIT_E_INVALID = -1,     /* an argument is invalid: NULL, a bad name,
                                type or number of arguments */
  SDTKIT_E_NOMEM = -2,       /* out of memory */
  SDTKIT_E_EXISTS = -3,      /* the provider has a probe of that name */
  SDTKIT_E_STATE = -4,       /* not in this state: probes are added to a
                                provider that is not loaded; load needs it
                                unloaded, unload loaded */
  SDTKIT_E_LOAD = -5,        /* the object could not be made or loaded */
  SDTKIT_E_UNSUPPORTED = -6  /* this machine has no run-time probes */
};

typedef struct sdtkit_provider sdtkit_provider;
typedef struct sdtkit_probe sdtkit_probe;

/* One argument's value, in the member its type reads. */
typedef union sdtkit_value
{
  int64_t i;       /* SDTKIT_INT8 .. SDTKIT_INT64 */
  uint64_t u;      /* SDTKIT_UINT8 .. SDTKIT_UINT64 */
  double d;        /* SDTKIT_DOUBLE, and SDTKIT_FLOAT (converted to float) */
  const void *p;   /* SDTKIT_POINTER, SDTKIT_STRING */
} sdtkit_value;

/* A new, empty provider called NAME in *OUT.  0, SDTKIT_E_INVALID (NAME is
   NULL, empty, longer than SDTKIT_NAME_MAX or not a C identifier) or
   SDTKIT_E_NOMEM; *OUT is NULL on error. */
int sdtkit_provider_create (const char *name, sdtkit_provider **out);

/* Add probe NAME with NARGS arguments (0 .. SDTKIT_MAX_ARGS) of the types
   TYPES[0 .. NARGS-1] (enum sdtkit_type) to PV, which must not be loaded;
   the probe is in *OUT (NULL on error) until PV is destroyed.
   SDTKIT_E_INVALID, SDTKIT_E_EXISTS (PV has a probe NAME), SDTKIT_E_STATE
   (PV is loaded: unload it, add, load again) or SDTKIT_E_NOMEM.  The
   handle stays valid, inert, for a while after PV is destroyed (see
   Lifetimes). */
int sdtkit_provider_add_probe (sdtkit_provider *pv, const char *name,
                               const int *types, int nargs,
                               sdtkit_probe **out);

/* The same, the arguments named ARGNAMES[0 .. NARGS-1] (ARGNAMES NULL:
   none): C identifiers of at most SDTKIT_NAME_MAX bytes, each once, the
   names of the fields of the probe's LTTng-UST event (see LTTng-UST).
   SDTKIT_E_INVALID for a bad one. */
int sdtkit_provider_add_probe_named (sdtkit_provider *pv, const char *name,
                                     const int *types,
                                     const char *const *argnames, int nargs,
                                     sdtkit_probe **out);

/* Keep PV's object in a named file, DIR/sdtkit-PID-N.so, rather than in
   memory: perf (`perf buildid-cache --add', `perf probe -x') opens objects
   by name and cannot use /proc/PID/fd/N.  DIR NULL: the first of
   $SDTKIT_RUNTIME_DIR, $XDG_RUNTIME_DIR, $TMPDIR, /dev/shm, /tmp, /var/tmp
   mounted exec.  The file stays while the process holds it (an flock on
   it: the object, loaded or not, is the process's for good) and goes when
   the process exits; one left by a process that was killed, whose lock is
   gone with it, is removed by the next named file made in that directory.
   Setting SDTKIT_RUNTIME_NAMED=1 in the environment does the same for
   every provider.  Before loading: SDTKIT_E_STATE otherwise. */
int sdtkit_provider_use_named_file (sdtkit_provider *pv, const char *dir);

/* Make PV's probes visible to tracers: write its object and load it.
   SDTKIT_E_STATE when loaded already, SDTKIT_E_LOAD or SDTKIT_E_NOMEM
   (sdtkit_provider_error says what was tried), SDTKIT_E_UNSUPPORTED; PV
   is then as it was. */
int sdtkit_provider_load (sdtkit_provider *pv);

/* Make PV's probes inert and hide them from tracers (see above); its
   object stays, for the next load.  SDTKIT_E_STATE when not loaded. */
int sdtkit_provider_unload (sdtkit_provider *pv);

/* Unload if loaded and free PV; its slots go to other probes once nothing
   is on them, its probes stay inert handles for a while (see Lifetimes).
   NULL does nothing. */
void sdtkit_provider_destroy (sdtkit_provider *pv);

/* The message of PV's last failed call ("" when none, or when a load
   succeeded since): a copy for the calling thread, valid until the thread
   calls this again; the thread's own later calls on PV keep it up to date
   (so that it may be asked for in the expression that makes the call). */
const char *sdtkit_provider_error (const sdtkit_provider *pv);

/* The file of PV's loaded object, as /proc/PID/fd/N (what bpftrace, bcc,
   libbpf and gdb open), or the named file (see above), or NULL when not
   loaded: a copy for the calling thread, valid until the thread calls
   this again.  Other providers' probes may be in the same file. */
const char *sdtkit_provider_path (const sdtkit_provider *pv);

/* A status code's name and meaning, e.g. "SDTKIT_E_STATE: ...". */
const char *sdtkit_strerror (int status);

/* Use LTTng-UST now: load liblttng-ust.so.1 if it is not in the process
   (its constructor waits for a session daemon, up to
   LTTNG_UST_REGISTER_TIMEOUT, 3 s by default) and make every loaded probe
   an LTTng event; returns once they are registered.  0, or
   SDTKIT_E_UNSUPPORTED: not installed, another LTTng-UST ABI,
   SDTKIT_LTTNG=0, a child of fork without LTTng's fork helper
   (sdtkit_lttng_status says which). */
int sdtkit_lttng_enable (void);

/* What the library does with LTTng-UST and why, and the last probe that
   could not be an LTTng event (a name LTTng refuses, another layout under
   its name): "LTTng-UST in use: liblttng-ust.so.1 ...".  A copy for the
   calling thread, valid until it calls this again. */
const char *sdtkit_lttng_status (void);

/* Fire probe P with its arguments ARGS[0 .. nargs-1] (ARGS may be NULL for
   a probe without arguments).  Does nothing when P's provider is not
   loaded.  A tracer reads each value in the size of its type: the rest is
   cut off. */
void sdtkit_probe_fire (const sdtkit_probe *p, const sdtkit_value *args);

/* The same with the arguments as C arguments, in the types the probe
   declares after the default promotions: int for the 1, 2 and 4-byte
   signed types, unsigned int for the unsigned ones, int64_t and uint64_t
   for the 8-byte ones, a pointer for SDTKIT_POINTER and SDTKIT_STRING,
   double for SDTKIT_FLOAT and SDTKIT_DOUBLE. */
void sdtkit_probe_firev (const sdtkit_probe *p, ...);

/* Non-zero while a tracer is attached to P (its semaphore is raised), 0
   otherwise and when P's provider is not loaded.  The function, for
   bindings that cannot call the inline form below. */
int sdtkit_probe_is_enabled (const sdtkit_probe *p);

/* P's name, its number of arguments, and the address of its semaphore (an
   unsigned short the kernel raises while a tracer is attached; a JIT may
   test it in generated code while the provider is loaded). */
const char *sdtkit_probe_name (const sdtkit_probe *p);
int sdtkit_probe_nargs (const sdtkit_probe *p);
const volatile unsigned short *sdtkit_probe_semaphore (const sdtkit_probe *p);

/* The inline form of sdtkit_probe_is_enabled(): two loads, no call, so a
   disabled probe costs about what a compiled-in one guarded by its
   *_ENABLED() macro does.  It relies on one documented fact of the layout:
   a probe starts with a pointer to its semaphore (the semaphore in the
   loaded object, or a zero of the library's while not loaded). */
struct sdtkit_probe_head
{
  const volatile unsigned short *semaphore;
};

static __inline__ int
sdtkit_probe_enabled (const sdtkit_probe *p)
{
  const struct sdtkit_probe_head *h = (const struct sdtkit_probe_head *) (const void *) p;
  return *__atomic_load_n (&h->semaphore, __ATOMIC_ACQUIRE) != 0;
}

#ifdef __cplusplus
}
#endif

#endif /* sdtkit.h */
