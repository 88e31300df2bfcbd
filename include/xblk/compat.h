/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API compatibility wrappers: the only place that tests HAVE_*.
 *
 * The HAVE_* macros come from build/probe/<tree>/xblk_autoconf.h, generated
 * by scripts/probe.sh from compile probes (scripts/probes/HAVE_*.c), never
 * from version numbers: distribution kernels backport APIs (Debian's 6.12
 * has the 6.13 struct rq_list).  See Documentation/compat.rst.
 */
#ifndef XBLK_COMPAT_H
#define XBLK_COMPAT_H

#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/hrtimer.h>
#include <linux/ratelimit.h>

/* ---------------------------------------------------------------------
 * Frontend: disk allocation and queue limits.
 */

/**
 * struct xb_limits - queue limits, independent of how the kernel takes them
 * @logical_block_size: bytes
 * @physical_block_size: bytes
 * @io_min: bytes, 0 for none
 * @io_opt: bytes, 0 for none
 * @max_hw_sectors: 512-byte sectors per request
 * @max_segments: segments per request
 * @max_segment_size: bytes per segment
 * @seg_boundary_mask: a segment may not cross this boundary
 * @max_discard_sectors: 0 when discard is not supported
 * @discard_granularity: bytes
 * @discard_alignment: bytes (kept for the sysfs value only)
 * @max_secure_erase_sectors: 0 when not supported
 * @write_cache: the device has a volatile write cache to flush
 * @fua: the device supports forced unit access writes
 */
struct xb_limits {
	unsigned int logical_block_size;
	unsigned int physical_block_size;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int max_hw_sectors;
	unsigned int max_segments;
	unsigned int max_segment_size;
	unsigned long seg_boundary_mask;
	unsigned int max_discard_sectors;
	unsigned int discard_granularity;
	unsigned int discard_alignment;
	unsigned int max_secure_erase_sectors;
	bool write_cache;
	bool fua;
};

#ifdef HAVE_BLK_MQ_ALLOC_DISK_LIM
static inline void xb_fill_queue_limits(struct queue_limits *ql,
					const struct xb_limits *xl)
{
	ql->logical_block_size = xl->logical_block_size;
	ql->physical_block_size = xl->physical_block_size;
	ql->io_min = xl->io_min;
	ql->io_opt = xl->io_opt;
	ql->max_hw_sectors = xl->max_hw_sectors;
	ql->max_segments = xl->max_segments;
	ql->max_segment_size = xl->max_segment_size;
	ql->seg_boundary_mask = xl->seg_boundary_mask;
	ql->max_hw_discard_sectors = xl->max_discard_sectors;
	ql->discard_granularity = xl->discard_granularity;
	ql->discard_alignment = xl->discard_alignment;
	ql->max_secure_erase_sectors = xl->max_secure_erase_sectors;
#ifdef HAVE_BLK_FEAT_WRITE_CACHE
	if (xl->write_cache)
		ql->features |= BLK_FEAT_WRITE_CACHE;
	if (xl->fua)
		ql->features |= BLK_FEAT_FUA;
#endif
}
#else
static inline void xb_apply_queue_limits(struct request_queue *q,
					 const struct xb_limits *xl)
{
	blk_queue_logical_block_size(q, xl->logical_block_size);
	blk_queue_physical_block_size(q, xl->physical_block_size);
	blk_queue_io_min(q, xl->io_min);
	blk_queue_io_opt(q, xl->io_opt);
	blk_queue_max_hw_sectors(q, xl->max_hw_sectors);
	blk_queue_max_segments(q, xl->max_segments);
	blk_queue_max_segment_size(q, xl->max_segment_size);
	blk_queue_segment_boundary(q, xl->seg_boundary_mask);
	blk_queue_max_discard_sectors(q, xl->max_discard_sectors);
	q->limits.discard_granularity = xl->discard_granularity;
	q->limits.discard_alignment = xl->discard_alignment;
	blk_queue_max_secure_erase_sectors(q, xl->max_secure_erase_sectors);
	blk_queue_write_cache(q, xl->write_cache, xl->fua);
}
#endif

/**
 * xb_alloc_disk() - allocate a blk-mq disk with the given limits
 * @set: tag set
 * @xl: limits
 * @queuedata: driver data of the queue
 *
 * Return: the disk or an ERR_PTR.
 */
static inline struct gendisk *xb_alloc_disk(struct blk_mq_tag_set *set,
					    const struct xb_limits *xl,
					    void *queuedata)
{
	struct gendisk *gd;
#ifdef HAVE_BLK_MQ_ALLOC_DISK_LIM
	struct queue_limits ql = {};

	xb_fill_queue_limits(&ql, xl);
	gd = blk_mq_alloc_disk(set, &ql, queuedata);
#else
	gd = blk_mq_alloc_disk(set, queuedata);
	if (!IS_ERR(gd))
		xb_apply_queue_limits(gd->queue, xl);
#endif
#ifdef HAVE_QUEUE_FLAG_NONROT
	/* A virtual disk: no seek penalty (later kernels default to this). */
	if (!IS_ERR(gd))
		blk_queue_flag_set(QUEUE_FLAG_NONROT, gd->queue);
#endif
	return gd;
}

/**
 * xb_hrtimer_setup() - initialise a relative CLOCK_MONOTONIC hrtimer
 * @t: the timer
 * @fn: its callback
 */
static inline void xb_hrtimer_setup(struct hrtimer *t,
				    enum hrtimer_restart (*fn)(struct hrtimer *))
{
#ifdef HAVE_HRTIMER_SETUP
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#else
	hrtimer_init(t, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	t->function = fn;
#endif
}

/* Merging is the default for every tag set since 6.14. */
#ifdef HAVE_BLK_MQ_F_SHOULD_MERGE
#define XB_MQ_F_SHOULD_MERGE	BLK_MQ_F_SHOULD_MERGE
#else
#define XB_MQ_F_SHOULD_MERGE	0
#endif

/* ---------------------------------------------------------------------
 * Frontend: ->queue_rqs() request lists.
 *
 * xb_rqs_t is the type ->queue_rqs() receives (a macro, not a typedef,
 * as it is only a spelling of a kernel type).  The driver pops requests
 * off it and hands back, through struct xb_requeue, those it did not take;
 * blk-mq then issues them one by one through ->queue_rq().
 */
#if defined(HAVE_QUEUE_RQS_RQ_LIST)
#define XB_HAVE_QUEUE_RQS 1
#define xb_rqs_t struct rq_list

struct xb_requeue {
	struct rq_list list;
};

static inline void xb_requeue_init(struct xb_requeue *rq)
{
	rq_list_init(&rq->list);
}

static inline void xb_requeue_add(struct xb_requeue *rql, struct request *rq)
{
	rq_list_add_tail(&rql->list, rq);
}

static inline void xb_requeue_return(xb_rqs_t *rqs, struct xb_requeue *rql)
{
	*rqs = rql->list;
}

static inline struct request *xb_rqs_pop(xb_rqs_t *rqs)
{
	return rq_list_pop(rqs);
}
#elif defined(HAVE_QUEUE_RQS_RQ_PTR)
#define XB_HAVE_QUEUE_RQS 1
#define xb_rqs_t struct request *

struct xb_requeue {
	struct request *head;
	struct request **tail;
};

static inline void xb_requeue_init(struct xb_requeue *rql)
{
	rql->head = NULL;
	rql->tail = &rql->head;
}

static inline void xb_requeue_add(struct xb_requeue *rql, struct request *rq)
{
	rq->rq_next = NULL;
	*rql->tail = rq;
	rql->tail = &rq->rq_next;
}

static inline void xb_requeue_return(xb_rqs_t *rqs, struct xb_requeue *rql)
{
	*rqs = rql->head;
}

static inline struct request *xb_rqs_pop(xb_rqs_t *rqs)
{
	return rq_list_pop(rqs);
}
#endif

/* ---------------------------------------------------------------------
 * Both sides: xenbus.
 */
#include <xen/xenbus.h>

/**
 * xb_otherend_state() - read the state the other end published
 * @dev: our xenbus device
 *
 * Return: the other end's state (XenbusStateUnknown if it vanished).
 */
static inline enum xenbus_state xb_otherend_state(struct xenbus_device *dev)
{
#ifdef HAVE_XENBUS_READ_DRIVER_STATE_DEV
	return xenbus_read_driver_state(dev, dev->otherend);
#else
	return xenbus_read_driver_state(dev->otherend);
#endif
}

/* ---------------------------------------------------------------------
 * Frontend: batched completion.
 */
static inline bool xb_add_to_batch(struct request *rq,
				   struct io_comp_batch *iob, bool is_error,
				   void (*complete)(struct io_comp_batch *))
{
	return blk_mq_add_to_batch(rq, iob, is_error, complete);
}

/* =====================================================================
 * Backend (xblkback) section.  Maintained by the backend; frontend code
 * above, backend code below.
 * ---------------------------------------------------------------------
 * Backend: opening the backing block device.
 *
 *   6.1        blkdev_get_by_dev(dev, fmode_t, holder), FMODE_EXCL with a
 *              holder for an exclusive claim; blkdev_put(bdev, fmode_t)
 *   6.5..6.8   blkdev_get_by_dev(dev, blk_mode_t, holder, hops): a non-NULL
 *              holder is the claim; blkdev_put(bdev, holder)
 *   6.7..6.8   bdev_open_by_dev() -> struct bdev_handle, bdev_release()
 *   6.9+       bdev_file_open_by_dev() -> struct file, file_bdev();
 *              bdev_fput() (6.10+) drops the claim synchronously
 */
#include <linux/fs.h>

/**
 * struct xb_bdev - an open backing device, whichever way the kernel opens it
 * @bdev: the block device; valid between xb_bdev_open() and xb_bdev_close()
 * @file: (6.9+) the block device file
 * @handle: (6.7, 6.8) the open handle
 * @holder: (older) the exclusive holder, or NULL for a shared open
 * @write: (6.1) opened for writing
 */
struct xb_bdev {
	struct block_device *bdev;
#if defined(HAVE_BDEV_FILE_OPEN_BY_DEV)
	struct file *file;
#elif defined(HAVE_BDEV_OPEN_BY_DEV)
	struct bdev_handle *handle;
#else
	void *holder;
	bool write;
#endif
};

/**
 * xb_bdev_open() - open a block device by number
 * @xb: result
 * @dev: device number
 * @write: open for writing as well as reading
 * @holder: non-NULL to claim the device exclusively (fails with -EBUSY
 *	    when someone else holds it exclusively, e.g. a mounted file system)
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno.
 */
static inline int xb_bdev_open(struct xb_bdev *xb, dev_t dev, bool write,
			       void *holder)
{
#if defined(HAVE_BDEV_FILE_OPEN_BY_DEV)
	blk_mode_t mode = BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0);
	struct file *f = bdev_file_open_by_dev(dev, mode, holder, NULL);

	if (IS_ERR(f))
		return PTR_ERR(f);
	xb->file = f;
	xb->bdev = file_bdev(f);
#elif defined(HAVE_BDEV_OPEN_BY_DEV)
	blk_mode_t mode = BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0);
	struct bdev_handle *h = bdev_open_by_dev(dev, mode, holder, NULL);

	if (IS_ERR(h))
		return PTR_ERR(h);
	xb->handle = h;
	xb->bdev = h->bdev;
#elif defined(HAVE_BLKDEV_GET_BY_DEV_HOPS)
	blk_mode_t mode = BLK_OPEN_READ | (write ? BLK_OPEN_WRITE : 0);
	struct block_device *b = blkdev_get_by_dev(dev, mode, holder, NULL);

	if (IS_ERR(b))
		return PTR_ERR(b);
	xb->bdev = b;
	xb->holder = holder;
	xb->write = write;
#else
	fmode_t mode = FMODE_READ | (write ? FMODE_WRITE : 0) |
		       (holder ? FMODE_EXCL : 0);
	struct block_device *b = blkdev_get_by_dev(dev, mode, holder);

	if (IS_ERR(b))
		return PTR_ERR(b);
	xb->bdev = b;
	xb->holder = holder;
	xb->write = write;
#endif
	return 0;
}

/**
 * xb_bdev_close() - close a device opened by xb_bdev_open()
 * @xb: the open device; its @bdev is cleared
 *
 * Context: process context, may sleep.
 */
static inline void xb_bdev_close(struct xb_bdev *xb)
{
#if defined(HAVE_BDEV_FILE_OPEN_BY_DEV) && defined(HAVE_BDEV_FPUT)
	bdev_fput(xb->file);
#elif defined(HAVE_BDEV_FILE_OPEN_BY_DEV)
	fput(xb->file);
#elif defined(HAVE_BDEV_OPEN_BY_DEV)
	bdev_release(xb->handle);
#elif defined(HAVE_BLKDEV_GET_BY_DEV_HOPS)
	blkdev_put(xb->bdev, xb->holder);
#else
	blkdev_put(xb->bdev, FMODE_READ | (xb->write ? FMODE_WRITE : 0) |
			     (xb->holder ? FMODE_EXCL : 0));
#endif
	xb->bdev = NULL;
}

/* ---------------------------------------------------------------------
 * Backend: rate-limited messages.
 */

/**
 * xb_ratelimit_take_missed() - read and clear what a ratelimit suppressed
 * @rs: a ratelimit state set up with RATELIMIT_MSG_ON_RELEASE, so that
 *	__ratelimit() only counts in @rs->missed and never prints or clears it
 *
 * Context: any.
 * Return: the calls __ratelimit() refused since the last call of this.
 */
static inline int xb_ratelimit_take_missed(struct ratelimit_state *rs)
{
#ifdef HAVE_RATELIMIT_STATE_RESET_MISS
	return ratelimit_state_reset_miss(rs);
#else
	unsigned long flags;
	int n;

	/*
	 * ___ratelimit() counts under rs->lock and refuses a caller that finds
	 * it held: take it only when there is a count to take.
	 */
	if (!READ_ONCE(rs->missed))
		return 0;
	raw_spin_lock_irqsave(&rs->lock, flags);
	n = rs->missed;
	rs->missed = 0;
	raw_spin_unlock_irqrestore(&rs->lock, flags);
	return n;
#endif
}

/* ======================= end of the backend section ================== */

#endif /* XBLK_COMPAT_H */
