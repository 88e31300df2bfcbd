// SPDX-License-Identifier: GPL-2.0
/*
 * xblkhostile: a hostile blkif frontend, for testing backends.  TEST ONLY.
 *
 * It binds xenbus "vbd" devices in a guest (xen-blkfront and xblkfront must
 * be unloaded), sets up a one-page ring, an event channel and a few granted
 * pages like a real frontend, and then writes raw, mostly broken requests on
 * the ring when told to through debugfs:
 *
 *   echo "<case> [arg]" > /sys/kernel/debug/xblkhostile/run
 *   cat /sys/kernel/debug/xblkhostile/run     -> "PASS|FAIL|SKIP <case>: ..."
 *   cat /sys/kernel/debug/xblkhostile/status  -> what the backend advertised
 *
 * Each case sends its bad requests followed by a good one and checks every
 * response (id, operation, status): the backend must refuse the bad ones
 * and keep serving.  A few cases are meant to break the ring (see
 * xh_cases[]).  One device at a time: the first one bound is the target.
 *
 * It also attacks through xenstore: with a key spec set, a device bound
 * afterwards sets up as usual but waits; "go" then writes its keys with
 * the spec applied on top and switches to Initialised:
 *
 *   echo "set ring-page-order=99;-ring-ref" > /sys/kernel/debug/xblkhostile/keys
 *   (xl block-attach in dom0)
 *   echo go > /sys/kernel/debug/xblkhostile/keys
 *   echo clear > /sys/kernel/debug/xblkhostile/keys   -> back to normal
 *
 * A spec is a ';'-separated list of KEY=VALUE (write; KEY may be a path
 * below the device, e.g. queue-1/ring-ref) and -KEY (remove).  In VALUE,
 * %r is the ring's grant, %e the event channel, %u a grant reference that
 * is allocated but never granted, %d and %D two granted data pages, %%
 * a '%'.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/wait.h>
#include <xen/xen.h>
#include <xen/xenbus.h>
#include <xen/events.h>
#include <xen/grant_table.h>
#include <xen/page.h>
#include <xen/interface/io/blkif.h>
#include <xen/interface/io/protocols.h>

#define XH_DATA_PAGES	16
#define XH_IND_PAGES	BLKIF_MAX_INDIRECT_PAGES_PER_REQUEST
#define XH_SEGS_PER_IND	(XEN_PAGE_SIZE / sizeof(struct blkif_request_segment))
#define XH_RSP_TIMEOUT	(5 * HZ)
/* blkif's largest ring: 16 pages. */
#define XH_MAX_RING_PAGES	16
#define XH_MAX_EXP	16
#define XH_RESULT_LEN	768
/* A grant reference far beyond any grant table. */
#define XH_BAD_GREF	0x0fffff00U
/* Unknown to blkif. */
#define XH_BAD_OP	99

/**
 * struct xh_dev - the one vbd we attack
 * @xdev: xenbus device
 * @ring: front ring (1 << @order pages)
 * @ring_ref: grants of its pages
 * @order: log2 of its pages (the ring_order parameter at probe)
 * @irq: event channel irq, 0 if none
 * @evtchn: event channel
 * @wq: woken by the event channel
 * @data: pages granted to the backend for data
 * @data_ref: their grants
 * @ind: pages granted to the backend for indirect descriptors
 * @ind_ref: their grants
 * @connected: the backend is Connected and so are we
 * @dead: a case broke the ring on purpose
 * @sectors: capacity in 512-byte sectors ("sectors")
 * @ssize: logical block size ("sector-size")
 * @info: VDISK_* ("info")
 * @max_indirect: "feature-max-indirect-segments", 0 if absent
 * @flush: "feature-flush-cache"
 * @discard: "feature-discard"
 * @next_id: next request id
 * @events: events received
 * @unused_ref: allocated, never granted (for key specs), 0 if none
 * @held: a key spec is set: waiting for "go" in Initialising
 * @keys_written: "write" published the keys already
 */
struct xh_dev {
	struct xenbus_device *xdev;
	struct blkif_front_ring ring;
	grant_ref_t ring_ref[XH_MAX_RING_PAGES];
	unsigned int order;
	unsigned int irq;
	evtchn_port_t evtchn;
	wait_queue_head_t wq;
	struct page *data[XH_DATA_PAGES];
	grant_ref_t data_ref[XH_DATA_PAGES];
	struct page *ind[XH_IND_PAGES];
	grant_ref_t ind_ref[XH_IND_PAGES];
	bool connected;
	bool dead;
	u64 sectors;
	unsigned int ssize;
	unsigned int info;
	unsigned int max_indirect;
	bool flush;
	bool discard;
	u64 next_id;
	unsigned long events;
	grant_ref_t unused_ref;
	bool held;
	bool keys_written;
};

/* One expected response. */
struct xh_exp {
	u64 id;
	u8 op;
	s16 status;
	bool seen;
};

/* Serialises cases, probe, state changes and remove. */
static DEFINE_MUTEX(xh_lock);
static struct xh_dev *xh_cur;
static char xh_result[XH_RESULT_LEN] = "none\n";
static struct dentry *xh_dir;

static bool xh_persistent;
module_param_named(persistent, xh_persistent, bool, 0644);
MODULE_PARM_DESC(persistent,
		 "Ask for persistent grants (feature-persistent) on devices bound afterwards");

static unsigned int xh_ring_order;
module_param_named(ring_order, xh_ring_order, uint, 0644);
MODULE_PARM_DESC(ring_order,
		 "log2 of the ring pages of devices bound afterwards, 0..4 (default 0); the backend must offer it");

/* The key spec (see the top of the file), "" for none; under xh_lock. */
#define XH_SPEC_MAX	4096
static char *xh_spec;

/* The case being run: its expectations and findings. */
static struct xh_exp xh_exp[XH_MAX_EXP];
static unsigned int xh_nexp;
static char xh_msg[XH_RESULT_LEN];
static size_t xh_msg_len;
static bool xh_failed;
/* Error responses (ERROR or EOPNOTSUPP) the case got, for dom0's counters. */
static unsigned int xh_refused;

static __printf(1, 2) void xh_note(const char *fmt, ...)
{
	va_list args;

	if (xh_msg_len && xh_msg_len < sizeof(xh_msg) - 2)
		xh_msg_len += scnprintf(xh_msg + xh_msg_len,
					sizeof(xh_msg) - xh_msg_len, "; ");
	va_start(args, fmt);
	xh_msg_len += vscnprintf(xh_msg + xh_msg_len,
				 sizeof(xh_msg) - xh_msg_len, fmt, args);
	va_end(args);
}

#define xh_fail(...) do { xh_failed = true; xh_note(__VA_ARGS__); } while (0)

static irqreturn_t xh_interrupt(int irq, void *dev_id)
{
	struct xh_dev *h = dev_id;

	h->events++;
	wake_up(&h->wq);
	return IRQ_HANDLED;
}

/* ------------------------------------------------------------------ */
/* Requests and responses.                                             */

/* The next free slot, zeroed and taken. */
static struct blkif_request *xh_slot(struct xh_dev *h)
{
	struct blkif_request *r;

	r = RING_GET_REQUEST(&h->ring, h->ring.req_prod_pvt);
	memset(r, 0, sizeof(*r));
	h->ring.req_prod_pvt++;
	return r;
}

static void xh_expect(u64 id, u8 op, s16 status)
{
	if (xh_nexp < XH_MAX_EXP)
		xh_exp[xh_nexp++] = (struct xh_exp){ .id = id, .op = op,
						     .status = status };
}

/*
 * A READ or WRITE of @nseg segments (the count written as is; at most 11
 * are filled), each a whole data page, from @sector.
 */
static struct blkif_request *xh_rw(struct xh_dev *h, u8 op, u64 sector,
				   unsigned int nseg, u64 *id)
{
	struct blkif_request *r = xh_slot(h);
	unsigned int i;

	*id = h->next_id++;
	r->operation = op;
	r->u.rw.nr_segments = nseg;
	r->u.rw.handle = 0;
	r->u.rw.id = *id;
	r->u.rw.sector_number = sector;
	for (i = 0; i < min_t(unsigned int, nseg,
			      BLKIF_MAX_SEGMENTS_PER_REQUEST); i++) {
		r->u.rw.seg[i].gref = h->data_ref[i % XH_DATA_PAGES];
		r->u.rw.seg[i].first_sect = 0;
		r->u.rw.seg[i].last_sect = 7;
	}
	return r;
}

/* A request that must be refused with @status. */
static struct blkif_request *xh_bad_rw(struct xh_dev *h, u8 op, u64 sector,
				       unsigned int nseg, s16 status)
{
	struct blkif_request *r;
	u64 id;

	r = xh_rw(h, op, sector, nseg, &id);
	xh_expect(id, op, status);
	return r;
}

/* An indirect request of @nseg segments described by @npages pages. */
static struct blkif_request *xh_ind(struct xh_dev *h, u8 inner, u64 sector,
				    unsigned int nseg, unsigned int npages,
				    s16 status)
{
	struct blkif_request *r = xh_slot(h);
	unsigned int i;
	u64 id = h->next_id++;

	r->operation = BLKIF_OP_INDIRECT;
	r->u.indirect.indirect_op = inner;
	r->u.indirect.nr_segments = nseg;
	r->u.indirect.id = id;
	r->u.indirect.sector_number = sector;
	r->u.indirect.handle = 0;
	for (i = 0; i < min_t(unsigned int, npages, XH_IND_PAGES); i++)
		r->u.indirect.indirect_grefs[i] = h->ind_ref[i];
	/* blkif: the response carries the inner operation. */
	xh_expect(id, inner, status);
	return r;
}

/* A good one-page READ at sector 0 (or @sector): must be answered OKAY. */
static void xh_good(struct xh_dev *h, u64 sector)
{
	u64 id;

	xh_rw(h, BLKIF_OP_READ, sector, 1, &id);
	xh_expect(id, BLKIF_OP_READ, BLKIF_RSP_OKAY);
}

static void xh_push(struct xh_dev *h)
{
	RING_PUSH_REQUESTS(&h->ring);
	/* Always notify: whatever req_event says. */
	notify_remote_via_irq(h->irq);
}

static bool xh_rsp_pending(struct xh_dev *h)
{
	return READ_ONCE(h->ring.sring->rsp_prod) != h->ring.rsp_cons;
}

/*
 * Copy up to @want responses out of the ring, waiting up to @timeout.
 * Return: how many were copied.
 */
static unsigned int xh_collect(struct xh_dev *h, struct blkif_response *out,
			       unsigned int want, unsigned long timeout)
{
	unsigned long end = jiffies + timeout;
	unsigned int n = 0;

	while (n < want) {
		RING_IDX rp, i;
		int more;

		rp = READ_ONCE(h->ring.sring->rsp_prod);
		virt_rmb(); /* responses up to rp */
		if (rp - h->ring.rsp_cons > RING_SIZE(&h->ring)) {
			xh_fail("backend rsp_prod %u runs ahead of rsp_cons %u",
				rp, h->ring.rsp_cons);
			h->dead = true;
			break;
		}
		for (i = h->ring.rsp_cons; i != rp && n < want; i++)
			memcpy(&out[n++], RING_GET_RESPONSE(&h->ring, i),
			       sizeof(*out));
		h->ring.rsp_cons = i;
		if (n >= want)
			break;
		RING_FINAL_CHECK_FOR_RESPONSES(&h->ring, more);
		if (more)
			continue;
		if (time_after_eq(jiffies, end))
			break;
		wait_event_timeout(h->wq, xh_rsp_pending(h), HZ / 10);
	}
	return n;
}

/* Match the responses of the case against what was expected. */
static void xh_check(struct xh_dev *h, unsigned long timeout)
{
	struct blkif_response rsp[XH_MAX_EXP];
	unsigned int n, i, j, refused = 0;

	n = xh_collect(h, rsp, xh_nexp, timeout);
	for (i = 0; i < n; i++) {
		/* Same id and status first: ids may repeat (dupid). */
		for (j = 0; j < xh_nexp; j++)
			if (!xh_exp[j].seen && xh_exp[j].id == rsp[i].id &&
			    xh_exp[j].status == rsp[i].status)
				break;
		if (j == xh_nexp)
			for (j = 0; j < xh_nexp; j++)
				if (!xh_exp[j].seen &&
				    xh_exp[j].id == rsp[i].id)
					break;
		if (j == xh_nexp) {
			xh_fail("response with unexpected id %llu (status %d)",
				rsp[i].id, rsp[i].status);
			continue;
		}
		xh_exp[j].seen = true;
		if (rsp[i].status != BLKIF_RSP_OKAY)
			refused++;
		xh_refused += rsp[i].status != BLKIF_RSP_OKAY;
		if (rsp[i].status != xh_exp[j].status)
			xh_fail("id %llu: status %d, want %d", rsp[i].id,
				rsp[i].status, xh_exp[j].status);
		if (rsp[i].operation != xh_exp[j].op)
			xh_fail("id %llu: operation %u, want %u", rsp[i].id,
				rsp[i].operation, xh_exp[j].op);
	}
	for (j = 0; j < xh_nexp; j++)
		if (!xh_exp[j].seen)
			xh_fail("no response for id %llu (want status %d)",
				xh_exp[j].id, xh_exp[j].status);
	/* One response per request: nothing may follow. */
	if (n == xh_nexp && xh_collect(h, rsp, 1, HZ / 5))
		xh_fail("extra response id %llu (status %d)", rsp[0].id,
			rsp[0].status);
	if (!xh_failed)
		xh_note("%u responses as expected (%u errors)", n, refused);
}

/* Push what the case queued and check the responses. */
static void xh_run_expect(struct xh_dev *h)
{
	xh_push(h);
	xh_check(h, XH_RSP_TIMEOUT);
}

/* ------------------------------------------------------------------ */
/* Cases.                                                              */

/* Segment counts: 0, above 11, above the advertised indirect maximum. */
static void xh_case_nsegs(struct xh_dev *h, unsigned long arg)
{
	xh_bad_rw(h, BLKIF_OP_READ, 0, 0, BLKIF_RSP_ERROR);
	xh_bad_rw(h, BLKIF_OP_WRITE, 0, 0, BLKIF_RSP_ERROR);
	xh_bad_rw(h, BLKIF_OP_READ, 0, BLKIF_MAX_SEGMENTS_PER_REQUEST + 1,
		  BLKIF_RSP_ERROR);
	xh_bad_rw(h, BLKIF_OP_WRITE, 0, 255, BLKIF_RSP_ERROR);
	if (h->max_indirect) {
		xh_ind(h, BLKIF_OP_READ, 0, 0, 1, BLKIF_RSP_ERROR);
		xh_ind(h, BLKIF_OP_READ, 0, h->max_indirect + 1,
		       DIV_ROUND_UP(h->max_indirect + 1, XH_SEGS_PER_IND),
		       BLKIF_RSP_ERROR);
	}
	xh_good(h, 0);
	xh_run_expect(h);
}

/* Indirect: a good one, bad inner ops, too many pages, bad inner segments. */
static void xh_case_indirect(struct xh_dev *h, unsigned long arg)
{
	struct blkif_request_segment *seg;
	struct blkif_request *r;

	if (!h->max_indirect) {
		xh_ind(h, BLKIF_OP_READ, 0, 16, 1, BLKIF_RSP_EOPNOTSUPP);
		xh_good(h, 0);
		xh_run_expect(h);
		xh_note("backend offers no indirect requests");
		return;
	}
	/* Control: 16 segments in one page are fine. */
	xh_ind(h, BLKIF_OP_READ, 0, min(16U, h->max_indirect), 1,
	       BLKIF_RSP_OKAY);
	xh_ind(h, BLKIF_OP_FLUSH_DISKCACHE, 0, 2, 1, BLKIF_RSP_ERROR);
	xh_ind(h, BLKIF_OP_INDIRECT, 0, 2, 1, BLKIF_RSP_ERROR);
	xh_ind(h, XH_BAD_OP, 0, 2, 1, BLKIF_RSP_ERROR);
	/* More segments than 8 pages can describe, and the u16 maximum. */
	xh_ind(h, BLKIF_OP_READ, 0, XH_IND_PAGES * XH_SEGS_PER_IND + 1,
	       XH_IND_PAGES, BLKIF_RSP_ERROR);
	xh_ind(h, BLKIF_OP_WRITE, 0, 0xffff, XH_IND_PAGES, BLKIF_RSP_ERROR);
	/* An indirect page that is not granted at all. */
	r = xh_ind(h, BLKIF_OP_READ, 0, 2, 1, BLKIF_RSP_ERROR);
	r->u.indirect.indirect_grefs[0] = XH_BAD_GREF;
	xh_good(h, 0);
	xh_run_expect(h);
	if (xh_failed)
		return;

	/* Bad segments inside the indirect page: first > last, last > 7. */
	xh_nexp = 0;
	seg = page_address(h->ind[1]);
	seg[1].first_sect = 6;
	seg[1].last_sect = 2;
	r = xh_ind(h, BLKIF_OP_READ, 0, 2, 1, BLKIF_RSP_ERROR);
	r->u.indirect.indirect_grefs[0] = h->ind_ref[1];
	seg = page_address(h->ind[2]);
	seg[0].last_sect = 8;
	r = xh_ind(h, BLKIF_OP_READ, 0, 3, 1, BLKIF_RSP_ERROR);
	r->u.indirect.indirect_grefs[0] = h->ind_ref[2];
	seg = page_address(h->ind[3]);
	seg[2].gref = XH_BAD_GREF;
	r = xh_ind(h, BLKIF_OP_READ, 0, 3, 1, BLKIF_RSP_ERROR);
	r->u.indirect.indirect_grefs[0] = h->ind_ref[3];
	xh_good(h, 0);
	xh_run_expect(h);
	/* Restore the descriptor pages. */
	seg = page_address(h->ind[1]);
	seg[1] = seg[0];
	seg = page_address(h->ind[2]);
	seg[0] = seg[1];
	seg = page_address(h->ind[3]);
	seg[2] = seg[1];
}

/* Segments: first_sect > last_sect, last_sect > 7. */
static void xh_case_segs(struct xh_dev *h, unsigned long arg)
{
	struct blkif_request *r;

	r = xh_bad_rw(h, BLKIF_OP_READ, 0, 1, BLKIF_RSP_ERROR);
	r->u.rw.seg[0].first_sect = 5;
	r->u.rw.seg[0].last_sect = 2;
	r = xh_bad_rw(h, BLKIF_OP_WRITE, 0, 2, BLKIF_RSP_ERROR);
	r->u.rw.seg[1].last_sect = 8;
	r = xh_bad_rw(h, BLKIF_OP_READ, 0, 1, BLKIF_RSP_ERROR);
	r->u.rw.seg[0].first_sect = 255;
	r->u.rw.seg[0].last_sect = 255;
	xh_good(h, 0);
	xh_run_expect(h);
}

/* Sectors beyond the device, and ranges that wrap around 2^64. */
static void xh_case_range(struct xh_dev *h, unsigned long arg)
{
	xh_bad_rw(h, BLKIF_OP_READ, h->sectors, 1, BLKIF_RSP_ERROR);
	xh_bad_rw(h, BLKIF_OP_WRITE, h->sectors - 4, 1, BLKIF_RSP_ERROR);
	xh_bad_rw(h, BLKIF_OP_READ, h->sectors + 8, 1, BLKIF_RSP_ERROR);
	xh_bad_rw(h, BLKIF_OP_READ, U64_MAX - 3, 1, BLKIF_RSP_ERROR);
	xh_bad_rw(h, BLKIF_OP_WRITE, U64_MAX - 7, 2, BLKIF_RSP_ERROR);
	xh_bad_rw(h, BLKIF_OP_READ, 1ULL << 63, 11, BLKIF_RSP_ERROR);
	if (h->discard) {
		struct blkif_request *r = xh_slot(h);
		u64 id = h->next_id++;

		r->operation = BLKIF_OP_DISCARD;
		r->u.discard.id = id;
		r->u.discard.sector_number = 8;
		r->u.discard.nr_sectors = U64_MAX - 7;
		xh_expect(id, BLKIF_OP_DISCARD, BLKIF_RSP_ERROR);
	}
	/* The last page of the device is fine. */
	xh_good(h, h->sectors - 8);
	xh_run_expect(h);
}

/*
 * An indirect request of @nseg whole-page segments at @sector whose
 * segments @split and @split + 1 each hold half a 4 KiB block instead.
 * @split >= @nseg: all whole pages.
 */
static void xh_ind_split(struct xh_dev *h, u8 inner, u64 sector,
			 unsigned int nseg, unsigned int split, s16 status)
{
	struct blkif_request_segment *seg;
	unsigned int i;

	xh_nexp = 0;
	for (i = 0; i < XH_IND_PAGES * XH_SEGS_PER_IND; i++) {
		seg = (struct blkif_request_segment *)
		      page_address(h->ind[i / XH_SEGS_PER_IND]) +
		      i % XH_SEGS_PER_IND;
		seg->first_sect = i == split + 1 ? 4 : 0;
		seg->last_sect = i == split ? 3 : 7;
	}
	xh_ind(h, inner, sector, nseg, DIV_ROUND_UP(nseg, XH_SEGS_PER_IND),
	       status);
	xh_run_expect(h);
	for (i = 0; i < XH_IND_PAGES * XH_SEGS_PER_IND; i++) {
		seg = (struct blkif_request_segment *)
		      page_address(h->ind[i / XH_SEGS_PER_IND]) +
		      i % XH_SEGS_PER_IND;
		seg->first_sect = 0;
		seg->last_sect = 7;
	}
}

/*
 * Unaligned I/O on a 4 KiB-logical-block device (with a virtual boundary
 * in the lab, as NVMe has).  Every segment must be whole logical blocks:
 * two 2 KiB segments make an aligned 4 KiB request whose bio_vecs leave a
 * gap inside the block, which the block layer cannot split (on 6.1 the
 * split rounds down to 0 bytes: a BUG in xblkback's ring thread before the
 * per-segment check).
 */
static void xh_case_unaligned(struct xh_dev *h, unsigned long arg)
{
	struct blkif_request *r;
	u64 id;

	if (h->ssize <= 512) {
		xh_note("SKIP: sector-size is %u", h->ssize);
		return;
	}
	xh_bad_rw(h, BLKIF_OP_READ, 1, 1, BLKIF_RSP_ERROR);
	xh_bad_rw(h, BLKIF_OP_WRITE, 4, 1, BLKIF_RSP_ERROR);
	r = xh_bad_rw(h, BLKIF_OP_READ, 0, 1, BLKIF_RSP_ERROR);
	r->u.rw.seg[0].last_sect = 3;
	/* Two 2 KiB segments at sector 0, in two pages. */
	r = xh_bad_rw(h, BLKIF_OP_READ, 0, 2, BLKIF_RSP_ERROR);
	r->u.rw.seg[0].last_sect = 3;
	r->u.rw.seg[1].first_sect = 4;
	r = xh_bad_rw(h, BLKIF_OP_WRITE, 0, 2, BLKIF_RSP_ERROR);
	r->u.rw.seg[0].first_sect = 4;
	r->u.rw.seg[1].last_sect = 3;
	/* One block split across two pages, after a whole one. */
	r = xh_bad_rw(h, BLKIF_OP_READ, 8, 3, BLKIF_RSP_ERROR);
	r->u.rw.seg[0].first_sect = 4;
	r->u.rw.seg[2].last_sect = 3;
	/* Whole blocks in three pages: served. */
	r = xh_rw(h, BLKIF_OP_READ, 8, 3, &id);
	xh_expect(id, BLKIF_OP_READ, BLKIF_RSP_OKAY);
	xh_good(h, 8);
	xh_run_expect(h);
	if (xh_failed || h->max_indirect <= 256)
		return;
	/*
	 * More segments than one bio holds (256): a block split at the
	 * segments where the bio is cut, and right after it.  Then the
	 * same request with whole pages, which is served.
	 */
	xh_ind_split(h, BLKIF_OP_READ, 0, 300, 255, BLKIF_RSP_ERROR);
	xh_ind_split(h, BLKIF_OP_WRITE, 0, 300, 256, BLKIF_RSP_ERROR);
	xh_ind_split(h, BLKIF_OP_READ, 0, 300, 300, BLKIF_RSP_OKAY);
	xh_note("300-segment indirect requests: split blocks refused, whole pages served");
}

/* Writes of every kind to a read-only disk. */
static void xh_case_readonly(struct xh_dev *h, unsigned long arg)
{
	struct blkif_request *r;
	u64 id;

	if (!(h->info & VDISK_READONLY)) {
		xh_fail("the disk is not read-only (info %u)", h->info);
		return;
	}
	xh_bad_rw(h, BLKIF_OP_WRITE, 0, 1, BLKIF_RSP_ERROR);
	if (h->max_indirect)
		xh_ind(h, BLKIF_OP_WRITE, 0, 2, 1, BLKIF_RSP_ERROR);
	xh_bad_rw(h, BLKIF_OP_FLUSH_DISKCACHE, 0, 1,
		  h->flush ? BLKIF_RSP_ERROR : BLKIF_RSP_EOPNOTSUPP);
	r = xh_slot(h);
	id = h->next_id++;
	r->operation = BLKIF_OP_DISCARD;
	r->u.discard.id = id;
	r->u.discard.sector_number = 0;
	r->u.discard.nr_sectors = 8;
	xh_expect(id, BLKIF_OP_DISCARD,
		  h->discard ? BLKIF_RSP_ERROR : BLKIF_RSP_EOPNOTSUPP);
	xh_good(h, 0);
	xh_run_expect(h);
}

/* Grant references that are invalid, not granted, or granted to another domain. */
static void xh_case_grefs(struct xh_dev *h, unsigned long arg)
{
	domid_t other = h->xdev->otherend_id + 1;
	struct blkif_request *r;
	grant_ref_t head, free_ref, foreign;
	struct page *page;
	int ref;

	page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	if (!page) {
		xh_fail("out of memory");
		return;
	}
	ref = gnttab_grant_foreign_access(other, xen_page_to_gfn(page), 0);
	if (ref < 0) {
		__free_page(page);
		xh_fail("cannot grant a page to domain %u (%d)", other, ref);
		return;
	}
	foreign = ref;
	if (gnttab_alloc_grant_references(1, &head)) {
		gnttab_end_foreign_access(foreign, page);
		xh_fail("no free grant reference");
		return;
	}
	free_ref = gnttab_claim_grant_reference(&head);

	r = xh_bad_rw(h, BLKIF_OP_READ, 0, 1, BLKIF_RSP_ERROR);
	r->u.rw.seg[0].gref = XH_BAD_GREF;
	r = xh_bad_rw(h, BLKIF_OP_WRITE, 0, 1, BLKIF_RSP_ERROR);
	r->u.rw.seg[0].gref = free_ref;
	r = xh_bad_rw(h, BLKIF_OP_READ, 0, 1, BLKIF_RSP_ERROR);
	r->u.rw.seg[0].gref = foreign;
	r = xh_bad_rw(h, BLKIF_OP_WRITE, 0, 1, BLKIF_RSP_ERROR);
	r->u.rw.seg[0].gref = foreign;
	/* The first segment is fine, the third is not: all or nothing. */
	r = xh_bad_rw(h, BLKIF_OP_READ, 0, 3, BLKIF_RSP_ERROR);
	r->u.rw.seg[2].gref = foreign;
	xh_good(h, 0);
	xh_run_expect(h);
	xh_note("foreign grant %u for domain %u, ungranted %u", foreign,
		other, free_ref);

	gnttab_free_grant_reference(free_ref);
	gnttab_end_foreign_access(foreign, page);
}

/* Operations blkif does not know or the backend did not offer. */
static void xh_case_badop(struct xh_dev *h, unsigned long arg)
{
	xh_bad_rw(h, XH_BAD_OP, 0, 1, BLKIF_RSP_EOPNOTSUPP);
	xh_bad_rw(h, 255, 0, 0, BLKIF_RSP_EOPNOTSUPP);
	xh_bad_rw(h, BLKIF_OP_WRITE_BARRIER, 0, 1, BLKIF_RSP_EOPNOTSUPP);
	if (!h->discard) {
		struct blkif_request *r = xh_slot(h);
		u64 id = h->next_id++;

		r->operation = BLKIF_OP_DISCARD;
		r->u.discard.id = id;
		r->u.discard.nr_sectors = 8;
		xh_expect(id, BLKIF_OP_DISCARD, BLKIF_RSP_EOPNOTSUPP);
	}
	xh_good(h, 0);
	xh_run_expect(h);
}

/* The same id twice in flight: both must be answered. */
static void xh_case_dupid(struct xh_dev *h, unsigned long arg)
{
	struct blkif_request *r;
	u64 id;

	xh_rw(h, BLKIF_OP_READ, 0, 1, &id);
	xh_expect(id, BLKIF_OP_READ, BLKIF_RSP_OKAY);
	r = xh_slot(h);
	r->operation = BLKIF_OP_READ;
	r->u.rw.nr_segments = 1;
	r->u.rw.id = id;
	r->u.rw.sector_number = 8;
	r->u.rw.seg[0].gref = h->data_ref[1];
	r->u.rw.seg[0].last_sect = 7;
	xh_expect(id, BLKIF_OP_READ, BLKIF_RSP_OKAY);
	/* And a bad one with that id too. */
	r = xh_slot(h);
	r->operation = BLKIF_OP_READ;
	r->u.rw.id = id;
	xh_expect(id, BLKIF_OP_READ, BLKIF_RSP_ERROR);
	xh_good(h, 0);
	xh_run_expect(h);
}

/*
 * Double fetch: push a good request, then keep rewriting it (alternately
 * good and bad) until the backend answers.  A backend that reads the slot
 * more than once may validate one version and act on another.  Whatever it
 * saw must have been answered as one consistent request: OKAY only for a
 * READ it could serve, EOPNOTSUPP for the unknown operation, ERROR for the
 * other bad versions; the error count is reported for dom0 to compare with
 * its counters (a double fetch that got past validation shows up as
 * io_err, or worse).
 *
 * The response is written into the same slot as the request (one request
 * in flight: same index), over its bytes 0..11, possibly before we see
 * rsp_prod move.  So only what the response cannot overlap is rewritten
 * freely (the high half of the id, the sector, the segments); operation
 * and nr_segments (bytes 0 and 1) only overlap the low bytes of the
 * response's id, which are therefore not checked.
 */
static void xh_case_dfetch(struct xh_dev *h, unsigned long arg)
{
	unsigned int iters = arg ? arg : 200, it, ok = 0, bad = 0, hi_b = 0;
	const u32 evil_hi = 0x5a5a;
	unsigned long flips = 0;

	for (it = 0; it < iters && !xh_failed; it++) {
		unsigned int mode = it % 5, k;
		struct blkif_response rsp;
		struct blkif_request *r;
		unsigned long end;
		u32 *id_hi;
		bool okay;
		u64 id;

		r = xh_rw(h, BLKIF_OP_READ, 0, 1, &id);
		id_hi = (u32 *)((u8 *)r + offsetof(struct blkif_request,
						   u.rw.id) + 4);
		xh_push(h);
		end = jiffies + XH_RSP_TIMEOUT;
		for (k = 0; !xh_rsp_pending(h) && time_before(jiffies, end);
		     k++) {
			bool evil = k & 1;

			switch (mode) {
			case 0:
				r->u.rw.nr_segments = evil ? 200 : 1;
				break;
			case 1:
				r->u.rw.sector_number = evil ? 1ULL << 62 : 0;
				break;
			case 2:
				r->u.rw.seg[0].last_sect = evil ? 12 : 7;
				break;
			case 3:
				r->operation = evil ? XH_BAD_OP : BLKIF_OP_READ;
				break;
			default:
				r->u.rw.seg[0].first_sect = evil ? 9 : 0;
				r->u.rw.nr_segments = evil ? 0 : 1;
				break;
			}
			WRITE_ONCE(*id_hi, evil ? evil_hi : 0);
			barrier();
			flips++;
			if (!(k & 1023))
				cond_resched();
		}
		if (xh_collect(h, &rsp, 1, XH_RSP_TIMEOUT) != 1) {
			xh_fail("iteration %u: no response", it);
			break;
		}
		if ((rsp.id >> 32) == evil_hi)
			hi_b++;
		else if (rsp.id >> 32)
			xh_fail("iteration %u: response id %#llx, sent %#llx",
				it, rsp.id, id);
		if ((rsp.id & 0xffff0000U) != (id & 0xffff0000U))
			xh_fail("iteration %u: response id %#llx, sent %#llx",
				it, rsp.id, id);
		okay = rsp.status == BLKIF_RSP_OKAY;
		if (mode == 3 && rsp.operation == XH_BAD_OP) {
			if (rsp.status != BLKIF_RSP_EOPNOTSUPP)
				xh_fail("iteration %u: unknown op answered %d",
					it, rsp.status);
		} else if (rsp.operation != BLKIF_OP_READ) {
			xh_fail("iteration %u: response operation %u", it,
				rsp.operation);
		} else if (!okay && (mode == 3 ||
				     rsp.status != BLKIF_RSP_ERROR)) {
			xh_fail("iteration %u (mode %u): READ answered %d", it,
				mode, rsp.status);
		}
		if (okay)
			ok++;
		else
			bad++;
	}
	xh_refused += bad;
	xh_note("iterations=%u ok=%u errors=%u evil_id_seen=%u flips=%lu", it,
		ok, bad, hi_b, flips);
	if (xh_failed)
		return;
	xh_nexp = 0;
	xh_good(h, 0);
	xh_run_expect(h);
}

/*
 * Event-channel storm: notify for @arg seconds (default 10) in a tight
 * loop, then check that the ring still serves.
 */
static void xh_case_storm(struct xh_dev *h, unsigned long arg)
{
	unsigned long end = jiffies + (arg ? arg : 10) * HZ, n = 0;

	while (time_before(jiffies, end)) {
		notify_remote_via_irq(h->irq);
		if (!(++n & 255))
			cond_resched();
	}
	xh_good(h, 0);
	xh_run_expect(h);
	xh_note("notifications=%lu", n);
}

/*
 * Storm on a full ring: indirect reads of 16 segments each that use up a
 * backend's page budget of @pages (its max_inflight_pages, the lab's 64),
 * and one read more that has to wait for them, then notifications in a
 * loop for @arg (default 4) seconds while the backend cannot take that
 * read.  On a slow device the budget stays used up for the whole storm.
 * Every request must still be answered (the device decides how long).
 */
static void xh_case_stormfull(struct xh_dev *h, unsigned long arg)
{
	unsigned long end = jiffies + (arg ? arg : 4) * HZ, n = 0;
	unsigned int i, pages = 64;

	if (!h->max_indirect) {
		xh_fail("backend offers no indirect requests");
		return;
	}
	/* Apart on the disk: each its own request at the device. */
	for (i = 0; i < pages / 16; i++)
		xh_ind(h, BLKIF_OP_READ, i * 256, 16, 1, BLKIF_RSP_OKAY);
	xh_good(h, 0);
	xh_push(h);
	while (time_before(jiffies, end)) {
		notify_remote_via_irq(h->irq);
		if (!(++n & 255))
			cond_resched();
	}
	xh_check(h, 120 * HZ);
	xh_note("notifications=%lu", n);
}

/*
 * One indirect READ of @arg segments (default: the backend's maximum), all
 * eight descriptor pages if need be: must be served.  dom0 runs it with its
 * memory fragmented, where the backend's segment array for it (160 KiB for
 * 4096 segments) cannot be physically contiguous.
 */
static void xh_case_bigind(struct xh_dev *h, unsigned long arg)
{
	unsigned int nseg = min_t(unsigned long, arg ? arg : h->max_indirect,
				  h->max_indirect);

	if (nseg <= BLKIF_MAX_SEGMENTS_PER_REQUEST) {
		xh_fail("backend offers %u indirect segments", h->max_indirect);
		return;
	}
	xh_ind(h, BLKIF_OP_READ, 0, nseg, DIV_ROUND_UP(nseg, XH_SEGS_PER_IND),
	       BLKIF_RSP_OKAY);
	xh_good(h, 0);
	xh_push(h);
	xh_check(h, 20 * HZ);
	xh_note("segments=%u", nseg);
}

/*
 * Discard flood: @arg (default: a full ring) discards of the whole device,
 * pushed at once.  On a slow device the backend must keep them off dom0's
 * shared workqueues and bound how many are in flight; dom0 measures both.
 * Every one must be answered OKAY (the device decides how fast).
 */
static void xh_case_discards(struct xh_dev *h, unsigned long arg)
{
	unsigned int i, total = min_t(unsigned long, arg ? arg : UINT_MAX,
				      RING_SIZE(&h->ring) - 1);
	unsigned int ok = 0, got = 0, n;
	struct blkif_response rsp[XH_MAX_EXP];
	unsigned long end = jiffies + 300 * HZ;

	if (!h->discard) {
		xh_fail("backend offers no discard");
		return;
	}
	for (i = 0; i < total; i++) {
		struct blkif_request *r = xh_slot(h);

		r->operation = BLKIF_OP_DISCARD;
		r->u.discard.id = h->next_id++;
		r->u.discard.sector_number = 0;
		r->u.discard.nr_sectors = h->sectors;
	}
	xh_push(h);
	while (got < total && time_before(jiffies, end)) {
		n = xh_collect(h, rsp, min_t(unsigned int, total - got,
					     XH_MAX_EXP), HZ);
		for (i = 0; i < n; i++)
			ok += rsp[i].status == BLKIF_RSP_OKAY &&
			      rsp[i].operation == BLKIF_OP_DISCARD;
		got += n;
	}
	xh_refused += got - ok;
	if (got != total || ok != total)
		xh_fail("%u discards: %u answered, %u OKAY", total, got, ok);
	else
		xh_note("discards=%u all answered OKAY", total);
}

/*
 * Close with requests in flight: @arg (default 16) reads, pushed, then
 * Closing at once.  On a slow device the backend's disconnect has to wait
 * for them; dom0 checks that meanwhile it still handles other devices'
 * xenbus events.  The device is dead for further cases.
 */
static void xh_case_slowclose(struct xh_dev *h, unsigned long arg)
{
	unsigned int i, n = clamp_t(unsigned long, arg ? arg : 16, 1,
				    RING_SIZE(&h->ring) - 1);
	u64 id;

	/* Apart on the disk: each its own request at the device. */
	for (i = 0; i < n; i++)
		xh_rw(h, BLKIF_OP_READ, (u64)i * 64, 1, &id);
	xh_push(h);
	xenbus_switch_state(h->xdev, XenbusStateClosing);
	h->dead = true;
	xh_note("%u reads pushed, then Closing", n);
}

/*
 * Producer index far ahead of the consumer: the backend must stop the ring
 * (and say so); a good request pushed afterwards gets no answer.
 */
static void xh_case_prod(struct xh_dev *h, unsigned long arg)
{
	struct blkif_response rsp;
	RING_IDX far = h->ring.req_prod_pvt + (arg ? arg : 1000);

	virt_wmb(); /* nothing new in the slots, but as a real push would */
	WRITE_ONCE(h->ring.sring->req_prod, far);
	notify_remote_via_irq(h->irq);
	if (xh_collect(h, &rsp, 1, 2 * HZ))
		xh_fail("a response (id %llu, status %d) to nothing", rsp.id,
			rsp.status);
	/* Back to the truth, and a good request: the ring must stay stopped. */
	WRITE_ONCE(h->ring.sring->req_prod, h->ring.req_prod_pvt);
	xh_good(h, 0);
	xh_push(h);
	if (xh_collect(h, &rsp, 1, 3 * HZ))
		xh_fail("the backend still serves the ring (id %llu status %d)",
			rsp.id, rsp.status);
	else
		xh_note("req_prod set to %u: ring stopped, a good request then got no response",
			far);
	h->dead = true;
}

/*
 * Log flood: @arg (default 2000) refused requests as fast as the backend
 * answers them; dom0 counts what it logged.
 */
static void xh_case_flood(struct xh_dev *h, unsigned long arg)
{
	unsigned int total = arg ? arg : 2000, sent = 0, got = 0, n, i;
	struct blkif_response rsp[XH_MAX_EXP];

	while (sent < total && !xh_failed) {
		n = min_t(unsigned int, total - sent, XH_MAX_EXP);
		xh_nexp = 0;
		for (i = 0; i < n; i++)
			xh_bad_rw(h, BLKIF_OP_READ, 0, 0, BLKIF_RSP_ERROR);
		xh_push(h);
		sent += n;
		i = xh_collect(h, rsp, n, XH_RSP_TIMEOUT);
		got += i;
		if (i != n)
			xh_fail("%u of %u responses", i, n);
		while (i--)
			if (rsp[i].status != BLKIF_RSP_ERROR)
				xh_fail("id %llu: status %d", rsp[i].id,
					rsp[i].status);
		cond_resched();
	}
	xh_refused += got;
	xh_note("sent=%u answered=%u", sent, got);
	if (xh_failed)
		return;
	xh_nexp = 0;
	xh_good(h, 0);
	xh_run_expect(h);
}

/* A good read only: the ring serves. */
static void xh_case_good(struct xh_dev *h, unsigned long arg)
{
	xh_good(h, 0);
	xh_good(h, h->sectors - 8);
	xh_run_expect(h);
}

struct xh_case {
	const char *name;
	void (*fn)(struct xh_dev *h, unsigned long arg);
};

static const struct xh_case xh_cases[] = {
	{ "good", xh_case_good },
	{ "nsegs", xh_case_nsegs },
	{ "indirect", xh_case_indirect },
	{ "segs", xh_case_segs },
	{ "range", xh_case_range },
	{ "unaligned", xh_case_unaligned },
	{ "readonly", xh_case_readonly },
	{ "grefs", xh_case_grefs },
	{ "badop", xh_case_badop },
	{ "dupid", xh_case_dupid },
	{ "dfetch", xh_case_dfetch },
	{ "storm", xh_case_storm },
	{ "stormfull", xh_case_stormfull },
	{ "flood", xh_case_flood },
	{ "discards", xh_case_discards },
	{ "bigind", xh_case_bigind },
	/* Break the ring or the device: last on a device. */
	{ "prod", xh_case_prod },
	{ "slowclose", xh_case_slowclose },
};

static void xh_run(const char *name, unsigned long arg)
{
	struct xh_dev *h = xh_cur;
	const struct xh_case *c = NULL;
	struct blkif_response rsp;
	unsigned int i;

	xh_nexp = 0;
	xh_msg[0] = '\0';
	xh_msg_len = 0;
	xh_failed = false;
	xh_refused = 0;
	for (i = 0; i < ARRAY_SIZE(xh_cases); i++)
		if (!strcmp(xh_cases[i].name, name))
			c = &xh_cases[i];
	if (!c) {
		xh_fail("unknown case");
	} else if (!h || !h->connected) {
		xh_fail("no connected device");
	} else if (h->dead) {
		xh_fail("the ring was stopped by an earlier case");
	} else {
		/* Leftovers of an earlier case would confuse this one. */
		while (xh_collect(h, &rsp, 1, 0))
			xh_fail("stray response id %llu (status %d) before the case",
				rsp.id, rsp.status);
		if (!xh_failed && h->ring.req_prod_pvt != h->ring.rsp_cons)
			xh_fail("%u requests of an earlier case unanswered",
				h->ring.req_prod_pvt - h->ring.rsp_cons);
		if (!xh_failed)
			c->fn(h, arg);
	}
	scnprintf(xh_result, sizeof(xh_result), "%s %s: refused=%u; %s\n",
		  xh_failed ? "FAIL" :
		  !strncmp(xh_msg, "SKIP", 4) ? "SKIP" : "PASS", name,
		  xh_refused, xh_msg);
	pr_info("%s", xh_result);
}

/* ------------------------------------------------------------------ */
/* debugfs.                                                            */

static ssize_t xh_run_write(struct file *file, const char __user *ubuf,
			    size_t len, loff_t *ppos)
{
	char buf[64], *arg, *name;
	unsigned long v = 0;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	name = strim(buf);
	arg = strchr(name, ' ');
	if (arg) {
		*arg++ = '\0';
		if (kstrtoul(strim(arg), 0, &v))
			return -EINVAL;
	}
	mutex_lock(&xh_lock);
	xh_run(name, v);
	mutex_unlock(&xh_lock);
	return len;
}

static ssize_t xh_run_read(struct file *file, char __user *ubuf, size_t len,
			   loff_t *ppos)
{
	char buf[XH_RESULT_LEN];
	size_t n;

	mutex_lock(&xh_lock);
	n = strscpy(buf, xh_result, sizeof(buf));
	mutex_unlock(&xh_lock);
	return simple_read_from_buffer(ubuf, len, ppos, buf, n);
}

static const struct file_operations xh_run_fops = {
	.owner = THIS_MODULE,
	.write = xh_run_write,
	.read = xh_run_read,
	.llseek = default_llseek,
};

/* Forward: "write" and "go" publish a held device's keys. */
static int xh_publish(struct xh_dev *h, const char *spec, bool initialised);

/*
 * "set SPEC", "clear", "write" (publish a held device's keys, stay held:
 * userspace may then change a key as no spec can, e.g. with a NUL inside
 * through xenstore-write's \x00) or "go" (publish them unless "write" did,
 * and switch to Initialised); see the top of the file.
 */
static ssize_t xh_keys_write(struct file *file, const char __user *ubuf,
			     size_t len, loff_t *ppos)
{
	char *buf, *spec = NULL;
	struct xh_dev *h;
	int err = 0;

	if (len >= XH_SPEC_MAX)
		return -EINVAL;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	/* One trailing newline is echo's, not the spec's. */
	if (len && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	mutex_lock(&xh_lock);
	if (!strncmp(buf, "set ", 4)) {
		spec = kstrdup(buf + 4, GFP_KERNEL);
		if (!spec) {
			err = -ENOMEM;
		} else {
			kfree(xh_spec);
			xh_spec = spec;
		}
	} else if (!strcmp(buf, "clear")) {
		kfree(xh_spec);
		xh_spec = NULL;
	} else if (!strcmp(buf, "go") || !strcmp(buf, "write")) {
		bool go = buf[0] == 'g';

		h = xh_cur;
		if (!h || !h->held) {
			err = -ENODEV;
		} else if (h->keys_written) {
			err = go ? xenbus_switch_state(h->xdev,
						       XenbusStateInitialised) :
				   -EBUSY;
			h->held = !go;
		} else {
			h->held = !go;
			h->keys_written = true;
			err = xh_publish(h, xh_spec, go);
			pr_info("%s: keys published with spec \"%*pE\": %d\n",
				h->xdev->nodename,
				xh_spec ? (int)strnlen(xh_spec, 200) : 0,
				xh_spec, err);
		}
	} else {
		err = -EINVAL;
	}
	mutex_unlock(&xh_lock);
	kfree(buf);
	return err ? err : len;
}

static int xh_keys_show(struct seq_file *m, void *v)
{
	mutex_lock(&xh_lock);
	seq_printf(m, "spec=%s held=%d\n", xh_spec ? xh_spec : "",
		   xh_cur ? xh_cur->held : 0);
	mutex_unlock(&xh_lock);
	return 0;
}

static int xh_keys_open(struct inode *inode, struct file *file)
{
	return single_open(file, xh_keys_show, NULL);
}

static const struct file_operations xh_keys_fops = {
	.owner = THIS_MODULE,
	.open = xh_keys_open,
	.read = seq_read,
	.write = xh_keys_write,
	.llseek = seq_lseek,
	.release = single_release,
};

static int xh_status_show(struct seq_file *m, void *v)
{
	struct xh_dev *h;

	mutex_lock(&xh_lock);
	h = xh_cur;
	if (!h)
		seq_puts(m, "device=none\n");
	else
		seq_printf(m, "device=%s backend_id=%u connected=%d held=%d state=%s dead=%d sectors=%llu sector_size=%u info=%u max_indirect=%u flush=%d discard=%d events=%lu\n",
			   h->xdev->nodename, h->xdev->otherend_id,
			   h->connected, h->held,
			   xenbus_strstate(h->xdev->state), h->dead,
			   h->sectors, h->ssize,
			   h->info, h->max_indirect, h->flush, h->discard,
			   h->events);
	mutex_unlock(&xh_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(xh_status);

/* ------------------------------------------------------------------ */
/* xenbus.                                                             */

static void xh_free(struct xh_dev *h)
{
	unsigned int i;

	if (h->irq)
		unbind_from_irqhandler(h->irq, h);
	h->irq = 0;
	if (h->unused_ref)
		gnttab_free_grant_reference(h->unused_ref);
	/* The backend may still map them: the grant code frees them later. */
	for (i = 0; i < XH_DATA_PAGES; i++)
		if (h->data[i])
			gnttab_end_foreign_access(h->data_ref[i], h->data[i]);
	for (i = 0; i < XH_IND_PAGES; i++)
		if (h->ind[i])
			gnttab_end_foreign_access(h->ind_ref[i], h->ind[i]);
	if (h->ring.sring)
		xenbus_teardown_ring((void **)&h->ring.sring, 1U << h->order,
				     h->ring_ref);
	kfree(h);
}

/* Allocate and grant one page; NULL on failure. */
static struct page *xh_grant_page(struct xh_dev *h, grant_ref_t *ref)
{
	struct page *page = alloc_page(GFP_KERNEL | __GFP_ZERO);
	int r;

	if (!page)
		return NULL;
	r = gnttab_grant_foreign_access(h->xdev->otherend_id,
					xen_page_to_gfn(page), 0);
	if (r < 0) {
		__free_page(page);
		return NULL;
	}
	*ref = r;
	return page;
}

static int xh_setup(struct xh_dev *h)
{
	struct xenbus_device *dev = h->xdev;
	struct blkif_request_segment *seg;
	struct blkif_sring *sring;
	grant_ref_t head;
	unsigned int i, j;
	int err;

	h->order = min(READ_ONCE(xh_ring_order), 4U);
	err = xenbus_setup_ring(dev, GFP_KERNEL, (void **)&sring,
				1U << h->order, h->ring_ref);
	if (err)
		return err;
	SHARED_RING_INIT(sring);
	FRONT_RING_INIT(&h->ring, sring, XEN_PAGE_SIZE << h->order);

	for (i = 0; i < XH_DATA_PAGES; i++) {
		h->data[i] = xh_grant_page(h, &h->data_ref[i]);
		if (!h->data[i])
			return -ENOMEM;
	}
	for (i = 0; i < XH_IND_PAGES; i++) {
		h->ind[i] = xh_grant_page(h, &h->ind_ref[i]);
		if (!h->ind[i])
			return -ENOMEM;
		seg = page_address(h->ind[i]);
		for (j = 0; j < XH_SEGS_PER_IND; j++) {
			seg[j].gref = h->data_ref[j % XH_DATA_PAGES];
			seg[j].first_sect = 0;
			seg[j].last_sect = 7;
		}
	}

	err = xenbus_alloc_evtchn(dev, &h->evtchn);
	if (err)
		return err;
	err = bind_evtchn_to_irqhandler(h->evtchn, xh_interrupt, 0,
					"xblkhostile", h);
	if (err < 0) {
		xenbus_free_evtchn(dev, h->evtchn);
		return err;
	}
	h->irq = err;

	/* The grant a key spec's %u names: allocated, never granted. */
	if (!gnttab_alloc_grant_references(1, &head))
		h->unused_ref = gnttab_claim_grant_reference(&head);
	return 0;
}

/* Expand @tmpl's %-tokens into @out (XH_SPEC_MAX bytes). */
static void xh_expand(struct xh_dev *h, const char *tmpl, char *out)
{
	size_t n = 0;

	for (; *tmpl && n < XH_SPEC_MAX - 12; tmpl++) {
		unsigned int v;

		if (*tmpl != '%' || !tmpl[1]) {
			out[n++] = *tmpl;
			continue;
		}
		switch (*++tmpl) {
		case 'r':
			v = h->ring_ref[0];
			break;
		case 'e':
			v = h->evtchn;
			break;
		case 'u':
			v = h->unused_ref;
			break;
		case 'd':
			v = h->data_ref[0];
			break;
		case 'D':
			v = h->data_ref[1];
			break;
		default:
			out[n++] = *tmpl;
			continue;
		}
		n += scnprintf(out + n, XH_SPEC_MAX - n, "%u", v);
	}
	out[n] = '\0';
}

/* Apply the key spec in @xbt, over the keys already written. */
static int xh_apply_spec(struct xh_dev *h, struct xenbus_transaction xbt,
			 const char *spec)
{
	const char *node = h->xdev->nodename;
	char *copy, *p, *item, *val, *buf;
	int err = 0;

	copy = kstrdup(spec, GFP_KERNEL);
	buf = kmalloc(XH_SPEC_MAX, GFP_KERNEL);
	if (!copy || !buf) {
		err = -ENOMEM;
		goto out;
	}
	p = copy;
	while (!err && (item = strsep(&p, ";"))) {
		if (!*item)
			continue;
		if (*item == '-') {
			err = xenbus_rm(xbt, node, item + 1);
			if (err == -ENOENT)
				err = 0;
			continue;
		}
		val = strchr(item, '=');
		if (!val) {
			err = -EINVAL;
			break;
		}
		*val++ = '\0';
		xh_expand(h, val, buf);
		err = xenbus_write(xbt, node, item, buf);
	}
out:
	kfree(buf);
	kfree(copy);
	return err;
}

/* ring-ref, or ring-page-order and ring-ref0..N-1 for a multi-page ring. */
static int xh_write_ring_refs(struct xh_dev *h, struct xenbus_transaction xbt)
{
	const char *node = h->xdev->nodename;
	unsigned int i;
	char key[16];
	int err;

	if (!h->order)
		return xenbus_printf(xbt, node, "ring-ref", "%u",
				     h->ring_ref[0]);
	err = xenbus_printf(xbt, node, "ring-page-order", "%u", h->order);
	for (i = 0; !err && i < 1U << h->order; i++) {
		snprintf(key, sizeof(key), "ring-ref%u", i);
		err = xenbus_printf(xbt, node, key, "%u", h->ring_ref[i]);
	}
	return err;
}

/* Write our keys (and the spec, if any), then switch to Initialised. */
static int xh_publish(struct xh_dev *h, const char *spec, bool initialised)
{
	struct xenbus_device *dev = h->xdev;
	struct xenbus_transaction xbt;
	int err;

again:
	err = xenbus_transaction_start(&xbt);
	if (err)
		return err;
	err = xh_write_ring_refs(h, xbt);
	if (!err)
		err = xenbus_printf(xbt, dev->nodename, "event-channel", "%u",
				    h->evtchn);
	if (!err)
		err = xenbus_printf(xbt, dev->nodename, "protocol", "%s",
				    XEN_IO_PROTO_ABI_NATIVE);
	if (!err)
		err = xenbus_printf(xbt, dev->nodename, "feature-persistent",
				    "%u", READ_ONCE(xh_persistent));
	if (!err && spec && *spec)
		err = xh_apply_spec(h, xbt, spec);
	if (err) {
		xenbus_transaction_end(xbt, 1);
		return err;
	}
	err = xenbus_transaction_end(xbt, 0);
	if (err == -EAGAIN)
		goto again;
	if (err || !initialised)
		return err;
	return xenbus_switch_state(dev, XenbusStateInitialised);
}

static int xh_probe(struct xenbus_device *dev,
		    const struct xenbus_device_id *id)
{
	struct xh_dev *h;
	int err;

	h = kzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	h->xdev = dev;
	h->next_id = 0x1000;
	init_waitqueue_head(&h->wq);

	mutex_lock(&xh_lock);
	if (xh_cur) {
		err = -EBUSY;
		goto out_unlock;
	}
	err = xh_setup(h);
	/* With a key spec, wait for "go": the toolstack first sees InitWait. */
	h->held = xh_spec && *xh_spec;
	if (!err && !h->held)
		err = xh_publish(h, NULL, true);
	if (err)
		goto out_unlock;
	dev_set_drvdata(&dev->dev, h);
	xh_cur = h;
	mutex_unlock(&xh_lock);
	dev_info(&dev->dev, "hostile frontend bound, ring-ref %u event-channel %u\n",
		 h->ring_ref[0], h->evtchn);
	return 0;

out_unlock:
	mutex_unlock(&xh_lock);
	xenbus_dev_fatal(dev, err, "setting up the hostile frontend");
	xh_free(h);
	return err;
}

static void xh_connect(struct xh_dev *h)
{
	struct xenbus_device *dev = h->xdev;
	unsigned long long sectors;

	if (xenbus_scanf(XBT_NIL, dev->otherend, "sectors", "%llu",
			 &sectors) != 1)
		sectors = 0;
	h->sectors = sectors;
	h->ssize = xenbus_read_unsigned(dev->otherend, "sector-size", 512);
	h->info = xenbus_read_unsigned(dev->otherend, "info", 0);
	h->max_indirect = xenbus_read_unsigned(dev->otherend,
					       "feature-max-indirect-segments",
					       0);
	h->flush = xenbus_read_unsigned(dev->otherend, "feature-flush-cache",
					0);
	h->discard = xenbus_read_unsigned(dev->otherend, "feature-discard", 0);
	xenbus_switch_state(dev, XenbusStateConnected);
	h->connected = true;
	dev_info(&dev->dev, "connected: %llu sectors, sector-size %u, info %u, max indirect %u\n",
		 h->sectors, h->ssize, h->info, h->max_indirect);
}

static void xh_backend_changed(struct xenbus_device *dev,
			       enum xenbus_state state)
{
	struct xh_dev *h = dev_get_drvdata(&dev->dev);

	if (!h)
		return;
	mutex_lock(&xh_lock);
	switch (state) {
	case XenbusStateConnected:
		if (dev->state != XenbusStateConnected)
			xh_connect(h);
		break;
	case XenbusStateClosing:
	case XenbusStateClosed:
		h->connected = false;
		if (dev->state != XenbusStateClosed)
			xenbus_frontend_closed(dev);
		break;
	default:
		break;
	}
	mutex_unlock(&xh_lock);
}

static void xh_remove(struct xenbus_device *dev)
{
	struct xh_dev *h = dev_get_drvdata(&dev->dev);

	if (!h)
		return;
	mutex_lock(&xh_lock);
	if (xh_cur == h)
		xh_cur = NULL;
	dev_set_drvdata(&dev->dev, NULL);
	mutex_unlock(&xh_lock);
	xh_free(h);
}

static const struct xenbus_device_id xh_ids[] = {
	{ "vbd" },
	{ "" }
};

static struct xenbus_driver xh_driver = {
	.name = "xblkhostile",
	.ids = xh_ids,
	.probe = xh_probe,
	.remove = xh_remove,
	.otherend_changed = xh_backend_changed,
};

static int __init xh_init(void)
{
	int err;

	if (!xen_domain())
		return -ENODEV;
	xh_dir = debugfs_create_dir("xblkhostile", NULL);
	debugfs_create_file("run", 0600, xh_dir, NULL, &xh_run_fops);
	debugfs_create_file("status", 0400, xh_dir, NULL, &xh_status_fops);
	debugfs_create_file("keys", 0600, xh_dir, NULL, &xh_keys_fops);
	err = xenbus_register_frontend(&xh_driver);
	if (err)
		debugfs_remove_recursive(xh_dir);
	return err;
}
module_init(xh_init);

static void __exit xh_exit(void)
{
	xenbus_unregister_driver(&xh_driver);
	debugfs_remove_recursive(xh_dir);
	kfree(xh_spec);
}
module_exit(xh_exit);

MODULE_DESCRIPTION("Hostile blkif frontend for testing backends (test only)");
MODULE_LICENSE("GPL");
