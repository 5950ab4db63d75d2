#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Run-time probes on every architecture Debian builds (issue 20, section 4).
#
# Offline, all 18 targets: tests/runtime/mkdso.c writes the object of the
# run-time library (lib/dso.c) for a target whose identity it takes from a
# shared library the target's compiler linked, as the library takes its own
# header; readelf, sdt-list --check, the target's GCC (operands), assembler
# and objdump (stubs) and linker judge it.
#
# Running: the run-time library is built for each target as libsdtkit.so.1
# with tests/runtime/archprobes.c, run under qemu-user (natively on
# x86-64), where it loads its provider and fires every probe; gdb (gdb-
# multiarch on qemu's gdb stub) stops at every probe after the provider is
# loaded, raises its semaphore for the program, and reads every argument
# where it has a parser for the target.
#
# Everything is built once, in setup_file, two targets at a time; the tests
# read what was built.  Per-target expectations: tests/runtime/targets.
# bats file_tags=cross

load helpers
load runtime-arch-helpers

setup_file() {
    export W="$BATS_FILE_TMPDIR"
    cc -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L \
        "-DSDTKIT_VERSION=\"$(cat "$ROOT/VERSION")\"" "$ROOT/tests/runtime/mkdso.c" \
        "$ROOT/build/libsdtcore.a" -o "$W/mkdso"
    local a
    for a in $ALL_ARCHES; do
        mkdir -p "$W/$a"
        while [ "$(jobs -pr | wc -l)" -ge 2 ]; do wait -n || true; done
        (prepare "$a") >"$W/$a/prepare.log" 2>&1 &
    done
    wait
}

setup() {
    cd "$W"
}

# built ARCH FILE...: prepare made every FILE for ARCH (or ARCH's compiler
# is missing: need_arch fails under CI, skips elsewhere).
built() {
    local a=$1 f
    shift
    [ -e "$W/$a/cc-ok" ] || need_arch "$a"
    for f in "$@"; do
        [ -e "$W/$a/$f" ] || { echo "$a: no $f"; cat "$W/$a/prepare.log"; return 1; }
    done
}

# ---- The object, offline, on all 18 targets ---------------------------

@test "the targets table has one row per architecture of ARCH_TABLE" {
    local a
    for a in $ALL_ARCHES; do
        [ "$(target "$a" 1)" = "$a" ] || { echo "no row for $a"; false; }
    done
    [ "$(grep -cvE '^#|^$' "$TARGETS")" -eq "$(echo $ALL_ARCHES | wc -w)" ]
}

@test "the object has each target's ELF class, byte order and machine, and the flags and OS ABI of a shared library its compiler links" {
    local a
    for a in $ALL_ARCHES; do
        built "$a" rt.h ref.h || return 1
        check_header "$a" || return 1
    done
}

@test "the object's segments, sections, notes and dynamic entries are where the loader and the tracers look, on every target" {
    local a
    for a in $ALL_ARCHES; do
        built "$a" rt.l rt.S rt.n rt.d || return 1
        check_layout "$a" || return 1
    done
}

@test "sdt-list --check passes on every target's object" {
    local a bad=()
    for a in $ALL_ARCHES; do
        built "$a" rt.so || return 1
        "$SDT_LIST" --check "$a/rt.so" >/dev/null 2>"$a/sdt-list.err" ||
            bad+=("$a: $(head -1 "$a/sdt-list.err")")
    done
    [ "${#bad[@]}" -eq 0 ] || { printf '%s\n' "${bad[@]}"; false; }
}

@test "every argument's operand is the memory of its slot as the target's GCC prints it, and its size is its type's" {
    local a
    for a in $ALL_ARCHES; do
        built "$a" rt.n gcc-operands || return 1
        check_operands "$a" || return 1
    done
}

@test "every stub is the target's nop then its return, after its prologue, as the target's assembler writes them" {
    local a
    for a in $ALL_ARCHES; do
        [ ! -e "$W/$a/cc-ok" ] || need_cmd "$(arch_tool "$a" objdump)" "$(arch_tool "$a" nm)"
        built "$a" rt.dis rt.syms rt.n stub.dis stub.nm || return 1
        check_stubs "$a" || return 1
    done
}

@test "the target's linker links a program against the object, on every target" {
    local a
    for a in $ALL_ARCHES; do
        built "$a" rt.so || return 1
        [ -e "$a/call.d" ] || { echo "$a:"; cat "$a/link.log"; return 1; }
        grep -q 'Shared library: \[sdtkit-probes\]' "$a/call.d"
    done
}

# ---- Running: qemu-user, and gdb on its gdb stub ------------------------

@test "under qemu-user the provider loads, every probe fires and reads as disabled, on every target that runs here" {
    runnable || return 1
    local a
    for a in "${RUNS[@]}"; do
        grep -qx "loaded /proc/[0-9]*/fd/[0-9]*" "$a/alone.txt" || { echo "$a:"; cat "$a/alone.txt"; return 1; }
        [ "$(grep '^fired ' "$a/alone.txt" | cut -d' ' -f2 | tr '\n' ' ')" = "$PROBES " ] ||
            { echo "$a:"; cat "$a/alone.txt"; return 1; }
        ! grep -q '^enabled' "$a/alone.txt" || { echo "$a: a probe reads enabled untraced"; return 1; }
        [ "$(tail -1 "$a/alone.txt")" = done ]
    done
    echo "# runs: ${RUNS[*]}" >&3
}

@test "gdb stops at every probe once the provider is loaded, and the program sees each probe's semaphore raised, on every target that runs here" {
    runnable || return 1
    local a
    for a in "${RUNS[@]}"; do
        gdb_session "$a" || return 1
        cd "$W"
        grep -q '^Breakpoint 1, provider_loaded' "$a/gdb.txt" || { echo "$a:"; cat "$a/gdb.txt"; return 1; }
        [ "$(sed -n 's/ hit$//p' "$a/got.txt" | tr '\n' ' ')" = "$PROBES " ] ||
            { echo "$a: gdb stopped at:"; cat "$a/got.txt" "$a/gdb.txt"; return 1; }
        [ "$(sed -n 's/^enabled //p' "$a/out.txt" | tr '\n' ' ')" = "$PROBES " ] ||
            { echo "$a: enabled while gdb's breakpoints were set:"; cat "$a/out.txt"; return 1; }
        [ "$(tail -1 "$a/out.txt")" = done ]
    done
}

@test "gdb reads every argument as fired where it has a probe-argument parser, and says it has none elsewhere" {
    runnable || return 1
    local a read=() none=()
    for a in "${RUNS[@]}"; do
        gdb_session "$a" || return 1
        cd "$W"
        if [ "$(target "$a" 5)" = args ]; then
            [ "$(grep -v ' hit$' "$a/got.txt" | sort)" = "$(sort "$a/gdb-want.txt")" ] ||
                { echo "$a: gdb read, then the program fired:"; grep -v ' hit$' "$a/got.txt"; cat "$a/gdb-want.txt"; return 1; }
            [ "$(wc -l <"$a/gdb-want.txt")" -eq 24 ]
            read+=("$a")
        else
            grep -q 'not fully implemented on this target' "$a/gdb.txt" ||
                { echo "$a: gdb now reads arguments: mark it 'args' in tests/runtime/targets"; cat "$a/gdb.txt"; return 1; }
            none+=("$a")
        fi
    done
    echo "# gdb reads all 24 arguments on: ${read[*]}; has no parser for: ${none[*]}" >&3
}
