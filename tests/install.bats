#!/usr/bin/env bats
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
    [ -e "$STAGE/usr/local/bin/someone-elses-tool" ]
}
