// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront grant pools.
 *
 * Each ring owns a fixed number of grant references, reserved when the
 * disk connects, so the I/O path never allocates and the number of grants
 * (and, with persistent grants, of pages) a disk can pin is bounded.
 *
 * Two pools per ring:
 *  - data: with persistent grants, pages granted once (read-write, as
 *    backends map persistent grants read-write) that requests copy through;
 *    without, bare references granted on the bio pages for one request.
 *  - indirect: pages for indirect descriptor frames, granted once.
 */
#include <linux/gfp.h>
#include <linux/slab.h>
#include <xen/page.h>

#include "blkfront.h"

/**
 * xbf_pool_size() - data grants a ring starts with
 * @neg: negotiated configuration
 *
 * Enough for several of the largest requests at once, and never fewer than
 * XBF_MIN_GRANTS; the ring grows its pool under load (xbf_pool_cap()).
 *
 * Return: number of data grants per ring at connect.
 */
unsigned int xbf_pool_size(const struct xblk_negotiated *neg)
{
	return max_t(unsigned int, XBF_MIN_GRANTS, 4 * neg->segs);
}

/**
 * xbf_pool_cap() - data grants a ring may grow to
 * @neg: negotiated configuration
 * @nr_slots: the ring's size
 *
 * A device that serves many requests at once keeps the ring's slots busy
 * only if there are grants for what they carry: enough for a 64 KiB
 * request in every slot, within XBF_MAX_GRANTS.  More would only pin
 * grant-table entries (a domain has a few tens of thousands, shared with
 * every other device) and, with persistent grants, guest memory; a pool
 * grows to it only while requests are turned away for grants.
 *
 * Return: the most data grants per ring, at least xbf_pool_size().
 */
unsigned int xbf_pool_cap(const struct xblk_negotiated *neg,
			  unsigned int nr_slots)
{
	return max(xbf_pool_size(neg),
		   min_t(unsigned int, nr_slots * XBF_GRANTS_PER_SLOT,
			 XBF_MAX_GRANTS));
}

/*
 * Set up entries @pool->all[@pool->nr ..] (up to @n), not yet on the free
 * stack: a reference each and, for a pool with pages, a page granted to
 * the backend.  Only the one who may grow the pool calls this: the pool's
 * creator, then its ring's grow work.  Returns how many were set up; @err
 * says why not all.
 */
static unsigned int xbf_pool_prepare(struct xbf_pool *pool, unsigned int n,
				     gfp_t gfp, int *err)
{
	grant_ref_t head;
	unsigned int i;

	*err = gnttab_alloc_grant_references(n, &head);
	if (*err)
		return 0;
	for (i = 0; i < n; i++) {
		struct xbf_gnt *g = &pool->all[pool->nr + i];

		g->ref = gnttab_claim_grant_reference(&head);
		if (pool->pages) {
			g->page = alloc_page(gfp | __GFP_ZERO);
			if (!g->page) {
				gnttab_free_grant_reference(g->ref);
				*err = -ENOMEM;
				break;
			}
			gnttab_page_grant_foreign_access_ref_one(g->ref,
								 pool->domid,
								 g->page,
								 pool->readonly);
		}
	}
	if (i < n)
		gnttab_free_grant_references(head);
	return i;
}

/* Put @n prepared entries on the free stack (pool_lock held once shared). */
static void xbf_pool_publish(struct xbf_pool *pool, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		pool->free[pool->nr_free++] = &pool->all[pool->nr + i];
	pool->nr += n;
}

/**
 * xbf_pool_init() - reserve grant references, optionally with granted pages
 * @pool: the pool to fill
 * @nr: number of entries now
 * @cap: most entries it may grow to (at least @nr)
 * @with_pages: allocate a page per entry and grant it now
 * @domid: the backend's domain
 * @readonly: grant the pages read-only
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; on failure the pool is empty.
 */
int xbf_pool_init(struct xbf_pool *pool, unsigned int nr, unsigned int cap,
		  bool with_pages, domid_t domid, bool readonly)
{
	unsigned int done;
	int err;

	*pool = (struct xbf_pool){};
	if (!nr)
		return 0;
	cap = max(cap, nr);

	pool->all = kvcalloc(cap, sizeof(*pool->all), GFP_KERNEL);
	if (!pool->all)
		return -ENOMEM;
	pool->free = kvcalloc(cap, sizeof(*pool->free), GFP_KERNEL);
	if (!pool->free) {
		err = -ENOMEM;
		goto out_free_all;
	}
	pool->cap = cap;
	pool->domid = domid;
	pool->pages = with_pages;
	pool->readonly = readonly;

	done = xbf_pool_prepare(pool, nr, GFP_KERNEL, &err);
	xbf_pool_publish(pool, done);
	if (done < nr)
		goto out_destroy;
	return 0;

out_destroy:
	xbf_pool_destroy(pool);	/* what was set up, and both arrays */
	return err;
out_free_all:
	kvfree(pool->all);
	*pool = (struct xbf_pool){};
	return err;
}

/**
 * xbf_pool_destroy() - revoke and free every grant of a pool
 * @pool: the pool; no entry may belong to a request in flight (entries of
 *	  requests failed unanswered are off the free stack: xbf_abandon())
 *
 * A page the backend still maps is handed to gnttab_end_foreign_access(),
 * which frees it only once the backend lets go: we never reuse memory a
 * peer can still reach.
 *
 * Context: process context.
 */
void xbf_pool_destroy(struct xbf_pool *pool)
{
	unsigned int i;

	for (i = 0; i < pool->nr; i++) {
		struct xbf_gnt *g = &pool->all[i];

		if (g->ref == INVALID_GRANT_REF)
			continue;
		if (g->page)
			gnttab_end_foreign_access(g->ref, g->page);
		else
			gnttab_free_grant_reference(g->ref);
	}
	kvfree(pool->free);
	kvfree(pool->all);
	*pool = (struct xbf_pool){};
}

/**
 * xbf_grants_get() - take the grants one request needs
 * @ring: the ring
 * @req: the request; receives the grants in req->gnt[]
 * @nr_data: data grants
 * @nr_indirect: indirect frames
 *
 * All or nothing.  On failure the ring is marked for a queue rerun when
 * grants come back, so a request turned away is never forgotten, and a
 * data pool below its cap is grown (xbf_pool_grow()).
 *
 * Context: any; takes xbf_ring.pool_lock.
 * Return: true if @req now holds the grants.
 */
bool xbf_grants_get(struct xbf_ring *ring, struct xbf_req *req,
		    unsigned int nr_data, unsigned int nr_indirect)
{
	unsigned long flags;
	unsigned int i;

	spin_lock_irqsave(&ring->pool_lock, flags);
	if (ring->data.nr_free < nr_data ||
	    ring->indirect.nr_free < nr_indirect) {
		bool grow = ring->data.nr_free < nr_data &&
			    ring->data.nr < ring->data.cap && !ring->growing;

		ring->need_rerun = true;
		if (grow)
			ring->growing = true;
		spin_unlock_irqrestore(&ring->pool_lock, flags);
		if (grow)
			queue_work(system_unbound_wq, &ring->grow_work);
		return false;
	}
	ring->data.nr_free -= nr_data;
	for (i = 0; i < nr_data; i++)
		req->gnt[i] = ring->data.free[ring->data.nr_free + i];
	ring->indirect.nr_free -= nr_indirect;
	for (i = 0; i < nr_indirect; i++)
		req->gnt[nr_data + i] =
			ring->indirect.free[ring->indirect.nr_free + i];
	spin_unlock_irqrestore(&ring->pool_lock, flags);

	req->nr_data = nr_data;
	req->nr_indirect = nr_indirect;
	return true;
}

/* Give @req's grants back to the pools (pool_lock held). */
static void xbf_grants_return(struct xbf_ring *ring, struct xbf_req *req)
{
	unsigned int i, n = req->nr_data + req->nr_indirect;

	lockdep_assert_held(&ring->pool_lock);
	for (i = 0; i < n; i++) {
		struct xbf_gnt *g = req->gnt[i];
		struct xbf_pool *pool = i < req->nr_data ? &ring->data :
						       &ring->indirect;

		/* Lost to a backend that kept it mapped: not reusable. */
		if (g->ref == INVALID_GRANT_REF)
			continue;
		if (WARN_ON_ONCE(pool->nr_free == pool->nr))
			continue;
		pool->free[pool->nr_free++] = g;
	}
	req->nr_data = 0;
	req->nr_indirect = 0;
}

/* Whether a request was turned away for grants since the last call. */
static bool xbf_grants_take_rerun(struct xbf_ring *ring)
{
	bool rerun = ring->need_rerun;

	lockdep_assert_held(&ring->pool_lock);
	ring->need_rerun = false;
	return rerun;
}

/**
 * xbf_grants_put() - return one request's grants to the pools
 * @ring: the ring
 * @req: the request, which is not going to the backend (again)
 *
 * Transient data grants must already be revoked (request.c does that).
 *
 * Context: any; takes xbf_ring.pool_lock.
 * Return: whether a request was turned away for lack of grants since: the
 * caller reruns the queue.
 */
bool xbf_grants_put(struct xbf_ring *ring, struct xbf_req *req)
{
	unsigned long flags;
	bool rerun;

	if (!req->nr_data && !req->nr_indirect)
		return false;
	spin_lock_irqsave(&ring->pool_lock, flags);
	xbf_grants_return(ring, req);
	rerun = xbf_grants_take_rerun(ring);
	spin_unlock_irqrestore(&ring->pool_lock, flags);
	return rerun;
}

/**
 * xbf_grants_put_list() - return the grants of completed requests
 * @ring: the ring
 * @list: requests chained through xbf_req.next, NULL terminated, their
 *	  transient grants already revoked
 *
 * One pass under xbf_ring.pool_lock for the whole batch.  The caller
 * reruns the queue (after ending the requests) if this says so.
 *
 * Context: any; takes xbf_ring.pool_lock.
 * Return: whether a request was turned away for lack of grants.
 */
bool xbf_grants_put_list(struct xbf_ring *ring, struct xbf_req *list)
{
	unsigned long flags;
	bool rerun;

	spin_lock_irqsave(&ring->pool_lock, flags);
	for (; list; list = list->next)
		xbf_grants_return(ring, list);
	rerun = xbf_grants_take_rerun(ring);
	spin_unlock_irqrestore(&ring->pool_lock, flags);
	return rerun;
}

/**
 * xbf_pool_grow() - add data grants to a ring turned away for lack of them
 * @work: the ring's grow_work
 *
 * Adds up to XBF_GROW_STEP entries, never past the pool's cap; a pool that
 * cannot grow (no grant references or pages left) stops trying.  The new
 * entries are used from the next rerun of the queue, which the completion
 * of any request holding grants does (need_rerun stays set): this work
 * never touches the request queue, so it needs no ordering against the
 * disk's removal, only against the ring's: xbf_ring_free() cancels it.
 *
 * Context: process context (system_unbound_wq), may sleep.
 */
void xbf_pool_grow(struct work_struct *work)
{
	struct xbf_ring *ring = container_of(work, struct xbf_ring, grow_work);
	struct xbf_pool *pool = &ring->data;
	unsigned long flags;
	unsigned int n, done = 0;
	int err;

	/* nr and cap change only here (and at creation): read them unlocked. */
	n = min_t(unsigned int, XBF_GROW_STEP, pool->cap - pool->nr);
	if (n)
		done = xbf_pool_prepare(pool, n, GFP_NOIO | __GFP_NOWARN,
					&err);

	spin_lock_irqsave(&ring->pool_lock, flags);
	xbf_pool_publish(pool, done);
	if (done < n)
		pool->cap = pool->nr;
	ring->stats.data_grants = pool->nr;
	ring->growing = false;
	spin_unlock_irqrestore(&ring->pool_lock, flags);

	if (done < n)
		dev_info(&ring->info->xbdev->dev,
			 "%s: queue %u keeps %u data grants (%d)\n",
			 ring->info->name, ring->index, pool->nr, err);
}
