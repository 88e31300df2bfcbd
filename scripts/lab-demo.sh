#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lab demo: boot real Xen 4.17 under QEMU (software emulation), give a
# PV guest a disk served by dom0 through the xblk pair, and print what fio
# measures inside the guest.  Installs what it needs with apt-get on a fresh
# Debian 12 machine (run as root).  Takes a few minutes.
#
#   scripts/lab-demo.sh            (or: make lab-demo)
set -euo pipefail
cd "$(dirname "$0")/.."
exec tests/lab/run.sh demo
