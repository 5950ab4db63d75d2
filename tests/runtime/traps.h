/* SPDX-License-Identifier: MIT */
/* traps.h: breakpoints on run-time probes' stubs, from inside the process,
   for the test programs that check what a fire hands its stub (slots.c,
   dlopened.c): an int3 written over a stub's nop through /proc/self/mem,
   as a debugger writes it, and a SIGTRAP handler that counts the traps
   and copies the slots %rdi points at, as a tracer reads them, before the
   stub returns.  x86-64 only: elsewhere TRAPS is 0, and this is the
   program's main, which says so and exits 77. */
#ifndef TRAPS_H
#define TRAPS_H

#if !defined __x86_64__ || !defined __LP64__
#define TRAPS 0
#include <stdio.h>
int main(void)
{
    puts("x86-64 only");
    return 77;
}
#else
#define TRAPS 1

#include <sdtkit.h>

#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <ucontext.h>
#include <unistd.h>

enum {
    MAXP = 32
};

/* The stubs with a breakpoint; the traps so far, on each and in all; the
 * last trap's stub (its index, -1 for none of them) and slots. */
static struct {
    uintptr_t stub;
    int nargs;
    atomic_int hits;
} stubs[MAXP];
static int nstubs;
static atomic_int hits;
static volatile sig_atomic_t last = -1;
static uint64_t got[SDTKIT_MAX_ARGS];

static void trapped(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    (void)si;
    ucontext_t *uc = ctx;
    uintptr_t at = (uintptr_t)uc->uc_mcontext.gregs[REG_RIP] - 1;
    const uint64_t *slots = (const uint64_t *)(uintptr_t)uc->uc_mcontext.gregs[REG_RDI];
    last = -1;
    for (int i = 0; i < nstubs; i++) {
        if (stubs[i].stub != at)
            continue;
        memcpy(got, slots, (size_t)stubs[i].nargs * sizeof *got);
        atomic_fetch_add(&stubs[i].hits, 1);
        last = i;
    }
    atomic_fetch_add(&hits, 1);
    /* on to the stub's return, after the probe's nop the int3 took */
}

static void die(const char *what)
{
    fprintf(stderr, "%s failed\n", what);
    exit(2);
}

static void traps_begin(void)
{
    struct sigaction sa = {.sa_sigaction = trapped, .sa_flags = SA_SIGINFO};
    sigemptyset(&sa.sa_mask);
    if (sigaction(SIGTRAP, &sa, NULL) != 0)
        die("sigaction");
}

/* A breakpoint on the stub at stub, of a probe of nargs arguments; its
 * index in stubs. */
static int trap(uintptr_t stub, int nargs)
{
    if (nstubs == MAXP)
        die("room for another stub");
    int fd = open("/proc/self/mem", O_RDWR);
    unsigned char cc = 0xcc;
    if (fd < 0 || pwrite(fd, &cc, 1, (off_t)stub) != 1)
        die("writing a breakpoint through /proc/self/mem");
    close(fd);
    stubs[nstubs].stub = stub;
    stubs[nstubs].nargs = nargs;
    return nstubs++;
}

/* Where the object loaded as path is (dl_iterate_phdr). */
struct found {
    const char *path;
    uintptr_t base;
    int seen;
};

static int object_of(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct found *f = arg;
    if (info->dlpi_name && strcmp(info->dlpi_name, f->path) == 0) {
        f->base = info->dlpi_addr;
        f->seen = 1;
    }
    return 0;
}

/* The stub of probe name in the object loaded as path (a native
 * provider's, sdtkit_provider_path): the symbol of its name in the
 * object's .symtab, which names each stub for debuggers. */
static uintptr_t stub_named(const char *path, const char *name)
{
    struct found f = {path, 0, 0};
    dl_iterate_phdr(object_of, &f);
    int fd = open(path, O_RDONLY);
    struct stat st;
    if (!f.seen || fd < 0 || fstat(fd, &st) != 0)
        die("finding the provider's object");
    char *elf = malloc((size_t)st.st_size);
    if (!elf || pread(fd, elf, (size_t)st.st_size, 0) != st.st_size)
        die("reading the object");
    close(fd);
    const Elf64_Ehdr *eh = (const void *)elf;
    const Elf64_Shdr *sh = (const void *)(elf + eh->e_shoff);
    uintptr_t stub = 0;
    for (int s = 0; s < eh->e_shnum; s++) {
        if (sh[s].sh_type != SHT_SYMTAB)
            continue;
        const Elf64_Sym *sym = (const void *)(elf + sh[s].sh_offset);
        const char *str = elf + sh[sh[s].sh_link].sh_offset;
        for (size_t i = 0; i < sh[s].sh_size / sizeof *sym; i++)
            if (strcmp(str + sym[i].st_name, name) == 0)
                stub = f.base + sym[i].st_value;
    }
    free(elf);
    if (!stub)
        die("finding the stub's symbol");
    return stub;
}

#endif
#endif
