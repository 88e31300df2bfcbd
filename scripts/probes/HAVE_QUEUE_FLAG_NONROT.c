// SPDX-License-Identifier: GPL-2.0
/*
 * Up to 6.10: a queue is rotational unless QUEUE_FLAG_NONROT is set, as
 * paravirtual drivers do (QUEUE_FLAG_VIRT is an alias of it).  6.11 made
 * rotation a queue_limits feature, BLK_FEAT_ROTATIONAL, off by default, and
 * removed the flag.
 */
#include <linux/blkdev.h>

void probe(struct request_queue *q);
void probe(struct request_queue *q)
{
	blk_queue_flag_set(QUEUE_FLAG_NONROT, q);
}
