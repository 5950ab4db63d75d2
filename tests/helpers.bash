# Shared helpers for the bats suites.  Every suite does `load helpers`.

ROOT="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
INCLUDE="$ROOT/include"
# The dtrace under test; `make check` points this at the sanitizer build too.
DTRACE="${SDTKIT_DTRACE:-$ROOT/tools/dtrace}"
# Real provider files from other projects, used as external data when present.
CORPUS="${SDTKIT_CORPUS:-$ROOT/../shared/corpus/d}"
# SystemTap's header, for side-by-side checks (Debian installs it multiarch).
STAP_INCLUDE_DIR=""
for d in /usr/include/x86_64-linux-gnu /usr/include; do
    if [ -f "$d/sys/sdt.h" ] && [ "$d/sys/sdt.h" != "$INCLUDE/sys/sdt.h" ]; then
        STAP_INCLUDE_DIR="$d"
        break
    fi
done

# skip_unless_cmd CMD...: skip the test with a reason when a tool is missing.
skip_unless_cmd() {
    local c
    for c in "$@"; do
        command -v "$c" >/dev/null 2>&1 || skip "$c is not installed"
    done
}

# skip_unless_corpus: skip when ../shared/corpus is not next to the checkout.
skip_unless_corpus() {
    [ -d "$CORPUS" ] || skip "no provider corpus at $CORPUS"
}

# skip_unless_stap_header: skip when systemtap-sdt-dev is not installed.
skip_unless_stap_header() {
    [ -n "$STAP_INCLUDE_DIR" ] || skip "systemtap-sdt-dev is not installed"
}

# skip_unless_stap_dtrace: skip when SystemTap's dtrace script is not installed.
skip_unless_stap_dtrace() {
    [ -x /usr/bin/dtrace ] && head -1 /usr/bin/dtrace | grep -q python ||
        skip "SystemTap's dtrace script is not installed"
}
