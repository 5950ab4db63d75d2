# 1 "probes.d"
# 1 "<built-in>"
# 1 "<command-line>"
# 31 "/usr/include/stdc-predef.h" 3 4
# 32 "<command-line>" 2
# 1 "probes.d"
#line 40 "renamed \"quoted\".d"
provider p {
#line 7
    probe a(int);
# 100 "other.d" 1 3
    probe b(long);
};
# file: libvirt-style comment, not a marker
#define NOT_EXPANDED 1 \
    continued
