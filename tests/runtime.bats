#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The run-time probe library (libsdtkit, libstapsdt): its two APIs, the
# object it writes, where that object lives and what it leaves behind,
# bad input and lifecycle (cases as data in tests/runtime/cases/), threads.
# Tracers on its probes are in tests/runtime-tracers.bats, other
# architectures in tests/runtime-arch.bats.

load helpers
load tracers-helpers
load runtime-helpers

# BENCH_RT: bench/runtime.c, whose many, reload and churn modes three
# tests run.
setup_file() {
    export BENCH_RT=$BATS_FILE_TMPDIR/bench-runtime
    rt_fixtures && rt_build "$BENCH_RT" "$ROOT/bench/runtime.c" -ldl
}

# rt_case FILE: run the case file's "> " lines through the script driver,
# which echoes each (script -e), and compare the transcript with the file
# (comments aside); the first difference is reported at the file's line,
# with the command before it, and the driver's status when not 0.
rt_case() {
    local st=0
    sed -n 's/^> //p' "$1" | "$SCRIPT" -e >transcript 2>&1 || st=$?
    awk -v file="${1#"$ROOT"/}" -v st="$st" '
        FNR == NR { if (!/^#/) { want[++n] = $0; at[n] = FNR } next }
        { got[++m] = $0 }
        END {
            for (i = 1; i <= n || i <= m; i++)
                if (i > n || i > m || want[i] != got[i]) break
            if (i > n && i > m && st == 0) exit 0
            line = i <= n ? at[i] : at[n] + 1
            for (c = i; c >= 1 && want[c] !~ /^> /; c--) {}
            printf "%s:%d: %s\n", file, line, c ? "after `" want[c] "` (line " at[c] ")" : "before any command"
            printf "  expected: %s\n", i <= n ? want[i] : "(the end)"
            printf "  got:      %s\n", i <= m ? got[i] : "(the end)"
            if (st) printf "  the driver exited with status %d: %s\n", st, got[m]
            exit 1
        }' "$1" transcript
}

# ---- the APIs, case by case -----------------------------------------------

@test "names: providers and probes are C identifiers of 1 to 60 bytes, each probe once" {
    rt_case "$ROOT/tests/runtime/cases/names.case"
}

@test "arguments: 0 to 12, each of a known type" {
    rt_case "$ROOT/tests/runtime/cases/arguments.case"
}

@test "lifecycle: load and unload twice are errors, probes are never dead, handles outlive" {
    rt_case "$ROOT/tests/runtime/cases/lifecycle.case"
}

@test "libstapsdt's API: its calls, errors in errno and error, _fire and _filename" {
    rt_case "$ROOT/tests/runtime/cases/libstapsdt.case"
}

@test "libstapsdt's API takes and loads every name libstapsdt took: my-app, a.b, a:b, 1abc, empty, long, with /" {
    rt_case "$ROOT/tests/runtime/cases/libstapsdt-names.case"
}

@test "growing: a provider unloaded, grown past 8, 32 and 64 probes, then destroyed or loaded again, keeps every probe" {
    rt_case "$ROOT/tests/runtime/cases/grow.case"
}

@test "libstapsdt's API: 32 probes added to a loaded provider of 8 load at the next load, unload and destroy" {
    rt_case "$ROOT/tests/runtime/cases/libstapsdt-grow.case"
}

@test "the driver refuses to raise or lower the semaphore of a probe not loaded: the write would go to the zero all such probes read" {
    local when
    for when in 'create p|add a i32|raise a' 'create p|add a i32|load|unload|lower a' \
        'create p|add a i32|load|destroy|raise a'; do
        run "$SCRIPT" <<<"${when//|/$'\n'}"
        [ "$status" -eq 2 ]
        [[ "${lines[-1]}" == "script: ${when##*|}: the probe is not loaded: only a loaded probe has a semaphore of its own to raise or lower"* ]]
    done
    # loaded, and another provider's being made: raised and lowered
    run "$SCRIPT" <<<$'create p\nadd a i32\nload\ncreate q\nadd b i32\nraise a\nenabled b\nlower a'
    [ "$status" -eq 0 ]
    [ "${lines[*]: -3}" = "a enabled 1 b enabled 0 a enabled 0" ]
}

@test "a case that differs is reported at its line, after its command, and one the driver refuses with the driver's message" {
    printf '%s\n' '# a comment' '> create p' '0' '> add a i32' '0' '> enabled a' 'a enabled 1' '> destroy' '0' > wrong.case
    run rt_case "$PWD/wrong.case"
    [ "$status" -eq 1 ]
    [ "$output" = "$(printf '%s\n' "$PWD/wrong.case:7: after \`> enabled a\` (line 6)" \
        '  expected: a enabled 1' '  got:      a enabled 0')" ]
    # a line too many, the driver's status and message
    printf '%s\n' '> create p' '0' '> add a i32' '0' '> raise a' 'a enabled 1' > refused.case
    run rt_case "$PWD/refused.case"
    [ "$status" -eq 1 ]
    [ "${lines[0]}" = "$PWD/refused.case:6: after \`> raise a\` (line 5)" ]
    [ "${lines[1]}" = "  expected: a enabled 1" ]
    [[ "${lines[2]}" == "  got:      script: raise a: the probe is not loaded"* ]]
    [[ "${lines[3]}" == "  the driver exited with status 2: script: raise a: the probe is not loaded"* ]]
    # the end of the file
    printf '%s\n' '> create p' '0' '> load' > short.case
    run rt_case "$PWD/short.case"
    [ "${lines[1]}" = "  expected: (the end)" ]
    [ "${lines[2]}" = "  got:      0" ]
}

# (the asan pass checks the same under ASan)
# bats test_tags=normal-pass-only
@test "every call is valgrind-clean, in every case: no error, no leak definite or possible" {
    need_cmd valgrind
    local c
    for c in "$ROOT"/tests/runtime/cases/*.case; do
        sed -n 's/^> //p' "$c" | valgrind -q --error-exitcode=9 --leak-check=full \
            --errors-for-leak-kinds=definite,possible "$SCRIPT" >/dev/null 2>valgrind.err ||
            { echo "$c:"; cat valgrind.err; false; }
    done
}

# (the asan pass checks leaks under ASan)
# bats test_tags=normal-pass-only
@test "a program that drops its handles after destroy leaks nothing valgrind counts, definite or possible (libstapsdt's flags)" {
    need_cmd valgrind
    rt_build dropped "$ROOT/tests/runtime/dropped.c"
    # libstapsdt's own check: --leak-check=full --error-exitcode=1, whose
    # errors are definite and possible leaks
    run valgrind -q --tool=memcheck --leak-check=full --error-exitcode=1 ./dropped
    echo "$output"
    [ "$status" -eq 0 ]
    [ -z "$output" ]
}

# ---- libstapsdt's ABI -------------------------------------------------------

@test "libstapsdt.h has libstapsdt's values, layouts and offsets" {
    cat > abi.c <<'C'
#include <stddef.h>
#include <libstapsdt.h>
#define EQ(a, b) _Static_assert((a) == (b), #a " == " #b);
EQ(MAX_ARGUMENTS, 6)
EQ(noError, -1) EQ(elfCreationError, 0) EQ(tmpCreationError, 1)
EQ(sharedLibraryOpenError, 2) EQ(symbolLoadingError, 3) EQ(sharedLibraryCloseError, 4)
EQ(noarg, 0) EQ(uint8, 1) EQ(int8, -1) EQ(uint16, 2) EQ(int16, -2)
EQ(uint32, 4) EQ(int32, -4) EQ(uint64, 8) EQ(int64, -8)
EQ(memfd_disabled, 0) EQ(memfd_enabled, 1)
EQ(sizeof(struct SDTProbe), 56) EQ(sizeof(SDTProbe_t), 56)
EQ(offsetof(SDTProbe_t, name), 0) EQ(offsetof(SDTProbe_t, argFmt), 8)
EQ(offsetof(SDTProbe_t, _fire), 32) EQ(offsetof(SDTProbe_t, provider), 40)
EQ(offsetof(SDTProbe_t, argCount), 48)
EQ(sizeof(struct SDTProbeList_), 64) EQ(offsetof(SDTProbeList_t, probe), 0)
EQ(offsetof(SDTProbeList_t, next), 56)
EQ(sizeof(struct SDTProvider), 56) EQ(offsetof(SDTProvider_t, name), 0)
EQ(offsetof(SDTProvider_t, probes), 8) EQ(offsetof(SDTProvider_t, errno), 16)
EQ(offsetof(SDTProvider_t, error), 24) EQ(offsetof(SDTProvider_t, _handle), 32)
EQ(offsetof(SDTProvider_t, _filename), 40) EQ(offsetof(SDTProvider_t, _memfd), 48)
EQ(offsetof(SDTProvider_t, _use_memfd), 52)
int main(void) { return 0; }
C
    cc -std=c11 -Wall -Wextra -Wpedantic -Werror -I "$INCLUDE" abi.c -o abi
}

@test "libstapsdt.h compiles after <errno.h>, in C89 to C2x and C++98 to C++20" {
    printf '#include <errno.h>\n#include <libstapsdt.h>\nint f(SDTProvider_t *p) { return providerErrno(p) + errno; }\n' > e.c
    local std
    for std in c89 gnu89 c99 c11 c17 c2x; do
        cc -std=$std -Wall -Wextra -Werror -I "$INCLUDE" -c e.c -o e.o || { echo "$std"; false; }
    done
    cp e.c e.cc
    for std in c++98 c++11 c++14 c++17 c++20; do
        g++ -std=$std -Wall -Wextra -Werror -I "$INCLUDE" -c e.cc -o e.o || { echo "$std"; false; }
    done
    # without <errno.h>, the member is read by its name; <errno.h> after works too
    printf '#include <libstapsdt.h>\nint f(SDTProvider_t *p) { return p->errno; }\n#include <errno.h>\nint g(SDTProvider_t *p) { return providerErrno(p) + errno; }\n' > n.c
    cc -std=c11 -Wall -Wextra -Werror -I "$INCLUDE" -c n.c -o n.o
}

# bats test_tags=tracer
@test "errno is a plain member of SDTProvider_t in the debugging information cgo reads" {
    need_cmd gdb
    # cgo names a structure's members from DWARF: a member inside an
    # anonymous union becomes an unnamed byte array, which Go cannot name
    printf '#include <libstapsdt.h>\nSDTProvider_t provider;\nint main(void) { return 0; }\n' > d.c
    cc -g -I "$INCLUDE" d.c -o d
    run gdb -batch -nx -ex 'ptype struct SDTProvider' ./d
    [ "$status" -eq 0 ]
    [[ "$output" == *$'\n    SDTError_t errno;\n'* ]]
    [[ "$output" != *union* ]]
    # and at libstapsdt's offset
    run gdb -batch -nx -ex 'print (int)&((struct SDTProvider *)0)->errno' ./d
    [ "${lines[-1]}" = '$1 = 16' ]
}

@test "a C++ program links with libstapsdt and libsdtkit and fires" {
    cat > p.cc <<'C'
#include <libstapsdt.h>
#include <sdtkit.h>
#include <cstdio>
int main() {
    SDTProvider_t *p = providerInit("cxx");
    SDTProbe_t *pr = providerAddProbe(p, "hit", 1, int32);
    if (providerLoad(p) != 0) return 1;
    probeFire(pr, 42);
    sdtkit_provider *n;
    sdtkit_probe *q;
    if (sdtkit_provider_create("cxx2", &n) != 0) return 2;
    if (sdtkit_provider_add_probe(n, "hit", nullptr, 0, &q) != 0) return 3;
    if (sdtkit_provider_load(n) != 0) return 4;
    sdtkit_probe_fire(q, nullptr);
    std::printf("%d %d\n", probeIsEnabled(pr), sdtkit_probe_enabled(q));
    sdtkit_provider_destroy(n);
    providerDestroy(p);
    return 0;
}
C
    g++ -std=c++11 -Wall -Wextra -Werror $RT_CFLAGS -I "$INCLUDE" p.cc -o p \
        "$RT_LIBDIR/libstapsdt.so.0" "$RT_LIBDIR/libsdtkit.so.1" -Wl,-rpath,"$RT_LIBDIR"
    run ./p
    [ "$status" -eq 0 ]
    [ "$output" = "0 0" ]
}

@test "the libraries export their API and nothing else, under their SONAMEs" {
    run sh -c "nm -D --defined-only '$RT_LIBDIR/libstapsdt.so.0' | awk '{ print \$3 }' | sort | tr '\n' ' '"
    [ "$output" = "probeFire probeIsEnabled providerAddProbe providerDestroy providerInit providerLoad providerUnload providerUseMemfd " ]
    run sh -c "nm -D --defined-only '$RT_LIBDIR/libsdtkit.so.1' | awk '{ print \$3 }' | grep -v '^SDTKIT_1$' | grep '@@SDTKIT_1$' | sed 's/@@SDTKIT_1//' | sort | tr '\n' ' '"
    [ "$output" = "sdtkit_probe_fire sdtkit_probe_firev sdtkit_probe_is_enabled sdtkit_probe_name sdtkit_probe_nargs sdtkit_probe_semaphore sdtkit_provider_add_probe sdtkit_provider_create sdtkit_provider_destroy sdtkit_provider_error sdtkit_provider_load sdtkit_provider_path sdtkit_provider_unload sdtkit_provider_use_named_file sdtkit_strerror " ]
    # 0.2.0's, in a version node of their own
    run sh -c "nm -D --defined-only '$RT_LIBDIR/libsdtkit.so.1' | awk '{ print \$3 }' | grep -v -e '^SDTKIT_1\.1$' -e '@@SDTKIT_1$' -e '^SDTKIT_1$' | sort | tr '\n' ' '"
    [ "$output" = "sdtkit_lttng_enable@@SDTKIT_1.1 sdtkit_lttng_status@@SDTKIT_1.1 sdtkit_provider_add_probe_named@@SDTKIT_1.1 " ]
    readelf -dW "$RT_LIBDIR/libstapsdt.so.0" | grep -q 'SONAME.*\[libstapsdt.so.0\]'
    readelf -dW "$RT_LIBDIR/libsdtkit.so.1" | grep -q 'SONAME.*\[libsdtkit.so.1\]'
}

# (the normal build's archives: the asan pass's are not the ones installed)
# bats test_tags=normal-pass-only
@test "the static archives are position-independent and define only the API globally" {
    run sh -c "nm --defined-only -g '$ROOT/build/libstapsdt.a' | awk 'NF == 3 { print \$3 }' | sort | tr '\n' ' '"
    [ "$output" = "probeFire probeIsEnabled providerAddProbe providerDestroy providerInit providerLoad providerUnload providerUseMemfd " ]
    # vendored into a binding's own shared object, as R's binding does
    printf '#include <libstapsdt.h>\nint bind_init(void) { return providerInit("vendored") != 0; }\n' > v.c
    cc -shared -fPIC -I "$INCLUDE" v.c "$ROOT/build/libstapsdt.a" -o libv.so -Wl,-z,defs -ldl -lpthread
    nm -D --defined-only libv.so | grep -q ' bind_init$'
}

# ---- the object ---------------------------------------------------------------

@test "the loaded object passes sdt-list --check, with a build-id and notes for every probe" {
    rt_start out -i 100
    run "$SDT_LIST" --check "$RT_PATH"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 14 ]
    [[ "${lines[0]}" == "$RT_PATH"$'\trt\tu8\t'* ]]
    [[ "$output" == *$'\trt\tall\t'*$'\t1@(%rdi) -1@8(%rdi) 2@16(%rdi) -2@24(%rdi) 4@32(%rdi) -4@40(%rdi) 8@48(%rdi) -8@56(%rdi) 8@64(%rdi) 8@72(%rdi) 4@80(%rdi) 8@88(%rdi)'* ]]
    readelf -n "$RT_PATH" | grep -q 'Build ID: [0-9a-f]\{40\}'
    readelf -hW "$RT_PATH" | grep -q 'Type: *DYN'
    readelf -dW "$RT_PATH" | grep -q 'SONAME.*\[sdtkit-probes\]'
}

@test "the object's .stapsdt.base and semaphores lie in loaded segments, the notes in none" {
    rt_start out -i 100
    local base sem sem_size
    # "NAME ADDRESS SIZE FLAGS" of a section ("[ 5]" and "[12]" both dropped)
    section() {
        readelf -SW "$RT_PATH" | awk -v want="$1" '
            sub(/^ *\[ *[0-9]+\] +/, "") && $1 == want {
                print $1, $3, $5, ($7 ~ /^[A-Z]+$/ ? $7 : "-") }'
    }
    read -r _ base _ _ < <(section .stapsdt.base)
    read -r _ sem sem_size _ < <(section .probes)
    [ -n "$base" ]
    [ -n "$sem" ]
    [ $((0x$sem_size)) -eq 128 ] # 64 slots (for 14 probes and 50 more), 2 bytes each
    file_offset "$RT_PATH" "0x$base"
    file_offset "$RT_PATH" "0x$sem"
    file_offset "$RT_PATH" $((0x$sem + 0x$sem_size - 1))
    # .probes is in the writable segment; .note.stapsdt is not allocated
    readelf -lW "$RT_PATH" | awk '/^ *0[0-9] / && /\.probes/' | grep -q dynamic
    local notes
    notes=$(section .note.stapsdt)
    echo "$notes"
    [ -n "$notes" ]
    [ "${notes##* }" = - ] # no flags: not SHF_ALLOC
}

@test "small providers share an object whose notes list exactly the loaded probes, each in a slot of its own" {
    [ "$(uname -m)" = x86_64 ] || skip "the expected operands are x86-64's"
    rt_build shared "$ROOT/tests/runtime/shared.c"
    run ./shared "$SDT_LIST"
    [ "$status" -eq 0 ]
    diff - <(printf '%s\n' "${lines[@]}") <<'EOF'
one and two: one file
== loaded
# 3 notes, 3 sites, 3 semaphores
one a -4@(%rdi)
two b -4@(%rdi)
two c -4@(%rdi) 8@8(%rdi)
== two unloaded
# 1 notes, 1 sites, 1 semaphores
one a -4@(%rdi)
four: the same file
== one destroyed, four loaded
# 1 notes, 1 sites, 1 semaphores
four e -4@(%rdi)
== two loaded again
# 3 notes, 3 sites, 3 semaphores
four e -4@(%rdi)
two b -4@(%rdi)
two c -4@(%rdi) 8@8(%rdi)
_filename: one file
_memfd: that file's
== libstapsdt's API
# 2 notes, 2 sites, 2 semaphores
five_app f 1@(%rdi) -8@8(%rdi)
three_app d -4@(%rdi)
EOF
}

# Note readers step over an empty note (12 bytes of zeros) at a time: notes
# zeroed in place, a run not a multiple of 12 long, misalign every note
# after them (issue 40).  tests/runtime/neighbours.c copies keep's object
# after each neighbour went, for one readelf and one sdt-list on them all.
@test "a loaded provider stays listed by readelf and sdt-list whatever neighbour of any name length and arguments was unloaded or destroyed" {
    need_cmd readelf
    rt_build neighbours "$ROOT/tests/runtime/neighbours.c"
    local api flag nargs n f missing sdt names=1-16,59,60 lengths=18
    # (the sanitized pass looks for bad accesses, which the lengths of one
    # note alignment's cycle make as all of them do)
    [ -z "$RT_CFLAGS" ] || names=1-4,59,60 lengths=6
    for api in native compat; do
        # names of 1 to 16 letters and 59, 60; 0 to 12 arguments (6 for
        # libstapsdt's API); each neighbour unloaded, and destroyed loaded
        flag= nargs=0-12 n=$((lengths * 13 * 2))
        [ "$api" = native ] || flag=-c nargs=0-6 n=$((lengths * 7 * 2))
        mkdir "$api"
        run ./neighbours $flag -s "$api" "$names" "$nargs"
        [ "$status" -eq 0 ] || { echo "$api: $output"; false; }
        [ "${lines[-1]}" = done ]
        [ "$(ls "$api" | wc -l)" -eq "$n" ]
        notes_of "$api"/*.so 2>readelf.err
        sdt=0
        "$SDT_LIST" "$api"/*.so >sdt.out 2>sdt.err || sdt=$?
        missing=0
        for f in "$api"/*.so; do
            if [ "$(grep -c $'^keep:tick\t-8@' "$f.notes")" -ne 1 ] ||
                [ "$(grep -c "^$f"$'\tkeep\ttick\t.*\t-8@' sdt.out)" -ne 1 ]; then
                missing=$((missing + 1))
                [ "$missing" -gt 5 ] || echo "$api: keep:tick is not listed once in ${f##*/}: $(cat "$f.notes")"
            fi
        done
        [ "$missing" -eq 0 ] || { echo "$api: keep:tick hidden in $missing of $n objects"; false; }
        # and the notes are well-formed: no reader complains
        [ "$sdt" -eq 0 ] && [ ! -s sdt.err ] || { echo "$api: sdt-list: $(head -3 sdt.err)"; false; }
        [ ! -s readelf.err ] || { echo "$api: readelf: $(head -3 readelf.err)"; false; }
    done
}

@test "1,000 providers of 2 probes loaded at once take 32 objects and 32 dlopen calls, not one each" {
    local api
    for api in native compat; do
        run "$BENCH_RT" many 1000 2 $api
        echo "$api: $output"
        [ "$status" -eq 0 ]
        # many N providers P probes F failed cpu S s dlopens D objects O ...
        [[ "$output" == "many 1000 providers 2 probes 0 failed cpu "*" s dlopens 32 objects 32 "* ]]
    done
}

# tenths_ratio OUTPUT: of bench/runtime.c growth's line, the CPU per load
# of the last tenth over the first's; TENTHS_MEAN, the mean of all ten.
tenths_ratio() {
    local line
    line=$(grep '^growth ' <<<"$1") || { echo "no growth line: $1"; return 1; }
    # growth N providers P probes F failed us/load T1 .. T10
    [ "$(awk '{ print $6 }' <<<"$line")" -eq 0 ] || { echo "loads failed: $line"; return 1; }
    # (the last two tenths over the first two: one tenth is a few ms of CPU)
    TENTHS_RATIO=$(awk '{ printf "%.2f", ($17 + $18) / ($9 + $10) }' <<<"$line")
    TENTHS_MEAN=$(awk '{ for (i = 9; i <= 18; i++) s += $i; printf "%.1f", s / 10 }' <<<"$line")
}

# need_nofile N: the limit on descriptors can be raised to N.
need_nofile() {
    [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge "$1" ] ||
        refused "ulimit -n $1: the hard limit is $(ulimit -Hn)"
}

# (place.c looks at the program's descriptors once for D / 128 new memory
# files: a new object costs about 128 stats, whatever D is; 1e8ec2d made a
# look for each, and 2,000 loads beside 15,000 cost 18 times as much)
@test "a load's CPU does not grow with the descriptors the process has open: 10,000 loads beside 15,000 more cost less than twice as much" {
    need_nofile 20000
    local base many
    run sh -c "ulimit -n 20000 && '$BENCH_RT' growth 10000 2 native"
    [ "$status" -eq 0 ]
    tenths_ratio "$output"
    base=$TENTHS_MEAN
    run sh -c "ulimit -n 20000 && '$BENCH_RT' growth 10000 2 native 15000"
    [ "$status" -eq 0 ]
    tenths_ratio "$output"
    many=$TENTHS_MEAN
    echo "# a load: $base us of CPU, $many us beside 15,000 descriptors" >&3
    # (CPU time, which the machine's load changes less than wall time)
    awk -v a="$base" -v b="$many" 'BEGIN { exit !(b < 2 * a) }' ||
        { echo "a load took $many us beside 15,000 descriptors, $base us without"; false; }
}

# (100,000 providers: the normal pass's.  The library's work for a load is
# bounded; what grows is the loader's: glibc's dlopen walks every loaded
# object, once for each new object (32 providers of 2 probes), 3,125 at the
# end.  1e8ec2d's last tenth cost 4.9 times its first.)
# bats test_tags=normal-pass-only
@test "a load's CPU grows little with the providers loaded before it: the last 10,000 of 100,000 cost less than 2.5 times the first" {
    need_nofile 20000
    run sh -c "ulimit -n 20000 && '$BENCH_RT' growth 100000 2 native"
    [ "$status" -eq 0 ]
    echo "$output"
    tenths_ratio "$output"
    echo "# CPU per load, each tenth of 100,000: $(grep -o 'us/load.*' <<<"$output")" >&3
    awk -v r="$TENTHS_RATIO" 'BEGIN { exit !(r < 2.5) }' ||
        { echo "the last two tenths' loads took $TENTHS_RATIO times the first two's"; false; }
}

@test "two loads make objects with different build-ids (perf keys its cache by them)" {
    rt_start a -i 100
    local one=$RT_PATH
    rt_start b -i 100
    [ "$(readelf -n "$one" | grep 'Build ID')" != "$(readelf -n "$RT_PATH" | grep 'Build ID')" ]
}

# bats test_tags=tracer
@test "on x86-64 the compat _fire is the probe, whose first byte is 0x90 untraced, 0xcc under a uprobe" {
    [ "$(uname -m)" = x86_64 ] || skip "x86-64 only"
    need_tracefs
    cat > fire.c <<'C'
#include <libstapsdt.h>
#include <stdio.h>
#include <unistd.h>
int main(void) {
    SDTProvider_t *p = providerInit("byte");
    SDTProbe_t *pr = providerAddProbe(p, "x", 0);
    if (providerLoad(p) != 0) return 1;
    printf("%s\nready\n", p->_filename);
    fflush(stdout);
    for (int i = 0; i < 200; i++) {
        printf("%02x %d\n", *(unsigned char *)pr->_fire, probeIsEnabled(pr));
        fflush(stdout);
        usleep(20000);
    }
    return 0;
}
C
    rt_build fire fire.c
    bg out ./fire
    wait_for out '^ready$'
    local path pc
    path=$(head -1 out)
    grep -q '^90 0$' out
    # a raw uprobe at the probe (no semaphore): libstapsdt's test sees it
    pc=$(readelf -n "$path" | awk '/Location:/ { sub(/,$/, "", $2); print $2; exit }')
    uprobe_add "p:sdtkit_rt_$$/x $path:$(file_offset "$path" "$pc")"
    echo 1 > "$TRACEFS/events/sdtkit_rt_$$/x/enable"
    wait_for out '^cc 1$'
}

# ---- where the object lives ----------------------------------------------------

@test "by default the object is a memory file, loaded as /proc/PID/fd/N, nothing on disk" {
    rt_start out -i 100
    [[ "$RT_PATH" =~ ^/proc/$RT_PID/fd/[0-9]+$ ]]
    [[ "$(readlink "$RT_PATH")" == "/memfd:sdtkit (deleted)" ]]
    grep -q '/memfd:sdtkit (deleted)' "/proc/$RT_PID/maps"
}

@test "a memory file whose inode number a lower descriptor's file shares is made again, for a new object and a renewal: bcc takes the first descriptor with the number" {
    [ "$(id -u)" -eq 0 ] || refused "a tmpfs of the test's own needs root"
    rt_build inode "$ROOT/tests/runtime/inode.c"
    mkdir mnt
    unshare -m true 2>/dev/null || refused "no mount namespace for a tmpfs of the test's own"
    run unshare -m sh -c "mount -t tmpfs none '$PWD/mnt' && exec ./inode '$PWD/mnt'"
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "new: the object's own descriptor is the first with its inode" ]
    [ "${lines[1]}" = "renewed: the object's own descriptor is the first with its inode" ]
    [ "${#lines[@]}" -eq 2 ]
}

@test "when the kernel refuses executable memory files, a memory file all the same, made without MFD_EXEC" {
    need_cmd unshare
    [ "$(id -u)" -eq 0 ] || refused "not root: a pid namespace's vm.memfd_noexec needs root"
    [ -e /proc/sys/vm/memfd_noexec ] || refused "the kernel has no vm.memfd_noexec (Linux 6.3+)"
    mkdir -p tmp
    # vm.memfd_noexec=2 refuses MFD_EXEC (EACCES); a memory file without it
    # is sealed against execve, and still maps executable for dlopen
    run unshare --pid --fork --mount-proc sh -c \
        "echo 2 > /proc/sys/vm/memfd_noexec && TMPDIR=$PWD/tmp XDG_RUNTIME_DIR= '$PROBES' -n 1 -i 0 -u"
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" =~ ^/proc/[0-9]+/fd/[0-9]+$ ]]
    [ "${lines[1]}" = "file /memfd:sdtkit (deleted)" ]
    [ "${lines[2]}" = ready ]
    [ -z "$(ls -A tmp)" ]
}

@test "a directory mounted noexec is never used, and a load with nowhere to go says why" {
    [ "$(id -u)" -eq 0 ] || refused "not root: mounting a noexec tmpfs needs root"
    need_cmd unshare
    [ -d /mnt ] || refused "no /mnt to mount a private tmpfs on"
    # The run happens in a tmpfs mounted on /mnt in a private mount
    # namespace, with the fixture and the libraries copied in: the second
    # load hides /tmp (where the suite's own files may be) under a noexec
    # mount.
    local stage=$BATS_TEST_TMPDIR/stage
    mkdir "$stage"
    cp "$SCRIPT" "$stage/script"
    cp "$RT_LIBDIR/libsdtkit.so.1" "$RT_LIBDIR/libstapsdt.so.0" "$stage/"
    printf 'create p\nadd x\nload\npath\n' > "$stage/load"
    cat > "$stage/run.sh" <<EOF
mount -t tmpfs tmpfs /mnt || exit 3
cp "$stage"/* /mnt/ || exit 3
mkdir /mnt/noexec /mnt/exec
mount -t tmpfs -o noexec tmpfs /mnt/noexec || exit 3
export LD_LIBRARY_PATH=/mnt
# a named file: the directory asked for is noexec, the next candidate takes it
SDTKIT_RUNTIME_NAMED=1 SDTKIT_RUNTIME_DIR=/mnt/noexec XDG_RUNTIME_DIR=/mnt/exec TMPDIR= \
    /mnt/script < /mnt/load
# every candidate noexec
for d in /dev/shm /tmp /var/tmp; do mount -t tmpfs -o noexec tmpfs \$d || exit 3; done
SDTKIT_RUNTIME_NAMED=1 SDTKIT_RUNTIME_DIR=/mnt/noexec XDG_RUNTIME_DIR= TMPDIR= /mnt/script < /mnt/load
EOF
    run unshare --mount --pid --fork --mount-proc sh "$stage/run.sh"
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -eq 8 ]
    [ "${lines[2]}" = 0 ]
    [[ "${lines[3]}" =~ ^/mnt/exec/sdtkit-[0-9]+-[0-9]+.so$ ]]
    [ "${lines[6]}" = "SDTKIT_E_LOAD cannot load the probes of provider 'p' (/mnt/noexec: mounted noexec; /dev/shm: mounted noexec; /tmp: mounted noexec; /var/tmp: mounted noexec)" ]
    [ "${lines[7]}" = "(null)" ]
}

@test "a named file stays while its process holds it, goes at exit, and when left by a killed process" {
    mkdir -p dir
    # exit removes it
    run env SDTKIT_RUNTIME_NAMED=1 SDTKIT_RUNTIME_DIR="$PWD/dir" "$PROBES" -n 1 -i 0 -u
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" =~ ^"$PWD/dir/sdtkit-"[0-9]+-[0-9]+".so"$ ]]
    [ -z "$(ls -A dir)" ]
    # a running process's stays, loaded or not, while others load in the directory
    SDTKIT_RUNTIME_NAMED=1 SDTKIT_RUNTIME_DIR="$PWD/dir" rt_start out -i 100
    local kept=$RT_PATH
    run env SDTKIT_RUNTIME_NAMED=1 SDTKIT_RUNTIME_DIR="$PWD/dir" "$PROBES" -n 1 -i 0 -u
    [ "$status" -eq 0 ]
    [ -e "$kept" ]
    # SIGKILL leaves it; the next named load in the directory removes it
    stop "$RT_PID" KILL
    [ -e "$kept" ]
    run env SDTKIT_RUNTIME_NAMED=1 SDTKIT_RUNTIME_DIR="$PWD/dir" "$PROBES" -n 1 -i 0 -u
    [ "$status" -eq 0 ]
    [ ! -e "$kept" ]
    [ -z "$(ls -A dir)" ]
}

@test "a named file of a live process in another PID namespace is never taken for stale" {
    need_cmd unshare
    [ "$(id -u)" -eq 0 ] || refused "not root: a PID namespace needs root"
    mkdir -p dir
    # the owner's PID in its namespace is 100000 (ns_last_pid), which no
    # process of this namespace has: a check by PID takes it for dead
    [ ! -e /proc/100000 ] || refused "a process of this namespace has PID 100000"
    SDTKIT_RUNTIME_NAMED=1 SDTKIT_RUNTIME_DIR="$PWD/dir" bg out \
        unshare --pid --fork --kill-child --mount-proc sh -c \
        "echo 99999 > /proc/sys/kernel/ns_last_pid && '$PROBES' -i 100; :"
    wait_for out '^ready$'
    local path
    path=$(head -1 out)
    [[ "$path" == "$PWD/dir/sdtkit-100000-"* ]]
    # a load here, in the same directory, removes the files nobody holds
    run env SDTKIT_RUNTIME_NAMED=1 SDTKIT_RUNTIME_DIR="$PWD/dir" "$PROBES" -n 1 -i 0 -u
    [ "$status" -eq 0 ]
    [ -e "$path" ]
}

@test "firing takes no lock: sdtkit_probe_fire, sdtkit_probe_firev and probeFire, and what they call, have no locked instruction" {
    [ "$(uname -m)" = x86_64 ] || skip "x86-64 only (the lock prefix)"
    need_cmd objdump
    local lib dis f code seen queue
    for lib in libsdtkit.so.1:sdtkit_probe_fire,sdtkit_probe_firev libstapsdt.so.0:probeFire; do
        dis=$(objdump -d --no-show-raw-insn "$RT_LIBDIR/${lib%%:*}")
        queue=" ${lib#*:} " queue=${queue//,/ } seen=" "
        # each function, and every function of the library it calls or jumps to
        while [ -n "${queue// /}" ]; do
            read -r f queue <<<"$queue"
            queue=" $queue "
            [[ "$seen" != *" $f "* ]] || continue
            seen+="$f "
            code=$(awk -v f="<$f>:" '$2 == f { on = 1; next } on && NF == 0 { exit } on' <<<"$dis")
            [ -n "$code" ] || { echo "${lib%%:*}: no $f"; false; }
            # a locked read-modify-write is a write other threads' caches see
            ! grep -w lock <<<"$code" || { echo "${lib%%:*}: $f takes a lock"; false; }
            # libc's locks: only where a thread's first fire registers it
            [ "$f" = rider_new ] || ! grep -E '<pthread_mutex_lock@plt>' <<<"$code" ||
                { echo "${lib%%:*}: $f takes libc's lock"; false; }
            # (conditional jumps too: gcc moves cold paths to FUNCTION.cold;
            # not rider_new's: registration, and what it calls, may lock)
            [ "$f" = rider_new ] || queue+=$(sed -nE 's/.*\s(call|j[a-z]+)\s+[0-9a-f]+ <([A-Za-z_][A-Za-z0-9_.]*)>$/\2/p' <<<"$code" |
                tr '\n' ' ')
        done
        [[ "$seen" == *" rider_new "* ]] || { echo "${lib%%:*}: no registration met: $seen"; false; }
        echo "# ${lib%%:*}:$seen" >&3
    done
}

@test "a memory-file object leaves nothing anywhere when the process is killed" {
    need_cmd strace
    mkdir -p run tmp
    # no file is ever created: no open with O_CREAT, no link, no mkdir
    SDTKIT_RUNTIME_DIR="$PWD/run" XDG_RUNTIME_DIR="$PWD/run" TMPDIR="$PWD/tmp" \
        bg out strace -f -o trace -e trace=open,openat,creat,link,linkat,mkdir,rename "$PROBES" -i 100
    wait_for out '^ready$'
    local pid
    pid=$(sed -n '1s|^/proc/\([0-9]*\)/fd/.*|\1|p' out)
    [ -n "$pid" ]
    stop "$pid" KILL
    stop "$BG_PID"
    [ -s trace ]
    run grep -E 'O_CREAT|creat\(|link|mkdir|rename' trace
    [ "$status" -eq 1 ]
    [ -z "$(ls -A run)" ] && [ -z "$(ls -A tmp)" ]
}

# ---- threads ---------------------------------------------------------------------

# stressed PROGRAM: tests/runtime/stress.c's PROGRAM (./stress when not
# given) says "ok FIRES CYCLES" for 300 cycles of 4 threads, each cycle
# fired through (6 fires a pass, one pass a cycle at least), and exits 0.
stressed() {
    [ $# -gt 0 ] || rt_build stress "$ROOT/tests/runtime/stress.c"
    run timeout 300 "${1:-./stress}" 4 300
    [ "$status" -eq 0 ] || { echo "$output" | head -40; return 1; }
    [[ "${lines[-1]}" =~ ^ok\ ([0-9]+)\ 300$ ]] || { echo "stress: ${lines[-1]}"; return 1; }
    (( BASH_REMATCH[1] >= 300 * 6 )) || { echo "stress: ${BASH_REMATCH[1]} fires in 300 cycles"; return 1; }
}

@test "many threads fire while another unloads, loads and adds probes: no crash, every fire counted" {
    stressed
}

@test "10,000 unload and load cycles under ulimit -n 1024 make no descriptor, mapping or memory, and all succeed" {
    local api n failed fds0 fds1 fds2 maps0 maps1 maps2 rss0 rss1 rss2
    for api in native compat; do
        run sh -c "ulimit -n 1024 && '$BENCH_RT' reload 10000 $api"
        [ "$status" -eq 0 ]
        echo "$api: $output"
        read -r _ n _ failed _ _ _ _ fds0 fds1 fds2 _ maps0 maps1 maps2 _ rss0 rss1 rss2 <<<"$output"
        [ "$n" -eq 10000 ]
        [ "$failed" -eq 0 ]
        # a reload reuses its object: not one descriptor or mapping more, ever
        [ "$fds1" -eq "$fds0" ]
        [ "$fds2" -eq "$fds0" ]
        [ "$maps1" -eq "$maps0" ]
        [ "$maps2" -eq "$maps0" ]
        # (under ASan, its quarantine keeps the blocks the sampling itself
        # frees resident: memory is judged in the normal pass)
        [ -n "$RT_CFLAGS" ] || [ $((rss1 - rss0)) -lt 1024 ]
    done
}

@test "a threaded server forks 2,000 workers while a thread toggles its providers: every worker loads, fires and exits" {
    rt_build forks "$ROOT/tests/runtime/forks.c"
    # a worker that inherits a lock held by the toggling thread hangs: the
    # timeout (status 124) fails the test.  (The sanitized pass looks for
    # bad accesses in the child's paths, which 300 workers take as 2,000
    # do: each ASan worker costs ten times a normal one.)
    local n=2000
    [ -z "$RT_CFLAGS" ] || n=300
    run timeout "$HANG_SECONDS" ./forks $n
    echo "$output"
    [ "$status" -eq 0 ]
    [ "${lines[-1]}" = "$n of $n workers finished" ]
}

@test "argument names (sdtkit_provider_add_probe_named) are C identifiers of 1 to 60 bytes, each once, or none at all" {
    cat > argnames.c <<'C'
#include <sdtkit.h>
#include <stdio.h>
#include <string.h>
int main(void)
{
    static const int t[] = {SDTKIT_STRING, SDTKIT_INT64};
    static const char *const cases[][2] = {{"path", "id"}, {"a", "a"}, {"", "id"}, {"1x", "id"},
                                           {"has space", "id"}, {"path", NULL}};
    char long_name[62];
    memset(long_name, 'n', 61);
    long_name[61] = '\0';
    sdtkit_provider *pv;
    sdtkit_probe *p;
    if (sdtkit_provider_create("argnames", &pv))
        return 1;
    for (size_t i = 0; i <= sizeof cases / sizeof cases[0]; i++) {
        const char *const *names = i < sizeof cases / sizeof cases[0] ? cases[i] : NULL;
        const char *const longer[] = {"ok", long_name};
        char probe[16];
        snprintf(probe, sizeof probe, "p%zu", i);
        int rc = sdtkit_provider_add_probe_named(pv, probe, t, names, 2, &p);
        printf("%s: %d %s\n", probe, rc, rc ? sdtkit_provider_error(pv) : sdtkit_probe_name(p));
        if (i == 0) {
            rc = sdtkit_provider_add_probe_named(pv, "long", t, longer, 2, &p);
            printf("long: %d %s\n", rc, sdtkit_provider_error(pv));
        }
    }
    sdtkit_provider_destroy(pv);
    return 0;
}
C
    rt_build argnames argnames.c
    run ./argnames
    [ "$status" -eq 0 ]
    local want=(
        "p0: 0 p0"
        "long: -1 probe 'long': argument 2's name: a name longer than 60 bytes (SDTKIT_NAME_MAX)"
        "p1: -1 probe 'p1': argument 2's name: the name of an argument before it"
        "p2: -1 probe 'p2': argument 1's name: an empty name"
        "p3: -1 probe 'p3': argument 1's name: a name that is not a C identifier (letters, digits, '_', not a digit first)"
        "p4: -1 probe 'p4': argument 1's name: a name that is not a C identifier (letters, digits, '_', not a digit first)"
        "p5: -1 probe 'p5': argument 2's name: no name (NULL)"
        "p6: 0 p6")
    diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "${lines[@]}")
}

@test "forks while another thread's calls look for liblttng-ust in the loader's list: every child loads a provider and dlopens" {
    # glibc's fork leaves the loader's list locked in a child forked while
    # another thread reads it (dl_iterate_phdr): the library reads it
    # inside its calls only, which fork waits for
    cat > lookfork.c <<'C'
#include <sdtkit.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
static sdtkit_provider *pv;
static void *calls(void *arg)
{
    (void)arg;
    for (;;) {
        sdtkit_provider_unload(pv);
        sdtkit_provider_load(pv);
        sdtkit_lttng_status();
    }
    return NULL;
}
int main(void)
{
    static const int t[] = {SDTKIT_INT64};
    sdtkit_probe *p;
    if (sdtkit_provider_create("lookfork", &pv) || sdtkit_provider_add_probe(pv, "x", t, 1, &p) ||
        sdtkit_provider_load(pv))
        return 1;
    pthread_t th;
    pthread_create(&th, NULL, calls, NULL);
    int done = 0;
    for (int i = 0; i < 500; i++) {
        pid_t c = fork();
        if (c == 0) {
            sdtkit_provider *q;
            sdtkit_probe *y;
            _exit(sdtkit_provider_create("child", &q) || sdtkit_provider_add_probe(q, "y", t, 1, &y) ||
                  sdtkit_provider_load(q) || !dlopen("libm.so.6", RTLD_NOW));
        }
        int st;
        done += waitpid(c, &st, 0) == c && WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    printf("%d of 500 children loaded and dlopened\n", done);
    return 0;
}
C
    rt_build lookfork lookfork.c -ldl
    # a child that inherits the loader's list locked hangs: the timeout
    # (status 124) fails the test
    run timeout "$HANG_SECONDS" ./lookfork
    [ "$status" -eq 0 ]
    [ "$output" = "500 of 500 children loaded and dlopened" ]
}

@test "20,000 short-lived providers, each with a name of its own, hold no more heap, descriptors or mappings than the first 2,000" {
    local api n failed heap0 heap1 fds0 fds1 maps0 maps1
    for api in native compat; do
        # a JIT's provider: create jitK, add 4 probes, load, fire each,
        # unload, destroy
        run "$BENCH_RT" churn 20000 $api
        echo "$api: $output"
        [ "$status" -eq 0 ]
        # churn N cycles F failed heap A B rss A B fds A B maps A B bytes/cycle X
        read -r _ n _ failed _ _ heap0 heap1 _ _ _ _ fds0 fds1 _ maps0 maps1 _ <<<"$output"
        [ "$n" -eq 20000 ]
        [ "$failed" -eq 0 ]
        [ "$fds1" -eq "$fds0" ]
        # (ASan's allocator maps and unmaps regions of its own, and malloc's
        # count is not its: the normal pass judges them) not a mapping
        # more, and a page of heap at most for 18,000 cycles
        [ -n "$RT_CFLAGS" ] || [ "$maps1" -eq "$maps0" ]
        [ -n "$RT_CFLAGS" ] || [ $((heap1 - heap0)) -le 4096 ]
    done
}

@test "fork() in a signal handler that interrupted a call on a provider, at each lock, dlopen and pwrite of the call, returns, and the call goes on" {
    rt_build sigfork "$ROOT/tests/runtime/sigfork.c" -ldl
    # a fork that waits for the call it interrupted never returns: the
    # timeout's status 124
    run timeout "$HANG_SECONDS" ./sigfork
    [ "$status" -eq 0 ] || { echo "status $status (124: a fork deadlocked): $(tail -3 <<<"$output")"; false; }
    local op bad
    # each call was interrupted at one point at least: its first lock
    for op in load unload destroy providerLoad providerDestroy; do
        grep -q "^$op pthread_mutex_lock 1: " <<<"$output" || { echo "$op: no signal in it"; false; }
    done
    # the child fired and exited 0; the call returned 0
    bad=$(grep -E '^[A-Za-z]+ [a-z_]+ [0-9]+: ' <<<"$output" |
        grep -vE ': child exited 0, ([A-Za-z]+) returned 0$' || true)
    [ -z "$bad" ] || { echo "$bad" | head -5; false; }
}

# Sandboxes and container profiles that do not know membarrier(2) refuse
# it; some shims answer it ENOSYS.  Without it the library must still
# give back what short-lived providers held (issue 40).
@test "without membarrier(2), refused by a seccomp filter or a preloaded syscall(), 20,000 short-lived providers under ulimit -n 1024 all load and hold no more than the first 2,000" {
    rt_build nomembarrier "$ROOT/tests/runtime/nomembarrier.c"
    cc -shared -fPIC -O2 -Wall -Wextra -Werror "$ROOT/tests/runtime/nosyscall.c" -o nosyscall.so -ldl
    local way api n failed heap0 heap1 rss0 rss1 fds0 fds1 maps0 maps1 asan cycles=20000
    # (the sanitized pass looks for bad accesses: 5,000 cycles still pass
    # the 1,024 descriptors a library that gives nothing back would need)
    [ -z "$RT_CFLAGS" ] || cycles=5000
    # (ASan wants its runtime first among the libraries; the preloaded
    # one comes before it)
    asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0
    for way in seccomp preload; do
        for api in native compat; do
            if [ "$way" = seccomp ]; then
                run sh -c "ulimit -n 1024 && ./nomembarrier none '$BENCH_RT' churn $cycles $api"
                [ "$status" -ne 3 ] || refused "no seccomp filter here: $output"
            else
                run sh -c "ulimit -n 1024 && LD_PRELOAD='$PWD/nosyscall.so' ASAN_OPTIONS='$asan' '$BENCH_RT' churn $cycles $api"
                # the program asked, and was refused
                [[ "$output" =~ "nosyscall: "[1-9][0-9]*" membarrier calls refused" ]]
            fi
            echo "$way, $api: $output"
            [ "$status" -eq 0 ]
            # churn N cycles F failed heap A B rss A B fds A B maps A B bytes/cycle X
            read -r _ n _ failed _ _ heap0 heap1 _ rss0 rss1 _ fds0 fds1 _ maps0 maps1 _ < <(grep '^churn ' <<<"$output")
            [ "$n" -eq "$cycles" ]
            [ "$failed" -eq 0 ]
            [ "$fds1" -eq "$fds0" ]
            # (the normal pass judges memory, as the test with membarrier)
            [ -n "$RT_CFLAGS" ] || [ "$maps1" -eq "$maps0" ]
            [ -n "$RT_CFLAGS" ] || [ $((heap1 - heap0)) -le 4096 ]
            [ -n "$RT_CFLAGS" ] || [ $((rss1 - rss0)) -lt 1024 ]
        done
    done
}

@test "threads stopped inside fire, also after a fire inside it, or between is-enabled's two loads resume on mapped memory, whatever the others did" {
    [ "$(uname -m)" = x86_64 ] || skip "x86-64 only (the breakpoint the test puts on a stub)"
    [ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null || echo 0)" -le 1 ] ||
        refused "ptrace_scope forbids tracing a thread of the parent"
    rt_build stopped "$ROOT/tests/runtime/stopped.c"
    local mode
    for mode in "" nested; do
        run timeout 300 ./stopped 10000 $mode
        [ "$status" -eq 0 ]
        [ "${lines[0]}" = "a thread is stopped inside the stub" ]
        if [ -n "$mode" ]; then
            # a signal handler's fire inside the stopped one: its landing
            # gives the rider back to the outer probe
            [ "${lines[1]}" = "after 1 fire of another probe inside that fire, by a signal handler" ]
            lines=("${lines[0]}" "${lines[@]:2}")
        fi
        [ "${lines[1]}" = "10000 reloads, all destroyed, 200 more providers loaded and destroyed" ]
        # its slot given to another probe, the stopped fire would fire that one
        [ "${lines[2]}" = "0 of them took the stopped thread's slot" ]
        [ "${lines[3]}" = "the stopped thread returned from the stub and fired its stale handle 1000 times" ]
        [ "${lines[4]}" = "the held semaphore address reads 0" ]
        # and it is not kept for ever: the object is renewed
        [ "${lines[5]}" = "a provider made after it returned took its slot" ]
    done
}

@test "every API hands the stub the arguments as fired: 0 to 12 64-bit integers, in registers or on the stack, and mixed types" {
    [ "$(uname -m)" = x86_64 ] || skip "x86-64 only (the breakpoints the test puts on the stubs)"
    rt_build slots "$ROOT/tests/runtime/slots.c"
    run ./slots
    [ "$status" -eq 0 ]
    local k api want=()
    for k in $(seq 0 12); do
        for api in probeFire sdtkit_probe_firev sdtkit_probe_fire; do
            # libstapsdt's API: 6 arguments at most
            [ "$api" != probeFire ] || [ "$k" -le 6 ] || continue
            want+=("$api $k: $k arguments as fired")
        done
    done
    want+=("probeFire mixed: 5 arguments as fired" "sdtkit_probe_firev mixed: 7 arguments as fired"
        "sdtkit_probe_fire mixed: 7 arguments as fired")
    diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "${lines[@]}")
}

@test "dlopen loads both libraries after libraries with initial-exec TLS took all the static TLS, and every thread's fires reach the stubs" {
    [ "$(uname -m)" = x86_64 ] || skip "x86-64 only (the breakpoints the test puts on the stubs)"
    local n
    for n in 256 8; do
        printf '__thread char block[%d] __attribute__((tls_model("initial-exec")));\nchar *ie(void) { return block; }\n' \
            "$n" >ie$n.c
        cc -shared -fPIC ie$n.c -o ie$n.so
    done
    # copies, each a library of its own to the loader: the small ones
    # last, to fill what the large ones leave
    mkdir ie
    seq 10 29 | sed 's|.*|ie/a&.so|' | xargs -n 1 cp ie256.so
    seq 10 99 | sed 's|.*|ie/b&.so|' | xargs -n 1 cp ie8.so
    cc -std=gnu11 -O2 -g -Wall -Wextra -Werror $RT_CFLAGS -I "$INCLUDE" "$ROOT/tests/runtime/dlopened.c" \
        -o dlopened -ldl -lpthread
    run ./dlopened "$RT_LIBDIR/libsdtkit.so.1" "$RT_LIBDIR/libstapsdt.so.0" ie/a*.so ie/b*.so
    [ "$status" -eq 0 ]
    [[ "${lines[0]}" == "static TLS full after "[0-9]*" libraries with initial-exec TLS" ]]
    [ "${lines[1]}" = "libsdtkit.so.1: loaded" ]
    [ "${lines[2]}" = "libstapsdt.so.0: loaded" ]
    # a thread started before the dlopen, one after, and the main thread
    [ "${lines[3]}" = "3 threads fired each API 1000 times: 3000 reached libsdtkit's stub, 3000 libstapsdt's" ]
}

@test "the ELF writer never writes past its buffer in a -DNDEBUG build, under AddressSanitizer" {
    need_cmd clang
    make_srcs RT_CORE_SRCS
    clang -std=c11 -g -DNDEBUG -fsanitize=address,undefined -fno-sanitize-recover=all \
        -D_POSIX_C_SOURCE=200809L -DSDTKIT_VERSION='"test"' "$ROOT/tests/runtime/bounds.c" \
        "${SRCS[@]}" -o bounds
    run ./bounds
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "elfw: refused, 4 bytes written" ]
    [ "${lines[1]}" = "dso_write: refused" ]
}

# (the asan pass has libraries of its own)
# bats test_tags=normal-pass-only
@test "a -DNDEBUG build of the libraries passes the API cases, the reload loop and the threads" {
    local nd=$BATS_TEST_TMPDIR/ndebug c
    make -s -C "$ROOT" runtime-ndebug NDEBUG_DIR="$nd" >/dev/null
    # the asserts are gone
    ! nm -D "$nd/libsdtkit.so.1" "$nd/libstapsdt.so.0" | grep -q __assert_fail || false
    RT_LIBDIR=$nd
    SCRIPT=$BATS_TEST_TMPDIR/script-ndebug
    rt_build "$SCRIPT" "$ROOT/tests/runtime/script.c"
    for c in "$ROOT"/tests/runtime/cases/*.case; do
        rt_case "$c" || { echo "$c"; false; }
    done
    stressed
    rt_build reload "$ROOT/bench/runtime.c" -ldl
    run sh -c "ulimit -n 1024 && ./reload reload 10000 native"
    [[ "$output" == "reload 10000 cycles 0 failed "* ]]
    if [ "$(uname -m)" = x86_64 ]; then
        rt_build stopped "$ROOT/tests/runtime/stopped.c"
        run timeout 300 ./stopped 10000
        [ "$status" -eq 0 ]
    fi
}

# (ThreadSanitizer and AddressSanitizer do not mix: the normal pass alone)
# bats test_tags=normal-pass-only
@test "the same under ThreadSanitizer, gcc and clang: no data race" {
    need_cmd clang
    local cc
    make_srcs RT_COMPAT_SRCS
    for cc in gcc clang; do
        "$cc" -std=c11 -O1 -g -fsanitize=thread -D_POSIX_C_SOURCE=200809L \
            -DSDTKIT_VERSION='"test"' -I "$INCLUDE" "$ROOT/tests/runtime/stress.c" "${SRCS[@]}" \
            -o "stress-$cc" -ldl -lpthread
        TSAN_OPTIONS=halt_on_error=1:exitcode=66 stressed "./stress-$cc" || { echo "($cc)"; false; }
    done
}
