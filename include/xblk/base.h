/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The few definitions the pure protocol headers need, from the kernel when
 * built as part of a module and from libc when built by the userspace unit
 * tests and fuzzers (tests/unit), so that the very same code is tested.
 */
#ifndef XBLK_BASE_H
#define XBLK_BASE_H

#ifdef __KERNEL__
#include <linux/types.h>
#include <linux/kernel.h>
#include <linux/minmax.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/errno.h>
#include <xen/page.h>
#include <xen/interface/io/blkif.h>
#else
#include <xblk_user.h>	/* tests/unit/shim: libc equivalents */
#endif /* __KERNEL__ */

#endif /* XBLK_BASE_H */
