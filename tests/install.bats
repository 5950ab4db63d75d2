#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make install / make uninstall: what lands where, and that the installed
# header and dtrace work from there.
# bats file_tags=release

load helpers

# The two installs most tests read, made once: PREFIX=/opt/sdt
# (opt_install) and Debian's multiarch LIBDIR (install_runtime).
setup_file() {
    export OPT_STAGE=$BATS_FILE_TMPDIR/opt RT_STAGE=$BATS_FILE_TMPDIR/rt
    {
        make -s -C "$ROOT" install PREFIX=/opt/sdt DESTDIR="$OPT_STAGE" &&
            make -s -C "$ROOT" install PREFIX=/usr LIBDIR=/usr/lib/x86_64-linux-gnu DESTDIR="$RT_STAGE"
    } > "$BATS_FILE_TMPDIR/install.log" 2>&1 || true
}

setup() {
    STAGE=$BATS_TEST_TMPDIR/stage
}

# opt_install: setup_file's make install PREFIX=/opt/sdt; sets STAGE.
opt_install() {
    STAGE=$OPT_STAGE
    [ -x "$STAGE/opt/sdt/bin/dtrace" ] || { cat "$BATS_FILE_TMPDIR/install.log"; false; }
}

@test "make install PREFIX=... DESTDIR=... installs dtrace, the header and the man page" {
    opt_install
    [ -x "$STAGE/opt/sdt/bin/dtrace" ]
    [ -f "$STAGE/opt/sdt/include/sys/sdt.h" ]
    [ -f "$STAGE/opt/sdt/include/sys/sdt-config.h" ]
    cmp "$ROOT/include/sys/sdt-operands.h" "$STAGE/opt/sdt/include/sys/sdt-operands.h"
    # usdt.h is the single generated file, which includes no other
    cmp "$ROOT/build/usdt.h" "$STAGE/opt/sdt/include/usdt.h"
    ! grep -qE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$STAGE/opt/sdt/include/usdt.h" || false
    [ -f "$STAGE/opt/sdt/share/man/man1/dtrace.1" ]
    cmp "$ROOT/include/sys/sdt.h" "$STAGE/opt/sdt/include/sys/sdt.h"
    # the installed pieces work together through an ordinary include path
    printf 'provider app { probe start(int); };\n' > app.d
    "$STAGE/opt/sdt/bin/dtrace" -h -s app.d -o app.h
    "$STAGE/opt/sdt/bin/dtrace" -G -s app.d -o app_probes.o
    printf '#include "app.h"\nint main (int c, char **v) { (void) v; if (APP_START_ENABLED ()) APP_START (c); APP_START (c); return 0; }\n' > app.c
    gcc -O2 -Wall -Wextra -Werror -I "$STAGE/opt/sdt/include" app.c app_probes.o -o app
    ./app
    [ "$(note_probes app | cut -f1 | sort -u)" = "app:start" ]
    man -l "$STAGE/opt/sdt/share/man/man1/dtrace.1" > /dev/null 2>&1 || true
}

@test "make install installs dtrace as TRIPLET-dtrace for each of the 18 targets, with its man page, and each writes its target's objects" {
    opt_install
    local bin=$STAGE/opt/sdt/bin man=$STAGE/opt/sdt/share/man/man1 arch t
    # exactly the table's triplets, links to dtrace and to dtrace.1
    [ "$(cd "$bin" && ls -- *-dtrace | LC_ALL=C sort)" = "$(for arch in $ALL_ARCHES; do echo "$(arch_triple "$arch")-dtrace"; done | LC_ALL=C sort)" ]
    [ "$(cd "$man" && ls -- *-dtrace.1 | wc -l)" -eq 18 ]
    printf 'provider app { probe start(int); };\n' > app.d
    for arch in $ALL_ARCHES; do
        t=$(arch_triple "$arch")
        [ "$(readlink "$bin/$t-dtrace")" = dtrace ]
        [ "$(readlink "$man/$t-dtrace.1")" = dtrace.1 ]
        "$bin/$t-dtrace" -G -s app.d -o "$arch.o"
        [ "$(readelf -h "$arch.o" | sed -n 's/^ *Machine: *//p')" = "$(arch_field "$arch" machine)" ]
    done
}

@test "make uninstall removes exactly what make install put there" {
    make -s -C "$ROOT" install PREFIX=/usr/local DESTDIR="$STAGE" > /dev/null
    [ -e "$STAGE/usr/local/lib/libsdtkit.so" ]
    touch "$STAGE/usr/local/bin/someone-elses-tool" "$STAGE/usr/local/lib/libother.so"
    make -s -C "$ROOT" uninstall PREFIX=/usr/local DESTDIR="$STAGE" > /dev/null
    # every file and link is gone, but the two that were not ours
    [ "$(cd "$STAGE" && find . ! -type d | sort)" = "./usr/local/bin/someone-elses-tool
./usr/local/lib/libother.so" ]
}

# probed_build PKG_CONFIG_ENV...: a probed program built and run, the header
# and dtrace found through pkg-config alone.
probed_build() {
    local dtrace cflags
    dtrace="$(env "$@" pkg-config --variable=dtrace sdtkit)"
    cflags="$(env "$@" pkg-config --cflags sdtkit)"
    [ -x "$dtrace" ]
    printf 'provider app { probe start(int); };\n' > app.d
    "$dtrace" -h -s app.d -o app.h
    printf '#include "app.h"\nint main (int c, char **v) { (void) v; if (APP_START_ENABLED ()) APP_START (c); return 0; }\n' > app.c
    gcc -O2 -Wall -Werror $cflags -c app.c -o app.o
    "$dtrace" -G -s app.d -o app_probes.o app.o
    gcc app.o app_probes.o -o app
    ./app
    [ "$(note_probes app | cut -f1 | sort -u)" = "app:start" ]
}

@test "make install puts sdtkit.pc in share/pkgconfig: Cflags, the dtrace path, the version" {
    need_cmd pkg-config
    opt_install
    local pc="$STAGE/opt/sdt/share/pkgconfig/sdtkit.pc"
    [ -f "$pc" ]
    [ "$(stat -c %a "$pc")" = 644 ]
    export PKG_CONFIG_PATH="$STAGE/opt/sdt/share/pkgconfig"
    [ "$(pkg-config --cflags sdtkit | xargs)" = "-I/opt/sdt/include" ]
    [ "$(pkg-config --variable=dtrace sdtkit)" = "/opt/sdt/bin/dtrace" ]
    local version
    version="$("$STAGE/opt/sdt/bin/dtrace" --version)"
    [ "$(pkg-config --modversion sdtkit)" = "${version##* }" ]
    pkg-config --atleast-version=0.1 sdtkit
}

@test "a DESTDIR install is found through pkg-config with PKG_CONFIG_SYSROOT_DIR" {
    need_cmd pkg-config gcc
    opt_install
    probed_build PKG_CONFIG_PATH="$STAGE/opt/sdt/share/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$STAGE"
}

@test "an install in any PREFIX is found through pkg-config" {
    need_cmd pkg-config gcc
    local prefix="$BATS_TEST_TMPDIR/prefix"
    make -s -C "$ROOT" install PREFIX="$prefix" > /dev/null
    [ "$(PKG_CONFIG_PATH="$prefix/share/pkgconfig" pkg-config --variable=dtrace sdtkit)" = "$prefix/bin/dtrace" ]
    probed_build PKG_CONFIG_PATH="$prefix/share/pkgconfig"
    make -s -C "$ROOT" uninstall PREFIX="$prefix" > /dev/null
    [ ! -e "$prefix/share/pkgconfig/sdtkit.pc" ]
}

@test "--define-variable=prefix moves both paths of sdtkit.pc" {
    need_cmd pkg-config
    opt_install
    export PKG_CONFIG_PATH="$STAGE/opt/sdt/share/pkgconfig"
    [ "$(pkg-config --define-variable=prefix=/elsewhere --variable=dtrace sdtkit)" = "/elsewhere/bin/dtrace" ]
    [ "$(pkg-config --define-variable=prefix=/elsewhere --cflags sdtkit | xargs)" = "-I/elsewhere/include" ]
}

# ---- the run-time libraries ----------------------------------------------

# install_runtime: setup_file's install with Debian's LIBDIR; sets STAGE, LIB.
install_runtime() {
    STAGE=$RT_STAGE
    LIB=$STAGE/usr/lib/x86_64-linux-gnu
    [ -f "$LIB/libsdtkit.so.1.0.0" ] || { cat "$BATS_FILE_TMPDIR/install.log"; false; }
}

# soname FILE: the DT_SONAME of a shared library.
soname() {
    readelf -d "$1" | sed -n 's/.*(SONAME).*\[\(.*\)\]$/\1/p'
}

@test "make install puts each run-time library in LIBDIR as its file, SONAME link and .so link" {
    install_runtime
    # libNAME.so -> libNAME.so.MAJOR -> libNAME.so.MAJOR.0.0, the file, mode 644
    local so major
    for so in libsdtkit.so.1 libstapsdt.so.0; do
        [ "$(readlink "$LIB/${so%.so.*}.so")" = "$so" ]
        [ "$(readlink "$LIB/$so")" = "$so.0.0" ]
        [ -f "$LIB/$so.0.0" ]
        [ ! -L "$LIB/$so.0.0" ]
        [ "$(stat -c %a "$LIB/$so.0.0")" = 644 ]
        [ "$(soname "$LIB/$so.0.0")" = "$so" ]
        cmp "$ROOT/build/$so" "$LIB/$so.0.0"
    done
    # the position-independent archives beside them
    [ "$(stat -c %a "$LIB/libsdtkit.a")" = 644 ]
    [ "$(stat -c %a "$LIB/libstapsdt.a")" = 644 ]
    # the default LIBDIR is PREFIX/lib
    opt_install
    [ -L "$STAGE/opt/sdt/lib/libsdtkit.so" ]
    [ -f "$STAGE/opt/sdt/lib/libstapsdt.a" ]
    [ -f "$STAGE/opt/sdt/lib/pkgconfig/sdtkit-runtime.pc" ]
}

@test "make install puts <sdtkit.h>, <libstapsdt.h> and their man pages, which man reads without a warning" {
    install_runtime
    cmp "$ROOT/include/sdtkit.h" "$STAGE/usr/include/sdtkit.h"
    cmp "$ROOT/include/libstapsdt.h" "$STAGE/usr/include/libstapsdt.h"
    local page
    for page in sdtkit libstapsdt; do
        [ -f "$STAGE/usr/share/man/man3/$page.3" ]
        run env LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$STAGE/usr/share/man/man3/$page.3"
        [ "$status" -eq 0 ]
        [[ "${lines[0]}" == "${page^^}(3)"* ]]
        ! grep -qi warning <<<"$output" || false
    done
    # every function the headers declare has its place in a page
    local f native compat
    native=$(sed -n 's/^[a-z].*[ *]\(sdtkit_[a-z_]*\) *(.*/\1/p' "$ROOT/include/sdtkit.h")
    compat=$(sed -n 's/^[A-Za-z].*[ *]\([a-z][A-Za-z]*\) *(.*/\1/p' "$ROOT/include/libstapsdt.h")
    [ "$(wc -w <<<"$native")" -ge 14 ]
    [ "$(wc -w <<<"$compat")" -eq 8 ]
    for f in $native; do
        grep -q "^\.BI\? .*$f" "$ROOT/man/sdtkit.3" || { echo "sdtkit(3) lacks $f"; false; }
    done
    for f in $compat; do
        grep -q "^\.BI\? .*$f" "$ROOT/man/libstapsdt.3" || { echo "libstapsdt(3) lacks $f"; false; }
    done
}

@test "sdtkit-runtime.pc and libstapsdt.pc build programs whose probes load from the installed libraries" {
    need_cmd pkg-config gcc
    install_runtime
    export PKG_CONFIG_PATH="$LIB/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$STAGE"
    [ "$(pkg-config --modversion sdtkit-runtime)" = "$(cat "$ROOT/VERSION")" ]
    [ "$(pkg-config --libs libstapsdt | xargs)" = "-L$LIB -lstapsdt" ]
    local pc lib so def
    # pkg-config module, library, SONAME, how rt-user.c is built for it
    while read -r pc lib so def; do
        # shared: the program needs the SONAME and loads it from LIBDIR
        gcc -std=c11 -Wall -Wextra -Wpedantic -Werror ${def%-} $(pkg-config --cflags $pc) \
            "$ROOT/tests/release/rt-user.c" $(pkg-config --libs $pc) -o shared-$pc
        readelf -d shared-$pc | grep -q "(NEEDED).*\[$so\]"
        run env LD_LIBRARY_PATH="$LIB" ./shared-$pc obj-$pc
        [ "$output" = "fired 42 hello" ]
        [ "$(note_probes obj-$pc | cut -f1)" = release:tick ]
        # static: the archive, and what --static adds for it
        gcc -std=c11 ${def%-} $(pkg-config --cflags $pc) "$ROOT/tests/release/rt-user.c" \
            "$LIB/lib$lib.a" $(pkg-config --static --libs-only-l $pc | sed "s/-l$lib//") -o static-$pc
        ! readelf -d static-$pc | grep -q "(NEEDED).*lib$lib" || false
        run ./static-$pc
        [ "$output" = "fired 42 hello" ]
    done <<'EOF'
sdtkit-runtime sdtkit  libsdtkit.so.1  -
libstapsdt     stapsdt libstapsdt.so.0 -DSTAPSDT
EOF
}

@test "a binding that loads libstapsdt.so by name, as ctypes does, finds the installed library" {
    need_cmd python3
    install_runtime
    run env LD_LIBRARY_PATH="$LIB" "$PYTHON3" -c '
import ctypes
lib = ctypes.CDLL("libstapsdt.so")
lib.providerInit.restype = ctypes.c_void_p
lib.providerAddProbe.restype = ctypes.c_void_p
p = lib.providerInit(b"pyprov")
probe = lib.providerAddProbe(ctypes.c_void_p(p), b"hit", 1, 8)
print(lib.providerLoad(ctypes.c_void_p(p)), bool(probe))
lib.providerDestroy(ctypes.c_void_p(p))'
    echo "$output"
    [ "$output" = "0 True" ]
}

# man_example PAGE: the program in PAGE's EXAMPLES section, as C.
man_example() {
    sed -n '/^\.SH EXAMPLES/,/^\.SH/p' "$1" | sed -n '/^\.nf/,/^\.fi/p' | sed '1d;$d' |
        sed 's/\\e/\\/g; s/\\-/-/g'
}

@test "the examples of sdtkit(3) and libstapsdt(3) build and run against the installed libraries" {
    install_runtime
    man_example "$ROOT/man/sdtkit.3" > native.c
    man_example "$ROOT/man/libstapsdt.3" > compat.c
    gcc -std=c11 -Wall -Wextra -Werror -I "$STAGE/usr/include" native.c -L "$LIB" -lsdtkit -o native
    gcc -std=c11 -Wall -Wextra -Werror -I "$STAGE/usr/include" compat.c -L "$LIB" -lstapsdt -o compat
    LD_LIBRARY_PATH="$LIB" ./native
    LD_LIBRARY_PATH="$LIB" ./compat
}
