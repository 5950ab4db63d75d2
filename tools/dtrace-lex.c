/* SPDX-License-Identifier: MIT */
/*
 * dtrace-lex.c: the D provider language as tokens.
 *
 * A pull lexer: lexer_next() hands out one token at a time, so a file with
 * a hundred thousand probes never holds a million tokens in memory.  Every
 * token knows its file, line and column (1-based, counted in bytes).
 *
 * What counts as space: blanks, tabs, form feeds, vertical tabs, CR (so CRLF
 * files read like LF files), newlines, backslash-newline, and comments
 * (slash-star and slash-slash).  A line whose first non-blank character is
 * '#' is a preprocessor line: without -C that is how `#pragma D ...` and
 * libvirt's `# file: ...` lines are skipped; line markers (`# 12 "f.d"` from
 * cpp, `#line 12 "f.d"`) are obeyed, so positions name the original file.
 */
#include "dtrace.h"

#include <limits.h>
#include <stddef.h>
#include <string.h>

void lexer_init(struct lexer *lx, const char *name, const char *text, size_t len,
                struct strmap *names)
{
    lx->start = text;
    lx->p = text;
    lx->end = text + len;
    lx->line_start = text;
    lx->names = names;
    lx->file = strmap_intern(names, name, strlen(name));
    lx->line = 1;
    lx->at_bol = true;
    lx->space = true;
}

static struct loc loc_at(const struct lexer *lx, const char *p)
{
    ptrdiff_t col = p - lx->line_start; /* clamped before it is an int */
    struct loc loc = {lx->file, lx->line, col >= INT_MAX ? INT_MAX : (int)col + 1};
    return loc;
}

/* p points just past a '\n'. */
static void newline(struct lexer *lx, const char *p)
{
    if (lx->line < INT_MAX)
        lx->line++;
    lx->line_start = p;
    lx->at_bol = true;
}

static int nul_error(struct lexer *lx, const char *p)
{
    struct loc loc = loc_at(lx, p);
    error_at(&loc, "NUL byte in the input");
    return -1;
}

/* A backslash followed by a newline (LF or CR LF) at p?  Returns its length. */
static size_t splice_len(const struct lexer *lx, const char *p)
{
    if (p < lx->end && *p == '\\') {
        if (p + 1 < lx->end && p[1] == '\n')
            return 2;
        if (p + 2 < lx->end && p[1] == '\r' && p[2] == '\n')
            return 3;
    }
    return 0;
}

/* Skip a slash-star comment starting at lx->p. */
static int skip_block_comment(struct lexer *lx)
{
    const char *start = lx->p;
    struct loc start_loc = loc_at(lx, start);
    const char *p = start + 2;
    for (;;) {
        if (p >= lx->end) {
            error_at(&start_loc, "unterminated comment");
            return -1;
        }
        if (*p == '\0')
            return nul_error(lx, p);
        if (*p == '*' && p + 1 < lx->end && p[1] == '/') {
            lx->p = p + 2;
            return 0;
        }
        if (*p == '\n') {
            bool bol = lx->at_bol;
            newline(lx, p + 1);
            lx->at_bol = bol; /* a comment does not start a new logical line */
        }
        p++;
    }
}

/* Skip a slash-slash comment up to (not including) the end of its line. */
static int skip_line_comment(struct lexer *lx)
{
    const char *p = lx->p + 2;
    while (p < lx->end) {
        size_t s = splice_len(lx, p);
        if (s) {
            newline(lx, p + s);
            lx->at_bol = false;
            p += s;
            continue;
        }
        if (*p == '\n')
            break;
        if (*p == '\0')
            return nul_error(lx, p);
        p++;
    }
    lx->p = p;
    return 0;
}

static bool is_hblank(int c)
{
    return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

/* Parse a line marker's decimal number; false when there is none. */
static bool marker_number(const struct lexer *lx, const char **pp, int *out)
{
    const char *p = *pp;
    if (p >= lx->end || !is_digit(*p))
        return false;
    int n = 0; /* saturates at INT_MAX, in int arithmetic (long may be 32 bits) */
    while (p < lx->end && is_digit(*p)) {
        int d = *p - '0';
        n = n > (INT_MAX - d) / 10 ? INT_MAX : n * 10 + d;
        p++;
    }
    if (p < lx->end && !is_hblank(*p) && *p != '\n')
        return false;
    *out = n;
    *pp = p;
    return true;
}

/* Parse a line marker's "file name" (C escapes); false when there is none. */
static bool marker_name(struct lexer *lx, const char **pp, const char **out)
{
    const char *p = *pp;
    if (p >= lx->end || *p != '"')
        return false;
    struct buf name = {0};
    for (p++; p < lx->end && *p != '"'; p++) {
        if (*p == '\n' || *p == '\0') {
            buf_free(&name);
            return false;
        }
        if (*p == '\\' && p + 1 < lx->end && p[1] != '\n')
            p++;
        buf_addc(&name, *p);
    }
    if (p >= lx->end) {
        buf_free(&name);
        return false;
    }
    *out = strmap_intern(lx->names, name.data ? name.data : "", name.len);
    buf_free(&name);
    *pp = p + 1;
    return true;
}

/*
 * A line starting with '#'.  Line markers set the presumed file and line of
 * the next line; everything else (#pragma, #define without -C, libvirt's
 * "# file:" comments) is skipped to the end of the line, following
 * backslash-newline and comments that span lines, as cpp would.
 */
static int skip_directive(struct lexer *lx)
{
    const char *p = lx->p + 1;
    while (p < lx->end && is_hblank(*p))
        p++;

    bool marker = false;
    int marker_line = 0;
    const char *marker_file = NULL;
    if (p + 4 <= lx->end && memcmp(p, "line", 4) == 0 && (p + 4 == lx->end || is_hblank(p[4]))) {
        const char *q = p + 4;
        while (q < lx->end && is_hblank(*q))
            q++;
        if (marker_number(lx, &q, &marker_line)) {
            marker = true;
            p = q;
        }
    } else if (marker_number(lx, &p, &marker_line)) {
        marker = true;
    }
    if (marker) {
        while (p < lx->end && is_hblank(*p))
            p++;
        marker_name(lx, &p, &marker_file);
    }

    while (p < lx->end && *p != '\n') {
        size_t s = splice_len(lx, p);
        if (s) {
            newline(lx, p + s);
            p += s;
            continue;
        }
        if (*p == '\0')
            return nul_error(lx, p);
        if (*p == '/' && p + 1 < lx->end && p[1] == '*') {
            lx->p = p;
            if (skip_block_comment(lx) != 0)
                return -1;
            p = lx->p;
            continue;
        }
        p++;
    }
    if (p < lx->end) {
        p++; /* the newline */
        newline(lx, p);
    }
    lx->p = p;
    if (marker) {
        lx->line = marker_line;
        if (marker_file)
            lx->file = marker_file;
    }
    return 0;
}

/* A string or character literal starting at lx->p. */
static int scan_quoted(struct lexer *lx, struct token *tok)
{
    const char *start = lx->p;
    char quote = *start;
    const char *p = start + 1;
    while (p < lx->end && *p != quote) {
        if (*p == '\n')
            break;
        if (*p == '\0')
            return nul_error(lx, p);
        if (*p == '\\' && p + 1 < lx->end) {
            size_t s = splice_len(lx, p);
            if (s) {
                newline(lx, p + s);
                lx->at_bol = false;
                p += s;
                continue;
            }
            if (p[1] == '\0')
                return nul_error(lx, p + 1);
            if (p[1] == '\n')
                break;
            p += 2;
            continue;
        }
        p++;
    }
    if (p >= lx->end || *p != quote) {
        error_at(&tok->loc, "missing terminating %c character", quote);
        return -1;
    }
    tok->kind = quote == '"' ? TK_STRING : TK_CHAR;
    tok->len = (size_t)(p + 1 - start);
    lx->p = p + 1;
    return 0;
}

/* Skip what is not a token at lx->p: whitespace, backslash-newline,
 * comments and preprocessor lines.  1 when something was skipped (look
 * again), 0 at a token or the end, -1 after reporting an error. */
static int skip_space(struct lexer *lx)
{
    const char *p = lx->p;
    if (p >= lx->end)
        return 0;
    char c = *p;
    if (c == '\0')
        return nul_error(lx, p);
    if (c == '\n') {
        lx->p = p + 1;
        newline(lx, lx->p);
    } else if (is_hblank(c)) {
        do
            p++;
        while (p < lx->end && is_hblank(*p));
        lx->p = p;
    } else if (c == '\\' && splice_len(lx, p)) {
        lx->p = p + splice_len(lx, p);
        bool bol = lx->at_bol;
        newline(lx, lx->p);
        lx->at_bol = bol; /* a joined line goes on the same logical line */
    } else if (c == '/' && p + 1 < lx->end && p[1] == '*') {
        if (skip_block_comment(lx) != 0)
            return -1;
    } else if (c == '/' && p + 1 < lx->end && p[1] == '/') {
        if (skip_line_comment(lx) != 0)
            return -1;
    } else if (c == '#' && lx->at_bol) {
        if (skip_directive(lx) != 0)
            return -1;
    } else {
        return 0;
    }
    lx->space = true;
    return 1;
}

/* A number: digits, letters, '.', and a sign after an exponent mark. */
static const char *number_end(const struct lexer *lx, const char *p)
{
    const char *q = p + 1;
    while (q < lx->end) {
        if (is_ident_char((unsigned char)*q) || *q == '.')
            q++;
        else if ((*q == '+' || *q == '-') && strchr("eEpP", q[-1]))
            q++;
        else
            break;
    }
    return q;
}

int lexer_next(struct lexer *lx, struct token *tok)
{
    int skipped;
    while ((skipped = skip_space(lx)) > 0)
        ;
    if (skipped < 0)
        return -1;
    const char *p = lx->p;
    tok->text = p;
    tok->loc = loc_at(lx, p);
    tok->kw = 0;
    if (p >= lx->end) {
        tok->kind = TK_EOF;
        tok->len = 0;
        tok->space_before = true;
        return 0;
    }
    tok->space_before = lx->space;
    lx->space = false;
    lx->at_bol = false;

    char c = *p;
    const char *q = p + 1;
    if (c == '"' || c == '\'')
        return scan_quoted(lx, tok);
    if (is_ident_start((unsigned char)c)) {
        while (q < lx->end && is_ident_char((unsigned char)*q))
            q++;
        tok->kind = TK_IDENT;
    } else if (is_digit((unsigned char)c) ||
               (c == '.' && q < lx->end && is_digit((unsigned char)*q))) {
        q = number_end(lx, p);
        tok->kind = TK_NUMBER;
    } else {
        tok->kind = TK_PUNCT;
    }
    tok->len = (size_t)(q - p);
    lx->p = q;
    return 0;
}
