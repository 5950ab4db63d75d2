#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Diagnostics as a compiler writes them: the message first (FILE:LINE:COL:
# KIND: TEXT, what scripts match), then the source line and a caret under
# the column; colour on a terminal only; compatibility warnings; hints.
# A test whose body is `dtrace_case` is an input and its expected
# diagnostics, kept as data in tests/cases/dtrace-diagnostics/ (see
# dtrace-helpers.bash).

load dtrace-helpers

# h FILE ARGS...: dtrace -h on FILE into out.h, stderr kept apart.
h() {
    run --separate-stderr "$DTRACE" -h -s "$1" -o out.h "${@:2}"
}

# expect_stderr LINE...: stderr is exactly these lines.
expect_stderr() {
    local want
    want="$(printf '%s\n' "$@")"
    if [ "$stderr" != "$want" ]; then
        echo "expected:"; printf '%s\n' "$want"
        echo "got:"; printf '%s\n' "$stderr"
        return 1
    fi
}

@test "an error shows its source line and a caret under the column" { dtrace_case; }
@test "tabs are expanded on both lines so the caret stays under its character" { dtrace_case; }
@test "after -C the line shown is the original file's, not cpp's output" { dtrace_case; }
@test "an error in an #included file shows that file's line" { dtrace_case; }

@test "a #line marker naming a FIFO or a device is never opened to show a line" {
    mkfifo fifo
    printf '#line 1 "fifo"\nprovider p { probe a() junk; };\n' >f.d
    run --separate-stderr timeout 10 "$DTRACE" -h -s f.d -o out.h
    [ "$status" -eq 1 ]
    expect_stderr "fifo:1:24: error: expected ';' after the declaration of probe 'a', found 'junk'"
    printf '#line 1 "/dev/zero"\nprovider p { probe a() junk; };\n' >z.d
    run --separate-stderr timeout 10 "$DTRACE" -h -s z.d -o out.h
    [ "$status" -eq 1 ]
    expect_stderr "/dev/zero:1:24: error: expected ';' after the declaration of probe 'a', found 'junk'"
}

@test "a line of 10,000 characters is trimmed around the column" { dtrace_case; }
@test "the part of a long line after the window is trimmed too" { dtrace_case; }

@test "a 100 MB single-line file: the diagnostic stays bounded and quick" {
    { printf 'provider p { probe a() '; head -c 100000000 /dev/zero | tr '\0' ' '; printf '@ };'; } >big.d
    local before after
    cpu_ms before
    h big.d
    cpu_ms after
    [ "$status" -eq 1 ]
    [ $((after - before)) -lt 20000 ] || { echo "CPU $((after - before)) ms"; false; }
    [ "${stderr%%$'\n'*}" = "big.d:1:100000024: error: expected ';' after the declaration of probe 'a', found '@'" ]
    [ "$(wc -c <<<"$stderr")" -lt 400 ]
    [[ "$stderr" == *$'\n    1 | ...'*'@ };'$'\n      | '*'^' ]]
}

@test "binary bytes show as '?', valid UTF-8 as itself, alignment kept" { dtrace_case; }
@test "CR LF lines show without the CR" { dtrace_case; }
@test "an error at the end of the file shows no line it does not have" { dtrace_case; }

@test "colour on a terminal: bold position, red error, green caret" {
    need_cmd script
    printf 'provider p { probe a() junk; };\n' >bad.d
    run script -qec "'$DTRACE' -h -s bad.d -o out.h" /dev/null
    [ "$status" -eq 1 ]
    [[ "$output" == *$'\e[01mbad.d:1:24:\e[m \e[01;31merror:\e[m expected'* ]]
    [[ "$output" == *$'\e[01;32m^\e[m'* ]]
}

@test "no colour on a terminal with NO_COLOR set, nor when stderr is not one" {
    need_cmd script
    printf 'provider p { probe a() junk; };\n' >bad.d
    run env NO_COLOR=1 script -qec "'$DTRACE' -h -s bad.d -o out.h" /dev/null
    [ "$status" -eq 1 ]
    [[ "$output" == *"bad.d:1:24: error: expected"* ]]
    [[ "$output" != *$'\e['* ]]
    h bad.d
    [[ "$stderr" != *$'\e['* ]]
}

@test "a missing ';' after a probe declaration is a warning at its place; the build works" {
    printf 'provider p {\n    probe a()\n    probe b(int x)\n};\n' >semi.d
    h semi.d
    [ "$status" -eq 0 ]
    expect_stderr \
        "semi.d:2:14: warning: missing ';' after the declaration of probe 'a' (accepted for compatibility; DTrace requires it)" \
        "    2 |     probe a()" \
        "      |              ^" \
        "semi.d:3:19: warning: missing ';' after the declaration of probe 'b' (accepted for compatibility; DTrace requires it)" \
        "    3 |     probe b(int x)" \
        "      |                   ^"
    grep -q 'define P_A()' out.h
    grep -q 'define P_B(' out.h
}

@test "-G accepts the same file with the same warning and exit status 0" {
    printf 'provider p {\n    probe a()\n};\n' >semi.d
    run --separate-stderr "$DTRACE" -G -s semi.d -o semi.o
    [ "$status" -eq 0 ]
    [ "${stderr%%$'\n'*}" = "semi.d:2:14: warning: missing ';' after the declaration of probe 'a' (accepted for compatibility; DTrace requires it)" ]
    [ -s semi.o ]
}

@test "a provider's '}' without its ';' is a warning at its place, -h and -G; the build works" {
    # DTrace's grammar ends a provider with "};"; sssd's file has "}" alone
    printf 'provider p {\n\tprobe a();\n}\nprovider q { probe b(int); };\nprovider r { probe c(); }' >close.d
    h close.d
    [ "$status" -eq 0 ]
    expect_stderr \
        "close.d:3:2: warning: missing ';' after the closing '}' of provider 'p' (accepted for compatibility; DTrace requires it)" \
        "    3 | }" \
        "      |  ^" \
        "close.d:5:26: warning: missing ';' after the closing '}' of provider 'r' (accepted for compatibility; DTrace requires it)" \
        "    5 | provider r { probe c(); }" \
        "      |                          ^"
    grep -q 'define P_A()' out.h
    grep -q 'define Q_B(' out.h
    grep -q 'define R_C()' out.h
    run --separate-stderr "$DTRACE" -G -s close.d -o close.o
    [ "$status" -eq 0 ]
    [ "$(grep -c "warning: missing ';' after the closing '}'" <<<"$stderr")" = 2 ]
    [ -s close.o ]
}

@test "a well-formed file gives no diagnostic at all" {
    small_provider prov.d
    h prov.d
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
}

@test "'prob' inside a provider: did you mean 'probe'?" { dtrace_case; }
@test "a word far from 'probe' gets no hint" { dtrace_case; }
@test "'provder p {' is an error with a hint, not a file silently without probes" { dtrace_case; }
@test "'struct provdier {' stays a C definition" { dtrace_case; }
@test "a misspelt type keyword is a warning with a hint; names, tags and typedefs are not" { dtrace_case; }

@test "an option close to a known one: did you mean it?" {
    run --separate-stderr "$DTRACE" --verison
    [ "$status" -eq 2 ]
    [ "${stderr%%$'\n'*}" = "dtrace: unknown option '--verison'; did you mean '--version'?" ]
    run --separate-stderr "$DTRACE" -H -s x.d
    [ "$status" -eq 2 ]
    [ "${stderr%%$'\n'*}" = "dtrace: unknown option '-H'; did you mean '-h'?" ]
    run --separate-stderr "$DTRACE" --no-pyprasing -h -s x.d
    [ "$status" -eq 2 ]
    [ "${stderr%%$'\n'*}" = "dtrace: unknown option '--no-pyprasing'; did you mean '--no-pyparsing'?" ]
}

@test "an option far from every known one gets no hint" {
    run --separate-stderr "$DTRACE" --frobnicate
    [ "$status" -eq 2 ]
    [ "${stderr%%$'\n'*}" = "dtrace: unknown option '--frobnicate'" ]
}

@test "the diagnostics docs/compatibility.md shows are what dtrace prints" {
    printf 'provider jobq {\n    probe start(int id, const char *name);\n    prob done(int id, long result);\n};\n' >probes.d
    h probes.d
    [ "$status" -eq 1 ]
    grep -qxF -- "$(sed -n 1p <<<"$stderr")" "$ROOT/docs/compatibility.md"
    grep -qxF -- "$(sed -n 2p <<<"$stderr")" "$ROOT/docs/compatibility.md"
    printf 'provider p {\n    probe start(int id, char *s)\n};\n' >old.d
    h old.d
    [ "$status" -eq 0 ]
    local line
    while IFS= read -r line; do
        grep -qxF -- "$line" "$ROOT/docs/compatibility.md" || { echo "not in docs/compatibility.md: $line"; false; }
    done <<<"$stderr"
}

@test "20,000 duplicates, each with a note pointing back: every line shown, no quadratic read" {
    { echo 'provider p {'; repeat 20000 '    probe a(int x);\n'; echo '};'; } >dup.d
    local before after
    cpu_ms before
    h dup.d
    cpu_ms after
    [ "$status" -eq 1 ]
    [ $((after - before)) -lt 10000 ] || { echo "CPU $((after - before)) ms"; false; }
    [ "$(grep -c '^dup.d:[0-9]*:11: error: duplicate probe' <<<"$stderr")" -eq 19999 ]
    [ "$(grep -c '^    2 |     probe a(int x);$' <<<"$stderr")" -eq 19999 ]
    [[ "$stderr" == *$'dup.d:20001:11: error: duplicate probe \'a\' in provider \'p\'\n 20001 |     probe a(int x);\n       |           ^\n'* ]]
}

# The runs of the 200,000-duplicate test below on a line ten times
# shorter, which still reads the 256 MB the lines shown may take, are
# what every pass checks (the sanitizers, musl); the long line adds the
# CPU bound, in the first pass only (under ASan: 8 s of CPU).
@test "20,000 duplicates on one line: the first show it, trimmed; after 256 MB read, the rest do not" {
    { printf 'provider p {'; repeat 20000 ' probe a(int x);'; printf '};\n'; } >dup.d
    # its 2.5 MB of messages in a file, not in bats' $stderr
    local status=0
    "$DTRACE" -h -s dup.d -o out.h >out 2>err || status=$?
    [ "$status" -eq 1 ]
    [ ! -s out ]
    [ "$(grep -c "^dup.d:1:[0-9]*: error: duplicate probe 'a' in provider 'p'$" err)" -eq 19999 ]
    [ "$(grep -c "^dup.d:1:20: note: 'a' was first declared here$" err)" -eq 19999 ]
    [[ "$(sed -n 2p err)" == "    1 | provider p { probe a(int x); probe a(int x);"*"..." ]]
    # each line shown is about 320 kB read: some hundreds, not all 39,998
    shown=$(grep -c '^    1 | provider p {' err)
    [ "$shown" -ge 100 ] && [ "$shown" -lt 39998 ] || { echo "$shown lines shown"; false; }
    [ "$(tail -2 err)" = "dup.d:1:320004: error: duplicate probe 'a' in provider 'p'
dup.d:1:20: note: 'a' was first declared here" ]
    [ ! -e out.h ]
}

# bats test_tags=normal-pass-only
@test "200,000 duplicates on one 3 MB line: bounded reading, the messages all there" {
    { printf 'provider p {'; repeat 200000 ' probe a(int x);'; printf '};\n'; } >dup.d
    local before after
    cpu_ms before
    run --separate-stderr "$DTRACE" -h -s dup.d -o out.h
    cpu_ms after
    [ "$status" -eq 1 ]
    [ $((after - before)) -lt 20000 ] || { echo "CPU $((after - before)) ms"; false; }
    [ "$(grep -c "^dup.d:1:[0-9]*: error: duplicate probe 'a'" <<<"$stderr")" -eq 199999 ]
    # the first ones show their line; once 256 MB were read, the rest do not
    [[ "$(sed -n 2p <<<"$stderr")" == "    1 | provider p { probe a(int x); probe a(int x);"*"..." ]]
    [ "$(tail -1 <<<"$stderr")" = "dup.d:1:20: note: 'a' was first declared here" ]
}

@test "every case in tests/cases/dtrace-diagnostics is run by a test of this file" { every_case_has_its_test; }
