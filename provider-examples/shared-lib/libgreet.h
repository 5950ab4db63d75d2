/* SPDX-License-Identifier: MIT */
/* libgreet.h: the public interface of libgreet.so. */
#ifndef LIBGREET_H
#define LIBGREET_H

/* greet: fire greet:hello with WHO and N (while traced), add N to a running
   total, fire greet:done with it and return it. */
long greet (const char *who, int n);

/* greet_semaphore: the current value of greet:hello's semaphore (non-zero
   while a tracer is attached to it). */
unsigned greet_semaphore (void);

#endif
