/* SPDX-License-Identifier: MIT */
/* lttng-stopped PROVIDER: a thread stopped inside LTTng-UST's recording of
   a run-time probe's event holds no unload or destroy.  With
   liblttng-ust.so.1 in the process and a session recording PROVIDER:*.

   A thread fires PROVIDER:x (its count k, from 1) over and over.  A child
   process traces it, puts a breakpoint on lttng_ust_tp_rcu_read_unlock
   (which the library calls once the event is recorded, inside LTTng's
   RCU read side, whose grace periods LTTng's unregistration waits for),
   and keeps it stopped there.  Meanwhile the main thread unloads and
   destroys the provider, and unloads and loads another one
   (PROVIDERq:y); then the thread resumes, and fires its stale handle,
   which does nothing.  Prints what it saw, one line a step, then
   "waiting" and waits for a line on stdin (the test watches LTTng's
   registry meanwhile).  x86-64 only (the breakpoint's byte). */
#define _GNU_SOURCE
#include <sdtkit.h>

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static sdtkit_probe *probe;
static atomic_long done;
static atomic_int stop;
static int tid_pipe[2];

static void *firing(void *arg)
{
    (void)arg;
    pid_t tid = (pid_t)syscall(SYS_gettid);
    if (write(tid_pipe[1], &tid, sizeof tid) != sizeof tid)
        abort();
    for (long k = 1; !atomic_load(&stop); k++) {
        sdtkit_value v = {.i = k};
        sdtkit_probe_fire(probe, &v);
        atomic_store(&done, k);
    }
    return NULL;
}

static void die(const char *what)
{
    perror(what);
    _exit(2);
}

static void check(int ok, const char *what)
{
    if (!ok) {
        fprintf(stderr, "lttng-stopped: %s failed\n", what);
        exit(1);
    }
}

#if defined __x86_64__
/* The tracer (a child): stop thread tid on a breakpoint at at, with the
 * instruction put back; say so on ready, wait for a byte on go, detach. */
static void tracer(pid_t tid, uintptr_t at, int ready, int go)
{
    int status;
    if (ptrace(PTRACE_SEIZE, tid, 0, 0) != 0 || ptrace(PTRACE_INTERRUPT, tid, 0, 0) != 0)
        die("ptrace seize");
    if (waitpid(tid, &status, __WALL) != tid)
        die("waitpid");
    errno = 0;
    long word = ptrace(PTRACE_PEEKTEXT, tid, (void *)at, 0);
    if (errno)
        die("peektext");
    if (ptrace(PTRACE_POKETEXT, tid, (void *)at, (void *)((word & ~0xffL) | 0xcc)) != 0)
        die("poketext");
    for (;;) {
        if (ptrace(PTRACE_CONT, tid, 0, 0) != 0)
            die("cont");
        if (waitpid(tid, &status, __WALL) != tid)
            die("waitpid");
        if (WIFSTOPPED(status) && WSTOPSIG(status) == SIGTRAP)
            break;
    }
    struct user_regs_struct regs;
    if (ptrace(PTRACE_GETREGS, tid, 0, &regs) != 0 || regs.rip != at + 1)
        die("not at the breakpoint");
    regs.rip = at;
    if (ptrace(PTRACE_POKETEXT, tid, (void *)at, (void *)word) != 0 ||
        ptrace(PTRACE_SETREGS, tid, 0, &regs) != 0)
        die("restore");
    char c = 's';
    if (write(ready, &c, 1) != 1 || read(go, &c, 1) != 1)
        die("pipe");
    if (ptrace(PTRACE_DETACH, tid, 0, 0) != 0)
        die("detach");
    _exit(0);
}
#endif

int main(int argc, char **argv)
{
#if !defined __x86_64__
    (void)argc;
    (void)argv;
    puts("x86-64 only");
    return 77;
#else
    check(argc == 2, "usage: lttng-stopped PROVIDER");
    void *unlock = dlsym(RTLD_DEFAULT, "lttng_ust_tp_rcu_read_unlock");
    check(unlock != NULL, "liblttng-ust-tracepoint.so.1 in the process");
    static const int types[] = {SDTKIT_INT64};
    static const char *const names[] = {"k"};
    char other[128];
    snprintf(other, sizeof other, "%sq", argv[1]);
    sdtkit_provider *pv, *qv;
    sdtkit_probe *y;
    check(sdtkit_provider_create(argv[1], &pv) == 0 &&
              sdtkit_provider_add_probe_named(pv, "x", types, names, 1, &probe) == 0 &&
              sdtkit_provider_load(pv) == 0,
          "load");
    check(sdtkit_provider_create(other, &qv) == 0 &&
              sdtkit_provider_add_probe(qv, "y", types, 1, &y) == 0 && sdtkit_provider_load(qv) == 0,
          "the other's load");
    int ready[2], go[2];
    check(pipe(tid_pipe) == 0 && pipe(ready) == 0 && pipe(go) == 0, "pipe");
    pthread_t t;
    check(pthread_create(&t, NULL, firing, NULL) == 0, "thread");
    pid_t tid;
    check(read(tid_pipe[0], &tid, sizeof tid) == sizeof tid, "tid");
    prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    fflush(stdout);
    pid_t child = fork();
    check(child >= 0, "fork");
    if (child == 0)
        tracer(tid, (uintptr_t)unlock, ready[1], go[0]);
    char c;
    check(read(ready[0], &c, 1) == 1, "the tracer");
    long at = atomic_load(&done);
    printf("a thread is stopped inside LTTng's read side, after fire %ld\n", at + 1);
    fflush(stdout);
    check(sdtkit_provider_unload(pv) == 0, "unload");
    sdtkit_provider_destroy(pv);
    check(sdtkit_provider_unload(qv) == 0 && sdtkit_provider_load(qv) == 0, "the other's reload");
    sdtkit_value v = {.i = 7};
    sdtkit_probe_fire(y, &v);
    puts("its provider unloaded and destroyed, another reloaded and fired, meanwhile");
    fflush(stdout);
    check(write(go[1], &c, 1) == 1, "go");
    int st;
    check(waitpid(child, &st, 0) == child && WIFEXITED(st) && WEXITSTATUS(st) == 0, "the tracer's end");
    while (atomic_load(&done) < at + 1000)
        ;
    atomic_store(&stop, 1);
    pthread_join(t, NULL);
    puts("the thread resumed, and fired its stale handle 1000 times more");
    puts("waiting");
    fflush(stdout);
    char line[16];
    (void)!fgets(line, sizeof line, stdin);
    sdtkit_provider_destroy(qv);
    return 0;
#endif
}
