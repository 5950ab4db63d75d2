/* SPDX-License-Identifier: MIT */
/*
 * flood.c: print N provider declarations whose names all hash alike.
 *
 *   flood N
 *
 * The names ("p" and eight hex digits) are chosen so that dtrace's old,
 * unkeyed map hash (FNV-1a with a final mix, as hash_bytes() still is) has
 * its low 18 bits below 256 for all of them: in any table of up to 2^18
 * slots (N up to 196,000) they all land in the first 256 slots and pile up
 * in one run, so inserting them was quadratic.  (A window rather than one
 * slot: a name costs about 1,000 tries instead of 2^18.)  With the maps
 * keyed per run they spread out.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static uint32_t step(uint32_t h, unsigned char c) { return (h ^ c) * 16777619u; }

static uint32_t mix(uint32_t h)
{
    h ^= h >> 16;
    h *= 0x85ebca6bu;
    h ^= h >> 13;
    h *= 0xc2b2ae35u;
    h ^= h >> 16;
    return h;
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    long want = atol(argv[1]);
    static const char hex[] = "0123456789abcdef";
    long found = 0;
    for (uint32_t hi = 0; found < want && hi < 0x100000; hi++) {
        /* "p" and five digits once, then the last three digits */
        char name[10] = {'p'};
        uint32_t h = step(2166136261u, 'p');
        for (int i = 0; i < 5; i++) {
            name[1 + i] = hex[(hi >> (4 * (4 - i))) & 15];
            h = step(h, (unsigned char)name[1 + i]);
        }
        for (uint32_t lo = 0; lo < 0x1000 && found < want; lo++) {
            uint32_t g = h;
            for (int i = 0; i < 3; i++) {
                name[6 + i] = hex[(lo >> (4 * (2 - i))) & 15];
                g = step(g, (unsigned char)name[6 + i]);
            }
            if ((mix(g) & 0x3ffff) < 256) {
                name[9] = '\0';
                printf("provider %s {};\n", name);
                found++;
            }
        }
    }
    return found == want ? 0 : 1;
}
