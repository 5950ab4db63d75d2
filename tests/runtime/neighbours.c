/* SPDX-License-Identifier: MIT */
/* neighbours [-c] [-s DIR] LENGTHS NARGS | neighbours [-c] churn: a provider stays
   listed whatever its neighbours do (issue 40).

   Loads provider "keep" (probe tick, one int64), prints its object's path
   and "ready", and fires tick with 42 every millisecond from a thread of
   its own until the end.  Then, for each name length L of LENGTHS and
   each number of arguments N of NARGS (lists of numbers and ranges, as
   "1-16,60" and "0-12"), twice: a provider called L letters "o" with one
   probe p of N int64 arguments is loaded beside keep, then unloaded
   (destroyed after), or destroyed while loaded.  After each, it prints
   "L N unloaded PATH" or "L N destroyed PATH", PATH keep's object's path
   as sdtkit_provider_path gives it, and waits for a line on stdin (the
   test reads the object meanwhile); EOF ends it.  With -s DIR it waits for
   nothing: it copies keep's object, as the path reads at that moment, to
   DIR/L-N-unloaded.so or DIR/L-N-destroyed.so, for readers to read them
   all at once, and prints "done" at the end.

   churn: the same providers, one after the other without waiting, for
   ever, in the same order of lengths 1-16 and arguments 0-12, and "cycle
   K" printed every 100 of them.

   -c: every provider with libstapsdt's API (the path is _filename). */
#define _GNU_SOURCE
#include <libstapsdt.h>
#include <sdtkit.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static bool compat;
static sdtkit_probe *tick;
static SDTProbe_t *ctick;

static void die(const char *what, const char *why)
{
    fprintf(stderr, "neighbours: %s: %s\n", what, why ? why : "failed");
    exit(1);
}

static void *firing(void *arg)
{
    (void)arg;
    sdtkit_value v = {.i = 42};
    for (;;) {
        if (compat)
            probeFire(ctick, (int64_t)42);
        else
            sdtkit_probe_fire(tick, &v);
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* A list of numbers and ranges ("1-16,60") into out (at most max). */
static int numbers(const char *s, int *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        long a = strtol(s, &end, 10), b = a;
        if (*end == '-')
            b = strtol(end + 1, &end, 10);
        for (long k = a; k <= b && n < max; k++)
            out[n++] = (int)k;
        s = *end == ',' ? end + 1 : end;
        if (end == s && *s)
            break;
    }
    return n;
}

/* Provider NAME with probe p of nargs int64 arguments, loaded beside keep;
 * then unloaded (and, after the caller's wait, destroyed), or destroyed. */
struct other {
    sdtkit_provider *pv;
    SDTProvider_t *cpv;
};

static void other_load(struct other *o, const char *name, int nargs)
{
    static const int types[SDTKIT_MAX_ARGS] = {SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64,
                                               SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64,
                                               SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64,
                                               SDTKIT_INT64, SDTKIT_INT64, SDTKIT_INT64};
    sdtkit_probe *p;
    memset(o, 0, sizeof *o);
    if (compat) {
        /* libstapsdt's API: 6 arguments at most */
        int n = nargs > MAX_ARGUMENTS ? MAX_ARGUMENTS : nargs;
        if (!(o->cpv = providerInit(name)) ||
            !providerAddProbe(o->cpv, "p", n, int64, int64, int64, int64, int64, int64) ||
            providerLoad(o->cpv) != 0)
            die(name, o->cpv ? o->cpv->error : NULL);
        return;
    }
    if (sdtkit_provider_create(name, &o->pv) != 0 ||
        sdtkit_provider_add_probe(o->pv, "p", types, nargs, &p) != 0 ||
        sdtkit_provider_load(o->pv) != 0)
        die(name, o->pv ? sdtkit_provider_error(o->pv) : NULL);
}

static void other_unload(struct other *o)
{
    if (compat ? providerUnload(o->cpv) != 0 : sdtkit_provider_unload(o->pv) != 0)
        die("unload", NULL);
}

static void other_destroy(struct other *o)
{
    if (compat)
        providerDestroy(o->cpv);
    else
        sdtkit_provider_destroy(o->pv);
}

/* Copy the file at path to DIR/L-N-MODE.so. */
static void snapshot(const char *path, const char *dir, int len, int nargs, const char *mode)
{
    char out[4096];
    snprintf(out, sizeof out, "%s/%d-%d-%s.so", dir, len, nargs, mode);
    FILE *from = fopen(path, "rb"), *to = fopen(out, "wb");
    if (!from || !to)
        die(from ? out : path, "cannot open");
    char buf[65536];
    for (size_t n; (n = fread(buf, 1, sizeof buf, from)) > 0;)
        if (fwrite(buf, 1, n, to) != n)
            die(out, "cannot write");
    if (ferror(from) || fclose(to) != 0)
        die(out, "cannot copy");
    fclose(from);
}

static const char *keep_path(sdtkit_provider *keep, SDTProvider_t *ckeep)
{
    const char *path = compat ? ckeep->_filename : sdtkit_provider_path(keep);
    return path ? path : "(null)";
}

int main(int argc, char **argv)
{
    static const int types[] = {SDTKIT_INT64};
    int first = 1;
    const char *dir = NULL;
    for (; first < argc && argv[first][0] == '-'; first++) {
        if (strcmp(argv[first], "-c") == 0)
            compat = true;
        else if (strcmp(argv[first], "-s") == 0 && first + 1 < argc)
            dir = argv[++first];
        else
            break;
    }
    bool churn = argc == first + 1 && strcmp(argv[first], "churn") == 0;
    if (!churn && argc != first + 2) {
        fprintf(stderr, "usage: neighbours [-c] [-s DIR] LENGTHS NARGS | neighbours [-c] churn\n");
        return 2;
    }
    int lengths[256], nargs[SDTKIT_MAX_ARGS + 1];
    int nl = numbers(churn ? "1-16" : argv[first], lengths, 256);
    int na = numbers(churn ? "0-12" : argv[first + 1], nargs, SDTKIT_MAX_ARGS + 1);
    for (int i = 0; i < nl; i++)
        if (lengths[i] < 1 || lengths[i] > SDTKIT_NAME_MAX)
            die("a length", "not 1 to 60");
    for (int i = 0; i < na; i++)
        if (nargs[i] < 0 || nargs[i] > SDTKIT_MAX_ARGS)
            die("a number of arguments", "not 0 to 12");

    sdtkit_provider *keep = NULL;
    SDTProvider_t *ckeep = NULL;
    if (compat) {
        if (!(ckeep = providerInit("keep")) || !(ctick = providerAddProbe(ckeep, "tick", 1, int64)) ||
            providerLoad(ckeep) != 0)
            die("keep", ckeep ? ckeep->error : NULL);
    } else if (sdtkit_provider_create("keep", &keep) != 0 ||
               sdtkit_provider_add_probe(keep, "tick", types, 1, &tick) != 0 ||
               sdtkit_provider_load(keep) != 0) {
        die("keep", keep ? sdtkit_provider_error(keep) : NULL);
    }
    printf("%s\nready\n", keep_path(keep, ckeep));
    fflush(stdout);
    pthread_t t;
    if (pthread_create(&t, NULL, firing, NULL) != 0)
        die("a thread", NULL);

    char line[64], name[SDTKIT_NAME_MAX + 1];
    long made = 0;
    do {
        for (int i = 0; i < nl; i++) {
            for (int j = 0; j < na; j++) {
                for (int destroyed = 0; destroyed < 2; destroyed++) {
                    struct other o;
                    memset(name, 'o', (size_t)lengths[i]);
                    name[lengths[i]] = '\0';
                    other_load(&o, name, nargs[j]);
                    if (churn && ++made % 100 == 0) {
                        printf("cycle %ld\n", made);
                        fflush(stdout);
                    }
                    if (!destroyed)
                        other_unload(&o);
                    else
                        other_destroy(&o);
                    const char *mode = destroyed ? "destroyed" : "unloaded";
                    if (dir) {
                        snapshot(keep_path(keep, ckeep), dir, lengths[i], nargs[j], mode);
                    } else if (!churn) {
                        printf("%d %d %s %s\n", lengths[i], nargs[j], mode,
                               keep_path(keep, ckeep));
                        fflush(stdout);
                        if (!fgets(line, sizeof line, stdin))
                            return 0;
                    }
                    if (!destroyed)
                        other_destroy(&o);
                }
            }
        }
    } while (churn);
    printf("done\n");
    fflush(stdout);
    return 0;
}
