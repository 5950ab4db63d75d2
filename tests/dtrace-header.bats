#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# dtrace -h: the exact text shapes builds depend on (and post-process with
# sed), that the header compiles as C and C++ and works with the -G
# object, and the opt-in SDTKIT_TYPECHECK.

load dtrace-helpers

# Every test starts with the small provider, prov.d, and its header, prov.h.
setup_file() {
    BATS_TEST_TMPDIR=$BATS_FILE_TMPDIR small_provider
    "$DTRACE" -h -s "$BATS_FILE_TMPDIR/prov.d" -o "$BATS_FILE_TMPDIR/prov.h"
}

setup() {
    T=$BATS_TEST_TMPDIR
    cp "$BATS_FILE_TMPDIR"/prov.[dh] "$T"
}

# The probes of every arity, 0 to 12.
arities_provider() {
    awk 'BEGIN { print "provider ar {"; print "    probe a0();"
        for (n = 1; n <= 12; n++) {
            printf "    probe a%d(", n
            for (i = 1; i <= n; i++) printf "%sint x%d", (i > 1 ? ", " : ""), i
            print ");"
        }
        print "};" }' >ar.d
}

@test "the header defines the two semaphore flags on exact lines, then includes sys/sdt.h" {
    grep -qx '#define _SDT_HAS_SEMAPHORES 1' prov.h
    grep -qx '#define STAP_HAS_SEMAPHORES 1' prov.h
    grep -qx '#include <sys/sdt.h>' prov.h
    [ "$(grep -n -e '^#define _SDT_HAS_SEMAPHORES' -e '^#define STAP_HAS_SEMAPHORES' -e '^#include <sys/sdt.h>' prov.h | cut -d: -f2 | tr '\n' ' ')" = \
      "#define _SDT_HAS_SEMAPHORES 1 #define STAP_HAS_SEMAPHORES 1 #include <sys/sdt.h> " ]
}

@test "each probe macro is one #define line ending in a backslash, then DTRACE_PROBEn" {
    arities_provider
    "$DTRACE" -h -s ar.d -o ar.h
    grep -A1 -x '#define AR_A0() \\' ar.h | grep -qx 'DTRACE_PROBE (ar, a0)'
    grep -A1 -x '#define AR_A1(arg1) \\' ar.h | grep -qx 'DTRACE_PROBE1 (ar, a1, arg1)'
    grep -A1 -x '#define AR_A2(arg1, arg2) \\' ar.h | grep -qx 'DTRACE_PROBE2 (ar, a2, arg1, arg2)'
    args="arg1, arg2, arg3, arg4, arg5, arg6, arg7, arg8, arg9, arg10, arg11, arg12"
    grep -A1 -xF "#define AR_A12($args) \\" ar.h | grep -qxF "DTRACE_PROBE12 (ar, a12, $args)"
}

@test "the type comment repeats the declaration, char * written as char *" {
    d types.d <<'EOF'
provider pg {
    probe query__start(const char *);
    probe lock(char*name, unsigned   long long int n);
    probe none();
};
EOF
    "$DTRACE" -h -s types.d -o types.h
    grep -qxF '/* PG_QUERY_START ( const char * ) */' types.h
    grep -qxF '/* PG_LOCK ( char *name, unsigned long long int n ) */' types.h
    grep -qxF '/* PG_NONE ( ) */' types.h
}

@test "ENABLED reads the semaphore through __builtin_expect; STAP_SDT_V1 uses the old name" {
    diff - <(grep -A5 -x '#if defined STAP_SDT_V1' prov.h | head -6) <<'EOF'
#if defined STAP_SDT_V1
#define P_X_ENABLED() __builtin_expect (x_semaphore, 0)
#define p_x_semaphore x_semaphore
#else
#define P_X_ENABLED() __builtin_expect (p_x_semaphore, 0)
#endif
EOF
    grep -qF '__extension__ extern unsigned short p_x_semaphore __attribute__ ((unused)) __attribute__ ((section (".probes")))' prov.h
}

@test "the semaphore reference is hidden, and default with STAP_SDT_V1 or STAP_SDT_V2" {
    echo '#include "prov.h"
int f(void) { return P_X_ENABLED(); }' >use.c
    gcc -fPIC -O2 -I"$SDT_INC" -c use.c -o hidden.o
    readelf -sW hidden.o | grep -E 'UND p_x_semaphore$' | grep -q HIDDEN
    # PIC code reads a hidden semaphore directly, without a GOT load
    ! readelf -rW hidden.o | grep -q 'GOTPCREL.*p_x_semaphore' || false
    gcc -fPIC -O2 -DSTAP_SDT_V2 -I"$SDT_INC" -c use.c -o v2.o
    readelf -sW v2.o | grep -E 'UND p_x_semaphore$' | grep -q DEFAULT
    gcc -fPIC -O2 -DSTAP_SDT_V1 -I"$SDT_INC" -c use.c -o v1.o
    readelf -sW v1.o | grep -E 'UND x_semaphore$' | grep -q DEFAULT
}

@test "the generated header compiles cleanly as C and C++ with gcc and clang" {
    arities_provider
    "$DTRACE" -h -s ar.d -o ar.h
    cat >use.c <<'EOF'
#include "ar.h"
int main(void)
{
    int v = 3;
    if (AR_A0_ENABLED() || AR_A12_ENABLED())
        v++;
    AR_A0();
    AR_A1(v);
    AR_A2(v, v);
    AR_A12(v, v, v, v, v, v, v, v, v, v, v, v);
    return v == 0;
}
EOF
    cp use.c use.cc
    for cc in gcc clang; do
        $cc -std=gnu11 -Wall -Wextra -Werror -O2 -I"$SDT_INC" -c use.c -o "c-$cc.o"
    done
    for cxx in g++ clang++; do
        $cxx -std=c++17 -Wall -Wextra -Werror -O2 -I"$SDT_INC" -c use.cc -o "cxx-$cxx.o"
    done
}

@test "including the header twice, or two generated headers, is fine" {
    echo 'provider q { probe z(long); };' >two.d
    "$DTRACE" -h -s two.d -o two.h
    printf '#include "prov.h"\n#include "two.h"\n#include "prov.h"\nint main(void) { P_Y(); Q_Z(1L); return 0; }\n' >use.c
    gcc -Wall -Wextra -Werror -I"$SDT_INC" -c use.c -o use.o
}

@test "the include guard depends on the providers and probes, not on the run" {
    "$DTRACE" -h -s prov.d -o b.h
    cmp prov.h b.h
    guard="$(sed -n 's/^#ifndef \(SDTKIT_DTRACE_.*\)$/\1/p' prov.h)"
    [[ "$guard" == SDTKIT_DTRACE_P_*_H ]]
    grep -qx "#define $guard" prov.h
    echo 'provider p { probe x(int a, char *s); probe other(); };' >other.d
    "$DTRACE" -h -s other.d -o other.h
    ! grep -qx "#ifndef $guard" other.h
}

@test "a file without providers still gives a valid, guarded header" {
    echo 'BEGIN{}' >none.d
    "$DTRACE" -h -s none.d -o none.h
    grep -qx '#ifndef SDTKIT_DTRACE_NO_PROVIDER_[0-9A-F]*_H' none.h
    printf '#include "none.h"\n#include "none.h"\nint main(void) { return 0; }\n' >use.c
    gcc -Wall -Wextra -Werror -I"$SDT_INC" -c use.c -o use.o
}

@test "the header is the same bytes whatever the directory or path of the input" {
    mkdir -p a/deep/dir b
    small_provider a/deep/dir/prov.d
    cp a/deep/dir/prov.d b/prov.d
    "$DTRACE" -h -s a/deep/dir/prov.d -o one.h
    (cd b && "$DTRACE" -h -s "$T/b/prov.d" -o ../two.h)
    cmp one.h two.h
    ! grep -q "$T" one.h
}

@test "a program using the header links with the -G object and its notes name the semaphores" {
    "$DTRACE" -G -s prov.d -o prov.o
    cat >main.c <<'EOF'
#include "prov.h"
int main(int argc, char **argv)
{
    if (P_X_ENABLED())
        P_X(argc, argv[0]);
    P_Y();
    return 0;
}
EOF
    gcc -O2 -I"$SDT_INC" main.c prov.o -o main
    ./main
    sem="$(readelf -sW main | awk '$NF == "p_x_semaphore" { print $2 }')"
    [ -n "$sem" ]
    readelf -n main | grep -A3 'Name: x$' | grep -q "Semaphore: 0x0*${sem#0000000000}"
    readelf -SW main | grep -q ' \.probes '
}

@test "PostgreSQL's sed post-processing gives working TRACE_POSTGRESQL_ macros" {
    d probes.d <<'EOF'
#define LocalTransactionId unsigned int
provider postgresql {
    probe transaction__start(LocalTransactionId);
    probe lwlock__acquire(const char *, int);
    probe statement__status(char *);
};
EOF
    "$DTRACE" -C -h -s probes.d -o probes.h.tmp
    sed -e 's/POSTGRESQL_/TRACE_POSTGRESQL_/g' \
        -e 's/( *char \*/(const char */g' \
        -e 's/, *char \*/, const char */g' probes.h.tmp >probes.h
    grep -qxF '/* TRACE_POSTGRESQL_STATEMENT_STATUS (const char * ) */' probes.h
    cat >pg.c <<'EOF'
#include "probes.h"
void f(unsigned int xid, const char *s)
{
    TRACE_POSTGRESQL_TRANSACTION_START(xid);
    if (TRACE_POSTGRESQL_LWLOCK_ACQUIRE_ENABLED())
        TRACE_POSTGRESQL_LWLOCK_ACQUIRE(s, 1);
    TRACE_POSTGRESQL_STATEMENT_STATUS(s);
}
EOF
    gcc -Wall -Wextra -Werror -I"$SDT_INC" -c pg.c -o pg.o
    readelf -n pg.o | grep -q 'Name: transaction__start'
}

@test "Erlang's sed lower-cases the #define lines and the header still works" {
    d erlang_dtrace.d <<'EOF'
provider erlang {
    probe gc_major__start(char *p, int need, int off_heap);
    probe process__spawn(char *p, char *mfa);
    probe dist__monitor();
};
EOF
    "$DTRACE" -h -C -s erlang_dtrace.d -o erlang_dtrace.tmp
    sed -e '/^#define[ 	]*ERLANG_[A-Z0-9_]*(.*)/y/ABCDEFGHIJKLMNOPQRSTUVWXYZ/abcdefghijklmnopqrstuvwxyz/' \
        erlang_dtrace.tmp >erlang_dtrace.h
    grep -qx '#define erlang_gc_major_start(arg1, arg2, arg3) \\' erlang_dtrace.h
    grep -qx '#define erlang_gc_major_start_enabled() __builtin_expect (erlang_gc_major__start_semaphore, 0)' erlang_dtrace.h
    cat >erl.c <<'EOF'
#include "erlang_dtrace.h"
#define DTRACE_ENABLED(name) erlang_##name##_enabled()
#define DTRACE3(name, a0, a1, a2) erlang_##name(a0, a1, a2)
void f(char *p)
{
    if (DTRACE_ENABLED(gc_major_start))
        DTRACE3(gc_major_start, p, 1, 2);
    erlang_dist_monitor();
}
EOF
    gcc -Wall -Wextra -Werror -I"$SDT_INC" -c erl.c -o erl.o
    readelf -n erl.o | grep -q 'Name: gc_major__start'
}

@test "GLib's sed turns the flags into #undef and probes then need no -G object" {
    sed -i -e "s,define STAP_HAS_SEMAPHORES 1,undef STAP_HAS_SEMAPHORES," \
        -e "s,define _SDT_HAS_SEMAPHORES 1,undef _SDT_HAS_SEMAPHORES," prov.h
    grep -qx '#undef _SDT_HAS_SEMAPHORES' prov.h
    grep -qx '#undef STAP_HAS_SEMAPHORES' prov.h
    printf '#include "prov.h"\nint main(int c, char **v) { P_X(c, v[0]); P_Y(); return 0; }\n' >main.c
    gcc -Wall -Wextra -Werror -I"$SDT_INC" main.c -o main
    ./main
    ! readelf -sW main | grep -q _semaphore
}

@test "without SDTKIT_TYPECHECK a mismatching argument compiles exactly as before" {
    printf '#include "prov.h"\nstruct s { int i; };\nvoid f(struct s *sp, double d) { P_X(d, sp); }\n' >bad.c
    gcc -Wall -Wextra -Werror -I"$SDT_INC" -c bad.c -o bad.o
}

@test "with SDTKIT_TYPECHECK a mismatching argument is a compiler diagnostic, in C and C++" {
    printf '#define SDTKIT_TYPECHECK\n#include "prov.h"\nstruct s { int i; };\nvoid f(struct s *sp) { P_X(1, sp); }\n' >bad.c
    run gcc -Wall -Werror -I"$SDT_INC" -c bad.c -o bad.o
    [ "$status" -ne 0 ]
    [[ "$output" == *"__sdtkit_typecheck_p_x"* ]]
    run clang -Wall -Werror -I"$SDT_INC" -c bad.c -o bad.o
    [ "$status" -ne 0 ]
    [[ "$output" == *"incompatible pointer types"* ]]
    cp bad.c bad.cc
    run g++ -Wall -I"$SDT_INC" -c bad.cc -o bad.o
    [ "$status" -ne 0 ]
    [[ "$output" == *"cannot convert"* ]]
    # an integer where a pointer is declared
    printf '#define SDTKIT_TYPECHECK\n#include "prov.h"\nvoid g(long l) { P_X(1, l); }\n' >int.c
    run gcc -Wall -Werror -I"$SDT_INC" -c int.c -o int.o
    [ "$status" -ne 0 ]
    [[ "$output" == *"makes pointer from integer"* ]]
}

@test "with SDTKIT_TYPECHECK matching arguments compile cleanly, const char * included" {
    d t.d <<'EOF'
struct conn;
provider t {
    probe a(int n, char *s, string d, struct conn **c, void *v);
    probe b(unsigned long long int, const char *, double);
};
EOF
    "$DTRACE" -h -s t.d -o t.h
    cat >good.c <<'EOF'
#define SDTKIT_TYPECHECK
#include "t.h"
struct conn { int fd; };
void f(struct conn **cp, const char *cs, char *s, short sh, float fl)
{
    T_A(sh, s, cs, cp, cp);
    T_A(1, cs, s, cp, (void *)0);
    T_B(1ULL, s, fl);
}
EOF
    cp good.c good.cc
    gcc -std=c11 -Wall -Wextra -Werror -I"$SDT_INC" -c good.c -o good.o
    clang -std=c11 -Wall -Wextra -Werror -I"$SDT_INC" -c good.c -o good-clang.o
    g++ -Wall -Wextra -Werror -I"$SDT_INC" -c good.cc -o good-cxx.o
}

@test "with SDTKIT_TYPECHECK the header stays clean under strict C89 to C11" {
    d strict.d <<'EOF'
provider s { probe a(const char *, unsigned long long int n, struct X **p); probe b(); };
EOF
    "$DTRACE" -h -s strict.d -o strict.h
    cat >strict.c <<'EOF'
#define SDTKIT_TYPECHECK
#include "strict.h"
struct X { int a; };
void f(const char *s, unsigned long n, struct X **p)
{
    int z = 0;
    S_A(s, n, p);
    S_B();
    if (S_A_ENABLED())
        z++;
    (void)z;
}
EOF
    for std in c89 gnu89 c99 c11; do
        for cc in gcc clang; do
            $cc -std=$std -pedantic -Wall -Wextra -Werror -Werror=declaration-after-statement \
                -I"$SDT_INC" -c strict.c -o strict.o || { echo "$cc -std=$std"; return 1; }
        done
    done
}

@test "with SDTKIT_TYPECHECK the arguments are evaluated once" {
    "$DTRACE" -G -s prov.d -o prov.o
    cat >once.c <<'EOF'
#define SDTKIT_TYPECHECK
#include "prov.h"
static int calls;
static char *name(char *s) { calls++; return s; }
int main(int argc, char **argv)
{
    int i = 0;
    P_X(i++, name(argv[0]));
    return !(argc && i == 1 && calls == 1);
}
EOF
    gcc -O0 -Wall -Werror -I"$SDT_INC" once.c prov.o -o once
    ./once
}

@test "with SDTKIT_TYPECHECK, typedef names known only to the .d file must be declared first" {
    printf 'typedef struct { int dummy; } node_conn_t;\nprovider node { probe conn(node_conn_t *c, int fd); };\n' >td.d
    "$DTRACE" -h -s td.d -o td.h
    printf '#define SDTKIT_TYPECHECK\n#include "td.h"\n' >undeclared.c
    run gcc -Wall -Werror -I"$SDT_INC" -c undeclared.c -o undeclared.o
    [ "$status" -ne 0 ]
    [[ "$output" == *node_conn_t* ]]
    printf 'typedef struct node_conn node_conn_t;\n#define SDTKIT_TYPECHECK\n#include "td.h"\nvoid f(node_conn_t *c) { NODE_CONN(c, 3); }\n' >declared.c
    gcc -Wall -Werror -I"$SDT_INC" -c declared.c -o declared.o
    # and without the opt-in the header never needs them
    printf '#include "td.h"\nvoid f(void *c) { NODE_CONN(c, 3); }\n' >plain.c
    gcc -Wall -Werror -I"$SDT_INC" -c plain.c -o plain.o
}

@test "the typecheck prototypes and tags appear only under #if defined SDTKIT_TYPECHECK" {
    echo 'provider t { probe a(struct conn *c, union u *p); };' >t.d
    "$DTRACE" -h -s t.d -o t.h
    # everything mentioning the check sits inside a conditional on it
    awk '/^#if defined SDTKIT_TYPECHECK$/ {depth=1; next}
         depth && /^#(else|endif)$/ {depth=0}
         !depth && /__sdtkit_typecheck|^struct conn;|^union u;/ {bad=1; print}
         END {exit bad}' t.h
    grep -qx 'struct conn;' t.h
    grep -qx 'union u;' t.h
    grep -qxF '__extension__ extern int __sdtkit_typecheck_t_a (struct conn const *, union u const *);' t.h
}
