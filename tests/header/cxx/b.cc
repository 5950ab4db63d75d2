/* SPDX-License-Identifier: MIT */
#include "probes.h"
long from_b (long x) { counter c = { 1 }; c.bump (x); return scaled (static_cast<int> (x)) + twice (x) + twice (static_cast<short> (x)); }
