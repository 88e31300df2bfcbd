// SPDX-License-Identifier: GPL-2.0
/*
 * After 6.12 (7.2 has it): ratelimit_state.missed became an atomic_t,
 * counted also when __ratelimit() loses the race for the state's lock, and
 * ratelimit_state_reset_miss() reads and clears it; before, missed was a
 * plain int that ___ratelimit() updates under the state's raw spinlock.
 */
#include <linux/ratelimit.h>

int probe(struct ratelimit_state *rs);
int probe(struct ratelimit_state *rs)
{
	return ratelimit_state_reset_miss(rs);
}
