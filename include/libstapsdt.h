/* SPDX-License-Identifier: MIT-0 */
/* <libstapsdt.h> -- libstapsdt's API and ABI, on sdtkit's run-time probes.

   For the bindings written for libstapsdt (github.com/linux-usdt/libstapsdt):
   python-stapsdt, ruby-static-tracing, node-usdt, salp, libstapsdt-jni,
   DynamicProbes, p5-libstapsdt, atheriel/usdt, luajit-stapsdt ...  They
   work by linking or loading this library (libstapsdt.so.0) instead: the
   same types, enumerators, structures (tags, members, order and offsets),
   functions and return conventions.

     SDTProvider_t *p = providerInit ("myapp");
     SDTProbe_t *req = providerAddProbe (p, "request", 2, uint64, int32);
     if (providerLoad (p) != 0)
       fprintf (stderr, "%s\n", p->error);
     if (probeIsEnabled (req))
       probeFire (req, (uint64_t) path, (int32_t) id);
     providerUnload (p);
     providerDestroy (p);

   The members bindings read: a probe's name and argCount; _fire, NULL until
   the provider is loaded and after it is unloaded, else the probe's stub
   (on x86-64 its first byte is 0x90 while no tracer is attached); a
   provider's errno and error after a failed call, and _filename after
   providerLoad (the object's path, /proc/PID/fd/N, which tracers open).

   As libstapsdt, and bindings rely on it: any name is taken, for a
   provider or a probe (my-app, a.b, a:b, 1abc, empty, long, with '/'),
   and the notes carry it as it is; providerInit() fails only for NULL or
   out of memory.  A provider may have probes of one name (two sites of
   one probe, to tracers).  A probe added while loaded fires once the
   provider is loaded again.  A second providerLoad() returns 0 (and loads
   the probes added since); a second providerUnload() returns 0 and says
   in error that there was nothing to unload.  What tracers can spell:
   bpftrace and gdb take a ':' in a name for a separator (a:b is listed,
   not traced by name; libbpf takes it); perf takes C identifiers only
   (its event names); see docs/runtime.md.

   Where this differs from libstapsdt, and why:
   - The header compiles after <errno.h> and in C++ (extern "C").  The
     member errno keeps its name (cgo, ctypes and C read it); where
     <errno.h> is included, providerErrno() reads it.
   - Every architecture sdtkit supports, not only x86-64; the arguments are
     read in their declared sizes (a 4-byte argument takes an int), as the
     C calling conventions of the other architectures need.
   - Probes have semaphores, which every tracer raises while attached.
     On x86-64, probeIsEnabled() reads the stub's first byte as libstapsdt
     did (every tracer there traps with an int3 on it); elsewhere, the
     probe's semaphore.
   - providerAddProbe() returns NULL, with errno and error set, for a NULL
     name, a negative argCount or more than MAX_ARGUMENTS, an unknown type
     or noarg among the first argCount: libstapsdt wrote past argFmt, made
     a probe of -1 arguments, or wrote a note no tracer parses.
   - providerUseMemfd() with neither memfd_enabled nor memfd_disabled
     answers 0 and changes nothing (libstapsdt stored any value and
     answered 1).
   - A name libstapsdt could not load (over 249 bytes, a memory file's
     limit; with '/' in a file) loads.
   - The object has a build-id (perf needs it); it stays loaded for the
     next load (see <sdtkit.h>): _handle is its dlopen handle, which a
     dlclose() cannot unload (nor make providerUnload() fail, as after
     libstapsdt's object was unloaded under it).  Small providers share an object: their
     _filename, _memfd and _handle are its (its notes list every loaded
     provider's probes in it).  Probes, _fire and all, stay valid after
     providerDestroy() (inert) until SDTKIT_RETIRED_PROBES (1024) more
     probes have been destroyed, where libstapsdt freed them at once.
   - A second providerLoad() that fails (the probes added since could not
     be loaded) leaves the provider loaded with the probes it had.
   - After fork, a providerUnload() in either process leaves the probes in
     the notes of the object both processes map (inert where unloaded):
     the other process may still fire them.
   - memfd_disabled, or a kernel that gives no memory file, puts the object
     in a named file that tracers find (see <sdtkit.h>); nothing else is
     left on disk.
   - With liblttng-ust.so.1 in the process the probes are LTTng-UST
     events too (see <sdtkit.h>): probeIsEnabled() returns 1 while a
     session records the probe, with no int3 on the stub, and a
     providerLoad() that loaded a probe LTTng cannot take as an event
     returns 0 and says why in error (errno stays noError).
   - Only the eight functions below are exported.  */

#ifndef _LIBSTAPSDT_H
#define _LIBSTAPSDT_H

#ifdef __cplusplus
extern "C" {
#endif

/* A Go binding refuses to build with any other value. */
#define MAX_ARGUMENTS 6

typedef enum
{
  noError = -1,
  elfCreationError = 0,
  tmpCreationError = 1,
  sharedLibraryOpenError = 2,
  symbolLoadingError = 3,
  sharedLibraryCloseError = 4
} SDTError_t;

/* The value is the note's size, negative when signed.  Strings and
   pointers are passed as uint64. */
typedef enum
{
  noarg = 0,
  uint8 = 1,
  int8 = -1,
  uint16 = 2,
  int16 = -2,
  uint32 = 4,
  int32 = -4,
  uint64 = 8,
  int64 = -8
} ArgType_t;

typedef enum
{
  memfd_disabled = 0,
  memfd_enabled = 1
} MemFDOption_t;

struct SDTProvider;

typedef struct SDTProbe
{
  char *name;
  ArgType_t argFmt[MAX_ARGUMENTS];
  void *_fire;
  struct SDTProvider *provider;
  int argCount;
} SDTProbe_t;

typedef struct SDTProbeList_
{
  SDTProbe_t probe;
  struct SDTProbeList_ *next;
} SDTProbeList_t;

/* The member errno has libstapsdt's name, plain, where cgo (which reads
   the structure from the compiler's debugging information), ctypes and C
   look for it.  <errno.h> defines errno as a macro, which would turn the
   member's name into an expression: it is set aside while the structure
   is declared.  C code that includes <errno.h> (before or after this
   header) reads the member with providerErrno (PROVIDER), defined here
   with the macro set aside. */
#pragma push_macro ("errno")
#undef errno
typedef struct SDTProvider
{
  char *name;
  SDTProbeList_t *probes;
  SDTError_t errno;
  char *error;
  void *_handle;
  char *_filename;
  int _memfd;
  MemFDOption_t _use_memfd;
} SDTProvider_t;

/* PROVIDER's errno member, whatever <errno.h> made of the name. */
static __inline__ SDTError_t
providerErrno (const SDTProvider_t *provider)
{
  return provider->errno;
}
#pragma pop_macro ("errno")

/* A provider called NAME (any string), or NULL (NAME NULL, no memory). */
SDTProvider_t *providerInit (const char *name);

/* Ask for (memfd_enabled, the default) or against an in-memory object:
   1 when applied, 0 when PROVIDER is loaded (or the option unknown). */
int providerUseMemfd (SDTProvider_t *provider, const MemFDOption_t use_memfd);

/* Add probe NAME with ARGCOUNT arguments, whose ArgType_t follow: the
   probe, or NULL (errno and error say why). */
SDTProbe_t *providerAddProbe (SDTProvider_t *provider, const char *name,
                              int argCount, ...);

/* 0, or -1 with errno and error set.  Loaded already: 0, and the probes
   added since are loaded too. */
int providerLoad (SDTProvider_t *provider);

/* 0 (not loaded: error says so, errno is noError). */
int providerUnload (SDTProvider_t *provider);

/* Unload if loaded and free PROVIDER; its probes stay, inert, until
   SDTKIT_RETIRED_PROBES (1024) more probes have been destroyed in the
   process: then they are freed, and firing or testing one of them then
   reads freed memory (as libstapsdt's, freed here at once, did). */
void providerDestroy (SDTProvider_t *provider);

/* Fire PROBE with its argCount arguments (a no-op while not loaded). */
void probeFire (SDTProbe_t *probe, ...);

/* 1 while a tracer is attached to PROBE, else 0. */
int probeIsEnabled (SDTProbe_t *probe);

#ifdef __cplusplus
}
#endif

#endif /* _LIBSTAPSDT_H */
