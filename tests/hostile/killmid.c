/* SPDX-License-Identifier: MIT */
/*
 * killmid.c: signal a command while it is writing its output file.
 *
 *   killmid [-i] SIGNAL DIR PREFIX COMMAND [ARG...]
 *
 * Runs COMMAND (with SIGNAL at its default action, or ignored with -i, as
 * under nohup) and watches DIR until a file whose name starts with PREFIX
 * appears -- dtrace's temporary file -- then sends SIGNAL.  Prints
 *
 *   killed       the command died of SIGNAL, sent while the file existed
 *   survived N   SIGNAL was sent while the file existed; it exited with N
 *   finished     it exited before such a file was seen (nothing was sent:
 *                the caller retries, or makes the output larger)
 *
 * and exits 0; 2 on misuse.
 */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int appeared(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int found = 0;
    for (struct dirent *e; !found && (e = readdir(d));)
        found = strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return found;
}

int main(int argc, char **argv)
{
    int ignore = argc > 1 && strcmp(argv[1], "-i") == 0;
    argv += ignore;
    argc -= ignore;
    if (argc < 5)
        return 2;
    int sig = atoi(argv[1]);
    pid_t pid = fork();
    if (pid < 0)
        return 2;
    if (pid == 0) {
        signal(sig, ignore ? SIG_IGN : SIG_DFL);
        execvp(argv[4], argv + 4);
        _exit(127);
    }
    int status;
    for (;;) {
        if (waitpid(pid, &status, WNOHANG) == pid) {
            puts("finished");
            return 0;
        }
        if (appeared(argv[2], argv[3])) {
            kill(pid, sig);
            break;
        }
    }
    waitpid(pid, &status, 0);
    if (WIFSIGNALED(status) && WTERMSIG(status) == sig)
        puts("killed");
    else
        printf("survived %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
    return 0;
}
