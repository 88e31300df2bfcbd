// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: how many requests a disk keeps in flight (the dispatch
 * budget), and which streams it holds back.
 *
 * blk-mq asks for budget before it takes a request out of the I/O
 * scheduler or the per-CPU software queues; a refusal leaves the request
 * in the block layer, where later bios still merge into it.  What is on
 * the ring cannot merge any more.  So a sequential stream gets only as
 * many requests in flight as the device serves at once: the window of
 * include/xblk/inflight.h, which follows the latency of the requests
 * answered (inflight_control; without it the fixed max_inflight).  Random
 * I/O gains nothing from waiting, and neither do requests already of the
 * disk's largest size: their hardware queue gets every ring slot
 * (adaptive_budget).  A flushed plug's requests come without budget
 * (->queue_rqs()): one we hand back would wait on its hardware queue's
 * dispatch list, where nothing merges, so one the window refuses stops
 * its hardware queue first (xbf_dispatch_hold()): blk-mq then puts it, and
 * what comes after it, in the software queue.  The completion path gives
 * budget back, feeds the window, starts what a hold stopped and reruns the
 * queues a refusal left waiting.
 *
 * blk-mq's budget callbacks name the queue, not the request or its
 * hardware queue: the stream asked for is the one of the hardware queue
 * the asking CPU maps to (blk-mq runs a hardware queue on its own CPUs).
 *
 * The budget is atomics and lockless reads; the window is updated under
 * xbf_dispatch.lock, once per completion pass.
 */
#include <linux/blk-mq.h>
#include <linux/blkdev.h>
#include <linux/timekeeping.h>

#include "blkfront.h"

/* The window's range: an administrator's ceiling below the floor wins. */
static void xbf_window_bounds(struct xbf_dispatch *dp, unsigned int ceiling,
			      unsigned int slots)
{
	unsigned int max = ceiling ? min(ceiling, slots) : slots;

	xblk_inflight_set_bounds(&dp->win, min(XBLK_INFLIGHT_FLOOR, max), max);
}

/**
 * xbf_dispatch_init() - a new disk's budget and window, from its parameters
 * @info: the disk, its parameters taken and its tag set allocated
 *
 * Context: process context, info->mutex held, before the disk takes I/O.
 */
void xbf_dispatch_init(struct xbf_info *info)
{
	struct xbf_dispatch *dp = &info->dp;
	unsigned int slots = info->tag_set.nr_hw_queues *
			     info->tag_set.queue_depth;

	lockdep_assert_held(&info->mutex);
	WRITE_ONCE(dp->max_inflight, info->params.max_inflight);
	dp->control = info->params.control;
	dp->adaptive = info->params.adaptive;
	dp->max_sectors = xblk_max_request_sectors(&info->be, &info->neg);
	atomic_set(&dp->inflight, 0);
	atomic_set(&dp->starved, 0);
	atomic_set(&dp->stopped, 0);
	spin_lock_init(&dp->lock);
	xblk_inflight_init(&dp->win, XBLK_INFLIGHT_FLOOR, 1, slots);
	xbf_window_bounds(dp, dp->max_inflight, slots);
}

/* The stream of the hardware queue this CPU maps to. */
static const struct xbf_stream *xbf_cpu_stream(struct xbf_info *info)
{
	const struct blk_mq_queue_map *map =
		&info->tag_set.map[HCTX_TYPE_DEFAULT];
	unsigned int q = map->mq_map[raw_smp_processor_id()];

	if (!info->hq || q >= info->tag_set.nr_hw_queues)
		return NULL;
	return &info->hq[q].stream;
}

/* Whether holding a request of this stream back could make it merge. */
static bool xbf_stream_holds(const struct xbf_dispatch *dp,
			     const struct xbf_stream *st)
{
	if (!st)
		return true;
	if (READ_ONCE(st->seq_score) < XBF_SEQ_ONE / 2)
		return false;
	/* Already (nearly) the largest: nothing left to merge into it. */
	return READ_ONCE(st->sectors) < dp->max_sectors - dp->max_sectors / 8;
}

/* The bound that applies to the asking CPU's stream now: 0 for none. */
static unsigned int xbf_dispatch_bound(struct xbf_info *info)
{
	struct xbf_dispatch *dp = &info->dp;
	unsigned int max = READ_ONCE(dp->max_inflight);

	/* Random I/O, or requests that cannot grow: no bound at all. */
	if (dp->adaptive && !xbf_stream_holds(dp, xbf_cpu_stream(info)))
		return 0;
	if (!dp->control)
		return max;
	return READ_ONCE(dp->win.window);
}

/* Take one unit of budget under @max (0: no bound); remember a refusal. */
static bool xbf_dispatch_take(struct xbf_info *info, unsigned int max)
{
	struct xbf_dispatch *dp = &info->dp;

	if (atomic_inc_return(&dp->inflight) <= max || !max)
		return true;
	atomic_dec(&dp->inflight);
	atomic_long_inc(&dp->denied);
	if (!READ_ONCE(dp->limited))
		WRITE_ONCE(dp->limited, true);
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
 * xbf_dispatch_get() - take one unit of a disk's budget
 * @info: the disk
 *
 * For blk-mq's ->get_budget(), and for each request of a flushed plug in
 * ->queue_rqs(), where blk-mq takes none: the block layer plugs every
 * write, and each is flushed alone; on 6.12 (not on 6.1), so is each
 * O_DIRECT read.  A refusal is remembered: the next completion reruns the
 * queues (xbf_dispatch_restart()), and the window learns it was the limit.
 * A refused plugged request is held with xbf_dispatch_hold() before it is
 * handed back.
 *
 * Context: any.
 * Return: true if the request may be dispatched.
 */
bool xbf_dispatch_get(struct xbf_info *info)
{
	return xbf_dispatch_take(info, xbf_dispatch_bound(info));
}

/**
 * xbf_dispatch_hold() - make a refused plugged request wait where bios merge
 * @info: the disk
 * @hctx: the request's hardware queue
 *
 * blk-mq issues what ->queue_rqs() hands back directly, and puts a refused
 * one on @hctx's dispatch list, where nothing merges into it; but it puts
 * what it would issue to a stopped hardware queue in the software queue.
 * So @hctx is stopped until budget comes back: the completion that gives
 * it back starts it again (xbf_dispatch_restart()), as does a budget that
 * came back before the stop could be seen.
 *
 * Context: any (->queue_rqs()).
 * Return: true if @hctx is stopped; false if budget came back meanwhile
 * (the request may be taken after all).
 */
bool xbf_dispatch_hold(struct xbf_info *info, struct blk_mq_hw_ctx *hctx)
{
	struct xbf_dispatch *dp = &info->dp;
	unsigned int bound;

	blk_mq_stop_hw_queue(hctx);
	atomic_set(&dp->stopped, 1);
	/*
	 * The stop before we look at the budget again; a completion gives
	 * budget back before it looks at @stopped (xbf_dispatch_restart()):
	 * one of us sees the other.
	 */
	smp_mb();
	bound = xbf_dispatch_bound(info);
	if (!bound || atomic_read(&dp->inflight) < bound) {
		xbf_dispatch_unstop(info);
		return false;
	}
	return true;
}

/**
 * xbf_dispatch_unstop() - start the hardware queues a hold stopped
 * @info: the disk
 *
 * Also for the paths that must see every request dispatched whatever the
 * budget (a restore's unquiesce, a disk going away).
 *
 * Context: any.
 */
void xbf_dispatch_unstop(struct xbf_info *info)
{
	if (atomic_xchg(&info->dp.stopped, 0) && info->gd)
		blk_mq_start_stopped_hw_queues(info->gd->queue, true);
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
	if (atomic_read(&dp->stopped))
		xbf_dispatch_unstop(info);
	if (atomic_read(&dp->starved) && atomic_xchg(&dp->starved, 0) &&
	    info->gd)
		blk_mq_run_hw_queues(info->gd->queue, true);
}

/**
 * xbf_dispatch_set_max() - change a disk's bound (sysfs)
 * @info: the disk
 * @max: requests in flight on all its rings together, 0 for no bound
 *	beyond the rings; with inflight_control the window's ceiling
 *
 * Safe at any time; requests holding budget keep it.
 *
 * Context: process context.
 */
void xbf_dispatch_set_max(struct xbf_info *info, unsigned int max)
{
	struct xbf_dispatch *dp = &info->dp;
	unsigned int slots = info->tag_set.nr_hw_queues *
			     info->tag_set.queue_depth;
	unsigned long flags;

	WRITE_ONCE(dp->max_inflight, max);
	spin_lock_irqsave(&dp->lock, flags);
	xbf_window_bounds(dp, max, slots);
	spin_unlock_irqrestore(&dp->lock, flags);
	xbf_dispatch_restart(info);
}

/**
 * xbf_dispatch_window() - the window a sequential stream gets now (sysfs)
 * @info: the disk
 *
 * Return: the window, or without inflight_control max_inflight.
 */
unsigned int xbf_dispatch_window(struct xbf_info *info)
{
	struct xbf_dispatch *dp = &info->dp;

	return dp->control ? READ_ONCE(dp->win.window) :
			     READ_ONCE(dp->max_inflight);
}

/**
 * xbf_dispatch_done() - feed the latencies of answered requests to the window
 * @info: their disk
 * @done: the requests of one completion pass, chained through
 *	  xbf_req.next
 *
 * One clock read and one lock per pass.  A window that grew lets the
 * requests it refused go (xbf_dispatch_restart() by the caller).
 *
 * Context: any; takes xbf_dispatch.lock.
 */
void xbf_dispatch_done(struct xbf_info *info, struct xbf_req *done)
{
	struct xbf_dispatch *dp = &info->dp;
	unsigned long flags;
	u64 now;

	if (!dp->control || !done)
		return;
	now = ktime_get_ns();
	spin_lock_irqsave(&dp->lock, flags);
	for (; done; done = done->next)
		if (done->sent_ns && now > done->sent_ns)
			xblk_inflight_sample(&dp->win, now - done->sent_ns);
	if (READ_ONCE(dp->limited)) {
		dp->win.limited = true;
		WRITE_ONCE(dp->limited, false);
	}
	xblk_inflight_epoch(&dp->win, now);
	spin_unlock_irqrestore(&dp->lock, flags);
}

/**
 * xbf_dispatch_sent() - account a request that went on its ring
 * @info: the disk
 * @hq: the hardware queue it was dispatched from
 * @rq: the request
 *
 * Notes whether @rq continues one of the queue's recent requests: a
 * sequential stream, whose next bios merge into a request held back a
 * little, and how large the queue's requests are.  A request that ends
 * where a recent one starts counts too: 6.1's plug hands its requests to
 * ->queue_rqs() last first, so the parts of one large split bio arrive in
 * descending order.
 *
 * Context: any; lockless (a heuristic: concurrent dispatchers only blur
 * it).
 */
void xbf_dispatch_sent(struct xbf_info *info, struct xbf_hq *hq,
		       struct request *rq)
{
	struct xbf_stream *st = &hq->stream;
	sector_t pos = blk_rq_pos(rq), end = pos + blk_rq_sectors(rq);
	unsigned int i, next, score = READ_ONCE(st->seq_score);
	unsigned int sectors = READ_ONCE(st->sectors);
	bool hit = false;

	if (end == pos)
		return;
	for (i = 0; i < XBF_SEQ_STREAMS; i++)
		hit |= st->ends[i] == pos || st->starts[i] == end;
	i = READ_ONCE(st->next) % XBF_SEQ_STREAMS;
	st->ends[i] = end;
	st->starts[i] = pos;
	WRITE_ONCE(st->next, (i + 1) % XBF_SEQ_STREAMS);
	/* Moving averages over about 16 and 8 requests. */
	next = score - score / 16 + (hit ? XBF_SEQ_ONE / 16 : 0);
	if (next != score)
		WRITE_ONCE(st->seq_score, next);
	next = sectors - sectors / 8 + blk_rq_sectors(rq) / 8;
	if (next != sectors)
		WRITE_ONCE(st->sectors, next);
}
