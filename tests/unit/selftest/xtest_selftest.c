// SPDX-License-Identifier: GPL-2.0
/*
 * Self-test of xtest: linked alone with xtest.c; the Makefile checks that
 * the run exits 1 and ends with "2 passed, 1 failed".
 */
#include "../xtest.h"

XTEST(selftest_passes)
{
	CHECK(1);
	CHECK_EQ(-22, -22);
}

XTEST(selftest_must_fail)
{
	CHECK_EQ(1 + 1, 3);		/* the one failing check */
	CHECK(1);
}

XTEST(selftest_u64_compare)
{
	unsigned long long big = ~0ull;

	CHECK_EQ(big, ~0ull);
	CHECK_STR("abc", "abc");
}
