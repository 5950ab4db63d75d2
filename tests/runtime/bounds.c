/* SPDX-License-Identifier: MIT */
/* bounds: the ELF writer never writes past its buffer, asserts or not
   (built with -DNDEBUG and AddressSanitizer by tests/runtime.bats, with
   the core's pure sources).  Writes past an 8-byte buffer, then lays out
   the run-time object and hands dso_write() a buffer 100 bytes short of
   the layout; prints what each call said.  ASan aborts on any write past
   a buffer. */
#include "../../lib/core.h"
#include "../../lib/elf.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    struct target t = {.elfclass = ELFCLASS64, .data = ELFDATA2LSB, .machine = EM_X86_64};
    unsigned char *small = malloc(8);
    struct elfw w;
    elfw_init(&w, &t, small, 8);
    elfw_put(&w, 1, 4);
    elfw_put(&w, 2, 8);           /* 4 bytes too many */
    elfw_bytes(&w, "abcdefgh", 8); /* past the end */
    elfw_pad_to(&w, 4096);
    printf("elfw: %s, %zu bytes written\n", elfw_done(&w) ? "refused" : "accepted", w.len);
    free(small);

    static const signed char sizes[] = {4, -8};
    struct dso_probe p = {.name = "p", .nargs = 2, .sizes = sizes};
    struct dso d = {.target = &t, .provider = "prov", .probes = &p, .nprobes = 1};
    const char *why = NULL;
    if (dso_layout(&d, &why) != 0)
        return 1;
    d.size -= 100; /* a layout that disagrees with its writer */
    unsigned char *buf = malloc((size_t)d.size);
    printf("dso_write: %s\n", dso_write(&d, buf) ? "refused" : "accepted");
    free(buf);
    return 0;
}
