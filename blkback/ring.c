// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: one shared ring, its event channel and the thread that serves
 * it.
 *
 * The thread works in rounds.  Each round:
 *   1. reaps finished requests (one unmap batch, their responses);
 *   2. takes every request the frontend published, reading req_prod once
 *      and checking it with xblk_req_prod_sane(); each request is copied
 *      out of the ring once and only the copy is validated and used;
 *      refused requests are answered at once, the others dispatched
 *      together (io.c: batched maps, one blk_plug);
 *   3. reaps again, then pushes every response of the round with one
 *      RING_PUSH_RESPONSES_AND_CHECK_NOTIFY and at most one notification;
 *   4. when the ring is drained, req_event is re-armed and a request
 *      published meanwhile caught.  Under load req_event is set a batch
 *      ahead (coalescing, below), with a timer behind it.  With
 *      poll_inflight (off by default) it is not re-armed while requests
 *      are in flight: their completions wake the thread, which looks at
 *      the ring then (or after XBB_POLL_TIMEOUT); but a frontend that keeps
 *      a few requests going and sends each as one completes then waits for
 *      another's completion each time (half the rate at queue depth 2 on a
 *      1 ms disk, Documentation/bench.rst);
 *   5. sends the late EOI the event owed (the event channel is bound with
 *      the late-EOI variant: a frontend cannot make us spin by notifying,
 *      and a round that found nothing tells Xen the event was spurious).
 *
 * Out of the in-flight page budget the thread stops taking requests and
 * leaves them in the ring; completions wake it to try again.  A setup that
 * fails for now (no page for the grants, no memory for a large request's
 * segments, or Xen not mapping a grant now: grant_map.c) is retried after a
 * backoff: XBB_BACKOFF_MIN after a round that set some request up, doubling
 * up to XBB_BACKOFF_MAX while rounds set nothing up, none after a round
 * without failure.  A request not yet consumed stays in the ring; one
 * already consumed (its maps are batched after the pass took it) waits on
 * xbb_ring.retry, as the private copy it was validated from, and is set up
 * again before anything newer is taken.  Nothing that could be served
 * later is failed, until the ring stops: then what still waits is answered
 * with BLKIF_RSP_ERROR.
 *
 * A frontend whose req_prod runs ahead of what the ring can hold has broken
 * the protocol: the ring is halted (no request taken, no EOI, so no more
 * events) until the frontend reconnects.  Requests in flight still complete.
 */
#include <linux/kthread.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <xen/events.h>
#include <xen/xenbus.h>

#include "blkback.h"
#define CREATE_TRACE_POINTS
#include "trace.h"

/* Idle time after which the free page cache is emptied. */
#define XBB_IDLE_TIMEOUT	(5 * HZ)
/* Delay before the first retry of a setup that failed for now ... */
#define XBB_BACKOFF_MIN		msecs_to_jiffies(10)
/* ... doubled after each failure, up to this. */
#define XBB_BACKOFF_MAX		HZ
/* Longest wait for a completion before a deferred ring re-arms req_event. */
#define XBB_POLL_TIMEOUT	1
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

/* Publish the responses written so far; notify the frontend if it asked. */
static void xbb_ring_push(struct xbb_ring *ring)
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

/*
 * Fill a free slot from a validated request.  Return: 0, or -ENOMEM when
 * the segment array of a large indirect request cannot be allocated, not
 * even from vmalloc (the caller retries later).
 */
static int xbb_req_setup(struct xbb_req *xr, const struct blkif_request *req)
{
	unsigned int i, nseg = xblk_req_nr_segs(req);
	struct xbb_vbd *vbd = &xr->ring->be->vbd;

	xr->op = xblk_req_rsp_op(req);
	xr->id = xblk_req_id(req);
	xr->status = BLKIF_RSP_OKAY;
	xr->write = xblk_req_writes(req);
	xr->flush = req->operation == BLKIF_OP_FLUSH_DISKCACHE;
	xr->secure = false;
	xr->refused = false;
	xr->segs_ready = false;
	xr->nr_sectors = 0;
	xr->nr_segs = nseg;
	xr->nr_ind = 0;
	xr->segs = xr->inline_segs;
	xr->gnts = xr->inline_gnts;

	switch (req->operation) {
	case BLKIF_OP_DISCARD:
		xr->sector = req->u.discard.sector_number;
		xr->nr_sectors = req->u.discard.nr_sectors;
		/* blkif: the flag is ignored unless discard-secure was offered. */
		xr->secure = vbd->discard_secure &&
			     (req->u.discard.flag & BLKIF_DISCARD_SECURE);
		return 0;
	case BLKIF_OP_INDIRECT:
		xr->sector = req->u.indirect.sector_number;
		xr->nr_ind = xblk_indirect_frames(nseg);
		for (i = 0; i < xr->nr_ind; i++)
			xr->ind[i].gref = req->u.indirect.indirect_grefs[i];
		if (nseg > BLKIF_MAX_SEGMENTS_PER_REQUEST) {
			/*
			 * One allocation: segments, then their grants; up to
			 * 160 KiB, so not physically contiguous when dom0's
			 * memory is fragmented.
			 */
			xr->segs = kvmalloc(nseg * (sizeof(*xr->segs) +
						    sizeof(*xr->gnts)),
					    GFP_NOIO | __GFP_NOWARN);
			if (!xr->segs) {
				xr->segs = xr->inline_segs;
				return -ENOMEM;
			}
			xr->gnts = (struct xbb_gnt *)(xr->segs + nseg);
		}
		/* Segments and their grefs come from the indirect pages. */
		return 0;
	default:
		xr->sector = req->u.rw.sector_number;
		memcpy(xr->segs, req->u.rw.seg, nseg * sizeof(*xr->segs));
		for (i = 0; i < nseg; i++) {
			xr->gnts[i].gref = xr->segs[i].gref;
			xr->nr_sectors += xr->segs[i].last_sect -
					  xr->segs[i].first_sect + 1U;
		}
		return 0;
	}
}

/* Free what xbb_req_setup() allocated. */
static void xbb_req_teardown(struct xbb_req *xr)
{
	if (xr->segs != xr->inline_segs)
		kvfree(xr->segs);
	xr->segs = xr->inline_segs;
	xr->gnts = xr->inline_gnts;
}

/* What @req counts against the ring's page budget. */
static unsigned int xbb_req_pages(const struct xbb_ring *ring,
				  const struct blkif_request *req)
{
	unsigned int nseg = xblk_req_nr_segs(req);

	if (req->operation == BLKIF_OP_DISCARD)
		return min(XBB_DISCARD_PAGES, ring->max_pages);
	if (req->operation == BLKIF_OP_INDIRECT)
		return nseg + xblk_indirect_frames(nseg);
	return nseg;
}

/*
 * Take a free request slot and its share of the budget, and set it up from
 * @req.  A slot's whole life is this and xbb_slot_put(): only they move it
 * off and back on xbb_ring.free_reqs, and only they change
 * xbb_ring.inflight and xbb_ring.pages_reserved.  Grants are reserved by
 * the caller.  Return: the slot; ERR_PTR(-ENOSPC) when the page budget is
 * spent, ERR_PTR(-ENOMEM) when the setup failed for now.
 */
static struct xbb_req *xbb_slot_get(struct xbb_ring *ring,
				    const struct blkif_request *req)
{
	unsigned int pages = xbb_req_pages(ring, req);
	struct xbb_req *xr;

	xr = list_first_entry_or_null(&ring->free_reqs, struct xbb_req, node);
	/* One slot per ring slot, and req_prod was checked: never empty. */
	if (WARN_ON_ONCE(!xr))
		return ERR_PTR(-ENOSPC);
	if (ring->pages_reserved + pages > ring->max_pages)
		return ERR_PTR(-ENOSPC);
	if (xbb_req_setup(xr, req))
		return ERR_PTR(-ENOMEM);
	list_del_init(&xr->node);
	ring->inflight++;
	xr->pages = pages;
	ring->pages_reserved += pages;
	return xr;
}

/* Give a slot (holding no grant, on no list) and its budget back. */
static void xbb_slot_put(struct xbb_req *xr)
{
	struct xbb_ring *ring = xr->ring;

	ring->pages_reserved -= xr->pages;
	xr->pages = 0;
	xbb_req_teardown(xr);
	/* At the head: the slot just taken is the one taken next. */
	list_add(&xr->node, &ring->free_reqs);
	ring->inflight--;
}

/*
 * Take a slot, the page budget and the pages for @req.  Return: the slot,
 * or an ERR_PTR (xbb_slot_get(); -ENOMEM also for no page for the grants)
 * leaving @req in the ring.
 */
static struct xbb_req *xbb_ring_take(struct xbb_ring *ring,
				     const struct blkif_request *req)
{
	struct xbb_req *xr = xbb_slot_get(ring, req);

	if (IS_ERR(xr))
		return xr;
	if (xbb_gnt_reserve(ring, xr->ind, xr->nr_ind))
		goto out_put_slot;
	if (xbb_gnt_reserve(ring, xr->gnts, xr->nr_segs))
		goto out_release_ind;
	return xr;

out_release_ind:
	xbb_gnt_release(ring, xr->ind, xr->nr_ind);
out_put_slot:
	xbb_slot_put(xr);
	return ERR_PTR(-ENOMEM);
}

/*
 * Reserve the pages of the requests put off, in order, and move them to
 * @pass.  Return: false if one still has to wait (it and those after it
 * stay on xbb_ring.retry).
 */
static bool xbb_ring_retry(struct xbb_ring *ring, struct list_head *pass)
{
	struct xbb_req *xr, *tmp;

	list_for_each_entry_safe(xr, tmp, &ring->retry, node) {
		/* Indirect pages already read are not mapped (or read) again. */
		if (!xr->segs_ready &&
		    xbb_gnt_reserve(ring, xr->ind, xr->nr_ind))
			goto out_again;
		if (xbb_gnt_reserve(ring, xr->gnts, xr->nr_segs))
			goto out_release_ind;
		list_move_tail(&xr->node, pass);
	}
	return true;

out_release_ind:
	xbb_gnt_release(ring, xr->ind, xr->nr_ind);
out_again:
	xbb_stat_inc(&ring->stats.map_retry);
	return false;
}

/* Answer every request put off: the ring is stopping. */
static void xbb_ring_fail_retry(struct xbb_ring *ring)
{
	struct xbb_req *xr, *tmp;

	list_for_each_entry_safe(xr, tmp, &ring->retry, node) {
		list_del_init(&xr->node);
		xbb_req_finish(xr, BLKIF_RSP_ERROR);
	}
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

/*
 * Take the requests put off before, once their backoff is over.  Return:
 * false if one must still wait: nothing newer may be taken then.
 */
static bool xbb_ring_take_retry(struct xbb_ring *ring, struct list_head *pass,
				struct xbb_pass_count *cnt)
{
	if (list_empty(&ring->retry))
		return true;
	if (!xbb_ring_retry(ring, pass))
		ring->intake = XBB_INTAKE_BACKOFF;
	cnt->took = !list_empty(pass);
	return ring->intake != XBB_INTAKE_BACKOFF;
}

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
		xr = xbb_ring_take(ring, &req);
		if (IS_ERR(xr)) {
			ring->intake = PTR_ERR(xr) == -ENOSPC ?
				       XBB_INTAKE_FULL : XBB_INTAKE_BACKOFF;
			if (ring->intake == XBB_INTAKE_BACKOFF)
				xbb_stat_inc(&ring->stats.map_retry);
			xbb_stat_inc(&ring->stats.oo_req);
			break;
		}
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

/* After a pass that put @put_off of its @nr requests off: the next delay. */
static void xbb_ring_backoff(struct xbb_ring *ring, unsigned int nr,
			     unsigned int put_off)
{
	if (put_off)
		ring->intake = XBB_INTAKE_BACKOFF;
	if (ring->intake != XBB_INTAKE_BACKOFF) {
		ring->backoff = 0;
		return;
	}
	/* The delay grows only while nothing at all can be set up. */
	ring->backoff = xblk_backoff_next(nr > put_off ? 0 : ring->backoff,
					  XBB_BACKOFF_MIN, XBB_BACKOFF_MAX);
	ring->retry_at = jiffies + ring->backoff;
}

/*
 * One pass: take the requests put off (once their backoff is over), then
 * every request available; map and submit them (io.c).  *@taken: how many
 * came off the ring.  Return: whether any was taken (off the ring or the
 * retry list).
 */
static bool xbb_ring_consume(struct xbb_ring *ring, unsigned int *taken)
{
	struct xbb_pass_count cnt = {};
	unsigned int nr = 0, put_off = 0;
	struct xblk_req_limits lim;
	struct list_head *pos;
	LIST_HEAD(pass);
	RING_IDX rp;

	/* Backing off: nothing is set up, the intake stays as it is. */
	if (ring->intake == XBB_INTAKE_BACKOFF &&
	    time_before(jiffies, ring->retry_at))
		return false;
	ring->intake = XBB_INTAKE_OPEN;
	xbb_ring_limits(ring, &lim);
	if (xbb_ring_take_retry(ring, &pass, &cnt) &&
	    xbb_ring_req_prod(ring, &rp))
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
	xbb_ring_backoff(ring, nr, put_off);
	*taken = cnt.taken;
	return cnt.took;
}

/*
 * Answer every finished request (io.c released its grants) and free its
 * slot.  The responses are pushed at the end of the round.  Return: the
 * number answered.
 */
static unsigned int xbb_ring_reap(struct xbb_ring *ring)
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

/* Tell xenbus.c when the backing device changed size (ring 0 only). */
static void xbb_ring_check_size(struct xbb_ring *ring)
{
	struct xbb_dev *be = ring->be;

	if (ring->index == 0 && xbb_vbd_refresh_size(&be->vbd))
		schedule_work(&be->resize_work);
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

/*
 * Request coalescing (coalesce.h): under load the frontend is asked for its
 * next event only once co.batch more requests are published, so one event
 * carries a batch and the thread wakes once for it; evt_timer looks at the
 * ring when the batch is slow to come, after at most coalesce_usecs.
 */
static void xbb_ring_coalesce(struct xbb_ring *ring, RING_IDX unanswered,
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

/*
 * The ring is drained: ask for the next event, co.batch requests ahead.
 * Return: whether requests wait that no event will announce (take them).
 */
static bool xbb_ring_rearm(struct xbb_ring *ring)
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

static enum hrtimer_restart xbb_ring_timer(struct hrtimer *t)
{
	struct xbb_ring *ring = container_of(t, struct xbb_ring, evt_timer);

	set_bit(XBB_RING_TIMER, &ring->flags);
	wake_up(&ring->wq);
	return HRTIMER_NORESTART;
}

static void xbb_ring_round(struct xbb_ring *ring, bool timed_out)
{
	bool event = test_and_clear_bit(XBB_RING_EVENT, &ring->flags);
	bool timer = test_and_clear_bit(XBB_RING_TIMER, &ring->flags);
	RING_IDX unanswered;
	unsigned int reaped, taken;
	bool took;
	int more = 0;

	hrtimer_try_to_cancel(&ring->evt_timer);	/* this round re-arms */
	xbb_qos_ring_apply(ring);
	ring->next = XBB_NEXT_WAIT;
	xbb_ring_check_size(ring);
	xbb_ring_reap(ring);
	/* The frontend's requests not answered yet, this one's included. */
	unanswered = READ_ONCE(ring->br.native.sring->req_prod) -
		     ring->br.native.rsp_prod_pvt;
	took = xbb_ring_consume(ring, &taken);
	if (took && ring->idle_round && !event)
		xbb_warn_rl(ring->be, "ring %u: found requests published without an event",
			    ring->index);
	reaped = xbb_ring_reap(ring);
	xbb_ring_push(ring);
	xbb_ring_coalesce(ring, unanswered, taken, event, timer);

	if (ring->intake == XBB_INTAKE_FULL && reaped) {
		/*
		 * Completions reaped after the pass gave budget back: take
		 * what waits now.  No completion and no event would come for
		 * it (req_event is not re-armed while blocked): a well-behaved
		 * frontend on a fast disk waited 5 s per request in the lab.
		 */
		ring->next = XBB_NEXT_NOW;
	} else if (ring->intake == XBB_INTAKE_OPEN && !ring->halted) {
		if (ring->inflight && !timed_out && READ_ONCE(xbb_poll_inflight)) {
			more = RING_HAS_UNCONSUMED_REQUESTS(&ring->br.native);
			ring->next = more ? XBB_NEXT_NOW : XBB_NEXT_POLL;
		} else if (xbb_ring_rearm(ring)) {
			ring->next = XBB_NEXT_NOW;
		}
	}
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

static bool xbb_ring_has_work(struct xbb_ring *ring)
{
	return test_bit(XBB_RING_EVENT, &ring->flags) ||
	       test_bit(XBB_RING_TRIM, &ring->flags) ||
	       test_bit(XBB_RING_TIMER, &ring->flags) ||
	       ring->next == XBB_NEXT_NOW ||
	       !llist_empty(&ring->done) || kthread_should_stop();
}

/* Wait for every request in flight, answer it, then drop every grant. */
static void xbb_ring_drain(struct xbb_ring *ring)
{
	hrtimer_cancel(&ring->evt_timer);
	xbb_ring_fail_retry(ring);
	while (ring->inflight) {
		if (!wait_event_idle_timeout(ring->wq,
					     !llist_empty(&ring->done),
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
static void xbb_ring_idle_check(struct xbb_ring *ring)
{
	struct blkif_back_ring *br = &ring->br.native;
	RING_IDX rsp_prod = br->rsp_prod_pvt;
	RING_IDX rsp_event = READ_ONCE(br->sring->rsp_event);

	if (ring->halted)
		return;
	if (ring->inflight)
		xbb_warn_rl(ring->be, "ring %u: %u requests in flight for %u s",
			    ring->index, ring->inflight,
			    XBB_IDLE_TIMEOUT / HZ);
	/*
	 * The frontend asked to be told when rsp_prod passes rsp_event, and
	 * it has: it is waiting for a notification it did not get.
	 */
	if (rsp_prod == ring->rsp_pushed &&
	    (RING_IDX)(rsp_prod - rsp_event) < RING_SIZE(br)) {
		xbb_warn_rl(ring->be, "ring %u: frontend waits (rsp %u, event %u): notify again",
			    ring->index, rsp_prod, rsp_event);
		notify_remote_via_irq(ring->irq);
		xbb_stat_inc(&ring->stats.notify_out);
		trace_xblkback_respond(ring, 0, true);
	}
}

static int xbb_ring_thread(void *arg)
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
						xbb_ring_has_work(ring),
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
		xbb_ring_round(ring, polled);
		if (test_and_clear_bit(XBB_RING_TRIM, &ring->flags))
			xbb_gnt_trim(ring, 0);
		if (idle && ring->intake != XBB_INTAKE_BACKOFF) {
			ring->idle_round = false;
			xbb_ring_idle_check(ring);
			if (!ring->inflight)
				xbb_gnt_trim(ring, 0);
		}
	}
	xbb_ring_drain(ring);
	xbb_qos_ring_exit(ring);
	return 0;
}

/* What every connection starts a ring with, before anything is mapped. */
static void xbb_ring_init(struct xbb_ring *ring)
{
	struct xbb_dev *be = ring->be;

	init_waitqueue_head(&ring->wq);
	init_llist_head(&ring->done);
	INIT_LIST_HEAD(&ring->free_reqs);
	INIT_LIST_HEAD(&ring->retry);
	ring->backoff = 0;
	ring->irq_cpu = -1;
	ring->irq_moved = jiffies;
	xblk_coalesce_reset(&ring->co);
	hrtimer_setup(&ring->evt_timer, xbb_ring_timer, CLOCK_MONOTONIC,
		      HRTIMER_MODE_REL);
	ring->max_pgrants = be->persistent ? be->params.max_pgrants : 0;
	/* Always room for one largest request: 4096 segments + 8 pages. */
	ring->max_pages = max(be->params.max_inflight_pages,
			      be->params.max_indirect_segs +
			      BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST);
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

/* One request slot per ring slot, all free. */
static int xbb_ring_alloc_reqs(struct xbb_ring *ring)
{
	unsigned int i, nr = RING_SIZE(&ring->br.native);

	ring->reqs = kvcalloc(nr, sizeof(*ring->reqs), GFP_KERNEL);
	if (!ring->reqs)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		ring->reqs[i].ring = ring;
		ring->reqs[i].segs = ring->reqs[i].inline_segs;
		ring->reqs[i].gnts = ring->reqs[i].inline_gnts;
		list_add_tail(&ring->reqs[i].node, &ring->free_reqs);
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
	err = xbb_ring_alloc_reqs(ring);
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
	kvfree(ring->reqs);
	ring->reqs = NULL;
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
	kvfree(ring->reqs);
	ring->reqs = NULL;
	if (ring->sring) {
		xenbus_unmap_ring_vfree(ring->be->xdev, ring->sring);
		ring->sring = NULL;
	}
	xbb_gnt_exit(ring);
}

/**
 * xbb_ring_start() - start the thread serving a mapped ring
 * @ring: mapped ring
 *
 * Context: process context, under xbb_dev.lock.
 * Return: 0 or a negative errno.
 */
int xbb_ring_start(struct xbb_ring *ring)
{
	struct xbb_dev *be = ring->be;
	struct task_struct *t;

	lockdep_assert_held(&be->lock);
	if (xbb_fault_ring_start(ring->index))
		return -ENOMEM;
	/* Requests may be waiting already (a ring resumed after a rebind). */
	ring->next = XBB_NEXT_NOW;
	ring->life = XBB_THREAD_NEW;
	t = kthread_create(xbb_ring_thread, ring, "xbb.%u.%s.%u", be->domid,
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
 * xbb_ring_stop() - stop the ring thread once every request is answered
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
bool xbb_ring_stop(struct xbb_ring *ring)
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
