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
# while a "cmd" command hangs (dom0 uses it before it gives up on a guest). The loop is one
# bash with /lab/guest.sh sourced once; each command runs in a subshell of it, so it starts
# with the same functions and a clean state, and costs a fork (about 25 ms under TCG) rather
# than a new bash that sources guest.sh again (about 215 ms).
agent() {
	mkfifo /tmp/watch.$1
	xenstore-watch "$P/$1" > /tmp/watch.$1 &
	bash -c '. /lab/guest.sh
	_xa_ck=$1 _xa_rk=$2 _xa_p=$3
	set --
	exec 3< /tmp/watch.$_xa_ck
	xenstore-write "$_xa_p/$_xa_rk" "0 0"
	_xa_last=0
	while :; do
		read -t 5 -r _ <&3 || sleep 1   # (EOF would spin: the sleep bounds it)
		_xa_c=$(xenstore-read -R "$_xa_p/$_xa_ck" 2>/dev/null) || continue
		_xa_seq=${_xa_c%% *}
		[ "$_xa_seq" = "$_xa_last" ] && continue
		_xa_last=$_xa_seq
		echo "XLAB-G-BEGIN $_xa_seq"
		( eval "${_xa_c#* }" ) </dev/null 2>&1
		_xa_rc=$?
		echo "XLAB-G-END $_xa_seq rc=$_xa_rc"
		xenstore-write "$_xa_p/$_xa_rk" "$_xa_seq $_xa_rc"
	done' agent "$1" "$2" "$P"
}
agent dcmd drc &
agent cmd rc
