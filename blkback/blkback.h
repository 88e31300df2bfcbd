/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xblkback: private definitions shared by the files of the backend.
 *
 * Object model (one xenbus "vbd" device = one struct xbb_dev):
 *
 *   struct xbb_dev     xenbus.c: state machine, advertised and negotiated
 *                      features (read by negotiate.c); owns the vbd and the
 *                      rings
 *   struct xbb_vbd     vbd.c: the backing block device
 *   struct xbb_ring    one shared ring + event channel (ring.c), served by
 *                      one thread (thread.c); its request slots (slots.c)
 *                      and its event coalescing (coalesce.c)
 *   struct xbb_req     one request taken off a ring, until answered: its slot
 *                      (taken, set up, handed back, freed) is slots.c's, its
 *                      maps, bios and completion are io.c's
 *   struct xbb_gnt     grant_map.c: one granted page mapped for a request
 *   struct xbb_pgrant  grant_map.c: a persistently mapped grant
 *
 * Contexts: xenbus callbacks (xenwatch thread), remove (any process context),
 * one kthread per ring (everything on the data path except bio completion),
 * bio completion (any context, even hard irq), the event channel handler
 * (hard irq), sysfs readers.
 */
#ifndef XBLKBACK_H
#define XBLKBACK_H

#include <linux/types.h>
#include <linux/list.h>
#include <linux/llist.h>
#include <linux/rbtree.h>
#include <linux/mutex.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/hrtimer.h>
#include <linux/workqueue.h>
#include <linux/ratelimit.h>
#include <linux/device.h>
#include <xen/xenbus.h>
#include <xen/grant_table.h>
#include <xen/interface/io/ring.h>
#include <xen/interface/io/blkif.h>

#include <xblk/compat.h>
#include <xblk/coalesce.h>
#include <xblk/request.h>
#include <xblk/retry.h>
#include <xblk/xenstore.h>
#include <xblk/xenbus.h>

/* ------------------------------------------------------------------ */
/* Module parameters (main.c), frozen per device when it is probed.    */

/**
 * struct xbb_params - the backend's configurable maxima
 * @max_queues: rings per device we accept (multi-queue-max-queues)
 * @max_ring_order: log2 pages per ring we accept (max-ring-page-order)
 * @max_indirect_segs: segments per indirect request (0 = not offered)
 * @persistent: offer feature-persistent
 * @max_pgrants: persistent grants kept mapped per ring
 * @max_inflight_pages: pages mapped for requests in flight, per ring
 */
struct xbb_params {
	unsigned int max_queues;
	unsigned int max_ring_order;
	unsigned int max_indirect_segs;
	bool persistent;
	unsigned int max_pgrants;
	unsigned int max_inflight_pages;
};

void xbb_params_get(struct xbb_params *p);
extern bool xbb_poll_inflight;
extern bool xbb_irq_follow;
extern unsigned int xbb_coalesce_reqs;
extern unsigned int xbb_coalesce_usecs;

/* Request coalescing (coalesce_reqs, coalesce_usecs): defaults and ranges. */
#define XBB_DEF_COALESCE_REQS	10
#define XBB_MAX_COALESCE_REQS	32
#define XBB_DEF_COALESCE_USECS	20000
#define XBB_MIN_COALESCE_USECS	10
#define XBB_MAX_COALESCE_USECS	100000

/* ------------------------------------------------------------------ */
/* Ring layouts of the two x86 ABIs (request layouts in request.h).    */

/*
 * A response is the same 12 meaningful bytes in every ABI.  The i386 ring
 * element is 108 bytes: the response member must not raise the element's
 * alignment, hence __packed on it.
 */
DEFINE_RING_TYPES(xbb_x86_32, struct xblk_x86_32_request,
		  struct blkif_response __packed);
DEFINE_RING_TYPES(xbb_x86_64, struct xblk_x86_64_request,
		  struct blkif_response);

/*
 * The back ring bookkeeping is laid out alike for every ABI (and so is the
 * shared ring header), so index arithmetic goes through .native; only slot
 * addresses depend on the ABI.
 */
union xbb_back_ring {
	struct blkif_back_ring native;
	struct xbb_x86_32_back_ring x86_32;
	struct xbb_x86_64_back_ring x86_64;
};

/* ------------------------------------------------------------------ */
/* Backing device (vbd.c).                                             */

struct xbb_claim;

/**
 * struct xbb_vbd - the backing block device and what it offers
 * @xb: open device (compat.h)
 * @bdev: @xb.bdev, NULL when not open
 * @devt: major:minor from "physical-device"
 * @read_only: "mode" has no 'w'
 * @shared: "mode" has '!': writable but shared, so not claimed exclusively
 * @claim: the exclusive claim (vbd.c), NULL for a shared or read-only open
 * @info: VDISK_* bits for the "info" key
 * @sectors: capacity in 512-byte sectors, updated on resize (READ_ONCE)
 * @lbs: logical block size in bytes
 * @pbs: physical block size in bytes
 * @flush: offer feature-flush-cache
 * @discard: the device can discard (toolstack's discard-enable aside)
 * @discard_secure: the device can securely erase
 * @discard_granularity: bytes
 * @discard_alignment: bytes
 * @io_min: bytes, 0 if unknown
 * @io_opt: bytes, 0 if unknown
 * @max_sectors: largest request the device takes, 512-byte sectors
 *
 * Written by vbd.c under xbb_dev.lock; @sectors is also read by the ring
 * threads and rewritten by ring 0's thread on resize.
 */
struct xbb_vbd {
	struct xb_bdev xb;
	struct block_device *bdev;
	dev_t devt;
	bool read_only;
	bool shared;
	struct xbb_claim *claim;
	unsigned int info;
	u64 sectors;
	unsigned int lbs;
	unsigned int pbs;
	bool flush;
	bool discard;
	bool discard_secure;
	unsigned int discard_granularity;
	unsigned int discard_alignment;
	unsigned int io_min;
	unsigned int io_opt;
	unsigned int max_sectors;
};

struct xbb_dev;

int xbb_vbd_open(struct xbb_dev *be, dev_t devt, bool read_only, bool shared,
		 bool cdrom, const char *vm);
void xbb_vbd_close(struct xbb_dev *be);
bool xbb_vbd_refresh_size(struct xbb_vbd *vbd);

/* ------------------------------------------------------------------ */
/* Grants (grant_map.c).                                               */

#define XBB_INVALID_HANDLE	((grant_handle_t)~0U)

/**
 * struct xbb_pgrant - a grant kept mapped across requests (feature-persistent)
 * @node: in xbb_ring.pgrants, keyed by @gref
 * @lru: on xbb_ring.pg_lru while @users is 0
 * @page: the page it is mapped at
 * @gref: the frontend's grant reference
 * @handle: mapping handle, XBB_INVALID_HANDLE unless Xen mapped it
 * @status: GNTST_* of its map; only GNTST_okay may be used for I/O
 * @users: segments of requests in flight using it
 * @in_tree: still findable (cleared when its map failed)
 *
 * Owned by the ring thread.
 */
struct xbb_pgrant {
	struct rb_node node;
	struct list_head lru;
	struct page *page;
	grant_ref_t gref;
	grant_handle_t handle;
	s16 status;
	unsigned int users;
	bool in_tree;
};

/**
 * struct xbb_gnt - one granted page a request uses
 * @page: where it is mapped: a reserved page of ours, or @pg's page
 * @pg: the persistent grant used, or NULL
 * @gref: grant reference from the request (private copy)
 * @handle: our own mapping's handle, XBB_INVALID_HANDLE if none
 * @status: GNTST_* of our own mapping (without @pg); only GNTST_okay may be
 *	used for I/O (a mapping may exist that may not: see grant_map.c)
 */
struct xbb_gnt {
	struct page *page;
	struct xbb_pgrant *pg;
	grant_ref_t gref;
	grant_handle_t handle;
	s16 status;
};

/**
 * struct xbb_batch - grant operations collected over one pass
 * @map: map operations
 * @unmap: unmap operations
 * @pages: page of each map operation
 * @unmap_pages: page of each unmap operation
 * @gnt: request grant of each map operation
 * @pg: persistent grant created by each map operation, or NULL
 * @nr_map: queued map operations
 * @nr_unmap: queued unmap operations
 * @cap: size of each array
 *
 * Owned by the ring thread.
 */
struct xbb_batch {
	struct gnttab_map_grant_ref *map;
	struct gnttab_unmap_grant_ref *unmap;
	struct page **pages;
	struct page **unmap_pages;
	struct xbb_gnt **gnt;
	struct xbb_pgrant **pg;
	unsigned int nr_map;
	unsigned int nr_unmap;
	unsigned int cap;
};

struct xbb_ring;

int xbb_gnt_init(struct xbb_ring *ring, unsigned int batch);
void xbb_gnt_exit(struct xbb_ring *ring);
int xbb_gnt_reserve(struct xbb_ring *ring, struct xbb_gnt *gnt,
		    unsigned int n);
void xbb_gnt_map_add(struct xbb_ring *ring, struct xbb_gnt *gnt,
		     bool readonly);
void xbb_gnt_map_flush(struct xbb_ring *ring);
bool xbb_gnt_mapped(const struct xbb_gnt *gnt);
enum xblk_map_class xbb_gnt_check(const struct xbb_gnt *gnt, unsigned int n);
void xbb_gnt_release(struct xbb_ring *ring, struct xbb_gnt *gnt,
		     unsigned int n);
void xbb_gnt_unmap_flush(struct xbb_ring *ring);
void xbb_gnt_trim(struct xbb_ring *ring, unsigned int keep);
void xbb_gnt_free_all(struct xbb_ring *ring);
void xbb_gnt_levels(long *grants, long *pages);

/* ------------------------------------------------------------------ */
/* Requests: slots (slots.c), maps, bios and completion (io.c).      */

/**
 * struct xbb_req - a request taken off the ring, until it is answered
 * @ring: owning ring
 * @node: on the free list, the retry list or the list of one pass (ring
 *	thread only)
 * @done: on xbb_ring.done once finished (xbb_req_done(), any context)
 * @id: frontend's id, echoed
 * @op: operation echoed in the response (the inner one for indirect)
 * @write: data moves to the device
 * @flush: FLUSH_DISKCACHE: flush before (and FUA on) the data
 * @secure: secure discard
 * @refused: its indirect segments failed validation
 * @segs_ready: @segs were copied out of the indirect pages and checked: a
 *	retry maps the data pages only, the indirect pages are not read twice
 * @status: BLKIF_RSP_*; bios may only lower it from OKAY (WRITE_ONCE)
 * @sector: first 512-byte sector
 * @nr_sectors: length in 512-byte sectors (set once segments are checked)
 * @nr_segs: data segments
 * @nr_ind: indirect descriptor pages
 * @pages: what it holds of xbb_ring.pages_reserved: its data and indirect
 *	pages, or XBB_DISCARD_PAGES for a discard
 * @ind_grefs: their grant references (private copy)
 * @pending: bios in flight, plus one while they are being submitted
 * @segs: private copy of the segments: @inline_segs or allocated
 * @gnts: grants of the data segments: @inline_gnts or allocated
 * @ind: grants of the indirect pages
 * @inline_segs: storage for requests with up to 11 segments
 * @inline_gnts: ditto
 */
struct xbb_req {
	struct xbb_ring *ring;
	struct list_head node;
	struct llist_node done;
	u64 id;
	u8 op;
	bool write;
	bool flush;
	bool secure;
	bool refused;
	bool segs_ready;
	s16 status;
	u64 sector;
	u64 nr_sectors;
	unsigned int nr_segs;
	unsigned int nr_ind;
	unsigned int pages;
	grant_ref_t ind_grefs[BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST];
	atomic_t pending;
	struct blkif_request_segment *segs;
	struct xbb_gnt *gnts;
	struct xbb_gnt ind[BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST];
	struct blkif_request_segment inline_segs[BLKIF_MAX_SEGMENTS_PER_REQUEST];
	struct xbb_gnt inline_gnts[BLKIF_MAX_SEGMENTS_PER_REQUEST];
};

unsigned int xbb_io_dispatch(struct xbb_ring *ring, struct list_head *pass,
			     const struct xblk_req_limits *lim);
unsigned int xbb_io_reap(struct xbb_ring *ring, struct list_head *done);

struct xbb_req *xbb_slot_take(struct xbb_ring *ring,
			      const struct blkif_request *req);
void xbb_slot_put(struct xbb_req *xr);
bool xbb_slots_open(struct xbb_ring *ring);
bool xbb_slots_take_retry(struct xbb_ring *ring, struct list_head *pass);
void xbb_slots_backoff(struct xbb_ring *ring, unsigned int nr,
		       unsigned int put_off);
void xbb_slots_retry_later(struct xbb_ring *ring, struct list_head *again);
void xbb_slots_fail_retry(struct xbb_ring *ring);
void xbb_req_done(struct xbb_req *xr);
void xbb_req_finish(struct xbb_req *xr, s16 status);
struct llist_node *xbb_slots_take_done(struct xbb_ring *ring);
bool xbb_slots_done_pending(struct xbb_ring *ring);
void xbb_slots_init(struct xbb_ring *ring);
int xbb_slots_alloc(struct xbb_ring *ring);
void xbb_slots_free(struct xbb_ring *ring);

/* ------------------------------------------------------------------ */
/* Rings (ring.c), their threads (thread.c), coalescing (coalesce.c). */

/**
 * struct xbb_ring_stats - counters of one ring (sysfs.c)
 * @rd_req: read requests
 * @wr_req: write requests (including flushes with data)
 * @f_req: flush requests (FLUSH_DISKCACHE, with or without data)
 * @ds_req: discard requests
 * @err_req: requests refused by validation
 * @io_err: accepted requests answered with an error (device error, grant
 *	map failure for good, or still put off when the ring stopped)
 * @oo_req: times the ring stopped taking requests for lack of resources
 * @map_retry: times a request could not be set up for now (no page for
 *	its grants, or Xen could not map a grant now) and was put off for a
 *	retry after a backoff instead of failing
 * @map_again: grant map operations that failed for now (the reason of
 *	most put-offs after the request was consumed)
 * @rd_sect: sectors read
 * @wr_sect: sectors written
 * @ds_sect: sectors discarded
 * @notify_in: event channel notifications received
 * @notify_out: notifications sent
 * @gnt_map: grant map operations
 * @gnt_unmap: grant unmap operations
 * @pgnt_hit: segments served by an already mapped persistent grant
 * @pgnt_evict: persistent grants unmapped to make room
 * @timer_polls: looks at the ring by the coalescing timer (coalesce_usecs)
 * @passes: passes that took at least one request off the ring (requests
 *	per pass = (rd_req + wr_req + f_req + ds_req + err_req) / passes)
 *
 * Each counter has a single writer (the ring thread, @notify_in the event
 * handler) and is read locklessly; WRITE_ONCE/READ_ONCE keep it untorn.
 */
struct xbb_ring_stats {
	u64 rd_req;
	u64 wr_req;
	u64 f_req;
	u64 ds_req;
	u64 err_req;
	u64 io_err;
	u64 oo_req;
	u64 map_retry;
	u64 map_again;
	u64 rd_sect;
	u64 wr_sect;
	u64 ds_sect;
	u64 notify_in;
	u64 notify_out;
	u64 gnt_map;
	u64 gnt_unmap;
	u64 pgnt_hit;
	u64 pgnt_evict;
	u64 timer_polls;
	u64 passes;
};

static inline void xbb_stat_add(u64 *counter, u64 n)
{
	WRITE_ONCE(*counter, *counter + n);
}

static inline void xbb_stat_inc(u64 *counter)
{
	xbb_stat_add(counter, 1);
}

/*
 * What a discard or secure erase counts against a ring's page budget: it
 * maps nothing, but it is device work the guest keeps in flight, and up to
 * a whole device of it per request.  With the default budget (4096 pages)
 * a ring has at most 64 of them in flight; the rest wait in the ring.
 */
#define XBB_DISCARD_PAGES	64

/* xbb_ring.life */
enum xbb_thread_life {
	XBB_THREAD_NEW,		/* created; has taken nothing yet */
	XBB_THREAD_RUNNING,	/* serving the ring */
	XBB_THREAD_DRAINED,	/* everything answered, every grant dropped */
};

/* xbb_ring.intake: whether the last pass took every request it could. */
enum xbb_intake {
	XBB_INTAKE_OPEN,	/* yes (or it took nothing: none was there) */
	XBB_INTAKE_FULL,	/* the page budget is spent: completions reopen it */
	XBB_INTAKE_BACKOFF,	/* a setup failed for now: nothing before retry_at */
};

/*
 * xbb_ring.next: how the thread waits after a round.  POLL: req_event was
 * left unarmed while requests are in flight (poll_inflight=Y), so their
 * completions wake the thread to look at the ring.  NOW: requests wait
 * that no event will announce (published meanwhile, or budget came back).
 */
enum xbb_next {
	XBB_NEXT_WAIT,	/* for an event, a completion, a trim or the idle timeout */
	XBB_NEXT_POLL,	/* the same, but at most XBB_POLL_TIMEOUT */
	XBB_NEXT_NOW,	/* not at all */
};

/* xbb_ring.flags */
#define XBB_RING_EVENT	0	/* event received, EOI owed (irq -> thread) */
#define XBB_RING_TRIM	1	/* dom0 is short of memory: empty the page cache */
#define XBB_RING_TIMER	2	/* the coalescing timer expired (timer -> thread) */

/**
 * struct xbb_ring - one shared ring, its event channel and its thread
 * @be: owning device
 * @index: queue number
 * @br: back ring; its indexes and slots are ring.c's, on the ring thread
 *	(coalesce.c writes req_event and reads req_cons)
 * @sring: the mapped shared ring
 * @irq: event channel irq, 0 if unbound
 * @task: the ring thread, NULL when not running
 * @wq: the thread sleeps here; woken by events, completions and stop
 * @flags: XBB_RING_EVENT, XBB_RING_TRIM, XBB_RING_TIMER (atomic bitops: set
 *	by the event handler, xenbus.c's shrinker callback and the coalescing
 *	timer, cleared by the thread)
 * @done: finished requests waiting for their response (lock-free list:
 *	added to by xbb_req_done() in any context, taken by the thread; both
 *	in slots.c)
 * @stats: counters
 *
 * Everything below is owned by the ring thread while it runs, and by the
 * xenbus code (under xbb_dev.lock) before it starts and after it stopped.
 * On the thread each field is written by one file: ring.c @halted,
 * @took_since_eoi, @irq_cpu, @irq_moved, @rsp_pushed; thread.c @next,
 * @idle_round, @life; slots.c @intake, @retry, @backoff, @retry_at, @reqs,
 * @free_reqs, @inflight, @pages_reserved, @max_pages; coalesce.c @co,
 * @evt_timer; grant_map.c @page_cache through @batch; qos.c @qos_gen.
 *
 * @halted: the frontend broke the ring protocol; take no more requests.
 *	Not an @intake state: requests put off before the halt are still
 *	retried (and may back off) while nothing new is taken.
 * @next: how the thread waits after this round (enum xbb_next)
 * @intake: whether the last pass stopped for lack of resources, leaving
 *	requests in the ring or on @retry for later, and which (enum
 *	xbb_intake)
 * @retry: requests taken off the ring whose setup failed for now, in ring
 *	order, without pages or mappings (but counted in @inflight and
 *	@pages_reserved); set up again before any new request
 * @backoff: delay after the last failed setup, in jiffies; 0 after a success
 * @retry_at: in XBB_INTAKE_BACKOFF, the time of the next attempt
 * @idle_round: this round follows XBB_IDLE_TIMEOUT without any wake-up
 * @took_since_eoi: requests were taken since the last late EOI
 * @co: request coalescing (coalesce.h): co.batch is how many requests the
 *	frontend is asked to publish before its next event (req_event that
 *	far past req_cons), 1 when not coalescing
 * @evt_timer: looks at the ring when requests have waited long enough for
 *	the rest of their batch; sets XBB_RING_TIMER
 * @irq_cpu: the CPU the event channel was last bound to, -1 for Xen's default
 * @irq_moved: when it was (it follows the thread at most once a second)
 * @life: where the thread is in its life (a thread that died on the way
 *	stays XBB_THREAD_RUNNING)
 * @rsp_pushed: rsp_prod_pvt when responses were last pushed
 * @reqs: one request slot per ring slot
 * @free_reqs: unused slots
 * @inflight: slots in use (xbb_slot_get() and xbb_slot_put() only)
 * @pages_reserved: pages reserved by requests in flight (ditto)
 * @max_pages: limit on @pages_reserved (max_inflight_pages)
 * @page_cache: free pages to map grants at
 * @spare: free pages held out of @page_cache by the ring thread, so that a
 *	page reserved for a segment and given back at once (its persistent
 *	grant was already mapped) costs no lock round trip; they count as in
 *	use until xbb_gnt_trim() returns them
 * @nr_spare: pages on @spare
 * @spare_cap: size of @spare
 * @pgrants: persistent grants by gref
 * @pg_hash: a direct-mapped cache of @pgrants, indexed by gref & @pg_hash_mask:
 *	each entry NULL or a grant in the tree, so most lookups skip the walk
 * @pg_hash_mask: its size - 1 (NULL @pg_hash: persistence off)
 * @pg_lru: unused persistent grants, least recently used first
 * @nr_pgrants: persistent grants mapped or being mapped
 * @max_pgrants: limit on @nr_pgrants; 0 when persistence is off
 * @batch: grant operations of the current pass
 * @qos_gen: the xbb_qos.gen this thread last associated itself with (qos.c);
 *	0 before its first round
 */
struct xbb_ring {
	struct xbb_dev *be;
	unsigned int index;
	union xbb_back_ring br;
	void *sring;
	unsigned int irq;
	struct task_struct *task;
	wait_queue_head_t wq;
	unsigned long flags;
	struct llist_head done;
	struct xbb_ring_stats stats;

	bool halted;
	enum xbb_next next;
	enum xbb_intake intake;
	bool idle_round;
	bool took_since_eoi;
	struct xblk_coalesce co;
	struct hrtimer evt_timer;
	enum xbb_thread_life life;
	int irq_cpu;
	unsigned long irq_moved;
	struct list_head retry;
	unsigned long backoff;
	unsigned long retry_at;
	RING_IDX rsp_pushed;
	struct xbb_req *reqs;
	struct list_head free_reqs;
	unsigned int inflight;
	unsigned int pages_reserved;
	unsigned int max_pages;
	struct gnttab_page_cache page_cache;
	struct page **spare;
	unsigned int nr_spare;
	unsigned int spare_cap;
	struct rb_root pgrants;
	struct xbb_pgrant **pg_hash;
	unsigned int pg_hash_mask;
	struct list_head pg_lru;
	unsigned int nr_pgrants;
	unsigned int max_pgrants;
	struct xbb_batch batch;
	unsigned int qos_gen;
};

int xbb_ring_map(struct xbb_ring *ring, const grant_ref_t *grefs,
		 unsigned int order, evtchn_port_t evtchn);
void xbb_ring_unmap(struct xbb_ring *ring);
bool xbb_ring_consume(struct xbb_ring *ring, unsigned int *taken);
unsigned int xbb_ring_reap(struct xbb_ring *ring);
void xbb_ring_respond(struct xbb_ring *ring, u64 id, u8 op, s16 status);
void xbb_ring_push(struct xbb_ring *ring);
RING_IDX xbb_ring_unanswered(struct xbb_ring *ring);
bool xbb_ring_unconsumed(struct xbb_ring *ring);
void xbb_ring_eoi(struct xbb_ring *ring, bool event, bool took);
void xbb_ring_renotify(struct xbb_ring *ring);

int xbb_thread_start(struct xbb_ring *ring);
bool xbb_thread_stop(struct xbb_ring *ring);

void xbb_coalesce_init(struct xbb_ring *ring);
void xbb_coalesce_cancel(struct xbb_ring *ring);
void xbb_coalesce_stop(struct xbb_ring *ring);
void xbb_coalesce_pass(struct xbb_ring *ring, RING_IDX unanswered,
		       unsigned int taken, bool event, bool timer);
bool xbb_coalesce_rearm(struct xbb_ring *ring);

/* ------------------------------------------------------------------ */
/* Per-guest QoS (qos.c).                                              */

struct cgroup_subsys_state;

/**
 * struct xbb_qos - the cgroup v2 a device's I/O is charged to
 * @lock: protects @css, @path and the writes of @gen.  A spinlock: the ring
 *	threads take it (briefly) when they pick up a change; whoever resolves
 *	a new path does so before taking it, and drops the old css after.
 * @css: the io css of the assigned cgroup, one reference held; NULL: none
 * @path: its path as assigned ("/a/b", kmalloc'ed); NULL: none
 * @gen: bumped at every change, never 0; a ring thread compares it with its
 *	xbb_ring.qos_gen at the top of each round (READ_ONCE, no lock)
 */
struct xbb_qos {
	/* See @lock above. */
	spinlock_t lock;
	struct cgroup_subsys_state *css;
	char *path;
	unsigned int gen;
};

void xbb_qos_init(struct xbb_dev *be);
int xbb_qos_connect(struct xbb_dev *be, const char **why);
void xbb_qos_exit(struct xbb_dev *be);
int xbb_qos_store(struct xbb_dev *be, const char *buf, size_t len);
ssize_t xbb_qos_show(struct xbb_dev *be, char *buf);
void xbb_qos_ring_apply(struct xbb_ring *ring);
void xbb_qos_ring_exit(struct xbb_ring *ring);

/* ------------------------------------------------------------------ */
/* The device (xenbus.c), what its frontend asks for (negotiate.c).   */

/**
 * struct xbb_dev - one backend device (xenbus "vbd")
 * @xdev: the xenbus device
 * @domid: frontend domain
 * @devid: the vbd's device id (the last element of its xenstore path)
 * @name: "d<domid>/<disk>" for messages
 * @rs: rate limit of per-request messages the guest can trigger (log.c);
 *	  its missed count is what it suppressed since the last one printed
 * @rs_state: rate limit of connection-level messages the guest can trigger
 *	  (ring stopped, fatal errors, connected), kept apart from @rs so that
 *	  a flood of refused requests cannot hide them
 * @lock: serialises the state machine: frontend changes, the hotplug
 *	  watch, resize and remove.  Protects every field below up to
 *	  @rings_lock, and the rings' setup and teardown.
 * @hp_watch: watch on our "physical-device" key (registered at probe,
 *	  unregistered in remove before taking @lock)
 * @vbd: the backing device; @vbd.bdev is NULL until hotplug gave it
 * @params: module parameters as they were at probe
 * @abi: frontend's request layout
 * @nr_rings: rings in use (0 when not connected)
 * @ring_order: log2 pages per ring
 * @persistent: both sides agreed on persistent grants
 * @discard: feature-discard was advertised (device and toolstack agree)
 * @threads_running: ring threads started (we are Connected)
 * @old_rings: rings being stopped by @teardown_work, NULL when none: while
 *	  they are, frontend state changes wait (@teardown_work replays the
 *	  frontend's state once they are gone)
 * @nr_old_rings: entries of @old_rings
 * @removed: remove ran while @old_rings were stopping: @teardown_work
 *	  closes the device and frees it
 * @rings_lock: protects @rings and @nr_rings for sysfs readers, which do
 *	  not take @lock; writers hold both
 * @rings: array of @nr_rings rings
 * @resize_work: tells the frontend the new size (queued by ring 0)
 * @teardown_work: stops @old_rings off the xenwatch thread, which must not
 *	  wait for a guest's requests (every xenbus watch of dom0 waits then)
 * @qos: the cgroup its I/O is charged to, under its own lock (qos.c)
 */
struct xbb_dev {
	struct xenbus_device *xdev;
	domid_t domid;
	u32 devid;
	char name[32];
	struct ratelimit_state rs;
	struct ratelimit_state rs_state;

	/* See @lock above. */
	struct mutex lock;
	struct xenbus_watch hp_watch;
	struct xbb_vbd vbd;
	struct xbb_params params;
	enum xblk_abi abi;
	unsigned int nr_rings;
	unsigned int ring_order;
	bool persistent;
	bool discard;
	bool threads_running;
	struct xbb_ring *old_rings;
	unsigned int nr_old_rings;
	bool removed;

	/* See @rings_lock above. */
	spinlock_t rings_lock;
	struct xbb_ring *rings;

	struct work_struct resize_work;
	struct work_struct teardown_work;

	/* See struct xbb_qos. */
	struct xbb_qos qos;
};

int xbb_xenbus_init(void);
void xbb_xenbus_exit(void);
int xbb_negotiate_rings(struct xbb_dev *be, struct xbb_ring **rings,
			unsigned int *nr);

/* ------------------------------------------------------------------ */
/* Fault injection for tests (fault.c, debugfs).                       */

void xbb_fault_init(void);
void xbb_fault_exit(void);
bool xbb_fault_map(void);
bool xbb_fault_ring_start(unsigned int index);

/* ------------------------------------------------------------------ */
/* Messages, and closing on what a peer wrote (log.c).                */

void xbb_log_init(struct xbb_dev *be);
bool xbb_ratelimit(struct xbb_dev *be, struct ratelimit_state *rs);
__printf(2, 3) void xbb_warn_rl(struct xbb_dev *be, const char *fmt, ...);
__printf(2, 3) void xbb_warn_state(struct xbb_dev *be, const char *fmt, ...);
__printf(2, 3) void xbb_info_state(struct xbb_dev *be, const char *fmt, ...);
__printf(2, 3) void xbb_warn(struct xbb_dev *be, const char *fmt, ...);
__printf(2, 3) void xbb_info(struct xbb_dev *be, const char *fmt, ...);
__printf(3, 4) void xbb_fatal(struct xbb_dev *be, int err, const char *fmt, ...);

/* ------------------------------------------------------------------ */
/* sysfs (sysfs.c).                                                    */

extern const struct attribute_group *xbb_dev_groups[];
extern const struct attribute_group *xbb_drv_groups[];

#endif /* XBLKBACK_H */
