/* SPDX-License-Identifier: MIT */
/*
 * place.c: a file the loaded object can live in, and loading it.
 *
 * Uprobes are keyed by inode and offset, so the probes must be in a
 * file-backed mapping; and gdb finds a shared object through the loader's
 * list, so it is loaded with dlopen.  The file is, in turn:
 *
 *   1. a memory file (memfd_create), executable: MFD_EXEC where the kernel
 *      knows it (Linux 6.3+, where vm.memfd_noexec=1 would otherwise seal
 *      it non-executable), plain on older kernels, which reject the flag;
 *   2. when that is refused (vm.memfd_noexec=2 refuses MFD_EXEC), or the
 *      loader cannot map it executable, an unnamed file (O_TMPFILE) in the
 *      first candidate directory that is not mounted noexec; a file system
 *      without O_TMPFILE gets a named one, unlinked as soon as it is open.
 *
 * The loader is given /proc/PID/fd/N, a path that names the file for as
 * long as it is open, from any process: bpftrace, bcc and libbpf find it
 * there through the mapping's inode, gdb by that name.  The file stays
 * open until the object is dropped, so the number is never reused for
 * another file while the loader's list still names it.  Nothing has a name
 * on disk: nothing is left behind, whatever happens to the process.
 *
 * perf is the exception: `perf buildid-cache --add' and `perf probe -x'
 * resolve the path they are given, and /proc/PID/fd/N resolves to no file.
 * A provider asked for a named file (sdtkit_provider_use_named_file, or
 * SDTKIT_RUNTIME_NAMED=1) gets DIR/sdtkit-PID-PROVIDER-N.so instead,
 * loaded by that name.  It is removed when the provider is unloaded or
 * destroyed and when the process exits normally; a process killed or
 * crashed leaves it, and the next named load in that directory removes the
 * files of processes that no longer exist.
 */
#define _GNU_SOURCE
#include "runtime.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <unistd.h>

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U /* Linux 6.3: executable, even under vm.memfd_noexec=1 */
#endif

#define NAMED_PREFIX "sdtkit-"

/* The named files of this process, removed at exit. */
static struct {
    pthread_mutex_t lock;
    struct object *list;
    unsigned long seq;
} named = {PTHREAD_MUTEX_INITIALIZER, NULL, 0};

static void named_add(struct object *obj)
{
    pthread_mutex_lock(&named.lock);
    obj->next_named = named.list;
    named.list = obj;
    pthread_mutex_unlock(&named.lock);
}

/* Unlink obj's file, once, and forget it. */
static void named_remove(struct object *obj)
{
    pthread_mutex_lock(&named.lock);
    for (struct object **p = &named.list; *p; p = &(*p)->next_named) {
        if (*p == obj) {
            *p = obj->next_named;
            unlink(obj->path);
            break;
        }
    }
    pthread_mutex_unlock(&named.lock);
}

__attribute__((destructor)) static void named_remove_all(void)
{
    pthread_mutex_lock(&named.lock);
    for (struct object *o = named.list; o; o = o->next_named)
        unlink(o->path);
    named.list = NULL;
    pthread_mutex_unlock(&named.lock);
}

/* Append to pv's error what one attempt met (the reasons of every attempt
 * make the message of a failed load). */
static void attempt_failed(struct sdtkit_provider *pv, const char *what, const char *why)
{
    size_t n = strlen(pv->error);
    snprintf(pv->error + n, sizeof pv->error - n, "%s%s: %s", n ? "; " : "", what, why);
}

static int memory_file(struct sdtkit_provider *pv)
{
    int fd = memfd_create(pv->name, MFD_CLOEXEC | MFD_EXEC);
    if (fd < 0 && errno == EINVAL) /* a kernel that does not know MFD_EXEC */
        fd = memfd_create(pv->name, MFD_CLOEXEC);
    if (fd < 0)
        attempt_failed(pv, "memfd_create", strerror(errno));
    return fd;
}

/* dir exists and is not mounted noexec. */
static bool exec_dir(struct sdtkit_provider *pv, const char *dir)
{
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0) {
        attempt_failed(pv, dir, strerror(errno));
        return false;
    }
    if (vfs.f_flag & ST_NOEXEC) {
        attempt_failed(pv, dir, "mounted noexec");
        return false;
    }
    return true;
}

/* An unnamed file in dir, or a named one unlinked at once. */
static int unnamed_file(struct sdtkit_provider *pv, const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0700);
    if (fd >= 0)
        return fd;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
        attempt_failed(pv, dir, strerror(errno));
        return -1;
    }
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/.%s%s.XXXXXX", dir, NAMED_PREFIX, pv->name) >=
        sizeof path) {
        attempt_failed(pv, dir, "path too long");
        return -1;
    }
    fd = mkostemp(path, O_CLOEXEC);
    if (fd < 0) {
        attempt_failed(pv, dir, strerror(errno));
        return -1;
    }
    unlink(path);
    return fd;
}

/* Remove the named files of processes that no longer exist from dir. */
static void remove_stale(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d));) {
        char *end;
        if (strncmp(e->d_name, NAMED_PREFIX, strlen(NAMED_PREFIX)) != 0)
            continue;
        long pid = strtol(e->d_name + strlen(NAMED_PREFIX), &end, 10);
        if (pid <= 0 || *end != '-' || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        unlinkat(dirfd(d), e->d_name, 0);
    }
    closedir(d);
}

/* DIR/sdtkit-PID-PROVIDER-N.so, created; its path in obj->path. */
static int named_file(struct sdtkit_provider *pv, const char *dir, struct object *obj)
{
    remove_stale(dir);
    pthread_mutex_lock(&named.lock);
    unsigned long n = ++named.seq;
    pthread_mutex_unlock(&named.lock);
    if ((size_t)snprintf(obj->path, sizeof obj->path, "%s/%s%ld-%s-%lu.so", dir, NAMED_PREFIX,
                         (long)getpid(), pv->name, n) >= sizeof obj->path) {
        attempt_failed(pv, dir, "path too long");
        return -1;
    }
    int fd = open(obj->path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        attempt_failed(pv, dir, strerror(errno));
    return fd;
}

static int write_all(int fd, const void *buf, size_t size)
{
    const char *p = buf;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        size -= (size_t)n;
    }
    return 0;
}

/* Write the object to fd and load it from obj->path, or /proc/PID/fd/N
 * when that is empty.  0, or -1 after noting why (the caller closes fd). */
static int load_from(struct sdtkit_provider *pv, const char *what, int fd, const void *buf,
                     size_t size, struct object *obj)
{
    if (write_all(fd, buf, size) != 0) {
        attempt_failed(pv, what, strerror(errno));
        pv->stage = STAGE_FILE;
        return -1;
    }
    if (!obj->path[0])
        snprintf(obj->path, sizeof obj->path, "/proc/%ld/fd/%d", (long)getpid(), fd);
    obj->handle = dlopen(obj->path, RTLD_NOW | RTLD_LOCAL);
    if (!obj->handle) {
        const char *err = dlerror();
        attempt_failed(pv, what, err ? err : "dlopen failed");
        pv->stage = STAGE_DLOPEN;
        return -1;
    }
    obj->fd = fd;
    return 0;
}

/* One attempt: attempt 0 is the memory file, then one per directory. */
static int try_place(struct sdtkit_provider *pv, bool named_mode, const char *dir, const void *buf,
                     size_t size, struct object *obj)
{
    const char *what = dir ? dir : "memfd";
    if (dir && !exec_dir(pv, dir))
        return -1;
    obj->path[0] = '\0';
    int fd = !dir ? memory_file(pv) : named_mode ? named_file(pv, dir, obj) : unnamed_file(pv, dir);
    if (fd < 0)
        return -1;
    if (load_from(pv, what, fd, buf, size, obj) == 0) {
        obj->named = named_mode;
        if (named_mode)
            named_add(obj);
        return 0;
    }
    close(fd);
    if (named_mode)
        unlink(obj->path);
    obj->path[0] = '\0';
    return -1;
}

int place_object(struct sdtkit_provider *pv, const void *buf, size_t size, struct object *obj)
{
    const char *env = getenv("SDTKIT_RUNTIME_NAMED");
    bool named_mode = pv->named || (env && strcmp(env, "1") == 0);
    const char *dirs[] = {pv->named_dir,
                          getenv("SDTKIT_RUNTIME_DIR"),
                          getenv("XDG_RUNTIME_DIR"),
                          getenv("TMPDIR"),
                          "/dev/shm",
                          "/tmp",
                          "/var/tmp"};
    pv->error[0] = '\0';
    pv->stage = STAGE_FILE;
    if (!named_mode && !pv->prefer_file && try_place(pv, false, NULL, buf, size, obj) == 0)
        return 0;
    for (size_t k = 0; k < sizeof dirs / sizeof dirs[0]; k++) {
        if (dirs[k] && *dirs[k] && try_place(pv, named_mode, dirs[k], buf, size, obj) == 0)
            return 0;
        if (k == 0 && pv->named_dir) /* a directory asked for, and nowhere else */
            break;
    }
    char tried[sizeof pv->error];
    memcpy(tried, pv->error, sizeof tried);
    int n = snprintf(pv->error, sizeof pv->error, "cannot load the probes of provider '%s' (%s)",
                     pv->name, tried);
    if (n >= (int)sizeof pv->error) /* say that the reasons go on */
        memcpy(pv->error + sizeof pv->error - 4, "...", 4);
    return -1;
}

int object_base(const struct object *obj, uintptr_t *base)
{
    struct link_map *lm = NULL;
    if (dlinfo(obj->handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
        return -1;
    *base = (uintptr_t)lm->l_addr;
    return 0;
}

void hide_object(struct object *obj)
{
    /* Zeros read as notes with no name: no tracer takes them for probes.
     * The notes are not loaded, so the mapping does not change. */
    static const char zeros[4096];
    uint64_t off = obj->notes_offset, left = obj->notes_size;
    while (left > 0) {
        size_t n = left < sizeof zeros ? (size_t)left : sizeof zeros;
        if (pwrite(obj->fd, zeros, n, (off_t)off) != (ssize_t)n)
            break; /* the probes stay visible, and inert */
        off += n;
        left -= n;
    }
    if (obj->named)
        named_remove(obj);
}

void drop_object(struct object *obj)
{
    if (obj->named)
        named_remove(obj);
    if (obj->handle)
        dlclose(obj->handle);
    if (obj->fd >= 0)
        close(obj->fd);
    obj->handle = NULL;
    obj->fd = -1;
}
