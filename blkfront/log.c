// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: where every layer reports a backend's fault.
 *
 * A leaf: it logs (rate limited per disk: a backend controls how often
 * these run) and, for a protocol violation, schedules the disk's error
 * work (recovery.c), so that no file below the state machine ever calls
 * it.
 */
#include <linux/slab.h>
#include <xen/xenbus.h>

#include "blkfront.h"

/**
 * xbf_fatal() - close the device for an error, logging it rate-limited
 * @info: the disk
 * @err: the errno to report
 * @fmt: what happened
 *
 * xenbus_dev_fatal() (log line, error node in xenstore, state Closing)
 * while this disk's error messages are within their rate limit, else only
 * the state change: a backend controls how often this runs.  A device
 * already Closed gets the message and the error node, not Closing again.
 *
 * Context: process context.
 */
void xbf_fatal(struct xbf_info *info, int err, const char *fmt, ...)
{
	struct xenbus_device *dev = info->xbdev;
	bool closed = dev->state == XenbusStateClosed;
	va_list args;
	char *msg;

	if (!__ratelimit(&info->rs_err)) {
		if (!closed)
			xenbus_switch_state(dev, XenbusStateClosing);
		return;
	}
	va_start(args, fmt);
	msg = kvasprintf(GFP_KERNEL, fmt, args);
	va_end(args);
	if (closed)
		xenbus_dev_error(dev, err, "%s", msg ?: fmt);
	else
		xenbus_dev_fatal(dev, err, "%s", msg ?: fmt);
	kfree(msg);
}

/**
 * xbf_fail() - report a protocol violation and fail the disk
 * @info: the disk
 * @fmt: what happened
 *
 * Logs (rate-limited per disk) and leaves failing the disk to its error
 * work (xbf_error_work()), in process context.
 *
 * Context: any.
 */
void xbf_fail(struct xbf_info *info, const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	if (__ratelimit(&info->rs_err)) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		dev_err(&info->xbdev->dev, "%s: %pV\n", info->name, &vaf);
		va_end(args);
	}
	schedule_work(&info->error_work);
}
