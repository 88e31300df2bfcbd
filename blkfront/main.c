// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: Xen PV block frontend - module entry and parameters.
 *
 * Every parameter is sampled when a disk connects to its backend, so
 * changing one at runtime is safe: it applies to disks attached (or
 * reconnected) afterwards.  Values are range checked on write.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/stringify.h>
#include <linux/string.h>
#include <xen/xen.h>
#include <xen/platform_pci.h>

#include "blkfront.h"

/* ----------------------------- parameters ----------------------------- */

unsigned int xbf_max_queues = 4;
unsigned int xbf_max_ring_order = 2;
unsigned int xbf_max_indirect_segs = 256;
bool xbf_persistent = true;
unsigned int xbf_max_inflight = XBF_DEF_MAX_INFLIGHT;
unsigned int xbf_irq_batch = XBF_DEF_IRQ_BATCH;
unsigned int xbf_irq_wait_us = XBF_DEF_IRQ_WAIT_US;
bool xbf_trusted = true;
bool xbf_adaptive = true;
unsigned int xbf_min_inflight = XBF_DEF_MIN_INFLIGHT;
bool xbf_gate;
bool xbf_irq_affinity = true;
unsigned int xbf_io_timeout = XBF_DEF_IO_TIMEOUT;
unsigned int xbf_timeout_policy = XBF_TIMEOUT_REPORT;

static const char * const xbf_timeout_policies[] = {
	[XBF_TIMEOUT_REPORT] = "report",
	[XBF_TIMEOUT_FAIL] = "fail",
};

static int xbf_set_queues(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, XBLK_MAX_QUEUES);
}

static int xbf_set_ring_order(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, XBLK_MAX_RING_ORDER);
}

static int xbf_set_indirect(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, XBLK_MAX_INDIRECT_SEGS);
}

static int xbf_set_inflight(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, XBF_MAX_INFLIGHT);
}

static int xbf_set_min_inflight(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 0, XBF_MAX_INFLIGHT);
}

static int xbf_set_irq_batch(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, XBF_MAX_IRQ_BATCH);
}

static int xbf_set_irq_wait(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, XBF_MIN_IRQ_WAIT_US,
				     XBF_MAX_IRQ_WAIT_US);
}

static int xbf_set_io_timeout(const char *val, const struct kernel_param *kp)
{
	return param_set_uint_minmax(val, kp, 1, XBF_MAX_IO_TIMEOUT);
}

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

static const struct kernel_param_ops xbf_queues_ops = {
	.set = xbf_set_queues,
	.get = param_get_uint,
};

static const struct kernel_param_ops xbf_ring_order_ops = {
	.set = xbf_set_ring_order,
	.get = param_get_uint,
};

static const struct kernel_param_ops xbf_indirect_ops = {
	.set = xbf_set_indirect,
	.get = param_get_uint,
};

static const struct kernel_param_ops xbf_inflight_ops = {
	.set = xbf_set_inflight,
	.get = param_get_uint,
};

static const struct kernel_param_ops xbf_min_inflight_ops = {
	.set = xbf_set_min_inflight,
	.get = param_get_uint,
};

static const struct kernel_param_ops xbf_irq_batch_ops = {
	.set = xbf_set_irq_batch,
	.get = param_get_uint,
};

static const struct kernel_param_ops xbf_irq_wait_ops = {
	.set = xbf_set_irq_wait,
	.get = param_get_uint,
};

static const struct kernel_param_ops xbf_io_timeout_ops = {
	.set = xbf_set_io_timeout,
	.get = param_get_uint,
};

static const struct kernel_param_ops xbf_timeout_policy_ops = {
	.set = xbf_set_timeout_policy,
	.get = xbf_get_timeout_policy,
};

module_param_cb(max_queues, &xbf_queues_ops, &xbf_max_queues, 0644);
MODULE_PARM_DESC(max_queues,
		 "Maximum hardware queues (rings) per disk, 1-32; the disk uses min(this, online vCPUs, backend maximum) (default 4)");
module_param_cb(max_ring_page_order, &xbf_ring_order_ops, &xbf_max_ring_order, 0644);
MODULE_PARM_DESC(max_ring_page_order,
		 "Maximum log2 of pages per ring, 0-4, capped by the backend (default 2)");
module_param_cb(max_indirect_segments, &xbf_indirect_ops, &xbf_max_indirect_segs, 0644);
MODULE_PARM_DESC(max_indirect_segments,
		 "Maximum segments per request with indirect descriptors, 0 (off) - 4096, capped by the backend (default 256)");
module_param_named(feature_persistent, xbf_persistent, bool, 0644);
MODULE_PARM_DESC(feature_persistent,
		 "Use persistent grants when the backend offers them (default Y)");
module_param_cb(max_inflight, &xbf_inflight_ops, &xbf_max_inflight, 0644);
MODULE_PARM_DESC(max_inflight,
		 "Dispatch budget of a new disk: most requests in flight on all its rings; the rest wait in the block layer, where bios merge; 0 = bounded by the rings only, 1-4096 (default "
		 __stringify(XBF_DEF_MAX_INFLIGHT) "); per disk: xblk/max_inflight in sysfs");
module_param_cb(min_inflight, &xbf_min_inflight_ops, &xbf_min_inflight, 0644);
MODULE_PARM_DESC(min_inflight,
		 "While a disk streams, shrink its budget towards this many requests when answers find the guest busy (held-back requests merge), and grow it back towards max_inflight when they find it idle (holding back starves it); 0 = off, 0-4096 (default "
		 __stringify(XBF_DEF_MIN_INFLIGHT) ")");
module_param_named(adaptive_budget, xbf_adaptive, bool, 0644);
MODULE_PARM_DESC(adaptive_budget,
		 "Apply max_inflight only while the disk's recent requests form sequential streams (they merge when held back); random I/O gets every ring slot (default Y)");
module_param_named(gate_queues, xbf_gate, bool, 0644);
MODULE_PARM_DESC(gate_queues,
		 "Hold requests back by stopping the disk's hardware queues once max_inflight are out (restart at half), instead of refusing dispatch budget: held requests stay where later bios merge into them (default N)");
module_param_named(irq_affinity, xbf_irq_affinity, bool, 0644);
MODULE_PARM_DESC(irq_affinity,
		 "Deliver each ring's events to the vCPUs of its hardware queue, where blk-mq completes its requests, instead of Xen's default vCPU 0; sampled when a disk connects (default Y)");
module_param_named(trusted, xbf_trusted, bool, 0644);
MODULE_PARM_DESC(trusted,
		 "Trust backends with grants on the guest's own I/O pages; N: share only bounce pages holding request data (per disk also: trusted=0 in the vbd's xenstore directory, from the toolstack) (default Y)");
module_param_cb(irq_batch, &xbf_irq_batch_ops, &xbf_irq_batch, 0644);
MODULE_PARM_DESC(irq_batch,
		 "Most responses a ring asks the backend to collect before it interrupts us, under load (the number follows what each interrupt finds; a timer bounds the wait, irq_wait_us); 1 = an interrupt per response, 1-64; sampled when a disk connects (default "
		 __stringify(XBF_DEF_IRQ_BATCH) ")");
module_param_cb(irq_wait_us, &xbf_irq_wait_ops, &xbf_irq_wait_us, 0644);
MODULE_PARM_DESC(irq_wait_us,
		 "Longest a response waits for the rest of its batch (irq_batch) before a timer takes it, us, "
		 __stringify(XBF_MIN_IRQ_WAIT_US) "-"
		 __stringify(XBF_MAX_IRQ_WAIT_US)
		 "; sampled when a disk connects (default "
		 __stringify(XBF_DEF_IRQ_WAIT_US) ")");
module_param_cb(io_timeout, &xbf_io_timeout_ops, &xbf_io_timeout, 0644);
MODULE_PARM_DESC(io_timeout,
		 "Seconds a request may wait for the backend's answer before timeout_policy applies, 1-3600 (default "
		 __stringify(XBF_DEF_IO_TIMEOUT)
		 "); per disk: /sys/block/xvdX/queue/io_timeout (ms)");
module_param_cb(timeout_policy, &xbf_timeout_policy_ops, &xbf_timeout_policy, 0644);
MODULE_PARM_DESC(timeout_policy,
		 "A request unanswered for io_timeout: report = log it (rate-limited), count it in xblk/timeouts and keep waiting, since a slow backend is not a dead one and failing I/O it would still complete can cost a file system; fail = fail the disk as for a protocol violation (default report)");

/* ---------------------------------------------------------------------- */

static int __init xbf_init(void)
{
	int err;

	if (!xen_domain())
		return -ENODEV;
	if (!xen_has_pv_disk_devices())
		return -ENODEV;

	err = register_blkdev(XBLK_XVD_MAJOR, "xvd");
	if (err) {
		pr_err("cannot register block major %d (%d): unload or blacklist xen-blkfront\n",
		       XBLK_XVD_MAJOR, err);
		return err;
	}

	err = xbf_xenbus_register();
	if (err)
		goto out_unregister_blkdev;
	return 0;

out_unregister_blkdev:
	unregister_blkdev(XBLK_XVD_MAJOR, "xvd");
	return err;
}
module_init(xbf_init);

static void __exit xbf_exit(void)
{
	xbf_xenbus_unregister();
	unregister_blkdev(XBLK_XVD_MAJOR, "xvd");
}
module_exit(xbf_exit);

MODULE_DESCRIPTION("Xen PV block frontend with batched, merge-friendly blk-mq dispatch");
MODULE_LICENSE("GPL");
MODULE_ALIAS("xen:vbd");
