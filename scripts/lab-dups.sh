#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The lab's shape check (issue 32), no Xen: tests/lab repeats no helper, and its runner knows no
# suite by name.
#
#   scripts/lab-dups.sh            the checks below
#   scripts/lab-dups.sh --list     also every pair `duplicates` finds, down to 4 shared lines
#
#   dups     `duplicates` (the team's duplicate finder, on PATH) over tests/lab: every pair of
#            places sharing six or more lines, the same or of the same shape with other names,
#            must be one it marks boilerplate (a block of option defaults, say)
#   helpers  a function of tests/lab/lib/ is defined once: no suite, image extra or lab script
#            defines one of the same name (its own copy would shadow the library's, or fork
#            it), and inside lib/ only the dom0-side wrappers of a guest-side helper share its
#            name (dom0.sh's devinfo runs guest.sh's devinfo in the guest); tools/, unit tests
#            that stub the library, excepted
#   suites   tests/lab/run.sh and build-images.sh name no suite outside comments and paths: all
#            a suite needs is declared in its own file (suite_meta, tests/lab/README.md). The
#            one word allowed is dkms as the value of XLAB_MODULES (the modules DKMS built,
#            which the dkms suite needs and any suite can run on)
# Prints one line per check and "lab-dups: N passed, N failed" last; exit 0 iff none failed.
# (Without duplicates on PATH the first check is skipped and says so.)
set -uo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.." || exit 2
LAB=tests/lab
pass=0 fail=0
ok() { echo "ok   $1"; pass=$((pass + 1)); }
ko() { echo "FAIL $1"; fail=$((fail + 1)); }

# funcs FILE...: "NAME FILE" for every function defined in FILE (NAME() at a line's start)
funcs() {
	local f
	for f in "$@"; do
		sed -n 's/^[[:space:]]*\([A-Za-z_][A-Za-z_0-9]*\)() *{.*/\1/p' "$f" | sed "s|\$| $f|"
	done
}

# --- dups
if ! command -v duplicates > /dev/null; then
	# (a machine without the tool, a CI runner say, still runs the other two)
	echo "skip dups: no 'duplicates' command on PATH"
else
	out=$(duplicates --repo "$LAB" --most 200 --seconds 300)
	while IFS= read -r l; do echo "    $l"; done <<< "$out"
	if grep -q '^incomplete:' <<< "$out"; then
		ko "dups: duplicates did not read everything"
	elif bad=$(grep -E '^D[0-9]+ ' <<< "$out" | grep -v ' boilerplate'); then
		ko "dups: $(wc -l <<< "$bad") pair(s) of six or more shared lines that are not boilerplate"
	else
		ok "dups: $(head -1 <<< "$out" | cut -d'(' -f1)(none but boilerplate)"
	fi
	if [ "${1:-}" = --list ]; then
		duplicates --repo "$LAB" --most 200 --min-lines 4 --seconds 300 | sed 's/^/    /'
	fi
fi

# --- helpers
lib=$(funcs "$LAB"/lib/*.sh)
users=$(funcs "$LAB"/suites/*.sh "$LAB"/extras/*.sh "$LAB"/run.sh "$LAB"/build-images.sh \
	"$LAB"/init/*.sh)
msg=""
# defined twice inside lib/: only a dom0.sh wrapper of a guest.sh helper
while read -r n; do
	where=$(awk -v n="$n" '$1 == n { print $2 }' <<< "$lib" | sort | tr '\n' ' ')
	[ "$where" = "$LAB/lib/dom0.sh $LAB/lib/guest.sh " ] || msg="$msg $n (${where% })"
done < <(awk '{ print $1 }' <<< "$lib" | sort | uniq -d)
# defined by a suite or a script too: the host's run.sh and build-images.sh and dom0's init may
# have their own log/say (another side), but not a helper of lib/common.sh, which run.sh sources
while read -r n f; do
	lf=$(awk -v n="$n" '$1 == n { print $2 }' <<< "$lib" | head -1)
	[ -n "$lf" ] || continue
	case $f in
	"$LAB"/suites/* | "$LAB"/extras/*) msg="$msg $n (${f#"$LAB"/} and ${lf#"$LAB"/})" ;;
	*) [ "$lf" = "$LAB/lib/common.sh" ] && msg="$msg $n (${f#"$LAB"/} and lib/common.sh)" ;;
	esac
done <<< "$users"
if [ -z "$msg" ]; then
	ok "helpers: the $(wc -l <<< "$lib") functions of lib/ are defined once"
else
	ko "helpers: defined more than once:$msg"
fi

# --- suites
msg=""
for f in "$LAB"/suites/*.sh; do
	s=${f##*/} s=${s%.sh}
	# a code line (not a comment line) holding the name as a word, not in a path or file name
	hits=$(grep -nP "^(?![[:space:]]*#).*(?<![\w/.-])\Q$s\E(?![\w/.-])" "$LAB/run.sh" "$LAB/build-images.sh")
	[ "$s" = dkms ] && hits=$(grep -vE 'XLAB_MODULES|^[^:]*:[0-9]+:[[:space:]]*dkms\)' <<< "$hits")
	[ -z "$hits" ] || msg="$msg $s ($(cut -d: -f1,2 <<< "$hits" | tr '\n' ' '))"
done
if [ -z "$msg" ]; then
	n=$(find "$LAB/suites" -name '*.sh' | wc -l)
	ok "suites: run.sh and build-images.sh name none of the $n suites"
else
	ko "suites: named in run.sh or build-images.sh:$msg"
fi

echo "lab-dups: $pass passed, $fail failed"
[ "$fail" = 0 ]
