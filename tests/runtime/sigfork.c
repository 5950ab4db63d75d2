/* SPDX-License-Identifier: MIT */
/* sigfork [-a] [OP...]: fork() from a signal handler that interrupted one of the
   library's calls on the same thread (issue 40), the signal raised at
   each point, by events, not by a clock.

   The program defines pthread_mutex_lock, pthread_mutex_unlock, dlopen
   and pwrite: the libraries' calls of them reach these (an executable's
   definitions come first in the lookup scope), which call libc's.  For
   each call OP of the libraries (load, unload, destroy; providerLoad,
   providerDestroy), each of those functions F and K = 1, 2, ...: a
   provider of two probes is made and OP is called on it, and at the K-th
   call of F that the libraries make during OP (right after the lock is
   taken, right before it is released, right before dlopen or pwrite
   runs) the handler of SIGUSR1, raised there, forks.  The child fires a
   probe loaded before (provider "other") and exits 0 (with -a it also
   makes, loads and destroys a provider of its own first); the handler
   waits for it and returns, and OP goes on.  Prints, for each, "OP F K:
   child exited S, OP returned R", and "OP F: called N times" after the
   last K; a fork that deadlocks never returns (the test's timeout).
   OP...: only those calls. */
#define _GNU_SOURCE
#include <libstapsdt.h>
#include <sdtkit.h>

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum func { AT_LOCK, AT_UNLOCK, AT_DLOPEN, AT_PWRITE, NFUNCS };
static const char *const func_names[] = {"pthread_mutex_lock", "pthread_mutex_unlock", "dlopen",
                                         "pwrite"};

/* What the wrappers do: count the libraries' calls of F while armed, and
 * raise SIGUSR1 at the target-th. */
static volatile sig_atomic_t armed;
static enum func target_func;
static long target, calls;
static bool child_uses_api;
static int child_status = -1;
static sdtkit_probe *other_probe;

/* The address is in libsdtkit or libstapsdt. */
static bool in_libraries(const void *caller)
{
    Dl_info info;
    return dladdr(caller, &info) && info.dli_fname &&
           (strstr(info.dli_fname, "libsdtkit.so") || strstr(info.dli_fname, "libstapsdt.so"));
}

static void hook(enum func f, const void *caller)
{
    if (!armed || f != target_func || !in_libraries(caller))
        return;
    if (++calls == target) {
        armed = 0;
        raise(SIGUSR1);
    }
}

static void *next(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f)
        abort();
    return f;
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
    static int (*real)(pthread_mutex_t *);
    if (!real)
        *(void **)&real = next("pthread_mutex_lock");
    int rc = real(m);
    hook(AT_LOCK, __builtin_return_address(0));
    return rc;
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
    static int (*real)(pthread_mutex_t *);
    if (!real)
        *(void **)&real = next("pthread_mutex_unlock");
    hook(AT_UNLOCK, __builtin_return_address(0));
    return real(m);
}

void *dlopen(const char *file, int flags)
{
    static void *(*real)(const char *, int);
    if (!real)
        *(void **)&real = next("dlopen");
    hook(AT_DLOPEN, __builtin_return_address(0));
    return real(file, flags);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    static ssize_t (*real)(int, const void *, size_t, off_t);
    if (!real)
        *(void **)&real = next("pwrite");
    hook(AT_PWRITE, __builtin_return_address(0));
    return real(fd, buf, n, off);
}

/* The child: fires a probe loaded before (and with -a uses the API),
 * exits 0 when all went well. */
static void child(void)
{
    sdtkit_value v = {.i = 7};
    sdtkit_probe_fire(other_probe, &v);
    if (child_uses_api) {
        static const int types[] = {SDTKIT_INT64};
        sdtkit_provider *pv;
        sdtkit_probe *p;
        if (sdtkit_provider_create("inchild", &pv) != 0 ||
            sdtkit_provider_add_probe(pv, "p", types, 1, &p) != 0 || sdtkit_provider_load(pv) != 0)
            _exit(3);
        sdtkit_probe_fire(p, &v);
        sdtkit_provider_destroy(pv);
    }
    _exit(0);
}

static void on_usr1(int sig)
{
    (void)sig;
    pid_t pid = fork();
    if (pid == 0)
        child();
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        child_status = -1;
    else
        child_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

enum op { OP_LOAD, OP_UNLOAD, OP_DESTROY, OP_CLOAD, OP_CDESTROY, NOPS };
static const char *const op_names[] = {"load", "unload", "destroy", "providerLoad",
                                       "providerDestroy"};

/* A provider of two probes for op, made and brought to the state op
 * needs (loaded, but for load); op called, armed for f's k-th call;
 * what it returned. */
static int run(enum op op, enum func f, long k, long serial)
{
    static const int types[] = {SDTKIT_INT64, SDTKIT_UINT32};
    char name[32];
    snprintf(name, sizeof name, "p%ld", serial);
    sdtkit_provider *pv = NULL;
    SDTProvider_t *cpv = NULL;
    sdtkit_probe *p;
    if (op == OP_CLOAD || op == OP_CDESTROY) {
        if (!(cpv = providerInit(name)) || !providerAddProbe(cpv, "a", 1, int64) ||
            !providerAddProbe(cpv, "b", 2, int64, uint32) || (op == OP_CDESTROY && providerLoad(cpv) != 0))
            return -100;
    } else if (sdtkit_provider_create(name, &pv) != 0 ||
               sdtkit_provider_add_probe(pv, "a", types, 1, &p) != 0 ||
               sdtkit_provider_add_probe(pv, "b", types, 2, &p) != 0 ||
               (op != OP_LOAD && sdtkit_provider_load(pv) != 0)) {
        return -100;
    }
    target_func = f;
    target = k;
    calls = 0;
    child_status = -1;
    armed = 1;
    int rc = 0;
    switch (op) {
    case OP_LOAD:
        rc = sdtkit_provider_load(pv);
        break;
    case OP_UNLOAD:
        rc = sdtkit_provider_unload(pv);
        break;
    case OP_DESTROY:
        sdtkit_provider_destroy(pv);
        pv = NULL;
        break;
    case OP_CLOAD:
        rc = providerLoad(cpv);
        break;
    case OP_CDESTROY:
        providerDestroy(cpv);
        cpv = NULL;
        break;
    case NOPS:
        break;
    }
    armed = 0;
    /* load's providers stay loaded: each needs a new object in the end,
     * so that dlopen is called in some */
    if (op == OP_UNLOAD)
        sdtkit_provider_destroy(pv);
    return rc;
}

/* op is one of those asked for (all when none is). */
static bool asked(int op, int argc, char **argv)
{
    bool any = false;
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] == '-')
            continue;
        any = true;
        if (strcmp(argv[i], op_names[op]) == 0)
            return true;
    }
    return !any;
}

int main(int argc, char **argv)
{
    child_uses_api = argc > 1 && strcmp(argv[1], "-a") == 0;
    static const int types[] = {SDTKIT_INT64};
    sdtkit_provider *other;
    if (sdtkit_provider_create("other", &other) != 0 ||
        sdtkit_provider_add_probe(other, "p", types, 1, &other_probe) != 0 ||
        sdtkit_provider_load(other) != 0)
        return 2;
    sdtkit_value v = {.i = 1};
    sdtkit_probe_fire(other_probe, &v); /* this thread's first fire registers it */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    long serial = 0;
    for (int op = 0; op < NOPS; op++) {
        for (int f = 0; f < NFUNCS && asked(op, argc, argv); f++) {
            long k = 1;
            for (;; k++) {
                int rc = run((enum op)op, (enum func)f, k, serial++);
                if (calls < k) /* op made fewer calls of f */
                    break;
                printf("%s %s %ld: child exited %d, %s returned %d\n", op_names[op], func_names[f],
                       k, child_status, op_names[op], rc);
                fflush(stdout);
            }
            printf("%s %s: called %ld times\n", op_names[op], func_names[f], k - 1);
            fflush(stdout);
        }
    }
    sdtkit_provider_destroy(other);
    return 0;
}
