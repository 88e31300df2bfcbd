#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build xblk against every kernel tree scripts/deps.sh prepared (6.1, 6.12,
# sid), each with W=1 and sparse (scripts/check.sh): a warning located in our
# files fails that tree.  Each tree builds in its own copy of the sources,
# build/matrix/<tree>/, so objects of different kernels never mix.
#
# usage: matrix.sh [TREE...]     (default: every tree in $XBLK_CACHE/kdirs)
#
# Prints what failed, then a table (tree, kernel, result, our warnings,
# kernel-header warnings, time) and "N passed, N failed", one per tree.
# Exit status: 0 when every tree passed.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
kdirs=${XBLK_CACHE:-/var/cache/xblk}/kdirs
[ -f "$kdirs" ] || { echo "matrix: no $kdirs: run scripts/deps.sh first" >&2; exit 2; }

want=" $* "
rows=()
pass=0
fail=0
while read -r name kdir ver; do
	[ $# -eq 0 ] || [[ $want == *" $name "* ]] || continue
	dst=$root/build/matrix/$name
	mkdir -p "$dst"
	# Only what the kbuild run needs; .gitignore keeps objects out.
	rsync -a --delete --filter=':- .gitignore' \
		--include='/Kbuild' --include='/Makefile' --include='/scripts/***' \
		--include='/include/***' --include='/blkfront/***' \
		--include='/blkback/***' --exclude='*' "$root/" "$dst/"
	result=$dst/build/probe/${kdir//\//_}/check.result
	rm -f "$result"
	echo "=== matrix: $name ($ver)"
	t=$SECONDS
	make --no-print-directory -C "$dst" KDIR="$kdir" check \
		</dev/null >"$dst/matrix.log" 2>&1
	took=$((SECONDS - t))
	res=FAIL ours=- hdr=-
	[ -f "$result" ] && read -r res ours hdr <"$result"
	if [ "$res" = PASS ]; then
		pass=$((pass + 1))
		grep '^check: PASS' "$dst/matrix.log"
	else
		fail=$((fail + 1))
		# What check.sh printed: our diagnostics or the build error.
		head -n 80 "$dst/matrix.log"
		[ "$(wc -l <"$dst/matrix.log")" -le 80 ] ||
			echo "... (full output: $dst/matrix.log)"
	fi
	rows+=("$(printf '%-5s %-22s %-6s %9s %12s %6s' "$name" "$ver" "$res" "$ours" "$hdr" "${took}s")")
done <"$kdirs"

echo
printf '%-5s %-22s %-6s %9s %12s %6s\n' tree kernel result "our warn" "header warn" time
printf '%s\n' "${rows[@]}"
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ] && [ "$pass" -gt 0 ]
