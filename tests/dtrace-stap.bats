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
}

# stap ARGS...: SystemTap's script, run in $T/stap.
stap() {
    (cd "$T/stap" && /usr/bin/dtrace "$@" >/dev/null 2>&1)
}

# stap_each < LINES: SystemTap's script once for each line of its standard
# input (the run's arguments, tab-separated), in $T/stap as stap runs it;
# the exit status of each run in $T/stap-status, one a line.  One
# interpreter, the script's own, runs them all, each in a fresh module
# namespace (runpy), as a new process would: starting Python and importing
# pyparsing again for each of the corpus' 49 files took more than half the
# suite's CPU.  The script keeps no state outside its module (its outputs
# were compared byte for byte with one process each).
STAP_EACH_PY='
import runpy, sys
script, status = sys.argv[1], open(sys.argv[2], "w")
for line in sys.stdin:
    sys.argv = [script] + line.rstrip("\n").split("\t")
    try:
        runpy.run_path(script, run_name="__main__")
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except Exception:
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    print(code, file=status, flush=True)
'
stap_each() {
    local py
    py=$(sed -n '1s/^#![[:space:]]*//p' /usr/bin/dtrace)
    # shellcheck disable=SC2086
    (cd "$T/stap" && $py -c "$STAP_EACH_PY" /usr/bin/dtrace "$T/stap-status" >/dev/null 2>&1)
}

# The variants every comparison of macros is made in: plain (NONE, which no
# header reads), and with STAP_SDT_V1 or STAP_SDT_V2.
VARIANTS="-DNONE -DSTAP_SDT_V1 -DSTAP_SDT_V2"

# dump_macros NAME...: for each NAME and each variant V, m/stap/NAMEV and
# m/ours/NAMEV: every macro SystemTap's stap/NAME.h and our ours-NAME.h
# leave defined, as `gcc -E -dM V` prints them.
dump_macros() {
    local f v
    mkdir -p m/stap m/ours
    for f; do
        for v in $VARIANTS; do
            gcc -E -dM "$v" -I"$SDT_INC" -x c "stap/$f.h" >"m/stap/$f$v" || return
            gcc -E -dM "$v" -I"$SDT_INC" -x c "ours-$f.h" >"m/ours/$f$v" || return
        done
    done
}

# same_macros NAME...: SystemTap's stap/NAME.h and our ours-NAME.h define
# the same macros, plain and with STAP_SDT_V1 / STAP_SDT_V2 (our own
# SDTKIT_ helpers left out): the same lines of gcc -E -dM, in any order.
# One awk compares every dump (a sort, a grep and a diff each took three
# processes a dump); each NAME (V) that differs is printed with the start
# of its diff.
same_macros() {
    local f v p files=() bad
    dump_macros "$@" || return
    for f; do
        for v in $VARIANTS; do files+=("m/stap/$f$v" "m/ours/$f$v"); done
    done
    bad=$(awk '!/^#define SDTKIT_/ { n = split(FILENAME, p, "/"); c[p[n] SUBSEP $0] += p[n - 1] == "stap" ? 1 : -1 }
        END { for (k in c) if (c[k]) { split(k, q, SUBSEP); d[q[1]] = 1 } for (x in d) print x }' "${files[@]}" |
        LC_ALL=C sort) || return
    [ -n "$bad" ] || return 0
    for p in $bad; do
        echo "${p%-D*} (-D${p##*-D}):"
        diff <(grep -v '^#define SDTKIT_' "m/stap/$p" | LC_ALL=C sort) \
            <(grep -v '^#define SDTKIT_' "m/ours/$p" | LC_ALL=C sort) | head -20
    done
    return 1
}

# macros HEADER [CFLAGS...]: every macro the header leaves defined, as
# `gcc -E -dM` prints them, sorted; our own SDTKIT_ helpers left out.
macros() {
    local h="$1"
    shift
    gcc -E -dM "$@" -I"$SDT_INC" -x c "$h" | grep -v '^#define SDTKIT_' | LC_ALL=C sort
}

@test "for every corpus file, our macros are SystemTap's after gcc -E -dM" {
    need_corpus
    local path f i names=() compared=() status=() fails=""
    for path in "$CORPUS"/*; do
        f=${path##*/}
        [ "$f" = SOURCES.md ] || names+=("$f")
    done
    for f in "${names[@]}"; do printf -- '-h\t-s\t%s\t-o\t../stap/%s.h\n' "$CORPUS/$f" "$f"; done | stap_each
    mapfile -t status <"$T/stap-status"
    [ "${#status[@]}" -eq "${#names[@]}" ]
    for i in "${!names[@]}"; do
        f=${names[$i]}
        [ "${status[$i]}" = 0 ] || { echo "SystemTap fails on $f"; continue; }
        "$DTRACE" -h -s "$CORPUS/$f" -o "ours-$f.h"
        compared+=("$f")
    done
    same_macros "${compared[@]}" || fails="differing macros "
    # and on its own terms: one probe macro per declared probe (in the
    # plain dump: NONE is no probe macro), counted for all files by one
    # grep and one awk
    local -A want=() got=()
    local plain=()
    for f in "${compared[@]}"; do plain+=("m/ours/$f-DNONE"); done
    while IFS=: read -r path i; do want[${path##*/}]=$i; done < <(
        cd "$CORPUS" && grep -cE '^[[:space:]]*probe[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' \
            /dev/null "${compared[@]}")
    while read -r f i; do got[$f]=$i; done < <(awk '
        FNR == 1 { f = FILENAME; sub(/^m\/ours\//, "", f); sub(/-DNONE$/, "", f); n[f] = 0 }
        !/^#define SDTKIT_/ && /^#define [A-Za-z0-9_]*\(arg1|^#define [A-Za-z0-9_]*\(\) DTRACE_PROBE / { n[f]++ }
        END { for (f in n) print f, n[f] }' "${plain[@]}")
    for f in "${compared[@]}"; do
        [ "${want[$f]:-}" = "${got[$f]:-}" ] || fails+="$f(${want[$f]:-}/${got[$f]:-}) "
    done
    [ -z "$fails" ] || { echo "differences: $fails"; return 1; }
    [ "${#compared[@]}" -ge 45 ]
    [ -z "$(ls -A stap | grep dtrace-temp || true)" ]
}

@test "with -C, our macros are SystemTap's for the files builds preprocess" {
    need_corpus
    local files="postgresql-probes.d xorg-server-Xserver.d erlang-erlang_dtrace.d
        systemtap-systemtap.base_dtrace.d php-zend_dtrace.d"
    for f in $files; do printf -- '-C\t-h\t-s\t%s\t-o\t../stap/%s.h\n' "$CORPUS/$f" "$f"; done | stap_each
    [ "$(sort -u "$T/stap-status")" = 0 ]
    for f in $files; do
        "$DTRACE" -C -h -s "$CORPUS/$f" -o "ours-$f.h"
        grep -q '^#define [A-Z]' "ours-$f.h"
    done
    # shellcheck disable=SC2086
    same_macros $files
    [ "$(wc -l <"$T/stap-status")" -eq 5 ]
}

@test "small providers of every shape give SystemTap's macros" {
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
    local files="postgresql-probes.d libdispatch-provider.d xorg-server-Xserver.d"
    for f in $files; do printf -- '-G\t-s\t%s\t-o\t../stap/%s.o\n' "$CORPUS/$f" "$f"; done | stap_each
    [ "$(sort -u "$T/stap-status")" = 0 ]
    for f in $files; do
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
    for v in -DSTAP_SDT_V1 -DSTAP_SDT_V2; do printf -- '-G\t%s\t-s\t%s\t-o\t../stap/v%s.o\n' "$v" "$T/v.d" "$v"; done |
        stap_each
    [ "$(sort -u "$T/stap-status")" = 0 ]
    for v in -DSTAP_SDT_V1 -DSTAP_SDT_V2; do
        "$DTRACE" -G "$v" -s v.d -o "ours-v$v.o"
        diff <(semaphores "stap/v$v.o") <(semaphores "ours-v$v.o")
        ! semaphores "ours-v$v.o" | grep -q HIDDEN || false
    done
}

@test "where SystemTap's grammar gives up, we still give the same macros" {
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
