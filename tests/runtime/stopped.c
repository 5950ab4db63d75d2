/* SPDX-License-Identifier: MIT */
/* stopped CYCLES: threads stopped in the middle of the lock-free calls
   resume on mapped memory, whatever the others did meanwhile.

   - The main thread reads a native probe's semaphore address (the first
     of the two loads of the inline sdtkit_probe_enabled()) and holds it.
   - A thread firing a probe of libstapsdt's API is stopped by ptrace
     inside the probe's stub: a child process traces it, puts a
     breakpoint on the stub's first instruction, and once the thread
     stops there puts the instruction back and keeps it stopped.

   Meanwhile the main thread unloads and loads both providers CYCLES
   times, destroys them, then makes, loads and destroys 200 more, two at
   a time, more than their object has slots (a slot is never another
   probe's while its file lives: the object, idle, would be renewed, but
   for the stopped fire, which a probe in its slot would take for its
   own).  Then the thread resumes and returns from the stub; it goes on
   firing its stale handle, which does nothing; the main thread reads
   through the address it held, and providers made then, three at a time,
   soon take the stopped thread's slot again: the object renewed.
   Prints what it saw, one line a step; a library that unmaps what they
   hold kills it with SIGSEGV.  x86-64 only (the breakpoint's byte).

   stopped CYCLES nested: the same, but the thread, once stopped on the
   stub's first instruction, runs a signal handler (the tracer gives it
   SIGUSR1) that fires another probe of the same library, a fire inside
   the fire (each library has riders of its own), and is stopped again
   on the stub's second instruction once the handler has returned: the
   outer probe's slot is still the stopped fire's. */
#define _GNU_SOURCE
#include <libstapsdt.h>
#include <sdtkit.h>

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static SDTProbe_t *cprobe;
static atomic_int done;
static atomic_long fires;
static int tid_pipe[2];
static SDTProbe_t *inner;
static atomic_int inner_fires;

/* SIGUSR1, in the stopped thread: a fire inside its fire. */
static void fire_inner(int sig)
{
    (void)sig;
    probeFire(inner, (int64_t)42);
    atomic_fetch_add(&inner_fires, 1);
}

static void *firing(void *arg)
{
    (void)arg;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    if (write(tid_pipe[1], &tid, sizeof tid) != sizeof tid)
        abort();
    while (!atomic_load(&done)) {
        probeFire(cprobe, 7);
        atomic_fetch_add_explicit(&fires, 1, memory_order_relaxed);
    }
    return NULL;
}

static void die(const char *what)
{
    perror(what);
    _exit(2);
}

/* Let the stopped thread tid run, with signal sig (0: none), until it
 * stops on a breakpoint at byte `at' of the stub at stub; there, with the
 * instruction put back. */
static void run_to(pid_t tid, uintptr_t stub, int at, int sig)
{
    int status;
    errno = 0;
    long word = ptrace(PTRACE_PEEKTEXT, tid, (void *)stub, 0);
    if (errno)
        die("peektext");
    long mask = 0xffL << (8 * at);
    long trap = (word & ~mask) | (0xccL << (8 * at));
    if (ptrace(PTRACE_POKETEXT, tid, (void *)stub, (void *)trap) != 0)
        die("poketext");
    for (;;) {
        if (ptrace(PTRACE_CONT, tid, 0, (void *)(long)sig) != 0)
            die("cont");
        sig = 0;
        if (waitpid(tid, &status, __WALL) != tid)
            die("waitpid");
        if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP)
            break;
    }
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, tid, 0, &regs) != 0 || regs.rip != stub + at + 1)
        die("not at the breakpoint");
    regs.rip = stub + at; /* the stub's own instruction, put back */
    if (ptrace(PTRACE_POKETEXT, tid, (void *)stub, (void *)word) != 0 ||
        ptrace(PTRACE_SETREGS, tid, 0, &regs) != 0)
        die("restore");
}

/* The tracer (a child): stop thread tid inside the stub at stub (nested:
 * after a signal handler's fire there), say so on ready, wait for a byte
 * on go, let it run. */
static void tracer(pid_t tid, uintptr_t stub, bool nested, int ready, int go)
{
    int status;
    if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0 || ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0)
        die("ptrace seize");
    if (waitpid(tid, &status, __WALL) != tid)
        die("waitpid");
    run_to(tid, stub, 0, 0); /* on the probe's nop */
    if (nested)
        run_to(tid, stub, 1, SIGUSR1); /* the handler, the nop, then on the ret */
    char c = 's';
    if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
        die("pipe");
    if (ptrace(PTRACE_DETACH, tid, 0, 0) != 0)
        die("detach");
    _exit(0);
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "stopped: %s failed\n", what);
        exit(1);
    }
}

int main(int argc, char **argv)
{
#if !defined __x86_64__
    puts("x86-64 only");
    return 77;
#else
    long cycles = argc > 1 ? atol(argv[1]) : 10000;
    bool nested = argc > 2 && strcmp(argv[2], "nested") == 0;
    static const int types[] = {SDTKIT_INT32};
    sdtkit_provider *pv;
    sdtkit_probe *probe;
    check(sdtkit_provider_create("held", &pv) == 0, "create");
    check(sdtkit_provider_add_probe(pv, "p", types, 1, &probe) == 0, "add");
    check(sdtkit_provider_load(pv) == 0, "load");
    SDTProvider_t *ipv = providerInit("inner");
    check(ipv && (inner = providerAddProbe(ipv, "i", 1, int64)) && providerLoad(ipv) == 0,
          "the inner probe");
    struct sigaction sa = {.sa_handler = fire_inner};
    sigemptyset(&sa.sa_mask);
    check(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction");
    SDTProvider_t *cpv = providerInit("stopped");
    check(cpv && (cprobe = providerAddProbe(cpv, "x", 1, int32)) && providerLoad(cpv) == 0,
          "libstapsdt's load");
    uintptr_t stub = (uintptr_t)cprobe->_fire;

    int ready[2], go[2];
    check(pipe(tid_pipe) == 0 && pipe(ready) == 0 && pipe(go) == 0, "pipe");
    pthread_t t;
    check(pthread_create(&t, NULL, firing, NULL) == 0, "thread");
    pid_t tid;
    check(read(tid_pipe[0], &tid, sizeof tid) == sizeof tid, "tid");
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    pid_t child = fork();
    check(child >= 0, "fork");
    if (child == 0)
        tracer(tid, stub, nested, ready[1], go[0]);
    char c;
    check(read(ready[0], &c, 1) == 1, "the tracer");
    long before = atomic_load(&fires);
    puts("a thread is stopped inside the stub");
    if (nested)
        printf("after %d fire of another probe inside that fire, by a signal handler\n",
               atomic_load(&inner_fires));

    /* the first load of sdtkit_probe_enabled(), held */
    const volatile unsigned short *held = sdtkit_probe_semaphore(probe);
    for (long i = 0; i < cycles; i++) {
        check(sdtkit_provider_unload(pv) == 0 && sdtkit_provider_load(pv) == 0, "reload");
        check(providerUnload(cpv) == 0 && providerLoad(cpv) == 0, "libstapsdt's reload");
    }
    sdtkit_provider_destroy(pv);
    providerDestroy(cpv);
    providerDestroy(ipv);
    /* two at a time, each probe's stub compared */
    int took = 0;
    for (int i = 0; i < 100; i++) {
        SDTProvider_t *c1 = providerInit("other"), *c2 = providerInit("other");
        SDTProbe_t *q = NULL, *y = NULL;
        check(c1 && (q = providerAddProbe(c1, "q", 1, int32)) && providerLoad(c1) == 0 && c2 &&
                  (y = providerAddProbe(c2, "y", 0)) && providerLoad(c2) == 0,
              "other providers");
        took += ((uintptr_t)q->_fire == stub) + ((uintptr_t)y->_fire == stub);
        providerDestroy(c1);
        providerDestroy(c2);
    }
    printf("%ld reloads, all destroyed, 200 more providers loaded and destroyed\n", cycles);
    printf("%d of them took the stopped thread's slot\n", took);
    check(atomic_load(&fires) == before, "the stopped thread stays stopped");

    check(write(go[1], "g", 1) == 1, "go");
    check(waitpid(child, NULL, 0) == child, "the tracer's exit");
    while (atomic_load(&fires) < before + 1000)
        sched_yield();
    printf("the stopped thread returned from the stub and fired its stale handle %s times\n",
           "1000");
    printf("the held semaphore address reads %u\n", (unsigned)*held);
    atomic_store(&done, 1);
    pthread_join(t, NULL);
    /* landed: once its object is renewed, its slot is for any provider
     * (three at a time: it was the third slot) */
    int rounds = 0;
    for (took = 0; !took && rounds < 200; rounds++) {
        SDTProvider_t *c[3];
        for (int k = 0; k < 3; k++) {
            c[k] = providerInit("later");
            SDTProbe_t *z = c[k] ? providerAddProbe(c[k], "z", 0) : NULL;
            check(z && providerLoad(c[k]) == 0, "a later provider");
            took += (uintptr_t)z->_fire == stub;
        }
        for (int k = 0; k < 3; k++)
            providerDestroy(c[k]);
    }
    printf("%s provider made after it returned took its slot\n", took ? "a" : "no");
    return 0;
#endif
}
