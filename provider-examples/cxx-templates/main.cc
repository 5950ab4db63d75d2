// SPDX-License-Identifier: MIT
// cxx-ring: C++ probes in templates and inline functions.
//
//   ./cxx-ring [N]     pushes 1..N (default 3, at most 8) through a
//                      ring<int, 8> and N multiples of 5000000000 through a
//                      ring<long long, 4>, printing every operation.
#include "ring.hpp"
#include <cstdio>
#include <cstdlib>

int
main (int argc, char **argv)
{
    int n = argc > 1 ? std::atoi (argv[1]) : 3;
    ring<int, 8> small;
    ring<long long, 4> big;
    unsigned long hash = 14695981039346656037UL;

    if (n < 1 || n > 8) {
        std::fprintf (stderr, "usage: %s [N]  (1 <= N <= 8)\n", argv[0]);
        return 2;
    }
    produce (small, 1, n);
    hash = consume (small, hash);
    for (int i = 1; i <= n; i++) {
        long long v = i * 5000000000LL;

        big.push (v);
        std::printf ("push %lld (size %d)\n", v, big.size ());
        big.pop (v);
        std::printf ("pop %lld (size %d)\n", v, big.size ());
        hash = mix (hash, static_cast<long> (v));
    }
    std::printf ("hash %#lx\n", hash);
    return 0;
}
