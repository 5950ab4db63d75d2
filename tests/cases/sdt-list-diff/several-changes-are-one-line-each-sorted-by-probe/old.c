/* SPDX-License-Identifier: MIT */
#include <sys/sdt.h>
__attribute__((noinline)) int work(int n, long m, short k)
{
    DTRACE_PROBE3(zed, first, n, m, k);
    DTRACE_PROBE2(alpha, gone, n, m);
    DTRACE_PROBE1(alpha, same, m);
    DTRACE_PROBE2(beta, wide, n, k);
    return n + (int)m + k;
}
int main(int argc, char **argv) { (void)argv; return work(argc, 2, 3) == 0; }
