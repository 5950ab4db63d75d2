#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The dtrace command line: options, default names, usage errors, exit
# codes, the preprocessor, and how the output file is written.

load dtrace-helpers

setup() {
    T=$BATS_TEST_TMPDIR
    small_provider
}

teardown() {
    [ -z "${MOUNTED:-}" ] || umount "$MOUNTED" 2>/dev/null || true
}

# A $CPP that records its argv, one word per line, in $RECORD, then runs cpp.
recording_cpp() {
    cat >"$T/record-cpp" <<'EOF'
#!/bin/sh
printf '%s\n' "$@" >"$RECORD"
exec cpp "$@"
EOF
    chmod +x "$T/record-cpp"
}

@test "--help prints the usage on stdout and exits 0" {
    run --separate-stderr "$DTRACE" --help
    [ "$status" -eq 0 ]
    [[ "$output" == Usage:* ]]
    [[ "$output" == *"-G"* ]]
    [[ "$output" == *"-k "*"no temporary files"* ]]
    [ -z "$stderr" ]
}

@test "--version prints the version and exits 0" {
    run "$DTRACE" --version
    [ "$status" -eq 0 ]
    [ "$output" = "dtrace (sdtkit) $(cat "$ROOT/VERSION")" ]
}

@test "no arguments at all is a usage error with exit status 2" {
    run --separate-stderr "$DTRACE"
    [ "$status" -eq 2 ]
    [[ "$stderr" == *Usage:* ]]
    [ -z "$output" ]
}

@test "neither -h nor -G is a usage error" {
    run "$DTRACE" -s prov.d
    [ "$status" -eq 2 ]
    [[ "$output" == *"one of -h or -G is required"* ]]
    [ ! -e prov.h ] && [ ! -e prov.o ]
}

@test "-h without -s is a usage error" {
    run "$DTRACE" -h -o out.h
    [ "$status" -eq 2 ]
    [[ "$output" == *"-s FILE.d is required"* ]]
    [ ! -e out.h ]
}

@test "-h and -G together is a usage error" {
    run "$DTRACE" -h -G -s prov.d
    [ "$status" -eq 2 ]
    [[ "$output" == *"cannot be combined"* ]]
}

@test "an unknown option is a usage error that names it" {
    run "$DTRACE" -h -s prov.d -q
    [ "$status" -eq 2 ]
    [[ "$output" == *"unknown option '-q'"* ]]
    [[ "$output" == *Usage:* ]]
    run "$DTRACE" -h -s prov.d --frobnicate
    [ "$status" -eq 2 ]
    [[ "$output" == *"unknown option '--frobnicate'"* ]]
    [ ! -e prov.h ]
}

@test "an option missing its argument is a usage error" {
    for opt in -s -o -I -D -U -x; do
        run "$DTRACE" -h -s prov.d "$opt"
        [ "$status" -eq 2 ]
        [[ "$output" == *"option '$opt' requires an argument"* ]]
    done
    [ ! -e prov.h ]
}

@test "options work in any order and give the same header" {
    "$DTRACE" -h -s prov.d -o a.h
    "$DTRACE" -o b.h -h -s prov.d
    "$DTRACE" -s prov.d -o c.h -h
    cmp a.h b.h
    cmp a.h c.h
    grep -q '^#define P_X(arg1, arg2) \\$' a.h
}

@test "attached forms -sFILE and -oFILE work" {
    "$DTRACE" -h -sprov.d -oattached.h
    "$DTRACE" -h -s prov.d -o separate.h
    cmp attached.h separate.h
}

@test "without -o the header is BASENAME.h in the current directory" {
    mkdir -p src work
    small_provider src/probes.d
    cd work
    "$DTRACE" -h -s ../src/probes.d
    [ -f probes.h ]
    [ ! -e ../src/probes.h ]
    grep -q 'DTRACE_PROBE2 (p, x, arg1, arg2)' probes.h
}

@test "without -o the object is BASENAME.o in the current directory" {
    mkdir -p src work
    small_provider src/probes.d
    cd work
    "$DTRACE" -G -s ../src/probes.d
    [ -f probes.o ]
    readelf -h probes.o | grep -q 'REL (Relocatable file)'
}

@test "the default name drops only the last extension" {
    for f in probes_mysql.d.base hs_private.h.d noext; do cp prov.d "$f"; done
    "$DTRACE" -h -s probes_mysql.d.base
    "$DTRACE" -h -s hs_private.h.d
    "$DTRACE" -G -s noext
    [ -f probes_mysql.d.h ]
    [ -f hs_private.h.h ]
    [ -f noext.o ]
}

@test "with -C and no -o the output is still named after the input" {
    small_provider probes.d
    "$DTRACE" -C -h -s probes.d
    [ -f probes.h ]
    [ "$(listing .)" = "$(printf 'probes.d\nprobes.h\nprov.d')" ]
}

@test "-o /dev/null works for -h and for -G" {
    run "$DTRACE" -h -s prov.d -o /dev/null
    [ "$status" -eq 0 ]
    run "$DTRACE" -G -s prov.d -o /dev/null
    [ "$status" -eq 0 ]
    [ -c /dev/null ]
    [ "$(listing .)" = prov.d ]
}

@test "writing to a FIFO writes the data straight into it" {
    mkfifo pipe
    cat pipe >from-pipe &
    "$DTRACE" -h -s prov.d -o pipe
    wait
    "$DTRACE" -h -s prov.d -o direct.h
    cmp from-pipe direct.h
    [ -p pipe ]
}

@test "a failed write to a device is an error (ENOSPC on /dev/full)" {
    [ -c /dev/full ] || refused "no /dev/full"
    run "$DTRACE" -h -s prov.d -o /dev/full
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot write '/dev/full'"*"No space left on device"* ]]
}

@test "Solaris and SystemTap options are accepted and ignored" {
    "$DTRACE" -h -s prov.d -o plain.h
    "$DTRACE" -x nolibs -xnolibs -xlazyload -fpic -fPIC -DPIC -D PIC -k \
        --no-pyparsing --types -64 -h -s prov.d -o flags.h
    cmp plain.h flags.h
    "$DTRACE" -G -s prov.d -o plain.o
    "$DTRACE" -G -xnolibs -x nolibs -fPIC -DPIC -k --types -s prov.d -o flags.o
    cmp plain.o flags.o
}

@test "-DPIC is not passed to the preprocessor" {
    recording_cpp
    RECORD="$T/args" CPP="$T/record-cpp" "$DTRACE" -C -DPIC -D PIC -DOTHER -h -s prov.d -o out.h
    ! grep -q PIC args || false
    grep -qx -- -DOTHER args
}

@test "-C passes -I, -D and -U to \$CPP in command-line order, then -x c and the file" {
    recording_cpp
    RECORD="$T/args" CPP="$T/record-cpp" "$DTRACE" -C -I inc1 -DA=1 -h -Iinc2 -U B \
        -D C -UD -s prov.d -o out.h
    diff - args <<'EOF'
-Iinc1
-DA=1
-Iinc2
-UB
-DC
-UD
-x
c
prov.d
EOF
    grep -q 'P_X' out.h
}

@test "arguments with spaces, quotes and ; reach the preprocessor unchanged" {
    recording_cpp
    mkdir "dir with space"
    RECORD="$T/args" CPP="$T/record-cpp" "$DTRACE" -C -h -s prov.d -o out.h \
        -D 'X=a b;c' -I "dir with space" -D "Q=\"it's\"" -D 'R=$(touch pwned)'
    grep -qxF -- '-DX=a b;c' args
    grep -qxF -- '-Idir with space' args
    grep -qxF -- "-DQ=\"it's\"" args
    grep -qxF -- '-DR=$(touch pwned)' args
    [ ! -e pwned ]
}

@test "\$CPP is split into words like a shell would, with no shell involved" {
    recording_cpp
    mkdir "my tools"
    cp record-cpp "my tools/the cpp"
    RECORD="$T/args" CPP="'$T/my tools/the cpp' -DSQ='a b' \"-DDQ=c d\" -DBS=e\\ f -DSEMI=';' -DSUB='\$(touch pwned)'" \
        "$DTRACE" -C -h -s prov.d -o out.h
    diff - args <<'EOF'
-DSQ=a b
-DDQ=c d
-DBS=e f
-DSEMI=;
-DSUB=$(touch pwned)
-x
c
prov.d
EOF
    [ ! -e pwned ]
}

@test "an unbalanced quote in \$CPP is a clear error" {
    run env CPP="cpp 'oops" "$DTRACE" -C -h -s prov.d -o out.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot use CPP="*"unterminated single quote"* ]]
    [ ! -e out.h ]
}

@test "CPP=\"gcc -E\" preprocesses a .d file as C" {
    d types.d <<'EOF'
#define LocalTransactionId unsigned int
provider postgresql {
    probe transaction__start(LocalTransactionId);
};
EOF
    CPP="gcc -E" "$DTRACE" -C -h -s types.d -o types.h
    grep -qF '/* POSTGRESQL_TRANSACTION_START ( unsigned int ) */' types.h
}

@test "without -C, #define lines are skipped and the names kept as written" {
    d types.d <<'EOF'
#define LocalTransactionId unsigned int
provider postgresql {
    probe transaction__start(LocalTransactionId);
};
EOF
    "$DTRACE" -h -s types.d -o types.h
    grep -qF '/* POSTGRESQL_TRANSACTION_START ( LocalTransactionId ) */' types.h
}

@test "-C applies to -G too" {
    d cond.d <<'EOF'
provider p {
#ifdef WITH_EXTRA
    probe extra();
#endif
    probe always();
};
EOF
    "$DTRACE" -C -DWITH_EXTRA -G -s cond.d -o with.o
    "$DTRACE" -C -G -s cond.d -o without.o
    readelf -sW with.o | grep -q ' p_extra_semaphore$'
    ! readelf -sW without.o | grep -q ' p_extra_semaphore$' || false
    readelf -sW without.o | grep -q ' p_always_semaphore$'
}

@test "a failing preprocessor is an error and writes nothing" {
    echo old >out.h
    run env CPP=false "$DTRACE" -C -h -s prov.d -o out.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"prov.d: preprocessing with 'false'"*"failed with exit status 1"* ]]
    [ "$(cat out.h)" = old ]
    [ "$(listing .)" = "$(printf 'out.h\nprov.d')" ]
}

@test "a preprocessor error message points into the original file" {
    d bad.d <<'EOF'
#include "does-not-exist.h"
provider p { probe x(); };
EOF
    run "$DTRACE" -C -h -s bad.d -o out.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"bad.d:1:"*"does-not-exist.h"* ]]
    [ ! -e out.h ]
}

@test "a preprocessor that cannot be found is a clear error" {
    run env CPP=/nonexistent/cpp "$DTRACE" -C -h -s prov.d -o out.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot run '/nonexistent/cpp'"* ]]
    [ ! -e out.h ]
}

@test "a missing input file is an error, with and without -C" {
    run "$DTRACE" -h -s missing.d -o out.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot open 'missing.d': No such file or directory"* ]]
    run "$DTRACE" -C -h -s missing.d -o out.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot open 'missing.d'"* ]]
    [ ! -e out.h ]
}

@test "-v says what is done on stderr" {
    run --separate-stderr "$DTRACE" -v -G -s prov.d -o out.o
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    [[ "$stderr" == *"prov.d: 2 probes (1 provider so far)"* ]]
    [[ "$stderr" == *"object: ELF"*"semaphores"* ]]
    [[ "$stderr" == *"wrote out.o"* ]]
    run --separate-stderr "$DTRACE" -h -s prov.d -o quiet.h
    [ -z "$stderr" ]
}

@test "two -s files are both read into one header" {
    echo 'provider q { probe z(long); };' >two.d
    "$DTRACE" -h -s prov.d -s two.d -o both.h
    grep -q '^#define P_X(arg1, arg2) \\$' both.h
    grep -q '^#define Q_Z(arg1) \\$' both.h
}

@test "-- ends the options" {
    run "$DTRACE" -G -s prov.d -o out.o -- -not-an-option.o
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot open '-not-an-option.o'"* ]]
}

@test "-o may name the input itself: it is read completely first" {
    mkdir ref
    cp prov.d ref/prov.d
    "$DTRACE" -h -s prov.d -o prov.d
    "$DTRACE" -h -s ref/prov.d -o ref/prov.h
    cmp prov.d ref/prov.h
}

@test "a parse error leaves an existing output untouched and no temporary file" {
    echo 'provider p { probe x(int; };' >bad.d
    echo "precious" >out.h
    run "$DTRACE" -h -s bad.d -o out.h
    [ "$status" -eq 1 ]
    [ "$(cat out.h)" = precious ]
    [ "$(listing .)" = "$(printf 'bad.d\nout.h\nprov.d')" ]
}

@test "no temporary file is left behind, on success or failure" {
    mkdir out
    before="$(listing out)"
    "$DTRACE" -h -s prov.d -o out/a.h
    "$DTRACE" -G -s prov.d -o out/a.o
    run "$DTRACE" -G -s prov.d -o out/b.o missing.o
    [ "$status" -eq 1 ]
    [ "$(listing out)" = "$(printf 'a.h\na.o')" ]
    [ -z "$before" ]
}

@test "an output in a missing directory is a clear error" {
    run "$DTRACE" -h -s prov.d -o nodir/out.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot create 'nodir/out.h'"*"'nodir'"*"No such file or directory"* ]]
}

@test "an output in a read-only directory is a clear error" {
    mkdir ro
    mount -t tmpfs -o ro,size=64k none ro 2>/dev/null || refused "cannot mount a read-only tmpfs"
    MOUNTED="$T/ro"
    run "$DTRACE" -h -s prov.d -o ro/out.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot create 'ro/out.h'"*"Read-only file system"* ]]
}

@test "a full file system is an error that keeps the old output and removes the temporary file" {
    # a provider whose header is far larger than the file system
    { echo "provider big {"; repeat 200 '  probe p%d(int, long, char *);\n'; echo "};"; } >big.d
    mkdir small
    mount -t tmpfs -o size=16k none small 2>/dev/null || refused "cannot mount a small tmpfs"
    MOUNTED="$T/small"
    echo old >small/big.h
    run "$DTRACE" -h -s big.d -o small/big.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot write 'small/big.h': No space left on device"* ]]
    [ "$(cat small/big.h)" = old ]
    [ "$(listing small)" = big.h ]
}

@test "a file size limit is an error that keeps the old output and removes the temporary file" {
    { echo "provider big {"; repeat 100 '  probe p%d(int, long, char *);\n'; echo "};"; } >big.d
    echo old >big.h
    run bash -c 'ulimit -f 2 && exec "$0" -h -s big.d -o big.h' "$DTRACE"
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot write 'big.h': File too large"* ]]
    [ "$(cat big.h)" = old ]
    [ "$(listing .)" = "$(printf 'big.d\nbig.h\nprov.d')" ]
}

@test "a symlinked output replaces the file it points to and stays a link" {
    mkdir real
    echo old >real/target.h
    ln -s real/target.h link.h
    "$DTRACE" -h -s prov.d -o link.h
    [ -L link.h ]
    grep -q P_X real/target.h
    [ "$(listing real)" = target.h ]
}

@test "a dangling symlinked output creates the file it points to" {
    mkdir real
    ln -s real/new.h link.h
    "$DTRACE" -h -s prov.d -o link.h
    [ -L link.h ]
    grep -q P_X real/new.h
}

@test "a new output gets mode 0666 minus the umask; a replaced one keeps its mode" {
    (umask 022 && "$DTRACE" -h -s prov.d -o new.h)
    [ "$(stat -c %a new.h)" = 644 ]
    (umask 077 && "$DTRACE" -G -s prov.d -o private.o)
    [ "$(stat -c %a private.o)" = 600 ]
    echo old >kept.h
    chmod 640 kept.h
    "$DTRACE" -h -s prov.d -o kept.h
    [ "$(stat -c %a kept.h)" = 640 ]
    grep -q P_X kept.h
}

@test "an output that is a directory is an error" {
    mkdir out.h
    run "$DTRACE" -h -s prov.d -o out.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot write 'out.h': Is a directory"* ]]
}

@test "parallel runs in one directory do not collide" {
    pids=()
    for i in $(seq 1 16); do
        "$DTRACE" -h -s prov.d -o "out$i.h" &
        pids+=($!)
        "$DTRACE" -G -s prov.d -o same.o &
        pids+=($!)
        "$DTRACE" -h -s prov.d -o same.h &
        pids+=($!)
    done
    # each one's exit status (a bare wait would ignore a sanitizer abort)
    for p in "${pids[@]}"; do wait "$p"; done
    "$DTRACE" -h -s prov.d -o ref.h
    for i in $(seq 1 16); do cmp ref.h "out$i.h"; done
    cmp ref.h same.h
    readelf -h same.o >/dev/null
    [ "$(listing . | grep -c '^\.')" -eq 0 ]
}
