# SPDX-License-Identifier: MIT
# same-output.awk -v root=DIR SHOWN GOT: GOT, what an example printed, is
# SHOWN, the output its document shows, line for line, but for what the
# documents say they leave out or stand in for:
#   - bpftrace 0.17's message that it could not raise RLIMIT_MEMLOCK (the
#     line, wherever it is) and the empty lines it ends with;
#   - a hexadecimal number stands for any (addresses vary between builds);
#   - /home/me/sdtkit in SHOWN stands for the checkout, DIR.
# Prints nothing when they agree; else each line that differs, and exits 1.
function plain(s) {
    gsub(/0x[0-9a-f]+/, "0x?", s)
    return s
}
function checkout(s,    i) {
    while ((i = index(s, root)) > 0)
        s = substr(s, 1, i - 1) "/home/me/sdtkit" substr(s, i + length(root))
    return s
}
NR == FNR { shown[++n] = plain($0); next }
index($0, "couldn't set RLIMIT_MEMLOCK for bpftrace") { next }
{ got[++m] = plain(checkout($0)) }
END {
    while (m > 0 && got[m] == "") m--
    for (i = 1; i <= n || i <= m; i++)
        if (i > m) { print "line " i ": missing: " shown[i]; bad = 1 }
        else if (i > n) { print "line " i ": not shown: " got[i]; bad = 1 }
        else if (shown[i] != got[i]) { print "line " i ": shown: " shown[i]; print "line " i ":   got: " got[i]; bad = 1 }
    exit bad
}
