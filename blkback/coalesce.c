// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: request coalescing, the req_event rule of a ring.
 *
 * Under load the frontend is asked for its next event only once co.batch
 * more requests are published (req_event that far past req_cons), so one
 * event carries a batch and the thread wakes once for it; evt_timer looks
 * at the ring when the batch is slow to come, after at most coalesce_usecs.
 * How the batch follows the load is include/xblk/coalesce.h's rule, shared
 * with the frontend.  At queue depth 1 the batch stays 1: req_event is
 * re-armed for the next request, with no timer and no clock read.
 *
 * All of it runs on the ring thread but the timer's callback, which only
 * sets XBB_RING_TIMER and wakes the thread.
 */
#include <linux/hrtimer.h>

#include "blkback.h"

static enum hrtimer_restart xbb_coalesce_timer(struct hrtimer *t)
{
	struct xbb_ring *ring = container_of(t, struct xbb_ring, evt_timer);

	set_bit(XBB_RING_TIMER, &ring->flags);
	wake_up(&ring->wq);
	return HRTIMER_NORESTART;
}

/**
 * xbb_coalesce_init() - no batch yet, the timer set up and not running
 * @ring: ring being set up
 *
 * Context: process context, under xbb_dev.lock.
 */
void xbb_coalesce_init(struct xbb_ring *ring)
{
	lockdep_assert_held(&ring->be->lock);
	xblk_coalesce_reset(&ring->co);
	hrtimer_setup(&ring->evt_timer, xbb_coalesce_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
}

/**
 * xbb_coalesce_cancel() - a round begins: the timer need not fire
 * @ring: ring
 *
 * Does not wait for a callback already running: the round re-arms the timer
 * if it still has to, and a flag set meanwhile only costs a round.
 *
 * Context: ring thread.
 */
void xbb_coalesce_cancel(struct xbb_ring *ring)
{
	hrtimer_try_to_cancel(&ring->evt_timer);
}

/**
 * xbb_coalesce_stop() - the ring stops: the timer is cancelled for good
 * @ring: ring
 *
 * Context: ring thread, when it drains.
 */
void xbb_coalesce_stop(struct xbb_ring *ring)
{
	hrtimer_cancel(&ring->evt_timer);
}

/**
 * xbb_coalesce_pass() - let the batch follow what a pass found
 * @ring: ring
 * @unanswered: requests the frontend had not been answered before the pass
 *	(read from the shared ring: bounded here)
 * @taken: requests the pass took off the ring
 * @event: the round was woken by the frontend's event
 * @timer: the round was woken by the coalescing timer
 *
 * Context: ring thread.
 */
void xbb_coalesce_pass(struct xbb_ring *ring, RING_IDX unanswered,
		       unsigned int taken, bool event, bool timer)
{
	enum xblk_pass_cause cause = event ? XBLK_PASS_EVENT :
				     timer ? XBLK_PASS_TIMER : XBLK_PASS_OTHER;

	if (cause == XBLK_PASS_TIMER && taken)
		xbb_stat_inc(&ring->stats.timer_polls);
	/* The frontend chose req_prod: never more than a ring's worth. */
	unanswered = min_t(RING_IDX, unanswered, RING_SIZE(&ring->br.native));
	xblk_coalesce_pass(&ring->co,
			   xblk_coalesce_needs_time(&ring->co, taken, unanswered) ?
			   ktime_get_ns() : 0,
			   taken, unanswered, cause,
			   READ_ONCE(xbb_coalesce_reqs));
}

/**
 * xbb_coalesce_rearm() - the ring is drained: ask for the next event
 * @ring: ring
 *
 * Sets req_event co.batch requests ahead of req_cons, and the timer when
 * fewer than a batch wait.
 *
 * Context: ring thread.
 * Return: whether requests wait that no event will announce (take them).
 */
bool xbb_coalesce_rearm(struct xbb_ring *ring)
{
	struct blkif_back_ring *br = &ring->br.native;
	unsigned int batch = ring->co.batch;
	RING_IDX waiting;
	u64 wait;
	int more;

	if (batch <= 1) {
		RING_FINAL_CHECK_FOR_REQUESTS(br, more);
		return more;
	}
	WRITE_ONCE(br->sring->req_event, br->req_cons + batch);
	virt_mb();	/* req_event before we look at req_prod again */
	/* Insane values are caught by the pass that takes them. */
	waiting = READ_ONCE(br->sring->req_prod) - br->req_cons;
	if (waiting >= batch)
		return true;
	wait = xblk_coalesce_wait(&ring->co,
				  XBB_MIN_COALESCE_USECS * NSEC_PER_USEC,
				  (u64)READ_ONCE(xbb_coalesce_usecs) * NSEC_PER_USEC);
	hrtimer_start(&ring->evt_timer, ns_to_ktime(wait), HRTIMER_MODE_REL);
	return false;
}
