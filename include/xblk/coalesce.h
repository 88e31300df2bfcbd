/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event coalescing, one rule for both directions of a ring: how many
 * entries a side asks its peer to publish before the next event (xblkback:
 * req_event that far past the requests taken; xblkfront: rsp_event past
 * the responses taken), and how long an entry may wait for the rest of its
 * batch before a timer looks anyway.  Shared by both drivers and the
 * userspace unit tests (tests/unit/test_coalesce.c).
 *
 * The batch follows what the passes find.  It grows to what a pass woken
 * by an event found beyond it (more came while the event was delivered)
 * and to a quarter of what the peer has outstanding (the peer keeps that
 * many going, so that many will come).  An event's pass that found no more
 * than the batch lowers it by one: the peer may be waiting for us with the
 * rest (a closed loop: its submitters need our answers to go on), and the
 * event came only because a slower stream filled the batch.  Without that
 * step a batch of 3 against two such submitters and one slow stream was
 * met at the slow stream's pace, every time.  A pass made for another
 * reason (a completion) that took part of a batch lowers it by one too:
 * those entries waited for it, not for an event, and at queue depth 2 on a
 * slow disk a batch of 2 met only by completions held every request for
 * the other's completion.  When the timer had to look, the batch halves,
 * and no more than the timer found; to 1 if it found nothing: the load is
 * gone.  At queue depth 1 a pass finds one entry and one is outstanding at
 * most, so the batch stays 1: an event per entry and no timer.  The wait
 * is twice the time the batch takes to arrive at the recent rate, within
 * the caller's bounds; the rate is sampled by the passes the timer did not
 * make, since the timer's own delay is not the peer's pace.  A pass that
 * can neither grow the batch nor make anything wait (queue depth 1) does
 * not read the clock at all: xblk_coalesce_needs_time().
 */
#ifndef XBLK_COALESCE_H
#define XBLK_COALESCE_H

#include <xblk/base.h>

/*
 * The batch may grow to this share of what the peer has outstanding.  Half
 * was too much for a closed loop at queue depth 4 on a 1 ms disk: a batch
 * of 2 held every other request for the next one, 0.89x the in-tree pair's
 * rate (Documentation/bench.rst, "Closed loops").
 */
#define XBLK_COALESCE_SHARE	4

/* After this long without a pass the time between entries is forgotten. */
#define XBLK_COALESCE_STALE_NS	1000000000ULL

/*
 * Events that found the CPU idle, as a share of XBLK_COALESCE_IDLE_ONE
 * (moving average over about 16 events; a side that does not say, as
 * xblkback does not, stays at 0).  From XBLK_COALESCE_IDLE_STOP on the
 * side is waiting for its peer, not busy: an event saves it nothing, and
 * an entry held for its batch only delays a closed loop (a guest whose
 * random reads wait on a slow disk), so the batch is 1.
 */
#define XBLK_COALESCE_IDLE_ONE	256
#define XBLK_COALESCE_IDLE_STOP	(XBLK_COALESCE_IDLE_ONE * 7 / 8)

/**
 * struct xblk_coalesce - the coalescing state of one ring direction
 * @batch: entries to ask for before the next event, >= 1
 * @gap_ns: time between two entries, moving average (1/8 per pass the
 *	timer did not make); 0 while unknown
 * @last_ns: when the last pass took entries; 0: never, or not read
 * @idle_share: events that found the CPU idle (XBLK_COALESCE_IDLE_ONE:
 *	all), see xblk_coalesce_idle()
 */
struct xblk_coalesce {
	unsigned int batch;
	u32 gap_ns;
	u64 last_ns;
	unsigned int idle_share;
};

/**
 * enum xblk_pass_cause - what made a side look at its ring
 * @XBLK_PASS_EVENT: the peer's event
 * @XBLK_PASS_TIMER: the coalescing timer, without an event
 * @XBLK_PASS_OTHER: anything else (xblkback: a completion); it lowers the
 *	batch by one if it took part of one
 */
enum xblk_pass_cause {
	XBLK_PASS_EVENT,
	XBLK_PASS_TIMER,
	XBLK_PASS_OTHER,
};

/**
 * xblk_coalesce_reset() - no batch, nothing known
 * @c: state
 */
static inline void xblk_coalesce_reset(struct xblk_coalesce *c)
{
	c->batch = 1;
	c->gap_ns = 0;
	c->last_ns = 0;
	c->idle_share = 0;
}

/**
 * xblk_coalesce_idle() - note whether an event found the CPU idle
 * @c: state
 * @idle: the event interrupted the idle task
 *
 * Called for each event, before xblk_coalesce_pass().
 */
static inline void xblk_coalesce_idle(struct xblk_coalesce *c, bool idle)
{
	c->idle_share = c->idle_share - c->idle_share / 16 +
			(idle ? XBLK_COALESCE_IDLE_ONE / 16 : 0);
}

/**
 * xblk_coalesce_needs_time() - whether a pass must read the clock
 * @c: state
 * @found: entries the pass took
 * @outstanding: entries the peer had outstanding when the pass began
 *
 * A pass that took one entry of one outstanding, under a batch of 1, can
 * neither grow the batch nor set a wait, and the next gap can be measured
 * from the next pass that reads the clock.  That is every pass at queue
 * depth 1, where a clock read is a share of the round trip worth saving:
 * in a PV guest whose TSC Xen emulates, it traps into Xen
 * (Documentation/bench.rst, "Clock reads at queue depth 1").
 *
 * Return: whether xblk_coalesce_pass() needs @now_ns.
 */
static inline bool xblk_coalesce_needs_time(const struct xblk_coalesce *c,
					    unsigned int found,
					    unsigned int outstanding)
{
	return found && (found > 1 || outstanding > 1 || c->batch > 1);
}

/**
 * xblk_coalesce_pass() - account one pass and choose the next batch
 * @c: state
 * @now_ns: the time of the pass (a monotonic clock), or 0 if
 *	xblk_coalesce_needs_time() said it is not needed
 * @found: entries the pass took
 * @outstanding: entries the peer had outstanding when the pass began
 *	(bounded by the ring's size by the caller: a peer may lie)
 * @cause: what woke the pass
 * @max: the most entries to ask for, >= 1 (a module parameter)
 */
static inline void xblk_coalesce_pass(struct xblk_coalesce *c, u64 now_ns,
				      unsigned int found,
				      unsigned int outstanding,
				      enum xblk_pass_cause cause,
				      unsigned int max)
{
	unsigned int batch = min(c->batch, max);

	if (found) {
		if (now_ns && cause != XBLK_PASS_TIMER && c->last_ns &&
		    now_ns - c->last_ns < XBLK_COALESCE_STALE_NS) {
			u32 gap = (u32)div_u64(now_ns - c->last_ns, found);

			c->gap_ns = c->gap_ns ? c->gap_ns - c->gap_ns / 8 + gap / 8 :
					gap;
		}
		/* 0: not read, so the next gap has nothing to start from */
		c->last_ns = now_ns;
	}
	if (cause == XBLK_PASS_OTHER && found && found < batch) {
		/*
		 * Taken by a pass for another reason (a completion) before
		 * the batch was there: they waited for it, not for an event.
		 */
		batch--;
	} else if (cause == XBLK_PASS_TIMER) {
		batch = min(found, batch / 2);
	} else if (cause == XBLK_PASS_EVENT) {
		if (found > batch)
			batch = found;
		else
			batch--;
		if (outstanding / XBLK_COALESCE_SHARE > batch)
			batch = outstanding / XBLK_COALESCE_SHARE;
	}
	/* Waiting, not busy: nothing to save, a closed loop to delay. */
	if (c->idle_share >= XBLK_COALESCE_IDLE_STOP)
		batch = 1;
	c->batch = max_t(unsigned int, 1, min(batch, max));
}

/**
 * xblk_coalesce_wait() - how long entries may wait for their batch
 * @c: state
 * @min_ns: the shortest wait
 * @cap_ns: the longest (a module parameter), >= @min_ns
 *
 * Return: twice the time @c->batch entries take at the recent rate, within
 * [@min_ns, @cap_ns]; @min_ns while the rate is unknown.
 */
static inline u64 xblk_coalesce_wait(const struct xblk_coalesce *c,
				     u64 min_ns, u64 cap_ns)
{
	return clamp_t(u64, 2ULL * c->batch * c->gap_ns, min_ns, cap_ns);
}

#endif /* XBLK_COALESCE_H */
