#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The build: every variant of variants.table with its own toolchain, a
# cross build through CC, LD, OBJCOPY and AR, everything built under
# build/, and the examples' make without what it does not need.

load helpers

# tree: a copy of the project's files in ./tree, listed in tree.before.
tree() {
    mkdir tree
    (cd "$ROOT" && project_files | tar -cf - -T -) | tar -xf - -C tree
    (cd tree && find . | sort) >tree.before
}

# machines DIR: the Machine of every object, archive and program under DIR, once.
machines() {
    find "$1" -type f \( -name '*.[oa]' -o -name '*.so.*' -o -perm -u+x \) -print0 |
        xargs -0 readelf -h | sed -n 's/^ *Machine: *//p' | sort -u
}

# bats test_tags=cross
@test "a cross build given CC, LD, OBJCOPY and AR builds every file for the target, all under build/" {
    need_arch aarch64
    tree
    local t=aarch64-linux-gnu
    make -s -C tree tools runtime headers CFLAGS=-O0 CC=$t-gcc LD=$t-ld OBJCOPY=$t-objcopy AR=$t-ar
    [ -x tree/build/bin/dtrace ]
    [ -x tree/build/bin/sdt-list ]
    [ "$(machines tree/build)" = AArch64 ]
    # the static archive is the one relocatable object, the API alone global
    [ "$(ar t tree/build/libsdtkit.a)" = libsdtkit.o ]
    [ -z "$($t-nm -g --defined-only tree/build/libsdtkit.a | grep ' T ' | grep -v ' sdtkit_')" ]
    # nothing written beside the sources
    diff tree.before <(cd tree && find . -path ./build -prune -o -print | sort)
}

# bats test_tags=cross
@test "a variant is one row of variants.table, built with its own toolchain alone" {
    need_arch aarch64
    tree
    local t=aarch64-linux-gnu
    printf 'arm64  build/arm64  build/arm64/bin  %s  %s  %s  %s  -O0  -  -Wl,-z,defs  -  gcc-aarch64-linux-gnu\n' \
        $t-gcc $t-ld $t-objcopy $t-ar >>tree/variants.table
    # the host's tools as make's defaults: the row's must be used
    make -s -C tree build/arm64/libsdtkit.a build/arm64/bin/sdt-list CC=false LD=false OBJCOPY=false AR=false
    [ "$(machines tree/build/arm64)" = AArch64 ]
    [ "$(ar t tree/build/arm64/libsdtkit.a)" = libsdtkit.o ]
    # nothing of the normal build was made
    [ ! -e tree/build/bin ]
    [ ! -e tree/build/lib ]
}

@test "without a C++ compiler the examples' make skips the C++ example, saying so, and builds the rest" {
    run make -n -C "$ROOT/provider-examples" CXX=no-such-c++
    [ "$status" -eq 0 ]
    [[ "$output" == *'echo "cxx-templates example skipped: no-such-c++ is not installed"'* ]]
    ! grep -q '^no-such-c++ ' <<<"$output" || false
    grep -q -- '-o tick/tick ' <<<"$output"
    grep -q -- '-o usdt-jobs/usdt-jobs ' <<<"$output"
}

@test "every row of variants.table has every column, each name once" {
    local names
    # (tests/table fails for a row with a cell too many or too few)
    names=$("$ROOT/tests/table" "$ROOT/variants.table" name)
    [ "$("$ROOT/tests/table" "$ROOT/variants.table" | grep -c '^normal\.')" = 12 ]
    [ "$(sort <<<"$names" | uniq -d)" = "" ]
    [ "$("$ROOT/tests/table" "$ROOT/variants.table" name cc ld objcopy ar | head -1)" = "$(printf 'normal\t$(CC)\t$(LD)\t$(OBJCOPY)\t$(AR)')" ]
    "$ROOT/tests/table" "$ROOT/variants.table" name package | grep -qx "musl	musl-tools"
}

@test "tests/packages lists the variants' compilers from variants.table, and .ci/run names none itself" {
    run "$ROOT/tests/packages"
    grep -qx musl-tools <<<"$output"
    grep -qx libclang-rt-14-dev <<<"$output"
    [ -f "$ROOT/.ci/run" ] || skip "not a checkout: the release tarball leaves out .ci/, the checkout's machinery"
    ! grep -v '^ *#' "$ROOT/.ci/run" | grep -qw musl-tools || false
}
