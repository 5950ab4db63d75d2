/* SPDX-License-Identifier: MIT */
/*
 * file.c: reading files whole, whatever the path names.
 *
 * A provider file may be a regular file, a pipe, a FIFO or a device
 * (read_text: bounded, and a FIFO nobody writes is given up on); an object
 * file must be a regular file (read_object: never blocks, never reads a
 * device forever); a file a diagnostic shows a line of must be a regular
 * file too (open_regular).  read_fd is the one loop that reads to the end
 * with a cap, for files and for a child's output (spawn.c).
 */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int read_fd(int fd, size_t max, struct buf *out)
{
    size_t start = out->len;
    for (;;) {
        buf_reserve(out, 65536);
        /* never more than one byte past max, so memory stays near max */
        size_t want = out->cap - out->len - 1, left = max - (out->len - start) + 1;
        ssize_t n = read(fd, out->data + out->len, want < left ? want : left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        if (n == 0)
            break;
        out->len += (size_t)n;
        if (out->len - start > max) {
            errno = EFBIG;
            return -1;
        }
    }
    out->data[out->len] = '\0';
    return 0;
}

/* read_fd, reporting a failure as about path. */
static int read_fd_reporting(int fd, const char *path, size_t max, struct buf *out)
{
    if (read_fd(fd, max, out) == 0)
        return 0;
    if (errno == EFBIG)
        error("cannot read '%s': larger than %zu MiB", path, max >> 20);
    else
        error("cannot read '%s': %s", path, strerror(errno));
    return -1;
}

static void on_alarm(int sig) { (void)sig; }

/*
 * Only a FIFO blocks in open(), until some process opens its other end; once
 * one has, reads and writes wait for it as long as it takes, like any
 * reader's or writer's would.  The alarm interrupts open() with EINTR (the
 * handler is installed without SA_RESTART).
 */
int open_waiting(const char *path, int flags)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_alarm;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, &old);
    alarm(FIFO_WAIT_SECONDS);
    int fd = open(path, flags);
    int err = errno;
    alarm(0);
    sigaction(SIGALRM, &old, NULL);
    errno = err;
    return fd;
}

int open_regular(const char *path, struct stat *st)
{
    /* O_NONBLOCK: opening a FIFO must not wait for a writer. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    if (fd < 0)
        return -1;
    struct stat own;
    st = st ? st : &own;
    int err = 0;
    if (fstat(fd, st) != 0)
        err = errno;
    else if (S_ISDIR(st->st_mode))
        err = EISDIR;
    else if (!S_ISREG(st->st_mode))
        err = EINVAL;
    if (err) {
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

int read_text(const char *path, struct buf *out)
{
    int fd = open_waiting(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0 && errno == EINTR) {
        error("cannot read '%s': no process opened the FIFO for writing within %d seconds", path,
              FIFO_WAIT_SECONDS);
        return -1;
    }
    if (fd < 0) {
        error("cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st) != 0) {
        error("cannot read '%s': %s", path, strerror(errno));
        goto done;
    }
    if (S_ISDIR(st.st_mode)) {
        error("cannot read '%s': %s", path, strerror(EISDIR));
        goto done;
    }
    if (S_ISREG(st.st_mode) && (uintmax_t)st.st_size > MAX_TEXT_SIZE) {
        error("cannot read '%s': larger than %zu MiB", path, MAX_TEXT_SIZE >> 20);
        goto done;
    }
    if (S_ISREG(st.st_mode))
        buf_reserve(out, (size_t)st.st_size);
    rc = read_fd_reporting(fd, path, MAX_TEXT_SIZE, out);
done:
    close(fd);
    return rc;
}

int read_object(const char *path, struct buf *out)
{
    struct stat st;
    int fd = open_regular(path, &st);
    if (fd < 0 && errno == EINVAL) {
        error("cannot read '%s': not a regular file", path);
        return -1;
    }
    if (fd < 0 && errno == EISDIR) {
        error("cannot read '%s': %s", path, strerror(EISDIR));
        return -1;
    }
    if (fd < 0) {
        error("cannot open '%s': %s", path, strerror(errno));
        return -1;
    }
    int rc = -1;
    if ((uintmax_t)st.st_size >= SIZE_MAX / 2) {
        error("cannot read '%s': %s", path, strerror(EFBIG));
        goto done;
    }
    buf_reserve(out, (size_t)st.st_size);
    rc = read_fd_reporting(fd, path, SIZE_MAX / 2, out);
done:
    close(fd);
    return rc;
}
