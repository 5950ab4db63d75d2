#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# sdt-list --diff OLD NEW: the probes of two builds compared as an
# interface.  Each kind of change comes from a real build of a changed
# source (tests/cases/sdt-list-diff, run by diff_case); then what the
# comparison reads (archives, trees, packages, stripped and debug files,
# other architectures and compilers, the run-time library's objects in
# memory) and what it refuses, with exact messages and statuses.

load dtrace-helpers
load tracers-helpers
load runtime-helpers

# probes_c OUT [FLAGS...]: p.c, a source with three probes of the usual
# argument types, built by gcc -O2 FLAGS as OUT.
probes_c() {
    cat >p.c <<'EOC'
#include <sys/sdt.h>
struct req { int id; long size; const char *path; unsigned short flags; };
__attribute__((noinline)) long step(int i, long sum)
{
    DTRACE_PROBE2(srv, step, i, sum);
    return sum + i;
}
__attribute__((noinline)) long serve(struct req *r, int n)
{
    DTRACE_PROBE4(srv, start, r->id, r->size, r->path, r->flags);
    long sum = step(n, r->size * n);
    DTRACE_PROBE1(srv, done, sum);
    return sum;
}
int main(int argc, char **argv)
{
    struct req r = {argc, 10, argv[0], 3};
    return serve(&r, argc) == 42;
}
EOC
    gcc -O2 -I "$INCLUDE" "${@:2}" p.c -o "$1"
}

# ---- sdt-list --diff cases as data -------------------------------------
#
# A test whose point is "these two builds compare like this" keeps its data
# in tests/cases/sdt-list-diff/CASE/ (CASE: the test's name as case_slug
# makes it).  old.c and new.c are the two builds' sources (new.c missing:
# the same source), each with old.d or new.d beside it when it has a
# provider file (build_side); cflags, the compiler's flags for both, and
# old.cflags and new.cflags for one.  Each
# NAME.out there is one comparison, `sdt-list --diff [NAME.args] old new`
# run in the directory (so the lines name "new"):
#
#   NAME.out     its standard output, exactly
#   NAME.args    sdt-list's options before OLD NEW, on one line
#   NAME.status  its exit status, when not 0
#   NAME.swap    (empty) compare the other way: `--diff new old`
#
# Nothing may be written on standard error.  A failure names the case and
# shows a diff -u of the expected and the actual output.

# diff_case: build the two sides of the test's case, run every comparison.
diff_case() {
    local dir suite=${BATS_TEST_FILENAME##*/} w out name want args sides why bad=0
    case_slug dir "$BATS_TEST_DESCRIPTION"
    dir="$ROOT/tests/cases/${suite%.bats}/$dir"
    [ -d "$dir" ] || { echo "no case directory ${dir#"$ROOT"/}"; return 1; }
    w="$BATS_TEST_TMPDIR/case"
    cp -R "$dir" "$w"
    if [ ! -f "$w/new.c" ]; then
        cp "$w/old.c" "$w/new.c"
        [ ! -f "$w/old.d" ] || cp "$w/old.d" "$w/new.d"
    fi
    build_side "$w" old || { echo "case ${dir#"$ROOT"/}: old.c does not build"; return 1; }
    build_side "$w" new || { echo "case ${dir#"$ROOT"/}: new.c does not build"; return 1; }
    for out in "$dir"/*.out; do
        [ -f "$out" ] || { echo "no NAME.out in ${dir#"$ROOT"/}"; return 1; }
        name=${out##*/}
        name=${name%.out}
        want=0
        [ ! -f "$dir/$name.status" ] || read -r want <"$dir/$name.status"
        args=()
        [ ! -f "$dir/$name.args" ] || read -r -a args <"$dir/$name.args"
        sides=(old new)
        [ ! -f "$dir/$name.swap" ] || sides=(new old)
        pushd "$w" >/dev/null
        run --separate-stderr timeout 10 "$SDT_LIST" --diff "${args[@]}" "${sides[@]}"
        popd >/dev/null
        why=()
        [ "$status" = "$want" ] || why+=("status $status, expected $want")
        [ -z "$stderr" ] || why+=("stderr: $stderr")
        { [ -z "$output" ] || printf '%s\n' "$output"; } >"$w/$name.got"
        cmp -s "$out" "$w/$name.got" || why+=("stdout is not ${out#"$ROOT"/}")
        if [ ${#why[@]} -gt 0 ]; then
            case_failed "${dir#"$ROOT"/}/$name: sdt-list --diff ${args[*]} ${sides[*]}" \
                "$out" "$w/$name.got" "${why[@]}"
            bad=1
        fi
    done
    [ "$bad" -eq 0 ]
}

# args_of FILE: the argument strings of FILE's notes, one a line.
args_of() {
    "$SDT_LIST" "$1" | cut -f7
}

@test "two builds of the same source compare as no change" { diff_case; }
@test "a probe removed is one line and exit status 2" { diff_case; }
@test "a probe added alone is compatible: exit status 1" { diff_case; }
@test "a probe renamed is one removed and one added" { diff_case; }
@test "an argument added changes the argument count" { diff_case; }
@test "int changed to long changes the argument's size" { diff_case; }
@test "long changed to unsigned long changes the argument's signedness" { diff_case; }
@test "a semaphore removed or added is a change" { diff_case; }
@test "a site lost to dead-code elimination is incompatible, one gained by inlining compatible" { diff_case; }
@test "several changes are one line each, sorted by probe" { diff_case; }
@test "--provider and --ignore-probe choose the probes compared" { diff_case; }
@test "sites that disagree are compared as sets of sizes" { diff_case; }
@test "every case in tests/cases/sdt-list-diff is run by a test of this file" { every_case_has_its_test diff_case; }

@test "the same probes built by gcc and by clang differ in operands only: no change" {
    need_cmd clang
    probes_c p-gcc
    clang -O2 -I "$INCLUDE" p.c -o p-clang
    # the compilers chose other operands for the same arguments
    [ "$(args_of p-gcc)" != "$(args_of p-clang)" ]
    [ "$(args_of p-gcc | sed 's/@[^ ]*//g')" = "$(args_of p-clang | sed 's/@[^ ]*//g')" ]
    run --separate-stderr "$SDT_LIST" --diff p-gcc p-clang
    [ "$status" -eq 0 ]
    [ "$output" = "1 file, 3 probes compared: no change" ]
    [ -z "$stderr" ]
    run "$SDT_LIST" --diff p-clang p-gcc
    [ "$status" -eq 0 ]
}

# Cross compilers: their work never enters sdt-list, whose reading of
# other classes and byte orders the sanitizer pass covers in sdt-list.bats.
# bats test_tags=normal-pass-only,cross
@test "builds for other architectures compare by their own class and byte order" {
    for arch in aarch64 armhf s390x; do need_arch "$arch"; done
    probes_c p-x86_64
    for arch in aarch64 armhf s390x; do
        "$(arch_gcc "$arch")" -O2 -I "$INCLUDE" p.c -o "p-$arch"
    done
    # LP64, little- and big-endian: the same interface
    run --separate-stderr "$SDT_LIST" --diff p-x86_64 p-aarch64
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "= p-aarch64: ELF64 x86-64 (little-endian) -> ELF64 AArch64 (little-endian)" ]
    [ "${lines[1]}" = "1 file, 3 probes compared: no change" ]
    run --separate-stderr "$SDT_LIST" --diff p-s390x p-x86_64
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = "= p-x86_64: ELF64 S/390 (big-endian) -> ELF64 x86-64 (little-endian)" ]
    [ "${lines[1]}" = "1 file, 3 probes compared: no change" ]
    # 32-bit ARM: long is 4 bytes there, and the comparison says so
    run --separate-stderr "$SDT_LIST" --diff p-x86_64 p-armhf
    [ "$status" -eq 2 ]
    [ -z "$stderr" ]
    diff - <(printf '%s\n' "$output") <<'EOF'
= p-armhf: ELF64 x86-64 (little-endian) -> ELF32 ARM (little-endian)
! p-armhf: srv:done: arg0 -8 -> -4 (int64 -> int32)
! p-armhf: srv:start: arg1 -8 -> -4 (int64 -> int32)
! p-armhf: srv:start: arg2 8 -> 4 (uint64 -> uint32)
! p-armhf: srv:step: arg1 -8 -> -4 (int64 -> int32)
1 file, 3 probes compared: 0 added, 0 removed, 3 changed: incompatible
EOF
}

@test "archives compare member by member; a semaphore in an object is known by its relocation" {
    printf '#include <sys/sdt.h>\nvoid a(int x) { DTRACE_PROBE1(lib, a, x); }\n' >a.c
    printf '#include <sys/sdt.h>\nvoid b(long x) { DTRACE_PROBE1(lib, b, x); }\n' >b.c
    printf '#include <sys/sdt.h>\nvoid c(void) { DTRACE_PROBE(lib, c); }\n' >c.c
    printf 'int nothing;\n' >n.c
    for f in a b c n; do gcc -O2 -I "$INCLUDE" -c $f.c -o $f.o; done
    ar rcs old.a a.o b.o n.o
    sed -i 's/long x/short x/' b.c
    gcc -O2 -I "$INCLUDE" -c b.c -o b.o
    ar rcs new.a a.o b.o c.o
    run --separate-stderr "$SDT_LIST" --diff old.a new.a
    [ "$status" -eq 2 ]
    [ -z "$stderr" ]
    diff - <(printf '%s\n' "$output") <<'EOF'
! new.a(b.o): lib:b: arg0 -8 -> -2 (int64 -> int16)
+ new.a(c.o): lib:c: added (1 site, 0 arguments)
3 files, 3 probes compared: 1 added, 0 removed, 1 changed: incompatible
EOF
    printf 'provider lib {\n    probe a(int);\n};\n' >lib.d
    "$DTRACE" -h -s lib.d -o lib.h
    printf '#include "lib.h"\nvoid a(int x) { if (LIB_A_ENABLED()) LIB_A(x); }\n' >sa.c
    gcc -O2 -I "$INCLUDE" -I . -c sa.c -o sa.o
    [ "$("$SDT_LIST" sa.o | cut -f6)" = 0x0 ]
    run "$SDT_LIST" --diff a.o sa.o
    [ "$status" -eq 2 ]
    [ "${lines[0]}" = "! sa.o: lib:a: semaphore added (the probe fires only while a tracer raises it)" ]
}

# pkg_tree DIR LIBVERSION SOURCE: a package's files: a program, a versioned
# shared library and its SONAME link, and files that are no objects.
pkg_tree() {
    local dir=$1 v=$2
    mkdir -p "$dir/usr/bin" "$dir/usr/lib/x86_64-linux-gnu" "$dir/usr/share/doc/app"
    gcc -O2 -shared -fPIC -I "$INCLUDE" -Wl,-soname,libq.so.1 "$3" \
        -o "$dir/usr/lib/x86_64-linux-gnu/libq.so.$v"
    ln -s "libq.so.$v" "$dir/usr/lib/x86_64-linux-gnu/libq.so.1"
    probes_c "$dir/usr/bin/app"
    echo "app $v" >"$dir/usr/share/doc/app/README"
    printf '!<arch>\n' >"$dir/usr/share/doc/app/empty.a"
}

@test "unpacked packages compare as trees: files by path, versioned libraries by SONAME" {
    need_cmd dpkg-deb
    printf '#include <sys/sdt.h>\nint q_push(int x, long y) { DTRACE_PROBE2(libq, push, x, y); return x; }\n' >q1.c
    printf '#include <sys/sdt.h>\nint q_push(int x, long y) { DTRACE_PROBE2(libq, push, x, (int) y); DTRACE_PROBE(libq, pop); return x; }\n' >q2.c
    for v in 1.0:q1.c 1.1:q2.c; do
        pkg_tree "root-${v%%:*}" "${v%%:*}" "${v#*:}"
        mkdir -p "root-${v%%:*}/DEBIAN"
        printf 'Package: app\nVersion: %s\nArchitecture: amd64\nMaintainer: t <t@example.org>\nDescription: t\n' \
            "${v%%:*}" >"root-${v%%:*}/DEBIAN/control"
        dpkg-deb -b -Zgzip "root-${v%%:*}" "app_${v%%:*}.deb" >/dev/null
        dpkg-deb -x "app_${v%%:*}.deb" "x-${v%%:*}"
    done
    run --separate-stderr "$SDT_LIST" --diff x-1.0 x-1.1
    [ "$status" -eq 2 ]
    [ -z "$stderr" ]
    diff - <(printf '%s\n' "$output") <<'EOF'
= usr/lib/x86_64-linux-gnu/libq.so.1.1: compared with usr/lib/x86_64-linux-gnu/libq.so.1.0 (the same SONAME libq.so.1)
+ usr/lib/x86_64-linux-gnu/libq.so.1.1: libq:pop: added (1 site, 0 arguments)
! usr/lib/x86_64-linux-gnu/libq.so.1.1: libq:push: arg1 -8 -> -4 (int64 -> int32)
2 files, 5 probes compared: 1 added, 0 removed, 1 changed: incompatible
EOF
    # the same tree against itself, and the program alone
    run "$SDT_LIST" --diff x-1.0 x-1.0
    [ "$status" -eq 0 ]
    [ "$output" = "2 files, 4 probes compared: no change" ]
    run "$SDT_LIST" --diff x-1.0/usr/bin/app x-1.1/usr/bin/app
    [ "$status" -eq 0 ]
    # a library gone from the tree: its probes are removed
    rm x-1.1/usr/lib/x86_64-linux-gnu/libq.so.1.1
    run "$SDT_LIST" --diff x-1.0 x-1.1
    [ "$status" -eq 2 ]
    [ "${lines[0]}" = "- usr/lib/x86_64-linux-gnu/libq.so.1.0: libq:push: removed (1 site, 2 arguments: -4 -8)" ]
}

@test "stripped programs and separate debug files carry the same probes" {
    probes_c p -g -Wl,--build-id
    cp p p-stripped
    strip p-stripped
    objcopy --only-keep-debug p p.debug
    # no code in the debug file, the notes all there
    [ "$(readelf -SW p.debug | sed -n 's/.* \.text *\([A-Z]*\) .*/\1/p')" = NOBITS ]
    for f in p-stripped p.debug; do
        run --separate-stderr "$SDT_LIST" --diff p "$f"
        [ "$status" -eq 0 ]
        [ "$output" = "1 file, 3 probes compared: no change" ]
        [ -z "$stderr" ]
    done
    # and the same addresses and build-id
    [ "$("$SDT_LIST" p | cut -f2-)" = "$("$SDT_LIST" p.debug | cut -f2-)" ]
    "$SDT_LIST" --json p >p.json
    "$SDT_LIST" --json p.debug >debug.json
    local id
    id=$(json_get p.json 'j["files"][0]["build_id"]')
    [ "$id" = "$(readelf -n p | sed -n 's/.*Build ID: //p')" ]
    [ "$(json_get debug.json 'j["files"][0]["build_id"]')" = "$id" ]
}

@test "a debug file whose notes stayed in the stripped file says so" {
    probes_c p
    # allocated notes become SHT_NOBITS in the debug file, as every
    # section the stripped file keeps does with eu-strip -f
    objcopy --set-section-flags .note.stapsdt=alloc,readonly,contents p p-alloc
    objcopy --only-keep-debug p-alloc p.debug
    readelf -SW p.debug | grep -q '\.note\.stapsdt *NOBITS'
    local warn="sdt-list: warning: p.debug: its .note.stapsdt section has no contents (SHT_NOBITS): a separate debug file whose notes stayed in the stripped file; read that file"
    run --separate-stderr "$SDT_LIST" p.debug
    [ "$status" -eq 0 ]
    [ -z "$output" ]
    [ "$stderr" = "$warn" ]
    run --separate-stderr "$SDT_LIST" --diff p p.debug
    [ "$status" -eq 2 ]
    [ "$stderr" = "$warn" ]
    [ "${lines[3]}" = "1 file, 3 probes compared: 0 added, 3 removed, 0 changed: incompatible" ]
}

@test "the run-time library's objects in memory compare through /proc/PID/fd and map_files" {
    rt_fixtures
    rt_start one -i 100
    local pid1=$RT_PID path1=$RT_PATH
    rt_start two -i 100
    [[ "$path1" == /proc/$pid1/fd/* ]]
    run --separate-stderr "$SDT_LIST" --diff "$path1" "$RT_PATH"
    [ "$status" -eq 0 ]
    [ "$output" = "1 file, 14 probes compared: no change" ]
    [ -z "$stderr" ]
    # a descriptor that is no file: a clean error
    run --separate-stderr "$SDT_LIST" --diff "$path1" /proc/self/fd/0 </dev/null
    [ "$status" -eq 3 ]
    [ "$stderr" = "sdt-list: error: cannot read '/proc/self/fd/0': not a regular file" ]
    # the libstapsdt API's provider, rtc, is another interface
    rt_start three -c -i 100
    run --separate-stderr "$SDT_LIST" --diff "$path1" "$RT_PATH"
    [ "$status" -eq 2 ]
    [[ "$output" == *"- $RT_PATH: rt:all: removed (1 site, 12 arguments: "* ]]
    [[ "$output" == *"+ $RT_PATH: rtc:"* ]]
    # the mapping of the object, by the name the kernel gives it
    local target range
    target=$(readlink "$path1")
    range=$(awk -v t="${target% (deleted)}" 'index($0, t) { print $1; exit }' "/proc/$pid1/maps")
    [ -n "$range" ]
    [ "$(id -u)" -eq 0 ] || refused "not root: /proc/PID/map_files needs CAP_SYS_ADMIN"
    run --separate-stderr "$SDT_LIST" --diff "/proc/$pid1/map_files/$range" "$path1"
    [ "$status" -eq 0 ]
    [ "$output" = "1 file, 14 probes compared: no change" ]
}

@test "what is not an object, or not whole, is an error of exit status 3 with its message" {
    mkdir w && cd w # bats keeps files of its own in the test's directory
    probes_c p
    local size
    size=$(stat -c %s p)
    head -c 40 p >head40
    head -c $((size - 100)) p >cut
    head -c 2000 p >cut2000
    echo hello >text
    : >empty
    mkfifo fifo
    # a note whose descriptor is said to be 32 KiB long
    cat >badsize.s <<'EOF'
	.section .note.stapsdt,"","note"
	.balign 4
	.4byte 8, 0x7fff, 3
	.asciz "stapsdt"
	.8byte 0, 0, 0
	.asciz "p"
	.asciz "x"
	.asciz ""
	.balign 4
EOF
    gcc -c badsize.s -o badsize.o
    check() {
        run --separate-stderr timeout 10 "$SDT_LIST" --diff "$1" "$2"
        [ "$status" -eq 3 ] || { echo "$1 $2: status $status"; return 1; }
        [ -z "$output" ] || { echo "$1 $2: output $output"; return 1; }
        [ "$stderr" = "sdt-list: error: $3" ] || { echo "$1 $2: $stderr"; return 1; }
    }
    check p head40 "head40: truncated ELF header"
    check cut p "cut: section header table extends past the end of the file"
    check p cut2000 "cut2000: bad section header table"
    check p badsize.o "badsize.o: a note extends past the end of its section"
    check p text "text: not an ELF file, an archive or a libtool object"
    check empty p "empty: not an ELF file, an archive or a libtool object"
    check fifo p "cannot read 'fifo': not a regular file"
    check p /dev/zero "cannot read '/dev/zero': not a regular file"
    check p missing "cannot open 'missing': No such file or directory"
    check . p "'.' is a directory and 'p' is not: compare two files or two directories"
    # the listing says the same, with its own status
    run --separate-stderr "$SDT_LIST" badsize.o
    [ "$status" -eq 1 ]
    [ "$stderr" = "sdt-list: error: badsize.o: a note extends past the end of its section" ]
    [ "$(listing .)" = "$(printf 'badsize.o\nbadsize.s\ncut\ncut2000\nempty\nfifo\nhead40\np\np.c\ntext')" ]
}

@test "trees with FIFOs, links in a loop and links to devices compare without opening them" {
    mkdir -p a/bin b/bin
    probes_c a/bin/app
    cp a/bin/app b/bin/app
    mkfifo b/bin/fifo
    ln -s loop b/bin/loop
    ln -s /nonexistent b/bin/dangling
    ln -s ../.. b/bin/up
    ln -s /dev/zero b/bin/zero
    ln -s app b/bin/app-link
    run --separate-stderr timeout 10 "$SDT_LIST" --diff a b
    [ "$status" -eq 0 ]
    [ "$output" = "1 file, 3 probes compared: no change" ]
    [ -z "$stderr" ]
    # a tree nested beyond any real one is refused, not walked forever
    mkdir deep
    (cd deep && for i in $(seq 70); do mkdir d && cd d; done)
    run --separate-stderr timeout 10 "$SDT_LIST" --diff deep deep
    [ "$status" -eq 3 ]
    [ -z "$output" ]
    [[ "$stderr" == "sdt-list: error: deep/d/d/"*"/d: directories nested more than 64 deep"* ]]
}

@test "usage errors of --diff exit 3, as every error of --diff does" {
    probes_c p
    local usage="Usage: sdt-list [--check | --json] [--provider PATTERN] [--ignore-probe PATTERN] FILE..."
    local args
    for args in "--diff p" "--diff p p p" "--diff --check p p" "--diff --bogus p p" "--diff p p --provider"; do
        run --separate-stderr "$SDT_LIST" $args
        [ "$status" -eq 3 ] || { echo "$args: status $status"; return 1; }
        [ -z "$output" ]
        [[ "$stderr" == *"$usage"* ]]
    done
    # the options of --diff alone are usage errors of the listing (2)
    run --separate-stderr "$SDT_LIST" --ignore-sites p
    [ "$status" -eq 2 ]
    [[ "$stderr" == "sdt-list: --ignore-sites, --sites-compatible and --quiet go with --diff"* ]]
    run --separate-stderr "$SDT_LIST" --check --json p
    [ "$status" -eq 2 ]
    # a file named --diff, after --, is a file
    run --separate-stderr "$SDT_LIST" -- --diff
    [ "$status" -eq 1 ]
    [ "$stderr" = "sdt-list: error: cannot open '--diff': No such file or directory" ]
}

@test "the CI one-liner of README passes on additions and fails on a removal" {
    local line
    line=$(sed -n 's/^ *\(sdt-list --diff old\/app new\/app || \[ \$? -eq 1 \]\)$/\1/p' "$ROOT/README.md")
    [ -n "$line" ]
    mkdir old new
    probes_c old/app
    sed 's/DTRACE_PROBE1(srv, done, sum);/&\n    DTRACE_PROBE(srv, extra);/' p.c >q.c
    gcc -O2 -I "$INCLUDE" q.c -o new/app
    PATH="$(dirname "$SDT_LIST"):$PATH" bash -c "$line"
    sed 's/DTRACE_PROBE1(srv, done, sum);//' p.c >r.c
    gcc -O2 -I "$INCLUDE" r.c -o new/app
    run env PATH="$(dirname "$SDT_LIST"):$PATH" bash -c "$line"
    [ "$status" -ne 0 ]
    [ "${lines[0]}" = "- new/app: srv:done: removed (1 site, 1 argument: -8)" ]
}
