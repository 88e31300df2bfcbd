/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xblkfront tracepoints (events/xblkfront/ in tracefs).
 *
 * Each event fires where a sysfs counter of the ring moves, so that event
 * counts can be checked against the counters (Documentation/xblkstat.rst):
 *
 *   xblkfront_queue     one per request put on a ring: queue-N/reads,
 *                       writes, flushes, discards (by op)
 *   xblkfront_push      one per push that published requests; notify=1
 *                       exactly when queue-N/notify_out grows
 *   xblkfront_response  one per validated response: queue-N/responses;
 *                       status != 0 also counts in queue-N/errors
 *
 * op is the blkif operation (for an indirect request, the inner one).
 * Included twice by ring.c (CREATE_TRACE_POINTS), its only user.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xblkfront

#if !defined(XBLKFRONT_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define XBLKFRONT_TRACE_H

#include <linux/tracepoint.h>
#include <xen/interface/io/blkif.h>

#include "blkfront.h"

TRACE_EVENT(xblkfront_queue,
	    TP_PROTO(const struct xbf_ring *ring, struct request *rq,
		     unsigned int id, unsigned int segs, bool indirect),
	    TP_ARGS(ring, rq, id, segs, indirect),
	    TP_STRUCT__entry(__array(char, disk, 32)
			     __field(unsigned int, queue)
			     __field(unsigned int, id)
			     __field(u8, op)
			     __field(u64, sector)
			     __field(unsigned int, nr_sectors)
			     __field(unsigned int, segs)
			     __field(bool, indirect)),
	    TP_fast_assign(strscpy(__entry->disk, ring->info->name,
				   sizeof(__entry->disk));
			   __entry->queue = ring->index;
			   __entry->id = id;
			   __entry->op = xbf_req(rq)->op;
			   __entry->sector = blk_rq_pos(rq);
			   __entry->nr_sectors = blk_rq_sectors(rq);
			   __entry->segs = segs;
			   __entry->indirect = indirect;),
	    TP_printk("%s q=%u id=%u op=%s sector=%llu nr_sectors=%u segs=%u indirect=%d",
		      __entry->disk, __entry->queue, __entry->id,
		      __print_symbolic(__entry->op, { BLKIF_OP_READ,		"read" },
				       { BLKIF_OP_WRITE,		"write" },
				       { BLKIF_OP_WRITE_BARRIER,	"barrier" },
				       { BLKIF_OP_FLUSH_DISKCACHE,	"flush" },
				       { BLKIF_OP_DISCARD,		"discard" }),
		      (unsigned long long)__entry->sector, __entry->nr_sectors,
		      __entry->segs, __entry->indirect));

TRACE_EVENT_CONDITION(xblkfront_push,
		      TP_PROTO(const struct xbf_ring *ring, unsigned int batch, bool notify),
		      TP_ARGS(ring, batch, notify),
		      TP_CONDITION(batch),
		      TP_STRUCT__entry(__array(char, disk, 32)
				       __field(unsigned int, queue)
				       __field(unsigned int, batch)
				       __field(bool, notify)),
		      TP_fast_assign(strscpy(__entry->disk, ring->info->name,
					     sizeof(__entry->disk));
				     __entry->queue = ring->index;
				     __entry->batch = batch;
				     __entry->notify = notify;),
		      TP_printk("%s q=%u batch=%u notify=%d", __entry->disk, __entry->queue,
				__entry->batch, __entry->notify));

TRACE_EVENT(xblkfront_response,
	    TP_PROTO(const struct xbf_ring *ring, u64 id, u8 op, s16 status),
	    TP_ARGS(ring, id, op, status),
	    TP_STRUCT__entry(__array(char, disk, 32)
			     __field(unsigned int, queue)
			     __field(u64, id)
			     __field(u8, op)
			     __field(s16, status)),
	    TP_fast_assign(strscpy(__entry->disk, ring->info->name,
				   sizeof(__entry->disk));
			   __entry->queue = ring->index;
			   __entry->id = id;
			   __entry->op = op;
			   __entry->status = status;),
	    TP_printk("%s q=%u id=%llu op=%s status=%d", __entry->disk,
		      __entry->queue, (unsigned long long)__entry->id,
		      __print_symbolic(__entry->op, { BLKIF_OP_READ,		"read" },
				       { BLKIF_OP_WRITE,		"write" },
				       { BLKIF_OP_WRITE_BARRIER,	"barrier" },
				       { BLKIF_OP_FLUSH_DISKCACHE,	"flush" },
				       { BLKIF_OP_DISCARD,		"discard" }),
		      __entry->status));

#endif /* XBLKFRONT_TRACE_H */

/* Out of tree: Kbuild adds -I$(src), where this file is. */
#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE trace
#include <trace/define_trace.h>
