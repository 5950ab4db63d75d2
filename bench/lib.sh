# SPDX-License-Identifier: MIT
# bench/lib.sh: the timing and formatting helpers of bench/run, sourced by it
# (and by tests/bench.bats).  The caller sets WORK (a scratch directory) and
# RUNS (repetitions per timing).

# MED: an awk function, med(a, k), the median of a[1..k] (which it sorts:
# insertion sort, for a few rounds); 0 when k is 0.
MED='function med(a, k,   i, j, x) {
    for (i = 2; i <= k; i++)
        for (j = i; j > 1 && a[j - 1] > a[j]; j--) { x = a[j]; a[j] = a[j - 1]; a[j - 1] = x }
    return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}'

# median: the median of the numbers read, one a line.
median() {
    awk "$MED"' { v[NR] = $1 } END { print med(v, NR) }'
}

# timeit DIR CMD...: median wall time of CMD in seconds (hyperfine, RUNS runs,
# run in DIR because SystemTap's script writes temporary files into the cwd).
timeit() {
    local dir=$1 csv=$WORK/t.csv
    shift
    (cd "$dir" && hyperfine -N -w 1 -r "$RUNS" --export-csv "$csv" "$*" >/dev/null 2>&1) || { echo ""; return 1; }
    awk -F, 'NR == 2 { print $4 }' "$csv"
}

# lastcpu: the mean user + system time (s) of the last timeit's runs.
lastcpu() {
    awk -F, 'NR == 2 { print $5 + $6 }' "$WORK/t.csv"
}

# timeit_rounds DIR CMD...: the median wall time (s) of each CMD, one per
# line, from RUNS rounds that run every CMD once in turn: on a shared machine
# a slow minute then slows every command alike, not just the one it met.
# Each time is kept in $WORK/rounds as "ROUND INDEX NANOSECONDS".
timeit_rounds() {
    local dir=$1 r i t0 t1
    shift
    local n=$#
    (
        cd "$dir" || exit 1
        set -f # the commands are words split on blanks, never globbed
        for r in $(seq 0 "$RUNS"); do # round 0 warms up and is not kept
            i=0
            for cmd in "$@"; do
                t0=$(date +%s%N)
                $cmd >/dev/null 2>&1 || exit 1
                t1=$(date +%s%N)
                [ "$r" -gt 0 ] && echo "$r $i $(( t1 - t0 ))"
                i=$(( i + 1 ))
            done
        done
    ) > "$WORK/rounds" || { for i in $(seq "$n"); do echo ""; done; return 1; }
    for i in $(seq 0 $(( n - 1 ))); do
        awk -v i="$i" "$MED"' $2 == i { v[++k] = $3 } END { printf "%.6f\n", med(v, k) / 1e9 }' "$WORK/rounds"
    done
}

# round_ratio A B C D: the median over the rounds of timeit_rounds of
# (time[B] - time[A]) / (time[D] - time[C]): a round's four times are taken
# seconds apart, where a whole run's medians may come from minutes apart.
round_ratio() {
    awk -v a="$1" -v b="$2" -v c="$3" -v d="$4" "$MED"'
        { t[$1, $2] = $3; if ($1 > n) n = $1 }
        END {
            k = 0
            for (r = 1; r <= n; r++) {
                den = t[r, d] - t[r, c]
                if (den > 0) v[++k] = (t[r, b] - t[r, a]) / den
            }
            if (k == 0) { print "-"; exit }
            printf "%.2f\n", med(v, k)
        }' "$WORK/rounds"
}

# over_base FILE BASE THEIRS MODE...: from FILE's lines "ROUND MODE NS"
# (each round runs BASE, the bare loop, and every MODE), for each MODE
# "MODE EXCESS RATIO": the median over the rounds of its ns over the same
# round's BASE, and the median of the rounds' own (MODE - BASE) / (THEIRS
# - BASE) ("-" when no round's THEIRS exceeds its BASE).
over_base() {
    local file=$1 base=$2 theirs=$3
    shift 3
    awk -v base="$base" -v theirs="$theirs" -v modes="$*" "$MED"'
        { ns[$1, $2] = $3; if ($1 > n) n = $1 }
        END {
            nm = split(modes, m, " ")
            for (i = 1; i <= nm; i++) {
                for (r = 1; r <= n; r++) v[r] = ns[r, m[i]] - ns[r, base]
                excess = med(v, n)
                k = 0
                for (r = 1; r <= n; r++)
                    if (ns[r, theirs] > ns[r, base])
                        v[++k] = (ns[r, m[i]] - ns[r, base]) / (ns[r, theirs] - ns[r, base])
                printf "%s %.2f %s\n", m[i], excess, k ? sprintf("%.2f", med(v, k)) : "-"
            }
        }' "$file"
}

ms() { awk -v s="$1" 'BEGIN { printf "%.1f ms", s * 1000 }'; }
# cpu S: GNU time's user+system seconds, which it counts in 10 ms steps
cpu() { awk -v s="$1" 'BEGIN { if (s < 0.01) print "< 10 ms"; else printf "%.0f ms", s * 1000 }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0fx", a / b; else print "-" }'; }
ratio2() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
probes_in() { grep -cE '^[[:space:]]*probe[[:space:]]' "$1"; }

# peak RSS (KB) and CPU time (user + system, s) of one run, via GNU time
peak() {
    /usr/bin/time -f '%M %U %S' -o "$WORK/peak" "$@" >/dev/null 2>&1 || { echo "- -"; return; }
    awk '{ printf "%s %.2f\n", $1, $2 + $3 }' "$WORK/peak"
}

