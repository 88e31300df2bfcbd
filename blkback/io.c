// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: from the validated requests of a pass to bios, and from their
 * completions back to slots.c, then unmapped, to be answered.
 *
 * One pass of the ring thread hands xbb_io_dispatch() the list of requests
 * it took off the ring.  Dispatch maps every indirect descriptor page of
 * the pass in one batch, copies the segments out of them (once) and checks
 * the copy, maps every data page of the pass in one batch, and submits all
 * bios of the pass under a single blk_plug.  A request whose grants Xen
 * could not map for now (grant_map.c: XBLK_MAP_AGAIN) gives its grants and
 * pages back and is handed back for a retry after a backoff
 * (xbb_slots_retry_later()); it is not answered.  A request becomes as few
 * bios as it can: one, unless it has more segments than a bio holds; the
 * block layer splits it further only where the device needs it.
 *
 * Completion may run in any context: a finished request is handed back
 * with xbb_req_done() (slots.c: a lock-free list).  The ring thread reaps
 * them in xbb_io_reap(): one unmap batch for all of them; ring.c then
 * writes the responses and frees the slots (xbb_ring_reap()).
 */
#include <linux/bio.h>
#include <linux/blkdev.h>
#include <linux/highmem.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "blkback.h"
#include "trace.h"

static void xbb_req_put_bio(struct xbb_req *xr)
{
	if (atomic_dec_and_test(&xr->pending))
		xbb_req_done(xr);
}

static void xbb_bio_end_io(struct bio *bio)
{
	struct xbb_req *xr = bio->bi_private;

	trace_xblkback_bio_end(xr, blk_status_to_errno(bio->bi_status));
	if (bio->bi_status)
		WRITE_ONCE(xr->status,
			   bio->bi_status == BLK_STS_NOTSUPP &&
			   (xr->flush || xr->op == BLKIF_OP_DISCARD) ?
			   BLKIF_RSP_EOPNOTSUPP : BLKIF_RSP_ERROR);
	bio_put(bio);
	xbb_req_put_bio(xr);
}

static struct bio *xbb_bio_alloc(struct xbb_req *xr, unsigned int nr_vecs,
				 blk_opf_t opf, u64 sector)
{
	struct bio *bio = bio_alloc(xr->ring->be->vbd.bdev, nr_vecs, opf,
				    GFP_NOIO);

	bio->bi_iter.bi_sector = sector;
	bio->bi_private = xr;
	bio->bi_end_io = xbb_bio_end_io;
	atomic_inc(&xr->pending);
	return bio;
}

static void xbb_submit_flush(struct xbb_req *xr)
{
	atomic_set(&xr->pending, 1);
	submit_bio(xbb_bio_alloc(xr, 0, REQ_OP_WRITE | REQ_PREFLUSH, 0));
	xbb_req_put_bio(xr);
}

static void xbb_submit_data(struct xbb_req *xr)
{
	blk_opf_t opf = xr->write ? REQ_OP_WRITE | REQ_SYNC : REQ_OP_READ;
	u64 sector = xr->sector;
	struct bio *bio = NULL;
	unsigned int i;

	/*
	 * FLUSH_DISKCACHE with data: the write must find every earlier write
	 * stable, and be stable itself when we answer.
	 */
	if (xr->flush)
		opf |= REQ_PREFLUSH | REQ_FUA;

	atomic_set(&xr->pending, 1);
	for (i = 0; i < xr->nr_segs; i++) {
		const struct blkif_request_segment *seg = &xr->segs[i];
		unsigned int off = seg->first_sect << SECTOR_SHIFT;
		unsigned int len = (seg->last_sect - seg->first_sect + 1U)
				   << SECTOR_SHIFT;

		if (!bio || bio_add_page(bio, xr->gnts[i].page, len, off) != len) {
			if (bio)
				submit_bio(bio);
			bio = xbb_bio_alloc(xr, min_t(unsigned int,
						      xr->nr_segs - i,
						      BIO_MAX_VECS),
					    opf, sector);
			__bio_add_page(bio, xr->gnts[i].page, len, off);
		}
		sector += len >> SECTOR_SHIFT;
	}
	submit_bio(bio);
	xbb_req_put_bio(xr);
}

/*
 * A discard or secure erase, as bios submitted from the ring thread like
 * data: never as blocking work on a shared workqueue, which a guest could
 * fill with whole-device discards.  Each bio is as large as its 32-bit
 * size and, for a secure erase, the device allow, rounded to the discard
 * granularity (secure erase: the logical block) so that the block layer's
 * own splits stay aligned (xblk_discard_bio_max()).
 */
static void xbb_submit_discard(struct xbb_req *xr)
{
	struct block_device *bdev = xr->ring->be->vbd.bdev;
	enum req_op op = xr->secure ? REQ_OP_SECURE_ERASE : REQ_OP_DISCARD;
	unsigned int lbs = bdev_logical_block_size(bdev) >> SECTOR_SHIFT;
	unsigned int gran = xr->secure ? lbs :
			    max(bdev_discard_granularity(bdev) >> SECTOR_SHIFT,
				lbs);
	u64 max = xblk_discard_bio_max(xr->secure ?
				       bdev_max_secure_erase_sectors(bdev) : 0,
				       gran, xr->secure);
	u64 sector = xr->sector, left = xr->nr_sectors;

	atomic_set(&xr->pending, 1);
	while (left && max) {
		u64 n = min(left, max);
		struct bio *bio = xbb_bio_alloc(xr, 0, op, sector);

		bio->bi_iter.bi_size = n << SECTOR_SHIFT;
		submit_bio(bio);
		sector += n;
		left -= n;
		cond_resched();
	}
	/* No secure erase any more (the device changed): not supported. */
	if (left)
		WRITE_ONCE(xr->status, BLKIF_RSP_EOPNOTSUPP);
	xbb_req_put_bio(xr);
}

/*
 * Copy the segments out of the mapped indirect pages, once, and check the
 * copy.  Return: XBLK_REQ_VALID, an xblk_req_err, or -1 if a page was not
 * mapped (for good: the caller checked for XBLK_MAP_AGAIN).
 */
static int xbb_read_indirect(struct xbb_req *xr,
			     const struct xblk_req_limits *lim)
{
	unsigned int i, done = 0;

	for (i = 0; i < xr->nr_ind; i++) {
		unsigned int n = min_t(unsigned int, xr->nr_segs - done,
				       XBLK_SEGS_PER_INDIRECT_FRAME);
		void *p;

		if (!xbb_gnt_mapped(&xr->ind[i]))
			return -1;
		p = kmap_local_page(xr->ind[i].page);
		memcpy(xr->segs + done, p, n * sizeof(*xr->segs));
		kunmap_local(p);
		done += n;
	}
	for (i = 0; i < xr->nr_segs; i++)
		xr->gnts[i].gref = xr->segs[i].gref;
	return xblk_req_check_segs(xr->segs, xr->nr_segs, xr->sector, lim,
				   &xr->nr_sectors);
}

/* Account and start one request whose pages are mapped. */
static void xbb_submit(struct xbb_ring *ring, struct xbb_req *xr)
{
	unsigned int i;

	for (i = 0; i < xr->nr_segs; i++) {
		if (!xbb_gnt_mapped(&xr->gnts[i])) {
			xbb_req_finish(xr, BLKIF_RSP_ERROR);
			return;
		}
	}

	if (xr->flush)
		xbb_stat_inc(&ring->stats.f_req);
	switch (xr->op) {
	case BLKIF_OP_DISCARD:
		xbb_stat_inc(&ring->stats.ds_req);
		xbb_stat_add(&ring->stats.ds_sect, xr->nr_sectors);
		trace_xblkback_bio_submit(ring, xr, xr->secure ?
					  XBB_TRACE_SECURE : XBB_TRACE_DISCARD);
		xbb_submit_discard(xr);
		return;
	case BLKIF_OP_FLUSH_DISKCACHE:
		if (!xr->nr_segs) {
			trace_xblkback_bio_submit(ring, xr, XBB_TRACE_FLUSH);
			xbb_submit_flush(xr);
			return;
		}
		break;
	}
	if (xr->write) {
		xbb_stat_inc(&ring->stats.wr_req);
		xbb_stat_add(&ring->stats.wr_sect, xr->nr_sectors);
	} else {
		xbb_stat_inc(&ring->stats.rd_req);
		xbb_stat_add(&ring->stats.rd_sect, xr->nr_sectors);
	}
	trace_xblkback_bio_submit(ring, xr, xr->write ? XBB_TRACE_WRITE :
				  XBB_TRACE_READ);
	xbb_submit_data(xr);
}

/* Put @xr off: give back its grants and pages, keep it for a retry. */
static void xbb_io_put_off(struct xbb_ring *ring, struct xbb_req *xr,
			   struct list_head *again)
{
	xbb_gnt_release(ring, xr->ind, xr->nr_ind);
	xbb_gnt_release(ring, xr->gnts, xr->nr_segs);
	list_move_tail(&xr->node, again);
	xbb_stat_inc(&ring->stats.map_retry);
}

/* Refuse an indirect request whose segments broke a rule. */
static void xbb_io_refuse(struct xbb_ring *ring, struct xbb_req *xr,
			  enum xblk_req_err err)
{
	xr->refused = true;
	xbb_stat_inc(&ring->stats.err_req);
	xbb_warn_rl(ring->be, "ring %u: refused indirect request id %llu: %s",
		    ring->index, xr->id, xblk_req_err_str(err));
	xbb_req_finish(xr, xblk_req_err_status(err));
}

/*
 * The indirect pages of @xr are mapped (or were tried): read its segments
 * and give the pages back.  A request that fails or is refused leaves the
 * pass, answered.  Return: false if it must be put off (to @again).
 */
static bool xbb_io_read_segs(struct xbb_ring *ring, struct xbb_req *xr,
			     const struct xblk_req_limits *lim,
			     struct list_head *again)
{
	enum xblk_map_class cls = xbb_gnt_check(xr->ind, xr->nr_ind);
	int err;

	if (cls == XBLK_MAP_AGAIN) {
		xbb_io_put_off(ring, xr, again);
		return false;
	}
	err = cls == XBLK_MAP_OK ? xbb_read_indirect(xr, lim) : -1;
	xbb_gnt_release(ring, xr->ind, xr->nr_ind);
	if (err == XBLK_REQ_VALID) {
		xr->segs_ready = true;
		return true;
	}
	list_del_init(&xr->node);
	if (err < 0)
		xbb_req_finish(xr, BLKIF_RSP_ERROR);
	else
		xbb_io_refuse(ring, xr, (enum xblk_req_err)err);
	return true;
}

/*
 * Map every indirect page of the pass in one batch, then read and check
 * the segments.  Return: the number of requests put off to @again.
 */
static unsigned int xbb_io_map_indirect(struct xbb_ring *ring,
					struct list_head *pass,
					const struct xblk_req_limits *lim,
					struct list_head *again)
{
	struct xbb_req *xr, *tmp;
	unsigned int i, nr_again = 0;

	list_for_each_entry(xr, pass, node)
		if (!xr->segs_ready)
			for (i = 0; i < xr->nr_ind; i++)
				xbb_gnt_map_add(ring, &xr->ind[i], true);
	xbb_gnt_map_flush(ring);

	list_for_each_entry_safe(xr, tmp, pass, node) {
		if (!xr->nr_ind || xr->segs_ready)
			continue;
		if (!xbb_io_read_segs(ring, xr, lim, again))
			nr_again++;
	}
	return nr_again;
}

/*
 * Map every data page of the pass in one batch.  Return: the number of
 * requests put off to @again.
 */
static unsigned int xbb_io_map_data(struct xbb_ring *ring,
				    struct list_head *pass,
				    struct list_head *again)
{
	struct xbb_req *xr, *tmp;
	unsigned int i, nr_again = 0;

	list_for_each_entry(xr, pass, node)
		for (i = 0; i < xr->nr_segs; i++)
			xbb_gnt_map_add(ring, &xr->gnts[i], xr->write);
	xbb_gnt_map_flush(ring);

	list_for_each_entry_safe(xr, tmp, pass, node) {
		if (xbb_gnt_check(xr->gnts, xr->nr_segs) == XBLK_MAP_AGAIN) {
			xbb_io_put_off(ring, xr, again);
			nr_again++;
		}
	}
	return nr_again;
}

/* Submit every request left in the pass under one plug. */
static void xbb_io_submit_all(struct xbb_ring *ring, struct list_head *pass)
{
	struct xbb_req *xr, *tmp;
	struct blk_plug plug;

	blk_start_plug(&plug);
	list_for_each_entry_safe(xr, tmp, pass, node) {
		list_del_init(&xr->node);
		xbb_submit(ring, xr);
	}
	blk_finish_plug(&plug);
}

/**
 * xbb_io_dispatch() - map and submit the requests of one pass
 * @ring: ring
 * @pass: requests with their pages reserved, in ring order (first those
 *	put off before, from xbb_ring.retry); emptied
 * @lim: the limits the pass checked its requests against (xbb_ring_limits()),
 *	for the segments read out of indirect pages
 *
 * Requests whose grants could not be mapped for now are handed back with
 * xbb_slots_retry_later(), in order, holding no page and no mapping.
 *
 * Context: ring thread.
 * Return: the number of requests put off.
 */
unsigned int xbb_io_dispatch(struct xbb_ring *ring, struct list_head *pass,
			     const struct xblk_req_limits *lim)
{
	unsigned int nr_again;
	LIST_HEAD(again);

	nr_again = xbb_io_map_indirect(ring, pass, lim, &again);
	nr_again += xbb_io_map_data(ring, pass, &again);
	xbb_io_submit_all(ring, pass);
	if (nr_again) {
		/* Unmap what did map now: the mappings are a scarce resource. */
		xbb_gnt_unmap_flush(ring);
		xbb_slots_retry_later(ring, &again);
	}
	return nr_again;
}

/**
 * xbb_io_reap() - collect every finished request and release its grants
 * @ring: ring
 * @done: list the finished requests are added to, in completion order
 *
 * Releases the grants of all finished requests with one unmap batch, so
 * that the frontend may reuse the pages as soon as it sees a response;
 * ring.c then answers them and frees their slots.
 *
 * Context: ring thread.
 * Return: number of requests added to @done.
 */
unsigned int xbb_io_reap(struct xbb_ring *ring, struct list_head *done)
{
	struct llist_node *list = xbb_slots_take_done(ring);
	struct xbb_req *xr, *tmp;
	unsigned int n = 0;

	if (!list)
		return 0;

	llist_for_each_entry(xr, list, done) {
		xbb_gnt_release(ring, xr->ind, xr->nr_ind);
		xbb_gnt_release(ring, xr->gnts, xr->nr_segs);
	}
	xbb_gnt_unmap_flush(ring);

	llist_for_each_entry_safe(xr, tmp, list, done) {
		list_add_tail(&xr->node, done);
		n++;
	}
	return n;
}
