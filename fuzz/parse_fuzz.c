/* SPDX-License-Identifier: MIT */
/*
 * parse_fuzz.c: libFuzzer harness for the provider parser (dtrace-lex.c,
 * dtrace-parse.c) and for what dtrace makes of whatever parses: the -h
 * header (dtrace-header.c) and the -G object (dtrace-object.c) for a 64-bit
 * little-endian, a 32-bit and a big-endian target.
 *
 * The input is one provider file, or two when it holds a line "%%": the
 * second part is then parsed into the same program, as a second -s file.
 * Besides the sanitizers, each -G object is read back with read_notes():
 * our own object must read as exactly one ELF file of the target's class,
 * byte order and machine, with nothing malformed in it.  The header and the
 * objects must not be larger than header_size_bound() and
 * object_size_bound() say, the bounds that keep outputs under
 * MAX_OUTPUT_SIZE.
 *
 * Build and run with `make fuzz` (see fuzz/run).
 */
#include "../lib/elf.h"
#include "../tools/dtrace.h"

#include <stdlib.h>
#include <string.h>

struct readback {
    const struct target *want;
    int elves;
    int problems;
    bool mismatch;
};

static void on_elf(void *ctx, const char *member, const struct elf_info *elf)
{
    struct readback *rb = ctx;
    rb->elves++;
    const struct target *t = &elf->target;
    if (member || t->elfclass != rb->want->elfclass || t->data != rb->want->data ||
        t->machine != rb->want->machine || elf->type != ET_REL || elf->nnotes != 0)
        rb->mismatch = true;
}

static void on_problem(void *ctx, const char *member, const char *what)
{
    struct readback *rb = ctx;
    (void)member;
    (void)what;
    rb->problems++;
}

static void object_for(const struct program *prog, const struct target *t,
                       enum semaphore_style style)
{
    struct buf obj = {0};
    emit_object(prog, t, style, &obj);
    if (obj.len > object_size_bound(prog))
        abort(); /* the bound that guards MAX_OUTPUT_SIZE must hold */
    struct readback rb = {.want = t};
    struct objread_ops ops = {.ctx = &rb, .on_elf = on_elf, .on_problem = on_problem};
    enum obj_kind kind = read_notes((const unsigned char *)obj.data, obj.len, &ops);
    if (kind != OBJ_ELF || rb.elves != 1 || rb.problems || rb.mismatch)
        abort(); /* the -G object does not read back as what it claims to be */
    buf_free(&obj);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    /* Split at the first "%%" line into two -s files. */
    const char *text = (const char *)data;
    size_t len1 = size, off2 = size;
    for (size_t i = 0; i + 3 <= size; i++) {
        if ((i == 0 || text[i - 1] == '\n') && memcmp(text + i, "%%\n", 3) == 0) {
            len1 = i;
            off2 = i + 3;
            break;
        }
    }

    struct program prog;
    program_init(&prog);
    int rc = parse_buffer(&prog, "one.d", text, len1, true);
    if (rc == 0 && off2 < size)
        rc = parse_buffer(&prog, "two.d", text + off2, size - off2, true);
    if (rc == 0)
        rc = program_check(&prog);
    if (rc == 0) {
        struct strvec inputs = {0};
        strvec_push(&inputs, "one.d");
        struct header_options hopt = {&inputs, false};
        struct buf header = {0};
        (void)emit_header(&prog, &hopt, &header, NULL);
        if (header.len == 0 || strlen(header.data) != header.len)
            abort(); /* a header is text, never empty */
        if (header.len > header_size_bound(&prog, &hopt))
            abort(); /* the bound that guards MAX_OUTPUT_SIZE must hold */
        buf_free(&header);
        strvec_free(&inputs);

        static const struct target x86_64 = {ELFCLASS64, ELFDATA2LSB, EM_X86_64, 0, 0};
        static const struct target i386 = {ELFCLASS32, ELFDATA2LSB, EM_386, 0, 0};
        static const struct target s390x = {ELFCLASS64, ELFDATA2MSB, EM_S390, 0, 0};
        object_for(&prog, &x86_64, SEM_HIDDEN);
        object_for(&prog, &i386, SEM_V1);
        object_for(&prog, &s390x, SEM_V2);
    }
    program_free(&prog);
    return 0;
}
