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
	/* a few outstanding are not enough either: a quarter of 7 is 1 */
	xblk_coalesce_pass(&c, t + 1, 1, 7, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 1);
}

XTEST(coalesce_grows_on_events)
{
	struct xblk_coalesce c;

	xblk_coalesce_reset(&c);
	xblk_coalesce_pass(&c, 100, 5, 5, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 5);		/* what the pass found */
	xblk_coalesce_pass(&c, 200, 3, 3, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 4);		/* no more than the batch: one less */
	xblk_coalesce_pass(&c, 250, 4, 4, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 3);		/* exactly the batch: one less too */
	xblk_coalesce_pass(&c, 300, 2, 27, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 6);		/* a quarter of the outstanding */
	xblk_coalesce_pass(&c, 400, 30, 64, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 8);		/* never beyond max */
	xblk_coalesce_pass(&c, 500, 30, 128, XBLK_PASS_EVENT, 32);
	CHECK_EQ(c.batch, 32);
}

XTEST(coalesce_timer_shrinks)
{
	struct xblk_coalesce c;

	xblk_coalesce_reset(&c);
	xblk_coalesce_pass(&c, 100, 8, 8, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 8);
	xblk_coalesce_pass(&c, 200, 7, 40, XBLK_PASS_TIMER, 8);
	CHECK_EQ(c.batch, 4);		/* halved, though 7 came */
	xblk_coalesce_pass(&c, 300, 1, 40, XBLK_PASS_TIMER, 8);
	CHECK_EQ(c.batch, 1);		/* no more than the timer found */
	xblk_coalesce_pass(&c, 310, 6, 40, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 8);		/* a quarter of the outstanding, within max */
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
	/* a completion's pass that took part of a batch lowers it by one ... */
	xblk_coalesce_pass(&c, 200, 1, 30, XBLK_PASS_OTHER, 8);
	CHECK_EQ(c.batch, 7);
	/* ... one that took a whole batch, or nothing, leaves it alone */
	xblk_coalesce_pass(&c, 250, 9, 30, XBLK_PASS_OTHER, 8);
	CHECK_EQ(c.batch, 7);
	xblk_coalesce_pass(&c, 300, 0, 0, XBLK_PASS_OTHER, 8);
	CHECK_EQ(c.batch, 7);
	/* a lowered max applies at once */
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
	/* the timer's pass: its wait is not the peer's pace, the gap stays */
	xblk_coalesce_pass(&c, 95000, 2, 2, XBLK_PASS_TIMER, 8);
	CHECK_EQ(c.gap_ns, 1125);
	CHECK_EQ(c.last_ns, 95000);
	xblk_coalesce_pass(&c, 95000 + 8 * 1125, 8, 8, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.gap_ns, 1125);	/* sampled from the timer's pass on */
	c.last_ns = 25000;
	/* after more than a second idle the gap is not sampled */
	xblk_coalesce_pass(&c, 25000 + 2 * 1000 * MS, 1, 1, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.gap_ns, 1125);
	CHECK_EQ(c.last_ns, 25000 + 2 * 1000 * MS);
}

/* Queue depth 1 reads no clock; the gap is measured again from depth 2 on. */
XTEST(coalesce_qd1_no_clock)
{
	struct xblk_coalesce c;

	xblk_coalesce_reset(&c);
	CHECK(!xblk_coalesce_needs_time(&c, 0, 0));
	CHECK(!xblk_coalesce_needs_time(&c, 0, 5));	/* took nothing */
	CHECK(!xblk_coalesce_needs_time(&c, 1, 1));	/* queue depth 1 */
	CHECK(xblk_coalesce_needs_time(&c, 1, 2));	/* one more is out */
	CHECK(xblk_coalesce_needs_time(&c, 2, 2));	/* may grow */
	xblk_coalesce_pass(&c, 1000, 4, 4, XBLK_PASS_EVENT, 8);
	xblk_coalesce_pass(&c, 9000, 8, 8, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.gap_ns, 1000);
	CHECK_EQ(c.batch, 8);
	CHECK(xblk_coalesce_needs_time(&c, 1, 1));	/* a batch to come down */
	c.batch = 1;
	/* depth 1 again: no clock, the gap is kept, nothing to start from */
	xblk_coalesce_pass(&c, 0, 1, 1, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.batch, 1);
	CHECK_EQ(c.gap_ns, 1000);
	CHECK_EQ(c.last_ns, 0);
	/* the first pass that reads it again only starts the next gap ... */
	xblk_coalesce_pass(&c, 500 * MS, 2, 2, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.gap_ns, 1000);
	CHECK_EQ(c.last_ns, 500 * MS);
	/* ... which the one after measures */
	xblk_coalesce_pass(&c, 500 * MS + 4000, 2, 2, XBLK_PASS_EVENT, 8);
	CHECK_EQ(c.gap_ns, 1000 - 125 + 250);
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

/*
 * A model of xblkback's request side (thread.c, coalesce.c) against a
 * frontend, in virtual time: requests wait in the ring until a pass takes
 * them; each is served in svc_ns; each completion makes a pass
 * (XBLK_PASS_OTHER); after every pass the ring asks for an event a batch
 * ahead and starts the timer when the batch is above 1 (without
 * poll_inflight).  The frontend: nclosed submitters that resubmit
 * think_ns after their answer (fio at a queue depth, a closed loop), and
 * one entry every open_ns whatever happens (a rate-limited stream; 0:
 * none).
 */
struct sim {
	unsigned int max;
	u64 svc_ns, think_ns, open_ns;
	unsigned int nclosed;
	/* results */
	u64 closed_done, events, timers, taken;
};

#define SIM_SLOTS	64
#define SIM_NONE	(~0ULL)

static void sim_run(struct sim *s, u64 end_ns)
{
	struct xblk_coalesce c;
	u64 next_sub[SIM_SLOTS];	/* closed submitter i publishes then */
	u64 done_at[SIM_SLOTS];		/* its request completes then */
	int waiting[SIM_SLOTS];		/* published, not taken yet */
	u64 next_open = s->open_ns ? s->open_ns : SIM_NONE;
	u64 open_done[SIM_SLOTS];
	unsigned int nopen_wait = 0, i, nopen_fly = 0;
	u64 now = 0, timer = SIM_NONE;
	unsigned int need = 1, since = 0;	/* an event after need more */

	s->closed_done = s->events = s->timers = s->taken = 0;
	xblk_coalesce_reset(&c);
	for (i = 0; i < s->nclosed; i++) {
		next_sub[i] = 1000 + i;
		done_at[i] = SIM_NONE;
		waiting[i] = 0;
	}
	while (now < end_ns) {
		u64 t = SIM_NONE;
		enum xblk_pass_cause cause = XBLK_PASS_OTHER;
		unsigned int found = 0, out = 0;
		int pass = 0;

		/* the next thing to happen */
		for (i = 0; i < s->nclosed; i++) {
			if (next_sub[i] < t)
				t = next_sub[i];
			if (done_at[i] < t)
				t = done_at[i];
		}
		if (next_open < t)
			t = next_open;
		for (i = 0; i < nopen_fly; i++)
			if (open_done[i] < t)
				t = open_done[i];
		if (timer < t)
			t = timer;
		now = t;
		/* publications */
		for (i = 0; i < s->nclosed; i++) {
			if (next_sub[i] == now) {
				next_sub[i] = SIM_NONE;
				waiting[i] = 1;
				since++;
			}
		}
		if (next_open == now) {
			next_open += s->open_ns;
			nopen_wait++;
			since++;
		}
		if (since >= need) {
			pass = 1;
			cause = XBLK_PASS_EVENT;
			s->events++;
		}
		if (timer == now) {
			timer = SIM_NONE;
			if (!pass) {
				pass = 1;
				cause = XBLK_PASS_TIMER;
				s->timers++;
			}
		}
		/* completions: answered at once, each a pass (poll_inflight) */
		for (i = 0; i < s->nclosed; i++) {
			if (done_at[i] == now) {
				done_at[i] = SIM_NONE;
				s->closed_done++;
				next_sub[i] = now + s->think_ns;
				pass = 1;
			}
		}
		for (i = 0; i < nopen_fly; ) {
			if (open_done[i] == now) {
				open_done[i] = open_done[--nopen_fly];
				pass = 1;
			} else {
				i++;
			}
		}
		if (!pass)
			continue;
		/* the pass: take what waits, serve it */
		for (i = 0; i < s->nclosed; i++) {
			if (done_at[i] != SIM_NONE)
				out++;
			if (waiting[i]) {
				waiting[i] = 0;
				done_at[i] = now + s->svc_ns;
				found++;
			}
		}
		out += nopen_fly + found + nopen_wait;
		while (nopen_wait && nopen_fly < SIM_SLOTS) {
			open_done[nopen_fly++] = now + s->svc_ns;
			nopen_wait--;
			found++;
		}
		s->taken += found;
		timer = SIM_NONE;
		/* as both drivers do: the clock only where it is needed */
		xblk_coalesce_pass(&c,
				   xblk_coalesce_needs_time(&c, found, out) ?
				   now : 0, found, out, cause, s->max);
		need = c.batch;
		since = 0;
		if (c.batch > 1)
			timer = now + xblk_coalesce_wait(&c, 10 * US, 20 * MS);
	}
}

/*
 * Two closed-loop submitters and a stream of one request every 20 ms on a
 * 1 ms device: what xblkback saw in the lab's qos-runtime case.  The
 * submitters must not be held to the slow stream's pace: with coalescing
 * they get at least 90 % of what they get with it off.
 */
XTEST(coalesce_closed_loop_not_held)
{
	struct sim off = { .max = 1, .svc_ns = 1 * MS, .think_ns = 30 * US,
			   .open_ns = 20 * MS, .nclosed = 2 };
	struct sim on = off;

	on.max = 10;
	sim_run(&off, 10000 * MS);
	sim_run(&on, 10000 * MS);
	CHECK(off.closed_done > 15000);		/* about 2 per 1.03 ms */
	CHECK(on.closed_done * 10 >= off.closed_done * 9);
	/* the same with 4 submitters, a faster device and stream */
	off.nclosed = on.nclosed = 4;
	off.svc_ns = on.svc_ns = 100 * US;
	off.open_ns = on.open_ns = 3 * MS;
	sim_run(&off, 1000 * MS);
	sim_run(&on, 1000 * MS);
	CHECK(on.closed_done * 10 >= off.closed_done * 9);
}

/*
 * A frontend that keeps many requests going whatever we answer: an open
 * stream every 10 us on a 200 us device, about 20 outstanding.  Coalescing
 * must cut the events: at most one per 4 requests (one per request when
 * off), and the timer must not stand in for them.
 */
XTEST(coalesce_open_stream_batches)
{
	struct sim off = { .max = 1, .svc_ns = 200 * US, .open_ns = 10 * US };
	struct sim on = off;

	on.max = 10;
	sim_run(&off, 100 * MS);
	sim_run(&on, 100 * MS);
	CHECK(off.taken > 9000);
	CHECK(on.taken * 10 >= off.taken * 9);
	CHECK(on.events * 4 <= on.taken);
	CHECK(on.timers * 20 <= on.taken);
}


/*
 * Events that keep finding the CPU idle (a guest waiting on a slow disk)
 * stop the batching: nothing to save, a closed loop to delay.  A busy CPU
 * brings it back.
 */
XTEST(coalesce_idle_stops_batching)
{
	struct xblk_coalesce c;
	unsigned int i;

	xblk_coalesce_reset(&c);
	for (i = 0; i < 8; i++)
		xblk_coalesce_pass(&c, 1000 + i * 1000, 8, 64, XBLK_PASS_EVENT, 10);
	CHECK(c.batch > 1);
	for (i = 0; i < 64; i++) {
		xblk_coalesce_idle(&c, true);
		xblk_coalesce_pass(&c, 100000 + i * 1000, 8, 64,
				   XBLK_PASS_EVENT, 10);
	}
	CHECK(c.idle_share >= XBLK_COALESCE_IDLE_STOP);
	CHECK_EQ(c.batch, 1);
	/* half the events busy: below the threshold, the batch grows again */
	for (i = 0; i < 64; i++) {
		xblk_coalesce_idle(&c, i & 1);
		xblk_coalesce_pass(&c, 200000 + i * 1000, 8, 64,
				   XBLK_PASS_EVENT, 10);
	}
	CHECK(c.idle_share < XBLK_COALESCE_IDLE_STOP);
	CHECK(c.batch > 1);
}
