// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: messages, prefixed with the domain and disk ("d3/xvda"), and
 * the fatal report that closes a device (xbb_fatal()).
 *
 * What a guest can provoke is rate limited per device, so that one guest
 * can neither flood dom0's log nor hide another's messages.  Two limits:
 * @rs for per-request messages, @rs_state for connection-level ones, so
 * that a flood of refused requests cannot hide a ring stopping.  The count
 * of what a limit suppressed is the kernel's (ratelimit_state.missed); the
 * next message that passes says it first, naming the device, which the
 * generic "callbacks suppressed" line of the ratelimit code would not.
 */
#include <linux/device.h>
#include <linux/ratelimit.h>

#include "blkback.h"

/* Messages per window, and the window (either limit). */
#define XBB_RL_BURST	10
#define XBB_RL_INTERVAL	(5 * HZ)

static void xbb_vprintk(struct xbb_dev *be, const char *level,
			const char *fmt, va_list *args)
{
	struct va_format vaf = { .fmt = fmt, .va = args };

	dev_printk(level, &be->xdev->dev, "%s: %pV\n", be->name, &vaf);
}

static void xbb_ratelimit_init(struct ratelimit_state *rs)
{
	ratelimit_state_init(rs, XBB_RL_INTERVAL, XBB_RL_BURST);
	/* Count in rs->missed only: xbb_ratelimit() reports and clears it. */
	ratelimit_set_flags(rs, RATELIMIT_MSG_ON_RELEASE);
}

/**
 * xbb_log_init() - set up a device's message rate limits
 * @be: device, before anything can log about it
 *
 * Context: probe.
 */
void xbb_log_init(struct xbb_dev *be)
{
	xbb_ratelimit_init(&be->rs);
	xbb_ratelimit_init(&be->rs_state);
}

/**
 * xbb_ratelimit() - whether a message the guest can provoke may go out now
 * @be: device
 * @rs: @be->rs or @be->rs_state
 *
 * If so, first say how many @rs suppressed since the last one that passed.
 *
 * Context: any.
 * Return: true to print the message, false to drop it.
 */
bool xbb_ratelimit(struct xbb_dev *be, struct ratelimit_state *rs)
{
	int n;

	if (!__ratelimit(rs))
		return false;
	n = ratelimit_state_reset_miss(rs);
	if (n)
		dev_warn(&be->xdev->dev, "%s: %d messages suppressed\n",
			 be->name, n);
	return true;
}

/**
 * xbb_warn_rl() - warn about a request the guest sent
 * @be: device
 * @fmt: printf format, without the trailing newline
 *
 * Rate limited per device (@be->rs).
 *
 * Context: any.
 */
void xbb_warn_rl(struct xbb_dev *be, const char *fmt, ...)
{
	va_list args;

	if (!xbb_ratelimit(be, &be->rs))
		return;
	va_start(args, fmt);
	xbb_vprintk(be, KERN_WARNING, fmt, &args);
	va_end(args);
}

/**
 * xbb_warn_state() - warn about a connection-level event the guest provoked
 * @be: device
 * @fmt: printf format, without the trailing newline
 *
 * For what happens once per connection (a ring stopped, bad ring indexes,
 * an ignored state): rate limited too, since a guest can reconnect in a
 * loop, but apart from xbb_warn_rl() (@be->rs_state) so that refused
 * requests cannot hide these lines.
 *
 * Context: any.
 */
void xbb_warn_state(struct xbb_dev *be, const char *fmt, ...)
{
	va_list args;

	if (!xbb_ratelimit(be, &be->rs_state))
		return;
	va_start(args, fmt);
	xbb_vprintk(be, KERN_WARNING, fmt, &args);
	va_end(args);
}

/**
 * xbb_info_state() - report a state change the guest drove
 * @be: device
 * @fmt: printf format, without the trailing newline
 *
 * As xbb_warn_state(), at KERN_INFO (e.g. "connected").
 *
 * Context: any.
 */
void xbb_info_state(struct xbb_dev *be, const char *fmt, ...)
{
	va_list args;

	if (!xbb_ratelimit(be, &be->rs_state))
		return;
	va_start(args, fmt);
	xbb_vprintk(be, KERN_INFO, fmt, &args);
	va_end(args);
}

/**
 * xbb_warn() - warn about something only dom0 can provoke
 * @be: device
 * @fmt: printf format, without the trailing newline
 *
 * Context: any.
 */
void xbb_warn(struct xbb_dev *be, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	xbb_vprintk(be, KERN_WARNING, fmt, &args);
	va_end(args);
}

/**
 * xbb_info() - report a state change of the device
 * @be: device
 * @fmt: printf format, without the trailing newline
 *
 * Context: any.
 */
void xbb_info(struct xbb_dev *be, const char *fmt, ...)
{
	va_list args;

	va_start(args, fmt);
	xbb_vprintk(be, KERN_INFO, fmt, &args);
	va_end(args);
}

/**
 * xbb_fatal() - what the frontend (or toolstack) wrote makes the device
 *	unusable: report it and close
 * @be: device
 * @err: negative errno, for the error node
 * @fmt: what was wrong
 *
 * The report (dom0's log and the device's error node, xenbus_dev_fatal())
 * is rate limited with @be->rs_state; closing is not.
 *
 * Context: process context, under xbb_dev.lock.
 */
void xbb_fatal(struct xbb_dev *be, int err, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (!xbb_ratelimit(be, &be->rs_state)) {
		xenbus_switch_state(be->xdev, XenbusStateClosing);
		return;
	}
	va_start(args, fmt);
	vaf.fmt = fmt;
	vaf.va = &args;
	xenbus_dev_fatal(be->xdev, err, "%s: %pV", be->name, &vaf);
	va_end(args);
}
