/* SPDX-License-Identifier: MIT */
/* grace: an unloaded object stays readable through 20 reloads (so a thread
   that read a semaphore's address just before the unload never faults),
   and is unmapped at the first load a second after its unload (so a
   provider reloaded forever keeps bounded memory).  Prints what it saw;
   exits 1 on the first broken promise, or dies of SIGSEGV. */
#define _POSIX_C_SOURCE 200809L
#include <sdtkit.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The inode of the file mapped at addr in this process, or 0 when none
 * is (a later object mapped at the same address has another inode). */
static unsigned long mapped_inode(uintptr_t addr)
{
    FILE *f = fopen("/proc/self/maps", "r");
    unsigned long lo, hi, inode = 0, ino;
    char line[4096];
    if (!f)
        exit(2);
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "%lx-%lx %*s %*s %*s %lu", &lo, &hi, &ino) == 3 && addr >= lo && addr < hi)
            inode = ino;
    fclose(f);
    return inode;
}

static void check(sdtkit_provider *pv, int rc, const char *what)
{
    if (rc != 0) {
        fprintf(stderr, "grace: %s: %s\n", what, sdtkit_provider_error(pv));
        exit(2);
    }
}

int main(void)
{
    sdtkit_provider *pv;
    sdtkit_probe *p;
    check(NULL, sdtkit_provider_create("grace", &pv), "create");
    check(pv, sdtkit_provider_add_probe(pv, "p", NULL, 0, &p), "add");
    check(pv, sdtkit_provider_load(pv), "load");
    const volatile unsigned short *old = sdtkit_probe_semaphore(p);
    unsigned long inode = mapped_inode((uintptr_t)old);
    if (!inode) {
        fprintf(stderr, "grace: the semaphore %p is in no file's mapping\n", (const void *)old);
        return 1;
    }
    check(pv, sdtkit_provider_unload(pv), "unload");
    for (int i = 0; i < 20; i++) {
        check(pv, sdtkit_provider_load(pv), "reload");
        check(pv, sdtkit_provider_unload(pv), "unload");
    }
    printf("after 20 reloads: %s\n", mapped_inode((uintptr_t)old) == inode ? "mapped" : "unmapped");
    struct timespec wait = {1, 100000000};
    nanosleep(&wait, NULL);
    check(pv, sdtkit_provider_load(pv), "load after a second");
    printf("a second later: %s\n", mapped_inode((uintptr_t)old) == inode ? "mapped" : "unmapped");
    sdtkit_provider_destroy(pv);
    return 0;
}
