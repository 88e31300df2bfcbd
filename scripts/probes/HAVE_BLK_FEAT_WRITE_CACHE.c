// SPDX-License-Identifier: GPL-2.0
/* 6.11: write cache and FUA are queue_limits features. */
#include <linux/blkdev.h>

void probe(struct queue_limits *lim);
void probe(struct queue_limits *lim)
{
	lim->features |= BLK_FEAT_WRITE_CACHE | BLK_FEAT_FUA;
}
