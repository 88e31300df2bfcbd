# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034
# Suite "bench-r2": the bench suite (suites/bench.sh) in regime r2, device-bound: null_blks with 10 ms and 2 ms completions, 256 and 64 tags
# (Documentation/bench.rst). scripts/bench.sh boots it on the icount clock.
XLAB_REGIME=r2
. /lab/suites/bench.sh
