#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The side-by-side benchmark: boot the lab (Xen 4.17 under QEMU) on QEMU's deterministic icount
# clock, run the same fio jobs through the in-tree pair (xen-blkfront + xen-blkback), through
# ours (xblkfront + xblkback) and on the null_blk straight from dom0, alternating the pairs over
# rounds; then boot once more on the wall clock (multi-threaded TCG, dom0 and the guest in
# parallel) for the notifications per request under load; print the tables and the targets
# ("N passed, N failed"), and write tests/lab/out/bench/{bench.txt,bench.csv,bench.png}.
# Installs what it needs with apt-get on a fresh Debian 12 (as root); about 35 minutes
# (Documentation/bench.rst).
#
#   scripts/bench.sh                          (or: make bench)
#   XLAB_OPTS="rounds=3" scripts/bench.sh
#   XLAB_OPTS="pairs=intree,xblk,xblk-b0 work=seq-4k,rand-4k dl_rounds=0" scripts/bench.sh
#   XLAB_CLOCK=wall scripts/bench.sh          (the main boot on the wall clock too)
#   XLAB_BENCH_NOTIFY=0 scripts/bench.sh      (no wall-clock boot: no notification targets)
#   scripts/bench.sh --report LOG...          (only the report, from saved serial logs)
#
# Exit status: that of the report (0 = every target met, 1 = one missed or not measured,
# 2 = no data).
set -uo pipefail
cd "$(dirname "$0")/.." || exit 2
OUT=${XLAB_OUT:-$PWD/tests/lab/out}
pkgs=()
command -v gnuplot > /dev/null || pkgs+=(gnuplot-nox)
[ -x /usr/bin/python3 ] || pkgs+=(python3)
if [ ${#pkgs[@]} -gt 0 ] && [ -z "${XLAB_NO_APT:-}" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkgs[@]}" > /dev/null ||
		echo "bench: could not install ${pkgs[*]} (the plot may be missing)" >&2
fi

# the log of SUITE's last boot (its retry if the first boot gave nothing)
suite_log() {
	local l=$OUT/logs/$1.log
	[ -s "$OUT/logs/$1.retry.log" ] && l=$OUT/logs/$1.retry.log
	[ -s "$l" ] && echo "$l"
}

t0=$SECONDS
report_only=
if [ "${1:-}" = --report ]; then
	report_only=1
	shift
	logs=("$@")
else
	suites=(bench)
	# on the wall clock the main boot has the notifications already
	[ "${XLAB_BENCH_NOTIFY:-1}" != 0 ] && [ "${XLAB_CLOCK:-icount}" != wall ] && suites+=(bench-wall)
	rm -f "$OUT"/logs/bench.log "$OUT"/logs/bench.retry.log "$OUT"/logs/bench-wall.log \
		"$OUT"/logs/bench-wall.retry.log
	# waiting for the lab lock (other lab runs), the build, then both boots
	XLAB_TOTAL_TIMEOUT=${XLAB_TOTAL_TIMEOUT:-$((${XLAB_LOCK_WAIT:-2400} + 3600 + 1200 + 600))} \
		tests/lab/run.sh "${suites[@]}"
	logs=()
	for s in "${suites[@]}"; do
		l=$(suite_log "$s") && logs+=("$l")
	done
	[ ${#logs[@]} -gt 0 ] || { echo "bench: no log of the bench boots in $OUT/logs" >&2; exit 2; }
fi
[ -n "$report_only" ] || echo "bench: the boots took $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s of wall time in all"
echo
exec /usr/bin/python3 scripts/bench-report.py "${logs[@]}" "$OUT/bench"
