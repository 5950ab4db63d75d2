/* SPDX-License-Identifier: MIT */
/*
 * spawn.c: run a program (the C preprocessor, or $CC to learn its target)
 * and capture its standard output through a pipe.  No shell is involved:
 * the words are exactly the argv the program receives.
 */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int wait_child(pid_t pid, int *status)
{
    for (;;) {
        if (waitpid(pid, status, 0) >= 0)
            return 0;
        if (errno != EINTR)
            return -1;
    }
}

int run_capture(char *const argv[], const char *what, struct buf *out)
{
    int fds[2];
    if (pipe(fds) != 0) {
        error("%s: cannot create a pipe: %s", what, strerror(errno));
        return -1;
    }
    /* Our ends must not leak into the child beyond the dup2 below. */
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);

    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, fds[1], 1);

    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    close(fds[1]);
    if (rc != 0) {
        close(fds[0]);
        error("%s: cannot run '%s': %s", what, argv[0], strerror(rc));
        return -1;
    }

    int read_rc = read_fd(fds[0], MAX_TEXT_SIZE, out);
    int read_errno = errno;
    close(fds[0]); /* a child still writing now gets SIGPIPE: waitpid cannot hang */

    int status = 0;
    if (wait_child(pid, &status) != 0) {
        error("%s: cannot wait for '%s': %s", what, argv[0], strerror(errno));
        return -1;
    }
    if (read_rc != 0 && read_errno == EFBIG) {
        error("%s: the output of '%s' is larger than %zu MiB", what, argv[0], MAX_TEXT_SIZE >> 20);
        return -1;
    }
    if (read_rc != 0) {
        error("%s: cannot read the output of '%s': %s", what, argv[0], strerror(read_errno));
        return -1;
    }
    if (WIFSIGNALED(status)) {
        error("%s: '%s' was killed by signal %d", what, argv[0], WTERMSIG(status));
        return -1;
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        error("%s: '%s' failed with exit status %d", what, argv[0],
              WIFEXITED(status) ? WEXITSTATUS(status) : -1);
        return -1;
    }
    return 0;
}

/* What execvp() would run: a regular file we may execute. */
static bool runnable(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

bool program_on_path(const char *name)
{
    if (strchr(name, '/'))
        return runnable(name);
    const char *path = getenv("PATH");
    if (!path)
        path = "/bin:/usr/bin"; /* what glibc's and musl's execvp() both search then */
    bool found = false;
    while (!found) {
        size_t n = strcspn(path, ":");
        struct buf b = {0};
        /* an empty entry is the current directory */
        buf_add(&b, n ? path : ".", n ? n : 1);
        buf_addc(&b, '/');
        buf_adds(&b, name);
        found = runnable(b.data);
        buf_free(&b);
        if (!path[n])
            break;
        path += n + 1;
    }
    return found;
}
