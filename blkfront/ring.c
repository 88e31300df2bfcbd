// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: shared rings, event channels, and both directions of the
 * shared ring: requests are put on it and pushed here (xbf_ring_submit(),
 * xbf_commit()), and responses consumed.  No other file writes it, and
 * xbf_ring.lock is taken only here.  Answered requests go to the ring's
 * xbf_done_fn (mq.c), set when it was allocated: nothing here calls the
 * layers above.
 *
 * The interrupt handler copies each response out of the shared ring once,
 * validates the copy (wire.h) and only then touches the request it names.
 * A backend that breaks the protocol gets its ring stopped: we withhold the
 * late EOI so it cannot keep us busy, and move the disk to the error state.
 *
 * Interrupts are batched: after a pass we ask the backend (rsp_event) for
 * the next event only once a batch of responses is there.  The batch
 * follows what the passes find (include/xblk/coalesce.h), up to irq_batch;
 * it may exceed the requests outstanding, since under load more are sent
 * before the batch is due.  A response that waits for its batch-mates
 * waits at most twice the time the batch takes at the recent rate, and
 * never more than irq_wait_us: poll_timer looks at the ring then.
 */
#include <linux/blk-mq.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/timekeeping.h>
#include <xen/events.h>
#include <xen/page.h>
#include <xblk/compat.h>

#include "blkfront.h"
#define CREATE_TRACE_POINTS
#include "trace.h"

static void xbf_ring_broken(struct xbf_ring *ring, const char *why,
			    const char *what, u64 val)
{
	lockdep_assert_held(&ring->lock);
	ring->broken = true;
	xbf_fail(ring->info, "queue %u: bad response (%s, %s %llu)",
		 ring->index, why, what, val);
}

/*
 * RING_FINAL_CHECK_FOR_RESPONSES, asking for the event after a batch of
 * responses.  Return: whether responses are already waiting.
 */
static bool xbf_rsp_rearm(struct xbf_ring *ring)
{
	struct blkif_front_ring *fr = &ring->front;
	unsigned int batch = ring->frozen ? 1 : ring->rsp_co.batch;
	u64 wait;

	lockdep_assert_held(&ring->lock);
	if (RING_HAS_UNCONSUMED_RESPONSES(fr))
		return true;
	WRITE_ONCE(fr->sring->rsp_event, fr->rsp_cons + batch);
	virt_mb();	/* rsp_event before we look at rsp_prod again */
	if (RING_HAS_UNCONSUMED_RESPONSES(fr))
		return true;
	if (batch > 1 && !hrtimer_is_queued(&ring->poll_timer)) {
		wait = xblk_coalesce_wait(&ring->rsp_co,
					  XBF_MIN_IRQ_WAIT_US * NSEC_PER_USEC,
					  ring->irq_wait_ns);
		hrtimer_start(&ring->poll_timer, ns_to_ktime(wait),
			      HRTIMER_MODE_REL);
	}
	return false;
}

/* The response batch follows what the pass found (coalesce.h). */
static void xbf_rsp_coalesce(struct xbf_ring *ring, unsigned int found,
			     unsigned int out, bool from_timer)
{
	struct xblk_coalesce *co = &ring->rsp_co;

	if (!from_timer) {
		bool idle = in_hardirq() && is_idle_task(current);

		xblk_coalesce_idle(co, idle);
		if (idle)
			ring->stats.idle_irqs++;
	}
	out = min(out, ring->nr_slots);
	xblk_coalesce_pass(co, xblk_coalesce_needs_time(co, found, out) ?
			   ktime_get_ns() : 0, found, out,
			   from_timer ? XBLK_PASS_TIMER : XBLK_PASS_EVENT,
			   ring->irq_batch);
}

/*
 * Collect every available response.  Validated requests are chained on
 * *@tail for completion outside the lock.
 * Return: true if any response was consumed.
 */
static bool xbf_collect(struct xbf_ring *ring, struct xbf_req ***tail,
			bool from_timer)
{
	struct blkif_front_ring *fr = &ring->front;
	/* Sent and unanswered, from our private index (req_prod is shared). */
	unsigned int out = fr->req_prod_pvt - fr->rsp_cons;
	bool work = false, counted = false;
	RING_IDX rp, i;
	int more;

	lockdep_assert_held(&ring->lock);
	do {
		rp = READ_ONCE(fr->sring->rsp_prod);
		virt_rmb();	/* read responses only after rsp_prod */
		if (!xblk_rsp_prod_sane(rp, fr->rsp_cons, fr->req_prod_pvt)) {
			xbf_ring_broken(ring, "response producer ahead of requests",
					"by", rp - fr->rsp_cons);
			return work;
		}
		for (i = fr->rsp_cons; i != rp; i++) {
			struct blkif_response rsp;
			struct request *rq = NULL;
			enum xblk_rsp_err err;
			struct xbf_req *req;

			RING_COPY_RESPONSE(fr, i, &rsp);
			if (rsp.id < ring->nr_ids)
				rq = ring->inflight[rsp.id];
			err = xblk_check_rsp(&rsp, ring->nr_ids, rq,
					     rq ? xbf_req(rq)->op : 0);
			if (err) {
				fr->rsp_cons = i + 1;
				xbf_ring_broken(ring, xblk_rsp_err_str(err), "id",
						rsp.id);
				return true;
			}
			ring->inflight[rsp.id] = NULL;
			req = xbf_req(rq);
			req->rsp_status = rsp.status;
			ring->stats.responses++;
			if (rsp.status != BLKIF_RSP_OKAY)
				ring->stats.errors++;
			trace_xblkfront_response(ring, rsp.id, rsp.operation,
						 rsp.status);
			**tail = req;
			*tail = &req->next;
			work = true;
		}
		if (!counted)
			xbf_rsp_coalesce(ring, rp - fr->rsp_cons, out,
					 from_timer);
		counted = true;
		fr->rsp_cons = rp;
		more = xbf_rsp_rearm(ring);
	} while (more);
	return work;
}

/*
 * Take and complete every response there is.  Return: 1 if some were
 * there (for an event: or were taken by the timer since the last one), 0
 * if none, -1 if the ring is (now) broken.
 */
static int xbf_ring_poll(struct xbf_ring *ring, bool from_timer)
{
	struct xbf_req *done = NULL, **tail = &done;
	bool work, broken, rerun;
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&ring->lock, flags);
	if (ring->broken) {
		spin_unlock_irqrestore(&ring->lock, flags);
		return -1;
	}
	if (from_timer && ring->frozen) {
		spin_unlock_irqrestore(&ring->lock, flags);
		return 0;
	}
	work = xbf_collect(ring, &tail, from_timer);
	broken = ring->broken;
	/* Slots came free: a request turned away for one gets its turn. */
	rerun = work && ring->slot_starved;
	if (rerun)
		ring->slot_starved = false;
	if (work && from_timer)
		ring->stats.timer_polls++;
	else if (work)
		ring->stats.notify_in++;
	ring->work_since_eoi |= work;
	ret = broken ? -1 : work;
	if (!from_timer) {
		/*
		 * An event whose responses the timer took is not spurious:
		 * a spurious late EOI makes Xen hold back the next events
		 * (for up to a second as they repeat).
		 */
		if (!work && ring->work_since_eoi)
			ret = 1;
		else if (!work)
			ring->stats.spurious++;
		ring->work_since_eoi = false;
	}
	spin_unlock_irqrestore(&ring->lock, flags);

	*tail = NULL;
	/* In an interrupt or the timer: did it find the CPU idle? */
	ring->done(ring, done, rerun, in_hardirq() && is_idle_task(current));
	return ret;
}

static irqreturn_t xbf_interrupt(int irq, void *dev_id)
{
	int work = xbf_ring_poll(dev_id, false);

	/* No EOI on a broken ring: a misbehaving backend cannot make us spin. */
	if (work >= 0)
		xen_irq_lateeoi(irq, work ? 0 : XEN_EOI_FLAG_SPURIOUS);
	return IRQ_HANDLED;
}

/* A response waited long enough for its batch: take it now. */
static enum hrtimer_restart xbf_poll_timer(struct hrtimer *t)
{
	xbf_ring_poll(container_of(t, struct xbf_ring, poll_timer), true);
	return HRTIMER_NORESTART;
}

/*
 * Put a prepared request on the ring (not yet visible to the backend).
 * Only a ring with fewer slots than ids (xbf_ring.may_fill) can be full:
 * the request is turned away, and the next responses rerun the queue.
 */
static blk_status_t xbf_ring_put(struct xbf_ring *ring, struct request *rq,
				 struct blkif_request *breq, unsigned int id)
{
	struct blkif_front_ring *fr = &ring->front;
	struct xbf_stats *st = &ring->stats;

	lockdep_assert_held(&ring->lock);
	if (unlikely(ring->broken)) {
		st->ring_stopped++;
		return BLK_STS_IOERR;
	}
	if (unlikely(RING_FULL(fr)) && ring->may_fill) {
		ring->slot_starved = true;
		return BLK_STS_RESOURCE;
	}
	if (WARN_ON_ONCE(RING_FULL(fr) || id >= ring->nr_ids ||
			 ring->inflight[id]))
		return BLK_STS_IOERR;

	breq->u.rw.id = id;	/* same offset in every variant */
	*RING_GET_REQUEST(fr, fr->req_prod_pvt) = *breq;
	fr->req_prod_pvt++;
	ring->inflight[id] = rq;
	xbf_req(rq)->sent_ns = ktime_get_ns();

	switch (req_op(rq)) {
	case REQ_OP_READ:
		st->reads++;
		st->read_sectors += blk_rq_sectors(rq);
		break;
	case REQ_OP_WRITE:
		st->writes++;
		st->write_sectors += blk_rq_sectors(rq);
		break;
	case REQ_OP_FLUSH:
		st->flushes++;
		break;
	default:
		st->discards++;
		break;
	}
	if (breq->operation == BLKIF_OP_INDIRECT)
		st->indirect++;
	trace_xblkfront_queue(ring, rq, id, xbf_req(rq)->nr_segs,
			      breq->operation == BLKIF_OP_INDIRECT);
	return BLK_STS_OK;
}

/* Make queued requests visible; Return: whether the backend needs a kick. */
static bool xbf_ring_push(struct xbf_ring *ring)
{
	/* Only we write req_prod: what this push publishes. */
	unsigned int batch = ring->front.req_prod_pvt -
			     ring->front.sring->req_prod;
	int notify;

	lockdep_assert_held(&ring->lock);
	RING_PUSH_REQUESTS_AND_CHECK_NOTIFY(&ring->front, notify);
	if (notify)
		ring->stats.notify_out++;
	trace_xblkfront_push(ring, batch, notify);
	return notify;
}

/**
 * xbf_ring_kick() - notify the backend of new requests
 * @ring: the ring, whose requests were pushed under its lock
 *
 * Context: called after dropping xbf_ring.lock.
 */
static void xbf_ring_kick(struct xbf_ring *ring)
{
	notify_remote_via_irq(ring->irq);
}

/**
 * xbf_commit() - push a ring's queued requests, and notify the backend
 * @ring: the ring, at the end of a batch
 *
 * Context: any; takes xbf_ring.lock, notifies after dropping it.
 */
void xbf_commit(struct xbf_ring *ring)
{
	unsigned long flags;
	bool notify;

	spin_lock_irqsave(&ring->lock, flags);
	notify = xbf_ring_push(ring);
	spin_unlock_irqrestore(&ring->lock, flags);
	if (notify)
		xbf_ring_kick(ring);
}

/**
 * xbf_ring_submit() - put a prepared request on its ring, and start it
 * @ring: the ring
 * @rq: the request, prepared (xbf_prep())
 * @breq: its private blkif request
 * @id: its blkif id
 * @last: the last of a batch: push, and notify the backend if it asks
 *
 * Context: any; takes xbf_ring.lock.
 * Return: BLK_STS_OK, or the request was not started and keeps what
 * xbf_prep() gave it: BLK_STS_RESOURCE if the ring is full (retry after
 * the responses, which rerun the queue), BLK_STS_IOERR if it is stopped.
 */
blk_status_t xbf_ring_submit(struct xbf_ring *ring, struct request *rq,
			     struct blkif_request *breq, unsigned int id,
			     bool last)
{
	unsigned long flags;
	bool notify = false;
	blk_status_t sts;

	spin_lock_irqsave(&ring->lock, flags);
	sts = xbf_ring_put(ring, rq, breq, id);
	if (sts != BLK_STS_OK) {
		spin_unlock_irqrestore(&ring->lock, flags);
		return sts;
	}
	/* Before the lock is dropped: the response path needs it. */
	blk_mq_start_request(rq);
	if (last)
		notify = xbf_ring_push(ring);
	spin_unlock_irqrestore(&ring->lock, flags);

	if (notify)
		xbf_ring_kick(ring);
	return BLK_STS_OK;
}

/**
 * xbf_ring_take_inflight() - take every request still waiting on a ring
 * @ring: the ring
 *
 * The requests are no longer in flight for the response path; they keep
 * their grants.
 *
 * Context: any; takes xbf_ring.lock.
 * Return: the requests chained through xbf_req.next, or NULL.
 */
struct xbf_req *xbf_ring_take_inflight(struct xbf_ring *ring)
{
	struct xbf_req *list = NULL;
	unsigned long flags;
	unsigned int id;

	spin_lock_irqsave(&ring->lock, flags);
	for (id = 0; id < ring->nr_ids; id++) {
		struct request *rq = ring->inflight[id];

		if (!rq)
			continue;
		ring->inflight[id] = NULL;
		xbf_req(rq)->next = list;
		list = xbf_req(rq);
	}
	spin_unlock_irqrestore(&ring->lock, flags);
	return list;
}

/**
 * xbf_ring_reclaim() - take back the requests of a ring that is going away
 * @ring: the ring of a domain just restored (its backend is gone)
 *
 * Every request we had not taken a response for is returned, chained
 * through xbf_req.next, still holding its grants, to be sent again.  The
 * ring itself is not read: the old backend may go on writing it (and the
 * data pages of reads) through its mappings after the domain is
 * suspended, and the copy the save or migration took need not be
 * consistent; after a live migration a restored ring has been seen to
 * give a request's first bytes as a response.  Sending a request again is
 * safe; trusting such a response is not.
 *
 * Context: process context; the event channel is dead.
 * Return: the chain, or NULL.
 */
struct xbf_req *xbf_ring_reclaim(struct xbf_ring *ring)
{
	hrtimer_cancel(&ring->poll_timer);

	return xbf_ring_take_inflight(ring);
}

/**
 * xbf_rings_freeze() - the domain is about to be suspended (save, migration)
 * @info: the disk
 *
 * From here on each ring asks for an event per response, its timer stays
 * off and xbf_ring_look() does not read it: after the domain resumes
 * elsewhere the event channels are dead, but a timer or the I/O timeout
 * work would still read a ring the old backend may have kept writing.  If
 * the suspend is cancelled the rings keep working this way (no batching,
 * no look for a lost event), until the next reconnect allocates new ones.
 *
 * Context: process context; takes xbf_ring.lock.
 */
void xbf_rings_freeze(struct xbf_info *info)
{
	unsigned long flags;
	unsigned int i;

	lockdep_assert_held(&info->mutex);
	for (i = 0; i < info->nr_rings; i++) {
		struct xbf_ring *ring = &info->rings[i];

		spin_lock_irqsave(&ring->lock, flags);
		ring->frozen = true;
		spin_unlock_irqrestore(&ring->lock, flags);
		/* after the flag: xbf_rsp_rearm() starts no new timer */
		hrtimer_cancel(&ring->poll_timer);
	}
}

/**
 * xbf_ring_stop() - stop a ring for good
 * @ring: a ring of a disk that is being failed
 *
 * No request goes on the ring after this and no response is read from it
 * (a late answer to a request we failed would name an id no longer in
 * flight); its event is no longer acknowledged.
 *
 * Context: any; takes xbf_ring.lock.
 */
void xbf_ring_stop(struct xbf_ring *ring)
{
	unsigned long flags;

	spin_lock_irqsave(&ring->lock, flags);
	ring->broken = true;
	spin_unlock_irqrestore(&ring->lock, flags);
}

/**
 * xbf_ring_look() - take the responses a ring holds, without an event
 * @ring: the ring
 *
 * For a request that timed out: its answer may be there with its event
 * lost.
 *
 * Context: process context.
 */
void xbf_ring_look(struct xbf_ring *ring)
{
	xbf_ring_poll(ring, true);
}

/**
 * xbf_ring_oldest() - how many requests wait on a ring, and since when
 * @ring: the ring
 * @sent_ns: set to the oldest one's xbf_req.sent_ns if there is one
 *
 * Context: any; takes xbf_ring.lock.
 * Return: the number of requests in flight on @ring.
 */
unsigned int xbf_ring_oldest(struct xbf_ring *ring, u64 *sent_ns)
{
	unsigned int id, n = 0;
	unsigned long flags;

	spin_lock_irqsave(&ring->lock, flags);
	for (id = 0; id < ring->nr_ids; id++) {
		struct request *rq = ring->inflight[id];

		if (!rq)
			continue;
		if (!n++ || xbf_req(rq)->sent_ns < *sent_ns)
			*sent_ns = xbf_req(rq)->sent_ns;
	}
	spin_unlock_irqrestore(&ring->lock, flags);
	return n;
}

/**
 * xbf_ring_set_cpus() - where the ring's events are delivered
 * @ring: the ring, bound to its event channel
 * @mask: the CPUs of the hardware queue it serves
 *
 * Context: process context.
 */
void xbf_ring_set_cpus(struct xbf_ring *ring, const struct cpumask *mask)
{
	int err;

	if (ring->irq <= 0 || cpumask_empty(mask))
		return;
	err = irq_set_affinity(ring->irq, mask);
	if (err)
		dev_dbg(&ring->info->xbdev->dev, "%s: queue %u: irq affinity not set (%d)\n",
			ring->info->name, ring->index, err);
}

static void xbf_ring_free(struct xbf_ring *ring)
{
	struct xbf_info *info = ring->info;

	/* sysfs.c removed queue-N/ before: no reader of the counters is left. */
	if (ring->irq > 0) {
		unbind_from_irqhandler(ring->irq, ring);	/* closes evtchn */
		ring->irq = 0;
		ring->evtchn = 0;
	} else if (ring->evtchn) {
		xenbus_free_evtchn(info->xbdev, ring->evtchn);
		ring->evtchn = 0;
	}
	/* After the handler is gone: it is what starts the timer. */
	hrtimer_cancel(&ring->poll_timer);
	/* Before the pool goes: it is what the work grows. */
	cancel_work_sync(&ring->grow_work);
	if (ring->sring)
		xenbus_teardown_ring((void **)&ring->sring,
				     1U << info->neg.ring_order, ring->ring_refs);
	xbf_pool_destroy(&ring->data);
	xbf_pool_destroy(&ring->indirect);
	kfree(ring->inflight);
	ring->inflight = NULL;
}

static int xbf_ring_alloc(struct xbf_ring *ring, unsigned int order)
{
	struct xbf_info *info = ring->info;
	struct xenbus_device *dev = info->xbdev;
	unsigned int nr_pages = 1U << order;
	int err;

	spin_lock_init(&ring->lock);
	spin_lock_init(&ring->pool_lock);
	ring->data = (struct xbf_pool){};
	ring->indirect = (struct xbf_pool){};

	err = xenbus_setup_ring(dev, GFP_NOIO, (void **)&ring->sring, nr_pages,
				ring->ring_refs);
	if (err)
		return err;
	XEN_FRONT_RING_INIT(&ring->front, ring->sring, XEN_PAGE_SIZE * nr_pages);
	ring->nr_slots = RING_SIZE(&ring->front);
	/*
	 * A disk that outlived a restore keeps its tag set: ids must cover
	 * every tag of every hardware queue that will share this ring.
	 */
	ring->nr_ids = ring->nr_slots;
	if (info->gd)
		ring->nr_ids = DIV_ROUND_UP(info->tag_set.nr_hw_queues,
					    info->nr_rings) *
			       info->tag_set.queue_depth;
	ring->may_fill = ring->nr_ids > ring->nr_slots;

	ring->inflight = kcalloc(ring->nr_ids, sizeof(*ring->inflight),
				 GFP_KERNEL);
	if (!ring->inflight)
		return -ENOMEM;

	err = xenbus_alloc_evtchn(dev, &ring->evtchn);
	if (err)
		return err;

	snprintf(ring->irq_name, sizeof(ring->irq_name), "%s-q%u",
		 info->name, ring->index);
	err = bind_evtchn_to_irqhandler_lateeoi(ring->evtchn, xbf_interrupt, 0,
						ring->irq_name, ring);
	if (err < 0)
		return err;
	ring->irq = err;
	return 0;
}

/**
 * xbf_rings_alloc() - set up the shared rings and event channels
 * @info: the disk, its parameters taken
 * @nr: number of rings (hardware queues)
 * @order: log2 of pages per ring
 * @done: what each ring hands its answered requests to
 *
 * Context: process context, info->mutex held.
 * Return: 0 or a negative errno (nothing left allocated).
 */
int xbf_rings_alloc(struct xbf_info *info, unsigned int nr, unsigned int order,
		    xbf_done_fn done)
{
	unsigned int i;
	int err;

	lockdep_assert_held(&info->mutex);
	info->rings = kcalloc(nr, sizeof(*info->rings), GFP_KERNEL);
	if (!info->rings)
		return -ENOMEM;
	info->nr_rings = nr;
	info->neg.ring_order = order;

	/* xbf_rings_free() may look at rings whose allocation never began. */
	for (i = 0; i < nr; i++) {
		info->rings[i].info = info;
		info->rings[i].index = i;
		info->rings[i].done = done;
		info->rings[i].irq_batch = info->params.irq_batch;
		info->rings[i].irq_wait_ns = (u64)info->params.irq_wait_us *
					     NSEC_PER_USEC;
		xblk_coalesce_reset(&info->rings[i].rsp_co);
		hrtimer_setup(&info->rings[i].poll_timer, xbf_poll_timer,
			      CLOCK_MONOTONIC, HRTIMER_MODE_REL);
		INIT_WORK(&info->rings[i].grow_work, xbf_pool_grow);
	}
	for (i = 0; i < nr; i++) {
		err = xbf_ring_alloc(&info->rings[i], order);
		if (err) {
			xbf_fatal(info, err, "setting up ring %u", i);
			xbf_rings_free(info);
			return err;
		}
	}
	return 0;
}

/**
 * xbf_rings_free() - tear down every ring of a disk
 * @info: the disk; no request may be in flight on its rings
 *
 * Context: process context, info->mutex held.
 */
void xbf_rings_free(struct xbf_info *info)
{
	unsigned int i;

	lockdep_assert_held(&info->mutex);
	for (i = 0; i < info->nr_rings; i++)
		xbf_ring_free(&info->rings[i]);
	kfree(info->rings);
	info->rings = NULL;
	info->nr_rings = 0;
}

/**
 * xbf_ring_pools_alloc() - reserve the grants a ring's requests will use
 * @ring: the ring
 *
 * Called at connect time, when segments and persistence are negotiated.
 *
 * Context: process context, info->mutex held.
 * Return: 0 or a negative errno.
 */
int xbf_ring_pools_alloc(struct xbf_ring *ring)
{
	struct xbf_info *info = ring->info;
	const struct xblk_negotiated *neg = &info->neg;
	domid_t domid = info->xbdev->otherend_id;
	unsigned int frames = 0;
	int err;

	lockdep_assert_held(&info->mutex);
	err = xbf_pool_init(&ring->data, xbf_pool_size(neg),
			    xbf_pool_cap(neg, ring->nr_slots), xbf_copies(info),
			    domid, false);
	if (err)
		return err;
	ring->growing = false;
	ring->stats.data_grants = ring->data.nr;
	if (neg->indirect)
		frames = ring->nr_slots * xblk_indirect_frames(neg->segs);
	/* Backends map persistent grants read-write, frames included. */
	err = xbf_pool_init(&ring->indirect, frames, frames, true, domid,
			    !neg->persistent);
	if (err)
		xbf_pool_destroy(&ring->data);
	return err;
}

static int xbf_write_ring_keys(struct xbf_ring *ring,
			       struct xenbus_transaction xbt, const char *dir)
{
	unsigned int i, nr_pages = 1U << ring->info->neg.ring_order;
	char key[16];
	int err;

	if (nr_pages == 1) {
		err = xenbus_printf(xbt, dir, XBLK_KEY_RING_REF, "%u",
				    ring->ring_refs[0]);
		if (err)
			return err;
	} else {
		for (i = 0; i < nr_pages; i++) {
			snprintf(key, sizeof(key), XBLK_KEY_RING_REF "%u", i);
			err = xenbus_printf(xbt, dir, key, "%u",
					    ring->ring_refs[i]);
			if (err)
				return err;
		}
	}
	return xenbus_printf(xbt, dir, XBLK_KEY_EVTCHN, "%u", ring->evtchn);
}

/**
 * xbf_rings_write_keys() - publish the rings in our xenstore directory
 * @info: the disk
 * @xbt: the transaction to write in
 *
 * One ring uses the top-level keys; several go under queue-N/ with
 * multi-queue-num-queues, as blkif.h describes.  ring-page-order is
 * top-level and applies to every queue.
 *
 * Return: 0 or a negative errno.
 */
int xbf_rings_write_keys(struct xbf_info *info, struct xenbus_transaction xbt)
{
	const char *node = info->xbdev->nodename;
	unsigned int i;
	int err;

	if (info->neg.ring_order) {
		err = xenbus_printf(xbt, node, XBLK_KEY_RING_ORDER, "%u",
				    info->neg.ring_order);
		if (err)
			return err;
	}
	if (info->nr_rings == 1)
		return xbf_write_ring_keys(&info->rings[0], xbt, node);

	err = xenbus_printf(xbt, node, XBLK_KEY_NR_QUEUES, "%u", info->nr_rings);
	if (err)
		return err;
	for (i = 0; i < info->nr_rings; i++) {
		char *dir = kasprintf(GFP_KERNEL, "%s/queue-%u", node, i);

		if (!dir)
			return -ENOMEM;
		err = xbf_write_ring_keys(&info->rings[i], xbt, dir);
		kfree(dir);
		if (err)
			return err;
	}
	return 0;
}
