/* SPDX-License-Identifier: MIT */
/* probes.d: a provider written the way PostgreSQL writes its own
   (src/backend/utils/probes.d): the types of the server's sources are
   #defined at the top, and both `dtrace -h' and `dtrace -G' run the file
   through the C preprocessor (-C) to replace them.  A `__' in a probe
   name is the DTrace spelling of `-'. */
#define LocalTransactionId unsigned int
#define Oid unsigned int
#define BlockNumber unsigned int
#define bool unsigned char

provider postgresql {
    probe transaction__start(LocalTransactionId);
    probe transaction__commit(LocalTransactionId);
    probe query__start(const char *);
    probe query__done(const char *);
    probe buffer__read__start(BlockNumber, Oid, int);
    probe buffer__read__done(BlockNumber, Oid, int, bool);
};
