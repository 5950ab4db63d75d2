/* SPDX-License-Identifier: MIT */
/* inode DIR: a memory file whose inode number a file of another
   filesystem shares, under a lower descriptor, is not the one the probes
   go to, for a new object nor for an object's renewal (its new file).
   bcc (and bpftrace through it) finds a memory file's path from its
   mapping's inode number alone, taking the first descriptor in
   /proc/PID/fd whose file has that number.

   DIR is a tmpfs of this test's own (its inode numbers start low, and are
   handed out in order to one processor).  The program makes two memory
   files, M1 and M2 (inode numbers X1 and X2, made in a row), moves them to
   descriptors 100 and 101, then makes files in DIR until it has one of
   each number, and keeps them open at the lowest descriptors (3 and 4).
   The library's next memfd_create() (the program's own, below, which the
   library's call reaches first) returns M1 for the first load; after the
   provider is destroyed, another provider's load renews the idle object
   (a new file at the object's descriptor), and memfd_create returns M2
   for it.  For each it prints which descriptor bcc's rule takes for
   the object: its own ("... own descriptor is the first with its inode")
   or another; and whether the renewal happened and let M2 go.  Exits 77
   when DIR's numbers never reach X1 and X2. */
#define _GNU_SOURCE
#include <sdtkit.h>

#include <dirent.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static int planted = -1; /* M1 or M2, for the library's next memfd_create */

int memfd_create(const char *name, unsigned flags)
{
    if (planted >= 0) {
        int fd = planted;
        planted = -1;
        return fd;
    }
    return (int)syscall(SYS_memfd_create, name, flags);
}

/* The first descriptor whose file has inode number ino (bcc's rule). */
static int first_with(ino_t ino)
{
    DIR *d = opendir("/proc/self/fd");
    int found = -1;
    for (struct dirent *e; d && found < 0 && (e = readdir(d));) {
        struct stat st;
        int n = atoi(e->d_name);
        if (e->d_name[0] != '.' && n != dirfd(d) && fstat(n, &st) == 0 && st.st_ino == ino)
            found = n;
    }
    if (d)
        closedir(d);
    return found;
}

/* The descriptor of pv's object, and whether bcc's rule takes it (what
   is printed, after what). */
static int check(sdtkit_provider *pv, const char *what)
{
    int fd = atoi(strrchr(sdtkit_provider_path(pv), '/') + 1);
    struct stat os;
    if (fstat(fd, &os) != 0)
        return -1;
    int first = first_with(os.st_ino);
    if (first == fd)
        printf("%s: the object's own descriptor is the first with its inode\n", what);
    else
        printf("%s: descriptor %d, another file, is the first with the object's inode\n", what,
               first);
    return fd;
}

/* A memory file of the program's own, moved to descriptor at: its inode
   number, or 0. */
static ino_t memory_file_at(int at)
{
    int m = (int)syscall(SYS_memfd_create, "sdtkit", MFD_CLOEXEC);
    struct stat ms;
    if (m < 0 || fstat(m, &ms) != 0 || dup2(m, at) != at || close(m) != 0)
        return 0;
    return ms.st_ino;
}

/* A provider of n probes, loaded, or NULL. */
static sdtkit_provider *loaded(const char *name, int n)
{
    static const int types[] = {SDTKIT_INT32};
    sdtkit_provider *pv;
    sdtkit_probe *p;
    char probe[16];
    if (sdtkit_provider_create(name, &pv) != 0)
        return NULL;
    int rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        snprintf(probe, sizeof probe, "p%d", i);
        rc = sdtkit_provider_add_probe(pv, probe, types, 1, &p);
    }
    if (rc != 0 || sdtkit_provider_load(pv) != 0) {
        fprintf(stderr, "inode: %s\n", sdtkit_provider_error(pv));
        return NULL;
    }
    return pv;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof one, &one);
    ino_t x1 = memory_file_at(100), x2 = memory_file_at(101);
    if (!x1 || !x2)
        return 2;
    int f1 = -1, f2 = -1;
    ino_t top = x1 > x2 ? x1 : x2;
    for (unsigned long i = 0; (f1 < 0 || f2 < 0) && i < 4 * (unsigned long)top + 100000; i++) {
        int fd = open(argv[1], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0)
            return 2;
        if (st.st_ino == x1 && f1 < 0)
            f1 = fd; /* kept, at the lowest descriptor free */
        else if (st.st_ino == x2 && f2 < 0)
            f2 = fd;
        else
            close(fd);
    }
    if (f1 < 0 || f2 < 0) {
        printf("the tmpfs never gave inodes %lu and %lu\n", (unsigned long)x1, (unsigned long)x2);
        return 77;
    }
    planted = 100;
    /* 64 probes: the smallest object's every slot (runtime/object.c's
       MIN_SLOTS), so that once they are dead the object is idle */
    sdtkit_provider *pv = loaded("inode", 64);
    int first = pv ? check(pv, "new") : -1;
    if (first < 0)
        return 2;
    sdtkit_provider_destroy(pv);
    /* the object is idle: the next load renews it, with M2 */
    planted = 101;
    pv = loaded("again", 1);
    if (!pv)
        return 2;
    int fd = check(pv, "renewed");
    if (fd != first || planted >= 0)
        printf("no renewal: the object's descriptor %d, M2 %s\n", fd,
               planted >= 0 ? "not asked for" : "taken");
    else if (fcntl(101, F_GETFD) >= 0)
        printf("M2 is still open at 101\n");
    sdtkit_provider_destroy(pv);
    return 0;
}
