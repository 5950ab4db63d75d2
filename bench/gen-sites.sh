#!/bin/sh
# SPDX-License-Identifier: MIT
# gen-sites.sh SITES: one C file with SITES probe sites of three arguments
# (100 functions), and -DEMPTY turning the probes into nothing, on stdout.
sites=${1:-2000}
awk -v sites="$sites" 'BEGIN {
    print "#include <sys/sdt.h>"
    print "#ifdef EMPTY"
    print "# undef STAP_PROBE3"
    print "# define STAP_PROBE3(p, n, a, b, c) do { (void) (a); (void) (b); (void) (c); } while (0)"
    print "#endif"
    print "struct s { int a; long b; char *c; };"
    funcs = 100; per = int(sites / funcs)
    for (f = 0; f < funcs; f++) {
        printf "void f%d (struct s *p, int x, long y);\n", f
        printf "void f%d (struct s *p, int x, long y) {\n", f
        for (i = 0; i < per; i++)
            printf "  STAP_PROBE3 (prov, p%d_%d, x + %d, y - p->b, p->c);\n", f, i, i
        print "}"
    }
}'
