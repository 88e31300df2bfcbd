#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# W=1 + sparse (C=1) build of xblk against one kernel tree.  Every warning or
# error whose location is one of our files fails the check; warnings located in
# the kernel's own headers are counted but ignored, unless a "in expansion of
# macro" note shows that our code expanded the macro that warned.
#
# usage: check.sh KDIR AUTOCONF          (what "make check" runs)
#
# Our objects are deleted first, so every file is compiled (and checked) again.
# Full build output: $(dirname AUTOCONF)/check.log.  A one-line summary,
# "result ours headers", goes to $(dirname AUTOCONF)/check.result for
# scripts/matrix.sh.  A tree without Module.symvers (the sid source tree) can
# only be compile-checked: modpost then runs with KBUILD_MODPOST_WARN=1 and its
# "undefined!" and "Module.symvers is missing" warnings are expected.
set -uo pipefail

[ $# -eq 2 ] || { echo "usage: $0 KDIR AUTOCONF" >&2; exit 2; }
kdir=$(cd "$1" && pwd) || exit 2
autoconf=$2
root=$(cd "$(dirname "$0")/.." && pwd)
outdir=$(dirname "$autoconf")
log=$outdir/check.log
mkdir -p "$outdir"

kbuild=(-C "$kdir" M="$root" XBLK_ROOT="$root" XBLK_AUTOCONF="$autoconf")
nosymvers=
if [ ! -f "$kdir/Module.symvers" ]; then
	nosymvers=1
	export KBUILD_MODPOST_WARN=1
fi
# Since 6.14 kbuild silently skips C=1 when sparse lacks __typeof_unqual__;
# scripts/deps.sh then builds a newer sparse into the cache.
check=sparse
if [ -x "$kdir/scripts/checker-valid.sh" ] &&
   [ "$("$kdir/scripts/checker-valid.sh" sparse 2>/dev/null)" != 1 ]; then
	check=${XBLK_CACHE:-/var/cache/xblk}/sparse/sparse
fi
krel=$(make -s --no-print-directory -C "$kdir" kernelrelease 2>/dev/null || echo "?")
echo "check: W=1 C=1 against $krel ($kdir)${nosymvers:+, no Module.symvers: compile check only}, CHECK=$check"

rm -f "$outdir/check.result"
# Recompile (and so re-check) every file: drop the objects of our module
# directories.  Not "make clean": kbuild's clean deletes every *.o and *.ko
# under M=, including the lab's and the unit tests' build outputs.
for kb in "$root"/*/Kbuild; do
	rm -f "$(dirname "$kb")"/*.o
done
make "${kbuild[@]}" -k -j"$(nproc)" --output-sync=target W=1 C=1 CHECK="$check" modules >"$log" 2>&1
status=$?

# Split the log into diagnostics, decide whose each one is, print ours.
awk -v root="$root" -v status="$status" -v nosymvers="$nosymvers" \
    -v result="$outdir/check.result" '
function ours(path) {
	if (path ~ /^\//)
		return index(path, root "/") == 1
	sub(/^\.\//, "", path)
	return system("test -e \"" root "/" path "\"") == 0
}
function flush() {
	if (blk == "")
		return
	if (blk_ours) {
		n_ours++
		printf "%s", blk
	} else if (blk_err) {
		n_err_other++
		other = other blk
	} else {
		n_hdr++
	}
	blk = ""
}
# A diagnostic with a location: path:line[:col]: warning|error: ...
/^[^ :]+:[0-9]+(:[0-9]+)?: (warning|error): / {
	flush()
	path = $0; sub(/:.*/, "", path)
	blk = $0 "\n"
	blk_ours = ours(path)
	blk_err = ($0 ~ /: error: /)
	next
}
# objtool and the linker: file.o: warning: ...
/^[^ :]+\.o: warning: / {
	flush()
	path = $0; sub(/:.*/, "", path)
	blk = $0 "\n"; blk_ours = ours(path); blk_err = 0
	next
}
# modpost speaks only about our modules.
# Without Module.symvers every kernel symbol is "undefined": expected.
/^(WARNING|ERROR): modpost: / {
	flush()
	if (nosymvers && ($0 ~ /undefined!$/ || $0 ~ /Module\.symvers is missing/ ||
			  $0 ~ /suppressed [0-9]+ unresolved symbol warnings/))
		next
	blk = $0 "\n"; blk_ours = 1; blk_err = ($0 ~ /^ERROR/)
	flush()		# one line: the kbuild lines after it are not part of it
	next
}
# Notes and continuation lines belong to the diagnostic above them.
blk != "" && /^[^ :]+:[0-9]+(:[0-9]+)?: note: / {
	blk = blk $0 "\n"
	if ($0 ~ /note: in expansion of macro/) {
		path = $0; sub(/:.*/, "", path)
		if (ours(path))
			blk_ours = 1
	}
	next
}
# Source excerpts from gcc, "path:l:c:    expected/got" lines from sparse.
blk != "" && (/^ / || /^[^ :]+:[0-9]+(:[0-9]+)?:    /) { blk = blk $0 "\n"; next }
{ flush() }
END {
	flush()
	# A failed build must say why even when the error is not in our files.
	if (status != 0 && n_ours == 0)
		printf "%s", other
	res = (status != 0) ? "FAIL" : (n_ours ? "WARN" : "PASS")
	print res, n_ours + 0, n_hdr + 0 > result
}' "$log"

read -r res nours nhdr <"$outdir/check.result"
if grep -q 'C=1 specified, but sparse is not available' "$log"; then
	echo "check: sparse ($check) did not run: it is missing or too old for this tree (run scripts/deps.sh)"
	res=FAIL
	echo "$res $nours $nhdr" >"$outdir/check.result"
fi
# No compiler error to show: show what make said (e.g. "No rule to make target").
if [ "$status" -ne 0 ] && [ "$nours" -eq 0 ] && ! grep -qE ': error: |^ERROR: ' "$log"; then
	grep -E '\*\*\*' "$log" | grep -v 'Waiting for unfinished jobs' | head -n 5
fi
echo "check: $res: build exit $status, $nours diagnostics in our files, $nhdr in kernel headers (ignored); log: $log"
[ "$res" = PASS ]
