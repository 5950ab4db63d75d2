/* SPDX-License-Identifier: MIT */
/* mkdso REF OUT: write the run-time probes' shared object (lib/dso.c) for
   the target of the ELF file REF into OUT, as the run-time library writes it
   in memory on that target.  The target's identity (class, byte order,
   machine, flags, OS ABI) is REF's ELF header, as the library takes its own
   loaded header: give it a shared library the target's compiler linked.

   The provider is the one tests/runtime/archprobes.c makes: "rt", one probe
   per argument type ("u8" ... "dbl", pointers and strings the size of the
   target's pointer), "all" with the twelve, "none" with none.  Linked with
   build/libsdtcore.a (tests/runtime-arch.bats builds it). */
#include "../../lib/core.h"
#include "../../lib/elf.h"

#include <stdio.h>
#include <stdlib.h>

/* REF's identity from its ELF header, as the core reads it. */
static int read_target(const char *path, struct target *t)
{
    unsigned char e[64];
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(e, 1, sizeof e, f) : 0;
    if (f)
        fclose(f);
    if (elf_header_target(e, n, t) != 0) {
        fprintf(stderr, "mkdso: %s: not an ELF file of a known class and byte order\n", path);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const char *const names[] = {"u8",  "i8",  "u16", "i16", "u32", "i32",
                                        "u64", "i64", "ptr", "str", "flt", "dbl"};
    enum {
        NTYPES = sizeof names / sizeof names[0]
    };
    struct target t;
    if (argc != 3) {
        fprintf(stderr, "usage: mkdso REF OUT\n");
        return 2;
    }
    if (read_target(argv[1], &t) != 0)
        return 1;
    signed char ptr = t.elfclass == ELFCLASS64 ? 8 : 4;
    const signed char sizes[NTYPES] = {1, -1, 2, -2, 4, -4, 8, -8, ptr, ptr, 4, 8};
    struct dso_probe probes[NTYPES + 2];
    memset(probes, 0, sizeof probes);
    for (int i = 0; i < NTYPES; i++)
        probes[i] = (struct dso_probe){.name = names[i], .nargs = 1, .sizes = &sizes[i]};
    probes[NTYPES] = (struct dso_probe){.name = "all", .nargs = NTYPES, .sizes = sizes};
    probes[NTYPES + 1] = (struct dso_probe){.name = "none"};
    struct dso d = {.target = &t, .provider = "rt", .probes = probes, .nprobes = NTYPES + 2};
    const char *why = NULL;
    if (dso_layout(&d, &why) != 0) {
        fprintf(stderr, "mkdso: %s: %s\n", argv[1], why);
        return 1;
    }
    void *buf = malloc((size_t)d.size);
    FILE *out = buf ? fopen(argv[2], "wb") : NULL;
    if (!out) {
        fprintf(stderr, "mkdso: cannot write %s\n", argv[2]);
        free(buf);
        return 1;
    }
    if (dso_write(&d, buf) != 0) {
        fprintf(stderr, "mkdso: the object's layout and writer disagree\n");
        fclose(out);
        free(buf);
        return 1;
    }
    int rc = fwrite(buf, 1, (size_t)d.size, out) == (size_t)d.size ? 0 : 1;
    if (fclose(out) != 0)
        rc = 1;
    free(buf);
    if (rc)
        fprintf(stderr, "mkdso: cannot write %s\n", argv[2]);
    return rc;
}
