#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# dtrace -G: the ELF object it writes (sections, symbols, target), that it
# links on seven architectures and with four linkers, and the cross-check
# of the probes found in the objects it is given.

load dtrace-helpers

setup() {
    T=$BATS_TEST_TMPDIR
    unset CC CFLAGS
    small_provider
    echo 'int x;' >"$T/x.c"
}

# elf_header OBJ NAME: OBJ's ELF header as readelf -h shows it, in the
# associative array NAME: NAME[Class]=ELF64, NAME[Machine]=AArch64 ... (one
# readelf an object: the suite compares some 2,000 fields a run).
elf_header() {
    local -n elf_header_to=$2
    local k v
    elf_header_to=()
    while IFS=: read -r k v; do
        k=${k#"${k%%[! ]*}"} v=${v#"${v%%[! ]*}"}
        elf_header_to[$k]=$v
    done < <(readelf -h "$1")
}

# field NAME OBJ: the value of one line of OBJ's readelf -h ("ELF64" ...).
field() {
    local -A h
    elf_header "$2" h
    printf '%s\n' "${h[$1]-}"
}

# same_header OBJ REF FIELD...: OBJ's ELF header has REF's value of each FIELD.
same_header() {
    local o=$1 r=$2 f
    local -A h ref
    shift 2
    elf_header "$o" h
    elf_header "$r" ref
    for f in "$@"; do
        [ "${h[$f]-}" = "${ref[$f]-}" ] || { echo "$o: $f is '${h[$f]-}', $r's is '${ref[$f]-}'"; return 1; }
    done
}

# elf_is OBJ ARCH: OBJ's ELF header is ARCH's in tests/arches.table: class,
# byte order, machine, flags (the number) and OS/ABI.
elf_is() {
    local f want got bad=0
    local -A h
    elf_header "$1" h
    for f in Class Data Machine Flags OS/ABI; do
        case $f in
            Class) want=$(arch_field "$2" class) ;;
            Data) want="2's complement, $(arch_field "$2" data) endian" ;;
            Machine) want=$(arch_field "$2" machine) ;;
            Flags) want=$(arch_field "$2" flags) ;;
            OS/ABI) want=$(arch_field "$2" osabi) ;;
        esac
        got=${h[$f]-}
        [ "$f" != Flags ] || got=${got%%,*}
        [ "$f" != OS/ABI ] || got=${got#UNIX - }
        [ "$got" = "$want" ] || { echo "$1: $f is '$got', $2's is '$want'"; bad=1; }
    done
    [ "$bad" = 0 ]
}

# The section index of .probes in OBJ.
probes_index() {
    readelf -SW "$1" | sed -n 's/^ *\[ *\([0-9]*\)\] \.probes .*/\1/p'
}

# probe_user OBJ [FLAGS...]: use.c, firing probes through sys/sdt.h directly
# (as compiled code would), built by ${CC:-gcc} -O2 FLAGS as OBJ.
probe_user() {
    cat >use.c <<'EOF'
#include <sys/sdt.h>
void f(int a, char *s)
{
    DTRACE_PROBE2(p, x, a, s);  /* declared with two arguments: fine */
    DTRACE_PROBE(p, y);         /* declared with none: fine */
    DTRACE_PROBE1(p, x, a);     /* declared with two: one is a mismatch */
    DTRACE_PROBE1(p, ghost, a); /* not declared at all */
    DTRACE_PROBE1(other, z, a); /* another provider: not ours to check */
}
EOF
    ${CC:-gcc} -O2 "${@:2}" -I"$SDT_INC" -c use.c -o "$1"
}

@test "the object is relocatable, with .probes holding one short per probe" {
    "$DTRACE" -G -s prov.d -o prov.o
    [ "$(field Type prov.o)" = "REL (Relocatable file)" ]
    readelf -SW prov.o | grep -E ' \.probes +PROGBITS +0+ [0-9a-f]+ 000004 00 +WA +0 +0 +2$'
}

@test "each semaphore is a global, hidden, two-byte object in .probes" {
    "$DTRACE" -G -s prov.d -o prov.o
    ix="$(probes_index prov.o)"
    readelf -sW prov.o | grep -E "^ +[0-9]+: 0+0 +2 OBJECT +GLOBAL +HIDDEN +$ix p_x_semaphore$"
    readelf -sW prov.o | grep -E "^ +[0-9]+: 0+2 +2 OBJECT +GLOBAL +HIDDEN +$ix p_y_semaphore$"
    [ "$(readelf -sW prov.o | grep -c _semaphore)" -eq 2 ]
}

@test "STAP_SDT_V2, on the command line or in CFLAGS, gives default visibility" {
    "$DTRACE" -G -DSTAP_SDT_V2 -s prov.d -o a.o
    readelf -sW a.o | grep -E 'OBJECT +GLOBAL +DEFAULT .* p_x_semaphore$'
    CFLAGS="-O2 -DSTAP_SDT_V2" "$DTRACE" -G -s prov.d -o b.o
    cmp a.o b.o
}

@test "STAP_SDT_V1 names each semaphore after its probe, once per name" {
    printf 'provider a { probe start(); probe stop(int); };\nprovider b { probe start(); };\n' >v1.d
    "$DTRACE" -G -D STAP_SDT_V1 -s v1.d -o v1.o
    syms="$(readelf -sW v1.o | awk '/_semaphore$/ {print $5, $6, $8}' | sort)"
    [ "$syms" = "$(printf 'GLOBAL DEFAULT start_semaphore\nGLOBAL DEFAULT stop_semaphore')" ]
    CFLAGS="-g -D STAP_SDT_V1" "$DTRACE" -G -s v1.d -o cflags.o
    cmp v1.o cflags.o
    # a later -U cancels it, as it would for a compiler
    "$DTRACE" -G -DSTAP_SDT_V1 -USTAP_SDT_V1 -s v1.d -o undone.o
    readelf -sW undone.o | grep -q ' a_start_semaphore$'
}

@test "an empty .note.GNU-stack keeps the stack non-executable" {
    "$DTRACE" -G -s prov.d -o prov.o
    readelf -SW prov.o | grep -E ' \.note\.GNU-stack +PROGBITS +0+ [0-9a-f]+ 000000 '
    echo 'extern unsigned short p_x_semaphore; int main(void) { return p_x_semaphore; }' >main.c
    gcc main.c prov.o -o main -Wl,--fatal-warnings
    readelf -lW main | grep GNU_STACK | grep -q 'RW '
    ! readelf -lW main | grep GNU_STACK | grep -q 'RWE'
}

@test "without probes there is no .probes section and the object still links" {
    echo 'BEGIN{}' >none.d
    "$DTRACE" -G -s none.d -o none.o
    ! readelf -SW none.o | grep -q '\.probes' || false
    echo 'int main(void) { return 0; }' >main.c
    gcc main.c none.o -o main
    ./main
}

@test "the object is the same bytes in any directory, at any time" {
    mkdir -p one/deeper two
    small_provider one/deeper/prov.d
    cp one/deeper/prov.d two/
    (cd one/deeper && "$DTRACE" -G -s prov.d -o ../../a.o)
    sleep 1
    (cd two && "$DTRACE" -G -s "$T/two/prov.d" -o "$T/b.o")
    cmp a.o b.o
    ! grep -q "$T" a.o || false
    ! grep -q prov.d a.o
}

@test "-32 and -64 choose the class within the host's family" {
    [ "$(uname -m)" = x86_64 ] || refused "expects an x86-64 host"
    "$DTRACE" -G -32 -s prov.d -o 32.o
    "$DTRACE" -G -64 -s prov.d -o 64.o
    elf_is 32.o i686
    elf_is 64.o x86_64
}

@test "without objects, CC and -32/-64 the object is for the host" {
    [ "$(uname -m)" = x86_64 ] || refused "expects an x86-64 host"
    "$DTRACE" -G -s prov.d -o host.o
    elf_is host.o x86_64
}

@test "CFLAGS with -m32 and a backslash-newline select the 32-bit variant" {
    [ "$(uname -m)" = x86_64 ] || refused "expects an x86-64 host"
    CFLAGS=$'-O2 \\\n  -m32 -g' "$DTRACE" -G -s prov.d -o m32.o
    elf_is m32.o i686
    CC=gcc CFLAGS=$'-O2 \\\n  -m32 -MD -MF deps.d -o junk' "$DTRACE" -G -s prov.d -o cc-m32.o
    elf_is cc-m32.o i686
    # the flags that would make the compiler write files were not passed
    [ ! -e deps.d ] && [ ! -e junk ] && [ ! -e null.d ]
}

# ---- cross builds that name no compiler: dtrace's name, DEB_HOST_GNU_TYPE --

# as NAME: $DTRACE as ./NAME, a link, as make install makes TRIPLET-dtrace.
as() { ln -sf "$DTRACE" "$1"; }

# The stderr line -v writes about the object: what it is and where from.
object_line() { grep '^dtrace: object: ' <<<"$1"; }

@test "installed as TRIPLET-dtrace, -G without objects or CC writes each of the 18 targets' objects" {
    local arch t
    for arch in $ALL_ARCHES; do
        t=$(arch_triple "$arch")
        as "$t-dtrace"
        "./$t-dtrace" -G -s prov.d -o "$arch.o"
        elf_is "$arch.o" "$arch"
    done
}

@test "in a cross build's environment, -G without objects or CC writes DEB_HOST_GNU_TYPE's object, for each of the 18" {
    local arch
    for arch in $ALL_ARCHES; do
        DEB_HOST_GNU_TYPE=$(arch_triple "$arch") "$DTRACE" -G -s prov.d -o "$arch.o"
        elf_is "$arch.o" "$arch"
    done
}

@test "the target comes from the objects, then dtrace's name, then CC, then DEB_HOST_GNU_TYPE, then the host; -v says which" {
    [ "$(uname -m)" = x86_64 ] || refused "expects an x86-64 host"
    as aarch64-linux-gnu-dtrace
    gcc -c x.c -o host.o
    run --separate-stderr env CC=gcc DEB_HOST_GNU_TYPE=s390x-linux-gnu ./aarch64-linux-gnu-dtrace -v -G -s prov.d -o 1.o host.o
    [ "$(object_line "$stderr")" = "dtrace: object: ELF64 little-endian x86-64, e_flags 0x0 (from host.o); hidden semaphores" ]
    elf_is 1.o x86_64
    run --separate-stderr env CC=gcc DEB_HOST_GNU_TYPE=s390x-linux-gnu ./aarch64-linux-gnu-dtrace -v -G -s prov.d -o 2.o
    [ "$(object_line "$stderr")" = "dtrace: object: ELF64 little-endian AArch64, e_flags 0x0 (from dtrace's name aarch64-linux-gnu-dtrace); hidden semaphores" ]
    elf_is 2.o aarch64
    run --separate-stderr env CC=gcc DEB_HOST_GNU_TYPE=s390x-linux-gnu "$DTRACE" -v -G -s prov.d -o 3.o
    [ "$(object_line "$stderr")" = "dtrace: object: ELF64 little-endian x86-64, e_flags 0x0 (from \$CC); hidden semaphores" ]
    elf_is 3.o x86_64
    run --separate-stderr env DEB_HOST_GNU_TYPE=s390x-linux-gnu "$DTRACE" -v -G -s prov.d -o 4.o
    [ "$(object_line "$stderr")" = "dtrace: object: ELF64 big-endian S/390, e_flags 0x0 (from \$DEB_HOST_GNU_TYPE s390x-linux-gnu); hidden semaphores" ]
    elf_is 4.o s390x
    # set but empty is not set
    run --separate-stderr env CC= DEB_HOST_GNU_TYPE= "$DTRACE" -v -G -s prov.d -o 5.o
    [ "$(object_line "$stderr")" = "dtrace: object: ELF64 little-endian x86-64, e_flags 0x0 (from the host); hidden semaphores" ]
    elf_is 5.o x86_64
}

@test "-32/-64, or else CFLAGS' -m32/-m64, choose within the family of dtrace's name or DEB_HOST_GNU_TYPE" {
    as x86_64-linux-gnu-dtrace
    ./x86_64-linux-gnu-dtrace -G -32 -s prov.d -o a.o
    elf_is a.o i686
    run --separate-stderr env CFLAGS="-O2 -m32" ./x86_64-linux-gnu-dtrace -v -G -s prov.d -o b.o
    [ "$(object_line "$stderr")" = "dtrace: object: ELF32 little-endian i386, e_flags 0x0 (from dtrace's name x86_64-linux-gnu-dtrace, then -m32/-m64 in \$CFLAGS); hidden semaphores" ]
    elf_is b.o i686
    run --separate-stderr env DEB_HOST_GNU_TYPE=aarch64-linux-gnu CFLAGS=-m64 "$DTRACE" -v -G -32 -s prov.d -o c.o
    [ "$(object_line "$stderr")" = "dtrace: object: ELF32 little-endian ARM, e_flags 0x5000000 (from \$DEB_HOST_GNU_TYPE aarch64-linux-gnu, then -32); hidden semaphores" ]
    elf_is c.o armhf
}

@test "GNU's triplets with a vendor, and i386 to i786, name the same targets as Debian's triplets" {
    local name debian
    while read -r name debian; do
        as "$name-dtrace"
        "./$name-dtrace" -G -s prov.d -o "$name.o"
        DEB_HOST_GNU_TYPE=$debian "$DTRACE" -G -s prov.d -o "$debian.o"
        cmp "$name.o" "$debian.o"
        DEB_HOST_GNU_TYPE=$name "$DTRACE" -G -s prov.d -o "env-$name.o"
        cmp "env-$name.o" "$debian.o"
    done <<'EOF'
aarch64-unknown-linux-gnu aarch64-linux-gnu
x86_64-pc-linux-gnu x86_64-linux-gnu
riscv64-unknown-linux-gnu riscv64-linux-gnu
mips64el-unknown-linux-gnuabi64 mips64el-linux-gnuabi64
x86_64-pc-linux-gnux32 x86_64-linux-gnux32
i386-linux-gnu i686-linux-gnu
i586-pc-linux-gnu i686-linux-gnu
EOF
    # not one target under every name
    ! cmp -s aarch64-linux-gnu.o x86_64-linux-gnu.o || false
}

@test "a name or DEB_HOST_GNU_TYPE naming no known target is an error when -G needs a target, and nothing is written" {
    local known="x86_64-linux-gnu, i686-linux-gnu, aarch64-linux-gnu, arm-linux-gnueabihf, arm-linux-gnueabi, powerpc64le-linux-gnu, powerpc64-linux-gnu, powerpc-linux-gnu, s390x-linux-gnu, mips64el-linux-gnuabi64, mipsel-linux-gnu, riscv64-linux-gnu, sparc64-linux-gnu, x86_64-linux-gnux32, m68k-linux-gnu, hppa-linux-gnu, alpha-linux-gnu, sh4-linux-gnu"
    as loongarch64-linux-gnu-dtrace
    echo old >out.o
    run --separate-stderr ./loongarch64-linux-gnu-dtrace -G -s prov.d -o out.o
    [ "$status" -eq 1 ]
    [ "$stderr" = "dtrace: error: dtrace's name: 'loongarch64-linux-gnu' is not a target dtrace knows ($known); call it dtrace, or pass an object file" ]
    [ -z "$output" ]
    [ "$(cat out.o)" = old ]
    run --separate-stderr env DEB_HOST_GNU_TYPE=arm64 "$DTRACE" -G -s prov.d -o new.o
    [ "$status" -eq 1 ]
    [ "$stderr" = "dtrace: error: DEB_HOST_GNU_TYPE: 'arm64' is not a target dtrace knows ($known); set CC to its compiler, or pass an object file" ]
    [ ! -e new.o ]
    # no temporary file either (bats keeps each stderr in a file here)
    [ -z "$(ls -A | grep -vxE 'loongarch64-linux-gnu-dtrace|out\.o|prov\.d|x\.c|separate-stderr-.*')" ]
    # an object gives the target: the name is not asked; -h needs none
    gcc -c x.c -o host.o
    ./loongarch64-linux-gnu-dtrace -G -s prov.d -o out.o host.o
    same_header out.o host.o Class Data Machine
    DEB_HOST_GNU_TYPE=arm64 "$DTRACE" -G -s prov.d -o new.o host.o
    ./loongarch64-linux-gnu-dtrace -h -s prov.d -o a.h
    "$DTRACE" -h -s prov.d -o b.h
    cmp a.h b.h
}

@test "a name whose prefix is no triplet (sdtkit-dtrace) is dtrace's own" {
    as sdtkit-dtrace
    ./sdtkit-dtrace -G -s prov.d -o s.o
    "$DTRACE" -G -s prov.d -o d.o
    cmp s.o d.o
}

@test "installed as TRIPLET-dtrace without TRIPLET-cpp on PATH, -C runs cpp; CPP comes first; -v says which" {
    as x86_64-pc-linux-gnu-dtrace
    run --separate-stderr ./x86_64-pc-linux-gnu-dtrace -v -C -h -s prov.d -o a.h
    [ "$status" -eq 0 ]
    [ "$(grep preprocessor <<<"$stderr")" = "dtrace: preprocessor: cpp (from the default)" ]
    "$DTRACE" -C -h -s prov.d -o b.h
    cmp a.h b.h
    # a directory of that name, or a file that may not be run, is not it
    mkdir -p bin/x86_64-pc-linux-gnu-cpp
    run --separate-stderr env PATH="$PWD/bin:$PATH" ./x86_64-pc-linux-gnu-dtrace -v -C -h -s prov.d -o c.h
    [ "$(grep preprocessor <<<"$stderr")" = "dtrace: preprocessor: cpp (from the default)" ]
    rmdir bin/x86_64-pc-linux-gnu-cpp
    printf '#!/bin/sh\nexit 1\n' >bin/x86_64-pc-linux-gnu-cpp
    run --separate-stderr env PATH="$PWD/bin:$PATH" ./x86_64-pc-linux-gnu-dtrace -v -C -h -s prov.d -o d.h
    [ "$status" -eq 0 ]
    [ "$(grep preprocessor <<<"$stderr")" = "dtrace: preprocessor: cpp (from the default)" ]
    run --separate-stderr env CPP="cpp -P" ./x86_64-pc-linux-gnu-dtrace -v -C -h -s prov.d -o e.h
    [ "$(grep preprocessor <<<"$stderr")" = "dtrace: preprocessor: cpp -P (from \$CPP)" ]
}

# bats test_tags=cross
@test "installed as TRIPLET-dtrace, -C runs TRIPLET-cpp: the target's predefined macros" {
    need_arch aarch64
    as aarch64-linux-gnu-dtrace
    printf '#ifdef __aarch64__\nprovider arm64 { probe a(); };\n#else\nprovider other { probe a(); };\n#endif\n' >t.d
    run --separate-stderr ./aarch64-linux-gnu-dtrace -v -C -h -s t.d -o t.h
    [ "$status" -eq 0 ]
    [ "$(grep preprocessor <<<"$stderr")" = "dtrace: preprocessor: aarch64-linux-gnu-cpp (from dtrace's name)" ]
    grep -q '^#define ARM64_A() ' t.h
    "$DTRACE" -C -h -s t.d -o host.h
    grep -q '^#define OTHER_A() ' host.h
}

# bats test_tags=normal-pass-only,cross
@test "each target's TRIPLET-dtrace, and DEB_HOST_GNU_TYPE, write the very bytes CC=TRIPLET-gcc writes" {
    local arch t
    for arch in $ALL_ARCHES; do
        need_arch "$arch"
        t=$(arch_triple "$arch")
        as "$t-dtrace"
        CC=$(arch_gcc "$arch") "$DTRACE" -G -s prov.d -o "cc-$arch.o"
        "./$t-dtrace" -G -s prov.d -o "name-$arch.o"
        DEB_HOST_GNU_TYPE=$t "$DTRACE" -G -s prov.d -o "deb-$arch.o"
        cmp "cc-$arch.o" "name-$arch.o"
        cmp "cc-$arch.o" "deb-$arch.o"
    done
}

# configure_like_ruby ARGS...: tests/autoconf (a configure that looks for
# dtrace as Ruby's does) configured here for aarch64, with bin/ first on
# PATH, as a cross build of it runs (no CC in the environment: make's).
configure_like_ruby() {
    cp "$ROOT"/tests/autoconf/* .
    autoconf
    env -u CC PATH="$PWD/bin:$PATH" ./configure --build=x86_64-linux-gnu --host=aarch64-linux-gnu \
        CPPFLAGS="-I$INCLUDE" "$@" >configure.out 2>&1 || { cat configure.out config.log; false; }
}

# a_probed_aarch64_program: what tests/autoconf's make built is an AArch64
# program with its two probes, their semaphores resolved.
a_probed_aarch64_program() {
    elf_is probes.o aarch64
    [ "$(field Machine probed)" = AArch64 ]
    "$SDT_LIST" --check probed
    [ "$("$SDT_LIST" probed | cut -f3 | sort | xargs)" = "start stop" ]
    # not 0: each semaphore has its address in .probes
    ! "$SDT_LIST" probed | cut -f6 | grep -qx '0x0*' || false
}

# bats test_tags=normal-pass-only,cross
@test "a configure that looks only for aarch64-linux-gnu-dtrace, as Ruby's does, finds it installed and builds a probed aarch64 program" {
    need_arch aarch64
    need_cmd autoconf make
    mkdir bin
    ln -s "$DTRACE" bin/dtrace
    ln -s dtrace bin/aarch64-linux-gnu-dtrace
    configure_like_ruby
    grep -qx 'checking for aarch64-linux-gnu-dtrace... aarch64-linux-gnu-dtrace' configure.out
    grep -qx 'checking whether dtrace USDT is available... yes' configure.out
    env -u CC -u DEB_HOST_GNU_TYPE PATH="$PWD/bin:$PATH" make >make.out 2>&1 || { cat make.out; false; }
    grep -qx 'aarch64-linux-gnu-dtrace -G -C -s probes.d -o probes.o' make.out
    a_probed_aarch64_program
}

# bats test_tags=normal-pass-only,cross
@test "given DTRACE=dtrace, that configure's build under DEB_HOST_GNU_TYPE, with no CC for dtrace, builds the probed aarch64 program" {
    need_arch aarch64
    need_cmd autoconf make
    mkdir bin
    ln -s "$DTRACE" bin/dtrace
    configure_like_ruby DTRACE=dtrace
    grep -qx 'checking whether dtrace USDT is available... yes' configure.out
    env -u CC DEB_HOST_GNU_TYPE=aarch64-linux-gnu PATH="$PWD/bin:$PATH" make >make.out 2>&1 ||
        { cat make.out; false; }
    grep -qx 'dtrace -G -C -s probes.d -o probes.o' make.out
    a_probed_aarch64_program
}

# bats test_tags=cross
@test "CC=aarch64-linux-gnu-gcc gives an AArch64 object, and -32 its 32-bit ARM sibling" {
    need_arch aarch64
    CC=aarch64-linux-gnu-gcc "$DTRACE" -G -s prov.d -o a64.o
    elf_is a64.o aarch64
    CC=aarch64-linux-gnu-gcc "$DTRACE" -G -32 -s prov.d -o a32.o
    elf_is a32.o armhf
}

# bats test_tags=cross
@test "CC selects class, byte order, machine and flags for each cross compiler" {
    for arch in $ARCHES; do
        need_arch "$arch"
        cc="$(arch_gcc "$arch")"
        CC="$cc" "$DTRACE" -G -s prov.d -o "$arch.o"
        "$cc" -c x.c -o "ref-$arch.o"
        same_header "$arch.o" "ref-$arch.o" Class Data Machine Flags
        # and as the table says (armhf's flags are armel's: gas and clang
        # record ARM's float ABI in .ARM.attributes, not e_flags)
        elf_is "$arch.o" "$arch"
    done
}

@test "a CC that does not work is a clear error" {
    run env CC=/nonexistent/gcc "$DTRACE" -G -s prov.d -o out.o
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot run '/nonexistent/gcc'"* ]]
    [ ! -e out.o ]
}

# bats test_tags=cross
@test "objects given set class, byte order, machine, OS ABI and flags" {
    need_arch riscv64; need_arch s390x
    riscv64-linux-gnu-gcc -c x.c -o rv.o
    "$DTRACE" -G -s prov.d -o out-rv.o rv.o
    same_header out-rv.o rv.o Class Data Machine Flags OS/ABI
    s390x-linux-gnu-gcc -c x.c -o s390.o
    "$DTRACE" -G -s prov.d -o out-s390.o s390.o
    elf_is out-s390.o s390x
}

# bats test_tags=cross
@test "objects override CC and -32/-64" {
    need_arch aarch64
    aarch64-linux-gnu-gcc -c x.c -o a64.o
    CC=gcc "$DTRACE" -G -32 -s prov.d -o out.o a64.o
    elf_is out.o aarch64
}

# bats test_tags=cross
@test "objects that disagree on the machine are an error" {
    need_arch aarch64
    gcc -c x.c -o host.o
    aarch64-linux-gnu-gcc -c x.c -o a64.o
    run "$DTRACE" -G -s prov.d -o out.o host.o a64.o
    [ "$status" -eq 1 ]
    [[ "$output" == *"a64.o is ELF64 little-endian AArch64"*"but host.o is"*"cannot be linked together"* ]]
    [ ! -e out.o ]
}

@test "a missing object file is an error" {
    run "$DTRACE" -G -s prov.d -o out.o missing.o
    [ "$status" -eq 1 ]
    [[ "$output" == *"cannot open 'missing.o': No such file or directory"* ]]
    [ ! -e out.o ]
}

# link_arch ARCH: compile a program referencing the semaphores with ARCH's
# cross compiler, link it with our object (made both from CC and from the
# program's own object), and check the semaphores resolve into .probes.
link_arch() {
    local cc
    need_arch "$1"
    cc="$(arch_gcc "$1")"
    echo 'extern unsigned short p_x_semaphore, p_y_semaphore;
int main(void) { return p_x_semaphore + p_y_semaphore; }' >main.c
    "$cc" -O2 -c main.c -o main.o
    CC="$cc" "$DTRACE" -G -s prov.d -o from-cc.o
    "$DTRACE" -G -s prov.d -o from-obj.o main.o
    for o in from-cc.o from-obj.o; do
        "$cc" main.o "$o" -o "main-$o"
        ix="$(probes_index "main-$o")"
        [ -n "$ix" ]
        # hidden: some linkers keep GLOBAL HIDDEN, others (s390x, riscv64)
        # turn it LOCAL; either way it is in .probes and not exported
        for s in p_x_semaphore p_y_semaphore; do
            readelf -sW "main-$o" | grep -E "OBJECT +(GLOBAL +HIDDEN|LOCAL +DEFAULT) +$ix $s$"
            ! readelf --dyn-syms -W "main-$o" | grep -q "$s" || false
        done
    done
}

@test "links and resolves on x86-64" { link_arch x86_64; }
# bats test_tags=cross
@test "links and resolves on i686" { link_arch i686; }
# bats test_tags=cross
@test "links and resolves on aarch64" { link_arch aarch64; }
# bats test_tags=cross
@test "links and resolves on armhf" { link_arch armhf; }
# bats test_tags=cross
@test "links and resolves on ppc64el" { link_arch ppc64el; }
# bats test_tags=cross
@test "links and resolves on s390x" { link_arch s390x; }
# bats test_tags=cross
@test "links and resolves on riscv64" { link_arch riscv64; }
# bats test_tags=cross
@test "links and resolves on armel" { link_arch armel; }
# bats test_tags=cross
@test "links and resolves on ppc64 (big-endian, ELFv1)" { link_arch ppc64; }
# bats test_tags=cross
@test "links and resolves on powerpc" { link_arch powerpc; }
# bats test_tags=cross
@test "links and resolves on mips64el" { link_arch mips64el; }
# bats test_tags=cross
@test "links and resolves on mipsel" { link_arch mipsel; }
# bats test_tags=cross
@test "links and resolves on sparc64" { link_arch sparc64; }
# bats test_tags=cross
@test "links and resolves on x32" { link_arch x32; }
# bats test_tags=cross
@test "links and resolves on m68k" { link_arch m68k; }
# bats test_tags=cross
@test "links and resolves on hppa" { link_arch hppa; }
# bats test_tags=cross
@test "links and resolves on alpha" { link_arch alpha; }
# bats test_tags=cross
@test "links and resolves on sh4" { link_arch sh4; }

@test "every architecture of tests/arches.table has its test of linking and resolving" {
    local want got
    want=$(printf '%s\n' $ALL_ARCHES | sort)
    got=$(sed -n 's/^@test ".*" { link_arch \([a-z0-9_]*\); }$/\1/p' "$BATS_TEST_FILENAME" | sort)
    diff <(echo "$want") <(echo "$got")
}

# Every target: the object CC gives has the class, byte order, machine,
# OS ABI and flags of the compiler's own data-only object (and the table's),
# links with ld -r and into a static program (whose semaphores resolve into
# .probes), and -G reads the notes of a program built with the target's
# compiler and a dtrace -h header.  Then, where qemu-user runs the target
# (tests/arches.table, column run), that program's probe, guarded by its
# semaphore, fires under gdb: the program alone prints "fired 0"; under
# gdb, with a breakpoint on the probe, gdb raises the semaphore, the probe
# is hit with the semaphore at 1 and its argument 42 (where gdb parses
# arguments: column gdb), and the program prints "fired 1".  Targets run
# in parallel (background jobs), each in its own directory, built once for
# both tests: the second only runs programs (qemu, gdb), so the sanitizer
# pass leaves it out.

# arch_build ARCH: the checks above up to the fire program, built but not
# run, in $BATS_FILE_TMPDIR/arches/ARCH (once: the file "built" says so).
arch_build() {
    local a=$1 cc f ix link=-static
    cc="$(arch_gcc "$a")"
    mkdir -p "$BATS_FILE_TMPDIR/arches/$a" && cd "$BATS_FILE_TMPDIR/arches/$a"
    [ ! -f built ] || return 0
    printf 'provider p { probe x(int); probe y(); };\n' >prov.d
    echo 'extern unsigned short p_x_semaphore, p_y_semaphore;
int main(void) { return p_x_semaphore + p_y_semaphore; }' >main.c
    echo 'int x;' >x.c
    printf '%s\n' '#include <stdio.h>' '#include "prov.h"' \
        'int main(void) {' '    int fired = 0;' \
        '    if (P_X_ENABLED()) { P_X(42); fired = 1; }' \
        '    printf("fired %d\n", fired);' '    return 0;' '}' >fire.c
    # what dtrace makes: the rest only checks these bytes
    CC="$cc" "$DTRACE" -G -s prov.d -o g.o
    "$DTRACE" -h -s prov.d -o prov.h
    "$cc" -O2 -g -I "$INCLUDE" -c fire.c -o fire.o
    "$DTRACE" -G -s prov.d -o fire-g.o fire.o
    [ "$(arch_field "$a" run)" != dynamic ] || link=
    "$cc" $link fire.o fire-g.o -o fire
    "$cc" -c x.c -o ref.o
    same_header g.o ref.o Class Data Machine Flags OS/ABI || { echo "$a: the header differs"; return 1; }
    elf_is g.o "$a"
    "$(arch_triple "$a")-ld" -r g.o ref.o -o r.o
    "$cc" -O2 -c main.c -o main.o
    "$cc" -static main.o g.o -o main
    ix="$(probes_index main)"
    [ -n "$ix" ] || { echo "$a: no .probes"; return 1; }
    for s in p_x_semaphore p_y_semaphore; do
        readelf -sW main | grep -qE "OBJECT +(GLOBAL +HIDDEN|LOCAL +DEFAULT) +$ix $s$" || { echo "$a: $s unresolved"; return 1; }
    done
    touch built
    echo "$a ok (object as the compiler's, linked; notes read)"
}

# arch_fire ARCH: ARCH's fire program (arch_build) alone and under gdb.
arch_fire() {
    local a=$1 qemu out gdb=gdb-multiarch sysroot=() gdbroot=() runner=()
    arch_build "$a"
    if [ "$(arch_field "$a" run)" = - ]; then
        echo "$a ok (not run)"
        return 0
    fi
    if [ "$(arch_field "$a" run)" = dynamic ]; then
        sysroot=(-L "/usr/$(arch_triple "$a")") gdbroot=(-ex "set sysroot /usr/$(arch_triple "$a")")
    fi
    qemu=$(arch_field "$a" qemu)
    [ "$qemu" = - ] || runner=("$qemu" "${sysroot[@]}")
    out=$(timeout "$HANG_SECONDS" "${runner[@]}" ./fire)
    [ "$out" = "fired 0" ] || { echo "$a: alone: $out"; return 1; }
    set -- -batch -nx -ex 'set pagination off' -ex 'set breakpoint always-inserted on' -ex "file $PWD/fire"
    if [ "$qemu" = - ]; then
        gdb=gdb
        set -- "$@" -ex 'break -probe-stap p:x' -ex "run >$PWD/out.txt"
    else
        qemu_gdb_start "${runner[@]}" ./fire >out.txt || return 1
        set -- "$@" "${gdbroot[@]}" -ex "target remote :$QEMU_PORT" -ex 'break -probe-stap p:x' -ex continue
    fi
    # breakpoints stay in while stopped: gdb lowers the semaphore when it
    # takes a probe's breakpoint out
    timeout "$HANG_SECONDS" "$gdb" "$@" -ex 'printf "semaphore %d\n", *(unsigned short *)&p_x_semaphore' \
        -ex 'printf "arg0 %d\n", $_probe_arg0' -ex continue >gdb.txt 2>&1
    [ "$qemu" = - ] || qemu_reap "$QEMU_PID"
    grep -q '^semaphore 1$' gdb.txt || { echo "$a: semaphore not raised at the probe"; cat gdb.txt; return 1; }
    [ "$(cat out.txt)" = "fired 1" ] || { echo "$a: under gdb: $(cat out.txt)"; cat gdb.txt; return 1; }
    if [ "$(arch_field "$a" gdb)" = yes ]; then
        grep -q '^arg0 42$' gdb.txt || { echo "$a: arg0 not 42"; cat gdb.txt; return 1; }
        echo "$a ok (fired under gdb, semaphore 1, arg0 42)"
    else
        grep -q 'not fully implemented on this target' gdb.txt || { echo "$a: gdb now reads arguments"; cat gdb.txt; return 1; }
        echo "$a ok (fired under gdb, semaphore 1; gdb has no argument parser)"
    fi
}

# each_arch FUNCTION: FUNCTION ARCH for every architecture at once, each
# logging to ARCH.log here; a failing one's log is shown, and every "ok"
# line goes to the TAP output.
each_arch() {
    local a i pids=() names=() bad=0
    for a in $ALL_ARCHES; do
        ( "$1" "$a" ) >"$a.log" 2>&1 & pids+=($!) names+=("$a")
    done
    for i in "${!pids[@]}"; do
        wait "${pids[$i]}" || { echo "== ${names[$i]}"; cat "${names[$i]}.log"; bad=1; }
    done
    cat ./*.log | grep ' ok' >&3
    [ "$bad" = 0 ]
}

# bats test_tags=cross
@test "on every target the object matches the compiler's and the table, links with ld -r and statically, and -G reads the target's notes" {
    for a in $ALL_ARCHES; do need_arch "$a"; done
    each_arch arch_build
}

# bats test_tags=normal-pass-only,cross
@test "on every target qemu-user runs, a probe built with -h and -G fires under gdb with the semaphore raised" {
    need_cmd gdb gdb-multiarch timeout
    for a in $ALL_ARCHES; do
        need_arch "$a"
        [ "$(arch_field "$a" qemu)" = - ] || need_cmd "$(arch_field "$a" qemu)"
    done
    each_arch arch_fire
}

@test "links with bfd, gold, lld and mold, into programs and shared libraries" {
    "$DTRACE" -G -s prov.d -o prov.o
    echo 'extern unsigned short p_x_semaphore; int main(void) { return p_x_semaphore; }' >main.c
    echo 'extern unsigned short p_x_semaphore; int f(void) { return p_x_semaphore; }' >lib.c
    gcc -fPIC -c lib.c -o lib.o
    n=0
    for ld in bfd gold lld mold; do
        prog="ld.$ld"
        [ "$ld" = mold ] && prog=mold
        need_cmd "$prog"
        gcc -fuse-ld=$ld main.c prov.o -o "main-$ld"
        "./main-$ld"
        gcc -fuse-ld=$ld -shared lib.o prov.o -o "lib-$ld.so"
        readelf -sW "lib-$ld.so" | grep -q p_x_semaphore
        ! readelf --dyn-syms -W "lib-$ld.so" | grep -q p_x_semaphore || false
        n=$((n + 1))
    done
    [ "$n" -eq 4 ]
}

@test "control-flow protection marking survives linking with the object (x86 IBT/SHSTK)" {
    [ "$(uname -m)" = x86_64 ] || refused "expects an x86-64 host"
    "$DTRACE" -G -s prov.d -o prov.o
    readelf -n prov.o | grep -q 'x86 feature: IBT, SHSTK'
    echo 'extern unsigned short p_x_semaphore; int f(void) { return p_x_semaphore; }' >f.c
    gcc -fcf-protection=full -c f.c -o f.o
    # the linker keeps a feature only when every input has it
    ld -r f.o prov.o -o merged.o -z cet-report=error
    readelf -n merged.o | grep -q 'x86 feature: IBT, SHSTK'
    echo 'int g(void) { return 0; }' >g.c
    gcc -fcf-protection=none -c g.c -o plain.o
    ld -r f.o plain.o -o lost.o
    ! readelf -n lost.o | grep -q 'x86 feature: IBT, SHSTK'
}

# bats test_tags=cross
@test "AArch64 BTI/PAC marking survives linking with the object" {
    need_arch aarch64
    CC=aarch64-linux-gnu-gcc "$DTRACE" -G -s prov.d -o prov.o
    readelf -n prov.o | grep -q 'AArch64 feature: BTI, PAC'
    echo 'extern unsigned short p_x_semaphore; int f(void) { return p_x_semaphore; }' >f.c
    aarch64-linux-gnu-gcc -mbranch-protection=standard -c f.c -o f.o
    aarch64-linux-gnu-ld -r f.o prov.o -o merged.o
    readelf -n merged.o | grep -q 'AArch64 feature: BTI, PAC'
}

@test "a probe used but not declared, or with another argument count, is a warning" {
    probe_user use.o
    run --separate-stderr "$DTRACE" -G -s prov.d -o prov.o use.o
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"warning: use.o: probe 'p:x' is used with 1 argument but declared with 2"* ]]
    [[ "$stderr" == *"prov.d:2:11: note: 'p:x' is declared here"* ]]
    [[ "$stderr" == *"warning: use.o: probe 'p:ghost' is used in the code but not declared in provider 'p'"* ]]
    [[ "$stderr" != *"other"* ]]
    [[ "$stderr" != *"'p:y'"* ]]
    [ "$(grep -c "p:ghost" <<<"$stderr")" -eq 1 ]
    readelf -sW prov.o | grep -q p_x_semaphore
}

@test "matching probes give no warning at all" {
    echo '#include <sys/sdt.h>
void f(int a, char *s) { DTRACE_PROBE2(p, x, a, s); DTRACE_PROBE(p, y); }' >ok.c
    gcc -O2 -I"$SDT_INC" -c ok.c -o ok.o
    run --separate-stderr "$DTRACE" -G -s prov.d -o prov.o ok.o
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
}

@test "objects with 8-byte aligned property notes (-fcf-protection) read without a warning" {
    [ "$(uname -m)" = x86_64 ] || refused "expects an x86-64 host"
    echo '#include <sys/sdt.h>
void f(int a, char *s) { DTRACE_PROBE2(p, x, a, s); }' >cet.c
    gcc -fcf-protection=full -O2 -I"$SDT_INC" -c cet.c -o cet.o
    readelf -SW cet.o | grep -E '\.note\.gnu\.property +NOTE .* 8$'
    run --separate-stderr "$DTRACE" -G -s prov.d -o prov.o cet.o
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    # and our own object, which has such a note too, reads back cleanly
    run --separate-stderr "$DTRACE" -G -s prov.d -o again.o prov.o
    [ -z "$stderr" ]
}

# bats test_tags=cross
@test "notes of 32-bit and big-endian objects are read too" {
    n=0
    for arch in i686 s390x armhf; do
        need_arch "$arch"
        CC="$(arch_gcc "$arch")" probe_user "use-$arch.o"
        run --separate-stderr "$DTRACE" -G -s prov.d -o "prov-$arch.o" "use-$arch.o"
        [ "$status" -eq 0 ]
        [[ "$stderr" == *"use-$arch.o: probe 'p:ghost' is used in the code but not declared"* ]]
        n=$((n + 1))
    done
}

@test "archive members are read and named in warnings" {
    probe_user use.o
    echo 'int other;' >other.c
    gcc -c other.c -o other.o
    ar rcs libuse.a other.o use.o
    run --separate-stderr "$DTRACE" -G -s prov.d -o prov.o libuse.a
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"libuse.a(use.o): probe 'p:ghost'"* ]]
    [ "$(field Machine prov.o)" = "$(field Machine use.o)" ]
}

@test "thin archives are read through their members; absent members are tolerated" {
    mkdir objs
    probe_user objs/use.o
    echo 'int gone;' >gone.c
    gcc -c gone.c -o objs/gone.o
    ar rcsT libthin.a objs/use.o objs/gone.o
    head -c 8 libthin.a | grep -q '!<thin>'
    rm objs/gone.o
    run --separate-stderr "$DTRACE" -v -G -s prov.d -o prov.o libthin.a
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"objs/use.o: probe 'p:ghost'"* ]]
    [[ "$stderr" == *"objs/gone.o: not found; skipped"* ]]
}

@test "objects without notes, GCC LTO objects and LLVM bitcode are accepted quietly" {
    echo 'int x(int a) { return a + 1; }' >x.c
    gcc -c x.c -o plain.o
    gcc -flto -c x.c -o lto.o
    clang -flto -c x.c -o bitcode.o
    run --separate-stderr "$DTRACE" -G -s prov.d -o prov.o plain.o lto.o bitcode.o
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    run --separate-stderr "$DTRACE" -v -G -s prov.d -o prov.o lto.o bitcode.o
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"lto.o: GCC LTO object without probe notes"* ]]
    [[ "$stderr" == *"bitcode.o: LLVM bitcode (LTO)"* ]]
}

@test "libtool .lo files are followed to their object" {
    mkdir .libs
    probe_user .libs/use.o -fPIC
    cat >use.lo <<'EOF'
# use.lo - a libtool object file
# Generated by libtool (GNU libtool) 2.4.7
pic_object='.libs/use.o'
non_pic_object=none
EOF
    run --separate-stderr "$DTRACE" -G -s prov.d -o prov.o use.lo
    [ "$status" -eq 0 ]
    [[ "$stderr" == *".libs/use.o: probe 'p:ghost'"* ]]
}

@test "a file that is not an object is a warning and is skipped" {
    echo 'not an object' >notes.txt
    run --separate-stderr "$DTRACE" -G -s prov.d -o prov.o notes.txt
    [ "$status" -eq 0 ]
    [[ "$stderr" == *"warning: notes.txt: not an ELF object, archive or libtool object; ignored"* ]]
    [ -f prov.o ]
}

@test "truncated and corrupted objects never crash the reader" {
    probe_user use.o
    ar rcs lib.a use.o
    size="$(stat -c %s use.o)"
    for n in 4 16 40 63 64 100 300 $((size / 2)) $((size - 1)); do
        head -c "$n" use.o >cut.o
        run timeout 10 "$DTRACE" -G -s prov.d -o out.o cut.o
        [ "$status" -lt 2 ] || { echo "status $status at $n bytes"; return 1; }
    done
    asize="$(stat -c %s lib.a)"
    for n in 8 30 68 $((asize / 2)) $((asize - 1)); do
        head -c "$n" lib.a >cut.a
        run timeout 10 "$DTRACE" -G -s prov.d -o out.o cut.a
        [ "$status" -lt 2 ] || { echo "status $status at $n bytes"; return 1; }
    done
    # overwrite the section header offset, count and string index with junk
    for off in 40 48 58 60 62; do
        cp use.o junk.o
        printf '\377\377\377\377' | dd of=junk.o bs=1 seek="$off" conv=notrunc status=none
        run timeout 10 "$DTRACE" -G -s prov.d -o out.o junk.o
        [ "$status" -lt 2 ] || { echo "status $status with junk at $off"; return 1; }
    done
}

@test "-h ignores object files" {
    run "$DTRACE" -h -s prov.d -o prov.h whatever.o
    [ "$status" -eq 0 ]
}
