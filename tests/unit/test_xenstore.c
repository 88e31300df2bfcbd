// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of include/xblk/xenstore.h: numeric parsing, backend keys,
 * negotiation, virtual-device numbers and disk names.
 */
#include <stdio.h>
#include "xtest.h"
#include "fake_xs.h"

/* ------------------------------------------------------ xblk_parse_u64 -- */

static int pu(const char *s, u64 *v)
{
	*v = 0xdeadbeefull;
	return xblk_parse_u64(s, v);
}

XTEST(parse_u64_valid)
{
	u64 v;

	CHECK_EQ(pu("0", &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(pu("1", &v), 0);
	CHECK_EQ(v, 1);
	CHECK_EQ(pu("42", &v), 0);
	CHECK_EQ(v, 42);
	CHECK_EQ(pu("007", &v), 0);		/* leading zeros are digits */
	CHECK_EQ(v, 7);
	CHECK_EQ(pu("4294967296", &v), 0);
	CHECK_EQ(v, 1ull << 32);
	CHECK_EQ(pu("18446744073709551615", &v), 0);	/* 20 digits, 2^64-1 */
	CHECK_EQ(v, ~0ull);
	CHECK_EQ(pu("018446744073709551615", &v), 0);
	CHECK_EQ(v, ~0ull);
	CHECK_EQ(pu("18446744073709551610", &v), 0);
	CHECK_EQ(v, ~0ull - 5);
}

XTEST(parse_u64_overflow)
{
	u64 v;

	CHECK_EQ(pu("18446744073709551616", &v), -ERANGE);	/* 2^64 */
	CHECK_EQ(v, 0xdeadbeefull);				/* untouched */
	CHECK_EQ(pu("18446744073709551619", &v), -ERANGE);
	CHECK_EQ(pu("18446744073709551620", &v), -ERANGE);
	CHECK_EQ(pu("99999999999999999999", &v), -ERANGE);
	CHECK_EQ(pu("184467440737095516150", &v), -ERANGE);	/* 21 digits */
	CHECK_EQ(pu("100000000000000000000", &v), -ERANGE);
}

XTEST(parse_u64_malformed)
{
	static const char *const bad[] = {
		"", "+1", "-1", "-0", " 1", "1 ", "1\n", "\n", "0x10", "1a",
		"a1", "1.0", "1e3", "/", ":", "\t7", "1,000", "\xb1", "1\xff",
		"18446744073709551615 ", "+", "-",
	};
	unsigned int i;
	u64 v;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(pu(bad[i], &v), -EINVAL);
		CHECK_EQ(v, 0xdeadbeefull);
	}
	/* a malformed tail after an overflow: either error, never success */
	CHECK(pu("99999999999999999999x", &v) < 0);
}

/* --------------------------------------------------- xblk_parse_be_info -- */

#define SZ_4K	4096

/* The keys every backend must write, and sane values. */
static void base_keys(struct fxs *x)
{
	fxs_init(x);
	fxs_set(x, XBLK_KEY_SECTORS, "2097152");	/* 1 GiB */
	fxs_set(x, XBLK_KEY_INFO, "0");
	fxs_set(x, XBLK_KEY_SECTOR_SIZE, "512");
}

static int parse(struct fxs *x, struct xblk_be_info *bi, const char **bad,
		 unsigned int max_block)
{
	memset(bi, 0xa5, sizeof(*bi));
	*bad = NULL;
	x->nr_reads = 0;
	return xblk_parse_be_info(fxs_read, x, bi, bad, max_block);
}

/* Expect failure @err blaming @key for @key=@val on top of base_keys. */
#define EXPECT_BAD(key, val, err) expect_bad(__LINE__, key, val, err, NULL, NULL)

static void expect_bad(int line, const char *key, const char *val, int err,
		       const char *k2, const char *v2)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;
	int ret;

	base_keys(&x);
	if (k2)
		fxs_set(&x, k2, v2);
	fxs_set(&x, key, val);
	ret = parse(&x, &bi, &bad, SZ_4K);
	if (ret != err || !bad || strcmp(bad, key))
		xt_fail(__FILE__, line, "%s=\"%s\"%s%s%s%s: got %d blaming %s, want %d",
			key, val ? val : "(absent)", k2 ? " with " : "",
			k2 ? k2 : "", k2 ? "=" : "", v2 ? v2 : "", ret,
			bad ? bad : "nothing", err);
}

#define EXPECT_BAD_WITH(k2, v2, key, val, err) \
	expect_bad(__LINE__, key, val, err, k2, v2)

XTEST(be_info_minimal_defaults)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;

	base_keys(&x);
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK(bad == NULL);
	CHECK_EQ(bi.sectors, 2097152);
	CHECK_EQ(bi.info, 0);
	CHECK_EQ(bi.sector_size, 512);
	CHECK_EQ(bi.phys_sector_size, 512);	/* defaults to sector-size */
	CHECK_EQ(bi.max_queues, 1);
	CHECK_EQ(bi.max_ring_order, 0);
	CHECK_EQ(bi.max_indirect_segs, 0);
	CHECK(!bi.persistent && !bi.flush && !bi.barrier && !bi.discard);
	CHECK(!bi.discard_secure);
	CHECK_EQ(bi.discard_granularity, 0);
	CHECK_EQ(bi.discard_alignment, 0);
	CHECK_EQ(bi.io_min, 0);
	CHECK_EQ(bi.io_opt, 0);
	CHECK_EQ(bi.max_sectors, 0);
}

XTEST(be_info_full)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;

	base_keys(&x);
	fxs_set(&x, XBLK_KEY_SECTORS, "18014398509481983");	/* 2^54-1 */
	fxs_set(&x, XBLK_KEY_INFO, "5");
	fxs_set(&x, XBLK_KEY_SECTOR_SIZE, "4096");
	fxs_set(&x, XBLK_KEY_PHYS_SECTOR_SIZE, "65536");
	fxs_set(&x, XBLK_KEY_MAX_QUEUES, "4");
	fxs_set(&x, XBLK_KEY_MAX_RING_ORDER, "3");
	fxs_set(&x, XBLK_KEY_MAX_INDIRECT, "256");
	fxs_set(&x, XBLK_KEY_PERSISTENT, "1");
	fxs_set(&x, XBLK_KEY_FLUSH, "1");
	fxs_set(&x, XBLK_KEY_BARRIER, "0");
	fxs_set(&x, XBLK_KEY_DISCARD, "1");
	fxs_set(&x, XBLK_KEY_DISCARD_SECURE, "1");
	fxs_set(&x, XBLK_KEY_DISCARD_GRAN, "1048576");
	fxs_set(&x, XBLK_KEY_DISCARD_ALIGN, "8192");
	fxs_set(&x, XBLK_KEY_IO_MIN, "4096");
	fxs_set(&x, XBLK_KEY_IO_OPT, "131072");
	fxs_set(&x, XBLK_KEY_MAX_SECTORS, "2048");
	CHECK_EQ(parse(&x, &bi, &bad, 65536), 0);
	CHECK_EQ(bi.sectors, (1ull << 54) - 1);
	CHECK_EQ(bi.info, XBLK_VDISK_CDROM | XBLK_VDISK_READONLY);
	CHECK_EQ(bi.sector_size, 4096);
	CHECK_EQ(bi.phys_sector_size, 65536);
	CHECK_EQ(bi.max_queues, 4);
	CHECK_EQ(bi.max_ring_order, 3);
	CHECK_EQ(bi.max_indirect_segs, 256);
	CHECK(bi.persistent);
	CHECK(bi.flush);
	CHECK(!bi.barrier);
	CHECK(bi.discard);
	CHECK(bi.discard_secure);
	CHECK_EQ(bi.discard_granularity, 1048576);
	CHECK_EQ(bi.discard_alignment, 8192);
	CHECK_EQ(bi.io_min, 4096);
	CHECK_EQ(bi.io_opt, 131072);
	CHECK_EQ(bi.max_sectors, 2048);
}

XTEST(be_info_missing_required)
{
	EXPECT_BAD(XBLK_KEY_SECTORS, NULL, -ENOENT);
	EXPECT_BAD(XBLK_KEY_INFO, NULL, -ENOENT);
	EXPECT_BAD(XBLK_KEY_SECTOR_SIZE, NULL, -ENOENT);
}

XTEST(be_info_empty_directory)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;

	fxs_init(&x);
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), -ENOENT);
	CHECK_STR(bad, XBLK_KEY_SECTORS);
}

XTEST(be_info_malformed_values)
{
	static const char *const keys[] = {
		XBLK_KEY_SECTORS, XBLK_KEY_INFO, XBLK_KEY_SECTOR_SIZE,
		XBLK_KEY_PHYS_SECTOR_SIZE, XBLK_KEY_MAX_QUEUES,
		XBLK_KEY_MAX_RING_ORDER, XBLK_KEY_MAX_INDIRECT,
		XBLK_KEY_PERSISTENT, XBLK_KEY_FLUSH, XBLK_KEY_BARRIER,
		XBLK_KEY_DISCARD, XBLK_KEY_IO_MIN, XBLK_KEY_IO_OPT,
		XBLK_KEY_MAX_SECTORS,
	};
	static const char *const vals[] = { "", "abc", "-1", "+1", "1 ", "0x1", "1\n" };
	unsigned int i, j;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		for (j = 0; j < sizeof(vals) / sizeof(vals[0]); j++)
			EXPECT_BAD(keys[i], vals[j], -EINVAL);
	/* the discard keys, when they are read */
	for (j = 0; j < sizeof(vals) / sizeof(vals[0]); j++) {
		EXPECT_BAD_WITH(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_GRAN,
				vals[j], -EINVAL);
		EXPECT_BAD_WITH(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_ALIGN,
				vals[j], -EINVAL);
		EXPECT_BAD_WITH(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_SECURE,
				vals[j], -EINVAL);
	}
}

XTEST(be_info_overflowing_values)
{
	EXPECT_BAD(XBLK_KEY_SECTORS, "18446744073709551616", -ERANGE);
	EXPECT_BAD(XBLK_KEY_MAX_QUEUES, "18446744073709551616", -ERANGE);
	EXPECT_BAD(XBLK_KEY_MAX_INDIRECT, "99999999999999999999", -ERANGE);
}

XTEST(be_info_value_too_long)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;
	/* 31 characters fit the 32-byte buffer, 32 do not */
	static const char fits[] = "0000000000000000000000000000512";
	static const char too_long[] = "00000000000000000000000000000512";

	CHECK_EQ(sizeof(fits) - 1, XBLK_KEY_MAXLEN - 1);
	base_keys(&x);
	fxs_set(&x, XBLK_KEY_SECTOR_SIZE, fits);
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.sector_size, 512);
	EXPECT_BAD(XBLK_KEY_SECTOR_SIZE, too_long, -EINVAL);
}

XTEST(be_info_read_error_propagates)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;

	base_keys(&x);
	fxs_fail(&x, XBLK_KEY_INFO, -EIO);
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), -EIO);
	CHECK_STR(bad, XBLK_KEY_INFO);
	/* an error on an optional key is not "absent" */
	base_keys(&x);
	fxs_fail(&x, XBLK_KEY_FLUSH, -EAGAIN);
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), -EAGAIN);
	CHECK_STR(bad, XBLK_KEY_FLUSH);
}

XTEST(be_info_sectors_range)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;

	base_keys(&x);
	fxs_set(&x, XBLK_KEY_SECTORS, "0");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.sectors, 0);
	/* bytes = sectors * 512 must fit in a signed 64-bit loff_t */
	EXPECT_BAD(XBLK_KEY_SECTORS, "18014398509481984", -ERANGE);	/* 2^54 */
	EXPECT_BAD(XBLK_KEY_SECTORS, "18446744073709551615", -ERANGE);
	EXPECT_BAD(XBLK_KEY_INFO, "4294967296", -ERANGE);
}

XTEST(be_info_sector_size)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;
	static const char *const ok[] = { "512", "1024", "2048", "4096" };
	unsigned int i;

	for (i = 0; i < 4; i++) {
		base_keys(&x);
		fxs_set(&x, XBLK_KEY_SECTOR_SIZE, ok[i]);
		CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
		CHECK_EQ(bi.sector_size, 512u << i);
	}
	EXPECT_BAD(XBLK_KEY_SECTOR_SIZE, "1000", -ERANGE);	/* not 2^n */
	EXPECT_BAD(XBLK_KEY_SECTOR_SIZE, "0", -ERANGE);
	EXPECT_BAD(XBLK_KEY_SECTOR_SIZE, "1", -ERANGE);
	EXPECT_BAD(XBLK_KEY_SECTOR_SIZE, "256", -ERANGE);	/* < 512 */
	EXPECT_BAD(XBLK_KEY_SECTOR_SIZE, "511", -ERANGE);
	EXPECT_BAD(XBLK_KEY_SECTOR_SIZE, "513", -ERANGE);
	EXPECT_BAD(XBLK_KEY_SECTOR_SIZE, "8192", -ERANGE);	/* > max_block */
	EXPECT_BAD(XBLK_KEY_SECTOR_SIZE, "3072", -ERANGE);
	/* the caller's max_block is the limit, not a constant */
	base_keys(&x);
	fxs_set(&x, XBLK_KEY_SECTOR_SIZE, "8192");
	CHECK_EQ(parse(&x, &bi, &bad, 65536), 0);
	CHECK_EQ(bi.sector_size, 8192);
	CHECK_EQ(parse(&x, &bi, &bad, 8191), -ERANGE);
	CHECK_STR(bad, XBLK_KEY_SECTOR_SIZE);
	fxs_set(&x, XBLK_KEY_SECTOR_SIZE, "512");
	CHECK_EQ(parse(&x, &bi, &bad, 512), 0);
	CHECK_EQ(parse(&x, &bi, &bad, 511), -ERANGE);
}

XTEST(be_info_phys_sector_size)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;

	base_keys(&x);
	fxs_set(&x, XBLK_KEY_SECTOR_SIZE, "4096");
	fxs_set(&x, XBLK_KEY_PHYS_SECTOR_SIZE, "512");	/* < logical */
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.phys_sector_size, 4096);		/* "unknown" */
	fxs_set(&x, XBLK_KEY_PHYS_SECTOR_SIZE, "1073741824");	/* 2^30 */
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.phys_sector_size, 1u << 30);
	EXPECT_BAD(XBLK_KEY_PHYS_SECTOR_SIZE, "2147483648", -ERANGE);
	EXPECT_BAD(XBLK_KEY_PHYS_SECTOR_SIZE, "3000", -ERANGE);
	EXPECT_BAD(XBLK_KEY_PHYS_SECTOR_SIZE, "256", -ERANGE);
	EXPECT_BAD(XBLK_KEY_PHYS_SECTOR_SIZE, "0", -ERANGE);
}

XTEST(be_info_maxima_clamped)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;

	base_keys(&x);
	fxs_set(&x, XBLK_KEY_MAX_QUEUES, "0");		/* means 1 */
	fxs_set(&x, XBLK_KEY_MAX_RING_ORDER, "0");
	fxs_set(&x, XBLK_KEY_MAX_INDIRECT, "0");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.max_queues, 1);
	CHECK_EQ(bi.max_ring_order, 0);
	CHECK_EQ(bi.max_indirect_segs, 0);

	fxs_set(&x, XBLK_KEY_MAX_QUEUES, "1000");
	fxs_set(&x, XBLK_KEY_MAX_RING_ORDER, "10");
	fxs_set(&x, XBLK_KEY_MAX_INDIRECT, "1000000");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.max_queues, XBLK_MAX_QUEUES);
	CHECK_EQ(bi.max_ring_order, XBLK_MAX_RING_ORDER);
	CHECK_EQ(bi.max_indirect_segs, XBLK_MAX_INDIRECT_SEGS);

	/* larger than 32 bits: clamped, not truncated */
	fxs_set(&x, XBLK_KEY_MAX_QUEUES, "4294967297");
	fxs_set(&x, XBLK_KEY_MAX_RING_ORDER, "4294967296");
	fxs_set(&x, XBLK_KEY_MAX_INDIRECT, "18446744073709551615");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.max_queues, XBLK_MAX_QUEUES);
	CHECK_EQ(bi.max_ring_order, XBLK_MAX_RING_ORDER);
	CHECK_EQ(bi.max_indirect_segs, XBLK_MAX_INDIRECT_SEGS);

	/* exactly at our maxima, and one below */
	fxs_set(&x, XBLK_KEY_MAX_QUEUES, "31");
	fxs_set(&x, XBLK_KEY_MAX_RING_ORDER, "4");
	fxs_set(&x, XBLK_KEY_MAX_INDIRECT, "4095");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.max_queues, 31);
	CHECK_EQ(bi.max_ring_order, 4);
	CHECK_EQ(bi.max_indirect_segs, 4095);
}

XTEST(be_info_booleans)
{
	static const char *const keys[] = {
		XBLK_KEY_PERSISTENT, XBLK_KEY_FLUSH, XBLK_KEY_BARRIER,
		XBLK_KEY_DISCARD,
	};
	unsigned int i;

	for (i = 0; i < 4; i++) {
		EXPECT_BAD(keys[i], "2", -ERANGE);
		EXPECT_BAD(keys[i], "10", -ERANGE);
		EXPECT_BAD(keys[i], "18446744073709551615", -ERANGE);
	}
	EXPECT_BAD_WITH(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_SECURE, "2",
			-ERANGE);
}

XTEST(be_info_discard_keys_ignored_without_feature)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		base_keys(&x);
		if (pass)
			fxs_set(&x, XBLK_KEY_DISCARD, "0");
		fxs_set(&x, XBLK_KEY_DISCARD_GRAN, "garbage");
		fxs_set(&x, XBLK_KEY_DISCARD_ALIGN, "-1");
		fxs_set(&x, XBLK_KEY_DISCARD_SECURE, "7");
		CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
		CHECK(!bi.discard);
		CHECK(!bi.discard_secure);
		CHECK_EQ(bi.discard_granularity, 0);
		CHECK_EQ(bi.discard_alignment, 0);
		CHECK(!fxs_was_read(&x, XBLK_KEY_DISCARD_GRAN));
		CHECK(!fxs_was_read(&x, XBLK_KEY_DISCARD_ALIGN));
		CHECK(!fxs_was_read(&x, XBLK_KEY_DISCARD_SECURE));
		CHECK(fxs_was_read(&x, XBLK_KEY_DISCARD));
	}
	/* and read when it is 1 */
	base_keys(&x);
	fxs_set(&x, XBLK_KEY_DISCARD, "1");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK(bi.discard);
	CHECK(fxs_was_read(&x, XBLK_KEY_DISCARD_GRAN));
	CHECK(fxs_was_read(&x, XBLK_KEY_DISCARD_ALIGN));
	CHECK(fxs_was_read(&x, XBLK_KEY_DISCARD_SECURE));
}

XTEST(be_info_discard_values)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;

	base_keys(&x);
	fxs_set(&x, XBLK_KEY_DISCARD, "1");
	fxs_set(&x, XBLK_KEY_DISCARD_GRAN, "4096");
	fxs_set(&x, XBLK_KEY_DISCARD_ALIGN, "3584");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.discard_granularity, 4096);
	CHECK_EQ(bi.discard_alignment, 3584);
	fxs_set(&x, XBLK_KEY_DISCARD_GRAN, "1073741824");
	fxs_set(&x, XBLK_KEY_DISCARD_ALIGN, "0");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.discard_granularity, 1u << 30);

	EXPECT_BAD_WITH(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_GRAN, "3000", -ERANGE);
	EXPECT_BAD_WITH(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_GRAN, "256", -ERANGE); /* < block */
	EXPECT_BAD_WITH(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_GRAN, "2147483648", -ERANGE);
	EXPECT_BAD_WITH(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_ALIGN, "100", -ERANGE);
	EXPECT_BAD_WITH(XBLK_KEY_DISCARD, "1", XBLK_KEY_DISCARD_ALIGN, "2147483648", -ERANGE);
	/* alignment must be below the granularity */
	base_keys(&x);
	fxs_set(&x, XBLK_KEY_DISCARD, "1");
	fxs_set(&x, XBLK_KEY_DISCARD_GRAN, "4096");
	fxs_set(&x, XBLK_KEY_DISCARD_ALIGN, "4096");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), -ERANGE);
	CHECK_STR(bad, XBLK_KEY_DISCARD_ALIGN);
	/* granularity must be a multiple of the logical block */
	fxs_set(&x, XBLK_KEY_SECTOR_SIZE, "4096");
	fxs_set(&x, XBLK_KEY_DISCARD_GRAN, "2048");
	fxs_set(&x, XBLK_KEY_DISCARD_ALIGN, "0");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), -ERANGE);
	CHECK_STR(bad, XBLK_KEY_DISCARD_GRAN);
	/* and so must the alignment */
	fxs_set(&x, XBLK_KEY_DISCARD_GRAN, "65536");
	fxs_set(&x, XBLK_KEY_DISCARD_ALIGN, "512");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), -ERANGE);
	CHECK_STR(bad, XBLK_KEY_DISCARD_ALIGN);
}

XTEST(be_info_geometry_keys)
{
	struct xblk_be_info bi;
	struct fxs x;
	const char *bad;

	base_keys(&x);
	fxs_set(&x, XBLK_KEY_IO_MIN, "512");
	fxs_set(&x, XBLK_KEY_IO_OPT, "1073741824");
	fxs_set(&x, XBLK_KEY_MAX_SECTORS, "4194304");	/* 2^22 */
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.io_min, 512);
	CHECK_EQ(bi.io_opt, 1u << 30);
	CHECK_EQ(bi.max_sectors, 1u << 22);
	fxs_set(&x, XBLK_KEY_MAX_SECTORS, "1");		/* one 512 B sector */
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.max_sectors, 1);

	EXPECT_BAD(XBLK_KEY_IO_MIN, "1000", -ERANGE);
	EXPECT_BAD(XBLK_KEY_IO_MIN, "2147483648", -ERANGE);
	EXPECT_BAD(XBLK_KEY_IO_OPT, "768", -ERANGE);
	EXPECT_BAD(XBLK_KEY_IO_OPT, "1073742336", -ERANGE);	/* 2^30+512 */
	EXPECT_BAD(XBLK_KEY_MAX_SECTORS, "4194305", -ERANGE);
	/* on a 4K disk: multiples of 4096 bytes, at least 8 sectors */
	EXPECT_BAD_WITH(XBLK_KEY_SECTOR_SIZE, "4096", XBLK_KEY_IO_MIN, "512",
			-ERANGE);
	EXPECT_BAD_WITH(XBLK_KEY_SECTOR_SIZE, "4096", XBLK_KEY_IO_OPT, "6144",
			-ERANGE);
	EXPECT_BAD_WITH(XBLK_KEY_SECTOR_SIZE, "4096", XBLK_KEY_MAX_SECTORS, "7",
			-ERANGE);
	base_keys(&x);
	fxs_set(&x, XBLK_KEY_SECTOR_SIZE, "4096");
	fxs_set(&x, XBLK_KEY_MAX_SECTORS, "8");
	fxs_set(&x, XBLK_KEY_IO_MIN, "0");
	CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
	CHECK_EQ(bi.max_sectors, 8);
	CHECK_EQ(bi.io_min, 0);
}

/* ------------------------------------------------------- xblk_negotiate -- */

static void be(struct xblk_be_info *bi, unsigned int queues,
	       unsigned int order, unsigned int indirect, unsigned int max_sectors)
{
	memset(bi, 0, sizeof(*bi));
	bi->sectors = 1 << 20;
	bi->sector_size = 512;
	bi->phys_sector_size = 512;
	bi->max_queues = queues;
	bi->max_ring_order = order;
	bi->max_indirect_segs = indirect;
	bi->max_sectors = max_sectors;
}

static void fe(struct xblk_fe_limits *fl, unsigned int queues,
	       unsigned int cpus, unsigned int order, unsigned int indirect)
{
	memset(fl, 0, sizeof(*fl));
	fl->max_queues = queues;
	fl->nr_cpus = cpus;
	fl->max_ring_order = order;
	fl->max_indirect_segs = indirect;
}

static struct xblk_negotiated nego(const struct xblk_be_info *bi,
				   const struct xblk_fe_limits *fl)
{
	struct xblk_negotiated n;

	memset(&n, 0xa5, sizeof(n));
	xblk_negotiate(bi, fl, &n);
	return n;
}

XTEST(negotiate_no_indirect)
{
	struct xblk_be_info bi;
	struct xblk_fe_limits fl;
	struct xblk_negotiated n;

	be(&bi, 1, 0, 0, 0);			/* backend without indirect */
	fe(&fl, 4, 4, 4, 256);
	n = nego(&bi, &fl);
	CHECK(!n.indirect);
	CHECK_EQ(n.segs, BLKIF_MAX_SEGMENTS_PER_REQUEST);
	be(&bi, 1, 0, 256, 0);			/* frontend has it off */
	fe(&fl, 4, 4, 4, 0);
	n = nego(&bi, &fl);
	CHECK(!n.indirect);
	CHECK_EQ(n.segs, 11);
	/* indirect that gives no more than 11 segments is not used */
	be(&bi, 1, 0, 8, 0);
	fe(&fl, 4, 4, 4, 256);
	n = nego(&bi, &fl);
	CHECK(!n.indirect);
	CHECK_EQ(n.segs, 11);
	be(&bi, 1, 0, 11, 0);
	n = nego(&bi, &fl);
	CHECK(!n.indirect);
	CHECK_EQ(n.segs, 11);
}

XTEST(negotiate_indirect)
{
	struct xblk_be_info bi;
	struct xblk_fe_limits fl;
	struct xblk_negotiated n;

	be(&bi, 1, 0, 256, 0);
	fe(&fl, 4, 4, 4, 256);
	n = nego(&bi, &fl);
	CHECK(n.indirect);
	CHECK_EQ(n.segs, 256);
	be(&bi, 1, 0, 12, 0);			/* just above direct */
	n = nego(&bi, &fl);
	CHECK(n.indirect);
	CHECK_EQ(n.segs, 12);
	be(&bi, 1, 0, 4096, 0);			/* frontend is smaller */
	fe(&fl, 4, 4, 4, 32);
	n = nego(&bi, &fl);
	CHECK(n.indirect);
	CHECK_EQ(n.segs, 32);
	/* never beyond what 8 indirect pages can describe */
	be(&bi, 1, 0, 100000, 0);
	fe(&fl, 4, 4, 4, 100000);
	n = nego(&bi, &fl);
	CHECK(n.indirect);
	CHECK_EQ(n.segs, XBLK_MAX_INDIRECT_SEGS);
}

XTEST(negotiate_capped_by_max_sectors)
{
	struct xblk_be_info bi;
	struct xblk_fe_limits fl;
	struct xblk_negotiated n;

	fe(&fl, 1, 1, 0, 256);
	be(&bi, 1, 0, 256, 512);		/* 256 KiB = 64 pages */
	n = nego(&bi, &fl);
	CHECK(n.indirect);
	CHECK_EQ(n.segs, 64);
	be(&bi, 1, 0, 256, 513);		/* rounds up */
	n = nego(&bi, &fl);
	CHECK_EQ(n.segs, 65);
	/* never below 128 KiB: dom0 splits for the device, cheaper */
	be(&bi, 1, 0, 256, 128);
	n = nego(&bi, &fl);
	CHECK(n.indirect);
	CHECK_EQ(n.segs, XBLK_FLOOR_SEGS);
	be(&bi, 1, 0, 256, 1);
	n = nego(&bi, &fl);
	CHECK_EQ(n.segs, XBLK_FLOOR_SEGS);
	be(&bi, 1, 0, 256, 255);		/* null_blk */
	n = nego(&bi, &fl);
	CHECK_EQ(n.segs, 32);
	be(&bi, 1, 0, 16, 1);			/* the floor never exceeds the offer */
	n = nego(&bi, &fl);
	CHECK(n.indirect);
	CHECK_EQ(n.segs, 16);
	fe(&fl, 1, 1, 0, 20);
	be(&bi, 1, 0, 256, 1);
	n = nego(&bi, &fl);
	CHECK_EQ(n.segs, 20);
	fe(&fl, 1, 1, 0, 256);
	be(&bi, 1, 0, 256, 1u << 22);		/* larger than the offers */
	n = nego(&bi, &fl);
	CHECK_EQ(n.segs, 256);
	be(&bi, 1, 0, 0, 1u << 22);		/* no indirect at all */
	n = nego(&bi, &fl);
	CHECK(!n.indirect);
	CHECK_EQ(n.segs, 11);
	be(&bi, 1, 0, 0, 64);
	n = nego(&bi, &fl);
	CHECK(!n.indirect);
	CHECK_EQ(n.segs, 11);
}

XTEST(max_request_sectors_whole_pages)
{
	struct xblk_be_info bi;
	struct xblk_fe_limits fl;
	struct xblk_negotiated n;

	fe(&fl, 1, 1, 0, 256);
	be(&bi, 1, 0, 256, 255);		/* null_blk: 255 sectors */
	n = nego(&bi, &fl);
	CHECK_EQ(n.segs, 32);
	/* 256, not 255 or 248: one request per 128 KiB, dom0 splits */
	CHECK_EQ(xblk_max_request_sectors(&bi, &n), 256);
	be(&bi, 1, 0, 256, 0);			/* no key: what the segments carry */
	n = nego(&bi, &fl);
	CHECK_EQ(xblk_max_request_sectors(&bi, &n), 256 * 8);
	be(&bi, 1, 0, 256, 2048);
	n = nego(&bi, &fl);
	CHECK_EQ(xblk_max_request_sectors(&bi, &n), 2048);
	be(&bi, 1, 0, 256, 2047);		/* whole pages, rounded up */
	n = nego(&bi, &fl);
	CHECK_EQ(xblk_max_request_sectors(&bi, &n), 2048);
	CHECK_EQ(xblk_max_request_sectors(&bi, &n) % 8, 0);
	be(&bi, 1, 0, 0, 0);			/* direct only: 11 pages */
	n = nego(&bi, &fl);
	CHECK_EQ(xblk_max_request_sectors(&bi, &n), 88);
	be(&bi, 1, 0, 0, 5);			/* direct only, tiny device limit */
	n = nego(&bi, &fl);
	CHECK_EQ(xblk_max_request_sectors(&bi, &n), 88);
	be(&bi, 1, 0, 256, 5);			/* below a page: the 128 KiB floor */
	n = nego(&bi, &fl);
	CHECK_EQ(xblk_max_request_sectors(&bi, &n), 256);
	be(&bi, 1, 0, 256, 12);
	bi.sector_size = 4096;
	n = nego(&bi, &fl);
	CHECK_EQ(xblk_max_request_sectors(&bi, &n), 256);
	CHECK_EQ(xblk_max_request_sectors(&bi, &n) % (bi.sector_size >> 9), 0);
	fe(&fl, 1, 1, 0, 0);			/* no indirect: never below a block */
	be(&bi, 1, 0, 256, 8);
	bi.sector_size = 4096;
	n = nego(&bi, &fl);
	CHECK_EQ(xblk_max_request_sectors(&bi, &n), 88);
}

XTEST(negotiate_queues_min_of_three)
{
	struct xblk_be_info bi;
	struct xblk_fe_limits fl;

	be(&bi, 8, 0, 0, 0);
	fe(&fl, 4, 2, 0, 0);
	CHECK_EQ(nego(&bi, &fl).nr_queues, 2);		/* CPUs */
	fe(&fl, 4, 16, 0, 0);
	CHECK_EQ(nego(&bi, &fl).nr_queues, 4);		/* frontend */
	be(&bi, 3, 0, 0, 0);
	fe(&fl, 16, 16, 0, 0);
	CHECK_EQ(nego(&bi, &fl).nr_queues, 3);		/* backend */
	be(&bi, 1, 0, 0, 0);
	CHECK_EQ(nego(&bi, &fl).nr_queues, 1);
	/* never zero */
	fe(&fl, 0, 16, 0, 0);
	CHECK_EQ(nego(&bi, &fl).nr_queues, 1);
	fe(&fl, 16, 0, 0, 0);
	CHECK_EQ(nego(&bi, &fl).nr_queues, 1);
	be(&bi, 0, 0, 0, 0);
	fe(&fl, 16, 16, 0, 0);
	CHECK_EQ(nego(&bi, &fl).nr_queues, 1);
}

XTEST(negotiate_ring_order_and_persistent)
{
	struct xblk_be_info bi;
	struct xblk_fe_limits fl;
	struct xblk_negotiated n;

	be(&bi, 1, 4, 0, 0);
	fe(&fl, 1, 1, 2, 0);
	CHECK_EQ(nego(&bi, &fl).ring_order, 2);
	be(&bi, 1, 1, 0, 0);
	fe(&fl, 1, 1, 4, 0);
	CHECK_EQ(nego(&bi, &fl).ring_order, 1);
	be(&bi, 1, 0, 0, 0);
	CHECK_EQ(nego(&bi, &fl).ring_order, 0);

	bi.persistent = true;
	fl.persistent = false;
	CHECK(!nego(&bi, &fl).persistent);
	fl.persistent = true;
	CHECK(nego(&bi, &fl).persistent);
	bi.persistent = false;
	n = nego(&bi, &fl);
	CHECK(!n.persistent);
}

/* ----------------------------------------------------- xblk_vdev_decode -- */

struct vd { int ret; unsigned int index, part; bool ext; };

static struct vd vdev(u32 v)
{
	struct vd r = { 0, 0xdead, 0xdead, true };

	r.ret = xblk_vdev_decode(v, &r.index, &r.part, &r.ext);
	return r;
}

#define CHECK_VDEV(v, idx, prt, ex)					\
	do {								\
		struct vd r_ = vdev(v);					\
		CHECK_EQ(r_.ret, 0);					\
		CHECK_EQ(r_.index, idx);				\
		CHECK_EQ(r_.part, prt);					\
		CHECK_EQ(r_.ext, ex);					\
	} while (0)

XTEST(vdev_xvd)
{
	CHECK_VDEV(51712, 0, 0, false);			/* xvda */
	CHECK_VDEV(51728, 1, 0, false);			/* xvdb */
	CHECK_VDEV(51713, 0, 1, false);			/* xvda1 */
	CHECK_VDEV(202 << 8 | 15 << 4 | 15, 15, 15, false);	/* xvdp15 */
}

XTEST(vdev_extended)
{
	CHECK_VDEV(1u << 28 | 16 << 8, 16, 0, true);	/* xvdq */
	CHECK_VDEV(1u << 28 | 16 << 8 | 3, 16, 3, true);	/* xvdq3 */
	CHECK_VDEV(1u << 28, 0, 0, true);		/* xvda, extended form */
	CHECK_VDEV(1u << 28 | 0xfffff << 8 | 15, 0xfffff, 15, true);
	CHECK_EQ(vdev(1u << 28 | 16 << 8 | 16).ret, -EINVAL);	/* part 16 */
	CHECK_EQ(vdev(1u << 28 | 0xff).ret, -EINVAL);
	CHECK_EQ(vdev(2u << 28).ret, -EINVAL);		/* reserved */
	CHECK_EQ(vdev(3u << 28).ret, -EINVAL);
	CHECK_EQ(vdev(1u << 29).ret, -EINVAL);
	CHECK_EQ(vdev(0xffffffffu).ret, -EINVAL);
}

XTEST(vdev_ide)
{
	CHECK_VDEV(768, 0, 0, false);			/* hda */
	CHECK_VDEV(769, 0, 1, false);			/* hda1 */
	CHECK_VDEV(3 << 8 | 64, 1, 0, false);		/* hdb */
	CHECK_VDEV(3 << 8 | 64 | 15, 1, 15, false);	/* hdb15 */
	CHECK_VDEV(22 << 8, 2, 0, false);		/* hdc */
	CHECK_VDEV(22 << 8 | 64, 3, 0, false);		/* hdd */
	CHECK_VDEV(91 << 8 | 64, 19, 0, false);		/* hdt */
	CHECK_EQ(vdev(3 << 8 | 16).ret, -EINVAL);	/* hda16: no xvd minor */
	CHECK_EQ(vdev(3 << 8 | 63).ret, -EINVAL);
}

XTEST(vdev_ide_minor_range)
{
	/*
	 * An IDE major holds two disks (minors 0..127); minors 128..255 are
	 * not hdX numbers and must not alias the next major's disks.
	 */
	CHECK_EQ(vdev(3 << 8 | 128).ret, -EINVAL);	/* would be "hdc" */
	CHECK_EQ(vdev(3 << 8 | 192).ret, -EINVAL);	/* would be "hdd" */
	CHECK_EQ(vdev(22 << 8 | 128).ret, -EINVAL);
	CHECK_EQ(vdev(91 << 8 | 255).ret, -EINVAL);
}

XTEST(vdev_scsi)
{
	CHECK_VDEV(2048, 4, 0, false);			/* sda -> xvde */
	CHECK_VDEV(2049, 4, 1, false);			/* sda1 */
	CHECK_VDEV(2064, 5, 0, false);			/* sdb */
	CHECK_VDEV(8 << 8 | 15 << 4 | 15, 19, 15, false);	/* sdp15 */
	CHECK_VDEV(65 << 8, 20, 0, false);		/* sdq */
	CHECK_VDEV(71 << 8 | 15 << 4, 4 + 7 * 16 + 15, 0, false);
}

XTEST(vdev_garbage)
{
	static const u32 bad[] = {
		0, 1, 0xff, 1 << 8, 2 << 8, 7 << 8, 9 << 8, 64 << 8, 72 << 8,
		128 << 8, 201 << 8, 203 << 8, 255 << 8 | 255, 1 << 16,
		202 << 16, 0x0fffffff, 0x00ca0000,
	};
	unsigned int i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct vd r = vdev(bad[i]);

		if (r.ret != -EINVAL)
			xt_fail(__FILE__, __LINE__,
				"vdev %#x accepted (index %u part %u)",
				bad[i], r.index, r.part);
	}
}

/* ------------------------------------------------------- xblk_disk_name -- */

static const char *dname(unsigned int index, unsigned int part)
{
	static char buf[32];

	memset(buf, 'X', sizeof(buf));
	if (xblk_disk_name(index, part, buf, sizeof(buf)))
		return "(error)";
	return buf;
}

XTEST(disk_name_letters)
{
	CHECK_STR(dname(0, 0), "xvda");
	CHECK_STR(dname(1, 0), "xvdb");
	CHECK_STR(dname(25, 0), "xvdz");
	CHECK_STR(dname(26, 0), "xvdaa");
	CHECK_STR(dname(27, 0), "xvdab");
	CHECK_STR(dname(51, 0), "xvdaz");
	CHECK_STR(dname(52, 0), "xvdba");
	CHECK_STR(dname(701, 0), "xvdzz");	/* 26 + 26*26 - 1 */
	CHECK_STR(dname(702, 0), "xvdaaa");
	CHECK_STR(dname(18277, 0), "xvdzzz");
	CHECK_STR(dname(18278, 0), "xvdaaaa");
	CHECK_STR(dname(0xfffff, 0), "xvdbgqcv");	/* largest extended */
}

XTEST(disk_name_partition)
{
	CHECK_STR(dname(0, 1), "xvda1");
	CHECK_STR(dname(1, 9), "xvdb9");
	CHECK_STR(dname(1, 10), "xvdb10");
	CHECK_STR(dname(26, 15), "xvdaa15");
	CHECK_STR(dname(702, 99), "xvdaaa99");
}

XTEST(disk_name_buffer_size)
{
	char buf[32];

	memset(buf, 'X', sizeof(buf));
	/* 1 letter: "xvd" + 1 + room for 2 digits + NUL = 7 needed, 8 asked */
	CHECK_EQ(xblk_disk_name(0, 0, buf, 7), -EINVAL);
	CHECK_EQ(buf[0], 'X');				/* untouched */
	CHECK_EQ(xblk_disk_name(0, 15, buf, 8), 0);
	CHECK_STR(buf, "xvda15");
	CHECK_EQ(xblk_disk_name(26, 15, buf, 8), -EINVAL);
	CHECK_EQ(xblk_disk_name(26, 15, buf, 9), 0);
	CHECK_STR(buf, "xvdaa15");
	CHECK_EQ(xblk_disk_name(0, 0, buf, 0), -EINVAL);
	/* 32 is always enough */
	CHECK_EQ(xblk_disk_name(~0u, 99, buf, 32), 0);
	CHECK_EQ(strncmp(buf, "xvd", 3), 0);
	CHECK(strlen(buf) < 32);
}

/* sd_format_disk_name(), as the kernel has it, for comparison. */
static void ref_name(unsigned long long index, unsigned int part, char *buf)
{
	char tmp[32], *p = tmp + sizeof(tmp) - 1;
	long long i = index;

	*p = '\0';
	do {
		*--p = 'a' + i % 26;
		i = i / 26 - 1;
	} while (i >= 0);
	if (part)
		sprintf(buf, "xvd%s%u", p, part);
	else
		sprintf(buf, "xvd%s", p);
}

XTEST(disk_name_matches_sd_format)
{
	static const unsigned int big[] = {
		1000000, 0xfffff, 0x7fffffff, 0xfffffffe, 0xffffffff,
	};
	char want[40];
	unsigned int i;

	for (i = 0; i < 20000; i++) {
		ref_name(i, i % 16, want);
		CHECK_STR(dname(i, i % 16), want);
	}
	for (i = 0; i < sizeof(big) / sizeof(big[0]); i++) {
		ref_name(big[i], 0, want);
		CHECK_STR(dname(big[i], 0), want);
	}
}

/* vdev -> index -> name, for the numbers toolstacks write */
XTEST(vdev_to_name)
{
	static const struct { u32 vdev; const char *name; } t[] = {
		{ 51712, "xvda" }, { 51713, "xvda1" }, { 51728, "xvdb" },
		{ 1u << 28 | 16 << 8, "xvdq" }, { 1u << 28 | 26 << 8 | 2, "xvdaa2" },
		{ 768, "xvda" }, { 22 << 8 | 64 | 3, "xvdd3" }, { 2048, "xvde" },
		{ 65 << 8 | 16, "xvdv" },
	};
	unsigned int i, index, part;
	bool ext;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		CHECK_EQ(xblk_vdev_decode(t[i].vdev, &index, &part, &ext), 0);
		CHECK_STR(dname(index, part), t[i].name);
	}
}

/* --------------------------------------------------- xblk_parse_be_ring -- */

static int ring_keys(const char *q, const char *o, unsigned int *mq,
		     unsigned int *mo, const char **bad)
{
	struct fxs x;

	fxs_init(&x);
	if (q)
		fxs_set(&x, XBLK_KEY_MAX_QUEUES, q);
	if (o)
		fxs_set(&x, XBLK_KEY_MAX_RING_ORDER, o);
	*mq = *mo = 0xdead;
	*bad = NULL;
	return xblk_parse_be_ring(fxs_read, &x, mq, mo, bad);
}

XTEST(be_ring_defaults_and_clamps)
{
	unsigned int q, o;
	const char *bad;

	CHECK_EQ(ring_keys(NULL, NULL, &q, &o, &bad), 0);	/* InitWait, bare */
	CHECK_EQ(q, 1);
	CHECK_EQ(o, 0);
	CHECK_EQ(ring_keys("0", "0", &q, &o, &bad), 0);
	CHECK_EQ(q, 1);
	CHECK_EQ(ring_keys("8", "2", &q, &o, &bad), 0);
	CHECK_EQ(q, 8);
	CHECK_EQ(o, 2);
	CHECK_EQ(ring_keys("33", "5", &q, &o, &bad), 0);
	CHECK_EQ(q, XBLK_MAX_QUEUES);
	CHECK_EQ(o, XBLK_MAX_RING_ORDER);
	CHECK_EQ(ring_keys("18446744073709551615", "4294967300", &q, &o, &bad), 0);
	CHECK_EQ(q, XBLK_MAX_QUEUES);
	CHECK_EQ(o, XBLK_MAX_RING_ORDER);
}

XTEST(be_ring_malformed)
{
	unsigned int q, o;
	const char *bad;

	CHECK_EQ(ring_keys("four", "0", &q, &o, &bad), -EINVAL);
	CHECK_STR(bad, XBLK_KEY_MAX_QUEUES);
	CHECK_EQ(ring_keys("4", "-1", &q, &o, &bad), -EINVAL);
	CHECK_STR(bad, XBLK_KEY_MAX_RING_ORDER);
	CHECK_EQ(ring_keys("18446744073709551616", NULL, &q, &o, &bad), -ERANGE);
	CHECK_STR(bad, XBLK_KEY_MAX_QUEUES);
	CHECK_EQ(ring_keys("4", "", &q, &o, &bad), -EINVAL);
}

/* the two parsers agree on the keys they share */
XTEST(be_ring_matches_be_info)
{
	static const char *const vals[] = { "0", "1", "3", "4", "5", "31",
					    "32", "33", "4294967297" };
	unsigned int i, j, q, o;
	const char *bad;

	for (i = 0; i < 9; i++) {
		for (j = 0; j < 9; j++) {
			struct xblk_be_info bi;
			struct fxs x;

			base_keys(&x);
			fxs_set(&x, XBLK_KEY_MAX_QUEUES, vals[i]);
			fxs_set(&x, XBLK_KEY_MAX_RING_ORDER, vals[j]);
			CHECK_EQ(parse(&x, &bi, &bad, SZ_4K), 0);
			CHECK_EQ(ring_keys(vals[i], vals[j], &q, &o, &bad), 0);
			CHECK_EQ(q, bi.max_queues);
			CHECK_EQ(o, bi.max_ring_order);
		}
	}
}

/* ---------------------------- xblk_parse_fe_ring, xblk_parse_fe_queue -- */

/* The backend's view: we offered 4 queues and ring order 2. */
static int fe_ring(struct fxs *x, struct xblk_fe_ring *fr, const char **bad)
{
	memset(fr, 0xa5, sizeof(*fr));
	*bad = NULL;
	return xblk_parse_fe_ring(fxs_read, x, 4, 2, fr, bad);
}

XTEST(fe_ring_defaults)
{
	struct xblk_fe_ring fr;
	const char *bad;
	struct fxs x;

	fxs_init(&x);
	CHECK_EQ(fe_ring(&x, &fr, &bad), 0);
	CHECK_EQ(fr.nr_queues, 1);
	CHECK_EQ(fr.ring_order, 0);
	CHECK_EQ(fr.multi_ref, false);
	CHECK_EQ(fr.persistent, false);
	fxs_set(&x, XBLK_KEY_NR_QUEUES, "4");
	fxs_set(&x, XBLK_KEY_RING_ORDER, "0");
	fxs_set(&x, XBLK_KEY_PERSISTENT, "1");
	CHECK_EQ(fe_ring(&x, &fr, &bad), 0);
	CHECK_EQ(fr.nr_queues, 4);
	CHECK_EQ(fr.ring_order, 0);
	CHECK_EQ(fr.multi_ref, true);	/* present, even at 0: ring-refN */
	CHECK_EQ(fr.persistent, true);
	fxs_set(&x, XBLK_KEY_RING_ORDER, "2");
	CHECK_EQ(fe_ring(&x, &fr, &bad), 0);
	CHECK_EQ(fr.ring_order, 2);
}

/* What the hostile frontend (tests/hostile) writes: refused, key named. */
XTEST(fe_ring_bad_values)
{
	static const struct { const char *key, *val; int err; } bad[] = {
		{ XBLK_KEY_RING_ORDER, "3", -ERANGE },	/* above our offer */
		{ XBLK_KEY_RING_ORDER, "99", -ERANGE },
		{ XBLK_KEY_RING_ORDER, "18446744073709551616", -ERANGE },
		{ XBLK_KEY_RING_ORDER, "-1", -EINVAL },
		{ XBLK_KEY_RING_ORDER, "abc", -EINVAL },
		{ XBLK_KEY_RING_ORDER, "2abc", -EINVAL },
		{ XBLK_KEY_RING_ORDER, "", -EINVAL },
		{ XBLK_KEY_NR_QUEUES, "0", -ERANGE },
		{ XBLK_KEY_NR_QUEUES, "5", -ERANGE },
		{ XBLK_KEY_NR_QUEUES, "4294967297", -ERANGE },
		{ XBLK_KEY_NR_QUEUES, "99999999999999999999999", -ERANGE },
		{ XBLK_KEY_NR_QUEUES, "2\n", -EINVAL },
		{ XBLK_KEY_NR_QUEUES,
		  "000000000000000000000000000000000000000001", -EINVAL },
		{ XBLK_KEY_PERSISTENT, "abc", -EINVAL },
		{ XBLK_KEY_PERSISTENT, "1abc", -EINVAL },
		{ XBLK_KEY_PERSISTENT, "2", -ERANGE },
		{ XBLK_KEY_PERSISTENT, "", -EINVAL },
	};
	struct xblk_fe_ring fr;
	const char *b;
	unsigned int i;
	struct fxs x;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fxs_init(&x);
		fxs_set(&x, XBLK_KEY_NR_QUEUES, "2");
		fxs_set(&x, XBLK_KEY_RING_ORDER, "1");
		fxs_set(&x, XBLK_KEY_PERSISTENT, "0");
		fxs_set(&x, bad[i].key, bad[i].val);
		CHECK_EQ(fe_ring(&x, &fr, &b), bad[i].err);
		CHECK(b && !strcmp(b, bad[i].key));
	}
	/* an unreadable key is an error, not a default */
	fxs_init(&x);
	fxs_fail(&x, XBLK_KEY_PERSISTENT, -EIO);
	CHECK_EQ(fe_ring(&x, &fr, &b), -EIO);
	CHECK_STR(b, XBLK_KEY_PERSISTENT);
}

static int fe_queue(struct fxs *x, unsigned int order, bool multi,
		    struct xblk_fe_queue *fq, const char **bad)
{
	struct xblk_fe_ring fr = { .nr_queues = 1, .ring_order = order,
				   .multi_ref = multi };

	memset(fq->grefs, 0xa5, sizeof(fq->grefs));
	fq->evtchn = 0xdead;
	*bad = NULL;
	return xblk_parse_fe_queue(fxs_read, x, &fr, fq, bad);
}

XTEST(fe_queue_refs)
{
	static const char *const refs[] = { "ring-ref0", "ring-ref1",
					    "ring-ref2", "ring-ref3" };
	struct xblk_fe_queue fq;
	const char *bad;
	struct fxs x;

	fxs_init(&x);
	fxs_set(&x, XBLK_KEY_EVTCHN, "17");
	fxs_set(&x, XBLK_KEY_RING_REF, "8");
	CHECK_EQ(fe_queue(&x, 0, false, &fq, &bad), 0);
	CHECK_EQ(fq.evtchn, 17);
	CHECK_EQ(fq.grefs[0], 8);
	/* order 0 with ring-page-order: ring-ref0, else ring-ref */
	CHECK_EQ(fe_queue(&x, 0, true, &fq, &bad), 0);
	CHECK_EQ(fq.grefs[0], 8);
	fxs_set(&x, "ring-ref0", "4294967295");
	CHECK_EQ(fe_queue(&x, 0, true, &fq, &bad), 0);
	CHECK_EQ(fq.grefs[0], 4294967295u);
	/* order 2: four refs, in order */
	fxs_set(&x, refs[0], "100");
	fxs_set(&x, refs[1], "101");
	fxs_set(&x, refs[2], "102");
	fxs_set(&x, refs[3], "103");
	CHECK_EQ(fe_queue(&x, 2, true, &fq, &bad), 0);
	CHECK_EQ(fq.grefs[0], 100);
	CHECK_EQ(fq.grefs[3], 103);
	/* a list shorter than the order: the first missing one is named */
	fxs_set(&x, refs[2], NULL);
	fxs_set(&x, refs[3], NULL);
	CHECK_EQ(fe_queue(&x, 2, true, &fq, &bad), -ENOENT);
	CHECK_STR(bad, "ring-ref2");
	/* a larger order stops at the same first missing ref */
	CHECK_EQ(fe_queue(&x, XBLK_MAX_RING_ORDER, true, &fq, &bad), -ENOENT);
	CHECK_STR(bad, "ring-ref2");
	/* ring-ref stands in for ring-ref0 only at order 0 */
	fxs_set(&x, refs[0], NULL);
	CHECK_EQ(fe_queue(&x, 1, true, &fq, &bad), -ENOENT);
	CHECK_STR(bad, "ring-ref0");
	/* 2 is pvgrub's ring (0 and 1: fe_queue_bad_values) */
	fxs_set(&x, XBLK_KEY_RING_REF, "2");
	CHECK_EQ(fe_queue(&x, 0, false, &fq, &bad), 0);
	CHECK_EQ(fq.grefs[0], 2);
}

XTEST(fe_queue_ring_ref15)
{
	static char names[16][12];
	struct xblk_fe_queue fq;
	const char *bad;
	unsigned int i;
	struct fxs x;

	fxs_init(&x);
	fxs_set(&x, XBLK_KEY_EVTCHN, "5");
	for (i = 0; i < 16; i++) {
		snprintf(names[i], sizeof(names[i]), "ring-ref%u", i);
		if (i != 15)
			fxs_set(&x, names[i], "9");
	}
	CHECK_EQ(fe_queue(&x, 4, true, &fq, &bad), -ENOENT);
	CHECK_STR(bad, "ring-ref15");
	fxs_set(&x, names[15], "1000");
	CHECK_EQ(fe_queue(&x, 4, true, &fq, &bad), 0);
	CHECK_EQ(fq.grefs[15], 1000);
}

XTEST(fe_queue_bad_values)
{
	static const struct { const char *key, *val; int err; } bad[] = {
		{ XBLK_KEY_EVTCHN, NULL, -ENOENT },
		{ XBLK_KEY_EVTCHN, "0", -ERANGE },	/* never a port */
		{ XBLK_KEY_EVTCHN, "4294967296", -ERANGE },
		{ XBLK_KEY_EVTCHN, "12abc", -EINVAL },
		{ XBLK_KEY_EVTCHN, "12 ", -EINVAL },
		{ XBLK_KEY_EVTCHN, "-3", -EINVAL },
		{ XBLK_KEY_RING_REF, NULL, -ENOENT },
		{ XBLK_KEY_RING_REF, "0", -ERANGE },	/* the console page */
		{ XBLK_KEY_RING_REF, "1", -ERANGE },	/* the xenstore page */
		{ XBLK_KEY_RING_REF, "4294967296", -ERANGE },
		{ XBLK_KEY_RING_REF, "300abc", -EINVAL },
		{ XBLK_KEY_RING_REF, "0x300", -EINVAL },
		{ XBLK_KEY_RING_REF,
		  "0000000000000000000000000000000000000300", -EINVAL },
	};
	struct xblk_fe_queue fq;
	const char *b;
	unsigned int i;
	struct fxs x;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		fxs_init(&x);
		fxs_set(&x, XBLK_KEY_EVTCHN, "9");
		fxs_set(&x, XBLK_KEY_RING_REF, "300");
		fxs_set(&x, bad[i].key, bad[i].val);
		CHECK_EQ(fe_queue(&x, 0, false, &fq, &b), bad[i].err);
		CHECK(b && !strcmp(b, bad[i].key));
	}
}
