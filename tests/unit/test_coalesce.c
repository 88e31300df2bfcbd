// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/xblk/coalesce.h: the batch a ring asks its peer
 * for before the next event, and how long entries wait for it.
 */
#include "xtest.h"
#include "xblk/coalesce.h"

#define US	1000ULL
#define MS	1000000ULL

XTEST(coalesce_reset)
{
	struct xblk_coalesce c = { .batch = 7, .gap_ns = 5, .last_ns = 9 };

	xblk_coalesce_reset(&c);
	CHECK_EQ(c.batch, 1);
	CHECK_EQ(c.gap_ns, 0);
	CHECK_EQ(c.last_ns, 0);
	/* nothing known: the shortest wait */
	CHECK_EQ(xblk_coalesce_wait(&c, 10 * US, 20 * MS), 10 * US);
}

/* Queue depth 1: one entry per pass, one outstanding: never a batch. */
XTEST(coalesce_qd1_stays_one)
{
	struct xblk_coalesce c;
	u64 t = 1;
	int i;

	xblk_coalesce_reset(&c);
	for (i = 0; i < 1000; i++) {
		t += 50 * US;
		xblk_coalesce_pass(&c, t, 1, 1, XBLK_PASS_EVENT, 8);
		CHECK_EQ(c.batch, 1);
	}
	/* two outstanding are not enough either: half of 2 is 1 */
	xblk_coalesce_pass(&c, t + 1, 1, 2, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 1);
}

XTEST(coalesce_grows_on_events)
{
	struct xblk_coalesce c;

	xblk_coalesce_reset(&c);
	xblk_coalesce_pass(&c, 100, 5, 5, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 5);		/* what the pass found */
	xblk_coalesce_pass(&c, 200, 3, 3, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 5);		/* fewer found: an event never shrinks it */
	xblk_coalesce_pass(&c, 300, 2, 13, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 6);		/* half of the outstanding */
	xblk_coalesce_pass(&c, 400, 30, 64, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 8);		/* never beyond max */
	xblk_coalesce_pass(&c, 500, 30, 64, XBLK_PASS_EVENT, 32);
	CHECK_EQ(c.batch, 32);
}

XTEST(coalesce_timer_shrinks)
{
	struct xblk_coalesce c;

	xblk_coalesce_reset(&c);
	xblk_coalesce_pass(&c, 100, 8, 8, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 8);
	xblk_coalesce_pass(&c, 200, 3, 40, XBLK_PASS_TIMER, 8);
	CHECK_EQ(c.batch, 4);		/* halved: more than the 3 found */
	xblk_coalesce_pass(&c, 300, 3, 40, XBLK_PASS_TIMER, 8);
	CHECK_EQ(c.batch, 3);		/* what the timer found */
	xblk_coalesce_pass(&c, 400, 0, 40, XBLK_PASS_TIMER, 8);
	CHECK_EQ(c.batch, 1);		/* nothing came: the load is gone */
	xblk_coalesce_pass(&c, 500, 0, 0, XBLK_PASS_TIMER, 8);
	CHECK_EQ(c.batch, 1);
}

XTEST(coalesce_other_and_max)
{
	struct xblk_coalesce c;

	xblk_coalesce_reset(&c);
	xblk_coalesce_pass(&c, 100, 8, 8, XBLK_PASS_EVENT, 8);
	/* a completion's pass leaves the batch alone ... */
	xblk_coalesce_pass(&c, 200, 1, 30, XBLK_PASS_OTHER, 8);
	CHECK_EQ(c.batch, 8);
	xblk_coalesce_pass(&c, 300, 0, 0, XBLK_PASS_OTHER, 8);
	CHECK_EQ(c.batch, 8);
	/* ... but a lowered max applies at once */
	xblk_coalesce_pass(&c, 400, 0, 0, XBLK_PASS_OTHER, 2);
	CHECK_EQ(c.batch, 2);
	/* max 1: coalescing off, whatever the passes find */
	xblk_coalesce_pass(&c, 500, 30, 60, XBLK_PASS_EVENT, 1);
	CHECK_EQ(c.batch, 1);
	xblk_coalesce_pass(&c, 600, 30, 60, XBLK_PASS_TIMER, 1);
	CHECK_EQ(c.batch, 1);
}

XTEST(coalesce_gap_average)
{
	struct xblk_coalesce c;

	xblk_coalesce_reset(&c);
	xblk_coalesce_pass(&c, 1000, 1, 1, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.gap_ns, 0);		/* one pass: no gap yet */
	CHECK_EQ(c.last_ns, 1000);
	xblk_coalesce_pass(&c, 9000, 8, 8, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.gap_ns, 1000);	/* 8000 ns over 8 entries */
	xblk_coalesce_pass(&c, 25000, 8, 8, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.gap_ns, 1000 - 125 + 250);	/* 1/8 of a 2000 ns sample */
	/* a pass that took nothing changes neither */
	xblk_coalesce_pass(&c, 90000, 0, 0, XBLK_PASS_OTHER, 8);
	CHECK_EQ(c.gap_ns, 1125);
	CHECK_EQ(c.last_ns, 25000);
	/* after more than a second idle the gap is not sampled */
	xblk_coalesce_pass(&c, 25000 + 2 * 1000 * MS, 1, 1, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.gap_ns, 1125);
	CHECK_EQ(c.last_ns, 25000 + 2 * 1000 * MS);
}

XTEST(coalesce_wait_bounds)
{
	struct xblk_coalesce c = { .batch = 8, .gap_ns = 1000, .last_ns = 1 };

	/* twice the batch's arrival time */
	CHECK_EQ(xblk_coalesce_wait(&c, 10 * US, 20 * MS), 16 * US);
	c.gap_ns = 100;
	CHECK_EQ(xblk_coalesce_wait(&c, 10 * US, 20 * MS), 10 * US);
	c.gap_ns = 4000000;	/* 4 ms between entries: 64 ms, capped */
	CHECK_EQ(xblk_coalesce_wait(&c, 10 * US, 20 * MS), 20 * MS);
	c.gap_ns = 0xffffffffu;	/* no overflow at the largest gap */
	c.batch = 64;
	CHECK_EQ(xblk_coalesce_wait(&c, 10 * US, 100 * MS), 100 * MS);
}

/*
 * Whatever the passes find, the batch stays within [1, max] and never
 * exceeds the peer's concurrency: at queue depth n a pass finds at most n
 * entries and at most n are outstanding, so asking for more than n would
 * leave every batch to the timer.
 */
XTEST(coalesce_bounded_by_concurrency)
{
	struct xblk_coalesce c;
	unsigned int seed = 12345, n, i, found, out, max;
	u64 t = 1;

	for (n = 1; n <= 40; n++) {
		xblk_coalesce_reset(&c);
		for (i = 0; i < 500; i++) {
			seed = seed * 1103515245 + 12345;
			found = (seed >> 8) % (n + 1);
			out = (seed >> 16) % (n + 1);
			max = 1 + (seed >> 24) % 32;
			t += 1 + (seed >> 4) % (2 * MS);
			xblk_coalesce_pass(&c, t, found, out,
					   (enum xblk_pass_cause)((seed >> 2) % 3),
					   max);
			CHECK(c.batch >= 1 && c.batch <= max);
			CHECK(c.batch <= n);
		}
	}
}
