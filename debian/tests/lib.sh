# SPDX-License-Identifier: MIT
# Sourced by the tests of debian/tests/control, which autopkgtest runs from
# the root of the source tree: what they share.
set -eu
SRC=$PWD
W=${AUTOPKGTEST_TMP:?run by autopkgtest, which sets AUTOPKGTEST_TMP}
cd "$W"

# fail MESSAGE: the test fails, saying why.
fail() {
    echo "FAIL: $*" >&2
    exit 1
}

# owner PATH: the package that has PATH, as dpkg says it.
owner() {
    dpkg-query -S "$1" 2>/dev/null | sed 's/:.*//' || true
}

# installed_only COMPILER: dtrace on PATH is sdtkit-tools', and COMPILER's
# <sys/sdt.h> (not resolving links) sdtkit's: what the test builds with is
# the installed packages.
installed_only() {
    local dtrace header
    dtrace=$(command -v dtrace) || fail "no dtrace on PATH"
    [ "$(owner "$dtrace")" = sdtkit-tools ] || fail "$dtrace is not sdtkit-tools' but $(owner "$dtrace")'s"
    header=$(echo '#include <sys/sdt.h>' | "$1" -fno-canonical-system-headers -M -x c - |
        tr ' \\' '\n\n' | grep '/sys/sdt\.h$')
    [ "$(owner "$header")" = sdtkit ] || fail "$1 reads $header, not sdtkit's but $(owner "$header")'s"
    echo "dtrace: $dtrace (sdtkit-tools); <sys/sdt.h>: $header (sdtkit)"
}

# examples TARGET...: provider-examples/ copied to ./examples, and TARGETs
# made there with the installed dtrace and headers.
examples() {
    rm -rf examples
    cp -r "$SRC/provider-examples" examples
    make -s -C examples DTRACE=dtrace SDT_INCLUDE=/usr/include "$@"
}

# probes FILE PROBE...: FILE's probes, as sdt-list --check lists them (every
# check passed, nothing said on stderr), are the PROBEs, each
# "provider:name SIZES SEMAPHORE": SIZES the arguments' sizes (the size of
# each size@operand, comma-separated; - for none), SEMAPHORE yes or no; and
# readelf -n shows the same notes.
probes() {
    local file=$1
    shift
    sdt-list --check "$file" >list 2>err || fail "sdt-list --check $file: $(cat err)"
    [ ! -s err ] || fail "sdt-list --check $file said: $(cat err)"
    awk -F '\t' '{
        n = split($7, a, " "); s = ""
        for (i = 1; i <= n; i++) { sub(/@.*/, "", a[i]); s = s (i > 1 ? "," : "") a[i] }
        print $2 ":" $3 " " (s == "" ? "-" : s) " " ($6 == "0x0" ? "no" : "yes") }' list |
        LC_ALL=C sort -u >got
    printf '%s\n' "$@" | LC_ALL=C sort >want
    diff want got || fail "$file: the probes above differ (-want +got)"
    # one stapsdt note a line of sdt-list's, the same provider and name
    cut -f2,3 list | tr '\t' : | LC_ALL=C sort >listed
    readelf -n "$file" | awk '/^ *Provider: / { p = $2 } /^ *Name: / { print p ":" $2 }' |
        LC_ALL=C sort >notes
    diff listed notes || fail "$file: readelf -n's notes (+) are not sdt-list's (-)"
    echo "$file: $# probes, $(wc -l <listed) notes checked"
}
