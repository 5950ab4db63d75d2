/* SPDX-License-Identifier: MIT */
/*
 * diag.c: diagnostics as a compiler writes them.
 *
 *   prov.d:3:5: error: expected 'probe' or '}' in provider 'p', found 'prob'; did you mean 'probe'?
 *       3 |     prob a();
 *         |     ^
 *   prov.d:1:12: note: the provider's '{' is here
 *
 * The first line is the message (what scripts and tests match); a message
 * with a position then shows that line of the file and a caret under the
 * column.  The line is read again from the file the position names: after
 * -C that is the original file (cpp's line markers name it), not cpp's
 * output.  Only a regular file is opened (never a FIFO or a device a line
 * marker might name), without blocking, and one line is read as a stream:
 * a 100 MB line costs one pass and a bounded window of memory.  Long lines
 * are trimmed around the column; tabs are expanded on both lines so the
 * caret stays under its character; bytes that are not printable UTF-8
 * (control characters, binary, a lone CR) show as '?'.
 *
 * Colour (as gcc's: bold position, red error, magenta warning, cyan note,
 * green caret) only when stderr is a terminal and NO_COLOR is not set
 * (https://no-color.org).
 */
#include "core.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* Notes point back (a duplicate's first declaration), so going back must
 * be cheap: the start of every MARK_EVERY-th line is kept (8 bytes per 256
 * lines).  And whatever the diagnostics ask, no more than READ_BUDGET
 * bytes are read to show lines in one run: after that, messages come
 * without their line, so a million errors on one 100 MB line cannot
 * become a quadratic read. */
enum {
    MARK_EVERY = 256
};
#define READ_BUDGET ((long long)256 << 20)

/* The file the last source line came from: diagnostics come in file
 * order, so each line is found by reading on from the previous one. */
struct cursor {
    char *file;  /* its name, or NULL */
    FILE *fp;    /* NULL when the file cannot be shown */
    long line;   /* the line fp is at the start of */
    long *marks; /* marks[i]: where line i * MARK_EVERY + 1 starts */
    size_t nmarks, capmarks;
};

/* All of diag.c's state, one per process (diagnostics are for one-shot
 * programs): the name messages start with, whether to colour them, what
 * is left of the read budget, and the cursor. */
static struct {
    const char *program;
    int colour; /* -1: not decided yet */
    long long read_budget;
    struct cursor cursor;
} diag = {"dtrace", -1, READ_BUDGET, {NULL, NULL, 1, NULL, 0, 0}};

/* The next byte of the file being shown, or EOF (also once the budget is
 * spent). */
static int next_byte(void)
{
    if (diag.read_budget <= 0)
        return EOF;
    diag.read_budget--;
    return getc_unlocked(diag.cursor.fp);
}

void diag_set_program(const char *name) { diag.program = name; }
const char *diag_program(void) { return diag.program; }

/* ---- colour ---- */

static bool use_colour(void)
{
    if (diag.colour < 0) {
        const char *no = getenv("NO_COLOR");
        diag.colour = !(no && *no) && isatty(STDERR_FILENO);
    }
    return diag.colour;
}

static void paint(const char *sgr)
{
    if (use_colour())
        fprintf(stderr, "\033[%sm", sgr);
}

static const char *kind_colour(const char *kind)
{
    if (strcmp(kind, "error") == 0)
        return "01;31";
    if (strcmp(kind, "warning") == 0)
        return "01;35";
    return "01;36";
}

/* ---- finding a line ---- */

static void cursor_close(void)
{
    if (diag.cursor.fp)
        fclose(diag.cursor.fp);
    free(diag.cursor.file);
    free(diag.cursor.marks);
    memset(&diag.cursor, 0, sizeof diag.cursor);
    diag.cursor.line = 1;
}

/* A regular file to read lines from, or NULL. */
static FILE *open_lines(const char *path)
{
    int fd = open_regular(path, NULL);
    if (fd < 0)
        return NULL;
    FILE *fp = fdopen(fd, "r");
    if (!fp)
        close(fd);
    return fp;
}

/* Note where line diag.cursor.line starts, when it is the next mark. */
static void mark_line(void)
{
    if ((diag.cursor.line - 1) % MARK_EVERY != 0 ||
        (size_t)((diag.cursor.line - 1) / MARK_EVERY) != diag.cursor.nmarks)
        return;
    long at = ftell(diag.cursor.fp);
    if (at < 0)
        return;
    if (diag.cursor.nmarks == diag.cursor.capmarks) {
        diag.cursor.capmarks = diag.cursor.capmarks ? diag.cursor.capmarks * 2 : 64;
        diag.cursor.marks =
            xreallocarray(diag.cursor.marks, diag.cursor.capmarks, sizeof *diag.cursor.marks);
    }
    diag.cursor.marks[diag.cursor.nmarks++] = at;
}

/* Position the cursor at the start of line `line` of `file`; false when
 * the file cannot be read or has fewer lines. */
static bool seek_line(const char *file, long line)
{
    if (!diag.cursor.file || strcmp(diag.cursor.file, file) != 0) {
        cursor_close();
        diag.cursor.file = xstrdup(file);
        diag.cursor.fp = open_lines(file);
        if (diag.cursor.fp)
            mark_line(); /* line 1 at 0 */
    }
    if (!diag.cursor.fp || diag.read_budget <= 0)
        return false;
    /* Back, or far ahead to a line seen before: from the nearest mark. */
    size_t m = (size_t)((line - 1) / MARK_EVERY);
    long mline = (long)m * MARK_EVERY + 1;
    if (line < diag.cursor.line || (m < diag.cursor.nmarks && mline > diag.cursor.line)) {
        if (m >= diag.cursor.nmarks || fseek(diag.cursor.fp, diag.cursor.marks[m], SEEK_SET) != 0)
            return false;
        diag.cursor.line = mline;
    }
    while (diag.cursor.line < line) {
        int c;
        while ((c = next_byte()) != EOF && c != '\n')
            ;
        if (c == EOF)
            return false;
        diag.cursor.line++;
        mark_line();
    }
    return true;
}

/* The bytes of the current line from byte `from` (0-based), at most
 * DIAG_WINDOW of them, into win; the rest of the line is read past.
 * Returns the number kept; *more says whether the line goes on after. */
enum {
    DIAG_WINDOW = 100,
    DIAG_LEAD = 50
};

static size_t read_window(long from, char *win, bool *more)
{
    size_t n = 0;
    long i = 0;
    int c;
    *more = false;
    while ((c = next_byte()) != EOF && c != '\n') {
        if (i >= from && n < DIAG_WINDOW)
            win[n++] = (char)c;
        else if (i >= from)
            *more = true;
        i++;
    }
    if (c == '\n') {
        diag.cursor.line++;
        mark_line();
    }
    /* CR LF files read as LF files; a CR at the end is not shown. */
    if (!*more && n > 0 && win[n - 1] == '\r')
        n--;
    return n;
}

/* ---- drawing a line ---- */

/* The length of a valid UTF-8 sequence at s (n bytes available), or 0. */
static int utf8_len(const unsigned char *s, size_t n)
{
    int len = s[0] >= 0xf0 && s[0] <= 0xf4 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
    if (s[0] >= 0xf5 || len == 0 || (size_t)len > n)
        return 0;
    for (int k = 1; k < len; k++)
        if ((s[k] & 0xc0) != 0x80)
            return 0;
    return len;
}

/* Append what shows for win[0..n) to out, tabs expanded from column
 * *width; *caret_at gets the display column of byte `caret` (if < n). */
static void render(const char *win, size_t n, size_t caret, struct buf *out, size_t *width,
                   size_t *caret_at)
{
    const unsigned char *s = (const unsigned char *)win;
    for (size_t i = 0; i < n;) {
        if (i == caret)
            *caret_at = *width;
        if (s[i] == '\t') {
            do {
                buf_addc(out, ' ');
                (*width)++;
            } while (*width % 8 != 0);
            i++;
        } else if (s[i] >= 0x20 && s[i] < 0x7f) {
            buf_addc(out, (char)s[i++]);
            (*width)++;
        } else {
            int len = s[i] >= 0x80 ? utf8_len(s + i, n - i) : 0;
            if (len > 0 && caret > i && caret < i + (size_t)len)
                *caret_at = *width; /* a column inside the character */
            if (len > 0)
                buf_add(out, s + i, (size_t)len);
            else
                buf_addc(out, '?');
            i += len > 0 ? (size_t)len : 1;
            (*width)++;
        }
    }
    if (caret >= n)
        *caret_at = *width + (caret - n);
}

static void show_line(const struct loc *loc)
{
    if (!loc->file || loc->line < 1 || loc->col < 1 || !seek_line(loc->file, loc->line))
        return;
    long col = loc->col - 1;
    long from = col > DIAG_WINDOW - 10 ? col - DIAG_LEAD : 0;
    char win[DIAG_WINDOW];
    bool more;
    size_t n = read_window(from, win, &more);
    if (from > 0 && n == 0 && (size_t)(col - from) > 0)
        return; /* the column is past the end of a line shorter than said */

    struct buf text = {0};
    size_t width = 0, caret_at = 0;
    if (from > 0) {
        buf_adds(&text, "...");
        width = 3;
    }
    size_t caret = (size_t)(col - from);
    if (caret > n)
        caret = n; /* past the end (end of file, a stale file): at the end */
    render(win, n, caret, &text, &width, &caret_at);
    if (more)
        buf_adds(&text, "...");

    /* The gutter is as wide as the line number, at least 4 (as gcc's). */
    char num[16];
    int w = snprintf(num, sizeof num, "%d", loc->line);
    w = w < 4 ? 4 : w;
    fprintf(stderr, " %*s | %s\n", w, num, text.data ? text.data : "");
    fprintf(stderr, " %*s | %*s", w, "", (int)caret_at, "");
    paint("01;32");
    fputc('^', stderr);
    paint("");
    fputc('\n', stderr);
    buf_free(&text);
}

/* ---- messages ---- */

static void vdiag(const struct loc *loc, const char *kind, const char *fmt, va_list ap)
{
    paint("01");
    if (loc)
        fprintf(stderr, "%s:%d:%d:", loc->file, loc->line, loc->col);
    else
        fprintf(stderr, "%s:", diag.program);
    paint("");
    fputc(' ', stderr);
    paint(kind_colour(kind));
    fprintf(stderr, "%s:", kind);
    paint("");
    fputc(' ', stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    if (loc)
        show_line(loc);
}

void error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(NULL, "error", fmt, ap);
    va_end(ap);
}

void warning(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(NULL, "warning", fmt, ap);
    va_end(ap);
}

void info(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", diag.program);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

void error_at(const struct loc *loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(loc, "error", fmt, ap);
    va_end(ap);
}

void warning_at(const struct loc *loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(loc, "warning", fmt, ap);
    va_end(ap);
}

void note_at(const struct loc *loc, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdiag(loc, "note", fmt, ap);
    va_end(ap);
}

/* ---- hints ---- */

/* Damerau-Levenshtein distance (optimal string alignment) of a and b, both
 * short (the caller bounds them), or a value > limit. */
enum {
    NEAR_MAX = 32
};

static int distance(const char *a, size_t la, const char *b, size_t lb)
{
    int d[NEAR_MAX + 1][NEAR_MAX + 1];
    for (size_t i = 0; i <= la; i++)
        d[i][0] = (int)i;
    for (size_t j = 0; j <= lb; j++)
        d[0][j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        for (size_t j = 1; j <= lb; j++) {
            int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
            if (d[i - 1][j] + 1 < best)
                best = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < best)
                best = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                d[i - 2][j - 2] + 1 < best)
                best = d[i - 2][j - 2] + 1; /* two letters swapped */
            d[i][j] = best;
        }
    }
    return d[la][lb];
}

/* Close enough: one edit for words up to 4 letters, two beyond (gcc and
 * git use similar bounds; "prob" and "probes" are both near "probe"). */
const char *diag_near(const char *s, size_t len, const char *const words[])
{
    const char *best = NULL;
    int best_d = 0;
    if (len == 0 || len > NEAR_MAX)
        return NULL;
    for (size_t i = 0; words[i]; i++) /* -H for -h: only the case differs */
        if (strlen(words[i]) == len && strncasecmp(s, words[i], len) == 0 &&
            memcmp(s, words[i], len) != 0)
            return words[i];
    for (size_t i = 0; words[i]; i++) {
        size_t wl = strlen(words[i]);
        if (wl > NEAR_MAX || (wl == len && memcmp(s, words[i], len) == 0))
            continue;
        int limit = wl <= 4 ? 1 : 2;
        if (wl > len + (size_t)limit || len > wl + (size_t)limit)
            continue; /* too different in length: no need to count */
        int d = distance(s, len, words[i], wl);
        if (d <= limit && (!best || d < best_d)) {
            best = words[i];
            best_d = d;
        }
    }
    return best;
}

/* Release the open file (for leak checkers; the program ends soon after). */
void diag_finish(void) { cursor_close(); }

void diag_out_of_memory(void)
{
    fprintf(stderr, "%s: error: out of memory\n", diag.program);
    exit(1);
}
