#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The licence: MIT for the project, MIT-0 for include/ (the headers expand
# into the programs that include them), named on an SPDX line at the top of
# every source file, and said the same way to Debian (debian/copyright).

load helpers

# source_files: the project's code, build files and man pages: not data,
# Markdown, nor Debian's metadata (which debian/copyright covers).
source_files() {
    project_files | grep -vE '^fuzz/(corpus|regressions)/|^tests/cases/|\.md$|^VERSION$|^MANIFEST$|(^|/)\.gitignore$|^LICENSE|^debian/(changelog|control|copyright|source/format)$|^\.editorconfig$|^\.clang-format$' | sort
}

# spdx_of: "FILE LICENCE" for every source file, as its first three lines name it ("-").
spdx_of() {
    local files
    files=$(source_files) || return 1
    cd "$ROOT" && awk '
        FNR == 1 { if (f != "") print f, (l == "" ? "-" : l); f = FILENAME; l = "" }
        FNR <= 3 && l == "" && match($0, /SPDX-License-Identifier: [A-Za-z0-9.-]+/) {
            l = substr($0, RSTART + 25, RLENGTH - 25) }
        END { if (f != "") print f, (l == "" ? "-" : l) }' $files
}

@test "every source file names its licence on an SPDX line at its top" {
    run spdx_of
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -gt 100 ]
    run awk '$2 == "-" { print "no SPDX line: " $1 }' <<<"$output"
    [ -z "$output" ] || { echo "$output"; false; }
}

@test "include/ is MIT-0 and everything else is MIT" {
    run spdx_of
    [ "$status" -eq 0 ]
    run awk '{ want = $1 ~ /^include\// ? "MIT-0" : "MIT" }
             $2 != want { print $1 ": " $2 ", not " want }' <<<"$output"
    [ -z "$output" ] || { echo "$output"; false; }
}

@test "LICENSE is the MIT licence of the sdtkit authors and LICENSES/ holds both texts" {
    grep -qx 'MIT License' "$ROOT/LICENSE"
    grep -q 'Copyright (c) [0-9]* the sdtkit authors' "$ROOT/LICENSE"
    grep -qx 'MIT No Attribution' "$ROOT/LICENSES/MIT-0.txt"
    grep -qx 'MIT License' "$ROOT/LICENSES/MIT.txt"
    # MIT-0 drops the condition that the notice be kept
    ! grep -q 'shall be included' "$ROOT/LICENSES/MIT-0.txt" || false
    grep -q 'shall be included' "$ROOT/LICENSES/MIT.txt"
}

@test "debian/copyright gives include/ as MIT-0 and the rest as MIT, in DEP-5" {
    local c="$ROOT/debian/copyright"
    head -1 "$c" | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/'
    # each Files paragraph with its License, as "files=licence" lines
    run awk '/^Files:/ { f = $2 } /^License:/ && f { print f "=" $2; f = "" }' "$c"
    [ "$status" -eq 0 ]
    [ "${lines[0]}" = '*=MIT' ]
    [ "${lines[1]}" = 'include/*=MIT-0' ]
    # both licences' texts are there, as stand-alone paragraphs
    grep -qx 'License: MIT' "$c"
    grep -qx 'License: MIT-0' "$c"
    ! grep -q unlicensed "$c"
}
