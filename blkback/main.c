// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: Xen PV block backend.  Module init/exit and the module's only
 * parameter block.  Documentation/blkback.rst lists the parameters.
 */
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/cpumask.h>
#include <xen/xen.h>
#include <xen/page.h>

#include "blkback.h"

/* --------------------------------------------------------------------- */
/* Module parameters.  Each device copies the first six when it is      */
/* probed (xbb_params_get()), so a device never sees a mix; the last    */
/* four are read by the ring threads as they go.                         */

static unsigned int xbb_max_queues;
static unsigned int xbb_max_ring_order = XBLK_MAX_RING_ORDER;
static unsigned int xbb_max_indirect_segs = 256;
static bool xbb_persistent = true;
/* what an xblkfront ring keeps granted at most: 2048 data + 512 frames */
static unsigned int xbb_max_pgrants = 2560;
static unsigned int xbb_max_inflight_pages = 4096;
/* The exceptions: read by the ring threads as they go, safe to change. */
bool xbb_poll_inflight;
bool xbb_irq_follow = true;
unsigned int xbb_coalesce_reqs = XBB_DEF_COALESCE_REQS;
unsigned int xbb_coalesce_usecs = XBB_DEF_COALESCE_USECS;

/*
 * A parameter in a range: one set of ops for all of them, the variable and
 * its bounds in the parameter's data.  A value outside is refused
 * (-EINVAL) and changes nothing.
 */
struct xbb_range {
	unsigned int *val;
	unsigned int min;
	unsigned int max;
};

#define XBB_RANGE(var, lo, hi)	{ .val = &(var), .min = (lo), .max = (hi) }

static int xbb_range_set(const char *val, const struct kernel_param *kp)
{
	const struct xbb_range *r = kp->arg;
	unsigned int v;
	int err;

	err = kstrtouint(val, 0, &v);
	if (err)
		return err;
	if (v < r->min || v > r->max)
		return -EINVAL;
	WRITE_ONCE(*r->val, v);
	return 0;
}

static int xbb_range_get(char *buf, const struct kernel_param *kp)
{
	const struct xbb_range *r = kp->arg;

	return sysfs_emit(buf, "%u\n", READ_ONCE(*r->val));
}

static const struct kernel_param_ops xbb_range_ops = {
	.set = xbb_range_set,
	.get = xbb_range_get,
};

/* Not one range (0, or 12..4096): its own check, as strict as the others. */
static int xbb_set_indirect(const char *val, const struct kernel_param *kp)
{
	unsigned int v;
	int err;

	err = kstrtouint(val, 0, &v);
	if (err)
		return err;
	/* 1..11 would advertise indirect requests no bigger than direct ones. */
	if (v && (v <= BLKIF_MAX_SEGMENTS_PER_REQUEST ||
		  v > XBLK_MAX_INDIRECT_SEGS))
		return -EINVAL;
	*(unsigned int *)kp->arg = v;
	return 0;
}

static const struct kernel_param_ops xbb_indirect_ops = {
	.set = xbb_set_indirect,
	.get = param_get_uint,
};

static struct xbb_range xbb_max_queues_range =
	XBB_RANGE(xbb_max_queues, 0, XBLK_MAX_QUEUES);
static struct xbb_range xbb_ring_order_range =
	XBB_RANGE(xbb_max_ring_order, 0, XBLK_MAX_RING_ORDER);
static struct xbb_range xbb_pgrants_range =
	XBB_RANGE(xbb_max_pgrants, 0, 1U << 16);
static struct xbb_range xbb_inflight_range =
	XBB_RANGE(xbb_max_inflight_pages, 64, 1U << 18);
static struct xbb_range xbb_coalesce_reqs_range =
	XBB_RANGE(xbb_coalesce_reqs, 1, XBB_MAX_COALESCE_REQS);
static struct xbb_range xbb_coalesce_usecs_range =
	XBB_RANGE(xbb_coalesce_usecs, XBB_MIN_COALESCE_USECS,
		  XBB_MAX_COALESCE_USECS);

/* writable: a device created afterwards (a guest arriving by migration) takes the new value */
module_param_cb(max_queues, &xbb_range_ops, &xbb_max_queues_range, 0644);
MODULE_PARM_DESC(max_queues,
		 "Most rings (queues) per device a frontend may use, 0..32; writable, applies to devices created afterwards (default 0: one per online CPU, at most 32)");
module_param_cb(max_ring_page_order, &xbb_range_ops, &xbb_ring_order_range,
		0644);
MODULE_PARM_DESC(max_ring_page_order,
		 "Largest ring a frontend may use, log2 of pages, 0..4; writable, applies to devices created afterwards (default 4)");
module_param_cb(max_indirect_segments, &xbb_indirect_ops,
		&xbb_max_indirect_segs, 0444);
MODULE_PARM_DESC(max_indirect_segments,
		 "Segments per indirect request, 0 (no indirect requests) or 12..4096 (default 256)");
module_param_named(feature_persistent, xbb_persistent, bool, 0444);
MODULE_PARM_DESC(feature_persistent,
		 "Offer persistent grants (default Y)");
module_param_cb(max_persistent_grants, &xbb_range_ops, &xbb_pgrants_range,
		0444);
MODULE_PARM_DESC(max_persistent_grants,
		 "Persistent grants kept mapped per ring, least recently used evicted first, 0..65536 (default 2560: as many as an xblkfront ring grows to)");
module_param_cb(max_inflight_pages, &xbb_range_ops, &xbb_inflight_range,
		0444);
MODULE_PARM_DESC(max_inflight_pages,
		 "Pages mapped for requests in flight per ring, 64..262144, raised to one largest request (default 4096 = 16 MiB)");
module_param_named(irq_follow, xbb_irq_follow, bool, 0644);
MODULE_PARM_DESC(irq_follow,
		 "Move a ring's event channel to the CPU its thread runs on (at most once a second), so that an event wakes the thread where it is; writable at runtime (default Y)");
module_param_named(poll_inflight, xbb_poll_inflight, bool, 0644);
MODULE_PARM_DESC(poll_inflight,
		 "While a ring has requests in flight, look for new ones when they complete (at the latest a jiffy later) instead of asking the frontend for an event; a closed loop of a few requests on a slow disk then waits for completions; writable at runtime (default N)");
module_param_cb(coalesce_reqs, &xbb_range_ops, &xbb_coalesce_reqs_range,
		0644);
MODULE_PARM_DESC(coalesce_reqs,
		 "Under load, ask the frontend for an event only after up to this many requests, 1..32 (1: after each); writable at runtime (default "
		 __stringify(XBB_DEF_COALESCE_REQS) ")");
module_param_cb(coalesce_usecs, &xbb_range_ops, &xbb_coalesce_usecs_range,
		0644);
MODULE_PARM_DESC(coalesce_usecs,
		 "Longest a request waits for the rest of its batch (coalesce_reqs) before the ring is looked at anyway, us, "
		 __stringify(XBB_MIN_COALESCE_USECS) ".."
		 __stringify(XBB_MAX_COALESCE_USECS)
		 "; writable at runtime (default "
		 __stringify(XBB_DEF_COALESCE_USECS) ")");

/**
 * xbb_params_get() - snapshot of the module parameters
 * @p: result, with max_queues resolved to a number of rings
 *
 * Context: any.
 */
void xbb_params_get(struct xbb_params *p)
{
	p->max_queues = READ_ONCE(xbb_max_queues) ? :
			min_t(unsigned int, num_online_cpus(), XBLK_MAX_QUEUES);
	p->max_ring_order = READ_ONCE(xbb_max_ring_order);
	p->max_indirect_segs = xbb_max_indirect_segs;
	p->persistent = xbb_persistent && xbb_max_pgrants;
	p->max_pgrants = xbb_max_pgrants;
	p->max_inflight_pages = xbb_max_inflight_pages;
}

static int __init xbb_init(void)
{
	/* A segment is one Xen page and we hand it to bios as one page. */
	BUILD_BUG_ON(PAGE_SIZE != XEN_PAGE_SIZE);

	int err;

	if (!xen_domain())
		return -ENODEV;
	/* Before any device: a ring thread may ask a fault point. */
	xbb_fault_init();
	err = xbb_xenbus_init();
	if (err)
		goto out_fault;
	return 0;

out_fault:
	xbb_fault_exit();
	return err;
}

static void __exit xbb_exit(void)
{
	xbb_xenbus_exit();
	xbb_fault_exit();
}

module_init(xbb_init);
module_exit(xbb_exit);

MODULE_DESCRIPTION("Xen PV block backend (xblk)");
MODULE_LICENSE("GPL");
MODULE_ALIAS("xen-backend:vbd");
