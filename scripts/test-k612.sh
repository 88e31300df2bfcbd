#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lab on bookworm-backports' 6.12 kernel (make test-k612; part of make
# test-long, not of make test): three runs of tests/lab/run.sh, one lab boot
# per suite, each side booting the kernel named by XLAB_OPTS dom0_kernel /
# guest_kernel (tests/lab/README.md, "Kernels"):
#
#   d612-g612   6.12 dom0 and guest: back (xblk pair, ours-*; in-tree
#               xen-blkfront on xblkback, intree-*), front (xblkfront on the
#               in-tree xen-blkback and QEMU's qdisk) and intree (the in-tree
#               pair: the lab's reference)
#   d612-g61    6.12 dom0, 6.1 guest: back's ours-* data cases (xblk pair)
#   d61-g612    6.1 dom0, 6.12 guest: the same
#
# Every XLAB-CASE line is repeated at the end with the run's tag in front of
# the suite (XLAB-CASE d612-g61/back/ours-flush: PASS ...), then the sum
# "N passed, N failed" alone on the last line.  Exit 0 iff nothing failed and
# something passed.
#
#   scripts/test-k612.sh [RUN...]      default: d612-g612 d612-g61 d61-g612
#
# env: XLAB_OPTS (tier=ci etc.) and the other XLAB_* settings pass through;
#      XLAB_CASES overrides each run's case list.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2

# the data cases that move data (fio --verify) with the xblk pair, for the
# cross-version runs: each feature against each kernel pair once
CROSS_CASES=ours-nullb-q2,ours-loop-q2,ours-indirect-off,ours-indirect-on,ours-persistent-off,ours-persistent-beoff,ours-ring-order0,ours-ring-order-fe1,ours-discard,ours-flush,ours-ext4,ours-hotplug

runs=("$@")
[ ${#runs[@]} -gt 0 ] || runs=(d612-g612 d612-g61 d61-g612)
logdir=build/test-k612
mkdir -p "$logdir"
all=$logdir/cases.txt
: >"$all"
rc=0
for r in "${runs[@]}"; do
	case $r in
	d612-g612) k="dom0_kernel=6.12 guest_kernel=6.12" suites="back front intree" cases= ;;
	d612-g61) k="dom0_kernel=6.12 guest_kernel=6.1" suites="back" cases=$CROSS_CASES ;;
	d61-g612) k="dom0_kernel=6.1 guest_kernel=6.12" suites="back" cases=$CROSS_CASES ;;
	*) echo "unknown run $r (d612-g612 d612-g61 d61-g612)" >&2; exit 2 ;;
	esac
	echo "== $r: $k, suites $suites${cases:+, cases $cases} ($(date +%T))"
	# shellcheck disable=SC2086
	XLAB_OPTS="${XLAB_OPTS:+$XLAB_OPTS }$k" XLAB_CASES=${XLAB_CASES:-$cases} \
		tests/lab/run.sh $suites 2>&1 | tee "$logdir/$r.log"
	[ "${PIPESTATUS[0]}" = 0 ] || rc=1
	sed -n "s,^XLAB-CASE ,XLAB-CASE $r/,p" "$logdir/$r.log" >>"$all"
	# the boots' consoles, beside the summary (run.sh overwrites them per suite)
	for s in $suites; do
		[ -f "${XLAB_OUT:-tests/lab/out}/logs/$s.log" ] &&
			cp "${XLAB_OUT:-tests/lab/out}/logs/$s.log" "$logdir/$r-$s.log"
	done
done
echo "== test-k612: all runs"
cat "$all"
p=$(grep -c '^XLAB-CASE [^ ]*: PASS' "$all")
f=$(grep -c '^XLAB-CASE [^ ]*: FAIL' "$all")
s=$(grep -c '^XLAB-CASE [^ ]*: SKIP' "$all")
echo "----"
[ "$s" -gt 0 ] && echo "skipped (not counted as passed): $s"
echo "$p passed, $f failed"
[ "$f" = 0 ] && [ "$p" -gt 0 ] && [ $rc = 0 ]
