/* SPDX-License-Identifier: MIT */
/* bufmgr.c: a four-slot "buffer cache", with the buffer probes.  The
   third argument (the fork number in PostgreSQL) is always 0 here. */
#include "minipg.h"
#include "probes.h"

#define SLOTS 4

static struct { Oid rel; BlockNumber blkno; bool used; } slots[SLOTS];

bool
read_buffer (Oid rel, BlockNumber blkno)
{
    unsigned i = (rel * 31u + blkno) % SLOTS;
    bool hit = slots[i].used && slots[i].rel == rel && slots[i].blkno == blkno;

    TRACE_POSTGRESQL_BUFFER_READ_START (blkno, rel, 0);
    slots[i].rel = rel;
    slots[i].blkno = blkno;
    slots[i].used = true;
    TRACE_POSTGRESQL_BUFFER_READ_DONE (blkno, rel, 0, hit);
    return hit;
}
