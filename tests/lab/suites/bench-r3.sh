# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Suite "bench-r3": the bench suite (suites/bench.sh) in regime r3, per stage: Xen on one pCPU, the
# CPU time of each domain per I/O
# (Documentation/bench.rst). scripts/bench.sh boots it on the icount clock.
# what run.sh needs to know about this suite (README.md "Suite metadata", once run.sh reads it)
# shellcheck disable=SC2034 # (run.sh reads them)
suite_meta() {
	SUITE_CLOCK=icount
	# under icount one TCG thread runs every vCPU: a 1 s (virtual) CPU-bound job takes 12-15 s
	# of wall time (Documentation/bench.rst says how long each regime takes)
	SUITE_TIMEOUT=2400
	[ "${XLAB_CLOCK:-$SUITE_CLOCK}" = icount ] && SUITE_TIMEOUT=3600
	return 0
}
XLAB_REGIME=r3
. /lab/suites/bench.sh
