# SPDX-License-Identifier: MIT
# Helpers of the sdt-list suites (tests/sdt-list*.bats): hand-written notes,
# builds of a probed program, and the cases of sdt-list --diff as data.

load dtrace-helpers

# note FILE.s PROVIDER NAME ARGS [namesz-name] [type] [section-flags] [addr-size]
# A hand-written .note.stapsdt note, to break one rule at a time.
note() {
    local out="$1" prov="$2" name="$3" args="$4"
    local nm="${5:-.asciz \"stapsdt\"}" type="${6:-3}" flags="${7:-}" addr="${8:-.8byte}"
    cat >"$out" <<EOF
	.section .note.stapsdt,"$flags","note"
	.balign 4
	.4byte 992f-991f, 994f-993f, $type
991:	$nm
992:	.balign 4
993:	$addr 0, 0, 0
	.asciz "$prov"
	.asciz "$name"
	.asciz "$args"
994:	.balign 4
EOF
}

# build_side DIR SIDE [CC]: the program DIR/SIDE from DIR/SIDE.c, compiled
# with $CC (default gcc) -O2 and the flags of DIR/cflags and DIR/SIDE.cflags
# if any, against our header; when DIR/SIDE.d exists, through dtrace -h (as
# probes.h) and dtrace -G, the way a real build gets its semaphores.
build_side() {
    local dir=$1 side=$2 cc=${3:-gcc} flags=() more=() objs
    [ ! -f "$dir/cflags" ] || read -r -a flags <"$dir/cflags"
    [ ! -f "$dir/$side.cflags" ] || read -r -a more <"$dir/$side.cflags"
    flags+=("${more[@]}")
    (
        cd "$dir" || exit 1
        objs=("$side.o")
        if [ -f "$side.d" ]; then
            "$DTRACE" -h -s "$side.d" -o probes.h || exit 1
        fi
        $cc -O2 "${flags[@]}" -I "$INCLUDE" -I . -c "$side.c" -o "$side.o" || exit 1
        if [ -f "$side.d" ]; then
            CC=$cc "$DTRACE" -G -s "$side.d" -o "$side-probes.o" "$side.o" || exit 1
            objs+=("$side-probes.o")
        fi
        $cc "${objs[@]}" -o "$side" || exit 1
        rm -f probes.h
    )
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

# json_get FILE PYTHON-EXPRESSION: the expression's value, with the JSON of
# FILE parsed by Python's json module as `j` (a string printed as is, any
# other value as JSON).
json_get() {
    python3 -c '
import json, sys
j = json.load(open(sys.argv[1], encoding="ascii"))
v = eval(sys.argv[2])
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}
