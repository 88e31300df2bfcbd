// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: the thread that serves one ring, in rounds.
 *
 * Each round, in this order (xbb_thread_round()):
 *   1. stops the coalescing timer (the round re-arms it), picks up a QoS
 *      change and, on ring 0, a new size of the backing device;
 *   2. reaps finished requests: one unmap batch, their responses (ring.c);
 *   3. takes every request the frontend published and dispatches them
 *      together (ring.c's pass, which hands them to io.c);
 *   4. reaps again, then pushes every response of the round with one
 *      RING_PUSH_RESPONSES_AND_CHECK_NOTIFY and at most one notification;
 *   5. lets the coalescing batch follow what the pass found, and decides how
 *      the thread waits next (xbb_ring.next): when the ring is drained,
 *      req_event is re-armed, a batch ahead under load, with a timer behind
 *      it (coalesce.c), and a request published meanwhile is caught.  With
 *      poll_inflight (off by default) it is not re-armed while requests are
 *      in flight: their completions wake the thread, which looks at the ring
 *      then (or after XBB_POLL_TIMEOUT); but a frontend that keeps a few
 *      requests going and sends each as one completes then waits for
 *      another's completion each time (Documentation/bench.rst);
 *   6. sends the late EOI the event owed (ring.c).
 *
 * Between rounds the thread sleeps until an event, a completion, the
 * coalescing timer, the end of a backoff or a memory-pressure trim wakes
 * it; after XBB_IDLE_TIMEOUT without any it looks for a lost event and
 * empties the ring's page cache.  When it is stopped it drains: every
 * request in flight is answered and every grant dropped before it ends.
 */
#include <linux/kthread.h>
#include <linux/sched.h>

#include "blkback.h"

/* Idle time after which the free page cache is emptied. */
#define XBB_IDLE_TIMEOUT	(5 * HZ)
/* Longest wait for a completion before a deferred ring re-arms req_event. */
#define XBB_POLL_TIMEOUT	1

/* Tell xenbus.c when the backing device changed size (ring 0 only). */
static void xbb_thread_check_size(struct xbb_ring *ring)
{
	struct xbb_dev *be = ring->be;

	if (ring->index == 0 && xbb_vbd_refresh_size(&be->vbd))
		schedule_work(&be->resize_work);
}

static void xbb_thread_round(struct xbb_ring *ring, bool timed_out)
{
	bool event = test_and_clear_bit(XBB_RING_EVENT, &ring->flags);
	bool timer = test_and_clear_bit(XBB_RING_TIMER, &ring->flags);
	RING_IDX unanswered;
	unsigned int reaped, taken;
	bool took;

	xbb_coalesce_cancel(ring);	/* this round re-arms */
	xbb_qos_ring_apply(ring);
	ring->next = XBB_NEXT_WAIT;
	xbb_thread_check_size(ring);
	xbb_ring_reap(ring);
	/* The frontend's requests not answered yet, this one's included. */
	unanswered = xbb_ring_unanswered(ring);
	took = xbb_ring_consume(ring, &taken);
	if (took && ring->idle_round && !event)
		xbb_warn_rl(ring->be, "ring %u: found requests published without an event",
			    ring->index);
	reaped = xbb_ring_reap(ring);
	xbb_ring_push(ring);
	xbb_coalesce_pass(ring, unanswered, taken, event, timer);

	if (ring->intake == XBB_INTAKE_FULL && reaped) {
		/*
		 * Completions reaped after the pass gave budget back: take
		 * what waits now.  No completion and no event would come for
		 * it (req_event is not re-armed while blocked): a well-behaved
		 * frontend on a fast disk waited 5 s per request in the lab.
		 */
		ring->next = XBB_NEXT_NOW;
	} else if (ring->intake == XBB_INTAKE_OPEN && !ring->halted) {
		if (ring->inflight && !timed_out && READ_ONCE(xbb_poll_inflight))
			ring->next = xbb_ring_unconsumed(ring) ? XBB_NEXT_NOW :
				     XBB_NEXT_POLL;
		else if (xbb_coalesce_rearm(ring))
			ring->next = XBB_NEXT_NOW;
	}
	xbb_ring_eoi(ring, event, took);
}

static bool xbb_thread_has_work(struct xbb_ring *ring)
{
	return test_bit(XBB_RING_EVENT, &ring->flags) ||
	       test_bit(XBB_RING_TRIM, &ring->flags) ||
	       test_bit(XBB_RING_TIMER, &ring->flags) ||
	       ring->next == XBB_NEXT_NOW ||
	       xbb_slots_done_pending(ring) || kthread_should_stop();
}

/* Wait for every request in flight, answer it, then drop every grant. */
static void xbb_thread_drain(struct xbb_ring *ring)
{
	xbb_coalesce_stop(ring);
	xbb_slots_fail_retry(ring);
	while (ring->inflight) {
		if (!wait_event_idle_timeout(ring->wq,
					     xbb_slots_done_pending(ring),
					     10 * HZ))
			xbb_warn_rl(ring->be, "ring %u: still waiting for %u requests in flight",
				    ring->index, ring->inflight);
		xbb_ring_reap(ring);
	}
	xbb_ring_push(ring);
	xbb_gnt_free_all(ring);
	ring->life = XBB_THREAD_DRAINED;
}

/*
 * Nothing happened for XBB_IDLE_TIMEOUT: look for what should have woken
 * us.  Each finding is reported (rate limited) and repaired where we can,
 * so that a lost event on either side costs seconds, not a hung guest.
 */
static void xbb_thread_idle_check(struct xbb_ring *ring)
{
	if (ring->halted)
		return;
	if (ring->inflight)
		xbb_warn_rl(ring->be, "ring %u: %u requests in flight for %u s",
			    ring->index, ring->inflight,
			    XBB_IDLE_TIMEOUT / HZ);
	xbb_ring_renotify(ring);
}

static int xbb_thread(void *arg)
{
	struct xbb_ring *ring = arg;

	ring->life = XBB_THREAD_RUNNING;
	while (!kthread_should_stop()) {
		long timeout = XBB_IDLE_TIMEOUT;
		bool backing_off = ring->intake == XBB_INTAKE_BACKOFF;
		bool idle, polled = false;

		if (backing_off)
			timeout = max_t(long, 1, (long)(ring->retry_at - jiffies));
		else if (ring->next == XBB_NEXT_POLL)
			timeout = XBB_POLL_TIMEOUT;
		idle = !wait_event_idle_timeout(ring->wq,
						xbb_thread_has_work(ring),
						timeout);
		if (kthread_should_stop())
			break;
		if (idle && ring->next == XBB_NEXT_POLL) {
			polled = true;	/* not idle: nothing completed */
			idle = false;
		}
		if (backing_off)
			idle = false;	/* the backoff ended: not idle either */
		if (idle && ring->intake != XBB_INTAKE_BACKOFF)
			ring->idle_round = true;
		xbb_thread_round(ring, polled);
		if (test_and_clear_bit(XBB_RING_TRIM, &ring->flags))
			xbb_gnt_trim(ring, 0);
		if (idle && ring->intake != XBB_INTAKE_BACKOFF) {
			ring->idle_round = false;
			xbb_thread_idle_check(ring);
			if (!ring->inflight)
				xbb_gnt_trim(ring, 0);
		}
	}
	xbb_thread_drain(ring);
	xbb_qos_ring_exit(ring);
	return 0;
}

/**
 * xbb_thread_start() - start the thread serving a mapped ring
 * @ring: mapped ring
 *
 * Context: process context, under xbb_dev.lock.
 * Return: 0 or a negative errno.
 */
int xbb_thread_start(struct xbb_ring *ring)
{
	struct xbb_dev *be = ring->be;
	struct task_struct *t;

	lockdep_assert_held(&be->lock);
	if (xbb_fault_ring_start(ring->index))
		return -ENOMEM;
	/* Requests may be waiting already (a ring resumed after a rebind). */
	ring->next = XBB_NEXT_NOW;
	ring->life = XBB_THREAD_NEW;
	t = kthread_create(xbb_thread, ring, "xbb.%u.%s.%u", be->domid,
			   strrchr(be->xdev->nodename, '/') + 1, ring->index);
	if (IS_ERR(t))
		return PTR_ERR(t);
	/* kthread_stop() must find the task even if the thread died. */
	get_task_struct(t);
	ring->task = t;
	wake_up_process(t);
	return 0;
}

/**
 * xbb_thread_stop() - stop the ring thread once every request is answered
 * @ring: ring
 *
 * Blocks until the requests in flight complete, their grants are unmapped
 * and every persistent grant and free page of the ring is released.  Safe
 * when the thread is already gone.
 *
 * Context: process context; sleeps for as long as the guest's requests take
 * (never on the xenwatch thread: xenbus.c calls it from its teardown work).
 * Return: true if the ring may be unmapped and freed; false if its thread
 * died before it drained (requests may still be in flight and point at it:
 * it must be leaked).
 */
bool xbb_thread_stop(struct xbb_ring *ring)
{
	if (!ring->task)
		return true;
	kthread_stop(ring->task);
	put_task_struct(ring->task);
	ring->task = NULL;
	if (ring->life == XBB_THREAD_RUNNING) {
		xbb_warn(ring->be, "ring %u: its thread ended before it drained: leaking the ring",
			 ring->index);
		return false;
	}
	return true;
}
