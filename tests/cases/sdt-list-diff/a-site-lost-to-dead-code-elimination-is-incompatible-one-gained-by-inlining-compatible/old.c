/* SPDX-License-Identifier: MIT */
#include <sys/sdt.h>
static const int tracing_g = 1;
static inline void hit(int x) { DTRACE_PROBE1(app, hit, x); }
__attribute__((noinline)) int f(int x) { hit(x); return x + 1; }
__attribute__((noinline)) int g(int x)
{
    if (tracing_g)
        hit(x * 2);
    return x - 1;
}
int main(int argc, char **argv) { (void)argv; return f(argc) + g(argc) == 0; }
