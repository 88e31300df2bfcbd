#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# No function of the drivers longer than 60 lines (issue 13): a body, from
# its "{" to its "}" (both counted), in blkfront/, blkback/ and
# include/xblk/.  Kernel style puts a function's braces alone in column 0,
# which is what is looked for (a macro that defines a function too, its
# lines ending in "\").  Part of "make style".
#
# usage: funclen.sh [MAX [FILE...]]     (default: 60, all of our files)
# Exit status: 0 when no function is longer.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
max=${1:-60}
[ $# -gt 0 ] && shift
if [ $# -eq 0 ]; then
	cd "$root" || exit 2
	set -- blkfront/*.[ch] blkback/*.[ch] include/xblk/*.h
fi

awk -v max="$max" '
FNR == 1 { start = 0 }
{
	line = $0
	sub(/[ \t]*\\?[ \t]*$/, "", line)
}
line == "{" && !start {
	start = FNR
	name = prev
	next
}
(line == "}" || line == "};") && start {
	n = FNR - start + 1
	if (n > max) {
		printf "%s:%d: %d lines: %s\n", FILENAME, start, n, name
		bad++
	}
	start = 0
}
/\(/ { prev = line; sub(/^[ \t]+/, "", prev) }
END {
	if (bad) {
		printf "funclen: %d function(s) longer than %d lines\n", bad, max
		exit 1
	}
	printf "funclen: no function longer than %d lines\n", max
}' "$@"
