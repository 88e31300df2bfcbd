#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Checks scripts/bench-report.py against sample.log, whose figures are made up so that every
# derived value is known: xblk's seq-4k IOPS average (2400 + 2000) / 2 = 2200 against the
# in-tree pair's (1000 + 1200) / 2 = 1100 is 2.00x; its average request is 281600 sectors over
# 4000 requests = 35.2 KiB; notifications per ring request: frontend 200 / 4000 = 0.050,
# backend 500 / 4000 = 0.125; the in-tree pair's stand-ins are the interrupt counts.
set -u
cd "$(dirname "$0")"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail=0
python3 ../../scripts/bench-report.py sample.log "$out" > "$out/stdout" 2> "$out/stderr"
rc=$?
want() {
	grep -qF -- "$1" "$out/stdout" || { echo "bench-report: missing '$1'"; fail=1; }
}
[ $rc = 0 ] || { echo "bench-report: exit $rc, expected 0 (all targets met)"; fail=1; }
want "PASS xblk seq-4k: IOPS 2.00x (>= 2.0x), average request 35.2 KiB (>= 32)"
want "PASS xblk seq-4k notifications: frontend 0.050, backend 0.125 per request (<= 0.125)"
want "seq-4k      intree            1100       5      0.0     4.0    256.0   0.500   0.500"
grep -q '^xblk,seq-4k,2,2200,2000,2400,' "$out/bench.csv" || { echo "bench-report: CSV row"; fail=1; }
# a missed target turns the exit status to 1
sed 's/iops=2400/iops=1000/' sample.log > "$out/worse.log"
python3 ../../scripts/bench-report.py "$out/worse.log" "$out/w" > /dev/null 2>&1
[ $? = 1 ] || { echo "bench-report: a missed target did not give exit status 1"; fail=1; }
[ $fail = 0 ] && echo "bench-report: ok"
exit $fail
