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
 * Renewing an object (place_renew) gives it a new file at the same
 * addresses: the new file is written, mapped over the object's segments
 * (the loaded bytes are the ones already there, so a thread in them sees
 * no change), and put in the old one's place: a memory file on the old
 * descriptor's number, which the loader's list names; a named file under
 * a new name, which the loader's list is then given.  A tracer that
 * attaches to the old file, or opens the path again, finds nothing of
 * this process's there (uprobes are keyed by inode).
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

/* The descriptors of this process's objects (kept open while they are
 * loaded), which shadows_closed() need not look at: a set of numbers
 * under a lock of its own, taken alone (place.c's callers may hold the
 * objects' lock, or not). */
static struct {
    pthread_mutex_t lock;
    unsigned long *bits;
    size_t words;
} ours = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

enum {
    WORD_BITS = 8 * sizeof(unsigned long)
};

/* Say that fd is one of ours (or no more): -1 out of memory. */
static int mark_ours(int fd, bool mine)
{
    size_t w = (size_t)fd / WORD_BITS;
    int rc = 0;
    pthread_mutex_lock(&ours.lock);
    if (w >= ours.words && mine) {
        size_t words = 2 * w + 16;
        unsigned long *bits = realloc(ours.bits, words * sizeof *bits);
        if (bits) {
            memset(bits + ours.words, 0, (words - ours.words) * sizeof *bits);
            ours.bits = bits;
            ours.words = words;
        }
    }
    if (w < ours.words) {
        unsigned long bit = 1ul << ((size_t)fd % WORD_BITS);
        ours.bits[w] = mine ? ours.bits[w] | bit : ours.bits[w] & ~bit;
    } else if (mine) {
        rc = -1;
    }
    pthread_mutex_unlock(&ours.lock);
    return rc;
}

static bool is_ours(int fd)
{
    size_t w = (size_t)fd / WORD_BITS;
    return w < ours.words && (ours.bits[w] >> ((size_t)fd % WORD_BITS) & 1);
}

/* A new memory file's descriptor, or -1 (errno set). */
static int memfd_new(void)
{
    int fd = memfd_create("sdtkit", MFD_CLOEXEC | MFD_EXEC);
    /* EINVAL: a kernel before MFD_EXEC; EACCES: vm.memfd_noexec=2 */
    if (fd < 0 && (errno == EINVAL || errno == EACCES))
        fd = memfd_create("sdtkit", MFD_CLOEXEC);
    return fd;
}

/* Memory files made ahead for new objects, checked by one look at the
 * program's descriptors (shadows_closed, for all of them at once): a
 * look costs a stat of every descriptor of the program's, so a process
 * with D descriptors open makes D / SPARE_PER files a look (1 to
 * SPARE_MAX), and a new object costs about SPARE_PER stats whatever D is.  They are ours
 * (mark_ours) while spare; a fork's child closes those it inherited (the
 * parent's files) at its first new object.  Lock order: spare, then ours. */
enum {
    SPARE_MAX = 128,
    SPARE_PER = 128
};

static struct {
    pthread_mutex_t lock;
    int fd[SPARE_MAX];
    int n;
    pid_t pid; /* the process they were made for */
} spare = {PTHREAD_MUTEX_INITIALIZER, {0}, 0, 0};

/* Close the spare files a fork's child inherited (locked). */
static void spares_inherited(void)
{
    pid_t me = getpid();
    if (spare.pid == me)
        return;
    for (int i = 0; i < spare.n; i++) {
        mark_ours(spare.fd[i], false);
        close(spare.fd[i]);
    }
    spare.n = 0;
    spare.pid = me;
}

/* One look at the program's descriptors, for n memory files: fd[i] is to
 * be known by the number at[i] (its own, or the one a renewal gives it).
 * bcc, and bpftrace through it, find a memory file's path from its
 * mapping's inode number alone, taking the first descriptor in
 * /proc/PID/fd whose file has it; a file of another filesystem (whose
 * numbers are its own: a tmpfs, the program's files) under a lower number
 * with fd[i]'s inode number would be taken instead, and the probes not
 * found.  Such fd[i] are closed (and no more ours); fd[] keeps the others,
 * in order: their count.  Only the program's descriptors are stat'ed, once
 * each, not the objects' (ours: memory files, whose numbers are unique
 * among them), so the cost does not grow with the number of objects. */
static int shadows_closed(int *fd, const int *at, int n)
{
    struct stat o;
    ino_t ino[SPARE_MAX];
    dev_t dev[SPARE_MAX];
    bool shadowed[SPARE_MAX] = {false};
    int top = 0, kept = 0;
    if (n < 0 || n > SPARE_MAX)
        return 0;
    for (int i = 0; i < n; i++) {
        shadowed[i] = fstat(fd[i], &o) != 0;
        ino[i] = o.st_ino;
        dev[i] = o.st_dev;
        top = at[i] > top ? at[i] : top;
    }
    pthread_mutex_lock(&ours.lock);
    for (int d = 0; d < top; d++) {
        if (is_ours(d) || fstat(d, &o) != 0)
            continue;
        for (int i = 0; i < n; i++)
            if (d < at[i] && o.st_ino == ino[i] && o.st_dev != dev[i])
                shadowed[i] = true;
    }
    pthread_mutex_unlock(&ours.lock);
    for (int i = 0; i < n; i++) {
        if (shadowed[i]) {
            mark_ours(fd[i], false);
            close(fd[i]);
        } else {
            fd[kept++] = fd[i];
        }
    }
    return kept;
}

/* A memory file's descriptor, or SDTKIT_E_LOAD after noting why; at: the
 * number it will have (see shadows_closed).  For a renewal. */
static int memory_file_at(int at, struct failure *why)
{
    for (int tries = 0;; tries++) {
        int fd = memfd_new();
        if (fd < 0)
            return fail_attempt(why, SDTKIT_E_LOAD, STAGE_FILE, errno, "memfd_create",
                                strerror(errno));
        if (tries == 8 || shadows_closed(&fd, &at, 1) == 1)
            return fd;
        /* closed: the next one has another inode number */
    }
}

/* A new memory file, marked ours: its descriptor, or -1 (errno set). */
static int spare_new(void)
{
    int fd = memfd_new();
    if (fd >= 0 && mark_ours(fd, true) != 0) {
        close(fd);
        fd = -1;
        errno = ENOMEM;
    }
    return fd;
}

/* Fill the spares (locked, none left): 0, or -1 (errno set). */
static int spares_made(void)
{
    for (int tries = 0; spare.n == 0 && tries < 8; tries++) {
        int n = 0, e = 0, want = 1;
        while (n < want) {
            int fd = spare_new();
            if (fd < 0) {
                e = errno;
                break;
            }
            spare.fd[n++] = fd;
            if (n == 1) /* the lowest number free: about the descriptors open */
                want = fd / SPARE_PER < 1           ? 1
                       : fd / SPARE_PER > SPARE_MAX ? SPARE_MAX
                                                    : fd / SPARE_PER;
        }
        if (n == 0) {
            errno = e;
            return -1;
        }
        spare.n = shadows_closed(spare.fd, spare.fd, n);
    }
    if (spare.n == 0) { /* shadowed 8 times over: one all the same */
        int fd = spare_new();
        if (fd < 0)
            return -1;
        spare.fd[spare.n++] = fd;
    }
    return 0;
}

/* A memory file's descriptor for a new object (one of the spares), or
 * SDTKIT_E_LOAD after noting why. */
static int memory_file(struct failure *why)
{
    int fd = -1, e = 0;
    pthread_mutex_lock(&spare.lock);
    spares_inherited();
    if (spare.n > 0 || spares_made() == 0)
        fd = spare.fd[--spare.n];
    else
        e = errno;
    pthread_mutex_unlock(&spare.lock);
    if (fd < 0)
        return fail_attempt(why, SDTKIT_E_LOAD, STAGE_FILE, e, "memfd_create", strerror(e));
    return fd;
}

/* dir exists and is not mounted noexec: 0, or SDTKIT_E_LOAD after noting
 * why. */
static int exec_dir(const char *dir, struct failure *why)
{
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0)
        return fail_attempt(why, SDTKIT_E_LOAD, STAGE_FILE, errno, dir, strerror(errno));
    if (vfs.f_flag & ST_NOEXEC)
        return fail_attempt(why, SDTKIT_E_LOAD, STAGE_FILE, 0, dir, "mounted noexec");
    return SDTKIT_OK;
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

/* DIR/sdtkit-PID-N.so, created and locked: its descriptor, or
 * SDTKIT_E_LOAD after noting why; its path in pl->path. */
static int named_file(const char *dir, struct placement *pl, struct failure *why)
{
    static unsigned long seq;
    remove_stale(dir);
    for (int tries = 0; tries < 100; tries++) {
        unsigned long n = __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED);
        if ((size_t)snprintf(pl->path, sizeof pl->path, "%s/%s%ld-%lu%s", dir, NAMED_PREFIX,
                             (long)getpid(), n, NAMED_SUFFIX) >= sizeof pl->path)
            return fail_attempt(why, SDTKIT_E_LOAD, STAGE_FILE, 0, dir, "path too long");
        int fd = open(pl->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        if (fd < 0 && errno == EEXIST)
            continue; /* a process of another PID namespace: the next number */
        if (fd < 0)
            return fail_attempt(why, SDTKIT_E_LOAD, STAGE_FILE, errno, dir, strerror(errno));
        /* Another process's remove_stale() may have opened it between the
         * two calls and removed it: then it has no name, try again. */
        struct stat st;
        if (flock(fd, LOCK_EX) == 0 && fstat(fd, &st) == 0 && st.st_nlink > 0)
            return fd;
        close(fd);
    }
    return fail_attempt(why, SDTKIT_E_LOAD, STAGE_FILE, 0, dir, "no free file name");
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

/* Write the pieces into a new file, leaving out the runs of whole pages
 * of zeros (the padding between an image's segments): they stay holes,
 * which read as zeros and cost no memory.  0, or -1 with errno. */
static int write_new(int fd, const struct piece *pieces, size_t n)
{
    enum {
        PAGE = 4096
    };
    static const unsigned char zeros[PAGE];
    for (size_t k = 0; k < n; k++) {
        const unsigned char *b = pieces[k].buf;
        uint64_t size = pieces[k].size, off = pieces[k].off, done = 0;
        while (done < size) {
            uint64_t run = PAGE - (off + done) % PAGE; /* to the next page boundary */
            if (run > size - done)
                run = size - done;
            bool hole = run == PAGE && memcmp(b + done, zeros, PAGE) == 0;
            if (!hole && write_all(fd, b + done, (size_t)run, off + done) != 0)
                return -1;
            done += run;
        }
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

/* What a load expects to find: the build-id of the object written. */
struct expected {
    const unsigned char *id;
    uint64_t at;
};

/* Load the object in fd (its path in pl->path, for a named file; else
 * /proc/PID/fd/N): 0; SDTKIT_E_LOAD after noting why; or 1 when the
 * loader gave another object.
 *
 * The loader hands back an object it has already when it knows the path
 * asked for, or the file's device and inode number: objects are never
 * unloaded, a path can come back (a descriptor number a program closed,
 * a named file a renewal unlinked, made again by another copy of this
 * library in the process), and so can an inode number (a file system
 * reuses those of files removed, such as the ones renewals replaced,
 * which the loader still remembers).  The build-id, which names the
 * object, tells. */
static int dlopen_checked(const char *what, int fd, const struct expected *want,
                          struct placement *pl, struct failure *why)
{
    char proc[64];
    const char *path = pl->path;
    if (!path[0]) {
        snprintf(proc, sizeof proc, "/proc/%ld/fd/%d", (long)getpid(), fd);
        path = proc;
    }
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    struct link_map *lm = NULL;
    if (!h || dlinfo(h, RTLD_DI_LINKMAP, &lm) != 0 || !lm) {
        const char *err = dlerror();
        /* a handle without a link map cannot happen: it stays */
        return fail_attempt(why, SDTKIT_E_LOAD, STAGE_DLOPEN, 0, what, err ? err : "dlopen failed");
    }
    if (memcmp((const void *)(lm->l_addr + (uintptr_t)want->at), want->id, DSO_BUILD_ID_SIZE) !=
        0) {
        dlclose(h); /* another object's: loaded for good, its count as it was */
        return 1;
    }
    pl->handle = h;
    pl->map = lm;
    pl->base = (uintptr_t)lm->l_addr;
    pl->fd = fd;
    if (path == proc)
        snprintf(pl->path, sizeof pl->path, "%s", proc);
    return SDTKIT_OK;
}

/* A new file for an object, in dir or in memory (dir NULL): its
 * descriptor, or SDTKIT_E_LOAD after noting why. */
static int new_file(const char *dir, struct placement *pl, struct failure *why)
{
    pl->path[0] = '\0';
    int fd = dir ? named_file(dir, pl, why) : memory_file(why);
    if (fd >= 0 && mark_ours(fd, true) != 0) {
        if (dir)
            unlink(pl->path);
        close(fd);
        return fail_attempt(why, SDTKIT_E_LOAD, STAGE_FILE, ENOMEM, dir ? dir : "memfd",
                            "out of memory");
    }
    return fd;
}

/* Close fd, which new_file() made, and remove it. */
static void drop_file(int fd, const char *dir, const char *path)
{
    mark_ours(fd, false);
    if (dir)
        unlink(path);
    close(fd);
}

/* One attempt: a memory file when dir is NULL, else a named file in dir,
 * written and loaded; a file the loader takes for another object is kept
 * open while the next is made, so that the next has another path and
 * inode number.  0, or SDTKIT_E_LOAD after noting why. */
static int try_place(const char *dir, const struct piece *pieces, size_t n,
                     const struct expected *want, struct placement *pl, struct failure *why)
{
    enum {
        TRIES = 8
    };
    const char *what = dir ? dir : "memfd";
    int rc, fd = -1, nrejected = 0, rejected[TRIES];
    char rejected_path[TRIES][sizeof pl->path];
    if (dir && (rc = exec_dir(dir, why)) != SDTKIT_OK)
        return rc;
    for (;;) {
        if ((fd = new_file(dir, pl, why)) < 0) {
            rc = fd;
            goto done;
        }
        if (write_new(fd, pieces, n) != 0) {
            rc = fail_attempt(why, SDTKIT_E_LOAD, STAGE_FILE, errno, what, strerror(errno));
            goto done;
        }
        if ((rc = dlopen_checked(what, fd, want, pl, why)) != 1)
            break;
        if (nrejected == TRIES) {
            rc = fail_attempt(why, SDTKIT_E_LOAD, STAGE_DLOPEN, 0, what,
                              "the loader gave another object for each file made");
            goto done;
        }
        memcpy(rejected_path[nrejected], pl->path, sizeof pl->path);
        rejected[nrejected++] = fd;
    }
    if (rc == SDTKIT_OK) {
        pl->named = dir != NULL;
        pl->dir = dir ? strdup(dir) : NULL; /* out of memory: of no directory asked for */
        fd = -1;
    }
done:
    if (fd >= 0) {
        drop_file(fd, dir, pl->path);
        pl->path[0] = '\0';
    }
    while (nrejected > 0) {
        nrejected--;
        drop_file(rejected[nrejected], dir, rejected_path[nrejected]);
    }
    return rc;
}

/* No descriptor was left: no other place can change that, and valgrind,
 * whose open() creates a file before it refuses its descriptor, would
 * leave an empty file in each. */
static bool out_of_descriptors(const struct failure *why)
{
    return why->err == EMFILE || why->err == ENFILE;
}

int place_object(const char *pname, bool named, const char *dir, const struct piece *pieces,
                 size_t n, const unsigned char *id, uint64_t id_at, struct placement *pl,
                 struct failure *why)
{
    const struct expected want = {id, id_at};
    const char *dirs[] = {dir,
                          getenv("SDTKIT_RUNTIME_DIR"),
                          getenv("XDG_RUNTIME_DIR"),
                          getenv("TMPDIR"),
                          "/dev/shm",
                          "/tmp",
                          "/var/tmp"};
    fail_clear(why);
    if (!named && try_place(NULL, pieces, n, &want, pl, why) == SDTKIT_OK)
        return SDTKIT_OK;
    for (size_t k = 0; !out_of_descriptors(why) && k < sizeof dirs / sizeof dirs[0]; k++) {
        if (dirs[k] && *dirs[k] && try_place(dirs[k], pieces, n, &want, pl, why) == SDTKIT_OK)
            return SDTKIT_OK;
        if (k == 0 && dir) /* a directory asked for, and nowhere else */
            break;
    }
    char tried[sizeof why->msg];
    memcpy(tried, why->msg, sizeof tried);
    int len = snprintf(why->msg, sizeof why->msg, "cannot load the probes of provider '%s' (%s)",
                       pname, tried);
    if (len >= (int)sizeof why->msg) /* say that the reasons go on */
        memcpy(why->msg + sizeof why->msg - 4, "...", 4);
    why->status = SDTKIT_E_LOAD;
    return SDTKIT_E_LOAD;
}

/* ---- renewing ---- */

/* Map segs of fd over pl's object, each [base + vaddr, + size) from its
 * offset: 0, or -1 with errno after the segments before the one that
 * failed were mapped (their count in *done). */
static int map_segments(const struct placement *pl, int fd, const struct segment *segs, size_t n,
                        size_t *done)
{
    for (*done = 0; *done < n; (*done)++) {
        const struct segment *g = &segs[*done];
        void *at = (void *)(pl->base + (uintptr_t)g->vaddr);
        if (mmap(at, (size_t)g->size, g->prot, MAP_PRIVATE | MAP_FIXED, fd, (off_t)g->off) ==
            MAP_FAILED)
            return -1;
    }
    return 0;
}

/* The loader's list names pl's object by path (a renewed named file's):
 * its l_name points at a copy of ours.  The loader's own string stays
 * where it is, still referred to (it never frees it: the object is never
 * unloaded); a copy of ours it replaces is freed. */
static void name_in_link_map(struct placement *pl, const char *path)
{
    char *copy = strdup(path);
    if (!copy || !pl->map) {
        free(copy);
        return;
    }
    if (!pl->loader_name)
        pl->loader_name = pl->map->l_name;
    char *mine = pl->name;
    __atomic_store_n(&pl->map->l_name, copy, __ATOMIC_RELEASE);
    pl->name = copy;
    free(mine);
}

int place_renew(struct placement *pl, const struct piece *pieces, size_t n,
                const struct segment *segs, const struct segment *old, size_t nsegs, bool *torn,
                struct failure *why)
{
    char path[sizeof pl->path], old_path[sizeof pl->path];
    struct placement fresh = *pl;
    *torn = false;
    fail_clear(why);
    fresh.path[0] = '\0';
    if (pl->named && !pl->dir)
        return fail(why, SDTKIT_E_NOMEM, STAGE_FILE, "out of memory");
    int fd = pl->named ? named_file(pl->dir, &fresh, why) : memory_file_at(pl->fd, why);
    if (fd < 0)
        return fd;
    memcpy(path, fresh.path, sizeof path);
    size_t done = 0;
    if (write_new(fd, pieces, n) != 0 || map_segments(pl, fd, segs, nsegs, &done) != 0) {
        int e = errno;
        size_t back;
        /* the segments mapped from the new file go back to the old one; if
         * that fails too, the object is half of each, which fire and
         * is-enabled do not see (the bytes are the same), but tracers
         * would: the caller never uses it again */
        if (done && map_segments(pl, pl->fd, old, done, &back) != 0)
            *torn = true;
        if (pl->named)
            unlink(path);
        close(fd);
        return fail_attempt(why, SDTKIT_E_LOAD, STAGE_FILE, e, "renewing an object", strerror(e));
    }
    if (pl->named) {
        memcpy(old_path, pl->path, sizeof old_path);
        memcpy(pl->path, path, sizeof pl->path);
        name_in_link_map(pl, pl->path);
        unlink(old_path);
    }
    /* the new file takes the old one's descriptor number, which the
     * loader's list names for a memory file */
    if (dup3(fd, pl->fd, O_CLOEXEC) >= 0) {
        close(fd);
    } else { /* EBUSY, racing another thread's open: its own number, then */
        mark_ours(pl->fd, false);
        close(pl->fd);
        pl->fd = fd;
        mark_ours(fd, true);
        if (!pl->named) {
            char proc[64];
            name_in_link_map(pl, place_path(pl, proc, sizeof proc));
        }
    }
    return SDTKIT_OK;
}

void place_forked(struct placement *pl)
{
    if (pl->named || !pl->map)
        return; /* the same name in both */
    char *buf = pl->forked[pl->forked_next];
    pl->forked_next ^= 1;
    snprintf(buf, sizeof pl->forked[0], "/proc/%ld/fd/%d", (long)getpid(), pl->fd);
    if (!pl->loader_name)
        pl->loader_name = pl->map->l_name;
    __atomic_store_n(&pl->map->l_name, buf, __ATOMIC_RELEASE);
    /* (our malloc'd copy, if any, stays allocated: no free here) */
    pl->name = NULL;
}
