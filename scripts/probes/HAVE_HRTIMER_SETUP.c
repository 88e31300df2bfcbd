// SPDX-License-Identifier: GPL-2.0
/*
 * 6.13 added hrtimer_setup(), which sets the callback together with the
 * clock and mode; 6.15 removed hrtimer_init(), after which the callback
 * was assigned by hand.
 */
#include <linux/hrtimer.h>

void probe(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *));
void probe(struct hrtimer *t, enum hrtimer_restart (*fn)(struct hrtimer *))
{
	hrtimer_setup(t, fn, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
}
