/* SPDX-License-Identifier: MIT */
// Probes inside an inline function and a function template, both used from
// two translation units: every copy but one is discarded at link time, and
// the surviving note must still point at a nop of the surviving copy.
#include <sys/sdt.h>

inline int
scaled (int x)
{
  STAP_PROBE1 (cxx, inline_fn, x);
  return x * 3;
}

template <typename T>
T
twice (T v)
{
  STAP_PROBE1 (cxx, tmpl, v);
  return v + v;
}

struct counter
{
  long n;
  void bump (long by) { n += by; STAP_PROBE2 (cxx, member, n, by); }
};

int from_a (int);
long from_b (long);
