// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: what a disk does when its backend goes wrong or away.
 *
 * A backend that breaks the protocol (a ring reports it through
 * xbf_fail(), log.c) or stops answering (blk-mq's timeout counts it, mq.c)
 * gets its disk failed here, in process context: every ring stopped, what
 * was in flight failed with its grants abandoned to the backend, the disk
 * marked dead.  With timeout_policy=report a request past the timeout is
 * reported and keeps waiting: a slow backend is not a dead one.  Requests
 * are never completed by the timeout alone, only with their disk, so that
 * a late answer finds a stopped ring.
 *
 * A removal gives a backend that still serves a bounded time to answer
 * (xbf_disk_drain()).
 *
 * Save/restore: the requests the old backend never answered are taken
 * back and requeued, with the queue quiesced, until the new backend is
 * connected; then they are sent again.  The tag set never changes, so
 * nothing has to be frozen (a freeze would wait for those very requests).
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/timekeeping.h>

#include "blkfront.h"

/**
 * xbf_error_work() - fail a disk whose backend broke the protocol
 * @work: xbf_info.error_work, scheduled by xbf_fail()
 *
 * Context: process context (system workqueue).
 */
void xbf_error_work(struct work_struct *work)
{
	struct xbf_info *info = container_of(work, struct xbf_info, error_work);
	bool killed;

	mutex_lock(&info->mutex);
	killed = xbf_disk_kill(info);
	mutex_unlock(&info->mutex);
	if (killed)
		xbf_fatal(info, -EPROTO,
			  "backend broke the blkif protocol; disk failed");
}

/**
 * xbf_fail_inflight() - fail every request still waiting for a response
 * @info: the disk, whose backend is gone, broken or not answering
 *
 * Stops every ring first, so that nothing goes on a ring once it is
 * emptied and a late answer is never read.  The requests' grants are
 * abandoned (xbf_abandon()): the backend may still map them.
 *
 * Context: process context, info->mutex held, rings allocated.
 */
void xbf_fail_inflight(struct xbf_info *info)
{
	unsigned int r;

	lockdep_assert_held(&info->mutex);
	for (r = 0; r < info->nr_rings; r++) {
		struct xbf_ring *ring = &info->rings[r];
		struct xbf_req *req, *next;

		xbf_ring_stop(ring);
		for (req = xbf_ring_take_inflight(ring); req; req = next) {
			struct request *rq = xbf_rq(req);

			next = req->next;
			xbf_abandon(ring, rq);
			xbf_dispatch_release(info, rq);
			blk_mq_complete_request(rq);
		}
	}
	/* Requests refused budget meanwhile get their turn, and fail. */
	xbf_dispatch_restart(info);
}

/**
 * xbf_disk_kill() - fail a disk for good
 * @info: the disk, after a protocol violation or a request timeout
 *
 * New I/O fails, I/O in flight fails (xbf_fail_inflight()), requests a
 * restore took back fail.
 *
 * Context: process context, info->mutex held.
 * Return: true if the disk was failed now, false if it already was or is
 * being removed (its rings are gone).
 */
bool xbf_disk_kill(struct xbf_info *info)
{
	lockdep_assert_held(&info->mutex);
	if (info->state == XBF_ERROR || !info->rings)
		return false;
	WRITE_ONCE(info->state, XBF_ERROR);
	/* Not added yet: xbf_disk_add() marks it once it is. */
	if (info->added)
		blk_mark_disk_dead(info->gd);
	xbf_fail_inflight(info);
	if (info->gd)
		xbf_disk_unquiesce(info);	/* requeued requests fail */
	return true;
}

/* Requests in flight on all rings; the oldest one's xbf_req.sent_ns. */
static unsigned int xbf_disk_oldest(struct xbf_info *info, u64 *oldest)
{
	unsigned int r, n = 0, nr;
	u64 sent = 0;

	for (r = 0; r < info->nr_rings; r++) {
		nr = xbf_ring_oldest(&info->rings[r], &sent);
		if (nr && (!n || sent < *oldest))
			*oldest = sent;
		n += nr;
	}
	return n;
}

/**
 * xbf_disk_drain() - give the backend a bounded time to answer
 * @info: the disk, closing (no request goes on its rings any more)
 *
 * Waits while requests are in flight, at most the disk's I/O timeout and
 * never more than XBF_REMOVE_WAIT_MAX seconds, so that a removal cannot
 * hang on a backend that says it serves but never answers.  Sleeps in
 * TASK_IDLE: the wait is bounded, it is no hung task.
 *
 * Context: process context, info->mutex not held (the backend's state
 * changes need it meanwhile); only the removal, which alone frees the
 * rings, calls this.
 */
void xbf_disk_drain(struct xbf_info *info)
{
	unsigned long tmo, end;
	u64 oldest;

	tmo = info->params.io_timeout * HZ;
	end = jiffies + min_t(unsigned long, tmo, XBF_REMOVE_WAIT_MAX * HZ);
	while (xbf_disk_oldest(info, &oldest) && time_before(jiffies, end))
		schedule_timeout_idle(HZ / 10);
}

/**
 * xbf_timeout_work() - report requests that timed out, or fail their disk
 * @work: xbf_info.timeout_work
 *
 * First looks at the rings, in case only an event was lost.  Then logs
 * (rate-limited) the disk, the requests in flight and the oldest one's
 * age; with timeout_policy=fail, a request older than the timeout fails
 * the disk (xbf_disk_kill()) and closes the device.
 *
 * Context: process context (system workqueue).
 */
void xbf_timeout_work(struct work_struct *work)
{
	struct xbf_info *info = container_of(work, struct xbf_info,
					     timeout_work);
	u64 oldest = 0, age = 0;
	unsigned int r, n, ms;
	bool fail, killed = false;

	mutex_lock(&info->mutex);
	if ((info->state != XBF_CONNECTED && info->state != XBF_CLOSING) ||
	    !info->rings || !info->gd)
		goto out_unlock;
	for (r = 0; r < info->nr_rings; r++)
		xbf_ring_look(&info->rings[r]);
	n = xbf_disk_oldest(info, &oldest);
	if (!n)
		goto out_unlock;
	age = ktime_get_ns() - oldest;
	fail = info->params.timeout_fail &&
	       age >= jiffies_to_nsecs(info->gd->queue->rq_timeout);
	ms = div_u64(age, NSEC_PER_MSEC);
	if (__ratelimit(&info->rs_timeout))
		dev_warn(&info->xbdev->dev,
			 "%s: no answer from the backend for %u.%u s (the oldest of %u request%s in flight); %s\n",
			 info->name, ms / 1000, ms % 1000 / 100, n,
			 n == 1 ? "" : "s",
			 fail ? "failing the disk (timeout_policy=fail)" :
				"waiting (timeout_policy=report)");
	if (fail)
		killed = xbf_disk_kill(info);
out_unlock:
	mutex_unlock(&info->mutex);
	if (killed)
		xbf_fatal(info, -ETIMEDOUT,
			  "backend did not answer for %u s; disk failed",
			  ms / 1000);
}

/**
 * xbf_disk_suspend() - take back every request the old backend was sent
 * @info: the disk, just restored, whose rings are still allocated
 *
 * Quiesces the queue and requeues every request we had not taken a
 * response for (the old ring is not read: xbf_ring_reclaim()), to be sent
 * again by xbf_disk_reconnect().  Their grants are returned (the restored domain's
 * grant table is new, so nothing maps them).
 *
 * Context: process context, info->mutex held.
 * Return: the number of requests requeued.
 */
unsigned int xbf_disk_suspend(struct xbf_info *info)
{
	unsigned int r, n = 0;

	lockdep_assert_held(&info->mutex);
	WRITE_ONCE(info->state, XBF_RESUMING);
	if (!info->quiesced) {
		blk_mq_quiesce_queue(info->gd->queue);
		info->quiesced = true;
	}
	for (r = 0; r < info->nr_rings; r++) {
		struct xbf_ring *ring = &info->rings[r];
		struct xbf_req *req = xbf_ring_reclaim(ring), *next;

		for (; req; req = next) {
			struct request *rq = xbf_rq(req);

			next = req->next;
			xbf_finish(ring, rq, BLKIF_RSP_ERROR);	/* grants back */
			xbf_dispatch_release(info, rq);
			blk_mq_requeue_request(rq, false);
			n++;
		}
	}
	for (r = 0; r < info->tag_set.nr_hw_queues; r++)
		info->hq[r].ring = NULL;
	return n;
}

/**
 * xbf_disk_reconnect() - send again what xbf_disk_suspend() took back
 * @info: the disk, with the new backend's rings and grant pools in place
 *
 * Maps the (unchanged) hardware queues onto the new rings, round robin
 * when there are fewer rings than queues, and lets I/O flow.
 *
 * Context: process context, info->mutex held.
 */
void xbf_disk_reconnect(struct xbf_info *info)
{
	struct request_queue *q = info->gd->queue;
	unsigned int depth = info->tag_set.queue_depth;
	unsigned int nr_hw = info->tag_set.nr_hw_queues;
	struct blk_mq_hw_ctx *hctx;
	unsigned long i;

	lockdep_assert_held(&info->mutex);
	for (i = 0; i < nr_hw; i++) {
		info->hq[i].ring = &info->rings[i % info->nr_rings];
		info->hq[i].id_base = (i / info->nr_rings) * depth;
	}
	for (i = 0; i < info->nr_rings; i++)
		info->rings[i].shared = nr_hw > info->nr_rings;
	queue_for_each_hw_ctx(q, hctx, i)
		if (i < info->nr_rings)
			info->rings[i].hctx = hctx;
	xbf_disk_affine(info);
	WRITE_ONCE(info->state, XBF_CONNECTED);
	xbf_disk_unquiesce(info);
}

/**
 * xbf_disk_unquiesce() - end the quiescence of a restore
 * @info: the disk, either reconnected (XBF_CONNECTED: the requeued requests
 *	  are sent) or given up (they fail)
 *
 * Context: process context, info->mutex held.
 */
void xbf_disk_unquiesce(struct xbf_info *info)
{
	lockdep_assert_held(&info->mutex);
	if (!info->quiesced)
		return;
	info->quiesced = false;
	blk_mq_unquiesce_queue(info->gd->queue);
	/* Requests a hold left in the software queue go too. */
	xbf_dispatch_unstop(info);
	blk_mq_kick_requeue_list(info->gd->queue);
}
