#!/usr/bin/env bash
# tests/bench/verdicts.sh: how often `fleetmark compare` marks a change as
# significant when there is none (A/A) and when there is a known one, on
# this machine, at the plans' default trial count (repeat 3, samples 11).
#
#   tests/bench/verdicts.sh [PAIRS [LMBENCH_PAIRS]]     (default 20 and 3)
#   DETAILS=FILE tests/bench/verdicts.sh ...            (each slowdown pair's change and p)
#   REPEAT=5 tests/bench/verdicts.sh ...                (spin trials per run; default: the plans' default)
#   REPEAT=auto REPEAT_MAX=20 tests/bench/verdicts.sh   (spin runs with `repeat: auto`)
#
# Two at once (REPEAT=5 and REPEAT=auto) take turns run by run on the
# host's lease, so that both see the same load on the machine.
#   tests/bench/verdicts.sh --nightly [NIGHTS [DIR]]    (A/A nights; default 20, a temporary DIR)
#   PLAN=plans/smoke.yaml NIGHT_REPEAT=3 tests/bench/verdicts.sh --nightly 21
#                                                       (the same with another plan, repeat 3)
#   [THRESHOLDS="5 25"] [RHOS="0 0.9"] [NO_FDR_TOO=1] tests/bench/verdicts.sh --inject DIR
#                                                       (injected changes over DIR's nights)
#
# Two experiments, each through the real `fleetmark run` on the embedded
# local fleet and `fleetmark compare A B --format json`:
#
#  1. A/A: the same plan run twice on the same host, compared.  Every
#     metric that gets the better/worse mark is a false alarm.  Done with
#     plans/lmbench.yaml (38 metrics a pair, LMBENCH_PAIRS pairs) and with
#     the spin benchmark (one metric a pair, PAIRS pairs).
#  2. Known slowdowns: spin with extra=2, 5 and 10 (percent more work per
#     sample) against extra=0, PAIRS pairs each; a pair counts as flagged
#     when its row is marked `worse`.
#
# Each pair's runs are separate `fleetmark run`s, made in a rotated order
# (A, A', +2%, +5%, +10%, then A', +2%... ) so that drift on the machine
# does not always favour one side.  spin's extra is a bench parameter, so
# the slow run's points are called extra=0 in a copy of its trials.jsonl
# before comparing (the values are untouched); otherwise compare would not
# pair them.
#
# --nightly: NIGHTS A/A nights of plans/lmbench.yaml on this machine, each
# a `fleetmark run --baseline history` into DIR (kept, for --inject) with
# every metric judged (the plan's regression: without metrics), and the
# same night judged as `--baseline latest` judges it (compare with the
# night before: a night that latest would fail has a row marked worse).
# One table: per night, the rows, what history tested, held and confirmed,
# and both exit statuses; then the false nights of each (aim: history at
# most 1 of 20).
#
# --inject DIR: histories built from DIR's real A/A nights (each series'
# nights in shuffled orders) with a known step of 3%, 5% and 10% or a
# drift of 1% a night from a known night on, judged by the nightly rule
# with the night's Benjamini-Hochberg step over every series (only one
# series changed), and by history's change points (tests/bench/nightly-sim).
# Each table has the rules side by side on the same histories (the rule
# as it was, "now", and the ones tried: Storey's adaptive step, screen and
# confirm, the window rule; nightly-sim.c's header), one table per
# threshold and per RHOS value, the share of tonight's deviation that the
# confirmation round shares (0: a fresh night); NO_FDR_TOO=1 adds each
# threshold without the false-discovery step.  DIR may also be synthetic
# nights (tests/bench/history-gen).
#
# Prints the counts and rates and the aims (A/A marks at most 5% of
# metrics; a 5% slowdown flagged in at least 95% of pairs), the spin
# trials a run took, and the spin runs by the trials they took with the
# range of the rsd of their values (what `repeat: auto` stopped on);
# exit 1 when an aim is missed.  About 5 minutes with the defaults here.
# The machine is shared: run it when it is quiet, and read the noisy
# counts too.
set -eu
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FLEETMARK=${FLEETMARK:-$TOP/build/fleetmark}
PAIRS=${1:-20}
LMPAIRS=${2:-3}
[ -x "$FLEETMARK" ] || { echo "no controller at $FLEETMARK (make)" >&2; exit 2; }
command -v jq >/dev/null || { echo "no jq (tools/deps)" >&2; exit 2; }
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
DETAILS=${DETAILS:-/dev/null}   # a file for one line per slowdown pair

for x in 0 2 5 10; do
	cat >"$W/spin-$x.yaml" <<EOF
name: verdict-spin
description: spin with $x% more work per sample
${REPEAT:+repeat: $REPEAT}
${REPEAT_MAX:+repeat_max: $REPEAT_MAX}
benchmarks:
  - bench: spin
    params:
      extra: $x
EOF
done

# run PLAN LABEL: one run into a directory of its own; prints the run's.
run() {
	local d
	mkdir -p "$W/results"
	d=$(mktemp -d "$W/results/run.XXXXXX")
	# --wait-lock: another run on this machine (a second verdicts.sh) takes turns
	"$FLEETMARK" -q run "$1" -o "$d" --label "$2" --wait-lock 30m >"$W/run.out" 2>&1 || {
		echo "run of $1 failed:" >&2
		cat "$W/run.out" >&2
		exit 2
	}
	set -- "$d"/*/run.json
	[ -f "$1" ] || { echo "no run directory in $d" >&2; exit 2; }
	# the trials it took (spin: one line a trial), for `repeat: auto`, and
	# the rsd of their values in percent (spin: one point; - for fewer than 2)
	jq -s -r '[ .[] | .value | numbers ] as $v | ($v | length) as $n |
		if $n < 2 then "\(length) -" else ($v | add / $n) as $m |
		"\(length) \(([ $v[] | (. - $m) * (. - $m) ] | add / ($n - 1) | sqrt) / $m * 100)"
		end' "$(dirname "$1")/trials.jsonl" >>"$W/trials.count"
	dirname "$1"
}

# as_base DIR: a copy of a spin run whose points say extra=0.
as_base() {
	local d
	d=$W/relabelled/$(basename "$1")
	mkdir -p "$d"
	cp -r "$1/." "$d/"
	jq -c 'if .params.extra? != null then .params.extra = 0 else . end' \
		"$1/trials.jsonl" >"$d/trials.jsonl"
	echo "$d"
}

# marks A B: "ROWS MARKED NOISY CHANGE POINT" of compare A B: rows
# compared, rows marked better/worse (the rule compare uses: p < 0.05 and
# the change's 95% interval reaching the threshold), rows with a noisy
# flag, the first row's change (for the spin pairs), and rows the stricter
# point rule would mark (p < 0.05 and the measured |change| >= 5%).
marks() {
	"$FLEETMARK" -q compare "$1" "$2" --format json >"$W/cmp.json" 2>/dev/null || true
	jq -r '[ .[] | select(.table == "compare") ] |
		group_by([.bench, .params, .metric, .series]) |
		map(reduce .[] as $c ({}; .[$c.column] = $c)) as $rows |
		[ $rows[] | select(.change != null) ] as $r |
		"\($r | length) " +
		"\([ $r[] | select(.mark.text == "worse" or .mark.text == "better") ] | length) " +
		"\([ $r[] | select((.noisy.text // "") != "") ] | length) " +
		"\((($r[0].change.value // 0) * 100 | round) / 100) " +
		"\([ $r[] | select((.p.value // 1) < 0.05 and ((.change.value | fabs) >= 5)) ] | length) " +
		"\($r[0].p.value // "-")"' \
		"$W/cmp.json"
}

if [ "${1:-}" = "--nightly" ]; then
	NIGHTS=${2:-20}
	R=${3:-$W/nights}
	mkdir -p "$R"
	export XDG_CACHE_HOME=$W/cache
	PLAN=${PLAN:-$TOP/plans/lmbench.yaml}
	# every metric judged: the plan's regression: without metrics
	sed '/^regression:/,$d' "$PLAN" >"$W/lmbench-aa.yaml"
	[ -z "${NIGHT_REPEAT:-}" ] || sed -i "s/^repeat: .*/repeat: $NIGHT_REPEAT/" "$W/lmbench-aa.yaml"
	printf 'regression:\n  threshold: 5%%\n' >>"$W/lmbench-aa.yaml"
	echo "nightly A/A: $NIGHTS nights of ${PLAN#"$TOP"/}${NIGHT_REPEAT:+ (repeat $NIGHT_REPEAT)} (every metric judged, threshold 5%) in $R"
	echo "controller: $FLEETMARK ($("$FLEETMARK" --version 2>&1 | head -1))"
	printf '%5s %5s %7s %5s %5s %9s %9s %8s %8s %7s\n' night rows tested held conf vanished cannot \
		history latest worse
	start=$SECONDS
	fh=0 fl=0 judged=0 prev='' alltested=0 allrows=0
	for ((i = 1; i <= NIGHTS; i++)); do
		rc=0
		"$FLEETMARK" -q run "$W/lmbench-aa.yaml" -o "$R" --baseline history >"$W/night.out" \
			2>"$W/night.err" || rc=$?
		d=$(sed -n 's/^run directory: //p' "$W/night.out")
		[ -n "$d" ] || { cat "$W/night.err" >&2; exit 2; }
		if [ -f "$d/verdict.json" ]; then
			read -r rows tested held conf gone cannot < <(jq -r '[(.rows | length), .tested,
				([.rows[] | select(.verdict == "unconfirmed" or .verdict == "confirmed" or
				  .verdict == "vanished" or .verdict == "regression")] | length),
				([.rows[] | select(.verdict == "confirmed" or .verdict == "regression")] | length),
				([.rows[] | select(.verdict == "vanished")] | length),
				([.rows[] | select(.verdict == "cannot judge")] | length)] | map(tostring) | join(" ")' \
				"$d/verdict.json")
			alltested=$((alltested + tested))
			allrows=$((allrows + rows))
		else
			rows=- tested=- held=- conf=- gone=- cannot=-
		fi
		lrc=- worse=-
		if [ -n "$prev" ]; then
			worse=$("$FLEETMARK" -q compare "$prev" "$d" --format json 2>/dev/null |
				jq '[.[] | select(.table == "compare" and .column == "mark" and .text == "worse")] | length')
			lrc=0
			[ "$worse" -gt 0 ] && lrc=4
			[ "$rc" = 4 ] && fh=$((fh + 1))
			[ "$lrc" = 4 ] && fl=$((fl + 1))
			judged=$((judged + 1))
		fi
		printf '%5d %5s %7s %5s %5s %9s %9s %8s %8s %7s\n' "$i" "$rows" "$tested" "$held" "$conf" \
			"$gone" "$cannot" "exit $rc" "exit $lrc" "$worse"
		prev=$d
	done
	echo "false nights (exit 4) of the $judged nights with an earlier one: history $fh, latest $fl"
	echo "rows judged (tested) by history: $alltested of $allrows"
	echo "wall time: $((SECONDS - start)) s"
	[ $((fh * 20)) -le "$judged" ] || { echo "aim missed: history failed $fh of $judged A/A nights (aim: at most 1 of 20)"; exit 1; }
	exit 0
fi
if [ "${1:-}" = "--inject" ]; then
	[ -d "${2:-}" ] || { echo "usage: $0 --inject DIR (the nights of --nightly)" >&2; exit 2; }
	SIM=$W/nightly-sim
	# shellcheck disable=SC2046 # the objects and libraries are words
	cc -O2 -std=c11 -D_GNU_SOURCE -I"$TOP/include" -o "$SIM" "$TOP/tests/bench/nightly-sim.c" \
		$(find "$TOP/build/src" -name '*.o' ! -name main.o) \
		$(pkg-config --libs libssh yaml-0.1 libcurl jansson libcrypto libxml-2.0) -lpthread -lm
	for thr in ${THRESHOLDS:-5}; do
		for rho in ${RHOS:-0}; do
			NIGHTLY_THRESHOLD=$thr NIGHTLY_RHO=$rho XDG_CACHE_HOME=$W/cache "$SIM" "$2" "${SIMS:-200}" || exit $?
			echo
		done
		[ -n "${NO_FDR_TOO:-}" ] || continue
		echo "the same without the false-discovery step (each row at p < 0.05):"
		NIGHTLY_THRESHOLD=$thr XDG_CACHE_HOME=$W/cache "$SIM" "$2" "${SIMS:-200}" 1 || exit $?
		echo
	done
	exit 0
fi

echo "verdicts: $PAIRS spin pairs, $LMPAIRS lmbench pairs, spin repeat ${REPEAT:-default}${REPEAT_MAX:+ (at most $REPEAT_MAX)}, threshold 5%"
echo "controller: $FLEETMARK ($("$FLEETMARK" --version 2>&1 | head -1))"
start=$SECONDS

declare -A flagged=() flagged_pt=() noisy=() changes=()
aa_spin=0 aa_spin_noisy=0 aa_spin_pt=0
kinds=(a b 2 5 10)
for ((p = 0; p < PAIRS; p++)); do
	declare -A dir=()
	for ((k = 0; k < ${#kinds[@]}; k++)); do
		kind=${kinds[$(((k + p) % ${#kinds[@]}))]}
		case $kind in
		a | b) dir[$kind]=$(run "$W/spin-0.yaml" "$kind") ;;
		*) dir[$kind]=$(as_base "$(run "$W/spin-$kind.yaml" "slow$kind")") ;;
		esac
	done
	read -r _ m n _ pt _ < <(marks "${dir[a]}" "${dir[b]}")
	aa_spin=$((aa_spin + m))
	aa_spin_pt=$((aa_spin_pt + pt))
	aa_spin_noisy=$((aa_spin_noisy + (n > 0)))
	for x in 2 5 10; do
		read -r _ m n c pt pv < <(marks "${dir[a]}" "${dir[$x]}")
		echo "    pair $((p + 1)) +$x%: change $c% p $pv marked $m" >>"$DETAILS"
		flagged[$x]=$((${flagged[$x]:-0} + m))
		flagged_pt[$x]=$((${flagged_pt[$x]:-0} + pt))
		noisy[$x]=$((${noisy[$x]:-0} + (n > 0)))
		changes[$x]="${changes[$x]:-} $c"
	done
	unset dir
	printf '  pair %d/%d done (%ds)\n' $((p + 1)) "$PAIRS" $((SECONDS - start)) >&2
done

spin_runs=$(wc -l <"$W/trials.count")
spin_trials=$(awk '{ s += $1 } END { print s + 0 }' "$W/trials.count")

aa_lm=0 aa_lm_metrics=0 aa_lm_noisy=0 aa_lm_pt=0
for ((p = 0; p < LMPAIRS; p++)); do
	a=$(run "$TOP/plans/lmbench.yaml" a)
	b=$(run "$TOP/plans/lmbench.yaml" b)
	read -r t m n _ pt _ < <(marks "$a" "$b")
	aa_lm_metrics=$((aa_lm_metrics + t))
	aa_lm_pt=$((aa_lm_pt + pt))
	aa_lm=$((aa_lm + m))
	aa_lm_noisy=$((aa_lm_noisy + n))
	printf '  lmbench pair %d/%d done (%ds)\n' $((p + 1)) "$LMPAIRS" $((SECONDS - start)) >&2
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{v[NR]=$1} END {print NR ? v[int((NR+1)/2)] : "-"}'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f%%", b ? 100 * a / b : 0 }'; }

echo
printf '%-24s %8s %8s %7s %12s %8s %7s\n' experiment compared marked rate noisy point rate
row() { # NAME COMPARED MARKED NOISY POINT [EXTRA]
	printf '%-24s %8d %8d %7s %12s %8d %7s %s\n' "$1" "$2" "$3" "$(pct "$3" "$2")" "$4" \
		"$5" "$(pct "$5" "$2")" "${6:-}"
}
row "A/A lmbench (metrics)" "$aa_lm_metrics" "$aa_lm" "$aa_lm_noisy rows" "$aa_lm_pt"
row "A/A spin (pairs)" "$PAIRS" "$aa_spin" "$aa_spin_noisy pairs" "$aa_spin_pt"
for x in 2 5 10; do
	row "spin +$x% (pairs)" "$PAIRS" "${flagged[$x]}" "${noisy[$x]} pairs" "${flagged_pt[$x]}" \
		"median change $(median <<<"${changes[$x]}")%"
done
echo "marked: the compare table's rule (p < 0.05, 95% interval of the change reaches 5%);"
echo "point: p < 0.05 and the measured change >= 5% (for comparison)"
echo "spin trials: $spin_trials in $spin_runs runs ($(awk -v t="$spin_trials" -v r="$spin_runs" 'BEGIN { printf "%.2f", r ? t / r : 0 }') a run)"
# the spin runs by the trials they took, with the range of their rsd:
# what `repeat: auto` stopped at (3 when the rsd is below about 1.1% at
# 5%, 4 below 1.45%, 5 below 1.71%, docs/plans-and-fleets.md)
head -n "$spin_runs" "$W/trials.count" | awk '$2 != "-" {
		n[$1]++
		if (!($1 in lo) || $2 < lo[$1]) lo[$1] = $2
		if (!($1 in hi) || $2 > hi[$1]) hi[$1] = $2
	}
	END {
		printf "spin runs by trials taken (rsd of their values):"
		for (k = 1; k <= 10000; k++)
			if (k in n)
				printf " %d: %d (%.2f-%.2f%%);", k, n[k], lo[k], hi[k]
		printf "\n"
	}'
echo "wall time: $((SECONDS - start)) s"

fail=0
aa_all=$((aa_lm + aa_spin))
aa_n=$((aa_lm_metrics + PAIRS))
if [ $((aa_all * 100)) -gt $((aa_n * 5)) ]; then
	echo "aim missed: A/A marks $aa_all of $aa_n metrics (aim: at most 5%)"
	fail=1
fi
if [ $((flagged[5] * 100)) -lt $((PAIRS * 95)) ]; then
	echo "aim missed: a 5% slowdown flagged in ${flagged[5]} of $PAIRS pairs (aim: at least 95%)"
	fail=1
fi
[ $fail = 0 ] && echo "aims met: A/A marks $aa_all of $aa_n metrics, 5% slowdown flagged ${flagged[5]} of $PAIRS"
exit $fail
