#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# <usdt.h>: libbpf's USDT API on sdtkit's operand machinery.  The notes of
# every macro, the semaphores' symbols (names, binding, visibility,
# section), strict builds in every C and C++ standard with variadic
# macros, cross builds, objects built with <sys/sdt.h> linked in, the
# x86-64 nop + nop10 pair, and the arguments rejected at compile time.
# Real tracers (bpftrace, gdb, raw uprobes) fire on the probes and set the
# semaphores.  (bpftrace 0.17 reads at most six USDT arguments on x86-64: the 12th
# argument is read by gdb.)

load helpers
load tracers-helpers

# build CC OUT FLAGS...: the test program (probes.c + other.c).
build() {
    local cc=$1 out=$2
    shift 2
    "$cc" -Wall -Wextra -Wpedantic -Werror "$@" -I "$INCLUDE" "$ROOT/tests/usdt/probes.c" \
        "$ROOT/tests/usdt/other.c" -o "$out"
}

# It built with gcc -O2 once, as $BATS_FILE_TMPDIR/p: each test has a copy, ./p.
setup_file() {
    build gcc "$BATS_FILE_TMPDIR/p" -O2
}

setup() {
    SRC="$ROOT/tests/usdt"
    cp "$BATS_FILE_TMPDIR/p" .
}

# sym_row BIN SYMBOL: "TYPE BIND VIS SIZE SECTION-NAME" of SYMBOL (its
# first row; one readelf of the sections, then the symbols).
sym_row() {
    readelf -SsW "$1" | awk -v s="$2" '
        /^ *\[ *[0-9]+\] / { l = $0; sub(/^ *\[ */, "", l); i = l + 0; sub(/^[0-9]+\] */, "", l)
            split(l, f, " "); sec[i] = f[1]; next }
        $8 == s { print $4, $5, $6, $3, ($7 ~ /^[0-9]+$/ ? sec[$7 + 0] : ""); exit }'
}

@test "USDT, USDT_WITH_SEMA and USDT_WITH_EXPLICIT_SEMA write one note each, with 0 to 12 arguments" {
    run note_probes p
    [ "$(echo "$output" | cut -f1 | sort | uniq -c | awk '{ print $2 "=" $1 }' | tr '\n' ' ')" = \
        "app:args=1 app:exp1=1 app:exp2=1 app:imp=2 app:none=1 app:twelve=1 " ]
    [ "$(note_args p app:none)" = "" ]
    [ "$(arg_sizes "$(note_args p app:args)")" = "-4 -8 1 -2 8 8" ]
    [ "$(arg_sizes "$(note_args p app:twelve)")" = "-4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -4 -8" ]
    # gcc -O2 keeps every operand readable: registers or immediates only
    ! note_args p app:args | grep -q '(%rip)'
}

@test "implicit semaphores are weak hidden 2-byte objects in .probes named __usdt_sema_GROUP__NAME, one per binary" {
    [ "$(sym_row p __usdt_sema_app__imp)" = "OBJECT WEAK HIDDEN 2 .probes" ]
    [ "$(readelf -sW p | awk '$8 == "__usdt_sema_app__imp"' | wc -l)" = 1 ]
    # both translation units' notes point at the one semaphore
    addr=$(readelf -sW p | awk '$8 == "__usdt_sema_app__imp" { print $2 }')
    run bash -c "readelf -n p | grep -A1 'Name: imp\$' | sed -n 's/.*Semaphore: \(0x[0-9a-f]*\)/\1/p' | sort -u"
    [ "$output" = "0x$addr" ]
    [ "$(note_field p app:none Semaphore)" = 0x0000000000000000 ]
}

@test "explicit semaphores are hidden globals __usdt_sema_SEMA in .probes shared by every probe naming them" {
    [ "$(sym_row p __usdt_sema_shared)" = "OBJECT GLOBAL HIDDEN 2 .probes" ]
    addr=0x$(readelf -sW p | awk '$8 == "__usdt_sema_shared" { print $2 }')
    [ "$(note_field p app:exp1 Semaphore)" = "$addr" ]
    [ "$(note_field p app:exp2 Semaphore)" = "$addr" ]
    # USDT_SEMA names the C object
    printf '#include <usdt.h>\nUSDT_DEFINE_SEMA (s);\nint f (void) { return USDT_SEMA (s).active; }\n' > s.c
    gcc -c -Wall -Wextra -Werror -I "$INCLUDE" s.c -o s.o
    nm s.o | grep -qx '0* D __usdt_sema_s'
}

@test "a shared library keeps its own implicit semaphore: hidden, not exported" {
    printf '#include <usdt.h>\nvoid lib (int x) { USDT_WITH_SEMA (app, imp, x); }\n' > lib.c
    gcc -shared -fPIC -O2 -Wall -Wextra -Werror -I "$INCLUDE" lib.c -o libu.so
    [ "$(sym_row libu.so __usdt_sema_app__imp)" = "OBJECT WEAK HIDDEN 2 .probes" ] ||
        [ "$(readelf -sW libu.so | awk '$8 == "__usdt_sema_app__imp" { print $5 }')" = LOCAL ]
    ! readelf --dyn-syms -W libu.so | grep -q __usdt_sema || false
    [ "$(note_field libu.so app:imp Semaphore)" != 0x0000000000000000 ]
}

@test "USDT_IS_ACTIVE and USDT_SEMA_IS_ACTIVE read 0 when nothing is attached" {
    run ./p 1
    [ "$output" = "round 0 imp=0 shared=0" ]
}

@test "<usdt.h> builds warning-free with gcc and clang in c99, c11, c17, c2x and gnu99, at -O0 and -O2" {
    for cc in gcc clang; do
        for std in c99 c11 c17 c2x gnu99; do
            for o in -O0 -O2; do build $cc p -std=$std $o; done
        done
    done
}

@test "<usdt.h> builds warning-free with g++ and clang++ in c++11, c++14, c++17 and c++20" {
    for cxx in g++ clang++; do
        for std in c++11 c++14 c++17 c++20; do
            $cxx -x c++ -std=$std -Wall -Wextra -Wpedantic -Werror -Wold-style-cast -O2 \
                -I "$INCLUDE" "$SRC/probes.c" "$SRC/other.c" -o p
            [ "$(./p)" = "round 0 imp=0 shared=0" ]
            [ "$(nm p | grep -c ' __usdt_sema_')" = 2 ]
        done
    done
}

@test "structs of 1 to 8 bytes are arguments; wider values warn, and SDT_STRICT_ARGS stops the build" {
    printf '#include <usdt.h>\nstruct a { unsigned char c; };\nstruct b { int x; };\nvoid f (struct a a, struct b b) { USDT (test, struct_by_val_reg, a, b); }\n' > ok.c
    gcc -Wall -Wextra -Werror -DSDT_STRICT_ARGS -c -I "$INCLUDE" ok.c -o ok.o
    [ "$(arg_sizes "$(note_args ok.o test:struct_by_val_reg)")" = "1 4" ]
    printf '#include <usdt.h>\nstruct pair { long a, b; };\nvoid f (struct pair p) { USDT (app, bad, 1, p); }\n' > s.c
    run gcc -c -I "$INCLUDE" s.c -o s.o
    [ "$status" -eq 0 ]
    [[ "$output" == *"sdt probe argument 2 is wider than 8 bytes or not 1, 2, 4 or 8 bytes long"* ]]
    [ "$(arg_sizes "$(note_args s.o app:bad)")" = "-4 8" ]
    run gcc -DSDT_STRICT_ARGS -c -I "$INCLUDE" s.c -o s2.o
    [ "$status" -ne 0 ]
    [[ "$output" == *"sdt probe argument 2 must be an integer, enum, pointer or floating-point value of at most 8 bytes"* ]]
    [ ! -e s2.o ]
    printf '#include <usdt.h>\nvoid f (__int128 x, long double y) { USDT (app, bad, x); USDT (app, bad2, y); }\n' > w.c
    run clang -c -I "$INCLUDE" w.c -o w.o
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | grep -c 'warning: .*sdt probe argument 1 is wider')" = 2 ]
    run clang -DSDT_STRICT_ARGS -c -I "$INCLUDE" w.c -o w2.o
    [ "$status" -ne 0 ]
    [ "$(echo "$output" | grep -c 'sdt probe argument 1 must be')" = 2 ]
}

@test "objects built with <usdt.h> and <sys/sdt.h> link together, in one file and across files" {
    for f in stap probes other; do gcc -O2 -Wall -Wextra -Werror -I "$INCLUDE" -c "$SRC/$f.c" -o $f.o; done
    gcc probes.o other.o stap.o -o p
    [ "$(note_probes p | cut -f1 | grep -cE '^app:(stap|mixed)$')" = 2 ]
    # one .stapsdt.base for all of them, and every note points at it
    [ "$(readelf -sW p | grep -c '_\.stapsdt\.base')" = 1 ]
    [ "$(readelf -n p | sed -n 's/.*Base: \(0x[0-9a-f]*\),.*/\1/p' | sort -u | wc -l)" = 1 ]
}

@test "on x86-64 the probe is a 1-byte nop then a 10-byte nop, and the note points at the first" {
    loc=$(note_field p app:none Location)
    run objdump -d --start-address=$((loc)) --stop-address=$((loc + 11)) p
    echo "$output" | grep -E '^ *[0-9a-f]+:' > insns
    [ "$(wc -l < insns)" = 3 ]   # nop, nopw, and objdump's continuation line
    head -1 insns | grep -qE ':\s+90\s+nop'
    sed -n 2p insns | grep -qE ':\s+66 2e 0f 1f 84 00 00\s+cs nopw 0x0\(%rax,%rax,1\)'
}

@test "USDT_NOP replaces the probe instruction" {
    gcc -O2 -DUSDT_NOP=nop -Wall -Wextra -Werror -I "$INCLUDE" "$SRC/probes.c" "$SRC/other.c" -o p
    loc=$(note_field p app:none Location)
    next=$(note_field p app:args Location)
    objdump -d --start-address=$((loc)) --stop-address=$((loc + 1)) p | grep -qE ':\s+90\s+nop$'
    objdump -d --start-address=$((loc + 1)) --stop-address=$((loc + 2)) p | grep -vqE '66 2e'
    [ $((next)) -gt $((loc)) ]
}

@test "USDT_ARG_CONSTRAINT replaces the operand constraint" {
    gcc -O2 -DUSDT_ARG_CONSTRAINT=r -Wall -Wextra -Werror -I "$INCLUDE" "$SRC/probes.c" "$SRC/other.c" -o r
    ! note_args r app:twelve | grep -q '\$' || false
    note_args p app:twelve | grep -q '\$1'
}

@test "USDT_MAJOR_VERSION, USDT_MINOR_VERSION and USDT_PATCH_VERSION are integers" {
    printf '#include <usdt.h>\n#if USDT_MAJOR_VERSION * 10000 + USDT_MINOR_VERSION * 100 + USDT_PATCH_VERSION < 100\n#error old\n#endif\nint v = USDT_MAJOR_VERSION + USDT_MINOR_VERSION + USDT_PATCH_VERSION;\n' > v.c
    gcc -c -Wall -Wextra -Werror -I "$INCLUDE" v.c -o v.o
}

# bats test_tags=cross
@test "<usdt.h> cross-compiles with notes and semaphores for aarch64, armhf, i686, s390x, riscv64 and ppc64el" {
    for a in aarch64 armhf i686 s390x riscv64 ppc64el; do
        need_arch $a
        cc=$(arch_gcc $a)
        $cc -O2 -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" "$SRC/probes.c" "$SRC/other.c" -o p.$a
        [ "$(note_probes p.$a | wc -l)" = 7 ]
        # (linkers for some targets turn hidden symbols local in the output)
        $cc -O2 -I "$INCLUDE" -c "$SRC/other.c" -o other.$a.o
        [ "$(sym_row other.$a.o __usdt_sema_app__imp)" = "OBJECT WEAK HIDDEN 2 .probes" ]
        [[ "$(sym_row p.$a __usdt_sema_app__imp)" =~ ^OBJECT\ (WEAK\ HIDDEN|LOCAL\ DEFAULT)\ 2\ .probes$ ]]
        [ "$(arg_sizes "$(note_args p.$a app:args)")" = "-4 $([ $a = i686 ] || [ $a = armhf ] && echo -4 || echo -8) 1 -2 $([ $a = i686 ] || [ $a = armhf ] && echo 4 || echo 8) 8" ]
    done
}

# bats test_tags=cross
@test "<usdt.h> compiles warning-free at -O0, -O2 and -Os with its semaphores and an 8-byte constant, and links, for all 18 architectures" {
    n=0
    local probe args a_args a_twelve sizes
    for a in $ALL_ARCHES; do
        need_arch $a
        cc=$(arch_gcc $a)
        for o in -O0 -O2 -Os; do
            $cc $o -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" -c "$SRC/other.c" -o other.$a.o
            $cc $o -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" -c "$SRC/probes.c" -o probes.$a.o
            [ "$(sym_row other.$a.o __usdt_sema_app__imp)" = "OBJECT WEAK HIDDEN 2 .probes" ] || { echo "$a $o"; false; }
            [ "$(sym_row probes.$a.o __usdt_sema_shared)" = "OBJECT GLOBAL HIDDEN 2 .probes" ] || { echo "$a $o"; false; }
            [ "$(note_probes other.$a.o | awk -F '\t' '{ printf "%s ", $1 }')" = "app:imp app:exp2 " ] || { echo "$a $o"; false; }
            # probes.$a.o's notes, read once: app:args and app:twelve's words
            a_args= a_twelve=()
            while IFS=$'\t' read -r probe args; do
                case $probe in app:args) a_args=$args ;; app:twelve) read -ra a_twelve <<<"$args" ;; esac
            done < <(note_probes probes.$a.o)
            # 0xfffffffffffULL: 8 bytes, unsigned, on 32-bit targets too
            sizes=$(arg_sizes "$a_args")
            [ "${sizes##* }" = 8 ] || { echo "$a $o"; false; }
            [ "${#a_twelve[@]}" = 12 ] || { echo "$a $o"; false; }
            $cc probes.$a.o other.$a.o -o p.$a
            [ "$(readelf -sW p.$a | grep -c '__usdt_sema_app__imp$')" = 1 ] || { echo "$a $o: one implicit semaphore"; false; }
        done
        n=$((n + 1))
    done
    [ "$n" = 18 ]
}

# bats test_tags=tracer
@test "gdb reads every argument of every type as passed with both headers: gcc and clang, -O0 and -O2" {
    need_cmd gdb
    : >jobs
    for def in "" -DUSE_USDT_H; do
        for cc in gcc clang; do
            for o in -O0 -O2; do
                at=at${def:+-usdt}-$cc$o
                $cc $o $def -std=gnu11 -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" \
                    "$ROOT/tests/libbpf/alltypes.c" -o $at
                echo "$at - - $PWD/$at >$PWD/$at.out" >>jobs
            done
        done
    done
    gdb_runs "$PWD" types:small types:wide types:misc types:consts <jobs
    while read -r at _; do
        output=$(grep -vE '^[A-Za-z_0-9]+ hit$' $at.hits)
        p=$(sed -n 's/^p=\([0-9]*\) .*/\1/p' $at.out)
        str=$(sed -n 's/.* str=\([0-9]*\)$/\1/p' $at.out)
        got=$(echo "$output" | awk '{ l[$1] = l[$1] " " $3 } END { print "small" l["small"]; print "wide" l["wide"]; print "misc" l["misc"]; print "consts" l["consts"] }')
        want="small 65 -100 250 -30000 65000 -2000000000
wide 4000000000 -9000000000000000000 18000000000000000000 -5 18446744073709551600 1
misc -2 31 -8 $p $str 0
consts 1 -1 120 255 -32768 65535 2147483647 -2147483648 4294967295 9223372036854775807 -9223372036854775808 0"
        [ "$got" = "$want" ] || { echo "$at:"; echo "$output"; echo "$got"; false; }
    done <jobs
}

# ---- Real tracers ---------------------------------------------------------

# bats test_tags=tracer
@test "gdb stops at every <usdt.h> probe and decodes its arguments: gcc and clang, -O0 and -O2" {
    need_cmd gdb
    : >jobs
    for cc in gcc clang; do
        for o in -O0 -O2; do
            build $cc p-$cc$o $o
            echo "p-$cc$o - - $PWD/p-$cc$o 1 >$PWD/p-$cc$o.out" >>jobs
        done
    done
    gdb_runs "$PWD" app:args app:twelve app:imp app:exp1 <jobs
    while read -r p _; do
        echo "$p"
        output=$(grep -vE '^[A-Za-z_0-9]+ hit$' $p.hits)
        [ "$(echo "$output" | grep '^args ' | tr '\n' ' ')" = \
            "args arg0 0 args arg1 -5 args arg2 200 args arg3 -3 args arg4 $(echo "$output" | sed -n 's/^args arg4 //p') args arg5 17592186044415 " ]
        [ "$(echo "$output" | sed -n 's/^twelve arg11 //p')" = 12 ]
        [ "$(echo "$output" | sed -n 's/^imp arg0 //p' | tr '\n' ' ')" = "0 100 " ]
        [ "$(echo "$output" | sed -n 's/^exp1 arg0 //p')" = 0 ]
    done <jobs
}

# bats test_tags=tracer
@test "bpftrace fires every <usdt.h> probe and decodes its arguments; implicit and shared semaphores read 1 while attached" {
    need_bpftrace
    run bpftrace_run "usdt:$PWD/p:app:args { printf(\"BT args %d %d %u %d %s %lu\\n\", arg0, arg1, arg2, arg3, str(arg4), arg5); }
                      usdt:$PWD/p:app:twelve { printf(\"BT twelve %d %d\\n\", arg0, arg5); }
                      usdt:$PWD/p:app:imp { printf(\"BT imp %d\\n\", arg0); }
                      usdt:$PWD/p:app:exp2 { printf(\"BT exp2 %d\\n\", arg0); }
                      usdt:$PWD/p:app:none { printf(\"BT none\\n\"); }" "$PWD/p 1"
    [ "$status" -eq 0 ]
    [ "$(echo "$output" | grep '^BT ' | tr '\n' ' ')" = \
        "BT none BT args 0 -5 200 -3 hi 17592186044415 BT twelve 1 6 BT imp 0 BT imp 100 BT exp2 0 " ]
    echo "$output" | grep -qx 'round 0 imp=1 shared=1'
    run ./p 1
    [ "$output" = "round 0 imp=0 shared=0" ]
}

# bats test_tags=tracer
@test "bpftrace attached to one probe of a shared explicit semaphore sets it for all; detached, it reads 0 again" {
    need_bpftrace
    bg p.out ./p 1000000   # until killed (teardown): 20 rounds a second
    pid=$BG_PID
    wait_for p.out 'imp=0 shared=0' 2
    bpftrace_bg bt.out "usdt:$PWD/p:app:exp1 { printf(\"BT exp1 %d\\n\", arg0); }" -p "$pid"
    bt=$BG_PID
    wait_for p.out 'imp=0 shared=1' 2
    wait_for bt.out '^BT exp1 [0-9]+' 2
    stop "$bt" INT
    mark=$(wc -l < p.out)
    wait_for p.out 'imp=0 shared=0' $(( $(grep -c 'shared=0' p.out) + 3 ))
    tail -n +$((mark + 2)) p.out | grep -q 'imp=0 shared=0'
}

# bats test_tags=tracer
@test "a raw uprobe with ref_ctr_offset fires on a <usdt.h> probe and counts its implicit semaphore" {
    need_tracefs
    loc=$(note_field p app:imp Location)
    sem=$(note_field p app:imp Semaphore)
    ev="sdtkit_usdt_$$"
    uprobe_add "p:$ev/imp $PWD/p:$(file_offset p "$loc")($(file_offset p "$sem"))" ||
        refused "the kernel refused the uprobe"
    trace_instance
    echo 1 > "$INST/events/$ev/imp/enable"
    run ./p 1
    echo 0 > "$INST/events/$ev/imp/enable"
    hits=$(grep -c "imp:" "$INST/trace" || true)
    echo "-:$ev/imp" >> "$TRACEFS/uprobe_events"
    [ "$output" = "round 0 imp=1 shared=0" ]
    [ "$hits" = 1 ]   # the uprobe sits on one of the two app:imp sites
}

# bats test_tags=tracer
@test "bpftrace reads the first six arguments of every type as passed with both headers: gcc and clang, -O0 and -O2" {
    need_bpftrace
    for def in "" -DUSE_USDT_H; do
        for cc in gcc clang; do
            for o in -O0 -O2; do
                $cc $o $def -std=gnu11 -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" \
                    "$ROOT/tests/libbpf/alltypes.c" -o at
                script=""
                for p in small wide misc consts; do
                    script="$script usdt:$PWD/at:types:$p { printf(\"BT $p %ld %ld %ld %ld %ld %ld\\n\", arg0, arg1, arg2, arg3, arg4, arg5); }"
                done
                run bpftrace_run "$script" "$PWD/at"
                [ "$status" -eq 0 ]
                p=$(echo "$output" | sed -n 's/^p=\([0-9]*\) .*/\1/p')
                str=$(echo "$output" | sed -n 's/.* str=\([0-9]*\)$/\1/p')
                want="BT small 65 -100 250 -30000 65000 -2000000000
BT wide 4000000000 -9000000000000000000 -446744073709551616 -5 -16 1
BT misc -2 31 -8 $p $str 0
BT consts 1 -1 120 255 -32768 65535"
                [ "$(echo "$output" | grep '^BT ')" = "$want" ] || { echo "${def:-sys/sdt.h} $cc $o:"; echo "$output"; false; }
            done
        done
    done
}
