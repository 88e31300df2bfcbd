#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks scripts/bench-report.py against sample.log, a canned log of an icount bench boot plus
# a wall-clock notification boot whose figures are made up so that every derived value is
# known, and in which some targets fail:
# - seq-4k: xblk (40000 + 40400) / 2 = 40200 IOPS against the in-tree pair's (18000 + 18400) / 2
#   = 18200 is 2.21x; its requests at the guest disk are 72 sectors = 36.0 KiB: PASS
# - rand-4k: 23000 / 19000 = 1.21x (< 1.3x): FAIL; slow-seq-4k 30000 / 16000 = 1.88x (< 2.0x):
#   FAIL; seq-128k 1900 / 2000 = 0.95x (< 1.0x): FAIL; qd1 9600 / 7500 = 1.28x with a mean
#   latency of 104 / 133 = 0.78x: PASS
# - dom0 CPU per I/O: cpu_d0_ns over the I/Os fio did in the 1.5 s window (IOPS x 1.5):
#   seq-4k xblk 15.0 us against 30.0 = 0.50x: PASS, rand-4k 20.0 against 30.0 = 0.67x: FAIL
# - requests per backend pass: be_req / passes, seq-4k xblk 4.00; the in-tree backend: "-"
# - pCPUs busy: (dom0 + guest CPU time) / window, seq-4k xblk (15 + 30) us x (40000 + 40400) x
#   1.5 I/Os / 3.0 s = 1.81; dom0 by its own /proc/stat: 2 x (10 + 8) / 100 s over 120600 I/Os =
#   3.0 us (intree: 2 x (30 + 24) / 100 s over 54600 = 19.8)
# - notifications (set=notify rows only): rand-4k xblk frontend 2000 / 10000 = 0.200 per
#   request: FAIL; seq-4k 0.050 / 0.100: PASS
# - repeatability: intree seq-4k's rounds differ by (18400 - 18000) / 18200 = 2.20%
# Then the same log with those five figures fixed must pass every target (exit status 0), a
# log with only part of the jobs must exit 1 with targets "not measured", and no data exit 2.
set -u
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
report() {   # LOG OUTDIR: run the report, sets rc
	python3 ../../scripts/bench-report.py "$1" "$2" > "$2.stdout" 2> "$2.stderr"
	rc=$?
}
want() {   # OUTDIR STRING: the report printed a line holding STRING
	grep -qF -- "$2" "$1.stdout" || { echo "bench-report: missing '$2' in $1"; fail=1; }
}

report sample.log "$out/s"
[ $rc = 1 ] || { echo "bench-report: exit $rc on sample.log, expected 1 (targets missed)"; fail=1; }
want "$out/s" "PASS xblk seq-4k: IOPS 2.21x (>= 2.0x), average request 36.0 KiB (>= 32)"
want "$out/s" "FAIL xblk rand-4k: IOPS 1.21x (>= 1.3x)"
want "$out/s" "PASS xblk qd1: IOPS 1.28x (>= 1.25x), mean latency 0.78x (<= 0.8x)"
want "$out/s" "FAIL xblk slow-seq-4k: IOPS 1.88x (>= 2.0x)"
want "$out/s" "PASS xblk slow-rand-4k: IOPS 1.01x (>= 1.0x)"
want "$out/s" "PASS xblk slow-qd1: IOPS 1.00x (>= 1.0x)"
want "$out/s" "FAIL xblk seq 512..128k: lowest 0.95x at 128k (each >= 1.0x); below: 128k"
want "$out/s" "PASS xblk seq-64k vs native: 0.67x of dom0-native (>= 0.6x)"
want "$out/s" "PASS xblk@dl: 6 jobs, lowest 1.00x at slow-seq-4k (each >= 1.0x)"
want "$out/s" "PASS xblk seq-4k dom0 CPU: 15.0 against 30.0 us per I/O: 0.50x (<= 0.6x)"
want "$out/s" "FAIL xblk rand-4k dom0 CPU: 20.0 against 30.0 us per I/O: 0.67x (<= 0.6x)"
want "$out/s" "PASS xblk seq-4k notifications: frontend 0.050, backend 0.100 per request (<= 0.125)"
want "$out/s" "FAIL xblk rand-4k notifications: frontend 0.200, backend 0.100 per request (<= 0.125)"
want "$out/s" "seq-4k        xblk             2    40200    1.0%     165     87.1    36.0    15.0    30.0    3.0  1.81     4.00    2.21x"
want "$out/s" "seq-4k        intree           2    18200    2.2%      75      0.0     4.0    30.0    40.0   19.8  1.27        -        -"
want "$out/s" "qd1           xblk                 9600    104.0     104     208     312          0.78x"
want "$out/s" "rand-4k       xblk                 2000   0.200   0.100  0.100  0.200    256.0"
want "$out/s" "  128k        4000        2000        1900           0.95x           0.47x"
want "$out/s" "differ by at most 2.20%"
[ "$(tail -1 "$out/s.stdout")" = "10 passed, 5 failed" ] ||
	{ echo "bench-report: last line '$(tail -1 "$out/s.stdout")', expected '10 passed, 5 failed'"; fail=1; }
grep -q '^main,icount,xblk,seq-4k,2,40200,40000,40400,' "$out/s/bench.csv" || { echo "bench-report: CSV row"; fail=1; }
grep -q '^notify,wall,xblk,rand-4k,1,2000,' "$out/s/bench.csv" || { echo "bench-report: CSV notify row"; fail=1; }

# the five missed targets fixed: everything passes
sed -e '/pair=xblk work=rand-4k /s/iops=23000 \(.*\)cpu_d0_ns=690000000/iops=25000 \1cpu_d0_ns=600000000/' \
	-e '/pair=xblk work=slow-seq-4k /s/iops=30000/iops=33000/' \
	-e '/pair=xblk work=seq-128k /s/iops=1900/iops=2100/' \
	-e '/set=notify pair=xblk work=rand-4k /s/fe_notify_out=2000/fe_notify_out=1000/' \
	sample.log > "$out/good.log"
report "$out/good.log" "$out/g"
[ $rc = 0 ] || { echo "bench-report: exit $rc with every target met, expected 0"; fail=1; }
want "$out/g" "PASS xblk rand-4k dom0 CPU: 16.0 against 30.0 us per I/O: 0.53x (<= 0.6x)"
[ "$(tail -1 "$out/g.stdout")" = "15 passed, 0 failed" ] ||
	{ echo "bench-report: last line '$(tail -1 "$out/g.stdout")', expected '15 passed, 0 failed'"; fail=1; }

# a run of seq-4k only: the other targets are not measured, which is not a pass
grep -E 'XLAB-BENCH-INFO|work=seq-4k ' "$out/good.log" > "$out/part.log"
report "$out/part.log" "$out/p"
[ $rc = 1 ] || { echo "bench-report: exit $rc with targets not measured, expected 1"; fail=1; }
want "$out/p" "n/a  xblk rand-4k: IOPS - (>= 1.3x)"
want "$out/p" "11 target(s) not measured"
[ "$(tail -1 "$out/p.stdout")" = "4 passed, 0 failed" ] ||
	{ echo "bench-report: last line '$(tail -1 "$out/p.stdout")', expected '4 passed, 0 failed'"; fail=1; }

# no data at all
: > "$out/empty.log"
report "$out/empty.log" "$out/e"
[ $rc = 2 ] || { echo "bench-report: exit $rc without data, expected 2"; fail=1; }

[ $fail = 0 ] && echo "bench-report: ok"
exit $fail
