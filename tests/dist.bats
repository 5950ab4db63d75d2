#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# make dist: the release tarball of the tracked files and MANIFEST, the
# same bytes from any checkout; make distcheck: it builds, passes its
# checks, installs, uninstalls cleanly and remakes itself.  The tarball and
# another checkout (other dates and modes) are made once.
# bats file_tags=release

load helpers

setup_file() {
    export VERSION TARBALL EPOCH
    VERSION=$(cat "$ROOT/VERSION")
    TARBALL=$BATS_FILE_TMPDIR/sdtkit-$VERSION.tar.gz
    EPOCH=$(date -u -d "$(sed -n 's/^ -- .*>  *//p' "$ROOT/debian/changelog" | head -1)" +%s)
    dist_tarball "$BATS_FILE_TMPDIR" > "$BATS_FILE_TMPDIR/dist.log" 2>&1 || true
    # the other checkout: distcheck's test, the last, changes its Makefile
    (cd "$BATS_FILE_TMPDIR" && other_checkout co) > "$BATS_FILE_TMPDIR/co.log" 2>&1 || true
}

setup() {
    need_cmd git
    [ -f "$TARBALL" ] || { cat "$BATS_FILE_TMPDIR/dist.log"; false; }
}

# other_checkout DIR: the project's files in a new git repository in DIR,
# with other dates (now) and modes (umask 002); their list in DIR.files0.
other_checkout() {
    local dest
    dest=$(realpath -m "$1")
    mkdir -p "$dest"
    project_files | (cd "$ROOT" && xargs -d '\n' sh -c 'for f; do [ ! -e "$f" ] || printf "%s\0" "$f"; done' sh) \
        > "$dest.files0"
    (umask 002 && cd "$ROOT" && xargs -0 cp --parents --no-preserve=all -t "$dest" < "$dest.files0")
    # cp lost the executable bits: give them back, as git would
    (cd "$ROOT" && xargs -0 sh -c 'for f; do [ ! -x "$f" ] || chmod a+x "$0/$f"; done' "$dest" \
        < "$dest.files0")
    git -C "$dest" init -q && git -C "$dest" add -A
}

# shared_checkout: ./co, the other checkout setup_file made.
shared_checkout() {
    [ -e "$BATS_FILE_TMPDIR/co/.git" ] || { cat "$BATS_FILE_TMPDIR/co.log"; false; }
    ln -s "$BATS_FILE_TMPDIR/co" co
}

@test "make dist writes sdtkit-VERSION.tar.gz: the tracked files but the checkout's machinery, and MANIFEST" {
    tar -tzf "$TARBALL" > listed
    # one top directory, named after VERSION
    [ "$(cut -d/ -f1 listed | sort -u)" = "sdtkit-$VERSION" ]
    grep -v '/$' listed | sed "s|^sdtkit-$VERSION/||" | sort > files
    # MANIFEST lists exactly the files of the tarball
    tar -xzOf "$TARBALL" "sdtkit-$VERSION/MANIFEST" > manifest
    diff files manifest
    # the tracked files, but .ci/ and .gitignore files, plus MANIFEST
    (project_files | grep -v '^\.ci/\|\.gitignore$'; echo MANIFEST) | LC_ALL=C sort > want
    diff want files
    # what a build and make check need is there
    grep -qx Makefile files && grep -qx tests/run files && grep -qx debian/rules files
    grep -qx sdtkit.spec files && grep -qx LICENSE files && grep -qx include/sys/sdt.h files
}

@test "the tarball's entries are sorted, owned by 0:0, dated from the changelog, moded from the executable bit; gzip -n" {
    # each directory's entries in byte order of their names
    tar -tzf "$TARBALL" > listed
    [ "$(wc -l < listed)" -gt 200 ]
    LC_ALL=C awk '{ p = $0; sub(/\/$/, "", p); d = p; sub(/\/[^\/]*$/, "", d); n = substr(p, length(d) + 2)
                    if (d in last && n <= last[d]) { print "out of order: " $0; bad = 1 }
                    last[d] = n } END { exit bad }' listed
    tar -tvzf "$TARBALL" --full-time > long
    # owner and group 0, numeric
    [ "$(awk '{ print $2 }' long | sort -u)" = 0/0 ]
    # one date, the changelog entry's
    [ "$(awk '{ print $4 " " $5 }' long | sort -u | xargs -I{} date -u -d {} +%s)" = "$EPOCH" ]
    # directories and executables 755, everything else 644
    [ "$(awk '{ print $1 }' long | sort -u | xargs)" = "-rw-r--r-- -rwxr-xr-x drwxr-xr-x" ]
    grep -q '^-rwxr-xr-x .* sdtkit-[^/]*/tests/run$' long
    grep -q '^-rw-r--r-- .* sdtkit-[^/]*/Makefile$' long
    # gzip: no file name (flag 0x08) and no date in the header
    [ "$(od -An -tx1 -j3 -N5 "$TARBALL" | xargs)" = "00 00 00 00 00" ]
}

@test "another checkout of the same files, with other dates and modes, makes the same bytes, as does the unpacked tarball" {
    shared_checkout
    make -s -C co dist DIST_DIR="$PWD/out" > /dev/null
    cmp "$TARBALL" "out/sdtkit-$VERSION.tar.gz"
    # from the tarball itself, which has no git: its MANIFEST
    mkdir un
    tar -xzf "$TARBALL" -C un
    [ ! -e "un/sdtkit-$VERSION/.git" ]
    make -s -C "un/sdtkit-$VERSION" dist > /dev/null
    cmp "$TARBALL" "un/sdtkit-$VERSION/build/sdtkit-$VERSION.tar.gz"
    # make dist leaves nothing but the tarball
    [ "$(ls out)" = "sdtkit-$VERSION.tar.gz" ]
}

@test "make dist refuses without a list of files, and when debian/changelog is not for VERSION" {
    mkdir bare
    tar -xzf "$TARBALL" -C bare --strip-components=1
    rm bare/MANIFEST
    run make -s -C bare dist
    [ "$status" -ne 0 ]
    [[ "$output" == *"make dist: no list of files: this is not a git checkout, nor an unpacked tarball with its MANIFEST"* ]]
    [ ! -e bare/build ]
    tar -xzf "$TARBALL" -C . && mv "sdtkit-$VERSION" other
    echo 9.9.9 > other/VERSION
    run make -s -C other dist
    [ "$status" -ne 0 ]
    [[ "$output" == *"debian/changelog: version $(cd "$ROOT" && head -1 debian/changelog |
        sed 's/.*(\(.*\)).*/\1/'), but VERSION says 9.9.9"* ]]
    [ ! -e other/build ]
}

@test "in the unpacked tarball, the tests that need the provider corpus of ../shared skip and say how to give it" {
    mkdir un
    tar -xzf "$TARBALL" -C un --strip-components=1
    [ ! -e un/../shared ]
    run fresh env -u CI -u SDTKIT_CORPUS bats un/tests/dtrace-corpus.bats
    echo "$output"
    [ "$status" -eq 0 ]
    # every test skipped, each saying where the corpus was looked for and how to name one
    [ "$(grep -c '^ok ' <<<"$output")" -eq "$(grep -c '# skip no provider corpus at .*(../shared beside the checkout, or SDTKIT_CORPUS=DIR)$' <<<"$output")" ]
    [ "$(grep -c '^ok ' <<<"$output")" -ge 10 ]
}

@test "make distcheck builds the tarball, passes its checks, installs, uninstalls to nothing and remakes the same tarball" {
    shared_checkout
    # -O0: deb.bats and rpm.bats test the tarball's optimised build
    run fresh make -s -C co distcheck SUITES="tests/licence.bats tests/install.bats" CFLAGS=-O0
    echo "$output" | tail -20
    [ "$status" -eq 0 ]
    [[ "$output" == *"0 failed, "* ]]
    [[ "$output" == *"build/sdtkit-$VERSION.tar.gz is ready for distribution"* ]]
    cmp "$TARBALL" "co/build/sdtkit-$VERSION.tar.gz"
    [ ! -e co/build/distcheck ]
    # and it fails when make uninstall leaves a file behind
    sed -i 's|^install: .*$|&\n\tinstall -D -m 644 VERSION $(DESTDIR)$(PREFIX)/share/sdtkit-leftover|' co/Makefile
    grep -q 'share/sdtkit-leftover$' co/Makefile
    git -C co add Makefile
    # (no examples, demo or run-time library needed for that)
    run fresh make -s -C co distcheck SUITES="tests/licence.bats" DISTCHECK_BUILD=tools CFLAGS=-O0
    [ "$status" -ne 0 ]
    [[ "$output" == *"distcheck: make uninstall left: ./usr/local/share/sdtkit-leftover"* ]]
}
