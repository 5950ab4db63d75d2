# SPDX-License-Identifier: MIT
# Helpers shared by the header suites that build one source many ways
# (`load helpers; load header-helpers`): header-arch, header-args.

# built WORDS...: OBJ is what WORDS, a compiler's command but its -o, make,
# made once per run of the suite (a bats file): its tests share their
# builds (header-arch's C++ test reads check_arch's g++ objects ...).  It
# is kept in BATS_FILE_TMPDIR under a name made of WORDS and read in
# place, so that a build made before costs no process: once, for builds
# that several suites or passes share, costs several a call, and these
# suites, each in one pass only, ask hundreds.  Never where the compiler's
# messages are checked.
built() {
    local w name
    w=("${@#"$ROOT"/}")
    w=("${w[@]#"$RUN_DIR"/}")
    printf -v name '%s_' "${w[@]}"
    name=${name//\//%}
    [ ${#name} -le 200 ] || { name=$(sha1sum <<<"$name") && name=${name%% *}; }
    OBJ=$BATS_FILE_TMPDIR/$name.o
    # (a compiler that fails leaves no output; a run of the file that is
    # cut short takes its cache with it)
    [ -f "$OBJ" ] || "$@" -o "$OBJ" || { rm -f "$OBJ"; return 1; }
}

# notes_of FILE...: FILE.notes, note_probes' lines of FILE, and FILE.sizes,
# notes_sizes' lines of those, beside each FILE that has none yet; one
# readelf and one awk for all of them (readelf names each file on a
# "File:" line when given several).  An argument string ends at a tab for
# its sizes, as notes_sizes reads note_probes' lines.
notes_of() {
    local f new=()
    for f in "$@"; do [ -f "$f.sizes" ] || new+=("$f"); done
    [ ${#new[@]} -gt 0 ] || return 0
    readelf -n "${new[@]}" | awk -v first="${new[0]}" "$SIZES_AWK"'
        function note(probe, args) {
            print probe "\t" args > (f ".notes")
            sub(/\t.*/, "", args); print probe " " sizes(args) > (f ".sizes")
        }
        function start(file) {
            if (f != "") { close(f ".notes"); close(f ".sizes") }
            f = file; printf "" > (f ".notes"); printf "" > (f ".sizes")
        }
        BEGIN { start(first) }
        /^File: / { if (substr($0, 7) != f) start(substr($0, 7)); next }'"$NOTE_AWK"
}
