// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/xblk/retry.h: which grant map statuses the backend
 * retries, its backoff, the fault-injection count.
 */
#include "xtest.h"
#include "xblk/retry.h"

/* Every status Xen defines, by its value, so a renumbering is noticed. */
XTEST(retry_status_class)
{
	CHECK_EQ(xblk_map_status_class(0), XBLK_MAP_OK);
	/* "not now": out of maptrack entries / handles, page being paged in */
	CHECK_EQ(xblk_map_status_class(-7), XBLK_MAP_AGAIN);	/* no_device_space */
	CHECK_EQ(xblk_map_status_class(-12), XBLK_MAP_AGAIN);	/* eagain */
	CHECK_EQ(xblk_map_status_class(-13), XBLK_MAP_AGAIN);	/* no_space */
	/* the frontend's fault: never retried (tests/lab hostile "grefs") */
	CHECK_EQ(xblk_map_status_class(-1), XBLK_MAP_FAIL);	/* general_error */
	CHECK_EQ(xblk_map_status_class(-2), XBLK_MAP_FAIL);	/* bad_domain */
	CHECK_EQ(xblk_map_status_class(-3), XBLK_MAP_FAIL);	/* bad_gntref */
	CHECK_EQ(xblk_map_status_class(-4), XBLK_MAP_FAIL);
	CHECK_EQ(xblk_map_status_class(-5), XBLK_MAP_FAIL);
	CHECK_EQ(xblk_map_status_class(-6), XBLK_MAP_FAIL);
	CHECK_EQ(xblk_map_status_class(-8), XBLK_MAP_FAIL);	/* permission_denied */
	CHECK_EQ(xblk_map_status_class(-9), XBLK_MAP_FAIL);	/* bad_page */
	CHECK_EQ(xblk_map_status_class(-10), XBLK_MAP_FAIL);
	CHECK_EQ(xblk_map_status_class(-11), XBLK_MAP_FAIL);
	/* unknown statuses are not retried either */
	CHECK_EQ(xblk_map_status_class(-14), XBLK_MAP_FAIL);
	CHECK_EQ(xblk_map_status_class(1), XBLK_MAP_FAIL);
	CHECK_EQ(xblk_map_status_class(-32768), XBLK_MAP_FAIL);
	/* the class of several grants is the worst one */
	CHECK(XBLK_MAP_OK < XBLK_MAP_AGAIN && XBLK_MAP_AGAIN < XBLK_MAP_FAIL);
}

XTEST(retry_backoff)
{
	unsigned long d = 0, prev = 0;
	unsigned int i;

	CHECK_EQ(xblk_backoff_next(0, 3, 250), 3);
	CHECK_EQ(xblk_backoff_next(1, 3, 250), 3);
	CHECK_EQ(xblk_backoff_next(3, 3, 250), 6);
	CHECK_EQ(xblk_backoff_next(124, 3, 250), 248);
	CHECK_EQ(xblk_backoff_next(125, 3, 250), 250);
	CHECK_EQ(xblk_backoff_next(248, 3, 250), 250);
	CHECK_EQ(xblk_backoff_next(250, 3, 250), 250);
	CHECK_EQ(xblk_backoff_next(~0UL, 3, 250), 250);
	CHECK_EQ(xblk_backoff_next(0, 1, 1), 1);
	CHECK_EQ(xblk_backoff_next(1, 1, 1), 1);
	/* 10 ms to 1 s (HZ=1000): grows monotonically, reaches 1 s in 7 steps, stays */
	for (i = 0; i < 40; i++) {
		d = xblk_backoff_next(d, 10, 1000);
		CHECK(d >= prev && d >= 10 && d <= 1000);
		if (i == 6)
			CHECK_EQ(d, 640);
		if (i == 7)
			CHECK_EQ(d, 1000);
		prev = d;
	}
	CHECK_EQ(d, 1000);
}

XTEST(retry_inject)
{
	unsigned int c, hits;

	for (c = 1; c <= 300; c++) {
		CHECK(!xblk_inject_hit(c, 0));
		CHECK(xblk_inject_hit(c, 1));
	}
	for (hits = 0, c = 1; c <= 300; c++)
		hits += xblk_inject_hit(c, 3);
	CHECK_EQ(hits, 100);
	/* never two in a row with 1 in 3: a retry right after a hit succeeds */
	for (c = 1; c <= 300; c++)
		CHECK(!(xblk_inject_hit(c, 3) && xblk_inject_hit(c + 1, 3)));
	CHECK(!xblk_inject_hit(1, 3) && !xblk_inject_hit(2, 3) && xblk_inject_hit(3, 3));
	/* the counter wraps without a burst of failures */
	CHECK(!xblk_inject_hit(0xffffffffu, 2));
	CHECK(xblk_inject_hit(0u, 2));
}
