#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make style: no function over 60 lines (scripts/funclen.sh, one check),
# each driver's files a one-way stack, none over 800 lines (scripts/callgraph.py),
# checkpatch --strict (scripts/checkpatch.sh, one check per file), the
# module parameters against the docs (scripts/check-params.sh) and the
# other facts the docs state (scripts/check-docs.sh).  All run even if one
# fails; the last line is their sum, "style: N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pass=0
fail=0
# counted STEP CMD...: CMD's output as it comes; its "<step>: N passed, N
# failed" line (else its exit status, as one check) into the sum
counted() {
	local step=$1 out rc p f
	shift
	out=$(mktemp)
	"$@" 2>&1 | tee "$out"
	rc=${PIPESTATUS[0]}
	read -r p f < <(sed -nE "s/^$step: ([0-9]+) passed, ([0-9]+) failed.*/\1 \2/p" "$out" | tail -n 1)
	rm -f "$out"
	if [ -z "${p:-}" ]; then
		if [ "$rc" = 0 ]; then p=1 f=0; else p=0 f=1; fi
	fi
	[ "$rc" != 0 ] && [ "$f" = 0 ] && f=1
	pass=$((pass + p))
	fail=$((fail + f))
}
counted funclen "$root/scripts/funclen.sh"
counted callgraph "$root/scripts/callgraph.py"
counted checkpatch "$root/scripts/checkpatch.sh"
counted check-params "$root/scripts/check-params.sh"
counted check-docs "$root/scripts/check-docs.sh"
echo "style: $pass passed, $fail failed"
[ "$fail" = 0 ]
