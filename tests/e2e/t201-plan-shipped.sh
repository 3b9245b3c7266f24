#!/usr/bin/env bash
# t201-plan-shipped: every plan in plans/ validates against the default
# fleet, configs/local.yaml and configs/lab.example.yaml; the default fleet
# is configs/local.yaml; and the expanded trials are what docs/plans-and-fleets.md says
# (tlb-flush: 2 variants x 9 points x repeat 5, interleaved, per variant).
# cost: 6 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
[ -x "$TOP/build/fleetmark-agent" ] || [ -n "${FLEETMARK_AGENT:-}" ] ||
	skip_all "no native agent (run make)"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
cd "$TOP" || exit 1

plans=(plans/*.yaml)
check "plans/ has the five shipped plans" test "${#plans[@]}" -ge 5
for p in "${plans[@]}"; do
	for fleet in "" configs/local.yaml configs/lab.example.yaml; do
		"$FLEETMARK" plan "$p" ${fleet:+-f "$fleet"} >"$W/out" 2>"$W/err"
		rc=$?
		is "$rc" 0 "$p validates against ${fleet:-the default fleet}"
		[ "$rc" -eq 0 ] || diag "$(head -3 "$W/err")"
	done
done

# The default fleet and configs/local.yaml are the same inventory.
"$FLEETMARK" plan plans/smoke.yaml | grep -v '^fleet ' >"$W/default"
"$FLEETMARK" plan plans/smoke.yaml -f configs/local.yaml | grep -v '^fleet ' >"$W/local"
check "the default fleet expands exactly like configs/local.yaml" cmp "$W/default" "$W/local"
like "$(cat "$W/default")" "host local: 6 trials" "the default fleet is one host, local"

# The lab example: every host, and selections by name and label.
out=$("$FLEETMARK" plan plans/smoke.yaml -f configs/lab.example.yaml)
is "$(grep -c '^host ' <<<"$out")" 5 "the lab example has five hosts, each with its trials"
out=$("$FLEETMARK" plan plans/smoke.yaml -f configs/lab.example.yaml -H @x86_64,p690)
is "$(grep '^host ' <<<"$out" | cut -d' ' -f2 | tr '\n' ' ')" "p690: nhm-ep: build-box: laptop: " \
	"-H @x86_64,p690 selects by label and name, in inventory order"
like "$(grep '^total' <<<"$out")" "total: 24 trials on 4 hosts" "totals"
if grep -Eq '([0-9]{1,3}\.){3}[0-9]{1,3}' configs/lab.example.yaml; then
	bad=$(grep -Eo '([0-9]{1,3}\.){3}[0-9]{1,3}' configs/lab.example.yaml | grep -v '^192\.0\.2\.')
	is "$bad" "" "the lab example uses documentation addresses only"
fi
bad=$(grep -Eo '[a-z0-9.-]+\.(org|com|net)' configs/lab.example.yaml | grep -v 'example\.org$')
is "$bad" "" "the lab example uses example.org names only"

# tlb-flush: 2 variants x 9 points x repeat 5, interleaved inside each variant.
"$FLEETMARK" plan plans/tlb-flush.yaml >"$W/tlb" 2>"$W/err"
is "$?" 0 "tlb-flush plan exits 0"
like "$(cat "$W/tlb")" "trials per host: 2 variants x 9 points x repeat 5 = 90" "2 x 9 x 5 = 90"
like "$(cat "$W/tlb")" "order interleave" "order interleave"
# Rows: "  #  variant  bench  threads=T pages=P accesses=512  rep/5"
awk '$1 ~ /^[0-9]+$/ && $3 == "munmap" { print $1, $2, $4, $5, $7 }' "$W/tlb" >"$W/rows"
is "$(wc -l <"$W/rows")" 90 "90 trial rows"
expected=$(
	n=0
	for v in default flushall; do
		for r in 1 2 3 4 5; do
			for t in 4 8 16; do
				for p in 8 16 32; do
					n=$((n + 1))
					echo "$n $v threads=$t pages=$p $r/5"
				done
			done
		done
	done
)
if [ "$(cat "$W/rows")" = "$expected" ]; then
	tap_result 0 "every point's repetition 1, then 2, ... in matrix order, default then flushall"
else
	tap_result 1 "every point's repetition 1, then 2, ... in matrix order, default then flushall"
	diff <(echo "$expected") "$W/rows" | head -10 | sed 's/^/# /'
fi
like "$(cat "$W/tlb")" 'variant default: no change \(baseline\)' \
	"variant default changes nothing"
like "$(cat "$W/tlb")" 'variant flushall: write /sys/kernel/debug/x86/tlb_single_page_flush_ceiling="0"' \
	"variant flushall writes today's knob (since 3.15), not tlb_flushall_shift"
like "$(cat "$W/tlb")" "regression: threshold 5%, fdr 0.05, metrics: munmap.ns_per_access" \
	"regression metric munmap.ns_per_access"

# -v adds the stable trial keys; they are unique.
"$FLEETMARK" plan plans/tlb-flush.yaml -v 2>/dev/null |
	awk '$1 ~ /^[0-9]+$/ { print $NF }' >"$W/keys"
is "$(sort -u "$W/keys" | wc -l)" 90 "90 distinct trial keys"
is "$(head -1 "$W/keys")" "default/munmap/threads=4,pages=8,accesses=512,write=0,huge=0,region=16M/1" \
	"a key names variant, benchmark, full parameter set and repetition"

# lmbench expands into its suite's points; the other plans as described.
like "$("$FLEETMARK" plan plans/lmbench.yaml)" "1 variant x 38 points x repeat 3 = 114" \
	"lmbench: the suite's 38 points, repeat 3"
like "$("$FLEETMARK" plan plans/lmbench.yaml)" "samples 11" "lmbench: samples 11"
like "$("$FLEETMARK" plan plans/dcache-multiuser.yaml)" "exec .*copies=16 .*perf" \
	"dcache-multiuser runs exec with a perf profile"
like "$("$FLEETMARK" plan plans/smoke.yaml)" "repeat 2" "smoke: repeat 2"

# shuffle: the seed is printed, and the same seed gives the same order.
sed 's/^order: interleave/order: shuffle/' plans/tlb-flush.yaml >"$W/shuffle.yaml"
"$FLEETMARK" plan "$W/shuffle.yaml" >"$W/s1"
seed=$(grep -o 'seed [0-9]*' "$W/s1" | cut -d' ' -f2)
like "$seed" '^[0-9]+$' "shuffle without a seed prints the one it drew"
{ cat "$W/shuffle.yaml"; echo "seed: $seed"; } >"$W/seeded.yaml"
"$FLEETMARK" plan "$W/seeded.yaml" >"$W/s2"
check "that seed in the plan repeats the order" \
	cmp <(grep -E '^ +[0-9]+ ' "$W/s1") <(grep -E '^ +[0-9]+ ' "$W/s2")

done_testing
