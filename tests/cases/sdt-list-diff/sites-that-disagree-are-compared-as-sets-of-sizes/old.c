/* SPDX-License-Identifier: MIT */
#include <sys/sdt.h>
__attribute__((noinline)) int f(int x) { DTRACE_PROBE1(app, value, x); return x; }
__attribute__((noinline)) long g(long x) { DTRACE_PROBE1(app, value, x); return x; }
int main(int argc, char **argv) { (void)argv; return f(argc) + (int)g(argc) == 0; }
