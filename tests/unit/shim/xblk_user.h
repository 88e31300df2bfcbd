/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel definitions include/xblk/base.h needs,
 * so the pure protocol headers compile unchanged in tests/unit.
 */
#ifndef XBLK_USER_H
#define XBLK_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <assert.h>
#include <errno.h>
#include <xen/interface/io/blkif.h>	/* from the kernel headers, via tests/unit */

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int16_t s16;
#ifndef XEN_PAGE_SIZE
#define XEN_PAGE_SHIFT	12
#define XEN_PAGE_SIZE	(1UL << XEN_PAGE_SHIFT)
#endif
#ifndef DIV_ROUND_UP
#define DIV_ROUND_UP(n, d)	(((n) + (d) - 1) / (d))
#endif
#ifndef BIT
#define BIT(n)	(1UL << (n))
#endif
#ifndef min
#define min(a, b)	((a) < (b) ? (a) : (b))
#define max(a, b)	((a) > (b) ? (a) : (b))
#endif
#define min3(a, b, c)		min(min(a, b), c)
#define min_t(t, a, b)		min((t)(a), (t)(b))
#define max_t(t, a, b)		max((t)(a), (t)(b))
#define clamp_t(t, v, lo, hi)	min_t(t, max((t)(v), (t)(lo)), hi)
#define clamp(v, lo, hi)	min(max(v, lo), hi)

static inline u64 div_u64(u64 dividend, u32 divisor)
{
	return dividend / divisor;
}

static inline u64 div64_u64(u64 dividend, u64 divisor)
{
	return dividend / divisor;
}

#endif /* XBLK_USER_H */
