#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Run-time probes on every architecture Debian builds (issue 20, section 4).
#
# Offline, all 18 targets: tests/runtime/mkdso.c writes the object of the
# run-time library (lib/dso.c) for a target whose identity it takes from a
# shared library the target's compiler linked, as the library takes its own
# header; readelf, sdt-list --check, the target's GCC (operands), assembler
# and objdump (stubs) and linker judge it.
#
# Running: the run-time library is built for each target as libsdtkit.so.1
# with tests/runtime/archprobes.c, run under qemu-user (natively on
# x86-64), where it loads its provider and fires every probe; gdb (gdb-
# multiarch on qemu's gdb stub) stops at every probe after the provider is
# loaded, raises its semaphore for the program, and reads every argument
# where it has a parser for the target.
#
# Everything is built once, in setup_file, two targets at a time; the tests
# read what was built.  Per-target expectations: tests/runtime/targets.
# bats file_tags=cross

load helpers

TARGETS="$ROOT/tests/runtime/targets"
# archprobes' probes, in the order it fires them
PROBES="u8 i8 u16 i16 u32 i32 u64 i64 ptr str flt dbl all none"

# TARGET["ARCH N"]: field N of ARCH's row of tests/runtime/targets (1 the
# arch, 2 class, 3 data, 4 machine, 5 gdb, 6 tdesc, 7 gccflags, 8 far,
# 9 prologue, 10 stub), blanks around it trimmed: one awk when the suite
# loads, and a test then asks bash alone (some 200 times a run).
declare -gA TARGET
eval "$(awk -F '|' '
    function q(s) { gsub(/\047/, "\047\\\047\047", s); return "\047" s "\047" }
    /^#/ || !NF { next }
    { k = $1; gsub(/ /, "", k)
      for (i = 1; i <= NF; i++) { v = $i; sub(/^ +/, "", v); sub(/ +$/, "", v)
          printf "TARGET[%s]=%s\n", q(k " " i), q(v) } }' "$TARGETS")"

# ---- Building, once -----------------------------------------------------

# prepare ARCH: in $W/ARCH, everything the tests read.  Steps that fail
# leave their output missing; prepare.log says why.
prepare() {
    local a=$1 cc triple flags far pro stub objdump nm via
    cd "$W/$a" || return 1
    cc=$(arch_gcc "$a")
    triple=${ARCH_TABLE["$a 2"]}
    command -v "$cc" >/dev/null || { echo "$cc is not installed"; return 0; }
    printf '#include <stdio.h>\nint main(void) { return puts("hello") < 0; }\n' >hello.c
    # need_arch's own test: the compiler links a static program (of the
    # object the dynamic hello-world below is linked from too)
    "$cc" -c hello.c -o hello.o && "$cc" -static hello.o -o hello-static && touch cc-ok || return 0

    # the object, for a shared library's identity
    echo 'int f(void) { return 0; }' >ref.c
    "$cc" -shared -fPIC ref.c -o ref.so || return 1
    "$W/mkdso" ref.so rt.so || return 1
    # what the tests read of it: one readelf, its parts cut apart (readelf
    # -h, -S, -l, -d, --syms and -n, each without its preamble)
    readelf -hW ref.so >ref.h
    readelf -hlSndW --syms rt.so | awk '/^ELF Header:/ { f = "rt.h" }
        /^Section Headers:/ { f = "rt.S" } /^Program Headers:/ { f = "rt.l" }
        /^Dynamic section at/ { f = "rt.d" } /^Symbol table / && f != "rt.syms" { f = "rt.syms" }
        /^Displaying notes/ { f = "rt.n" } f != "" { print >f }'

    # what GCC prints for the memory of each slot: a word at p+8*i (at
    # q+8*i-far past a second register's start)
    flags=${TARGET[$a 7]} far=${TARGET[$a 8]}
    [ "$flags" != - ] || flags=
    awk -v far="$far" 'BEGIN {
        print "void f(char *p, char *q) {"
        for (i = 0; i < 12; i++) {
            b = "p"; d = 8 * i
            if (far != "-" && d >= far) { b = "q"; d -= far }
            printf "    __asm__ volatile(\"@OP %d %%0\" :: \"m\"(*(int *)(%s + %d)));\n", i, b, d
        }
        print "}" }' >ops.c
    "$cc" -O2 $flags -S ops.c -o ops.s || return 1
    sed -n 's/.*@OP \([0-9]*\) \(.*\)$/\1 \2/p' ops.s | sed 's/[[:space:]]*$//' >gcc-operands

    # the stub as the target's assembler writes it, with labels at the
    # probe instruction and the end
    pro=${TARGET[$a 9]} stub=${TARGET[$a 10]}
    {
        echo 'start:'
        [ "$pro" = - ] || echo "$pro" | tr ';' '\n'
        echo 'probe:'
        echo "$stub" | tr ';' '\n'
        echo 'end:'
    } | sed 's/^ */\t/; s/^\t\([a-z]*:\)$/\1/' >stub.s
    "$cc" -c stub.s -o stub.o || return 1
    objdump=$(arch_tool "$a" objdump) nm=$(arch_tool "$a" nm)
    if command -v "$objdump" >/dev/null && command -v "$nm" >/dev/null; then
        "$objdump" -d stub.o >stub.dis && "$nm" stub.o >stub.nm && "$objdump" -d rt.so >rt.dis || return 1
    fi

    # a program of the target linked against the object (which exports no
    # symbol: the stubs are named in .symtab)
    echo 'int main(void) { return 0; }' >call.c
    "$cc" call.c -Wl,--no-as-needed rt.so -Wl,--fatal-warnings -o call >link.log 2>&1 &&
        readelf -dW call >call.d

    # the run-time library for the target, and a program using it
    local srcs
    mapfile -t srcs <<<"$RT_SRCS"
    local rt=(-std=c11 -O2 -g -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L
        "-DSDTKIT_VERSION=\"$(cat "$ROOT/VERSION")\"" -I "$ROOT/include")
    "$cc" "${rt[@]}" -fPIC -shared -Wl,-soname,libsdtkit.so.1 -Wl,-z,defs \
        -Wl,--version-script="$ROOT/runtime/sdtkit.map" -o libsdtkit.so.1 \
        "${srcs[@]}" -ldl -lpthread || return 1
    # not PIE: qemu's gdb stub reports section offsets that gdb applies to
    # .text and .data alone, and a PIE's other sections (.dynamic) are then
    # where gdb does not look
    "$cc" "${rt[@]}" -no-pie "$ROOT/tests/runtime/archprobes.c" ./libsdtkit.so.1 \
        -Wl,-rpath,"$PWD" -o prog || return 1
    "$cc" hello.o -o hello || return 1

    # What the machine runs: a dynamic hello-world of the target.
    local q=${ARCH_TABLE["$a 4"]}
    case $q in -) via=() ;; *) via=("$q" -L "/usr/$triple") ;; esac
    if [ "$q" != - ] && ! command -v "$q" >/dev/null; then
        echo "$q is not installed"
        return 0
    fi
    local status=0
    timeout "$HANG_SECONDS" "${via[@]}" ./hello >hello.out 2>&1 || status=$?
    if [ "$status" != 0 ] || [ "$(cat hello.out)" != hello ]; then
        [ "$q" != - ] || q="this kernel"
        echo "$q does not run a dynamic hello-world of $a (status $status: $(head -c 120 hello.out | tr '\n' ' '))" >refused
        return 0
    fi
    touch runs
    # alone: no tracer, every probe reads disabled
    timeout "$HANG_SECONDS" "${via[@]}" ./prog want.txt >alone.txt 2>&1 || echo "prog exited $?" >>alone.txt
    # gdb's file system: qemu's (the target's /usr/TRIPLET over the host's),
    # where the loader's /proc/QEMUPID/fd/N is the host's
    mkdir root
    ln -s /* root/
    ln -sfn /usr/"$triple"/* root/
}

# ---- Reading what was built ---------------------------------------------

# notes_tsv ARCH: ARCH/notes.tsv, the object's probes, one a line:
# "name<TAB>pc<TAB>base<TAB>semaphore<TAB>arguments" (made once).
notes_tsv() {
    [ -e "$W/$1/notes.tsv" ] ||
        awk '/^ *Name: / { n = $2 } /Location: / { gsub(/,/, ""); pc = $2; base = $4; sem = $6 }
            /^ *Arguments:/ { sub(/^ *Arguments: ?/, ""); printf "%s\t%s\t%s\t%s\t%s\n", n, pc, base, sem, $0 }' \
            "$W/$1/rt.n" >"$W/$1/notes.tsv"
}

# ARGS_AWK: an awk function, split_args(S, A): the arguments of argument
# string S (notes.tsv's fifth field) into A[1..n], returning n (an operand
# may hold a space: "[x0, 8]").
ARGS_AWK='function split_args(s, arg,   w, n, i, k) {
    n = split(s, w, " "); k = 0
    for (i = 1; i <= n; i++)
        if (w[i] ~ /^-?[0-9]+@/) arg[++k] = w[i]; else if (k) arg[k] = arg[k] " " w[i]
    return k
}'

# probe_args ARCH PROBE...: each argument of each PROBE, in the notes'
# order, as "probe<TAB>size<TAB>operand" (one awk for them all).
probe_args() {
    local a=$1
    shift
    notes_tsv "$a" &&
        awk -F '\t' -v p=" $* " "$ARGS_AWK"' index(p, " " $1 " ") {
            n = split_args($5, arg)
            for (i = 1; i <= n; i++) { at = index(arg[i], "@"); print $1 "\t" substr(arg[i], 1, at - 1) "\t" substr(arg[i], at + 1) } }' \
            "$W/$a/notes.tsv"
}

# check_operands ARCH: every argument's operand is the memory of its slot as
# ARCH's GCC prints it (gcc-operands), and its size is its type's.
check_operands() {
    local a=$1 i ptr sizes ops k probe size op gcc gccops slot0 l
    local -A first
    mapfile -t gcc <"$W/$a/gcc-operands"
    [ "${#gcc[@]}" -eq 12 ] || { echo "$a: GCC printed"; cat "$W/$a/gcc-operands"; return 1; }
    printf -v gccops '%s\n' "${gcc[@]}"
    slot0=
    for l in "${gcc[@]}"; do
        case $l in "0 "*) slot0+="${slot0:+$'\n'}${l#0 }" ;; esac
    done
    # the operands of all, numbered from 0, and its sizes; the operands of
    # the others
    ops= sizes= k=0
    while IFS=$'\t' read -r probe size op; do
        case $probe in
            all) ops+="${ops:+$'\n'}$k $op" sizes+="$size " k=$((k + 1)) ;;
            *) first[$probe]+="${first[$probe]:+$'\n'}$op" ;;
        esac
    done < <(probe_args "$a" all u8 str dbl none)
    [ "$ops" = "${gccops%$'\n'}" ] ||
        { echo "$a: the note's operands, then GCC's:"; echo "$ops"; cat "$W/$a/gcc-operands"; return 1; }
    ptr=8
    [ "${TARGET[$a 2]}" = ELF64 ] || ptr=4
    [ "$sizes" = "1 -1 2 -2 4 -4 8 -8 $ptr $ptr 4 8 " ] || { echo "$a: sizes $sizes"; return 1; }
    # a one-argument probe reads slot 0
    for i in u8 str dbl; do
        [ "${first[$i]-}" = "$slot0" ] || { echo "$a: $i reads ${first[$i]-}, slot 0 is $slot0"; return 1; }
    done
    [ -z "${first[none]-}" ] || { echo "$a: none has arguments"; return 1; }
}

# HEX: an awk function, hex digits to a number (mawk has no strtonum).
HEX='function hex(s,  i, n) { n = 0; for (i = 1; i <= length(s); i++) n = n * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1; return n }'

# INSN_AWK: an awk function, insn(): whether the line is an instruction
# objdump -d shows (fields split at tabs), setting ia to its address (a
# number), ib to its bytes and ii to the instruction (blanks squeezed).
INSN_AWK='function insn(  k) {
    if ($0 !~ /^ *[0-9a-f]+:\t/) return 0
    ia = $1; sub(/:$/, "", ia); sub(/^ +/, "", ia); ia = hex(ia); ii = $3
    for (k = 4; k <= NF; k++) ii = ii " " $k
    ib = $2; gsub(/[ ]+/, " ", ib); sub(/ $/, "", ib); gsub(/[ ]+/, " ", ii); sub(/ $/, "", ii)
    return 1
}'

# stubs ARCH: each probe of the object as "name<TAB>size<TAB>the note's pc
# minus the symbol<TAB>its instructions, ' | ' between them" (one awk reads
# the symbols, the notes and the instructions).
stubs() {
    notes_tsv "$1" &&
        awk -F '\t' "$HEX$INSN_AWK"'
            FILENAME ~ /rt\.syms$/ { split($0, f, " ")
                if (f[4] == "FUNC") { n[++k] = f[8]; sym[f[8]] = hex(f[2]); size[f[8]] = f[3] }
                next }
            FILENAME ~ /notes\.tsv$/ { pc[$1] = hex(substr($2, 3)); next }
            insn() { for (i = 1; i <= k; i++) if (ia >= sym[n[i]] && ia < sym[n[i]] + size[n[i]])
                    code[n[i]] = code[n[i]] (code[n[i]] == "" ? "" : " | ") ib " " ii }
            END { for (i = 1; i <= k; i++) print n[i] "\t" size[n[i]] "\t" pc[n[i]] - sym[n[i]] "\t" code[n[i]] }' \
            "$W/$1/rt.syms" "$W/$1/notes.tsv" "$W/$1/rt.dis"
}

# assembled ARCH: the stub as the target's assembler wrote it: the offsets
# of its labels probe and end, the instructions before end as "bytes
# instruction", ' | ' between them, and the same as "instruction", '; '
# between them, a line each (one awk).
assembled() {
    awk -F '\t' "$HEX$INSN_AWK"'
        FILENAME ~ /\.nm$/ { split($0, f, " "); if (f[3] == "probe" || f[3] == "end") at[f[3]] = hex(f[1]); next }
        insn() { i[++n] = ia; b[n] = ib; t[n] = ii }
        END { print at["probe"]; print at["end"]
            for (k = 1; k <= n; k++) if (i[k] < at["end"]) { w = w (w == "" ? "" : " | ") b[k] " " t[k]; s = s (s == "" ? "" : "; ") t[k] }
            print w; print s }' "$W/$1/stub.nm" "$W/$1/stub.dis"
}

# check_stubs ARCH: every stub is ARCH's nop then its return, after its
# prologue, as ARCH's assembler writes them; says on fd 3 what they are.
check_stubs() {
    local a=$1 probe end want shown name size at code count=0
    { read -r probe; read -r end; IFS= read -r want; IFS= read -r shown; } < <(assembled "$a")
    [ -n "$want" ] || { echo "$a: the assembler's stub has no instruction"; return 1; }
    while IFS=$'\t' read -r name size at code; do
        count=$((count + 1))
        [ "$size" -eq "$end" ] || { echo "$a: $name is $size bytes, the assembler's $end"; return 1; }
        [ "$code" = "$want" ] || { echo "$a: $name: $code"; echo "the assembler's: $want"; return 1; }
        [ "$at" -eq "$probe" ] || { echo "$a: $name's note is $at bytes in, its probe instruction $probe"; return 1; }
    done < <(stubs "$a")
    [ "$count" -eq 14 ] || { echo "$a: $count stubs"; return 1; }
    echo "# $a: $shown" >&3
}

# sections ARCH: the object's sections, as "name addr size" (hex).
sections() {
    awk '{ sub(/^ *\[ *[0-9]*\] /, "") } $1 ~ /^\./ { print $1, $3, $5 }' "$W/$1/rt.S"
}

# segments ARCH: the object's program headers, as "type offset vaddr
# filesz flags align" (flags without blanks: "RE", "RW").
segments() {
    awk '$1 ~ /^[A-Z_]+$/ && $2 ~ /^0x/ {
        f = ""; for (i = 7; i < NF; i++) f = f $i
        print $1, $2, $3, $5, f, $NF }' "$W/$1/rt.l"
}

# check_layout ARCH: what the loader and the tracers rely on (see lib/dso.c).
check_layout() {
    local a=$1 type off vaddr size flags align n=0 rx_end=0 rw_lo=0 rw_hi=0 names want
    local name addr base text_lo text_hi probes_lo probes_hi pc sem notes=0 secs=()
    local -A sec_addr sec_size
    while read -r type off vaddr size flags align; do
        n=$((n + 1))
        case $n:$type in
        1:LOAD) [ $((off)) -eq 0 ] && [ $((vaddr)) -eq 0 ] && [ "$flags" = RE ] && [ "$align" = 0x10000 ] ||
            { echo "$a: the first load is not code at 0, 64 KiB aligned"; return 1; }
            rx_end=$((size)) ;;
        # the data at the next 64 KiB, right after the code: no hole
        # between them for a loader to map or leave
        2:LOAD) [ $((vaddr)) -eq $((off)) ] && [ $((vaddr % 65536)) -eq 0 ] &&
            [ $((vaddr)) -eq "$rx_end" ] && [ "$flags" = RW ] && [ "$align" = 0x10000 ] ||
            { echo "$a: the second load is not data at the 64 KiB after the code"; return 1; }
            rw_lo=$((vaddr)) rw_hi=$((vaddr + size)) ;;
        3:DYNAMIC | 4:NOTE) ;;
        5:GNU_STACK) [ "$flags" = RW ] || { echo "$a: an executable stack"; return 1; } ;;
        *) echo "$a: segment $n is $type"; return 1 ;;
        esac
    done < <(segments "$a")
    [ "$n" -eq 5 ] || { echo "$a: $n segments"; return 1; }
    # the sections, read once: in order (secs) and by name
    while read -r name addr size; do
        secs+=("$name") sec_addr[$name]=$addr sec_size[$name]=$size
    done < <(sections "$a")
    names="${secs[*]} "
    want=".note.gnu.build-id .hash .dynsym .dynstr .text .stapsdt.base .dynamic "
    [ "${TARGET[$a 4]}" != "MIPS R3000" ] || want+=".got "
    want+=".probes .shstrtab .note.stapsdt .symtab .strtab "
    [ "$names" = "$want" ] || { echo "$a: sections $names"; return 1; }
    for name in "${secs[@]}"; do
        addr=${sec_addr[$name]} size=${sec_size[$name]}
        case $name in
        .stapsdt.base) base=$((0x$addr)); [ $((base + 0x$size)) -le "$rx_end" ] ||
            { echo "$a: .stapsdt.base is not loaded"; return 1; } ;;
        .text) text_lo=$((0x$addr)) text_hi=$((0x$addr + 0x$size)) ;;
        .probes) probes_lo=$((0x$addr)) probes_hi=$((0x$addr + 0x$size))
            [ "$probes_lo" -ge "$rw_lo" ] && [ "$probes_hi" -le "$rw_hi" ] ||
                { echo "$a: .probes is not loaded"; return 1; } ;;
        esac
    done
    # every note: its base is .stapsdt.base, its pc in .text, its
    # semaphore (2 bytes) in .probes
    notes_tsv "$a" || return 1
    while IFS=$'\t' read -r name pc addr sem _; do
        notes=$((notes + 1))
        [ $((addr)) -eq "$base" ] && [ $((pc)) -ge "$text_lo" ] && [ $((pc)) -lt "$text_hi" ] &&
            [ $((sem)) -ge "$probes_lo" ] && [ $((sem + 2)) -le "$probes_hi" ] ||
            { echo "$a: note $notes: pc $pc base $addr semaphore $sem"; return 1; }
    done <"$W/$a/notes.tsv"
    [ "$notes" -eq 14 ] || { echo "$a: $notes notes"; return 1; }
    grep -q 'Build ID: [0-9a-f]\{40\}$' "$a/rt.n" || { echo "$a: no build-id"; return 1; }
    grep -q 'Library soname: \[sdtkit-probes\]' "$a/rt.d" || { echo "$a: no soname"; return 1; }
    # MIPS: ld.so reads DT_MIPS_* and relocates the GOT they describe
    if [ "${TARGET[$a 4]}" = "MIPS R3000" ]; then
        local got local_gotno symtabno gotsym rld pltgot
        got=${sec_addr[.got]-}
        read -r local_gotno symtabno gotsym rld pltgot < <(awk '
            /MIPS_LOCAL_GOTNO/ { l = $3 } /MIPS_SYMTABNO/ { s = $3 } /MIPS_GOTSYM/ { g = $3 }
            /MIPS_RLD_VERSION/ { r = $3 } /PLTGOT/ { p = $3 } END { print l, s, g, r, p }' "$a/rt.d")
        [ $((local_gotno)) -eq 2 ] && [ $((symtabno)) -eq 1 ] && [ $((gotsym)) -eq 1 ] &&
            [ $((rld)) -eq 1 ] && [ $((pltgot)) -eq $((0x$got)) ] ||
            { echo "$a: MIPS dynamic entries"; cat "$a/rt.d"; return 1; }
    fi
}

# header_fields ARCH: HDR["FILE FIELD"], the value of each FIELD of readelf
# -h as it prints it, of the object (FILE rt) and of the library its
# compiler links (ref); a field printed twice (Version) is both lines'
# values, each with a ';' after it.  (One awk, not a grep a field.)
header_fields() {
    local file field value
    HDR=()
    while IFS=$'\t' read -r file field value; do
        HDR[$file $field]+="$value;"
    done < <(awk '/^ +[^:]+: / { f = $0; sub(/^ +/, "", f); sub(/:.*/, "", f); v = $0; sub(/^[^:]*: */, "", v)
            print (FILENAME ~ /ref\.h$/ ? "ref" : "rt") "\t" f "\t" v }' "$W/$1/rt.h" "$W/$1/ref.h")
}

# check_header ARCH: the object has ARCH's ELF class, byte order and
# machine, and the flags and OS ABI of the library ARCH's compiler links.
check_header() {
    local a=$1 f got
    local -A HDR
    header_fields "$a"
    for f in Class:2 Data:3 Machine:4; do
        got=${HDR[rt ${f%:*}]%;}
        got=${got#2?s complement, }
        [ "$got" = "${TARGET[$a ${f#*:}]}" ] || { echo "$a: ${f%:*} $got"; return 1; }
    done
    for f in Flags OS/ABI 'ABI Version' Version; do
        [ "${HDR[rt $f]-}" = "${HDR[ref $f]-}" ] ||
            { echo "$a: $f differs from the library's"; cat "$W/$a/rt.h" "$W/$a/ref.h"; return 1; }
    done
    [ "${HDR[rt Type]-}" = "DYN (Shared object file);" ] || { echo "$a: type ${HDR[rt Type]-}"; return 1; }
}

# ---- Running ------------------------------------------------------------

# runnable: the architectures whose programs run here (built, and the
# machine runs a hello-world of theirs); says which it refuses, and why.
runnable() {
    local a q
    RUNS=() REFUSED=()
    for a in $ALL_ARCHES; do
        built "$a" || return 1
        q=$(arch_field "$a" 4)
        [ "$q" = - ] || need_cmd "$q"
        if [ -e "$a/refused" ]; then
            REFUSED+=("$a: $(cat "$a/refused")")
        else
            built "$a" runs prog || return 1
            RUNS+=("$a")
        fi
    done
    [ "${#RUNS[@]}" -gt 0 ] || refused "no target runs here: ${REFUSED[*]}"
    local r
    for r in "${REFUSED[@]}"; do echo "# refused: $r" >&3; done
}

# gdb_session ARCH: run ARCH's program under gdb once (natively, or on
# qemu's gdb stub) with a breakpoint on every probe, set when the provider
# is loaded; gdb.txt is gdb's output, got.txt its "NAME hit" and
# "NAME argN VALUE" lines, out.txt the program's.
gdb_session() {
    local a=$1 qemu p via
    cd "$W/$a" || return 1
    [ ! -e got.txt ] || return 0
    qemu=$(arch_field "$a" 4)
    cp "$ROOT/tests/gdb-probe-args.py" probes.py
    for p in $PROBES; do echo "ProbeArgs('-probe-stap rt:$p')" >>probes.py; done
    if [ "$qemu" = - ]; then
        need_cmd gdb
        timeout "$HANG_SECONDS" gdb -batch -nx -ex 'set pagination off' -ex "file $PWD/prog" \
            -ex 'break provider_loaded' -ex "run gdb-want.txt >$PWD/out.txt" \
            -ex "source probes.py" -ex continue >gdb.txt 2>&1
    else
        need_cmd gdb-multiarch
        via="$qemu -L /usr/$(arch_triple "$a")"
        set -- -ex "set sysroot $PWD/root"
        if [ "${TARGET[$a 6]}" = linux ]; then
            # the stub's own description, with the GNU/Linux feature added
            qemu_gdb_start $via ./prog tdesc-want.txt >/dev/null || return 1
            timeout "$HANG_SECONDS" gdb-multiarch -batch -nx -ex "file $PWD/prog" -ex "target remote :$QEMU_PORT" \
                -ex 'maint print xml-tdesc' -ex kill 2>/dev/null |
                awk '/^<\?xml/ { on = 1 } on && /regnum="[0-9]+"/ { match($0, /regnum="[0-9]+"/); n = substr($0, RSTART + 8, RLENGTH - 9) + 1 }
                    on && /^<\/target>/ { print "  <feature name=\"org.gnu.gdb.i386.linux\">"
                        print "    <reg name=\"orig_eax\" bitsize=\"32\" type=\"int\" regnum=\"" n "\"/>"
                        print "  </feature>" }
                    on { print } /^<\/target>/ { on = 0 }' >linux.xml
            qemu_reap "$QEMU_PID" || true
            set -- "$@" -ex "set tdesc filename $PWD/linux.xml"
        fi
        qemu_gdb_start $via ./prog gdb-want.txt >out.txt || return 1
        # gdb takes m68k programs for SVR4 ones (and loads no shared library)
        timeout "$HANG_SECONDS" gdb-multiarch -batch -nx -ex 'set pagination off' -ex "file $PWD/prog" \
            -ex 'set osabi GNU/Linux' "$@" -ex "target remote :$QEMU_PORT" \
            -ex 'break provider_loaded' -ex continue -ex "source probes.py" -ex continue >gdb.txt 2>&1
        qemu_reap "$QEMU_PID" || true
    fi
    grep -E '^[a-z0-9]+ (hit|arg(c|[0-9]+) )' gdb.txt >got.txt || true
}

setup_file() {
    export W="$BATS_FILE_TMPDIR"
    make_srcs RT_NATIVE_SRCS || return 1
    RT_SRCS=$(printf '%s\n' "${SRCS[@]}") && export RT_SRCS # (prepare's)
    cc -std=c11 -Wall -Wextra -Wpedantic -Werror -D_POSIX_C_SOURCE=200809L \
        "-DSDTKIT_VERSION=\"$(cat "$ROOT/VERSION")\"" "$ROOT/tests/runtime/mkdso.c" \
        "$ROOT/build/libsdtcore.a" -o "$W/mkdso"
    local a
    for a in $ALL_ARCHES; do
        mkdir -p "$W/$a"
        while [ "$(jobs -pr | wc -l)" -ge 2 ]; do wait -n || true; done
        (prepare "$a") >"$W/$a/prepare.log" 2>&1 &
    done
    wait
}

setup() {
    cd "$W"
}

# built ARCH FILE...: prepare made every FILE for ARCH (or ARCH's compiler
# is missing: need_arch fails under CI, skips elsewhere).
built() {
    local a=$1 f
    shift
    [ -e "$W/$a/cc-ok" ] || need_arch "$a"
    for f in "$@"; do
        [ -e "$W/$a/$f" ] || { echo "$a: no $f"; cat "$W/$a/prepare.log"; return 1; }
    done
}

# every_arch CHECK FILE...: on every architecture, prepare made every FILE
# and CHECK ARCH passes.
every_arch() {
    local a check=$1
    shift
    for a in $ALL_ARCHES; do
        built "$a" "$@" || return 1
        "$check" "$a" || return 1
    done
}

# ---- The object, offline, on all 18 targets ---------------------------

@test "the targets table has one row per architecture of ARCH_TABLE" {
    local a
    for a in $ALL_ARCHES; do
        [ "${TARGET[$a 1]-}" = "$a" ] || { echo "no row for $a"; false; }
    done
    [ "$(grep -cvE '^#|^$' "$TARGETS")" -eq "$(echo $ALL_ARCHES | wc -w)" ]
}

@test "the object has each target's ELF class, byte order and machine, and the flags and OS ABI of a shared library its compiler links" {
    every_arch check_header rt.h ref.h
}

@test "the object's segments, sections, notes and dynamic entries are where the loader and the tracers look, on every target" {
    every_arch check_layout rt.l rt.S rt.n rt.d
}

@test "sdt-list --check passes on every target's object" {
    local a bad=()
    for a in $ALL_ARCHES; do
        built "$a" rt.so || return 1
        "$SDT_LIST" --check "$a/rt.so" >/dev/null 2>"$a/sdt-list.err" ||
            bad+=("$a: $(head -1 "$a/sdt-list.err")")
    done
    [ "${#bad[@]}" -eq 0 ] || { printf '%s\n' "${bad[@]}"; false; }
}

@test "every argument's operand is the memory of its slot as the target's GCC prints it, and its size is its type's" {
    every_arch check_operands rt.n gcc-operands
}

@test "every stub is the target's nop then its return, after its prologue, as the target's assembler writes them" {
    local a
    for a in $ALL_ARCHES; do
        [ ! -e "$W/$a/cc-ok" ] || need_cmd "$(arch_tool "$a" objdump)" "$(arch_tool "$a" nm)"
        built "$a" rt.dis rt.syms rt.n stub.dis stub.nm || return 1
        check_stubs "$a" || return 1
    done
}

@test "the target's linker links a program against the object, on every target" {
    local a
    for a in $ALL_ARCHES; do
        built "$a" rt.so || return 1
        [ -e "$a/call.d" ] || { echo "$a:"; cat "$a/link.log"; return 1; }
        grep -q 'Shared library: \[sdtkit-probes\]' "$a/call.d"
    done
}

# ---- Running: qemu-user, and gdb on its gdb stub ------------------------

@test "under qemu-user the provider loads, every probe fires and reads as disabled, on every target that runs here" {
    runnable || return 1
    local a
    for a in "${RUNS[@]}"; do
        grep -qx "loaded /proc/[0-9]*/fd/[0-9]*" "$a/alone.txt" || { echo "$a:"; cat "$a/alone.txt"; return 1; }
        [ "$(grep '^fired ' "$a/alone.txt" | cut -d' ' -f2 | tr '\n' ' ')" = "$PROBES " ] ||
            { echo "$a:"; cat "$a/alone.txt"; return 1; }
        ! grep -q '^enabled' "$a/alone.txt" || { echo "$a: a probe reads enabled untraced"; return 1; }
        [ "$(tail -1 "$a/alone.txt")" = done ]
    done
    echo "# runs: ${RUNS[*]}" >&3
}

@test "gdb stops at every probe once the provider is loaded, and the program sees each probe's semaphore raised, on every target that runs here" {
    runnable || return 1
    local a
    for a in "${RUNS[@]}"; do
        gdb_session "$a" || return 1
        cd "$W"
        grep -q '^Breakpoint 1, provider_loaded' "$a/gdb.txt" || { echo "$a:"; cat "$a/gdb.txt"; return 1; }
        [ "$(sed -n 's/ hit$//p' "$a/got.txt" | tr '\n' ' ')" = "$PROBES " ] ||
            { echo "$a: gdb stopped at:"; cat "$a/got.txt" "$a/gdb.txt"; return 1; }
        [ "$(sed -n 's/^enabled //p' "$a/out.txt" | tr '\n' ' ')" = "$PROBES " ] ||
            { echo "$a: enabled while gdb's breakpoints were set:"; cat "$a/out.txt"; return 1; }
        [ "$(tail -1 "$a/out.txt")" = done ]
    done
}

@test "gdb reads every argument as fired where it has a probe-argument parser, and says it has none elsewhere" {
    runnable || return 1
    local a read=() none=()
    for a in "${RUNS[@]}"; do
        gdb_session "$a" || return 1
        cd "$W"
        if [ "${TARGET[$a 5]}" = args ]; then
            [ "$(grep -v ' hit$' "$a/got.txt" | sort)" = "$(sort "$a/gdb-want.txt")" ] ||
                { echo "$a: gdb read, then the program fired:"; grep -v ' hit$' "$a/got.txt"; cat "$a/gdb-want.txt"; return 1; }
            [ "$(wc -l <"$a/gdb-want.txt")" -eq 24 ]
            read+=("$a")
        else
            grep -q 'not fully implemented on this target' "$a/gdb.txt" ||
                { echo "$a: gdb now reads arguments: mark it 'args' in tests/runtime/targets"; cat "$a/gdb.txt"; return 1; }
            none+=("$a")
        fi
    done
    echo "# gdb reads all 24 arguments on: ${read[*]}; has no parser for: ${none[*]}" >&3
}
