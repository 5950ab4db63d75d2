/* SPDX-License-Identifier: MIT */
/*
 * sha1.c: SHA-1 (FIPS 180-4), for the build-id of the run-time probes'
 * shared objects: 20 bytes that change with every byte hashed, as the GNU
 * linker's --build-id=sha1 gives.  Not for security.
 *
 * Pure: no allocation, no output.
 */
#include "core.h"

static uint32_t rol(uint32_t x, unsigned n) { return (x << n) | (x >> (32 - n)); }

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void block(uint32_t h[5], const unsigned char *p)
{
    uint32_t w[80];
    for (int i = 0; i < 16; i++)
        w[i] = be32(p + 4 * i);
    for (int i = 16; i < 80; i++)
        w[i] = rol(w[i - 3] ^ w[i - 8] ^ w[i - 14] ^ w[i - 16], 1);
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], t;
    /* the four functions of the rounds, 20 rounds each */
#define ROUND(f, k)                                                                                \
    t = rol(a, 5) + (f) + e + (k) + w[i];                                                          \
    e = d;                                                                                         \
    d = c;                                                                                         \
    c = rol(b, 30);                                                                                \
    b = a;                                                                                         \
    a = t
    int i = 0;
    for (; i < 20; i++) {
        ROUND((b & c) | (~b & d), 0x5a827999);
    }
    for (; i < 40; i++) {
        ROUND(b ^ c ^ d, 0x6ed9eba1);
    }
    for (; i < 60; i++) {
        ROUND((b & c) | (b & d) | (c & d), 0x8f1bbcdc);
    }
    for (; i < 80; i++) {
        ROUND(b ^ c ^ d, 0xca62c1d6);
    }
#undef ROUND
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
}

void sha1_init(struct sha1 *s)
{
    static const uint32_t h0[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
    memcpy(s->h, h0, sizeof h0);
    s->used = 0;
    s->total = 0;
}

void sha1_update(struct sha1 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->total += len;
    if (s->used) {
        size_t n = 64 - s->used < len ? 64 - s->used : len;
        memcpy(s->buf + s->used, p, n);
        s->used += n;
        p += n;
        len -= n;
        if (s->used < 64)
            return;
        block(s->h, s->buf);
        s->used = 0;
    }
    for (; len >= 64; len -= 64, p += 64)
        block(s->h, p);
    memcpy(s->buf, p, len);
    s->used = len;
}

void sha1_final(struct sha1 *s, unsigned char out[20])
{
    /* a 1 bit, zeros, and the length in bits: one or two blocks */
    uint64_t bits = s->total * 8;
    unsigned char pad[72] = {0x80};
    size_t n = s->used < 56 ? 56 - s->used : 120 - s->used;
    for (int i = 0; i < 8; i++)
        pad[n + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1_update(s, pad, n + 8);
    assert(s->used == 0);
    for (int i = 0; i < 5; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}
