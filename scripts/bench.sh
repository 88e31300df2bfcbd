#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The side-by-side benchmark: boot the lab (Xen 4.17 under QEMU), run the same fio jobs through
# the in-tree pair (xen-blkfront + xen-blkback), through ours (xblkfront + xblkback) and on the
# null_blk straight from dom0, alternating the pairs over several rounds, then print the table
# and the targets, and write tests/lab/out/bench/{bench.txt,bench.csv,bench.png}.
# Installs what it needs with apt-get on a fresh Debian 12 (as root); about 30 minutes.
#
#   scripts/bench.sh                          (or: make bench)
#   XLAB_OPTS="runtime=20 rounds=3" scripts/bench.sh
#   XLAB_OPTS="pairs=intree,xblk,xblk-b0,xblk-b32 work=seq-4k,rand-4k" scripts/bench.sh
#   scripts/bench.sh --report LOG             (only the report, from a saved serial log)
#
# Exit status: that of the report (0 = every target met, 1 = one missed, 2 = no data).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${XLAB_OUT:-$PWD/tests/lab/out}
pkgs=()
command -v gnuplot > /dev/null || pkgs+=(gnuplot-nox)
[ -x /usr/bin/python3 ] || pkgs+=(python3)
if [ ${#pkgs[@]} -gt 0 ] && [ -z "${XLAB_NO_APT:-}" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q "${pkgs[@]}" > /dev/null ||
		echo "bench: could not install ${pkgs[*]} (the plot may be missing)" >&2
fi
if [ "${1:-}" = --report ]; then
	log=$2
else
	tests/lab/run.sh bench
	log=$OUT/logs/bench.log
	[ -s "$OUT/logs/bench.retry.log" ] && log=$OUT/logs/bench.retry.log
fi
/usr/bin/python3 scripts/bench-report.py "$log" "$OUT/bench"
