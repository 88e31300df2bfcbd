# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Suite "bench-r3": the bench suite (suites/bench.sh) in regime r3, per stage: Xen on one pCPU, the CPU time of each domain per I/O
# (Documentation/bench.rst). scripts/bench.sh boots it on the icount clock.
XLAB_REGIME=r3
. /lab/suites/bench.sh
