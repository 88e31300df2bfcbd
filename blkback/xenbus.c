// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: the xenbus side of a backend device, i.e. the state machine.
 *
 *   probe         advertise our maxima, watch "physical-device", InitWait
 *   hotplug       /etc/xen/scripts/block wrote "physical-device" (and
 *                 "physical-device-path"): open the backing device
 *   frontend Initialised/Connected
 *                 read its ring keys, map the rings; once the device is
 *                 open too, write the disk's keys, start the ring threads,
 *                 Connected
 *   frontend Closing/Closed/gone
 *                 stop the rings: wait for the requests in flight, unmap
 *                 every grant, free every page; then Closing/Closed, and
 *                 unregister when the toolstack took the device offline
 *   frontend Initialising while we are Connected or Closing
 *                 it restarted without closing (kexec, crash): tear down
 *                 and offer the device again (InitWait)
 *   resize        ring 0 notices a new capacity: rewrite "sectors" and
 *                 the state, which makes the frontend re-read it
 *
 * All of it runs under xbb_dev.lock.  The driver is named "xblkback" so
 * that it can sit next to the in-tree xen-blkback (whichever module is
 * loaded first binds the "vbd" devices; see Documentation/blkback.rst).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/kdev_t.h>
#include <linux/blkdev.h>
#include <linux/rcupdate.h>
#include <xen/xenbus.h>

#include "blkback.h"

/* ------------------------------------------------------------------ */
/* Keys: read with xblk_xs_read*(), written with xblk_xs_transact().   */

/* ------------------------------------------------------------------ */
/* What we write.                                                      */

static int xbb_write_uint(struct xenbus_transaction xbt, struct xbb_dev *be,
			  const char *key, unsigned long long v)
{
	return xenbus_printf(xbt, be->xdev->nodename, key, "%llu", v);
}

/* Our maxima, written at probe: a frontend reads them before it sets up. */
static int xbb_write_limits(struct xenbus_transaction xbt, void *arg)
{
	struct xbb_dev *be = arg;
	const struct xbb_params *p = &be->params;
	int err;

	err = xbb_write_uint(xbt, be, XBLK_KEY_MAX_QUEUES, p->max_queues);
	if (!err)
		err = xbb_write_uint(xbt, be, XBLK_KEY_MAX_RING_ORDER,
				     p->max_ring_order);
	/* Absent, not 0, when off: blkif says a backend without it omits it. */
	if (!err && p->max_indirect_segs)
		err = xbb_write_uint(xbt, be, XBLK_KEY_MAX_INDIRECT,
				     p->max_indirect_segs);
	if (!err)
		err = xbb_write_uint(xbt, be, XBLK_KEY_PERSISTENT,
				     p->persistent);
	return err;
}

/* Discard keys; honours the toolstack's "discard-enable". */
static int xbb_write_discard(struct xenbus_transaction xbt, struct xbb_dev *be)
{
	const struct xbb_vbd *vbd = &be->vbd;
	bool enable;
	int err;

	if (xblk_xs_read_flag(be->xdev->nodename, "discard-enable", true,
			      &enable))
		xbb_warn(be, "discard-enable is neither 0 nor 1: taken as 1");
	be->discard = vbd->discard && enable;
	if (be->discard) {
		err = xbb_write_uint(xbt, be, XBLK_KEY_DISCARD_GRAN,
				     vbd->discard_granularity);
		if (!err)
			err = xbb_write_uint(xbt, be, XBLK_KEY_DISCARD_ALIGN,
					     vbd->discard_alignment);
		if (!err)
			err = xbb_write_uint(xbt, be, XBLK_KEY_DISCARD_SECURE,
					     vbd->discard_secure);
		if (err)
			return err;
	}
	return xbb_write_uint(xbt, be, XBLK_KEY_DISCARD, be->discard);
}

/* The disk's keys, written just before Connected. */
static int xbb_write_disk(struct xenbus_transaction xbt, void *arg)
{
	struct xbb_dev *be = arg;
	const struct xbb_vbd *vbd = &be->vbd;
	int err;

	err = xbb_write_uint(xbt, be, XBLK_KEY_SECTORS, READ_ONCE(vbd->sectors));
	if (!err)
		err = xbb_write_uint(xbt, be, XBLK_KEY_INFO, vbd->info);
	if (!err)
		err = xbb_write_uint(xbt, be, XBLK_KEY_SECTOR_SIZE, vbd->lbs);
	if (!err)
		err = xbb_write_uint(xbt, be, XBLK_KEY_PHYS_SECTOR_SIZE,
				     vbd->pbs);
	if (!err)
		err = xbb_write_uint(xbt, be, XBLK_KEY_FLUSH, vbd->flush);
	if (!err)
		err = xbb_write_discard(xbt, be);
	/* Geometry hints: absent means "unknown". */
	if (!err && vbd->io_min)
		err = xbb_write_uint(xbt, be, XBLK_KEY_IO_MIN, vbd->io_min);
	if (!err && vbd->io_opt)
		err = xbb_write_uint(xbt, be, XBLK_KEY_IO_OPT, vbd->io_opt);
	if (!err && vbd->max_sectors)
		err = xbb_write_uint(xbt, be, XBLK_KEY_MAX_SECTORS,
				     vbd->max_sectors);
	return err;
}

/* The new size, and our state again (see xbb_resize_work()). */
static int xbb_write_size(struct xenbus_transaction xbt, void *arg)
{
	struct xbb_dev *be = arg;
	int err;

	err = xbb_write_uint(xbt, be, XBLK_KEY_SECTORS,
			     READ_ONCE(be->vbd.sectors));
	if (!err)
		err = xenbus_printf(xbt, be->xdev->nodename, "state", "%d",
				    be->xdev->state);
	return err;
}

/*
 * The backing device changed size.  Rewriting our "state" (same value)
 * fires the frontend's watch on it, and a connected frontend then re-reads
 * "sectors".  Runs only while connected: disconnecting cancels it before
 * the state changes.
 */
static void xbb_resize_work(struct work_struct *work)
{
	struct xbb_dev *be = container_of(work, struct xbb_dev, resize_work);
	int err;

	xbb_info(be, "backing device resized to %llu sectors",
		 READ_ONCE(be->vbd.sectors));
	err = xblk_xs_transact(xbb_write_size, be);
	if (err)
		xbb_warn(be, "could not announce the new size (%d)", err);
}

/* ------------------------------------------------------------------ */
/* Connecting.                                                         */

/* Ring teardowns (xbb_teardown_work()): they wait for guests' requests. */
static struct workqueue_struct *xbb_wq;

/* Publish or withdraw the rings for sysfs readers. */
static void xbb_set_rings(struct xbb_dev *be, struct xbb_ring *rings,
			  unsigned int nr)
{
	spin_lock(&be->rings_lock);
	be->rings = rings;
	be->nr_rings = nr;
	spin_unlock(&be->rings_lock);
}

/*
 * Stop and free rings: every request in flight is answered, every grant
 * unmapped, every page freed.  Sleeps as long as the guest's slowest
 * request: never call it on the xenwatch thread (see xbb_disconnect()).
 */
static void xbb_rings_destroy(struct xbb_dev *be, struct xbb_ring *rings,
			      unsigned int nr)
{
	bool lost = false;
	unsigned int i;

	for (i = 0; i < nr; i++)
		lost |= !xbb_thread_stop(&rings[i]);
	/* Ring 0's thread may have queued it until it stopped. */
	cancel_work_sync(&be->resize_work);
	if (lost)
		return;		/* bios may still point at the rings */
	/* Completions still inside xbb_req_done() (io.c). */
	synchronize_rcu();
	mutex_lock(&be->lock);
	for (i = 0; i < nr; i++)
		xbb_ring_unmap(&rings[i]);
	mutex_unlock(&be->lock);
	kfree(rings);
}

/*
 * Start taking the rings down.  The ring threads answer what is in flight,
 * which takes as long as the guest's slowest request (a whole-disk discard,
 * a flush on a slow device): xbb_teardown_work() waits for them, so that
 * the xenwatch thread, which runs every xenbus watch of dom0, never does.
 * Return: true when there is nothing left to take down; false while the
 * old rings are still stopping (the caller's state change waits for
 * xbb_teardown_work(), which replays the frontend's state).
 */
static bool xbb_disconnect(struct xbb_dev *be)
{
	lockdep_assert_held(&be->lock);
	if (be->rings) {
		be->old_rings = be->rings;
		be->nr_old_rings = be->nr_rings;
		be->threads_running = false;
		xbb_set_rings(be, NULL, 0);
		/* The work may run past remove: the device must stay. */
		get_device(&be->xdev->dev);
		queue_work(xbb_wq, &be->teardown_work);
	}
	return !be->old_rings;
}

/* Read what the frontend asks for, map its rings and publish them. */
static int xbb_map_rings(struct xbb_dev *be)
{
	struct xbb_ring *rings;
	unsigned int nr;
	int err;

	err = xbb_negotiate_rings(be, &rings, &nr);
	if (err)
		return err;
	xbb_set_rings(be, rings, nr);
	return 0;
}

/* Connect once both the rings and the backing device are there. */
static void xbb_try_connect(struct xbb_dev *be)
{
	struct xenbus_device *dev = be->xdev;
	const char *why;
	unsigned int i;
	int err;

	lockdep_assert_held(&be->lock);
	if (!be->vbd.bdev || !be->rings || be->threads_running)
		return;

	err = xblk_xs_transact(xbb_write_disk, be);
	if (err) {
		xbb_fatal(be, err, "writing the disk's keys");
		return;
	}
	err = xbb_qos_connect(be, &why);
	if (err) {
		xbb_fatal(be, err, "backend key xblk-cgroup: %s: not connecting",
			  why);
		return;
	}
	/* From the first thread on, the rings are the teardown work's to stop. */
	be->threads_running = true;
	for (i = 0; i < be->nr_rings; i++) {
		err = xbb_thread_start(&be->rings[i]);
		if (err)
			goto out_stop;
	}

	err = xenbus_switch_state(dev, XenbusStateConnected);
	if (err) {
		xbb_fatal(be, err, "switching to Connected");
		return;
	}
	xbb_info_state(be,
		       "connected: %u ring(s) of %u page(s), %s protocol, persistent grants %s, indirect segments %u",
		       be->nr_rings, 1U << be->ring_order,
		       be->abi == XBLK_ABI_X86_32 ? XBLK_PROTO_X86_32 :
		       be->abi == XBLK_ABI_X86_64 ? XBLK_PROTO_X86_64 :
		       "native",
		       be->persistent ? "on" : "off",
		       be->params.max_indirect_segs);
	return;

out_stop:
	/*
	 * The threads already started may be serving requests the guest had
	 * queued (a rebind): stopping them waits for those, which is the
	 * teardown work's job, never the xenwatch thread's.
	 */
	xbb_fatal(be, err, "starting the thread of ring %u (of %u)", i,
		  be->nr_rings);
	xbb_disconnect(be);
}

/* ------------------------------------------------------------------ */
/* Hotplug: the toolstack's script gives us the device.                */

/* Strict "major:minor" in hex, as the block script writes it. */
static int xbb_parse_physdev(const char *s, dev_t *devt)
{
	unsigned long major, minor;
	char *colon, buf[24];

	if (strscpy(buf, s, sizeof(buf)) < 0)
		return -EINVAL;
	colon = strchr(buf, ':');
	if (!colon)
		return -EINVAL;
	*colon = '\0';
	if (kstrtoul(buf, 16, &major) || kstrtoul(colon + 1, 16, &minor))
		return -EINVAL;
	if (major >= (1UL << (32 - MINORBITS)) || minor > MINORMASK)
		return -ERANGE;
	*devt = MKDEV(major, minor);
	return 0;
}

/*
 * "physical-device-path" (newer block scripts) names the same device; if
 * it is there and resolves to another device, major:minor went stale
 * between the script and us.
 */
static int xbb_check_physdev_path(struct xbb_dev *be, dev_t devt)
{
	char *path;
	dev_t d;
	int err;

	path = xblk_xs_read_str(be->xdev->nodename, "physical-device-path");
	if (IS_ERR(path))
		return PTR_ERR(path) == -ENOENT ? 0 : PTR_ERR(path);
	err = lookup_bdev(path, &d);
	if (err) {
		xbb_warn(be, "cannot look up physical-device-path %s (%d); using %u:%u",
			 path, err, MAJOR(devt), MINOR(devt));
		err = 0;
	} else if (d != devt) {
		xbb_warn(be, "physical-device-path %s is %u:%u, not %u:%u",
			 path, MAJOR(d), MINOR(d), MAJOR(devt), MINOR(devt));
		err = -ENODEV;
	}
	kfree(path);
	return err;
}

/*
 * Our "physical-device" key as a dev_t.  Return: 0; -ENOENT while the
 * hotplug script has not written it (the watch fires at once, before it
 * does); another negative errno when it is unreadable or malformed, which
 * is reported.
 */
static int xbb_read_physdev(struct xbb_dev *be, dev_t *devt)
{
	struct xenbus_device *dev = be->xdev;
	char *phys;
	int err;

	phys = xblk_xs_read_str(dev->nodename, "physical-device");
	if (PTR_ERR(phys) == -ENOENT)
		return -ENOENT;
	if (IS_ERR(phys)) {
		xenbus_dev_fatal(dev, PTR_ERR(phys), "reading physical-device");
		return PTR_ERR(phys);
	}
	err = xbb_parse_physdev(phys, devt);
	if (err)
		xenbus_dev_fatal(dev, err, "parsing physical-device \"%s\"",
				 phys);
	kfree(phys);
	return err;
}

/*
 * Open the backing device @devt in @mode (the toolstack's "mode": 'w' to
 * write, '!' to share it), a CD-ROM if the frontend says so.  Failures are
 * reported.
 */
static int xbb_open_physdev(struct xbb_dev *be, dev_t devt, const char *mode)
{
	struct xenbus_device *dev = be->xdev;
	char dir[32], *type, *vm;
	bool cdrom = false;
	int err;

	type = xblk_xs_read_str(dev->otherend, "device-type");
	if (!IS_ERR(type)) {
		cdrom = !strcmp(type, "cdrom");
		kfree(type);
	}
	/* the VM the domain runs (toolstack-written): vbd.c shares its claim */
	snprintf(dir, sizeof(dir), "/local/domain/%u", dev->otherend_id);
	vm = xblk_xs_read_str(dir, "vm");
	if (IS_ERR(vm))
		vm = NULL;

	err = xbb_check_physdev_path(be, devt);
	if (!err)
		err = xbb_vbd_open(be, devt, !strchr(mode, 'w'),
				   !!strchr(mode, '!'), cdrom, vm ?: "");
	kfree(vm);
	if (err)
		xenbus_dev_fatal(dev, err, "opening device %u:%u%s",
				 MAJOR(devt), MINOR(devt),
				 err == -EBUSY ? " (in use by another holder)" :
				 "");
	return err;
}

static void xbb_hotplug_changed(struct xenbus_watch *watch, const char *path,
				const char *token)
{
	struct xbb_dev *be = container_of(watch, struct xbb_dev, hp_watch);
	struct xenbus_device *dev = be->xdev;
	char *mode = NULL;
	dev_t devt;

	if (xbb_read_physdev(be, &devt))
		return;

	mutex_lock(&be->lock);
	if (be->vbd.bdev) {
		if (devt != be->vbd.devt)
			xbb_warn(be, "physical-device changed from %u:%u to %u:%u: not supported",
				 MAJOR(be->vbd.devt), MINOR(be->vbd.devt),
				 MAJOR(devt), MINOR(devt));
		goto out_unlock;
	}

	mode = xblk_xs_read_str(dev->nodename, "mode");
	if (IS_ERR(mode)) {
		xenbus_dev_fatal(dev, PTR_ERR(mode), "reading mode");
		mode = NULL;
		goto out_unlock;
	}
	if (xbb_open_physdev(be, devt, mode))
		goto out_unlock;
	xbb_info(be, "device %u:%u (%s), %llu sectors, %u/%u-byte blocks",
		 MAJOR(devt), MINOR(devt), mode, be->vbd.sectors,
		 be->vbd.lbs, be->vbd.pbs);
	xbb_try_connect(be);

out_unlock:
	mutex_unlock(&be->lock);
	kfree(mode);
}

/* ------------------------------------------------------------------ */
/* The frontend's state.                                               */

/*
 * Act on the frontend's state.  While old rings are still stopping, only
 * Closing is announced at once; everything else waits for
 * xbb_teardown_work(), which calls this again with the state of then.
 * Return: whether the device is to be unregistered (after the lock).
 */
static bool xbb_frontend_state(struct xbb_dev *be, enum xenbus_state fe_state)
{
	struct xenbus_device *dev = be->xdev;

	lockdep_assert_held(&be->lock);
	switch (fe_state) {
	case XenbusStateInitialising:
		/* Restarted without closing: start over. */
		if (dev->state == XenbusStateConnected ||
		    dev->state == XenbusStateClosing) {
			if (!xbb_disconnect(be))
				break;
		}
		if (dev->state != XenbusStateInitWait && !be->old_rings)
			xenbus_switch_state(dev, XenbusStateInitWait);
		break;

	case XenbusStateInitialised:
	case XenbusStateConnected:
		/*
		 * Two watch events may show the same state: connect once.
		 * Closing is where a failure to connect left us: the frontend
		 * has to close first, or we would retry without end.
		 */
		if (dev->state == XenbusStateConnected ||
		    dev->state == XenbusStateClosing)
			break;
		/* A frontend may skip Initialised, or come back from Closed. */
		if (!xbb_disconnect(be) || xbb_map_rings(be))
			break;
		xbb_try_connect(be);
		break;

	case XenbusStateClosing:
		xbb_disconnect(be);
		xenbus_switch_state(dev, XenbusStateClosing);
		break;

	case XenbusStateClosed:
		/* Closed only once nothing is mapped any more. */
		if (!xbb_disconnect(be))
			break;
		xenbus_switch_state(dev, XenbusStateClosed);
		return !xenbus_dev_is_online(dev);

	case XenbusStateUnknown:
		/* The frontend is gone (died, xl destroy): libxl awaits Closed. */
		if (!xbb_disconnect(be))
			break;
		xenbus_switch_state(dev, XenbusStateClosed);
		return true;

	default:
		xbb_warn_state(be, "ignoring frontend state %s",
			       xenbus_strstate(fe_state));
		break;
	}
	return false;
}

static void xbb_frontend_changed(struct xenbus_device *dev,
				 enum xenbus_state fe_state)
{
	struct xbb_dev *be = dev_get_drvdata(&dev->dev);
	bool unregister;

	mutex_lock(&be->lock);
	unregister = xbb_frontend_state(be, fe_state);
	mutex_unlock(&be->lock);

	if (unregister)
		device_unregister(&dev->dev);
}

static void xbb_free(struct xbb_dev *be)
{
	mutex_lock(&be->lock);
	xbb_vbd_close(be);
	mutex_unlock(&be->lock);
	xbb_qos_exit(be);
	kfree(be);
}

/*
 * Take the old rings down (sleeping as long as their requests take), then
 * catch up with what the frontend did meanwhile, or finish a remove.
 *
 * Where the frontend's state says to unregister the device, the work only
 * closes the backing device (so that the hotplug script can release it):
 * unregistering here could race with xenbus removing the same device on
 * the xenwatch thread when the toolstack deletes its directory, which it
 * does next.
 */
static void xbb_teardown_work(struct work_struct *work)
{
	struct xbb_dev *be = container_of(work, struct xbb_dev, teardown_work);
	struct xenbus_device *dev = be->xdev;
	bool removed;

	xbb_rings_destroy(be, be->old_rings, be->nr_old_rings);

	mutex_lock(&be->lock);
	be->old_rings = NULL;
	be->nr_old_rings = 0;
	removed = be->removed;
	if (!removed &&
	    xbb_frontend_state(be,
			       xenbus_read_driver_state(dev, dev->otherend)))
		xbb_vbd_close(be);
	mutex_unlock(&be->lock);

	if (removed)
		xbb_free(be);
	put_device(&dev->dev);
}

/* ------------------------------------------------------------------ */
/* Probe and remove.                                                   */

static int xbb_probe(struct xenbus_device *dev,
		     const struct xenbus_device_id *id)
{
	struct xbb_dev *be;
	char *disk;
	int err;

	be = kzalloc(sizeof(*be), GFP_KERNEL);
	if (!be) {
		xenbus_dev_fatal(dev, -ENOMEM, "allocating backend");
		return -ENOMEM;
	}
	be->xdev = dev;
	be->domid = dev->otherend_id;
	/* For tracepoints only: 0 if the node name has no number. */
	if (kstrtou32(strrchr(dev->nodename, '/') + 1, 10, &be->devid))
		be->devid = 0;
	disk = xblk_xs_read_str(dev->nodename, "dev");
	snprintf(be->name, sizeof(be->name), "d%u/%s", be->domid,
		 IS_ERR(disk) ? strrchr(dev->nodename, '/') + 1 : disk);
	if (!IS_ERR(disk))
		kfree(disk);
	xbb_log_init(be);
	xbb_qos_init(be);
	mutex_init(&be->lock);
	spin_lock_init(&be->rings_lock);
	INIT_WORK(&be->resize_work, xbb_resize_work);
	INIT_WORK(&be->teardown_work, xbb_teardown_work);
	xbb_params_get(&be->params);
	dev_set_drvdata(&dev->dev, be);

	err = xblk_xs_transact(xbb_write_limits, be);
	if (err) {
		xenbus_dev_fatal(dev, err, "advertising our limits");
		goto out_free;
	}
	err = xenbus_watch_pathfmt(dev, &be->hp_watch, NULL,
				   xbb_hotplug_changed, "%s/%s", dev->nodename,
				   "physical-device");
	if (err)
		goto out_free;
	err = xenbus_switch_state(dev, XenbusStateInitWait);
	if (err)
		goto out_unwatch;
	return 0;

out_unwatch:
	unregister_xenbus_watch(&be->hp_watch);
	kfree(be->hp_watch.node);
out_free:
	dev_set_drvdata(&dev->dev, NULL);
	kfree(be);
	return err;
}

static void xbb_remove(struct xenbus_device *dev)
{
	struct xbb_dev *be = dev_get_drvdata(&dev->dev);
	bool done;

	/* Before the lock: the watch callback takes it. */
	unregister_xenbus_watch(&be->hp_watch);
	kfree(be->hp_watch.node);
	be->hp_watch.node = NULL;

	mutex_lock(&be->lock);
	done = xbb_disconnect(be);
	/* Otherwise the teardown work frees the device when it is done. */
	be->removed = !done;
	mutex_unlock(&be->lock);

	dev_set_drvdata(&dev->dev, NULL);
	if (!done)
		return;
	/*
	 * A teardown that ran before may still be on its way out of
	 * mutex_unlock(&be->lock): it must be gone before @be is.
	 */
	flush_work(&be->teardown_work);
	xbb_free(be);
}

/*
 * dom0 is short of memory (xenbus calls this from its shrinker): have
 * every ring thread give its free pages back.  Must not block.
 */
static void xbb_reclaim_memory(struct xenbus_device *dev)
{
	struct xbb_dev *be = dev_get_drvdata(&dev->dev);
	unsigned int i;

	if (!be)
		return;
	spin_lock(&be->rings_lock);
	for (i = 0; i < be->nr_rings; i++) {
		set_bit(XBB_RING_TRIM, &be->rings[i].flags);
		wake_up(&be->rings[i].wq);
	}
	spin_unlock(&be->rings_lock);
}

static const struct xenbus_device_id xbb_ids[] = {
	{ "vbd" },
	{ "" }
};

static struct xenbus_driver xbb_driver = {
	.name = KBUILD_MODNAME,
	.ids = xbb_ids,
	.probe = xbb_probe,
	.remove = xbb_remove,
	.otherend_changed = xbb_frontend_changed,
	.reclaim_memory = xbb_reclaim_memory,
	/* Unbinding keeps the frontend connected: a reloaded backend resumes. */
	.allow_rebind = true,
	.driver = {
		.groups = xbb_drv_groups,
		.dev_groups = xbb_dev_groups,
	},
};

/**
 * xbb_xenbus_init() - register the backend driver
 *
 * Context: module init.
 * Return: 0 or a negative errno.
 */
int xbb_xenbus_init(void)
{
	int err;

	/* Sleeps in the guests' requests: not a system workqueue. */
	xbb_wq = alloc_workqueue("xblkback", WQ_UNBOUND, 0);
	if (!xbb_wq)
		return -ENOMEM;
	err = xenbus_register_backend(&xbb_driver);
	if (err)
		destroy_workqueue(xbb_wq);
	return err;
}

/**
 * xbb_xenbus_exit() - unregister the backend driver (removes every device)
 *
 * Context: module exit.
 */
void xbb_xenbus_exit(void)
{
	xenbus_unregister_driver(&xbb_driver);
	/* Teardowns that remove left to finish. */
	destroy_workqueue(xbb_wq);
}
