/* SPDX-License-Identifier: MIT */
/*
 * dtrace-source.c: the text of an input file.
 *
 * Without -C the file is read as it is.  With -C it goes through $CPP
 * (default TRIPLET-cpp for TRIPLET-dtrace where there is one, else cpp), split into words like a shell would split them but never
 * run through one, followed by the -I/-D/-U options in command-line order
 * and "-x c FILE".  "-x c" makes drivers such as "gcc -E" preprocess a
 * ".d" file as C instead of taking it for a linker input; the file is named
 * on the command line (not fed on stdin) so that #include "..." searches
 * its directory and the line markers name it: diagnostics then point into
 * the original file.  The output is read through a pipe, never a file.
 * Only a regular file is given to $CPP (see check_cpp_input).
 */
#include "dtrace.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int run_cpp(const char *path, const struct cpp_options *cpp, struct buf *text)
{
    struct strvec argv = {0};
    const char *why = NULL;
    if (split_words(cpp->cpp, &argv, &why) != 0 || argv.n == 0) {
        error("cannot use CPP='%s': %s", cpp->cpp, why ? why : "no command");
        strvec_free(&argv);
        return -1;
    }
    for (size_t i = 0; i < cpp->args.n; i++)
        strvec_push(&argv, cpp->args.v[i]);
    strvec_push(&argv, "-x");
    strvec_push(&argv, "c");
    /* A file name starting with '-' would read as an option. */
    if (path[0] == '-') {
        struct buf b = {0};
        buf_adds(&b, "./");
        buf_adds(&b, path);
        strvec_push(&argv, b.data);
        buf_free(&b);
    } else {
        strvec_push(&argv, path);
    }

    struct buf what = {0};
    buf_printf(&what, "%s: preprocessing with '%s'", path, cpp->cpp);
    int rc = run_capture(argv.v, what.data, text);
    buf_free(&what);
    strvec_free(&argv);
    return rc;
}

/* Before $CPP opens the file itself: fail early and clearly on a missing or
 * unreadable input (cpp's own message would be less direct), and refuse
 * anything but a regular file: cpp would wait forever on a FIFO nobody
 * writes, or read a device without end. */
static int check_cpp_input(const char *path)
{
    int fd = open_regular(path, NULL);
    if (fd >= 0) {
        close(fd);
        return 0;
    }
    if (errno == EISDIR)
        error("cannot read '%s': %s", path, strerror(EISDIR));
    else if (errno == EINVAL)
        error("cannot preprocess '%s': not a regular file", path);
    else
        error("cannot open '%s': %s", path, strerror(errno));
    return -1;
}

void cpp_choose(struct cpp_options *cpp, const char *triplet)
{
    const char *env = getenv("CPP");
    cpp->cpp = "cpp";
    cpp->from = "the default";
    if (env && *env) {
        cpp->cpp = env;
        cpp->from = "$CPP";
        return;
    }
    if (!triplet)
        return;
    buf_printf(&cpp->own, "%s-cpp", triplet);
    if (program_on_path(cpp->own.data)) {
        cpp->cpp = cpp->own.data;
        cpp->from = "dtrace's name";
    }
}

int source_load(const char *path, const struct cpp_options *cpp, struct buf *text)
{
    if (cpp && cpp->enabled) {
        if (check_cpp_input(path) != 0)
            return -1;
        return run_cpp(path, cpp, text);
    }
    return read_text(path, text);
}
