/* SPDX-License-Identifier: MIT */
/* successors [-c] | successors [-c] -f: a provider destroyed and another
   made in its place, as a JIT does, one step at a time (issue 40).

   Provider cN (N = 0, 1, ...) has one probe a(int64), fired every
   millisecond with 1000000 + N by a thread of its own.  Prints "made N
   PATH" for each (PATH: its object's path) and "fired K" after every 100
   rounds of fires; makes c0 first, then for each line on stdin destroys
   the last made and makes the next (EOF ends it).

   -c: with libstapsdt's API.
   -f: fork first: the parent loads provider "gone" (probe p, one int64),
   forks a child that fires gone:p with 1 every millisecond until killed;
   the parent prints "child PID" and "gone PATH", waits for a line on
   stdin, destroys gone, loads "newb" (probe p, one int64), prints "newb
   PATH", and fires newb:p with 2 every millisecond until killed.  The
   child prints "child fired K" every 100 fires. */
#define _GNU_SOURCE
#include <libstapsdt.h>
#include <sdtkit.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static bool compat;

struct prov {
    sdtkit_provider *pv;
    sdtkit_probe *p;
    SDTProvider_t *cpv;
    SDTProbe_t *cp;
    int64_t value;
};

static void die(const char *what, const char *why)
{
    fprintf(stderr, "successors: %s: %s\n", what, why ? why : "failed");
    exit(1);
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&ts, NULL);
}

/* Provider name with probe probe(int64) loaded; its path. */
static const char *make(struct prov *p, const char *name, const char *probe, int64_t value)
{
    static const int types[] = {SDTKIT_INT64};
    memset(p, 0, sizeof *p);
    p->value = value;
    if (compat) {
        if (!(p->cpv = providerInit(name)) || !(p->cp = providerAddProbe(p->cpv, probe, 1, int64)) ||
            providerLoad(p->cpv) != 0)
            die(name, p->cpv ? p->cpv->error : NULL);
        return p->cpv->_filename;
    }
    if (sdtkit_provider_create(name, &p->pv) != 0 ||
        sdtkit_provider_add_probe(p->pv, probe, types, 1, &p->p) != 0 ||
        sdtkit_provider_load(p->pv) != 0)
        die(name, p->pv ? sdtkit_provider_error(p->pv) : NULL);
    return sdtkit_provider_path(p->pv);
}

static void fire(const struct prov *p)
{
    if (compat) {
        probeFire(p->cp, p->value);
    } else {
        sdtkit_value v = {.i = p->value};
        sdtkit_probe_fire(p->p, &v);
    }
}

static void destroy(struct prov *p)
{
    if (compat)
        providerDestroy(p->cpv);
    else
        sdtkit_provider_destroy(p->pv);
}

static int forked(void)
{
    struct prov gone, newb;
    const char *path = make(&gone, "gone", "p", 1);
    char line[64];
    pid_t child = fork();
    if (child < 0)
        die("fork", NULL);
    if (child == 0) {
        for (long k = 1;; k++) {
            fire(&gone);
            if (k % 100 == 0) {
                printf("child fired %ld\n", k);
                fflush(stdout);
            }
            sleep_ms(1);
        }
    }
    printf("child %ld\ngone %s\n", (long)child, path);
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin))
        return 0;
    destroy(&gone);
    printf("newb %s\n", make(&newb, "newb", "p", 2));
    fflush(stdout);
    for (;;) {
        fire(&newb);
        sleep_ms(1);
    }
}

/* The providers made, cN for N < next, of which the last, live[(next - 1)
 * % 2], is live (the one before it destroyed); the firing thread fires
 * the live one every millisecond (rounds counted: "fired K" every 100). */
static struct prov live[2];
static long next;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *firing(void *arg)
{
    (void)arg;
    for (long round = 1;; round++) {
        pthread_mutex_lock(&lock);
        fire(&live[(next - 1) % 2]);
        pthread_mutex_unlock(&lock);
        if (round % 100 == 0) {
            printf("fired %ld\n", round);
            fflush(stdout);
        }
        sleep_ms(1);
    }
    return NULL;
}

/* Destroy the live provider, if any, then make c(next): its successor
 * (in its slot, where slots go to the next provider). */
static void step(void)
{
    char name[32];
    struct prov p;
    pthread_mutex_lock(&lock);
    if (next > 0)
        destroy(&live[(next - 1) % 2]);
    pthread_mutex_unlock(&lock);
    snprintf(name, sizeof name, "c%ld", next);
    const char *path = make(&p, name, "a", 1000000 + next);
    pthread_mutex_lock(&lock);
    live[next % 2] = p;
    printf("made %ld %s\n", next, path);
    fflush(stdout);
    next++;
    pthread_mutex_unlock(&lock);
}

int main(int argc, char **argv)
{
    bool fork_first = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-c") == 0) {
            compat = true;
        } else if (strcmp(argv[i], "-f") == 0) {
            fork_first = true;
        } else {
            fprintf(stderr, "usage: successors [-c] [-f]\n");
            return 2;
        }
    }
    if (fork_first)
        return forked();
    pthread_t t;
    step();
    if (pthread_create(&t, NULL, firing, NULL) != 0)
        die("a thread", NULL);
    for (char line[64]; fgets(line, sizeof line, stdin);)
        step();
    return 0;
}
