/* SPDX-License-Identifier: MIT */
/* nomembarrier none|global CMD [ARGS...]: run CMD where membarrier(2) is
   refused by a seccomp filter, as sandboxes and container profiles that
   do not know the call refuse it (issue 40).

     none     every membarrier call fails with ENOSYS;
     global   the private expedited commands (registering, and the
              barrier) fail with EINVAL, as on kernels before 4.14: only
              MEMBARRIER_CMD_QUERY and the global barrier work.

   Checks on itself that the filter answers as it should before it runs
   CMD (a filter stays across execve), and exits 3 where it cannot make
   one (no seccomp, or an architecture it does not know). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined __x86_64__ && defined __LP64__
#define ARCH AUDIT_ARCH_X86_64
#elif defined __i386__
#define ARCH AUDIT_ARCH_I386
#elif defined __aarch64__
#define ARCH AUDIT_ARCH_AARCH64
#endif

/* membarrier(2)'s commands */
enum { QUERY = 0, PRIVATE_EXPEDITED = 8, REGISTER_PRIVATE_EXPEDITED = 16 };

int main(int argc, char **argv)
{
    if (argc < 3 || (strcmp(argv[1], "none") != 0 && strcmp(argv[1], "global") != 0)) {
        fprintf(stderr, "usage: nomembarrier none|global CMD [ARGS...]\n");
        return 2;
    }
#if defined ARCH && defined SYS_membarrier
    int none = strcmp(argv[1], "none") == 0;
    /* other architectures' calls and other calls pass */
#define PROLOGUE                                                                                   \
    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),                      \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 1, 0),                                           \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),                                              \
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),                     \
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_membarrier, 1, 0),                                 \
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)
    struct sock_filter refuse_all[] = {
        PROLOGUE,
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
    };
    struct sock_filter only_global[] = {
        PROLOGUE,
        /* the command: args[0]'s low word (its value fits) */
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
                 offsetof(struct seccomp_data, args[0]) +
                     (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? 4 : 0)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PRIVATE_EXPEDITED, 2, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, REGISTER_PRIVATE_EXPEDITED, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
    };
    struct sock_fprog prog = {
        none ? sizeof refuse_all / sizeof refuse_all[0] : sizeof only_global / sizeof only_global[0],
        none ? refuse_all : only_global};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) {
        perror("nomembarrier: seccomp");
        return 3;
    }
    long q = syscall(SYS_membarrier, QUERY, 0, 0);
    int qe = errno;
    long r = syscall(SYS_membarrier, REGISTER_PRIVATE_EXPEDITED, 0, 0);
    int re = errno;
    if (none ? !(q == -1 && qe == ENOSYS) : !(q >= 0 && r == -1 && re == EINVAL)) {
        fprintf(stderr, "nomembarrier: the filter answers query %ld, register %ld\n", q, r);
        return 3;
    }
    execvp(argv[2], argv + 2);
    perror(argv[2]);
    return 127;
#else
    fprintf(stderr, "nomembarrier: no filter for this architecture\n");
    return 3;
#endif
}
