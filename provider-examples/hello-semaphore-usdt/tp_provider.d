/* SPDX-License-Identifier: MIT */
/* tp_provider.d: the provider of hello-semaphore-usdt.  Built with
   `dtrace -h' (tp_provider.h: the probe and *_ENABLED() macros) and
   `dtrace -G' (tp_provider.o: the semaphores). */
provider hello_semaphore_usdt {
    probe enter();
    probe exit(int exit_code);
};
