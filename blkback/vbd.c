// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: the backing block device.  Open and close it (through the
 * compat.h wrappers: the API changed in 6.5, 6.7 and 6.9), and turn its
 * queue limits into the values the backend advertises.
 */
#include <linux/blkdev.h>
#include <linux/log2.h>

#include "blkback.h"

/* Largest xblk-max-sectors a frontend accepts (xenstore.h parser). */
#define XBB_MAX_SECTORS_HINT	BIT(22)

/*
 * An exclusive claim belongs to a VM, not to one vbd.  When a guest is
 * live-migrated to the same host (xl migrate to localhost), the arriving
 * domain's vbd opens the device while the leaving domain's, the same VM,
 * still holds it; the toolstack's block script lets a VM share a writable
 * device with itself (same "vm" path), and a claim shared by the two vbds
 * lets the kernel agree.  Another VM, a mount, md/dm still get -EBUSY.
 * The "vm" path is the toolstack's, read-only to the guest; a domain
 * without one gets a claim of its own.
 */
struct xbb_claim {
	struct list_head node;
	dev_t devt;
	unsigned int users;
	char vm[];
};

static LIST_HEAD(xbb_claims);
static DEFINE_MUTEX(xbb_claims_lock);

/*
 * The claim of VM @vm ("" = none) on @devt: taken (*@joined = true) or new.
 * Return: the claim, or NULL without memory.
 */
static struct xbb_claim *xbb_claim_get(dev_t devt, const char *vm,
				       bool *joined)
{
	size_t len = strlen(vm);
	struct xbb_claim *c;

	mutex_lock(&xbb_claims_lock);
	*joined = false;
	list_for_each_entry(c, &xbb_claims, node) {
		if (len && c->devt == devt && !strcmp(c->vm, vm)) {
			c->users++;
			*joined = true;
			goto out;
		}
	}
	c = kzalloc(struct_size(c, vm, len + 1), GFP_KERNEL);
	if (c) {
		c->devt = devt;
		c->users = 1;
		memcpy(c->vm, vm, len + 1);
		list_add(&c->node, &xbb_claims);
	}
out:
	mutex_unlock(&xbb_claims_lock);
	return c;
}

/* Drop a claim taken by xbb_claim_get(), after the device is closed. */
static void xbb_claim_put(struct xbb_claim *c)
{
	if (!c)
		return;
	mutex_lock(&xbb_claims_lock);
	if (!--c->users) {
		list_del(&c->node);
		kfree(c);
	}
	mutex_unlock(&xbb_claims_lock);
}

/* Round @v down to a multiple of @unit (a power of two); 0 stays 0. */
static unsigned int xbb_round_down(unsigned int v, unsigned int unit)
{
	return v & ~(unit - 1);
}

/*
 * Discard geometry a frontend can use: the granularity a power of two of at
 * least one logical block, the alignment a multiple of the logical block
 * below the granularity.  Discard is advisory, so rounding a RAID's
 * non-power-of-two granularity down only costs some effectiveness.
 */
static void xbb_vbd_discard_limits(struct xbb_vbd *vbd,
				   struct block_device *bdev)
{
	unsigned int gran = max(bdev_discard_granularity(bdev), vbd->lbs);
	unsigned int align = bdev_discard_alignment(bdev);

	if (!is_power_of_2(gran))
		gran = rounddown_pow_of_two(gran);
	gran = min(gran, 1U << 30);
	align %= gran;
	if (align % vbd->lbs)
		align = 0;
	vbd->discard_granularity = gran;
	vbd->discard_alignment = align;
}

/* Preferred I/O geometry, for the xblk-io-min/io-opt/max-sectors keys. */
static void xbb_vbd_geometry(struct xbb_vbd *vbd, struct block_device *bdev)
{
	struct request_queue *q = bdev_get_queue(bdev);
	unsigned int max = queue_max_sectors(q);
	unsigned int chunk = q->limits.chunk_sectors;
	unsigned int lbs_sectors = vbd->lbs >> SECTOR_SHIFT;

	/* A request crossing a chunk boundary is split: do not ask for more. */
	if (chunk)
		max = min(max, chunk);
	max = min(max, XBB_MAX_SECTORS_HINT);
	vbd->max_sectors = xbb_round_down(max, lbs_sectors);

	vbd->io_min = min(xbb_round_down(bdev_io_min(bdev), vbd->lbs),
			  1U << 30);
	vbd->io_opt = min(xbb_round_down(bdev_io_opt(bdev), vbd->lbs),
			  1U << 30);
}

/*
 * Open @devt for @be (for writing unless @read_only): exclusively under VM
 * @vm's claim on it unless @shared or @read_only, else without a claim.
 */
static int xbb_vbd_claim_open(struct xbb_dev *be, dev_t devt, bool read_only,
			      bool shared, const char *vm)
{
	struct xbb_vbd *vbd = &be->vbd;
	bool joined = false;
	int err;

	if (!read_only && !shared) {
		vbd->claim = xbb_claim_get(devt, vm, &joined);
		if (!vbd->claim)
			return -ENOMEM;
	}
	err = xb_bdev_open(&vbd->xb, devt, !read_only, vbd->claim);
	if (err) {
		xbb_claim_put(vbd->claim);
		vbd->claim = NULL;
		return err;
	}
	if (joined)
		xbb_info(be, "device %u:%u: sharing the claim of another vbd of %s",
			 MAJOR(devt), MINOR(devt), vm);
	return 0;
}

/**
 * xbb_vbd_open() - open the backing device and record what it offers
 * @be: the backend device; @be->vbd must be closed
 * @devt: device number from "physical-device"
 * @read_only: the toolstack's mode has no 'w'
 * @shared: the mode has '!' (writable and shared with other domains)
 * @cdrom: the frontend's device-type is "cdrom"
 * @vm: the frontend domain's "vm" path, "" if it has none
 *
 * A writable device is claimed exclusively, unless the toolstack said it is
 * shared: if a file system, md/dm or another VM's backend already holds it
 * exclusively, the open fails with -EBUSY rather than corrupt it.  The
 * claim is the VM's (struct xbb_claim): another vbd of the same VM, the
 * arriving domain of a migration to this host, may hold it too.
 *
 * Context: process context, under @be->lock.
 * Return: 0 or a negative errno.
 */
int xbb_vbd_open(struct xbb_dev *be, dev_t devt, bool read_only, bool shared,
		 bool cdrom, const char *vm)
{
	struct xbb_vbd *vbd = &be->vbd;
	struct block_device *bdev;
	int err;

	lockdep_assert_held(&be->lock);
	if (WARN_ON_ONCE(vbd->bdev))
		return -EBUSY;

	err = xbb_vbd_claim_open(be, devt, read_only, shared, vm);
	if (err)
		return err;
	bdev = vbd->xb.bdev;

	vbd->lbs = bdev_logical_block_size(bdev);
	if (vbd->lbs > XEN_PAGE_SIZE) {
		/* blkif segments are at most one page: such a disk is unusable. */
		err = -EINVAL;
		goto out_close;
	}
	vbd->pbs = bdev_physical_block_size(bdev);
	vbd->devt = devt;
	vbd->read_only = read_only;
	vbd->shared = shared;
	vbd->info = read_only ? VDISK_READONLY : 0;
	if (cdrom || disk_to_cdi(bdev->bd_disk))
		vbd->info |= VDISK_CDROM;
	if (bdev->bd_disk->flags & GENHD_FL_REMOVABLE)
		vbd->info |= VDISK_REMOVABLE;
	WRITE_ONCE(vbd->sectors, bdev_nr_sectors(bdev));

	/*
	 * Flush is offered for every writable device: when the device has no
	 * volatile cache the block layer completes an empty flush at once,
	 * and a cache that is switched on later is still flushed.
	 */
	vbd->flush = !read_only;
	vbd->discard = !read_only && bdev_max_discard_sectors(bdev);
	vbd->discard_secure = vbd->discard &&
			      bdev_max_secure_erase_sectors(bdev);
	if (vbd->discard)
		xbb_vbd_discard_limits(vbd, bdev);
	xbb_vbd_geometry(vbd, bdev);

	vbd->bdev = bdev;
	return 0;

out_close:
	xb_bdev_close(&vbd->xb);
	xbb_claim_put(vbd->claim);
	vbd->claim = NULL;
	return err;
}

/**
 * xbb_vbd_close() - close the backing device if it is open
 * @be: the backend device; no request may be in flight
 *
 * Context: process context, under @be->lock.
 */
void xbb_vbd_close(struct xbb_dev *be)
{
	struct xbb_vbd *vbd = &be->vbd;

	lockdep_assert_held(&be->lock);
	if (!vbd->bdev)
		return;
	xb_bdev_close(&vbd->xb);
	vbd->bdev = NULL;
	xbb_claim_put(vbd->claim);
	vbd->claim = NULL;
}

/**
 * xbb_vbd_refresh_size() - pick up a resize of the backing device
 * @vbd: an open vbd
 *
 * Context: the thread of ring 0 (the only writer of @vbd->sectors once
 * connected).
 * Return: true if the capacity changed.
 */
bool xbb_vbd_refresh_size(struct xbb_vbd *vbd)
{
	u64 now = bdev_nr_sectors(vbd->bdev);

	if (now == READ_ONCE(vbd->sectors))
		return false;
	WRITE_ONCE(vbd->sectors, now);
	return true;
}
