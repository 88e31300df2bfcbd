// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/xblk/budget.h: how far xblkfront holds a stream
 * back (min_inflight).
 */
#include "xtest.h"
#include "xblk/budget.h"

XTEST(budget_busy_shrinks_to_lo)
{
	unsigned int b = 0, i;

	/* unset: starts at max */
	b = xblk_budget_next(b, 8, 32, false, false);
	CHECK_EQ(b, 31);
	for (i = 0; i < 100; i++)
		b = xblk_budget_next(b, 8, 32, false, false);
	CHECK_EQ(b, 8);
	/* a lowered max applies at once */
	CHECK_EQ(xblk_budget_next(40, 8, 32, false, false), 31);
	/* lo above max: max is the bound */
	CHECK_EQ(xblk_budget_next(0, 64, 32, false, false), 32);
}

XTEST(budget_idle_or_large_grows_to_max)
{
	CHECK_EQ(xblk_budget_next(8, 8, 32, true, false), 8 + XBLK_BUDGET_GROW);
	CHECK_EQ(xblk_budget_next(8, 8, 32, false, true), 8 + XBLK_BUDGET_GROW);
	CHECK_EQ(xblk_budget_next(30, 8, 32, true, false), 32);
	CHECK_EQ(xblk_budget_next(32, 8, 32, true, true), 32);
	CHECK_EQ(xblk_budget_next(1, 1, 1, true, false), 1);
}

/*
 * The balance: with a share of idle passes above 1 in XBLK_BUDGET_GROW + 1
 * the bound goes to max, below it to lo.
 */
XTEST(budget_balance)
{
	unsigned int b = 32, i;

	for (i = 0; i < 1000; i++)	/* 1 idle pass in 3 */
		b = xblk_budget_next(b, 8, 32, i % 3 == 0, false);
	CHECK(b >= 29);
	for (i = 0; i < 1000; i++)	/* 1 in 10 */
		b = xblk_budget_next(b, 8, 32, i % 10 == 0, false);
	CHECK(b <= 8 + XBLK_BUDGET_GROW);
	for (i = 0; i < 1000; i++)	/* never idle, large requests */
		b = xblk_budget_next(b, 8, 32, false, true);
	CHECK_EQ(b, 32);
}
