# SPDX-License-Identifier: MIT
# gen-probes.awk: one C file of N probes (provider bench, probes p1 .. pN,
# two arguments each, 100 per function), on stdout, for sdt-list --diff:
#
#   awk -v n=10000 [-v variant=new] -f bench/gen-probes.awk
#
# The "new" variant is the next release of the same source: of every 100
# probes, probe 1 is gone, probe 51 takes a long where it took an int, and
# a probe q1 is added -- 3 changes per 100 probes, each one line of
# sdt-list --diff.
BEGIN {
    if (n == "") n = 10000
    new = variant == "new"
    print "#include <sys/sdt.h>"
    for (i = 1; i <= n; i++) {
        if ((i - 1) % 100 == 0) {
            if (i > 1) print "    return a + (int) b;\n}"
            f = int((i - 1) / 100)
            printf "int f%d (int a, long b);\nint f%d (int a, long b)\n{\n", f, f
        }
        if (new && i % 100 == 1)
            printf "    STAP_PROBE2 (bench, q%d, a, b);\n", i
        else if (new && i % 100 == 51)
            printf "    STAP_PROBE2 (bench, p%d, (long) a, b);\n", i
        else
            printf "    STAP_PROBE2 (bench, p%d, a, b);\n", i
    }
    print "    return a + (int) b;\n}"
}
