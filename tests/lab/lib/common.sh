# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# The lab's shared helpers, for every side: sourced by lib/dom0.sh (the suites, in dom0), by
# lib/guest.sh (every command a suite runs in a guest) and by run.sh (the host). want and
# wait_until fork nothing but sleep: a fork costs ~25 ms in a guest and ~0.1 s in dom0 under
# TCG, and a poll runs its condition many times.
#
#   want NAME...                 the case filter: true if XLAB_CASES is empty or names one of
#                                NAMEs (a case may go by its prefixed and its short name)
#   wait_until SECS STEP [!] CMD [ARG...]
#                                poll: run CMD every STEP s until it succeeds ("!": until it
#                                fails); 0 then, 1 if it still had not after SECS/STEP sleeps
#   irqsum REGEX                 interrupts so far, all CPUs, of the /proc/interrupts lines named
#                                REGEX (dom0 and guests)
#   xlab_opt KEY DEFAULT         the number KEY=N of XLAB_OPTS (dom0 sees it as XLAB_<KEY>)
#   xlab_str KEY DEFAULT         the value KEY=VALUE of XLAB_OPTS (the last one)
# The skip helpers (suite_require, setup_failed) are in lib/dom0.sh: they write case lines.

# want NAME...: whether a case is to run: XLAB_CASES (xlab.cases= on dom0's command line,
# run.sh's XLAB_CASES) is empty, or one of its comma-separated names is one of NAMEs
want() {
	local n
	[ -z "${XLAB_CASES:-}" ] && return 0
	for n in "$@"; do
		[[ ,$XLAB_CASES, == *,"$n",* ]] && return 0
	done
	return 1
}

# _wu_ms VAR SECS: SECS ("30", "0.2", "1.25") in milliseconds into VAR; 1 if not a number
_wu_ms() {
	local _wu_s=$2 _wu_f=000
	[[ $_wu_s =~ ^[0-9]*(\.[0-9]*)?$ ]] && [[ $_wu_s =~ [0-9] ]] || return 1
	[[ $_wu_s == *.* ]] && { _wu_f=${_wu_s#*.}000; _wu_f=${_wu_f:0:3}; }
	_wu_s=${_wu_s%%.*}
	printf -v "$1" %d $((10#${_wu_s:-0} * 1000 + 10#$_wu_f))
}

# wait_until SECS STEP [!] CMD [ARG...]: run CMD (a command or function with its arguments, in
# this shell: a function can leave what it saw in a variable for the caller's message) until it
# succeeds, or with "!" until it fails, sleeping STEP seconds between tries. Returns 0 as soon
# as it does, 1 when it still has not after SECS/STEP sleeps (CMD runs once more than that), 2
# on a bad SECS or STEP. What CMD itself takes comes on top of SECS, as in the loops this
# replaced (they counted sleeps, and under TCG a xenstore-read alone takes ~0.1 s): a caller's
# timeout never got shorter. The caller reports the failure: the helper prints nothing. (Its
# locals are _wu_*: CMD sees and may set the caller's variables, none of the helper's.)
wait_until() {
	local _wu_tmo _wu_step _wu_n _wu_i=0 _wu_neg=
	if ! _wu_ms _wu_tmo "$1" || ! _wu_ms _wu_step "$2" || [ "$_wu_step" = 0 ]; then
		echo "wait_until: bad SECS '$1' or STEP '$2'" >&2
		return 2
	fi
	_wu_n=$((_wu_tmo / _wu_step))
	_wu_step=$2
	shift 2
	[ "${1:-}" = '!' ] && { _wu_neg=1; shift; }
	while :; do
		if [ -n "$_wu_neg" ]; then
			"$@" || return 0
		else
			"$@" && return 0
		fi
		[ $_wu_i -ge $_wu_n ] && return 1
		sleep "$_wu_step"
		_wu_i=$((_wu_i + 1))
	done
}

# irqsum REGEX: interrupts so far, all CPUs, of the interrupt lines whose name matches REGEX
irqsum() {
	awk -v re="$1" '$NF ~ re { for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) s += $i } END { print s + 0 }' \
		/proc/interrupts
}

# xlab_opt KEY DEFAULT: the number KEY=N in XLAB_OPTS (what dom0 sees as XLAB_<KEY>), or DEFAULT
xlab_opt() {
	local w
	for w in ${XLAB_OPTS:-}; do
		[ "${w%%=*}" = "$1" ] && [[ ${w#*=} =~ ^[0-9]+$ ]] && { echo "${w#*=}"; return; }
	done
	echo "$2"
}

# xlab_str KEY DEFAULT: the value of KEY=VALUE in XLAB_OPTS, or DEFAULT
xlab_str() {
	local w v=$2
	for w in ${XLAB_OPTS:-}; do [ "${w%%=*}" = "$1" ] && v=${w#*=}; done
	echo "$v"
}
