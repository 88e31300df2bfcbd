/* SPDX-License-Identifier: GPL-2.0 */
/* Builders of native blkif requests for the request.h tests. */
#ifndef XBLK_TEST_REQ_HELPERS_H
#define XBLK_TEST_REQ_HELPERS_H

#include <string.h>
#include "xblk/request.h"

/* 1 GiB, 512-byte blocks, everything offered, writable. */
static inline struct xblk_req_limits lim_default(void)
{
	struct xblk_req_limits l;

	memset(&l, 0, sizeof(l));
	l.sectors = 2097152;
	l.logical_block_size = 512;
	l.max_indirect_segs = 256;
	l.flush = true;
	l.discard = true;
	return l;
}

static inline struct blkif_request_segment mkseg(u32 gref, u8 first, u8 last)
{
	struct blkif_request_segment s;

	s.gref = gref;
	s.first_sect = first;
	s.last_sect = last;
	return s;
}

/* READ/WRITE/FLUSH with @nseg whole-page segments at @sector. */
static inline struct blkif_request mkrw(u8 op, unsigned int nseg, u64 sector)
{
	struct blkif_request r;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.operation = op;
	r.u.rw.nr_segments = nseg;
	r.u.rw.handle = 51712;
	r.u.rw.id = 0x1122334455667788ull;
	r.u.rw.sector_number = sector;
	for (i = 0; i < BLKIF_MAX_SEGMENTS_PER_REQUEST; i++)
		r.u.rw.seg[i] = mkseg(100 + i, 0, 7);
	return r;
}

static inline struct blkif_request mkdiscard(u64 sector, u64 nr, u8 flag)
{
	struct blkif_request r;

	memset(&r, 0, sizeof(r));
	r.operation = BLKIF_OP_DISCARD;
	r.u.discard.flag = flag;
	r.u.discard.id = 77;
	r.u.discard.sector_number = sector;
	r.u.discard.nr_sectors = nr;
	return r;
}

static inline struct blkif_request mkindirect(u8 inner, unsigned int nseg,
					      u64 sector)
{
	struct blkif_request r;
	unsigned int i;

	memset(&r, 0, sizeof(r));
	r.operation = BLKIF_OP_INDIRECT;
	r.u.indirect.indirect_op = inner;
	r.u.indirect.nr_segments = nseg;
	r.u.indirect.id = 99;
	r.u.indirect.sector_number = sector;
	r.u.indirect.handle = 51712;
	for (i = 0; i < BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST; i++)
		r.u.indirect.indirect_grefs[i] = 500 + i;
	return r;
}

static inline struct blkif_request mkop(u8 op)
{
	struct blkif_request r;

	memset(&r, 0, sizeof(r));
	r.operation = op;
	r.u.other.id = 5;
	return r;
}

#endif /* XBLK_TEST_REQ_HELPERS_H */
