#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The usdt.h that `make install' installs and a project copies is one file,
# like libbpf's: build/usdt.h, include/usdt.h with sys/sdt-operands.h and
# sys/sdt-config.h inlined by tools/inline-includes.awk.  Copied alone into
# a scratch tree it builds the <usdt.h> test programs for several targets,
# and its notes are byte for byte those of the headers it was made from.

load helpers

setup() {
    SRC="$ROOT/tests/usdt"
    SINGLE="$ROOT/build/usdt.h"
    [ -f "$SINGLE" ] || make -s -C "$ROOT" headers >/dev/null
    mkdir -p alone
    cp "$SINGLE" alone/usdt.h
    cp "$SRC/probes.c" "$SRC/other.c" .
}

@test "the generated usdt.h includes no other file of sdtkit and is up to date with its sources" {
    ! grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' alone/usdt.h || false
    awk -f "$ROOT/tools/inline-includes.awk" "$ROOT/include/usdt.h" > fresh.h
    cmp fresh.h alone/usdt.h
    head -1 alone/usdt.h | grep -qx '/\* SPDX-License-Identifier: MIT-0 \*/'
    [ "$(grep -c SPDX-License-Identifier alone/usdt.h)" = 1 ]
    # every macro of the operand machinery is there, once
    [ "$(grep -c '^#define _SYS_SDT_OPERANDS_H' alone/usdt.h)" = 1 ]
    [ "$(grep -c '^#define _SYS_SDT_CONFIG_H' alone/usdt.h)" = 1 ]
}

@test "inline-includes.awk fails with a message when an included file is missing" {
    printf '/* SPDX-License-Identifier: MIT-0 */\n#include "nowhere.h"\n' > top.h
    run awk -f "$ROOT/tools/inline-includes.awk" top.h
    [ "$status" -ne 0 ]
    [[ "$output" == *"cannot read nowhere.h"* ]]
}

# bats test_tags=cross
@test "usdt.h copied alone builds and links the <usdt.h> programs for x86-64, i686, aarch64, armhf, ppc64el, s390x and riscv64" {
    for a in $ARCHES; do
        need_arch $a
        for cc in "$(arch_gcc $a)" "clang --target=$(arch_triple $a)"; do
            $cc -O2 -Wall -Wextra -Wpedantic -Werror -I alone probes.c other.c -o p.$a ||
                { echo "$a $cc"; false; }
            [ "$(note_probes p.$a | wc -l)" = 7 ] || { echo "$a $cc"; false; }
        done
    done
    ./p.x86_64 | grep -q '^round 0 '
}

@test "usdt.h copied alone builds C++ in c++11 and c++20, and beside <sys/sdt.h> from the tree" {
    for std in c++11 c++20; do
        g++ -x c++ -std=$std -Wall -Wextra -Wpedantic -Werror -I alone -c probes.c -o probes.o
    done
    # the guards let a translation unit include both headers
    printf '#include <usdt.h>\n#include <sys/sdt.h>\nvoid f (int x) { USDT (a, b, x); STAP_PROBE1 (a, c, x); }\n' > both.c
    gcc -Wall -Wextra -Werror -I alone -I "$INCLUDE" -c both.c -o both.o
    [ "$(note_probes both.o | cut -f1 | tr '\n' ' ')" = "a:b a:c " ]
}

# bats test_tags=cross
@test "the single usdt.h writes the same notes as include/usdt.h, for every target" {
    for a in $ALL_ARCHES; do
        need_arch $a
        cc=$(arch_gcc $a)
        $cc -O2 -I alone -c probes.c -o single.o
        $cc -O2 -I "$INCLUDE" -c probes.c -o tree.o
        [ "$(readelf -n single.o)" = "$(readelf -n tree.o)" ] || { echo "$a"; false; }
    done
}
