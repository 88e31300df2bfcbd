/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading and writing xenstore keys, the same way on both sides (kernel
 * only; the parsers of the values are pure code in xenstore.h).
 *
 * Every key either side reads goes through xblk_xs_read() or
 * xblk_xs_read_str(): the value is copied with its length, and a value
 * that holds a NUL is malformed.  A reader that stopped at the first NUL
 * would parse "8\0junk" as "8": what the peer wrote is not what we used.
 *
 * Every group of keys either side writes goes through xblk_xs_transact().
 */
#ifndef XBLK_XENBUS_H
#define XBLK_XENBUS_H

#include <linux/err.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <xen/xenbus.h>

#include "xenstore.h"

/**
 * xblk_xs_read_str() - read a key as a string, strictly
 * @dir: the directory
 * @key: the key, relative to @dir
 *
 * Return: the value, NUL-terminated, to kfree(); ERR_PTR(-ENOENT) if the
 * key does not exist, ERR_PTR(-EINVAL) if the value holds a NUL, another
 * ERR_PTR on failure.
 */
static inline char *xblk_xs_read_str(const char *dir, const char *key)
{
	unsigned int len;
	char *val;

	val = xenbus_read(XBT_NIL, dir, key, &len);
	if (IS_ERR(val))
		return val;
	if (strnlen(val, len) != len) {
		kfree(val);
		return ERR_PTR(-EINVAL);
	}
	return val;
}

/**
 * xblk_xs_read() - read a key into a buffer, strictly (an xblk_read_fn)
 * @ctx: the directory (const char *)
 * @key: the key, relative to it
 * @buf: buffer for the NUL-terminated value
 * @len: size of @buf
 *
 * Return: 0; -ENOENT if the key does not exist; -E2BIG if the value and
 * its NUL do not fit; -EINVAL if the value holds a NUL; another negative
 * errno on failure.
 */
static inline int xblk_xs_read(void *ctx, const char *key, char *buf,
			       size_t len)
{
	char *val = xblk_xs_read_str(ctx, key);
	int err = 0;

	if (IS_ERR(val))
		return PTR_ERR(val);
	if (strscpy(buf, val, len) < 0)
		err = -E2BIG;
	kfree(val);
	return err;
}

/**
 * xblk_xs_read_flag() - read a 0/1 key with a default
 * @dir: the directory
 * @key: the key, relative to @dir
 * @def: the value when the key is absent
 * @out: result
 *
 * Return: 0 (*@out is the value, or @def if absent), or -EINVAL when the
 * value is neither 0 nor 1 (*@out is @def then too; the caller says so).
 */
static inline int xblk_xs_read_flag(const char *dir, const char *key,
				    bool def, bool *out)
{
	u64 v;
	int err;

	err = xblk_read_u64(xblk_xs_read, (void *)dir, key, def, 0, 1, &v);
	*out = err ? def : v;
	return err ? -EINVAL : 0;
}

/**
 * xblk_xs_transact() - write a group of keys in one xenstore transaction
 * @fn: writes them in @xbt; returns 0 or a negative errno (the
 *	transaction is then abandoned)
 * @arg: passed to @fn
 *
 * Retries the whole group when another writer got in the way (-EAGAIN).
 *
 * Context: process context, sleeps.
 * Return: 0, or the first error of @fn, of starting or of ending the
 * transaction.
 */
static inline int xblk_xs_transact(int (*fn)(struct xenbus_transaction xbt,
					     void *arg),
				   void *arg)
{
	struct xenbus_transaction xbt;
	int err;

	do {
		err = xenbus_transaction_start(&xbt);
		if (err)
			return err;
		err = fn(xbt, arg);
		if (err) {
			xenbus_transaction_end(xbt, 1);
			return err;
		}
		err = xenbus_transaction_end(xbt, 0);
	} while (err == -EAGAIN);
	return err;
}

#endif /* XBLK_XENBUS_H */
