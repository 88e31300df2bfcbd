# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Suite "bench-wall": the bench suite's notification mode (suites/bench.sh, XLAB_BENCH_MODE=
# notify). run.sh boots it on the wall clock (multi-threaded TCG) by default, where dom0 and the
# guest run in parallel as on a host: scripts/bench-report.py takes only the notifications per
# request (and interrupt counts) from it, everything else from the icount boot of "bench".
XLAB_BENCH_MODE=notify

# what run.sh needs to know about this suite (README.md "Suite metadata"; not bench.sh's)
suite_meta() {
	:   # the defaults: 1200 s on the wall clock
}
. /lab/suites/bench.sh
