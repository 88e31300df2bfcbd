# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "dkms": the modules the xblk-dkms package had DKMS build, loaded as an installed system
# loads them. Run by scripts/test-package.sh while the package is installed (run.sh with
# XLAB_MODULES=dkms: the images carry /lib/modules/<kver>/updates/dkms/x*blk*.ko and the
# package's modprobe.d file, no /extra copies). Cases:
#   modprobe   in dom0 and in the guest, the vbd alias resolves to our module only (the
#              blacklist hides the in-tree one) and "modprobe xblkback" / "modprobe xblkfront"
#              load the DKMS build;
#   fio        the xblk pair on null_blk, fio write + verify (the data path, c_queues).

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	:   # the defaults (run.sh refuses XLAB_MODULES=dkms unless DKMS built both modules)
}
. /lab/dom0.sh
G=g1 FRONT=xblkfront BACK=xblkback

# dkms_where SIDE ALIAS MODULE: what modprobe would load for ALIAS (a dry run) is MODULE under
# updates/dkms; SIDE is "dom0" or a guest
dkms_where() {
	local out
	if [ "$1" = dom0 ]; then
		out=$(modprobe -n -v "$2" 2>&1)
	else
		g_ok "$1" "modprobe -n -v $2" || { case_fail "$1: modprobe -n -v $2 failed"; return 1; }
		out=$(grep -v '^XLAB-' "$G_OUT")
	fi
	out=$(sed -n 's/^insmod \([^ ]*\).*/\1/p' <<<"$out" | tr '\n' ' ')
	out=${out% }
	[[ $out == */updates/dkms/$3.ko ]] ||
		{ case_fail "$1: modprobe -n -v $2 would load '$out', not updates/dkms/$3.ko"; return 1; }
	case_note "$1: $2 -> ${out#/usr}"
}

c_modprobe() {
	local f
	for f in /extra/xblkfront.ko /extra/xblkback.ko; do
		[ ! -e "$f" ] || { case_fail "$f is in the image: not a DKMS run"; return 1; }
	done
	[ -f /lib/modprobe.d/xblk-dkms.conf ] || { case_fail "no /lib/modprobe.d/xblk-dkms.conf"; return 1; }
	# (a dry run names what is not loaded yet: suite_begin loaded the backend)
	if grep -q '^xblkback ' /proc/modules; then
		rmmod xblkback || { case_fail "rmmod xblkback failed"; return 1; }
		BE_CUR=
	fi
	dkms_where dom0 xen-backend:vbd xblkback || return 1
	be_use xblkback || return 1
	grep -q '^xblkback ' /proc/modules || { case_fail "xblkback not loaded"; return 1; }
	grep -q '^xen_blkback ' /proc/modules && { case_fail "xen_blkback loaded too"; return 1; }
	g_ok "$G" fe_unload || { case_fail "$G: cannot unload the frontend"; return 1; }
	dkms_where "$G" xen:vbd xblkfront || return 1
	fe_use "$G" xblkfront || return 1
	g_ok "$G" "grep '^xblkfront ' /proc/modules && ! grep '^xen_blkfront ' /proc/modules" ||
		{ case_fail "$G: xblkfront not loaded, or xen_blkfront too"; return 1; }
}

if suite_begin; then
	run_case modprobe c_modprobe
	run_case fio c_queues nullb0 2
else
	setup_failed
fi
suite_end
