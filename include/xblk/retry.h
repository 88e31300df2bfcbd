/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure rules of the backend's retries after a grant mapping that failed
 * for now: which map statuses mean "not now" rather than "never", how the
 * backoff delay grows, and the fault-injection count.  Shared by xblkback
 * and the userspace unit tests (tests/unit/test_retry.c).
 */
#ifndef XBLK_RETRY_H
#define XBLK_RETRY_H

#include <xblk/base.h>

/**
 * enum xblk_map_class - what a grant map status means for the request
 * @XBLK_MAP_OK: mapped
 * @XBLK_MAP_AGAIN: not mapped now, may be later (dom0 short of memory or
 *	of maptrack entries, the frontend's page being paged in): set the
 *	request up again later, do not fail it
 * @XBLK_MAP_FAIL: never will be (bad grant reference, domain, page,
 *	permission...): the frontend's fault, the request fails
 *
 * Ordered: the class of several grants is the largest of theirs.
 */
enum xblk_map_class {
	XBLK_MAP_OK = 0,
	XBLK_MAP_AGAIN = 1,
	XBLK_MAP_FAIL = 2,
};

/**
 * xblk_map_status_class() - classify a GNTST_* status of a map operation
 * @status: the status Xen (or the fault injection) gave
 *
 * Only statuses that say "out of resources" or "try again" are transient;
 * anything else, including GNTST_general_error and statuses we do not
 * know, fails the request, as a broken or hostile frontend must not be
 * able to make the backend retry forever.
 *
 * Return: the class.
 */
static inline enum xblk_map_class xblk_map_status_class(s16 status)
{
	switch (status) {
	case GNTST_okay:
		return XBLK_MAP_OK;
	case GNTST_eagain:		/* page being paged in: try again */
	case GNTST_no_device_space:	/* our maptrack table is full */
	case GNTST_no_space:		/* out of handles */
		return XBLK_MAP_AGAIN;
	default:
		return XBLK_MAP_FAIL;
	}
}

/**
 * xblk_backoff_next() - the delay before the next retry
 * @cur: the current delay, 0 after a success
 * @lo: first delay (at least 1)
 * @hi: longest delay (at least @lo)
 *
 * Doubles from @lo up to @hi.
 *
 * Return: the next delay, in the unit of the arguments.
 */
static inline unsigned long xblk_backoff_next(unsigned long cur,
					      unsigned long lo,
					      unsigned long hi)
{
	if (cur < lo)
		return lo;
	if (cur >= hi / 2)
		return hi;
	return cur * 2;
}

/**
 * xblk_inject_hit() - whether the fault injection fails this attempt
 * @count: attempts so far, this one included (1, 2, ...)
 * @one_in: fail 1 attempt in @one_in; 0 = never
 *
 * Every @one_in-th attempt fails, deterministically, so that a test knows
 * that @one_in - 1 attempts in a row out of @one_in succeed (1 fails all).
 *
 * Return: true if this attempt is to fail.
 */
static inline bool xblk_inject_hit(unsigned int count, unsigned int one_in)
{
	return one_in && count % one_in == 0;
}

#endif /* XBLK_RETRY_H */
