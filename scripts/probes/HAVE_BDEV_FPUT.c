// SPDX-License-Identifier: GPL-2.0
/* 6.10: bdev_fput() releases a block device file and its claim at once. */
#include <linux/blkdev.h>
#include <linux/fs.h>

void probe(struct file *f);
void probe(struct file *f)
{
	bdev_fput(f);
}
