// SPDX-License-Identifier: GPL-2.0
/*
 * xblkfront: Xen PV block frontend - module entry (parameters: params.c).
 */
#include <linux/module.h>
#include <xen/xen.h>
#include <xen/platform_pci.h>

#include "blkfront.h"

static int __init xbf_init(void)
{
	int err;

	if (!xen_domain())
		return -ENODEV;
	if (!xen_has_pv_disk_devices())
		return -ENODEV;

	err = register_blkdev(XBLK_XVD_MAJOR, "xvd");
	if (err) {
		pr_err("cannot register block major %d (%d): unload or blacklist xen-blkfront\n",
		       XBLK_XVD_MAJOR, err);
		return err;
	}

	err = xbf_xenbus_register();
	if (err)
		goto out_unregister_blkdev;
	return 0;

out_unregister_blkdev:
	unregister_blkdev(XBLK_XVD_MAJOR, "xvd");
	return err;
}
module_init(xbf_init);

static void __exit xbf_exit(void)
{
	xbf_xenbus_unregister();
	unregister_blkdev(XBLK_XVD_MAJOR, "xvd");
}
module_exit(xbf_exit);

MODULE_DESCRIPTION("Xen PV block frontend with batched, merge-friendly blk-mq dispatch");
MODULE_LICENSE("GPL");
MODULE_ALIAS("xen:vbd");
