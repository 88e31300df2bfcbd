#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# /init of the lab's dom0 initramfs. Brings up the Xen control plane (the minimum xl needs),
# then runs /lab/suites/<suite>.sh for each suite named by xlab.suites= on the kernel command
# line, then powers off (Xen enters S5 and QEMU exits by itself).
#
# Kernel command line:
#   xlab.suites=a,b     suites to run (default: none)
#   xlab.mode=shell     after the suites, give an interactive shell on hvc0 instead of poweroff
#   xlab.<key>=<value>  exported to suites as XLAB_<KEY> (e.g. xlab.front=xen-blkfront)
export PATH=/usr/lib/xen-4.17/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /dev/pts /dev/shm /run/lock /run/xen /run/xenstored /var/lib/xen /tmp
mount -t devpts devpts /dev/pts
mount -t tmpfs -o size=700m tmpfs /tmp
mount -t configfs configfs /sys/kernel/config 2>/dev/null
# xblkback's fault points (fail_map) live in debugfs
mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null
# devtmpfs has no /dev/fd or /dev/stdin: the hotplug scripts' locking.sh loops forever on
# `stat -L /dev/stdin` without them (xl create then times out adding the disk)
ln -sf /proc/self/fd /dev/fd
ln -sf fd/0 /dev/stdin; ln -sf fd/1 /dev/stdout; ln -sf fd/2 /dev/stderr
syslogd -O /var/log/messages   # hotplug scripts log through logger(1)
# shellcheck source=tests/lab/lib/common.sh
. /lab/common.sh   # wait_until

say() { echo "XLAB[dom0 $(cut -d' ' -f1 /proc/uptime)] $*"; }
die() {
	say "FATAL: $*"
	echo "XLAB-BOOT-ERROR: $*"
	dmesg | tail -30
	poweroff -f
	sleep 30
}

# xlab.* command line options -> XLAB_* environment
SUITES=
MODE="test"
for a in $(cat /proc/cmdline); do
	case $a in
	xlab.suites=*) SUITES=${a#*=} ;;
	xlab.mode=*) MODE=${a#*=} ;;
	xlab.*=*)
		k=${a#xlab.}; k=${k%%=*}; k=${k^^}; k=${k//[^A-Z0-9_]/_}
		export "XLAB_$k=${a#*=}" ;;
	esac
done
say "init: kernel $(uname -r), $(nproc) vcpus, suites=$SUITES"
# which kernels this boot runs (run.sh: dom0_kernel, guest_kernel), on the terminal too
[ -f /lab/kernels ] && echo "XLAB-INFO kernels: $(cat /lab/kernels)"

# ---- Xen control plane (order matters: xenfs, xenstored, xen-init-dom0, xenconsoled)
for m in xenfs xen-evtchn xen-gntdev xen-gntalloc xen-privcmd; do
	modprobe $m || die "modprobe $m"
done
mount -t xenfs xenfs /proc/xen || die "mount xenfs"
grep -q control_d /proc/xen/capabilities || die "not the control domain"
export XENSTORED_ROOTDIR=/run/xenstored
xenstored --pid-file /run/xenstore.pid || die "xenstored"
wait_until 60 1 xenstore-read -s / >/dev/null 2>&1 || die "xenstored not answering"
xen-init-dom0 >/dev/null || die "xen-init-dom0"
# --log=guest: every guest console is written to /var/log/xen/console/guest-<name>.log, which
# is how dom0 sees guest output (lib/dom0.sh tails it onto our console)
xenconsoled --pid-file /run/xenconsoled.pid --log=guest --log-dir=/var/log/xen/console \
	--timestamp=none || die "xenconsoled"
xl list >/dev/null || die "xl list"
# disks' hotplug script: the lab's shortcut for block devices (init/hotplug-block says why),
# unless xlab.hotplug=stock (run.sh: the suite's SUITE_HOTPLUG, or XLAB_OPTS hotplug=): Xen's
# own /etc/xen/scripts/block, as Debian installs it
case ${XLAB_HOTPLUG:-lab} in
stock) say "disk hotplug script: Xen's /etc/xen/scripts/block" ;;
lab) say "disk hotplug script: the lab's shortcut (hotplug-block; Xen's is block-stock)" ;;
*) die "xlab.hotplug=$XLAB_HOTPLUG: lab or stock" ;;
esac
if [ "${XLAB_HOTPLUG:-lab}" = lab ]; then
	mv /etc/xen/scripts/block /etc/xen/scripts/block-stock &&
		cp /lab/hotplug-block /etc/xen/scripts/block && chmod 755 /etc/xen/scripts/block ||
		die "hotplug script"
fi
say "xen control plane up"
echo "XLAB-DOM0-READY"

rc=0
for s in ${SUITES//,/ }; do
	if [ ! -f "/lab/suites/$s.sh" ]; then
		echo "XLAB-CASE $s/suite: FAIL no such suite /lab/suites/$s.sh"
		continue
	fi
	say "=== suite $s"
	XLAB_SUITE=$s bash "/lab/suites/$s.sh" || rc=1
	echo "XLAB-SUITE-END $s rc=$rc"
done

if [ "$MODE" = shell ]; then
	say "shell mode: interactive shell on hvc0 (poweroff -f to quit)"
	setsid sh -c 'exec bash -i </dev/hvc0 >/dev/hvc0 2>&1'
fi
sync
poweroff -f
sleep 30
