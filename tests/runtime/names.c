/* SPDX-License-Identifier: MIT */
/* names [-f] PROVIDER PROBE...: a provider of libstapsdt's API with the
   names given (any strings), each probe of one int32 argument; loads it
   (in a named file with -f: memfd_disabled), prints the object's path and
   "ready", then fires probe i with 42 + i every 20 ms until killed, saying
   "enabled NAME" whenever a probe reads as enabled. */
#include <libstapsdt.h>

#include <stdio.h>
#include <string.h>
#include <time.h>

int main(int argc, char **argv)
{
    int first = argc > 1 && strcmp(argv[1], "-f") == 0 ? 2 : 1;
    if (argc < first + 2)
        return 2;
    SDTProvider_t *p = providerInit(argv[first]);
    SDTProbe_t *probe[16];
    int n = 0;
    if (first == 2)
        providerUseMemfd(p, memfd_disabled);
    for (int i = first + 1; i < argc && n < 16; i++)
        probe[n++] = providerAddProbe(p, argv[i], 1, int32);
    if (providerLoad(p) != 0) {
        fprintf(stderr, "names: %s\n", p->error);
        return 1;
    }
    printf("%s\nready\n", p->_filename);
    fflush(stdout);
    for (;;) {
        for (int i = 0; i < n; i++) {
            if (probeIsEnabled(probe[i]))
                printf("enabled %s\n", probe[i]->name);
            probeFire(probe[i], 42 + i);
        }
        fflush(stdout);
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
}
