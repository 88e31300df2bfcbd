// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: sysfs attributes of a backend device, on the xenbus device
 * (/sys/bus/xen-backend/devices/vbd-<domid>-<handle>/).  Documented in
 * Documentation/ABI/testing/sysfs-driver-xblkback.
 *
 * The counters live in each ring (single writer, no shared cache line);
 * a read sums them over the rings connected now.  They start from zero at
 * each connection.
 */
#include <linux/device.h>
#include <linux/sysfs.h>
#include <linux/kdev_t.h>

#include "blkback.h"

static struct xbb_dev *xbb_from_dev(struct device *d)
{
	return dev_get_drvdata(d);
}

/* Sum the u64 at @off in struct xbb_ring_stats over the rings. */
static u64 xbb_stat_sum(struct xbb_dev *be, size_t off)
{
	unsigned int i;
	u64 sum = 0;

	spin_lock(&be->rings_lock);
	for (i = 0; i < be->nr_rings; i++)
		sum += READ_ONCE(*(u64 *)((char *)&be->rings[i].stats + off));
	spin_unlock(&be->rings_lock);
	return sum;
}

static ssize_t xbb_stat_show(struct device *d, struct device_attribute *a,
			     char *buf)
{
	struct dev_ext_attribute *ea = container_of(a, struct dev_ext_attribute,
						    attr);

	return sysfs_emit(buf, "%llu\n",
			  xbb_stat_sum(xbb_from_dev(d), (size_t)ea->var));
}

/* dev_attr_<counter>, whose ->var is the counter's offset in the stats. */
#define XBB_STAT_ATTR(_name)						\
	static struct dev_ext_attribute dev_attr_##_name = {		\
		.attr.attr = { .name = #_name, .mode = 0444 },		\
		.attr.show = xbb_stat_show,				\
		.var = (void *)offsetof(struct xbb_ring_stats, _name),	\
	}

XBB_STAT_ATTR(rd_req);
XBB_STAT_ATTR(wr_req);
XBB_STAT_ATTR(f_req);
XBB_STAT_ATTR(ds_req);
XBB_STAT_ATTR(err_req);
XBB_STAT_ATTR(io_err);
XBB_STAT_ATTR(oo_req);
XBB_STAT_ATTR(map_retry);
XBB_STAT_ATTR(map_again);
XBB_STAT_ATTR(rd_sect);
XBB_STAT_ATTR(wr_sect);
XBB_STAT_ATTR(ds_sect);
XBB_STAT_ATTR(notify_in);
XBB_STAT_ATTR(notify_out);
XBB_STAT_ATTR(gnt_map);
XBB_STAT_ATTR(gnt_unmap);
XBB_STAT_ATTR(pgnt_hit);
XBB_STAT_ATTR(pgnt_evict);
XBB_STAT_ATTR(timer_polls);
XBB_STAT_ATTR(passes);

/* Persistent grants mapped now (a level, not a counter). */
static ssize_t persistent_grants_show(struct device *d,
				      struct device_attribute *a, char *buf)
{
	struct xbb_dev *be = xbb_from_dev(d);
	unsigned int i, sum = 0;

	spin_lock(&be->rings_lock);
	for (i = 0; i < be->nr_rings; i++)
		sum += READ_ONCE(be->rings[i].nr_pgrants);
	spin_unlock(&be->rings_lock);
	return sysfs_emit(buf, "%u\n", sum);
}
static DEVICE_ATTR_RO(persistent_grants);

/* Requests taken off the rings and not yet answered (a level). */
static ssize_t inflight_show(struct device *d, struct device_attribute *a,
			     char *buf)
{
	struct xbb_dev *be = xbb_from_dev(d);
	unsigned int i, sum = 0;

	spin_lock(&be->rings_lock);
	for (i = 0; i < be->nr_rings; i++)
		sum += READ_ONCE(be->rings[i].inflight);
	spin_unlock(&be->rings_lock);
	return sysfs_emit(buf, "%u\n", sum);
}
static DEVICE_ATTR_RO(inflight);

static struct attribute *xbb_stat_attrs[] = {
	&dev_attr_rd_req.attr.attr,
	&dev_attr_wr_req.attr.attr,
	&dev_attr_f_req.attr.attr,
	&dev_attr_ds_req.attr.attr,
	&dev_attr_err_req.attr.attr,
	&dev_attr_io_err.attr.attr,
	&dev_attr_oo_req.attr.attr,
	&dev_attr_map_retry.attr.attr,
	&dev_attr_map_again.attr.attr,
	&dev_attr_rd_sect.attr.attr,
	&dev_attr_wr_sect.attr.attr,
	&dev_attr_ds_sect.attr.attr,
	&dev_attr_notify_in.attr.attr,
	&dev_attr_notify_out.attr.attr,
	&dev_attr_gnt_map.attr.attr,
	&dev_attr_gnt_unmap.attr.attr,
	&dev_attr_pgnt_hit.attr.attr,
	&dev_attr_pgnt_evict.attr.attr,
	&dev_attr_timer_polls.attr.attr,
	&dev_attr_passes.attr.attr,
	&dev_attr_persistent_grants.attr,
	&dev_attr_inflight.attr,
	NULL
};

static const struct attribute_group xbb_stat_group = {
	.name = "statistics",
	.attrs = xbb_stat_attrs,
};

static ssize_t physical_device_show(struct device *d,
				    struct device_attribute *a, char *buf)
{
	dev_t devt = READ_ONCE(xbb_from_dev(d)->vbd.devt);

	return sysfs_emit(buf, "%x:%x\n", MAJOR(devt), MINOR(devt));
}
static DEVICE_ATTR_RO(physical_device);

static ssize_t nr_rings_show(struct device *d, struct device_attribute *a,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(xbb_from_dev(d)->nr_rings));
}
static DEVICE_ATTR_RO(nr_rings);

static ssize_t ring_page_order_show(struct device *d,
				    struct device_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", READ_ONCE(xbb_from_dev(d)->ring_order));
}
static DEVICE_ATTR_RO(ring_page_order);

static ssize_t persistent_show(struct device *d, struct device_attribute *a,
			       char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(xbb_from_dev(d)->persistent));
}
static DEVICE_ATTR_RO(persistent);

/* The cgroup v2 the device's I/O is charged to (qos.c). */
static ssize_t cgroup_show(struct device *d, struct device_attribute *a,
			   char *buf)
{
	return xbb_qos_show(xbb_from_dev(d), buf);
}

static ssize_t cgroup_store(struct device *d, struct device_attribute *a,
			    const char *buf, size_t count)
{
	int err = xbb_qos_store(xbb_from_dev(d), buf, count);

	return err ? err : count;
}
static DEVICE_ATTR_RW(cgroup);

static struct attribute *xbb_dev_attrs[] = {
	&dev_attr_physical_device.attr,
	&dev_attr_nr_rings.attr,
	&dev_attr_ring_page_order.attr,
	&dev_attr_persistent.attr,
	&dev_attr_cgroup.attr,
	NULL
};

static const struct attribute_group xbb_dev_group = {
	.attrs = xbb_dev_attrs,
};

/* Driver-wide levels, for leak checks: both 0 when no device is connected. */
static ssize_t grants_mapped_show(struct device_driver *drv, char *buf)
{
	long grants, pages;

	xbb_gnt_levels(&grants, &pages);
	return sysfs_emit(buf, "%ld\n", grants);
}
static DRIVER_ATTR_RO(grants_mapped);

static ssize_t pages_in_use_show(struct device_driver *drv, char *buf)
{
	long grants, pages;

	xbb_gnt_levels(&grants, &pages);
	return sysfs_emit(buf, "%ld\n", pages);
}
static DRIVER_ATTR_RO(pages_in_use);

static struct attribute *xbb_drv_attrs[] = {
	&driver_attr_grants_mapped.attr,
	&driver_attr_pages_in_use.attr,
	NULL
};

static const struct attribute_group xbb_drv_group = {
	.attrs = xbb_drv_attrs,
};

/* Attached to the driver (/sys/bus/xen-backend/drivers/xblkback/). */
const struct attribute_group *xbb_drv_groups[] = {
	&xbb_drv_group,
	NULL
};

/* Attached to every device the driver binds (struct device_driver). */
const struct attribute_group *xbb_dev_groups[] = {
	&xbb_dev_group,
	&xbb_stat_group,
	NULL
};
