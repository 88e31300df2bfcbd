// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: per-guest QoS.  A backend device can be assigned a cgroup v2
 * whose io controller (io.max, io.weight, io.bfq.weight, io.cost...) then
 * applies to the guest's I/O.
 *
 * Every bio of a device is allocated by one of its ring threads (data,
 * flushes and discards alike: io.c never hands a bio to a workqueue), and
 * bio_alloc() charges a bio to the cgroup its allocating kthread was
 * associated with by kthread_associate_blkcg().  So the device holds the
 * io css of its cgroup, and each ring thread associates itself with it at
 * the top of a round whenever the device's setting changed: a generation
 * counter makes that one READ_ONCE() per round when nothing changed.
 *
 * The setting comes from the sysfs attribute "cgroup" (at any time) or from
 * the backend key "xblk-cgroup" (applied at each connection).  A path names
 * a cgroup on the default (v2) hierarchy, relative to its root; it is only
 * accepted if the io controller is enabled in that very cgroup: otherwise
 * the kernel would charge its nearest ancestor that has it, silently.
 */
#include <linux/cgroup.h>
#include <linux/kthread.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "blkback.h"

/* Longest path kept: it must come back whole through a sysfs read. */
#define XBB_QOS_PATH_MAX	1024
/* How much of a bad value messages quote (escaped). */
#define XBB_QOS_QUOTE_MAX	64
/* The backend key the toolstack (or the administrator) may write. */
#define XBB_KEY_CGROUP		"xblk-cgroup"

/**
 * xbb_qos_init() - a device starts without a cgroup
 * @be: the device being probed
 *
 * Context: probe.
 */
void xbb_qos_init(struct xbb_dev *be)
{
	spin_lock_init(&be->qos.lock);
	be->qos.css = NULL;
	be->qos.path = NULL;
	/* Never 0: a ring's own copy starts at 0, "nothing applied yet". */
	be->qos.gen = 1;
}

/* Publish a new setting; ring threads see it at their next round. */
static void xbb_qos_bump(struct xbb_qos *qos)
{
	lockdep_assert_held(&qos->lock);
	/* Skips 0, see xbb_qos_init(). */
	WRITE_ONCE(qos->gen, qos->gen + 1 ? qos->gen + 1 : 1);
}

/*
 * Install @css (its reference passes to the device) and @path (likewise),
 * and drop the previous ones.  Ring threads hold their own references.
 */
static void xbb_qos_swap(struct xbb_qos *qos, struct cgroup_subsys_state *css,
			 char *path)
{
	struct cgroup_subsys_state *old_css;
	char *old_path;

	spin_lock(&qos->lock);
	old_css = qos->css;
	old_path = qos->path;
	qos->css = css;
	qos->path = path;
	xbb_qos_bump(qos);
	spin_unlock(&qos->lock);

	if (old_css)
		css_put(old_css);
	kfree(old_path);
}

/*
 * @s without the trailing newline (sysfs) and surrounding slashes, as a
 * new "/a/b" string; *@out is NULL for the root, which means no cgroup.
 */
static int xbb_qos_normalize(const char *s, size_t len, char **out)
{
	while (len && (s[len - 1] == '\n' || s[len - 1] == '/'))
		len--;
	while (len && *s == '/') {
		s++;
		len--;
	}
	*out = NULL;
	if (!len)
		return 0;
	if (len + 1 >= XBB_QOS_PATH_MAX)
		return -ENAMETOOLONG;
	if (memchr(s, '\0', len) || memchr(s, '\n', len))
		return -EINVAL;
	*out = kasprintf(GFP_KERNEL, "/%.*s", (int)len, s);
	return *out ? 0 : -ENOMEM;
}

#if IS_ENABLED(CONFIG_BLK_CGROUP)
/*
 * The io css of the cgroup at @path, with a reference; -ENOENT if there is
 * no such cgroup, -EINVAL if the io controller is not enabled in it (its
 * parent's cgroup.subtree_control lacks +io): the effective css would then
 * be an ancestor's, which would charge the guest's I/O to the ancestor.
 */
static int xbb_qos_resolve(const char *path,
			   struct cgroup_subsys_state **cssp)
{
	struct cgroup_subsys_state *css;
	struct cgroup *cgrp;
	bool own;

	cgrp = cgroup_get_from_path(path);
	if (IS_ERR(cgrp))
		return PTR_ERR(cgrp);
	css = cgroup_get_e_css(cgrp, &io_cgrp_subsys);
	own = css && css->cgroup == cgrp;
	cgroup_put(cgrp);
	if (!own) {
		if (css)
			css_put(css);
		return -EINVAL;
	}
	*cssp = css;
	return 0;
}
#else
static int xbb_qos_resolve(const char *path,
			   struct cgroup_subsys_state **cssp)
{
	return -EOPNOTSUPP;
}
#endif

/* Why xbb_qos_assign() refused a value, for the message. */
static const char *xbb_qos_why(int err)
{
	switch (err) {
	case -ENOENT:
		return "no such cgroup (a cgroup v2 path from its root)";
	case -ENOTDIR:
		return "not a cgroup directory";
	case -EINVAL:
		return "its io controller is off (no +io in its parent's cgroup.subtree_control)";
	case -ENAMETOOLONG:
		return "path too long";
	case -EOPNOTSUPP:
		return "this kernel has no CONFIG_BLK_CGROUP";
	default:
		return "cannot use it";
	}
}

/*
 * Assign the cgroup named by @s (@len bytes, see xbb_qos_normalize()), or
 * none.  Nothing changes on failure; the caller reports it.
 */
static int xbb_qos_assign(struct xbb_dev *be, const char *s, size_t len)
{
	struct cgroup_subsys_state *css = NULL;
	char *path;
	int err;

	if (!IS_ENABLED(CONFIG_BLK_CGROUP))
		return -EOPNOTSUPP;
	err = xbb_qos_normalize(s, len, &path);
	if (err)
		return err;
	if (path) {
		err = xbb_qos_resolve(path, &css);
		if (err) {
			kfree(path);
			return err;
		}
	}
	/*
	 * Before the swap: @path is the device's after it, and another writer
	 * may free it.  Rate limited: the guest decides how often its disk
	 * connects.
	 */
	xbb_info_state(be, "I/O charged to cgroup %s", path ? path : "/ (none)");
	xbb_qos_swap(&be->qos, css, path);
	return 0;
}

/* Say what @source held (quoted, escaped, cut short) and why it is refused. */
static void xbb_qos_report(struct xbb_dev *be, const char *source,
			   const char *s, size_t len, int err,
			   const char *outcome)
{
	if (len && s[len - 1] == '\n')
		len--;		/* echo's, not part of the value */
	xbb_warn_state(be, "%s = \"%*pE\"%s refused (%d): %s; %s", source,
		       (int)min_t(size_t, len, XBB_QOS_QUOTE_MAX), s,
		       len > XBB_QOS_QUOTE_MAX ? "..." : "", err,
		       xbb_qos_why(err), outcome);
}

/**
 * xbb_qos_store() - assign a cgroup from a write to the sysfs attribute
 * @be: the device
 * @buf: the path as written, on the cgroup2 hierarchy from its root, with
 *	or without the leading slash and trailing newline; empty or "/" for
 *	none
 * @len: its length
 *
 * Takes effect at the next round of each ring thread.
 *
 * Context: process context (sysfs write), sleeps.
 * Return: 0; -ENOENT (no such cgroup), -ENOTDIR, -EINVAL (the io
 * controller is not enabled in it, or a bad path), -ENAMETOOLONG,
 * -EOPNOTSUPP (no CONFIG_BLK_CGROUP) or -ENOMEM: nothing changed then.
 */
int xbb_qos_store(struct xbb_dev *be, const char *buf, size_t len)
{
	int err = xbb_qos_assign(be, buf, len);

	if (err)
		xbb_qos_report(be, "sysfs attribute cgroup", buf, len, err,
			       "the setting is unchanged");
	return err;
}

/**
 * xbb_qos_show() - the path of the device's cgroup, for the sysfs read
 * @be: the device
 * @buf: sysfs page
 *
 * Context: process context (sysfs read).
 * Return: bytes written: the path and a newline, or only a newline.
 */
ssize_t xbb_qos_show(struct xbb_dev *be, char *buf)
{
	ssize_t n;

	spin_lock(&be->qos.lock);
	n = sysfs_emit(buf, "%s\n", be->qos.path ? be->qos.path : "");
	spin_unlock(&be->qos.lock);
	return n;
}

/**
 * xbb_qos_connect() - apply the backend key "xblk-cgroup", if there is one
 * @be: the device, about to start its ring threads
 * @why: set to what was wrong with the key, on failure
 *
 * Without the key the setting is left as it is (a sysfs write made before
 * the connection holds).  An empty key or "/" means no cgroup.  A value
 * that cannot be used refuses the connection: the administrator asked for
 * limits, and serving the guest without them would take from every other
 * guest on the device what the limits were to protect.  The caller reports
 * it (the error node names the key, the value and why), and the guest's
 * disk connects once the key is fixed.
 *
 * Context: process context (xenwatch), under @be->lock.
 * Return: 0, or a negative errno with *@why saying what went wrong.
 */
int xbb_qos_connect(struct xbb_dev *be, const char **why)
{
	char *val;
	int err;

	lockdep_assert_held(&be->lock);
	val = xblk_xs_read_str(be->xdev->nodename, XBB_KEY_CGROUP);
	err = PTR_ERR_OR_ZERO(val);
	if (err == -ENOENT)
		return 0;
	if (err) {
		*why = "unreadable";
		return err;
	}
	err = xbb_qos_assign(be, val, strlen(val));
	if (err) {
		xbb_qos_report(be, "backend key " XBB_KEY_CGROUP, val,
			       strlen(val), err, "the disk is not connected");
		*why = xbb_qos_why(err);
	}
	kfree(val);
	return err;
}

/**
 * xbb_qos_exit() - drop the device's cgroup
 * @be: the device, whose ring threads are gone
 *
 * Context: process context, teardown.
 */
void xbb_qos_exit(struct xbb_dev *be)
{
	xbb_qos_swap(&be->qos, NULL, NULL);
}

/**
 * xbb_qos_ring_apply() - follow the device's cgroup in a ring thread
 * @ring: the ring of the calling thread
 *
 * Called at the top of every round, before the round allocates any bio:
 * one READ_ONCE() when nothing changed.  kthread_associate_blkcg() takes
 * its own reference on the css, so the device may swap or drop its own at
 * any time.
 *
 * Context: the ring thread.
 */
void xbb_qos_ring_apply(struct xbb_ring *ring)
{
	struct xbb_qos *qos = &ring->be->qos;

	if (likely(READ_ONCE(qos->gen) == ring->qos_gen))
		return;
	spin_lock(&qos->lock);
	kthread_associate_blkcg(qos->css);
	ring->qos_gen = qos->gen;
	spin_unlock(&qos->lock);
}

/**
 * xbb_qos_ring_exit() - drop the ring thread's association before it ends
 * @ring: the ring of the calling thread, drained
 *
 * A kthread must not end associated (free_kthread_struct() warns).
 *
 * Context: the ring thread, last thing.
 */
void xbb_qos_ring_exit(struct xbb_ring *ring)
{
	kthread_associate_blkcg(NULL);
}
