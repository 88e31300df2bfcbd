// SPDX-License-Identifier: GPL-2.0
/*
 * After 6.12 (7.2 has it): xenbus_read_driver_state() takes the xenbus_device
 * as well as the path, so that a device whose xenstore entries vanished reads
 * as XenbusStateUnknown (struct xenbus_device gained ->vanished).  6.1 and
 * 6.12 have xenbus_read_driver_state(const char *path).
 */
#include <xen/xenbus.h>

enum xenbus_state probe(struct xenbus_device *dev);
enum xenbus_state probe(struct xenbus_device *dev)
{
	return xenbus_read_driver_state(dev, dev->otherend);
}
