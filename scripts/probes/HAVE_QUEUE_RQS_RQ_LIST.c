// SPDX-License-Identifier: GPL-2.0
/* 6.13 (and Debian's 6.12 backport): ->queue_rqs() takes a struct rq_list. */
#include <linux/blk-mq.h>

static void probe_queue_rqs(struct rq_list *rqlist)
{
	rq_list_pop(rqlist);
}

const struct blk_mq_ops probe_ops = {
	.queue_rqs = probe_queue_rqs,
};
