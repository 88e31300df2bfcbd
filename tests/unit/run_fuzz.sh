#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# run_fuzz.sh OUT SECONDS TARGET...: run each libFuzzer target OUT/fuzz_T
# for SECONDS, nproc of them at a time, seeded with corpus/T (read only: new
# inputs go to OUT/fuzz-corpus/T, which persists between runs), and print one
# summary line per target.  Crashes, leaks, timeouts and failed harness
# assertions are saved under OUT/fuzz-artifacts/T/ and make the run fail.
set -u
out=$1
secs=$2
shift 2
jobs=$(nproc 2>/dev/null || echo 1)
logs=$out/fuzz-logs
mkdir -p "$logs"

run_one() {
	local t=$1 work=$out/fuzz-corpus/$1 art=$out/fuzz-artifacts/$1
	mkdir -p "$work"
	rm -rf "$art"
	mkdir -p "$art"
	"$out/fuzz_$t" -max_total_time="$secs" -print_final_stats=1 \
		-timeout=10 -rss_limit_mb=2048 -artifact_prefix="$art/" \
		"$work" "corpus/$t" >"$logs/$t.log" 2>&1
	echo $? >"$logs/$t.rc"
}

echo "fuzzing $* for ${secs} s each, $jobs at a time (logs: $logs)"
running=0
for t in "$@"; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	run_one "$t" &
	running=$((running + 1))
done
wait

fail=0
nfail=0
for t in "$@"; do
	log=$logs/$t.log
	rc=$(cat "$logs/$t.rc" 2>/dev/null || echo 99)
	execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
	[ -n "$execs" ] || execs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log" | tail -n 1)
	last=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
	cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
	corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\).*/\1/p')
	findings=$(find "$out/fuzz-artifacts/$t" -type f | wc -l)
	printf 'fuzz %-10s %10s execs in %s s, cov %s, corpus %s, findings %s\n' \
		"$t" "${execs:-?}" "$secs" "${cov:-?}" "${corp:-?}" "$findings"
	if [ "$rc" != 0 ] || [ "$findings" != 0 ]; then
		fail=1
		nfail=$((nfail + 1))
		echo "--- $t: exit $rc; artifacts in $out/fuzz-artifacts/$t; log tail:"
		grep -E 'FUZZ_ASSERT|ERROR: |SUMMARY|runtime error|Test unit written' "$log" | head -n 20
		tail -n 15 "$log"
	fi
done
[ "$fail" = 0 ] && echo "fuzz: no findings" || echo "fuzz: FINDINGS (see above)"
# One count per target, in the form scripts/test-all.sh sums up.
echo "fuzz: $(($# - nfail)) passed, $nfail failed"
exit $fail
