/* SPDX-License-Identifier: MIT */
/* inode DIR: a memory file whose inode number a file of another
   filesystem shares, under a lower descriptor, is not the one the probes
   go to.  bcc (and bpftrace through it) finds a memory file's path from
   its mapping's inode number alone, taking the first descriptor in
   /proc/PID/fd whose file has that number.

   DIR is a tmpfs of this test's own (its inode numbers start low, and are
   handed out in order to one processor).  The program makes a memory file
   M (the inode number X), moves it to descriptor 100, then makes files in
   DIR until one has the number X, and keeps it open at the lowest
   descriptor (3).  The library's first memfd_create() (the program's
   own, below, which the library's call reaches first) returns M.  After a
   provider's load, it prints which descriptor bcc's rule takes for the
   object: its own ("the object's own descriptor is the first with its
   inode") or another.  Exits 77 when DIR's numbers never reach X. */
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

static int planted = -1; /* M, for the library's first memfd_create */

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

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    sched_setaffinity(0, sizeof one, &one);
    int m = (int)syscall(SYS_memfd_create, "sdtkit", MFD_CLOEXEC);
    struct stat ms;
    if (m < 0 || fstat(m, &ms) != 0 || dup2(m, 100) != 100 || close(m) != 0)
        return 2;
    int f = -1;
    for (unsigned long i = 0; f < 0 && i < 4 * (unsigned long)ms.st_ino + 100000; i++) {
        int fd = open(argv[1], O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
        struct stat st;
        if (fd < 0 || fstat(fd, &st) != 0)
            return 2;
        if (st.st_ino == ms.st_ino)
            f = fd; /* kept, at the lowest descriptor free */
        else
            close(fd);
    }
    if (f < 0) {
        printf("the tmpfs never gave inode %lu\n", (unsigned long)ms.st_ino);
        return 77;
    }
    planted = 100;
    static const int types[] = {SDTKIT_INT32};
    sdtkit_provider *pv;
    sdtkit_probe *p;
    if (sdtkit_provider_create("inode", &pv) != 0 ||
        sdtkit_provider_add_probe(pv, "p", types, 1, &p) != 0 || sdtkit_provider_load(pv) != 0) {
        fprintf(stderr, "inode: %s\n", sdtkit_provider_error(pv));
        return 2;
    }
    int fd = atoi(strrchr(sdtkit_provider_path(pv), '/') + 1);
    struct stat os;
    if (fstat(fd, &os) != 0)
        return 2;
    int first = first_with(os.st_ino);
    if (first == fd)
        printf("the object's own descriptor is the first with its inode\n");
    else
        printf("descriptor %d, another file, is the first with the object's inode\n", first);
    sdtkit_provider_destroy(pv);
    return 0;
}
