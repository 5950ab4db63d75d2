#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Hostile inputs: whatever dtrace is given, it ends with correct output or a
# clean error -- exit status exactly 1 (2 for usage) and a "file:line:col:
# error:" or "dtrace: error:" message -- leaves no partial or temporary file,
# keeps an existing output, and stays within bounded time and memory.
#
# Cases of the same kind kept with their capability elsewhere:
#   dtrace-cli.bats     -o naming the input (-h), a read-only file system,
#                       symlinked outputs, a full tmpfs and a file size limit
#                       for -h, $CPP split into words with quotes and ';'
#   dtrace-parse.bats   100,000 nested parentheses, unbalanced brackets
#   dtrace-object.bats  truncated and corrupted objects
#   fuzz.bats           the libFuzzer harnesses and their past crashes

load dtrace-helpers

setup_file() {
    cc -O2 -o "$BATS_FILE_TMPDIR/mkobj" "$BATS_TEST_DIRNAME/hostile/mkobj.c"
    cc -O2 -o "$BATS_FILE_TMPDIR/killmid" "$BATS_TEST_DIRNAME/hostile/killmid.c"
    cc -O2 -o "$BATS_FILE_TMPDIR/flood" "$BATS_TEST_DIRNAME/hostile/flood.c"
    # an 80 MB header takes long enough to write that a signal lands in it
    awk 'BEGIN { print "provider big {"
        for (i = 0; i < 100000; i++) printf "    probe p%d(int a, const char *s, struct conn *c);\n", i
        print "};" }' >"$BATS_FILE_TMPDIR/big.d"
}

# Each test works in T, a directory of its own, with the small provider as
# prov.d: bats keeps files of its own in BATS_TEST_TMPDIR, and the tests
# compare directory listings.
setup() {
    T="$BATS_TEST_TMPDIR/w"
    mkdir -p "$T"
    cd "$T"
    TIMES="$BATS_FILE_TMPDIR/time-$BATS_TEST_NUMBER"
    MKOBJ="$BATS_FILE_TMPDIR/mkobj"
    KILLMID="$BATS_FILE_TMPDIR/killmid"
    small_provider "w/prov.d"
}

teardown() {
    [ -z "${MOUNTED:-}" ] || umount "$MOUNTED" 2>/dev/null || true
    [ -z "${U:-}" ] || rm -rf "$U"
}

# The sanitizer build (make check's second pass) is slower and bigger.
if grep -q __asan_init "$DTRACE" 2>/dev/null; then
    SLOW=5
else
    SLOW=1
fi

# errno_text NAME: the C library's wording of errno NAME in the messages of
# the dtrace under test: glibc's, or musl's (the musl passes).
errno_text() {
    local musl=0
    readelf -V "$DTRACE" 2>/dev/null | grep -q 'GLIBC_' || musl=1
    case $1:$musl in
        ELOOP:0) echo "Too many levels of symbolic links" ;;
        ELOOP:1) echo "Symbolic link loop" ;;
        *) echo "errno_text: no wording of $1 here" >&2; return 1 ;;
    esac
}

# measure SECONDS CMD...: run CMD under `timeout SECONDS` (times $SLOW) and
# GNU time, like `run --separate-stderr`; also sets ELAPSED (wall seconds),
# CPU (user plus system seconds: what a bound on work checks, as it does
# not grow with the machine's load) and PEAK_MB (peak resident memory), and
# logs them for a failing test.
measure() {
    local limit=$(($1 * SLOW))
    shift
    [ -x /usr/bin/time ] || missing "GNU time is not installed (.ci/run installs time)"
    run --separate-stderr /usr/bin/time -o "$TIMES" -f '%e %M %U %S' \
        timeout "$limit" "$@"
    local peak_kb user sys
    read -r ELAPSED peak_kb user sys < <(tail -n 1 "$TIMES")
    PEAK_MB=$((peak_kb / 1024))
    CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    echo "status $status, ${ELAPSED}s, CPU ${CPU}s, peak ${PEAK_MB} MB (limit ${limit}s)"
    echo "stderr: ${stderr:0:500}"
}

# cpu_below SECONDS: the last measure used less CPU time than SECONDS.
cpu_below() {
    awk -v c="$CPU" -v l="$1" 'BEGIN { exit !(c < l) }' || { echo "CPU ${CPU}s >= ${1}s"; return 1; }
}

# mem_below MB: the peak of the last measure is below MB (times 3 for the
# sanitizer build, whose shadow memory and redzones cost about that).
mem_below() {
    local limit=$1
    [ "$SLOW" -eq 1 ] || limit=$((limit * 3))
    [ "$PEAK_MB" -lt "$limit" ] || { echo "peak ${PEAK_MB} MB >= ${limit} MB"; return 1; }
}

# clean_error PATTERN: exit status 1 and a first stderr line matching the
# glob PATTERN, and nothing on stdout.
clean_error() {
    [ "$status" -eq 1 ] || { echo "status $status, expected 1"; return 1; }
    local first="${stderr%%$'\n'*}"
    [[ "$first" == $1 ]] || { echo "expected: $1"; echo "got:      $first"; return 1; }
    [ -z "$output" ]
}

# unprivileged CMD...: run CMD as nobody when we are root (root reads and
# writes whatever it likes), else as ourselves.  need_unprivileged first.
unprivileged() {
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
    else
        "$@"
    fi
}

# need_unprivileged: skip unless unprivileged() can run dtrace; then cd to
# U, a directory everyone may write to (removed by teardown).
need_unprivileged() {
    if [ "$(id -u)" -eq 0 ]; then
        need_cmd setpriv
        unprivileged "$DTRACE" --version >/dev/null 2>&1 || refused "user nobody cannot run $DTRACE (a checkout nobody cannot read)"
    fi
    U="$(mktemp -d /tmp/sdtkit-hostile.XXXXXX)"
    chmod 777 "$U"
    cd "$U"
}

# ---- provider files -------------------------------------------------------

# DECLS: an awk program writing C declarations and comments of at least
# `total` bytes, with a provider every `every` lines.
DECLS='BEGIN {
    for (i = 0; size < total; i++) {
        line = sprintf("typedef struct s%d { int a[4]; char *b; } s%d_t; /* %d */\n", i, i, i)
        if (i % every == 0)
            line = line sprintf("provider p%d { probe x(s%d_t *v, long n); };\n", i, i)
        printf "%s", line
        size += length(line)
    } }'

# The runs of the 100 MB test below on a file of the same shape, 50 times
# smaller, are what every pass checks (the sanitizers, musl); the 100 MB
# one adds the time and memory that size takes, in the first pass only:
# under ASan it is the same code on more lines, for 12 s of CPU.
@test "a 2 MB provider file of declarations with a provider every 2,000 lines gives the right header and object" {
    awk -v total=2000000 -v every=2000 "$DECLS" >decls.d
    [ "$(stat -c %s decls.d)" -ge 2000000 ]
    [ "$(grep -c '^provider p[0-9]* {' decls.d)" -eq 16 ]
    run --separate-stderr "$DTRACE" -h -s decls.d -o decls.h
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(grep -c '^#define P[0-9]*_X(arg1, arg2) \\$' decls.h)" -eq 32 ]
    grep -qF '/* P30000_X ( s30000_t *v, long n ) */' decls.h
    run --separate-stderr "$DTRACE" -G -s decls.d -o decls.o
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(readelf -sW decls.o | grep -c ' p[0-9]*_x_semaphore$')" -eq 16 ]
}

# bats test_tags=normal-pass-only
@test "a 100 MB provider file gives the right header and object in bounded time and memory" {
    # C declarations and comments, with a provider every 100,000 lines
    awk -v total=100000000 -v every=100000 "$DECLS" >big.d
    [ "$(stat -c %s big.d)" -ge 100000000 ]
    measure 30 "$DTRACE" -h -s big.d -o big.h
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(grep -c '^#define P[0-9]*_X(arg1, arg2) \\$' big.h)" -eq 30 ]
    grep -qF '/* P1400000_X ( s1400000_t *v, long n ) */' big.h
    mem_below 250
    measure 30 "$DTRACE" -G -s big.d -o big.o
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(readelf -sW big.o | grep -c ' p[0-9]*_x_semaphore$')" -eq 15 ]
    mem_below 250
}

@test "a provider file over 256 MiB is refused without reading it" {
    echo 'provider p { probe x(); };' >huge.d
    truncate -s 300M huge.d
    echo old >out.h
    measure 10 "$DTRACE" -h -s huge.d -o out.h
    clean_error "dtrace: error: cannot read 'huge.d': larger than 256 MiB"
    mem_below 50
    [ "$(cat out.h)" = old ]
    [ "$(listing .)" = "$(printf 'huge.d\nout.h\nprov.d')" ]
}

@test "/dev/zero as a provider file stops at 256 MiB with a clean error" {
    measure 20 "$DTRACE" -h -s /dev/zero -o out.h
    clean_error "dtrace: error: cannot read '/dev/zero': larger than 256 MiB"
    mem_below 300
    [ "$(listing .)" = prov.d ]
}

@test "a provider file that is a directory is a clean error, with and without -C" {
    mkdir dir.d
    run --separate-stderr "$DTRACE" -h -s dir.d -o out.h
    clean_error "dtrace: error: cannot read 'dir.d': Is a directory"
    run --separate-stderr "$DTRACE" -C -G -s dir.d -o out.o
    clean_error "dtrace: error: cannot read 'dir.d': Is a directory"
    [ "$(listing .)" = "$(printf 'dir.d\nprov.d')" ]
}

@test "a FIFO nobody writes to is a clean error after 5 seconds, not a hang" {
    mkfifo fifo.d
    measure 20 "$DTRACE" -h -s fifo.d -o out.h
    clean_error "dtrace: error: cannot read 'fifo.d': no process opened the FIFO for writing within 5 seconds"
    [ "${ELAPSED%.*}" -ge 4 ]
    [ "$(listing .)" = "$(printf 'fifo.d\nprov.d')" ]
}

@test "a FIFO whose writer comes late, and a slow pipe, are read to their end" {
    "$DTRACE" -h -s prov.d -o ref.h
    mkfifo fifo.d
    (sleep 1; cat prov.d >fifo.d) &
    run timeout 20 "$DTRACE" -h -s fifo.d -o late.h
    wait
    [ "$status" -eq 0 ]
    diff <(grep -v '^/\* Generated' ref.h) <(grep -v '^/\* Generated' late.h)
    run timeout 20 "$DTRACE" -h -s <(sleep 6; cat prov.d) -o slow.h
    [ "$status" -eq 0 ]
    grep -q '^#define P_X(arg1, arg2) \\$' slow.h
}

@test "with -C a FIFO or a device is refused: the preprocessor would wait on it forever" {
    mkfifo fifo.d
    run --separate-stderr timeout 20 "$DTRACE" -C -h -s fifo.d -o out.h
    clean_error "dtrace: error: cannot preprocess 'fifo.d': not a regular file"
    run --separate-stderr timeout 20 "$DTRACE" -C -h -s /dev/zero -o out.h
    clean_error "dtrace: error: cannot preprocess '/dev/zero': not a regular file"
    [ "$(listing .)" = "$(printf 'fifo.d\nprov.d')" ]
}

@test "a preprocessor that prints without end is stopped at 256 MiB" {
    printf '#!/bin/sh\nexec cat /dev/zero\n' >endless-cpp
    chmod +x endless-cpp
    CPP="$T/endless-cpp" measure 30 "$DTRACE" -C -h -s prov.d -o out.h
    clean_error "dtrace: error: prov.d: preprocessing with '$T/endless-cpp': the output of '$T/endless-cpp' is larger than 256 MiB"
    mem_below 300
    [ "$(listing .)" = "$(printf 'endless-cpp\nprov.d')" ]
}

@test "an unreadable provider file is a clean error, with and without -C" {
    need_unprivileged
    echo 'provider p { probe x(); };' >secret.d
    chmod 000 secret.d
    run --separate-stderr unprivileged "$DTRACE" -h -s secret.d -o out.h
    clean_error "dtrace: error: cannot open 'secret.d': Permission denied"
    run --separate-stderr unprivileged "$DTRACE" -C -h -s secret.d -o out.h
    clean_error "dtrace: error: cannot open 'secret.d': Permission denied"
    [ "$(listing .)" = secret.d ]
}

# ---- the provider language ----------------------------------------------------

@test "100,000 probes give a correct header and object in bounded time and memory" {
    cp "$BATS_FILE_TMPDIR/big.d" .
    measure 30 "$DTRACE" -h -s big.d -o big.h
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(grep -c '^DTRACE_PROBE3 (big, p[0-9]*, arg1, arg2, arg3)$' big.h)" -eq 100000 ]
    grep -qF '/* BIG_P99999 ( int a, const char *s, struct conn *c ) */' big.h
    # the header is about 80 MB
    mem_below 300
    header_peak=$PEAK_MB
    header_mb=$(( $(stat -c %s big.h) >> 20 ))
    measure 30 "$DTRACE" -G -s big.d -o big.o
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    [ "$(readelf -sW big.o | grep -c ' big_p[0-9]*_semaphore$')" -eq 100000 ]
    mem_below 200
    # the header is written as it is made, never held whole: -h needs about
    # what -G needs for the same probes, not that plus the header
    [ "$header_peak" -lt $(( PEAK_MB + header_mb / 2 )) ] ||
        { echo "-h peak $header_peak MB, -G peak $PEAK_MB MB, header $header_mb MB"; false; }
}

@test "10,000-character identifiers give a header that compiles and an object that links" {
    awk 'BEGIN { for (i = 0; i < 10000; i++) { p = p "p"; n = n "n"; t = t "t"; a = a "a" }
        printf "typedef int %s;\n", t > "names.h"
        printf "provider %s {\n    probe %s__x(%s %s, char *s);\n};\n", p, n, t, a }' >long.d
    measure 10 "$DTRACE" -h -s long.d -o long.h
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    measure 10 "$DTRACE" -G -s long.d -o long.o
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    macro=$(awk 'BEGIN { for (i = 0; i < 10000; i++) { p = p "P"; n = n "N" }; print p "_" n "_X" }')
    printf '#include "names.h"\n#define SDTKIT_TYPECHECK\n#include "long.h"\nint main(void) { if (%s_ENABLED()) %s(1, "s"); return 0; }\n' \
        "$macro" "$macro" >use.c
    gcc -O2 -Wall -Werror -I"$SDT_INC" use.c long.o -o use
    ./use
    [ "$(readelf -sW use | grep -c "$(head -c 10000 /dev/zero | tr '\0' p)_$(head -c 10000 /dev/zero | tr '\0' n)__x_semaphore")" -ge 1 ]
    [ "$(note_probes use | cut -f1 | awk '{ print length($0) }')" -eq 20004 ]
}

@test "a 10,000-character provider with 100,000 probes is refused before its 12 GB header is built" {
    awk 'BEGIN { for (i = 0; i < 10000; i++) p = p "p"
        printf "provider %s {\n", p
        for (i = 0; i < 100000; i++) printf "probe a%d();\n", i
        print "};" }' >amp.d
    echo old >out.h
    measure 20 "$DTRACE" -h -s amp.d -o out.h
    clean_error "dtrace: error: the header for these 100000 probes would be larger than 256 MiB"
    mem_below 100
    measure 20 "$DTRACE" -G -s amp.d -o out.h
    clean_error "dtrace: error: the object for these 100000 probes would be larger than 256 MiB"
    mem_below 100
    [ "$(cat out.h)" = old ]
    [ "$(listing .)" = "$(printf 'amp.d\nout.h\nprov.d')" ]
}

@test "deeply nested braces in skipped declarations: 256 levels are read, more is a clean error" {
    awk 'BEGIN { for (i = 0; i < 255; i++) printf "struct s%d { ", i
        printf "int x;"
        for (i = 0; i < 255; i++) printf " };"
        print "\nprovider p { probe a(); };" }' >ok.d
    run --separate-stderr timeout 10 "$DTRACE" -h -s ok.d -o ok.h
    [ "$status" -eq 0 ]
    grep -q '^#define P_A() \\$' ok.h
    # ten million braces: no recursion, no memory in proportion
    awk 'BEGIN { printf "struct s "; for (i = 0; i < 10000000; i++) printf "{"; print "" }' >deep.d
    measure 20 "$DTRACE" -h -s deep.d -o out.h
    clean_error "deep.d:1:266: error: brackets nested more than 256 deep"
    mem_below 100
}

@test "a probe with 100,000 arguments is a clean error in bounded time" {
    awk 'BEGIN { printf "provider p {\n    probe many(int"
        for (i = 1; i < 100000; i++) printf ", int"
        print ");\n};" }' >many.d
    measure 10 "$DTRACE" -h -s many.d -o out.h
    clean_error "many.d:2:*: error: probe 'many' has 100000 arguments; sys/sdt.h supports at most 12"
    mem_below 50
}

@test "an argument declaration of a million tokens is a clean error in bounded memory" {
    awk 'BEGIN { printf "provider p { probe x("; for (i = 0; i < 1000000; i++) printf "a "; print "); };" }' >long.d
    measure 10 "$DTRACE" -h -s long.d -o out.h
    clean_error "long.d:1:22: error: an argument declaration of probe 'x' has more than 4096 tokens"
    mem_below 50
}

@test "more than a million probes, or providers, is a clean error" {
    awk 'BEGIN { print "provider p {"; for (i = 0; i <= 1000000; i++) printf "probe a%d();\n", i; print "};" }' >probes.d
    measure 30 "$DTRACE" -G -s probes.d -o out.o
    clean_error "probes.d:1000002:7: error: more than 1000000 probes"
    mem_below 600
    awk 'BEGIN { for (i = 0; i <= 1000000; i++) printf "provider p%d {};\n", i }' >providers.d
    measure 30 "$DTRACE" -G -s providers.d -o out.o
    clean_error "providers.d:1000001:10: error: more than 1000000 providers"
    mem_below 600
    [ "$(listing .)" = "$(printf 'probes.d\nprov.d\nproviders.d')" ]
}

@test "100,000 provider names prepared to share a hash bucket are read in linear time" {
    # quadratic with an unkeyed hash: 19 s here, 11 s for 90,000 names
    "$BATS_FILE_TMPDIR/flood" 100000 >flood.d
    measure 20 "$DTRACE" -h -s flood.d -o out.h
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    cpu_below $((2 * SLOW))
    grep -qF ' 100000 providers, 0 probes. */' out.h
    # keyed per run, yet the same bytes every time
    "$DTRACE" -h -s flood.d -o again.h
    cmp out.h again.h
}

@test "line markers with huge numbers saturate at INT_MAX" {
    printf '# 9999999999 "x.d"\nprovider p { probe x(int; };\n' >marker.d
    run --separate-stderr "$DTRACE" -h -s marker.d -o out.h
    clean_error "x.d:2147483647:25: error: expected ',' or ')' in the argument list of probe 'x', found ';'"
    printf '#line 2147483646 "y.d"\n\n\n\nprovider p { probe x(int; };\n' >count.d
    run --separate-stderr "$DTRACE" -h -s count.d -o out.h
    clean_error "y.d:2147483647:25: error: *"
}

# Its own dtrace, not the one under test: the sanitizer pass leaves it out.
# bats test_tags=normal-pass-only,cross
@test "line markers with huge numbers saturate at INT_MAX also where long is 32 bits" {
    printf '# 9999999999 "x.d"\nprovider p { probe x(int; };\n' >marker.d
    # an i686 dtrace that traps on any signed overflow (the number used to
    # be accumulated in a long), run under qemu-i386: a kernel built without
    # IA-32 emulation, as CI's was, cannot execute it ("Exec format error")
    need_arch i686
    need_cmd qemu-i386
    local srcs=()
    for f in "$ROOT"/tools/*.c "$ROOT"/lib/*.c; do [ "$f" = "$ROOT/tools/sdt-list.c" ] || srcs+=("$f"); done
    i686-linux-gnu-gcc -std=c11 -D_POSIX_C_SOURCE=200809L -DSDTKIT_VERSION="\"$(cat "$ROOT/VERSION")\"" -O1 -static -fsanitize=signed-integer-overflow \
        -fsanitize-undefined-trap-on-error -o dtrace32 "${srcs[@]}"
    qemu-i386 ./dtrace32 --version >/dev/null
    run --separate-stderr qemu-i386 ./dtrace32 -h -s marker.d -o out.h
    clean_error "x.d:2147483647:25: error: *"
}

# ---- object files -----------------------------------------------------------

@test "overlapping note sections do not make a small object read like a huge one" {
    # 16,000 note sections covering the same 16,000 notes: 256 million
    # notes if each section were read (about a minute)
    "$MKOBJ" overlap overlap.o 16000 16000
    measure 10 "$DTRACE" -G -s prov.d -o out.o overlap.o
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"warning: overlap.o: note sections overlap; ignoring what follows"* ]]
    cpu_below $((2 * SLOW))
    "$MKOBJ" overlap two.o 2 3
    run --separate-stderr "$SDT_LIST" two.o
    [ "$status" -eq 0 ]
    [ "$(grep -c $'\tp\tx\t' <<<"$output")" -eq 6 ]
}

@test "sections all named by one endless string are read in linear time" {
    # 160,000 sections named at offset 0 of a 10 MB string table
    "$MKOBJ" names names.o 160000 10000000
    measure 10 "$DTRACE" -G -s prov.d -o out.o names.o
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    cpu_below $((2 * SLOW))
}

@test "archive members all using one endless long name are read in linear time" {
    "$MKOBJ" longnames names.a 80000 4800000
    measure 10 "$DTRACE" -G -s prov.d -o out.o names.a
    [ "$status" -eq 0 ]
    [[ "$stderr" == "dtrace: warning: names.a: an archive member has a malformed name; ignoring what follows" ]]
    cpu_below $((2 * SLOW))
}

@test "a thin archive listing itself is read once, not N^depth times" {
    "$MKOBJ" thin self.a 1000 self.a
    measure 10 "$DTRACE" -G -s prov.d -o out.o self.a
    [ "$status" -eq 0 ]
    [ "$stderr" = "dtrace: warning: self.a: a thin archive inside a thin archive; its members are not read" ]
    cpu_below $((2 * SLOW))
}

@test "a thin archive reads each file once, however it names it" {
    printf '#include <sys/sdt.h>\nvoid f(void) { DTRACE_PROBE(p, ghost); }\n' >use.c
    gcc -I"$SDT_INC" -c use.c -o use.o
    ln -s use.o alias.o
    ar rcT thin.a use.o
    # the same file three times: twice as use.o (ar stores a link's
    # target), once by its absolute path
    ar qT thin.a alias.o
    ar qT thin.a "$T/use.o"
    [ "$(ar t thin.a | wc -l)" -eq 3 ]
    run --separate-stderr "$SDT_LIST" thin.a
    [ "$status" -eq 0 ]
    [ "$(grep -c $'\tghost\t' <<<"$output")" -eq 1 ]
    run --separate-stderr "$DTRACE" -v -G -s prov.d -o out.o thin.a
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"thin.a: 'use.o' is listed again; read once"* ]]
    [[ "$stderr" == *"thin.a: '$T/use.o' is listed again; read once"* ]]
    [ "$(grep -c "probe 'p:ghost' is used" <<<"$stderr")" -eq 1 ]
}

@test "a thin archive naming a device or a FIFO is a clean error, not endless reading" {
    "$MKOBJ" thin zero.a 1 /dev/zero
    measure 10 "$DTRACE" -G -s prov.d -o out.o zero.a
    clean_error "dtrace: error: cannot read '/dev/zero': not a regular file"
    mem_below 50
    mkfifo fifo.o
    "$MKOBJ" thin fifo.a 1 fifo.o
    measure 10 "$DTRACE" -G -s prov.d -o out.o fifo.a
    clean_error "dtrace: error: cannot read 'fifo.o': not a regular file"
    [ "$(listing .)" = "$(printf 'fifo.a\nfifo.o\nprov.d\nzero.a')" ]
}

@test "an object that is a directory, a FIFO or a device is a clean error" {
    mkdir dir.o
    mkfifo fifo.o
    echo old >out.o
    for obj in dir.o fifo.o /dev/zero /dev/null; do
        run --separate-stderr timeout 10 "$DTRACE" -G -s prov.d -o out.o "$obj"
        if [ "$obj" = dir.o ]; then
            clean_error "dtrace: error: cannot read 'dir.o': Is a directory"
        else
            clean_error "dtrace: error: cannot read '$obj': not a regular file"
        fi
        run --separate-stderr timeout 10 "$SDT_LIST" "$obj"
        [ "$status" -eq 1 ]
    done
    [ "$(cat out.o)" = old ]
    [ "$(listing .)" = "$(printf 'dir.o\nfifo.o\nout.o\nprov.d')" ]
}

@test "an unreadable object is a clean error" {
    need_unprivileged
    echo 'provider p { probe x(); };' >prov.d
    cp "$BATS_TEST_DIRNAME/../fuzz/corpus/objread/x86_64.o" secret.o
    chmod 000 secret.o
    run --separate-stderr unprivileged "$DTRACE" -G -s prov.d -o out.o secret.o
    clean_error "dtrace: error: cannot open 'secret.o': Permission denied"
    [ "$(listing .)" = "$(printf 'prov.d\nsecret.o')" ]
}

# ---- the output -------------------------------------------------------------

# kill_writing [-i] SIGNAL: dtrace -h writing an 80 MB out/big.h over an
# old one, signalled once its temporary file exists; sets KILLED to what
# killmid saw, retrying while dtrace finished first.
kill_writing() {
    local try
    for try in 1 2 3 4 5; do
        echo old >out/big.h
        KILLED=$("$KILLMID" "$@" out .big.h "$DTRACE" -h -s "$BATS_FILE_TMPDIR/big.d" -o out/big.h)
        [ "$KILLED" = finished ] || return 0
    done
}

@test "SIGTERM, SIGINT or SIGHUP during the write leaves the old output and no temporary file" {
    mkdir out
    for sig in 15 2 1; do
        kill_writing "$sig"
        [ "$KILLED" = killed ] || { echo "signal $sig: $KILLED"; return 1; }
        [ "$(cat out/big.h)" = old ]
        [ "$(listing out)" = big.h ]
    done
}

@test "a signal ignored when dtrace starts (nohup) stays ignored while it writes" {
    mkdir out
    kill_writing -i 1
    [ "$KILLED" = "survived 0" ]
    [ "$(grep -c '^DTRACE_PROBE3 (big, ' out/big.h)" -eq 100000 ]
    [ "$(listing out)" = big.h ]
}

@test "-o naming an object given to -G: the objects are read first, then replaced" {
    printf '#include <sys/sdt.h>\nvoid f(void) { DTRACE_PROBE(p, y); }\n' >use.c
    gcc -I"$SDT_INC" -c use.c -o use.o
    run --separate-stderr "$DTRACE" -v -G -s prov.d -o use.o use.o
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"use.o: 1 probe site"* ]]
    readelf -sW use.o | grep -q ' p_y_semaphore$'
    ! readelf -sW use.o | grep -q ' f$' || false
    [ "$(listing .)" = "$(printf 'prov.d\nuse.c\nuse.o')" ]
}

@test "-o in a directory the user may not write to is a clean error" {
    need_unprivileged
    echo 'provider p { probe x(); };' >prov.d
    mkdir ro
    echo old >ro/out.h
    chmod 555 ro
    run --separate-stderr unprivileged "$DTRACE" -h -s prov.d -o ro/out.h
    clean_error "dtrace: error: cannot create 'ro/out.h': cannot make a temporary file in 'ro': Permission denied"
    run --separate-stderr unprivileged "$DTRACE" -G -s prov.d -o ro/new.o
    clean_error "dtrace: error: cannot create 'ro/new.o': cannot make a temporary file in 'ro': Permission denied"
    [ "$(cat ro/out.h)" = old ]
    [ "$(listing ro)" = out.h ]
}

@test "-o naming a symbolic link loop is a clean error" {
    ln -s loop loop
    ln -s b a
    ln -s a b
    run --separate-stderr "$DTRACE" -h -s prov.d -o loop
    clean_error "dtrace: error: cannot write 'loop': $(errno_text ELOOP)"
    run --separate-stderr "$DTRACE" -G -s prov.d -o a
    clean_error "dtrace: error: cannot write 'a': $(errno_text ELOOP)"
    [ "$(listing .)" = "$(printf 'a\nb\nloop\nprov.d')" ]
}

@test "a full file system during -G, or one without a free inode, keeps the old output" {
    cp "$BATS_FILE_TMPDIR/big.d" .
    mkdir small
    mount -t tmpfs -o size=1m,nr_inodes=4 none small 2>/dev/null || refused "cannot mount a small tmpfs"
    MOUNTED="$T/small"
    echo old >small/big.o
    # a 4.7 MB object on a 1 MB file system
    run --separate-stderr "$DTRACE" -G -s big.d -o small/big.o
    clean_error "dtrace: error: cannot write 'small/big.o': No space left on device"
    [ "$(cat small/big.o)" = old ]
    [ "$(listing small)" = big.o ]
    # use up the inodes: the temporary file cannot even be made
    touch small/a small/b 2>/dev/null || true
    run --separate-stderr "$DTRACE" -h -s big.d -o small/big.o
    clean_error "dtrace: error: cannot create 'small/big.o': cannot make a temporary file in 'small': No space left on device"
    [ "$(cat small/big.o)" = old ]
}

@test "-o naming a FIFO nobody reads is a clean error after 5 seconds, not a hang" {
    mkfifo out.h
    measure 20 "$DTRACE" -h -s prov.d -o out.h
    clean_error "dtrace: error: cannot write 'out.h': no process opened the FIFO for reading within 5 seconds"
    [ "${ELAPSED%.*}" -ge 4 ]
    [ -p out.h ]
    [ "$(listing .)" = "$(printf 'out.h\nprov.d')" ]
}

@test "a FIFO reader that leaves early is a write error, not a silent death by SIGPIPE" {
    cp "$BATS_FILE_TMPDIR/big.d" .
    mkfifo out.h
    head -c 100 out.h >/dev/null &
    run --separate-stderr timeout 20 "$DTRACE" -h -s big.d -o out.h
    wait
    clean_error "dtrace: error: cannot write 'out.h': Broken pipe"
    # and a late reader gets everything
    (sleep 1; cat out.h >late.h) &
    run timeout 20 "$DTRACE" -h -s big.d -o out.h
    wait
    [ "$status" -eq 0 ]
    [ "$(grep -c '^DTRACE_PROBE3 (big, ' late.h)" -eq 100000 ]
}

# ---- no shell anywhere ------------------------------------------------------

# recorder NAME: an executable NAME that writes its argv, one word per line,
# to $RECORD, then runs the real tool ($REAL) with them -- or, when REAL is
# "cat", prints its last argument's file (a preprocessor that changes
# nothing, and minds no odd -D).
recorder() {
    cat >"$1" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >"$RECORD"
if [ "$REAL" = cat ]; then
    for last in "$@"; do :; done
    exec cat -- "$last"
fi
exec "$REAL" "$@"
EOF
    chmod +x "$1"
}

# (an empty word before a blank copied from a null pointer: UBSan's
# finding in the asan pass)
@test "an empty quoted word in \$CFLAGS reaches the compiler as an empty argument, which gcc refuses" {
    recorder cc
    RECORD="$T/args" REAL=gcc CC="$T/cc" CFLAGS="-O2 '' -g" run --separate-stderr "$DTRACE" -G -s prov.d -o out.o
    [ "$status" -eq 1 ]
    [ "$(head -3 args | tr '\n' ,)" = "-O2,,-g," ]
    [[ "${stderr_lines[-1]}" == "dtrace: error: asking \$CC for its target: '$T/cc' failed with exit status 1" ]]
    [ ! -e out.o ]
}

@test "\$CC and \$CFLAGS reach the compiler word for word: quotes, spaces, ;, \$(...) and backticks" {
    mkdir "my tools"
    recorder "my tools/the cc"
    RECORD="$T/args" REAL=gcc \
        CC="'$T/my tools/the cc' -DSQ='a b' \"-DDQ=c d\" -DSEMI=';' -DSUB='\$(touch pwned)' -DBT='\`touch pwned\`'" \
        CFLAGS="-O2 -DCF='x; y' \"-DCB=\\\`touch pwned\\\`\" -DAND='&&' -DPIPE='|' -DGT='>pwned'" \
        run --separate-stderr "$DTRACE" -G -s prov.d -o out.o
    [ "$status" -eq 0 ]
    diff - args <<'EOF'
-DSQ=a b
-DDQ=c d
-DSEMI=;
-DSUB=$(touch pwned)
-DBT=`touch pwned`
-O2
-DCF=x; y
-DCB=`touch pwned`
-DAND=&&
-DPIPE=|
-DGT=>pwned
-E
-dM
-x
c
/dev/null
EOF
    [ ! -e pwned ]
}

@test "-D, -I and -U values reach \$CPP word for word: backticks, \$(...), ;, quotes, globs" {
    recorder record-cpp
    RECORD="$T/args" REAL=cat CPP="$T/record-cpp" run --separate-stderr "$DTRACE" -C -h -s prov.d -o out.h \
        -D 'BT=`touch pwned`' -D 'SUB=$(touch pwned)' -I 'dir;touch pwned' -U '*' -D "Q='\"'" -D 'NL=a
b'
    [ "$status" -eq 0 ]
    grep -q '^#define P_X(arg1, arg2) \\$' out.h
    diff - args <<'EOF'
-DBT=`touch pwned`
-DSUB=$(touch pwned)
-Idir;touch pwned
-U*
-DQ='"'
-DNL=a
b
-x
c
prov.d
EOF
    [ ! -e pwned ]
}

@test "a \$CPP or \$CC script without #! is not handed to a shell" {
    printf 'touch pwned\n' >no-shebang
    chmod +x no-shebang
    run --separate-stderr env CPP="$T/no-shebang" "$DTRACE" -C -h -s prov.d -o out.h
    clean_error "dtrace: error: prov.d: preprocessing with '$T/no-shebang': cannot run '$T/no-shebang': Exec format error"
    run --separate-stderr env CC="$T/no-shebang" "$DTRACE" -G -s prov.d -o out.o
    clean_error "dtrace: error: asking \$CC for its target: cannot run '$T/no-shebang': Exec format error"
    [ ! -e pwned ]
    [ "$(listing .)" = "$(printf 'no-shebang\nprov.d')" ]
}
