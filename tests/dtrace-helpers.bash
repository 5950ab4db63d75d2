# SPDX-License-Identifier: MIT
# Helpers shared by the tests/dtrace-*.bats suites (`load dtrace-helpers`).

load helpers
bats_require_minimum_version 1.5.0

# The sdt-list under test; `make check` points this at the sanitizer build too.
SDT_LIST="${SDTKIT_SDT_LIST:-$ROOT/tools/sdt-list}"

# The <sys/sdt.h> to compile generated headers against: ours once it exists,
# SystemTap's until then.  Sets SDT_INC, or skips the test.
need_sdt_header() {
    if [ -f "$INCLUDE/sys/sdt.h" ]; then
        SDT_INC="$INCLUDE"
    elif [ -n "$STAP_INCLUDE_DIR" ]; then
        SDT_INC="$STAP_INCLUDE_DIR"
    else
        missing "no sys/sdt.h (neither ours nor SystemTap's)"
    fi
}

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
