// SPDX-License-Identifier: GPL-2.0
/*
 * xlab-cputime: what Xen has charged so far, in nanoseconds, for the bench suite
 * (tests/lab/suites/bench.sh), which reads it before and after a window of a job.
 *
 *   xlab-cputime DOMID...
 *   -> t=<dom0 CLOCK_MONOTONIC ns> idle=<idle time of all pCPUs> <domid>=<ns> ...
 *
 * <domid>=<ns> is the CPU time of every vCPU of the domain, summed (XEN_DOMCTL_getvcpuinfo:
 * the counters `xl vcpu-list` prints rounded to 0.1 s); idle is the idle time of Xen's
 * physical CPUs (XEN_SYSCTL_getcpuinfo, as `xenpm` reads it). Under QEMU's icount clock all
 * of them are virtual time. A domain that does not exist prints <domid>=- and the exit
 * status is 1.
 *
 * Debian ships libxenctrl.so but not its headers (libxen-dev is not installed here): the
 * four calls and the two structures used are declared below as in Xen 4.17's xenctrl.h and
 * public/domctl.h, public/sysctl.h; the layouts are checked at compile time.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct xc_interface_core xc_interface;

/* struct xen_domctl_getvcpuinfo */
struct xc_vcpuinfo {
	uint32_t vcpu;
	uint8_t online;
	uint8_t blocked;
	uint8_t running;
	uint64_t cpu_time __attribute__((aligned(8)));	/* ns */
	uint32_t cpu;
};
_Static_assert(offsetof(struct xc_vcpuinfo, cpu_time) == 8, "getvcpuinfo layout");
_Static_assert(sizeof(struct xc_vcpuinfo) == 24, "getvcpuinfo size");

/* struct xen_sysctl_cpuinfo */
struct xc_cpuinfo {
	uint64_t idletime __attribute__((aligned(8)));	/* ns */
};

xc_interface *xc_interface_open(void *logger, void *dombuild_logger, unsigned int flags);
int xc_interface_close(xc_interface *xch);
int xc_vcpu_getinfo(xc_interface *xch, uint32_t domid, uint32_t vcpu,
		    struct xc_vcpuinfo *info);
int xc_getcpuinfo(xc_interface *xch, int max_cpus, struct xc_cpuinfo *info, int *nr_cpus);

#define MAX_VCPUS 128
#define MAX_PCPUS 64

int main(int argc, char **argv)
{
	struct xc_cpuinfo ci[MAX_PCPUS];
	struct xc_vcpuinfo vi;
	struct timespec ts;
	unsigned long long idle = 0, sum;
	xc_interface *xch;
	int i, v, n = 0, rc = 0;
	char *end;

	if (argc < 2) {
		fprintf(stderr, "usage: xlab-cputime DOMID...\n");
		return 2;
	}
	xch = xc_interface_open(NULL, NULL, 0);
	if (!xch) {
		perror("xlab-cputime: xc_interface_open");
		return 2;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	printf("t=%llu", (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec);
	if (xc_getcpuinfo(xch, MAX_PCPUS, ci, &n) == 0) {
		for (i = 0; i < n; i++)
			idle += ci[i].idletime;
		printf(" idle=%llu", idle);
	} else {
		printf(" idle=-");
	}
	for (i = 1; i < argc; i++) {
		unsigned long domid = strtoul(argv[i], &end, 10);

		if (*end || end == argv[i]) {
			fprintf(stderr, "xlab-cputime: bad domid '%s'\n", argv[i]);
			return 2;
		}
		sum = 0;
		/* vCPU ids are dense: Xen refuses the first one past max_vcpus */
		for (v = 0; v < MAX_VCPUS; v++) {
			if (xc_vcpu_getinfo(xch, domid, v, &vi))
				break;
			sum += vi.cpu_time;
		}
		if (v == 0) {
			printf(" %lu=-", domid);
			rc = 1;
		} else {
			printf(" %lu=%llu", domid, sum);
		}
	}
	printf("\n");
	xc_interface_close(xch);
	return rc;
}
