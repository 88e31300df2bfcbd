# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "front": our xblkfront in the guest against the in-tree xen-blkback (null_blk and loop
# backing), and against QEMU's xen-block (qdisk) backend.
. /lab/dom0.sh
. /lab/cases.sh
. /lab/data-cases.sh
G=g1 FRONT=xblkfront BACK=xen-blkback
if [ ! -f /extra/xblkfront.ko ]; then
	case_skip all "xblkfront.ko not in the image"
elif suite_begin; then
	data_cases
else
	case_begin setup; case_fail "suite setup failed"; case_end
fi
suite_end
