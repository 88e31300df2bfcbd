/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xenstore keys of the blkif protocol and pure parsing of their values.
 *
 * Everything a peer writes to xenstore is untrusted: it is parsed strictly
 * here (digits only, no sign, no trailing garbage, range checked) so that
 * both drivers reject malformed values the same way.  No xenbus calls: the
 * caller supplies a read callback, which lets tests/unit feed any key set.
 */
#ifndef XBLK_XENSTORE_H
#define XBLK_XENSTORE_H

#include "wire.h"

/* Keys written by the backend (blkif.h, "Backend XenBus Nodes"). */
#define XBLK_KEY_SECTORS		"sectors"
#define XBLK_KEY_INFO			"info"
#define XBLK_KEY_SECTOR_SIZE		"sector-size"
#define XBLK_KEY_PHYS_SECTOR_SIZE	"physical-sector-size"
#define XBLK_KEY_MAX_QUEUES		"multi-queue-max-queues"
#define XBLK_KEY_MAX_RING_ORDER		"max-ring-page-order"
#define XBLK_KEY_MAX_INDIRECT		"feature-max-indirect-segments"
#define XBLK_KEY_PERSISTENT		"feature-persistent"
#define XBLK_KEY_FLUSH			"feature-flush-cache"
#define XBLK_KEY_BARRIER		"feature-barrier"
#define XBLK_KEY_DISCARD		"feature-discard"
#define XBLK_KEY_DISCARD_GRAN		"discard-granularity"
#define XBLK_KEY_DISCARD_ALIGN		"discard-alignment"
#define XBLK_KEY_DISCARD_SECURE		"discard-secure"

/*
 * Project-specific geometry keys (Documentation/protocol.rst): the backing
 * device's preferred I/O geometry, which blkif has no key for.  A peer that
 * does not know them ignores them; absent keys mean "no information".
 */
#define XBLK_KEY_IO_MIN			"xblk-io-min"		/* bytes */
#define XBLK_KEY_IO_OPT			"xblk-io-opt"		/* bytes */
#define XBLK_KEY_MAX_SECTORS		"xblk-max-sectors"	/* 512 B units */

/* Keys written by the frontend. */
#define XBLK_KEY_RING_REF		"ring-ref"
#define XBLK_KEY_RING_ORDER		"ring-page-order"
#define XBLK_KEY_EVTCHN			"event-channel"
#define XBLK_KEY_NR_QUEUES		"multi-queue-num-queues"
#define XBLK_KEY_PROTOCOL		"protocol"

/* Bits of "info" (blkif.h). */
#define XBLK_VDISK_CDROM	0x1
#define XBLK_VDISK_REMOVABLE	0x2
#define XBLK_VDISK_READONLY	0x4

/* Longest value we accept for a numeric key: 2^64-1 has 20 digits. */
#define XBLK_KEY_MAXLEN		32

/**
 * xblk_parse_u64() - strictly parse a decimal xenstore value
 * @s: NUL-terminated value
 * @out: result
 *
 * Accepts one or more decimal digits and nothing else.
 *
 * Return: 0, -EINVAL if malformed, -ERANGE if it overflows 64 bits.
 */
static inline int xblk_parse_u64(const char *s, u64 *out)
{
	u64 v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned int d = (unsigned char)*s - '0';

		if (d > 9)
			return -EINVAL;
		if (v > (~(u64)0 - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* Write @v in decimal at @buf (room for 11 bytes); return @buf. */
static inline char *xblk_utoa(unsigned int v, char *buf)
{
	char tmp[10];
	unsigned int n = 0, p = 0;

	do {
		tmp[n++] = '0' + v % 10;
		v /= 10;
	} while (v);
	while (n)
		buf[p++] = tmp[--n];
	buf[p] = '\0';
	return buf;
}

/**
 * typedef xblk_read_fn - read one key of the peer's xenstore directory
 * @ctx: caller's context
 * @key: key name relative to the peer's directory
 * @buf: buffer for the NUL-terminated value
 * @len: size of @buf
 *
 * Return: 0, -ENOENT if the key does not exist, -E2BIG if the value does not
 * fit, another negative errno on failure.
 */
typedef int (*xblk_read_fn)(void *ctx, const char *key, char *buf, size_t len);

/**
 * xblk_read_u64() - read and range-check a numeric key
 * @read: key reader
 * @ctx: its context
 * @key: key name
 * @def: value used when the key is absent, or -1 (as u64) if required
 * @min: smallest acceptable value
 * @max: largest acceptable value
 * @out: result
 *
 * Return: 0, -ENOENT for a missing required key, -EINVAL for a malformed
 * value, -ERANGE for a value outside [@min, @max].
 */
static inline int xblk_read_u64(xblk_read_fn read, void *ctx, const char *key,
				u64 def, u64 min, u64 max, u64 *out)
{
	char buf[XBLK_KEY_MAXLEN];
	int err;

	err = read(ctx, key, buf, sizeof(buf));
	if (err == -ENOENT && def != ~(u64)0) {
		*out = def;
		return 0;
	}
	if (err == -E2BIG)
		return -EINVAL;
	if (err)
		return err;
	err = xblk_parse_u64(buf, out);
	if (err)
		return err;
	if (*out < min || *out > max)
		return -ERANGE;
	return 0;
}

#define XBLK_REQUIRED	(~(u64)0)

/**
 * struct xblk_be_info - what a backend offers, parsed and validated
 * @sectors: capacity in 512-byte sectors
 * @info: VDISK_* bits
 * @sector_size: logical block size in bytes
 * @phys_sector_size: physical block size in bytes (>= @sector_size)
 * @max_queues: multi-queue-max-queues (1 if absent)
 * @max_ring_order: max-ring-page-order, clamped to XBLK_MAX_RING_ORDER
 * @max_indirect_segs: feature-max-indirect-segments, clamped (0 if absent)
 * @persistent: feature-persistent
 * @flush: feature-flush-cache
 * @barrier: feature-barrier
 * @discard: feature-discard
 * @discard_secure: discard-secure
 * @discard_granularity: bytes (0 = one logical block)
 * @discard_alignment: bytes
 * @io_min: xblk-io-min in bytes (0 if absent)
 * @io_opt: xblk-io-opt in bytes (0 if absent)
 * @max_sectors: xblk-max-sectors in 512-byte sectors (0 if absent)
 */
struct xblk_be_info {
	u64 sectors;
	unsigned int info;
	unsigned int sector_size;
	unsigned int phys_sector_size;
	unsigned int max_queues;
	unsigned int max_ring_order;
	unsigned int max_indirect_segs;
	bool persistent;
	bool flush;
	bool barrier;
	bool discard;
	bool discard_secure;
	unsigned int discard_granularity;
	unsigned int discard_alignment;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int max_sectors;
};

static inline bool xblk_is_pow2(u64 v)
{
	return v && !(v & (v - 1));
}

/**
 * xblk_parse_be_ring() - read the ring-related maxima a backend offers
 * @read: key reader for the backend's directory
 * @ctx: its context
 * @max_queues: multi-queue-max-queues, clamped to [1, XBLK_MAX_QUEUES]
 * @max_ring_order: max-ring-page-order, clamped to XBLK_MAX_RING_ORDER
 * @bad_key: on failure, the name of the offending key
 *
 * These are read before the rings are set up (backend in InitWait), when
 * the rest of xblk_be_info may not be written yet.
 *
 * Return: 0, or a negative errno for a malformed value.
 */
static inline int xblk_parse_be_ring(xblk_read_fn read, void *ctx,
				     unsigned int *max_queues,
				     unsigned int *max_ring_order,
				     const char **bad_key)
{
	u64 v;
	int err;

	err = xblk_read_u64(read, ctx, XBLK_KEY_MAX_QUEUES, 1, 0, ~(u64)0, &v);
	if (err) {
		*bad_key = XBLK_KEY_MAX_QUEUES;
		return err;
	}
	*max_queues = clamp_t(u64, v, 1, XBLK_MAX_QUEUES);
	err = xblk_read_u64(read, ctx, XBLK_KEY_MAX_RING_ORDER, 0, 0, ~(u64)0, &v);
	if (err) {
		*bad_key = XBLK_KEY_MAX_RING_ORDER;
		return err;
	}
	*max_ring_order = min_t(u64, v, XBLK_MAX_RING_ORDER);
	return 0;
}

/* Read one key for xblk_parse_be_info(), naming it in *@bad_key on error. */
static inline int xblk_get_key(xblk_read_fn read, void *ctx, const char *key,
			       u64 def, u64 lo, u64 hi, u64 *v,
			       const char **bad_key)
{
	int err = xblk_read_u64(read, ctx, key, def, lo, hi, v);

	if (err)
		*bad_key = key;
	return err;
}

/* Same, for values that must also be a power of two (or 0 if @zero_ok). */
static inline int xblk_get_pow2(xblk_read_fn read, void *ctx, const char *key,
				u64 def, u64 lo, u64 hi, bool zero_ok, u64 *v,
				const char **bad_key)
{
	int err = xblk_get_key(read, ctx, key, def, lo, hi, v, bad_key);

	if (!err && !xblk_is_pow2(*v) && !(zero_ok && !*v)) {
		*bad_key = key;
		err = -ERANGE;
	}
	return err;
}

/* Same, for byte counts that must be a multiple of @unit (0 allowed). */
static inline int xblk_get_multiple(xblk_read_fn read, void *ctx,
				    const char *key, u64 hi, unsigned int unit,
				    u64 *v, const char **bad_key)
{
	int err = xblk_get_key(read, ctx, key, 0, 0, hi, v, bad_key);

	if (!err && *v % unit) {
		*bad_key = key;
		err = -ERANGE;
	}
	return err;
}

static inline int xblk_parse_be_discard(xblk_read_fn read, void *ctx,
					struct xblk_be_info *bi,
					const char **bad_key)
{
	u64 v;
	int err;

	err = xblk_get_key(read, ctx, XBLK_KEY_DISCARD_SECURE, 0, 0, 1, &v,
			   bad_key);
	if (err)
		return err;
	bi->discard_secure = v;

	err = xblk_get_pow2(read, ctx, XBLK_KEY_DISCARD_GRAN, 0, 0, 1U << 30,
			    true, &v, bad_key);
	if (err)
		return err;
	if (v % bi->sector_size) {
		*bad_key = XBLK_KEY_DISCARD_GRAN;
		return -ERANGE;
	}
	bi->discard_granularity = v;

	err = xblk_get_multiple(read, ctx, XBLK_KEY_DISCARD_ALIGN, 1U << 30,
				bi->sector_size, &v, bad_key);
	if (err)
		return err;
	if (bi->discard_granularity && v >= bi->discard_granularity) {
		*bad_key = XBLK_KEY_DISCARD_ALIGN;
		return -ERANGE;
	}
	bi->discard_alignment = v;
	return 0;
}

static inline int xblk_parse_be_geometry(xblk_read_fn read, void *ctx,
					 struct xblk_be_info *bi,
					 const char **bad_key)
{
	u64 v;
	int err;

	err = xblk_get_multiple(read, ctx, XBLK_KEY_IO_MIN, 1U << 30,
				bi->sector_size, &v, bad_key);
	if (err)
		return err;
	bi->io_min = v;
	err = xblk_get_multiple(read, ctx, XBLK_KEY_IO_OPT, 1U << 30,
				bi->sector_size, &v, bad_key);
	if (err)
		return err;
	bi->io_opt = v;
	err = xblk_get_key(read, ctx, XBLK_KEY_MAX_SECTORS, 0, 0, 1U << 22, &v,
			   bad_key);
	if (err)
		return err;
	if (v && v < (bi->sector_size >> XBLK_SECTOR_SHIFT)) {
		*bad_key = XBLK_KEY_MAX_SECTORS;
		return -ERANGE;
	}
	bi->max_sectors = v;
	return 0;
}

/* The disk itself: capacity, VDISK_* info, logical and physical block. */
static inline int xblk_parse_be_disk(xblk_read_fn read, void *ctx,
				     struct xblk_be_info *bi,
				     const char **bad_key,
				     unsigned int max_block)
{
	u64 v;
	int err;

	/* Capacity in sectors must fit a signed 64-bit byte count. */
	err = xblk_get_key(read, ctx, XBLK_KEY_SECTORS, XBLK_REQUIRED, 0,
			   ~(u64)0 >> 10, &v, bad_key);
	if (err)
		return err;
	bi->sectors = v;
	err = xblk_get_key(read, ctx, XBLK_KEY_INFO, XBLK_REQUIRED, 0,
			   0xffffffff, &v, bad_key);
	if (err)
		return err;
	bi->info = v;
	err = xblk_get_pow2(read, ctx, XBLK_KEY_SECTOR_SIZE, XBLK_REQUIRED, 512,
			    max_block, false, &v, bad_key);
	if (err)
		return err;
	bi->sector_size = v;
	err = xblk_get_pow2(read, ctx, XBLK_KEY_PHYS_SECTOR_SIZE,
			    bi->sector_size, 512, 1U << 30, false, &v, bad_key);
	if (err)
		return err;
	/* A physical block smaller than the logical one means "unknown". */
	bi->phys_sector_size = max_t(unsigned int, v, bi->sector_size);
	return 0;
}

/* The feature-* flags, and discard's details when it is offered. */
static inline int xblk_parse_be_features(xblk_read_fn read, void *ctx,
					 struct xblk_be_info *bi,
					 const char **bad_key)
{
	u64 v;
	int err;

	err = xblk_get_key(read, ctx, XBLK_KEY_PERSISTENT, 0, 0, 1, &v, bad_key);
	if (err)
		return err;
	bi->persistent = v;
	err = xblk_get_key(read, ctx, XBLK_KEY_FLUSH, 0, 0, 1, &v, bad_key);
	if (err)
		return err;
	bi->flush = v;
	err = xblk_get_key(read, ctx, XBLK_KEY_BARRIER, 0, 0, 1, &v, bad_key);
	if (err)
		return err;
	bi->barrier = v;
	err = xblk_get_key(read, ctx, XBLK_KEY_DISCARD, 0, 0, 1, &v, bad_key);
	if (err)
		return err;
	bi->discard = v;
	bi->discard_secure = false;
	bi->discard_granularity = 0;
	bi->discard_alignment = 0;
	if (!bi->discard)
		return 0;
	return xblk_parse_be_discard(read, ctx, bi, bad_key);
}

/**
 * xblk_parse_be_info() - read and validate every backend key we use
 * @read: key reader for the backend's directory
 * @ctx: its context
 * @bi: result
 * @bad_key: on failure, the name of the offending key
 * @max_block: largest logical block size the caller supports
 *
 * Maxima the backend advertises (queues, ring order, indirect segments) are
 * clamped to ours: that is what a maximum means.  Values that describe the
 * disk must be well formed and in range, or the disk cannot be used safely.
 * Keys are read in a fixed order; the first bad one is reported.
 *
 * Return: 0, or a negative errno with *@bad_key set.
 */
static inline int xblk_parse_be_info(xblk_read_fn read, void *ctx,
				     struct xblk_be_info *bi,
				     const char **bad_key,
				     unsigned int max_block)
{
	u64 v;
	int err;

	err = xblk_parse_be_disk(read, ctx, bi, bad_key, max_block);
	if (err)
		return err;
	err = xblk_parse_be_ring(read, ctx, &bi->max_queues,
				 &bi->max_ring_order, bad_key);
	if (err)
		return err;
	err = xblk_get_key(read, ctx, XBLK_KEY_MAX_INDIRECT, 0, 0, ~(u64)0, &v,
			   bad_key);
	if (err)
		return err;
	bi->max_indirect_segs = min_t(u64, v, XBLK_MAX_INDIRECT_SEGS);
	err = xblk_parse_be_features(read, ctx, bi, bad_key);
	if (err)
		return err;
	/* Geometry hints are optional; a bad hint is an error like any value. */
	return xblk_parse_be_geometry(read, ctx, bi, bad_key);
}

/*
 * A ring-ref below this names a page the toolstack granted for the guest
 * (Xen's public grant_table.h: 0 its console, 1 its xenstore page), never a
 * ring.  The rest of GNTTAB_NR_RESERVED_ENTRIES (2-7) is reserved only by
 * convention, and GRUB's PV disk driver (pvgrub) grants its ring as 2, so
 * those are accepted: a reference the guest did not grant fails to map.
 */
#define XBLK_GREF_FIRST		2

/**
 * struct xblk_fe_ring - the ring configuration a frontend asks for
 * @nr_queues: multi-queue-num-queues (1 if absent)
 * @ring_order: ring-page-order (0 if absent)
 * @multi_ref: ring-page-order is present, so the refs are ring-refN
 * @persistent: feature-persistent (0 if absent)
 */
struct xblk_fe_ring {
	unsigned int nr_queues;
	unsigned int ring_order;
	bool multi_ref;
	bool persistent;
};

/**
 * xblk_parse_fe_ring() - read and validate a frontend's ring keys
 * @read: key reader for the frontend's directory
 * @ctx: its context
 * @max_queues: the most queues we offered (multi-queue-max-queues)
 * @max_ring_order: the largest order we offered (max-ring-page-order)
 * @fr: result
 * @bad_key: on failure, the name of the offending key
 *
 * Unlike a backend's maxima, these are requests: a value above what we
 * offered is refused, not clamped, since the frontend has set up its rings
 * for it.  "feature-persistent" must be 0 or 1 like any boolean.
 *
 * Return: 0, or a negative errno with *@bad_key set.
 */
static inline int xblk_parse_fe_ring(xblk_read_fn read, void *ctx,
				     unsigned int max_queues,
				     unsigned int max_ring_order,
				     struct xblk_fe_ring *fr,
				     const char **bad_key)
{
	u64 v;
	int err;

	err = xblk_get_key(read, ctx, XBLK_KEY_NR_QUEUES, 1, 1, max_queues, &v,
			   bad_key);
	if (err)
		return err;
	fr->nr_queues = v;
	err = xblk_read_u64(read, ctx, XBLK_KEY_RING_ORDER, XBLK_REQUIRED, 0,
			    max_ring_order, &v);
	fr->multi_ref = err != -ENOENT;
	if (err == -ENOENT) {
		v = 0;
		err = 0;
	}
	if (err) {
		*bad_key = XBLK_KEY_RING_ORDER;
		return err;
	}
	fr->ring_order = v;
	err = xblk_get_key(read, ctx, XBLK_KEY_PERSISTENT, 0, 0, 1, &v, bad_key);
	if (err)
		return err;
	fr->persistent = v;
	return 0;
}

/**
 * struct xblk_fe_queue - one ring's keys, as a frontend wrote them
 * @grefs: ring-ref, or ring-ref0 .. ring-ref<2^order - 1>
 * @evtchn: event-channel
 * @key: scratch for the name of the ring-refN key being read
 */
struct xblk_fe_queue {
	u32 grefs[1U << XBLK_MAX_RING_ORDER];
	u32 evtchn;
	char key[sizeof(XBLK_KEY_RING_REF) + 3];
};

/**
 * xblk_parse_fe_queue() - read and validate one ring's keys
 * @read: key reader for the ring's directory (the frontend's, or its
 *	  queue-N subdirectory when there are several queues)
 * @ctx: its context
 * @fr: the validated ring configuration
 * @fq: result
 * @bad_key: on failure, the name of the offending key (may point into @fq)
 *
 * Every ref the order needs must be there: a shorter list is an error, not
 * a smaller ring.  An order-0 ring may name its page ring-ref0 or ring-ref.
 * Event channel port 0 is never valid.
 *
 * Return: 0, or a negative errno with *@bad_key set.
 */
static inline int xblk_parse_fe_queue(xblk_read_fn read, void *ctx,
				      const struct xblk_fe_ring *fr,
				      struct xblk_fe_queue *fq,
				      const char **bad_key)
{
	unsigned int i, nr = 1U << fr->ring_order;
	u64 v;
	int err;

	err = xblk_get_key(read, ctx, XBLK_KEY_EVTCHN, XBLK_REQUIRED, 1,
			   0xffffffff, &v, bad_key);
	if (err)
		return err;
	fq->evtchn = v;
	for (i = 0; i < nr; i++) {
		if (fr->multi_ref) {
			/* "ring-ref" + at most 2 digits: XBLK_MAX_RING_ORDER 4 */
			memcpy(fq->key, XBLK_KEY_RING_REF,
			       sizeof(XBLK_KEY_RING_REF) - 1);
			xblk_utoa(i, fq->key + sizeof(XBLK_KEY_RING_REF) - 1);
		} else {
			memcpy(fq->key, XBLK_KEY_RING_REF,
			       sizeof(XBLK_KEY_RING_REF));
		}
		err = xblk_read_u64(read, ctx, fq->key, XBLK_REQUIRED,
				    XBLK_GREF_FIRST, 0xffffffff, &v);
		if (err == -ENOENT && fr->multi_ref && nr == 1) {
			memcpy(fq->key, XBLK_KEY_RING_REF,
			       sizeof(XBLK_KEY_RING_REF));
			err = xblk_read_u64(read, ctx, fq->key, XBLK_REQUIRED,
					    XBLK_GREF_FIRST, 0xffffffff, &v);
		}
		if (err) {
			*bad_key = fq->key;
			return err;
		}
		fq->grefs[i] = v;
	}
	return 0;
}

/**
 * struct xblk_fe_limits - what the frontend is willing to use
 * @max_queues: module parameter max_queues
 * @nr_cpus: online CPUs (hardware queues beyond that are useless)
 * @max_ring_order: module parameter max_ring_page_order
 * @max_indirect_segs: module parameter max_indirect_segments (0 = off)
 * @persistent: module parameter feature_persistent
 */
struct xblk_fe_limits {
	unsigned int max_queues;
	unsigned int nr_cpus;
	unsigned int max_ring_order;
	unsigned int max_indirect_segs;
	bool persistent;
};

/**
 * struct xblk_negotiated - the configuration both sides agreed on
 * @nr_queues: hardware queues (= rings)
 * @ring_order: log2 of pages per ring
 * @segs: data segments per request
 * @indirect: whether requests use BLKIF_OP_INDIRECT
 * @persistent: persistent grants in use
 */
struct xblk_negotiated {
	unsigned int nr_queues;
	unsigned int ring_order;
	unsigned int segs;
	bool indirect;
	bool persistent;
};

/**
 * xblk_negotiate() - combine backend offers with frontend limits
 * @bi: validated backend offers
 * @fl: frontend limits
 * @neg: result
 *
 * Indirect descriptors are used only when they give more than the 11
 * segments a direct request carries.  When the backend says how large a
 * request the device can use (xblk-max-sectors), asking for more segments
 * than that only costs memory and grants; but never fewer than
 * XBLK_FLOOR_SEGS (128 KiB, what the in-tree frontend always sends):
 * dom0's block layer splits a request the device cannot take in one, which
 * costs far less than the guest sending two.
 */
static inline void xblk_negotiate(const struct xblk_be_info *bi,
				  const struct xblk_fe_limits *fl,
				  struct xblk_negotiated *neg)
{
	unsigned int segs;

	neg->nr_queues = max(1U, min3(bi->max_queues, fl->max_queues, fl->nr_cpus));
	neg->ring_order = min(bi->max_ring_order, fl->max_ring_order);
	neg->persistent = bi->persistent && fl->persistent;

	segs = min3(bi->max_indirect_segs, fl->max_indirect_segs,
		    (unsigned int)XBLK_MAX_INDIRECT_SEGS);
	if (bi->max_sectors)
		segs = min(segs, max(DIV_ROUND_UP(bi->max_sectors,
						  (unsigned int)XBLK_SECTORS_PER_PAGE),
				     (unsigned int)XBLK_FLOOR_SEGS));
	neg->indirect = segs > BLKIF_MAX_SEGMENTS_PER_REQUEST;
	neg->segs = neg->indirect ? segs : BLKIF_MAX_SEGMENTS_PER_REQUEST;
}

/**
 * xblk_max_request_sectors() - the largest request the frontend should build
 * @bi: validated backend offers
 * @neg: the negotiated configuration
 *
 * What the negotiated segments carry: xblk_negotiate() already capped them
 * by xblk-max-sectors, rounded up to whole pages (each segment is a page)
 * and never below XBLK_FLOOR_SEGS, so that a limit such as null_blk's 255
 * sectors does not make the guest split a 128 KiB read into 124 + 4 KiB,
 * two ring requests where dom0's block layer splits off half a KiB for the
 * device.  Never below one logical block.
 *
 * Return: the limit in 512-byte sectors.
 */
static inline unsigned int xblk_max_request_sectors(const struct xblk_be_info *bi,
						    const struct xblk_negotiated *neg)
{
	return max_t(unsigned int, neg->segs * XBLK_SECTORS_PER_PAGE,
		     bi->sector_size >> XBLK_SECTOR_SHIFT);
}

/* Linux majors that toolstacks use for emulated IDE and SCSI disk names. */
#define XBLK_XVD_MAJOR		202
#define XBLK_VDEV_EXT		BIT(28)

/**
 * xblk_vdev_decode() - map a "virtual-device" number to an xvd disk
 * @vdev: value of the frontend's "virtual-device" key
 * @index: returns the disk index (0 = xvda)
 * @part: returns the partition (0 = whole disk)
 * @ext: returns true for the extended (>= xvdq style) numbering
 *
 * Emulated hdX and sdX numbers are folded into the xvd namespace, as the
 * toolstack's disk naming (xen-vbd-interface.7) describes: hda..hdt are
 * xvda.., sda.. start at xvde.
 *
 * Return: 0, or -EINVAL for a number no toolstack produces.
 */
static inline int xblk_vdev_decode(u32 vdev, unsigned int *index,
				   unsigned int *part, bool *ext)
{
	static const u8 ide_majors[] = { 3, 22, 33, 34, 56, 57, 88, 89, 90, 91 };
	unsigned int major, minor, i;

	*ext = false;
	if (vdev & XBLK_VDEV_EXT) {
		if (vdev >> 29)
			return -EINVAL;
		*ext = true;
		*index = (vdev & (XBLK_VDEV_EXT - 1)) >> 8;
		*part = vdev & 0xff;
		return *part < 16 ? 0 : -EINVAL;
	}
	if (vdev >> 16)
		return -EINVAL;
	major = vdev >> 8;
	minor = vdev & 0xff;
	if (major == XBLK_XVD_MAJOR) {
		*index = minor >> 4;
		*part = minor & 15;
		return 0;
	}
	for (i = 0; i < sizeof(ide_majors); i++) {
		if (major == ide_majors[i]) {
			/* Two disks per major: minors 128.. are no hdX. */
			if (minor >> 7)
				return -EINVAL;
			*index = 2 * i + (minor >> 6);
			*part = minor & 63;
			return *part < 16 ? 0 : -EINVAL;
		}
	}
	if (major == 8 || (major >= 65 && major <= 71)) {
		*index = 4 + 16 * (major == 8 ? 0 : major - 64) + (minor >> 4);
		*part = minor & 15;
		return 0;
	}
	return -EINVAL;
}

/**
 * xblk_disk_name() - "xvd" name of a disk index, as sd_format_disk_name does
 * @index: disk index (0 = xvda, 25 = xvdz, 26 = xvdaa)
 * @part: partition, appended as a number when non-zero
 * @buf: output buffer
 * @len: its size (32 is always enough)
 *
 * Return: 0, or -EINVAL if @buf is too small.
 */
static inline int xblk_disk_name(unsigned int index, unsigned int part,
				 char *buf, size_t len)
{
	char tmp[16];
	unsigned int n = 0, i = index + 1, p = 0;

	do {
		i--;
		tmp[n++] = 'a' + i % 26;
		i /= 26;
	} while (i && n < sizeof(tmp));
	if (3 + n + 4 > len)
		return -EINVAL;
	buf[p++] = 'x';
	buf[p++] = 'v';
	buf[p++] = 'd';
	while (n)
		buf[p++] = tmp[--n];
	if (part) {
		if (part >= 10)
			buf[p++] = '0' + part / 10;
		buf[p++] = '0' + part % 10;
	}
	buf[p] = '\0';
	return 0;
}

#endif /* XBLK_XENSTORE_H */
