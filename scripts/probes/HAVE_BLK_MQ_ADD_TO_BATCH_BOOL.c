// SPDX-License-Identifier: GPL-2.0
/* 6.12: blk_mq_add_to_batch() takes "bool is_error" instead of "int ioerror". */
#include <linux/blk-mq.h>

static void probe_complete(struct io_comp_batch *iob) { }

bool probe(struct request *rq, struct io_comp_batch *iob);
bool probe(struct request *rq, struct io_comp_batch *iob)
{
	bool (*fn)(struct request *, struct io_comp_batch *, bool,
		   void (*)(struct io_comp_batch *)) = blk_mq_add_to_batch;

	return fn(rq, iob, false, probe_complete);
}
