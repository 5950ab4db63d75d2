#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The pieces `make bench` measures with: generated inputs that both
# implementations accept, and benchmark programs that build and run.

load helpers

@test "gen-provider.sh writes exactly N probes that dtrace turns into a header and an object" {
    "$ROOT/bench/gen-provider.sh" 250 3 > p.d
    [ "$(grep -cE '^[[:space:]]*probe ' p.d)" -eq 250 ]
    [ "$(grep -c '^provider ' p.d)" -eq 3 ]
    "$DTRACE" -h -s p.d -o p.h
    [ "$(grep -c '_ENABLED() __builtin_expect (bench' p.h)" -eq 250 ]
    "$DTRACE" -G -s p.d -o p.o
    [ "$(readelf -sW p.o | grep -c '_semaphore$')" -eq 250 ]
}

@test "SystemTap's script parses the generated provider without falling back to its regex parser" {
    need_stap_dtrace
    "$ROOT/bench/gen-provider.sh" 100 > p.d
    run /usr/bin/dtrace -h -s p.d -o s.h
    [ "$status" -eq 0 ]
    [[ "$output" != *"no-pyparsing"* ]]
    [ "$(grep -c '_ENABLED() __builtin_expect (bench' s.h)" -eq 100 ]
}

@test "gen-sites.sh compiles to one note per probe site, and to none with -DEMPTY" {
    "$ROOT/bench/gen-sites.sh" 400 > s.c
    gcc -O2 -c -Wall -Wextra -Werror -I "$INCLUDE" s.c -o s.o
    [ "$(note_probes s.o | wc -l)" -eq 400 ]
    gcc -O2 -c -Wall -Wextra -I "$INCLUDE" -DEMPTY s.c -o e.o
    [ "$(note_probes e.o | wc -l)" -eq 0 ]
}

@test "the benchmark loop builds in every variant and prints the same checksum" {
    "$DTRACE" -h -s "$ROOT/bench/loop.d" -o loop_probes.h
    "$DTRACE" -G -s "$ROOT/bench/loop.d" -o loop_probes.o
    want=""
    for args in REGS FIELDS GLOBALS; do
        for extra in "" -DGUARDED -DNOPROBE; do
            gcc -O2 -Wall -Wextra -Werror -DARGS=$args $extra -I . -I "$INCLUDE" \
                "$ROOT/bench/loop.c" loop_probes.o -o loop
            got=$(./loop 1000)
            [ -n "$got" ]
            if [ $args != GLOBALS ]; then
                [ -z "$want" ] || [ "$got" = "$want" ]
                want=$got
            fi
            if [ "$extra" = -DNOPROBE ]; then
                [ "$(note_probes loop | wc -l)" -eq 0 ]
            else
                [ "$(note_probes loop | cut -f1)" = "loop:hot" ]
            fi
        done
    done
}

@test "the red-zone check reports no corruption when nothing is attached" {
    gcc -O2 -Wall -Wextra -Werror -I "$INCLUDE" "$ROOT/bench/redzone.c" -o rz
    [ "$(./rz 1000)" = "corrupted calls: 0" ]
}

@test "bench/run rejects unknown options" {
    run "$ROOT/bench/run" --frobnicate
    [ "$status" -eq 2 ]
    [[ "$output" == *usage* ]]
}

@test "timeit_rounds runs the commands in turn and gives each one's median, in order" {
    WORK=$PWD RUNS=3
    . "$ROOT/bench/lib.sh"
    mapfile -t t < <(timeit_rounds . "sleep 0.2" "sleep 0.05")
    [ "${#t[@]}" -eq 2 ]
    # medians of real sleeps: never below what was slept, the longer one first
    awk -v a="${t[0]}" -v b="${t[1]}" 'BEGIN { exit !(a >= 0.2 && b >= 0.05 && a > b) }'
    # three kept rounds (the warm-up round is dropped), each running both
    [ "$(cut -d' ' -f2 rounds | tr -d '\n')" = 010101 ]
    [ "$(cut -d' ' -f1 rounds | tr -d '\n')" = 112233 ]
}

@test "round_ratio takes each round's own ratio, then their median" {
    WORK=$PWD
    . "$ROOT/bench/lib.sh"
    # round 1: (30-10)/(50-10) = 0.5; round 2, all twice as slow: 0.5 again;
    # round 3: (20-10)/(110-10) = 0.1.  Medians of the times would say 0.22.
    printf '%s\n' '1 0 10' '1 1 30' '1 2 10' '1 3 50' \
                   '2 0 20' '2 1 60' '2 2 20' '2 3 100' \
                   '3 0 10' '3 1 20' '3 2 10' '3 3 110' > rounds
    [ "$(round_ratio 0 1 2 3)" = 0.50 ]
    printf '%s\n' '1 0 10' '1 1 30' '1 2 10' '1 3 10' > rounds
    [ "$(round_ratio 0 1 2 3)" = - ]
}

@test "over_base takes each round's time over its own bare loop, and each round's own ratio, then their medians" {
    WORK=$PWD
    . "$ROOT/bench/lib.sh"
    # a over the bare loop: 20, 40, 10; t: 40, 80, 100; a's ratios to t:
    # 0.5, 0.5, 0.1.  The ratio of the medians would say 0.25.
    printf '%s\n' '1 none 10' '1 a 30' '1 t 50' '2 none 20' '2 a 60' '2 t 100' \
                   '3 none 10' '3 a 20' '3 t 110' > rounds
    [ "$(over_base rounds none t a t)" = "a 20.00 0.50
t 80.00 1.00" ]
    # no round where t costs more than the bare loop: no ratio
    printf '%s\n' '1 none 10' '1 a 30' '1 t 10' > rounds
    [ "$(over_base rounds none t a)" = "a 20.00 -" ]
}

@test "timeit_rounds gives empty medians and fails when a command fails" {
    WORK=$PWD RUNS=2
    . "$ROOT/bench/lib.sh"
    run timeit_rounds . "true" "false"
    [ "$status" -eq 1 ]
    [ "${#lines[@]}" -eq 0 ] || [ -z "$(printf '%s' "$output" | tr -d '\n')" ]
    run timeit_rounds . "true" "sh -c exit"
    [ "$status" -eq 0 ]
}

@test "the benchmark loop builds with SDT_NOP10: same checksum, the probe a nop + nop10 pair" {
    "$DTRACE" -h -s "$ROOT/bench/loop.d" -o loop_probes.h
    "$DTRACE" -G -s "$ROOT/bench/loop.d" -o loop_probes.o
    gcc -O2 -DARGS=REGS -I . -I "$INCLUDE" "$ROOT/bench/loop.c" loop_probes.o -o one
    gcc -O2 -DARGS=REGS -DSDT_NOP10 -I . -I "$INCLUDE" "$ROOT/bench/loop.c" loop_probes.o -o ten
    [ "$(./one 1000)" = "$(./ten 1000)" ]
    loc=$(note_field ten loop:hot Location)
    objdump -d --start-address=$((loc)) --stop-address=$((loc + 11)) ten | grep -qE ':\s+66 2e 0f 1f 84 00 00\s+cs nopw'
    grep -q '^wanted nop10 && nop10_cost$' "$ROOT/bench/run"
}

@test "the run-time benchmark runs every untraced mode with one checksum, and loads providers" {
    make -s -C "$ROOT" runtime
    gcc -std=gnu11 -O2 -Wall -Wextra -Werror -I "$INCLUDE" "$ROOT/bench/runtime.c" -o rt \
        "$ROOT/build/libsdtkit.so.1" "$ROOT/build/libstapsdt.so.0" -Wl,-rpath,"$ROOT/build"
    local m sums=""
    for m in none compiled gated plain native compat cgated; do
        run ./rt "$m" 1000
        [ "$status" -eq 0 ]
        [[ "$output" =~ ^[0-9.]+" ns/iter "[0-9]+$ ]]
        sums="$sums ${output##* }"
    done
    [ "$(tr ' ' '\n' <<<"$sums" | sort -u | grep -c .)" -eq 1 ]
    run ./rt load 2 100
    [ "$status" -eq 0 ]
    [[ "$output" =~ ^[0-9.]+" ms/load (best "[0-9.]+"), object "[0-9]+" bytes, "[0-9.-]+" KiB per loaded provider"$ ]]
    run ./rt churn 100 compat
    [ "$status" -eq 0 ]
    [[ "$output" =~ ^"churn 100 cycles 0 failed heap "[0-9]+" "[0-9]+" rss "[0-9]+" "[0-9]+" fds "[0-9]+" "[0-9]+" maps "[0-9]+" "[0-9]+" bytes/cycle "-?[0-9.]+" objects "[0-9]+" "[0-9]+$ ]]
    run ./rt many 100 2
    [ "$status" -eq 0 ]
    [[ "$output" =~ ^"many 100 providers 2 probes 0 failed cpu "[0-9.]+" s dlopens "[0-9]+" objects "[0-9]+" rss "-?[0-9]+" KiB heap "-?[0-9]+" bytes fds "[0-9]+$ ]]
    # a load's CPU by tenths, with descriptors open beside or not
    run ./rt growth 100 2 native 100
    [ "$status" -eq 0 ]
    [[ "$output" =~ ^"growth 100 providers 2 probes 0 failed us/load"( [0-9.]+){10}$ ]]
    # workers forked from a threaded server: none stuck here
    run ./rt forks 5 compat
    [ "$status" -eq 0 ]
    [[ "$output" =~ ^"forks 5 workers 5 finished 0 stuck "[0-9.]+" s"$ ]]
    run ./rt nosuchmode 1
    [ "$status" -eq 2 ]
}

@test "bench/libstapsdt-tests runs a tree's tests with its valgrind flags, two cases of test-errors aside" {
    need_cmd valgrind
    make -s -C "$ROOT" runtime
    mkdir -p tree/tests
    # a tree shaped as libstapsdt's: its tests' Makefile, a leak test and an
    # error test whose two cases sdtkit differs on fail, a third passes
    printf 'VALGRINDFLAGS= --tool=memcheck --leak-check=full --error-exitcode=1\n' > tree/tests/Makefile
    cat > tree/tests/test-memory-leaks.c <<'EOF'
#include <libstapsdt.h>
int main(void) {
  SDTProvider_t *p = providerInit("leaks");
  SDTProbe_t *a = providerAddProbe(p, "a", 2, int8, uint64);
  if (!a || providerLoad(p) != 0) return 1;
  probeFire(a, 1, 2);
  providerUnload(p);
  providerDestroy(p);
  return 0;
}
EOF
    cat > tree/tests/test-errors.c <<'EOF'
#include <libstapsdt.h>
int testTmpCreationError() { return 0; }
int testSharedLibraryCloseError() { return 0; }
int testOther() { SDTProvider_t *p = providerInit("x"); int ok = providerLoad(p) == 0; providerDestroy(p); return ok; }
int main() {
  if (!testTmpCreationError()) { return -2; }
  if (!testOther()) { return -3; }
  if(!testSharedLibraryCloseError()) {
    return -5;
  }
  return 0;
}
EOF
    run "$ROOT/bench/libstapsdt-tests" tree
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[2]}" = "ok test-memory-leaks under valgrind --tool=memcheck --leak-check=full --error-exitcode=1" ]
    [ "${lines[4]}" = "ok test-errors (testTmpCreationError, testSharedLibraryCloseError aside)" ]
    # the third case failing fails it
    sed -i 's/return ok;/return !ok;/' tree/tests/test-errors.c
    run "$ROOT/bench/libstapsdt-tests" tree
    [ "$status" -eq 1 ]
    [[ "${lines[4]}" == "FAILED test-errors (testTmpCreationError, testSharedLibraryCloseError aside) (status 253)"* ]]
    run "$ROOT/bench/libstapsdt-tests" nosuchtree
    [ "$status" -eq 2 ]
}

@test "gen-probes.awk writes N probes, and its new variant 3 changes per 100 that sdt-list --diff finds" {
    awk -v n=300 -f "$ROOT/bench/gen-probes.awk" > old.c
    awk -v n=300 -v variant=new -f "$ROOT/bench/gen-probes.awk" > new.c
    gcc -O1 -shared -fPIC -Wall -Werror -I "$INCLUDE" old.c -o old.so
    gcc -O1 -shared -fPIC -Wall -Werror -I "$INCLUDE" new.c -o new.so
    [ "$(note_probes old.so | wc -l)" -eq 300 ]
    [ "$(note_probes new.so | wc -l)" -eq 300 ]
    run "$SDT_LIST" --diff old.so new.so
    [ "$status" -eq 2 ]
    [ "${lines[9]}" = "1 file, 303 probes compared: 3 added, 3 removed, 3 changed: incompatible" ]
    [ "$(grep -c '^! new.so: bench:p[0-9]*51: arg0 -4 -> -8 (int32 -> int64)$' <<<"$output")" -eq 3 ]
    grep -q '^wanted sdt-list && sdtlist_speed$' "$ROOT/bench/run"
}

@test "bench/run measures only the figures it is given, and refuses one it has not" {
    run "$ROOT/bench/run" -q nosuchfigure
    [ "$status" -eq 2 ]
    [ "$output" = "bench/run: no figure 'nosuchfigure' (figures: dtrace compile disabled enabled nop10 runtime sdt-list lttng)" ]
}
