/* SPDX-License-Identifier: MIT */
#include "probes.h"
#include <cstdio>
int main (int argc, char **) { std::printf ("%ld\n", from_a (argc) + from_b (argc)); return 0; }
