/* SPDX-License-Identifier: MIT */
#include <sys/sdt.h>
__attribute__((noinline)) int work(int n)
{
    DTRACE_PROBE1(app, start, n);
    return n;
}
int main(int argc, char **argv) { (void)argv; return work(argc) == 0; }
