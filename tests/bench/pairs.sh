# shellcheck shell=bash
# tests/bench/pairs.sh: sourced by the benchmark scripts that compare two
# builds in one sitting (FLEETMARK_OLD set): calls of the new and the old
# controller alternated pair by pair, so that what the machine's other
# work does to one it does to the other, and the ratio new/old of each
# pair.  The order inside a pair alternates too (new first, then old
# first), so that a cache the first call warms helps each side as often.
#
#   pairs LABEL N SETUP -- ARGS...
#
# runs "$FLEETMARK" ARGS and "$FLEETMARK_OLD" ARGS N times each, calling
# the shell function SETUP with "new" or "old" before each call (":" for
# none: it can empty a cache or point XDG_CACHE_HOME at the side's own),
# and prints a line: the median wall seconds of each, and the median,
# lowest and highest of the N ratios.  Each call's output goes to
# /dev/null; a call that fails stops the script.

# _pair_secs SIDE BINARY ARGS...: one call's wall seconds on stdout
_pair_secs() {
	local t0 t1
	shift
	t0=$(date +%s.%N)
	"$@" >/dev/null 2>&1 || { echo "pairs: failed: $*" >&2; exit 1; }
	t1=$(date +%s.%N)
	awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.4f\n", b - a }'
}

pairs() {
	local label=$1 n=$2 setup=$3 i tn to news='' olds='' ratios=''
	shift 4
	for ((i = 1; i <= n; i++)); do
		if ((i % 2)); then
			"$setup" new; tn=$(_pair_secs new "$FLEETMARK" "$@")
			"$setup" old; to=$(_pair_secs old "$FLEETMARK_OLD" "$@")
		else
			"$setup" old; to=$(_pair_secs old "$FLEETMARK_OLD" "$@")
			"$setup" new; tn=$(_pair_secs new "$FLEETMARK" "$@")
		fi
		news="$news $tn" olds="$olds $to"
		ratios="$ratios $(awk -v a="$tn" -v b="$to" 'BEGIN { printf "%.4f", a / b }')"
	done
	# shellcheck disable=SC2086 # one number per word
	printf '| %s | %s s | %s s | %s | %s .. %s |\n' "$label" \
		"$(printf '%s\n' $news | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" \
		"$(printf '%s\n' $olds | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" \
		"$(printf '%s\n' $ratios | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')" \
		"$(printf '%s\n' $ratios | sort -n | head -1)" "$(printf '%s\n' $ratios | sort -n | tail -1)"
}

pairs_header() {
	echo "new: $FLEETMARK"
	echo "old: $FLEETMARK_OLD"
	echo "| call | new (median) | old (median) | new/old (median of pairs) | lowest .. highest |"
	echo "|---|---|---|---|---|"
}
