/* SPDX-License-Identifier: MIT */
#include "probes.h"

int main(int argc, char **argv)
{
    if (PROBED_START_ENABLED())
        PROBED_START(argc, argv[0]);
    PROBED_STOP();
    return 0;
}
