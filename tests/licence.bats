#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The licence: MIT for the project, MIT-0 for include/ (the headers expand
# into the programs that include them), named on an SPDX line at the top of
# every source file, and said the same way to Debian (debian/copyright).

load helpers

# source_files: the project's files that are code, build files or man pages
# (tracked ones in a checkout or a git worktree, whose .git is a file; all
# in an unpacked tarball).  Data (fuzz corpora, the inputs and expected
# messages of tests/cases, VERSION), documentation (Markdown) and Debian's
# own metadata files (covered by debian/copyright) are not.
source_files() {
    cd "$ROOT" || return 1
    if [ -e .git ] && command -v git >/dev/null; then
        git ls-files
    else
        find . -path ./build -prune -o -type f -print | sed 's|^\./||'
    fi | grep -vE '^fuzz/(corpus|regressions)/|^tests/cases/|\.md$|^VERSION$|(^|/)\.gitignore$|^LICENSE|^debian/(changelog|control|copyright|source/format)$|^\.editorconfig$|^\.clang-format$' | sort
}

@test "every source file names its licence on an SPDX line at its top" {
    run source_files
    [ "$status" -eq 0 ]
    [ "${#lines[@]}" -gt 100 ]
    local f lacking=()
    for f in "${lines[@]}"; do
        head -3 "$ROOT/$f" | grep -q 'SPDX-License-Identifier: ' || lacking+=("$f")
    done
    [ "${#lacking[@]}" -eq 0 ] || { printf 'no SPDX line: %s\n' "${lacking[@]}"; false; }
}

@test "include/ is MIT-0 and everything else is MIT" {
    local f lic want wrong=()
    while read -r f; do
        lic=$(head -3 "$ROOT/$f" | sed -n 's/.*SPDX-License-Identifier: \([A-Za-z0-9.-]*\).*/\1/p')
        case $f in include/*) want=MIT-0 ;; *) want=MIT ;; esac
        [ "$lic" = "$want" ] || wrong+=("$f: $lic, not $want")
    done < <(source_files)
    [ "${#wrong[@]}" -eq 0 ] || { printf '%s\n' "${wrong[@]}"; false; }
}

@test "LICENSE is the MIT licence of the sdtkit authors and LICENSES/ holds both texts" {
    grep -qx 'MIT License' "$ROOT/LICENSE"
    grep -q 'Copyright (c) [0-9]* the sdtkit authors' "$ROOT/LICENSE"
    grep -qx 'MIT No Attribution' "$ROOT/LICENSES/MIT-0.txt"
    grep -qx 'MIT License' "$ROOT/LICENSES/MIT.txt"
    # MIT-0 drops the condition that the notice be kept
    ! grep -q 'shall be included' "$ROOT/LICENSES/MIT-0.txt"
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
