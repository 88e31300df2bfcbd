/* SPDX-License-Identifier: GPL-2.0 */
/*
 * blkif wire-format helpers shared by xblkfront and xblkback.
 *
 * Pure code only: no hypercalls, no block layer, no allocation.  Everything
 * here also compiles in userspace (see base.h) and is covered by tests/unit.
 * All sizes and offsets on the wire are in 512-byte sectors, whatever the
 * logical block size of the disk (blkif.h, "sector-size" description).
 */
#ifndef XBLK_WIRE_H
#define XBLK_WIRE_H

#include "base.h"

#define XBLK_SECTOR_SHIFT	9
#define XBLK_SECTORS_PER_PAGE	(XEN_PAGE_SIZE >> XBLK_SECTOR_SHIFT)

/* Segments that fit in one indirect descriptor page. */
#define XBLK_SEGS_PER_INDIRECT_FRAME \
	(XEN_PAGE_SIZE / sizeof(struct blkif_request_segment))

/* Largest request the indirect format can describe at all. */
#define XBLK_MAX_INDIRECT_SEGS \
	(BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST * XBLK_SEGS_PER_INDIRECT_FRAME)

/*
 * Smallest segment count a device's request limit (xblk-max-sectors) can
 * cut a frontend down to: 128 KiB, the request the in-tree frontend sends.
 */
#define XBLK_FLOOR_SEGS		32

/* Largest ring: 2^4 pages, as XENBUS_MAX_RING_GRANT_ORDER. */
#define XBLK_MAX_RING_ORDER	4

/* Largest number of hardware queues either side will ever use. */
#define XBLK_MAX_QUEUES		32

/**
 * xblk_ring_slots() - number of request slots in a shared ring
 * @order: log2 of the number of pages of the ring
 *
 * Return: the ring size, a power of two, as __CONST_RING_SIZE computes it.
 */
static inline unsigned int xblk_ring_slots(unsigned int order)
{
	return __CONST_RING_SIZE(blkif, XEN_PAGE_SIZE << order);
}

/**
 * xblk_indirect_frames() - indirect descriptor pages for @segs segments
 * @segs: number of data segments of one request
 *
 * Return: pages needed to hold @segs struct blkif_request_segment.
 */
static inline unsigned int xblk_indirect_frames(unsigned int segs)
{
	return DIV_ROUND_UP(segs, (unsigned int)XBLK_SEGS_PER_INDIRECT_FRAME);
}

/**
 * xblk_seg_sectors() - first and last 512-byte sector of a segment
 * @offset: byte offset of the data in its (Xen-sized) page
 * @len: length of the data in bytes
 * @first: returns the first sector (inclusive)
 * @last: returns the last sector (inclusive)
 *
 * Return: 0, or -EINVAL when the data does not fit one page or is not made
 * of whole sectors (a block-layer invariant, so callers may WARN).
 */
static inline int xblk_seg_sectors(unsigned int offset, unsigned int len,
				   u8 *first, u8 *last)
{
	if (!len || offset >= XEN_PAGE_SIZE || len > XEN_PAGE_SIZE - offset ||
	    (offset | len) & ((1U << XBLK_SECTOR_SHIFT) - 1))
		return -EINVAL;
	*first = offset >> XBLK_SECTOR_SHIFT;
	*last = (offset + len - 1) >> XBLK_SECTOR_SHIFT;
	return 0;
}

/**
 * xblk_rsp_prod_sane() - check a response producer index read from the ring
 * @rsp_prod: the backend's rsp_prod (read once from shared memory)
 * @rsp_cons: our response consumer index
 * @req_prod: our private request producer index (requests handed out)
 *
 * A backend can never have answered more requests than it was given.
 *
 * Return: true if @rsp_prod is plausible.
 */
static inline bool xblk_rsp_prod_sane(RING_IDX rsp_prod, RING_IDX rsp_cons,
				      RING_IDX req_prod)
{
	return (RING_IDX)(rsp_prod - rsp_cons) <= (RING_IDX)(req_prod - rsp_cons);
}

/**
 * xblk_req_prod_sane() - check a request producer index read from the ring
 * @req_prod: the frontend's req_prod (read once from shared memory)
 * @req_cons: our request consumer index
 * @rsp_prod: our private response producer index
 * @ring_size: number of slots in the ring
 *
 * A frontend can never have more requests outstanding than the ring holds.
 *
 * Return: true if @req_prod is plausible.
 */
static inline bool xblk_req_prod_sane(RING_IDX req_prod, RING_IDX req_cons,
				      RING_IDX rsp_prod, unsigned int ring_size)
{
	return (RING_IDX)(req_prod - rsp_prod) <= ring_size &&
	       (RING_IDX)(req_cons - rsp_prod) <= (RING_IDX)(req_prod - rsp_prod);
}

/* Why a response was refused; see xblk_check_rsp(). */
enum xblk_rsp_err {
	XBLK_RSP_VALID = 0,
	XBLK_RSP_BAD_ID,	/* id out of range */
	XBLK_RSP_NOT_INFLIGHT,	/* id not outstanding: duplicate or stray */
	XBLK_RSP_BAD_OP,	/* operation differs from the request's */
	XBLK_RSP_BAD_STATUS,	/* status none of BLKIF_RSP_* */
};

/**
 * xblk_check_rsp() - validate a private copy of a response
 * @rsp: the response, already copied out of the shared ring
 * @nr_ids: number of request ids (shadow slots) of this ring
 * @inflight: whether request @rsp->id is outstanding (caller looked it up
 *	      only after checking the range; pass false when out of range)
 * @op: operation the response must carry: the one sent, or for
 *	BLKIF_OP_INDIRECT requests their inner operation
 *
 * Return: XBLK_RSP_VALID, or the first rule @rsp breaks.
 */
static inline enum xblk_rsp_err xblk_check_rsp(const struct blkif_response *rsp,
					       unsigned int nr_ids, bool inflight,
					       u8 op)
{
	if (rsp->id >= nr_ids)
		return XBLK_RSP_BAD_ID;
	if (!inflight)
		return XBLK_RSP_NOT_INFLIGHT;
	if (rsp->operation != op)
		return XBLK_RSP_BAD_OP;
	if (rsp->status != BLKIF_RSP_OKAY && rsp->status != BLKIF_RSP_ERROR &&
	    rsp->status != BLKIF_RSP_EOPNOTSUPP)
		return XBLK_RSP_BAD_STATUS;
	return XBLK_RSP_VALID;
}

/**
 * xblk_rsp_err_str() - human-readable reason for a refused response
 * @err: value returned by xblk_check_rsp()
 *
 * Return: a static string.
 */
static inline const char *xblk_rsp_err_str(enum xblk_rsp_err err)
{
	switch (err) {
	case XBLK_RSP_VALID:		return "valid";
	case XBLK_RSP_BAD_ID:		return "id out of range";
	case XBLK_RSP_NOT_INFLIGHT:	return "id not in flight";
	case XBLK_RSP_BAD_OP:		return "operation mismatch";
	case XBLK_RSP_BAD_STATUS:	return "unknown status";
	}
	return "?";
}

#endif /* XBLK_WIRE_H */
