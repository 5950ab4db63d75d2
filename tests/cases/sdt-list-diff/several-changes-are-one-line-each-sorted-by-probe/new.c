/* SPDX-License-Identifier: MIT */
#include <sys/sdt.h>
__attribute__((noinline)) int work(int n, long m, short k)
{
    DTRACE_PROBE3(zed, first, (char)n, m, (unsigned short)k);
    DTRACE_PROBE1(alpha, same, m);
    DTRACE_PROBE2(beta, wide, (long)n, (long)k);
    DTRACE_PROBE(alpha, fresh);
    return n + (int)m + k;
}
int main(int argc, char **argv) { (void)argv; return work(argc, 2, 3) == 0; }
