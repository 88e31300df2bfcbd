// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/xblk/inflight.h: the window of requests a stream
 * keeps in flight, against a model of a device of a given concurrency and
 * latency, and of a CPU that has to handle every request.
 */
#include "xtest.h"
#include "xblk/inflight.h"

XTEST(inflight_init_and_bounds)
{
	struct xblk_inflight c;

	xblk_inflight_init(&c, 32, 8, 256);
	CHECK_EQ(c.window, 32);
	CHECK(c.grow);
	xblk_inflight_init(&c, 1000, 8, 256);
	CHECK_EQ(c.window, 256);
	xblk_inflight_init(&c, 1, 8, 256);
	CHECK_EQ(c.window, 8);
	xblk_inflight_set_bounds(&c, 8, 4);	/* max below min: min */
	CHECK_EQ(c.window, 8);
	xblk_inflight_set_bounds(&c, 2, 2);	/* a ceiling of 2 */
	CHECK_EQ(c.window, 2);
	xblk_inflight_set_bounds(&c, 8, 256);
	CHECK_EQ(c.window, 8);
}

/* No decision before an epoch is over and has enough samples. */
XTEST(inflight_epoch_needs_time_and_samples)
{
	struct xblk_inflight c;
	unsigned int i;

	xblk_inflight_init(&c, 32, 8, 256);
	CHECK(!xblk_inflight_epoch(&c, 1000));		/* starts the epoch */
	c.limited = true;
	for (i = 0; i < XBLK_INFLIGHT_SAMPLES - 1; i++)
		xblk_inflight_sample(&c, 10000000);
	CHECK(!xblk_inflight_epoch(&c, 1000 + 30000000));	/* too few */
	xblk_inflight_sample(&c, 10000000);
	CHECK(!xblk_inflight_epoch(&c, 1000 + 10000));	/* too soon */
	CHECK(xblk_inflight_epoch(&c, 1000 + 30000000));
	CHECK_EQ(c.window, 64);				/* doubled */
	CHECK_EQ(c.base_ns, 10000000);
}

/* Not the limit (no request waited): the window does not grow. */
XTEST(inflight_grows_only_when_limited)
{
	struct xblk_inflight c;
	u64 t = 1;
	unsigned int e, i;

	xblk_inflight_init(&c, 32, 8, 256);
	xblk_inflight_epoch(&c, t);
	for (e = 0; e < 10; e++) {
		for (i = 0; i < 16; i++)
			xblk_inflight_sample(&c, 1000000);
		t += 2000000;
		xblk_inflight_epoch(&c, t);
	}
	CHECK_EQ(c.window, 32);
}

/*
 * A window at its minimum on a base that no longer holds (probed with
 * small requests; now each takes 13 % longer on the path, a share that
 * neither grows nor cuts): the minimum's own latency becomes base, and
 * the window grows again.
 */
XTEST(inflight_minimum_rebases)
{
	struct xblk_inflight c;
	u64 t = 1;
	unsigned int e, i;

	xblk_inflight_init(&c, 8, 8, 256);
	c.base_ns = 2000000;
	xblk_inflight_epoch(&c, t);
	for (e = 0; e < 12; e++) {
		c.limited = true;
		for (i = 0; i < 16; i++)
			xblk_inflight_sample(&c, 2270000);
		t += 2270000;
		xblk_inflight_epoch(&c, t);
	}
	CHECK_EQ(c.base_ns, 2270000);
	CHECK(c.window > 8);
}

/*
 * The model: a closed loop of @outstanding I/Os (fio's jobs x iodepth) of
 * one sequential stream.  I/Os not in flight wait in the guest, where up to
 * @merge of them make one request.  Each request costs the one CPU
 * @cpu_req ns plus @cpu_io per I/O before it reaches the device, which
 * serves @tags requests at once, each in @lat ns, and queues the rest.
 * An answered request's I/Os are resubmitted at once.
 */
#define SIM_MAX	1024
/*
 * What a settled window may exceed a 64-tag device's concurrency by: up to
 * a quarter of it queued, and one growth step (an eighth) on top.
 */
#define XBLK_INFLIGHT_SLACK	(64 / XBLK_INFLIGHT_CUT_SHARE + \
				 64 / XBLK_INFLIGHT_GROW_SHARE + 2)

struct sim {
	struct xblk_inflight c;
	unsigned int outstanding, merge, tags;
	u64 lat, cpu_req, cpu_io, jitter;
	u64 now, cpu_free, seed;
	u64 slot_free[SIM_MAX];
	u64 sent[SIM_MAX], done[SIM_MAX];
	unsigned int ios[SIM_MAX];
	unsigned int inflight, held;
	u64 ios_done, reqs_done;
	unsigned int wmin, wmax;	/* the window's range in the last second */
};

static void sim_init(struct sim *s, unsigned int outstanding,
		     unsigned int merge, unsigned int tags, u64 lat,
		     u64 cpu_req, u64 cpu_io)
{
	memset(s, 0, sizeof(*s));
	xblk_inflight_init(&s->c, 32, 8, 512);
	s->outstanding = outstanding;
	s->merge = merge;
	s->tags = tags;
	s->lat = lat;
	s->cpu_req = cpu_req;
	s->cpu_io = cpu_io;
	s->held = outstanding;
	s->now = 1;
	xblk_inflight_epoch(&s->c, s->now);
}

/* A request's extra latency, uniform in [0, jitter) (a fixed sequence). */
static u64 sim_jitter(struct sim *s)
{
	if (!s->jitter)
		return 0;
	s->seed = s->seed * 6364136223846793005ULL + 1442695040888963407ULL;
	return (s->seed >> 33) % s->jitter;
}

/* Dispatch what the window allows; a request is timed from here. */
static void sim_dispatch(struct sim *s)
{
	while (s->held) {
		unsigned int k = min(s->held, s->merge), j, best = 0;
		u64 start;

		if (s->inflight >= s->c.window) {
			s->c.limited = true;
			return;
		}
		for (j = 1; j < s->tags; j++)
			if (s->slot_free[j] < s->slot_free[best])
				best = j;
		start = max(s->now, s->cpu_free);
		s->cpu_free = start + s->cpu_req + k * s->cpu_io;
		start = max(s->cpu_free, s->slot_free[best]);
		start += s->lat + sim_jitter(s);
		s->slot_free[best] = start;
		s->sent[s->inflight] = s->now;
		s->done[s->inflight] = start;
		s->ios[s->inflight] = k;
		s->inflight++;
		s->held -= k;
	}
}

/* Answer every request due next (one pass), then let the window decide. */
static void sim_complete(struct sim *s)
{
	unsigned int i;
	u64 next = ~0ULL;

	for (i = 0; i < s->inflight; i++)
		next = min(next, s->done[i]);
	s->now = next;
	for (i = 0; i < s->inflight;) {
		if (s->done[i] > s->now) {
			i++;
			continue;
		}
		xblk_inflight_sample(&s->c, s->now - s->sent[i]);
		s->held += s->ios[i];
		s->ios_done += s->ios[i];
		s->reqs_done++;
		s->inflight--;
		s->sent[i] = s->sent[s->inflight];
		s->done[i] = s->done[s->inflight];
		s->ios[i] = s->ios[s->inflight];
	}
	xblk_inflight_epoch(&s->c, s->now);
}

/* Run until @end ns; Return: I/Os per second over the last second. */
static u64 sim_run(struct sim *s, u64 end)
{
	u64 ios0 = 0;
	bool marked = false;

	s->wmin = ~0U;
	s->wmax = 0;
	while (s->now < end) {
		sim_dispatch(s);
		sim_complete(s);
		if (!marked && s->now >= end - 1000000000ULL) {
			marked = true;
			ios0 = s->ios_done;
		}
		if (marked) {
			s->wmin = min(s->wmin, s->c.window);
			s->wmax = max(s->wmax, s->c.window);
		}
	}
	return s->ios_done - ios0;
}

static struct sim sim;

/*
 * A device of 64 tags, 10 ms each (a network disk on the icount lab's
 * scale), no merging: the window settles just above the device's
 * concurrency instead of queueing 256 requests in it.
 */
XTEST(inflight_settles_at_device_concurrency)
{
	u64 iops;

	sim_init(&sim, 256, 1, 64, 10000000, 0, 0);
	iops = sim_run(&sim, 5000000000ULL);
	CHECK(sim.wmin >= 64);
	CHECK(sim.wmax <= 64 + XBLK_INFLIGHT_SLACK);
	CHECK(iops >= 6300);		/* 64 / 10 ms */
}

/* A device that serves all 256 at once: nothing is held back. */
XTEST(inflight_grows_to_a_wide_device)
{
	u64 iops;

	sim_init(&sim, 256, 1, 256, 10000000, 0, 0);
	iops = sim_run(&sim, 5000000000ULL);
	CHECK(sim.wmin >= 256);
	CHECK(iops >= 25000);		/* 256 / 10 ms */
}

/*
 * 64 tags, and what waits merges (up to 32 I/Os a request): the window
 * stays near 64 while the guest's I/Os all get into the device's requests,
 * close to 256 I/Os per 10 ms.
 */
XTEST(inflight_merging_fills_a_narrow_device)
{
	u64 iops;

	sim_init(&sim, 256, 32, 64, 10000000, 0, 0);
	iops = sim_run(&sim, 5000000000ULL);
	CHECK(sim.wmax <= 64 + XBLK_INFLIGHT_SLACK);
	CHECK(iops >= 24000);
}

/*
 * A fast device and a busy CPU (40 us a request, 5 us an I/O): latency is
 * CPU queueing, which more in flight only lengthens.  The window stays
 * small, requests merge, and the I/O rate is near what the CPU allows at
 * the largest requests (1 / 5 us per I/O plus 40 us per 32).
 */
XTEST(inflight_cpu_bound_stays_small)
{
	u64 iops, best = 1000000000ULL / (5000 + 40000 / 32);

	sim_init(&sim, 256, 32, 1024 > SIM_MAX ? SIM_MAX : 1024, 50000,
		 40000, 5000);
	sim.tags = SIM_MAX;
	iops = sim_run(&sim, 3000000000ULL);
	CHECK(sim.wmax <= 32);
	CHECK(iops >= best * 9 / 10);
}

/*
 * The device slows down (10 -> 40 ms) and speeds up again (5 ms): the
 * window follows it both ways.  Slower, the old latency is simply lower
 * than the new; faster, the window first settles on a base measured while
 * the queue drained, until the next probe of base (every
 * XBLK_INFLIGHT_BASE_EPOCHS epochs, about 10 s here) finds the device's.
 */
XTEST(inflight_follows_a_latency_change)
{
	sim_init(&sim, 512, 1, 64, 10000000, 0, 0);
	sim_run(&sim, 3000000000ULL);
	CHECK(sim.wmax <= 64 + XBLK_INFLIGHT_SLACK);
	sim.lat = 40000000;
	sim_run(&sim, 40000000000ULL);
	CHECK(sim.wmin >= 64);
	CHECK(sim.wmax <= 64 + XBLK_INFLIGHT_SLACK);
	sim.lat = 5000000;
	sim_run(&sim, 60000000000ULL);
	CHECK(sim.wmin >= 64);
	CHECK(sim.wmax <= 64 + XBLK_INFLIGHT_SLACK);
}

/*
 * Latencies that vary by up to a third from request to request (a real
 * device, coalesced interrupts) must not read as a queue: on a device that
 * serves 256 at once the window still opens to all of them.
 */
XTEST(inflight_noise_is_no_queue)
{
	u64 iops;

	sim_init(&sim, 256, 1, 256, 10000000, 0, 0);
	sim.jitter = 3000000;
	iops = sim_run(&sim, 5000000000ULL);
	CHECK(sim.wmin >= 240);
	CHECK(iops >= 21500);	/* 256 / 11.5 ms */
}

/*
 * xblkfront's floor (XBLK_INFLIGHT_FLOOR) above a narrow device's
 * concurrency (16 tags, 20 ms, as the lab's front/sched case): the window
 * never goes below the floor, and holds at most the quarter it may keep
 * queued and one growth step above it, not the 256 offered.
 */
XTEST(inflight_floor_holds_above_a_narrow_device)
{
	u64 iops;

	sim_init(&sim, 256, 1, 16, 20000000, 0, 0);
	xblk_inflight_set_bounds(&sim.c, XBLK_INFLIGHT_FLOOR, 512);
	iops = sim_run(&sim, 10000000000ULL);
	CHECK(sim.wmin >= XBLK_INFLIGHT_FLOOR);
	CHECK(sim.wmax <= XBLK_INFLIGHT_FLOOR + XBLK_INFLIGHT_FLOOR / 4 +
			  XBLK_INFLIGHT_FLOOR / 8 + 2);
	CHECK(iops >= 790);	/* 16 / 20 ms */
}
