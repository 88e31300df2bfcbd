// SPDX-License-Identifier: GPL-2.0
/*
 * blkif conformance: one case per rule of conformance.md.  Each feeds
 * values that break the rule and checks that the pure code rejects them
 * with the documented reason, and feeds the boundary value that keeps the
 * rule to show the check is not simply rejecting everything.
 */
#include "xtest.h"
#include "fake_xs.h"
#include "req_helpers.h"

/* ------------------------------------------------------- ring indices -- */

XTEST(conf_rsp_prod_beyond_requests)
{
	/* 4 requests outstanding: rsp_prod may advance by at most 4 */
	CHECK(xblk_rsp_prod_sane(104, 100, 104));
	CHECK(!xblk_rsp_prod_sane(105, 100, 104));
	CHECK(!xblk_rsp_prod_sane(99, 100, 104));		/* backwards */
	CHECK(!xblk_rsp_prod_sane(100 + (1u << 31), 100, 104));
	/* the same across the 2^32 wrap */
	CHECK(xblk_rsp_prod_sane(2, 0xfffffffeu, 2));
	CHECK(!xblk_rsp_prod_sane(3, 0xfffffffeu, 2));
}

XTEST(conf_req_prod_overflow)
{
	unsigned int order;

	for (order = 0; order <= XBLK_MAX_RING_ORDER; order++) {
		unsigned int n = xblk_ring_slots(order);

		CHECK(xblk_req_prod_sane(n, 0, 0, n));
		CHECK(!xblk_req_prod_sane(n + 1, 0, 0, n));
		CHECK(xblk_req_prod_sane(n - 6, 0xfffffffau, 0xfffffffau, n));
		CHECK(!xblk_req_prod_sane(n - 5, 0xfffffffau, 0xfffffffau, n));
		/* req_prod moved backwards past our consumer */
		CHECK(!xblk_req_prod_sane(9, 10, 5, n));
	}
}

/* ----------------------------------------------------------- responses -- */

static enum xblk_rsp_err crsp(u64 id, u8 op, s16 st, unsigned int nr,
			      bool inflight, u8 want_op)
{
	struct blkif_response r;

	memset(&r, 0, sizeof(r));
	r.id = id;
	r.operation = op;
	r.status = st;
	return xblk_check_rsp(&r, nr, inflight, want_op);
}

XTEST(conf_rsp_unknown_id)
{
	CHECK_EQ(crsp(63, 0, 0, 64, true, 0), XBLK_RSP_VALID);
	CHECK_EQ(crsp(64, 0, 0, 64, true, 0), XBLK_RSP_BAD_ID);
	CHECK_EQ(crsp(1ull << 63, 0, 0, 64, true, 0), XBLK_RSP_BAD_ID);
	CHECK_EQ(crsp(64 + (1ull << 32), 0, 0, 64, true, 0), XBLK_RSP_BAD_ID);
}

XTEST(conf_rsp_duplicate_id)
{
	/* the id's request was already completed: not in flight */
	CHECK_EQ(crsp(3, 0, 0, 64, false, 0), XBLK_RSP_NOT_INFLIGHT);
}

XTEST(conf_rsp_operation_mismatch)
{
	CHECK_EQ(crsp(3, BLKIF_OP_WRITE, 0, 64, true, BLKIF_OP_WRITE),
		 XBLK_RSP_VALID);
	CHECK_EQ(crsp(3, BLKIF_OP_READ, 0, 64, true, BLKIF_OP_WRITE),
		 XBLK_RSP_BAD_OP);
	CHECK_EQ(crsp(3, BLKIF_OP_WRITE, 0, 64, true, BLKIF_OP_INDIRECT),
		 XBLK_RSP_BAD_OP);
}

XTEST(conf_rsp_status_unknown)
{
	int st;

	for (st = -32768; st <= 32767; st++) {
		enum xblk_rsp_err e = crsp(0, 1, st, 1, true, 1);
		bool known = st == BLKIF_RSP_OKAY || st == BLKIF_RSP_ERROR ||
			     st == BLKIF_RSP_EOPNOTSUPP;

		if (e != (known ? XBLK_RSP_VALID : XBLK_RSP_BAD_STATUS))
			xt_fail(__FILE__, __LINE__, "status %d: %s", st,
				xblk_rsp_err_str(e));
	}
}

/* ------------------------------------------------------ frontend segs -- */

XTEST(conf_fe_seg_outside_page)
{
	u8 f, l;

	CHECK_EQ(xblk_seg_sectors(3584, 512, &f, &l), 0);
	CHECK_EQ(l, 7);
	CHECK_EQ(xblk_seg_sectors(3584, 1024, &f, &l), -EINVAL);
	CHECK_EQ(xblk_seg_sectors(4096, 512, &f, &l), -EINVAL);
	CHECK_EQ(xblk_seg_sectors(0xfffffe00u, 512, &f, &l), -EINVAL);
	CHECK_EQ(xblk_seg_sectors(100, 512, &f, &l), -EINVAL);
	CHECK_EQ(xblk_seg_sectors(0, 0, &f, &l), -EINVAL);
}

/* ------------------------------------------------------ xenstore keys -- */

static void base(struct fxs *x)
{
	fxs_init(x);
	fxs_set(x, XBLK_KEY_SECTORS, "1024");
	fxs_set(x, XBLK_KEY_INFO, "0");
	fxs_set(x, XBLK_KEY_SECTOR_SIZE, "512");
}

/* base keys plus key=val (and k2=v2): error and blamed key */
static int be1(const char *k2, const char *v2, const char *key,
	       const char *val, const char **bad, struct xblk_be_info *bi)
{
	struct fxs x;

	base(&x);
	if (k2)
		fxs_set(&x, k2, v2);
	fxs_set(&x, key, val);
	*bad = NULL;
	return xblk_parse_be_info(fxs_read, &x, bi, bad, 4096);
}

#define CHECK_BE_BAD(k2, v2, key, val, err)				\
	do {								\
		struct xblk_be_info bi_;				\
		const char *bad_;					\
		CHECK_EQ(be1(k2, v2, key, val, &bad_, &bi_), err);	\
		CHECK_STR(bad_, key);					\
	} while (0)

#define CHECK_BE_OK(k2, v2, key, val)					\
	do {								\
		struct xblk_be_info bi_;				\
		const char *bad_;					\
		CHECK_EQ(be1(k2, v2, key, val, &bad_, &bi_), 0);	\
	} while (0)

XTEST(conf_xs_non_decimal)
{
	static const char *const bad[] = { "0x200", "+512", "-512", " 512",
					   "512\n", "5 12", "" };
	unsigned int i;

	CHECK_BE_OK(NULL, NULL, XBLK_KEY_SECTOR_SIZE, "512");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_BE_BAD(NULL, NULL, XBLK_KEY_SECTOR_SIZE, bad[i], -EINVAL);
}

XTEST(conf_xs_required_keys)
{
	CHECK_BE_BAD(NULL, NULL, XBLK_KEY_SECTORS, NULL, -ENOENT);
	CHECK_BE_BAD(NULL, NULL, XBLK_KEY_INFO, NULL, -ENOENT);
	CHECK_BE_BAD(NULL, NULL, XBLK_KEY_SECTOR_SIZE, NULL, -ENOENT);
}

XTEST(conf_xs_sector_size)
{
	CHECK_BE_OK(NULL, NULL, XBLK_KEY_SECTOR_SIZE, "4096");
	CHECK_BE_BAD(NULL, NULL, XBLK_KEY_SECTOR_SIZE, "1000", -ERANGE);
	CHECK_BE_BAD(NULL, NULL, XBLK_KEY_SECTOR_SIZE, "0", -ERANGE);
	CHECK_BE_BAD(NULL, NULL, XBLK_KEY_SECTOR_SIZE, "256", -ERANGE);
	CHECK_BE_BAD(NULL, NULL, XBLK_KEY_SECTOR_SIZE, "8192", -ERANGE);
}

XTEST(conf_xs_phys_sector_size)
{
	CHECK_BE_OK(NULL, NULL, XBLK_KEY_PHYS_SECTOR_SIZE, "4096");
	CHECK_BE_BAD(NULL, NULL, XBLK_KEY_PHYS_SECTOR_SIZE, "1536", -ERANGE);
	CHECK_BE_BAD(NULL, NULL, XBLK_KEY_PHYS_SECTOR_SIZE, "0", -ERANGE);
}

XTEST(conf_xs_feature_bool)
{
	static const char *const keys[] = {
		XBLK_KEY_PERSISTENT, XBLK_KEY_FLUSH, XBLK_KEY_BARRIER,
		XBLK_KEY_DISCARD,
	};
	unsigned int i;

	for (i = 0; i < 4; i++) {
		CHECK_BE_OK(NULL, NULL, keys[i], "1");
		CHECK_BE_BAD(NULL, NULL, keys[i], "2", -ERANGE);
	}
	CHECK_BE_BAD(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_SECURE, "2", -ERANGE);
}

XTEST(conf_xs_sectors_units)
{
	struct xblk_be_info bi;
	const char *bad;

	/* "sectors" counts 512-byte units even on a 4K disk */
	CHECK_EQ(be1(XBLK_KEY_SECTOR_SIZE, "4096", XBLK_KEY_SECTORS, "8",
		     &bad, &bi), 0);
	CHECK_EQ(bi.sectors, 8);
	CHECK_EQ(bi.sector_size, 4096);
	/* and the byte size must be representable */
	CHECK_BE_OK(NULL, NULL, XBLK_KEY_SECTORS, "18014398509481983");
	CHECK_BE_BAD(NULL, NULL, XBLK_KEY_SECTORS, "18014398509481984", -ERANGE);
}

XTEST(conf_xs_discard_needs_feature)
{
	struct xblk_be_info bi;
	const char *bad;

	CHECK_EQ(be1(NULL, NULL, XBLK_KEY_DISCARD_GRAN, "bogus", &bad, &bi), 0);
	CHECK_EQ(bi.discard_granularity, 0);
	CHECK(!bi.discard);
	CHECK_BE_BAD(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_GRAN, "bogus",
		     -EINVAL);
}

XTEST(conf_xs_discard_geometry)
{
	CHECK_BE_OK(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_GRAN, "65536");
	CHECK_BE_BAD(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_GRAN, "65535",
		     -ERANGE);
	CHECK_BE_BAD(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_ALIGN, "1",
		     -ERANGE);
}

/* --------------------------------------------------------- negotiation -- */

static struct xblk_negotiated neg(unsigned int be_q, unsigned int be_order,
				  unsigned int be_ind, bool be_pers,
				  unsigned int fe_q, unsigned int cpus,
				  unsigned int fe_order, unsigned int fe_ind,
				  bool fe_pers)
{
	struct xblk_be_info bi;
	struct xblk_fe_limits fl;
	struct xblk_negotiated n;

	memset(&bi, 0, sizeof(bi));
	memset(&fl, 0, sizeof(fl));
	bi.max_queues = be_q;
	bi.max_ring_order = be_order;
	bi.max_indirect_segs = be_ind;
	bi.persistent = be_pers;
	bi.sector_size = 512;
	fl.max_queues = fe_q;
	fl.nr_cpus = cpus;
	fl.max_ring_order = fe_order;
	fl.max_indirect_segs = fe_ind;
	fl.persistent = fe_pers;
	xblk_negotiate(&bi, &fl, &n);
	return n;
}

XTEST(conf_neg_queues)
{
	/* multi-queue-num-queues: > 0 and <= multi-queue-max-queues */
	CHECK_EQ(neg(2, 0, 0, 0, 8, 8, 0, 0, 0).nr_queues, 2);
	CHECK_EQ(neg(1, 0, 0, 0, 0, 0, 0, 0, 0).nr_queues, 1);
	CHECK_EQ(neg(32, 0, 0, 0, 64, 64, 0, 0, 0).nr_queues, 32);
}

XTEST(conf_neg_ring_order)
{
	/* ring-page-order <= max-ring-page-order */
	CHECK_EQ(neg(1, 1, 0, 0, 1, 1, 4, 0, 0).ring_order, 1);
	CHECK_EQ(neg(1, 0, 0, 0, 1, 1, 4, 0, 0).ring_order, 0);
}

XTEST(conf_neg_indirect)
{
	struct xblk_negotiated n;

	n = neg(1, 0, 0, 0, 1, 1, 0, 1024, 0);	/* backend did not offer */
	CHECK(!n.indirect);
	CHECK_EQ(n.segs, BLKIF_MAX_SEGMENTS_PER_REQUEST);
	n = neg(1, 0, 64, 0, 1, 1, 0, 1024, 0);	/* at most what it offered */
	CHECK(n.indirect);
	CHECK_EQ(n.segs, 64);
}

XTEST(conf_neg_persistent)
{
	CHECK(!neg(1, 0, 0, false, 1, 1, 0, 0, true).persistent);
	CHECK(!neg(1, 0, 0, true, 1, 1, 0, 0, false).persistent);
	CHECK(neg(1, 0, 0, true, 1, 1, 0, 0, true).persistent);
}

/* ----------------------------------------------------- virtual-device -- */

XTEST(conf_vdev_reserved)
{
	unsigned int index, part;
	bool ext;

	CHECK_EQ(xblk_vdev_decode(1u << 28 | 5 << 8 | 15, &index, &part, &ext), 0);
	CHECK_EQ(xblk_vdev_decode(2u << 28, &index, &part, &ext), -EINVAL);
	CHECK_EQ(xblk_vdev_decode(1u << 28 | 16, &index, &part, &ext), -EINVAL);
	CHECK_EQ(xblk_vdev_decode(100 << 8, &index, &part, &ext), -EINVAL);
	CHECK_EQ(xblk_vdev_decode(3 << 8 | 128, &index, &part, &ext), -EINVAL);
	CHECK_EQ(xblk_vdev_decode(1u << 16, &index, &part, &ext), -EINVAL);
}

/*
 * Exhaustive over every 16-bit number: within one bus type (xvd, hd, sd)
 * no two numbers name the same disk and partition.
 */
XTEST(conf_vdev_no_alias_within_bus)
{
	static u32 owner[3][64 * 16 + 256 * 16];
	unsigned int v, index, part, bus;
	bool ext;

	memset(owner, 0, sizeof(owner));
	for (v = 0; v < 0x10000; v++) {
		unsigned int major = v >> 8;

		if (xblk_vdev_decode(v, &index, &part, &ext))
			continue;
		CHECK(!ext);
		CHECK(part < 16);
		bus = major == XBLK_XVD_MAJOR ? 0 : (major == 8 ||
		      (major >= 65 && major <= 71)) ? 2 : 1;
		if (index * 16 + part >= sizeof(owner[0]) / sizeof(owner[0][0])) {
			xt_fail(__FILE__, __LINE__, "vdev %#x: index %u", v, index);
			continue;
		}
		if (owner[bus][index * 16 + part])
			xt_fail(__FILE__, __LINE__,
				"vdev %#x and %#x both decode to index %u part %u",
				owner[bus][index * 16 + part] - 1, v, index, part);
		owner[bus][index * 16 + part] = v + 1;
	}
}

XTEST(conf_abi_unknown)
{
	enum xblk_abi abi;

	CHECK_EQ(xblk_abi_parse("x86_64-abi", &abi), 0);
	CHECK_EQ(xblk_abi_parse("x86_16-abi", &abi), -EINVAL);
	CHECK_EQ(xblk_abi_parse("arm-abi", &abi), -EINVAL);
}

/* ------------------------------------------------------------ requests -- */

static enum xblk_req_err chk(const struct blkif_request *r,
			     const struct xblk_req_limits *l)
{
	return xblk_req_check(r, l);
}

XTEST(conf_req_rw_nr_segs)
{
	struct xblk_req_limits l = lim_default();
	static const u8 ops[] = { BLKIF_OP_READ, BLKIF_OP_WRITE };
	unsigned int i;

	for (i = 0; i < 2; i++) {
		struct blkif_request r = mkrw(ops[i], 11, 0);

		CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
		r.u.rw.nr_segments = 0;
		CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_NR_SEGS);
		r.u.rw.nr_segments = 12;
		CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_NR_SEGS);
		r.u.rw.nr_segments = 255;
		CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_NR_SEGS);
	}
}

XTEST(conf_req_flush_nr_segs)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r = mkrw(BLKIF_OP_FLUSH_DISKCACHE, 0, ~0ull);

	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);		/* pure flush */
	r = mkrw(BLKIF_OP_FLUSH_DISKCACHE, 11, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r.u.rw.nr_segments = 12;
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_NR_SEGS);
	r.u.rw.nr_segments = 2;
	r.u.rw.seg[1] = mkseg(0, 3, 2);			/* data is checked */
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_SEG);
	r = mkrw(BLKIF_OP_FLUSH_DISKCACHE, 1, l.sectors);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_OUT_OF_RANGE);
}

XTEST(conf_req_indirect_nr_segs)
{
	struct xblk_req_limits l = lim_default();		/* 256 offered */
	struct blkif_request r = mkindirect(BLKIF_OP_READ, 256, 0);

	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r.u.indirect.nr_segments = 1;
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r.u.indirect.nr_segments = 0;
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_NR_SEGS);
	r.u.indirect.nr_segments = 257;
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_NR_SEGS);
	r.u.indirect.nr_segments = 65535;
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_NR_SEGS);
}

XTEST(conf_req_indirect_too_many_pages)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r = mkindirect(BLKIF_OP_WRITE, 4096, 0);

	/* even if we advertised more than 8 indirect pages can hold */
	l.max_indirect_segs = 65535;
	CHECK_EQ(xblk_indirect_frames(4096), BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r.u.indirect.nr_segments = 4097;		/* 9 pages */
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_NR_SEGS);
	r.u.indirect.nr_segments = 8 * 512 + 512;
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_NR_SEGS);
}

XTEST(conf_req_seg_first_after_last)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r = mkrw(BLKIF_OP_READ, 3, 0);

	r.u.rw.seg[2] = mkseg(1, 4, 4);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r.u.rw.seg[2] = mkseg(1, 5, 4);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_SEG);
	r.u.rw.seg[2] = mkseg(1, 7, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_SEG);
}

XTEST(conf_req_seg_beyond_page)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r = mkrw(BLKIF_OP_WRITE, 1, 0);
	struct blkif_request_segment s[2];
	u64 n;

	r.u.rw.seg[0] = mkseg(1, 0, 8);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_SEG);
	r.u.rw.seg[0] = mkseg(1, 8, 8);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_SEG);
	r.u.rw.seg[0] = mkseg(1, 255, 255);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_SEG);
	/* indirect segments, checked once copied out of the pages */
	s[0] = mkseg(1, 0, 7);
	s[1] = mkseg(2, 0, 9);
	CHECK_EQ(xblk_req_check_segs(s, 1, 0, &l, &n), XBLK_REQ_VALID);
	CHECK_EQ(xblk_req_check_segs(s, 2, 0, &l, &n), XBLK_REQ_BAD_SEG);
}

XTEST(conf_req_beyond_device)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r;
	struct blkif_request_segment s = mkseg(1, 0, 7);
	u64 n;

	r = mkrw(BLKIF_OP_READ, 1, l.sectors - 8);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r = mkrw(BLKIF_OP_READ, 1, l.sectors - 7);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_OUT_OF_RANGE);
	r = mkrw(BLKIF_OP_READ, 1, l.sectors);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_OUT_OF_RANGE);
	CHECK_EQ(xblk_req_check_segs(&s, 1, l.sectors - 4, &l, &n),
		 XBLK_REQ_OUT_OF_RANGE);
	/* an empty device takes nothing */
	l.sectors = 0;
	r = mkrw(BLKIF_OP_READ, 1, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_OUT_OF_RANGE);
}

XTEST(conf_req_sector_wraps)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r;

	l.sectors = ~0ull - 7;			/* huge device */
	r = mkrw(BLKIF_OP_WRITE, 2, ~0ull - 7);	/* sector + 16 wraps to 8 */
	CHECK_EQ(chk(&r, &l), XBLK_REQ_OUT_OF_RANGE);
	r = mkrw(BLKIF_OP_WRITE, 1, ~0ull - 15);	/* ends exactly at the end */
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r = mkdiscard(8, ~0ull - 7, 0);		/* 8 + (2^64 - 8) wraps to 0 */
	CHECK_EQ(chk(&r, &l), XBLK_REQ_OUT_OF_RANGE);
	r = mkdiscard(~0ull, 2, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_OUT_OF_RANGE);
}

XTEST(conf_req_unaligned_4k)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r;

	l.logical_block_size = 4096;
	r = mkrw(BLKIF_OP_READ, 1, 8);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r = mkrw(BLKIF_OP_READ, 1, 9);			/* start */
	CHECK_EQ(chk(&r, &l), XBLK_REQ_MISALIGNED);
	r = mkrw(BLKIF_OP_READ, 1, 8);
	r.u.rw.seg[0] = mkseg(1, 0, 6);			/* length */
	CHECK_EQ(chk(&r, &l), XBLK_REQ_MISALIGNED);
	r = mkrw(BLKIF_OP_READ, 2, 0);			/* 2 x 2 KiB segments */
	r.u.rw.seg[0] = mkseg(1, 0, 3);
	r.u.rw.seg[1] = mkseg(2, 4, 7);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_MISALIGNED);
	r = mkdiscard(4, 8, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_MISALIGNED);
	r = mkdiscard(8, 12, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_MISALIGNED);
	r = mkdiscard(8, 16, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
}

XTEST(conf_req_write_read_only)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r;

	l.read_only = true;
	r = mkrw(BLKIF_OP_READ, 1, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r = mkindirect(BLKIF_OP_READ, 20, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r = mkrw(BLKIF_OP_WRITE, 1, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_READ_ONLY);
	r.u.rw.nr_segments = 0;			/* before the segment count */
	CHECK_EQ(chk(&r, &l), XBLK_REQ_READ_ONLY);
	r = mkrw(BLKIF_OP_FLUSH_DISKCACHE, 0, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_READ_ONLY);
	r = mkdiscard(0, 8, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_READ_ONLY);
	r = mkindirect(BLKIF_OP_WRITE, 20, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_READ_ONLY);
}

XTEST(conf_req_unknown_op)
{
	static const u8 ops[] = { 4, 7, 8, 100, 255 };
	struct xblk_req_limits l = lim_default();
	unsigned int i;

	for (i = 0; i < sizeof(ops); i++) {
		struct blkif_request r = mkop(ops[i]);

		CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_OP);
		CHECK_EQ(xblk_req_err_status(chk(&r, &l)), BLKIF_RSP_EOPNOTSUPP);
	}
}

XTEST(conf_req_not_offered)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r;

	r = mkrw(BLKIF_OP_WRITE_BARRIER, 1, 0);		/* never offered */
	CHECK_EQ(chk(&r, &l), XBLK_REQ_NOT_OFFERED);
	l.flush = false;
	r = mkrw(BLKIF_OP_FLUSH_DISKCACHE, 0, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_NOT_OFFERED);
	l.discard = false;
	r = mkdiscard(0, 8, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_NOT_OFFERED);
	l.max_indirect_segs = 0;
	r = mkindirect(BLKIF_OP_READ, 1, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_NOT_OFFERED);
	CHECK_EQ(xblk_req_err_status(chk(&r, &l)), BLKIF_RSP_EOPNOTSUPP);
}

XTEST(conf_req_indirect_bad_inner_op)
{
	static const u8 inner[] = {
		BLKIF_OP_WRITE_BARRIER, BLKIF_OP_FLUSH_DISKCACHE, 4,
		BLKIF_OP_DISCARD, BLKIF_OP_INDIRECT, 255,
	};
	struct xblk_req_limits l = lim_default();
	unsigned int i;

	for (i = 0; i < sizeof(inner); i++) {
		struct blkif_request r = mkindirect(inner[i], 8, 0);

		CHECK_EQ(chk(&r, &l), XBLK_REQ_BAD_INDIRECT_OP);
		CHECK_EQ(xblk_req_err_status(chk(&r, &l)), BLKIF_RSP_ERROR);
	}
}

XTEST(conf_req_discard_empty_and_range)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r;

	r = mkdiscard(0, l.sectors, BLKIF_DISCARD_SECURE);	/* whole disk */
	CHECK_EQ(chk(&r, &l), XBLK_REQ_VALID);
	r = mkdiscard(0, 0, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_EMPTY);
	r = mkdiscard(1, l.sectors, 0);
	CHECK_EQ(chk(&r, &l), XBLK_REQ_OUT_OF_RANGE);
}

XTEST(conf_req_refusal_status)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r = mkrw(BLKIF_OP_READ, 0, 0);

	CHECK_EQ(xblk_req_err_status(chk(&r, &l)), BLKIF_RSP_ERROR);
	r = mkrw(BLKIF_OP_READ, 1, l.sectors);
	CHECK_EQ(xblk_req_err_status(chk(&r, &l)), BLKIF_RSP_ERROR);
	r = mkrw(BLKIF_OP_WRITE_BARRIER, 1, 0);
	CHECK_EQ(xblk_req_err_status(chk(&r, &l)), BLKIF_RSP_EOPNOTSUPP);
}
