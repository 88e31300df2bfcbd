// SPDX-License-Identifier: GPL-2.0
/*
 * xlabprobe: what the lab's dom0 cannot see from userspace (test only).
 *
 * Workqueue latency: while loaded, a thread queues a small work item on
 * system_unbound_wq and on system_wq every @period_ms and records how long
 * each waited to run.  A backend that parks a guest's blocking work on a
 * shared workqueue (discards used to) shows up as seconds here.
 *
 *   insmod xlabprobe.ko [period_ms=50]
 *   cat /sys/module/xlabprobe/parameters/unbound_max_us   # worst wait so far
 *   echo 0 > /sys/module/xlabprobe/parameters/unbound_max_us   # restart
 *   rmmod xlabprobe
 *
 * Memory fragmentation: writing N to "fragment" takes every free block of
 * 32 KiB or more and every page dom0 can still give (unmovable), then gives
 * back N MiB of them as free blocks of four pages that are each surrounded
 * by pages it keeps: afterwards no free block is larger than order 2 (16
 * KiB), so a physically contiguous allocation above that fails unless
 * compaction helps (the lab sets vm.extfrag_threshold to 1000 so that it
 * does not).  Writing 0 gives
 * everything back; so does rmmod.
 *
 *   echo 48 > /sys/module/xlabprobe/parameters/fragment
 *   cat /proc/buddyinfo
 *   echo 0 > /sys/module/xlabprobe/parameters/fragment
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/workqueue.h>
#include <linux/ktime.h>
#include <linux/delay.h>
#include <linux/gfp.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/mutex.h>

static unsigned int period_ms = 50;
module_param(period_ms, uint, 0444);
MODULE_PARM_DESC(period_ms, "How often a work item is queued, ms (default 50)");

static unsigned long unbound_max_us;
module_param(unbound_max_us, ulong, 0644);
MODULE_PARM_DESC(unbound_max_us, "Longest wait of a work item on system_unbound_wq, us; write 0 to restart");

static unsigned long bound_max_us;
module_param(bound_max_us, ulong, 0644);
MODULE_PARM_DESC(bound_max_us, "Longest wait of a work item on system_wq, us; write 0 to restart");

static unsigned long samples;
module_param(samples, ulong, 0444);
MODULE_PARM_DESC(samples, "Work items that ran on each workqueue");

/* Pages "fragment" holds, and how many MiB it gave back. */
static LIST_HEAD(xp_held);
static unsigned long xp_nr_held;
static unsigned int xp_fragment;
static DEFINE_MUTEX(xp_frag_lock);

static void xp_release_all(void)
{
	struct page *page, *tmp;

	list_for_each_entry_safe(page, tmp, &xp_held, lru) {
		list_del(&page->lru);
		__free_page(page);
	}
	xp_nr_held = 0;
}

/* Hold the pages of a block of 2^@order pages, one by one. */
static void xp_hold(struct page *page, unsigned int order)
{
	unsigned int i;

	split_page(page, order);
	for (i = 0; i < 1U << order; i++) {
		list_add(&page[i].lru, &xp_held);
		xp_nr_held++;
	}
}

/* Take every free block of 32 KiB and more, in every zone, watermarks aside. */
static void xp_grab_big(void)
{
	const gfp_t big = __GFP_MEMALLOC | __GFP_NORETRY | __GFP_NOWARN;
	struct page *page;
	int order;

	/* 10: the largest order on x86 (MAX_ORDER changed meaning in 6.4). */
	for (order = 10; order >= 3; order--) {
		while ((page = alloc_pages(GFP_KERNEL | big, order)))
			xp_hold(page, order);
		while ((page = alloc_pages(GFP_DMA | big, order)))
			xp_hold(page, order);
		cond_resched();
	}
}

/*
 * Take every free block of 32 KiB and more (below the watermarks too, in
 * every zone, DMA included: an allocation may fall back to it), then every
 * page the allocator still gives, then give back @mib MiB as order-2 holes.
 */
static int xp_fragment_now(unsigned int mib)
{
	unsigned long want = (unsigned long)mib << (20 - PAGE_SHIFT), freed = 0;
	struct page *page, *tmp;

	xp_grab_big();
	while ((page = alloc_page(GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN))) {
		xp_hold(page, 0);
		cond_resched();
	}
	/* pfn 8k..8k+3 free, 8k+4..8k+7 kept: buddies cannot merge above. */
	list_for_each_entry_safe(page, tmp, &xp_held, lru) {
		if (freed >= want)
			break;
		if (page_to_pfn(page) & 4)
			continue;
		list_del(&page->lru);
		__free_page(page);
		xp_nr_held--;
		freed++;
	}
	/* What was freed meanwhile (by others) and merged: take it too. */
	xp_grab_big();
	pr_info("fragmented: holding %lu pages, gave back %lu as order-2 holes\n",
		xp_nr_held, freed);
	return freed >= want ? 0 : -ENOMEM;
}

static int xp_set_fragment(const char *val, const struct kernel_param *kp)
{
	unsigned int mib;
	int err;

	err = kstrtouint(val, 0, &mib);
	if (err)
		return err;
	mutex_lock(&xp_frag_lock);
	xp_release_all();
	xp_fragment = 0;
	if (mib) {
		err = xp_fragment_now(mib);
		if (err)
			xp_release_all();
		else
			xp_fragment = mib;
	}
	mutex_unlock(&xp_frag_lock);
	return err;
}

static const struct kernel_param_ops xp_fragment_ops = {
	.set = xp_set_fragment,
	.get = param_get_uint,
};
module_param_cb(fragment, &xp_fragment_ops, &xp_fragment, 0644);
MODULE_PARM_DESC(fragment, "MiB of free memory to leave, in blocks of at most 16 KiB; 0: give everything back (default 0)");

struct xp_work {
	struct work_struct work;
	ktime_t queued;
	unsigned long *max_us;
};

static struct xp_work xp_unbound, xp_bound;
static struct task_struct *xp_task;

static void xp_run(struct work_struct *work)
{
	struct xp_work *w = container_of(work, struct xp_work, work);
	unsigned long us = ktime_us_delta(ktime_get(), w->queued);

	if (us > READ_ONCE(*w->max_us))
		WRITE_ONCE(*w->max_us, us);
}

static int xp_thread(void *arg)
{
	while (!kthread_should_stop()) {
		xp_unbound.queued = ktime_get();
		queue_work(system_unbound_wq, &xp_unbound.work);
		xp_bound.queued = ktime_get();
		queue_work(system_wq, &xp_bound.work);
		/* A late item is measured when it runs: wait for both. */
		flush_work(&xp_unbound.work);
		flush_work(&xp_bound.work);
		WRITE_ONCE(samples, samples + 1);
		msleep_interruptible(period_ms);
	}
	return 0;
}

static int __init xp_init(void)
{
	INIT_WORK(&xp_unbound.work, xp_run);
	xp_unbound.max_us = &unbound_max_us;
	INIT_WORK(&xp_bound.work, xp_run);
	xp_bound.max_us = &bound_max_us;
	xp_task = kthread_run(xp_thread, NULL, "xlabprobe");
	return PTR_ERR_OR_ZERO(xp_task);
}
module_init(xp_init);

static void __exit xp_exit(void)
{
	kthread_stop(xp_task);
	xp_release_all();
	pr_info("workqueue waits: unbound max %lu us, bound max %lu us, %lu samples\n",
		unbound_max_us, bound_max_us, samples);
}
module_exit(xp_exit);

MODULE_DESCRIPTION("xblk lab: dom0 probes (test only)");
MODULE_LICENSE("GPL");
