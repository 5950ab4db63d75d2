/* SPDX-License-Identifier: MIT */
#include "probes.h"
int from_a (int x) { counter c = { 0 }; c.bump (x); return scaled (x) + twice (x) + static_cast<int> (c.n); }
