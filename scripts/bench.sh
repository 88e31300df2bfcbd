#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The side-by-side benchmark in three regimes (Documentation/bench.rst): boot the lab (Xen 4.17
# under QEMU) on QEMU's deterministic icount clock once per regime and run the same fio jobs
# through the in-tree pair (xen-blkfront + xen-blkback), through ours (xblkfront + xblkback)
# and on the null_blk straight from dom0, alternating the pairs over rounds:
#   r1    CPU-bound: a fast null_blk; seq-4k, rand-4k, qd1, the block-size sweep, mq-deadline
#   r2    device-bound: null_blks with 10 ms completions (256 and 64 tags) and 2 ms (256 tags),
#         the in-tree pair also tuned (4-page rings, 256 indirect segments)
#   r3    per stage: Xen on one pCPU, the exact CPU time of dom0 and of the guest per I/O
#   wall  a boot on the wall clock (multi-threaded TCG, dom0 and the guest in parallel) for the
#         notifications per request under load
# then print the tables and the targets ("N passed, N failed"), and write
# tests/lab/out/bench/{bench.txt,bench.csv,bench.png}. Installs what it needs with apt-get on
# a fresh Debian 12 (as root); all four boots take under an hour (bench.rst says how long).
#
#   scripts/bench.sh                          (or: make bench) every regime
#   scripts/bench.sh r2                       one regime (or several: r1 r3, r2,wall)
#   XLAB_OPTS=regime=r2 make bench            the same
#   XLAB_OPTS="rounds=3 devs=10ms-64" scripts/bench.sh r2
#   XLAB_OPTS="pairs=intree,xblk,xblk-b0 work=seq-4k,rand-4k dl_rounds=0" scripts/bench.sh r1
#   XLAB_OPTS=guest_tsc=default scripts/bench.sh r1   (the guest's rdtsc emulated, Xen's default here)
#   XLAB_CLOCK=wall scripts/bench.sh r1       (the regime's boot on the wall clock too)
#   XLAB_BENCH_NOTIFY=0 scripts/bench.sh      (no wall-clock boot: no notification targets)
#   scripts/bench.sh --report LOG...          (only the report, from saved serial logs)
#
# Exit status: that of the report (0 = every target of the regimes run was measured and met,
# 1 = one missed or not measured, 2 = no data).
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
	regimes=
else
	# the regimes: the arguments, else XLAB_OPTS regime=, else all of them
	regimes="$*"
	if [ -z "$regimes" ]; then
		for w in ${XLAB_OPTS:-}; do [ "${w%%=*}" = regime ] && regimes=${w#*=}; done
	fi
	regimes=${regimes:-r1 r2 r3 wall}
	regimes=${regimes//,/ }
	[ "${XLAB_BENCH_NOTIFY:-1}" = 0 ] && regimes=${regimes//wall/}
	suites=()
	for r in $regimes; do
		case $r in
		r1 | r2 | r3) suites+=("bench-$r") ;;
		# on the wall clock the regimes' boots have the notifications already
		wall) [ "${XLAB_CLOCK:-icount}" != wall ] && suites+=(bench-wall) ;;
		*) echo "bench: unknown regime '$r' (r1, r2, r3, wall)" >&2; exit 2 ;;
		esac
	done
	[ ${#suites[@]} -gt 0 ] || { echo "bench: no regime to run" >&2; exit 2; }
	for s in "${suites[@]}"; do rm -f "$OUT/logs/$s.log" "$OUT/logs/$s.retry.log"; done
	# waiting for the lab lock (other lab runs), the build, then the boots
	XLAB_TOTAL_TIMEOUT=${XLAB_TOTAL_TIMEOUT:-$((${XLAB_LOCK_WAIT:-2400} + 1200 + 3000 * ${#suites[@]}))} \
		tests/lab/run.sh "${suites[@]}"
	logs=()
	for s in "${suites[@]}"; do
		l=$(suite_log "$s") && logs+=("$l")
	done
	[ ${#logs[@]} -gt 0 ] || { echo "bench: no log of the bench boots in $OUT/logs" >&2; exit 2; }
fi
[ -n "$report_only" ] || echo "bench: the build and boots took $(((SECONDS - t0) / 60)) min $(((SECONDS - t0) % 60)) s of wall time in all"
echo
exec /usr/bin/python3 scripts/bench-report.py ${regimes:+--regimes "${regimes// /,}"} "${logs[@]}" "$OUT/bench"
