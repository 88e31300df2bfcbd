// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: module parameters, in one block.
 *
 * Each is range checked when written (XBF_UINT: one set of ops, the range
 * in the parameter's data) and read in one
 * place, xbf_params_get(), when a disk sets up its rings: a change at
 * runtime applies to disks that connect (or reconnect after a restore)
 * afterwards, never to one half-way.  The dispatch budget of a connected
 * disk is its own, xblk/max_inflight in sysfs.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/stringify.h>
#include <linux/string.h>

#include "blkfront.h"

/* An unsigned parameter and the range a write must fall in (-EINVAL). */
struct xbf_uint_param {
	unsigned int val;
	unsigned int min;
	unsigned int max;
};

#define XBF_UINT(def, lo, hi)	{ .val = (def), .min = (lo), .max = (hi) }

static int xbf_uint_set(const char *val, const struct kernel_param *kp)
{
	struct xbf_uint_param *p = kp->arg;
	unsigned int n;
	int err;

	err = kstrtouint(val, 0, &n);
	if (err)
		return err;
	if (n < p->min || n > p->max)
		return -EINVAL;
	WRITE_ONCE(p->val, n);
	return 0;
}

static int xbf_uint_get(char *buf, const struct kernel_param *kp)
{
	const struct xbf_uint_param *p = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(p->val));
}

static const struct kernel_param_ops xbf_uint_ops = {
	.set = xbf_uint_set,
	.get = xbf_uint_get,
};

static struct xbf_uint_param xbf_max_queues = XBF_UINT(4, 1, XBLK_MAX_QUEUES);
static struct xbf_uint_param xbf_max_ring_order =
	XBF_UINT(2, 0, XBLK_MAX_RING_ORDER);
static struct xbf_uint_param xbf_max_indirect_segs =
	XBF_UINT(256, 0, XBLK_MAX_INDIRECT_SEGS);
static struct xbf_uint_param xbf_max_inflight =
	XBF_UINT(0, 0, XBF_MAX_INFLIGHT);
static struct xbf_uint_param xbf_irq_batch =
	XBF_UINT(XBF_DEF_IRQ_BATCH, 1, XBF_MAX_IRQ_BATCH);
static struct xbf_uint_param xbf_irq_wait_us =
	XBF_UINT(XBF_DEF_IRQ_WAIT_US, XBF_MIN_IRQ_WAIT_US, XBF_MAX_IRQ_WAIT_US);
static struct xbf_uint_param xbf_io_timeout =
	XBF_UINT(XBF_DEF_IO_TIMEOUT, 1, XBF_MAX_IO_TIMEOUT);
static bool xbf_persistent = true;
static bool xbf_control = true;
static bool xbf_adaptive = true;
static bool xbf_trusted = true;
static bool xbf_irq_affinity = true;
static unsigned int xbf_timeout_policy = XBF_TIMEOUT_REPORT;

module_param_cb(max_queues, &xbf_uint_ops, &xbf_max_queues, 0644);
MODULE_PARM_DESC(max_queues,
		 "Maximum hardware queues (rings) per disk, 1-32; the disk uses min(this, online vCPUs, backend maximum) (default 4)");
module_param_cb(max_ring_page_order, &xbf_uint_ops, &xbf_max_ring_order, 0644);
MODULE_PARM_DESC(max_ring_page_order,
		 "Maximum log2 of pages per ring, 0-4, capped by the backend (default 2)");
module_param_cb(max_indirect_segments, &xbf_uint_ops, &xbf_max_indirect_segs,
		0644);
MODULE_PARM_DESC(max_indirect_segments,
		 "Maximum segments per request with indirect descriptors, 0 (off) - 4096, capped by the backend (default 256)");
module_param_cb(max_inflight, &xbf_uint_ops, &xbf_max_inflight, 0644);
MODULE_PARM_DESC(max_inflight,
		 "Most requests of a sequential stream in flight on all of a new disk's rings (the rest wait in the block layer, where bios merge): with inflight_control the ceiling of its window, without it the bound itself; 0 = the rings only, 0-4096 (default 0); per disk: xblk/max_inflight in sysfs");
module_param_cb(irq_batch, &xbf_uint_ops, &xbf_irq_batch, 0644);
MODULE_PARM_DESC(irq_batch,
		 "Most responses a ring asks the backend to collect before it interrupts us, under load (the number follows what each interrupt finds; a timer bounds the wait, irq_wait_us); 1 = an interrupt per response, 1-64 (default "
		 __stringify(XBF_DEF_IRQ_BATCH) ")");
module_param_cb(irq_wait_us, &xbf_uint_ops, &xbf_irq_wait_us, 0644);
MODULE_PARM_DESC(irq_wait_us,
		 "Longest a response waits for the rest of its batch (irq_batch) before a timer takes it, us, "
		 __stringify(XBF_MIN_IRQ_WAIT_US) "-"
		 __stringify(XBF_MAX_IRQ_WAIT_US) " (default "
		 __stringify(XBF_DEF_IRQ_WAIT_US) ")");
module_param_cb(io_timeout, &xbf_uint_ops, &xbf_io_timeout, 0644);
MODULE_PARM_DESC(io_timeout,
		 "Seconds a request may wait for the backend's answer before timeout_policy applies, 1-3600 (default "
		 __stringify(XBF_DEF_IO_TIMEOUT)
		 "); per disk: /sys/block/xvdX/queue/io_timeout (ms)");

module_param_named(feature_persistent, xbf_persistent, bool, 0644);
MODULE_PARM_DESC(feature_persistent,
		 "Use persistent grants when the backend offers them (default Y)");
module_param_named(inflight_control, xbf_control, bool, 0644);
MODULE_PARM_DESC(inflight_control,
		 "Keep as many requests of a sequential stream in flight as the device serves at once, measured from their latency (a window that grows while more in flight brings no more latency and shrinks when it does), so that the rest wait in the guest, where they merge; N: max_inflight is the bound (default Y)");
module_param_named(adaptive_budget, xbf_adaptive, bool, 0644);
MODULE_PARM_DESC(adaptive_budget,
		 "Hold back only sequential streams, judged per hardware queue (they merge when held back); random I/O, and a stream of requests already of the largest size, get every ring slot (default Y)");
module_param_named(irq_affinity, xbf_irq_affinity, bool, 0644);
MODULE_PARM_DESC(irq_affinity,
		 "Deliver each ring's events to the vCPUs of its hardware queue, where blk-mq completes its requests, instead of Xen's default vCPU 0 (default Y)");
module_param_named(trusted, xbf_trusted, bool, 0644);
MODULE_PARM_DESC(trusted,
		 "Trust backends with grants on the guest's own I/O pages; N: share only bounce pages holding request data (per disk also: trusted=0 in the vbd's xenstore directory, from the toolstack) (default Y)");

static const char * const xbf_timeout_policies[] = {
	[XBF_TIMEOUT_REPORT] = "report",
	[XBF_TIMEOUT_FAIL] = "fail",
};

static int xbf_set_timeout_policy(const char *val,
				  const struct kernel_param *kp)
{
	int i = sysfs_match_string(xbf_timeout_policies, val);

	if (i < 0)
		return -EINVAL;
	WRITE_ONCE(*(unsigned int *)kp->arg, i);
	return 0;
}

static int xbf_get_timeout_policy(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n",
			  xbf_timeout_policies[READ_ONCE(*(unsigned int *)kp->arg)]);
}

static const struct kernel_param_ops xbf_timeout_policy_ops = {
	.set = xbf_set_timeout_policy,
	.get = xbf_get_timeout_policy,
};

module_param_cb(timeout_policy, &xbf_timeout_policy_ops, &xbf_timeout_policy,
		0644);
MODULE_PARM_DESC(timeout_policy,
		 "A request unanswered for io_timeout: report = log it (rate-limited), count it in xblk/timeouts and keep waiting, since a slow backend is not a dead one and failing I/O it would still complete can cost a file system; fail = fail the disk as for a protocol violation (default report)");

/**
 * xbf_params_get() - the module parameters as they are now
 * @p: filled with them
 *
 * Context: any.
 */
void xbf_params_get(struct xbf_params *p)
{
	*p = (struct xbf_params){
		.max_queues = READ_ONCE(xbf_max_queues.val),
		.max_ring_order = READ_ONCE(xbf_max_ring_order.val),
		.max_indirect_segs = READ_ONCE(xbf_max_indirect_segs.val),
		.persistent = READ_ONCE(xbf_persistent),
		.max_inflight = READ_ONCE(xbf_max_inflight.val),
		.control = READ_ONCE(xbf_control),
		.adaptive = READ_ONCE(xbf_adaptive),
		.irq_batch = READ_ONCE(xbf_irq_batch.val),
		.irq_wait_us = READ_ONCE(xbf_irq_wait_us.val),
		.trusted = READ_ONCE(xbf_trusted),
		.irq_affinity = READ_ONCE(xbf_irq_affinity),
		.io_timeout = READ_ONCE(xbf_io_timeout.val),
		.timeout_fail = READ_ONCE(xbf_timeout_policy) ==
				XBF_TIMEOUT_FAIL,
	};
}
