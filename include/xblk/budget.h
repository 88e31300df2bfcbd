/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How far xblkfront holds a sequential stream back (min_inflight): the
 * bound on its requests in flight follows what its answers interrupt.
 * Shared by xblkfront (mq.c) and the userspace unit tests
 * (tests/unit/test_budget.c).
 *
 * Holding requests back merges the stream's next bios into them, and costs
 * concurrency.  Where the guest is busy (a fast device, the CPU the limit)
 * only the merging shows: fewer, larger requests.  Where it waits for the
 * device with nothing to run the concurrency shows: on the icount lab a
 * bound of 8 gave 32.8 KiB requests at seq-4k where 32 gave 10, and cost
 * 11 % on a 1 ms disk (Documentation/bench.rst, "The budget's size,
 * measured").  So a response pass that came while requests waited for
 * budget and found the CPU busy lowers the bound by one; one that found
 * the CPU idle raises it by XBLK_BUDGET_GROW, and so does a request
 * already half the disk's largest, which cannot merge much more.  The
 * bound settles where about one pass in XBLK_BUDGET_GROW + 1 finds the
 * CPU idle.  Measured: a CPU-bound guest idles in short spells that each
 * end with an interrupt, so with a step of 4 the bound hardly fell, and
 * with 1 it fell and cost 6 % at seq-4k (bench.rst, "A bound that follows
 * the guest"); min_inflight is off by default.
 */
#ifndef XBLK_BUDGET_H
#define XBLK_BUDGET_H

#include <xblk/base.h>

/* How much one pass that found the CPU idle raises the bound. */
#define XBLK_BUDGET_GROW	4

/**
 * xblk_budget_next() - the bound after one response pass
 * @now: the bound before; 0 or above @max: @max
 * @lo: the lowest bound (min_inflight), >= 1
 * @max: the highest (max_inflight), >= 1
 * @idle: the pass interrupted the idle task
 * @large: the pass answered a request of at least half the largest size
 *
 * Return: the bound, within [min(@lo, @max), @max].
 */
static inline unsigned int xblk_budget_next(unsigned int now, unsigned int lo,
					    unsigned int max, bool idle,
					    bool large)
{
	if (!now || now > max)
		now = max;
	if (idle || large)
		return min(max, now + XBLK_BUDGET_GROW);
	if (now > lo)
		now--;
	return now;
}

#endif /* XBLK_BUDGET_H */
