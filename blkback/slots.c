// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: the request slots of a ring, the page budget they take, and the
 * requests put off for a retry.
 *
 * A slot's life: xbb_slot_take() gives it its share of the page budget,
 * sets it up from the validated copy of a request and reserves pages for
 * its grants; io.c maps and submits it; io.c hands it back here when it is
 * finished (xbb_req_done(), any context) or put off (xbb_slots_retry_later());
 * ring.c answers it and xbb_slot_put() frees it.  Only xbb_slot_get() and
 * xbb_slot_put() move a slot off and back on xbb_ring.free_reqs, and only
 * they change xbb_ring.inflight and xbb_ring.pages_reserved.
 *
 * Out of the in-flight page budget the ring stops taking requests and
 * leaves them in the ring; completions wake its thread to try again.  A
 * setup that fails for now (no page for the grants, no memory for a large
 * request's segments, or Xen not mapping a grant now: grant_map.c) is
 * retried after a backoff: XBB_BACKOFF_MIN after a pass that set some
 * request up, doubling up to XBB_BACKOFF_MAX while passes set nothing up,
 * none after a pass without failure.  A request not yet consumed stays in
 * the ring; one already consumed (its maps are batched after the pass took
 * it) waits on xbb_ring.retry, as the private copy it was validated from,
 * and is set up again before anything newer is taken.  Nothing that could
 * be served later is failed, until the ring stops: then what still waits
 * is answered with BLKIF_RSP_ERROR.
 *
 * Everything here runs on the ring thread (or under xbb_dev.lock before it
 * starts and after it stopped), but for the done list: xbb_req_done() may
 * run in any context.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <linux/rcupdate.h>

#include "blkback.h"

/* Delay before the first retry of a setup that failed for now ... */
#define XBB_BACKOFF_MIN		msecs_to_jiffies(10)
/* ... doubled after each failure, up to this. */
#define XBB_BACKOFF_MAX		HZ

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

/**
 * xbb_slot_put() - give a slot and its budget back
 * @xr: request that holds no grant and is on no list
 *
 * Context: ring thread.
 */
void xbb_slot_put(struct xbb_req *xr)
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
static struct xbb_req *xbb_slot_reserve(struct xbb_ring *ring,
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

/**
 * xbb_slot_take() - take a slot, its budget and its pages for a new request
 * @ring: ring
 * @req: the validated private copy of a request still in the ring
 *
 * When there is no room the intake closes: XBB_INTAKE_FULL for a spent page
 * budget (completions reopen it), XBB_INTAKE_BACKOFF for a setup that failed
 * for now.
 *
 * Context: ring thread.
 * Return: the slot, set up, or an ERR_PTR: -ENOSPC (budget spent) or
 * -ENOMEM (failed for now); @req is then to be left in the ring.
 */
struct xbb_req *xbb_slot_take(struct xbb_ring *ring,
			      const struct blkif_request *req)
{
	struct xbb_req *xr = xbb_slot_reserve(ring, req);

	if (IS_ERR(xr)) {
		ring->intake = PTR_ERR(xr) == -ENOSPC ?
			       XBB_INTAKE_FULL : XBB_INTAKE_BACKOFF;
		if (ring->intake == XBB_INTAKE_BACKOFF)
			xbb_stat_inc(&ring->stats.map_retry);
		xbb_stat_inc(&ring->stats.oo_req);
	}
	return xr;
}

/*
 * Reserve the pages of the requests put off, in order, and move them to
 * @pass.  Return: false if one still has to wait (it and those after it
 * stay on xbb_ring.retry).
 */
static bool xbb_slots_reserve_retry(struct xbb_ring *ring,
				    struct list_head *pass)
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

/**
 * xbb_slots_open() - open the intake for a pass, unless backing off
 * @ring: ring
 *
 * Context: ring thread.
 * Return: false while the backoff lasts: nothing is to be set up, and the
 * intake stays as it is.
 */
bool xbb_slots_open(struct xbb_ring *ring)
{
	if (ring->intake == XBB_INTAKE_BACKOFF &&
	    time_before(jiffies, ring->retry_at))
		return false;
	ring->intake = XBB_INTAKE_OPEN;
	return true;
}

/**
 * xbb_slots_take_retry() - take the requests put off before
 * @ring: ring whose intake is open (xbb_slots_open())
 * @pass: the pass they are added to, in ring order, with their pages
 *
 * Context: ring thread.
 * Return: false if one must still wait (the ring backs off): nothing newer
 * may be taken then.
 */
bool xbb_slots_take_retry(struct xbb_ring *ring, struct list_head *pass)
{
	if (list_empty(&ring->retry))
		return true;
	if (!xbb_slots_reserve_retry(ring, pass))
		ring->intake = XBB_INTAKE_BACKOFF;
	return ring->intake != XBB_INTAKE_BACKOFF;
}

/**
 * xbb_slots_backoff() - set the next delay after a pass
 * @ring: ring
 * @nr: requests the pass set up and dispatched
 * @put_off: how many of them io.c put off
 *
 * Context: ring thread.
 */
void xbb_slots_backoff(struct xbb_ring *ring, unsigned int nr,
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

/**
 * xbb_slots_retry_later() - hand requests put off back, for a retry
 * @ring: ring
 * @again: requests of one pass whose grants could not be mapped for now, in
 *	ring order, holding no page and no mapping; emptied
 *
 * They go to the head of xbb_ring.retry, before the requests still waiting
 * there (those came later in the ring).
 *
 * Context: ring thread.
 */
void xbb_slots_retry_later(struct xbb_ring *ring, struct list_head *again)
{
	list_splice_init(again, &ring->retry);
}

/**
 * xbb_slots_fail_retry() - answer every request put off: the ring stops
 * @ring: ring
 *
 * Context: ring thread.
 */
void xbb_slots_fail_retry(struct xbb_ring *ring)
{
	struct xbb_req *xr, *tmp;

	list_for_each_entry_safe(xr, tmp, &ring->retry, node) {
		list_del_init(&xr->node);
		xbb_req_finish(xr, BLKIF_RSP_ERROR);
	}
}

/**
 * xbb_req_done() - hand a finished request back, to be answered
 * @xr: request with no bio in flight, its status set
 *
 * Queues @xr on the ring's lock-free done list and wakes the ring thread.
 *
 * Context: any.
 */
void xbb_req_done(struct xbb_req *xr)
{
	struct xbb_ring *ring = xr->ring;

	/*
	 * Once on the list the thread may reap @xr and, at teardown, the ring
	 * may go away: the RCU read section keeps it until wake_up() returns
	 * (teardown waits with synchronize_rcu()).
	 */
	rcu_read_lock();
	llist_add(&xr->done, &ring->done);
	wake_up(&ring->wq);
	rcu_read_unlock();
}

/**
 * xbb_req_finish() - a request is over, answer it with @status
 * @xr: request with no bio in flight
 * @status: BLKIF_RSP_*; OKAY keeps an error already recorded
 *
 * Context: any.
 */
void xbb_req_finish(struct xbb_req *xr, s16 status)
{
	if (status != BLKIF_RSP_OKAY)
		WRITE_ONCE(xr->status, status);
	xbb_req_done(xr);
}

/**
 * xbb_slots_take_done() - take every request handed back by xbb_req_done()
 * @ring: ring
 *
 * Context: ring thread.
 * Return: the requests, in completion order, linked by their @done node;
 * NULL if none.
 */
struct llist_node *xbb_slots_take_done(struct xbb_ring *ring)
{
	struct llist_node *list = llist_del_all(&ring->done);

	if (!list)
		return NULL;
	return llist_reverse_order(list);
}

/**
 * xbb_slots_done_pending() - whether finished requests wait to be answered
 * @ring: ring
 *
 * Context: any.
 * Return: true if xbb_slots_take_done() would take some.
 */
bool xbb_slots_done_pending(struct xbb_ring *ring)
{
	return !llist_empty(&ring->done);
}

/**
 * xbb_slots_init() - what every connection starts a ring's slots with
 * @ring: ring with @be set, nothing allocated yet
 *
 * Sets the page budget, which xbb_gnt_init() sizes the ring's spare pages by.
 *
 * Context: process context, under xbb_dev.lock.
 */
void xbb_slots_init(struct xbb_ring *ring)
{
	struct xbb_dev *be = ring->be;

	lockdep_assert_held(&be->lock);
	init_llist_head(&ring->done);
	INIT_LIST_HEAD(&ring->free_reqs);
	INIT_LIST_HEAD(&ring->retry);
	ring->backoff = 0;
	/* Always room for one largest request: 4096 segments + 8 pages. */
	ring->max_pages = max(be->params.max_inflight_pages,
			      be->params.max_indirect_segs +
			      BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST);
}

/**
 * xbb_slots_alloc() - one request slot per ring slot, all free
 * @ring: ring attached to its shared ring (its size is known)
 *
 * Context: process context, under xbb_dev.lock.
 * Return: 0 or -ENOMEM.
 */
int xbb_slots_alloc(struct xbb_ring *ring)
{
	unsigned int i, nr = RING_SIZE(&ring->br.native);

	lockdep_assert_held(&ring->be->lock);
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
 * xbb_slots_free() - undo xbb_slots_alloc()
 * @ring: ring with no request in flight
 *
 * Context: process context, under xbb_dev.lock.
 */
void xbb_slots_free(struct xbb_ring *ring)
{
	lockdep_assert_held(&ring->be->lock);
	kvfree(ring->reqs);
	ring->reqs = NULL;
}
