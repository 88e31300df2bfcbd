#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks scripts/bench-report.py against sample.log, a canned log of the three icount regime
# boots (sets r1, r2-10ms-256, r2-10ms-64, r2-2ms-256, r3) plus a wall-clock notification boot
# (set notify), whose figures are made up so that every derived value is known, and in which
# some of issue 31's targets fail:
# - R1 (against the in-tree pair): seq-4k xblk (25000 + 25400) / 2 = 25200 against (18000 +
#   18400) / 2 = 18200 is 1.38x (>= 1.35x): PASS; rand-4k 19760 / 19000 = 1.04x (>= 1.05x):
#   FAIL; qd1 10500 / 7500 = 1.40x: PASS; the sweep's lowest is seq-128k at 2080 / 2000 =
#   1.04x (each >= 1.0x: PASS, seq-128k >= 1.05x: FAIL); on mq-deadline 1.07x, 1.05x, 1.10x:
#   PASS. seq-4k's requests at the guest disk are 16 KiB (75 % merged), dom0's CPU 15.0 us per
#   I/O: 120000000 ns over 8000 I/Os in the 0.5 s window
# - R2 10 ms/256 tags: xblk seq-64k 9500 is 0.95x the tuned in-tree pair (every job >= 1.0x:
#   FAIL) and 1.73x the default one (>= 1.8x: FAIL); seq-4k 24000 (rounds 23800, 24200: spread
#   1.7 %) is 4.00x the in-tree pair's 6000 and 0.96x dom0-native's 25000, with 16 KiB requests
#   at the guest disk and 64 KiB at dom0's device (93.8 % merged there)
# - R2 10 ms/64 tags: seq-4k 26000 / native 6300 = 4.13x: PASS; seq-64k 8000 / tuned 5700 =
#   1.40x (>= 1.5x): FAIL; seq-128k 6400 / 4000 = 1.60x: PASS; rand-4k 5940 / 6000 = 0.99x:
#   FAIL; write-4k 20000 / native 6300 = 3.17x: PASS
# - R2 2 ms/256 tags: every job >= 1.0x the tuned pair, the lowest qd1 at 480 / 480: PASS
# - R3: dom0 5000 ns per 4 KiB I/O against the in-tree pair's 12000 (0.42x, <= 0.5x: PASS), so
#   one ring projects to 200000 IOPS against 83333 (2.40x, >= 2.0x: PASS); dom0 + guest + idle
#   over the window = 2.00 (two pCPUs, one out of the pool)
# - notifications (set=notify rows only): rand-4k xblk frontend 2000 / 10000 = 0.200 per
#   request: FAIL; seq-4k 0.050 / 0.100: PASS
# - repeatability: intree seq-4k's rounds in R1 differ by (18400 - 18000) / 18200 = 2.20%
# Then the same log with those figures fixed must pass every target (exit status 0), a log with
# only some regimes must exit 1 with the others' targets "not measured" when bench.sh asked
# for every regime and count only its own otherwise, the old set=main lines count as R1, and
# no data exits 2.
set -u
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
report() {   # OUTDIR ARGS...: run the report, sets rc
	local o=$1
	shift
	python3 ../../scripts/bench-report.py "$@" "$o" > "$o.stdout" 2> "$o.stderr"
	rc=$?
}
want() {   # OUTDIR STRING: the report printed a line holding STRING
	grep -qF -- "$2" "$1.stdout" || { echo "bench-report: missing '$2' in $1"; fail=1; }
}
last() {   # OUTDIR LINE: the report's last line is LINE
	[ "$(tail -1 "$1.stdout")" = "$2" ] ||
		{ echo "bench-report: last line '$(tail -1 "$1.stdout")', expected '$2' ($1)"; fail=1; }
}
ALL=(--regimes r1,r2,r3,wall)

report "$out/s" "${ALL[@]}" sample.log
[ $rc = 1 ] || { echo "bench-report: exit $rc on sample.log, expected 1 (targets missed)"; fail=1; }
want "$out/s" "PASS xblk R1 seq-4k: 1.38x the in-tree pair (>= 1.35x)"
want "$out/s" "FAIL xblk R1 rand-4k: 1.04x the in-tree pair (>= 1.05x)"
want "$out/s" "PASS xblk R1 qd1: 1.40x the in-tree pair (>= 1.4x)"
want "$out/s" "PASS xblk R1 seq 512..128k: lowest 1.04x at seq-128k of 9 jobs against the in-tree pair (each >= 1.0x)"
want "$out/s" "FAIL xblk R1 seq-128k: 1.04x the in-tree pair (>= 1.05x)"
want "$out/s" "PASS xblk@dl R1: lowest 1.05x at rand-4k of 3 jobs against intree@dl (each >= 1.05x)"
want "$out/s" "FAIL xblk R2 10ms/256 every job: lowest 0.95x at seq-64k of 8 jobs against the tuned in-tree pair (each >= 1.0x); below: seq-64k"
want "$out/s" "PASS xblk R2 10ms/256 seq-4k: 4.00x the in-tree pair (>= 3.3x)"
want "$out/s" "FAIL xblk R2 10ms/256 seq-64k: 1.73x the in-tree pair (>= 1.8x)"
want "$out/s" "PASS xblk R2 10ms/256 seq-4k: 0.96x dom0-native (>= 0.9x)"
want "$out/s" "PASS xblk R2 10ms/256 rand-4k-deep: 3.50x the in-tree pair (>= 1.0x)"
want "$out/s" "PASS xblk R2 10ms/256 qd4: 1.01x the in-tree pair (>= 1.0x)"
want "$out/s" "PASS xblk R2 10ms/64 seq-4k: 4.13x dom0-native (>= 4.0x)"
want "$out/s" "FAIL xblk R2 10ms/64 seq-64k: 1.40x the tuned in-tree pair (>= 1.5x)"
want "$out/s" "PASS xblk R2 10ms/64 seq-128k: 1.60x the tuned in-tree pair (>= 1.5x)"
want "$out/s" "FAIL xblk R2 10ms/64 rand-4k: 0.99x the in-tree pair (>= 1.0x)"
want "$out/s" "PASS xblk R2 10ms/64 write-4k: 3.17x dom0-native (>= 3.0x)"
want "$out/s" "PASS xblk R2 2ms/256 every job: lowest 1.00x at qd1 of 8 jobs against the tuned in-tree pair (each >= 1.0x)"
want "$out/s" "PASS xblk R3 seq-4k dom0 per 4 KiB I/O: 5000 against 12000 ns (instructions): 0.42x (<= 0.5x)"
want "$out/s" "PASS xblk R3 seq-4k single-ring projection: 200000 against 83333 IOPS: 2.40x (>= 2.0x)"
want "$out/s" "PASS xblk wall seq-4k notifications: frontend 0.050, backend 0.100 per request (<= 0.125)"
want "$out/s" "FAIL xblk wall rand-4k notifications: frontend 0.200, backend 0.100 per request (<= 0.125)"
want "$out/s" "seq-4k        xblk             2    25200    1.6%     103     75.0    16.0    15.0    30.0   14.3  1.13     4.00    1.38x"
want "$out/s" "seq-4k        xblk           2   24000    1.7%     98   16.0   75.0   64.0   93.8    4.00x   1.20x    0.96x"
want "$out/s" "seq-4k        xblk           2   40000    5000   19000  0.96  2.00      200000         0.42x           2.40x"
want "$out/s" "qd1           xblk                10500     95.0      95     190     285          0.71x"
want "$out/s" "rand-4k       xblk                 2000   0.200   0.100  0.100  0.200    256.0"
want "$out/s" "  128k        6000        2000        2080           1.04x           0.35x"
want "$out/s" "differ by at most 2.20%"
last "$out/s" "19 passed, 7 failed"
grep -q '^r2-10ms-256,icount,xblk,seq-4k,2,24000,23800,24200,' "$out/s/bench.csv" || { echo "bench-report: CSV row"; fail=1; }
grep -q '^notify,wall,xblk,rand-4k,1,2000,' "$out/s/bench.csv" || { echo "bench-report: CSV notify row"; fail=1; }

# the missed targets fixed: everything passes
sed -e '/set=r1 pair=xblk work=rand-4k /s/iops=19760/iops=20000/' \
	-e '/set=r1 pair=xblk work=seq-128k /s/iops=2080/iops=2200/' \
	-e '/set=r2-10ms-256 pair=xblk work=seq-64k /s/iops=9500/iops=10500/' \
	-e '/set=r2-10ms-64 pair=xblk work=seq-64k /s/iops=8000/iops=9000/' \
	-e '/set=r2-10ms-64 pair=xblk work=rand-4k /s/iops=5940/iops=6000/' \
	-e '/set=notify pair=xblk work=rand-4k /s/fe_notify_out=2000/fe_notify_out=1000/' \
	sample.log > "$out/good.log"
report "$out/g" "${ALL[@]}" "$out/good.log"
[ $rc = 0 ] || { echo "bench-report: exit $rc with every target met, expected 0"; fail=1; }
want "$out/g" "PASS xblk R2 10ms/256 every job: lowest 1.00x at rand-4k of 8 jobs against the tuned in-tree pair (each >= 1.0x)"
last "$out/g" "26 passed, 0 failed"

# a ratio just under its threshold is not printed as the threshold: 379 / 380 = 0.997x
sed '/set=r2-10ms-256 pair=xblk work=qd4 /s/iops=385/iops=379/' "$out/good.log" > "$out/near.log"
report "$out/n" "${ALL[@]}" "$out/near.log"
want "$out/n" "FAIL xblk R2 10ms/256 qd4: 0.997x the in-tree pair (>= 1.0x)"
want "$out/n" "FAIL xblk R2 10ms/256 every job: lowest 0.997x at qd4 of 8 jobs against the tuned in-tree pair (each >= 1.0x); below: qd4"
last "$out/n" "24 passed, 2 failed"

# R1 and the wall-clock boot only, all regimes asked for: R2's and R3's targets not measured
grep -E 'set=(r1|notify) ' "$out/good.log" > "$out/part.log"
report "$out/p" "${ALL[@]}" "$out/part.log"
[ $rc = 1 ] || { echo "bench-report: exit $rc with targets not measured, expected 1"; fail=1; }
want "$out/p" "n/a  xblk R2 10ms/256 seq-4k: - the in-tree pair (>= 3.3x)"
want "$out/p" "n/a  xblk R2 2ms/256 every job: 0 of 8 jobs measured against the tuned in-tree pair (each >= 1.0x); missing: seq-4k seq-64k"
want "$out/p" "n/a  xblk R3 seq-4k dom0 per 4 KiB I/O: - against - ns (instructions): - (<= 0.5x)"
want "$out/p" "16 target(s) not measured"
last "$out/p" "10 passed, 0 failed"

# one regime run alone (scripts/bench.sh r2): only its targets
grep -E 'set=r2-' "$out/good.log" > "$out/r2.log"
report "$out/r2" "$out/r2.log"
[ $rc = 0 ] || { echo "bench-report: exit $rc on R2 alone, expected 0"; fail=1; }
last "$out/r2" "14 passed, 0 failed"

# the wall-clock boot alone (scripts/bench.sh wall): each target once, however many jobs
grep -E 'set=notify ' "$out/good.log" > "$out/wall.log"
report "$out/w" --regimes wall "$out/wall.log"
[ "$(grep -c 'xblk wall seq-4k notifications' "$out/w.stdout")" = 1 ] ||
	{ echo "bench-report: a wall target printed more than once"; fail=1; }
last "$out/w" "4 passed, 0 failed"

# a log of the single-regime bench (set=main) is R1
grep -E 'set=r1 ' "$out/good.log" | sed 's/set=r1 /set=main /' > "$out/old.log"
report "$out/o" "$out/old.log"
want "$out/o" "PASS xblk R1 seq-4k: 1.38x the in-tree pair (>= 1.35x)"
last "$out/o" "6 passed, 0 failed"

# no data at all
: > "$out/empty.log"
report "$out/e" "$out/empty.log"
[ $rc = 2 ] || { echo "bench-report: exit $rc without data, expected 2"; fail=1; }

[ $fail = 0 ] && echo "bench-report: ok"
exit $fail
