// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the backend's request path of include/xblk/request.h.
 *
 * Input: 1 byte of flags (bit 0: x86_32 ABI, else x86_64; bit 1 read-only;
 * bit 2 flush offered; bit 3 discard offered; bits 4-5 logical block size
 * 512 << n), 2 bytes feature-max-indirect-segments we advertised (0 = no
 * indirect), 8 bytes device capacity in sectors, then the raw request as
 * the frontend's ABI lays it out (108 or 112 bytes), then the contents of
 * the indirect pages (8-byte segments).  Missing bytes read as zero.
 *
 * As xblkback does, the harness decodes a private copy, checks it with
 * xblk_req_check() and, for a valid indirect request, copies its segments
 * and checks them with xblk_req_check_segs().  Asserted:
 *  - decoding: the fields of the request's operation, read independently
 *    from the raw bytes at the ABI's offsets, equal the decoded ones, and
 *    xblk_req_id() is the id at offset 4 (x86_32) or 8 (x86_64);
 *  - the verdict (and the reason) equals that of an independent model of
 *    the blkif rules computed with 128-bit arithmetic (no wrap possible);
 *  - anything accepted is safe to execute: 1..11 segments (1..offered and
 *    at most 8 indirect pages for indirect), every segment inside its page,
 *    the whole extent block-aligned and inside the device, not empty;
 *  - the response status is EOPNOTSUPP exactly for unknown/not offered.
 */
#include <stdbool.h>
#include <string.h>
#include "fuzz_common.h"
#include "xblk/request.h"

typedef unsigned __int128 u128;

static u64 rd(const u8 *b, unsigned int off, unsigned int n)
{
	u64 v = 0;

	while (n--)
		v = v << 8 | b[off + n];
	return v;
}

/* The request as read straight from the raw bytes at the ABI's offsets. */
struct raw {
	u8 op;
	u64 id;
	unsigned int nseg;	/* rw: u8, indirect: u16 */
	u8 inner;
	u64 sector;
	u64 nr_sectors;		/* discard */
	struct blkif_request_segment seg[BLKIF_MAX_SEGMENTS_PER_REQUEST];
};

static void raw_decode(const u8 *b, bool x86_32, struct raw *r)
{
	unsigned int id_off = x86_32 ? 4 : 8, i;

	memset(r, 0, sizeof(*r));
	r->op = b[0];
	r->id = rd(b, id_off, 8);
	switch (r->op) {
	case BLKIF_OP_READ:
	case BLKIF_OP_WRITE:
	case BLKIF_OP_WRITE_BARRIER:
	case BLKIF_OP_FLUSH_DISKCACHE:
		r->nseg = b[1];
		r->sector = rd(b, id_off + 8, 8);
		for (i = 0; i < BLKIF_MAX_SEGMENTS_PER_REQUEST; i++) {
			unsigned int o = id_off + 16 + 8 * i;

			r->seg[i].gref = rd(b, o, 4);
			r->seg[i].first_sect = b[o + 4];
			r->seg[i].last_sect = b[o + 5];
		}
		break;
	case BLKIF_OP_DISCARD:
		r->sector = rd(b, id_off + 8, 8);
		r->nr_sectors = rd(b, id_off + 16, 8);
		break;
	case BLKIF_OP_INDIRECT:
		r->inner = b[1];
		r->nseg = rd(b, 2, 2);
		r->sector = rd(b, id_off + 8, 8);
		break;
	}
}

static void check_decode(const struct raw *r, const struct blkif_request *d)
{
	unsigned int i;

	FUZZ_ASSERT(d->operation == r->op, "op");
	FUZZ_ASSERT(xblk_req_id(d) == r->id, "id %llx, raw %llx",
		    (unsigned long long)xblk_req_id(d), (unsigned long long)r->id);
	switch (r->op) {
	case BLKIF_OP_READ:
	case BLKIF_OP_WRITE:
	case BLKIF_OP_WRITE_BARRIER:
	case BLKIF_OP_FLUSH_DISKCACHE:
		FUZZ_ASSERT(d->u.rw.nr_segments == r->nseg, "nseg");
		FUZZ_ASSERT(d->u.rw.sector_number == r->sector, "sector");
		for (i = 0; i < BLKIF_MAX_SEGMENTS_PER_REQUEST; i++) {
			struct blkif_request_segment s = d->u.rw.seg[i];

			FUZZ_ASSERT(s.gref == r->seg[i].gref &&
				    s.first_sect == r->seg[i].first_sect &&
				    s.last_sect == r->seg[i].last_sect, "seg %u", i);
		}
		break;
	case BLKIF_OP_DISCARD:
		FUZZ_ASSERT(d->u.discard.sector_number == r->sector, "sector");
		FUZZ_ASSERT(d->u.discard.nr_sectors == r->nr_sectors, "nr");
		break;
	case BLKIF_OP_INDIRECT:
		FUZZ_ASSERT(d->u.indirect.indirect_op == r->inner, "inner");
		FUZZ_ASSERT(d->u.indirect.nr_segments == r->nseg, "nseg");
		FUZZ_ASSERT(d->u.indirect.sector_number == r->sector, "sector");
		break;
	}
}

/* ------------------------------------------------------------- model -- */

static enum xblk_req_err model_range(u64 sector, u128 nr,
				     const struct xblk_req_limits *l)
{
	u64 bs = l->logical_block_size / 512;

	if (sector % bs || nr % bs)
		return XBLK_REQ_MISALIGNED;
	if ((u128)sector + nr > l->sectors)
		return XBLK_REQ_OUT_OF_RANGE;
	return XBLK_REQ_VALID;
}

static enum xblk_req_err model_segs(const struct blkif_request_segment *s,
				    unsigned int n, u64 sector,
				    const struct xblk_req_limits *l, u128 *total)
{
	unsigned int i, bs = l->logical_block_size / 512;

	*total = 0;
	for (i = 0; i < n; i++) {
		if (s[i].first_sect > s[i].last_sect || s[i].last_sect > 7)
			return XBLK_REQ_BAD_SEG;
		if (s[i].first_sect % bs || (s[i].last_sect + 1) % bs)
			return XBLK_REQ_MISALIGNED;
		*total += s[i].last_sect - s[i].first_sect + 1;
	}
	return model_range(sector, *total, l);
}

static enum xblk_req_err model(const struct raw *r,
			       const struct xblk_req_limits *l)
{
	u128 total;

	switch (r->op) {
	case BLKIF_OP_READ:
	case BLKIF_OP_WRITE:
		if (r->op == BLKIF_OP_WRITE && l->read_only)
			return XBLK_REQ_READ_ONLY;
		if (r->nseg < 1 || r->nseg > 11)
			return XBLK_REQ_BAD_NR_SEGS;
		return model_segs(r->seg, r->nseg, r->sector, l, &total);
	case BLKIF_OP_FLUSH_DISKCACHE:
		if (!l->flush)
			return XBLK_REQ_NOT_OFFERED;
		if (l->read_only)
			return XBLK_REQ_READ_ONLY;
		if (r->nseg > 11)
			return XBLK_REQ_BAD_NR_SEGS;
		if (!r->nseg)
			return XBLK_REQ_VALID;
		return model_segs(r->seg, r->nseg, r->sector, l, &total);
	case BLKIF_OP_DISCARD:
		if (!l->discard)
			return XBLK_REQ_NOT_OFFERED;
		if (l->read_only)
			return XBLK_REQ_READ_ONLY;
		if (!r->nr_sectors)
			return XBLK_REQ_EMPTY;
		return model_range(r->sector, r->nr_sectors, l);
	case BLKIF_OP_INDIRECT:
		if (!l->max_indirect_segs)
			return XBLK_REQ_NOT_OFFERED;
		if (r->inner != BLKIF_OP_READ && r->inner != BLKIF_OP_WRITE)
			return XBLK_REQ_BAD_INDIRECT_OP;
		if (r->inner == BLKIF_OP_WRITE && l->read_only)
			return XBLK_REQ_READ_ONLY;
		if (r->nseg < 1 || r->nseg > l->max_indirect_segs ||
		    r->nseg > 8 * 512)
			return XBLK_REQ_BAD_NR_SEGS;
		return XBLK_REQ_VALID;
	case BLKIF_OP_WRITE_BARRIER:
		return XBLK_REQ_NOT_OFFERED;
	}
	return XBLK_REQ_BAD_OP;
}

/* What is accepted must be safe to execute. */
static void check_safe(const struct blkif_request_segment *s, unsigned int n,
		       u64 sector, u64 nr, const struct xblk_req_limits *l)
{
	u64 bs = l->logical_block_size / 512;
	unsigned int i;
	u128 total = 0;

	for (i = 0; i < n; i++) {
		FUZZ_ASSERT(s[i].first_sect <= s[i].last_sect &&
			    s[i].last_sect < XBLK_SECTORS_PER_PAGE,
			    "accepted segment %u: %u..%u", i, s[i].first_sect,
			    s[i].last_sect);
		/* Every bio_vec whole blocks: no split inside a block. */
		FUZZ_ASSERT(s[i].first_sect % bs == 0 &&
			    (s[i].last_sect + 1) % bs == 0,
			    "accepted segment %u: %u..%u splits a %llu-sector block",
			    i, s[i].first_sect, s[i].last_sect,
			    (unsigned long long)bs);
		total += s[i].last_sect - s[i].first_sect + 1;
	}
	if (n)
		FUZZ_ASSERT(total == nr, "nr_sectors %llu, segments %llu",
			    (unsigned long long)nr, (unsigned long long)total);
	FUZZ_ASSERT(nr > 0, "accepted an empty extent");
	FUZZ_ASSERT((u128)sector + nr <= l->sectors,
		    "accepted %llu+%llu on a %llu-sector device",
		    (unsigned long long)sector, (unsigned long long)nr,
		    (unsigned long long)l->sectors);
	FUZZ_ASSERT(sector % bs == 0 && nr % bs == 0, "accepted misaligned");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct blkif_request_segment iseg[XBLK_MAX_INDIRECT_SEGS];
	static u8 buf[112];
	struct fz f = { data, size };
	struct xblk_req_limits lim;
	struct blkif_request req;
	struct raw raw;
	enum xblk_req_err e, m;
	u8 flags = fz_u8(&f);
	bool x86_32 = flags & 1;
	unsigned int i, len = x86_32 ? 108 : 112;
	u64 nr;

	memset(&lim, 0, sizeof(lim));
	lim.read_only = flags & 2;
	lim.flush = flags & 4;
	lim.discard = flags & 8;
	lim.logical_block_size = 512u << ((flags >> 4) & 3);
	lim.max_indirect_segs = fz_u16(&f);
	lim.sectors = fz_u64(&f);

	memset(buf, 0, sizeof(buf));
	for (i = 0; i < len; i++)
		buf[i] = fz_u8(&f);
	if (x86_32) {
		struct xblk_x86_32_request src;

		memcpy(&src, buf, sizeof(src));
		xblk_req_from_x86_32(&src, &req);
	} else {
		struct xblk_x86_64_request src;

		memcpy(&src, buf, sizeof(src));
		xblk_req_from_x86_64(&src, &req);
	}
	raw_decode(buf, x86_32, &raw);
	check_decode(&raw, &req);

	e = xblk_req_check(&req, &lim);
	m = model(&raw, &lim);
	FUZZ_ASSERT(e == m, "op %u: %s, model %s", raw.op, xblk_req_err_str(e),
		    xblk_req_err_str(m));
	FUZZ_ASSERT((xblk_req_err_status(e) == BLKIF_RSP_EOPNOTSUPP) ==
		    (e == XBLK_REQ_BAD_OP || e == XBLK_REQ_NOT_OFFERED), "status");
	FUZZ_ASSERT((xblk_req_err_status(e) == BLKIF_RSP_OKAY) ==
		    (e == XBLK_REQ_VALID), "status ok");
#ifdef FUZZ_DEBUG
	fprintf(stderr, "op %u abi %s: %s\n", raw.op, x86_32 ? "x86_32" : "x86_64",
		xblk_req_err_str(e));
#endif
	if (e != XBLK_REQ_VALID)
		return 0;

	switch (raw.op) {
	case BLKIF_OP_READ:
	case BLKIF_OP_WRITE:
		FUZZ_ASSERT(raw.nseg >= 1 && raw.nseg <= 11, "nseg %u", raw.nseg);
		nr = 0;
		for (i = 0; i < raw.nseg; i++)
			nr += raw.seg[i].last_sect - raw.seg[i].first_sect + 1;
		check_safe(raw.seg, raw.nseg, raw.sector, nr, &lim);
		FUZZ_ASSERT(!lim.read_only || raw.op == BLKIF_OP_READ, "ro");
		break;
	case BLKIF_OP_FLUSH_DISKCACHE:
		FUZZ_ASSERT(lim.flush && !lim.read_only && raw.nseg <= 11, "flush");
		if (raw.nseg) {
			nr = 0;
			for (i = 0; i < raw.nseg; i++)
				nr += raw.seg[i].last_sect -
				      raw.seg[i].first_sect + 1;
			check_safe(raw.seg, raw.nseg, raw.sector, nr, &lim);
		}
		break;
	case BLKIF_OP_DISCARD:
		FUZZ_ASSERT(lim.discard && !lim.read_only, "discard");
		check_safe(NULL, 0, raw.sector, raw.nr_sectors, &lim);
		break;
	case BLKIF_OP_INDIRECT: {
		u128 mtotal;

		FUZZ_ASSERT(raw.nseg >= 1 && raw.nseg <= lim.max_indirect_segs &&
			    xblk_indirect_frames(raw.nseg) <=
			    BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST, "indirect nseg %u",
			    raw.nseg);
		FUZZ_ASSERT(raw.inner == BLKIF_OP_READ ||
			    (raw.inner == BLKIF_OP_WRITE && !lim.read_only), "inner");
		/* the backend copies the segments out of the indirect pages */
		for (i = 0; i < raw.nseg; i++) {
			iseg[i].gref = fz_u32(&f);
			iseg[i].first_sect = fz_u8(&f);
			iseg[i].last_sect = fz_u8(&f);
			fz_u16(&f);
		}
		nr = ~0ull;
		e = xblk_req_check_segs(iseg, raw.nseg, raw.sector, &lim, &nr);
		m = model_segs(iseg, raw.nseg, raw.sector, &lim, &mtotal);
		FUZZ_ASSERT(e == m, "indirect segs: %s, model %s",
			    xblk_req_err_str(e), xblk_req_err_str(m));
#ifdef FUZZ_DEBUG
		fprintf(stderr, "  indirect segments: %s\n", xblk_req_err_str(e));
#endif
		if (e == XBLK_REQ_VALID)
			check_safe(iseg, raw.nseg, raw.sector, nr, &lim);
		break;
	}
	default:
		FUZZ_ASSERT(0, "op %u accepted", raw.op);
	}
	return 0;
}
