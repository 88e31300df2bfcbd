/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How many requests of a sequential stream xblkfront keeps in flight: a
 * window that follows the device, in the shape of TCP Vegas.  Shared by
 * xblkfront (dispatch.c) and the userspace unit tests
 * (tests/unit/test_inflight.c).
 *
 * What waits in the guest can still merge; what is in flight cannot.  So
 * the window should hold just enough requests to keep the device (or
 * whatever else is the bottleneck) busy, and no more.  Once per epoch
 * (about one round trip) the mean latency of the requests answered in it
 * is compared with the lowest seen, base: with W in flight at rate W/rtt,
 * a share (rtt - base) / rtt of them is queued behind the bottleneck
 * rather than served (Vegas's diff, as a share of the window so that it
 * does not read noise in a large window's latency as a queue).  Under
 * XBLK_INFLIGHT_GROW_SHARE the device has room, and the window grows
 * (doubling at first, then by an eighth per epoch); over
 * XBLK_INFLIGHT_CUT_SHARE more in flight only adds latency, and the window
 * shrinks by half the excess.  It only grows in an epoch in which it was
 * the limit (a request waited for it).
 *
 * A device that serves 64 requests at once settles between 73 and 85; one
 * that serves everything lets the window grow until the CPU, not the
 * device, sets the pace, where latency grows with what is in flight.
 *
 * base only falls by itself: a window that never drains sees its own
 * queue as the device's latency.  So every XBLK_INFLIGHT_BASE_EPOCHS
 * epochs the window drops to its minimum for two epochs, the first to
 * drain what the larger window queued, and the second's latency becomes
 * base (as BBR probes its minimum round trip).
 */
#ifndef XBLK_INFLIGHT_H
#define XBLK_INFLIGHT_H

#include <xblk/base.h>

/* Less of the window queued than 1/this: grow. */
#define XBLK_INFLIGHT_GROW_SHARE	8
/* More than 1/this: shrink. */
#define XBLK_INFLIGHT_CUT_SHARE		4
/* Latencies an epoch needs before it counts. */
#define XBLK_INFLIGHT_SAMPLES		8
/* Epochs between two probes of base. */
#define XBLK_INFLIGHT_BASE_EPOCHS	1024
/* Limited epochs without queueing before the window doubles again. */
#define XBLK_INFLIGHT_REGROW		4
/*
 * The smallest window xblkfront uses (and its first).  Below it the guest
 * and each ring's backend thread take turns passing small batches instead
 * of overlapping, and the latency that grows with the window is theirs, not
 * a device's queue (Documentation/bench.rst, R1).  What a narrower device
 * cannot serve waits in dom0, where the backend's plug still merges it.
 */
#define XBLK_INFLIGHT_FLOOR		32
/* The shortest epoch, ns: a fast device's latencies are noisy. */
#define XBLK_INFLIGHT_MIN_EPOCH_NS	20000ULL

/**
 * struct xblk_inflight - the window of one disk
 * @window: requests a stream may have in flight now, within [@min, @max]
 * @min: the smallest window (also the probe's)
 * @max: the largest (the rings' slots, or an administrator's ceiling)
 * @grow: doubling (a new window, or one that found room several epochs)
 * @limited: a request waited for the window in this epoch
 * @probing: epochs left of a probe of base at the minimum window: 2, the
 *	one that drains the queue; 1, the one that measures; 0 none
 * @calm: limited epochs in a row that found fewer than ALPHA queued
 * @saved: the window before a probe
 * @base_ns: lowest epoch latency seen since the last probe
 * @base_age: epochs since base was probed
 * @epoch_end_ns: when the epoch ends (0: at its first sample)
 * @sum_ns: latencies of the epoch's answered requests
 * @n: how many
 * @last_rtt_ns: the last epoch's mean latency
 */
struct xblk_inflight {
	unsigned int window;
	unsigned int min;
	unsigned int max;
	bool grow;
	bool limited;
	unsigned int probing;
	unsigned int calm;
	unsigned int saved;
	u64 base_ns;
	unsigned int base_age;
	u64 epoch_end_ns;
	u64 sum_ns;
	unsigned int n;
	u64 last_rtt_ns;
};

/**
 * xblk_inflight_init() - a new window
 * @c: state
 * @start: the first window
 * @min: the smallest, >= 1
 * @max: the largest, >= @min
 */
static inline void xblk_inflight_init(struct xblk_inflight *c,
				      unsigned int start, unsigned int min,
				      unsigned int max)
{
	*c = (struct xblk_inflight){
		.window = clamp(start, min, max),
		.min = min,
		.max = max,
		.grow = true,
	};
}

/**
 * xblk_inflight_set_bounds() - change the smallest and largest window
 * @c: state
 * @min: the new smallest, >= 1
 * @max: the new largest; below @min it is @min
 */
static inline void xblk_inflight_set_bounds(struct xblk_inflight *c,
					    unsigned int min, unsigned int max)
{
	c->min = min;
	c->max = max_t(unsigned int, max, min);
	c->window = clamp(c->window, c->min, c->max);
	c->saved = clamp(c->saved, c->min, c->max);
}

/**
 * xblk_inflight_sample() - the latency of one answered request
 * @c: state
 * @lat_ns: from its dispatch to its answer
 */
static inline void xblk_inflight_sample(struct xblk_inflight *c, u64 lat_ns)
{
	c->sum_ns += lat_ns;
	c->n++;
}

/* The window after an epoch of mean latency @rtt that was not a probe. */
static inline void xblk_inflight_step(struct xblk_inflight *c, u64 rtt)
{
	u64 excess, queued;

	/*
	 * At the smallest window the window queues nothing: what an epoch
	 * takes there is the path's own latency (larger requests than when
	 * base was probed, a busier CPU), the base to compare with.
	 * Otherwise a window that fell to its minimum on a stale base stays
	 * there.
	 */
	if (!c->base_ns || rtt < c->base_ns || c->window == c->min)
		c->base_ns = rtt;
	/* The share queued, as a fraction of 1 << 10. */
	queued = div64_u64((rtt - c->base_ns) << 10, rtt);
	if (queued > (1 << 10) / XBLK_INFLIGHT_CUT_SHARE) {
		excess = queued - (1 << 10) / XBLK_INFLIGHT_CUT_SHARE;
		excess = max_t(u64, 1, (c->window * excess) >> 11);
		c->grow = false;
		c->calm = 0;
		c->window = c->window > c->min + excess ?
			    c->window - (unsigned int)excess : c->min;
	} else if (queued >= (1 << 10) / XBLK_INFLIGHT_GROW_SHARE ||
		   !c->limited) {
		c->calm = 0;
		if (queued >= (1 << 10) / XBLK_INFLIGHT_GROW_SHARE)
			c->grow = false;
	} else {
		if (++c->calm >= XBLK_INFLIGHT_REGROW)
			c->grow = true;
		c->window += c->grow ? c->window : max(1U, c->window / 8);
	}
	c->window = clamp(c->window, c->min, c->max);
}

/**
 * xblk_inflight_epoch() - end the epoch if it is over, choose the window
 * @c: state
 * @now_ns: the time (a monotonic clock)
 *
 * Called after each batch of samples.  An epoch lasts about one round
 * trip (the last epoch's latency) and needs XBLK_INFLIGHT_SAMPLES
 * latencies.
 *
 * Return: true if the window changed.
 */
static inline bool xblk_inflight_epoch(struct xblk_inflight *c, u64 now_ns)
{
	unsigned int old = c->window;
	u64 rtt;

	if (!c->epoch_end_ns) {
		c->epoch_end_ns = now_ns + XBLK_INFLIGHT_MIN_EPOCH_NS;
		return false;
	}
	if (now_ns < c->epoch_end_ns || c->n < XBLK_INFLIGHT_SAMPLES)
		return false;
	rtt = max_t(u64, 1, div64_u64(c->sum_ns, c->n));
	c->last_rtt_ns = rtt;
	if (c->probing && !--c->probing) {
		c->base_ns = rtt;
		c->base_age = 0;
		c->window = clamp(c->saved, c->min, c->max);
	} else if (!c->probing) {
		xblk_inflight_step(c, rtt);
		if (++c->base_age >= XBLK_INFLIGHT_BASE_EPOCHS) {
			c->saved = c->window;
			c->window = c->min;
			c->probing = 2;
		}
	}
	c->epoch_end_ns = now_ns + max_t(u64, rtt, XBLK_INFLIGHT_MIN_EPOCH_NS);
	c->sum_ns = 0;
	c->n = 0;
	c->limited = false;
	return c->window != old;
}

#endif /* XBLK_INFLIGHT_H */
