/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xblkfront private definitions.
 *
 * Object model: one struct xbf_info per virtual disk (one xenbus device),
 * owning nr_rings struct xbf_ring, one per blk-mq hardware queue.  Each ring
 * has its own shared ring pages, event channel, grant pools and lock, so
 * hardware queues never contend with each other.
 *
 * The blkif request id is derived from the blk-mq tag, so no id free list
 * is needed: id = struct xbf_hq.id_base + tag.  Normally each hardware
 * queue has its own ring, id_base is 0 and the tag set's depth equals the
 * ring size, so a request with a tag always has a slot.  After a restore
 * onto a backend that offers fewer queues or smaller rings, the tag set
 * stays as it was: hardware queues then share rings (each with its own
 * id_base) and a request may find its ring full: it is turned away with
 * BLK_STS_RESOURCE and the ring's next responses rerun the queue
 * (struct xbf_ring.slot_starved).
 */
#ifndef XBLKFRONT_H
#define XBLKFRONT_H

#include <linux/blk-mq.h>
#include <linux/hrtimer.h>
#include <linux/kobject.h>
#include <linux/mutex.h>
#include <linux/ratelimit.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <xen/grant_table.h>
#include <xen/xenbus.h>
#include <xblk/coalesce.h>
#include <xblk/inflight.h>
#include <xblk/xenstore.h>

#define XBF_NAME	"xblkfront"

/* Sequential-stream detection (dispatch.c: struct xbf_stream). */
#define XBF_SEQ_ONE	1024
#define XBF_SEQ_STREAMS	8

/* Dispatch budget (max_inflight): default and largest accepted value. */
#define XBF_DEF_MAX_INFLIGHT	32
#define XBF_MAX_INFLIGHT	4096

/* Interrupt batching (irq_batch, irq_wait_us): defaults and ranges. */
#define XBF_DEF_IRQ_BATCH	10
#define XBF_MAX_IRQ_BATCH	64
#define XBF_DEF_IRQ_WAIT_US	20000
#define XBF_MIN_IRQ_WAIT_US	10
#define XBF_MAX_IRQ_WAIT_US	100000

/* Request timeouts (io_timeout, timeout_policy): default and largest, in s. */
#define XBF_DEF_IO_TIMEOUT	30
#define XBF_MAX_IO_TIMEOUT	3600

/* The longest a removal waits for a backend that does not answer, in s. */
#define XBF_REMOVE_WAIT_MAX	60

/* What a request that reaches io_timeout does (timeout_policy). */
enum xbf_timeout_policy {
	XBF_TIMEOUT_REPORT,	/* log, count, keep waiting */
	XBF_TIMEOUT_FAIL,	/* fail the disk like a protocol violation */
};

/* Data grants per ring: at connect and at most (xbf_pool_cap()). */
#define XBF_MIN_GRANTS		1024
#define XBF_GRANTS_PER_SLOT	16	/* a 64 KiB request in every slot */
#define XBF_MAX_GRANTS		2048
#define XBF_GROW_STEP		256

/**
 * struct xbf_gnt - one grant reference we own, maybe with a page of our own
 * @ref: the grant reference
 * @page: our page behind @ref (persistent data grants and indirect frames),
 *	  or NULL when the reference is granted on a bio page per request
 * @lent: while a request holds it: the bio page @ref is granted on, or,
 *	  with @page, the bio page a read's data is copied out to
 * @off: where the segment starts in @lent (and in @page)
 * @len: its length in bytes
 */
struct xbf_gnt {
	grant_ref_t ref;
	struct page *page;
	struct page *lent;
	unsigned int off;
	unsigned int len;
};

/**
 * struct xbf_pool - a stack of free grants
 * @free: unused entries, @free[0 .. @nr_free - 1] (array of @cap); the last
 *	  one given back is taken first, while its page is still in cache
 * @nr_free: entries on @free
 * @all: every entry, for teardown (array of @cap, the first @nr set up)
 * @nr: number of entries set up
 * @cap: most entries the pool may grow to (xbf_pool_grow())
 * @domid: the domain the entries are granted to
 * @pages: each entry has a page of ours
 * @readonly: the pages are granted read-only
 */
struct xbf_pool {
	struct xbf_gnt **free;
	unsigned int nr_free;
	struct xbf_gnt *all;
	unsigned int nr;
	unsigned int cap;
	domid_t domid;
	bool pages;
	bool readonly;
};

/**
 * struct xbf_stats - per-ring counters, shown under queue-N/ in sysfs
 * @reads: read requests sent
 * @writes: write requests sent
 * @flushes: flush (or barrier) requests sent
 * @discards: discard and secure-erase requests sent
 * @read_sectors: 512-byte sectors read
 * @write_sectors: 512-byte sectors written
 * @indirect: requests sent as BLKIF_OP_INDIRECT
 * @ring_full: requests left to the block layer for lack of room
 * @notify_out: event-channel notifications sent to the backend
 * @notify_in: interrupts that found work
 * @spurious: interrupts that found no work
 * @responses: valid responses taken off the ring
 * @errors: requests the backend failed
 * @timer_polls: looks at the ring by the irq_batch timer that found work
 * @ring_stopped: requests failed at dispatch because the ring had stopped
 * @idle_irqs: interrupts that found the CPU idle (the guest was waiting
 *	   for its backend: responses are then not held for a batch)
 * @data_grants: data grants the ring has now (not a counter: it grows
 *	   under load, xbf_pool_grow())
 *
 * Submission counters are updated under xbf_ring.lock, completion ones in
 * the interrupt handler under the same lock (@ring_full: racy, by mq.c;
 * @data_grants: under xbf_ring.pool_lock); readers (sysfs.c) take no lock.
 */
struct xbf_stats {
	u64 reads;
	u64 writes;
	u64 flushes;
	u64 discards;
	u64 read_sectors;
	u64 write_sectors;
	u64 indirect;
	u64 ring_full;
	u64 notify_out;
	u64 notify_in;
	u64 spurious;
	u64 responses;
	u64 errors;
	u64 timer_polls;
	u64 ring_stopped;
	u64 idle_irqs;
	u64 data_grants;
};

struct xbf_info;
struct xbf_ring;
struct xbf_req;

/**
 * struct xbf_stream - what a hardware queue dispatched lately (dispatch.c)
 * @ends: where the last XBF_SEQ_STREAMS requests end
 * @starts: and where they start
 * @next: the entry of @ends to overwrite next
 * @seq_score: how sequential they were, 0 (none continued a recent
 *	request) to XBF_SEQ_ONE (all did)
 * @sectors: their size, moving average, in 512-byte sectors
 *
 * Updated without a lock by whoever dispatches on the queue: a heuristic,
 * whose races only blur it.
 */
struct xbf_stream {
	sector_t ends[XBF_SEQ_STREAMS];
	sector_t starts[XBF_SEQ_STREAMS];
	unsigned int next;
	unsigned int seq_score;
	unsigned int sectors;
};

/**
 * struct xbf_hq - a hardware queue's view of its ring (hctx->driver_data)
 * @ring: the ring its requests go on; NULL between a restore and the
 *	  reconnection (the queue is quiesced then)
 * @id_base: added to the tag to make the blkif id unique on @ring
 * @stream: its recent requests (dispatch.c)
 *
 * @ring and @id_base change only while the queue is quiesced.
 */
struct xbf_hq {
	struct xbf_ring *ring;
	unsigned int id_base;
	struct xbf_stream stream;
};

/**
 * typedef xbf_done_fn - what a ring hands its answered requests to
 * @ring: the ring
 * @done: the requests whose responses were validated, chained through
 *	  xbf_req.next, NULL terminated
 * @rerun: a request was turned away from the full ring since the last pass
 * @idle: the answers came while the CPU was idle
 *
 * Set when the rings are allocated (mq.c's xbf_complete_ring()): the ring
 * layer never calls the layers above it.
 */
typedef void (*xbf_done_fn)(struct xbf_ring *ring, struct xbf_req *done,
			    bool rerun, bool idle);

/**
 * struct xbf_ring - one shared ring, one hardware queue
 * @info: the disk
 * @index: queue number
 * @done: where answered requests go (xbf_done_fn)
 * @lock: protects @front, @inflight, @slot_starved, @broken, @work_since_eoi,
 *	  @rsp_co, @frozen and the @stats counters but ring_full
 * @front: the front end of the shared ring
 * @inflight: request of each outstanding id, NULL when free
 * @nr_slots: ring size
 * @nr_ids: number of ids (entries of @inflight): @nr_slots, or more when
 *	    hardware queues share the ring or the tag set is deeper than it
 * @may_fill: @nr_ids > @nr_slots: a prepared request can find it full
 * @shared: several hardware queues use this ring
 * @slot_starved: a request was turned away from the full ring; the next
 *		  responses rerun the queue (@may_fill only)
 * @ring_refs: grant references of the ring pages
 * @sring: the shared ring pages
 * @evtchn: event channel to the backend
 * @irq: its Linux irq
 * @broken: the ring is stopped (the backend broke the protocol, or the
 *	    disk was failed): no request goes on it, no response is read
 * @work_since_eoi: responses were taken since the last late EOI
 * @pool_lock: protects @data, @indirect, @need_rerun and @growing (grant.c)
 * @data: persistent data grants (with pages) or references for bio pages
 * @indirect: indirect descriptor frames (with pages)
 * @need_rerun: a request was turned away for lack of grants
 * @growing: @grow_work is queued or running
 * @grow_work: adds data grants (xbf_pool_grow())
 * @irq_batch: most responses to ask for per interrupt (1: every response)
 * @irq_wait_ns: longest a response waits for the rest of its batch
 * @rsp_co: response coalescing (coalesce.h): rsp_co.batch is how many
 *	responses we ask for per interrupt now, 1..@irq_batch
 * @frozen: the domain is being saved or migrated (xbf_rings_freeze()): an
 *	    event per response, no @poll_timer, no xbf_ring_look()
 * @poll_timer: bounds how long a response waits for its batch
 * @hctx: the hardware queue served by this ring (the first one, if shared)
 * @stats: counters (sysfs.c shows them)
 * @stats_dir: queue-N/ in sysfs (sysfs.c), NULL when not shown
 */
struct xbf_ring {
	struct xbf_info *info;
	unsigned int index;
	xbf_done_fn done;

	spinlock_t lock;		/* see @lock above */
	struct blkif_front_ring front;
	struct request **inflight;
	unsigned int nr_slots;
	unsigned int nr_ids;
	bool may_fill;
	bool shared;
	bool slot_starved;
	bool broken;
	bool work_since_eoi;

	grant_ref_t ring_refs[1 << XBLK_MAX_RING_ORDER];
	struct blkif_sring *sring;
	evtchn_port_t evtchn;
	int irq;

	spinlock_t pool_lock;		/* see @pool_lock above */
	struct xbf_pool data;
	struct xbf_pool indirect;
	bool need_rerun;
	bool growing;
	struct work_struct grow_work;

	unsigned int irq_batch;
	u64 irq_wait_ns;
	struct xblk_coalesce rsp_co;
	bool frozen;
	struct hrtimer poll_timer;

	struct blk_mq_hw_ctx *hctx;
	struct xbf_stats stats;
	struct kobject *stats_dir;
	char irq_name[48];
};

/* Life of a disk as seen by blk-mq callbacks (xbf_info.state). */
enum xbf_state {
	XBF_DISCONNECTED,	/* no rings, or rings not connected yet */
	XBF_CONNECTED,		/* serving I/O */
	XBF_CLOSING,		/* backend asked to close; no new I/O */
	XBF_ERROR,		/* backend broke the protocol; fail I/O */
	XBF_RESUMING,		/* restored: queue quiesced until reconnected */
};

/**
 * struct xbf_params - the module parameters a disk works with (params.c)
 * @max_queues: max_queues
 * @max_ring_order: max_ring_page_order
 * @max_indirect_segs: max_indirect_segments
 * @persistent: feature_persistent
 * @max_inflight: max_inflight
 * @control: inflight_control
 * @adaptive: adaptive_budget
 * @irq_batch: irq_batch
 * @irq_wait_us: irq_wait_us
 * @trusted: trusted
 * @irq_affinity: irq_affinity
 * @io_timeout: io_timeout, s
 * @timeout_fail: timeout_policy is fail
 *
 * Taken when the disk sets up its rings (xbf_params_get()), so that a
 * parameter changed at runtime applies to disks connected afterwards and
 * never to one half-way; the one per-disk setting that changes at runtime
 * is xblk/max_inflight in sysfs.
 */
struct xbf_params {
	unsigned int max_queues;
	unsigned int max_ring_order;
	unsigned int max_indirect_segs;
	bool persistent;
	unsigned int max_inflight;
	bool control;
	bool adaptive;
	unsigned int irq_batch;
	unsigned int irq_wait_us;
	bool trusted;
	bool irq_affinity;
	unsigned int io_timeout;
	bool timeout_fail;
};

/**
 * struct xbf_dispatch - how many requests a disk keeps in flight (dispatch.c)
 * @max_inflight: the most a sequential stream may have in flight on all
 *	the disk's rings together, 0 for no bound beyond the rings (sysfs
 *	xblk/max_inflight: with @control a ceiling on the window, without it
 *	the bound itself; read locklessly)
 * @control: the window follows the device (inflight_control)
 * @adaptive: hold back only sequential streams (adaptive_budget)
 * @max_sectors: the disk's largest request: a stream of them cannot merge
 *	further and is not held back
 * @inflight: requests holding budget (dispatched, not yet completed)
 * @starved: a request was refused budget; the completion path reruns the
 *	hardware queues once budget is back
 * @stopped: xbf_dispatch_hold() stopped hardware queues; the completion
 *	path (or xbf_dispatch_unstop()) starts them again
 * @limited: a request was refused budget since the window's last epoch
 * @denied: how often dispatch was refused budget (sysfs)
 * @lock: protects @win but its window, which is read locklessly
 * @win: the window (include/xblk/inflight.h)
 *
 * blk-mq's budget callbacks get the request_queue, not the hardware queue:
 * the budget is the disk's, and the window too (the device behind it is
 * one).  Which stream a budget request belongs to is judged by the hardware
 * queue of the CPU asking (struct xbf_stream).
 */
struct xbf_dispatch {
	unsigned int max_inflight;
	bool control;
	bool adaptive;
	unsigned int max_sectors;
	atomic_t inflight;
	atomic_t starved;
	atomic_t stopped;
	bool limited;
	atomic_long_t denied;
	spinlock_t lock;		/* see @lock above */
	struct xblk_inflight win;
};

/**
 * struct xbf_info - one virtual disk
 * @xbdev: our xenbus device
 * @mutex: serialises xenbus state changes and teardown against each other
 * @state: enum xbf_state, read locklessly by the I/O path (READ_ONCE)
 * @vdevice: "virtual-device" value
 * @handle: blkif handle (the low 16 bits of @vdevice)
 * @index: xvd disk index
 * @part: partition number when the vbd is a partition
 * @name: disk name (xvdb, xvda1, ...)
 * @cdrom: device-type is cdrom
 * @first_minor: first minor number of the gendisk
 * @minors: number of minors (1 for a partition vbd)
 * @params: the module parameters, taken when the rings are set up
 * @fl: our limits (from @params), so negotiation uses what we advertised
 * @be: backend offers, parsed at connect
 * @neg: negotiated configuration
 * @nr_rings: number of entries in @rings
 * @rings: the rings
 * @tag_set: blk-mq tag set
 * @hq: one entry per hardware queue of @tag_set
 * @disk_segs: segments per request the disk was created with; a backend
 *	we reconnect to after a restore must offer at least as many
 * @quiesced: the queue is quiesced for a restore (XBF_RESUMING)
 * @gd: the disk, once connected
 * @added: @gd is added to the system (xbf_disk_add() returned); until then
 *	it must not be marked dead, resized or deleted
 * @add_work: adds @gd (its partition scan waits for the backend), then
 *	switches to Connected
 * @flush_op: BLKIF_OP_FLUSH_DISKCACHE, BLKIF_OP_WRITE_BARRIER or 0
 * @bounce: the backend is not trusted: data goes through pages of ours
 *	that hold nothing but request data, never through granted bio pages
 * @error_work: fails a disk whose backend broke the protocol, outside
 *	interrupt context (recovery.c)
 * @timeout_work: reports, or fails the disk for, requests that reached
 *	the queue's timeout (recovery.c; blk-mq calls ->timeout() where we
 *	cannot take @mutex)
 * @timeouts: requests that reached the timeout unanswered, each time (sysfs)
 * @resize_work: applies the last capacity the backend announced, at most
 *	once per second
 * @resize_sectors: that capacity
 * @resize_pending: @resize_sectors is not applied yet
 * @resize_folded: announcements folded into the pending one
 * @resized_at: jiffies of the last capacity change applied
 * @rs_err: rate limit of this disk's error messages (backend faults)
 * @rs_timeout: rate limit of its timeout reports
 * @dp: the dispatch budget (dispatch.c)
 *
 * @mutex protects @rings/@nr_rings setup and teardown, @gd creation and
 * deletion, @added, @hq (but @hq[].stream), @quiesced, @params, @be, @neg
 * and the @resize_* fields.
 */
struct xbf_info {
	struct xenbus_device *xbdev;
	struct mutex mutex;		/* see @mutex above */
	enum xbf_state state;

	u32 vdevice;
	u16 handle;
	unsigned int index;
	unsigned int part;
	char name[32];
	bool cdrom;
	unsigned int first_minor;
	unsigned int minors;

	struct xbf_params params;
	struct xblk_fe_limits fl;
	struct xblk_be_info be;
	struct xblk_negotiated neg;

	unsigned int nr_rings;
	struct xbf_ring *rings;

	struct blk_mq_tag_set tag_set;
	struct xbf_hq *hq;
	unsigned int disk_segs;
	bool quiesced;
	struct gendisk *gd;
	bool added;
	struct work_struct add_work;
	u8 flush_op;
	bool bounce;

	struct work_struct error_work;
	struct work_struct timeout_work;
	atomic_long_t timeouts;

	struct delayed_work resize_work;
	u64 resize_sectors;
	bool resize_pending;
	unsigned int resize_folded;
	unsigned long resized_at;

	struct ratelimit_state rs_err;
	struct ratelimit_state rs_timeout;

	struct xbf_dispatch dp;
};

/**
 * struct xbf_req - per-request driver data (blk-mq PDU)
 * @op: blkif operation the response must carry: the one sent, or for
 *	BLKIF_OP_INDIRECT the inner operation
 * @status: completion status
 * @nr_data: entries of @gnt reserved for data
 * @nr_indirect: indirect frames, after the data entries in @gnt
 * @nr_segs: data segments actually sent (<= @nr_data)
 * @rsp_status: BLKIF_RSP_* status of the response
 * @budget: the request holds one unit of the disk's dispatch budget
 * @sent_ns: when it went on the ring (ktime_get_ns())
 * @next: link while completing a batch
 * @gnt: grants held by the request, data first, then indirect frames
 */
struct xbf_req {
	u8 op;
	blk_status_t status;
	u16 nr_data;
	u16 nr_indirect;
	u16 nr_segs;
	s16 rsp_status;
	bool budget;
	u64 sent_ns;
	struct xbf_req *next;
	struct xbf_gnt *gnt[];
};

/*
 * Who calls whom, top down; no file calls a file above it (scripts/
 * callgraph.sh checks it):
 *
 *   main.c -> xenbus.c -> recovery.c -> mq.c -> dispatch.c, request.c,
 *   ring.c; request.c -> grant.c; xenbus.c -> sysfs.c -> dispatch.c;
 *   params.c and log.c are leaves every file may call.
 */

/* params.c */
void xbf_params_get(struct xbf_params *p);

/* log.c */
void xbf_fail(struct xbf_info *info, const char *fmt, ...) __printf(2, 3);
void xbf_fatal(struct xbf_info *info, int err, const char *fmt, ...)
	__printf(3, 4);

/* xenbus.c */
int xbf_xenbus_register(void);
void xbf_xenbus_unregister(void);

/* recovery.c */
void xbf_error_work(struct work_struct *work);
void xbf_timeout_work(struct work_struct *work);
bool xbf_disk_kill(struct xbf_info *info);
void xbf_fail_inflight(struct xbf_info *info);
void xbf_disk_drain(struct xbf_info *info);
unsigned int xbf_disk_suspend(struct xbf_info *info);
void xbf_disk_reconnect(struct xbf_info *info);
void xbf_disk_unquiesce(struct xbf_info *info);

/* mq.c */
int xbf_disk_alloc(struct xbf_info *info);
int xbf_disk_add(struct xbf_info *info);
void xbf_disk_destroy(struct xbf_info *info);
void xbf_disk_affine(struct xbf_info *info);
void xbf_disk_update_capacity(struct xbf_info *info, u64 sectors);
void xbf_disk_resize(struct xbf_info *info, u64 sectors);
void xbf_resize_work(struct work_struct *work);
void xbf_complete_ring(struct xbf_ring *ring, struct xbf_req *done,
		       bool rerun, bool idle);
void xbf_ring_rerun(struct xbf_ring *ring);

/* dispatch.c */
void xbf_dispatch_init(struct xbf_info *info);
bool xbf_dispatch_get(struct xbf_info *info);
bool xbf_dispatch_hold(struct xbf_info *info, struct blk_mq_hw_ctx *hctx);
void xbf_dispatch_unstop(struct xbf_info *info);
void xbf_dispatch_put(struct xbf_info *info);
void xbf_dispatch_release(struct xbf_info *info, struct request *rq);
void xbf_dispatch_sent(struct xbf_info *info, struct xbf_hq *hq,
		       struct request *rq);
void xbf_dispatch_restart(struct xbf_info *info);
void xbf_dispatch_done(struct xbf_info *info, struct xbf_req *done);
unsigned int xbf_dispatch_window(struct xbf_info *info);
void xbf_dispatch_set_max(struct xbf_info *info, unsigned int max);

/* request.c */
blk_status_t xbf_prep(struct xbf_ring *ring, struct request *rq,
		      struct blkif_request *breq);
bool xbf_finish(struct xbf_ring *ring, struct request *rq, s16 status);
bool xbf_finish_list(struct xbf_ring *ring, struct xbf_req *list);
void xbf_abandon(struct xbf_ring *ring, struct request *rq);

/* ring.c */
int xbf_rings_alloc(struct xbf_info *info, unsigned int nr, unsigned int order,
		    xbf_done_fn done);
void xbf_rings_free(struct xbf_info *info);
int xbf_rings_write_keys(struct xbf_info *info, struct xenbus_transaction xbt);
int xbf_ring_pools_alloc(struct xbf_ring *ring);
blk_status_t xbf_ring_submit(struct xbf_ring *ring, struct request *rq,
			     struct blkif_request *breq, unsigned int id,
			     bool last);
void xbf_commit(struct xbf_ring *ring);
void xbf_ring_set_cpus(struct xbf_ring *ring, const struct cpumask *mask);
void xbf_ring_stop(struct xbf_ring *ring);
void xbf_ring_look(struct xbf_ring *ring);
unsigned int xbf_ring_oldest(struct xbf_ring *ring, u64 *sent_ns);
struct xbf_req *xbf_ring_take_inflight(struct xbf_ring *ring);
struct xbf_req *xbf_ring_reclaim(struct xbf_ring *ring);
void xbf_rings_freeze(struct xbf_info *info);

/* grant.c */
int xbf_pool_init(struct xbf_pool *pool, unsigned int nr, unsigned int cap,
		  bool with_pages, domid_t domid, bool readonly);
void xbf_pool_destroy(struct xbf_pool *pool);
unsigned int xbf_pool_size(const struct xblk_negotiated *neg);
unsigned int xbf_pool_cap(const struct xblk_negotiated *neg,
			  unsigned int nr_slots);
void xbf_pool_grow(struct work_struct *work);
bool xbf_grants_get(struct xbf_ring *ring, struct xbf_req *req,
		    unsigned int nr_data, unsigned int nr_indirect);
bool xbf_grants_put(struct xbf_ring *ring, struct xbf_req *req);
bool xbf_grants_put_list(struct xbf_ring *ring, struct xbf_req *list);

/* sysfs.c */
int xbf_stats_add(struct xbf_info *info);
void xbf_stats_del(struct xbf_info *info);
extern const struct attribute_group *xbf_dev_groups[];

/* Data is copied through our own granted pages (persistent or bounce). */
static inline bool xbf_copies(const struct xbf_info *info)
{
	return info->neg.persistent || info->bounce;
}

static inline struct xbf_req *xbf_req(struct request *rq)
{
	return blk_mq_rq_to_pdu(rq);
}

static inline struct request *xbf_rq(struct xbf_req *req)
{
	return blk_mq_rq_from_pdu(req);
}

#endif /* XBLKFRONT_H */
