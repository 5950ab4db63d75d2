#pragma D option quiet
/* C declarations around the providers are skipped */
typedef struct conn { int fd; struct { long a[4]; } inner; } conn_t;
typedef unsigned long long u64;
enum state { IDLE = 1, BUSY = (1 << 2) };

provider db {
    probe query__start(const char *, unsigned long long int, conn_t *c);
    probe query__done(u64 rows, struct conn **cs, string sql);
    probe callback(int (*fn)(void *, int), void *arg);
    probe arrays(char buf[16], int m[2][3]);
    probe all12(int a1, int a2, int a3, int a4, int a5, int a6,
                int a7, int a8, int a9, int a10, int a11, int a12);
}
