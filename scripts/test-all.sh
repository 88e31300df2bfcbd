#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Everything CI runs (.ci/run, "make test"), in order:
#
#   deps    scripts/deps.sh: packages and the three kernel trees
#   unit    make -C tests/unit: userspace unit tests + fuzz corpus replay,
#           then a short libFuzzer run of each target (make ... fuzz), the
#           bench report's test, the lab's write checker (test-ackw.sh), its
#           expectation helpers (test-expect.sh), its shared helpers
#           (test-lib.sh: want, wait_until) and its shape (scripts/lab-dups.sh:
#           no repeated helper, no suite named in run.sh)
#   style   make style: checkpatch --strict, no function over 60 lines, no
#           circle of files in a driver and no .c file over 800 lines
#           (scripts/callgraph.py)
#   matrix  scripts/matrix.sh: W=1 + sparse build against 6.1, 6.12 and sid
#   lab     tests/lab/run.sh front back: Xen under QEMU with our modules
#           against the in-tree ones; then (stage "rootdisk") tests/lab/run.sh
#           rootdisk: a Debian 12 guest booting from a vbd with the xblk-dkms
#           package installed (its first boot; --long: also a kernel upgrade
#           to 6.12 and the package's removal)
#   faults  scripts/test-faults.sh: hostile peers, faults, detach and
#           save/restore in the lab (short cycle counts)
#   lab612  (--long only) scripts/test-k612.sh: the lab on bookworm-backports'
#           6.12 kernel, both sides, then 6.1/6.12 mixed pairs
#   package scripts/test-package.sh: build the xblk-dkms package, install it
#           here, DKMS-build for 6.1 and 6.12, check modinfo, purge it and
#           check nothing is left (last: it installs on this machine)
#
# scripts/test-all.sh --long (make test-long) runs the long variants
# instead: the fuzz targets 600 s each (make -C tests/unit fuzz-long), the
# lab demo and pvh (a PVH guest) suites besides front and back,
# blktests (on 6.1, then on 6.12 both sides: stage blktests612) and 16 guests on one dom0 (tests/lab
# suites blktests, many), test-faults.sh --long, the lab on the 6.12
# kernel (stage lab612, scripts/test-k612.sh), and the
# package stage with a lab boot on the DKMS-built modules; it is
# far beyond CI's budget (several hours), so its budget is 6 h.
#
# Each stage's output goes to the console under a header, and to
# build/test-all/<stage>.log.  A stage that prints "N passed, N failed" adds
# those counts; one that does not counts as one passed or failed test by its
# exit status; a stage that is not there yet (no tests/unit/Makefile, no
# tests/lab/run.sh) is skipped.  The last line is the sum, "N passed, N
# failed", alone on its line: that is what CI counts.  Exit status 0 only
# when nothing failed.
#
# env: XBLK_TEST_BUDGET  seconds the whole run may take (default 5100: CI
#                        stops a run at 5400 s)
#      XBLK_STAGES       stages to run (default "deps unit style matrix lab
#                        faults package"; --long: "... faults lab612 package")
set -uo pipefail

long=
if [ "${1:-}" = --long ]; then
	long=1
	shift
fi
[ $# = 0 ] || { echo "usage: $0 [--long]" >&2; exit 2; }

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root" || exit 2
budget=${XBLK_TEST_BUDGET:-${long:+21600}}
budget=${budget:-5100}
stages=${XBLK_STAGES:-deps unit style matrix lab faults ${long:+lab612 }package}
logdir=$root/build/test-all
mkdir -p "$logdir"

total_pass=0
total_fail=0
summary=()

# stage NAME CAP_SECONDS CMD...: run one stage under a timeout of at most
# CAP_SECONDS and never past the budget; add its counts to the totals.
stage() {
	local name=$1 cap=$2 left t rc p f counts log=$logdir/$1.log
	shift 2
	left=$((budget - SECONDS))
	[ "$cap" -le "$left" ] || cap=$left
	printf '\n%s\n== %-8s %s\n== started %s, time limit %d s\n%s\n' \
		"========================================================================" \
		"$name" "$*" "$(date +%T)" "$cap" \
		"========================================================================"
	t=$SECONDS
	if [ "$cap" -le 0 ]; then
		echo "no time left in the ${budget} s budget" | tee "$log"
		rc=124
	else
		timeout --kill-after=60 "$cap" "$@" </dev/null 2>&1 | tee "$log"
		rc=${PIPESTATUS[0]}
	fi
	t=$((SECONDS - t))
	# The stage's own closing count, e.g. "checkpatch: 3 passed, 0 failed".
	counts=$(grep -aE '^([A-Za-z-]+: )*[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
	if [ -n "$counts" ]; then
		p=$(sed -E 's/^([A-Za-z-]+: )*([0-9]+) passed.*/\2/' <<<"$counts")
		f=$(sed -E 's/.* passed, ([0-9]+) failed.*/\1/' <<<"$counts")
		# A stage that fails beyond what it counted still fails once.
		[ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	elif [ "$rc" -eq 0 ]; then
		p=1 f=0
	else
		p=0 f=1
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	local res=ok
	[ "$rc" -eq 0 ] || res=FAIL
	[ "$rc" -eq 124 ] && res=TIMEOUT
	echo "== $name: $res (exit $rc) in $t s, $p passed, $f failed"
	summary+=("$(printf '%-7s %-7s %7d %7d %6ss' "$name" "$res" "$p" "$f" "$t")")
}

# Timeout for a lab run: what is left of the budget, less a margin, so that
# the lab's own guard fires first and it still reports.
lab_guard() {
	local g=$((budget - SECONDS - 120))

	[ "$g" -le "$((long ? 14400 : 3600))" ] || g=$((long ? 14400 : 3600))
	[ "$g" -ge 60 ] || g=$(((budget - SECONDS) / 2))
	echo "$g"
}

skip() {
	printf '\n== %-8s skipped: %s\n' "$1" "$2"
	summary+=("$(printf '%-7s %-7s %7s %7s %7s' "$1" skipped - - -)")
}

echo "xblk test-all: stages: $stages; budget ${budget} s; logs in $logdir"
for s in $stages; do
	case $s in
	deps)	stage deps 2400 scripts/deps.sh ;;
	unit)	if [ -f tests/unit/Makefile ]; then
			stage unit 900 make --no-print-directory -C tests/unit
			if [ -n "$long" ]; then
				stage fuzz 7200 make --no-print-directory -C tests/unit fuzz-long
			else
				stage fuzz 600 make --no-print-directory -C tests/unit fuzz
			fi
			stage bench-report 120 tests/bench/test-report.sh
			stage ackw 120 tests/lab/tools/test-ackw.sh
			stage expect 60 tests/lab/tools/test-expect.sh
			stage lablib 60 tests/lab/tools/test-lib.sh
			stage labdups 300 scripts/lab-dups.sh
		else
			skip unit "no tests/unit/Makefile"
		fi ;;
	style)	stage style 900 make --no-print-directory style ;;
	matrix)	stage matrix 1200 scripts/matrix.sh ;;
	lab)	if [ -f tests/lab/run.sh ]; then
			# The "intree" suite (the in-tree pair alone: a check of the
			# lab, none of our code) is left to tests/lab/run.sh's default
			# list; front and back run the in-tree drivers against ours.
			# The demo (our pair under fio) runs in the long variant
			# only: the fault suites below run our pair under fio too.
			# tier=ci: the cases marked make-test-long only are skipped
			# (tests/lab/README.md, "tier=ci"; times: tests/lab/RUNS.md).
			XLAB_OPTS="${XLAB_OPTS:+$XLAB_OPTS }tier=$([ -n "$long" ] && echo long || echo ci)" \
			XLAB_TOTAL_TIMEOUT=${XLAB_TOTAL_TIMEOUT:-$(lab_guard)} \
				stage lab 3700 tests/lab/run.sh front back ${long:+demo pvh}
			# a guest booting from its vbd with the package installed
			# (the cached root image is built on first use: ~3 min)
			XLAB_OPTS="${XLAB_OPTS:+$XLAB_OPTS }tier=$([ -n "$long" ] && echo long || echo ci)" \
			XLAB_TOTAL_TIMEOUT=${XLAB_TOTAL_TIMEOUT:-$(lab_guard)} \
				stage rootdisk $((long ? 12600 : 1200)) tests/lab/run.sh rootdisk
			# blktests on both pairs (its own boot: only its guest image
			# carries blktests and the tools it runs)
			if [ -n "$long" ]; then
				XLAB_TOTAL_TIMEOUT=${XLAB_TOTAL_TIMEOUT:-$(lab_guard)} \
					stage blktests 3000 tests/lab/run.sh blktests
				# and on bookworm-backports' 6.12, both sides; blktests'
				# TIMEOUT 30 s: its 1 GiB job on a non-rotational xvd
				# (xblkfront's) overran 10 s once (tests/lab/RUNS.md)
				XLAB_BT_TIMEOUT=${XLAB_BT_TIMEOUT:-30} \
				XLAB_OPTS="${XLAB_OPTS:+$XLAB_OPTS }dom0_kernel=6.12 guest_kernel=6.12" \
				XLAB_TOTAL_TIMEOUT=${XLAB_TOTAL_TIMEOUT:-$(lab_guard)} \
					stage blktests612 3000 tests/lab/run.sh blktests
				# 16 guests on one dom0 (its own boot: QEMU gets 4 GiB)
				XLAB_TOTAL_TIMEOUT=${XLAB_TOTAL_TIMEOUT:-$(lab_guard)} \
					stage many 4000 tests/lab/run.sh many
			fi
		else
			skip lab "no tests/lab/run.sh"
		fi ;;
	faults)	if [ -x scripts/test-faults.sh ]; then
			XLAB_TOTAL_TIMEOUT=${XLAB_TOTAL_TIMEOUT:-$(lab_guard)} \
				stage faults $((long ? 14400 : 3700)) scripts/test-faults.sh ${long:+--long}
		else
			skip faults "no scripts/test-faults.sh"
		fi ;;
	lab612)	# (the lab on 6.12: three lab runs, five boots, ~45-60 min)
		XLAB_OPTS="${XLAB_OPTS:+$XLAB_OPTS }tier=$([ -n "$long" ] && echo long || echo ci)" \
		XLAB_TOTAL_TIMEOUT=${XLAB_TOTAL_TIMEOUT:-$(lab_guard)} \
			stage lab612 7200 scripts/test-k612.sh ;;
	package) if [ -n "$long" ]; then
			# and a lab boot on the modules DKMS built (suite "dkms")
			XBLK_PKG_LAB=1 stage package 1500 scripts/test-package.sh
		else
			stage package 300 scripts/test-package.sh
		fi ;;
	*)	echo "unknown stage $s" >&2
		total_fail=$((total_fail + 1)) ;;
	esac
done

printf '\n%s\n%-7s %-7s %7s %7s %7s\n' "== test-all summary (${SECONDS} s)" \
	stage result passed failed time
printf '%s\n' "${summary[@]}"
# CI keeps only the tail of this output: repeat each failure here, one
# line each, so that the tail names what failed.
fails=$(grep -ahE '^(XLAB-CASE [^ ]+: (FAIL|TIMEOUT)|FAIL[: ])' "$logdir"/*.log 2>/dev/null |
	cut -c1-400 | head -n 40)
if [ -n "$fails" ]; then
	printf '\n== failures\n%s\n' "$fails"
fi
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ] && [ "$total_pass" -gt 0 ]
