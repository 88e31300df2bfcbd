# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC1091
# Suite "migrate": live migration to this same host with I/O in flight; the case is the
# restore suite's with `xl migrate` in place of save + restore (see suites/restore.sh).

# what run.sh needs to know about this suite (README.md "Suite metadata"; not restore.sh's)
suite_meta() {
	# live migration of a PV guest tracks dirty pages with shadow paging, which Debian's Xen
	# is built without (scripts/xen-shadow.sh builds it)
	SUITE_TIMEOUT=3600 SUITE_XEN=shadow SUITE_NEEDS="blkfront/xblkfront.ko blkback/xblkback.ko"
}
. /lab/suites/restore.sh
