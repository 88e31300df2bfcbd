// SPDX-License-Identifier: GPL-2.0
/* 6.9: block devices are opened as files, bdev_file_open_by_dev() + file_bdev(). */
#include <linux/blkdev.h>
#include <linux/fs.h>

struct block_device *probe(dev_t dev, void *holder);
struct block_device *probe(dev_t dev, void *holder)
{
	struct file *f = bdev_file_open_by_dev(dev, BLK_OPEN_READ | BLK_OPEN_WRITE,
					       holder, NULL);

	return IS_ERR(f) ? NULL : file_bdev(f);
}
