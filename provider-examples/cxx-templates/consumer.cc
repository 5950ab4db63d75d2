// SPDX-License-Identifier: MIT
// consumer.cc: drains a ring<int, 8>; instantiates ring<int, 8>::pop and
// uses mix() too.
#include "ring.hpp"
#include <cstdio>

unsigned long
consume (ring<int, 8> &r, unsigned long hash)
{
    int v;

    while (r.pop (v)) {
        hash = mix (hash, v);
        std::printf ("pop %d (size %d)\n", v, r.size ());
    }
    return hash;
}
