# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "front": our xblkfront in the guest against the in-tree xen-blkback (null_blk and loop
# backing), and against QEMU's xen-block (qdisk) backend. The guest has 4 vCPUs
# (main_vcpus; under tier=ci too: they cost the suite's cases a few seconds, tests/lab/RUNS.md),
# so that nullb-q4 gets 4 queues and ring order 4.

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	SUITE_DEFAULT=2 SUITE_NEEDS="blkfront/xblkfront.ko"
}
. /lab/dom0.sh
. /lab/data-cases.sh
G=g1 FRONT=xblkfront BACK=xen-blkback
suite_require
if suite_begin "$(main_vcpus)"; then
	# (make test: nullb-q1 and q4 bracket the queue counts; nullb-q1 is the default ring order
	# and persistent grants; ring-order0 and -fe1 are each end's limit)
	data_cases "" ~nullb-q2 ~persistent-on ~ring-order2 ~ring-order3
else
	setup_failed
fi
suite_end
