#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# libbpf as a consumer: tests/libbpf/usdt-loader.c (libbpf's
# bpf_program__attach_usdt, one attachment per probe) with the BPF program
# tests/libbpf/usdt-args.bpf.c (bpf_usdt_arg, bpf_usdt_arg_cnt,
# bpf_usdt_cookie from <bpf/usdt.bpf.h>), both built here with clang
# -target bpf and gcc against Debian's libbpf-dev.  libbpf must attach to
# every probe of the provider examples, read every argument of every type
# as passed with both headers, gcc and clang, -O0 and -O2, and set the
# implicit, shared explicit and dtrace -G semaphores only while attached.
# bats file_tags=tracer

load helpers
load tracers-helpers

setup_file() {
    need_tracefs
    build_loader "$BATS_FILE_TMPDIR"
    export LOADER BPFOBJ
}

@test "libbpf attaches to every probe of every provider example" {
    total=0
    for f in $(example_bins "$EX"); do
        probes=$(note_probes "$EX/$f" | cut -f1 | sort -u)
        run libbpf "$EX/$f" $probes -- true
        [ "$status" -eq 0 ] || { cat err; false; }
        [ "$(cat err)" = "attached $(echo "$probes" | wc -l)" ]
        total=$((total + $(echo "$probes" | wc -l)))
    done
    [ "$total" -ge 18 ]
}

@test "libbpf decodes the arguments of the provider examples to the values passed" {
    b="$EX/hello-usdt/hello-usdt"
    run libbpf "$b" hello_usdt:enter hello_usdt:exit -- "$b" -17
    [ "$(echo "$output" | grep '^hello_usdt:' | tr '\n' ' ')" = "hello_usdt:enter hello_usdt:exit -17 " ]
    b="$EX/probe-test/probe-test"
    run libbpf "$b" probe_test:increment -- "$b" 4 0
    [ "$(echo "$output" | grep '^probe_test:' | tr '\n' ' ')" = \
        "probe_test:increment 1 probe_test:increment 2 probe_test:increment 3 probe_test:increment 4 " ]
}

@test "libbpf sets a dtrace -G semaphore only while attached" {
    b="$EX/hello-semaphore-usdt/hello-semaphore-usdt"
    run libbpf "$b" hello_semaphore_usdt:exit -- "$b" 42
    [ "$status" -eq 1 ]   # the program's exit code, 42
    echo "$output" | grep -qx 'enter: disabled'
    echo "$output" | grep -qx 'exit: enabled'
    echo "$output" | grep -qx 'hello_semaphore_usdt:exit 42'
    run "$b" 3
    [ "$output" = $'enter: disabled\nexit: disabled' ]
}

@test "libbpf reads every argument of every type as passed: both headers, gcc and clang, -O0 and -O2" {
    for h in sys/sdt.h usdt.h; do
        def=; [ $h = usdt.h ] && def=-DUSE_USDT_H
        for cc in gcc clang; do
            for o in -O0 -O2; do
                $cc $o $def -std=gnu11 -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" \
                    "$ROOT/tests/libbpf/alltypes.c" -o at
                run libbpf "$PWD/at" types:small types:wide types:misc types:consts -- ./at
                [ "$status" -eq 0 ] || { cat err; false; }
                p=$(echo "$output" | sed -n 's/^p=\([0-9]*\) .*/\1/p')
                str=$(echo "$output" | sed -n 's/.* str=\([0-9]*\)$/\1/p')
                got=$(echo "$output" | grep '^types:')
                want="types:small 65 -100 250 -30000 65000 -2000000000
types:wide 4000000000 -9000000000000000000 -446744073709551616 -5 -16 1
types:misc -2 31 -8 $p $str 0
types:consts 1 -1 120 255 -32768 65535 2147483647 -2147483648 4294967295 9223372036854775807 -9223372036854775808 0"
                [ "$got" = "$want" ] || { echo "$h $cc $o:"; echo "$got"; false; }
            done
        done
    done
}

@test "libbpf fires every <usdt.h> macro; implicit and shared explicit semaphores read 1 while attached, 0 after" {
    for cc in gcc clang; do
        $cc -O2 -Wall -Wextra -Werror -I "$INCLUDE" "$ROOT/tests/usdt/probes.c" "$ROOT/tests/usdt/other.c" -o p
        run libbpf "$PWD/p" app:none app:args app:twelve app:imp app:exp1 app:exp2 -- ./p 1
        [ "$status" -eq 0 ] || { cat err; false; }
        echo "$output" | grep -qx 'round 0 imp=1 shared=1'
        [ "$(echo "$output" | grep '^app:' | sed 's/^app:args \(.*\) [0-9]* \([0-9]*\)$/app:args \1 STR \2/' | sort | tr '\n' ,)" = \
            "app:args 0 -5 200 -3 STR 17592186044415,app:exp1 0,app:exp2 0,app:imp 0,app:imp 100,app:none,app:twelve 1 2 3 4 5 6 7 8 9 10 11 12," ]
        # only exp2 attached: the shared semaphore is set for exp1's check too
        run libbpf "$PWD/p" app:exp2 -- ./p 1
        echo "$output" | grep -qx 'round 0 imp=0 shared=1'
        run ./p 1
        [ "$output" = "round 0 imp=0 shared=0" ]
    done
}

@test "libbpf fires sys/sdt.h and usdt.h probes linked into one program" {
    gcc -O2 -Wall -Wextra -Werror -I "$INCLUDE" -c "$ROOT/tests/usdt/stap.c" -o stap.o
    printf 'void from_stap (int);\nint main (void) { from_stap (5); return 0; }\n' > m.c
    gcc -O2 m.c stap.o -o m
    run libbpf "$PWD/m" app:stap app:mixed -- ./m
    [ "$(echo "$output" | tr '\n' ,)" = "app:stap 5,app:mixed 5," ]
}

@test "usdt-jobs: libbpf on jobs:stats turns on the shared jobs_debug semaphore for jobs:queue too, and decodes both" {
    b="$EX/usdt-jobs/usdt-jobs"
    run libbpf "$b" jobs:stats jobs:queue jobs:submit -- "$b" 2 0
    [ "$status" -eq 0 ] || { cat err; false; }
    [ "$(echo "$output" | grep '^job ' | tr '\n' ,)" = "job 1: done untraced, debug traced,job 2: done untraced, debug traced," ]
    [ "$(echo "$output" | grep '^jobs:' | sed 's/^jobs:queue 1 [0-9]*$/jobs:queue 1 NAMES/' | tr '\n' ,)" = \
        "jobs:submit 1 10,jobs:queue 1 NAMES,jobs:stats 1 30,jobs:submit 2 20,jobs:queue 1 NAMES,jobs:stats 2 90," ]
    run libbpf "$b" jobs:done -- "$b" 1 0
    [ "$(echo "$output" | grep '^job\|^jobs:' | tr '\n' ,)" = "job 1: done traced, debug untraced,jobs:done 1 30,jobs:done -1 30," ]
    run "$b" 1 0
    [ "$output" = "job 1: done untraced, debug untraced" ]
}
