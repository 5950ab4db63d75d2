// SPDX-License-Identifier: MIT
// ring.hpp: a fixed-size ring buffer template and an inline hash step, both
// with probes.  Included by producer.cc, consumer.cc and main.cc.
#ifndef RING_HPP
#define RING_HPP

#include "ring-probes.h"   // generated: dtrace -h -s ring.d -o ring-probes.h

template <typename T, int N>
class ring {
public:
    bool push (T v)
    {
        if (count_ == N)
            return false;
        buf_[(head_ + count_) % N] = v;
        count_++;
        // Converting the value costs nothing here, but this is where an
        // expensive argument would be computed only while traced.
        if (RING_PUSH_ENABLED ())
            RING_PUSH (static_cast<long> (v), count_);
        return true;
    }

    bool pop (T &v)
    {
        if (count_ == 0)
            return false;
        v = buf_[head_];
        head_ = (head_ + 1) % N;
        count_--;
        RING_POP (static_cast<long> (v), count_);
        return true;
    }

    int size () const { return count_; }

private:
    T buf_[N];
    int head_ = 0;
    int count_ = 0;
};

// One step of FNV-1a over a whole value.
inline unsigned long
mix (unsigned long hash, long value)
{
    hash = (hash ^ static_cast<unsigned long> (value)) * 1099511628211UL;
    RING_MIX (hash);
    return hash;
}

// producer.cc and consumer.cc
void produce (ring<int, 8> &r, int first, int n);
unsigned long consume (ring<int, 8> &r, unsigned long hash);

#endif
