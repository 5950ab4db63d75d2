/* SPDX-License-Identifier: MIT */
/* minipg.h: the pieces of the toy server, one per source file. */
#ifndef MINIPG_H
#define MINIPG_H

#include <stdbool.h>

typedef unsigned int LocalTransactionId;
typedef unsigned int Oid;
typedef unsigned int BlockNumber;

/* xact.c */
LocalTransactionId start_transaction (void);
void commit_transaction (LocalTransactionId xid);

/* bufmgr.c: "reads" block BLKNO of relation REL; true on a cache hit. */
bool read_buffer (Oid rel, BlockNumber blkno);

#endif
