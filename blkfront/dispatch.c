// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: how many requests a disk keeps in flight (the dispatch
 * budget), and which streams it holds back.
 *
 * blk-mq asks for budget before it takes a request out of the I/O
 * scheduler or the per-CPU software queues; a refusal leaves the request
 * in the block layer where, with a scheduler or in the software queues,
 * later bios still merge into it.  Without a bound every request goes to
 * the ring the moment it is made, and nothing waits long enough to merge.
 * Random I/O gains nothing from waiting, so with adaptive_budget the bound
 * applies only while the disk's recent requests continue each other.  The
 * completion path gives budget back and reruns the queues a refusal left
 * waiting.
 *
 * The state is the disk's (struct xbf_dispatch): atomics and lockless
 * reads, no lock; the streams (struct xbf_stream) are the hardware
 * queues'.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>

#include "blkfront.h"

/**
 * xbf_dispatch_init() - a new disk's budget, from its parameters
 * @info: the disk, its parameters taken
 *
 * Context: process context, info->mutex held, before the disk takes I/O.
 */
void xbf_dispatch_init(struct xbf_info *info)
{
	struct xbf_dispatch *dp = &info->dp;

	lockdep_assert_held(&info->mutex);
	WRITE_ONCE(dp->max_inflight, info->params.max_inflight);
	dp->adaptive = info->params.adaptive;
	dp->seq_score = 0;
	atomic_set(&dp->inflight, 0);
	atomic_set(&dp->starved, 0);
}

/* The bound that applies now: 0 (none) unless the disk streams. */
static unsigned int xbf_dispatch_bound(const struct xbf_dispatch *dp)
{
	/* Hold back only a sequential stream (xbf_dispatch_sent()). */
	if (dp->adaptive && READ_ONCE(dp->seq_score) < XBF_SEQ_ONE / 2)
		return 0;
	return READ_ONCE(dp->max_inflight);
}

/**
 * xbf_dispatch_get() - take one unit of a disk's budget
 * @info: the disk
 *
 * A refusal is remembered: the next completion reruns the queues
 * (xbf_dispatch_restart()).
 *
 * Context: any.
 * Return: true if the request may be dispatched.
 */
bool xbf_dispatch_get(struct xbf_info *info)
{
	struct xbf_dispatch *dp = &info->dp;
	unsigned int max = xbf_dispatch_bound(dp);

	if (atomic_inc_return(&dp->inflight) <= max || !max)
		return true;
	atomic_dec(&dp->inflight);
	atomic_long_inc(&dp->denied);
	/*
	 * Flag the refusal, then look again: a completion that gave budget
	 * back before it could see the flag is seen here (both sides order
	 * their write before their read; atomic_inc_return is a full barrier).
	 */
	atomic_set(&dp->starved, 1);
	if (atomic_inc_return(&dp->inflight) <= max)
		return true;
	atomic_dec(&dp->inflight);
	return false;
}

/**
 * xbf_dispatch_put() - give one unit of budget back
 * @info: the disk
 *
 * Context: any.
 */
void xbf_dispatch_put(struct xbf_info *info)
{
	atomic_dec(&info->dp.inflight);
}

/**
 * xbf_dispatch_release() - a request gives back the budget it holds, if any
 * @info: its disk
 * @rq: the request
 *
 * Context: any.
 */
void xbf_dispatch_release(struct xbf_info *info, struct request *rq)
{
	struct xbf_req *req = xbf_req(rq);

	if (req->budget) {
		req->budget = false;
		xbf_dispatch_put(info);
	}
}

/**
 * xbf_dispatch_restart() - after budget came back: rerun refused requests
 * @info: the disk
 *
 * Context: any.
 */
void xbf_dispatch_restart(struct xbf_info *info)
{
	struct xbf_dispatch *dp = &info->dp;

	/* Our atomic_dec()s before the flag read; see xbf_dispatch_get(). */
	smp_mb();
	if (atomic_read(&dp->starved) && atomic_xchg(&dp->starved, 0) &&
	    info->gd)
		blk_mq_run_hw_queues(info->gd->queue, true);
}

/**
 * xbf_dispatch_set_max() - change a disk's dispatch budget
 * @info: the disk
 * @max: requests in flight on all its rings together, 0 for no bound
 *
 * Safe at any time; requests holding budget keep it.
 *
 * Context: process context.
 */
void xbf_dispatch_set_max(struct xbf_info *info, unsigned int max)
{
	WRITE_ONCE(info->dp.max_inflight, max);
	xbf_dispatch_restart(info);
}

/**
 * xbf_dispatch_sent() - account a request that went on its ring
 * @info: the disk
 * @hq: the hardware queue it was dispatched from
 * @rq: the request
 *
 * Notes whether @rq continues one of the queue's recent requests: a
 * sequential stream, whose next bios merge into a request held back a
 * little.  A request that ends where a recent one starts counts too: 6.1's
 * plug hands its requests to ->queue_rqs() last first, so the parts of one
 * large split bio arrive in descending order.
 *
 * Context: any; lockless (a heuristic: concurrent dispatchers only blur
 * it).
 */
void xbf_dispatch_sent(struct xbf_info *info, struct xbf_hq *hq,
		       struct request *rq)
{
	struct xbf_dispatch *dp = &info->dp;
	struct xbf_stream *st = &hq->stream;
	sector_t pos = blk_rq_pos(rq), end = pos + blk_rq_sectors(rq);
	unsigned int i, next, score = READ_ONCE(dp->seq_score);
	bool hit = false;

	if (end == pos)
		return;
	for (i = 0; i < XBF_SEQ_STREAMS; i++)
		hit |= st->ends[i] == pos || st->starts[i] == end;
	i = READ_ONCE(st->next) % XBF_SEQ_STREAMS;
	st->ends[i] = end;
	st->starts[i] = pos;
	WRITE_ONCE(st->next, (i + 1) % XBF_SEQ_STREAMS);
	/*
	 * Moving average over about 16 requests.  Every queue of the disk
	 * writes it: skip the store when it does not change (steady random or
	 * sequential I/O), so that the shared line is not dirtied per request.
	 */
	next = score - score / 16 + (hit ? XBF_SEQ_ONE / 16 : 0);
	if (next != score)
		WRITE_ONCE(dp->seq_score, next);
}
