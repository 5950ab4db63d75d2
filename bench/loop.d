/* SPDX-License-Identifier: MIT */
/* bench/loop.d: the provider of bench/loop.c */
provider loop {
	probe hot(long key, unsigned long len);
};
