// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: block requests to blkif requests, and back.
 *
 * Nothing here touches the shared ring or blk-mq state: xbf_prep() takes
 * a request's grants (grant.c) and fills a private struct blkif_request
 * that ring.c copies onto the ring under the ring lock (xbf_ring_submit()),
 * and xbf_finish_list() releases what answered requests held, once ring.c
 * has validated their responses and before mq.c ends them.  A rerun of the
 * queue this makes necessary is returned to the caller, never done here.
 */
#include <linux/blk-mq.h>
#include <linux/highmem.h>
#include <xen/page.h>

#include "blkfront.h"

/* One data segment: bytes of one page, contiguous. */
struct xbf_seg {
	struct page *page;
	unsigned int off;
	unsigned int len;
};

/* Where the segments of the request being built go. */
struct xbf_build {
	struct xbf_req *req;
	struct blkif_request_segment *direct;	/* NULL: indirect frames */
	domid_t domid;
	bool write;
	bool persistent;
};

/*
 * Pieces of a request that are contiguous in one page form one segment.
 * The queue limits (segment size = page, page boundary) make this count
 * equal to the request's physical segments, bounded by neg.segs.
 */
static bool xbf_seg_extends(const struct xbf_seg *seg, const struct bio_vec *bv)
{
	return seg->page == bv->bv_page && seg->off + seg->len == bv->bv_offset;
}

static int xbf_emit_seg(struct xbf_build *b, unsigned int i,
			const struct xbf_seg *seg)
{
	struct xbf_req *req = b->req;
	struct xbf_gnt *g = req->gnt[i];
	struct blkif_request_segment *s;
	u8 first, last;

	if (WARN_ON_ONCE(xblk_seg_sectors(seg->off, seg->len, &first, &last)))
		return -EIO;

	/* A read into our pages is copied out to here on completion. */
	g->lent = seg->page;
	g->off = seg->off;
	g->len = seg->len;
	if (!b->persistent)
		gnttab_page_grant_foreign_access_ref_one(g->ref, b->domid,
							 seg->page, b->write);
	/* Counted as soon as granted, so a failure later still revokes it. */
	req->nr_segs = i + 1;

	if (b->direct) {
		s = &b->direct[i];
	} else {
		struct xbf_gnt *frame =
			req->gnt[req->nr_data + i / XBLK_SEGS_PER_INDIRECT_FRAME];

		s = (struct blkif_request_segment *)page_address(frame->page) +
		    i % XBLK_SEGS_PER_INDIRECT_FRAME;
	}
	s->gref = g->ref;
	s->first_sect = first;
	s->last_sect = last;
	return 0;
}

static int xbf_build_rw(struct xbf_ring *ring, struct request *rq,
			struct blkif_request *breq)
{
	struct xbf_info *info = ring->info;
	struct xbf_req *req = xbf_req(rq);
	bool indirect = req->nr_indirect > 0;
	struct xbf_build b = {
		.req = req,
		.direct = indirect ? NULL : breq->u.rw.seg,
		.domid = info->xbdev->otherend_id,
		.write = rq_data_dir(rq) == WRITE,
		.persistent = xbf_copies(info),
	};
	struct xbf_seg seg = {};
	struct req_iterator iter;
	struct bio_vec bv;
	unsigned int n = 0, i;

	rq_for_each_segment(bv, rq, iter) {
		if (n && xbf_seg_extends(&seg, &bv)) {
			seg.len += bv.bv_len;
		} else {
			if (n && xbf_emit_seg(&b, n - 1, &seg))
				return -EIO;
			if (WARN_ON_ONCE(n == req->nr_data))
				return -EIO;
			seg = (struct xbf_seg){ bv.bv_page, bv.bv_offset, bv.bv_len };
			n++;
		}
		/* Persistent grants carry our pages: copy the data in. */
		if (b.persistent && b.write)
			memcpy_from_bvec(page_address(req->gnt[n - 1]->page) +
					 bv.bv_offset, &bv);
	}
	if (n && xbf_emit_seg(&b, n - 1, &seg))
		return -EIO;

	if (indirect) {
		breq->operation = BLKIF_OP_INDIRECT;
		breq->u.indirect.indirect_op = b.write ? BLKIF_OP_WRITE :
							 BLKIF_OP_READ;
		breq->u.indirect.nr_segments = n;
		breq->u.indirect.sector_number = blk_rq_pos(rq);
		breq->u.indirect.handle = info->handle;
		for (i = 0; i < req->nr_indirect; i++)
			breq->u.indirect.indirect_grefs[i] =
				req->gnt[req->nr_data + i]->ref;
	} else {
		breq->operation = b.write ? BLKIF_OP_WRITE : BLKIF_OP_READ;
		breq->u.rw.nr_segments = n;
		breq->u.rw.handle = info->handle;
		breq->u.rw.sector_number = blk_rq_pos(rq);
	}
	return 0;
}

/**
 * xbf_data_grants() - data grants a request needs
 * @info: the disk
 * @rq: the request
 *
 * Return: the number of data segments; 0 for requests without data.
 */
static unsigned int xbf_data_grants(const struct xbf_info *info,
				    struct request *rq)
{
	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		return blk_rq_nr_phys_segments(rq);
	default:
		return 0;
	}
}

/**
 * xbf_build() - translate a block request into a private blkif request
 * @ring: the ring it will go on
 * @rq: the request, holding the grants it needs (xbf_grants_get())
 * @breq: the blkif request to fill (id is set by the caller)
 *
 * Return: BLK_STS_OK, BLK_STS_NOTSUPP for an operation the backend did not
 * offer, or BLK_STS_IOERR if the request breaks the queue limits.
 */
static blk_status_t xbf_build(struct xbf_ring *ring, struct request *rq,
			      struct blkif_request *breq)
{
	struct xbf_info *info = ring->info;
	struct xbf_req *req = xbf_req(rq);

	req->nr_segs = 0;
	switch (req_op(rq)) {
	case REQ_OP_READ:
	case REQ_OP_WRITE:
		if (xbf_build_rw(ring, rq, breq))
			return BLK_STS_IOERR;
		break;
	case REQ_OP_FLUSH:
		if (!info->flush_op)
			return BLK_STS_NOTSUPP;
		breq->operation = info->flush_op;
		breq->u.rw.nr_segments = 0;
		breq->u.rw.handle = info->handle;
		breq->u.rw.sector_number = 0;
		break;
	case REQ_OP_SECURE_ERASE:
	case REQ_OP_DISCARD:
		if (!info->be.discard)
			return BLK_STS_NOTSUPP;
		breq->operation = BLKIF_OP_DISCARD;
		breq->u.discard.flag = req_op(rq) == REQ_OP_SECURE_ERASE ?
				       BLKIF_DISCARD_SECURE : 0;
		breq->u.discard.sector_number = blk_rq_pos(rq);
		breq->u.discard.nr_sectors = blk_rq_sectors(rq);
		break;
	default:
		return BLK_STS_NOTSUPP;
	}
	/* Backends answer an indirect request with its inner operation. */
	req->op = breq->operation == BLKIF_OP_INDIRECT ?
		  breq->u.indirect.indirect_op : breq->operation;
	return BLK_STS_OK;
}

/**
 * xbf_prep() - take grants and build the private ring request
 * @ring: the ring it will go on
 * @rq: the request
 * @breq: the blkif request to fill (id is set by xbf_ring_submit())
 *
 * Context: any; no ring lock held (takes xbf_ring.pool_lock).
 * Return: BLK_STS_OK; BLK_STS_RESOURCE when the ring's grants are spent;
 * otherwise the request failed, with what it held released.
 */
blk_status_t xbf_prep(struct xbf_ring *ring, struct request *rq,
		      struct blkif_request *breq)
{
	struct xbf_info *info = ring->info;
	unsigned int nr_data, nr_ind = 0;
	blk_status_t sts;

	if (unlikely(READ_ONCE(info->state) != XBF_CONNECTED))
		return BLK_STS_IOERR;

	nr_data = xbf_data_grants(info, rq);
	if (WARN_ON_ONCE(nr_data > info->neg.segs))
		return BLK_STS_IOERR;
	if (nr_data > BLKIF_MAX_SEGMENTS_PER_REQUEST)
		nr_ind = xblk_indirect_frames(nr_data);
	/*
	 * BLK_STS_RESOURCE, not _DEV_RESOURCE: batched completions
	 * (blk_mq_end_request_batch) skip blk-mq's SCHED_RESTART handling,
	 * so a request turned away just as the last one completed could be
	 * stranded (seen in the lab).  With _RESOURCE blk-mq also reruns the
	 * queue after a short delay; the completion path reruns it at once.
	 */
	if (!xbf_grants_get(ring, xbf_req(rq), nr_data, nr_ind))
		return BLK_STS_RESOURCE;

	sts = xbf_build(ring, rq, breq);
	if (sts != BLK_STS_OK)
		xbf_finish(ring, rq, BLKIF_RSP_ERROR);
	return sts;
}

/*
 * Copy read data from our (persistent or bounce) pages into the request,
 * a segment at a time as xbf_emit_seg() recorded them: no walk of the bios.
 */
static void xbf_copy_back(struct xbf_req *req)
{
	unsigned int i;

	for (i = 0; i < req->nr_segs; i++) {
		struct xbf_gnt *g = req->gnt[i];

		memcpy_to_page(g->lent, g->off,
			       page_address(g->page) + g->off, g->len);
		g->lent = NULL;
	}
}

/*
 * Revoke the transient grants of @req's pages.  One the backend still maps
 * cannot be revoked: its page is pinned (gnttab_end_foreign_access() lets
 * it go once the backend does) and never lent again.  Return: whether one
 * was still mapped.
 */
static bool xbf_revoke_lent(struct xbf_req *req)
{
	bool mapped = false;
	unsigned int i;

	for (i = 0; i < req->nr_segs; i++) {
		struct xbf_gnt *g = req->gnt[i];

		if (!gnttab_end_foreign_access_ref(g->ref)) {
			get_page(g->lent);
			gnttab_end_foreign_access(g->ref, g->lent);
			g->ref = INVALID_GRANT_REF;
			mapped = true;
		}
		g->lent = NULL;
	}
	return mapped;
}

/*
 * Release what @rq lent the backend and set its block status from the
 * response: transient grants are revoked, read data copied out of our
 * pages.  Its grants themselves go back to the pools after this.
 */
static void xbf_release(struct xbf_ring *ring, struct request *rq, s16 status)
{
	struct xbf_info *info = ring->info;
	struct xbf_req *req = xbf_req(rq);

	if (!xbf_copies(info)) {
		if (xbf_revoke_lent(req)) {
			status = BLKIF_RSP_ERROR;
			xbf_fail(info, "backend still maps a completed request's page");
		}
	} else if (status == BLKIF_RSP_OKAY && req_op(rq) == REQ_OP_READ) {
		xbf_copy_back(req);
	}

	switch (status) {
	case BLKIF_RSP_OKAY:
		req->status = BLK_STS_OK;
		break;
	case BLKIF_RSP_EOPNOTSUPP:
		req->status = BLK_STS_NOTSUPP;
		break;
	default:
		req->status = BLK_STS_IOERR;
		break;
	}
}

/**
 * xbf_finish() - release what one request held
 * @ring: its ring
 * @rq: the request
 * @status: BLKIF_RSP_* status of the (validated) response, or
 *	    BLKIF_RSP_ERROR when the request is failed locally or never
 *	    reached the backend
 *
 * Revokes transient grants and returns the request's grants to the pools.
 * A grant the backend still maps cannot be revoked: its bio page is pinned
 * until the backend lets go, the request fails and the disk is put into
 * the error state, since a backend that answers while still mapping the
 * data is broken.
 *
 * Context: any.
 * Return: whether a request was turned away for lack of grants meanwhile:
 * the caller reruns the queue.
 */
bool xbf_finish(struct xbf_ring *ring, struct request *rq, s16 status)
{
	xbf_release(ring, rq, status);
	return xbf_grants_put(ring, xbf_req(rq));
}

/**
 * xbf_finish_list() - release what answered requests held
 * @ring: their ring
 * @list: chained through xbf_req.next, NULL terminated, each with the
 *	  status of its validated response in xbf_req.rsp_status
 *
 * As xbf_finish() for each, with the grants of the whole batch returned
 * in one pass (xbf_grants_put_list()).  Every request is released before
 * the first is ended (xbf_complete_ring()).
 *
 * Context: any (called from the interrupt handler).
 * Return: whether a request was turned away for lack of grants meanwhile:
 * the queue needs a rerun once these have ended.
 */
bool xbf_finish_list(struct xbf_ring *ring, struct xbf_req *list)
{
	struct xbf_req *req;

	for (req = list; req; req = req->next)
		xbf_release(ring, xbf_rq(req), req->rsp_status);
	return xbf_grants_put_list(ring, list);
}

/**
 * xbf_abandon() - fail a request the backend never answered
 * @ring: its ring, already stopped (xbf_ring_stop())
 * @rq: the request, taken off the ring (xbf_ring_take_inflight())
 *
 * The backend may still map what the request granted: transient grants
 * are revoked where the backend let go and otherwise, as in xbf_finish(),
 * their pages stay pinned until it does.  Grants of our pools (persistent
 * or bounce pages, indirect frames) are not given back at all: the disk is
 * dead, and xbf_pool_destroy() frees them once the backend lets go.  So
 * nothing the backend can still reach is ever used again.
 *
 * Context: any.
 */
void xbf_abandon(struct xbf_ring *ring, struct request *rq)
{
	struct xbf_req *req = xbf_req(rq);

	if (!xbf_copies(ring->info))
		xbf_revoke_lent(req);
	/* Out of the pools for good: the entries stay in ring->data.all. */
	req->nr_data = 0;
	req->nr_indirect = 0;
	req->nr_segs = 0;
	req->status = BLK_STS_IOERR;
}
