/* SPDX-License-Identifier: MIT */
/*
 * dtrace-target.c: what the -G object is, when the objects given do not
 * say: its ELF target and its semaphores' names.
 *
 * SystemTap's script compiled a C file with $CC $CFLAGS, so both came from
 * the compiler: the target, -m32/-m64 in the flags, and the STAP_SDT_V1 /
 * STAP_SDT_V2 macros that choose the semaphores' names.  We ask $CC for
 * its predefined macros only (lib/target.c), and read the rest from the
 * same words.  $CFLAGS is split once, here.
 *
 * Cross builds that name no compiler name the target otherwise: as
 * binutils' tools are, dtrace is installed as TRIPLET-dtrace for each
 * target (configure scripts look for ${host}-dtrace, Ruby's for that name
 * alone), and Debian's cross builds export DEB_HOST_GNU_TYPE.
 */
#include "dtrace.h"

#include <stdlib.h>

char *name_triplet(const char *argv0)
{
    static const char suffix[] = "-dtrace";
    const size_t n = sizeof suffix - 1;
    const char *base = path_basename(argv0);
    size_t len = strlen(base);
    if (len <= n || strcmp(base + len - n, suffix) != 0)
        return NULL;
    if (!memchr(base, '-', len - n))
        return NULL; /* sdtkit-dtrace, not a triplet */
    return xstrndup(base, len - n);
}

int build_env_load(struct build_env *env, const char *triplet)
{
    memset(env, 0, sizeof *env);
    const char *cc = getenv("CC");
    env->cc = cc && *cc ? cc : NULL;
    const char *host = getenv("DEB_HOST_GNU_TYPE");
    env->deb_host = host && *host ? host : NULL;
    env->triplet = triplet;
    const char *cflags = getenv("CFLAGS");
    const char *why = NULL;
    if (cflags && split_words(cflags, &env->cflags, &why) != 0) {
        error("cannot use CFLAGS: %s", why);
        return -1;
    }
    return 0;
}

void build_env_free(struct build_env *env) { strvec_free(&env->cflags); }

/* -m32 / -m64 among $CFLAGS, the last one winning; 0 when neither. */
static int cflags_bits(const struct strvec *cflags)
{
    int bits = 0;
    for (size_t i = 0; i < cflags->n; i++) {
        if (strcmp(cflags->v[i], "-m32") == 0)
            bits = 32;
        else if (strcmp(cflags->v[i], "-m64") == 0)
            bits = 64;
    }
    return bits;
}

static int from_triplet(const char *triplet, const char *whose, const char *advice,
                        struct target *t)
{
    if (target_from_triplet(triplet, t) == 0)
        return 0;
    error("%s: '%s' is not a target dtrace knows (%s); %s", whose, triplet, target_triplets(),
          advice);
    return -1;
}

/* The family, from the first source that gives one; *from says which. */
static int choose_family(const struct build_env *env, struct target *t, struct buf *from)
{
    const char *why = NULL;
    if (env->triplet) {
        if (from_triplet(env->triplet, "dtrace's name", "call it dtrace, or pass an object file",
                         t) != 0)
            return -1;
        buf_printf(from, "dtrace's name %s-dtrace", env->triplet);
    } else if (env->cc) {
        if (target_from_cc(env->cc, &env->cflags, t) != 0)
            return -1;
        buf_adds(from, "$CC");
    } else if (env->deb_host) {
        if (from_triplet(env->deb_host, "DEB_HOST_GNU_TYPE",
                         "set CC to its compiler, or pass an object file", t) != 0)
            return -1;
        buf_printf(from, "$DEB_HOST_GNU_TYPE %s", env->deb_host);
    } else {
        if (target_host(t, &why) != 0) {
            error("%s", why);
            return -1;
        }
        buf_adds(from, "the host");
    }
    return 0;
}

int choose_target(const struct build_env *env, int bits, struct target *t, struct buf *from)
{
    const char *why = NULL;
    if (choose_family(env, t, from) != 0)
        return -1;
    /* $CC was asked with $CFLAGS: its -m32/-m64 are in its answer */
    bool asked_cc = !env->triplet && env->cc;
    int want = bits ? bits : asked_cc ? 0 : cflags_bits(&env->cflags);
    if (!want)
        return 0;
    if (target_variant(t, want, &why) != 0) {
        error("%s", why);
        return -1;
    }
    buf_adds(from,
             bits ? (bits == 32 ? ", then -32" : ", then -64") : ", then -m32/-m64 in $CFLAGS");
    return 0;
}

/* Track -DNAME / -UNAME (or -D NAME) for the STAP_SDT_V1 / STAP_SDT_V2
 * names; next is the word after, or NULL. */
static void track_define(const char *word, const char *next, bool *v1, bool *v2)
{
    if (word[0] != '-' || (word[1] != 'D' && word[1] != 'U'))
        return;
    const char *name = word[2] ? word + 2 : next;
    if (!name)
        return;
    size_t n = strcspn(name, "=");
    bool def = word[1] == 'D';
    if (n == 11 && strncmp(name, "STAP_SDT_V1", n) == 0)
        *v1 = def;
    else if (n == 11 && strncmp(name, "STAP_SDT_V2", n) == 0)
        *v2 = def;
}

enum semaphore_style semaphore_style(const struct build_env *env, const struct strvec *cpp_args)
{
    bool v1 = false, v2 = false;
    for (size_t i = 0; i < cpp_args->n; i++)
        track_define(cpp_args->v[i], NULL, &v1, &v2);
    for (size_t i = 0; i < env->cflags.n; i++)
        track_define(env->cflags.v[i], env->cflags.v[i + 1], &v1, &v2);
    return v1 ? SEM_V1 : v2 ? SEM_V2 : SEM_HIDDEN;
}
