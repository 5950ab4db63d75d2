/* SPDX-License-Identifier: MIT */
/* forks N: a threaded server that forks workers while another thread
   toggles its providers.

   A thread unloads and loads two providers, a native one and one of
   libstapsdt's API, over and over (as a binding's disable and enable do),
   while the main thread forks N workers, one after the other.  Each worker
   loads both providers again (unloading them first when they are loaded),
   fires every probe, destroys them and exits 0; the main thread waits for
   each before it forks the next.  Prints "N of N workers finished" at the
   end.  A worker that inherits a lock held by the toggling thread never
   finishes, and the test that runs this bounds it with a timeout. */
#include <libstapsdt.h>
#include <sdtkit.h>

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static sdtkit_provider *pv;
static sdtkit_probe *probe;
static SDTProvider_t *cpv;
static SDTProbe_t *cprobe;
static atomic_int done;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t toggled = PTHREAD_COND_INITIALIZER;
static long toggles;

static void *toggling(void *arg)
{
    (void)arg;
    while (!atomic_load(&done)) {
        sdtkit_provider_unload(pv);
        sdtkit_provider_load(pv);
        providerUnload(cpv);
        providerLoad(cpv);
        pthread_mutex_lock(&lock);
        toggles++;
        pthread_cond_signal(&toggled);
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

/* The worker: its own loads of both providers, fired; 0 when all went
 * well. */
static int work(void)
{
    sdtkit_provider_unload(pv); /* E_STATE when the toggler had unloaded it */
    if (sdtkit_provider_load(pv) != 0) {
        fprintf(stderr, "worker: load: %s\n", sdtkit_provider_error(pv));
        return 1;
    }
    providerUnload(cpv);
    if (providerLoad(cpv) != 0) {
        fprintf(stderr, "worker: providerLoad: %s\n", cpv->error);
        return 1;
    }
    sdtkit_value v = {.i = 1};
    sdtkit_probe_fire(probe, &v);
    probeFire(cprobe, 2);
    sdtkit_provider_destroy(pv);
    providerDestroy(cpv);
    return 0;
}

int main(int argc, char **argv)
{
    static const int types[] = {SDTKIT_INT64};
    long n = argc > 1 ? atol(argv[1]) : 1000, finished = 0;
    if (sdtkit_provider_create("forks", &pv) != 0 ||
        sdtkit_provider_add_probe(pv, "tick", types, 1, &probe) != 0 ||
        sdtkit_provider_load(pv) != 0 || !(cpv = providerInit("cforks")) ||
        !(cprobe = providerAddProbe(cpv, "tick", 1, int64)) || providerLoad(cpv) != 0) {
        fprintf(stderr, "forks: setting up failed\n");
        return 2;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, toggling, NULL) != 0)
        return 2;
    for (long i = 0; i < n; i++) {
        /* fork as the toggler starts its next unload and load */
        pthread_mutex_lock(&lock);
        for (long seen = toggles; toggles == seen;)
            pthread_cond_wait(&toggled, &lock);
        pthread_mutex_unlock(&lock);
        pid_t pid = fork();
        if (pid < 0) {
            perror("fork");
            return 2;
        }
        if (pid == 0)
            _exit(work());
        int status;
        if (waitpid(pid, &status, 0) != pid) {
            perror("waitpid");
            return 2;
        }
        finished += WIFEXITED(status) && WEXITSTATUS(status) == 0;
    }
    atomic_store(&done, 1);
    pthread_join(t, NULL);
    printf("%ld of %ld workers finished\n", finished, n);
    sdtkit_provider_destroy(pv);
    providerDestroy(cpv);
    return finished == n ? 0 : 1;
}
