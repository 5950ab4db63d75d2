/* SPDX-License-Identifier: MIT */
provider probed {
    probe start(int, const char *);
    probe stop();
};
