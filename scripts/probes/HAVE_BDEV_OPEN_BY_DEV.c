// SPDX-License-Identifier: GPL-2.0
/* 6.7 .. 6.8: bdev_open_by_dev() returns a struct bdev_handle. */
#include <linux/blkdev.h>

void probe(dev_t dev, void *holder);
void probe(dev_t dev, void *holder)
{
	struct bdev_handle *h = bdev_open_by_dev(dev, BLK_OPEN_READ, holder, NULL);

	if (!IS_ERR(h))
		bdev_release(h);
}
