#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/once.bash [-i FILE]... CMD... -o OUT ...: the body of helpers.bash's
# `once` (see there), as a program of its own: inside bats every shell
# command of a function pays for bats' DEBUG trap (a stack trace each),
# which made the shell's part of a call cost more than a cached build.
# RUN_DIR and HANG_SECONDS come from the environment.
extra=() words=() files=() prev= out= dir=$RUN_DIR/once
while [ "$1" = -i ]; do extra+=("$2"); shift 2; done
for a in "$@"; do
    if [ "$prev" = -o ]; then
        out=$a
        words+=(OUT)
    else
        words+=("$a")
        [ ! -f "$a" ] || files+=("$a")
    fi
    prev=$a
done
[ -n "$out" ] || { echo "once: no -o in: $*"; exit 1; }
[ -n "$RUN_DIR" ] || { echo "once: no RUN_DIR"; exit 1; }
key=$( { printf '%s\n' "${words[@]}"; cat -- "${files[@]}" "${extra[@]}" </dev/null; } | sha1sum)
key=${key%% *}
if [ -f "$dir/$key" ]; then
    [ "$out" = /dev/null ] || exec cp "$dir/$key" "$out"
    exit
fi
mkdir -p "$dir"
(
    flock -w "${HANG_SECONDS:-300}" 9 || { echo "once: ${HANG_SECONDS:-300} s waiting for the build of: $*"; exit 1; }
    if [ -f "$dir/$key" ]; then
        [ "$out" = /dev/null ] || cp "$dir/$key" "$out"
        exit
    fi
    "$@" || exit
    if [ "$out" = /dev/null ]; then : >"$dir/$key.$BASHPID"; else cp "$out" "$dir/$key.$BASHPID"; fi
    mv -f "$dir/$key.$BASHPID" "$dir/$key"
    printf '%s %s\n' "$key" "$*" >>"$dir/manifest"
) 9>"$dir/$key.lock"
