// SPDX-License-Identifier: GPL-2.0
/*
 * 6.5 .. 6.8: blkdev_get_by_dev() takes a blk_mode_t and holder ops, and a
 * non-NULL holder is what makes the open exclusive; blkdev_put() takes the
 * holder.  (6.1 has the fmode_t/FMODE_EXCL form with three arguments.)
 */
#include <linux/blkdev.h>

void probe(dev_t dev, void *holder);
void probe(dev_t dev, void *holder)
{
	struct block_device *b = blkdev_get_by_dev(dev, BLK_OPEN_READ, holder, NULL);

	if (!IS_ERR(b))
		blkdev_put(b, holder);
}
