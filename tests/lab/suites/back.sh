# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "back": our xblkback in dom0, with our xblkfront (cases "ours-*") and with the in-tree
# xen-blkfront (cases "intree-*", a subset) in the guest. The guest has 4 vCPUs
# (main_vcpus; under tier=ci too: they cost the suite's cases a few seconds, tests/lab/RUNS.md),
# so that nullb-q4 gets 4 queues and ring order 4.

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	SUITE_DEFAULT=3 SUITE_TIMEOUT=1500 SUITE_NEEDS="blkback/xblkback.ko"
}
. /lab/dom0.sh
. /lab/data-cases.sh
G=g1 BACK=xblkback
suite_require
FRONT=xblkfront
[ -f /extra/xblkfront.ko ] || FRONT=xen-blkfront
if suite_begin "$(main_vcpus)"; then
	if [ "$FRONT" = xblkfront ]; then
		# (make test: each setting once with both our ends; front and intree- cover the rest)
		# (and the scheduler and window case: front/sched runs it on xen-blkback, the
		# in-tree xen-blkfront's cases below run our backend; intree-nullb-q2 two queues)
		data_cases ours- -qdisk ~nullb-q1 ~nullb-q2 ~indirect-on ~persistent-off ~persistent-on \
			~ring-order2 ~ring-order3 ~sched
	else
		case_skip ours-all "xblkfront.ko not in the image"
	fi
	FRONT=xen-blkfront
	data_cases intree- -qdisk -nullb-q1 -indirect-off -persistent-on -persistent-beoff -ring-order2 \
		-ring-order-fe1 -ring-order3 -hotplug -sched ~nullb-q4 ~loop-q2 ~indirect-on ~persistent-off ~ext4 \
		~ring-order0
else
	setup_failed
fi
suite_end
