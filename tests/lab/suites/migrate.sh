# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC1091
# Suite "migrate": live migration to this same host with I/O in flight; the case is the
# restore suite's with `xl migrate` in place of save + restore (see suites/restore.sh).
. /lab/suites/restore.sh
