/* SPDX-License-Identifier: MIT */
/* A program probed with <usdt.h>: every macro of the API, arguments of
   several kinds, an implicit semaphore shared with other.c and an explicit
   one shared by three probes.  Prints the semaphores each round. */
#define _DEFAULT_SOURCE 1 /* usleep under -std=c99 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <usdt.h>

USDT_DEFINE_SEMA (shared);
void other (int x);

int
main (int argc, char **argv)
{
  int n = argc > 1 ? atoi (argv[1]) : 1;
  long l = -5;
  unsigned char c = 200;
  short s = -3;
  char str[] = "hi"; /* on the stack: paged in when a BPF program reads it */
  int i;

  for (i = 0; i < n; i++)
    {
      USDT (app, none);
      USDT (app, args, i, l, c, s, str, 0xfffffffffffULL);
      USDT (app, twelve, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, i + 12L);
      USDT_WITH_SEMA (app, imp, i);
      other (i);
      USDT_WITH_EXPLICIT_SEMA (shared, app, exp1, i);
      printf ("round %d imp=%d shared=%d\n", i, USDT_IS_ACTIVE (app, imp),
              USDT_SEMA_IS_ACTIVE (shared));
      fflush (stdout);
      if (n > 1)
        usleep (50000);
    }
  (void) argv;
  return 0;
}
