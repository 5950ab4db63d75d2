/* SPDX-License-Identifier: MIT */
/* ring.d: probes fired from a class template and an inline function that
   several translation units instantiate.  Each translation unit gets its
   own copy of every instance; the linker keeps one, and the notes of the
   discarded copies must go with them. */
provider ring {
    probe push(long value, int size);   /* guarded by RING_PUSH_ENABLED() */
    probe pop(long value, int size);
    probe mix(unsigned long hash);
};
