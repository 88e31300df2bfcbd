// SPDX-License-Identifier: GPL-2.0
/* 6.9: atomic queue limit updates. */
#include <linux/blkdev.h>

int probe(struct request_queue *q);
int probe(struct request_queue *q)
{
	struct queue_limits lim = queue_limits_start_update(q);

	return queue_limits_commit_update(q, &lim);
}
