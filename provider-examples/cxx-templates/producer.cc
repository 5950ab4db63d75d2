// SPDX-License-Identifier: MIT
// producer.cc: fills a ring<int, 8>; instantiates ring<int, 8>::push and
// uses mix() (a second copy of each probe site, merged at link time).
#include "ring.hpp"
#include <cstdio>

void
produce (ring<int, 8> &r, int first, int n)
{
    unsigned long check = 14695981039346656037UL;

    for (int v = first; v < first + n; v++) {
        if (!r.push (v))
            break;
        check = mix (check, v);
        std::printf ("push %d (size %d)\n", v, r.size ());
    }
    std::printf ("produced hash %#lx\n", check);
}
