/* SPDX-License-Identifier: MIT */
/* Built with <sys/sdt.h>, linked with objects built with <usdt.h>. */
#include <sys/sdt.h>
#include <usdt.h>

void from_stap (int x);

void
from_stap (int x)
{
  STAP_PROBE1 (app, stap, x);
  USDT (app, mixed, x);
}
