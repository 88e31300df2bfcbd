# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2034,SC2154
# Suite "demo": one guest, our frontend (xlab.front=xen-blkfront for the in-tree one) and our
# backend if built (else the in-tree one; xlab.back=...) over null_blk; fio random read 4 KiB, sequential read and write 1 MiB,
# ~10 s each (xlab.runtime=N). Prints fio's IOPS/bandwidth lines. Under TCG the numbers are
# ~1000x below hardware: a functional demo, not a benchmark.

# what run.sh needs to know about this suite (README.md "Suite metadata")
suite_meta() {
	SUITE_DEFAULT=4 SUITE_TIMEOUT=480
	# (XLAB_OPTS front=xen-blkfront: the in-tree frontend; ours is not needed then)
	[ "$(xlab_str front xblkfront)" = xen-blkfront ] || SUITE_NEEDS="blkfront/xblkfront.ko"
}
. /lab/dom0.sh
G=g1 FRONT=${XLAB_FRONT:-xblkfront} BACK=${XLAB_BACK:-}
# our pair when both are built (xlab.back=xen-blkback for the in-tree backend)
[ -n "$BACK" ] || { [ -f /extra/xblkback.ko ] && BACK=xblkback || BACK=xen-blkback; }
RT=${XLAB_RUNTIME:-10}

# --size bounds what the jobs touch: null_blk is memory backed in dom0, and a time-based
# sequential write over the whole 1 GiB device ran dom0 (1 GiB) out of memory.
demo_job() {   # NAME FIO-ARGS...
	local name=$1
	shift
	g_ok -t $((RT + 120)) "$G" "set -o pipefail; fio --name=$name --filename=/dev/xvdb --ioengine=libaio --direct=1 \
		--runtime=$RT --time_based --size=256M $* 2>&1 | grep -E '^ *(read|write):|IOPS|lat \(usec\): min|^Run status|err=' " || return 1
	g_out | grep -E 'IOPS=|lat \(usec\): min' | sed "s/^ */XLAB-INFO demo\/$name: /"
	case_note "$name $(grep -oE '(read|write): IOPS=[^ ]+ BW=[^ ]+' "$G_OUT" | head -1)"
}
c_demo() {
	be_use "$BACK" || return 1
	fe_use "$G" "$FRONT" || return 1
	disk_attach "$G" nullb0 xvdb || return 1
	case_note "$FRONT + $BACK: queues=$DI_hw_queues max_hw_sectors_kb=$DI_max_hw_sectors_kb"
	g_run "$G" "dmesg | grep -E 'xblkfront|blkfront' | tail -3"
	demo_job randread-4k --rw=randread --bs=4k --iodepth=32 || return 1
	demo_job seqread-1m --rw=read --bs=1M --iodepth=4 || return 1
	demo_job seqwrite-1m --rw=write --bs=1M --iodepth=4 || return 1
	feinfo "$G" xvdb
	g_out | grep XLAB-FEINFO
}

suite_require
if suite_begin; then
	run_case fio c_demo
else
	setup_failed
fi
suite_end
