/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel's <asm/xen/interface.h>, written for
 * tests/unit: just enough for the kernel's <xen/interface/xen.h>,
 * grant_table.h, io/ring.h and io/blkif.h to compile with a libc.  Layouts
 * are those of x86_64 (the only arch the tests run on); nothing here is
 * used by the code under test except through those headers' types.
 */
#ifndef XBLK_SHIM_ASM_XEN_INTERFACE_H
#define XBLK_SHIM_ASM_XEN_INTERFACE_H

#include <stddef.h>	/* offsetof, used by __CONST_RING_SIZE */
#include <stdint.h>

#if !defined(__x86_64__)
#error "tests/unit shim: blkif layouts are only checked on x86_64"
#endif

typedef uint64_t u64;	/* for DEFINE_GUEST_HANDLE(u64) in xen.h */

/* Guest handles are plain pointers on x86. */
#define __DEFINE_GUEST_HANDLE(name, type) \
	typedef struct { type *p; } __guest_handle_ ## name
#define DEFINE_GUEST_HANDLE_STRUCT(name) \
	__DEFINE_GUEST_HANDLE(name, struct name)
#define DEFINE_GUEST_HANDLE(name)	__DEFINE_GUEST_HANDLE(name, name)
#define GUEST_HANDLE(name)		__guest_handle_ ## name

typedef unsigned long xen_pfn_t;
typedef unsigned long xen_ulong_t;
typedef long xen_long_t;

__DEFINE_GUEST_HANDLE(uchar, unsigned char);
__DEFINE_GUEST_HANDLE(uint, unsigned int);
DEFINE_GUEST_HANDLE(char);
DEFINE_GUEST_HANDLE(int);
DEFINE_GUEST_HANDLE(void);
DEFINE_GUEST_HANDLE(uint64_t);
DEFINE_GUEST_HANDLE(uint32_t);
DEFINE_GUEST_HANDLE(xen_pfn_t);
DEFINE_GUEST_HANDLE(xen_ulong_t);

#define MAX_VIRT_CPUS	32

/* Opaque here: only embedded in shared_info/vcpu_info, never used. */
struct arch_vcpu_info {
	unsigned long cr2;
	unsigned long pad;
};

struct arch_shared_info {
	unsigned long max_pfn;
	xen_pfn_t pfn_to_mfn_frame_list_list;
	unsigned long nmi_reason;
	uint64_t pad[32];
};

struct pvclock_vcpu_time_info {
	uint32_t version;
	uint32_t pad0;
	uint64_t tsc_timestamp;
	uint64_t system_time;
	uint32_t tsc_to_system_mul;
	int8_t tsc_shift;
	uint8_t flags;
	uint8_t pad[2];
};

struct pvclock_wall_clock {
	uint32_t version;
	uint32_t sec;
	uint32_t nsec;
};

#endif /* XBLK_SHIM_ASM_XEN_INTERFACE_H */
