// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: xblk_parse_be_info() (and xblk_parse_u64, xblk_negotiate,
 * xblk_parse_be_ring).
 *
 * Input: text lines.  "key=value" puts a key in the fake backend
 * directory (first occurrence wins; the value is raw bytes up to the
 * newline, and like xenbus_read() the callback NUL-terminates it, so an
 * embedded NUL ends the string the parser sees); a line "key" without '='
 * makes reading that key fail with -EIO.
 * Lines starting with '@' set harness parameters instead:
 *   @max_block=N  (the caller's largest logical block, default 4096)
 *   @fe=Q,C,O,S,P (frontend max_queues, nr_cpus, ring order, indirect
 *                  segments, persistent) for the negotiation check
 *
 * Checks, for every input:
 *  - the result (return value, blamed key, every field) equals that of an
 *    independent model of the rules written from the header's documentation
 *    (strtoull-based parsing, explicit range table);
 *  - on success the invariants the drivers rely on hold (power-of-two
 *    block sizes in range, clamped maxima, discard fields zero unless
 *    feature-discard, ...);
 *  - the discard keys are read only when feature-discard is 1, and only
 *    known keys are read;
 *  - xblk_negotiate() on the result gives a usable configuration;
 *  - xblk_parse_be_ring() agrees with the model and with be_info on the
 *    two keys it reads.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "fuzz_common.h"
#include "../fake_xs.h"

#define MAX_LINES	FXS_MAX_KEYS

struct kv {
	char key[64];
	char val[64];		/* may hold NUL bytes; see len */
	size_t len;
	bool fail;
};

struct input {
	struct kv kv[MAX_LINES];
	unsigned int n;
	unsigned int max_block;
	struct xblk_fe_limits fl;
	const char *reads[FXS_MAX_READS];
	unsigned int nr_reads;
};

static const char *const known_keys[] = {
	XBLK_KEY_SECTORS, XBLK_KEY_INFO, XBLK_KEY_SECTOR_SIZE,
	XBLK_KEY_PHYS_SECTOR_SIZE, XBLK_KEY_MAX_QUEUES, XBLK_KEY_MAX_RING_ORDER,
	XBLK_KEY_MAX_INDIRECT, XBLK_KEY_PERSISTENT, XBLK_KEY_FLUSH,
	XBLK_KEY_BARRIER, XBLK_KEY_DISCARD, XBLK_KEY_DISCARD_GRAN,
	XBLK_KEY_DISCARD_ALIGN, XBLK_KEY_DISCARD_SECURE, XBLK_KEY_IO_MIN,
	XBLK_KEY_IO_OPT, XBLK_KEY_MAX_SECTORS,
};

static const struct kv *lookup(const struct input *in, const char *key)
{
	unsigned int i;

	for (i = 0; i < in->n; i++)
		if (!strcmp(in->kv[i].key, key))
			return &in->kv[i];
	return NULL;
}

/* The read callback under test: raw bytes, as xenbus_read returns them. */
static int in_read(void *ctx, const char *key, char *buf, size_t len)
{
	struct input *in = ctx;
	const struct kv *kv = lookup(in, key);

	if (in->nr_reads < FXS_MAX_READS)
		in->reads[in->nr_reads++] = key;
	if (!kv)
		return -ENOENT;
	if (kv->fail)
		return -EIO;
	if (kv->len >= len)
		return -E2BIG;
	memcpy(buf, kv->val, kv->len);
	buf[kv->len] = '\0';
	return 0;
}

static unsigned long long num(const char **s)
{
	unsigned long long v = strtoull(*s, (char **)s, 10);

	if (**s == ',')
		(*s)++;
	return v;
}

static void parse_input(const uint8_t *data, size_t size, struct input *in)
{
	size_t pos = 0;

	memset(in, 0, sizeof(*in));
	in->max_block = 4096;
	in->fl.max_queues = 4;
	in->fl.nr_cpus = 2;
	in->fl.max_ring_order = 4;
	in->fl.max_indirect_segs = 256;
	in->fl.persistent = true;

	while (pos < size && in->n < MAX_LINES) {
		const uint8_t *line = data + pos, *nl, *eq;
		size_t len, klen;
		struct kv *kv;

		nl = memchr(line, '\n', size - pos);
		len = nl ? (size_t)(nl - line) : size - pos;
		pos += len + 1;
		if (len && line[0] == '@') {
			char cfg[64];
			const char *s;

			if (len >= sizeof(cfg))
				continue;
			memcpy(cfg, line, len);
			cfg[len] = '\0';
			if (!strncmp(cfg, "@max_block=", 11)) {
				s = cfg + 11;
				in->max_block = num(&s);
			} else if (!strncmp(cfg, "@fe=", 4)) {
				s = cfg + 4;
				in->fl.max_queues = num(&s);
				in->fl.nr_cpus = num(&s);
				in->fl.max_ring_order = num(&s);
				in->fl.max_indirect_segs = num(&s);
				in->fl.persistent = num(&s);
			}
			continue;
		}
		eq = memchr(line, '=', len);
		klen = eq ? (size_t)(eq - line) : len;
		if (klen >= sizeof(kv->key) || memchr(line, '\0', klen))
			continue;
		kv = &in->kv[in->n++];
		memcpy(kv->key, line, klen);
		kv->key[klen] = '\0';
		if (!eq) {
			kv->fail = true;
			continue;
		}
		kv->len = len - klen - 1;
		if (kv->len > sizeof(kv->val))
			kv->len = sizeof(kv->val);	/* still >= 32: E2BIG */
		memcpy(kv->val, eq + 1, kv->len);
	}
}

/* ------------------------------------------------------------- model -- */

/*
 * Malformed, and its leading digits already overflow: the header documents
 * no precedence between -EINVAL and -ERANGE, so either is right.
 */
#define EITHER_ERR	(-1000)

/* strict decimal, via strtoull: digits only, no sign, no overflow */
static int model_u64(const char *s, unsigned long long *v)
{
	const char *p;
	char digits[80];
	size_t n;

	if (!*s)
		return -EINVAL;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9') {
			n = p - s;
			memcpy(digits, s, n);
			digits[n] = '\0';
			errno = 0;
			if (n && (strtoull(digits, NULL, 10), errno == ERANGE))
				return EITHER_ERR;
			return -EINVAL;
		}
	}
	errno = 0;
	*v = strtoull(s, NULL, 10);
	if (errno == ERANGE)
		return -ERANGE;
	return 0;
}

struct mstate {
	const struct input *in;
	const char *bad;
	int err;
};

/* One key: absent → def (or -ENOENT when required), else parse + range. */
static bool mget(struct mstate *m, const char *key, bool required,
		 unsigned long long def, unsigned long long lo,
		 unsigned long long hi, unsigned long long *v)
{
	const struct kv *kv = lookup(m->in, key);
	char buf[80];
	int err;

	if (!kv) {
		if (required) {
			err = -ENOENT;
			goto bad;
		}
		*v = def;
		return true;
	}
	if (kv->fail) {
		err = -EIO;
		goto bad;
	}
	if (kv->len >= XBLK_KEY_MAXLEN) {
		err = -EINVAL;
		goto bad;
	}
	memcpy(buf, kv->val, kv->len);
	buf[kv->len] = '\0';
	err = model_u64(buf, v);
	if (err)
		goto bad;
	if (*v < lo || *v > hi) {
		err = -ERANGE;
		goto bad;
	}
	return true;
bad:
	m->err = err;
	m->bad = key;
	return false;
}

static bool pow2(unsigned long long v)
{
	unsigned long long p;

	for (p = 1; p && p <= v; p <<= 1)
		if (p == v)
			return true;
	return false;
}

static bool fail(struct mstate *m, const char *key)
{
	m->err = -ERANGE;
	m->bad = key;
	return false;
}

static bool model(const struct input *in, struct xblk_be_info *bi,
		  struct mstate *m)
{
	unsigned long long v;
	const unsigned long long U64 = ~0ull;

	m->in = in;
	memset(bi, 0, sizeof(*bi));
	if (!mget(m, "sectors", true, 0, 0, (1ull << 54) - 1, &v))
		return false;
	bi->sectors = v;
	if (!mget(m, "info", true, 0, 0, 0xffffffffull, &v))
		return false;
	bi->info = v;
	if (!mget(m, "sector-size", true, 0, 512, in->max_block, &v))
		return false;
	if (!pow2(v))
		return fail(m, "sector-size");
	bi->sector_size = v;
	if (!mget(m, "physical-sector-size", false, bi->sector_size, 512,
		  1ull << 30, &v))
		return false;
	if (!pow2(v))
		return fail(m, "physical-sector-size");
	bi->phys_sector_size = v < bi->sector_size ? bi->sector_size : v;
	if (!mget(m, "multi-queue-max-queues", false, 1, 0, U64, &v))
		return false;
	bi->max_queues = v < 1 ? 1 : v > 32 ? 32 : v;
	if (!mget(m, "max-ring-page-order", false, 0, 0, U64, &v))
		return false;
	bi->max_ring_order = v > 4 ? 4 : v;
	if (!mget(m, "feature-max-indirect-segments", false, 0, 0, U64, &v))
		return false;
	bi->max_indirect_segs = v > 4096 ? 4096 : v;
	if (!mget(m, "feature-persistent", false, 0, 0, 1, &v))
		return false;
	bi->persistent = v;
	if (!mget(m, "feature-flush-cache", false, 0, 0, 1, &v))
		return false;
	bi->flush = v;
	if (!mget(m, "feature-barrier", false, 0, 0, 1, &v))
		return false;
	bi->barrier = v;
	if (!mget(m, "feature-discard", false, 0, 0, 1, &v))
		return false;
	bi->discard = v;
	if (bi->discard) {
		if (!mget(m, "discard-secure", false, 0, 0, 1, &v))
			return false;
		bi->discard_secure = v;
		if (!mget(m, "discard-granularity", false, 0, 0, 1ull << 30, &v))
			return false;
		if (v && (!pow2(v) || v % bi->sector_size))
			return fail(m, "discard-granularity");
		bi->discard_granularity = v;
		if (!mget(m, "discard-alignment", false, 0, 0, 1ull << 30, &v))
			return false;
		if (v % bi->sector_size ||
		    (bi->discard_granularity && v >= bi->discard_granularity))
			return fail(m, "discard-alignment");
		bi->discard_alignment = v;
	}
	if (!mget(m, "xblk-io-min", false, 0, 0, 1ull << 30, &v))
		return false;
	if (v % bi->sector_size)
		return fail(m, "xblk-io-min");
	bi->io_min = v;
	if (!mget(m, "xblk-io-opt", false, 0, 0, 1ull << 30, &v))
		return false;
	if (v % bi->sector_size)
		return fail(m, "xblk-io-opt");
	bi->io_opt = v;
	if (!mget(m, "xblk-max-sectors", false, 0, 0, 1ull << 22, &v))
		return false;
	if (v && v * 512 < bi->sector_size)
		return fail(m, "xblk-max-sectors");
	bi->max_sectors = v;
	return true;
}

/* ------------------------------------------------------------ checks -- */

#define SAME(f) FUZZ_ASSERT(got.f == want.f, "field " #f ": got %llu want %llu", \
			    (unsigned long long)got.f, (unsigned long long)want.f)

static void check_invariants(const struct xblk_be_info *bi, unsigned int max_block)
{
	FUZZ_ASSERT(bi->sectors <= ~0ull >> 10, "sectors");
	FUZZ_ASSERT(pow2(bi->sector_size) && bi->sector_size >= 512 &&
		    bi->sector_size <= max_block, "sector_size %u", bi->sector_size);
	FUZZ_ASSERT(pow2(bi->phys_sector_size) &&
		    bi->phys_sector_size >= bi->sector_size, "phys");
	FUZZ_ASSERT(bi->max_queues >= 1 && bi->max_queues <= XBLK_MAX_QUEUES, "q");
	FUZZ_ASSERT(bi->max_ring_order <= XBLK_MAX_RING_ORDER, "order");
	FUZZ_ASSERT(bi->max_indirect_segs <= XBLK_MAX_INDIRECT_SEGS, "segs");
	if (!bi->discard)
		FUZZ_ASSERT(!bi->discard_secure && !bi->discard_granularity &&
			    !bi->discard_alignment, "discard fields without discard");
	FUZZ_ASSERT(bi->discard_granularity % bi->sector_size == 0, "gran");
	FUZZ_ASSERT(bi->discard_alignment % bi->sector_size == 0, "align");
	FUZZ_ASSERT(!bi->discard_granularity ||
		    bi->discard_alignment < bi->discard_granularity, "align<gran");
	FUZZ_ASSERT(bi->io_min % bi->sector_size == 0, "io_min");
	FUZZ_ASSERT(bi->io_opt % bi->sector_size == 0, "io_opt");
	FUZZ_ASSERT(!bi->max_sectors ||
		    (u64)bi->max_sectors * 512 >= bi->sector_size, "max_sectors");
}

static void check_negotiate(const struct xblk_be_info *bi,
			    const struct xblk_fe_limits *fl)
{
	struct xblk_negotiated n;
	unsigned int lim;

	xblk_negotiate(bi, fl, &n);
	FUZZ_ASSERT(n.nr_queues >= 1 && n.nr_queues <= bi->max_queues,
		    "nr_queues %u", n.nr_queues);
	if (fl->max_queues && fl->nr_cpus)
		FUZZ_ASSERT(n.nr_queues <= fl->max_queues &&
			    n.nr_queues <= fl->nr_cpus, "nr_queues %u", n.nr_queues);
	FUZZ_ASSERT(n.ring_order <= bi->max_ring_order &&
		    n.ring_order <= fl->max_ring_order, "ring_order");
	FUZZ_ASSERT(n.persistent == (bi->persistent && fl->persistent), "pers");
	FUZZ_ASSERT(n.indirect == (n.segs > BLKIF_MAX_SEGMENTS_PER_REQUEST),
		    "indirect %d segs %u", n.indirect, n.segs);
	FUZZ_ASSERT(n.segs >= BLKIF_MAX_SEGMENTS_PER_REQUEST &&
		    n.segs <= XBLK_MAX_INDIRECT_SEGS, "segs %u", n.segs);
	if (n.indirect) {
		FUZZ_ASSERT(n.segs <= bi->max_indirect_segs &&
			    n.segs <= fl->max_indirect_segs, "segs %u > offers", n.segs);
		/* whole pages, never below the 128 KiB floor */
		lim = (bi->max_sectors + 7) / 8;
		if (lim < XBLK_FLOOR_SEGS)
			lim = XBLK_FLOOR_SEGS;
		FUZZ_ASSERT(!bi->max_sectors || n.segs <= lim,
			    "segs %u beyond max_sectors %u", n.segs, bi->max_sectors);
		FUZZ_ASSERT(!bi->max_sectors || n.segs >= lim ||
			    n.segs == bi->max_indirect_segs ||
			    n.segs == fl->max_indirect_segs ||
			    n.segs == XBLK_MAX_INDIRECT_SEGS,
			    "segs %u below the cap %u with no offer that low",
			    n.segs, lim);
		FUZZ_ASSERT(xblk_indirect_frames(n.segs) <=
			    BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST, "frames");
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct input in;
	struct xblk_be_info got, want;
	struct mstate m = { 0 };
	const char *bad = NULL;
	bool model_ok;
	unsigned int i, j;
	int ret;

	parse_input(data, size, &in);
	if (in.max_block > (1u << 20))
		in.max_block = 1u << 20;
	memset(&got, 0, sizeof(got));
	ret = xblk_parse_be_info(in_read, &in, &got, &bad, in.max_block);
	model_ok = model(&in, &want, &m);

	FUZZ_ASSERT(!ret == model_ok, "returned %d, model says %s %d on %s",
		    ret, model_ok ? "ok" : "error", m.err, m.bad ? m.bad : "-");
	if (ret) {
		FUZZ_ASSERT(ret == m.err || (m.err == EITHER_ERR &&
			    (ret == -EINVAL || ret == -ERANGE)),
			    "error %d, model %d", ret, m.err);
		FUZZ_ASSERT(bad && !strcmp(bad, m.bad), "blamed %s, model %s",
			    bad ? bad : "nothing", m.bad);
	} else {
		SAME(sectors); SAME(info); SAME(sector_size);
		SAME(phys_sector_size); SAME(max_queues); SAME(max_ring_order);
		SAME(max_indirect_segs); SAME(persistent); SAME(flush);
		SAME(barrier); SAME(discard); SAME(discard_secure);
		SAME(discard_granularity); SAME(discard_alignment);
		SAME(io_min); SAME(io_opt); SAME(max_sectors);
		check_invariants(&got, in.max_block);
		check_negotiate(&got, &in.fl);
	}

	/*
	 * xblk_parse_be_ring() reads the same two keys before the rest is
	 * written: same verdict on them, same clamped values.
	 */
	{
		struct mstate mr = { .in = &in };
		unsigned int q = 0, o = 0;
		unsigned long long v;
		const char *rbad = NULL;
		int rret;
		bool ok;

		rret = xblk_parse_be_ring(in_read, &in, &q, &o, &rbad);
		ok = mget(&mr, "multi-queue-max-queues", false, 1, 0, ~0ull, &v);
		if (ok) {
			FUZZ_ASSERT(!rret || strcmp(rbad, "multi-queue-max-queues"),
				    "be_ring blamed valid max-queues");
			ok = mget(&mr, "max-ring-page-order", false, 0, 0, ~0ull, &v);
		}
		FUZZ_ASSERT(!rret == ok, "be_ring returned %d, model %d on %s",
			    rret, mr.err, mr.bad ? mr.bad : "-");
		if (rret) {
			FUZZ_ASSERT(rret == mr.err || (mr.err == EITHER_ERR &&
				    (rret == -EINVAL || rret == -ERANGE)),
				    "be_ring error %d, model %d", rret, mr.err);
			FUZZ_ASSERT(rbad && !strcmp(rbad, mr.bad), "be_ring blame");
		} else {
			FUZZ_ASSERT(q >= 1 && q <= XBLK_MAX_QUEUES &&
				    o <= XBLK_MAX_RING_ORDER, "be_ring clamps");
			if (!ret)
				FUZZ_ASSERT(q == got.max_queues &&
					    o == got.max_ring_order,
					    "be_ring and be_info disagree");
		}
	}

	/* Only known keys read; discard keys only after feature-discard=1. */
	for (i = 0; i < in.nr_reads; i++) {
		bool known = false;

		for (j = 0; j < sizeof(known_keys) / sizeof(known_keys[0]); j++)
			known |= !strcmp(in.reads[i], known_keys[j]);
		FUZZ_ASSERT(known, "read unknown key %s", in.reads[i]);
		if (!strncmp(in.reads[i], "discard-", 8)) {
			const struct kv *d = lookup(&in, XBLK_KEY_DISCARD);
			unsigned long long v = 0;
			char buf[80];

			if (d && !d->fail) {
				memcpy(buf, d->val, d->len);
				buf[d->len] = '\0';
			}
			FUZZ_ASSERT(d && !d->fail && d->len < XBLK_KEY_MAXLEN &&
				    !model_u64(buf, &v) && v == 1,
				    "%s read without feature-discard=1",
				    in.reads[i]);
		}
	}
	return 0;
}
