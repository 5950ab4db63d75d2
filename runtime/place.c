/* SPDX-License-Identifier: MIT */
/*
 * place.c: a file an object can live in, and loading it.
 *
 * Uprobes are keyed by inode and offset, so the probes must be in a
 * file-backed mapping; and gdb finds a shared object through the loader's
 * list, so it is loaded with dlopen.  The file is, in turn:
 *
 *   1. a memory file (memfd_create): executable (MFD_EXEC) where the kernel
 *      knows the flag (Linux 6.3+); where it refuses it (vm.memfd_noexec=2)
 *      or does not know it, without: such a file is sealed against execve
 *      but still maps executable, which is all dlopen needs;
 *   2. when no memory file can be made or loaded, or a named file was
 *      asked for (perf's mode, libstapsdt's memfd_disabled), a named file,
 *      DIR/sdtkit-PID-N.so, in the first candidate directory that is not
 *      mounted noexec.
 *
 * Why no unnamed file (O_TMPFILE): the tracers' -p lookup skips it.
 * bpftrace and bcc take a deleted mapping for an object only when it is a
 * memory file ("/memfd:..." in /proc/PID/maps); a named file they open by
 * its name.
 *
 * A memory file is loaded as /proc/PID/fd/N, a path that names it for as
 * long as it is open, from any process: bpftrace, bcc and libbpf find it
 * there through the mapping's inode number (bcc by the number alone: a
 * memory file whose number a lower descriptor's file on another
 * filesystem has is made again), gdb by that name.  Objects are never
 * unloaded (provider.c), so the descriptor stays open and its number never
 * names another file while the loader's list names it.
 *
 * A named file is the process's while it holds an exclusive flock on it
 * (the descriptor it keeps open; a child of fork shares it).  At exit the
 * process removes its own named files; a process killed leaves them, and
 * the next named file made in the same directory removes every
 * sdtkit-*.so nobody holds.  The lock, not the PID in the name, says who
 * is alive: it cannot mistake a process of another PID namespace for a
 * dead one, nor a reused PID for the owner.
 */
#define _GNU_SOURCE
#include "runtime.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: executable, even under vm.memfd_noexec=1 */
#endif

#define NAMED_PREFIX "sdtkit-"
#define NAMED_SUFFIX ".so"

/* A descriptor of this process below fd names a file of fd's inode
 * number, on another filesystem (whose numbers are its own: a tmpfs, the
 * program's files).  bcc, and bpftrace through it, find a memory file's
 * path from its mapping's inode number alone, taking the first descriptor
 * in /proc/PID/fd whose file has it: that other file, whose probes it
 * then does not find. */
static bool inode_shadowed(int fd)
{
    struct stat me, st;
    DIR *d = fstat(fd, &me) == 0 ? opendir("/proc/self/fd") : NULL;
    bool shadowed = false;
    for (struct dirent *e; d && !shadowed && (e = readdir(d));) {
        char *end;
        long n = strtol(e->d_name, &end, 10);
        if (e->d_name[0] == '.' || *end || n >= fd || n == dirfd(d))
            continue;
        shadowed = fstat((int)n, &st) == 0 && st.st_ino == me.st_ino && st.st_dev != me.st_dev;
    }
    if (d)
        closedir(d);
    return shadowed;
}

/* The memory file's descriptor, or -errno after noting why. */
static int memory_file(struct failure *why)
{
    for (int tries = 0;; tries++) {
        int fd = memfd_create("sdtkit", MFD_CLOEXEC | MFD_EXEC);
        /* EINVAL: a kernel before MFD_EXEC; EACCES: vm.memfd_noexec=2 */
        if (fd < 0 && (errno == EINVAL || errno == EACCES))
            fd = memfd_create("sdtkit", MFD_CLOEXEC);
        if (fd < 0) {
            int e = errno;
            fail_attempt(why, "memfd_create", strerror(e));
            return -e;
        }
        if (tries == 8 || !inode_shadowed(fd))
            return fd;
        close(fd); /* the next one has another number (they only grow) */
    }
}

/* dir exists and is not mounted noexec. */
static bool exec_dir(const char *dir, struct failure *why)
{
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0) {
        fail_attempt(why, dir, strerror(errno));
        return false;
    }
    if (vfs.f_flag & ST_NOEXEC) {
        fail_attempt(why, dir, "mounted noexec");
        return false;
    }
    return true;
}

/* A file of ours by its name: sdtkit-*.so. */
static bool our_name(const char *name)
{
    size_t n = strlen(name), lp = strlen(NAMED_PREFIX), ls = strlen(NAMED_SUFFIX);
    return n > lp + ls && strncmp(name, NAMED_PREFIX, lp) == 0 &&
           strcmp(name + n - ls, NAMED_SUFFIX) == 0;
}

/* Remove from dir the named files nobody holds (their process is gone):
 * those whose exclusive lock we can take. */
static void remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        if (!our_name(e->d_name))
            continue;
        int fd = openat(dirfd(d), e->d_name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
        struct stat held, now;
        if (fd < 0)
            continue;
        /* still the file we locked, by the time we remove it */
        if (fstat(fd, &held) == 0 && S_ISREG(held.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
            fstatat(dirfd(d), e->d_name, &now, AT_SYMLINK_NOFOLLOW) == 0 &&
            now.st_dev == held.st_dev && now.st_ino == held.st_ino)
            unlinkat(dirfd(d), e->d_name, 0);
        close(fd);
    }
    closedir(d);
}

/* DIR/sdtkit-PID-N.so, created and locked (its descriptor, or -errno after
 * noting why); its path in pl->path. */
static int named_file(const char *dir, struct placement *pl, struct failure *why)
{
    static unsigned long seq;
    remove_stale(dir);
    for (int tries = 0; tries < 100; tries++) {
        unsigned long n = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
        if ((size_t)snprintf(pl->path, sizeof pl->path, "%s/%s%ld-%lu%s", dir, NAMED_PREFIX,
                             (long)getpid(), n, NAMED_SUFFIX) >= sizeof pl->path) {
            fail_attempt(why, dir, "path too long");
            return -ENAMETOOLONG;
        }
        int fd = open(pl->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST)
            continue; /* a process of another PID namespace: the next number */
        if (fd < 0) {
            int e = errno;
            fail_attempt(why, dir, strerror(e));
            return -e;
        }
        /* Another process's remove_stale() may have opened it between the
         * two calls and removed it: then it has no name, try again. */
        struct stat st;
        if (flock(fd, LOCK_EX) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0)
            return fd;
        close(fd);
    }
    fail_attempt(why, dir, "no free file name");
    return -EEXIST;
}

static int write_all(int fd, const void *buf, size_t size, uint64_t off)
{
    const char *p = buf;
    while (size > 0) {
        ssize_t n = pwrite(fd, p, size, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            if (n == 0)
                errno = EIO;
            return -1;
        }
        p += n;
        size -= (size_t)n;
        off += (uint64_t)n;
    }
    return 0;
}

int place_write(const struct placement *pl, const void *buf, size_t size, uint64_t off,
                struct failure *why)
{
    if (write_all(pl->fd, buf, size, off) == 0)
        return SDTKIT_OK;
    return fail(why, SDTKIT_E_LOAD, STAGE_FILE, "cannot write the probes' object %s: %s", pl->path,
                strerror(errno));
}

const char *place_path(const struct placement *pl, char *buf, size_t len)
{
    if (pl->named)
        return pl->path;
    /* this process's descriptor (a child's, after fork, is its own) */
    snprintf(buf, len, "/proc/%ld/fd/%d", (long)getpid(), pl->fd);
    return buf;
}

/* Write the object to fd and load it from pl->path, or /proc/PID/fd/N
 * when that is empty.  0, or -1 after noting why and the stage (the
 * caller closes fd).  RTLD_NODELETE: nothing, not even a binding's
 * dlclose of libstapsdt's _handle, unmaps it (see provider.c). */
static int load_from(const char *what, int fd, const void *buf, size_t size, struct placement *pl,
                     struct failure *why)
{
    if (write_all(fd, buf, size, 0) != 0) {
        fail_attempt(why, what, strerror(errno));
        why->stage = STAGE_FILE;
        return -1;
    }
    if (!pl->path[0])
        snprintf(pl->path, sizeof pl->path, "/proc/%ld/fd/%d", (long)getpid(), fd);
    pl->handle = dlopen(pl->path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    struct link_map *lm = NULL;
    if (!pl->handle || dlinfo(pl->handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
        const char *err = dlerror();
        fail_attempt(why, what, err ? err : "dlopen failed");
        why->stage = STAGE_DLOPEN;
        return -1; /* a handle without a link map cannot happen: it stays */
    }
    pl->base = (uintptr_t)lm->l_addr;
    pl->fd = fd;
    return 0;
}

/* One attempt: the memory file when dir is NULL, else a named file in dir.
 * 0; -1; -2 when no descriptor was left (EMFILE, ENFILE), which no other
 * place can change: valgrind, whose open() creates the file before it
 * refuses the descriptor, would otherwise leave an empty file in each. */
static int try_place(const char *dir, const void *buf, size_t size, struct placement *pl,
                     struct failure *why)
{
    const char *what = dir ? dir : "memfd";
    if (dir && !exec_dir(dir, why))
        return -1;
    pl->path[0] = '\0';
    int fd = dir ? named_file(dir, pl, why) : memory_file(why);
    if (fd < 0)
        return fd == -EMFILE || fd == -ENFILE ? -2 : -1;
    if (load_from(what, fd, buf, size, pl, why) == 0) {
        pl->named = dir != NULL;
        if (dir && !(pl->dir = strdup(dir))) {
            fail_attempt(why, dir, "out of memory"); /* loaded for good all the same */
            pl->dir = NULL;
        }
        return 0;
    }
    if (dir)
        unlink(pl->path);
    close(fd);
    pl->path[0] = '\0';
    return -1;
}

int place_object(const char *pname, bool named, const char *dir, const void *buf, size_t size,
                 struct placement *pl, struct failure *why)
{
    const char *dirs[] = {dir,
                          getenv("SDTKIT_RUNTIME_DIR"),
                          getenv("XDG_RUNTIME_DIR"),
                          getenv("TMPDIR"),
                          "/dev/shm",
                          "/tmp",
                          "/var/tmp"};
    fail_clear(why);
    why->stage = STAGE_FILE;
    int r = -1;
    if (!named && (r = try_place(NULL, buf, size, pl, why)) == 0)
        return SDTKIT_OK;
    for (size_t k = 0; r != -2 && k < sizeof dirs / sizeof dirs[0]; k++) {
        if (dirs[k] && *dirs[k] && (r = try_place(dirs[k], buf, size, pl, why)) == 0)
            return SDTKIT_OK;
        if (k == 0 && dir) /* a directory asked for, and nowhere else */
            break;
    }
    char tried[sizeof why->msg];
    memcpy(tried, why->msg, sizeof tried);
    why->status = SDTKIT_E_LOAD;
    int n = snprintf(why->msg, sizeof why->msg, "cannot load the probes of provider '%s' (%s)",
                     pname, tried);
    if (n >= (int)sizeof why->msg) /* say that the reasons go on */
        memcpy(why->msg + sizeof why->msg - 4, "...", 4);
    return SDTKIT_E_LOAD;
}
