/* SPDX-License-Identifier: MIT */
/*
 * output.c: writing the result without ever leaving a half-written file.
 *
 * A regular file (or a name that does not exist yet) is replaced
 * atomically: the data goes to a temporary file made with mkstemp in the
 * same directory (so parallel `make -j` runs never collide and rename()
 * stays within one file system), is checked, closed, given the mode the
 * file had or 0666 & ~umask for a new one, and renamed over the output.
 * On any failure the temporary file is removed and the old output is left
 * as it was.  SIGINT, SIGTERM, SIGHUP and SIGPIPE remove it too (they are
 * held back while it is created, so none slips in before the handler knows
 * it; one that was ignored when we started stays ignored); SIGXFSZ is
 * ignored while writing so a file-size limit is an ordinary write error.
 *
 * A symbolic link is followed: the file it points to is replaced, in that
 * file's directory, and the link stays a link (as if written through it).
 * Anything that is not a regular file -- /dev/null, a terminal, a FIFO --
 * is opened and written directly: there is nothing to rename onto (a FIFO
 * nobody opens for reading within FIFO_WAIT_SECONDS is an error).
 */
#include "core.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary file a signal handler must remove (one-shot CLI state): the
 * path itself, which lives until disarm(), never a truncated copy. */
static const char *volatile pending_tmp;

static const int cleanup_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
#define NSIGNALS (sizeof cleanup_signals / sizeof cleanup_signals[0])

static void on_signal(int sig)
{
    const char *tmp = pending_tmp;
    if (tmp)
        unlink(tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

struct saved_signals {
    struct sigaction old[NSIGNALS];
    struct sigaction old_xfsz;
    sigset_t old_mask;
};

/* Hold the cleanup signals back from before the temporary file exists
 * until arm() is ready to remove it: none can slip in between. */
static void block(struct saved_signals *saved)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaddset(&set, cleanup_signals[i]);
    sigprocmask(SIG_BLOCK, &set, &saved->old_mask);
}

static void unblock(const struct saved_signals *saved)
{
    sigprocmask(SIG_SETMASK, &saved->old_mask, NULL);
}

/* Install the handlers that remove tmp, then let the held-back signals in.
 * A signal we were started ignoring (nohup, a background job) stays
 * ignored: it must not end us now. */
static void arm(const char *tmp, struct saved_signals *saved)
{
    pending_tmp = tmp;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NSIGNALS; i++) {
        sigaction(cleanup_signals[i], NULL, &saved->old[i]);
        if (saved->old[i].sa_handler != SIG_IGN)
            sigaction(cleanup_signals[i], &sa, NULL);
    }
    sa.sa_handler = SIG_IGN;
    sigaction(SIGXFSZ, &sa, &saved->old_xfsz);
    unblock(saved);
}

/* After the temporary file is renamed or removed. */
static void disarm(const struct saved_signals *saved)
{
    for (size_t i = 0; i < NSIGNALS; i++)
        sigaction(cleanup_signals[i], &saved->old[i], NULL);
    sigaction(SIGXFSZ, &saved->old_xfsz, NULL);
    pending_tmp = NULL;
}

static int write_all(int fd, const void *data, size_t len)
{
    const char *p = data;
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Follow symbolic links from path to the file they lead to (which need not
 * exist yet).  NULL after reporting a loop or an unreadable link. */
static char *follow_links(const char *path)
{
    char *cur = xstrdup(path);
    for (int depth = 0; depth < 40; depth++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode))
            return cur;
        char target[PATH_MAX];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0) {
            error("cannot read the symbolic link '%s': %s", cur, strerror(errno));
            free(cur);
            return NULL;
        }
        target[n] = '\0';
        char *dir = path_dirname(cur);
        char *next = path_join(dir, target);
        free(dir);
        free(cur);
        cur = next;
    }
    error("cannot write '%s': %s", path, strerror(ELOOP));
    free(cur);
    return NULL;
}

/* An output being written: a temporary file to rename over a regular
 * file, or the FIFO, pipe, terminal or device itself. */
struct output {
    char *shown; /* the name the user gave */
    char *real;  /* the file written: symbolic links followed */
    char *tmp;   /* the temporary file, or NULL when writing directly */
    int fd;
    bool failed;                /* a write failed (and was reported) */
    struct saved_signals saved; /* (temporary file) */
    struct sigaction old_pipe;  /* (direct) */
};

static void output_free(struct output *o)
{
    free(o->shown);
    free(o->real);
    free(o->tmp);
    free(o);
}

/* A FIFO, pipe, terminal or device: waiting at most FIFO_WAIT_SECONDS for
 * a FIFO's reader, and with SIGPIPE ignored, so a reader that goes away is
 * a write error (EPIPE), not a silent death. */
static int open_direct(struct output *o)
{
    o->fd = open_waiting(o->real, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (o->fd < 0 && errno == EINTR) {
        error("cannot write '%s': no process opened the FIFO for reading within %d seconds",
              o->real, FIFO_WAIT_SECONDS);
        return -1;
    }
    if (o->fd < 0) {
        error("cannot open '%s': %s", o->real, strerror(errno));
        return -1;
    }
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &o->old_pipe);
    return 0;
}

/* A temporary file next to the file it will replace, with the handlers
 * that remove it armed before anything is written. */
static int open_temporary(struct output *o, mode_t mode)
{
    char *dir = path_dirname(o->real);
    struct buf tmp = {0};
    buf_printf(&tmp, "%s/.%.64s.tmpXXXXXX", dir, path_basename(o->real));
    block(&o->saved);
    o->fd = mkstemp(tmp.data);
    if (o->fd < 0) {
        int err = errno;
        unblock(&o->saved);
        error("cannot create '%s': cannot make a temporary file in '%s': %s", o->shown, dir,
              strerror(err));
        buf_free(&tmp);
        free(dir);
        return -1;
    }
    free(dir);
    o->tmp = tmp.data;
    arm(o->tmp, &o->saved);
    /* A file system without modes (vfat) may refuse; the file then keeps
     * mkstemp's 0600, which errs on the safe side. */
    (void)fchmod(o->fd, mode);
    return 0;
}

struct output *output_open(const char *path)
{
    struct output *o = xcalloc(1, sizeof *o);
    o->fd = -1;
    o->shown = xstrdup(path);
    o->real = follow_links(path);
    if (!o->real)
        goto fail;
    struct stat st;
    if (stat(o->real, &st) == 0) {
        if (S_ISDIR(st.st_mode)) {
            error("cannot write '%s': %s", path, strerror(EISDIR));
            goto fail;
        }
        if (!S_ISREG(st.st_mode)) {
            if (open_direct(o) != 0)
                goto fail;
            return o;
        }
        if (open_temporary(o, st.st_mode & 0777) != 0)
            goto fail;
        return o;
    }
    if (errno != ENOENT) {
        error("cannot write '%s': %s", path, strerror(errno));
        goto fail;
    }
    mode_t mask = umask(0);
    umask(mask);
    if (open_temporary(o, 0666 & ~mask) != 0)
        goto fail;
    return o;
fail:
    output_free(o);
    return NULL;
}

int output_append(struct output *o, const void *data, size_t len)
{
    if (o->failed)
        return -1;
    if (write_all(o->fd, data, len) != 0) {
        error("cannot write '%s': %s", o->shown, strerror(errno));
        o->failed = true;
        return -1;
    }
    return 0;
}

int output_close(struct output *o)
{
    int rc = o->failed ? -1 : 0;
    if (close(o->fd) != 0 && rc == 0) {
        error("cannot write '%s': %s", o->shown, strerror(errno));
        rc = -1;
    }
    if (!o->tmp) {
        sigaction(SIGPIPE, &o->old_pipe, NULL);
    } else {
        if (rc == 0 && rename(o->tmp, o->real) != 0) {
            error("cannot create '%s': %s", o->shown, strerror(errno));
            rc = -1;
        }
        if (rc != 0)
            unlink(o->tmp);
        disarm(&o->saved);
    }
    output_free(o);
    return rc;
}

void output_discard(struct output *o)
{
    o->failed = true;
    (void)output_close(o);
}

int output_write(const char *path, const void *data, size_t len)
{
    struct output *o = output_open(path);
    if (!o)
        return -1;
    (void)output_append(o, data, len);
    return output_close(o);
}
