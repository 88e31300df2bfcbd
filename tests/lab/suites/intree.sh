# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "intree": the in-tree pair (xen-blkfront in the guest, xen-blkback in dom0) through the
# lab's cases. The interop baseline: when this fails, suspect the lab, not our drivers.

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	SUITE_DEFAULT=1
}
. /lab/dom0.sh
. /lab/data-cases.sh
G=g1 FRONT=xen-blkfront BACK=xen-blkback
if suite_begin; then
	# (nullb-q1, ring-order-fe1 and ring-order3 are covered by "front" against the same
	# backend; nullb-q4 runs in a 4-vCPU guest of its own: vcpu_guest)
	data_cases "" -nullb-q1 -ring-order-fe1 -ring-order3 -sched
else
	setup_failed
fi
suite_end
