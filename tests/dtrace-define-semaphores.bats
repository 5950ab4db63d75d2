#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# dtrace -h --define-semaphores: a header that defines each semaphore
# itself (weak, hidden, in .probes), so a build needs no dtrace -G step.
# Every translation unit shares one semaphore per probe per executable or
# shared library; linking the -G object as well still works; tracers set
# the semaphore.  Without the option the header is unchanged.

load dtrace-helpers
load tracers-helpers

setup() {
    printf 'provider app {\n  probe start(int);\n  probe stop();\n};\n' > app.d
    printf '#include "app.h"\nint f (int c);\nint f (int c) { if (APP_START_ENABLED ()) APP_START (c); APP_STOP (); return APP_STOP_ENABLED (); }\n' > a1.c
    printf '#include <stdio.h>\n#include "app.h"\nint f (int c);\nint main (int c, char **v) { int s; (void) v; if (APP_START_ENABLED ()) APP_START (c); s = f (c); printf ("start=%%d stop=%%d\\n", APP_START_ENABLED () != 0, s != 0); return 0; }\n' > a2.c
    "$DTRACE" -h --define-semaphores -s app.d -o app.h
}

# sem BIN NAME: "BIND VIS SECTION" of semaphore NAME, and how many there are.
sem() {
    local n ndx rest
    n=$(readelf -sW "$1" | awk -v s="$2" '$8 == s' | wc -l)
    read -r rest ndx < <(readelf -sW "$1" | awk -v s="$2" '$8 == s { print $5 "_" $6, $7; exit }')
    echo "$n ${rest/_/ } $(readelf -SW "$1" | sed -n "s/^ *\[ *$ndx\] \([^ ]*\).*/\1/p")"
}

@test "dtrace -h --define-semaphores defines every semaphore weak in .probes; without it the header is unchanged" {
    "$DTRACE" -h -s app.d -o plain.h
    ! grep -q weak plain.h || false
    [ "$(grep -c '^__extension__ unsigned short app_[a-z]*_semaphore __attribute__ ((weak)) __attribute__ ((section (".probes"))) SDTKIT_SEMAPHORE_VISIBILITY = 0;$' app.h)" = 2 ]
    # apart from the definitions and their comment, the same header
    diff -B <(grep -v 'weak\|define-semaphores\|itself (weak\|object is needed' app.h) plain.h
}

@test "--define-semaphores without -h is a usage error" {
    run "$DTRACE" -G --define-semaphores -s app.d -o app.o
    [ "$status" -eq 2 ]
    [[ "$output" == *"--define-semaphores goes with -h"* ]]
    [ ! -e app.o ]
}

@test "a program of two translation units links without -G: one hidden semaphore per probe, every note points at it (gcc, clang, C, C++)" {
    for cc in gcc clang "g++ -x c++ -std=c++17" "clang++ -x c++ -std=c++11"; do
        $cc -O2 -Wall -Wextra -Wpedantic -Werror -I "$SDT_INC" -I . a1.c a2.c -o a
        [ "$(./a)" = "start=0 stop=0" ]
        [ "$(sem a app_start_semaphore)" = "1 WEAK HIDDEN .probes" ]
        [ "$(sem a app_stop_semaphore)" = "1 WEAK HIDDEN .probes" ]
        addr=0x$(readelf -sW a | awk '$8 == "app_start_semaphore" { print $2 }')
        [ "$(readelf -n a | grep -A1 'Name: start$' | sed -n 's/.*Semaphore: //p' | sort -u)" = "$addr" ]
        [ "$(readelf -n a | grep -A1 'Name: start$' | grep -c Semaphore)" = 2 ]
    done
}

@test "linking the -G object as well still works: its definition wins, no duplicate symbol" {
    gcc -O2 -c -Wall -Wextra -Werror -I "$SDT_INC" -I . a1.c a2.c
    "$DTRACE" -G -s app.d -o app_probes.o a1.o a2.o
    gcc a1.o a2.o app_probes.o -o a
    [ "$(./a)" = "start=0 stop=0" ]
    [ "$(sem a app_start_semaphore)" = "1 GLOBAL HIDDEN .probes" ]
    addr=0x$(readelf -sW a | awk '$8 == "app_start_semaphore" { print $2 }')
    [ "$(note_field a app:start Semaphore)" = "$addr" ]
}

@test "a shared library and the program each keep their own semaphore, none exported" {
    gcc -O2 -fPIC -shared -Wall -Wextra -Werror -I "$SDT_INC" -I . a1.c -o liba.so
    gcc -O2 -Wall -Wextra -Werror -I "$SDT_INC" -I . a2.c -L. -la -Wl,-rpath,"$PWD" -o a
    [ "$(./a)" = "start=0 stop=0" ]
    ! readelf --dyn-syms -W liba.so | grep -q semaphore || false
    ! readelf --dyn-syms -W a | grep -q semaphore || false
    [ "$(note_field liba.so app:stop Semaphore)" != 0x0000000000000000 ]
    [ "$(note_field a app:start Semaphore)" != 0x0000000000000000 ]
}

# Its run of dtrace is the other tests': the sanitizer pass leaves it out.
# bats test_tags=normal-pass-only,tracer
@test "bpftrace sets a --define-semaphores semaphore while attached, and it reads 0 again after" {
    need_bpftrace
    gcc -O2 -Wall -Wextra -Werror -I "$SDT_INC" -I . a1.c a2.c -o a
    run bpftrace_run "usdt:$PWD/a:app:stop { printf(\"BT stop\\n\"); }" "$PWD/a"
    [ "$status" -eq 0 ]
    echo "$output" | grep -qx 'start=0 stop=1'
    [ "$(echo "$output" | grep -c '^BT stop')" = 1 ]
    [ "$(./a)" = "start=0 stop=0" ]
}
