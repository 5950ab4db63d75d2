/* SPDX-License-Identifier: MIT */
#include <sys/sdt.h>
/* new.cflags: -DTRACING_G=0, and the call in g is dead code */
#ifndef TRACING_G
#define TRACING_G 1
#endif
static const int tracing_g = TRACING_G;
static inline void hit(int x) { DTRACE_PROBE1(app, hit, x); }
__attribute__((noinline)) int f(int x) { hit(x); return x + 1; }
__attribute__((noinline)) int g(int x)
{
    if (tracing_g)
        hit(x * 2);
    return x - 1;
}
int main(int argc, char **argv) { (void)argv; return f(argc) + g(argc) == 0; }
