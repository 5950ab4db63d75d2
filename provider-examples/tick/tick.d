/* SPDX-License-Identifier: MIT */
/* tick.d: two probes fired once per iteration of tick's loop.  dtrace -h
   turns this into tick.h (TICK_LOOP1, TICK_LOOP2, TICK_LOOP2_ENABLED ...);
   dtrace -G into tick-probes.o, which defines the semaphores. */
provider tick {
    probe loop1(int counter);   /* always fired */
    probe loop2(int counter);   /* fired only while a tracer is attached */
};
