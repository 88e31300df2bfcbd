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
 * xbf_pool_size() - data grants reserved per ring
 * @neg: negotiated configuration
 *
 * Enough for several of the largest requests at once, and never fewer than
 * XBF_MIN_GRANTS; more would only pin grant-table entries (a domain has a
 * few tens of thousands, shared with every other device) and, with
 * persistent grants, guest memory.
 *
 * Return: number of data grants per ring.
 */
unsigned int xbf_pool_size(const struct xblk_negotiated *neg)
{
	return max_t(unsigned int, XBF_MIN_GRANTS, 4 * neg->segs);
}

/**
 * xbf_pool_init() - reserve grant references, optionally with granted pages
 * @pool: the pool to fill
 * @nr: number of entries
 * @with_pages: allocate a page per entry and grant it now
 * @domid: the backend's domain
 * @readonly: grant the pages read-only
 *
 * Context: process context, may sleep.
 * Return: 0 or a negative errno; on failure the pool is empty.
 */
int xbf_pool_init(struct xbf_pool *pool, unsigned int nr, bool with_pages,
		  domid_t domid, bool readonly)
{
	grant_ref_t head;
	unsigned int i;
	int err;

	*pool = (struct xbf_pool){};
	if (!nr)
		return 0;

	pool->all = kvcalloc(nr, sizeof(*pool->all), GFP_KERNEL);
	if (!pool->all)
		return -ENOMEM;
	pool->free = kvcalloc(nr, sizeof(*pool->free), GFP_KERNEL);
	if (!pool->free) {
		err = -ENOMEM;
		goto out_free_all;
	}

	err = gnttab_alloc_grant_references(nr, &head);
	if (err)
		goto out_free_stack;

	for (i = 0; i < nr; i++) {
		struct xbf_gnt *g = &pool->all[i];

		g->ref = gnttab_claim_grant_reference(&head);
		if (with_pages) {
			g->page = alloc_page(GFP_KERNEL | __GFP_ZERO);
			if (!g->page) {
				gnttab_free_grant_reference(g->ref);
				gnttab_free_grant_references(head);
				err = -ENOMEM;
				goto out_destroy;
			}
			gnttab_page_grant_foreign_access_ref_one(g->ref, domid,
								 g->page,
								 readonly);
		}
		pool->nr++;
		pool->free[pool->nr_free++] = g;
	}
	return 0;

out_destroy:
	xbf_pool_destroy(pool);
	return err;
out_free_stack:
	kvfree(pool->free);
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
 * grants come back, so a request turned away is never forgotten.
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
		ring->need_rerun = true;
		spin_unlock_irqrestore(&ring->pool_lock, flags);
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
