/* SPDX-License-Identifier: MIT */
/* xact.c: transaction ids, with the transaction probes. */
#include "minipg.h"
#include "probes.h"

static LocalTransactionId next_xid = 700;

LocalTransactionId
start_transaction (void)
{
    LocalTransactionId xid = next_xid++;

    TRACE_POSTGRESQL_TRANSACTION_START (xid);
    return xid;
}

void
commit_transaction (LocalTransactionId xid)
{
    TRACE_POSTGRESQL_TRANSACTION_COMMIT (xid);
}
