#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make install / make uninstall: what lands where, and that the installed
# header and dtrace work from there.

load helpers

setup() {
    cd "$BATS_TEST_TMPDIR"
    STAGE=$BATS_TEST_TMPDIR/stage
}

@test "make install PREFIX=... DESTDIR=... installs dtrace, the header and the man page" {
    make -s -C "$ROOT" install PREFIX=/opt/sdt DESTDIR="$STAGE" > /dev/null
    [ -x "$STAGE/opt/sdt/bin/dtrace" ]
    [ -f "$STAGE/opt/sdt/include/sys/sdt.h" ]
    [ -f "$STAGE/opt/sdt/include/sys/sdt-config.h" ]
    cmp "$ROOT/include/sys/sdt-operands.h" "$STAGE/opt/sdt/include/sys/sdt-operands.h"
    cmp "$ROOT/include/usdt.h" "$STAGE/opt/sdt/include/usdt.h"
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

@test "make uninstall removes exactly what make install put there" {
    make -s -C "$ROOT" install PREFIX=/usr/local DESTDIR="$STAGE" > /dev/null
    touch "$STAGE/usr/local/bin/someone-elses-tool"
    make -s -C "$ROOT" uninstall PREFIX=/usr/local DESTDIR="$STAGE" > /dev/null
    [ ! -e "$STAGE/usr/local/bin/dtrace" ]
    [ ! -e "$STAGE/usr/local/include/sys/sdt.h" ]
    [ ! -e "$STAGE/usr/local/include/sys/sdt-operands.h" ]
    [ ! -e "$STAGE/usr/local/include/usdt.h" ]
    [ ! -e "$STAGE/usr/local/share/man/man1/dtrace.1" ]
    [ ! -e "$STAGE/usr/local/share/pkgconfig/sdtkit.pc" ]
    [ -e "$STAGE/usr/local/bin/someone-elses-tool" ]
}

# probed_build PKG_CONFIG_ENV...: build and run a probed program the way a
# project would, with the header and dtrace found only through pkg-config.
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
    make -s -C "$ROOT" install PREFIX=/opt/sdt DESTDIR="$STAGE" > /dev/null
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
    make -s -C "$ROOT" install PREFIX=/opt/sdt DESTDIR="$STAGE" > /dev/null
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
    make -s -C "$ROOT" install PREFIX=/opt/sdt DESTDIR="$STAGE" > /dev/null
    export PKG_CONFIG_PATH="$STAGE/opt/sdt/share/pkgconfig"
    [ "$(pkg-config --define-variable=prefix=/elsewhere --variable=dtrace sdtkit)" = "/elsewhere/bin/dtrace" ]
    [ "$(pkg-config --define-variable=prefix=/elsewhere --cflags sdtkit | xargs)" = "-I/elsewhere/include" ]
}
