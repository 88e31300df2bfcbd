# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "probe33n" (issue 33, exploratory): probe33's Xen facts and PVH guest on a CPU with
# SVM's nested paging (-cpu qemu64,+npt: Xen's HAP)
suite_meta() {
	SUITE_TIMEOUT=900 SUITE_CPU=qemu64,+npt SUITE_NEEDS="blkfront/xblkfront.ko blkback/xblkback.ko"
}
XLAB_CASES=${XLAB_CASES:-xeninfo,pvh}
. /lab/suites/probe33.sh
