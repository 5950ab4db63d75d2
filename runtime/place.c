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
 * there through the mapping's inode, gdb and perf by that name.  The file
 * stays open until the object is dropped, so the number is never reused
 * for another file while the loader's list still names it.  Nothing has a
 * name on disk: nothing is left behind, whatever happens to the process.
 */
#define _GNU_SOURCE
#include "runtime.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
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

/* An unnamed file in dir, or a named one unlinked at once. */
static int dir_file(struct sdtkit_provider *pv, const char *dir)
{
    struct statvfs vfs;
    if (statvfs(dir, &vfs) != 0) {
        attempt_failed(pv, dir, strerror(errno));
        return -1;
    }
    if (vfs.f_flag & ST_NOEXEC) {
        attempt_failed(pv, dir, "mounted noexec");
        return -1;
    }
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0700);
    if (fd >= 0)
        return fd;
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL) {
        attempt_failed(pv, dir, strerror(errno));
        return -1;
    }
    char path[4096];
    if ((size_t)snprintf(path, sizeof path, "%s/.sdtkit-%s.XXXXXX", dir, pv->name) >= sizeof path) {
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

/* Write the object to fd and load it from /proc/PID/fd/N.  0, or -1 after
 * noting why (the caller closes fd). */
static int load_from(struct sdtkit_provider *pv, const char *what, int fd, const void *buf,
                     size_t size, struct object *obj)
{
    if (write_all(fd, buf, size) != 0) {
        attempt_failed(pv, what, strerror(errno));
        pv->stage = STAGE_FILE;
        return -1;
    }
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

int place_object(struct sdtkit_provider *pv, const void *buf, size_t size, struct object *obj)
{
    const char *dirs[] = {getenv("SDTKIT_RUNTIME_DIR"),
                          getenv("XDG_RUNTIME_DIR"),
                          getenv("TMPDIR"),
                          "/dev/shm",
                          "/tmp",
                          "/var/tmp"};
    size_t ndirs = sizeof dirs / sizeof dirs[0];
    pv->error[0] = '\0';
    pv->stage = STAGE_FILE;
    /* attempt 0 is the memory file, then one per directory */
    for (size_t k = pv->prefer_file ? 1 : 0; k <= ndirs; k++) {
        const char *what = k == 0 ? "memfd" : dirs[k - 1];
        if (!what || !*what)
            continue;
        int fd = k == 0 ? memory_file(pv) : dir_file(pv, what);
        if (fd < 0)
            continue;
        if (load_from(pv, what, fd, buf, size, obj) == 0)
            return 0;
        close(fd);
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

void hide_object(const struct object *obj)
{
    /* Zeros read as notes with no name: no tracer takes them for probes.
     * The notes are not loaded, so the mapping does not change. */
    static const char zeros[4096];
    uint64_t off = obj->notes_offset, left = obj->notes_size;
    while (left > 0) {
        size_t n = left < sizeof zeros ? (size_t)left : sizeof zeros;
        if (pwrite(obj->fd, zeros, n, (off_t)off) != (ssize_t)n)
            return; /* the probes stay visible, and inert */
        off += n;
        left -= n;
    }
}

void drop_object(struct object *obj)
{
    if (obj->handle)
        dlclose(obj->handle);
    if (obj->fd >= 0)
        close(obj->fd);
    obj->handle = NULL;
    obj->fd = -1;
}
