// SPDX-License-Identifier: MIT
// usdt.cc: libbpf's <usdt.h> in C++, beside <sys/sdt.h>: a probe without
// a semaphore, one with its own and one with an explicit one, and a
// STAP_PROBE2.  Prints what it saw, untraced: "usdt: 1 argument, work
// inactive".
#include <sys/sdt.h>
#include <usdt.h>
#include <cstdio>

USDT_DEFINE_SEMA (cxx_debug);

int
main (int argc, char **argv)
{
    long n = argc;

    USDT (cxx, start, argc, argv[0]);
    USDT_WITH_SEMA (cxx, work, n);
    if (USDT_SEMA_IS_ACTIVE (cxx_debug))
        USDT_WITH_EXPLICIT_SEMA (cxx_debug, cxx, debug, n * 2);
    STAP_PROBE2 (cxx, stap, argc, n);
    std::printf ("usdt: %d argument, work %s\n", argc, USDT_IS_ACTIVE (cxx, work) ? "active" : "inactive");
    return 0;
}
