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

# ---- Reading .note.stapsdt notes (with binutils' readelf) -------------

# note_probes FILE: one line per probe, "provider:name<TAB>arguments".
note_probes() {
    readelf -n "$1" | awk '
        /^ *Provider: / { sub(/^ *Provider: /, ""); p = $0 }
        /^ *Name: /     { sub(/^ *Name: /, ""); n = $0 }
        /^ *Arguments:/ { sub(/^ *Arguments: ?/, ""); print p ":" n "\t" $0 }'
}

# note_args FILE PROBE: the argument string of provider:name PROBE.
note_args() {
    note_probes "$1" | awk -F '\t' -v p="$2" '$1 == p { print $2; exit }'
}

# arg_sizes ARGSTRING: the SIZE of each SIZE@OPERAND, space separated.
arg_sizes() {
    echo "$1" | grep -oE '(^| )-?[0-9]+f?@' | tr -d ' @' | tr '\n' ' ' | sed 's/ $//'
}

# note_field FILE PROBE FIELD: Location, Base or Semaphore of a probe (hex).
note_field() {
    readelf -n "$1" | awk -v p="$2" -v f="$3" '
        /^ *Provider: / { sub(/^ *Provider: /, ""); prov = $0 }
        /^ *Name: /     { sub(/^ *Name: /, ""); name = $0 }
        /Location: / && prov ":" name == p {
            for (i = 1; i <= NF; i++) if ($i == f ":") { v = $(i + 1); sub(/,$/, "", v); print v; exit } }'
}

# gdb_probe_run BIN [PROGRAM ARGS...] -- PROVIDER:NAME...
#   Runs BIN under gdb with a breakpoint on each probe.  Every stop prints
#   "name hit", then "name argN VALUE" for each argument as gdb decodes
#   $_probe_argN, or "name argc ERROR message" when gdb cannot read the
#   probe's arguments at all.  Program arguments may redirect its output
#   (">$PWD/out").
gdb_probe_run() {
    local bin=$1 args=() py p
    shift
    while [ $# -gt 0 ] && [ "$1" != "--" ]; do args+=("$1"); shift; done
    shift
    py=$(mktemp "${BATS_TEST_TMPDIR:-/tmp}/gdbprobe.XXXXXX.py")
    cp "$ROOT/tests/gdb-probe-args.py" "$py"
    for p in "$@"; do echo "ProbeArgs('-probe-stap $p')" >> "$py"; done
    timeout 120 gdb -batch -nx -ex 'set pagination off' -ex "source $py" \
        -ex "run ${args[*]}" "$bin" 2>&1 | grep -E '^[A-Za-z_0-9]+ (hit|arg(c|[0-9]+) )'
    rm -f "$py"
}

# gdb_probe_args: gdb_probe_run's argument lines only.
gdb_probe_args() {
    gdb_probe_run "$@" | grep -vE '^[A-Za-z_0-9]+ hit$'
}

# ---- Cross compilers --------------------------------------------------

# The seven architectures the project supports: name, GCC, clang target.
ARCHES="x86_64 i686 aarch64 armhf ppc64el s390x riscv64"
arch_gcc() {
    case $1 in
        x86_64) echo gcc ;; i686) echo i686-linux-gnu-gcc ;;
        aarch64) echo aarch64-linux-gnu-gcc ;; armhf) echo arm-linux-gnueabihf-gcc ;;
        ppc64el) echo powerpc64le-linux-gnu-gcc ;; s390x) echo s390x-linux-gnu-gcc ;;
        riscv64) echo riscv64-linux-gnu-gcc ;;
    esac
}
arch_triple() {
    case $1 in
        x86_64) echo x86_64-linux-gnu ;; i686) echo i686-linux-gnu ;;
        aarch64) echo aarch64-linux-gnu ;; armhf) echo arm-linux-gnueabihf ;;
        ppc64el) echo powerpc64le-linux-gnu ;; s390x) echo s390x-linux-gnu ;;
        riscv64) echo riscv64-linux-gnu ;;
    esac
}

# stap_include: a directory holding only SystemTap's sys/sdt.h, usable by
# cross compilers too (Debian installs it under the x86-64 multiarch path).
stap_include() {
    local d="$BATS_TEST_TMPDIR/stapinc"
    mkdir -p "$d/sys"
    cp "$STAP_INCLUDE_DIR/sys/sdt.h" "$STAP_INCLUDE_DIR/sys/sdt-config.h" "$d/sys/"
    echo "$d"
}
