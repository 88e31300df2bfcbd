// SPDX-License-Identifier: GPL-2.0
/* 5.17 .. 6.12: ->queue_rqs() takes a struct request ** singly linked list. */
#include <linux/blk-mq.h>

static void probe_queue_rqs(struct request **rqlist)
{
	rq_list_pop(rqlist);
}

const struct blk_mq_ops probe_ops = {
	.queue_rqs = probe_queue_rqs,
};
