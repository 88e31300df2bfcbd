// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: the frontend's response path over a real blkif shared ring,
 * with xblk_rsp_prod_sane() and xblk_check_rsp() as the only defences.
 *
 * A model frontend hands out requests (ids from a shadow table, as
 * xblkfront does) and consumes responses; a backend, driven by the input,
 * either answers honestly or writes arbitrary rsp_prod values and response
 * bytes into the shared page.  The consumer loop is the one xblkfront runs:
 * read rsp_prod once, check it, copy each response out of the ring, look
 * the id up only after checking its range, validate, then complete.  Any
 * rejection marks the ring broken and stops the run.
 *
 * Properties asserted:
 *  - nothing out of range is ever accepted (id < nr_ids when valid);
 *  - no request is completed twice, none that was not issued is completed,
 *    and a completion carries the operation of its request;
 *  - the frontend never consumes more responses than it issued requests
 *    (outstanding == issued - consumed at all times, across 2^32 wrap);
 *  - an honest backend (every response and rsp_prod it wrote valid) is
 *    never rejected: the checks have no false positives.
 *
 * Input: 4 bytes of initial ring index (to exercise wrap-around), 1 byte
 * ring order (0..2), then a stream of actions (see the switch below).
 */
#include <stdbool.h>
#include <string.h>
#include "fuzz_common.h"
#include "xblk/wire.h"

#define MAX_ORDER	2
#define MAX_SLOTS	128

static union {
	struct blkif_sring s;
	uint8_t page[XEN_PAGE_SIZE << MAX_ORDER];
} shared;

struct shadow {
	bool inflight;		/* frontend: request id outstanding */
	bool answered;		/* backend: already responded to it */
	u8 op;
	u64 serial;		/* which submission, to spot double completion */
};

struct state {
	unsigned int slots;	/* ring size = number of ids, as xblkfront */
	RING_IDX req_prod_pvt;	/* frontend: requests handed out */
	RING_IDX rsp_cons;	/* frontend: responses consumed */
	RING_IDX be_rsp_prod;	/* backend: responses written */
	unsigned int outstanding;
	u64 next_serial;
	u64 completed;		/* number of completions */
	bool dishonest;		/* backend wrote anything invalid */
	bool broken;
	struct shadow sh[MAX_SLOTS];
	u64 done_serial[MAX_SLOTS * 64];	/* serials completed (bitmap) */
};

static struct state st;

static bool serial_done(u64 s)
{
	return st.done_serial[s / 64] >> (s % 64) & 1;
}

static void submit(struct fz *f)
{
	unsigned int n = fz_u8(f) % 8 + 1, k;

	for (k = 0; k < n; k++) {
		unsigned int id, tries;

		if (st.req_prod_pvt - st.rsp_cons >= st.slots)
			return;				/* RING_FULL */
		id = fz_u8(f) % st.slots;		/* any free id */
		for (tries = 0; st.sh[id].inflight && tries < st.slots; tries++)
			id = (id + 1) % st.slots;
		FUZZ_ASSERT(!st.sh[id].inflight, "no free id with ring not full");
		if (st.next_serial >= MAX_SLOTS * 64)
			return;
		st.sh[id].inflight = true;
		st.sh[id].answered = false;
		st.sh[id].op = fz_u8(f) % 7;
		st.sh[id].serial = st.next_serial++;
		st.req_prod_pvt++;
		st.outstanding++;
		shared.s.req_prod = st.req_prod_pvt;
	}
}

/*
 * Through a pointer: some kernels declare the ring ring[1] (variable
 * length in practice), which -fsanitize=bounds would take literally.
 */
static struct blkif_response *slot(RING_IDX i)
{
	union blkif_sring_entry *ring = (void *)(shared.page +
				offsetof(struct blkif_sring, ring));

	return &ring[i & (st.slots - 1)].rsp;
}

/* Honest backend: answer up to n unanswered requests, in any order. */
static void answer(struct fz *f)
{
	static const s16 statuses[] = {
		BLKIF_RSP_OKAY, BLKIF_RSP_ERROR, BLKIF_RSP_EOPNOTSUPP
	};
	unsigned int n = fz_u8(f) % 8 + 1, k;

	for (k = 0; k < n; k++) {
		unsigned int id = fz_u8(f) % st.slots, tries;
		struct blkif_response r;

		for (tries = 0; tries < st.slots &&
		     !(st.sh[id].inflight && !st.sh[id].answered); tries++)
			id = (id + 1) % st.slots;
		if (!st.sh[id].inflight || st.sh[id].answered)
			break;
		st.sh[id].answered = true;
		memset(&r, 0, sizeof(r));
		r.id = id;
		r.operation = st.sh[id].op;
		r.status = statuses[fz_u8(f) % 3];
		*slot(st.be_rsp_prod++) = r;
	}
	shared.s.rsp_prod = st.be_rsp_prod;
}

/* Malicious backend: raw response bytes and/or a raw rsp_prod. */
static void corrupt(struct fz *f)
{
	u8 what = fz_u8(f);

	if (what & 1) {
		struct blkif_response r;
		RING_IDX at = st.be_rsp_prod + (fz_u8(f) % 4);

		memset(&r, 0, sizeof(r));
		r.id = (what & 2) ? fz_u64(f) : fz_u8(f);
		r.operation = fz_u8(f);
		r.status = (s16)fz_u16(f);
		*slot(at) = r;
		if (at == st.be_rsp_prod)
			st.be_rsp_prod++;
		st.dishonest = true;
	}
	if (what & 4) {
		shared.s.rsp_prod = (what & 8) ? fz_u32(f)
					       : st.be_rsp_prod + (int8_t)fz_u8(f);
		st.dishonest = true;
	} else {
		shared.s.rsp_prod = st.be_rsp_prod;
	}
}

/* The frontend's interrupt handler. */
static void consume(void)
{
	RING_IDX rp = shared.s.rsp_prod, i;	/* read once */

	if (!xblk_rsp_prod_sane(rp, st.rsp_cons, st.req_prod_pvt)) {
		FUZZ_ASSERT(st.dishonest, "honest rsp_prod %u rejected "
			    "(cons %u prod %u)", rp, st.rsp_cons, st.req_prod_pvt);
		st.broken = true;
		return;
	}
	FUZZ_ASSERT((RING_IDX)(rp - st.rsp_cons) <= st.outstanding,
		    "accepted rsp_prod %u: %u responses for %u outstanding",
		    rp, rp - st.rsp_cons, st.outstanding);
	for (i = st.rsp_cons; i != rp; i++) {
		struct blkif_response r = *slot(i);	/* private copy */
		bool in_range = r.id < st.slots;
		struct shadow *s = in_range ? &st.sh[r.id] : NULL;
		enum xblk_rsp_err e;

		e = xblk_check_rsp(&r, st.slots, s && s->inflight,
				   s ? s->op : 0);
		if (e != XBLK_RSP_VALID) {
			FUZZ_ASSERT(st.dishonest, "honest response rejected: %s "
				    "(id %llu op %u status %d)",
				    xblk_rsp_err_str(e),
				    (unsigned long long)r.id, r.operation,
				    r.status);
			st.broken = true;
			return;
		}
		FUZZ_ASSERT(in_range, "accepted out-of-range id %llu",
			    (unsigned long long)r.id);
		FUZZ_ASSERT(s->inflight, "accepted id %llu not in flight",
			    (unsigned long long)r.id);
		FUZZ_ASSERT(!serial_done(s->serial), "request %llu completed twice",
			    (unsigned long long)s->serial);
		FUZZ_ASSERT(r.operation == s->op, "op mismatch accepted");
		FUZZ_ASSERT(r.status == BLKIF_RSP_OKAY || r.status == BLKIF_RSP_ERROR ||
			    r.status == BLKIF_RSP_EOPNOTSUPP, "status %d", r.status);
		st.done_serial[s->serial / 64] |= 1ull << (s->serial % 64);
		s->inflight = false;
		st.outstanding--;
		st.completed++;
		st.rsp_cons = i + 1;
	}
	FUZZ_ASSERT(st.outstanding == st.req_prod_pvt - st.rsp_cons,
		    "outstanding %u, issued-consumed %u", st.outstanding,
		    st.req_prod_pvt - st.rsp_cons);
	FUZZ_ASSERT(st.completed <= st.next_serial, "more completions than requests");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f = { data, size };
	RING_IDX base = fz_u32(&f);
	unsigned int steps = 0;

	memset(&st, 0, sizeof(st));
	memset(&shared, 0, sizeof(shared));
	st.slots = xblk_ring_slots(fz_u8(&f) % (MAX_ORDER + 1));
	FUZZ_ASSERT(st.slots && st.slots <= MAX_SLOTS &&
		    offsetof(struct blkif_sring, ring) +
		    st.slots * sizeof(union blkif_sring_entry) <= sizeof(shared),
		    "ring size %u", st.slots);
	st.req_prod_pvt = st.rsp_cons = st.be_rsp_prod = base;
	shared.s.req_prod = shared.s.rsp_prod = base;

	while (f.n && !st.broken && steps++ < 4096) {
		switch (fz_u8(&f) % 4) {
		case 0:
			submit(&f);
			break;
		case 1:
			answer(&f);
			break;
		case 2:
			corrupt(&f);
			break;
		case 3:
			consume();
			break;
		}
	}
	if (!st.broken)
		consume();
#ifdef FUZZ_DEBUG
	fprintf(stderr, "slots %u issued %llu completed %llu broken %d dishonest %d\n",
		st.slots, (unsigned long long)st.next_serial,
		(unsigned long long)st.completed, st.broken, st.dishonest);
#endif
	return 0;
}
