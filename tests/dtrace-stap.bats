#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Side by side with SystemTap's dtrace script (/usr/bin/dtrace from
# systemtap-sdt-dev), when installed: the macros builds see, and the
# semaphores the -G object defines, must be the same.  SystemTap's script
# writes .dtrace-temp.* files into the current directory, so it always runs
# in a scratch directory here.  Each test also checks our result on its
# own terms: SystemTap has bugs of its own.

load dtrace-helpers

setup() {
    need_stap_dtrace
    T="$BATS_TEST_TMPDIR"
    mkdir -p "$T/stap"
    cd "$T"
}

# stap ARGS...: SystemTap's script, run in $T/stap.
stap() {
    (cd "$T/stap" && /usr/bin/dtrace "$@" >/dev/null 2>&1)
}

# macros HEADER [CFLAGS...]: every macro the header leaves defined, as
# `gcc -E -dM` prints them, sorted; our own SDTKIT_ helpers left out.
macros() {
    local h="$1"
    shift
    gcc -E -dM "$@" -I"$SDT_INC" -x c "$h" | grep -v '^#define SDTKIT_' | LC_ALL=C sort
}

# same_macros NAME: SystemTap's stap-NAME.h and our ours-NAME.h define the
# same macros, plain and with STAP_SDT_V1 / STAP_SDT_V2.
same_macros() {
    local v
    for v in -DNONE -DSTAP_SDT_V1 -DSTAP_SDT_V2; do
        if ! diff <(macros "stap/$1.h" "$v") <(macros "ours-$1.h" "$v") >"diff-$1"; then
            echo "$1 ($v):"
            head -20 "diff-$1"
            return 1
        fi
    done
}

@test "for every corpus file, our macros are SystemTap's after gcc -E -dM" {
    need_corpus
    need_sdt_header
    fails="" n=0
    for path in "$CORPUS"/*; do
        f="$(basename "$path")"
        [ "$f" = SOURCES.md ] && continue
        stap -h -s "$path" -o "../stap/$f.h" || { echo "SystemTap fails on $f"; continue; }
        "$DTRACE" -h -s "$path" -o "ours-$f.h"
        same_macros "$f" || fails+="$f "
        # and on its own terms: one probe macro per declared probe
        want="$(grep -cE '^[[:space:]]*probe[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' "$path" || true)"
        got="$(macros "ours-$f.h" | grep -c '^#define [A-Za-z0-9_]*(arg1\|^#define [A-Za-z0-9_]*() DTRACE_PROBE ' || true)"
        [ "$want" = "$got" ] || fails+="$f($want/$got) "
        n=$((n + 1))
    done
    [ -z "$fails" ] || { echo "differences: $fails"; return 1; }
    [ "$n" -ge 45 ]
    [ -z "$(ls -A stap | grep dtrace-temp || true)" ]
}

@test "with -C, our macros are SystemTap's for the files builds preprocess" {
    need_corpus
    need_sdt_header
    for f in postgresql-probes.d xorg-server-Xserver.d erlang-erlang_dtrace.d \
        systemtap-systemtap.base_dtrace.d php-zend_dtrace.d; do
        stap -C -h -s "$CORPUS/$f" -o "../stap/$f.h"
        "$DTRACE" -C -h -s "$CORPUS/$f" -o "ours-$f.h"
        same_macros "$f"
        grep -q '^#define [A-Z]' "ours-$f.h"
    done
}

@test "small providers of every shape give SystemTap's macros" {
    need_sdt_header
    d shapes.d <<'EOF'
provider shapes {
    probe zero();
    probe one(int a);
    probe two(char *s, const char *t);
    probe twelve(int, int, int, int, int, int, int, int, int, int, int, int);
    probe Mixed__Case2(unsigned long);
};
provider second { probe x__y__z(void *p); };
EOF
    stap -h -s "$T/shapes.d" -o ../stap/shapes.h
    "$DTRACE" -h -s shapes.d -o ours-shapes.h
    same_macros shapes
    macros ours-shapes.h | grep -qxF '#define SHAPES_MIXED_CASE2(arg1) DTRACE_PROBE1 (shapes, Mixed__Case2, arg1)'
}

# semaphores OBJ: the semaphore symbols of an object: name size type bind visibility
semaphores() {
    readelf -sW "$1" | awk '/_semaphore$/ { print $8, $3, $4, $5, $6 }' | LC_ALL=C sort
}

@test "-G defines the same semaphores as SystemTap's object: names, sizes, binding, visibility" {
    need_corpus
    for f in postgresql-probes.d libdispatch-provider.d xorg-server-Xserver.d; do
        stap -G -s "$CORPUS/$f" -o "../stap/$f.o"
        "$DTRACE" -G -s "$CORPUS/$f" -o "ours-$f.o"
        diff <(semaphores "stap/$f.o") <(semaphores "ours-$f.o")
        # on its own terms: all hidden two-byte objects
        ! semaphores "ours-$f.o" | grep -v ' 2 OBJECT GLOBAL HIDDEN$' || false
    done
    [ -z "$(ls -A stap | grep dtrace-temp || true)" ]
}

@test "-G with STAP_SDT_V1 or STAP_SDT_V2 defines SystemTap's semaphores too" {
    d v.d <<'EOF'
provider a { probe start(); probe stop(int); };
provider b { probe begin(); };
EOF
    for v in -DSTAP_SDT_V1 -DSTAP_SDT_V2; do
        stap -G "$v" -s "$T/v.d" -o "../stap/v$v.o"
        "$DTRACE" -G "$v" -s v.d -o "ours-v$v.o"
        diff <(semaphores "stap/v$v.o") <(semaphores "ours-v$v.o")
        ! semaphores "ours-v$v.o" | grep -q HIDDEN || false
    done
}

@test "where SystemTap's grammar gives up, we still give the same macros" {
    need_sdt_header
    # long long, an empty provider, definitions after the provider, a
    # comment before it: each sends SystemTap to its fallback parser
    d fallback.d <<'EOF'
/* leading comment */
provider fb {
    probe big(long long int a, unsigned long long b);
    probe exit(int exit_code);
};
provider empty {
};
typedef const static unsigned short __u_c_short;
EOF
    run --separate-stderr /usr/bin/dtrace -h -s "$T/fallback.d" -o "$T/stap/fallback.h"
    [[ "$output" == *"Proceeding as if --no-pyparsing was given"* ]]
    run --separate-stderr "$DTRACE" -h -s fallback.d -o ours-fallback.h
    [ "$status" -eq 0 ]
    [ -z "$output$stderr" ]
    same_macros fallback
}
