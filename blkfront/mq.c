// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: the blk-mq side - dispatch, completion, the gendisk.
 *
 * Dispatch is built for batching.  A request is prepared (grants taken,
 * segments written: request.c) outside the ring lock, then placed on the
 * ring under it (ring.c); the ring is pushed, and the backend notified,
 * only at the end of a batch: on bd->last, in ->commit_rqs(), or once per
 * ring in ->queue_rqs().  How many requests may be out at once is
 * dispatch.c's: blk-mq asks it through the budget callbacks.
 *
 * When grants run out a request goes back to the block layer with
 * BLK_STS_RESOURCE; the completion path reruns the queue.  So does one
 * that finds no ring slot, which only happens after a restore onto a
 * backend with fewer or smaller rings (see blkfront.h).
 *
 * A request is started (blk_mq_start_request()) as it goes on its ring,
 * under the ring lock: started means in flight.  blk-mq's timeout then only
 * ever fires for requests the backend was sent, and one the ring refuses
 * is ended once, never handed back started.
 *
 * Completion: a ring hands the requests it found answered to
 * xbf_complete_ring(), which releases what they held (request.c), gives
 * their budget back and ends them as one batch.
 *
 * A request unanswered for the queue's timeout is counted and left to the
 * disk's timeout work (recovery.c), which may fail the disk; requests are
 * never completed by the timeout alone.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/module.h>
#include <xen/page.h>
#include <xblk/compat.h>

#include "blkfront.h"

static const struct block_device_operations xbf_fops = {
	.owner = THIS_MODULE,
};

static int xbf_get_budget(struct request_queue *q)
{
	return xbf_dispatch_get(q->queuedata) ? 0 : -1;
}

static void xbf_put_budget(struct request_queue *q, int token)
{
	xbf_dispatch_put(q->queuedata);
}

static void xbf_set_rq_budget_token(struct request *rq, int token)
{
	xbf_req(rq)->budget = token >= 0;
}

static int xbf_get_rq_budget_token(struct request *rq)
{
	return xbf_req(rq)->budget ? 0 : -1;
}

/* Queue one request; push and notify only if @last. */
static blk_status_t xbf_queue_one(struct xbf_hq *hq, struct request *rq,
				  bool last)
{
	struct xbf_ring *ring = hq->ring;
	struct xbf_info *info = ring->info;
	struct blkif_request breq = {};
	blk_status_t sts;

	sts = xbf_prep(ring, rq, &breq);
	if (sts != BLK_STS_OK)
		goto out_refused;
	sts = xbf_ring_submit(ring, rq, &breq, hq->id_base + rq->tag, last);
	if (sts != BLK_STS_OK) {
		/* Not started: a full ring turns it away, a stopped one fails it. */
		if (xbf_finish(ring, rq, BLKIF_RSP_ERROR))
			xbf_ring_rerun(ring);
		goto out_refused;
	}
	xbf_dispatch_sent(info, hq, rq);
	return BLK_STS_OK;

out_refused:
	if (sts == BLK_STS_RESOURCE)
		ring->stats.ring_full++;	/* racy count, fine */
	/* Like SCSI: a request we do not take gives its budget back. */
	xbf_dispatch_release(info, rq);
	return sts;
}

/*
 * Not connected: fail the request, or while a restore waits for the new
 * backend keep it (the queue is quiesced then, so this is only a guard).
 */
static blk_status_t xbf_not_connected(struct xbf_info *info, struct request *rq)
{
	xbf_dispatch_release(info, rq);
	return READ_ONCE(info->state) == XBF_RESUMING ? BLK_STS_RESOURCE :
							BLK_STS_IOERR;
}

static blk_status_t xbf_queue_rq(struct blk_mq_hw_ctx *hctx,
				 const struct blk_mq_queue_data *bd)
{
	struct xbf_info *info = hctx->queue->queuedata;

	if (unlikely(READ_ONCE(info->state) != XBF_CONNECTED))
		return xbf_not_connected(info, bd->rq);
	return xbf_queue_one(hctx->driver_data, bd->rq, bd->last);
}

static void xbf_commit_rqs(struct blk_mq_hw_ctx *hctx)
{
	struct xbf_hq *hq = hctx->driver_data;

	if (hq->ring)
		xbf_commit(hq->ring);
}

/*
 * Whether a plugged request may wait in the software queue: a plain read
 * or write, not one of a flush sequence, which blk-mq inserts elsewhere.
 */
static bool xbf_rq_may_wait(const struct request *rq)
{
	return (req_op(rq) == REQ_OP_READ || req_op(rq) == REQ_OP_WRITE) &&
	       !(rq->cmd_flags & (REQ_PREFLUSH | REQ_FUA)) &&
	       !(rq->rq_flags & RQF_FLUSH_SEQ);
}

/*
 * A plugged batch: every request goes on its ring unpushed; each ring
 * touched is pushed, and its backend notified, once at the end.  Requests
 * we cannot take for now go back to blk-mq, which issues them through
 * ->queue_rq() or keeps them where they can merge; one that failed for
 * good (a stopped ring) is ended here, as blk-mq ends what ->queue_rq()
 * fails.  blk-mq takes no budget on this path, so we do
 * (xbf_dispatch_get()); once the budget is spent the rest of the
 * batch goes back, and a plain read or write refused first stops its
 * hardware queue (xbf_dispatch_hold()), so that blk-mq puts them in the
 * software queue, where the stream's next bios merge into them.
 */
static void xbf_queue_rqs(xblk_compat_rq_list_t *rqlist)
{
	struct xbf_info *info = NULL;
	xblk_compat_rq_list_t requeue;
	unsigned long touched = 0;
	bool no_budget = false;
	struct request *rq;
	unsigned int i;

	BUILD_BUG_ON(XBLK_MAX_QUEUES > BITS_PER_LONG);
	rq_list_init(&requeue);
	while ((rq = rq_list_pop(rqlist))) {
		struct xbf_hq *hq = rq->mq_hctx->driver_data;
		struct xbf_ring *ring;
		blk_status_t sts;

		info = rq->q->queuedata;
		xbf_req(rq)->budget = false;
		/* ->queue_rq() deals with a disk that is not connected. */
		if (unlikely(READ_ONCE(info->state) != XBF_CONNECTED))
			no_budget = true;
		if (!no_budget && !xbf_dispatch_get(info)) {
			/*
			 * Held where bios merge, unless budget came back
			 * while its queue stopped: then it may go after all.
			 */
			if (!xbf_rq_may_wait(rq) ||
			    xbf_dispatch_hold(info, rq->mq_hctx) ||
			    !xbf_dispatch_get(info))
				no_budget = true;
		}
		if (no_budget) {
			rq_list_add_tail(&requeue, rq);
			continue;
		}
		xbf_req(rq)->budget = true;
		/* This path skips blk_mq_get_driver_tag(), which sets this. */
		rq->mq_hctx->tags->rqs[rq->tag] = rq;
		ring = hq->ring;
		sts = xbf_queue_one(hq, rq, false);
		if (sts == BLK_STS_OK)
			__set_bit(ring->index, &touched);
		else if (sts == BLK_STS_RESOURCE)
			rq_list_add_tail(&requeue, rq);
		else
			/* never started: handed back it would be failed again */
			blk_mq_end_request(rq, sts);
	}
	if (info)
		for_each_set_bit(i, &touched, XBLK_MAX_QUEUES)
			xbf_commit(&info->rings[i]);
	*rqlist = requeue;
}

static void xbf_complete_rq(struct request *rq)
{
	blk_mq_end_request(rq, xbf_req(rq)->status);
}

static void xbf_complete_batch(struct io_comp_batch *iob)
{
	blk_mq_end_request_batch(iob);
}

/**
 * xbf_ring_rerun() - run the hardware queues that use a ring
 * @ring: the ring, which has room (grants or slots) again
 *
 * Context: any.
 */
void xbf_ring_rerun(struct xbf_ring *ring)
{
	struct blk_mq_hw_ctx *hctx = READ_ONCE(ring->hctx);

	if (!hctx)
		return;
	if (ring->shared)
		blk_mq_run_hw_queues(hctx->queue, true);
	else
		blk_mq_run_hw_queue(hctx, true);
}

/**
 * xbf_complete_ring() - end the requests a ring found answered
 * @ring: their ring
 * @done: chained through xbf_req.next, NULL terminated, each with the
 *	  status of its validated response
 * @rerun: a request was turned away for lack of ring slots
 * @idle: the answers came while the CPU was idle
 *
 * Releases what every request held (request.c) before the first is
 * ended, ends them as one batch, then reruns the hardware queue once if a
 * request waits for grants or slots, and all of the disk's queues if one
 * was refused dispatch budget.  The ring's xbf_done_fn.
 *
 * Context: interrupt or process context, no ring lock held.
 */
void xbf_complete_ring(struct xbf_ring *ring, struct xbf_req *done,
		       bool rerun, bool idle)
{
	struct xbf_info *info = ring->info;
	DEFINE_IO_COMP_BATCH(iob);
	struct xbf_req *req, *next;

	rerun |= xbf_finish_list(ring, done);
	xbf_dispatch_done(info, done);
	for (req = done; req; req = next) {
		struct request *rq = xbf_rq(req);

		next = req->next;
		xbf_dispatch_release(info, rq);
		if (!blk_mq_add_to_batch(rq, &iob, req->status != BLK_STS_OK,
					 xbf_complete_batch))
			blk_mq_complete_request(rq);
	}
	if (iob.complete)
		iob.complete(&iob);

	if (!ring->hctx)
		return;
	if (rerun)
		xbf_ring_rerun(ring);
	xbf_dispatch_restart(info);
}

/*
 * blk-mq found a request unanswered for the queue's timeout.  Count it
 * and leave the rest to the disk's timeout work (recovery.c): the rings and
 * the disk's state need info->mutex, which this must not take (a removal
 * holds it while del_gendisk() waits for blk-mq's timeout handling).  The
 * request keeps waiting; if it fails, it fails with its disk.
 */
static enum blk_eh_timer_return xbf_timeout(struct request *rq)
{
	struct xbf_info *info = rq->q->queuedata;

	atomic_long_inc(&info->timeouts);
	schedule_work(&info->timeout_work);
	return BLK_EH_RESET_TIMER;
}

/**
 * xbf_disk_affine() - deliver each ring's responses where they complete
 * @info: the disk, with its gendisk
 *
 * blk-mq completes a request on the CPU that submitted it, so an event on
 * another one (Xen's default is vCPU 0) costs a second vCPU's wake-up and
 * an IPI per completion.  Rings shared by several queues keep the default.
 *
 * Context: process context, info->mutex held.
 */
void xbf_disk_affine(struct xbf_info *info)
{
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	lockdep_assert_held(&info->mutex);
	if (!info->params.irq_affinity)
		return;
	queue_for_each_hw_ctx(info->gd->queue, hctx, i)
		if (i < info->nr_rings && !info->rings[i].shared)
			xbf_ring_set_cpus(&info->rings[i], hctx->cpumask);
}

static int xbf_init_hctx(struct blk_mq_hw_ctx *hctx, void *data,
			 unsigned int index)
{
	struct xbf_info *info = data;
	struct xbf_hq *hq = &info->hq[index];

	hq->ring = &info->rings[index];
	hq->id_base = 0;
	hctx->driver_data = hq;
	hq->ring->hctx = hctx;
	return 0;
}

static void xbf_exit_hctx(struct blk_mq_hw_ctx *hctx, unsigned int index)
{
	struct xbf_hq *hq = hctx->driver_data;

	if (hq->ring && hq->ring->hctx == hctx)
		hq->ring->hctx = NULL;
}

static const struct blk_mq_ops xbf_mq_ops = {
	.queue_rq	= xbf_queue_rq,
	.timeout	= xbf_timeout,
	.commit_rqs	= xbf_commit_rqs,
	.queue_rqs	= xbf_queue_rqs,
	.complete	= xbf_complete_rq,
	.get_budget	= xbf_get_budget,
	.put_budget	= xbf_put_budget,
	.set_rq_budget_token = xbf_set_rq_budget_token,
	.get_rq_budget_token = xbf_get_rq_budget_token,
	.init_hctx	= xbf_init_hctx,
	.exit_hctx	= xbf_exit_hctx,
};

static void xbf_fill_limits(const struct xbf_info *info,
			    struct queue_limits *lim)
{
	const struct xblk_be_info *be = &info->be;
	unsigned int max_sectors = xblk_max_request_sectors(be, &info->neg);

	*lim = (struct queue_limits){
		.logical_block_size = be->sector_size,
		.physical_block_size = be->phys_sector_size,
		.io_min = be->io_min,
		.io_opt = be->io_opt,
		.max_hw_sectors = max_sectors,
		.max_segments = info->neg.segs,
		.max_segment_size = PAGE_SIZE,
		.seg_boundary_mask = PAGE_SIZE - 1,
	};
	/* No BLK_FEAT_FUA: the block layer follows writes with a flush. */
	if (info->flush_op)
		lim->features |= BLK_FEAT_WRITE_CACHE;
	if (be->discard) {
		lim->max_hw_discard_sectors = UINT_MAX >> XBLK_SECTOR_SHIFT;
		lim->discard_granularity = be->discard_granularity ?:
					   be->sector_size;
		lim->discard_alignment = be->discard_alignment;
		if (be->discard_secure)
			lim->max_secure_erase_sectors =
				lim->max_hw_discard_sectors;
	}
}

/* The tag set of a new disk: one hardware queue per ring. */
static void xbf_tag_set_init(struct xbf_info *info)
{
	struct blk_mq_tag_set *set = &info->tag_set;
	unsigned int frames = info->neg.indirect ?
			      xblk_indirect_frames(info->neg.segs) : 0;

	memset(set, 0, sizeof(*set));
	set->ops = &xbf_mq_ops;
	set->nr_hw_queues = info->nr_rings;
	/* One tag per ring slot: a request with a tag always has a slot. */
	set->queue_depth = info->rings[0].nr_slots;
	set->numa_node = NUMA_NO_NODE;
	set->timeout = info->params.io_timeout * HZ;
	set->cmd_size = sizeof(struct xbf_req) +
			(info->neg.segs + frames) * sizeof(struct xbf_gnt *);
	set->driver_data = info;
}

/* The gendisk's identity and what the backend says of the disk. */
static void xbf_gendisk_init(struct xbf_info *info, struct gendisk *gd)
{
	gd->major = XBLK_XVD_MAJOR;
	gd->first_minor = info->first_minor;
	gd->minors = info->minors;
	gd->fops = &xbf_fops;
	gd->private_data = info;
	strscpy(gd->disk_name, info->name, sizeof(gd->disk_name));
	set_capacity(gd, info->be.sectors);
	if (info->be.info & (XBLK_VDISK_READONLY | XBLK_VDISK_CDROM))
		set_disk_ro(gd, true);
	if (info->be.info & (XBLK_VDISK_REMOVABLE | XBLK_VDISK_CDROM))
		gd->flags |= GENHD_FL_REMOVABLE;
}

/**
 * xbf_disk_alloc() - create the tag set and the gendisk of a connected disk
 * @info: the disk, with rings and negotiated configuration in place
 *
 * The gendisk is not added to the system yet: adding it reads the
 * partition table through the backend, which xbf_disk_add() does from a
 * work item, never on the xenwatch thread and never under info->mutex.
 *
 * Context: process context, info->mutex held.
 * Return: 0 or a negative errno; nothing is left allocated on failure.
 */
int xbf_disk_alloc(struct xbf_info *info)
{
	struct blk_mq_tag_set *set = &info->tag_set;
	struct queue_limits lim;
	struct gendisk *gd;
	int err;

	lockdep_assert_held(&info->mutex);
	xbf_tag_set_init(info);

	info->hq = kcalloc(info->nr_rings, sizeof(*info->hq), GFP_KERNEL);
	if (!info->hq)
		return -ENOMEM;
	info->disk_segs = info->neg.segs;

	err = blk_mq_alloc_tag_set(set);
	if (err)
		goto out_free_hq;

	xbf_dispatch_init(info);
	info->resized_at = jiffies - HZ;

	xbf_fill_limits(info, &lim);
	gd = blk_mq_alloc_disk(set, &lim, info);
	if (IS_ERR(gd)) {
		err = PTR_ERR(gd);
		goto out_free_tag_set;
	}

	xbf_gendisk_init(info, gd);
	info->gd = gd;
	info->added = false;
	xbf_disk_affine(info);
	return 0;

out_free_tag_set:
	blk_mq_free_tag_set(set);
out_free_hq:
	kfree(info->hq);
	info->hq = NULL;
	return err;
}

static void xbf_probe_end(struct bio *bio)
{
	complete(bio->bi_private);
}

/*
 * Read the disk's first block and wait for the answer, without a lock and
 * without the disk visible to anyone: until the backend answers, nothing
 * but this work item waits for it.  (device_add_disk() reads the partition
 * table under the disk's open_mutex, which sync(2) and every open take:
 * against a silent backend they would all hang.)  Sleeps in TASK_IDLE: a
 * wait as long as the backend's, but no hung task.  The read ends with an
 * answer, or failed with the disk (timeout_policy=fail, a protocol
 * violation, a removal); its data is not needed.
 */
static void xbf_disk_probe(struct gendisk *gd)
{
	DECLARE_COMPLETION_ONSTACK(done);
	struct page *page;
	struct bio *bio;

	if (!get_capacity(gd))
		return;
	page = alloc_page(GFP_KERNEL);
	if (!page)
		return;		/* the partition scan reads it anyway */
	bio = bio_alloc(gd->part0, 1, REQ_OP_READ, GFP_KERNEL);
	__bio_add_page(bio, page, queue_logical_block_size(gd->queue), 0);
	bio->bi_iter.bi_sector = 0;
	bio->bi_private = &done;
	bio->bi_end_io = xbf_probe_end;
	submit_bio(bio);
	wait_for_completion_state(&done, TASK_IDLE);
	bio_put(bio);
	__free_page(page);
}

/**
 * xbf_disk_add() - add the gendisk xbf_disk_alloc() made to the system
 * @info: the disk
 *
 * First waits for the backend to answer a read of the disk's first block
 * (xbf_disk_probe()); only a disk still connected then is added.  So a
 * backend silent from its first request keeps only this work waiting:
 * every other path (timeout, error, removal, suspend, sysfs) stays free to
 * take info->mutex meanwhile, and the disk fails with its first request
 * under timeout_policy=fail.  device_add_disk() then reads the partition
 * table, which a backend that stops answering just after the probe could
 * still hold up; a disk failed or closed while it was added is marked
 * dead once it is.
 *
 * Context: process context (xbf_info.add_work), info->mutex not held; the
 * gendisk stays until the removal, which flushes the work first.
 * Return: 0 (also when there was nothing to add: the disk was closed or
 * failed before) or the negative errno of device_add_disk().
 */
int xbf_disk_add(struct xbf_info *info)
{
	struct gendisk *gd;
	int err;

	mutex_lock(&info->mutex);
	gd = info->gd;
	/* Closed or failed before the work ran: the removal frees it. */
	if (info->added || (info->state != XBF_CONNECTED &&
			    info->state != XBF_RESUMING))
		gd = NULL;
	mutex_unlock(&info->mutex);
	if (!gd)
		return 0;

	xbf_disk_probe(gd);
	mutex_lock(&info->mutex);
	if (info->state != XBF_CONNECTED && info->state != XBF_RESUMING)
		gd = NULL;	/* failed or closed meanwhile: the removal frees it */
	mutex_unlock(&info->mutex);
	if (!gd)
		return 0;

	err = device_add_disk(&info->xbdev->dev, gd, NULL);

	mutex_lock(&info->mutex);
	if (!err) {
		info->added = true;
		if (info->state != XBF_CONNECTED)
			blk_mark_disk_dead(gd);
	}
	mutex_unlock(&info->mutex);
	return err;
}

/**
 * xbf_disk_destroy() - remove the gendisk and free the tag set
 * @info: the disk; I/O still in flight must be able to complete (rings
 *	  connected) or have been failed with xbf_fail_inflight(), and
 *	  xbf_disk_add() must not be running
 *
 * Context: process context, info->mutex held.
 */
void xbf_disk_destroy(struct xbf_info *info)
{
	lockdep_assert_held(&info->mutex);
	if (!info->gd)
		return;
	/* Nothing may wait in a stopped queue while the disk drains. */
	xbf_dispatch_unstop(info);
	if (info->added)
		del_gendisk(info->gd);
	info->added = false;
	put_disk(info->gd);
	info->gd = NULL;
	blk_mq_free_tag_set(&info->tag_set);
	kfree(info->hq);
	info->hq = NULL;
}

/**
 * xbf_disk_update_capacity() - apply an online resize now
 * @info: the disk
 * @sectors: new capacity in 512-byte sectors
 *
 * Supersedes a resize xbf_disk_resize() has not applied yet.
 *
 * Context: process context, info->mutex held.
 */
void xbf_disk_update_capacity(struct xbf_info *info, u64 sectors)
{
	unsigned int folded = info->resize_folded;

	lockdep_assert_held(&info->mutex);
	info->resize_pending = false;
	info->resize_folded = 0;
	if (!info->added || sectors == get_capacity(info->gd))
		return;
	if (folded)
		dev_info(&info->xbdev->dev,
			 "%s: capacity %llu -> %llu sectors (%u earlier change%s folded in)\n",
			 info->name, (unsigned long long)get_capacity(info->gd),
			 (unsigned long long)sectors, folded,
			 folded == 1 ? "" : "s");
	else
		dev_info(&info->xbdev->dev, "%s: capacity %llu -> %llu sectors\n",
			 info->name, (unsigned long long)get_capacity(info->gd),
			 (unsigned long long)sectors);
	info->be.sectors = sectors;
	info->resized_at = jiffies;
	set_capacity_and_notify(info->gd, sectors);
}

/**
 * xbf_disk_resize() - apply a capacity the backend announced, coalesced
 * @info: the disk, connected
 * @sectors: the new capacity in 512-byte sectors
 *
 * Every change applied is logged (here and by the block layer) and sent
 * to user space as a uevent, and a backend can announce sizes without end.
 * So at most one change is applied per second; a change announced sooner
 * waits, and replaces any that is still waiting: the last one announced
 * always lands, a second later at worst (xbf_resize_work()).
 *
 * Context: process context, info->mutex held.
 */
void xbf_disk_resize(struct xbf_info *info, u64 sectors)
{
	unsigned long next = info->resized_at + HZ;

	lockdep_assert_held(&info->mutex);
	if (!info->gd)
		return;
	if (!info->resize_pending) {
		if (sectors == get_capacity(info->gd))
			return;
	} else if (sectors != info->resize_sectors) {
		info->resize_folded++;
	}
	info->resize_sectors = sectors;
	info->resize_pending = true;
	/* Already queued: it keeps its time and applies the latest value. */
	schedule_delayed_work(&info->resize_work,
			      time_after(jiffies, next) ? 0 : next - jiffies);
}

/**
 * xbf_resize_work() - apply the capacity xbf_disk_resize() kept waiting
 * @work: xbf_info.resize_work
 *
 * Context: process context (system workqueue).
 */
void xbf_resize_work(struct work_struct *work)
{
	struct xbf_info *info = container_of(to_delayed_work(work),
					     struct xbf_info, resize_work);

	mutex_lock(&info->mutex);
	/* Not added yet: the add work applies it once the disk is. */
	if (info->resize_pending && info->state == XBF_CONNECTED &&
	    info->added)
		xbf_disk_update_capacity(info, info->resize_sectors);
	mutex_unlock(&info->mutex);
}
