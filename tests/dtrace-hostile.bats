#!/usr/bin/env bats
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
}

# Each test works in T, a directory of its own: bats keeps files of its own
# in BATS_TEST_TMPDIR, and the tests compare directory listings.
setup() {
    T="$BATS_TEST_TMPDIR/w"
    mkdir -p "$T"
    cd "$T"
    TIMES="$BATS_FILE_TMPDIR/time-$BATS_TEST_NUMBER"
    MKOBJ="$BATS_FILE_TMPDIR/mkobj"
}

teardown() {
    if [ -n "${MOUNTED:-}" ]; then
        umount "$MOUNTED" 2>/dev/null || true
    fi
    if [ -n "${U:-}" ]; then
        rm -rf "$U"
    fi
}

# The sanitizer build (make check's second pass) is slower and bigger.
if grep -q __asan_init "$DTRACE" 2>/dev/null; then
    SLOW=5
else
    SLOW=1
fi

# measure SECONDS CMD...: run CMD under `timeout SECONDS` (times $SLOW) and
# GNU time, like `run --separate-stderr`; also sets ELAPSED (seconds) and
# PEAK_MB (peak resident memory), and logs them for a failing test.
measure() {
    local limit=$(($1 * SLOW))
    shift
    [ -x /usr/bin/time ] || skip "GNU time is not installed"
    run --separate-stderr /usr/bin/time -o "$TIMES" -f '%e %M' \
        timeout "$limit" "$@"
    local peak_kb
    read -r ELAPSED peak_kb < <(tail -n 1 "$TIMES")
    PEAK_MB=$((peak_kb / 1024))
    echo "status $status, ${ELAPSED}s, peak ${PEAK_MB} MB (limit ${limit}s)"
    echo "stderr: ${stderr:0:500}"
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

# need_unprivileged: skip unless unprivileged() can run dtrace; sets U, a
# directory everyone may use (removed by teardown).
need_unprivileged() {
    if [ "$(id -u)" -eq 0 ]; then
        command -v setpriv >/dev/null || skip "setpriv is not installed"
        unprivileged "$DTRACE" --version >/dev/null 2>&1 || skip "nobody cannot run $DTRACE"
    fi
    U="$(mktemp -d /tmp/sdtkit-hostile.XXXXXX)"
    chmod 755 "$U"
}

# prov: the small provider of dtrace-helpers, as prov.d here.
prov() {
    small_provider
    mv "$BATS_TEST_TMPDIR/prov.d" prov.d
}

# ---- object files -----------------------------------------------------------

@test "overlapping note sections do not make a small object read like a huge one" {
    prov
    # 16,000 note sections covering the same 16,000 notes: 256 million
    # notes if each section were read (about a minute)
    "$MKOBJ" overlap overlap.o 16000 16000
    measure 10 "$DTRACE" -G -s prov.d -o out.o overlap.o
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"warning: overlap.o: note sections overlap; ignoring what follows"* ]]
    [ "${ELAPSED%.*}" -lt $((2 * SLOW)) ]
    "$MKOBJ" overlap two.o 2 3
    run --separate-stderr "$SDT_LIST" two.o
    [ "$status" -eq 0 ]
    [ "$(grep -c $'\tp\tx\t' <<<"$output")" -eq 6 ]
}

@test "sections all named by one endless string are read in linear time" {
    prov
    # 160,000 sections named at offset 0 of a 10 MB string table
    "$MKOBJ" names names.o 160000 10000000
    measure 10 "$DTRACE" -G -s prov.d -o out.o names.o
    [ "$status" -eq 0 ] && [ -z "$stderr" ]
    [ "${ELAPSED%.*}" -lt $((2 * SLOW)) ]
}

@test "archive members all using one endless long name are read in linear time" {
    prov
    "$MKOBJ" longnames names.a 80000 4800000
    measure 10 "$DTRACE" -G -s prov.d -o out.o names.a
    [ "$status" -eq 0 ]
    [[ "$stderr" == "dtrace: warning: names.a: an archive member has a malformed name; ignoring what follows" ]]
    [ "${ELAPSED%.*}" -lt $((2 * SLOW)) ]
}
