// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: xenbus state machine and negotiation with the backend.
 *
 *   backend InitWait  -> read ring maxima, set up rings, publish them,
 *                        switch to Initialised
 *   backend Connected -> (only while we are Initialised) read and validate
 *                        the disk's keys, negotiate, create the gendisk,
 *                        switch to Connected; while Connected: online
 *                        resize, at most one applied per second
 *   backend Closing   -> no new I/O, disk marked dead, switch to Closed
 *   remove            -> give a backend that still serves a bounded time to
 *                        answer, fail the rest, delete the gendisk, free
 *                        rings and grants
 *   suspend           -> no batching timers: the rings may not be read after
 *                        the domain resumes elsewhere;
 *   resume (restore)  -> take back unanswered requests, free the old rings;
 *                        the new backend then goes through InitWait and
 *                        Connected as above, and the requests are sent again
 *
 * Every key the backend writes is parsed by include/xblk/xenstore.h; a
 * malformed or out-of-range value ends in xbf_fatal() (log.c), which logs
 * it (rate limited per disk) and closes the device.  What the disk does
 * when its backend fails or goes away is recovery.c's.  A backend that failed us is
 * not parsed again until we reconnect: it cannot make us log without end.
 */
#include <linux/cpumask.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <xen/interface/io/protocols.h>
#include <xen/xenbus.h>
#include <xblk/compat.h>
#include <xblk/xenbus.h>

#include "blkfront.h"

/* Where disks are added (xbf_add_work()): never the xenwatch thread. */
static struct workqueue_struct *xbf_wq;

/* Our keys: the rings, the protocol, feature-persistent. */
static int xbf_write_keys(struct xenbus_transaction xbt, void *arg)
{
	struct xbf_info *info = arg;
	const char *node = info->xbdev->nodename;
	int err;

	err = xbf_rings_write_keys(info, xbt);
	if (!err)
		err = xenbus_printf(xbt, node, XBLK_KEY_PROTOCOL, "%s",
				    XEN_IO_PROTO_ABI_NATIVE);
	if (!err)
		err = xenbus_printf(xbt, node, XBLK_KEY_PERSISTENT, "%u",
				    info->fl.persistent);
	return err;
}

/* Backend in InitWait: set up and publish the rings. */
static int xbf_talk(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	unsigned int be_queues, be_order, nr;
	const char *bad_key = NULL;
	int err;

	err = xblk_parse_be_ring(xblk_xs_read, (void *)dev->otherend,
				 &be_queues, &be_order, &bad_key);
	if (err) {
		xbf_fatal(info, err, "backend key %s/%s is malformed",
			  dev->otherend, bad_key);
		return err;
	}

	mutex_lock(&info->mutex);
	/* The parameters this connection works with, from here to its end. */
	xbf_params_get(&info->params);
	info->fl = (struct xblk_fe_limits){
		.max_queues = info->params.max_queues,
		.nr_cpus = num_online_cpus(),
		.max_ring_order = info->params.max_ring_order,
		.max_indirect_segs = info->params.max_indirect_segs,
		.persistent = info->params.persistent,
	};
	nr = max(1U, min3(be_queues, info->fl.max_queues, info->fl.nr_cpus));
	if (info->gd) {
		/*
		 * Restored: the disk keeps its hardware queues and its
		 * request size; only the backend's offer may limit them.
		 */
		nr = min(nr, info->tag_set.nr_hw_queues);
		info->fl.max_indirect_segs = max(info->fl.max_indirect_segs,
						 info->disk_segs);
	}
	err = xbf_rings_alloc(info, nr, min(be_order, info->fl.max_ring_order),
			      xbf_complete_ring);
	if (err)
		goto out_unlock;
	err = xbf_stats_add(info);
	if (err)
		goto out_free_rings;

	err = xblk_xs_transact(xbf_write_keys, info);
	if (err) {
		xbf_fatal(info, err, "writing our keys");
		goto out_del_stats;
	}
	mutex_unlock(&info->mutex);
	xenbus_switch_state(dev, XenbusStateInitialised);
	return 0;

out_del_stats:
	xbf_stats_del(info);
out_free_rings:
	xbf_rings_free(info);
out_unlock:
	mutex_unlock(&info->mutex);
	return err;
}

static void xbf_print_config(struct xbf_info *info)
{
	const struct xblk_negotiated *neg = &info->neg;
	const struct xblk_be_info *be = &info->be;

	dev_info(&info->xbdev->dev,
		 "%s: %llu sectors, %u queue%s, ring order %u (%u slots), %u segs/req%s, %s grants%s, %s, %s%s, sectors %u/%u%s\n",
		 info->name, be->sectors, info->nr_rings,
		 info->nr_rings == 1 ? "" : "s", neg->ring_order,
		 info->rings[0].nr_slots, neg->segs,
		 neg->indirect ? " (indirect)" : "",
		 neg->persistent ? "persistent" : "transient",
		 info->bounce && !neg->persistent ? " (bounce pages)" : "",
		 info->flush_op == BLKIF_OP_FLUSH_DISKCACHE ? "flush" :
		 info->flush_op == BLKIF_OP_WRITE_BARRIER ? "barrier" :
		 "no flush",
		 be->discard ? "discard" : "no discard",
		 be->discard_secure ? "+secure" : "",
		 be->sector_size, be->phys_sector_size,
		 be->info & XBLK_VDISK_READONLY ? ", read-only" : "");
}

/* Backend Connected while we are connected: only the size may change. */
static void xbf_resize(struct xbf_info *info)
{
	u64 sectors;
	int err;

	err = xblk_read_u64(xblk_xs_read, (void *)info->xbdev->otherend,
			    XBLK_KEY_SECTORS, XBLK_REQUIRED,
			    0, ~(u64)0 >> 10, &sectors);
	if (err) {
		if (__ratelimit(&info->rs_err))
			dev_err(&info->xbdev->dev,
				"%s: ignoring malformed sectors on resize (%d)\n",
				info->name, err);
		return;
	}
	xbf_disk_resize(info, sectors);
}

/*
 * Negotiate from the backend's keys just read.  The rings were sized at
 * InitWait and the backend mapped them: they stay.  A restored disk keeps
 * the request size its requests were built for.
 * Return: 0, or -EINVAL (reported) when the backend cannot take them.
 */
static int xbf_negotiate(struct xbf_info *info)
{
	unsigned int nr_queues = info->nr_rings;
	unsigned int order = info->neg.ring_order;

	xblk_negotiate(&info->be, &info->fl, &info->neg);
	info->neg.nr_queues = nr_queues;
	info->neg.ring_order = order;
	if (info->gd) {
		/* The requests already built fit the disk's limits only. */
		if (info->neg.segs < info->disk_segs) {
			xbf_fatal(info, -EINVAL,
				  "restored onto a backend with %u segments per request, the disk needs %u",
				  info->neg.segs, info->disk_segs);
			return -EINVAL;
		}
		info->neg.segs = info->disk_segs;
		info->neg.indirect = info->disk_segs > BLKIF_MAX_SEGMENTS_PER_REQUEST;
	}
	return 0;
}

/* How the disk flushes, and whether its data goes through bounce pages. */
static void xbf_choose_io(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	bool trusted;

	info->flush_op = info->be.flush ? BLKIF_OP_FLUSH_DISKCACHE :
			 info->be.barrier ? BLKIF_OP_WRITE_BARRIER : 0;
	/*
	 * "trusted" is the toolstack's, in our own directory (default 1); a
	 * value that is neither 0 nor 1 is taken as 0, the safe side.
	 */
	if (xblk_xs_read_flag(dev->nodename, "trusted", true, &trusted)) {
		dev_warn(&dev->dev, "%s: \"trusted\" is neither 0 nor 1: not trusting the backend\n",
			 info->name);
		trusted = false;
	}
	info->bounce = !info->params.trusted || !trusted;
}

/* Give back the grants xbf_pools_alloc() reserved for rings 0..@nr-1. */
static void xbf_pools_free(struct xbf_info *info, unsigned int nr)
{
	while (nr--) {
		xbf_pool_destroy(&info->rings[nr].data);
		xbf_pool_destroy(&info->rings[nr].indirect);
	}
}

/* Reserve every ring's grants; on failure, report it and reserve none. */
static int xbf_pools_alloc(struct xbf_info *info)
{
	unsigned int i;
	int err;

	for (i = 0; i < info->nr_rings; i++) {
		err = xbf_ring_pools_alloc(&info->rings[i]);
		if (err) {
			xbf_fatal(info, err, "reserving grants for queue %u", i);
			xbf_pools_free(info, i);
			return err;
		}
	}
	return 0;
}

/*
 * Bring the disk up on the backend just negotiated: reconnect a restored
 * one, create a new one.  Adding a new disk waits for the backend's first
 * answers (its partition table): not here, on the thread that runs every
 * xenbus watch of the guest, but in xbf_add_work(), which says Connected
 * once the disk is there.
 * Return: true if the disk is up and we may say Connected now.
 */
static bool xbf_disk_up(struct xbf_info *info)
{
	int err;

	lockdep_assert_held(&info->mutex);
	if (info->gd) {
		xbf_disk_reconnect(info);
		dev_info(&info->xbdev->dev, "%s: reconnected after restore\n",
			 info->name);
		xbf_disk_update_capacity(info, info->be.sectors);
		/* Restored before its add work ran: that work says Connected. */
		if (info->added)
			return true;
	} else {
		/* The partition scan in device_add_disk() already does I/O. */
		WRITE_ONCE(info->state, XBF_CONNECTED);
		err = xbf_disk_alloc(info);
		if (err) {
			WRITE_ONCE(info->state, XBF_DISCONNECTED);
			xbf_fatal(info, err, "creating disk %s", info->name);
			xbf_pools_free(info, info->nr_rings);
			return false;
		}
	}
	queue_work(xbf_wq, &info->add_work);
	return false;
}

/* Backend Connected: validate its keys, negotiate, bring the disk up. */
static void xbf_connect(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;
	const char *bad_key = NULL;
	bool connected;
	int err;

	mutex_lock(&info->mutex);
	if (info->state == XBF_CONNECTED) {
		xbf_resize(info);
		goto out_unlock;
	}
	if ((info->state != XBF_DISCONNECTED && info->state != XBF_RESUMING) ||
	    !info->rings)
		goto out_unlock;

	err = xblk_parse_be_info(xblk_xs_read, (void *)dev->otherend, &info->be,
				 &bad_key, PAGE_SIZE);
	if (err) {
		xbf_fatal(info, err, "backend key %s/%s is %s", dev->otherend,
			  bad_key,
			  err == -ENOENT ? "missing" : "malformed or out of range");
		goto out_unlock;
	}

	if (xbf_negotiate(info))
		goto out_unlock;
	xbf_choose_io(info);
	if (xbf_pools_alloc(info))
		goto out_unlock;

	connected = xbf_disk_up(info);
	if (info->gd)
		xbf_print_config(info);
	mutex_unlock(&info->mutex);
	if (connected)
		xenbus_switch_state(dev, XenbusStateConnected);
	return;

out_unlock:
	mutex_unlock(&info->mutex);
}

/*
 * Add the disk xbf_connect() created, then say Connected, unless the disk
 * failed or closed meanwhile.  A disk that cannot be added is failed; the
 * removal frees it.  The state changes under info->mutex, as xbf_closing()
 * makes its own: Connected never follows Closed.
 */
static void xbf_add_work(struct work_struct *work)
{
	struct xbf_info *info = container_of(work, struct xbf_info, add_work);
	struct xenbus_device *dev = info->xbdev;
	int err;

	err = xbf_disk_add(info);
	mutex_lock(&info->mutex);
	if (err) {
		WRITE_ONCE(info->state, XBF_ERROR);
		if (info->rings)
			xbf_fail_inflight(info);
	} else if (info->state == XBF_CONNECTED && info->added) {
		/* A new size announced while the disk was being added. */
		if (info->resize_pending)
			schedule_delayed_work(&info->resize_work, 0);
		if (dev->state == XenbusStateInitialised)
			xenbus_switch_state(dev, XenbusStateConnected);
	}
	mutex_unlock(&info->mutex);
	if (err)
		xbf_fatal(info, err, "adding disk %s", info->name);
}

/*
 * Where closing and remove both start: no new I/O (the disk is marked
 * dead), and the queue a restore quiesced is let go.
 */
static void xbf_stop_io(struct xbf_info *info)
{
	lockdep_assert_held(&info->mutex);
	if (info->state == XBF_CONNECTED || info->state == XBF_RESUMING)
		WRITE_ONCE(info->state, XBF_CLOSING);
	/* Not added yet: xbf_disk_add() marks it once it is. */
	if (info->added)
		blk_mark_disk_dead(info->gd);
	if (info->gd)
		xbf_disk_unquiesce(info);
}

/* Backend Closing or Closed: stop taking I/O and let it go. */
static void xbf_closing(struct xbf_info *info)
{
	struct xenbus_device *dev = info->xbdev;

	/*
	 * Closing (not Closed) is where xenbus_dev_fatal() leaves us after a
	 * protocol violation or a bad key; the backend follows to Closing and
	 * we must still go on to Closed, or the toolstack cannot detach the
	 * disk without -f (the hostile-back lab suite found this).
	 */
	if (dev->state == XenbusStateClosed)
		return;

	mutex_lock(&info->mutex);
	/*
	 * New I/O fails from here on; I/O in flight still completes, since
	 * the backend answers it before it unmaps our rings, which stay
	 * until remove.  So do requests a restore took back.
	 */
	xbf_stop_io(info);
	/* Under the mutex: xbf_add_work() says Connected under it too. */
	xenbus_frontend_closed(dev);
	mutex_unlock(&info->mutex);
}

static void xbf_backend_changed(struct xenbus_device *dev,
				enum xenbus_state be_state)
{
	struct xbf_info *info = dev_get_drvdata(&dev->dev);

	dev_dbg(&dev->dev, "backend %s, we are %s\n",
		xenbus_strstate(be_state), xenbus_strstate(dev->state));

	switch (be_state) {
	case XenbusStateInitWait:
		if (dev->state == XenbusStateInitialising)
			xbf_talk(info);
		break;
	case XenbusStateConnected:
		/* A backend may go straight to Connected, skipping InitWait. */
		if (dev->state == XenbusStateInitialising && xbf_talk(info))
			break;
		/*
		 * Connect from Initialised, resize while Connected.  Once a
		 * backend failed us we are Closing: its keys are not parsed
		 * (and their faults logged) again, however often it says
		 * Connected.
		 */
		if (dev->state != XenbusStateInitialised &&
		    dev->state != XenbusStateConnected)
			break;
		xbf_connect(info);
		break;
	case XenbusStateClosed:
		if (dev->state == XenbusStateClosed)
			break;
		fallthrough;
	case XenbusStateClosing:
		xbf_closing(info);
		break;
	default:
		break;
	}
}

/* A disk's state as probe starts it: its locks, works and rate limits. */
static struct xbf_info *xbf_info_alloc(struct xenbus_device *dev)
{
	struct xbf_info *info;

	info = kzalloc(sizeof(*info), GFP_KERNEL);
	if (!info)
		return NULL;
	info->xbdev = dev;
	mutex_init(&info->mutex);
	INIT_WORK(&info->error_work, xbf_error_work);
	INIT_WORK(&info->timeout_work, xbf_timeout_work);
	INIT_WORK(&info->add_work, xbf_add_work);
	INIT_DELAYED_WORK(&info->resize_work, xbf_resize_work);
	atomic_long_set(&info->timeouts, 0);
	/* Per disk: one disk's faults cannot hide another's. */
	ratelimit_state_init(&info->rs_err, 5 * HZ, 10);
	ratelimit_state_init(&info->rs_timeout, 5 * HZ, 1);
	return info;
}

static int xbf_probe(struct xenbus_device *dev,
		     const struct xenbus_device_id *id)
{
	unsigned int index, part;
	struct xbf_info *info;
	const char *p;
	bool ext;
	u64 vdev, handle;
	char *type;
	int err;

	err = xblk_read_u64(xblk_xs_read, (void *)dev->nodename,
			    "virtual-device", XBLK_REQUIRED, 0, U32_MAX, &vdev);
	if (err) {
		xenbus_dev_fatal(dev, err, "reading virtual-device");
		return err;
	}
	if (xblk_vdev_decode(vdev, &index, &part, &ext)) {
		xenbus_dev_fatal(dev, -EINVAL, "unsupported virtual-device %llu",
				 vdev);
		return -EINVAL;
	}
	/* The blkif handle is our device id, the last part of nodename. */
	p = strrchr(dev->nodename, '/');
	if (!p || xblk_parse_u64(p + 1, &handle)) {
		xenbus_dev_fatal(dev, -EINVAL, "bad device node %s", dev->nodename);
		return -EINVAL;
	}

	info = xbf_info_alloc(dev);
	if (!info)
		return -ENOMEM;
	info->vdevice = vdev;
	info->handle = (u16)handle;
	info->index = index;
	info->part = part;
	info->first_minor = index * (ext ? 256 : 16) + part;
	info->minors = part ? 1 : 16;
	if (info->first_minor + info->minors > MINORMASK + 1) {
		kfree(info);
		xenbus_dev_fatal(dev, -EINVAL, "virtual-device %llu out of range", vdev);
		return -EINVAL;
	}
	xblk_disk_name(index, part, info->name, sizeof(info->name));

	type = xblk_xs_read_str(dev->nodename, "device-type");
	if (!IS_ERR(type)) {
		info->cdrom = !strcmp(type, "cdrom");
		kfree(type);
	}
	dev_set_drvdata(&dev->dev, info);
	return 0;
}

static void xbf_remove(struct xenbus_device *dev)
{
	struct xbf_info *info = dev_get_drvdata(&dev->dev);
	enum xenbus_state be;

	cancel_work_sync(&info->error_work);
	mutex_lock(&info->mutex);
	xbf_stop_io(info);
	be = xenbus_read_driver_state(dev, dev->otherend);
	mutex_unlock(&info->mutex);
	/*
	 * A backend that says it is serving or finishing gets a bounded time
	 * to answer what is in flight; the rest fails, or deleting the disk
	 * would wait for a backend that never answers.  Other backends will
	 * not answer at all.
	 */
	if (be == XenbusStateConnected || be == XenbusStateClosing)
		xbf_disk_drain(info);
	mutex_lock(&info->mutex);
	if (info->rings)
		xbf_fail_inflight(info);
	mutex_unlock(&info->mutex);
	/*
	 * A disk still being added gets its answers now (failed, as is
	 * anything it sends from here on): the add ends, and the disk can go.
	 */
	flush_work(&info->add_work);
	mutex_lock(&info->mutex);
	xbf_disk_destroy(info);
	if (info->rings) {
		xbf_stats_del(info);
		xbf_rings_free(info);
	}
	mutex_unlock(&info->mutex);
	/* Interrupts until the rings went may have queued the works again. */
	cancel_work_sync(&info->error_work);
	cancel_work_sync(&info->timeout_work);
	cancel_delayed_work_sync(&info->resize_work);
	dev_set_drvdata(&dev->dev, NULL);
	kfree(info);
}

/*
 * The domain is about to be suspended for a save or a migration: stop the
 * rings' batching timers (xbf_rings_freeze()).
 */
static int xbf_suspend(struct xenbus_device *dev)
{
	struct xbf_info *info = dev_get_drvdata(&dev->dev);

	mutex_lock(&info->mutex);
	if (info->rings)
		xbf_rings_freeze(info);
	mutex_unlock(&info->mutex);
	return 0;
}

/*
 * The domain was restored (xl restore, or the end of a migration): the old
 * backend, our event channels and grants are gone.  Take back what it never
 * answered and free the rings; the xenbus core then watches the new
 * backend, whose InitWait and Connected set everything up again.
 */
static int xbf_resume(struct xenbus_device *dev)
{
	struct xbf_info *info = dev_get_drvdata(&dev->dev);
	unsigned int replay = 0;
	bool disk;

	mutex_lock(&info->mutex);
	disk = info->gd && (info->state == XBF_CONNECTED ||
			    info->state == XBF_RESUMING);
	if (info->rings) {
		if (disk)
			replay = xbf_disk_suspend(info);
		else
			xbf_fail_inflight(info);	/* a dead disk's */
		xbf_stats_del(info);
		xbf_rings_free(info);
	}
	if (info->hq) {
		unsigned int i;

		for (i = 0; i < info->tag_set.nr_hw_queues; i++)
			info->hq[i].ring = NULL;
	}
	if (!info->gd)
		WRITE_ONCE(info->state, XBF_DISCONNECTED);
	mutex_unlock(&info->mutex);

	if (disk)
		dev_info(&dev->dev, "%s: restored: %u request%s to replay once the backend reconnects\n",
			 info->name, replay, replay == 1 ? "" : "s");
	return 0;
}

static const struct xenbus_device_id xbf_ids[] = {
	{ "vbd" },
	{ "" }
};

static struct xenbus_driver xbf_driver = {
	.name = XBF_NAME,
	.ids = xbf_ids,
	.probe = xbf_probe,
	.remove = xbf_remove,
	.suspend = xbf_suspend,
	.resume = xbf_resume,
	.otherend_changed = xbf_backend_changed,
	.not_essential = true,
	.driver = {
		.dev_groups = xbf_dev_groups,
	},
};

/**
 * xbf_xenbus_register() - register the frontend driver for "vbd" devices
 *
 * Return: 0 or a negative errno.
 */
int xbf_xenbus_register(void)
{
	int err;

	/* Disk additions: each may wait on its backend for as long as it takes. */
	xbf_wq = alloc_workqueue(XBF_NAME, WQ_UNBOUND, 0);
	if (!xbf_wq)
		return -ENOMEM;
	err = xenbus_register_frontend(&xbf_driver);
	if (err)
		destroy_workqueue(xbf_wq);
	return err;
}

/**
 * xbf_xenbus_unregister() - unregister it, removing every disk
 */
void xbf_xenbus_unregister(void)
{
	xenbus_unregister_driver(&xbf_driver);
	destroy_workqueue(xbf_wq);
}
