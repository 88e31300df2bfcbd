// SPDX-License-Identifier: GPL-2.0
/* 6.1+: struct xenbus_driver ->remove() returns void (was int). */
#include <xen/xenbus.h>

static void probe_remove(struct xenbus_device *dev) { }

struct xenbus_driver probe_drv = {
	.remove = probe_remove,
};
