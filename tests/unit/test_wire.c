// SPDX-License-Identifier: GPL-2.0
/* Unit tests of include/xblk/wire.h: ring sizes, segment math, indices. */
#include "xtest.h"
#include "xblk/wire.h"

/*
 * Sizes from blkif.h itself, recomputed here by hand rather than through
 * the ring macros: 64-byte sring header (4 indices + 48 bytes of pad),
 * entries are the larger of request (112) and response (16).
 */
#define SRING_HDR	64u
#define REQ_SIZE	112u

static bool is_pow2(unsigned long v)
{
	return v && !(v & (v - 1));
}

static unsigned int pow2_floor(unsigned long v)
{
	unsigned long p = 1;

	if (!v)
		return 0;
	while (p * 2 <= v)
		p *= 2;
	return p;
}

XTEST(blkif_struct_layout)
{
	CHECK_EQ(sizeof(struct blkif_request), REQ_SIZE);
	CHECK_EQ(sizeof(struct blkif_response), 16);
	CHECK_EQ(sizeof(struct blkif_request_segment), 8);
	CHECK_EQ(offsetof(struct blkif_request, u.rw.id), 8);
	CHECK_EQ(offsetof(struct blkif_request, u.indirect.id), 8);
	CHECK_EQ(offsetof(struct blkif_request, u.discard.id), 8);
	CHECK_EQ(offsetof(struct blkif_request, u.rw.seg), 24);
	CHECK_EQ(offsetof(struct blkif_sring, ring), SRING_HDR);
	CHECK_EQ(sizeof(union blkif_sring_entry), REQ_SIZE);
}

XTEST(wire_constants)
{
	CHECK_EQ(XEN_PAGE_SIZE, 4096);
	CHECK_EQ(XBLK_SECTORS_PER_PAGE, 8);
	CHECK_EQ(XBLK_SEGS_PER_INDIRECT_FRAME, 512);
	CHECK_EQ(XBLK_MAX_INDIRECT_SEGS, 8 * 512);
	CHECK_EQ(BLKIF_MAX_SEGMENTS_PER_REQUEST, 11);
}

XTEST(ring_slots_known_sizes)
{
	/* The sizes every blkif implementation uses for 1..16-page rings. */
	CHECK_EQ(xblk_ring_slots(0), 32);
	CHECK_EQ(xblk_ring_slots(1), 64);
	CHECK_EQ(xblk_ring_slots(2), 128);
	CHECK_EQ(xblk_ring_slots(3), 256);
	CHECK_EQ(xblk_ring_slots(4), 512);
}

XTEST(ring_slots_match_formula)
{
	unsigned int order;

	for (order = 0; order <= 10; order++) {
		unsigned long bytes = 4096ul << order;
		unsigned int want = pow2_floor((bytes - SRING_HDR) / REQ_SIZE);
		unsigned int got = xblk_ring_slots(order);

		CHECK_EQ(got, want);
		CHECK(is_pow2(got));
		/* Fits, and twice as many would not. */
		CHECK(SRING_HDR + (unsigned long)got * REQ_SIZE <= bytes);
		CHECK(SRING_HDR + 2ul * got * REQ_SIZE > bytes);
	}
}

XTEST(indirect_frames)
{
	CHECK_EQ(xblk_indirect_frames(0), 0);
	CHECK_EQ(xblk_indirect_frames(1), 1);
	CHECK_EQ(xblk_indirect_frames(12), 1);
	CHECK_EQ(xblk_indirect_frames(511), 1);
	CHECK_EQ(xblk_indirect_frames(512), 1);
	CHECK_EQ(xblk_indirect_frames(513), 2);
	CHECK_EQ(xblk_indirect_frames(1024), 2);
	CHECK_EQ(xblk_indirect_frames(4095), 8);
	CHECK_EQ(xblk_indirect_frames(4096), BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST);
	CHECK_EQ(xblk_indirect_frames(4097), 9);
}

/* Returns the error, and the sectors via *f and *l (0xaa if untouched). */
static int seg(unsigned int off, unsigned int len, int *f, int *l)
{
	u8 first = 0xaa, last = 0xaa;
	int ret = xblk_seg_sectors(off, len, &first, &last);

	*f = first;
	*l = last;
	return ret;
}

XTEST(seg_sectors_valid)
{
	int f, l;

	CHECK_EQ(seg(0, 4096, &f, &l), 0);	/* whole page */
	CHECK_EQ(f, 0);
	CHECK_EQ(l, 7);
	CHECK_EQ(seg(0, 512, &f, &l), 0);	/* first sector */
	CHECK_EQ(f, 0);
	CHECK_EQ(l, 0);
	CHECK_EQ(seg(3584, 512, &f, &l), 0);	/* last sector, ends at page end */
	CHECK_EQ(f, 7);
	CHECK_EQ(l, 7);
	CHECK_EQ(seg(512, 1024, &f, &l), 0);
	CHECK_EQ(f, 1);
	CHECK_EQ(l, 2);
	CHECK_EQ(seg(1024, 3072, &f, &l), 0);	/* to the page end */
	CHECK_EQ(f, 2);
	CHECK_EQ(l, 7);
}

XTEST(seg_sectors_invalid)
{
	int f, l;

	CHECK_EQ(seg(0, 0, &f, &l), -EINVAL);		/* zero length */
	CHECK_EQ(f, 0xaa);				/* outputs untouched */
	CHECK_EQ(l, 0xaa);
	CHECK_EQ(seg(4096, 0, &f, &l), -EINVAL);
	CHECK_EQ(seg(4096, 512, &f, &l), -EINVAL);	/* starts at page end */
	CHECK_EQ(seg(3584, 1024, &f, &l), -EINVAL);	/* crosses page end */
	CHECK_EQ(seg(512, 4096, &f, &l), -EINVAL);
	CHECK_EQ(seg(0, 8192, &f, &l), -EINVAL);	/* longer than a page */
	CHECK_EQ(seg(1, 512, &f, &l), -EINVAL);		/* unaligned offset */
	CHECK_EQ(seg(0, 511, &f, &l), -EINVAL);		/* partial sector */
	CHECK_EQ(seg(0, 513, &f, &l), -EINVAL);
	CHECK_EQ(seg(256, 256, &f, &l), -EINVAL);
	CHECK_EQ(seg(3584, 511, &f, &l), -EINVAL);
	CHECK_EQ(f, 0xaa);
	CHECK_EQ(l, 0xaa);
}

XTEST(seg_sectors_no_wraparound)
{
	int f, l;

	/* offset + len wraps 32 bits: must not look like a small segment. */
	CHECK_EQ(seg(0xfffffe00u, 512, &f, &l), -EINVAL);
	CHECK_EQ(seg(0xfffff000u, 4096, &f, &l), -EINVAL);
	CHECK_EQ(seg(512, 0xfffffe00u, &f, &l), -EINVAL);
	CHECK_EQ(seg(0xfffffe00u, 0xfffffe00u, &f, &l), -EINVAL);
	CHECK_EQ(f, 0xaa);
	CHECK_EQ(l, 0xaa);
}

/* Every combination of sector-aligned offset/len around a page. */
XTEST(seg_sectors_exhaustive_aligned)
{
	unsigned int off, len;

	for (off = 0; off <= 8192; off += 512) {
		for (len = 0; len <= 8192; len += 512) {
			u8 first = 0xaa, last = 0xaa;
			int ret = xblk_seg_sectors(off, len, &first, &last);
			bool fits = len && off + len <= 4096;

			CHECK_EQ(ret, fits ? 0 : -EINVAL);
			if (fits) {
				CHECK_EQ(first, off / 512);
				CHECK_EQ(last, (off + len) / 512 - 1);
				CHECK(last <= 7);
			}
		}
	}
}

XTEST(rsp_prod_sane_basic)
{
	/* nothing outstanding: only rsp_prod == rsp_cons is plausible */
	CHECK(xblk_rsp_prod_sane(0, 0, 0));
	CHECK(!xblk_rsp_prod_sane(1, 0, 0));
	/* 5 outstanding */
	CHECK(xblk_rsp_prod_sane(0, 0, 5));
	CHECK(xblk_rsp_prod_sane(3, 0, 5));
	CHECK(xblk_rsp_prod_sane(5, 0, 5));
	CHECK(!xblk_rsp_prod_sane(6, 0, 5));
	CHECK(xblk_rsp_prod_sane(5, 3, 5));
	CHECK(!xblk_rsp_prod_sane(2, 3, 5));	/* went backwards */
	CHECK(!xblk_rsp_prod_sane(0xffffffffu, 0, 5));
}

XTEST(rsp_prod_sane_wraparound)
{
	/* 32 requests outstanding across the 2^32 wrap of the indices */
	RING_IDX cons = 0xfffffff0u, prod = 0x10u;

	CHECK(xblk_rsp_prod_sane(cons, cons, prod));
	CHECK(xblk_rsp_prod_sane(0xffffffffu, cons, prod));
	CHECK(xblk_rsp_prod_sane(0, cons, prod));
	CHECK(xblk_rsp_prod_sane(0x10u, cons, prod));
	CHECK(!xblk_rsp_prod_sane(0x11u, cons, prod));
	CHECK(!xblk_rsp_prod_sane(0xffffffefu, cons, prod));	/* behind cons */
	CHECK(!xblk_rsp_prod_sane(0x80000000u, cons, prod));
	/* req_prod exactly at the wrap */
	CHECK(xblk_rsp_prod_sane(0, 0xfffffffeu, 0));
	CHECK(!xblk_rsp_prod_sane(1, 0xfffffffeu, 0));
}

XTEST(req_prod_sane_basic)
{
	/* xblk_req_prod_sane(req_prod, req_cons, rsp_prod, ring_size) */
	CHECK(xblk_req_prod_sane(0, 0, 0, 32));
	CHECK(xblk_req_prod_sane(32, 0, 0, 32));	/* ring full */
	CHECK(!xblk_req_prod_sane(33, 0, 0, 32));	/* more than the ring */
	CHECK(xblk_req_prod_sane(40, 10, 8, 32));
	CHECK(!xblk_req_prod_sane(41, 10, 8, 32));
	CHECK(xblk_req_prod_sane(10, 10, 8, 32));	/* nothing new */
	CHECK(!xblk_req_prod_sane(9, 10, 8, 32));	/* behind our consumer */
	CHECK(!xblk_req_prod_sane(7, 10, 8, 32));	/* behind rsp_prod */
	CHECK(!xblk_req_prod_sane(0xffffffffu, 0, 0, 32));
	CHECK(xblk_req_prod_sane(512, 0, 0, 512));
	CHECK(!xblk_req_prod_sane(513, 0, 0, 512));
}

XTEST(req_prod_sane_wraparound)
{
	RING_IDX rsp = 0xfffffff0u, cons = 0xfffffff8u;

	CHECK(xblk_req_prod_sane(cons, cons, rsp, 32));
	CHECK(xblk_req_prod_sane(0, cons, rsp, 32));
	CHECK(xblk_req_prod_sane(0x10u, cons, rsp, 32));	/* 32 outstanding */
	CHECK(!xblk_req_prod_sane(0x11u, cons, rsp, 32));
	CHECK(!xblk_req_prod_sane(0xfffffff7u, cons, rsp, 32));	/* < req_cons */
	CHECK(!xblk_req_prod_sane(0xffffffefu, cons, rsp, 32));	/* < rsp_prod */
}

static struct blkif_response rsp(u64 id, u8 op, s16 status)
{
	struct blkif_response r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.operation = op;
	r.status = status;
	return r;
}

XTEST(check_rsp_valid)
{
	struct blkif_response r;

	r = rsp(0, BLKIF_OP_READ, BLKIF_RSP_OKAY);
	CHECK_EQ(xblk_check_rsp(&r, 32, true, BLKIF_OP_READ), XBLK_RSP_VALID);
	r = rsp(31, BLKIF_OP_WRITE, BLKIF_RSP_ERROR);
	CHECK_EQ(xblk_check_rsp(&r, 32, true, BLKIF_OP_WRITE), XBLK_RSP_VALID);
	r = rsp(7, BLKIF_OP_WRITE_BARRIER, BLKIF_RSP_EOPNOTSUPP);
	CHECK_EQ(xblk_check_rsp(&r, 32, true, BLKIF_OP_WRITE_BARRIER),
		 XBLK_RSP_VALID);
	r = rsp(4095, BLKIF_OP_INDIRECT, BLKIF_RSP_OKAY);
	CHECK_EQ(xblk_check_rsp(&r, 4096, true, BLKIF_OP_INDIRECT),
		 XBLK_RSP_VALID);
}

XTEST(check_rsp_bad_id)
{
	struct blkif_response r;

	r = rsp(32, BLKIF_OP_READ, BLKIF_RSP_OKAY);
	CHECK_EQ(xblk_check_rsp(&r, 32, true, BLKIF_OP_READ), XBLK_RSP_BAD_ID);
	r = rsp(0, BLKIF_OP_READ, BLKIF_RSP_OKAY);
	CHECK_EQ(xblk_check_rsp(&r, 0, true, BLKIF_OP_READ), XBLK_RSP_BAD_ID);
	/* ids are 64-bit on the wire: no truncation to the low bits */
	r = rsp(1ull << 32, BLKIF_OP_READ, BLKIF_RSP_OKAY);
	CHECK_EQ(xblk_check_rsp(&r, 32, true, BLKIF_OP_READ), XBLK_RSP_BAD_ID);
	r = rsp(~0ull, BLKIF_OP_READ, BLKIF_RSP_OKAY);
	CHECK_EQ(xblk_check_rsp(&r, 32, true, BLKIF_OP_READ), XBLK_RSP_BAD_ID);
	/* range is checked before anything else */
	r = rsp(99, BLKIF_OP_WRITE, 42);
	CHECK_EQ(xblk_check_rsp(&r, 32, false, BLKIF_OP_READ), XBLK_RSP_BAD_ID);
}

XTEST(check_rsp_not_inflight)
{
	struct blkif_response r = rsp(3, BLKIF_OP_READ, BLKIF_RSP_OKAY);

	CHECK_EQ(xblk_check_rsp(&r, 32, false, BLKIF_OP_READ),
		 XBLK_RSP_NOT_INFLIGHT);
	/* before the op and status checks */
	r = rsp(3, BLKIF_OP_WRITE, 42);
	CHECK_EQ(xblk_check_rsp(&r, 32, false, BLKIF_OP_READ),
		 XBLK_RSP_NOT_INFLIGHT);
}

XTEST(check_rsp_bad_op)
{
	struct blkif_response r = rsp(3, BLKIF_OP_WRITE, BLKIF_RSP_OKAY);

	CHECK_EQ(xblk_check_rsp(&r, 32, true, BLKIF_OP_READ), XBLK_RSP_BAD_OP);
	r = rsp(3, BLKIF_OP_READ, BLKIF_RSP_OKAY);
	CHECK_EQ(xblk_check_rsp(&r, 32, true, BLKIF_OP_INDIRECT),
		 XBLK_RSP_BAD_OP);
	r = rsp(3, 0xff, 42);		/* op checked before status */
	CHECK_EQ(xblk_check_rsp(&r, 32, true, BLKIF_OP_READ), XBLK_RSP_BAD_OP);
}

XTEST(check_rsp_bad_status)
{
	static const s16 bad[] = { 1, 2, -3, -4, 0x7fff, -0x8000, -22 };
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct blkif_response r = rsp(1, BLKIF_OP_FLUSH_DISKCACHE, bad[i]);

		CHECK_EQ(xblk_check_rsp(&r, 2, true, BLKIF_OP_FLUSH_DISKCACHE),
			 XBLK_RSP_BAD_STATUS);
	}
}

XTEST(rsp_err_str_distinct)
{
	const enum xblk_rsp_err all[] = {
		XBLK_RSP_VALID, XBLK_RSP_BAD_ID, XBLK_RSP_NOT_INFLIGHT,
		XBLK_RSP_BAD_OP, XBLK_RSP_BAD_STATUS,
	};
	unsigned int i, j;

	CHECK_STR(xblk_rsp_err_str(XBLK_RSP_VALID), "valid");
	CHECK_STR(xblk_rsp_err_str(XBLK_RSP_BAD_ID), "id out of range");
	CHECK_STR(xblk_rsp_err_str((enum xblk_rsp_err)77), "?");
	for (i = 0; i < 5; i++)
		for (j = i + 1; j < 5; j++)
			CHECK(strcmp(xblk_rsp_err_str(all[i]),
				     xblk_rsp_err_str(all[j])));
}
