#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch --strict over every kernel C file of ours (what "make style" runs):
# blkfront/ blkback/ include/ scripts/probes/, and the files under tests/ that
# are kernel code (they include <linux/module.h> or <kunit/test.h>).  Any
# ERROR, WARNING or CHECK fails the file.
#
# checkpatch.pl, spelling.txt and const_structs.checkpatch come from Debian's
# linux-source-6.1 (scripts/deps.sh installs it); they are extracted once per
# package version into $XBLK_CACHE.  Typos are looked up in spelling.txt, and
# in codespell's dictionary too when the codespell package is installed.
#
# usage: checkpatch.sh [FILE...]        (default: all of our files)
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cache=${XBLK_CACHE:-/var/cache/xblk}
tarball=/usr/src/linux-source-6.1.tar.xz

# Rules that do not apply to an out-of-tree module, each with the reason.
# Keep this list short: a rule that merely hurts belongs fixed in the code.
ignore=(
	# --no-tree -f: checkpatch cannot see MAINTAINERS, and there is no
	# patch whose files could need a MAINTAINERS entry.
	FILE_PATH_CHANGES
)

# Words codespell's dictionary flags that are right in this code base.
codespell_ok=(
	inflight	# the block layer's own spelling: blk_mq_queue_inflight()
	hda		# Xen vbd names hda..hdt (xen-vbd-interface.7)
	sring		# Xen ring.h: struct blkif_sring, FRONT_RING_INIT(r, sring, size)
)

ver=$(dpkg-query -W -f='${Version}' linux-source-6.1 2>/dev/null) ||
	{ echo "style: linux-source-6.1 is not installed: run scripts/deps.sh" >&2; exit 2; }
cpdir=$cache/checkpatch-$ver
cp=$cpdir/src/scripts/checkpatch.pl
mkdir -p "$cache"
exec 9>"$cache/.checkpatch.lock"
flock 9		# one setup at a time; the files are only read afterwards
layout=2	# bump when what is extracted or generated below changes
if [ "$(cat "$cpdir/.xblk-done" 2>/dev/null)" != "$layout" ]; then
	rm -rf "$cache"/checkpatch-*
	mkdir -p "$cpdir/src" "$cpdir/root/include" "$cpdir/run"
	tar -xJf "$tarball" -C "$cpdir/src" --strip-components=1 \
		linux-source-6.1/scripts/checkpatch.pl \
		linux-source-6.1/scripts/spelling.txt \
		linux-source-6.1/scripts/const_structs.checkpatch \
		linux-source-6.1/include/xen ||
		{ echo "style: cannot extract checkpatch.pl from $tarball" >&2; exit 2; }
	# CAMELCASE: identifiers of the Xen interface, such as the
	# XenbusStateConnected enumerators, are the kernel's names, not ours;
	# checkpatch only learns #define, typedef and struct names from the
	# headers, so it would flag every use.  It reads its camelcase cache
	# from its working directory ($cpdir/run); with --root pointing at a
	# tree whose include/ is empty the cache is named ".date.0".
	grep -rhoE '\b[A-Za-z_][A-Za-z0-9_]*\b' "$cpdir/src/include/xen" |
		grep -E '[A-Z][a-z]|[a-z][A-Z]' | sort -u \
		>"$cpdir/run/.checkpatch-camelcase.date.0"
	echo "$layout" >"$cpdir/.xblk-done"
fi

opts=(--strict --no-tree --root="$cpdir/root" --quiet --no-summary
      --show-types --color=never
      --ignore "$(IFS=,; echo "${ignore[*]}")")
# codespell's dictionary: Debian's python3-codespell path, or wherever the
# system python3 finds codespell_lib.  A copy without the words in
# codespell_ok goes into the cache.
dict=
for d in /usr/share/codespell/dictionary.txt \
	 /usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt \
	 "$(/usr/bin/python3 -c 'import codespell_lib, os; print(os.path.dirname(codespell_lib.__file__) + "/data/dictionary.txt")' 2>/dev/null)"; do
	if [ -n "$d" ] && [ -f "$d" ]; then
		dict=$cpdir/codespell-dictionary.txt
		grep -vE "^($(IFS='|'; echo "${codespell_ok[*]}"))->" "$d" >"$dict.tmp"
		mv "$dict.tmp" "$dict"
		opts+=(--codespell --codespellfile "$dict")
		break
	fi
done
exec 9>&-

cd "$root" || exit 2
if [ $# -gt 0 ]; then
	files=("$@")
else
	# Tracked and not yet tracked files, minus git-ignored ones.
	mapfile -t files < <(
		{ git ls-files --cached --others --exclude-standard -- \
			'blkfront/*.[ch]' 'blkback/*.[ch]' 'include/*.[ch]' \
			'scripts/probes/*.c'
		  git ls-files --cached --others --exclude-standard -- 'tests/*.[ch]' |
			while read -r f; do
				[ -f "$f" ] && grep -qE '#include <(linux/module|kunit/test)\.h>' "$f" &&
					echo "$f"
			done
		} | sort -u)
fi

echo "style: checkpatch.pl --strict from linux-source-6.1 $ver${dict:+, codespell}, ${#files[@]} files"
# One checkpatch per core; report in file order.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# checkpatch runs in $cpdir/run: in a git work tree it would write a
# .checkpatch-camelcase.git.* file into the repository.
for i in "${!files[@]}"; do
	(cd "$cpdir/run" &&
	 perl "$cp" "${opts[@]}" -f "$root/${files[$i]#"$root"/}" >"$tmp/$i.out" 2>&1
	 echo $? >"$tmp/$i.rc") >"$tmp/$i.err" 2>&1 &
	while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do
		wait -n
	done
done
wait
# A file passes when checkpatch ran, exited 0 and said nothing.
pass=0
fail=0
for i in "${!files[@]}"; do
	if [ "$(cat "$tmp/$i.rc" 2>/dev/null)" = 0 ] && [ ! -s "$tmp/$i.out" ] &&
	   [ ! -s "$tmp/$i.err" ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
		echo "--- ${files[$i]}"
		cat "$tmp/$i.err" "$tmp/$i.out" 2>/dev/null | sed "s|$root/||g"
	fi
done
echo "checkpatch: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
