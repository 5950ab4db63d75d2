/* SPDX-License-Identifier: MIT */
/*
 * failure.c: how the run-time library says why a call failed, the layer
 * every other file calls (runtime.h's first section).
 */
#include "runtime.h"

#include <stdio.h>

int fail(struct failure *f, int status, enum load_stage stage, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->msg, sizeof f->msg, fmt, ap);
    va_end(ap);
    f->status = status;
    f->stage = stage;
    return status;
}

int fail_attempt(struct failure *f, int status, enum load_stage stage, int err, const char *what,
                 const char *why)
{
    size_t n = strlen(f->msg);
    snprintf(f->msg + n, sizeof f->msg - n, "%s%s: %s", n ? "; " : "", what, why);
    f->status = status;
    f->stage = stage;
    f->err = err;
    return status;
}

void fail_clear(struct failure *f)
{
    f->status = SDTKIT_OK;
    f->stage = STAGE_NONE;
    f->err = 0;
    f->msg[0] = '\0';
}
