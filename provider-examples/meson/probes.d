/* SPDX-License-Identifier: MIT */
/* probes.d: the provider of jobq. */
provider jobq {
    probe start(int id, const char *name);
    probe done(int id, long result);   /* guarded by its semaphore */
};
