#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# /init of the lab's domU initramfs: a guest agent driven by dom0 through xenstore.
#
#   dom0 writes  /local/domain/<me>/data/xlab/cmd = "<seq> <bash command>"
#   we run it (bash, with /lab/guest.sh sourced), output on hvc0 between the markers
#       XLAB-G-BEGIN <seq>   and   XLAB-G-END <seq> rc=<rc>
#   (dom0 reads them back from xenconsoled's log of our console), then write
#       /local/domain/<me>/data/xlab/rc  = "<seq> <rc>"
# The guest may write under its own data/ directory, so no permission setup is needed.
# Commands run one at a time; dom0 applies the timeout and destroys a guest that hangs.
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp
ln -sf /proc/self/fd /dev/fd
ln -sf fd/0 /dev/stdin; ln -sf fd/1 /dev/stdout; ln -sf fd/2 /dev/stderr

me=$(xenstore-read domid)
# Relative to our own /local/domain/<domid>: after xl save/restore the domid changes, and the
# kernel re-registers our watches under the new one.
P=data/xlab
echo "XLAB[domU $(cut -d' ' -f1 /proc/uptime)] agent up: domid $me, $(nproc) vcpus, kernel $(uname -r)"

# agent CMDKEY RCKEY: a watch on the command node wakes us up; the read timeout re-polls in case
# an event is lost. Two agents run: "cmd" for the suites' commands, "dcmd" for diagnostics
# while a "cmd" command hangs (dom0 uses it before it gives up on a guest).
agent() {
	mkfifo /tmp/watch.$1
	xenstore-watch "$P/$1" > /tmp/watch.$1 &
	exec 3< /tmp/watch.$1
	xenstore-write "$P/$2" "0 0"
	last=0
	while :; do
		read -t 5 -r _ <&3 || sleep 1   # (EOF would spin: the sleep bounds it)
		c=$(xenstore-read -R "$P/$1" 2>/dev/null) || continue
		seq=${c%% *}
		[ "$seq" = "$last" ] && continue
		last=$seq
		echo "XLAB-G-BEGIN $seq"
		bash -c ". /lab/guest.sh; ${c#* }" </dev/null 2>&1
		rc=$?
		echo "XLAB-G-END $seq rc=$rc"
		xenstore-write "$P/$2" "$seq $rc"
	done
}
agent dcmd drc &
agent cmd rc
