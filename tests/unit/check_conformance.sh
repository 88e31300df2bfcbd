#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check_conformance.sh UNIT_TESTS: conformance.md and the test binary agree:
# every case named in the last column of its tables exists, and every
# conf_* case is listed.
set -u
bin=$1
doc=conformance.md
cases=$("$bin" -l | cut -f1 | sort -u)
listed=$(awk -F'|' '/^\|/ && NF > 2 { print $(NF - 1) }' "$doc" |
	 grep -o '`[a-z][a-z0-9_]*`' | tr -d '`' | sort -u)
bad=0
for t in $listed; do
	grep -qx "$t" <<<"$cases" || { echo "$doc names '$t', which is no test case" >&2; bad=1; }
done
for t in $(grep '^conf_' <<<"$cases"); do
	grep -qx "$t" <<<"$listed" || { echo "test case $t is missing from $doc" >&2; bad=1; }
done
[ "$bad" = 0 ] && echo "conformance.md: $(wc -w <<<"$listed") cases listed, all present"
exit $bad
