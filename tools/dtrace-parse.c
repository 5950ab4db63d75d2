/* SPDX-License-Identifier: MIT */
/*
 * dtrace-parse.c: tokens -> providers and probes.
 *
 * The grammar we act on is small:
 *
 *   file     = { other | provider }
 *   provider = "provider" NAME "{" { probe | ";" } "}" [ ";" ]
 *   probe    = "probe" NAME "(" [ args ] ")" [ ":" "(" [ args ] ")" ] [ ";" ]
 *   args     = arg { "," arg }          arg = tokens, brackets balanced
 *
 * "other" is everything a provider file may hold around its providers: C
 * typedefs, struct/union/enum definitions, D translators, inline
 * definitions, clauses such as BEGIN{}.  It is skipped token by token with
 * its (), [] and {} checked for balance, so "provider" inside a braced
 * definition is never mistaken for one.  A probe's translated argument list
 * (after ':') is parsed and dropped: the native list is what C passes.
 *
 * Syntax errors stop the parse at the first one, pointing at the offending
 * token; semantic errors (duplicates, too many arguments) are all reported.
 * Nothing recurses, and the limits of dtrace.h (bracket nesting, tokens in
 * a declaration, probes and providers) stop a hostile file with an error
 * before it needs memory out of proportion to a real one.
 */
#include "dtrace.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct toklist {
    struct token *v;
    size_t n;
    size_t cap;
};

/* What the checks across a probe's arguments need of each declaration
 * (check_arglist): whether it is a void that declares no argument. */
struct argdecl {
    bool is_void;         /* void, maybe qualified: no name, no declarator */
    bool qualified;       /* a qualifier or register beside that void */
    struct loc first, at; /* the declaration's first token; the void */
};

/* The arguments of a probe: only the first MAX_PROBE_ARGS + 1 are kept
 * (enough to report the one too many), all are counted. */
struct arglist {
    struct arg v[MAX_PROBE_ARGS + 1];
    struct argdecl d[MAX_PROBE_ARGS + 1];
    int n; /* kept in v */
    long total;
};

struct parser {
    struct program *prog;
    bool with_text; /* keep the arguments' text (-h), not only their count */
    struct lexer lx;
    struct token ahead[3];
    int nahead;
    bool failed;       /* a semantic error was reported; keep going */
    struct token last; /* the token next() returned last */
    /* Scratch space reused from probe to probe. */
    struct toklist cur;         /* the tokens of one argument */
    struct toklist nest;        /* brackets open inside an argument list */
    struct arglist args;        /* a probe's native arguments */
    struct arglist translated;  /* and its translated ones, dropped */
    const struct token **ctype; /* join_ctype's token pointers */
    size_t ctype_cap;
    struct buf text;
};

static void parser_free(struct parser *ps)
{
    free(ps->cur.v);
    free(ps->nest.v);
    free(ps->ctype);
    buf_free(&ps->text);
}

/* ---- the program ---- */

void program_init(struct program *prog) { memset(prog, 0, sizeof *prog); }

void program_free(struct program *prog)
{
    for (size_t i = 0; i < prog->nproviders; i++)
        free(prog->providers[i]->probes);
    free(prog->providers);
    strmap_free(&prog->provider_index);
    strmap_free(&prog->probe_index);
    strmap_free(&prog->names);
    arena_free(&prog->arena);
    memset(prog, 0, sizeof *prog);
}

/* The provider called name: the same provider block may appear twice, in
 * one file or in two -s files; its probes then share one namespace. */
static struct provider *provider_for(struct program *prog, const char *name, size_t len,
                                     const struct loc *loc)
{
    struct provider *pv = strmap_get(&prog->provider_index, name, len);
    if (pv)
        return pv;
    if (prog->nproviders >= MAX_PROBES) {
        error_at(loc, "more than %d providers", MAX_PROBES);
        return NULL;
    }
    pv = arena_alloc(&prog->arena, sizeof *pv);
    pv->name = arena_strndup(&prog->arena, name, len);
    pv->loc = *loc;
    strmap_put(&prog->provider_index, name, len, pv);
    if (prog->nproviders == prog->cap) {
        prog->cap = prog->cap ? prog->cap * 2 : 4;
        prog->providers = xreallocarray(prog->providers, prog->cap, sizeof *prog->providers);
    }
    prog->providers[prog->nproviders++] = pv;
    return pv;
}

/* A probe's key in probe_index: its provider's address, then its name.  Not
 * the provider's name: a long one would be copied for every probe. */
static void probe_key(struct buf *key, const struct provider *pv, const char *name, size_t len)
{
    key->len = 0;
    buf_add(key, &pv, sizeof pv);
    buf_add(key, name, len);
}

struct provider *program_find_provider(const struct program *prog, const char *name)
{
    return strmap_get(&prog->provider_index, name, strlen(name));
}

struct probe *program_find_probe(const struct program *prog, const char *provider, const char *name)
{
    const struct provider *pv = program_find_provider(prog, provider);
    if (!pv)
        return NULL;
    struct buf key = {0};
    probe_key(&key, pv, name, strlen(name));
    struct probe *pr = strmap_get(&prog->probe_index, key.data, key.len);
    buf_free(&key);
    return pr;
}

/* ---- token stream with a little lookahead ---- */

static int peek(struct parser *ps, int k, struct token *out)
{
    while (ps->nahead <= k) {
        if (lexer_next(&ps->lx, &ps->ahead[ps->nahead]) != 0)
            return -1;
        ps->nahead++;
    }
    *out = ps->ahead[k];
    return 0;
}

static int next(struct parser *ps, struct token *out)
{
    if (ps->nahead == 0) { /* the usual case: no lookahead to shift */
        if (lexer_next(&ps->lx, out) != 0)
            return -1;
        ps->last = *out;
        return 0;
    }
    if (peek(ps, 0, out) != 0)
        return -1;
    memmove(&ps->ahead[0], &ps->ahead[1], (size_t)(ps->nahead - 1) * sizeof ps->ahead[0]);
    ps->nahead--;
    ps->last = *out;
    return 0;
}

static bool is_punct(const struct token *t, char c)
{
    return t->kind == TK_PUNCT && t->text[0] == c;
}

/* Where a missing ';' belongs: the column just after a one-character
 * token (')' or '}'). */
static struct loc after_punct(const struct token *t)
{
    struct loc at = t->loc;
    if (at.col < INT_MAX)
        at.col++;
    return at;
}

/* How a token reads in a message: 'x', or "end of file". */
static const char *describe(const struct token *t, char *buf, size_t n)
{
    unsigned char c = t->len ? (unsigned char)t->text[0] : 0;
    if (t->kind == TK_EOF)
        snprintf(buf, n, "end of file");
    else if (t->len > 40)
        snprintf(buf, n, "'%.40s...'", t->text);
    else if (t->kind == TK_PUNCT && (c < 0x20 || c >= 0x7f))
        snprintf(buf, n, "byte 0x%02x", c);
    else
        snprintf(buf, n, "'%.*s'", (int)t->len, t->text);
    return buf;
}

/* ---- names ---- */

static bool glues_to_name(const struct token *t)
{
    return !t->space_before && (t->kind == TK_IDENT || t->kind == TK_NUMBER || is_punct(t, '-') ||
                                is_punct(t, '$') || is_punct(t, '.'));
}

/*
 * A provider or probe name: one identifier.  "foo-bar", "1st" or "a$b" (as
 * DTrace users sometimes write) are reported as such rather than as a
 * confusing error about the token after them.
 */
static int expect_name(struct parser *ps, const char *what, struct token *name)
{
    char d[64];
    if (next(ps, name) != 0)
        return -1;
    bool plausible = name->kind == TK_IDENT || name->kind == TK_NUMBER || is_punct(name, '$') ||
                     is_punct(name, '-');
    if (!plausible) {
        error_at(&name->loc, "expected a %s name, found %s", what, describe(name, d, sizeof d));
        return -1;
    }
    const char *end = name->text + name->len;
    int glued = 0;
    for (;;) {
        struct token t;
        if (peek(ps, 0, &t) != 0)
            return -1;
        if (!glues_to_name(&t))
            break;
        next(ps, &t);
        end = t.text + t.len;
        glued++;
    }
    if (glued || name->kind != TK_IDENT) {
        int len = (int)(end - name->text);
        bool dash = memchr(name->text, '-', (size_t)len) != NULL;
        error_at(&name->loc, "'%.*s' is not a valid %s name: it must be a C identifier%s",
                 len > 80 ? 80 : len, name->text, what,
                 dash ? " (write '__' where DTrace shows '-')" : "");
        return -1;
    }
    return 0;
}

/* ---- argument declarations ---- */

static void toklist_push(struct toklist *tl, const struct token *t)
{
    if (tl->n == tl->cap) {
        tl->cap = tl->cap ? tl->cap * 2 : 8;
        tl->v = xreallocarray(tl->v, tl->cap, sizeof *tl->v);
    }
    tl->v[tl->n++] = *t;
}

/* Inlined with a literal s, the strlen folds away: this runs per token. */
static inline bool tok_eq(const struct token *t, const char *s)
{
    size_t n = strlen(s);
    return t->kind == TK_IDENT && t->len == n && memcmp(t->text, s, n) == 0;
}

/* "struct", "union" or "enum": what comes after names a tag, not a
 * keyword, a provider or an argument. */
static bool is_tag_keyword(const struct token *t)
{
    return tok_eq(t, "struct") || tok_eq(t, "union") || tok_eq(t, "enum");
}

/* The words of C types the parser must recognise, and what each is. */
enum {
    KW_NONE,
    KW_QUALIFIER,
    KW_TYPE
}; /* KW_TYPE: ends a type, never a name */

/* t's kind among those words.  Each token of an argument is looked up
 * once, when it is read (parse_args), and the kind kept in the token: the
 * argument's name and hints ask about every token several times.  By
 * length first, so most words cost a comparison or two. */
static unsigned char keyword_kind(const struct token *t)
{
#define IS(w) (memcmp(t->text, w, sizeof w - 1) == 0)
    if (t->kind != TK_IDENT)
        return KW_NONE;
    switch (t->len) {
    case 3:
        return IS("int") ? KW_TYPE : KW_NONE;
    case 4:
        return IS("void") || IS("char") || IS("long") || IS("enum") ? KW_TYPE : KW_NONE;
    case 5:
        if (IS("const"))
            return KW_QUALIFIER;
        return IS("short") || IS("float") || IS("union") || IS("_Bool") ? KW_TYPE : KW_NONE;
    case 6:
        return IS("double") || IS("signed") || IS("struct") ? KW_TYPE : KW_NONE;
    case 7:
        return IS("_Atomic") || IS("__const") ? KW_QUALIFIER : KW_NONE;
    case 8:
        if (IS("volatile") || IS("restrict") || IS("register"))
            return KW_QUALIFIER;
        return IS("unsigned") || IS("_Complex") || IS("__int128") ? KW_TYPE : KW_NONE;
    case 10:
        if (IS("__restrict"))
            return KW_QUALIFIER;
        return IS("_Imaginary") || IS("__signed__") ? KW_TYPE : KW_NONE;
    case 12:
        if (IS("__restrict__") || IS("__volatile__"))
            return KW_QUALIFIER;
        return IS("__unsigned__") ? KW_TYPE : KW_NONE;
    default:
        return KW_NONE;
    }
#undef IS
}

static bool is_qualifier(const struct token *t) { return t->kw == KW_QUALIFIER; }

/* Words that end a type and so can never be an argument's name. */
static bool is_type_keyword(const struct token *t) { return t->kw != KW_NONE; }

/* The index of the argument's name among its tokens, or -1 when unnamed. */
static long find_arg_name(const struct token *v, size_t n)
{
    if (n < 2)
        return -1;
    /* A function-pointer declarator "T (*name)(...)": the name sits just
     * before the ')' that closes the first "(*". */
    for (size_t i = 1; i + 1 < n; i++) {
        if (!is_punct(&v[i], '(') || !(is_punct(&v[i + 1], '*') || is_punct(&v[i + 1], '^')))
            continue;
        int depth = 0;
        for (size_t j = i; j < n; j++) {
            if (is_punct(&v[j], '(') || is_punct(&v[j], '['))
                depth++;
            else if (is_punct(&v[j], ')') || is_punct(&v[j], ']'))
                depth--;
            if (depth == 0) {
                const struct token *c = &v[j - 1];
                if (c->kind == TK_IDENT && !is_qualifier(c))
                    return (long)(j - 1);
                return -1;
            }
        }
        return -1;
    }
    /* Otherwise the name is the last word before any array brackets. */
    size_t end = n;
    for (size_t i = 0; i < n; i++) {
        if (is_punct(&v[i], '[')) {
            end = i;
            break;
        }
    }
    if (end < 2)
        return -1;
    const struct token *last = &v[end - 1];
    if (last->kind != TK_IDENT || is_type_keyword(last))
        return -1;
    const struct token *before = &v[end - 2];
    if (is_tag_keyword(before))
        return -1;
    /* "const foo_t" is a type; "foo_t x", "unsigned x", "char *x" are named. */
    for (size_t i = 0; i + 1 < end; i++)
        if (is_punct(&v[i], '*') || (v[i].kind == TK_IDENT && !is_qualifier(&v[i])))
            return (long)(end - 1);
    return -1;
}

static bool is_word(const struct token *t) { return t->kind == TK_IDENT || t->kind == TK_NUMBER; }

/* Whether normalised text puts a space between prev and cur. */
static bool space_between(const struct token *prev, const struct token *cur)
{
    if (is_word(prev) && is_word(cur)) /* "unsigned long" */
        return true;
    if (is_punct(cur, ')') || is_punct(cur, ']') || is_punct(cur, ','))
        return false;
    if (is_punct(prev, '(') || is_punct(prev, '['))
        return false;
    if (is_punct(prev, ','))
        return true;
    if (is_punct(prev, '*') || is_punct(prev, '&') || is_punct(prev, '^'))
        return false;
    if (is_punct(cur, '*') || is_punct(cur, '&'))
        return true;
    if (is_punct(cur, '('))
        return is_word(prev);
    if (is_punct(cur, '['))
        return false;
    if (is_punct(prev, '.') && is_punct(cur, '.'))
        return false;
    return true;
}

static void append_token(struct buf *b, const struct token **prev, const struct token *t)
{
    if (*prev && space_between(*prev, t))
        buf_addc(b, ' ');
    buf_add(b, t->text, t->len);
    *prev = t;
}

/* The declaration with single spaces, "char*x" -> "char *x". */
static char *join_tokens(struct parser *ps, const struct token *v, size_t n)
{
    ps->text.len = 0;
    const struct token *prev = NULL;
    for (size_t i = 0; i < n; i++)
        append_token(&ps->text, &prev, &v[i]);
    return arena_strndup(&ps->prog->arena, ps->text.data ? ps->text.data : "", ps->text.len);
}

/*
 * The C type for a prototype: the name dropped, D's string made
 * const char *, and a pointer made a pointer to const ("char *" accepts a
 * const char * argument): a tracer only reads what a probe passes.
 */
static char *join_ctype(struct parser *ps, const struct token *v, size_t n, long name)
{
    static const struct token const_tok = {TK_IDENT, "const", 5, {0}, true, KW_QUALIFIER};
    static const struct token char_tok = {TK_IDENT, "char", 4, {0}, true, KW_TYPE};
    static const struct token star_tok = {TK_PUNCT, "*", 1, {0}, true, KW_NONE};
    if (ps->ctype_cap < n * 3 + 2) {
        ps->ctype_cap = n * 3 + 2;
        ps->ctype = xreallocarray(ps->ctype, ps->ctype_cap, sizeof *ps->ctype);
    }
    const struct token **out = ps->ctype;
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        if ((long)i == name)
            continue;
        if (tok_eq(&v[i], "string")) {
            out[m++] = &const_tok;
            out[m++] = &char_tok;
            out[m++] = &star_tok;
            continue;
        }
        out[m++] = &v[i];
    }
    if (m >= 2 && is_punct(out[m - 1], '*')) {
        /* Is what the last '*' points to already const? */
        bool pointee_const = false;
        for (size_t i = m - 1; i-- > 0 && !is_punct(out[i], '*');)
            if (tok_eq(out[i], "const"))
                pointee_const = true;
        if (!pointee_const) {
            out[m] = out[m - 1];
            out[m - 1] = &const_tok;
            m++;
        }
    }
    ps->text.len = 0;
    const struct token *prev = NULL;
    for (size_t i = 0; i < m; i++)
        append_token(&ps->text, &prev, out[i]);
    return arena_strndup(&ps->prog->arena, ps->text.data ? ps->text.data : "", ps->text.len);
}

/* ---- hints for near misses ---- */

static const char *const probe_word[] = {"probe", NULL};
static const char *const provider_word[] = {"provider", NULL};
/* The C keywords of a type (and D's string) a misspelling is checked
 * against. */
static const char *const type_words[] = {
    "void",     "char",  "short",    "int",    "long",  "float", "double", "signed",
    "unsigned", "const", "volatile", "struct", "union", "enum",  "string", NULL};

/* The keyword t is likely a misspelling of, or NULL.  A word holding the
 * keyword (uint, ulong, u_char, int_t ...) is a typedef's name, not a typo. */
static const char *near_keyword(const struct token *t, const char *const words[])
{
    if (t->kind != TK_IDENT)
        return NULL;
    const char *w = diag_near(t->text, t->len, words);
    size_t wl = w ? strlen(w) : 0;
    for (size_t i = 0; w && i + wl <= t->len; i++)
        if (memcmp(t->text + i, w, wl) == 0)
            return NULL;
    return w;
}

/* A word of an argument's type (never its name) close to a type keyword:
 * the C compiler would stop on it later with a less direct message. */
static void hint_types(const struct toklist *tl, long name)
{
    for (size_t i = 0; i < tl->n; i++) {
        const struct token *t = &tl->v[i];
        if ((long)i == name || is_type_keyword(t))
            continue;
        if (i > 0 && is_tag_keyword(t - 1))
            continue; /* a tag: "struct conn" names no keyword */
        const char *w = near_keyword(t, type_words);
        if (w)
            warning_at(&t->loc, "unknown type name '%.*s'; did you mean '%s'?", (int)t->len,
                       t->text, w);
    }
}

/* ---- what no prototype can declare ----
 *
 * A probe's argument list is a C parameter list: what a C compiler rejects
 * there (a variadic list, an argument of type void, void beside other
 * arguments, a storage class, type words that do not combine) is an
 * error, at the token a compiler points at.
 * Only the declaration's own level is read: a function pointer's
 * parameters, "int (*)(int, ...)", are its type's business.
 */

/* The type specifiers C combines (C11 6.7.2). */
enum spec {
    SP_NONE,
    SP_VOID,
    SP_CHAR,
    SP_INT,
    SP_FLOAT,
    SP_DOUBLE,
    SP_BOOL,
    SP_INT128,
    SP_TAG, /* struct, union, enum */
    SP_SHORT,
    SP_LONG,
    SP_SIGNED,
    SP_UNSIGNED,
    SP_COMPLEX
};

static enum spec spec_of(const struct token *t)
{
    static const struct {
        const char *word;
        enum spec spec;
    } words[] = {
        {"void", SP_VOID},         {"char", SP_CHAR},
        {"int", SP_INT},           {"float", SP_FLOAT},
        {"double", SP_DOUBLE},     {"_Bool", SP_BOOL},
        {"__int128", SP_INT128},   {"struct", SP_TAG},
        {"union", SP_TAG},         {"enum", SP_TAG},
        {"short", SP_SHORT},       {"long", SP_LONG},
        {"signed", SP_SIGNED},     {"__signed__", SP_SIGNED},
        {"unsigned", SP_UNSIGNED}, {"__unsigned__", SP_UNSIGNED},
        {"_Complex", SP_COMPLEX},  {"_Imaginary", SP_COMPLEX},
    };
    if (t->kw != KW_TYPE)
        return SP_NONE;
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (t->len == strlen(words[i].word) && memcmp(t->text, words[i].word, t->len) == 0)
            return words[i].spec;
    return SP_NONE;
}

/* Storage classes and function specifiers: no parameter has one
 * (register is the storage class a parameter may have). */
static const char *not_for_arguments(const struct token *t)
{
    static const char *const storage[] = {"static",        "extern",       "typedef",   "auto",
                                          "_Thread_local", "thread_local", "constexpr", NULL};
    static const char *const function[] = {"inline", "__inline", "__inline__", "_Noreturn", NULL};
    for (int i = 0; storage[i]; i++)
        if (t->kind == TK_IDENT && t->len == strlen(storage[i]) &&
            memcmp(t->text, storage[i], t->len) == 0)
            return "storage class";
    for (int i = 0; function[i]; i++)
        if (t->kind == TK_IDENT && t->len == strlen(function[i]) &&
            memcmp(t->text, function[i], t->len) == 0)
            return "function specifier";
    return NULL;
}

/* The specifiers seen so far in one declaration: the token of each. */
struct specs {
    const struct token *base; /* void, char, int, float, double, _Bool, __int128, a tag */
    const struct token *shrt, *lng, *lng2, *sign, *usign, *cplx;
};

/* Report that a and b do not combine, at the later of the two. */
static void specs_conflict(const struct token *a, const struct token *b, const char *probe)
{
    if (b->loc.line > a->loc.line || (b->loc.line == a->loc.line && b->loc.col > a->loc.col)) {
        const struct token *t = a;
        a = b;
        b = t;
    }
    if (a->len == b->len && memcmp(a->text, b->text, a->len) == 0)
        error_at(&a->loc, "duplicate '%.*s' in an argument of probe '%s'", (int)a->len, a->text,
                 probe);
    else
        error_at(&a->loc, "'%.*s' cannot be combined with '%.*s' in an argument of probe '%s'",
                 (int)a->len, a->text, (int)b->len, b->text, probe);
}

/* Add t (of specifier kind k) to sp.  0, or -1 after reporting. */
static int specs_add(struct specs *sp, const struct token *t, enum spec k, const char *probe)
{
    const struct token **slot = NULL, *clash = NULL;
    switch (k) {
    case SP_SHORT:
        slot = &sp->shrt, clash = sp->lng;
        break;
    case SP_LONG:
        if (sp->lng2) {
            error_at(&t->loc, "'long long long' is too long in an argument of probe '%s'", probe);
            return -1;
        }
        slot = sp->lng ? &sp->lng2 : &sp->lng, clash = sp->shrt;
        break;
    case SP_SIGNED:
        slot = &sp->sign, clash = sp->usign;
        break;
    case SP_UNSIGNED:
        slot = &sp->usign, clash = sp->sign;
        break;
    case SP_COMPLEX:
        slot = &sp->cplx;
        break;
    default:
        slot = &sp->base;
        break;
    }
    if (!clash && *slot)
        clash = *slot;
    if (clash) {
        specs_conflict(clash, t, probe);
        return -1;
    }
    *slot = t;
    return 0;
}

/* The modifiers a base type takes: void, _Bool and tags none; char a
 * sign; float _Complex; double one long and _Complex; __int128 a sign; int
 * (or none: int is implied) all. */
static int specs_check(const struct specs *sp, const char *probe)
{
    if (!sp->base)
        return 0;
    enum spec b = spec_of(sp->base);
    const struct token *bad = NULL;
    if (b == SP_VOID || b == SP_BOOL || b == SP_TAG)
        bad = sp->shrt    ? sp->shrt
              : sp->lng   ? sp->lng
              : sp->sign  ? sp->sign
              : sp->usign ? sp->usign
                          : sp->cplx;
    else if (b == SP_CHAR || b == SP_INT128)
        bad = sp->shrt ? sp->shrt : sp->lng ? sp->lng : b == SP_CHAR ? sp->cplx : NULL;
    else if (b == SP_FLOAT)
        bad = sp->shrt ? sp->shrt : sp->lng ? sp->lng : sp->sign ? sp->sign : sp->usign;
    else if (b == SP_DOUBLE)
        bad = sp->shrt ? sp->shrt : sp->lng2 ? sp->lng2 : sp->sign ? sp->sign : sp->usign;
    if (!bad)
        return 0;
    specs_conflict(sp->base, bad, probe);
    return -1;
}

/* Three adjacent dots at v[i]. */
static bool is_ellipsis(const struct token *v, size_t n, size_t i)
{
    return i + 2 < n && is_punct(&v[i], '.') && is_punct(&v[i + 1], '.') &&
           is_punct(&v[i + 2], '.') && !v[i + 1].space_before && !v[i + 2].space_before;
}

/* The checks of one declaration, v[0..n), named v[name] (or -1), into d
 * for check_arglist.  0, or -1 after reporting. */
static int check_decl(const struct token *v, size_t n, long name, const char *probe,
                      struct argdecl *d)
{
    struct specs sp = {0};
    int depth = 0;
    bool pointer = false; /* a '*' or '(': a pointer or function, not void */
    const struct token *vt = NULL, *array = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct token *t = &v[i];
        pointer = pointer || is_punct(t, '*') || is_punct(t, '(');
        if (depth == 0 && is_punct(t, '[') && !array)
            array = t;
        if (is_punct(t, '(') || is_punct(t, '['))
            depth++;
        else if (is_punct(t, ')') || is_punct(t, ']'))
            depth--;
        if (depth > 0 || is_punct(t, ')') || is_punct(t, ']'))
            continue;
        if (is_punct(t, '.')) {
            error_at(&t->loc,
                     is_ellipsis(v, n, i)
                         ? "probe '%s' cannot take a variable number of arguments ('...')"
                         : "unexpected '.' in an argument of probe '%s'",
                     probe);
            return -1;
        }
        const char *what = not_for_arguments(t);
        if (what) {
            error_at(&t->loc, "%s '%.*s' in an argument of probe '%s'", what, (int)t->len, t->text,
                     probe);
            return -1;
        }
        enum spec k = spec_of(t);
        if (k == SP_VOID)
            vt = t;
        if (k != SP_NONE && specs_add(&sp, t, k, probe) != 0)
            return -1;
    }
    if (specs_check(&sp, probe) != 0)
        return -1;
    if (!vt || pointer)
        return 0;
    if (array) {
        error_at(name >= 0 ? &v[name].loc : &array->loc,
                 "an argument of probe '%s' is an array of 'void'", probe);
        return -1;
    }
    if (name >= 0) {
        error_at(&v[name].loc, "argument '%.*s' of probe '%s' has type 'void'", (int)v[name].len,
                 v[name].text, probe);
        return -1;
    }
    /* void, maybe qualified: no argument, if it is the only one */
    d->is_void = true;
    d->qualified = n > 1;
    d->first = v[0].loc;
    d->at = vt->loc;
    return 0;
}

static void arglist_add(struct parser *ps, struct arglist *al, const struct toklist *tl,
                        const char *probe)
{
    long name = find_arg_name(tl->v, tl->n);
    hint_types(tl, name);
    if (al->total < 0x7fffffff)
        al->total++;
    if (al->n == MAX_PROBE_ARGS + 1)
        return;
    struct argdecl *d = &al->d[al->n];
    memset(d, 0, sizeof *d);
    if (check_decl(tl->v, tl->n, name, probe, d) != 0)
        ps->failed = true;
    struct arg *a = &al->v[al->n++];
    if (ps->with_text) {
        a->text = join_tokens(ps, tl->v, tl->n);
        a->ctype = join_ctype(ps, tl->v, tl->n, name);
    }
    a->loc = tl->v[0].loc;
}

/* The check across the arguments: a void declaring no argument stands
 * alone, unqualified; then "(void)" declares none.  (Two arguments of one
 * name would not compile, but the names are never used, and SystemTap's
 * own tests declare some: accepted.)  0, or -1 after reporting. */
static int check_arglist(struct arglist *al, const char *probe)
{
    int rc = 0;
    for (int i = 0; i < al->n; i++) {
        const struct argdecl *d = &al->d[i];
        if (d->is_void && al->total > 1) {
            error_at(&d->at, "'void' must be the only argument of probe '%s'", probe);
            rc = -1;
        } else if (d->is_void && d->qualified) {
            error_at(&d->first, "'void' as the only argument of probe '%s' may not be qualified",
                     probe);
            rc = -1;
        }
    }
    /* "(void)" declares no arguments, as in C. */
    if (rc == 0 && al->n == 1 && al->d[0].is_void) {
        al->n = 0;
        al->total = 0;
    }
    return rc;
}

static bool allowed_in_arg(const struct token *t)
{
    if (t->kind == TK_IDENT || t->kind == TK_NUMBER)
        return true;
    return t->kind == TK_PUNCT && strchr("*&()[],.^", t->text[0]) != NULL;
}

/* ---- brackets ---- */

static bool is_open(const struct token *t)
{
    return is_punct(t, '(') || is_punct(t, '[') || is_punct(t, '{');
}

static bool is_close(const struct token *t)
{
    return is_punct(t, ')') || is_punct(t, ']') || is_punct(t, '}');
}

static char closer_for(char open) { return open == '(' ? ')' : open == '[' ? ']' : '}'; }

/*
 * Keep nest, the brackets open, up to date with t: an opener is pushed (at
 * most MAX_NESTING), a closer must match the last one open and pops it.
 * probe names the probe whose argument list this is, or is NULL outside
 * providers.  0, or -1 after reporting.
 */
static int track_bracket(struct toklist *nest, const struct token *t, const char *probe)
{
    char d[64];
    if (is_open(t)) {
        if (nest->n < MAX_NESTING) {
            toklist_push(nest, t);
            return 0;
        }
        if (probe)
            error_at(&t->loc, "brackets nested more than %d deep in probe '%s'", MAX_NESTING,
                     probe);
        else
            error_at(&t->loc, "brackets nested more than %d deep", MAX_NESTING);
        return -1;
    }
    if (!is_close(t))
        return 0;
    if (nest->n == 0) {
        if (probe)
            error_at(&t->loc, "unbalanced %s in the argument list of probe '%s'",
                     describe(t, d, sizeof d), probe);
        else
            error_at(&t->loc, "unbalanced %s: nothing is open", describe(t, d, sizeof d));
        return -1;
    }
    const struct token *o = &nest->v[nest->n - 1];
    if (closer_for(o->text[0]) != t->text[0]) {
        error_at(&t->loc, "%s does not match '%c' opened at line %d, column %d",
                 describe(t, d, sizeof d), o->text[0], o->loc.line, o->loc.col);
        return -1;
    }
    nest->n--;
    return 0;
}

/*
 * The declarations between "(" (already read: open) and its ")".  Commas
 * nested in brackets (function-pointer parameters) do not split.
 */
static int parse_args(struct parser *ps, const struct token *open, const char *probe,
                      struct arglist *out)
{
    char d[64];
    struct toklist *cur = &ps->cur, *nest = &ps->nest;
    cur->n = nest->n = 0;
    out->n = 0;
    out->total = 0;

    for (;;) {
        struct token t;
        if (next(ps, &t) != 0)
            return -1;
        if (t.kind == TK_EOF) {
            error_at(&open->loc,
                     "the argument list of probe '%s' is not closed before the end of the file",
                     probe);
            return -1;
        }
        if (nest->n == 0 && (is_punct(&t, ')') || is_punct(&t, ','))) {
            if (cur->n == 0 && (is_punct(&t, ',') || out->n > 0)) {
                error_at(&t.loc, "missing argument declaration before %s in probe '%s'",
                         describe(&t, d, sizeof d), probe);
                return -1;
            }
            if (cur->n > 0)
                arglist_add(ps, out, cur, probe);
            cur->n = 0;
            if (is_punct(&t, ')'))
                break;
            continue;
        }
        if (!allowed_in_arg(&t)) {
            error_at(&t.loc, "expected ',' or ')' in the argument list of probe '%s', found %s",
                     probe, describe(&t, d, sizeof d));
            return -1;
        }
        if (track_bracket(nest, &t, probe) != 0)
            return -1;
        if (cur->n == MAX_ARG_TOKENS) {
            error_at(&cur->v[0].loc,
                     "an argument declaration of probe '%s' has more than %d tokens", probe,
                     MAX_ARG_TOKENS);
            return -1;
        }
        t.kw = keyword_kind(&t);
        toklist_push(cur, &t);
    }
    if (check_arglist(out, probe) != 0)
        ps->failed = true;
    return 0;
}

/* ---- probes and providers ---- */

static int add_probe(struct parser *ps, struct provider *pv, const struct token *name,
                     const struct arglist *args)
{
    struct program *prog = ps->prog;
    if (prog->nprobes >= MAX_PROBES) {
        error_at(&name->loc, "more than %d probes", MAX_PROBES);
        return -1;
    }
    struct probe *pr = arena_alloc(&prog->arena, sizeof *pr);
    pr->name = arena_strndup(&prog->arena, name->text, name->len);
    pr->loc = name->loc;
    pr->nargs = args->n;
    pr->provider = pv;
    if (args->n) {
        pr->args = arena_alloc(&prog->arena, (size_t)args->n * sizeof *pr->args);
        memcpy(pr->args, args->v, (size_t)args->n * sizeof *pr->args);
    }

    if (args->total > MAX_PROBE_ARGS) {
        error_at(&args->v[MAX_PROBE_ARGS].loc,
                 "probe '%s' has %ld arguments; sys/sdt.h supports at most %d", pr->name,
                 args->total, MAX_PROBE_ARGS);
        ps->failed = true;
    }

    /* (The arena keeps the probe if it is a duplicate.) */
    probe_key(&ps->text, pv, name->text, name->len);
    struct probe *old = strmap_put(&prog->probe_index, ps->text.data, ps->text.len, pr);
    if (old) {
        error_at(&pr->loc, "duplicate probe '%s' in provider '%s'", pr->name, pv->name);
        note_at(&old->loc, "'%s' was first declared here", pr->name);
        ps->failed = true;
        return 0;
    }
    if (pv->nprobes == pv->cap) {
        pv->cap = pv->cap ? pv->cap * 2 : 8;
        pv->probes = xreallocarray(pv->probes, pv->cap, sizeof *pv->probes);
    }
    pv->probes[pv->nprobes++] = pr;
    prog->nprobes++;
    return 0;
}

/* "(", then the declarations up to its ")".  after, a format naming the
 * probe, says what the "(" should have followed. */
static int parse_paren_args(struct parser *ps, const char *pname, const char *after,
                            struct arglist *out)
{
    char d[64], what[192];
    struct token t;
    if (next(ps, &t) != 0)
        return -1;
    if (!is_punct(&t, '(')) {
        snprintf(what, sizeof what, after, pname);
        error_at(&t.loc, "expected '(' after %s, found %s", what, describe(&t, d, sizeof d));
        return -1;
    }
    return parse_args(ps, &t, pname, out);
}

static int parse_probe(struct parser *ps, struct provider *pv)
{
    char d[64];
    struct token name, t;
    if (expect_name(ps, "probe", &name) != 0)
        return -1;
    char pname[128]; /* for messages; names are rarely this long */
    size_t plen = name.len < sizeof pname ? name.len : sizeof pname - 1;
    memcpy(pname, name.text, plen);
    pname[plen] = '\0';

    if (parse_paren_args(ps, pname, "probe name '%s'", &ps->args) != 0)
        return -1;

    /* Translated arguments, "probe p(native) : (translated)". */
    if (peek(ps, 0, &t) != 0)
        return -1;
    if (is_punct(&t, ':')) {
        next(ps, &t);
        if (parse_paren_args(ps, pname, "':' in probe '%s'", &ps->translated) != 0)
            return -1;
    }

    /* The ';' may be missing before the next probe or the closing brace:
     * SystemTap's script accepts that, DTrace does not.  Kept working,
     * with a warning where the ';' belongs (just after the ')'). */
    if (peek(ps, 0, &t) != 0)
        return -1;
    if (is_punct(&t, ';')) {
        next(ps, &t);
    } else if (is_punct(&t, '}') || tok_eq(&t, "probe")) {
        struct loc at = after_punct(&ps->last);
        warning_at(&at,
                   "missing ';' after the declaration of probe '%s' (accepted for "
                   "compatibility; DTrace requires it)",
                   pname);
    } else {
        error_at(&t.loc, "expected ';' after the declaration of probe '%s', found %s", pname,
                 describe(&t, d, sizeof d));
        return -1;
    }
    return add_probe(ps, pv, &name, &ps->args);
}

static int parse_provider(struct parser *ps)
{
    char d[64];
    struct token name, open, t;
    if (expect_name(ps, "provider", &name) != 0)
        return -1;
    if (next(ps, &open) != 0)
        return -1;
    if (!is_punct(&open, '{')) {
        error_at(&open.loc, "expected '{' after provider name '%.*s', found %s", (int)name.len,
                 name.text, describe(&open, d, sizeof d));
        return -1;
    }
    struct provider *pv = provider_for(ps->prog, name.text, name.len, &name.loc);
    if (!pv)
        return -1;

    for (;;) {
        if (next(ps, &t) != 0)
            return -1;
        if (t.kind == TK_EOF) {
            error_at(&t.loc, "unexpected end of file in provider '%s'", pv->name);
            note_at(&open.loc, "the provider's '{' is here");
            return -1;
        }
        if (is_punct(&t, '}'))
            break;
        if (is_punct(&t, ';'))
            continue;
        if (!tok_eq(&t, "probe")) {
            const char *w = near_keyword(&t, probe_word);
            error_at(&t.loc, "expected 'probe' or '}' in provider '%s', found %s%s%s%s", pv->name,
                     describe(&t, d, sizeof d), w ? "; did you mean '" : "", w ? w : "",
                     w ? "'?" : "");
            return -1;
        }
        if (parse_probe(ps, pv) != 0)
            return -1;
    }
    /* DTrace's grammar ends a provider with "};"; SystemTap's script, and
     * so real files (sssd's), take the '}' alone.  Kept working, with a
     * warning where the ';' belongs. */
    struct loc at = after_punct(&t);
    if (peek(ps, 0, &t) != 0)
        return -1;
    if (is_punct(&t, ';')) {
        next(ps, &t);
    } else {
        warning_at(&at,
                   "missing ';' after the closing '}' of provider '%s' (accepted for "
                   "compatibility; DTrace requires it)",
                   pv->name);
    }
    return 0;
}

/* ---- the file ---- */

int parse_buffer(struct program *prog, const char *name, const char *text, size_t len,
                 bool with_text)
{
    struct parser ps = {.prog = prog, .with_text = with_text};
    lexer_init(&ps.lx, name, text, len, &prog->names);
    struct toklist nest = {0}; /* open brackets outside providers */
    struct token prev = {.kind = TK_EOF};
    int rc = -1;

    for (;;) {
        struct token t, n1, n2;
        if (next(&ps, &t) != 0)
            goto done;
        if (t.kind == TK_EOF)
            break;
        if (nest.n == 0 && tok_eq(&t, "provider") && !is_tag_keyword(&prev)) {
            if (peek(&ps, 0, &n1) != 0)
                goto done;
            if (n1.kind == TK_IDENT || n1.kind == TK_NUMBER || is_punct(&n1, '{')) {
                if (parse_provider(&ps) != 0)
                    goto done;
                prev.kind = TK_EOF;
                continue;
            }
        }
        /* "provder p {": skipped as C, it would silently lose its probes. */
        if (nest.n == 0 && near_keyword(&t, provider_word) && !is_tag_keyword(&prev)) {
            if (peek(&ps, 0, &n1) != 0 || peek(&ps, 1, &n2) != 0)
                goto done;
            if (n1.kind == TK_IDENT && is_punct(&n2, '{')) {
                error_at(&t.loc, "unknown word '%.*s' before '%.*s {'; did you mean 'provider'?",
                         (int)t.len, t.text, (int)n1.len, n1.text);
                goto done;
            }
        }
        if (nest.n == 0 && tok_eq(&t, "probe")) {
            if (peek(&ps, 0, &n1) != 0 || peek(&ps, 1, &n2) != 0)
                goto done;
            if (n1.kind == TK_IDENT && is_punct(&n2, '(')) {
                error_at(&t.loc, "probe '%.*s' is declared outside of any provider", (int)n1.len,
                         n1.text);
                goto done;
            }
        }
        if (track_bracket(&nest, &t, NULL) != 0)
            goto done;
        prev = t;
    }
    if (nest.n > 0) {
        const struct token *o = &nest.v[nest.n - 1];
        error_at(&o->loc, "'%c' is not closed before the end of the file", o->text[0]);
        goto done;
    }
    rc = ps.failed ? -1 : 0;
done:
    free(nest.v);
    parser_free(&ps);
    return rc;
}

/* ---- checks across the whole program ---- */

/* Append PROVIDER_PROBE with "__" -> "_", upper case (the macro name). */
static void probe_macro_name(const struct probe *pr, struct buf *b)
{
    buf_add_upper(b, pr->provider->name, strlen(pr->provider->name));
    buf_addc(b, '_');
    /* each "__", left to right, folds to "_" (its second one is kept) */
    const char *run = pr->name, *scan = pr->name, *dd;
    while ((dd = strstr(scan, "__"))) {
        buf_add_upper(b, run, (size_t)(dd - run));
        run = dd + 1;
        scan = dd + 2;
    }
    buf_add_upper(b, run, strlen(run));
}

/* Append provider_probe_semaphore (the default semaphore name). */
static void probe_semaphore_name(const struct probe *pr, struct buf *b)
{
    buf_cat(b, pr->provider->name, "_", pr->name, "_semaphore", (char *)NULL);
}

static int claim(struct strmap *m, const struct buf *name, const struct probe *pr, const char *kind)
{
    const struct probe *old = strmap_put(m, name->data, name->len, (void *)pr);
    if (!old || old == pr)
        return 0;
    error_at(&pr->loc, "probe '%s:%s' and probe '%s:%s' would both define the %s '%s'",
             pr->provider->name, pr->name, old->provider->name, old->name, kind, name->data);
    note_at(&old->loc, "'%s:%s' is declared here", old->provider->name, old->name);
    return -1;
}

/*
 * Generated names must not collide: PROV_NAME (and PROV_NAME_ENABLED,
 * which a probe called name__enabled would also define) and
 * prov_name_semaphore.  Case and "__" folding make different probes
 * meet: p:gc__start and p:gc_start, or a_b:c and a:b_c.
 */
int program_check(struct program *prog)
{
    struct strmap macros = {0}, semaphores = {0};
    struct buf name = {0};
    int rc = 0;
    strmap_reserve(&macros, prog->nprobes);
    strmap_reserve(&semaphores, prog->nprobes);
    for (size_t i = 0; i < prog->nproviders; i++) {
        const struct provider *pv = prog->providers[i];
        for (size_t j = 0; j < pv->nprobes; j++) {
            struct probe *pr = pv->probes[j];
            name.len = 0;
            probe_macro_name(pr, &name);
            pr->macro = (struct str){arena_strndup(&prog->arena, name.data, name.len), name.len};
            if (claim(&macros, &name, pr, "macro") != 0) {
                rc = -1;
                continue;
            }
            name.len = 0;
            probe_semaphore_name(pr, &name);
            pr->semaphore =
                (struct str){arena_strndup(&prog->arena, name.data, name.len), name.len};
            if (claim(&semaphores, &name, pr, "semaphore") != 0)
                rc = -1;
        }
    }
    /* A macro ending in _ENABLED against the ENABLED macro of its stem. */
    for (size_t i = 0; i < prog->nproviders; i++) {
        const struct provider *pv = prog->providers[i];
        for (size_t j = 0; j < pv->nprobes; j++) {
            const struct probe *pr = pv->probes[j];
            const struct str *m = &pr->macro;
            if (m->len <= 8 || strcmp(m->s + m->len - 8, "_ENABLED") != 0)
                continue;
            const struct probe *stem = strmap_get(&macros, m->s, m->len - 8);
            if (stem && stem != pr) {
                error_at(&pr->loc,
                         "probe '%s:%s' and probe '%s:%s' would both define the macro '%s'",
                         pv->name, pr->name, stem->provider->name, stem->name, m->s);
                note_at(&stem->loc, "'%s:%s' is declared here", stem->provider->name, stem->name);
                rc = -1;
            }
        }
    }
    buf_free(&name);
    strmap_free(&macros);
    strmap_free(&semaphores);
    return rc;
}
