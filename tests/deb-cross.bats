#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Cross builds with Debian's cross toolchains: sdtkit's packages for arm64
# and s390x (make check's, dpkg-buildpackage -a ARCH in a testbed), every
# ELF file of that architecture, run under qemu-user; and minipg
# (tests/deb-probe-user), which build-depends on systemtap-sdt-dev as
# PostgreSQL does, cross-built for arm64 here, each build in a testbed of
# its own, with sdtkit's packages and with SystemTap's: the same probes,
# which gdb-multiarch reads under qemu-user.
# bats file_tags=release

load helpers
load package-helpers

# CROSS: each architecture's Debian name, and its name in arches.table.
declare -gA CROSS=([arm64]=aarch64 [s390x]=s390x)

# minipg_source DIR: minipg's source tree: provider-examples/postgres-style,
# tests/deb-probe-user/debian, debian/copyright, and two files made here.
minipg_source() {
    mkdir -p "$1/debian/source"
    cp "$ROOT"/provider-examples/postgres-style/* "$1/"
    cp -r "$ROOT"/tests/deb-probe-user/debian/* "$1/debian/"
    cp "$ROOT/debian/copyright" "$1/debian/"
    echo '3.0 (native)' >"$1/debian/source/format"
    printf '%s\n' 'minipg (1.0) unstable; urgency=medium' '' '  * A test package of sdtkit.' '' \
        ' -- sdtkit maintainers <maintainers@users.noreply.a-seed-4d1ceed1.example>  Fri, 27 Nov 2026 18:00:00 +0000' \
        >"$1/debian/changelog"
}

# minipg_build WITH: minipg cross-built for arm64 in $W/WITH (its testbed
# ./tb), the build dependency met by sdtkit (sdtkit:arm64, this machine's
# sdtkit-tools) or systemtap (systemtap-sdt-dev:arm64).  Beside the
# packages: deps-before, deps-after (dpkg-checkbuilddeps' output and
# status), header (the <sys/sdt.h> read, its package), dtrace (its package).
minipg_build() {
    local d=$W/$1 s
    mkdir -p "$d"
    minipg_source "$d/minipg-1.0"
    # shellcheck disable=SC2016
    s='cd "$0/minipg-1.0"
deps() { dpkg-checkbuilddeps -a arm64 >"$0/$1" 2>&1; echo "status $?" >>"$0/$1"; }
deps deps-before
apt-get install -y -q "$@"
deps deps-after
DEB_BUILD_OPTIONS=nocheck dpkg-buildpackage -a arm64 -Pcross,nocheck -us -uc -b || exit
h=$(aarch64-linux-gnu-gcc -fno-canonical-system-headers -M -I. main.c | tr " \\\\" "\n\n" | grep "/sys/sdt\.h$")
echo "$h $(dpkg-query -S "$h" | cut -d: -f1-2)" >"$0/header"
dpkg-query -S /usr/bin/dtrace >"$0/dtrace"'
    case $1 in
        sdtkit) testbed "$d/tb" sh -c "$s" "$d" "$(deb "$NATIVE" sdtkit-tools)" "$(deb arm64 sdtkit)" ;;
        systemtap) testbed "$d/tb" sh -c "$s" "$d" systemtap-sdt-dev:arm64 ;;
    esac
}

setup_file() {
    export VERSION W
    VERSION=$(cat "$ROOT/VERSION")
    W=$BATS_FILE_TMPDIR
    [ -f "$ROOT/build/testbed/ok" ] && need_debs "$NATIVE" arm64 >/dev/null || return 0
    minipg_build sdtkit >"$W/sdtkit.log" 2>&1
    minipg_build systemtap >"$W/systemtap.log" 2>&1 || true
}

setup() {
    need_deb_tools
    need_testbed
    need_debs "$NATIVE" arm64 s390x
}

@test "dpkg-buildpackage -a arm64 and -a s390x build the five packages of that architecture, every ELF file in them its own" {
    local a p x n
    for a in arm64 s390x; do
        x=$BATS_TEST_TMPDIR/$a
        for p in $DEB_PACKAGES; do
            [ -f "$(deb "$a" "$p")" ] || { ls "$ROOT/build/deb/$a"; false; }
            [ "$(dpkg-deb -f "$(deb "$a" "$p")" Architecture)" = "$a" ]
            # the same relationships as the native build's
            [ "$(dpkg-deb -f "$(deb "$a" "$p")" Multi-Arch Depends Provides Conflicts Breaks Replaces)" = \
              "$(dpkg-deb -f "$(deb "$NATIVE" "$p")" Multi-Arch Depends Provides Conflicts Breaks Replaces)" ]
        done
        # the dbgsym packages too: every file of every package
        for p in "$ROOT/build/deb/$a"/*.deb; do dpkg-deb -x "$p" "$x"; done
        elf_headers "$x" >headers
        # the programs, the libraries, the archives' members, the debug files
        n=$(wc -l <headers)
        [ "$n" -ge 8 ] || { cat headers; false; }
        ! awk -F '\t' -v want="$(arch_field "${CROSS[$a]}" class) $(arch_field "${CROSS[$a]}" data) $(arch_field "${CROSS[$a]}" machine)" \
            '$2 != want { print "not " want ": " $0; bad = 1 } END { exit !bad }' headers || false
        grep -q "/usr/bin/dtrace	" headers
        grep -q "/libsdtkit\.a(libsdtkit\.o)	" headers
        # the C library of the architecture, as dpkg-shlibdeps finds it
        [[ "$(dpkg-deb -f "$(deb "$a" libsdtkit1)" Depends)" == "libc6 (>= "*")" ]]
    done
}

# on ARCH CMD...: CMD, a program of ARCH (arches.table's name), under qemu-user.
on() {
    local a=$1
    shift
    "$(arch_field "$a" qemu)" -L "/usr/$(arch_triple "$a")" "$@"
}

@test "under qemu-user, the arm64 and s390x dtrace -h/-G make a probed program that their sdt-list lists and checks, and their run-time libraries load probes" {
    local a t x cc p
    for a in arm64 s390x; do
        t=${CROSS[$a]}
        need_arch "$t"
        need_cmd "$(arch_field "$t" qemu)"
        x=$PWD/$a
        mkdir "$a" && cd "$a"
        for p in $DEB_PACKAGES; do dpkg-deb -x "$(deb "$a" "$p")" "$x"; done
        cc=$(arch_gcc "$t")
        [ "$(on "$t" "$x/usr/bin/dtrace" --version)" = "dtrace (sdtkit) $VERSION" ]
        printf 'provider app {\n  probe start(int, char *);\n};\n' >app.d
        on "$t" "$x/usr/bin/dtrace" -h -s app.d -o app.h
        printf '#include "app.h"\nint main(int c, char **v) { if (APP_START_ENABLED()) APP_START(c, v[0]); APP_START(c, v[0]); return 0; }\n' >app.c
        "$cc" -O2 -Wall -Werror -I "$x/usr/include" -c app.c -o app.o
        on "$t" "$x/usr/bin/dtrace" -G -s app.d -o app-probes.o app.o
        "$cc" app.o app-probes.o -o app
        on "$t" ./app
        on "$t" "$x/usr/bin/sdt-list" --check app >listed
        [ "$(cut -f2,3 listed | sort -u)" = "app	start" ]
        [ "$(wc -l <listed)" -eq 2 ]
        [ "$(note_field app app:start Semaphore)" != 0x0000000000000000 ]
        # the run-time libraries, both APIs, the loaded object checked
        local L=$x/usr/lib/$(arch_triple "$t")
        "$cc" -std=c11 -Wall -Werror -I "$x/usr/include" "$ROOT/tests/release/rt-user.c" \
            "$L/libsdtkit.so.1" -o native
        "$cc" -std=c11 -Wall -Werror -DSTAPSDT -I "$x/usr/include" "$ROOT/tests/release/rt-user.c" \
            "$L/libstapsdt.so.0" -o compat
        [ "$(LD_LIBRARY_PATH="$L" on "$t" ./native loaded.so)" = "fired 42 hello" ]
        [ "$(LD_LIBRARY_PATH="$L" on "$t" ./compat)" = "fired 42 hello" ]
        on "$t" "$x/usr/bin/sdt-list" --check loaded.so >loaded
        [ "$(cut -f2,3 loaded)" = "release	tick" ]
        elf_headers loaded.so | grep -q "	.* $(arch_field "$t" machine)\$"
        cd ..
    done
}

@test "minipg's cross build for arm64 takes systemtap-sdt-dev from sdtkit:arm64 and the build machine's sdtkit-tools" {
    [ -f "$W/sdtkit/minipg_1.0_arm64.deb" ] || { tail -n 40 "$W/sdtkit.log"; false; }
    # before: unmet; the host architecture's package is wanted
    grep -q 'Unmet build dependencies: systemtap-sdt-dev' "$W/sdtkit/deps-before"
    grep -qx 'status 1' "$W/sdtkit/deps-before"
    grep -qx 'status 0' "$W/sdtkit/deps-after"
    # the header of sdtkit:arm64 (through the multiarch link or
    # /usr/include/sys), the tools of the build machine
    grep -Eqx '/usr/include/(aarch64-linux-gnu/)?sys/sdt\.h sdtkit:arm64' "$W/sdtkit/header"
    grep -qx 'sdtkit-tools: /usr/bin/dtrace' "$W/sdtkit/dtrace"
    head -1 "$W/sdtkit/minipg-1.0/probes.h" | grep -q "sdtkit's dtrace -h"
    # the probes' object was written by dtrace -G, for arm64, with no compiler
    elf_headers "$W/sdtkit/minipg-1.0/probes.o" | grep -q '	ELF64 little AArch64$'
    ! readelf -p .comment "$W/sdtkit/minipg-1.0/probes.o" 2>/dev/null | grep -q GCC || false
    dpkg-deb -x "$W/sdtkit/minipg_1.0_arm64.deb" x
    elf_headers x/usr/bin/minipg | grep -q '	ELF64 little AArch64$'
}

@test "with sdtkit's packages installed for an arm64 cross build, a configure that looks only for aarch64-linux-gnu-dtrace, as Ruby's does, builds a probed arm64 program" {
    [ -f "$W/sdtkit/minipg_1.0_arm64.deb" ] || { tail -n 40 "$W/sdtkit.log"; false; }
    need_cmd autoconf
    mkdir found given
    cp "$ROOT"/tests/autoconf/* found/
    cp "$ROOT"/tests/autoconf/* given/
    # in minipg's testbed (sdtkit-tools and sdtkit:arm64 installed), as
    # dpkg-buildpackage -a arm64 runs a build: DEB_HOST_GNU_TYPE exported,
    # no CC; found: configure finds aarch64-linux-gnu-dtrace; given:
    # DTRACE=dtrace, as a user would work around its absence
    # shellcheck disable=SC2016
    testbed "$W/sdtkit/tb" sh -c 'for d in found given; do
        cd "$0/$d" && autoconf || exit
        v=; [ $d = found ] || v=DTRACE=dtrace
        dpkg-architecture -a arm64 -c ./configure --build=x86_64-linux-gnu --host=aarch64-linux-gnu $v \
            >configure.out 2>&1 || { cat configure.out config.log; exit 1; }
        dpkg-architecture -a arm64 -c make >make.out 2>&1 || { cat make.out; exit 1; }
        dpkg-query -S "$(command -v aarch64-linux-gnu-dtrace)" >package
    done' "$PWD"
    grep -qx 'checking for aarch64-linux-gnu-dtrace... aarch64-linux-gnu-dtrace' found/configure.out
    grep -qx 'checking for aarch64-linux-gnu-dtrace... dtrace' given/configure.out
    grep -qx 'sdtkit-tools: /usr/bin/aarch64-linux-gnu-dtrace' found/package
    local d
    for d in found given; do
        grep -qx 'checking whether dtrace USDT is available... yes' "$d/configure.out"
        elf_headers "$d/probes.o" | grep -q '	ELF64 little AArch64$'
        elf_headers "$d/probed" | grep -q '	ELF64 little AArch64$'
        "$SDT_LIST" --check "$d/probed" >/dev/null
        [ "$("$SDT_LIST" "$d/probed" | cut -f3 | sort | xargs)" = "start stop" ]
        [ "$(note_field "$d/probed" probed:start Semaphore)" != 0x0000000000000000 ]
    done
}

# PROBES: minipg's probes and their arguments' sizes (probes.d).
PROBES='postgresql:buffer__read__done 4 4 -4 1
postgresql:buffer__read__start 4 4 -4
postgresql:query__done 8
postgresql:query__start 8
postgresql:transaction__commit 4
postgresql:transaction__start 4'

@test "minipg cross-built with SystemTap's systemtap-sdt-dev:arm64 has the same probes: sdt-list --diff, argument sizes, semaphores" {
    [ -f "$W/systemtap/minipg_1.0_arm64.deb" ] || { tail -n 40 "$W/systemtap.log"; false; }
    grep -qx 'status 1' "$W/systemtap/deps-before"
    grep -qx 'status 0' "$W/systemtap/deps-after"
    grep -qx '/usr/include/aarch64-linux-gnu/sys/sdt.h systemtap-sdt-dev:arm64' "$W/systemtap/header"
    grep -q 'systemtap-sdt-dev:arm64' "$W/systemtap/dtrace"
    head -1 "$W/systemtap/minipg-1.0/probes.h" | grep -q Systemtap
    local w
    for w in sdtkit systemtap; do
        dpkg-deb -x "$W/$w/minipg_1.0_arm64.deb" "$w"
        # each probe once, with its arguments' sizes; a semaphore each
        [ "$(note_sizes "$w/usr/bin/minipg" | sort)" = "$PROBES" ]
        note_probes "$w/usr/bin/minipg" | cut -f1 >probes
        while read -r p; do
            [ "$(note_field "$w/usr/bin/minipg" "$p" Semaphore)" != 0x0000000000000000 ] ||
                { echo "$w: $p has no semaphore"; false; }
        done <probes
    done
    # and sdt-list compares the two as a user of the probes would
    run "$SDT_LIST" --diff systemtap sdtkit
    echo "$output"
    [ "$status" -eq 0 ]
    [ "$output" = "1 file, 6 probes compared: no change" ]
}

# gdb_minipg WITH: minipg of WITH's build run by qemu-user with query "ab",
# every probe read by gdb-multiarch: its lines, then the program's.
gdb_minipg() {
    local p
    dpkg-deb -x "$W/$1/minipg_1.0_arm64.deb" "$1"
    cp "$ROOT/tests/gdb-probe-args.py" "$1.py"
    for p in $(cut -d' ' -f1 <<<"$PROBES"); do echo "ProbeArgs('-probe-stap $p')" >>"$1.py"; done
    qemu_gdb_start qemu-aarch64 -L /usr/aarch64-linux-gnu "$1/usr/bin/minipg" ab >"$1.out" || return
    timeout "$HANG_SECONDS" gdb-multiarch -batch -nx -ex 'set pagination off' "${GDB_LEAN[@]}" \
        -ex 'set sysroot /usr/aarch64-linux-gnu' -ex "file $1/usr/bin/minipg" \
        -ex "target remote :$QEMU_PORT" -ex "source $1.py" -ex continue 2>&1 |
        grep -E '^[a-z_]+ (hit|arg(c|[0-9]+) )'
    qemu_reap "$QEMU_PID"
    cat "$1.out"
}

@test "gdb-multiarch reads minipg's probes under qemu-user, the semaphore-guarded ones too, alike in both builds" {
    need_gdb_python gdb-multiarch
    need_cmd qemu-aarch64
    local w q
    for w in sdtkit systemtap; do
        [ -f "$W/$w/minipg_1.0_arm64.deb" ] || { tail -n 40 "$W/$w.log"; false; }
        gdb_minipg "$w" >"$w.gdb"
        cat "$w.gdb"
        # the query's address, as the program printed it
        q=$(sed -n 's/^xid 700: query 0x\([0-9a-f]*\) "ab": 2 reads, 0 hits$/\1/p' "$w.gdb")
        [ -n "$q" ]
        [ "$(grep -v '^xid ' "$w.gdb")" = "transaction__start hit
transaction__start arg0 700
query__start hit
query__start arg0 $((16#$q))
buffer__read__start hit
buffer__read__start arg0 1
buffer__read__start arg1 16384
buffer__read__start arg2 0
buffer__read__done hit
buffer__read__done arg0 1
buffer__read__done arg1 16384
buffer__read__done arg2 0
buffer__read__done arg3 0
buffer__read__start hit
buffer__read__start arg0 2
buffer__read__start arg1 16384
buffer__read__start arg2 0
buffer__read__done hit
buffer__read__done arg0 2
buffer__read__done arg1 16384
buffer__read__done arg2 0
buffer__read__done arg3 0
query__done hit
query__done arg0 $((16#$q))
transaction__commit hit
transaction__commit arg0 700" ]
    done
}
