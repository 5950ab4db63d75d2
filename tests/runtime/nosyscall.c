/* SPDX-License-Identifier: MIT */
/* nosyscall.so: preloaded (LD_PRELOAD), a syscall() that answers
   membarrier(2) with ENOSYS and passes every other call on to libc's, as
   a sandbox's shim may (issue 40).  At exit it prints to stderr
   "nosyscall: N membarrier calls refused", so that a test knows the
   program under it asked. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static long refused;

long syscall(long number, ...)
{
    static long (*real)(long, ...);
    va_list ap;
    long a[6];
    va_start(ap, number);
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
#ifdef SYS_membarrier
    if (number == SYS_membarrier) {
        __atomic_add_fetch(&refused, 1, __ATOMIC_RELAXED);
        errno = ENOSYS;
        return -1;
    }
#endif
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "syscall");
    return real(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "nosyscall: %ld membarrier calls refused\n", refused);
}
