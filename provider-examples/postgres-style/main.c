/* SPDX-License-Identifier: MIT */
/* minipg: a toy "server" that runs each command-line argument as a query
   in its own transaction.  A query reads one block per character of its
   text from relation 16384 (block = character % 8), so repeated characters
   hit the cache.  The query probes are guarded by their semaphores, as
   PostgreSQL's are where preparing the arguments would cost something.

     ./minipg 'select 1' 'select 2' */
#include "minipg.h"
#include "probes.h"
#include <stdio.h>

int
main (int argc, char **argv)
{
    int i;

    for (i = 1; i < argc; i++) {
        const char *query = argv[i];
        LocalTransactionId xid = start_transaction ();
        int hits = 0, reads = 0;
        const char *p;

        if (TRACE_POSTGRESQL_QUERY_START_ENABLED ())
            TRACE_POSTGRESQL_QUERY_START (query);
        for (p = query; *p; p++, reads++)
            hits += read_buffer (16384, (BlockNumber) (unsigned char) *p % 8);
        if (TRACE_POSTGRESQL_QUERY_DONE_ENABLED ())
            TRACE_POSTGRESQL_QUERY_DONE (query);
        commit_transaction (xid);
        printf ("xid %u: query %p \"%s\": %d reads, %d hits\n", xid,
                (const void *) query, query, reads, hits);
    }
    return 0;
}
