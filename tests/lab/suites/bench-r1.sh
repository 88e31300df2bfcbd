# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Suite "bench-r1": the bench suite (suites/bench.sh) in regime r1, CPU-bound: the fast null_blk, its block-size sweep and mq-deadline
# (Documentation/bench.rst). scripts/bench.sh boots it on the icount clock.
XLAB_REGIME=r1
. /lab/suites/bench.sh
