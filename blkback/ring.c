// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: one shared ring and its event channel.
 *
 * ring.c alone reads and writes the shared ring: it maps it and attaches
 * at the frontend's indexes, takes requests (req_cons: req_prod read once
 * per pass and checked with xblk_req_prod_sane(), each request copied out
 * of the ring once and only the copy validated and used), writes and pushes
 * responses (rsp_prod_pvt), and owns the event channel (bound with the
 * late-EOI variant: a frontend cannot make us spin by notifying, and a
 * round that found nothing tells Xen the event was spurious).  The req_event
 * rule is coalesce.c's.
 *
 * One pass (xbb_ring_consume()) takes the requests put off before, then
 * every request published: refused ones are answered at once, the others
 * get a slot (slots.c) and are dispatched together (io.c: batched maps, one
 * blk_plug).  xbb_ring_reap() answers what io.c reaped and frees the slots.
 *
 * A frontend whose req_prod runs ahead of what the ring can hold has broken
 * the protocol: the ring is halted (no request taken, no EOI, so no more
 * events) until the frontend reconnects.  Requests in flight still complete.
 */
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <xen/events.h>
#include <xen/xenbus.h>

#include "blkback.h"
#define CREATE_TRACE_POINTS
#include "trace.h"

/* Grant operations per hypercall batch. */
#define XBB_BATCH		512

/*
 * What the requests of one pass are checked against: read once per pass
 * (the capacity may change on resize) and handed to io.c with the pass.
 */
static void xbb_ring_limits(struct xbb_ring *ring, struct xblk_req_limits *lim)
{
	struct xbb_dev *be = ring->be;

	lim->sectors = READ_ONCE(be->vbd.sectors);
	lim->logical_block_size = be->vbd.lbs;
	lim->max_indirect_segs = be->params.max_indirect_segs;
	lim->read_only = be->vbd.read_only;
	lim->flush = be->vbd.flush;
	lim->discard = be->discard;
}

static irqreturn_t xbb_ring_interrupt(int irq, void *dev_id)
{
	struct xbb_ring *ring = dev_id;

	xbb_stat_inc(&ring->stats.notify_in);
	set_bit(XBB_RING_EVENT, &ring->flags);
	wake_up(&ring->wq);
	return IRQ_HANDLED;
}

/* Copy request @idx out of the shared ring, once, into native layout. */
static void xbb_ring_copy_req(struct xbb_ring *ring, RING_IDX idx,
			      struct blkif_request *req)
{
	switch (ring->be->abi) {
	case XBLK_ABI_X86_32: {
		struct xblk_x86_32_request r;

		RING_COPY_REQUEST(&ring->br.x86_32, idx, &r);
		xblk_req_from_x86_32(&r, req);
		break;
	}
	case XBLK_ABI_X86_64: {
		struct xblk_x86_64_request r;

		RING_COPY_REQUEST(&ring->br.x86_64, idx, &r);
		xblk_req_from_x86_64(&r, req);
		break;
	}
	default:
		RING_COPY_REQUEST(&ring->br.native, idx, req);
		break;
	}
}

/**
 * xbb_ring_respond() - write a response (pushed at the end of the round)
 * @ring: ring
 * @id: the request's id
 * @op: the request's operation
 * @status: BLKIF_RSP_*
 *
 * Context: ring thread.
 */
void xbb_ring_respond(struct xbb_ring *ring, u64 id, u8 op, s16 status)
{
	RING_IDX idx = ring->br.native.rsp_prod_pvt;
	struct blkif_response *rsp;

	switch (ring->be->abi) {
	case XBLK_ABI_X86_32:
		rsp = RING_GET_RESPONSE(&ring->br.x86_32, idx);
		break;
	case XBLK_ABI_X86_64:
		rsp = RING_GET_RESPONSE(&ring->br.x86_64, idx);
		break;
	default:
		rsp = RING_GET_RESPONSE(&ring->br.native, idx);
		break;
	}
	rsp->id = id;
	rsp->operation = op;
	rsp->status = status;
	ring->br.native.rsp_prod_pvt = idx + 1;
}

/**
 * xbb_ring_push() - publish the responses written so far
 * @ring: ring
 *
 * One push for all of them, and a notification only if the frontend asked
 * for one (rsp_event).
 *
 * Context: ring thread.
 */
void xbb_ring_push(struct xbb_ring *ring)
{
	unsigned int batch = ring->br.native.rsp_prod_pvt - ring->rsp_pushed;
	int notify;

	if (!batch)
		return;
	ring->rsp_pushed = ring->br.native.rsp_prod_pvt;
	RING_PUSH_RESPONSES_AND_CHECK_NOTIFY(&ring->br.native, notify);
	if (notify) {
		notify_remote_via_irq(ring->irq);
		xbb_stat_inc(&ring->stats.notify_out);
	}
	trace_xblkback_respond(ring, batch, notify);
}

static void xbb_ring_reject(struct xbb_ring *ring,
			    const struct blkif_request *req,
			    enum xblk_req_err err)
{
	xbb_stat_inc(&ring->stats.err_req);
	xbb_warn_rl(ring->be, "ring %u: refused request id %llu (op %u, %u segments): %s",
		    ring->index, xblk_req_id(req), req->operation,
		    xblk_req_nr_segs(req), xblk_req_err_str(err));
	xbb_ring_respond(ring, xblk_req_id(req), xblk_req_rsp_op(req),
			 xblk_req_err_status(err));
}

static void xbb_ring_halt(struct xbb_ring *ring, RING_IDX rp)
{
	struct blkif_back_ring *br = &ring->br.native;

	ring->halted = true;
	xbb_warn_state(ring->be,
		       "ring %u stopped: req_prod %u runs ahead (cons %u, rsp %u, size %u)",
		       ring->index, rp, br->req_cons, br->rsp_prod_pvt,
		       RING_SIZE(br));
}

/* What one pass took, for its trace point and its backoff. */
struct xbb_pass_count {
	unsigned int taken;	/* off the ring, refused ones included */
	unsigned int rejected;	/* refused by xblk_req_check() */
	bool took;		/* anything, off the ring or off the retry list */
};

/* Copy, check and take the requests published up to @rp, in order. */
static void xbb_ring_take_new(struct xbb_ring *ring, RING_IDX rp,
			      const struct xblk_req_limits *lim,
			      struct list_head *pass,
			      struct xbb_pass_count *cnt)
{
	struct blkif_back_ring *br = &ring->br.native;
	RING_IDX rc = br->req_cons;

	while (rc != rp) {
		struct blkif_request req;
		enum xblk_req_err err;
		struct xbb_req *xr;

		xbb_ring_copy_req(ring, rc, &req);
		err = xblk_req_check(&req, lim);
		if (err) {
			br->req_cons = ++rc;
			xbb_ring_reject(ring, &req, err);
			cnt->taken++;
			cnt->rejected++;
			cnt->took = true;
			continue;
		}
		xr = xbb_slot_take(ring, &req);
		if (IS_ERR(xr))
			break;	/* the intake is closed (slots.c) */
		br->req_cons = ++rc;
		list_add_tail(&xr->node, pass);
		cnt->taken++;
		cnt->took = true;
	}
}

/*
 * Read req_prod once and check it.  Return: false if the frontend broke
 * the protocol (the ring is halted) or it was halted before.
 */
static bool xbb_ring_req_prod(struct xbb_ring *ring, RING_IDX *rp)
{
	struct blkif_back_ring *br = &ring->br.native;

	if (ring->halted)
		return false;
	*rp = READ_ONCE(br->sring->req_prod);
	virt_rmb(); /* see the requests up to rp */
	if (!xblk_req_prod_sane(*rp, br->req_cons, br->rsp_prod_pvt,
				RING_SIZE(br))) {
		xbb_ring_halt(ring, *rp);
		return false;
	}
	return true;
}

/**
 * xbb_ring_consume() - one pass: take requests and dispatch them
 * @ring: ring
 * @taken: set to how many came off the ring, refused ones included
 *
 * Takes the requests put off before (once their backoff is over), then
 * every request available; io.c maps and submits them; slots.c sets the
 * next backoff.
 *
 * Context: ring thread.
 * Return: whether any was taken (off the ring or the retry list).
 */
bool xbb_ring_consume(struct xbb_ring *ring, unsigned int *taken)
{
	struct xbb_pass_count cnt = {};
	unsigned int nr = 0, put_off = 0;
	struct xblk_req_limits lim;
	struct list_head *pos;
	bool retried;
	LIST_HEAD(pass);
	RING_IDX rp;

	/* Backing off: nothing is set up, the intake stays as it is. */
	if (!xbb_slots_open(ring))
		return false;
	xbb_ring_limits(ring, &lim);
	retried = xbb_slots_take_retry(ring, &pass);
	cnt.took = !list_empty(&pass);
	if (retried && xbb_ring_req_prod(ring, &rp))
		xbb_ring_take_new(ring, rp, &lim, &pass, &cnt);

	list_for_each(pos, &pass)
		nr++;
	if (nr)
		put_off = xbb_io_dispatch(ring, &pass, &lim);
	if (cnt.took) {
		xbb_stat_inc(&ring->stats.passes);
		/* The pass: requests off the ring, then those put off before. */
		trace_xblkback_consume(ring, cnt.taken, cnt.rejected,
				       nr - (cnt.taken - cnt.rejected));
	}
	xbb_slots_backoff(ring, nr, put_off);
	*taken = cnt.taken;
	return cnt.took;
}

/**
 * xbb_ring_reap() - answer every finished request and free its slot
 * @ring: ring
 *
 * io.c releases their grants first (one unmap batch).  The responses are
 * pushed at the end of the round (xbb_ring_push()).
 *
 * Context: ring thread.
 * Return: the number answered.
 */
unsigned int xbb_ring_reap(struct xbb_ring *ring)
{
	struct xbb_req *xr, *tmp;
	unsigned int n;
	LIST_HEAD(done);

	n = xbb_io_reap(ring, &done);
	list_for_each_entry_safe(xr, tmp, &done, node) {
		s16 status = READ_ONCE(xr->status);

		list_del_init(&xr->node);
		if (status != BLKIF_RSP_OKAY && !xr->refused)
			xbb_stat_inc(&ring->stats.io_err);
		xbb_ring_respond(ring, xr->id, xr->op, status);
		xbb_slot_put(xr);
	}
	return n;
}

/**
 * xbb_ring_unanswered() - requests the frontend has not been answered yet
 * @ring: ring
 *
 * req_prod as the frontend wrote it, unchecked: xbb_coalesce_pass() bounds
 * it.
 *
 * Context: ring thread.
 * Return: req_prod - rsp_prod_pvt.
 */
RING_IDX xbb_ring_unanswered(struct xbb_ring *ring)
{
	return READ_ONCE(ring->br.native.sring->req_prod) -
	       ring->br.native.rsp_prod_pvt;
}

/**
 * xbb_ring_unconsumed() - whether requests wait in the ring
 * @ring: ring
 *
 * Context: ring thread.
 * Return: true if the frontend published requests not taken yet.
 */
bool xbb_ring_unconsumed(struct xbb_ring *ring)
{
	return RING_HAS_UNCONSUMED_REQUESTS(&ring->br.native);
}

/*
 * Let the event channel follow the thread: an event delivered to another
 * CPU than the one the thread runs on costs a wake-up there and an IPI
 * back.  At most once a second: rebinding is a hypercall, and a thread
 * that the scheduler moves around must not take one per round.
 */
static void xbb_ring_follow(struct xbb_ring *ring)
{
	int cpu = raw_smp_processor_id();

	if (!READ_ONCE(xbb_irq_follow) || cpu == ring->irq_cpu ||
	    time_before(jiffies, ring->irq_moved))
		return;
	ring->irq_moved = jiffies + HZ;
	if (!irq_set_affinity(ring->irq, cpumask_of(cpu)))
		ring->irq_cpu = cpu;
}

/**
 * xbb_ring_eoi() - at the end of a round, the late EOI an event owed
 * @ring: ring
 * @event: the round was woken by an event
 * @took: the round took requests (off the ring or the retry list)
 *
 * Then lets the event channel follow the thread (irq_follow).
 *
 * Context: ring thread.
 */
void xbb_ring_eoi(struct xbb_ring *ring, bool event, bool took)
{
	/*
	 * An event is spurious only if no request came since the last EOI: a
	 * round woken by a completion often takes the requests whose event is
	 * handled in the next round.  A round that is blocked (budget spent,
	 * or backing off) and takes nothing makes it spurious too: the
	 * completion or the backoff timer wakes the thread to take what
	 * waits, so the event bought nothing, and a guest that keeps the
	 * budget spent and notifies in a loop must be throttled like any
	 * other (spurious EOIs make Linux delay the event channel: by a
	 * jiffy per event in a steady storm).  A halted ring owes nothing:
	 * its event channel stays masked.
	 */
	ring->took_since_eoi |= took;
	if (event && !ring->halted) {
		xen_irq_lateeoi(ring->irq, ring->took_since_eoi ? 0 :
				XEN_EOI_FLAG_SPURIOUS);
		ring->took_since_eoi = false;
		xbb_ring_follow(ring);
	}
}

/**
 * xbb_ring_renotify() - notify a frontend that waits for a lost event
 * @ring: ring idle for a while, not halted
 *
 * The frontend asked to be told when rsp_prod passes rsp_event, and it has:
 * it is waiting for a notification it did not get.
 *
 * Context: ring thread.
 */
void xbb_ring_renotify(struct xbb_ring *ring)
{
	struct blkif_back_ring *br = &ring->br.native;
	RING_IDX rsp_prod = br->rsp_prod_pvt;
	RING_IDX rsp_event = READ_ONCE(br->sring->rsp_event);

	if (rsp_prod == ring->rsp_pushed &&
	    (RING_IDX)(rsp_prod - rsp_event) < RING_SIZE(br)) {
		xbb_warn_rl(ring->be, "ring %u: frontend waits (rsp %u, event %u): notify again",
			    ring->index, rsp_prod, rsp_event);
		notify_remote_via_irq(ring->irq);
		xbb_stat_inc(&ring->stats.notify_out);
		trace_xblkback_respond(ring, 0, true);
	}
}

/* What every connection starts a ring with, before anything is mapped. */
static void xbb_ring_init(struct xbb_ring *ring)
{
	init_waitqueue_head(&ring->wq);
	xbb_slots_init(ring);
	ring->irq_cpu = -1;
	ring->irq_moved = jiffies;
	xbb_coalesce_init(ring);
	ring->max_pgrants = ring->be->persistent ?
			    ring->be->params.max_pgrants : 0;
}

/*
 * Attach to the mapped shared ring in the frontend's layout, at its
 * current indexes, which must be sane: a frontend chose them.
 */
static int xbb_ring_attach(struct xbb_ring *ring, unsigned int order)
{
	struct xbb_dev *be = ring->be;
	unsigned int size = XEN_PAGE_SIZE << order;
	struct blkif_sring *sring = ring->sring;
	RING_IDX req_prod, rsp_prod;

	rsp_prod = READ_ONCE(sring->rsp_prod);
	req_prod = READ_ONCE(sring->req_prod);

	switch (be->abi) {
	case XBLK_ABI_X86_32:
		BACK_RING_ATTACH(&ring->br.x86_32,
				 (struct xbb_x86_32_sring *)ring->sring,
				 rsp_prod, size);
		break;
	case XBLK_ABI_X86_64:
		BACK_RING_ATTACH(&ring->br.x86_64,
				 (struct xbb_x86_64_sring *)ring->sring,
				 rsp_prod, size);
		break;
	default:
		BACK_RING_ATTACH(&ring->br.native, sring, rsp_prod, size);
		break;
	}
	ring->rsp_pushed = rsp_prod;
	if (!xblk_req_prod_sane(req_prod, rsp_prod, rsp_prod,
				RING_SIZE(&ring->br.native))) {
		xbb_warn_state(be, "ring %u: bad indexes (req_prod %u, rsp_prod %u)",
			       ring->index, req_prod, rsp_prod);
		return -EIO;
	}
	return 0;
}

/**
 * xbb_ring_map() - map a frontend's ring and bind its event channel
 * @ring: ring with @be and @index set, otherwise zeroed
 * @grefs: grant references of the ring pages (1 << @order of them)
 * @order: log2 of the number of pages, within what we advertised
 * @evtchn: the frontend's event channel
 *
 * Attaches at the ring's current indexes, so a ring that a previous backend
 * left with answered requests is picked up where it stopped.
 *
 * Context: process context, under xbb_dev.lock.
 * Return: 0 or a negative errno (already reported for mapping failures).
 */
int xbb_ring_map(struct xbb_ring *ring, const grant_ref_t *grefs,
		 unsigned int order, evtchn_port_t evtchn)
{
	struct xbb_dev *be = ring->be;
	grant_ref_t refs[1U << XBLK_MAX_RING_ORDER];
	int err;

	lockdep_assert_held(&be->lock);
	xbb_ring_init(ring);

	err = xbb_gnt_init(ring, XBB_BATCH);
	if (err)
		return err;

	memcpy(refs, grefs, sizeof(*grefs) << order);
	err = xenbus_map_ring_valloc(be->xdev, refs, 1U << order,
				     &ring->sring);
	if (err)
		goto out_gnt;
	err = xbb_ring_attach(ring, order);
	if (err)
		goto out_unmap;
	err = xbb_slots_alloc(ring);
	if (err)
		goto out_unmap;

	err = bind_interdomain_evtchn_to_irqhandler_lateeoi(be->xdev, evtchn,
							    xbb_ring_interrupt,
							    0, "xblkback",
							    ring);
	if (err < 0)
		goto out_free_reqs;
	ring->irq = err;
	return 0;

out_free_reqs:
	xbb_slots_free(ring);
out_unmap:
	xenbus_unmap_ring_vfree(be->xdev, ring->sring);
	ring->sring = NULL;
out_gnt:
	xbb_gnt_exit(ring);
	return err;
}

/**
 * xbb_ring_unmap() - undo xbb_ring_map()
 * @ring: ring whose thread is stopped (or never started)
 *
 * Context: process context, under xbb_dev.lock.
 */
void xbb_ring_unmap(struct xbb_ring *ring)
{
	lockdep_assert_held(&ring->be->lock);
	if (WARN_ON_ONCE(ring->task || ring->inflight))
		return;
	if (ring->irq) {
		unbind_from_irqhandler(ring->irq, ring);
		ring->irq = 0;
	}
	/* Idempotent: the thread did it unless it never ran. */
	xbb_gnt_free_all(ring);
	xbb_slots_free(ring);
	if (ring->sring) {
		xenbus_unmap_ring_vfree(ring->be->xdev, ring->sring);
		ring->sring = NULL;
	}
	xbb_gnt_exit(ring);
}
