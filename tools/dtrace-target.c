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
 */
#include "dtrace.h"

#include <stdlib.h>

int build_env_load(struct build_env *env)
{
    memset(env, 0, sizeof *env);
    const char *cc = getenv("CC");
    env->cc = cc && *cc ? cc : NULL;
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

int choose_target(const struct build_env *env, int bits, struct target *t, const char **how)
{
    const char *why = NULL;
    if (env->cc) {
        if (target_from_cc(env->cc, &env->cflags, t) != 0)
            return -1;
        *how = "$CC";
    } else {
        if (target_host(t, &why) != 0) {
            error("%s", why);
            return -1;
        }
        *how = "the host";
    }
    int want = bits ? bits : env->cc ? 0 : cflags_bits(&env->cflags);
    if (!want)
        return 0;
    if (target_variant(t, want, &why) != 0) {
        error("%s", why);
        return -1;
    }
    *how = bits ? (bits == 32 ? "-32" : "-64") : "-m32/-m64 in $CFLAGS";
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
