/* SPDX-License-Identifier: MIT */
/* Second translation unit: the same implicit semaphore as probes.c, and
   the explicit one declared. */
#include <usdt.h>

USDT_DECLARE_SEMA (shared);
void other (int x);

void
other (int x)
{
  USDT_WITH_SEMA (app, imp, x + 100);
  USDT_WITH_EXPLICIT_SEMA (shared, app, exp2, x);
}
