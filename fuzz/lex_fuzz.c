/* SPDX-License-Identifier: MIT */
/*
 * lex_fuzz.c: libFuzzer harness for the tokenizer alone (dtrace-lex.c):
 * comments, literals, backslash-newlines and above all preprocessor lines
 * and the line markers (`# 12 "f.d"`, `#line 12 "f.d"`) that rename the
 * file and renumber lines.
 *
 * Besides the sanitizers, it checks the lexer's promises: every token lies
 * inside the input, tokens come in order without overlapping, positions
 * are sane (column >= 1, a file name), and the stream ends with one
 * TK_EOF at the end of the input unless a lexical error stops it.
 *
 * Build and run with `make fuzz` (see fuzz/run).
 */
#include "../tools/dtrace.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    const char *text = (const char *)data;
    struct strmap names = {0};
    struct lexer lx;
    lexer_init(&lx, "fuzz.d", text, size, &names);
    const char *after = text; /* the end of the previous token */
    for (;;) {
        struct token tok;
        if (lexer_next(&lx, &tok) != 0)
            break;
        if (tok.text < after || tok.len > (size_t)(text + size - tok.text))
            abort();
        if (tok.loc.col < 1 || tok.loc.line < 0 || !tok.loc.file)
            abort();
        (void)strlen(tok.loc.file);
        if (tok.kind == TK_EOF) {
            if (tok.text != text + size || tok.len != 0)
                abort();
            break;
        }
        if (tok.len == 0)
            abort(); /* no progress */
        after = tok.text + tok.len;
    }
    strmap_free(&names);
    return 0;
}
