/* SPDX-License-Identifier: MIT */
#include <sys/sdt.h>
__attribute__((noinline)) int work(int n, long m, const char *s)
{
    DTRACE_PROBE4(app, start, n, m, s, n * 2);
    DTRACE_PROBE(app, tick);
    return n + (int)m;
}
int main(int argc, char **argv) { return work(argc, 2, argv[0]) == 0; }
