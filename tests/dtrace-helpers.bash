# SPDX-License-Identifier: MIT
# What the dtrace and sdt-list suites load (`load dtrace-helpers`, which
# loads helpers): provider files, hand-written notes, builds of two sides,
# and cases as data.

load helpers
bats_require_minimum_version 1.5.0

# The <sys/sdt.h> the generated headers are compiled against.
SDT_INC=$INCLUDE

# d FILE: write stdin to $BATS_TEST_TMPDIR/FILE (the usual scratch input).
d() {
    cat >"$BATS_TEST_TMPDIR/$1"
}

# listing DIR: every entry of DIR, hidden ones included, one per line.
listing() {
    (cd "$1" && ls -A | LC_ALL=C sort)
}

# A small provider used by many tests.
small_provider() {
    d "${1:-prov.d}" <<'EOF'
provider p {
    probe x(int a, char *s);
    probe y();
};
EOF
}

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

# build_side DIR SIDE [CC]: DIR/SIDE from DIR/SIDE.c, by CC (gcc) -O2 with
# the flags of DIR/cflags and DIR/SIDE.cflags, against our header; through
# dtrace -h (probes.h) and -G when DIR/SIDE.d exists.
build_side() {
    local dir=$1 side=$2 cc=${3:-gcc} flags=() more=() objs
    [ ! -f "$dir/cflags" ] || read -r -a flags <"$dir/cflags"
    [ ! -f "$dir/$side.cflags" ] || read -r -a more <"$dir/$side.cflags"
    flags+=("${more[@]}")
    (
        cd "$dir" || exit 1
        objs=("$side.o")
        [ ! -f "$side.d" ] || "$DTRACE" -h -s "$side.d" -o probes.h || exit 1
        $cc -O2 "${flags[@]}" -I "$INCLUDE" -I . -c "$side.c" -o "$side.o" || exit 1
        if [ -f "$side.d" ]; then
            CC=$cc "$DTRACE" -G -s "$side.d" -o "$side-probes.o" "$side.o" || exit 1
            objs+=("$side-probes.o")
        fi
        $cc "${objs[@]}" -o "$side" || exit 1
        rm -f probes.h
    )
}

# json_get FILE PYTHON-EXPRESSION: its value, FILE's JSON being `j` (a
# string printed as is, any other value as JSON).
json_get() {
    python3 -c '
import json, sys
j = json.load(open(sys.argv[1], encoding="ascii"))
v = eval(sys.argv[2])
print(v if isinstance(v, str) else json.dumps(v))' "$1" "$2"
}

# ---- Cases as data (tests/README.md, 3) ---------------------------------
# Each NAME.d of tests/cases/SUITE/CASE/ runs in a copy of the directory,
# under `timeout 10`; a failure shows a diff -u of the stderrs.

# case_slug VAR TEXT: VAR = TEXT in lower case, each run of other
# characters one '-', none at either end.
case_slug() {
    local s=${2,,} ext=0
    shopt -q extglob && ext=1
    shopt -s extglob
    s=${s//+([^a-z0-9])/-}
    [ "$ext" = 1 ] || shopt -u extglob
    s=${s#-}
    printf -v "$1" '%s' "${s%-}"
}

# lines_match PATTERN TEXT: file TEXT matches file PATTERN line for line,
# a PATTERN line "..." matching any number of TEXT lines.
lines_match() {
    LC_ALL=C awk -v pf="$1" '
        BEGIN { while ((getline l < pf) > 0) p[++m] = l }
        { t[++n] = $0 }
        END {
            # ok[i, j]: pattern lines i.. match text lines j..
            for (i = m + 1; i >= 1; i--)
                for (j = n + 1; j >= 1; j--)
                    if (i > m) ok[i, j] = j > n
                    else if (p[i] == "...") ok[i, j] = ok[i + 1, j] || (j <= n && ok[i, j + 1])
                    else ok[i, j] = j <= n && p[i] == t[j] && ok[i + 1, j + 1]
            exit !ok[1, 1]
        }' "$2"
}

# dtrace_case: run every input of the test's case directory (see above).
dtrace_case() {
    local dir suite=${BATS_TEST_FILENAME##*/}
    case_slug dir "$BATS_TEST_DESCRIPTION"
    dir="$ROOT/tests/cases/${suite%.bats}/$dir"
    [ -d "$dir" ] || { echo "no case directory ${dir#"$ROOT"/}"; return 1; }
    local a line
    for a in "$dir"/*.args; do
        [ ! -f "$a" ] || { read -r line <"$a"; [[ " $line " != *" -C "* ]] || need_cmd cpp; }
    done
    (shopt -s globstar dotglob nullglob && case_inputs "$dir")
}

# case_inputs DIR: the inputs of DIR checked (globstar, dotglob, nullglob).
case_inputs() {
    local dir=$1 err name w want args before after kept f expected why bad=0
    for err in "$dir"/*.err; do
        [ -f "$err" ] || { echo "no NAME.err in ${dir#"$ROOT"/}"; return 1; }
        name=${err##*/}
        name=${name%.err} w="$BATS_TEST_TMPDIR/case-$name"
        cp -R "$dir" "$w"
        want=1
        [ ! -f "$dir/$name.status" ] || read -r want <"$dir/$name.status"
        args=(-h -s "$name.d" -o out.h)
        [ ! -f "$dir/$name.args" ] || read -r -a args <"$dir/$name.args"
        before=("$w"/**/*)
        pushd "$w" >/dev/null
        run --separate-stderr timeout 10 "$DTRACE" "${args[@]}"
        popd >/dev/null
        after=("$w"/**/*)
        why=()
        [ "$status" = "$want" ] || why+=("status $status, expected $want")
        printf '%s' "$stderr${stderr:+$'\n'}" >"$w.stderr"
        IFS= read -r -d '' expected <"$err" || true
        if [[ $'\n'"$expected" == *$'\n...\n'* ]]; then
            lines_match "$err" "$w.stderr" || why+=("stderr does not match ${err#"$ROOT"/}")
        else
            [ "$stderr${stderr:+$'\n'}" = "$expected" ] || why+=("stderr is not ${err#"$ROOT"/}")
        fi
        [ -z "$output" ] || why+=("stdout is not empty: ${output:0:200}")
        [ "$want" != 0 ] || [ -s "$w/out.h" ] || why+=("no out.h, or an empty one")
        kept=()
        for f in "${after[@]}"; do
            [ "$want" != 0 ] || [ "$f" != "$w/out.h" ] || continue
            kept+=("$f")
        done
        [ "${kept[*]}" = "${before[*]}" ] ||
            why+=("files after the run: ${after[*]#"$w"/}; expected: ${before[*]#"$w"/}")
        if [ ${#why[@]} -gt 0 ]; then
            case_failed "${dir#"$ROOT"/}/$name.d: dtrace ${args[*]}" "$err" "$w.stderr" "${why[@]}"
            bad=1
        fi
    done
    [ "$bad" -eq 0 ]
}

# case_failed WHAT EXPECTED GOT WHY...: which case failed, why, and a diff -u.
case_failed() {
    local what=$1 expected=$2 got=$3
    shift 3
    echo "case $what"
    printf '  %s\n' "$@"
    diff -u --label expected --label got "$expected" "$got" | sed 's/^/  /'
}

# every_case_has_its_test [RUNNER]: each directory of tests/cases/SUITE is
# the case of a test of SUITE.bats whose body is RUNNER (dtrace_case).
every_case_has_its_test() {
    local suite=${BATS_TEST_FILENAME##*/} runner=${1:-dtrace_case} t c slug slugs=" " orphans=()
    while IFS= read -r t; do
        case_slug slug "$t"
        slugs+="$slug "
    done < <(sed -n "s/^@test \"\\(.*\\)\" { *$runner; *}\$/\\1/p" "$BATS_TEST_FILENAME")
    [ "$slugs" != " " ] || { echo "no test runs $runner"; return 1; }
    for c in "$ROOT/tests/cases/${suite%.bats}"/*/; do
        c=${c%/}
        [[ "$slugs" == *" ${c##*/} "* ]] || orphans+=("${c##*/}")
    done
    [ ${#orphans[@]} -eq 0 ] || { printf 'case without a test: %s\n' "${orphans[@]}"; return 1; }
}
