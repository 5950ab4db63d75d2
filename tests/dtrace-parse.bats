#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The provider language: every construct real .d files use, and every
# error, reported as FILE:LINE:COL with no output written.  A test whose
# body is `dtrace_case` is an input and its expected diagnostic, kept as
# data in tests/cases/dtrace-parse/ (see dtrace-helpers.bash).

load dtrace-helpers

# h FILE: run dtrace -h on FILE into out.h; status and output as `run` sets them.
h() {
    run --separate-stderr "$DTRACE" -h -s "$1" -o out.h "${@:2}"
}

# hd FILE: stdin as FILE, then h FILE.
hd() {
    d "$1"
    h "$1"
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
    hd two.d <<'EOF'
provider dispatch { probe queue__push(int); };
provider voucher { probe create(void *v); probe dispose(); };
EOF
    [ "$status" -eq 0 ]
    grep -q '^#define DISPATCH_QUEUE_PUSH(arg1) \\$' out.h
    grep -q '^#define VOUCHER_CREATE(arg1) \\$' out.h
    grep -q '^#define VOUCHER_DISPOSE() \\$' out.h
    grep -q '^DTRACE_PROBE (voucher, dispose)$' out.h
}

@test "an empty provider gives a valid header without probes" {
    hd empty.d <<'EOF'
provider erlang {
    /* the probes moved elsewhere */
};
EOF
    [ "$status" -eq 0 ]
    grep -q '^#define _SDT_HAS_SEMAPHORES 1$' out.h
    ! grep -q 'DTRACE_PROBE' out.h
}

@test "a file without any provider gives an empty header and exits 0" {
    hd decls.d <<'EOF'
#pragma D depends_on provider io
typedef struct request_rec {
    uintptr_t pool;
    char *the_request;
    unsigned uri_is_initialized:1;
} request_rec;
EOF
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
    hd around.d <<'EOF'
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
    [ "$status" -eq 0 ]
    [ "$(macros)" = '#define NODE_NET_SERVER_CONNECTION(arg1) \' ]
}

@test "#pragma D lines are skipped, inside and outside providers" {
    hd pragmas.d <<'EOF'
#pragma D attributes Evolving/Evolving/Common provider p provider
provider p {
#pragma D attributes Private/Private/Unknown provider p module
    probe x();
};
#pragma D attributes Evolving/Evolving/Common provider p args
EOF
    [ "$status" -eq 0 ]
    [ "$(macros)" = '#define P_X() \' ]
}

@test "# comment lines inside a provider are skipped without -C (libvirt)" {
    hd libvirt.d <<'EOF'
provider libvirt {
	# file: src/util/event_poll.c
	# prefix: event_poll
	probe event_poll_add_handle(int watch, int fd, int events, void *cb, void *opaque, void *ff);

        # file: src/util/virobject.c
        probe object_new(void *obj, const char *klassname);
};
EOF
    [ "$status" -eq 0 ]
    grep -q '^#define LIBVIRT_EVENT_POLL_ADD_HANDLE(arg1, arg2, arg3, arg4, arg5, arg6) \\$' out.h
    grep -q '^#define LIBVIRT_OBJECT_NEW(arg1, arg2) \\$' out.h
}

@test "a # line continued with backslash-newline is skipped as a whole" {
    hd cont.d <<'EOF'
#define LONG_ONE \
    provider fake { probe nope(); };
provider p { probe x(); };
EOF
    [ "$status" -eq 0 ]
    [ "$(macros)" = '#define P_X() \' ]
}

@test "only a # at the start of a line starts a preprocessor line" { dtrace_case; }

@test "comments of both kinds are allowed between any two tokens" {
    hd comments.d <<'EOF'
/* before */ provider /* a */ p /* b */ { // c
    probe /* d */ x /* e */ ( /* f */ int /* g */ a /* h */ , char /* i */ * s ) /* j */ ; // k
    // probe commented_out();
    /* probe also_commented_out(); */
} /* l */ ; // m
EOF
    [ "$status" -eq 0 ]
    [ "$(macros)" = '#define P_X(arg1, arg2) \' ]
    [ "$(comments)" = '/* P_X ( int a, char *s ) */' ]
}

@test "the brace may be glued to the name or on the next line, and the final ; is optional" {
    hd braces.d <<'EOF'
provider glued{
    probe a();
}
provider
nextline
{
    probe b();
};
EOF
    [ "$status" -eq 0 ]
    grep -q '^#define GLUED_A() \\$' out.h
    grep -q '^#define NEXTLINE_B() \\$' out.h
}

@test "a space before (, () and (void) all work" {
    hd parens.d <<'EOF'
provider p {
    probe spaced (int a);
    probe empty();
    probe voided(void);
};
EOF
    [ "$status" -eq 0 ]
    grep -q '^#define P_SPACED(arg1) \\$' out.h
    grep -q '^#define P_EMPTY() \\$' out.h
    grep -q '^#define P_VOIDED() \\$' out.h
}

@test "translated argument lists use the native list" {
    hd argmap.d <<'EOF'
provider test_prov {
	probe place(int i, int j) : (int j, int i, int i, int j);
	probe one(char* x) : (string x);
	probe none() : ();
};
EOF
    [ "$status" -eq 0 ]
    grep -q '^#define TEST_PROV_PLACE(arg1, arg2) \\$' out.h
    grep -q '^#define TEST_PROV_ONE(arg1) \\$' out.h
    grep -q '^#define TEST_PROV_NONE() \\$' out.h
    grep -qF '/* TEST_PROV_PLACE ( int i, int j ) */' out.h
}

@test "every type spelling is kept as written, with normalised spaces" {
    hd types.d <<'EOF'
typedef int my_t;
provider t {
    probe a(char *, char*, const char *, char const *, char  *  p);
    probe b(unsigned long, long long int x, unsigned char, double, struct X **pp, void **);
    probe c(void (*cb)(int, char *), void(*)(void), string, my_t, time_t t, int arr[4]);
    probe d(struct astruct node, enum e, union u *);
};
EOF
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
    hd names.d <<'EOF'
provider k {
    probe method__entry(string class, char *string, void *free, int open, int probe, int provider);
};
EOF
    [ "$status" -eq 0 ]
    grep -q '^#define K_METHOD_ENTRY(arg1, arg2, arg3, arg4, arg5, arg6) \\$' out.h
    [ "$(comments)" = '/* K_METHOD_ENTRY ( string class, char *string, void *free, int open, int probe, int provider ) */' ]
}

@test "probe names with __, mixed case and digits map to the right macros" {
    hd names.d <<'EOF'
provider Xserver {
    probe request__start(int);
    probe AllocObject__entry();
    probe gc__major__start2();
    probe a__b__c__d();
};
EOF
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
    hd split.d <<'EOF'
provider p { probe a(); };
typedef int between_t;
provider p { probe b(int); };
EOF
    [ "$status" -eq 0 ]
    [ "$(macros | wc -l)" -eq 2 ]
}

@test "line markers make positions refer to the original file" { dtrace_case; }
@test "#line directives make positions refer to the named file and line" { dtrace_case; }
# columns are those of cpp's output: exact on lines without macros
@test "with -C, errors point into the original file through cpp's line markers" { dtrace_case; }
@test "more than 12 arguments is an error at the 13th" { dtrace_case; }
@test "a probe name without its argument list is an error at what follows the name" { dtrace_case; }
@test "translated arguments without their parenthesis are an error after the colon" { dtrace_case; }
# What no C parameter list can hold: no probe has such a prototype
@test "a variadic probe is an error at its '...', native or translated, with -h and -G" { dtrace_case; }
@test "an argument of type void is an error at its name" { dtrace_case; }
@test "void must be the only argument, and unqualified" { dtrace_case; }
@test "a storage class or a function specifier in an argument is an error" { dtrace_case; }
@test "type words that do not combine are an error at the second" { dtrace_case; }
@test "every impossible argument of a file is reported, and nothing is written" { dtrace_case; }

@test "what a C parameter list may hold stays accepted: (void), variadic function pointers, every type-word combination" {
    hd ok.d <<'EOF'
struct s;
typedef void my_void_t;
provider p {
    probe none(void);
    probe empty();
    probe fp(int (*cb)(int, ...), void (*done)(void), void *data);
    probe words(long long int a, unsigned long long b, long double c, signed char d,
                unsigned short int e, _Complex double f, long unsigned g, short h);
    probe more(const volatile void *p, register int r, struct s *sp, my_void_t *v, _Bool b,
               unsigned __int128 u, double _Complex z, char const *const s);
    probe arrays(int a[4], char *argv[], void *vp[2]);
};
EOF
    [ "$status" -eq 0 ]
    [ -z "$stderr" ]
    grep -q '^#define P_NONE() \\$' out.h
    grep -q '^#define P_FP(arg1, arg2, arg3) \\$' out.h
    grep -q '^#define P_WORDS(arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8) \\$' out.h
    grep -q '^#define P_MORE(arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8) \\$' out.h
    grep -q '^#define P_ARRAYS(arg1, arg2, arg3) \\$' out.h
}

@test "a duplicate probe is an error at the second one, with a note at the first" { dtrace_case; }
@test "a duplicate probe across two -s files is an error" { dtrace_case; }
@test "probes whose macros would collide are an error" { dtrace_case; }
@test "probes whose semaphores would collide across providers are an error" { dtrace_case; }
@test "provider and probe names must be C identifiers" { dtrace_case; }
@test "an unterminated comment is an error at its start" { dtrace_case; }
@test "an unterminated string is an error at its start" { dtrace_case; }
@test "an unbalanced ( in a probe is an error that names its line, and never hangs" { dtrace_case; }
@test "an argument list still open at the end of the file is an error at its (" { dtrace_case; }
@test "unbalanced braces and brackets outside providers are errors" { dtrace_case; }

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

@test "a probe outside any provider is an error" { dtrace_case; }
@test "a NUL byte in the input is an error at its position" { dtrace_case; }
@test "the end of the file inside a provider is an error" { dtrace_case; }
@test "something other than a probe inside a provider is an error" { dtrace_case; }
@test "a missing ; between probes is an error at what follows" { dtrace_case; }
@test "a missing { after the provider name is an error" { dtrace_case; }
@test "an empty argument is an error" { dtrace_case; }

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

@test "all semantic errors of a file are reported, not just the first" { dtrace_case; }

@test "a provider with 100000 probes is handled" {
    awk 'BEGIN { print "provider big {"; for (i = 0; i < 100000; i++) printf "  probe p%d(int a, char *b);\n", i; print "};" }' >big.d
    run --separate-stderr timeout 60 "$DTRACE" -h -s big.d -o out.h
    [ "$status" -eq 0 ]
    [ "$(grep -c '^#define BIG_P[0-9]*(arg1, arg2) \\$' out.h)" -eq 200000 ]
    run --separate-stderr timeout 60 "$DTRACE" -G -s big.d -o big.o
    [ "$status" -eq 0 ]
    [ "$(readelf -sW big.o | grep -c '_semaphore$')" -eq 100000 ]
}

@test "every case in tests/cases/dtrace-parse is run by a test of this file" { every_case_has_its_test; }
