// SPDX-License-Identifier: GPL-2.0
/* Removed in 6.14: merging became the default for every tag set. */
#include <linux/blk-mq.h>

unsigned int probe(void);
unsigned int probe(void)
{
	return BLK_MQ_F_SHOULD_MERGE;
}
