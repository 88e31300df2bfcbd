// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront sysfs: the negotiated configuration as attributes of the xenbus
 * device, and per-queue counters in its queue-N/ directories
 * (Documentation/ABI/testing/sysfs-driver-xblkfront).  With the disk at
 * /sys/block/xvdX, both are under /sys/block/xvdX/device/.
 */
#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "blkfront.h"

/* ------------------------------ queue-N/ ------------------------------ */

struct xbf_stat_attr {
	struct attribute attr;
	size_t offset;
};

/* queue-N/: a kobject of ours over the ring's counters. */
struct xbf_stats_dir {
	struct kobject kobj;
	struct xbf_stats *st;
};

static ssize_t xbf_stat_show(struct kobject *kobj, struct attribute *attr,
			     char *buf)
{
	struct xbf_stats_dir *d = container_of(kobj, struct xbf_stats_dir, kobj);
	struct xbf_stat_attr *sa = container_of(attr, struct xbf_stat_attr, attr);

	return sysfs_emit(buf, "%llu\n",
			  READ_ONCE(*(u64 *)((char *)d->st + sa->offset)));
}

static const struct sysfs_ops xbf_stat_ops = {
	.show = xbf_stat_show,
};

#define XBF_STAT(field)							\
	static struct xbf_stat_attr xbf_stat_##field = {		\
		.attr = { .name = #field, .mode = 0444 },		\
		.offset = offsetof(struct xbf_stats, field),		\
	}

XBF_STAT(reads);
XBF_STAT(writes);
XBF_STAT(flushes);
XBF_STAT(discards);
XBF_STAT(read_sectors);
XBF_STAT(write_sectors);
XBF_STAT(indirect);
XBF_STAT(ring_full);
XBF_STAT(notify_out);
XBF_STAT(notify_in);
XBF_STAT(spurious);
XBF_STAT(responses);
XBF_STAT(errors);
XBF_STAT(timer_polls);
XBF_STAT(ring_stopped);
XBF_STAT(idle_irqs);
XBF_STAT(data_grants);

static struct attribute *xbf_stat_attrs[] = {
	&xbf_stat_reads.attr,
	&xbf_stat_writes.attr,
	&xbf_stat_flushes.attr,
	&xbf_stat_discards.attr,
	&xbf_stat_read_sectors.attr,
	&xbf_stat_write_sectors.attr,
	&xbf_stat_indirect.attr,
	&xbf_stat_ring_full.attr,
	&xbf_stat_notify_out.attr,
	&xbf_stat_notify_in.attr,
	&xbf_stat_spurious.attr,
	&xbf_stat_responses.attr,
	&xbf_stat_errors.attr,
	&xbf_stat_timer_polls.attr,
	&xbf_stat_ring_stopped.attr,
	&xbf_stat_idle_irqs.attr,
	&xbf_stat_data_grants.attr,
	NULL
};
ATTRIBUTE_GROUPS(xbf_stat);

static void xbf_stats_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct xbf_stats_dir, kobj));
}

static const struct kobj_type xbf_stats_ktype = {
	.release = xbf_stats_release,
	.sysfs_ops = &xbf_stat_ops,
	.default_groups = xbf_stat_groups,
};

static void xbf_stats_del_one(struct xbf_ring *ring)
{
	if (!ring->stats_dir)
		return;
	/* Returns once no show of it runs any more: the counters may go. */
	kobject_del(ring->stats_dir);
	kobject_put(ring->stats_dir);
	ring->stats_dir = NULL;
}

/**
 * xbf_stats_add() - show every ring's counters as queue-N/
 * @info: the disk, its rings allocated
 *
 * Context: process context, info->mutex held.
 * Return: 0 or a negative errno (nothing shown then).
 */
int xbf_stats_add(struct xbf_info *info)
{
	struct xbf_stats_dir *d;
	unsigned int i;
	int err;

	lockdep_assert_held(&info->mutex);
	for (i = 0; i < info->nr_rings; i++) {
		struct xbf_ring *ring = &info->rings[i];

		d = kzalloc(sizeof(*d), GFP_KERNEL);
		if (!d) {
			err = -ENOMEM;
			goto out_del;
		}
		d->st = &ring->stats;
		err = kobject_init_and_add(&d->kobj, &xbf_stats_ktype,
					   &info->xbdev->dev.kobj, "queue-%u",
					   ring->index);
		if (err) {
			kobject_put(&d->kobj);
			goto out_del;
		}
		ring->stats_dir = &d->kobj;
	}
	return 0;

out_del:
	xbf_stats_del(info);
	return err;
}

/**
 * xbf_stats_del() - remove every ring's queue-N/
 * @info: the disk
 *
 * Context: process context, info->mutex held; before the rings are freed.
 */
void xbf_stats_del(struct xbf_info *info)
{
	unsigned int i;

	lockdep_assert_held(&info->mutex);
	for (i = 0; i < info->nr_rings; i++)
		xbf_stats_del_one(&info->rings[i]);
}

/* --------------------- negotiated configuration ----------------------- */

static ssize_t xbf_show(struct device *dev, char *buf,
			unsigned int (*get)(const struct xbf_info *info))
{
	struct xbf_info *info = dev_get_drvdata(dev);
	unsigned int v;

	if (!info)
		return -ENODEV;
	mutex_lock(&info->mutex);
	v = info->state == XBF_CONNECTED ? get(info) : 0;
	mutex_unlock(&info->mutex);
	return sysfs_emit(buf, "%u\n", v);
}

#define XBF_DEV_ATTR(attr_name, expr)					\
	static unsigned int xbf_get_##attr_name(const struct xbf_info *info) \
	{								\
		return expr;						\
	}								\
	static ssize_t attr_name##_show(struct device *dev,		\
					struct device_attribute *attr,	\
					char *buf)			\
	{								\
		return xbf_show(dev, buf, xbf_get_##attr_name);		\
	}								\
	static DEVICE_ATTR_RO(attr_name)

XBF_DEV_ATTR(nr_queues, info->nr_rings);
XBF_DEV_ATTR(ring_page_order, info->neg.ring_order);
XBF_DEV_ATTR(max_segments, info->neg.segs);
XBF_DEV_ATTR(indirect, info->neg.indirect);
XBF_DEV_ATTR(persistent, info->neg.persistent);
XBF_DEV_ATTR(bounce, info->bounce);
XBF_DEV_ATTR(flush, info->flush_op != 0);
XBF_DEV_ATTR(discard, info->be.discard);

/* Runtime-tunable: see xbf_dispatch_set_max(). */
static ssize_t max_inflight_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct xbf_info *info = dev_get_drvdata(dev);

	if (!info)
		return -ENODEV;
	return sysfs_emit(buf, "%u\n", READ_ONCE(info->dp.max_inflight));
}

static ssize_t max_inflight_store(struct device *dev,
				  struct device_attribute *attr,
				  const char *buf, size_t count)
{
	struct xbf_info *info = dev_get_drvdata(dev);
	unsigned int v;
	int err;

	if (!info)
		return -ENODEV;
	err = kstrtouint(buf, 0, &v);
	if (err)
		return err;
	if (v > XBF_MAX_INFLIGHT)
		return -ERANGE;
	mutex_lock(&info->mutex);
	xbf_dispatch_set_max(info, v);
	mutex_unlock(&info->mutex);
	return count;
}
static DEVICE_ATTR_RW(max_inflight);

static ssize_t budget_denied_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct xbf_info *info = dev_get_drvdata(dev);

	if (!info)
		return -ENODEV;
	return sysfs_emit(buf, "%lu\n", atomic_long_read(&info->dp.denied));
}
static DEVICE_ATTR_RO(budget_denied);

/* Requests holding budget now: with nothing in flight it must read 0. */
static ssize_t budget_held_show(struct device *dev,
				struct device_attribute *attr, char *buf)
{
	struct xbf_info *info = dev_get_drvdata(dev);

	if (!info)
		return -ENODEV;
	return sysfs_emit(buf, "%d\n", atomic_read(&info->dp.inflight));
}
static DEVICE_ATTR_RO(budget_held);

/* The bound a sequential stream gets now: the window (dispatch.c). */
static ssize_t budget_bound_show(struct device *dev,
				 struct device_attribute *attr, char *buf)
{
	struct xbf_info *info = dev_get_drvdata(dev);

	if (!info)
		return -ENODEV;
	return sysfs_emit(buf, "%u\n", xbf_dispatch_window(info));
}
static DEVICE_ATTR_RO(budget_bound);

/* Requests that reached the I/O timeout unanswered, each time they did. */
static ssize_t timeouts_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	struct xbf_info *info = dev_get_drvdata(dev);

	if (!info)
		return -ENODEV;
	return sysfs_emit(buf, "%lu\n", atomic_long_read(&info->timeouts));
}
static DEVICE_ATTR_RO(timeouts);

static struct attribute *xbf_dev_attrs[] = {
	&dev_attr_max_inflight.attr,
	&dev_attr_budget_denied.attr,
	&dev_attr_budget_held.attr,
	&dev_attr_budget_bound.attr,
	&dev_attr_timeouts.attr,
	&dev_attr_nr_queues.attr,
	&dev_attr_ring_page_order.attr,
	&dev_attr_max_segments.attr,
	&dev_attr_indirect.attr,
	&dev_attr_persistent.attr,
	&dev_attr_bounce.attr,
	&dev_attr_flush.attr,
	&dev_attr_discard.attr,
	NULL
};

static const struct attribute_group xbf_dev_group = {
	.name = "xblk",
	.attrs = xbf_dev_attrs,
};

const struct attribute_group *xbf_dev_groups[] = {
	&xbf_dev_group,
	NULL
};
