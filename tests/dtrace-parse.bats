#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The provider language: every construct real .d files use, and every
# error, reported as FILE:LINE:COL with no output written.

load dtrace-helpers

setup() {
    T="$BATS_TEST_TMPDIR"
    cd "$T"
}

# h FILE: run dtrace -h on FILE into out.h; status and output as `run` sets them.
h() {
    run --separate-stderr "$DTRACE" -h -s "$1" -o out.h "${@:2}"
}

# The type comments of out.h, one per line.
comments() {
    grep '^/\* [A-Za-z0-9_]* (' out.h
}

# The probe macro lines of out.h (the plain, non-typecheck definitions).
macros() {
    awk '/^#else$/ {e=1} /^#endif$/ {e=0} /^#define [A-Za-z0-9_]*\(.*\) \\$/ {print}' out.h | sort -u
}

# fails_at MESSAGE: dtrace exited 1 with exactly MESSAGE as its first line
# on stderr, and wrote no out.h.
fails_at() {
    [ "$status" -eq 1 ]
    local first="${stderr%%$'\n'*}"
    if [ "$first" != "$1" ]; then
        echo "expected: $1"
        echo "got:      $first"
        return 1
    fi
    [ ! -e out.h ]
}

@test "several providers in one file each get their macros" {
    d two.d <<'EOF'
provider dispatch { probe queue__push(int); };
provider voucher { probe create(void *v); probe dispose(); };
EOF
    h two.d
    [ "$status" -eq 0 ]
    grep -q '^#define DISPATCH_QUEUE_PUSH(arg1) \\$' out.h
    grep -q '^#define VOUCHER_CREATE(arg1) \\$' out.h
    grep -q '^#define VOUCHER_DISPOSE() \\$' out.h
    grep -q '^DTRACE_PROBE (voucher, dispose)$' out.h
}

@test "an empty provider gives a valid header without probes" {
    d empty.d <<'EOF'
provider erlang {
    /* the probes moved elsewhere */
};
EOF
    h empty.d
    [ "$status" -eq 0 ]
    grep -q '^#define _SDT_HAS_SEMAPHORES 1$' out.h
    ! grep -q 'DTRACE_PROBE' out.h
}

@test "a file without any provider gives an empty header and exits 0" {
    d decls.d <<'EOF'
#pragma D depends_on provider io
typedef struct request_rec {
    uintptr_t pool;
    char *the_request;
    unsigned uri_is_initialized:1;
} request_rec;
EOF
    h decls.d
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    grep -q '^#include <sys/sdt.h>$' out.h
    ! grep -q 'DTRACE_PROBE' out.h
}

@test "a file holding only BEGIN{} is fine for -h and -G (CPython's configure check)" {
    echo 'BEGIN{}' >conftest.d
    h conftest.d
    [ "$status" -eq 0 ]
    run "$DTRACE" -G -s conftest.d -o conftest.o
    [ "$status" -eq 0 ]
    readelf -h conftest.o | grep -q 'REL (Relocatable file)'
}

@test "C and D definitions around providers are skipped, nested braces included" {
    d around.d <<'EOF'
typedef struct { int dummy; } node_dtrace_connection_t;
typedef void (*dispatch_function_t)(void *);
struct nested { struct { int provider; } inner; union { long a; } u; };
enum colour { RED, GREEN };
translator conninfo_t < node_dtrace_connection_t *nc > {
    ci_local = "x{";
    ci_remote = '}';
};
inline int FOO = 1;
BEGIN { if (x) { y = (1 + [2]); } }
provider node {
    probe net__server__connection(node_dtrace_connection_t *c);
};
typedef const static unsigned short __u_c_short;
struct after { int provider; int probe; };
syscall::open:entry /pid == $target/ { @[probe] = count(); }
EOF
    h around.d
    [ "$status" -eq 0 ]
    [ "$(macros)" = '#define NODE_NET_SERVER_CONNECTION(arg1) \' ]
}

@test "#pragma D lines are skipped, inside and outside providers" {
    d pragmas.d <<'EOF'
#pragma D attributes Evolving/Evolving/Common provider p provider
provider p {
#pragma D attributes Private/Private/Unknown provider p module
    probe x();
};
#pragma D attributes Evolving/Evolving/Common provider p args
EOF
    h pragmas.d
    [ "$status" -eq 0 ]
    [ "$(macros)" = '#define P_X() \' ]
}

@test "# comment lines inside a provider are skipped without -C (libvirt)" {
    d libvirt.d <<'EOF'
provider libvirt {
	# file: src/util/event_poll.c
	# prefix: event_poll
	probe event_poll_add_handle(int watch, int fd, int events, void *cb, void *opaque, void *ff);

        # file: src/util/virobject.c
        probe object_new(void *obj, const char *klassname);
};
EOF
    h libvirt.d
    [ "$status" -eq 0 ]
    grep -q '^#define LIBVIRT_EVENT_POLL_ADD_HANDLE(arg1, arg2, arg3, arg4, arg5, arg6) \\$' out.h
    grep -q '^#define LIBVIRT_OBJECT_NEW(arg1, arg2) \\$' out.h
}

@test "a # line continued with backslash-newline is skipped as a whole" {
    d cont.d <<'EOF'
#define LONG_ONE \
    provider fake { probe nope(); };
provider p { probe x(); };
EOF
    h cont.d
    [ "$status" -eq 0 ]
    [ "$(macros)" = '#define P_X() \' ]
}

@test "only a # at the start of a line starts a preprocessor line" {
    d hash.d <<'EOF'
provider p { probe x(int) # not a comment
};
EOF
    h hash.d
    fails_at "hash.d:1:27: error: expected ';' after the declaration of probe 'x', found '#'"
}

@test "comments of both kinds are allowed between any two tokens" {
    d comments.d <<'EOF'
/* before */ provider /* a */ p /* b */ { // c
    probe /* d */ x /* e */ ( /* f */ int /* g */ a /* h */ , char /* i */ * s ) /* j */ ; // k
    // probe commented_out();
    /* probe also_commented_out(); */
} /* l */ ; // m
EOF
    h comments.d
    [ "$status" -eq 0 ]
    [ "$(macros)" = '#define P_X(arg1, arg2) \' ]
    [ "$(comments)" = '/* P_X ( int a, char *s ) */' ]
}

@test "the brace may be glued to the name or on the next line, and the final ; is optional" {
    d braces.d <<'EOF'
provider glued{
    probe a();
}
provider
nextline
{
    probe b();
};
EOF
    h braces.d
    [ "$status" -eq 0 ]
    grep -q '^#define GLUED_A() \\$' out.h
    grep -q '^#define NEXTLINE_B() \\$' out.h
}

@test "a space before (, () and (void) all work" {
    d parens.d <<'EOF'
provider p {
    probe spaced (int a);
    probe empty();
    probe voided(void);
};
EOF
    h parens.d
    [ "$status" -eq 0 ]
    grep -q '^#define P_SPACED(arg1) \\$' out.h
    grep -q '^#define P_EMPTY() \\$' out.h
    grep -q '^#define P_VOIDED() \\$' out.h
}

@test "translated argument lists use the native list" {
    d argmap.d <<'EOF'
provider test_prov {
	probe place(int i, int j) : (int j, int i, int i, int j);
	probe one(char* x) : (string x);
	probe none() : ();
};
EOF
    h argmap.d
    [ "$status" -eq 0 ]
    grep -q '^#define TEST_PROV_PLACE(arg1, arg2) \\$' out.h
    grep -q '^#define TEST_PROV_ONE(arg1) \\$' out.h
    grep -q '^#define TEST_PROV_NONE() \\$' out.h
    grep -qF '/* TEST_PROV_PLACE ( int i, int j ) */' out.h
}

@test "every type spelling is kept as written, with normalised spaces" {
    d types.d <<'EOF'
typedef int my_t;
provider t {
    probe a(char *, char*, const char *, char const *, char  *  p);
    probe b(unsigned long, long long int x, unsigned char, double, struct X **pp, void **);
    probe c(void (*cb)(int, char *), void(*)(void), string, my_t, time_t t, int arr[4]);
    probe d(struct astruct node, enum e, union u *);
};
EOF
    h types.d
    [ "$status" -eq 0 ]
    diff - <(comments) <<'EOF'
/* T_A ( char *, char *, const char *, char const *, char *p ) */
/* T_B ( unsigned long, long long int x, unsigned char, double, struct X **pp, void ** ) */
/* T_C ( void (*cb)(int, char *), void (*)(void), string, my_t, time_t t, int arr[4] ) */
/* T_D ( struct astruct node, enum e, union u * ) */
EOF
    grep -q '^#define T_C(arg1, arg2, arg3, arg4, arg5, arg6) \\$' out.h
}

@test "arguments may be named after C keywords or libc functions" {
    d names.d <<'EOF'
provider k {
    probe method__entry(string class, char *string, void *free, int open, int probe, int provider);
};
EOF
    h names.d
    [ "$status" -eq 0 ]
    grep -q '^#define K_METHOD_ENTRY(arg1, arg2, arg3, arg4, arg5, arg6) \\$' out.h
    [ "$(comments)" = '/* K_METHOD_ENTRY ( string class, char *string, void *free, int open, int probe, int provider ) */' ]
}

@test "probe names with __, mixed case and digits map to the right macros" {
    d names.d <<'EOF'
provider Xserver {
    probe request__start(int);
    probe AllocObject__entry();
    probe gc__major__start2();
    probe a__b__c__d();
};
EOF
    h names.d
    [ "$status" -eq 0 ]
    grep -q '^#define XSERVER_REQUEST_START(arg1) \\$' out.h
    grep -q '^DTRACE_PROBE1 (Xserver, request__start, arg1)$' out.h
    grep -q '^#define XSERVER_ALLOCOBJECT_ENTRY() \\$' out.h
    grep -q '^#define XSERVER_GC_MAJOR_START2() \\$' out.h
    grep -q '^#define XSERVER_A_B_C_D() \\$' out.h
    grep -q 'Xserver_AllocObject__entry_semaphore' out.h
}

@test "CRLF line ends, form feeds, vertical tabs and tabs are whitespace" {
    printf 'provider p {\r\n\f\tprobe a(int x,\r\n\v\tchar *y);\r\n\f\r\n\tprobe b();\r\n};\r\n' >crlf.d
    h crlf.d
    [ "$status" -eq 0 ]
    grep -q '^#define P_A(arg1, arg2) \\$' out.h
    [ "$(comments | head -1)" = '/* P_A ( int x, char *y ) */' ]
    ! grep -q $'\r' out.h
}

@test "a provider declared in two blocks collects the probes of both" {
    d split.d <<'EOF'
provider p { probe a(); };
typedef int between_t;
provider p { probe b(int); };
EOF
    h split.d
    [ "$status" -eq 0 ]
    [ "$(macros | wc -l)" -eq 2 ]
}

@test "line markers make positions refer to the original file" {
    d pre.h.d <<'EOF'
# 1 "/src/hs_private.d"
# 1 "<built-in>" 1
# 1 "<built-in>" 3
# 331 "<built-in>" 3
# 1 "<command line>" 1
# 1 "<built-in>" 2
# 1 "/src/hs_private.d" 2
# 25 "/src/hs_private.d"
provider hs_private {
  probe safepoint__begin();
  probe broken(int;
};
EOF
    h pre.h.d
    fails_at "/src/hs_private.d:27:19: error: expected ',' or ')' in the argument list of probe 'broken', found ';'"
}

@test "#line directives make positions refer to the named file and line" {
    d line.d <<'EOF'
#line 100 "elsewhere.d"
provider p {
  probe ok();
#line 7
  probe x-y();
};
EOF
    h line.d
    fails_at "elsewhere.d:7:9: error: 'x-y' is not a valid probe name: it must be a C identifier (write '__' where DTrace shows '-')"
}

@test "with -C, errors point into the original file through cpp's line markers" {
    d cpp.d <<'EOF'
#define T int
/* a comment
   over lines */

provider p {
    probe a(T);
    probe b(int, int;
};
EOF
    # columns are those of cpp's output: exact on lines without macros
    h cpp.d -C
    fails_at "cpp.d:7:21: error: expected ',' or ')' in the argument list of probe 'b', found ';'"
}

@test "more than 12 arguments is an error at the 13th" {
    d many.d <<'EOF'
provider p {
    probe twelve(int, int, int, int, int, int, int, int, int, int, int, int);
    probe thirteen(int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9, int a10, int a11, int a12, int a13);
};
EOF
    h many.d
    fails_at "many.d:3:119: error: probe 'thirteen' has 13 arguments; sys/sdt.h supports at most 12"
}

@test "a probe name without its argument list is an error at what follows the name" {
    d noparen.d <<'EOF'
provider p {
    probe start;
};
EOF
    h noparen.d
    fails_at "noparen.d:2:16: error: expected '(' after probe name 'start', found ';'"
}

@test "translated arguments without their parenthesis are an error after the colon" {
    d notrans.d <<'EOF'
provider p {
    probe op(int a) : int;
};
EOF
    h notrans.d
    fails_at "notrans.d:2:23: error: expected '(' after ':' in probe 'op', found 'int'"
}

@test "a duplicate probe is an error at the second one, with a note at the first" {
    d dup.d <<'EOF'
provider p {
    probe a();
    probe b();
    probe a(int);
};
EOF
    h dup.d
    fails_at "dup.d:4:11: error: duplicate probe 'a' in provider 'p'"
    [[ "$stderr" == *"dup.d:2:11: note: 'a' was first declared here"* ]]
}

@test "a duplicate probe across two -s files is an error" {
    d one.d <<'EOF'
provider p { probe a(); };
EOF
    d two.d <<'EOF'
provider p {
    probe a(int);
};
EOF
    run --separate-stderr "$DTRACE" -h -s one.d -s two.d -o out.h
    fails_at "two.d:2:11: error: duplicate probe 'a' in provider 'p'"
    [[ "$stderr" == *"one.d:1:20: note: 'a' was first declared here"* ]]
}

@test "probes whose macros would collide are an error" {
    d clash.d <<'EOF'
provider p {
    probe gc__start();
    probe gc_start();
};
EOF
    h clash.d
    fails_at "clash.d:3:11: error: probe 'p:gc_start' and probe 'p:gc__start' would both define the macro 'P_GC_START'"
}

@test "probes whose semaphores would collide across providers are an error" {
    d clash.d <<'EOF'
provider a_b { probe c(); };
provider A { probe B_c(); };
provider a { probe b_c(); };
EOF
    h clash.d
    fails_at "clash.d:2:20: error: probe 'A:B_c' and probe 'a_b:c' would both define the macro 'A_B_C'"
    [[ "$stderr" == *"clash.d:3:20: error: probe 'a:b_c' and probe 'a_b:c' would both define the macro 'A_B_C'"* ]]
}

@test "provider and probe names must be C identifiers" {
    printf 'provider my-prov {\n};\n' >a.d
    h a.d
    fails_at "a.d:1:10: error: 'my-prov' is not a valid provider name: it must be a C identifier (write '__' where DTrace shows '-')"
    printf 'provider p {\n  probe 2fast();\n};\n' >b.d
    h b.d
    fails_at "b.d:2:9: error: '2fast' is not a valid probe name: it must be a C identifier"
    printf 'provider p {\n  probe a$b();\n};\n' >c.d
    h c.d
    fails_at "c.d:2:9: error: 'a\$b' is not a valid probe name: it must be a C identifier"
    printf 'provider {\n  probe a();\n};\n' >e.d
    h e.d
    fails_at "e.d:1:10: error: expected a provider name, found '{'"
    printf 'provider p {\n  probe (int);\n};\n' >f.d
    h f.d
    fails_at "f.d:2:9: error: expected a probe name, found '('"
}

@test "an unterminated comment is an error at its start" {
    printf 'provider p {\n  probe a(); /* never\n  closed\n' >c.d
    h c.d
    fails_at "c.d:2:14: error: unterminated comment"
}

@test "an unterminated string is an error at its start" {
    printf 'translator x { a = "oops;\n};\nprovider p { probe a(); };\n' >s.d
    h s.d
    fails_at "s.d:1:20: error: missing terminating \" character"
}

@test "an unbalanced ( in a probe is an error that names its line, and never hangs" {
    d paren.d <<'EOF'
provider p {
    probe good(int);
    probe bad(int a, char *b;
    probe later();
};
EOF
    run --separate-stderr timeout 10 "$DTRACE" -h -s paren.d -o out.h
    fails_at "paren.d:3:29: error: expected ',' or ')' in the argument list of probe 'bad', found ';'"
    [[ "$stderr" != *good* ]]
}

@test "an argument list still open at the end of the file is an error at its (" {
    printf 'provider p {\n  probe a(int,\n' >open.d
    run --separate-stderr timeout 10 "$DTRACE" -h -s open.d -o out.h
    fails_at "open.d:2:10: error: the argument list of probe 'a' is not closed before the end of the file"
}

@test "unbalanced braces and brackets outside providers are errors" {
    printf 'struct s { int a;\n' >a.d
    h a.d
    fails_at "a.d:1:10: error: '{' is not closed before the end of the file"
    printf 'int x;\n}\nprovider p { probe a(); };\n' >b.d
    h b.d
    fails_at "b.d:2:1: error: unbalanced '}': nothing is open"
    printf 'BEGIN { x = (1 + 2; }\n' >c.d
    h c.d
    fails_at "c.d:1:21: error: '}' does not match '(' opened at line 1, column 13"
    printf 'provider p {\n  probe a(int [4);\n};\n' >d.d
    h d.d
    fails_at "d.d:2:17: error: ')' does not match '[' opened at line 2, column 15"
}

@test "deeply nested brackets neither crash nor hang: 256 levels are read, more is an error" {
    { printf 'x = '; repeat 256 '('; repeat 256 ')'
      echo; echo 'provider p { probe a(int (*(*(*f)(int))[4])(char)); };'; } >ok.d
    h ok.d
    [ "$status" -eq 0 ]
    grep -q '^#define P_A(arg1) \\$' out.h
    rm out.h
    { printf 'x = '; repeat 100000 '('; echo; } >deep.d
    run --separate-stderr timeout 20 "$DTRACE" -h -s deep.d -o out.h
    fails_at "deep.d:1:261: error: brackets nested more than 256 deep"
    { printf 'provider p { probe a(int '; repeat 300 '['; echo; } >args.d
    h args.d
    fails_at "args.d:1:282: error: brackets nested more than 256 deep in probe 'a'"
}

@test "a probe outside any provider is an error" {
    printf 'typedef int t;\nprobe lonely(int);\n' >out.d
    h out.d
    fails_at "out.d:2:1: error: probe 'lonely' is declared outside of any provider"
}

@test "a NUL byte in the input is an error at its position" {
    printf 'provider p {\n  probe a(int\0);\n};\n' >nul.d
    h nul.d
    fails_at "nul.d:2:14: error: NUL byte in the input"
    printf '/* comment \0 */ provider p { probe a(); };\n' >nul2.d
    h nul2.d
    fails_at "nul2.d:1:12: error: NUL byte in the input"
}

@test "the end of the file inside a provider is an error" {
    printf 'provider p {\n  probe a();\n' >eof.d
    h eof.d
    fails_at "eof.d:3:1: error: unexpected end of file in provider 'p'"
    [[ "$stderr" == *"eof.d:1:12: note: the provider's '{' is here"* ]]
}

@test "something other than a probe inside a provider is an error" {
    printf 'provider p {\n  probe a();\n  int x;\n};\n' >junk.d
    h junk.d
    fails_at "junk.d:3:3: error: expected 'probe' or '}' in provider 'p', found 'int'"
}

@test "a missing ; between probes is an error at what follows" {
    printf 'provider p {\n  probe a()\n  int b();\n};\n' >semi.d
    h semi.d
    fails_at "semi.d:3:3: error: expected ';' after the declaration of probe 'a', found 'int'"
}

@test "a missing { after the provider name is an error" {
    printf 'provider p\n  probe a();\n' >brace.d
    h brace.d
    fails_at "brace.d:2:3: error: expected '{' after provider name 'p', found 'probe'"
}

@test "an empty argument is an error" {
    printf 'provider p {\n  probe a(int, );\n};\n' >empty.d
    h empty.d
    fails_at "empty.d:2:16: error: missing argument declaration before ')' in probe 'a'"
    printf 'provider p {\n  probe a(, int);\n};\n' >empty2.d
    h empty2.d
    fails_at "empty2.d:2:11: error: missing argument declaration before ',' in probe 'a'"
}

@test "an error leaves an existing output untouched" {
    printf 'provider p {\n  probe a(int;\n};\n' >bad.d
    echo precious >out.h
    run "$DTRACE" -h -s bad.d -o out.h
    [ "$status" -eq 1 ]
    [ "$(cat out.h)" = precious ]
    run "$DTRACE" -G -s bad.d -o out.h
    [ "$status" -eq 1 ]
    [ "$(cat out.h)" = precious ]
}

@test "all semantic errors of a file are reported, not just the first" {
    d sem.d <<'EOF'
provider p {
    probe a();
    probe a();
    probe b(int, int, int, int, int, int, int, int, int, int, int, int, int);
};
EOF
    h sem.d
    [ "$status" -eq 1 ]
    [[ "$stderr" == *"sem.d:3:11: error: duplicate probe 'a'"* ]]
    [[ "$stderr" == *"sem.d:4:73: error: probe 'b' has 13 arguments"* ]]
}

@test "a provider with 100000 probes is handled" {
    awk 'BEGIN { print "provider big {"; for (i = 0; i < 100000; i++) printf "  probe p%d(int a, char *b);\n", i; print "};" }' >big.d
    run --separate-stderr timeout 60 "$DTRACE" -h -s big.d -o out.h
    [ "$status" -eq 0 ]
    [ "$(grep -c '^#define BIG_P[0-9]*(arg1, arg2) \\$' out.h)" -eq 200000 ]
    run --separate-stderr timeout 60 "$DTRACE" -G -s big.d -o big.o
    [ "$status" -eq 0 ]
    [ "$(readelf -sW big.o | grep -c '_semaphore$')" -eq 100000 ]
}
