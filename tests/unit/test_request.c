// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/xblk/request.h: ABI layouts and decoding, and the
 * backend's validation of requests.  The blkif rule-by-rule rejection
 * cases are in test_conformance.c.
 */
#include "xtest.h"
#include "req_helpers.h"

/* ------------------------------------------------------------ layouts -- */

XTEST(req_x86_32_layout)
{
	/* i386 packs the 64-bit id right after the 4 bytes of header */
	CHECK_EQ(sizeof(struct xblk_x86_32_request), 108);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.rw.nr_segments), 1);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.rw.handle), 2);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.rw.id), 4);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.rw.sector_number), 12);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.rw.seg), 20);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.discard.id), 4);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.discard.sector_number), 12);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.discard.nr_sectors), 20);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.other.id), 4);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.indirect.nr_segments), 2);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.indirect.id), 4);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.indirect.sector_number), 12);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.indirect.handle), 20);
	CHECK_EQ(offsetof(struct xblk_x86_32_request, u.indirect.indirect_grefs), 24);
	CHECK_EQ(sizeof(((struct xblk_x86_32_request *)0)->u.indirect), 63);
}

#define SAME_OFF(f) CHECK_EQ(offsetof(struct xblk_x86_64_request, f), \
			     offsetof(struct blkif_request, f))

XTEST(req_x86_64_layout_is_native)
{
	CHECK_EQ(sizeof(struct xblk_x86_64_request), sizeof(struct blkif_request));
	SAME_OFF(u.rw.nr_segments);
	SAME_OFF(u.rw.handle);
	SAME_OFF(u.rw.id);
	SAME_OFF(u.rw.sector_number);
	SAME_OFF(u.rw.seg);
	SAME_OFF(u.discard.flag);
	SAME_OFF(u.discard.id);
	SAME_OFF(u.discard.sector_number);
	SAME_OFF(u.discard.nr_sectors);
	SAME_OFF(u.other.id);
	SAME_OFF(u.indirect.indirect_op);
	SAME_OFF(u.indirect.nr_segments);
	SAME_OFF(u.indirect.id);
	SAME_OFF(u.indirect.sector_number);
	SAME_OFF(u.indirect.handle);
	SAME_OFF(u.indirect.indirect_grefs);
	CHECK_EQ(offsetof(struct blkif_request, u.indirect.indirect_grefs), 28);
}

/*
 * The i386 shared ring as a backend declares it with the ring macros: the
 * element is the 108-byte request (the response member must not raise its
 * alignment), so slot addresses differ from the native ring, but the number
 * of slots is the same for every ring order we use.
 */
DEFINE_RING_TYPES(t32, struct xblk_x86_32_request,
		  struct blkif_response __attribute__((__packed__)));

XTEST(req_x86_32_ring_geometry)
{
	unsigned int order;

	CHECK_EQ(sizeof(union t32_sring_entry), 108);
	CHECK_EQ(offsetof(struct t32_sring, ring), 64);
	/* status of the shared response stays at offset 10, as on i386 */
	CHECK_EQ(offsetof(struct blkif_response, status), 10);
	for (order = 0; order <= XBLK_MAX_RING_ORDER; order++)
		CHECK_EQ(__CONST_RING_SIZE(t32, XEN_PAGE_SIZE << order),
			 xblk_ring_slots(order));
}

/* ----------------------------------------------------------------- abi -- */

XTEST(req_abi_parse)
{
	static const char *const bad[] = {
		"", "native", "x86_32", "x86_64", "x86_32-abi\n", " x86_32-abi",
		"X86_32-ABI", "arm-abi", "x86_32-abi ", "x86_64-abix",
	};
	enum xblk_abi abi;
	unsigned int i;

	abi = (enum xblk_abi)99;
	CHECK_EQ(xblk_abi_parse(NULL, &abi), 0);
	CHECK_EQ(abi, XBLK_ABI_NATIVE);
	CHECK_EQ(xblk_abi_parse("x86_32-abi", &abi), 0);
	CHECK_EQ(abi, XBLK_ABI_X86_32);
	CHECK_EQ(xblk_abi_parse("x86_64-abi", &abi), 0);
	CHECK_EQ(abi, XBLK_ABI_X86_64);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		abi = (enum xblk_abi)99;
		CHECK_EQ(xblk_abi_parse(bad[i], &abi), -EINVAL);
		CHECK_EQ(abi, 99);
	}
}

/* -------------------------------------------------------------- decode -- */

static void put(u8 *b, unsigned int off, u64 v, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		b[off + i] = v >> (8 * i);
}

/* i386 request from raw bytes at the i386 offsets (not via the struct). */
XTEST(req_decode_x86_32_rw_raw)
{
	union { u8 b[108]; struct xblk_x86_32_request r; } in;
	struct blkif_request out;
	unsigned int i;

	memset(in.b, 0xee, sizeof(in.b));
	put(in.b, 0, BLKIF_OP_WRITE, 1);
	put(in.b, 1, 11, 1);
	put(in.b, 2, 0xca00, 2);
	put(in.b, 4, 0x0102030405060708ull, 8);
	put(in.b, 12, 0x1122334455667788ull, 8);
	for (i = 0; i < 11; i++) {
		put(in.b, 20 + 8 * i, 1000 + i, 4);
		put(in.b, 24 + 8 * i, i % 8, 1);
		put(in.b, 25 + 8 * i, 7, 1);
	}
	memset(&out, 0x55, sizeof(out));
	xblk_req_from_x86_32(&in.r, &out);
	CHECK_EQ(out.operation, BLKIF_OP_WRITE);
	CHECK_EQ(out.u.rw.nr_segments, 11);
	CHECK_EQ(out.u.rw.handle, 0xca00);
	CHECK_EQ(out.u.rw.id, 0x0102030405060708ull);
	CHECK_EQ(xblk_req_id(&out), 0x0102030405060708ull);
	CHECK_EQ(out.u.rw.sector_number, 0x1122334455667788ull);
	CHECK_EQ(out.u.rw._pad1, 0);
	for (i = 0; i < 11; i++) {
		struct blkif_request_segment s = out.u.rw.seg[i];

		CHECK_EQ(s.gref, 1000 + i);
		CHECK_EQ(s.first_sect, i % 8);
		CHECK_EQ(s.last_sect, 7);
	}
}

XTEST(req_decode_x86_32_discard_indirect_raw)
{
	union { u8 b[108]; struct xblk_x86_32_request r; } in;
	struct blkif_request out;
	unsigned int i;

	memset(in.b, 0xee, sizeof(in.b));
	put(in.b, 0, BLKIF_OP_DISCARD, 1);
	put(in.b, 1, BLKIF_DISCARD_SECURE, 1);
	put(in.b, 4, 42, 8);
	put(in.b, 12, 4096, 8);
	put(in.b, 20, 2048, 8);
	xblk_req_from_x86_32(&in.r, &out);
	CHECK_EQ(out.u.discard.flag, BLKIF_DISCARD_SECURE);
	CHECK_EQ(out.u.discard.id, 42);
	CHECK_EQ(out.u.discard.sector_number, 4096);
	CHECK_EQ(out.u.discard.nr_sectors, 2048);
	CHECK_EQ(out.u.discard._pad3, 0);

	memset(in.b, 0xee, sizeof(in.b));
	put(in.b, 0, BLKIF_OP_INDIRECT, 1);
	put(in.b, 1, BLKIF_OP_READ, 1);
	put(in.b, 2, 4096, 2);
	put(in.b, 4, 43, 8);
	put(in.b, 12, 8, 8);
	put(in.b, 20, 0xca10, 2);
	for (i = 0; i < 8; i++)
		put(in.b, 24 + 4 * i, 7000 + i, 4);
	xblk_req_from_x86_32(&in.r, &out);
	CHECK_EQ(out.u.indirect.indirect_op, BLKIF_OP_READ);
	CHECK_EQ(out.u.indirect.nr_segments, 4096);
	CHECK_EQ(out.u.indirect.id, 43);
	CHECK_EQ(xblk_req_id(&out), 43);
	CHECK_EQ(out.u.indirect.sector_number, 8);
	CHECK_EQ(out.u.indirect.handle, 0xca10);
	for (i = 0; i < 8; i++)
		CHECK_EQ(out.u.indirect.indirect_grefs[i], 7000 + i);

	/* unknown op: only the id, everything else zero */
	memset(in.b, 0xee, sizeof(in.b));
	put(in.b, 0, 200, 1);
	put(in.b, 4, 44, 8);
	xblk_req_from_x86_32(&in.r, &out);
	CHECK_EQ(out.operation, 200);
	CHECK_EQ(xblk_req_id(&out), 44);
	CHECK_EQ(out.u.rw.nr_segments, 0);
	CHECK_EQ(out.u.rw.sector_number, 0);
}

XTEST(req_decode_x86_64_equals_native)
{
	static const u8 ops[] = {
		BLKIF_OP_READ, BLKIF_OP_WRITE, BLKIF_OP_WRITE_BARRIER,
		BLKIF_OP_FLUSH_DISKCACHE, BLKIF_OP_DISCARD, BLKIF_OP_INDIRECT,
	};
	union { u8 b[112]; struct xblk_x86_64_request r; } in;
	struct blkif_request out, native;
	unsigned int i, k;

	for (k = 0; k < sizeof(ops); k++) {
		for (i = 0; i < sizeof(in.b); i++)
			in.b[i] = i * 37 + k;
		in.b[0] = ops[k];
		xblk_req_from_x86_64(&in.r, &out);
		memcpy(&native, in.b, sizeof(native));
		CHECK_EQ(out.operation, ops[k]);
		CHECK_EQ(xblk_req_id(&out), xblk_req_id(&native));
		switch (ops[k]) {
		case BLKIF_OP_DISCARD:
			CHECK_EQ(out.u.discard.flag, native.u.discard.flag);
			CHECK_EQ(out.u.discard.sector_number,
				 native.u.discard.sector_number);
			CHECK_EQ(out.u.discard.nr_sectors,
				 native.u.discard.nr_sectors);
			break;
		case BLKIF_OP_INDIRECT:
			CHECK_EQ(out.u.indirect.indirect_op,
				 native.u.indirect.indirect_op);
			CHECK_EQ(out.u.indirect.nr_segments,
				 native.u.indirect.nr_segments);
			CHECK_EQ(out.u.indirect.sector_number,
				 native.u.indirect.sector_number);
			CHECK_EQ(out.u.indirect.handle, native.u.indirect.handle);
			CHECK(!memcmp(out.u.indirect.indirect_grefs,
				      native.u.indirect.indirect_grefs,
				      sizeof(native.u.indirect.indirect_grefs)));
			break;
		default:
			CHECK_EQ(out.u.rw.nr_segments, native.u.rw.nr_segments);
			CHECK_EQ(out.u.rw.handle, native.u.rw.handle);
			CHECK_EQ(out.u.rw.sector_number, native.u.rw.sector_number);
			CHECK(!memcmp(out.u.rw.seg, native.u.rw.seg,
				      sizeof(native.u.rw.seg)));
			break;
		}
	}
}

XTEST(req_decode_x86_64_unknown_op_keeps_id)
{
	union { u8 b[112]; struct xblk_x86_64_request r; } in;
	struct blkif_request out;

	memset(in.b, 0xee, sizeof(in.b));
	in.b[0] = 4;			/* unassigned in blkif */
	put(in.b, 8, 0xabcdef, 8);
	xblk_req_from_x86_64(&in.r, &out);
	CHECK_EQ(out.operation, 4);
	CHECK_EQ(xblk_req_id(&out), 0xabcdef);
	CHECK_EQ(out.u.rw.nr_segments, 0);
	CHECK_EQ(out.u.rw.sector_number, 0);
}

/*
 * One request in raw bytes of either ABI: the same values, each field at
 * its own ABI's offset.  Both layouts start with 4 bytes of header; from
 * the id on, x86_64 is x86_32 moved by 4 (@id_off 4 or 8).
 */
static void put_req(u8 *b, unsigned int id_off, u8 op, unsigned int k)
{
	unsigned int o = id_off - 4, i;

	put(b, 0, op, 1);
	switch (op) {
	case BLKIF_OP_DISCARD:
		put(b, 1, k & 1 ? BLKIF_DISCARD_SECURE : 0, 1);
		put(b, 4 + o, 0x1000 + k, 8);
		put(b, 12 + o, 8 * k, 8);
		put(b, 20 + o, 64 + k, 8);
		break;
	case BLKIF_OP_INDIRECT:
		put(b, 1, k & 1 ? BLKIF_OP_WRITE : BLKIF_OP_READ, 1);
		put(b, 2, 100 + k, 2);
		put(b, 4 + o, 0x2000 + k, 8);
		put(b, 12 + o, 16 * k, 8);
		put(b, 20 + o, 0xca00 + k, 2);
		for (i = 0; i < BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST; i++)
			put(b, 24 + o + 4 * i, 5000 + 10 * k + i, 4);
		break;
	case BLKIF_OP_READ:
	case BLKIF_OP_WRITE:
	case BLKIF_OP_WRITE_BARRIER:
	case BLKIF_OP_FLUSH_DISKCACHE:
		put(b, 1, 1 + k % BLKIF_MAX_SEGMENTS_PER_REQUEST, 1);
		put(b, 2, 0xcb00 + k, 2);
		put(b, 4 + o, 0x3000 + k, 8);
		put(b, 12 + o, 32 * k, 8);
		for (i = 0; i < BLKIF_MAX_SEGMENTS_PER_REQUEST; i++) {
			put(b, 20 + o + 8 * i, 9000 + 20 * k + i, 4);
			put(b, 24 + o + 8 * i, i % 8, 1);
			put(b, 25 + o + 8 * i, 7 - (k + i) % (8 - i % 8), 1);
			/* A segment is copied whole, its padding too. */
			put(b, 26 + o + 8 * i, 0x7700 + i, 2);
		}
		break;
	default:
		put(b, 4 + o, 0x4000 + k, 8);
		break;
	}
}

/* The same request in either ABI decodes to the same native request. */
XTEST(req_decode_x86_32_and_x86_64_agree)
{
	static const u8 ops[] = {
		BLKIF_OP_READ, BLKIF_OP_WRITE, BLKIF_OP_WRITE_BARRIER,
		BLKIF_OP_FLUSH_DISKCACHE, BLKIF_OP_DISCARD, BLKIF_OP_INDIRECT,
		4, 200,
	};
	union { u8 b[108]; struct xblk_x86_32_request r; } in32;
	union { u8 b[112]; struct xblk_x86_64_request r; } in64;
	struct blkif_request out32, out64;
	unsigned int i, k;

	for (i = 0; i < sizeof(ops); i++) {
		for (k = 0; k < 4; k++) {
			/* Bytes no field covers differ between the two. */
			memset(in32.b, 0xee, sizeof(in32.b));
			memset(in64.b, 0x11, sizeof(in64.b));
			put_req(in32.b, 4, ops[i], k);
			put_req(in64.b, 8, ops[i], k);
			memset(&out32, 0x55, sizeof(out32));
			memset(&out64, 0xaa, sizeof(out64));
			xblk_req_from_x86_32(&in32.r, &out32);
			xblk_req_from_x86_64(&in64.r, &out64);
			CHECK_EQ(out32.operation, ops[i]);
			CHECK(!memcmp(&out32, &out64, sizeof(out32)));
		}
	}
}

/* ------------------------------------------------------------ accessors -- */

XTEST(req_nr_segs_and_writes)
{
	struct blkif_request r;

	r = mkrw(BLKIF_OP_READ, 7, 0);
	CHECK_EQ(xblk_req_nr_segs(&r), 7);
	CHECK(!xblk_req_writes(&r));
	r = mkrw(BLKIF_OP_WRITE, 11, 0);
	CHECK_EQ(xblk_req_nr_segs(&r), 11);
	CHECK(xblk_req_writes(&r));
	r = mkrw(BLKIF_OP_FLUSH_DISKCACHE, 3, 0);
	CHECK_EQ(xblk_req_nr_segs(&r), 3);
	CHECK(xblk_req_writes(&r));
	r = mkrw(BLKIF_OP_WRITE_BARRIER, 3, 0);
	CHECK_EQ(xblk_req_nr_segs(&r), 0);
	r = mkindirect(BLKIF_OP_WRITE, 4096, 0);
	CHECK_EQ(xblk_req_nr_segs(&r), 4096);
	CHECK(xblk_req_writes(&r));
	r = mkindirect(BLKIF_OP_READ, 300, 0);
	CHECK_EQ(xblk_req_nr_segs(&r), 300);
	CHECK(!xblk_req_writes(&r));
	r = mkdiscard(0, 8, 0);
	CHECK_EQ(xblk_req_nr_segs(&r), 0);
	CHECK(!xblk_req_writes(&r));
	r = mkop(200);
	CHECK_EQ(xblk_req_nr_segs(&r), 0);
	CHECK(!xblk_req_writes(&r));
}

XTEST(req_id_every_op)
{
	struct blkif_request r;

	r = mkrw(BLKIF_OP_READ, 1, 0);
	CHECK_EQ(xblk_req_id(&r), 0x1122334455667788ull);
	r = mkdiscard(0, 8, 0);
	CHECK_EQ(xblk_req_id(&r), 77);
	r = mkindirect(BLKIF_OP_READ, 20, 0);
	CHECK_EQ(xblk_req_id(&r), 99);
	r = mkop(222);
	CHECK_EQ(xblk_req_id(&r), 5);
}

/* ---------------------------------------------------------- validation -- */

XTEST(req_check_valid_rw)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r;

	r = mkrw(BLKIF_OP_READ, 1, 0);
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_VALID);
	r = mkrw(BLKIF_OP_WRITE, 11, 1000);
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_VALID);
	/* the last 88 sectors of the device, exactly */
	r = mkrw(BLKIF_OP_WRITE, 11, l.sectors - 88);
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_VALID);
	/* partial segments */
	r = mkrw(BLKIF_OP_READ, 2, 3);
	r.u.rw.seg[0] = mkseg(1, 7, 7);
	r.u.rw.seg[1] = mkseg(2, 0, 0);
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_VALID);
}

XTEST(req_check_segs_count_and_total)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request_segment seg[XBLK_MAX_INDIRECT_SEGS];
	unsigned int i;
	u64 n = 0;

	for (i = 0; i < XBLK_MAX_INDIRECT_SEGS; i++)
		seg[i] = mkseg(i, i % 8, 7);
	CHECK_EQ(xblk_req_check_segs(seg, 3, 0, &l, &n), XBLK_REQ_VALID);
	CHECK_EQ(n, 8 + 7 + 6);
	CHECK_EQ(xblk_req_check_segs(seg, 8, 0, &l, &n), XBLK_REQ_VALID);
	CHECK_EQ(n, 36);
	for (i = 0; i < XBLK_MAX_INDIRECT_SEGS; i++)
		seg[i] = mkseg(i, 0, 7);
	CHECK_EQ(xblk_req_check_segs(seg, 4096, 0, &l, &n), XBLK_REQ_VALID);
	CHECK_EQ(n, 32768);
	/* one bad segment at the very end of 4096 */
	seg[4095] = mkseg(0, 0, 8);
	CHECK_EQ(xblk_req_check_segs(seg, 4096, 0, &l, &n), XBLK_REQ_BAD_SEG);
	/* ... but not looked at when beyond the count */
	CHECK_EQ(xblk_req_check_segs(seg, 4095, 0, &l, &n), XBLK_REQ_VALID);
}

XTEST(req_check_segs_beyond_count_ignored)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r = mkrw(BLKIF_OP_READ, 5, 0);

	r.u.rw.seg[5] = mkseg(0, 9, 3);		/* garbage after nr_segments */
	r.u.rw.seg[10] = mkseg(0, 255, 255);
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_VALID);
}

XTEST(req_check_4k_blocks)
{
	struct xblk_req_limits l = lim_default();
	struct blkif_request r;

	l.logical_block_size = 4096;
	r = mkrw(BLKIF_OP_READ, 1, 8);
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_VALID);
	/*
	 * one 4K block split over two pages: refused, though the total is
	 * aligned (each half is a bio_vec; see xblk_req_check_segs())
	 */
	r = mkrw(BLKIF_OP_WRITE, 2, 16);
	r.u.rw.seg[0] = mkseg(1, 4, 7);
	r.u.rw.seg[1] = mkseg(2, 0, 3);
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_MISALIGNED);
	/* two 2 KiB segments at sector 0: 8 sectors, two half blocks */
	r = mkrw(BLKIF_OP_READ, 2, 0);
	r.u.rw.seg[0] = mkseg(1, 0, 3);
	r.u.rw.seg[1] = mkseg(2, 4, 7);
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_MISALIGNED);
	/* whole blocks in every segment, after a first block */
	r = mkrw(BLKIF_OP_READ, 3, 8);
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_VALID);
	/* a segment boundary mid-block on a 2 KiB device, but not on 512 */
	r = mkrw(BLKIF_OP_READ, 2, 0);
	r.u.rw.seg[0] = mkseg(1, 0, 2);
	r.u.rw.seg[1] = mkseg(2, 3, 7);
	l.logical_block_size = 2048;
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_MISALIGNED);
	l.logical_block_size = 512;
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_VALID);
	l.logical_block_size = 4096;
	/* half a block */
	r = mkrw(BLKIF_OP_WRITE, 1, 16);
	r.u.rw.seg[0] = mkseg(1, 0, 3);
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_MISALIGNED);
	/* 2K page-aligned device: 4 sectors is a block */
	l.logical_block_size = 2048;
	CHECK_EQ(xblk_req_check(&r, &l), XBLK_REQ_VALID);
}

XTEST(req_err_status_and_str)
{
	enum xblk_req_err e;

	CHECK_EQ(xblk_req_err_status(XBLK_REQ_VALID), BLKIF_RSP_OKAY);
	CHECK_EQ(xblk_req_err_status(XBLK_REQ_BAD_OP), BLKIF_RSP_EOPNOTSUPP);
	CHECK_EQ(xblk_req_err_status(XBLK_REQ_NOT_OFFERED), BLKIF_RSP_EOPNOTSUPP);
	for (e = XBLK_REQ_READ_ONLY; e <= XBLK_REQ_EMPTY; e++)
		CHECK_EQ(xblk_req_err_status(e), BLKIF_RSP_ERROR);
	CHECK_STR(xblk_req_err_str(XBLK_REQ_VALID), "valid");
	CHECK_STR(xblk_req_err_str((enum xblk_req_err)100), "?");
	for (e = XBLK_REQ_VALID; e <= XBLK_REQ_EMPTY; e++) {
		enum xblk_req_err f;

		CHECK(strcmp(xblk_req_err_str(e), "?"));
		for (f = e + 1; f <= XBLK_REQ_EMPTY; f++)
			CHECK(strcmp(xblk_req_err_str(e), xblk_req_err_str(f)));
	}
}

/* ------------------------------------------------- discard bio sizes -- */

/*
 * A secure erase on a device with a large limit (eMMC, virtio-blk, a
 * xen-blkfront driver domain: 2^23 sectors and more) must be cut to what
 * a bio's 32-bit byte size holds, and to the logical block: the sum of
 * the bios must cover the request, none may wrap.
 */
XTEST(discard_bio_max_secure_large_limit)
{
	const u64 bio_cap = 0xffffffffULL >> 9;	/* 8388607 sectors */
	unsigned int gran;
	u64 dev_max, m, left, n, bytes;

	for (dev_max = 1ULL << 22; dev_max <= 1ULL << 40; dev_max <<= 1) {
		for (gran = 1; gran <= 8; gran <<= 1) {
			m = xblk_discard_bio_max(dev_max, gran, true);
			CHECK(m > 0);
			CHECK(m <= bio_cap);
			CHECK(m <= dev_max);
			CHECK_EQ(m % gran, 0);
			/* as large as it can be */
			CHECK(m + gran > (dev_max < bio_cap ? dev_max : bio_cap));
			bytes = m << 9;
			CHECK_EQ((u32)bytes, bytes);	/* no wrap in bi_size */
		}
	}
	/* a 4 GiB secure erase on a 4K-block device of limit 2^32 sectors */
	m = xblk_discard_bio_max(1ULL << 32, 8, true);
	CHECK_EQ(m, 8388600);
	for (left = 1ULL << 23, n = 0; left; n++)
		left -= left < m ? left : m;
	CHECK_EQ(n, 2);
}

XTEST(discard_bio_max_plain_and_edges)
{
	/* plain discard: no device cap, the 32-bit bio size and granularity */
	CHECK_EQ(xblk_discard_bio_max(0, 1, false), 8388607);
	CHECK_EQ(xblk_discard_bio_max(0, 8, false), 8388600);
	CHECK_EQ(xblk_discard_bio_max(0, 2048, false), 8388608 - 2048);
	/* a granularity that is not a power of two (RAID stripe) */
	CHECK_EQ(xblk_discard_bio_max(0, 3072, false) % 3072, 0);
	/* a small device limit is taken as is, rounded to the block */
	CHECK_EQ(xblk_discard_bio_max(65535, 8, true), 65528);
	/* no secure erase (any more), or a block larger than the limit */
	CHECK_EQ(xblk_discard_bio_max(0, 8, true), 0);
	CHECK_EQ(xblk_discard_bio_max(7, 8, true), 0);
	CHECK_EQ(xblk_discard_bio_max(0, 0, false), 0);
}
