# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "probe33s" (issue 33, exploratory): probe33's Xen facts and PVH guest on the Xen built
# with shadow paging (scripts/xen-shadow.sh)
suite_meta() {
	SUITE_TIMEOUT=900 SUITE_XEN=shadow SUITE_NEEDS="blkfront/xblkfront.ko blkback/xblkback.ko"
}
XLAB_CASES=${XLAB_CASES:-xeninfo,pvh}
. /lab/suites/probe33.sh
