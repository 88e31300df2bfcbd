// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: mapping the frontend's granted pages.
 *
 * Map and unmap operations are not issued one request at a time: the ring
 * thread queues them in struct xbb_batch for a whole pass and issues each
 * batch with one gnttab_map_refs() / gnttab_unmap_refs_sync() call.  A
 * batch that fills up is issued early; callers only rely on "after
 * xbb_gnt_map_flush() every queued grant is mapped or failed" and "after
 * xbb_gnt_unmap_flush() every released grant is unmapped".
 *
 * Pages come from a per-ring gnttab_page_cache and are reserved when a
 * request is taken off the ring (xbb_gnt_reserve()), so that mapping never
 * fails for lack of memory after the request was consumed.  With persistent
 * grants nearly every reserved page goes straight back (its grant is
 * already mapped); a small stack of spare pages in front of the cache,
 * owned by the ring thread, saves those pages the cache's lock.
 *
 * A map can still fail for now rather than for good: Xen out of maptrack
 * entries (GNTST_no_device_space, GNTST_no_space), a page being paged in
 * (GNTST_eagain), or the whole gnttab_map_refs() call failing (dom0 could
 * not extend its p2m).  xbb_gnt_check() tells those (XBLK_MAP_AGAIN: the
 * request is put off and set up again, slots.c) from the frontend's faults
 * (XBLK_MAP_FAIL: the request fails).  When the whole call failed, even the
 * grants Xen reports mapped are not used (their p2m entry may be missing):
 * they keep their handle, so that releasing them unmaps them, but not a
 * GNTST_okay status.
 *
 * The fail_map fault point (a test knob in debugfs, fault.c) makes an
 * attempt fail for now: a page reservation (-ENOMEM, nothing taken) or a
 * map batch (its last operation is not issued and gets
 * GNTST_no_device_space), so nothing is mapped that would have to be
 * undone.
 *
 * Persistent grants (feature-persistent): when the frontend reuses a fixed
 * set of grants, a grant stays mapped after its request completes, kept in
 * an rb-tree by grant reference, with a direct-mapped cache in front of it
 * (a frontend's references are mostly one dense range, so nearly every
 * segment's lookup is one load).  Unused ones sit on an LRU list; when the
 * tree is at max_persistent_grants the least recently used unused grant is
 * unmapped to make room, and when none is unused the segment is mapped for
 * this request only.  Persistent mappings are always read-write, as a grant
 * may serve reads and writes in turn (blkfront grants them read-write).
 *
 * Everything here runs on the ring thread, or after it stopped.
 */
#include <linux/slab.h>
#include <linux/mm.h>
#include <xen/grant_table.h>
#include <xen/page.h>

#include "blkback.h"

/*
 * Levels over every ring of every device, for leak checks (sysfs.c): grants
 * we have mapped now, and pages taken out of the rings' page caches now.
 * Both are 0 whenever no device is connected.
 */
static atomic_long_t xbb_grants_mapped = ATOMIC_LONG_INIT(0);
static atomic_long_t xbb_pages_in_use = ATOMIC_LONG_INIT(0);

/* Most spare pages a ring keeps (a 64-slot ring of 128 KiB requests). */
#define XBB_SPARE_MAX	2304
/* Most entries of a ring's persistent-grant cache (xbb_ring.pg_hash). */
#define XBB_PG_HASH_MAX	4096

/**
 * xbb_gnt_levels() - grants mapped and pages in use by the whole driver
 * @grants: result, grants mapped now (persistent ones included)
 * @pages: result, pages out of the page caches now
 *
 * Context: any.
 */
void xbb_gnt_levels(long *grants, long *pages)
{
	*grants = atomic_long_read(&xbb_grants_mapped);
	*pages = atomic_long_read(&xbb_pages_in_use);
}

/* Pages on the spare stack count as in use: they are out of the cache. */
static int xbb_page_get(struct xbb_ring *ring, struct page **page)
{
	int err;

	if (ring->nr_spare) {
		*page = ring->spare[--ring->nr_spare];
		return 0;
	}
	err = gnttab_page_cache_get(&ring->page_cache, page);
	if (!err)
		atomic_long_inc(&xbb_pages_in_use);
	return err;
}

static void xbb_page_put(struct xbb_ring *ring, struct page **page)
{
	if (ring->nr_spare < ring->spare_cap) {
		ring->spare[ring->nr_spare++] = *page;
		return;
	}
	gnttab_page_cache_put(&ring->page_cache, page, 1);
	atomic_long_dec(&xbb_pages_in_use);
}

/* Give every spare page back to the cache. */
static void xbb_spare_drain(struct xbb_ring *ring)
{
	if (!ring->nr_spare)
		return;
	gnttab_page_cache_put(&ring->page_cache, ring->spare, ring->nr_spare);
	atomic_long_sub(ring->nr_spare, &xbb_pages_in_use);
	ring->nr_spare = 0;
}

static unsigned long xbb_page_addr(struct page *page)
{
	return (unsigned long)pfn_to_kaddr(page_to_pfn(page));
}

/**
 * xbb_gnt_init() - set up the grant state of a ring
 * @ring: ring, not running, its page budget (max_pages) set
 * @batch: operations per hypercall batch
 *
 * Context: process context.
 * Return: 0 or -ENOMEM.
 */
int xbb_gnt_init(struct xbb_ring *ring, unsigned int batch)
{
	struct xbb_batch *b = &ring->batch;

	gnttab_page_cache_init(&ring->page_cache);
	ring->pgrants = RB_ROOT;
	INIT_LIST_HEAD(&ring->pg_lru);
	ring->nr_pgrants = 0;

	b->map = kvcalloc(batch, sizeof(*b->map), GFP_KERNEL);
	b->unmap = kvcalloc(batch, sizeof(*b->unmap), GFP_KERNEL);
	b->pages = kvcalloc(batch, sizeof(*b->pages), GFP_KERNEL);
	b->unmap_pages = kvcalloc(batch, sizeof(*b->unmap_pages), GFP_KERNEL);
	b->gnt = kvcalloc(batch, sizeof(*b->gnt), GFP_KERNEL);
	b->pg = kvcalloc(batch, sizeof(*b->pg), GFP_KERNEL);
	/* What a full pass reserves, so that it all comes back here. */
	ring->spare_cap = min(ring->max_pages, XBB_SPARE_MAX);
	ring->spare = kvcalloc(ring->spare_cap, sizeof(*ring->spare),
			       GFP_KERNEL);
	ring->nr_spare = 0;
	if (ring->max_pgrants) {
		unsigned int n = min_t(unsigned int, XBB_PG_HASH_MAX,
				       roundup_pow_of_two(ring->max_pgrants));

		ring->pg_hash = kvcalloc(n, sizeof(*ring->pg_hash), GFP_KERNEL);
		ring->pg_hash_mask = n - 1;
	}
	b->nr_map = 0;
	b->nr_unmap = 0;
	b->cap = batch;
	if (!b->map || !b->unmap || !b->pages || !b->unmap_pages || !b->gnt ||
	    !b->pg || !ring->spare || (ring->max_pgrants && !ring->pg_hash)) {
		xbb_gnt_exit(ring);
		return -ENOMEM;
	}
	return 0;
}

/**
 * xbb_gnt_exit() - free a ring's batch arrays, spare pages and grant cache
 * @ring: ring whose grants were all freed (xbb_gnt_free_all())
 *
 * Context: process context.
 */
void xbb_gnt_exit(struct xbb_ring *ring)
{
	struct xbb_batch *b = &ring->batch;

	WARN_ON_ONCE(b->nr_map || b->nr_unmap || ring->nr_spare);
	kvfree(b->map);
	kvfree(b->unmap);
	kvfree(b->pages);
	kvfree(b->unmap_pages);
	kvfree(b->gnt);
	kvfree(b->pg);
	memset(b, 0, sizeof(*b));
	kvfree(ring->spare);
	ring->spare = NULL;
	ring->spare_cap = 0;
	kvfree(ring->pg_hash);
	ring->pg_hash = NULL;
}

/**
 * xbb_gnt_reserve() - give @n grants a page each to be mapped at
 * @ring: ring
 * @gnt: the grants (their gref may be filled in later)
 * @n: how many
 *
 * Context: ring thread.
 * Return: 0, or -ENOMEM with no page kept (each @gnt then holds nothing).
 */
int xbb_gnt_reserve(struct xbb_ring *ring, struct xbb_gnt *gnt,
		    unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		gnt[i].pg = NULL;
		gnt[i].page = NULL;
		gnt[i].handle = XBB_INVALID_HANDLE;
		gnt[i].status = GNTST_general_error;
	}
	if (n && xbb_fault_map())
		return -ENOMEM;
	for (i = 0; i < n; i++)
		if (xbb_page_get(ring, &gnt[i].page))
			goto out_put;
	return 0;

out_put:
	while (i--) {
		xbb_page_put(ring, &gnt[i].page);
		gnt[i].page = NULL;
	}
	return -ENOMEM;
}

static struct xbb_pgrant **xbb_pg_slot(struct xbb_ring *ring,
				       grant_ref_t gref)
{
	return &ring->pg_hash[gref & ring->pg_hash_mask];
}

static struct xbb_pgrant *xbb_pgrant_find(struct xbb_ring *ring,
					  grant_ref_t gref)
{
	struct xbb_pgrant **slot = xbb_pg_slot(ring, gref);
	struct rb_node *n = ring->pgrants.rb_node;

	if (*slot && (*slot)->gref == gref)
		return *slot;
	while (n) {
		struct xbb_pgrant *pg = rb_entry(n, struct xbb_pgrant, node);

		if (gref < pg->gref) {
			n = n->rb_left;
		} else if (gref > pg->gref) {
			n = n->rb_right;
		} else {
			*slot = pg;
			return pg;
		}
	}
	return NULL;
}

static void xbb_pgrant_insert(struct xbb_ring *ring, struct xbb_pgrant *pg)
{
	struct rb_node **link = &ring->pgrants.rb_node, *parent = NULL;

	while (*link) {
		struct xbb_pgrant *cur = rb_entry(*link, struct xbb_pgrant,
						  node);

		parent = *link;
		link = pg->gref < cur->gref ? &parent->rb_left :
					      &parent->rb_right;
	}
	rb_link_node(&pg->node, parent, link);
	rb_insert_color(&pg->node, &ring->pgrants);
	*xbb_pg_slot(ring, pg->gref) = pg;
	pg->in_tree = true;
	ring->nr_pgrants++;
}

static void xbb_pgrant_erase(struct xbb_ring *ring, struct xbb_pgrant *pg)
{
	struct xbb_pgrant **slot = xbb_pg_slot(ring, pg->gref);

	if (*slot == pg)
		*slot = NULL;
	rb_erase(&pg->node, &ring->pgrants);
	pg->in_tree = false;
	ring->nr_pgrants--;
}

/* Queue an unmap of our mapping @handle at @page; the page is freed after. */
static void xbb_unmap_add(struct xbb_ring *ring, struct page *page,
			  grant_handle_t handle)
{
	struct xbb_batch *b = &ring->batch;

	if (b->nr_unmap == b->cap)
		xbb_gnt_unmap_flush(ring);
	gnttab_set_unmap_op(&b->unmap[b->nr_unmap], xbb_page_addr(page),
			    GNTMAP_host_map, handle);
	b->unmap_pages[b->nr_unmap++] = page;
}

/* Queue a map of @gref at @page for @gnt, or for the new persistent @pg. */
static void xbb_map_add(struct xbb_ring *ring, struct xbb_gnt *gnt,
			struct xbb_pgrant *pg, struct page *page, bool readonly)
{
	struct xbb_batch *b = &ring->batch;
	u32 flags = GNTMAP_host_map | (readonly ? GNTMAP_readonly : 0);

	if (b->nr_map == b->cap)
		xbb_gnt_map_flush(ring);
	gnttab_set_map_op(&b->map[b->nr_map], xbb_page_addr(page), flags,
			  gnt->gref, ring->be->domid);
	b->pages[b->nr_map] = page;
	b->gnt[b->nr_map] = gnt;
	b->pg[b->nr_map] = pg;
	b->nr_map++;
}

/* Make room for one more persistent grant; false if every one is in use. */
static bool xbb_pgrant_make_room(struct xbb_ring *ring)
{
	struct xbb_pgrant *victim;

	if (ring->nr_pgrants < ring->max_pgrants)
		return true;
	victim = list_first_entry_or_null(&ring->pg_lru, struct xbb_pgrant,
					  lru);
	if (!victim)
		return false;
	list_del_init(&victim->lru);
	xbb_pgrant_erase(ring, victim);
	xbb_unmap_add(ring, victim->page, victim->handle);
	kfree(victim);
	xbb_stat_inc(&ring->stats.pgnt_evict);
	return true;
}

/**
 * xbb_gnt_map_add() - queue a grant for mapping in this pass
 * @ring: ring
 * @gnt: grant with its gref and a reserved page
 * @readonly: the device only reads the page (a write to disk)
 *
 * A persistent grant already mapped is used at once; its reserved page
 * goes back to the cache.
 *
 * Context: ring thread.
 */
void xbb_gnt_map_add(struct xbb_ring *ring, struct xbb_gnt *gnt,
		     bool readonly)
{
	struct xbb_pgrant *pg;

	if (!ring->max_pgrants) {
		xbb_map_add(ring, gnt, NULL, gnt->page, readonly);
		return;
	}

	pg = xbb_pgrant_find(ring, gnt->gref);
	if (pg) {
		if (!pg->users++)
			list_del_init(&pg->lru);
		xbb_page_put(ring, &gnt->page);
		gnt->page = pg->page;
		gnt->pg = pg;
		xbb_stat_inc(&ring->stats.pgnt_hit);
		return;
	}

	pg = xbb_pgrant_make_room(ring) ?
	     kzalloc(sizeof(*pg), GFP_NOIO | __GFP_NOWARN) : NULL;
	if (!pg) {
		xbb_map_add(ring, gnt, NULL, gnt->page, readonly);
		return;
	}
	pg->gref = gnt->gref;
	pg->page = gnt->page;
	pg->handle = XBB_INVALID_HANDLE;
	pg->status = GNTST_general_error;
	pg->users = 1;
	INIT_LIST_HEAD(&pg->lru);
	xbb_pgrant_insert(ring, pg);
	gnt->pg = pg;
	xbb_map_add(ring, gnt, pg, pg->page, false);
}

/**
 * xbb_gnt_map_flush() - map everything queued by xbb_gnt_map_add()
 * @ring: ring
 *
 * Afterwards each queued grant is mapped or failed (xbb_gnt_check()).
 * A persistent grant that failed is taken out of the tree at once; it is
 * freed (and unmapped if it has a handle) when its last user releases it.
 *
 * Context: ring thread.
 */
void xbb_gnt_map_flush(struct xbb_ring *ring)
{
	struct xbb_batch *b = &ring->batch;
	unsigned int i, n = b->nr_map, issue = n;
	int err = 0;

	if (!n)
		return;
	b->nr_map = 0;
	/* What a failed hypercall leaves unwritten must not read as mapped. */
	for (i = 0; i < n; i++)
		b->map[i].status = GNTST_general_error;
	if (xbb_fault_map())
		b->map[--issue].status = GNTST_no_device_space;
	if (issue)
		err = gnttab_map_refs(b->map, NULL, b->pages, issue);
	if (err)
		xbb_warn_rl(ring->be, "ring %u: grant map batch of %u failed (%d), retrying later",
			    ring->index, issue, err);
	xbb_stat_add(&ring->stats.gnt_map, issue);

	for (i = 0; i < n; i++) {
		s16 status = b->map[i].status;
		grant_handle_t handle = status == GNTST_okay ?
					b->map[i].handle : XBB_INVALID_HANDLE;

		if (handle != XBB_INVALID_HANDLE)
			atomic_long_inc(&xbb_grants_mapped);
		if (err)
			status = GNTST_eagain;
		switch (xblk_map_status_class(status)) {
		case XBLK_MAP_AGAIN:
			xbb_stat_inc(&ring->stats.map_again);
			break;
		case XBLK_MAP_FAIL:
			xbb_warn_rl(ring->be, "ring %u: mapping grant %u failed (%d)",
				    ring->index, b->map[i].ref, status);
			break;
		default:
			break;
		}
		if (b->pg[i]) {
			b->pg[i]->handle = handle;
			b->pg[i]->status = status;
			if (status != GNTST_okay)
				xbb_pgrant_erase(ring, b->pg[i]);
		} else {
			b->gnt[i]->handle = handle;
			b->gnt[i]->status = status;
		}
	}
}

/**
 * xbb_gnt_mapped() - whether a grant queued for mapping was mapped
 * @gnt: grant, after xbb_gnt_map_flush()
 *
 * Return: true if @gnt->page now shows the granted page.
 */
bool xbb_gnt_mapped(const struct xbb_gnt *gnt)
{
	return (gnt->pg ? gnt->pg->status : gnt->status) == GNTST_okay;
}

/**
 * xbb_gnt_check() - what the maps of a request's grants came to
 * @gnt: grants, after xbb_gnt_map_flush()
 * @n: how many
 *
 * Return: XBLK_MAP_OK if all are mapped, XBLK_MAP_FAIL if one failed for
 * good, else XBLK_MAP_AGAIN (one failed for now: set it all up again later).
 */
enum xblk_map_class xbb_gnt_check(const struct xbb_gnt *gnt, unsigned int n)
{
	enum xblk_map_class worst = XBLK_MAP_OK;
	unsigned int i;

	for (i = 0; i < n; i++)
		worst = max(worst, xblk_map_status_class(gnt[i].pg ?
							 gnt[i].pg->status :
							 gnt[i].status));
	return worst;
}

/**
 * xbb_gnt_release() - give back the grants of a request
 * @ring: ring
 * @gnt: grants (reserved, mapped, failed or already released)
 * @n: how many
 *
 * Persistent grants stay mapped and become unused; our own mappings are
 * queued for unmapping; unmapped pages return to the cache.  Releasing
 * twice is harmless.  The frontend may reuse the pages only after
 * xbb_gnt_unmap_flush().
 *
 * Context: ring thread.
 */
void xbb_gnt_release(struct xbb_ring *ring, struct xbb_gnt *gnt,
		     unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct xbb_pgrant *pg = gnt[i].pg;

		if (pg) {
			WARN_ON_ONCE(!pg->users);
			if (!--pg->users) {
				if (pg->in_tree) {
					list_add_tail(&pg->lru, &ring->pg_lru);
				} else {
					/* Its map failed (maybe after mapping). */
					if (pg->handle != XBB_INVALID_HANDLE)
						xbb_unmap_add(ring, pg->page,
							      pg->handle);
					else
						xbb_page_put(ring, &pg->page);
					kfree(pg);
				}
			}
		} else if (gnt[i].handle != XBB_INVALID_HANDLE) {
			xbb_unmap_add(ring, gnt[i].page, gnt[i].handle);
		} else if (gnt[i].page) {
			xbb_page_put(ring, &gnt[i].page);
		}
		gnt[i].pg = NULL;
		gnt[i].page = NULL;
		gnt[i].handle = XBB_INVALID_HANDLE;
		gnt[i].status = GNTST_general_error;
	}
}

/**
 * xbb_gnt_unmap_flush() - unmap everything queued for unmapping
 * @ring: ring
 *
 * Waits until the pages are no longer referenced (gnttab_unmap_refs_sync()),
 * then returns them to the cache.  A page whose unmap failed is leaked
 * rather than reused while it may still show the frontend's memory.
 *
 * Context: ring thread; sleeps.
 */
void xbb_gnt_unmap_flush(struct xbb_ring *ring)
{
	struct xbb_batch *b = &ring->batch;
	struct gntab_unmap_queue_data q = {
		.unmap_ops = b->unmap,
		.kunmap_ops = NULL,
		.pages = b->unmap_pages,
		.count = b->nr_unmap,
	};
	unsigned int i, n = b->nr_unmap;
	int err;

	if (!n)
		return;
	b->nr_unmap = 0;
	err = gnttab_unmap_refs_sync(&q);
	xbb_stat_add(&ring->stats.gnt_unmap, n);
	for (i = 0; i < n; i++) {
		if (err || b->unmap[i].status != GNTST_okay) {
			WARN_ONCE(1, "xblkback: unmapping grant handle %u failed (%d/%d), page leaked\n",
				  b->unmap[i].handle, err, b->unmap[i].status);
			continue;
		}
		atomic_long_dec(&xbb_grants_mapped);
		xbb_page_put(ring, &b->unmap_pages[i]);
	}
}

/**
 * xbb_gnt_trim() - return free pages beyond @keep to the system
 * @ring: ring
 * @keep: pages to keep in the cache
 *
 * Context: ring thread, or after it stopped.
 */
void xbb_gnt_trim(struct xbb_ring *ring, unsigned int keep)
{
	xbb_spare_drain(ring);
	gnttab_page_cache_shrink(&ring->page_cache, keep);
}

/**
 * xbb_gnt_free_all() - unmap every persistent grant and free every page
 * @ring: ring with no request in flight
 *
 * Context: ring thread as it exits, or after it stopped; sleeps.
 */
void xbb_gnt_free_all(struct xbb_ring *ring)
{
	struct rb_node *n;

	if (!ring->batch.cap)
		return;
	xbb_gnt_map_flush(ring);
	while ((n = rb_first(&ring->pgrants))) {
		struct xbb_pgrant *pg = rb_entry(n, struct xbb_pgrant, node);

		WARN_ON_ONCE(pg->users);
		list_del_init(&pg->lru);
		xbb_pgrant_erase(ring, pg);
		xbb_unmap_add(ring, pg->page, pg->handle);
		kfree(pg);
	}
	xbb_gnt_unmap_flush(ring);
	WARN_ON_ONCE(ring->nr_pgrants || !list_empty(&ring->pg_lru));
	xbb_gnt_trim(ring, 0);
	WARN_ON_ONCE(ring->page_cache.num_pages);
}
