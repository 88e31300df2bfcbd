/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A fake xenstore directory for xblk_read_fn: a small table of key/value
 * pairs, a log of the keys read, and optional injected read errors.
 * Shared by the unit tests and the parse_be_info fuzzer.
 */
#ifndef XBLK_TEST_FAKE_XS_H
#define XBLK_TEST_FAKE_XS_H

#include <stdbool.h>
#include <string.h>
#include "xblk/xenstore.h"

#define FXS_MAX_KEYS	48
#define FXS_MAX_READS	64

struct fxs_entry {
	const char *key;
	const char *val;	/* NULL: read fails with ->err */
	int err;
};

struct fxs {
	struct fxs_entry e[FXS_MAX_KEYS];
	unsigned int n;
	const char *reads[FXS_MAX_READS];
	unsigned int nr_reads;
};

static inline void fxs_init(struct fxs *x)
{
	memset(x, 0, sizeof(*x));
}

/* Set (or replace) a key; val NULL removes it. */
static inline void fxs_set(struct fxs *x, const char *key, const char *val)
{
	unsigned int i;

	for (i = 0; i < x->n; i++) {
		if (!strcmp(x->e[i].key, key)) {
			if (val) {
				x->e[i].val = val;
				x->e[i].err = 0;
			} else {
				x->e[i] = x->e[--x->n];
			}
			return;
		}
	}
	if (val && x->n < FXS_MAX_KEYS) {
		x->e[x->n].key = key;
		x->e[x->n].val = val;
		x->e[x->n].err = 0;
		x->n++;
	}
}

/* Make reading @key fail with @err (e.g. -EIO). */
static inline void fxs_fail(struct fxs *x, const char *key, int err)
{
	fxs_set(x, key, NULL);
	if (x->n < FXS_MAX_KEYS) {
		x->e[x->n].key = key;
		x->e[x->n].val = NULL;
		x->e[x->n].err = err;
		x->n++;
	}
}

static inline bool fxs_was_read(const struct fxs *x, const char *key)
{
	unsigned int i;

	for (i = 0; i < x->nr_reads; i++)
		if (!strcmp(x->reads[i], key))
			return true;
	return false;
}

/* The xblk_read_fn: behaves as the xenbus wrapper the drivers use. */
static inline int fxs_read(void *ctx, const char *key, char *buf, size_t len)
{
	struct fxs *x = ctx;
	unsigned int i;

	if (x->nr_reads < FXS_MAX_READS)
		x->reads[x->nr_reads++] = key;
	for (i = 0; i < x->n; i++) {
		size_t l;

		if (strcmp(x->e[i].key, key))
			continue;
		if (!x->e[i].val)
			return x->e[i].err;
		l = strlen(x->e[i].val);
		if (l >= len)
			return -E2BIG;
		memcpy(buf, x->e[i].val, l + 1);
		return 0;
	}
	return -ENOENT;
}

#endif /* XBLK_TEST_FAKE_XS_H */
