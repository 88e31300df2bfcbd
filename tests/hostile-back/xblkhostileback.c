// SPDX-License-Identifier: GPL-2.0
/*
 * xblkhostileback: a test-only blkif backend that breaks the protocol on
 * request, to check that a frontend survives a hostile backend
 * (tests/lab/suites/hostile-back.sh).  Never load it on a real host.
 *
 * It binds xenbus "vbd" backend devices, so xen-blkback and xblkback must
 * not be loaded at the same time.  Per vbd it offers one single-page ring
 * (no multi-queue-max-queues, no max-ring-page-order, no indirect
 * descriptors, no persistent grants) and serves it without any storage:
 * reads return zeros (grant copies from the zero page), writes and flushes
 * succeed and are discarded.
 *
 * Parameters (writable at runtime):
 *   fault  what the next request of a connected vbd gets; once a vbd has
 *          misbehaved it goes silent (answers nothing more):
 *            none        served correctly
 *            unknown_id  a response whose id was never sent
 *            dup         two responses for one request (a second request
 *                        stays unanswered, so the producer index is sane)
 *            wrong_op    a response whose operation differs from the request
 *            prod_ahead  rsp_prod moved far beyond the requests sent
 *            bad_status  a status that is none of BLKIF_RSP_*
 *            mute        no response at all from then on, while the vbd
 *                        stays Connected (a hung backend; it still follows
 *                        the frontend's state changes)
 *            batch_unknown_id  every request found on the ring answered
 *                        correctly but the last one, which gets an unknown
 *                        id: the frontend completes all the others before
 *                        it sees the fault, so its submitters are free to
 *                        send more into the broken ring
 *   keys   read when a vbd is probed: which backend key to write malformed
 *          or out of range (see hb_key_modes[]), "none" for sane keys
 *
 * Per vbd, /sys/bus/xen-backend/devices/vbd-D-N/ has requests, responses,
 * fault (the fault injected, "none" until then), fault_id and sectors (the
 * capacity offered), and two write-only triggers taking "COUNT [MS]"
 * (COUNT 1-10000 times, MS 0-1000 ms apart; the write returns when done):
 *   resize_loop   rewrite sectors (each time 8 more) and state (Connected),
 *                 as a backend announcing an online resize does; only
 *                 while Connected
 *   connect_loop  rewrite the keys mode's malformed keys and state
 *                 Connected, as a backend insisting on a bad configuration
 *                 would; afterwards state is written back as it was
 */
#include <linux/delay.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include <xen/events.h>
#include <xen/grant_table.h>
#include <xen/interface/io/blkif.h>
#include <xen/page.h>
#include <xen/xen.h>
#include <xen/xenbus.h>

enum hb_fault {
	HB_NONE,
	HB_UNKNOWN_ID,
	HB_DUP,
	HB_WRONG_OP,
	HB_PROD_AHEAD,
	HB_BAD_STATUS,
	HB_MUTE,
	HB_BATCH_UNKNOWN_ID,
};

static const char * const hb_fault_names[] = {
	[HB_NONE] = "none",
	[HB_UNKNOWN_ID] = "unknown_id",
	[HB_DUP] = "dup",
	[HB_WRONG_OP] = "wrong_op",
	[HB_PROD_AHEAD] = "prod_ahead",
	[HB_BAD_STATUS] = "bad_status",
	[HB_MUTE] = "mute",
	[HB_BATCH_UNKNOWN_ID] = "batch_unknown_id",
};

/* A key the "keys" mode overrides, and the value it writes instead. */
struct hb_key {
	const char *key;
	const char *val;
};

struct hb_key_mode {
	const char *name;
	struct hb_key keys[2];
};

/*
 * The frontend parses every key strictly (include/xblk/xenstore.h).  All of
 * these must close the device with a message naming the key, except
 * pss_small: a physical block smaller than the logical one means "unknown"
 * (blkif.h) and is accepted.
 */
static const struct hb_key_mode hb_key_modes[] = {
	{ "none", { } },
	{ "sectors_nonnum", { { "sectors", "1024x" } } },
	{ "sectors_huge", { { "sectors", "36028797018963968" } } },	/* 2^55 */
	{ "ss0", { { "sector-size", "0" } } },
	{ "ss3", { { "sector-size", "3" } } },
	{ "ss2g", { { "sector-size", "2147483648" } } },
	{ "pss_small", { { "sector-size", "4096" },
			 { "physical-sector-size", "512" } } },
	{ "pss_bad", { { "physical-sector-size", "1000" } } },
	{ "mq_huge", { { "multi-queue-max-queues", "18446744073709551616" } } },
	{ "indirect_garbage", { { "feature-max-indirect-segments", "256k" } } },
	{ "ring_order_neg", { { "max-ring-page-order", "-1" } } },
	{ "flush_2", { { "feature-flush-cache", "2" } } },
};

static unsigned int hb_fault = HB_NONE;
static unsigned int hb_keys;
static unsigned long long hb_sectors = 2097152;	/* 1 GiB */
module_param_named(sectors, hb_sectors, ullong, 0644);
MODULE_PARM_DESC(sectors, "capacity offered, in 512-byte sectors (read at probe)");

static int hb_fault_set(const char *val, const struct kernel_param *kp)
{
	int i = sysfs_match_string(hb_fault_names, val);

	if (i < 0)
		return i;
	WRITE_ONCE(hb_fault, i);
	return 0;
}

static int hb_fault_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", hb_fault_names[READ_ONCE(hb_fault)]);
}

static const struct kernel_param_ops hb_fault_ops = {
	.set = hb_fault_set,
	.get = hb_fault_get,
};
module_param_cb(fault, &hb_fault_ops, NULL, 0644);
MODULE_PARM_DESC(fault, "none|unknown_id|dup|wrong_op|prod_ahead|bad_status|mute|batch_unknown_id");

static int hb_keys_set(const char *val, const struct kernel_param *kp)
{
	char name[32];
	unsigned int i;

	strscpy(name, val, sizeof(name));
	strim(name);
	for (i = 0; i < ARRAY_SIZE(hb_key_modes); i++) {
		if (!strcmp(name, hb_key_modes[i].name)) {
			WRITE_ONCE(hb_keys, i);
			return 0;
		}
	}
	return -EINVAL;
}

static int hb_keys_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", hb_key_modes[READ_ONCE(hb_keys)].name);
}

static const struct kernel_param_ops hb_keys_ops = {
	.set = hb_keys_set,
	.get = hb_keys_get,
};
module_param_cb(keys, &hb_keys_ops, NULL, 0644);
MODULE_PARM_DESC(keys, "backend key to write malformed at probe (none, sectors_nonnum, sectors_huge, ss0, ss3, ss2g, pss_small, pss_bad, mq_huge, indirect_garbage, ring_order_neg, flush_2)");

/**
 * struct hb_dev - one vbd
 * @xbdev: its xenbus device
 * @mutex: serialises connect and disconnect
 * @hotplug_watch: watch on our physical-device node
 * @hotplugged: the toolstack's hotplug script has run
 * @ring: the back ring, mapped while connected
 * @irq: the event channel's irq while connected, else 0
 * @work: serves the ring (grant copies need process context)
 * @sectors: capacity offered
 * @held: a request kept unanswered for the dup fault
 * @have_held: @held is valid
 * @silent: a fault was injected; nothing more is answered
 * @fault: the fault injected (HB_NONE until then)
 * @fault_id: id of the request it was injected on
 * @requests: requests consumed
 * @responses: responses produced
 */
struct hb_dev {
	struct xenbus_device *xbdev;
	struct mutex mutex;	/* connect/disconnect, hotplugged */
	struct xenbus_watch hotplug_watch;
	bool hotplugged;
	struct blkif_back_ring ring;
	unsigned int irq;
	struct work_struct work;
	u64 sectors;
	struct blkif_request held;
	bool have_held;
	bool silent;
	unsigned int fault;
	u64 fault_id;
	unsigned long requests;
	unsigned long responses;
};

static void hb_put_rsp(struct hb_dev *be, u64 id, u8 op, s16 status)
{
	struct blkif_response *rsp;

	rsp = RING_GET_RESPONSE(&be->ring, be->ring.rsp_prod_pvt);
	rsp->id = id;
	rsp->operation = op;
	rsp->status = status;
	be->ring.rsp_prod_pvt++;
	WRITE_ONCE(be->responses, be->responses + 1);
}

static void hb_push(struct hb_dev *be, bool force)
{
	int notify;

	RING_PUSH_RESPONSES_AND_CHECK_NOTIFY(&be->ring, notify);
	if (notify || force)
		notify_remote_via_irq(be->irq);
}

/* Read: fill every segment with zeros by grant copy from the zero page. */
static s16 hb_read(struct hb_dev *be, const struct blkif_request *req)
{
	struct gnttab_copy ops[BLKIF_MAX_SEGMENTS_PER_REQUEST];
	unsigned int i, n = req->u.rw.nr_segments;
	u64 nsect = 0;

	if (!n || n > BLKIF_MAX_SEGMENTS_PER_REQUEST)
		return BLKIF_RSP_ERROR;
	for (i = 0; i < n; i++) {
		const struct blkif_request_segment *seg = &req->u.rw.seg[i];

		if (seg->first_sect > seg->last_sect ||
		    seg->last_sect >= XEN_PAGE_SIZE >> 9)
			return BLKIF_RSP_ERROR;
		memset(&ops[i], 0, sizeof(ops[i]));
		ops[i].source.u.gmfn = xen_page_to_gfn(ZERO_PAGE(0));
		ops[i].source.domid = DOMID_SELF;
		ops[i].dest.u.ref = seg->gref;
		ops[i].dest.domid = be->xbdev->otherend_id;
		ops[i].dest.offset = seg->first_sect << 9;
		ops[i].len = (seg->last_sect - seg->first_sect + 1) << 9;
		ops[i].flags = GNTCOPY_dest_gref;
		nsect += seg->last_sect - seg->first_sect + 1;
	}
	if (req->u.rw.sector_number > be->sectors ||
	    nsect > be->sectors - req->u.rw.sector_number)
		return BLKIF_RSP_ERROR;
	gnttab_batch_copy(ops, n);
	for (i = 0; i < n; i++)
		if (ops[i].status != GNTST_okay)
			return BLKIF_RSP_ERROR;
	return BLKIF_RSP_OKAY;
}

/* What a correct backend would answer, data already moved. */
static s16 hb_serve(struct hb_dev *be, const struct blkif_request *req)
{
	switch (req->operation) {
	case BLKIF_OP_READ:
		return hb_read(be, req);
	case BLKIF_OP_WRITE:
		if (!req->u.rw.nr_segments ||
		    req->u.rw.nr_segments > BLKIF_MAX_SEGMENTS_PER_REQUEST)
			return BLKIF_RSP_ERROR;
		return BLKIF_RSP_OKAY;
	case BLKIF_OP_FLUSH_DISKCACHE:
		return BLKIF_RSP_OKAY;
	default:
		return BLKIF_RSP_EOPNOTSUPP;
	}
}

/* Answer @req wrongly, as fault @f says.  Return: true if it did. */
static bool hb_inject(struct hb_dev *be, unsigned int f,
		      const struct blkif_request *req, s16 status)
{
	u64 id = req->u.rw.id;
	u8 op = req->operation;

	switch (f) {
	case HB_UNKNOWN_ID:
		/* Far above any ring size: an id the frontend cannot have sent. */
		hb_put_rsp(be, id + 100000, op, status);
		hb_push(be, true);
		break;
	case HB_DUP:
		/*
		 * Two answers to the first request and none to the second:
		 * as many responses as requests, so only the duplicate is
		 * wrong.  With one request at hand, wait for another.
		 */
		if (!be->have_held) {
			be->held = *req;
			be->have_held = true;
			return false;
		}
		id = be->held.u.rw.id;
		op = be->held.operation;
		hb_put_rsp(be, id, op, BLKIF_RSP_OKAY);
		hb_put_rsp(be, id, op, BLKIF_RSP_OKAY);
		hb_push(be, true);
		break;
	case HB_WRONG_OP:
		hb_put_rsp(be, id, op == BLKIF_OP_READ ? BLKIF_OP_WRITE :
			   BLKIF_OP_READ, status);
		hb_push(be, true);
		break;
	case HB_PROD_AHEAD:
		/* No response at all, only an index 64 rings ahead. */
		virt_wmb();
		WRITE_ONCE(be->ring.sring->rsp_prod,
			   be->ring.rsp_prod_pvt + 64 * RING_SIZE(&be->ring));
		notify_remote_via_irq(be->irq);
		break;
	case HB_BAD_STATUS:
		hb_put_rsp(be, id, op, 42);
		hb_push(be, true);
		break;
	case HB_MUTE:
		/* Taken, never answered; so is everything after it. */
		break;
	case HB_BATCH_UNKNOWN_ID:
		/* hb_handle() serves the batch; its last request gets this. */
		hb_put_rsp(be, id + 100000, op, status);
		hb_push(be, true);
		break;
	default:
		return false;
	}
	be->fault_id = id;
	WRITE_ONCE(be->fault, f);
	be->silent = true;
	dev_warn(&be->xbdev->dev, "injected fault %s (request id %llu, op %u)\n",
		 hb_fault_names[f], id, op);
	return true;
}

/* @last: no further request is on the ring now. */
static void hb_handle(struct hb_dev *be, const struct blkif_request *req,
		      bool last)
{
	unsigned int f = READ_ONCE(hb_fault);
	s16 status = hb_serve(be, req);

	if (f != HB_NONE && (f != HB_BATCH_UNKNOWN_ID || last)) {
		hb_inject(be, f, req, status);
		return;
	}
	hb_put_rsp(be, req->u.rw.id, req->operation, status);
	hb_push(be, false);
}

/* Serve the ring.  Return: true if there was anything to do. */
static bool hb_process(struct hb_dev *be)
{
	struct blkif_back_ring *r = &be->ring;
	bool work = false;
	RING_IDX rc, rp;
	int more;

	do {
		if (be->silent)
			return work;
		rp = READ_ONCE(r->sring->req_prod);
		virt_rmb();	/* read requests only after req_prod */
		rc = r->req_cons;
		if (RING_REQUEST_PROD_OVERFLOW(r, rp)) {
			dev_err(&be->xbdev->dev, "frontend req_prod %u overflows the ring; stopped\n",
				rp);
			be->silent = true;
			return work;
		}
		while (rc != rp && !be->silent) {
			struct blkif_request req;

			RING_COPY_REQUEST(r, rc, &req);
			r->req_cons = ++rc;
			WRITE_ONCE(be->requests, be->requests + 1);
			work = true;
			hb_handle(be, &req, rc == rp);
		}
		RING_FINAL_CHECK_FOR_REQUESTS(r, more);
	} while (more);
	return work;
}

static void hb_work(struct work_struct *work)
{
	struct hb_dev *be = container_of(work, struct hb_dev, work);
	bool did;

	did = hb_process(be);
	xen_irq_lateeoi(be->irq, did ? 0 : XEN_EOI_FLAG_SPURIOUS);
}

static irqreturn_t hb_interrupt(int irq, void *dev_id)
{
	struct hb_dev *be = dev_id;

	schedule_work(&be->work);
	return IRQ_HANDLED;
}

static void hb_disconnect(struct hb_dev *be)
{
	lockdep_assert_held(&be->mutex);
	if (be->irq) {
		disable_irq(be->irq);
		cancel_work_sync(&be->work);
		unbind_from_irqhandler(be->irq, be);
		be->irq = 0;
	}
	if (be->ring.sring) {
		xenbus_unmap_ring_vfree(be->xbdev, be->ring.sring);
		be->ring.sring = NULL;
	}
	be->have_held = false;
}

static int hb_connect(struct hb_dev *be)
{
	struct xenbus_device *dev = be->xbdev;
	unsigned int ref, evtchn, order = 0, nq = 1;
	void *va;
	int err;

	lockdep_assert_held(&be->mutex);
	if (be->ring.sring)
		return 0;
	/* We offered neither; a frontend that uses them anyway gets refused. */
	xenbus_scanf(XBT_NIL, dev->otherend, "ring-page-order", "%u", &order);
	xenbus_scanf(XBT_NIL, dev->otherend, "multi-queue-num-queues", "%u", &nq);
	if (order || nq != 1) {
		xenbus_dev_fatal(dev, -EINVAL, "ring-page-order %u / %u queues not offered",
				 order, nq);
		return -EINVAL;
	}
	err = xenbus_gather(XBT_NIL, dev->otherend, "ring-ref", "%u", &ref,
			    "event-channel", "%u", &evtchn, NULL);
	if (err) {
		xenbus_dev_fatal(dev, err, "reading %s/ring-ref and event-channel",
				 dev->otherend);
		return err;
	}
	err = xenbus_map_ring_valloc(dev, &ref, 1, &va);
	if (err)
		return err;	/* xenbus_map_ring_valloc() reported it */
	BACK_RING_INIT(&be->ring, (struct blkif_sring *)va, XEN_PAGE_SIZE);
	be->silent = false;
	be->have_held = false;
	be->fault = HB_NONE;

	/*
	 * Xen marks our port pending as it binds it, so the handler runs at
	 * once; the work it schedules EOIs and notifies through be->irq.  Set
	 * that before the irq is enabled: a work that ran first used irq 0,
	 * left the real one masked for good, and we never heard the frontend
	 * (its first request, the partition scan, then hung its xenwatch).
	 */
	err = bind_interdomain_evtchn_to_irqhandler_lateeoi(dev, evtchn,
							    hb_interrupt,
							    IRQF_NO_AUTOEN,
							    "xblkhostileback",
							    be);
	if (err < 0) {
		xenbus_dev_fatal(dev, err, "binding event channel %u", evtchn);
		goto out_unmap;
	}
	be->irq = err;
	enable_irq(be->irq);
	dev_info(&dev->dev, "connected: ring-ref %u, event-channel %u, keys %s\n",
		 ref, evtchn, hb_key_modes[READ_ONCE(hb_keys)].name);
	return 0;

out_unmap:
	xenbus_unmap_ring_vfree(dev, va);
	be->ring.sring = NULL;
	return err;
}

/* Act on the frontend's state, once the hotplug script has run. */
static void hb_frontend_update(struct hb_dev *be, enum xenbus_state fe)
{
	struct xenbus_device *dev = be->xbdev;

	mutex_lock(&be->mutex);
	if (!be->hotplugged && fe != XenbusStateUnknown)
		goto out;
	switch (fe) {
	case XenbusStateInitialising:
		if (dev->state == XenbusStateClosed)
			xenbus_switch_state(dev, XenbusStateInitWait);
		break;
	case XenbusStateInitialised:
	case XenbusStateConnected:
		if (dev->state == XenbusStateConnected)
			break;
		if (!hb_connect(be))
			xenbus_switch_state(dev, XenbusStateConnected);
		break;
	case XenbusStateClosing:
		hb_disconnect(be);
		xenbus_switch_state(dev, XenbusStateClosing);
		break;
	case XenbusStateClosed:
		hb_disconnect(be);
		xenbus_switch_state(dev, XenbusStateClosed);
		if (xenbus_dev_is_online(dev))
			break;
		fallthrough;
	case XenbusStateUnknown:
		hb_disconnect(be);
		mutex_unlock(&be->mutex);
		device_unregister(&dev->dev);
		return;
	default:
		break;
	}
out:
	mutex_unlock(&be->mutex);
}

static void hb_frontend_changed(struct xenbus_device *dev,
				enum xenbus_state fe)
{
	hb_frontend_update(dev_get_drvdata(&dev->dev), fe);
}

/* physical-device appears once the toolstack saw InitWait and ran the script. */
static void hb_hotplug_changed(struct xenbus_watch *watch, const char *path,
			       const char *token)
{
	struct hb_dev *be = container_of(watch, struct hb_dev, hotplug_watch);
	struct xenbus_device *dev = be->xbdev;

	if (!xenbus_exists(XBT_NIL, dev->nodename, "physical-device"))
		return;
	mutex_lock(&be->mutex);
	be->hotplugged = true;
	mutex_unlock(&be->mutex);
	hb_frontend_update(be, xenbus_read_driver_state(dev->otherend));
}

static int hb_write_keys(struct xenbus_device *dev, u64 sectors,
			 const struct hb_key_mode *mode)
{
	static const struct hb_key sane[] = {
		{ "info", "0" },
		{ "sector-size", "512" },
		{ "physical-sector-size", "512" },
		{ "feature-flush-cache", "1" },
		{ "feature-barrier", "0" },
		{ "feature-persistent", "0" },
		{ "feature-discard", "0" },
	};
	struct xenbus_transaction xbt;
	unsigned int i, j;
	int err;

again:
	err = xenbus_transaction_start(&xbt);
	if (err)
		return err;
	err = xenbus_printf(xbt, dev->nodename, "sectors", "%llu", sectors);
	for (i = 0; i < ARRAY_SIZE(sane) && !err; i++)
		err = xenbus_write(xbt, dev->nodename, sane[i].key, sane[i].val);
	/* The malformed values replace (or add to) the sane ones. */
	for (j = 0; j < ARRAY_SIZE(mode->keys) && mode->keys[j].key && !err; j++)
		err = xenbus_write(xbt, dev->nodename, mode->keys[j].key,
				   mode->keys[j].val);
	if (err) {
		xenbus_transaction_end(xbt, 1);
		return err;
	}
	err = xenbus_transaction_end(xbt, 0);
	if (err == -EAGAIN)
		goto again;
	return err;
}

static int hb_probe(struct xenbus_device *dev, const struct xenbus_device_id *id)
{
	const struct hb_key_mode *mode = &hb_key_modes[READ_ONCE(hb_keys)];
	struct hb_dev *be;
	int err;

	be = kzalloc(sizeof(*be), GFP_KERNEL);
	if (!be)
		return -ENOMEM;
	be->xbdev = dev;
	be->sectors = READ_ONCE(hb_sectors);
	mutex_init(&be->mutex);
	INIT_WORK(&be->work, hb_work);
	dev_set_drvdata(&dev->dev, be);

	err = hb_write_keys(dev, be->sectors, mode);
	if (err) {
		xenbus_dev_fatal(dev, err, "writing backend keys");
		goto out_free;
	}
	if (strcmp(mode->name, "none"))
		dev_warn(&dev->dev, "keys mode %s: wrote %s=%s\n", mode->name,
			 mode->keys[0].key, mode->keys[0].val);

	err = xenbus_switch_state(dev, XenbusStateInitWait);
	if (err)
		goto out_free;
	err = xenbus_watch_pathfmt(dev, &be->hotplug_watch, NULL,
				   hb_hotplug_changed, "%s/%s", dev->nodename,
				   "physical-device");
	if (err)
		goto out_free;
	return 0;

out_free:
	dev_set_drvdata(&dev->dev, NULL);
	kfree(be);
	return err;
}

static void hb_remove(struct xenbus_device *dev)
{
	struct hb_dev *be = dev_get_drvdata(&dev->dev);

	unregister_xenbus_watch(&be->hotplug_watch);
	kfree(be->hotplug_watch.node);
	mutex_lock(&be->mutex);
	hb_disconnect(be);
	mutex_unlock(&be->mutex);
	dev_set_drvdata(&dev->dev, NULL);
	kfree(be);
}

static ssize_t requests_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	struct hb_dev *be = dev_get_drvdata(d);

	return be ? sysfs_emit(buf, "%lu\n", READ_ONCE(be->requests)) : -ENODEV;
}
static DEVICE_ATTR_RO(requests);

static ssize_t responses_show(struct device *d, struct device_attribute *attr,
			      char *buf)
{
	struct hb_dev *be = dev_get_drvdata(d);

	return be ? sysfs_emit(buf, "%lu\n", READ_ONCE(be->responses)) : -ENODEV;
}
static DEVICE_ATTR_RO(responses);

static ssize_t fault_show(struct device *d, struct device_attribute *attr,
			  char *buf)
{
	struct hb_dev *be = dev_get_drvdata(d);

	return be ? sysfs_emit(buf, "%s\n", hb_fault_names[READ_ONCE(be->fault)]) :
		    -ENODEV;
}
static DEVICE_ATTR_RO(fault);

static ssize_t fault_id_show(struct device *d, struct device_attribute *attr,
			     char *buf)
{
	struct hb_dev *be = dev_get_drvdata(d);

	return be ? sysfs_emit(buf, "%llu\n", READ_ONCE(be->fault_id)) : -ENODEV;
}
static DEVICE_ATTR_RO(fault_id);

static ssize_t sectors_show(struct device *d, struct device_attribute *attr,
			    char *buf)
{
	struct hb_dev *be = dev_get_drvdata(d);

	return be ? sysfs_emit(buf, "%llu\n", READ_ONCE(be->sectors)) : -ENODEV;
}
static DEVICE_ATTR_RO(sectors);

/* "COUNT [MS]" of the loop triggers. */
static int hb_loop_args(const char *buf, unsigned int *count, unsigned int *ms)
{
	*ms = 0;
	if (sscanf(buf, "%u %u", count, ms) < 1 || !*count || *count > 10000 ||
	    *ms > 1000)
		return -EINVAL;
	return 0;
}

/* One transaction: @keys (may be NULL), @sectors unless 0, then state. */
static int hb_write_state(struct xenbus_device *dev, const struct hb_key_mode *keys,
			  u64 sectors, enum xenbus_state state)
{
	struct xenbus_transaction xbt;
	unsigned int j;
	int err;

again:
	err = xenbus_transaction_start(&xbt);
	if (err)
		return err;
	for (j = 0; keys && j < ARRAY_SIZE(keys->keys) && keys->keys[j].key && !err; j++)
		err = xenbus_write(xbt, dev->nodename, keys->keys[j].key,
				   keys->keys[j].val);
	if (!err && sectors)
		err = xenbus_printf(xbt, dev->nodename, "sectors", "%llu", sectors);
	if (!err)
		err = xenbus_printf(xbt, dev->nodename, "state", "%d", state);
	if (err) {
		xenbus_transaction_end(xbt, 1);
		return err;
	}
	err = xenbus_transaction_end(xbt, 0);
	if (err == -EAGAIN)
		goto again;
	return err;
}

static ssize_t resize_loop_store(struct device *d, struct device_attribute *attr,
				 const char *buf, size_t count)
{
	struct hb_dev *be = dev_get_drvdata(d);
	unsigned int n, ms, i;
	int err;

	if (!be)
		return -ENODEV;
	err = hb_loop_args(buf, &n, &ms);
	if (err)
		return err;
	if (be->xbdev->state != XenbusStateConnected)
		return -ENOTCONN;
	for (i = 0; i < n; i++) {
		/* Served before it is announced: reads up to it are valid. */
		WRITE_ONCE(be->sectors, be->sectors + 8);
		err = hb_write_state(be->xbdev, NULL, be->sectors,
				     XenbusStateConnected);
		if (err)
			return err;
		if (ms)
			msleep(ms);
	}
	dev_info(d, "resize_loop: %u announcements, %u ms apart, last %llu sectors\n",
		 n, ms, be->sectors);
	return count;
}
static DEVICE_ATTR_WO(resize_loop);

static ssize_t connect_loop_store(struct device *d, struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct hb_dev *be = dev_get_drvdata(d);
	const struct hb_key_mode *mode = &hb_key_modes[READ_ONCE(hb_keys)];
	unsigned int n, ms, i;
	int err;

	if (!be)
		return -ENODEV;
	err = hb_loop_args(buf, &n, &ms);
	if (err)
		return err;
	for (i = 0; i < n; i++) {
		err = hb_write_state(be->xbdev, mode, 0, XenbusStateConnected);
		if (err)
			return err;
		if (ms)
			msleep(ms);
	}
	err = hb_write_state(be->xbdev, NULL, 0, be->xbdev->state);
	dev_info(d, "connect_loop: %u times keys %s and Connected, %u ms apart\n",
		 n, mode->name, ms);
	return err ?: count;
}
static DEVICE_ATTR_WO(connect_loop);

static struct attribute *hb_attrs[] = {
	&dev_attr_requests.attr,
	&dev_attr_responses.attr,
	&dev_attr_fault.attr,
	&dev_attr_fault_id.attr,
	&dev_attr_sectors.attr,
	&dev_attr_resize_loop.attr,
	&dev_attr_connect_loop.attr,
	NULL
};
ATTRIBUTE_GROUPS(hb);

static const struct xenbus_device_id hb_ids[] = {
	{ "vbd" },
	{ "" }
};

static struct xenbus_driver hb_driver = {
	.name = "xblkhostileback",
	.ids = hb_ids,
	.probe = hb_probe,
	.remove = hb_remove,
	.otherend_changed = hb_frontend_changed,
	.driver = {
		.dev_groups = hb_groups,
	},
};

static int __init hb_init(void)
{
	if (!xen_domain())
		return -ENODEV;
	pr_warn("xblkhostileback: test-only backend that breaks the blkif protocol on request\n");
	return xenbus_register_backend(&hb_driver);
}
module_init(hb_init);

static void __exit hb_exit(void)
{
	xenbus_unregister_driver(&hb_driver);
}
module_exit(hb_exit);

MODULE_DESCRIPTION("test-only hostile Xen blkif backend");
MODULE_LICENSE("GPL");
