// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz target: xblk_parse_fe_ring() and xblk_parse_fe_queue(), the
 * backend's parsers of a (hostile) frontend's ring keys.
 *
 * Input: text lines.  "@Q,O" sets the maxima we offered (queues, ring
 * order; clamped to 1..16 and 0..XBLK_MAX_RING_ORDER); "key=value" puts a
 * key in the fake frontend directory (first occurrence wins, raw bytes up
 * to the newline, NUL-terminated by the reader like xenbus_read()); "key"
 * alone makes reading it fail with -EIO.
 *
 * Checks, for every input:
 *  - only the ring keys are read, and nothing else;
 *  - a failure names a key that was read;
 *  - on success every value is in range and equals the decimal value of
 *    the key's text (strtoull), defaults apply to absent optional keys,
 *    the number of grant references is 2^order, each >= XBLK_GREF_FIRST,
 *    and the event channel is not 0;
 *  - parsing the same directory twice gives the same result.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include "fuzz_common.h"
#include "xblk/xenstore.h"

#define MAX_LINES	40
#define MAX_READS	64

struct kv {
	char key[32];
	char val[48];
	size_t len;
	bool fail;
};

struct input {
	struct kv kv[MAX_LINES];
	unsigned int n;
	unsigned int max_queues;
	unsigned int max_order;
	const char *reads[MAX_READS];
	unsigned int nr_reads;
};

static const struct kv *lookup(const struct input *in, const char *key)
{
	unsigned int i;

	for (i = 0; i < in->n; i++)
		if (!strcmp(in->kv[i].key, key))
			return &in->kv[i];
	return NULL;
}

static int in_read(void *ctx, const char *key, char *buf, size_t len)
{
	struct input *in = ctx;
	const struct kv *kv = lookup(in, key);

	if (in->nr_reads < MAX_READS)
		in->reads[in->nr_reads++] = key;
	if (!kv)
		return -ENOENT;
	if (kv->fail)
		return -EIO;
	if (kv->len >= len)
		return -E2BIG;
	memcpy(buf, kv->val, kv->len);
	buf[kv->len] = '\0';
	return 0;
}

/* The key's text as a number, the way a reader of blkif.h would. */
static unsigned long long text_value(const struct input *in, const char *key)
{
	const struct kv *kv = lookup(in, key);
	char s[sizeof(kv->val) + 1];

	FUZZ_ASSERT(kv && !kv->fail, "accepted %s, which has no value", key);
	memcpy(s, kv->val, kv->len);
	s[kv->len] = '\0';
	return strtoull(s, NULL, 10);
}

static bool ring_key(const char *key)
{
	static const char *const keys[] = {
		XBLK_KEY_NR_QUEUES, XBLK_KEY_RING_ORDER, XBLK_KEY_PERSISTENT,
		XBLK_KEY_EVTCHN, XBLK_KEY_RING_REF,
	};
	unsigned int i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(key, keys[i]))
			return true;
	/* ring-refN, N < 2^XBLK_MAX_RING_ORDER, no leading zero */
	if (strncmp(key, XBLK_KEY_RING_REF, sizeof(XBLK_KEY_RING_REF) - 1))
		return false;
	key += sizeof(XBLK_KEY_RING_REF) - 1;
	if (!strcmp(key, "0"))
		return true;
	if (key[0] < '1' || key[0] > '9')
		return false;
	return strtoul(key, NULL, 10) < (1u << XBLK_MAX_RING_ORDER) &&
	       strspn(key, "0123456789") == strlen(key);
}

static void parse_input(const uint8_t *data, size_t size, struct input *in)
{
	size_t pos = 0;

	memset(in, 0, sizeof(*in));
	in->max_queues = 4;
	in->max_order = XBLK_MAX_RING_ORDER;
	while (pos < size && in->n < MAX_LINES) {
		const uint8_t *line = data + pos, *nl, *eq;
		size_t len, klen;
		struct kv *kv;

		nl = memchr(line, '\n', size - pos);
		len = nl ? (size_t)(nl - line) : size - pos;
		pos += len + 1;
		if (len && len < 32 && line[0] == '@') {
			char cfg[32];
			char *s;

			memcpy(cfg, line + 1, len - 1);
			cfg[len - 1] = '\0';
			in->max_queues = strtoul(cfg, &s, 10) % 16 + 1;
			if (*s == ',')
				in->max_order = strtoul(s + 1, NULL, 10) %
						(XBLK_MAX_RING_ORDER + 1);
			continue;
		}
		eq = memchr(line, '=', len);
		klen = eq ? (size_t)(eq - line) : len;
		if (klen >= sizeof(kv->key) || memchr(line, '\0', klen))
			continue;
		kv = &in->kv[in->n++];
		memcpy(kv->key, line, klen);
		kv->key[klen] = '\0';
		if (!eq) {
			kv->fail = true;
			continue;
		}
		kv->len = len - klen - 1;
		if (kv->len > sizeof(kv->val))
			kv->len = sizeof(kv->val);
		memcpy(kv->val, eq + 1, kv->len);
	}
}

static bool was_read(const struct input *in, const char *key)
{
	unsigned int i;

	for (i = 0; i < in->nr_reads; i++)
		if (!strcmp(in->reads[i], key))
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct input in;
	struct xblk_fe_ring fr, fr2;
	struct xblk_fe_queue fq, fq2;
	const char *bad = NULL, *bad2 = NULL;
	unsigned int i;
	int ret, ret2;

	parse_input(data, size, &in);
	memset(&fr, 0, sizeof(fr));
	ret = xblk_parse_fe_ring(in_read, &in, in.max_queues, in.max_order,
				 &fr, &bad);
	for (i = 0; i < in.nr_reads; i++)
		FUZZ_ASSERT(ring_key(in.reads[i]), "read %s", in.reads[i]);
	if (ret) {
		FUZZ_ASSERT(ret < 0 && bad && was_read(&in, bad),
			    "ring: error %d blames %s", ret, bad ? bad : "nothing");
	} else {
		FUZZ_ASSERT(fr.nr_queues >= 1 && fr.nr_queues <= in.max_queues,
			    "%u queues, max %u", fr.nr_queues, in.max_queues);
		FUZZ_ASSERT(fr.ring_order <= in.max_order, "order %u, max %u",
			    fr.ring_order, in.max_order);
		FUZZ_ASSERT(fr.nr_queues == (lookup(&in, XBLK_KEY_NR_QUEUES) ?
			    text_value(&in, XBLK_KEY_NR_QUEUES) : 1),
			    "queues %u differ from the key", fr.nr_queues);
		FUZZ_ASSERT(fr.multi_ref == !!lookup(&in, XBLK_KEY_RING_ORDER),
			    "multi_ref %d", fr.multi_ref);
		FUZZ_ASSERT(fr.ring_order == (fr.multi_ref ?
			    text_value(&in, XBLK_KEY_RING_ORDER) : 0),
			    "order %u differs from the key", fr.ring_order);
		FUZZ_ASSERT(fr.persistent == (lookup(&in, XBLK_KEY_PERSISTENT) ?
			    text_value(&in, XBLK_KEY_PERSISTENT) : 0),
			    "persistent %d differs from the key", fr.persistent);
	}

	/* Same directory, same answer. */
	in.nr_reads = 0;
	memset(&fr2, 0, sizeof(fr2));
	ret2 = xblk_parse_fe_ring(in_read, &in, in.max_queues, in.max_order,
				  &fr2, &bad2);
	FUZZ_ASSERT(ret2 == ret && (ret || !memcmp(&fr, &fr2, sizeof(fr))) &&
		    (!ret || !strcmp(bad, bad2)), "second parse differs");
	if (ret)
		return 0;

	in.nr_reads = 0;
	memset(&fq, 0, sizeof(fq));
	bad = NULL;
	ret = xblk_parse_fe_queue(in_read, &in, &fr, &fq, &bad);
	for (i = 0; i < in.nr_reads; i++)
		FUZZ_ASSERT(ring_key(in.reads[i]), "queue: read %s", in.reads[i]);
	if (ret) {
		FUZZ_ASSERT(ret < 0 && bad, "queue: error %d blames nothing", ret);
		FUZZ_ASSERT(was_read(&in, bad), "queue: blames %s, not read", bad);
		return 0;
	}
	FUZZ_ASSERT(fq.evtchn != 0 &&
		    fq.evtchn == text_value(&in, XBLK_KEY_EVTCHN),
		    "event channel %u", fq.evtchn);
	for (i = 0; i < (1u << fr.ring_order); i++) {
		char key[32];

		if (fr.multi_ref)
			snprintf(key, sizeof(key), "%s%u", XBLK_KEY_RING_REF, i);
		else
			snprintf(key, sizeof(key), "%s", XBLK_KEY_RING_REF);
		/* An order-0 ring may name its page ring-ref0 or ring-ref. */
		if (fr.multi_ref && !fr.ring_order && !lookup(&in, key))
			snprintf(key, sizeof(key), "%s", XBLK_KEY_RING_REF);
		FUZZ_ASSERT(fq.grefs[i] >= XBLK_GREF_FIRST &&
			    fq.grefs[i] == text_value(&in, key),
			    "gref %u = %u (%s)", i, fq.grefs[i], key);
	}
	for (; i < (1u << XBLK_MAX_RING_ORDER); i++)
		FUZZ_ASSERT(!fq.grefs[i], "gref %u set beyond the order", i);

	in.nr_reads = 0;
	memset(&fq2, 0, sizeof(fq2));
	ret2 = xblk_parse_fe_queue(in_read, &in, &fr, &fq2, &bad2);
	FUZZ_ASSERT(!ret2 && !memcmp(fq.grefs, fq2.grefs, sizeof(fq.grefs)) &&
		    fq.evtchn == fq2.evtchn, "second queue parse differs");
	return 0;
}
