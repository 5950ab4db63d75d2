/* SPDX-License-Identifier: MIT */
/* fork: a pre-fork server.  The parent loads provider "pf" (probe tick,
   one int32; in a named file with SDTKIT_RUNTIME_NAMED=1), prints its
   path and "ready", and forks a worker, which prints "child PID", unloads
   and loads the provider again (its own object now), fires tick with 2
   every 20 ms until SIGUSR1, then exits normally (exit handlers and
   library destructors run).  The parent waits for it, prints "child
   exited STATUS", then fires tick with 1 every 20 ms until killed. */
#define _GNU_SOURCE
#include <sdtkit.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t done;

static void on_usr1(int sig)
{
    (void)sig;
    done = 1;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

int main(void)
{
    static const int types[] = {SDTKIT_INT32};
    sdtkit_provider *pv;
    sdtkit_probe *tick;
    if (sdtkit_provider_create("pf", &pv) || sdtkit_provider_add_probe(pv, "tick", types, 1, &tick) ||
        sdtkit_provider_load(pv)) {
        fprintf(stderr, "fork: %s\n", sdtkit_provider_error(pv));
        return 1;
    }
    printf("%s\nready\n", sdtkit_provider_path(pv));
    fflush(stdout);
    signal(SIGUSR1, on_usr1);
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        printf("child %ld\n", (long)getpid());
        if (sdtkit_provider_unload(pv) || sdtkit_provider_load(pv)) {
            printf("child: %s\n", sdtkit_provider_error(pv));
            exit(1);
        }
        printf("child path %s\n", sdtkit_provider_path(pv));
        fflush(stdout);
        sdtkit_value two = {.i = 2};
        while (!done) {
            sdtkit_probe_fire(tick, &two);
            sleep_ms(20);
        }
        exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    printf("child exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    fflush(stdout);
    sdtkit_value one = {.i = 1};
    for (;;) {
        sdtkit_probe_fire(tick, &one);
        sleep_ms(20);
    }
}
