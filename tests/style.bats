#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Habits the sources keep: the C code is as .clang-format formats it, every
# text file is as .editorconfig says (LF, a final newline, no trailing
# blanks, no tabs but in Makefiles), and commit subjects fit in 72 columns.

load helpers

# The C sources the formatter owns (include/ keeps glibc's GNU style).
formatted_sources() {
    cd "$ROOT" && ls lib/*.[ch] tools/*.[ch] fuzz/*.c $(ls runtime/*.[ch] 2>/dev/null)
}

@test "the C sources of lib/, tools/, runtime/ and fuzz/ are as clang-format formats them" {
    need_cmd clang-format
    local f bad=()
    for f in $(formatted_sources); do
        clang-format --dry-run --Werror "$ROOT/$f" 2>/dev/null || bad+=("$f")
    done
    [ "${#bad[@]}" -eq 0 ] || { printf 'not formatted (clang-format -i %s)\n' "${bad[@]}"; false; }
}

# The project's text files, but data kept byte for byte (fuzz corpora, cases).
text_files() {
    cd "$ROOT" || return 1
    project_files | grep -vE '^fuzz/(corpus|regressions)/|(^|/)tests/cases/' | xargs grep -Il '' --
}

@test "text files end in a newline and have no CR or trailing blank, C sources no tab" {
    local files
    files=$(text_files)
    [ "$(echo "$files" | wc -l)" -gt 100 ]
    cd "$ROOT"
    run awk '
        /\r$/ { print FILENAME ":" FNR ": CR" }
        /[ \t]+$/ { print FILENAME ":" FNR ": trailing blank" }
        /\t/ && FILENAME ~ /\.(c|h|cc|hpp)$/ { print FILENAME ":" FNR ": tab" }' $files
    [ "$status" -eq 0 ]
    [ -z "$output" ] || { echo "$output" | head -20; false; }
    local f missing=()
    for f in $files; do
        [ ! -s "$f" ] || [ -z "$(tail -c 1 "$f")" ] || missing+=("$f")
    done
    [ "${#missing[@]}" -eq 0 ] || { printf 'no final newline: %s\n' "${missing[@]}"; false; }
}

@test "commit subjects since the rule was set are at most 72 characters" {
    cd "$ROOT"
    [ -d .git ] || skip "not a git checkout (a release tarball has no history)"
    # 02c5a56 is the last commit before the rule (issue 18); three since
    # have a subject of 73 characters: those, by their hashes, and no other
    git cat-file -e 02c5a56 2>/dev/null || skip "a shallow clone without the rule's first commit"
    run sh -c "git log --format='%H %s' 02c5a56..HEAD |
        grep -v -e '^242017e979389e4a3498772380bf80c2d7158725 ' \\
                -e '^54677d5d60d1d2fb4c576e80bb86ba4cb931bbeb ' -e '^022cebfd2ad66c3e2a8340cf89f0609f4d780199 ' |
        cut -d' ' -f2- | awk 'length > 72'"
    [ "$status" -eq 0 ]
    [ -z "$output" ] || { echo "longer than 72: $output"; false; }
}

# bash's errexit ignores a failure that `!` negates, and one on the left of
# `&&`: such a check fails its test only as the test's last command.  The
# suites write `! cmd || false` and one check a line.
@test "no check in the test suites is one that errexit ignores: a bare '! cmd' or '[ a ] && [ b ]' before the test's end" {
    cd "$ROOT"
    run awk '
        function flush() { if (held != "" && $0 !~ /^[ \t]*}/) print held; held = "" }
        FNR == 1 { held = "" }
        /^[ \t]*$/ { next }
        { flush() }
        /^[ \t]+! / && !/\|\|/ && !/[\\|]$/ { held = FILENAME ":" FNR ": " $0 }
        /^[ \t]+\[\[? [^|]*\]\]? && \[\[? [^|]*\]\]?[ \t]*$/ { held = FILENAME ":" FNR ": " $0 }' tests/*.bats tests/*.bash
    [ -z "$output" ] || { echo "$output"; false; }
}
