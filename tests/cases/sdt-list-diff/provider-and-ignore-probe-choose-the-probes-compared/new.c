/* SPDX-License-Identifier: MIT */
#include <sys/sdt.h>
__attribute__((noinline)) int work(int n, long m)
{
    DTRACE_PROBE1(app, start, n);
    DTRACE_PROBE2(libq, push, m, m);
    return n + (int)m;
}
int main(int argc, char **argv) { (void)argv; return work(argc, 2) == 0; }
