/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend side of the blkif request format: decoding and validation.
 *
 * Pure code only (see base.h): no hypercalls, no block layer, no allocation,
 * so that tests/unit exercises exactly what xblkback runs.
 *
 * The rule every function here follows: the caller copies a request out of
 * the shared ring exactly once (RING_COPY_REQUEST, or the segments out of an
 * indirect page), and from then on only that private copy is decoded,
 * validated and used.  Nothing here ever looks at shared memory.
 *
 * A frontend states its ABI in the "protocol" key; a 32-bit x86 guest lays
 * the request out differently from a 64-bit one (the 64-bit layout pads the
 * id to offset 8).  xblk_req_from_x86_32() and xblk_req_from_x86_64() turn
 * either layout into the native struct blkif_request, then xblk_req_check()
 * and xblk_req_check_segs() decide whether the backend may act on it and,
 * if not, why.
 */
#ifndef XBLK_REQUEST_H
#define XBLK_REQUEST_H

#include "wire.h"

#ifdef __KERNEL__
#include <linux/string.h>
#else
#include <string.h>
#endif

/* ABI of the frontend's requests, from its "protocol" key. */
enum xblk_abi {
	XBLK_ABI_NATIVE = 0,	/* absent key or "native" layout */
	XBLK_ABI_X86_32,	/* "x86_32-abi" */
	XBLK_ABI_X86_64,	/* "x86_64-abi" */
};

#define XBLK_PROTO_X86_32	"x86_32-abi"
#define XBLK_PROTO_X86_64	"x86_64-abi"

/**
 * xblk_abi_parse() - map the frontend's "protocol" value to an ABI
 * @proto: the value, or NULL when the key is absent
 * @abi: result
 *
 * An absent key means the native layout: every frontend that predates the
 * key ran in a domain of the backend's own architecture.
 *
 * Return: 0, or -EINVAL for a protocol we do not speak.
 */
static inline int xblk_abi_parse(const char *proto, enum xblk_abi *abi)
{
	if (!proto)
		*abi = XBLK_ABI_NATIVE;
	else if (!strcmp(proto, XBLK_PROTO_X86_32))
		*abi = XBLK_ABI_X86_32;
	else if (!strcmp(proto, XBLK_PROTO_X86_64))
		*abi = XBLK_ABI_X86_64;
	else
		return -EINVAL;
	return 0;
}

#ifdef __KERNEL__
#define XBLK_PACKED	__packed
#else
/*
 * The tests build this in userspace, where there is no __packed.  Spelt
 * through XBLK_GCC_PACKED so that checkpatch's kernel-only rule "prefer
 * __packed" does not flag the userspace branch.
 */
#define XBLK_GCC_PACKED	__packed__
#define XBLK_PACKED	__attribute__((XBLK_GCC_PACKED))
#endif

/*
 * The two x86 wire layouts.  Field for field as blkif.h defines them for
 * i386 (no padding before the 64-bit id) and x86_64 (id at offset 8).
 */
struct xblk_x86_32_request_rw {
	u8 nr_segments;
	u16 handle;
	u64 id;
	u64 sector_number;
	struct blkif_request_segment seg[BLKIF_MAX_SEGMENTS_PER_REQUEST];
} XBLK_PACKED;

struct xblk_x86_32_request_discard {
	u8 flag;
	u16 _pad1;
	u64 id;
	u64 sector_number;
	u64 nr_sectors;
} XBLK_PACKED;

struct xblk_x86_32_request_other {
	u8 _pad1;
	u16 _pad2;
	u64 id;
} XBLK_PACKED;

struct xblk_x86_32_request_indirect {
	u8 indirect_op;
	u16 nr_segments;
	u64 id;
	u64 sector_number;
	u16 handle;
	u16 _pad1;
	u32 indirect_grefs[BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST];
	u64 _pad2;
} XBLK_PACKED;

struct xblk_x86_32_request {
	u8 operation;
	union {
		struct xblk_x86_32_request_rw rw;
		struct xblk_x86_32_request_discard discard;
		struct xblk_x86_32_request_other other;
		struct xblk_x86_32_request_indirect indirect;
	} u;
} XBLK_PACKED;

struct xblk_x86_64_request_rw {
	u8 nr_segments;
	u16 handle;
	u32 _pad1;
	u64 id;
	u64 sector_number;
	struct blkif_request_segment seg[BLKIF_MAX_SEGMENTS_PER_REQUEST];
} XBLK_PACKED;

struct xblk_x86_64_request_discard {
	u8 flag;
	u16 _pad1;
	u32 _pad2;
	u64 id;
	u64 sector_number;
	u64 nr_sectors;
} XBLK_PACKED;

struct xblk_x86_64_request_other {
	u8 _pad1;
	u16 _pad2;
	u32 _pad3;
	u64 id;
} XBLK_PACKED;

struct xblk_x86_64_request_indirect {
	u8 indirect_op;
	u16 nr_segments;
	u32 _pad1;
	u64 id;
	u64 sector_number;
	u16 handle;
	u16 _pad2;
	u32 indirect_grefs[BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST];
	u32 _pad3;
} XBLK_PACKED;

struct xblk_x86_64_request {
	u8 operation;
	union {
		struct xblk_x86_64_request_rw rw;
		struct xblk_x86_64_request_discard discard;
		struct xblk_x86_64_request_other other;
		struct xblk_x86_64_request_indirect indirect;
	} u;
} XBLK_PACKED;

static_assert(sizeof(struct blkif_request_segment) == 8, "blkif segment");
static_assert(sizeof(struct xblk_x86_32_request) == 108, "x86_32 request");
static_assert(sizeof(struct xblk_x86_64_request) == 112, "x86_64 request");

/* Why a request was refused; see xblk_req_check(). */
enum xblk_req_err {
	XBLK_REQ_VALID = 0,
	XBLK_REQ_BAD_OP,	/* operation unknown to blkif */
	XBLK_REQ_NOT_OFFERED,	/* known, but the feature was not advertised */
	XBLK_REQ_READ_ONLY,	/* modifies a read-only device */
	XBLK_REQ_BAD_NR_SEGS,	/* segment count out of range for the op */
	XBLK_REQ_BAD_INDIRECT_OP, /* indirect inner op not READ or WRITE */
	XBLK_REQ_BAD_SEG,	/* first_sect > last_sect, or beyond the page */
	XBLK_REQ_MISALIGNED,	/* start or a segment not whole logical blocks */
	XBLK_REQ_OUT_OF_RANGE,	/* past the end of the device, or wraps */
	XBLK_REQ_EMPTY,		/* discard of zero sectors */
};

/**
 * struct xblk_req_limits - what a request is checked against
 * @sectors: device capacity in 512-byte sectors
 * @logical_block_size: bytes; a power of two from 512 to XEN_PAGE_SIZE
 * @max_indirect_segs: segments per indirect request we advertised, 0 if
 *	indirect requests were not offered
 * @read_only: the device was attached read-only
 * @flush: feature-flush-cache was advertised
 * @discard: feature-discard was advertised
 */
struct xblk_req_limits {
	u64 sectors;
	unsigned int logical_block_size;
	unsigned int max_indirect_segs;
	bool read_only;
	bool flush;
	bool discard;
};

/*
 * XBLK_DEFINE_REQ_FROM(abi) defines
 *
 *	static inline void xblk_req_from_<abi>(const struct xblk_<abi>_request *src,
 *					       struct blkif_request *dst);
 *
 * which decodes a private copy of a request in that layout (@src, already
 * copied out of the shared ring) into the native layout (@dst).  Only the
 * fields of @src->operation's layout are decoded; an unknown operation
 * keeps just the id, enough to answer it.  Nothing is validated.
 *
 * The x86_32 and x86_64 layouts name the same fields and differ only in
 * where they sit, so one text decodes both.  On an x86_64 kernel the
 * x86_64 layout is the native one; decoding field by field keeps a 32-bit
 * backend correct as well.
 */
#define XBLK_DEFINE_REQ_FROM(abi)					\
static inline void							\
xblk_req_from_##abi(const struct xblk_##abi##_request *src,		\
		    struct blkif_request *dst)				\
{									\
	unsigned int i;							\
									\
	memset(dst, 0, sizeof(*dst));					\
	dst->operation = src->operation;				\
	switch (src->operation) {					\
	case BLKIF_OP_READ:						\
	case BLKIF_OP_WRITE:						\
	case BLKIF_OP_WRITE_BARRIER:					\
	case BLKIF_OP_FLUSH_DISKCACHE:					\
		dst->u.rw.nr_segments = src->u.rw.nr_segments;		\
		dst->u.rw.handle = src->u.rw.handle;			\
		dst->u.rw.id = src->u.rw.id;				\
		dst->u.rw.sector_number = src->u.rw.sector_number;	\
		for (i = 0; i < BLKIF_MAX_SEGMENTS_PER_REQUEST; i++)	\
			dst->u.rw.seg[i] = src->u.rw.seg[i];		\
		break;							\
	case BLKIF_OP_DISCARD:						\
		dst->u.discard.flag = src->u.discard.flag;		\
		dst->u.discard.id = src->u.discard.id;			\
		dst->u.discard.sector_number =				\
			src->u.discard.sector_number;			\
		dst->u.discard.nr_sectors = src->u.discard.nr_sectors;	\
		break;							\
	case BLKIF_OP_INDIRECT:						\
		dst->u.indirect.indirect_op = src->u.indirect.indirect_op; \
		dst->u.indirect.nr_segments = src->u.indirect.nr_segments; \
		dst->u.indirect.id = src->u.indirect.id;		\
		dst->u.indirect.sector_number =				\
			src->u.indirect.sector_number;			\
		dst->u.indirect.handle = src->u.indirect.handle;	\
		for (i = 0; i < BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST; i++) \
			dst->u.indirect.indirect_grefs[i] =		\
				src->u.indirect.indirect_grefs[i];	\
		break;							\
	default:							\
		dst->u.other.id = src->u.other.id;			\
		break;							\
	}								\
}

XBLK_DEFINE_REQ_FROM(x86_32)
XBLK_DEFINE_REQ_FROM(x86_64)

/**
 * xblk_req_id() - the id to echo in the response
 * @req: decoded request (any operation, valid or not)
 *
 * Every layout keeps the id at the same place, so this also works for an
 * operation we do not know.
 *
 * Return: the frontend's id.
 */
static inline u64 xblk_req_id(const struct blkif_request *req)
{
	return req->u.other.id;
}

/**
 * xblk_req_rsp_op() - the operation to echo in the response
 * @req: decoded request (any operation, valid or not)
 *
 * An indirect request is answered with its inner operation (READ or
 * WRITE), not BLKIF_OP_INDIRECT: that is what Linux's xen-blkback sends and
 * what xen-blkfront checks.  Any other request echoes its operation.
 *
 * Return: the operation for the response.
 */
static inline u8 xblk_req_rsp_op(const struct blkif_request *req)
{
	if (req->operation == BLKIF_OP_INDIRECT)
		return req->u.indirect.indirect_op;
	return req->operation;
}

/**
 * xblk_req_nr_segs() - number of data segments of a request
 * @req: decoded request
 *
 * Return: the segment count as the frontend wrote it (not yet validated),
 * 0 for operations that carry no segments.
 */
static inline unsigned int xblk_req_nr_segs(const struct blkif_request *req)
{
	switch (req->operation) {
	case BLKIF_OP_READ:
	case BLKIF_OP_WRITE:
	case BLKIF_OP_FLUSH_DISKCACHE:
		return req->u.rw.nr_segments;
	case BLKIF_OP_INDIRECT:
		return req->u.indirect.nr_segments;
	}
	return 0;
}

/**
 * xblk_req_writes() - whether a data request moves data to the device
 * @req: decoded, valid request
 *
 * Return: true for WRITE, FLUSH_DISKCACHE with data and indirect WRITE.
 */
static inline bool xblk_req_writes(const struct blkif_request *req)
{
	switch (req->operation) {
	case BLKIF_OP_WRITE:
	case BLKIF_OP_FLUSH_DISKCACHE:
		return true;
	case BLKIF_OP_INDIRECT:
		return req->u.indirect.indirect_op == BLKIF_OP_WRITE;
	}
	return false;
}

/**
 * xblk_req_check_range() - check a run of 512-byte sectors on the device
 * @sector: first sector
 * @nr_sectors: number of sectors
 * @lim: device limits
 *
 * Return: XBLK_REQ_VALID, XBLK_REQ_MISALIGNED or XBLK_REQ_OUT_OF_RANGE.
 */
static inline enum xblk_req_err
xblk_req_check_range(u64 sector, u64 nr_sectors,
		     const struct xblk_req_limits *lim)
{
	u64 mask = (lim->logical_block_size >> XBLK_SECTOR_SHIFT) - 1;

	if ((sector | nr_sectors) & mask)
		return XBLK_REQ_MISALIGNED;
	/* Written so that no sum can wrap around 2^64. */
	if (sector > lim->sectors || nr_sectors > lim->sectors - sector)
		return XBLK_REQ_OUT_OF_RANGE;
	return XBLK_REQ_VALID;
}

/**
 * xblk_req_check_segs() - validate the segments of a data request
 * @seg: private copy of the segments (from the request or indirect pages)
 * @nr_segs: their number, already checked by xblk_req_check()
 * @sector: first sector of the request
 * @lim: device limits
 * @nr_sectors: returns the request's length in 512-byte sectors
 *
 * Each segment must lie inside its page (first_sect <= last_sect <= 7 for
 * 4 KiB pages) and consist of whole logical blocks, and the request must
 * start on a logical block boundary and lie inside the device.
 *
 * Whole blocks per segment, not only per request: a block split across two
 * pages becomes two bio_vecs that each hold part of a block.  A device with
 * a virtual boundary (NVMe, dm on top of one) then needs a split inside the
 * block, which the block layer rounds down to nothing (6.1: bio_split() of
 * 0 sectors, a BUG) or does not make at all (the driver then gets a bvec
 * gap it cannot express).  Bios are also cut between segments when a
 * request has more of them than a bio holds, so every segment boundary must
 * be a block boundary.  Linux's xen-blkback has the same rule.
 *
 * Return: XBLK_REQ_VALID or the first rule broken.
 */
static inline enum xblk_req_err
xblk_req_check_segs(const struct blkif_request_segment *seg,
		    unsigned int nr_segs, u64 sector,
		    const struct xblk_req_limits *lim, u64 *nr_sectors)
{
	unsigned int mask = (lim->logical_block_size >> XBLK_SECTOR_SHIFT) - 1;
	u64 total = 0;
	unsigned int i;

	for (i = 0; i < nr_segs; i++) {
		if (seg[i].first_sect > seg[i].last_sect ||
		    seg[i].last_sect >= XBLK_SECTORS_PER_PAGE)
			return XBLK_REQ_BAD_SEG;
		if ((seg[i].first_sect | (seg[i].last_sect + 1U)) & mask)
			return XBLK_REQ_MISALIGNED;
		total += seg[i].last_sect - seg[i].first_sect + 1U;
	}
	*nr_sectors = total;
	return xblk_req_check_range(sector, total, lim);
}

/* READ, WRITE and FLUSH_DISKCACHE: the segments are in the request. */
static inline enum xblk_req_err
xblk_req_check_rw(const struct blkif_request *req,
		  const struct xblk_req_limits *lim)
{
	struct blkif_request_segment seg[BLKIF_MAX_SEGMENTS_PER_REQUEST];
	unsigned int nseg = req->u.rw.nr_segments;
	bool flush = req->operation == BLKIF_OP_FLUSH_DISKCACHE;
	u64 nr_sectors;

	if (flush && !lim->flush)
		return XBLK_REQ_NOT_OFFERED;
	if (req->operation != BLKIF_OP_READ && lim->read_only)
		return XBLK_REQ_READ_ONLY;
	/* Only a flush may come without data. */
	if ((!nseg && !flush) || nseg > BLKIF_MAX_SEGMENTS_PER_REQUEST)
		return XBLK_REQ_BAD_NR_SEGS;
	if (!nseg)
		return XBLK_REQ_VALID;
	/* Aligned copy: the request struct is packed. */
	memcpy(seg, req->u.rw.seg, sizeof(seg));
	return xblk_req_check_segs(seg, nseg, req->u.rw.sector_number, lim,
				   &nr_sectors);
}

/* INDIRECT: its segments are checked once copied out of the pages. */
static inline enum xblk_req_err
xblk_req_check_indirect(const struct blkif_request *req,
			const struct xblk_req_limits *lim)
{
	u8 op = req->u.indirect.indirect_op;
	unsigned int nseg = req->u.indirect.nr_segments;

	if (!lim->max_indirect_segs)
		return XBLK_REQ_NOT_OFFERED;
	if (op != BLKIF_OP_READ && op != BLKIF_OP_WRITE)
		return XBLK_REQ_BAD_INDIRECT_OP;
	if (op == BLKIF_OP_WRITE && lim->read_only)
		return XBLK_REQ_READ_ONLY;
	if (!nseg || nseg > lim->max_indirect_segs ||
	    nseg > XBLK_MAX_INDIRECT_SEGS)
		return XBLK_REQ_BAD_NR_SEGS;
	return XBLK_REQ_VALID;
}

/**
 * xblk_req_check() - validate a decoded request
 * @req: private, decoded copy of the request
 * @lim: device limits and what was advertised
 *
 * Checks, in order: the operation is known and its feature was offered; a
 * request that modifies the device is refused on a read-only one; the
 * segment count suits the operation (zero only for a flush); the inner
 * operation of an indirect request is READ or WRITE; and, for everything
 * whose extent is in @req itself, the segments and the sector range.  The
 * segments of an indirect request live in the indirect pages: check them
 * with xblk_req_check_segs() once copied.
 *
 * BLKIF_OP_WRITE_BARRIER is never offered.  The secure flag of a discard
 * needs no check: blkif says it is ignored when discard-secure is not
 * advertised.
 *
 * Return: XBLK_REQ_VALID or the first rule broken.
 */
static inline enum xblk_req_err
xblk_req_check(const struct blkif_request *req,
	       const struct xblk_req_limits *lim)
{
	switch (req->operation) {
	case BLKIF_OP_READ:
	case BLKIF_OP_WRITE:
	case BLKIF_OP_FLUSH_DISKCACHE:
		return xblk_req_check_rw(req, lim);
	case BLKIF_OP_DISCARD:
		if (!lim->discard)
			return XBLK_REQ_NOT_OFFERED;
		if (lim->read_only)
			return XBLK_REQ_READ_ONLY;
		if (!req->u.discard.nr_sectors)
			return XBLK_REQ_EMPTY;
		return xblk_req_check_range(req->u.discard.sector_number,
					    req->u.discard.nr_sectors, lim);
	case BLKIF_OP_INDIRECT:
		return xblk_req_check_indirect(req, lim);
	case BLKIF_OP_WRITE_BARRIER:
		return XBLK_REQ_NOT_OFFERED;
	}
	return XBLK_REQ_BAD_OP;
}

/**
 * xblk_req_err_status() - response status for a refused request
 * @err: value returned by xblk_req_check() or xblk_req_check_segs()
 *
 * Return: BLKIF_RSP_EOPNOTSUPP for an operation we do not do, so that the
 * frontend can stop using it; BLKIF_RSP_ERROR otherwise; BLKIF_RSP_OKAY
 * for XBLK_REQ_VALID.
 */
static inline s16 xblk_req_err_status(enum xblk_req_err err)
{
	switch (err) {
	case XBLK_REQ_VALID:
		return BLKIF_RSP_OKAY;
	case XBLK_REQ_BAD_OP:
	case XBLK_REQ_NOT_OFFERED:
		return BLKIF_RSP_EOPNOTSUPP;
	default:
		return BLKIF_RSP_ERROR;
	}
}

/**
 * xblk_req_err_str() - human-readable reason for a refused request
 * @err: value returned by xblk_req_check() or xblk_req_check_segs()
 *
 * Return: a static string.
 */
static inline const char *xblk_req_err_str(enum xblk_req_err err)
{
	switch (err) {
	case XBLK_REQ_VALID:		return "valid";
	case XBLK_REQ_BAD_OP:		return "unknown operation";
	case XBLK_REQ_NOT_OFFERED:	return "operation not offered";
	case XBLK_REQ_READ_ONLY:	return "write to read-only device";
	case XBLK_REQ_BAD_NR_SEGS:	return "bad segment count";
	case XBLK_REQ_BAD_INDIRECT_OP:	return "bad indirect operation";
	case XBLK_REQ_BAD_SEG:		return "bad segment";
	case XBLK_REQ_MISALIGNED:	return "not aligned to the logical block";
	case XBLK_REQ_OUT_OF_RANGE:	return "beyond the end of the device";
	case XBLK_REQ_EMPTY:		return "empty discard";
	}
	return "?";
}

/**
 * xblk_discard_bio_max() - sectors one discard or secure-erase bio may carry
 * @dev_max: the device's own limit per bio in 512-byte sectors (its
 *	     max_secure_erase_sectors for a secure erase); 0 for none
 * @gran: sectors every bio must be a multiple of: the discard granularity
 *	  (at least the logical block), or the logical block for a secure
 *	  erase; a power of two or not, at least 1
 * @secure: a secure erase: the device's limit applies, and 0 means the
 *	    device no longer offers it
 *
 * A bio's size is 32-bit in bytes, so no bio may carry more than
 * UINT_MAX >> 9 sectors whatever the device says: a device limit of 2^23
 * sectors or more would otherwise wrap the size to a few KiB, or zero, and
 * most of the range would go untouched.  The result is rounded down to
 * @gran so that every bio, and the block layer's own splits of it, stays
 * aligned.
 *
 * Return: the sectors per bio, a multiple of @gran; 0 if no bio can be
 * issued (a secure erase the device does not offer, or a granularity
 * larger than the limit): the request is then not supported.
 */
static inline u64 xblk_discard_bio_max(u64 dev_max, unsigned int gran,
				       bool secure)
{
	u64 max = 0xffffffffULL >> 9;

	if (!gran)
		return 0;
	if (secure && !dev_max)
		return 0;
	if (dev_max && dev_max < max)
		max = dev_max;
	return max / gran * gran;
}

#endif /* XBLK_REQUEST_H */
