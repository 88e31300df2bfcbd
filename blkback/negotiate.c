// SPDX-License-Identifier: GPL-2.0
/*
 * xblkback: what a frontend asks for when it connects, and its rings mapped.
 *
 * The frontend's keys (protocol, multi-queue-num-queues, ring-page-order,
 * feature-persistent, then each queue's ring-ref* and event-channel) are
 * parsed by include/xblk/xenstore.h into private values, and checked against
 * what we advertised; only those values are used.  A key that is missing,
 * malformed or out of range is reported with what it holds (quoted,
 * escaped, cut short) and what we would take, and the device closes.
 *
 * Called by the state machine (xenbus.c), under xbb_dev.lock; maps each
 * ring with ring.c.
 */
#include <linux/slab.h>
#include <linux/string.h>
#include <xen/xenbus.h>

#include "blkback.h"

/* How much of a bad value our messages quote (escaped). */
#define XBB_QUOTE_MAX	32

/*
 * A frontend key is missing, malformed or out of range: say which and
 * what it holds (quoted, escaped and cut short: the guest chose it), then
 * close.  @want says what would have been accepted.
 */
static void xbb_fatal_key(struct xbb_dev *be, int err, const char *dir,
			  const char *key, const char *want)
{
	unsigned int len;
	char *val;

	if (err == -ENOENT) {
		xbb_fatal(be, err, "frontend key %s/%s is missing", dir, key);
		return;
	}
	/* Raw, with its length: the quote shows a NUL inside as well. */
	val = xenbus_read(XBT_NIL, dir, key, &len);
	if (IS_ERR(val)) {
		xbb_fatal(be, err, "frontend key %s/%s cannot be read (%ld)",
			  dir, key, PTR_ERR(val));
		return;
	}
	xbb_fatal(be, err,
		  "frontend key %s/%s = \"%*pE\"%s (%u bytes) is %s: want %s",
		  dir, key, (int)min_t(unsigned int, len, XBB_QUOTE_MAX), val,
		  len > XBB_QUOTE_MAX ? "..." : "", len,
		  err == -ERANGE ? "out of range" :
		  err == -EPROTONOSUPPORT ? "unsupported" : "malformed", want);
	kfree(val);
}

/* Read one ring's keys in @dir and map it. */
static int xbb_map_one(struct xbb_dev *be, struct xbb_ring *ring,
		       const char *dir, const struct xblk_fe_ring *fr)
{
	unsigned int nr = 1U << fr->ring_order;
	struct xblk_fe_queue fq;
	const char *bad_key;
	int err;

	err = xblk_parse_fe_queue(xblk_xs_read, (void *)dir, fr, &fq, &bad_key);
	if (err) {
		xbb_fatal_key(be, err, dir, bad_key,
			      strcmp(bad_key, XBLK_KEY_EVTCHN) ?
			      "a grant reference >= " __stringify(XBLK_GREF_FIRST) :
			      "a port 1..4294967295");
		return err;
	}
	err = xbb_ring_map(ring, fq.grefs, fr->ring_order, fq.evtchn);
	/* Which key was wrong, as far as the error tells (see xbb_ring_map). */
	if (err == -ENOENT)
		xbb_fatal(be, err,
			  "ring %u: frontend key %s/%s%s = %u%s: not a page granted to us",
			  ring->index, dir, XBLK_KEY_RING_REF,
			  fr->multi_ref ? "0" : "", fq.grefs[0],
			  nr > 1 ? " (or one of the next ring-refN)" : "");
	else if (err == -EINVAL)
		xbb_fatal(be, err,
			  "ring %u: frontend key %s/%s = %u: cannot bind the event channel",
			  ring->index, dir, XBLK_KEY_EVTCHN, fq.evtchn);
	else if (err)
		xbb_fatal(be, err,
			  "ring %u: mapping %u page(s) from %s/%s%s = %u, event-channel %u",
			  ring->index, nr, dir, XBLK_KEY_RING_REF,
			  fr->multi_ref ? "0" : "", fq.grefs[0], fq.evtchn);
	return err;
}

/* The frontend's request layout, from its "protocol" key (absent: native). */
static int xbb_read_protocol(struct xbb_dev *be)
{
	const char *fe = be->xdev->otherend;
	char *proto;
	int err;

	proto = xblk_xs_read_str(fe, XBLK_KEY_PROTOCOL);
	err = PTR_ERR_OR_ZERO(proto);
	if (err == -ENOENT)
		proto = NULL;	/* the native layout */
	else if (err)
		goto out_bad_proto;
	err = xblk_abi_parse(proto, &be->abi) ? -EPROTONOSUPPORT : 0;
	kfree(proto);
	if (err)
		goto out_bad_proto;
	return 0;

out_bad_proto:
	xbb_fatal_key(be, err, fe, XBLK_KEY_PROTOCOL,
		      XBLK_PROTO_X86_32 " or " XBLK_PROTO_X86_64);
	return err;
}

/* Report a bad ring key (xblk_parse_fe_ring()) with what we would take. */
static void xbb_fatal_ring_key(struct xbb_dev *be, int err, const char *bad_key)
{
	char want[32];

	if (!strcmp(bad_key, XBLK_KEY_NR_QUEUES))
		snprintf(want, sizeof(want), "1..%u", be->params.max_queues);
	else if (!strcmp(bad_key, XBLK_KEY_RING_ORDER))
		snprintf(want, sizeof(want), "0..%u",
			 be->params.max_ring_order);
	else
		strscpy(want, "0 or 1", sizeof(want));
	xbb_fatal_key(be, err, be->xdev->otherend, bad_key, want);
}

/**
 * xbb_negotiate_rings() - read what the frontend asks for and map its rings
 * @be: device whose frontend is Initialised or Connected, no ring mapped
 * @rings: set to the array of mapped rings (kcalloc'ed) on success
 * @nr: set to their number on success
 *
 * Reads the protocol, the number of queues, the ring size and persistent
 * grants, and sets @be's abi, ring_order and persistent from them.  A bad
 * key is reported with what it holds and what we would take, and closes
 * the device (xbb_fatal()).
 *
 * Context: process context, under xbb_dev.lock.
 * Return: 0, or a negative errno with nothing left mapped.
 */
int xbb_negotiate_rings(struct xbb_dev *be, struct xbb_ring **rings,
			unsigned int *nr)
{
	const char *fe = be->xdev->otherend;
	struct xblk_fe_ring fr;
	struct xbb_ring *r;
	const char *bad_key;
	unsigned int i;
	int err;

	lockdep_assert_held(&be->lock);

	err = xbb_read_protocol(be);
	if (err)
		return err;

	err = xblk_parse_fe_ring(xblk_xs_read, (void *)fe, be->params.max_queues,
				 be->params.max_ring_order, &fr, &bad_key);
	if (err) {
		xbb_fatal_ring_key(be, err, bad_key);
		return err;
	}
	be->ring_order = fr.ring_order;
	be->persistent = be->params.persistent && fr.persistent;

	r = kcalloc(fr.nr_queues, sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	for (i = 0; i < fr.nr_queues; i++) {
		char *dir = NULL;

		r[i].be = be;
		r[i].index = i;
		if (fr.nr_queues > 1) {
			dir = kasprintf(GFP_KERNEL, "%s/queue-%u", fe, i);
			if (!dir) {
				err = -ENOMEM;
				goto out_unmap;
			}
		}
		err = xbb_map_one(be, &r[i], dir ? dir : fe, &fr);
		kfree(dir);
		if (err)
			goto out_unmap;
	}
	*rings = r;
	*nr = fr.nr_queues;
	return 0;

out_unmap:
	while (i--)
		xbb_ring_unmap(&r[i]);
	kfree(r);
	return err;
}
