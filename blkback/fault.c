// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: fault injection for tests, in debugfs, never a module
 * parameter.
 *
 * One fault point, fail_map: a page reservation or a grant map batch fails
 * "for now" (grant_map.c), as if dom0 were out of memory or maptrack
 * entries, so that the lab can check that the backend backs off, retries
 * and answers nothing with an error.
 *
 * With CONFIG_FAULT_INJECTION it is the kernel's framework: a struct
 * fault_attr and should_fail(), configured in the directory
 * /sys/kernel/debug/xblkback/fail_map/ (Documentation/fault-injection;
 * "one in N" is interval=N, probability=100, times=-1).  Distribution
 * kernels mostly build without it (Debian's do), so there the same fault
 * point is the file /sys/kernel/debug/xblkback/fail_map: N makes every
 * N-th attempt fail, 0 (the default) none.
 *
 * A second, fail_ring_start (/sys/kernel/debug/xblkback/fail_ring_start):
 * N makes the start of every ring of index N - 1 fail, as if its thread
 * could not be created, so that the lab can check what a connect that
 * fails half-way does with the threads already started; 0 (the default)
 * none.
 */
#include <linux/debugfs.h>
#include <linux/fault-inject.h>

#include "blkback.h"

static struct dentry *xbb_debugfs;

#ifdef CONFIG_FAULT_INJECTION

static DECLARE_FAULT_ATTR(xbb_fail_map_attr);

static void xbb_fault_create(struct dentry *dir)
{
	/* Without CONFIG_FAULT_INJECTION_DEBUG_FS it cannot be set: no error. */
	fault_create_debugfs_attr("fail_map", dir, &xbb_fail_map_attr);
}

/**
 * xbb_fault_map() - whether this page reservation or map batch is to fail
 *
 * Context: ring thread.
 * Return: true if fail_map says so.
 */
bool xbb_fault_map(void)
{
	return should_fail(&xbb_fail_map_attr, 1);
}

#else /* !CONFIG_FAULT_INJECTION */

/* Fail 1 attempt in this many; 0 = never. */
static unsigned int xbb_fail_map_one_in;
/* Attempts so far, for the "one in N". */
static atomic_t xbb_fail_map_count = ATOMIC_INIT(0);

static int xbb_fail_map_get(void *data, u64 *val)
{
	*val = READ_ONCE(xbb_fail_map_one_in);
	return 0;
}

/* The range the module parameter had: a test knob needs no more. */
static int xbb_fail_map_set(void *data, u64 val)
{
	if (val > 1000000)
		return -EINVAL;
	WRITE_ONCE(xbb_fail_map_one_in, (unsigned int)val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(xbb_fail_map_fops, xbb_fail_map_get,
			 xbb_fail_map_set, "%llu\n");

static void xbb_fault_create(struct dentry *dir)
{
	debugfs_create_file_unsafe("fail_map", 0600, dir, NULL,
				   &xbb_fail_map_fops);
}

/**
 * xbb_fault_map() - whether this page reservation or map batch is to fail
 *
 * Context: ring thread.
 * Return: true if fail_map says so.
 */
bool xbb_fault_map(void)
{
	unsigned int one_in = READ_ONCE(xbb_fail_map_one_in);

	return one_in &&
	       xblk_inject_hit(atomic_inc_return(&xbb_fail_map_count), one_in);
}

#endif /* CONFIG_FAULT_INJECTION */

/* Ring index + 1 whose start fails; 0 = none. */
static u32 xbb_fail_ring_start;

/**
 * xbb_fault_ring_start() - whether starting this ring is to fail
 * @index: the ring's index
 *
 * Context: any.
 * Return: true if fail_ring_start names @index.
 */
bool xbb_fault_ring_start(unsigned int index)
{
	u32 n = READ_ONCE(xbb_fail_ring_start);

	return n && n - 1 == index;
}

/**
 * xbb_fault_init() - create /sys/kernel/debug/xblkback/ and its fault points
 *
 * A debugfs failure is not the module's: the fault points are then absent
 * and never fire.
 *
 * Context: module init.
 */
void xbb_fault_init(void)
{
	xbb_debugfs = debugfs_create_dir(KBUILD_MODNAME, NULL);
	xbb_fault_create(xbb_debugfs);
	debugfs_create_u32("fail_ring_start", 0600, xbb_debugfs,
			   &xbb_fail_ring_start);
}

/**
 * xbb_fault_exit() - remove what xbb_fault_init() created
 *
 * Context: module exit.
 */
void xbb_fault_exit(void)
{
	debugfs_remove_recursive(xbb_debugfs);
	xbb_debugfs = NULL;
}
