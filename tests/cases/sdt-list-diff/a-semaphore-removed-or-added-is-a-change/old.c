/* SPDX-License-Identifier: MIT */
#include "probes.h"
__attribute__((noinline)) int work(int n)
{
    if (APP_START_ENABLED())
        APP_START(n);
    return n;
}
int main(int argc, char **argv) { (void)argv; return work(argc) == 0; }
