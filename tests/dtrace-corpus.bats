#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# Every real provider file of the corpus (../shared/corpus/d, see
# SOURCES.md there): -h and -G succeed, with -C where the project's build
# uses it, every declared probe gets its macros, and the results compile
# and link.

load dtrace-helpers

setup() {
    need_corpus
}

# The corpus files, one per line.
corpus_files() {
    (cd "$CORPUS" && ls | grep -v '^SOURCES.md$')
}

# The number of probe declarations in a text on stdin, counted by pattern
# (independently of our parser): lines starting "probe NAME(".
count_declared() {
    grep -cE '^[[:space:]]*probe[[:space:]]+[A-Za-z_][A-Za-z0-9_]*[[:space:]]*\(' || true
}

# The number of probes a header defines.
count_defined() {
    grep -c '^__extension__ extern unsigned short ' "$1" || true
}

# Stub headers for the two corpus files that #include project headers.
stub_includes() {
    mkdir -p stubs
    echo '#define VM_COLLECT_USAGE_DETAILS 0' >stubs/vm_opts.h
    printf '#define INT16 short\n#define INT32 int\n' >stubs/dtrace-inc-dtest.h
}

@test "the corpus is there, all 49 files of it" { [ "$(corpus_files | wc -l)" -eq 49 ]; }

@test "every corpus file gives a header without -C, with a macro for every probe it declares" {
    fails=""
    while read -r f; do
        "$DTRACE" -h -s "$CORPUS/$f" -o "$f.h" 2>err || { fails+="$f: $(head -1 err)"$'\n'; continue; }
        want="$(count_declared <"$CORPUS/$f")"
        got="$(count_defined "$f.h")"
        [ "$want" = "$got" ] || fails+="$f: $want probes declared, $got defined"$'\n'
    done < <(corpus_files)
    [ -z "$fails" ] || { echo "$fails"; return 1; }
}

@test "every corpus file gives a -G object with a semaphore for every probe" {
    fails=""
    while read -r f; do
        "$DTRACE" -G -s "$CORPUS/$f" -o "$f.o" 2>err || { fails+="$f: $(head -1 err)"$'\n'; continue; }
        want="$(count_declared <"$CORPUS/$f")"
        got="$(readelf -sW "$f.o" | grep -c '_semaphore$' || true)"
        [ "$want" = "$got" ] || fails+="$f: $want probes declared, $got semaphores"$'\n'
    done < <(corpus_files)
    [ -z "$fails" ] || { echo "$fails"; return 1; }
}

@test "every corpus file except libvirt's also works with -C, as the projects' builds run it" {
    stub_includes
    fails=""
    while read -r f; do
        [ "$f" = libvirt-libvirt_probes.d ] && continue
        "$DTRACE" -C -I stubs -h -s "$CORPUS/$f" -o "$f.h" 2>err || { fails+="$f: $(head -1 err)"$'\n'; continue; }
        cpp -P -I stubs -x c "$CORPUS/$f" -o "$f.i" 2>/dev/null
        want="$(count_declared <"$f.i")"
        got="$(count_defined "$f.h")"
        [ "$want" = "$got" ] || fails+="$f: $want probes after cpp, $got defined"$'\n'
        "$DTRACE" -C -I stubs -G -s "$CORPUS/$f" -o "$f.o" 2>err || fails+="$f -G: $(head -1 err)"$'\n'
    done < <(corpus_files)
    [ -z "$fails" ] || { echo "$fails"; return 1; }
}

# Its runs of dtrace are those of the header test above: the sanitizer
# pass leaves it out.
# bats test_tags=normal-pass-only
@test "every corpus header compiles as C and as C++" {
    fails=""
    while read -r f; do
        "$DTRACE" -h -s "$CORPUS/$f" -o "$f.h"
        printf '#include "%s"\nint main(void) { return 0; }\n' "$f.h" >use.c
        cp use.c use.cc
        gcc -Wall -Wextra -Werror -I"$SDT_INC" -c use.c -o use.o 2>err ||
            fails+="$f (C): $(head -3 err)"$'\n'
        g++ -Wall -Wextra -Werror -I"$SDT_INC" -c use.cc -o use.o 2>err ||
            fails+="$f (C++): $(head -3 err)"$'\n'
    done < <(corpus_files)
    [ -z "$fails" ] || { echo "$fails"; return 1; }
}

# bats test_tags=normal-pass-only
@test "every corpus object links into a program" {
    echo 'int main(void) { return 0; }' >main.c
    gcc -c main.c -o main.o
    fails=""
    while read -r f; do
        "$DTRACE" -G -s "$CORPUS/$f" -o "$f.o" main.o
        gcc main.o "$f.o" -o prog 2>err || fails+="$f: $(head -1 err)"$'\n'
    done < <(corpus_files)
    [ -z "$fails" ] || { echo "$fails"; return 1; }
}

@test "PostgreSQL's probes.d: -C expands its #define types into the comments" {
    "$DTRACE" -C -h -s "$CORPUS/postgresql-probes.d" -o probes.h
    grep -qxF '/* POSTGRESQL_TRANSACTION_START ( unsigned int ) */' probes.h
    grep -qxF '/* POSTGRESQL_SORT_DONE ( unsigned char, long ) */' probes.h
    grep -q '^#define POSTGRESQL_SMGR_MD_READ_DONE(arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8) \\$' probes.h
}

@test "Xorg's Xserver.d: -C pulls in sys/types.h before the provider and still parses" {
    "$DTRACE" -C -h -s "$CORPUS/xorg-server-Xserver.d" -o Xserver.h
    grep -q '^#define XSERVER_REQUEST_START(arg1, arg2, arg3, arg4, arg5) \\$' Xserver.h
    grep -qxF '/* XSERVER_CLIENT_AUTH ( int, string, pid_t, zoneid_t ) */' Xserver.h
}

@test "libvirt's probes work without -C; with -C cpp rejects its # lines cleanly" {
    "$DTRACE" -h -s "$CORPUS/libvirt-libvirt_probes.d" -o libvirt.h
    grep -q '^#define LIBVIRT_RPC_TLS_CONTEXT_NEW(arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8) \\$' libvirt.h
    run "$DTRACE" -C -h -s "$CORPUS/libvirt-libvirt_probes.d" -o libvirt-C.h
    [ "$status" -eq 1 ]
    [[ "$output" == *"preprocessing with 'cpp'"*"failed"* ]]
    [ ! -e libvirt-C.h ]
}

@test "Apache's ap.d, with no provider, gives an empty header and an object without .probes" {
    "$DTRACE" -h -s "$CORPUS/apache-httpd-ap.d" -o ap.h
    ! grep -q DTRACE_PROBE ap.h || false
    "$DTRACE" -G -s "$CORPUS/apache-httpd-ap.d" -o ap.o
    ! readelf -SW ap.o | grep -q '\.probes'
}

@test "OpenJDK's preprocessed .h.d with line markers names its default output .h.h" {
    cp "$CORPUS/openjdk-hs_private-cpp-preprocessed.h.d" hs_private.h.d
    "$DTRACE" -h -s hs_private.h.d
    [ -f hs_private.h.h ]
    grep -q '^#define HS_PRIVATE_SAFEPOINT_BEGIN() \\$' hs_private.h.h
}

@test "Erlang's 1014-probe provider: the macro names Erlang's sed expects" {
    "$DTRACE" -h -s "$CORPUS/erlang-erlang_dtrace.d" -o erlang.h
    [ "$(count_defined erlang.h)" -eq 1014 ]
    grep -q '^#define ERLANG_GC_MAJOR_START(arg1, arg2) \\$' erlang.h
    grep -q '^#define ERLANG_EFILE_DRV_ENTRY(arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9, arg10, arg11) \\$' erlang.h
}

@test "Node's translated arguments and libdispatch's two providers" {
    "$DTRACE" -h -s "$CORPUS/nodejs-node_provider.d" -o node.h
    grep -q '^#define NODE_HTTP_SERVER_REQUEST(arg1, arg2) \\$' node.h
    "$DTRACE" -h -s "$CORPUS/libdispatch-provider.d" -o dispatch.h
    grep -q '^#define DISPATCH_QUEUE_PUSH(arg1, arg2, arg3, arg4, arg5, arg6) \\$' dispatch.h
    grep -q '^#define VOUCHER_CREATE(arg1, arg2, arg3) \\$' dispatch.h
}

@test "Tcl's file with form feeds parses" {
    grep -q $'\f' "$CORPUS/tcl-tclDTrace-8.5.d"
    "$DTRACE" -h -s "$CORPUS/tcl-tclDTrace-8.5.d" -o tcl.h
    grep -q '^#define TCL_PROC_ENTRY(arg1, arg2, arg3) \\$' tcl.h
}

@test "MySQL's probes_mysql.d.base is read though it is not named .d" {
    cp "$CORPUS/mysql-probes_mysql.d.base" probes_mysql.d.base
    "$DTRACE" -G -s probes_mysql.d.base
    [ -f probes_mysql.d.o ]
    readelf -sW probes_mysql.d.o | grep -q ' mysql_query__start_semaphore$'
}
