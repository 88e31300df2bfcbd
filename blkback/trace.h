/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xblkback tracepoints (events/xblkback/ in tracefs).
 *
 * Each event fires where a statistics/ counter of the device moves, so that
 * event counts can be checked against the counters
 * (Documentation/xblkstat.rst):
 *
 *   xblkback_consume     one per pass that took requests: passes
 *   xblkback_bio_submit  one per request handed to the block layer:
 *                        rd_req (op=read), wr_req (op=write), ds_req
 *                        (op=discard or secure_erase), f_req (flush=1)
 *   xblkback_bio_end     one per bio completed (a request is one bio unless
 *                        it has more segments than a bio holds, or is a
 *                        large discard)
 *   xblkback_respond     one per push of responses, and one with batch=0
 *                        per notification sent again to a frontend that
 *                        waits for it; notify=1 exactly when notify_out
 *                        grows
 *
 * Included twice by ring.c (CREATE_TRACE_POINTS), once by io.c.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xblkback

#if !defined(XBLKBACK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define XBLKBACK_TRACE_H

#include <linux/tracepoint.h>

#include "blkback.h"

/* What xblkback_bio_submit's op field says. */
#define XBB_TRACE_READ		0
#define XBB_TRACE_WRITE		1
#define XBB_TRACE_FLUSH		2	/* a flush without data */
#define XBB_TRACE_DISCARD	3
#define XBB_TRACE_SECURE	4

TRACE_EVENT(xblkback_consume,
	    TP_PROTO(const struct xbb_ring *ring, unsigned int batch,
		     unsigned int rejected, unsigned int retried),
	    TP_ARGS(ring, batch, rejected, retried),
	    TP_STRUCT__entry(__field(u16, domid)
			     __field(u32, devid)
			     __field(unsigned int, ring)
			     __field(unsigned int, batch)
			     __field(unsigned int, rejected)
			     __field(unsigned int, retried)),
	    TP_fast_assign(__entry->domid = ring->be->domid;
			   __entry->devid = ring->be->devid;
			   __entry->ring = ring->index;
			   __entry->batch = batch;
			   __entry->rejected = rejected;
			   __entry->retried = retried;),
	    TP_printk("d%u/%u ring=%u batch=%u rejected=%u retried=%u",
		      __entry->domid, __entry->devid, __entry->ring,
		      __entry->batch, __entry->rejected, __entry->retried));

TRACE_EVENT(xblkback_bio_submit,
	    TP_PROTO(const struct xbb_ring *ring, const struct xbb_req *xr,
		     unsigned int op),
	    TP_ARGS(ring, xr, op),
	    TP_STRUCT__entry(__field(u16, domid)
			     __field(u32, devid)
			     __field(unsigned int, ring)
			     __field(u64, id)
			     __field(unsigned int, op)
			     __field(bool, flush)
			     __field(u64, sector)
			     __field(u64, bytes)),
	    TP_fast_assign(__entry->domid = ring->be->domid;
			   __entry->devid = ring->be->devid;
			   __entry->ring = ring->index;
			   __entry->id = xr->id;
			   __entry->op = op;
			   __entry->flush = xr->flush;
			   __entry->sector = xr->sector;
			   __entry->bytes = xr->nr_sectors << 9;),
	    TP_printk("d%u/%u ring=%u id=%llu op=%s flush=%d sector=%llu bytes=%llu",
		      __entry->domid, __entry->devid, __entry->ring,
		      (unsigned long long)__entry->id,
		      __print_symbolic(__entry->op, { XBB_TRACE_READ,	"read" },
				       { XBB_TRACE_WRITE,	"write" },
				       { XBB_TRACE_FLUSH,	"flush" },
				       { XBB_TRACE_DISCARD,	"discard" },
				       { XBB_TRACE_SECURE,	"secure_erase" }),
		      __entry->flush, (unsigned long long)__entry->sector,
		      (unsigned long long)__entry->bytes));

TRACE_EVENT(xblkback_bio_end,
	    TP_PROTO(const struct xbb_req *xr, int status),
	    TP_ARGS(xr, status),
	    TP_STRUCT__entry(__field(u16, domid)
			     __field(u32, devid)
			     __field(unsigned int, ring)
			     __field(u64, id)
			     __field(int, status)),
	    TP_fast_assign(__entry->domid = xr->ring->be->domid;
			   __entry->devid = xr->ring->be->devid;
			   __entry->ring = xr->ring->index;
			   __entry->id = xr->id;
			   __entry->status = status;),
	    TP_printk("d%u/%u ring=%u id=%llu status=%d", __entry->domid,
		      __entry->devid, __entry->ring,
		      (unsigned long long)__entry->id, __entry->status));

TRACE_EVENT(xblkback_respond,
	    TP_PROTO(const struct xbb_ring *ring, unsigned int batch, bool notify),
	    TP_ARGS(ring, batch, notify),
	    TP_STRUCT__entry(__field(u16, domid)
			     __field(u32, devid)
			     __field(unsigned int, ring)
			     __field(unsigned int, batch)
			     __field(bool, notify)),
	    TP_fast_assign(__entry->domid = ring->be->domid;
			   __entry->devid = ring->be->devid;
			   __entry->ring = ring->index;
			   __entry->batch = batch;
			   __entry->notify = notify;),
	    TP_printk("d%u/%u ring=%u batch=%u notify=%d", __entry->domid,
		      __entry->devid, __entry->ring, __entry->batch,
		      __entry->notify));

#endif /* XBLKBACK_TRACE_H */

/* Out of tree: Kbuild adds -I$(src), where this file is. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
