/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel API compatibility: the only place that tests HAVE_*.
 *
 * The driver .c files are written against the newest mainline API.  Where
 * an older kernel lacks a piece of it, this header backfills it under the
 * mainline name (an xblk_compat_*() function and a #define of the mainline
 * name), the way WireGuard's compat layer does.
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
 *
 * The newest API: blk_mq_alloc_disk(set, &lim, queuedata) with the initial
 * struct queue_limits (6.9), write cache and FUA as lim.features (6.11),
 * queues non-rotational unless BLK_FEAT_ROTATIONAL (6.11).  Before 6.9 the
 * limits went to the new queue through the blk_queue_*() setters, and 6.1's
 * struct queue_limits has no features: there, struct queue_limits names a
 * stand-in holding what xblkfront sets, which the backfilled
 * blk_mq_alloc_disk() applies through those setters.
 */
#if !defined(HAVE_BLK_MQ_ALLOC_DISK_LIM)
typedef unsigned int __bitwise blk_features_t;
#define BLK_FEAT_WRITE_CACHE	((__force blk_features_t)(1u << 0))
#define BLK_FEAT_FUA		((__force blk_features_t)(1u << 1))

/*
 * The fields of the 6.11 struct queue_limits that xblkfront sets; setting
 * another fails to compile on 6.1 until it is added here and applied below.
 */
struct xblk_compat_queue_limits {
	blk_features_t features;
	unsigned long seg_boundary_mask;
	unsigned int max_hw_sectors;
	unsigned int max_segment_size;
	unsigned int physical_block_size;
	unsigned int logical_block_size;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int max_hw_discard_sectors;
	unsigned int max_secure_erase_sectors;
	unsigned int discard_granularity;
	unsigned int discard_alignment;
	unsigned short max_segments;
};

static inline struct gendisk *
xblk_compat_blk_mq_alloc_disk(struct blk_mq_tag_set *set,
			      const struct xblk_compat_queue_limits *lim,
			      void *queuedata)
{
	struct gendisk *gd = blk_mq_alloc_disk(set, queuedata);
	struct request_queue *q;

	if (IS_ERR(gd))
		return gd;
	q = gd->queue;
	blk_queue_logical_block_size(q, lim->logical_block_size);
	blk_queue_physical_block_size(q, lim->physical_block_size);
	blk_queue_io_min(q, lim->io_min);
	blk_queue_io_opt(q, lim->io_opt);
	blk_queue_max_hw_sectors(q, lim->max_hw_sectors);
	blk_queue_max_segments(q, lim->max_segments);
	blk_queue_max_segment_size(q, lim->max_segment_size);
	blk_queue_segment_boundary(q, lim->seg_boundary_mask);
	blk_queue_max_discard_sectors(q, lim->max_hw_discard_sectors);
	q->limits.discard_granularity = lim->discard_granularity;
	q->limits.discard_alignment = lim->discard_alignment;
	blk_queue_max_secure_erase_sectors(q, lim->max_secure_erase_sectors);
	blk_queue_write_cache(q, !!(lim->features & BLK_FEAT_WRITE_CACHE),
			      !!(lim->features & BLK_FEAT_FUA));
	/* Rotational was the default; the stand-in has no BLK_FEAT_ROTATIONAL. */
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
	return gd;
}

#define queue_limits xblk_compat_queue_limits
#undef blk_mq_alloc_disk
#define blk_mq_alloc_disk(set, lim, queuedata) \
	xblk_compat_blk_mq_alloc_disk(set, lim, queuedata)
#elif !defined(HAVE_BLK_FEAT_WRITE_CACHE)
#error "6.9 and 6.10 (queue_limits without features) are not supported"
#endif

/*
 * Merging is what every tag set does since 6.14, which removed
 * BLK_MQ_F_SHOULD_MERGE; before, a tag set had to ask for it.
 */
#ifdef HAVE_BLK_MQ_F_SHOULD_MERGE
static inline int xblk_compat_blk_mq_alloc_tag_set(struct blk_mq_tag_set *set)
{
	set->flags |= BLK_MQ_F_SHOULD_MERGE;
	return blk_mq_alloc_tag_set(set);
}

#define blk_mq_alloc_tag_set xblk_compat_blk_mq_alloc_tag_set
#endif

/* hrtimer_setup() (6.13) sets the callback along with clock and mode. */
#ifndef HAVE_HRTIMER_SETUP
static inline void
xblk_compat_hrtimer_setup(struct hrtimer *timer,
			  enum hrtimer_restart (*function)(struct hrtimer *),
			  clockid_t clock_id, enum hrtimer_mode mode)
{
	hrtimer_init(timer, clock_id, mode);
	timer->function = function;
}

#define hrtimer_setup xblk_compat_hrtimer_setup
#endif

/* ---------------------------------------------------------------------
 * Frontend: ->queue_rqs() request lists.
 *
 * 6.13 (and Debian's 6.12) pass ->queue_rqs() a struct rq_list, with a
 * tail.  Before, the list was its head pointer, struct request **.  The
 * callback's type is fixed by struct blk_mq_ops, and struct rq_list cannot
 * be made to name a pointer, so the driver spells the list type
 * xblk_compat_rq_list_t (a macro: checkpatch refuses new typedefs) and
 * otherwise uses the mainline calls.  6.1's rq_list_pop() already takes the
 * head pointer; its rq_list_add_tail() took a tail pointer, and is replaced
 * by one that walks the list (a plug holds a few dozen requests at most).
 */
#ifdef HAVE_QUEUE_RQS_RQ_LIST
#define xblk_compat_rq_list_t	struct rq_list
#else
#define xblk_compat_rq_list_t	struct request *

static inline void xblk_compat_rq_list_init(struct request **rl)
{
	*rl = NULL;
}

static inline void xblk_compat_rq_list_add_tail(struct request **rl,
						struct request *rq)
{
	while (*rl)
		rl = &(*rl)->rq_next;
	rq->rq_next = NULL;
	*rl = rq;
}

#define rq_list_init xblk_compat_rq_list_init
#undef rq_list_add_tail
#define rq_list_add_tail xblk_compat_rq_list_add_tail
#endif

/* ---------------------------------------------------------------------
 * Both sides: xenbus.
 */
#include <xen/xenbus.h>

/*
 * After 6.12 xenbus_read_driver_state() takes the device as well, and reads
 * XenbusStateUnknown for one whose xenstore entries vanished.
 */
#ifndef HAVE_XENBUS_READ_DRIVER_STATE_DEV
static inline enum xenbus_state
xblk_compat_xenbus_read_driver_state(const struct xenbus_device *dev,
				     const char *path)
{
	return xenbus_read_driver_state(path);
}

#define xenbus_read_driver_state xblk_compat_xenbus_read_driver_state
#endif

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

/*
 * After 6.12 ratelimit_state.missed is an atomic_t that
 * ratelimit_state_reset_miss() reads and clears.  Before, a plain int that
 * ___ratelimit() updates under rs->lock, and refuses a caller that finds the
 * lock held: take it only when there is a count to take.
 */
#ifndef HAVE_RATELIMIT_STATE_RESET_MISS
static inline int
xblk_compat_ratelimit_state_reset_miss(struct ratelimit_state *rs)
{
	unsigned long flags;
	int n;

	if (!READ_ONCE(rs->missed))
		return 0;
	raw_spin_lock_irqsave(&rs->lock, flags);
	n = rs->missed;
	rs->missed = 0;
	raw_spin_unlock_irqrestore(&rs->lock, flags);
	return n;
}

#define ratelimit_state_reset_miss xblk_compat_ratelimit_state_reset_miss
#endif

/* ======================= end of the backend section ================== */

#endif /* XBLK_COMPAT_H */
