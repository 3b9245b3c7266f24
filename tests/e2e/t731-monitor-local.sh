#!/usr/bin/env bash
# t731-monitor-local: `monitor:` on the default fleet (this machine, no
# lab).  `fleetmark plan` refuses a misspelt monitor at its FILE:LINE:COL
# with a suggestion (exit 2); the agent's `run --monitor` refuses one too.
# A run records the monitors in run.json, sends them, and stores each
# counter as a line of its own (MONITOR:COUNTER, per operation, the raw
# delta and the operation count kept) beside the benchmark's lines, the
# operation count being iterations x samples; a monitor that cannot count
# here says why in the trial's notes.  The report shows the counters as
# rows of their own, and the agent's notes as marks and footnotes.
# cost: 3 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_tools jq
WORK=$(mktemp -d /tmp/t731.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

# --- validation --------------------------------------------------------------------

cat >bad.yaml <<'P'
name: bad-monitor
benchmarks:
  - bench: munmap
    monitor: [interrupts, vmstats]
P
run_fm bad plan bad.yaml
is "$rc" 2 "fleetmark plan: a misspelt monitor exits 2"
like "$(cat bad.err)" "bad\.yaml:4:27: unknown monitor 'vmstats': expected interrupts, vmstat or perf-stat \(did you mean 'vmstat'\?\)" \
	"... at its FILE:LINE:COL, with a suggestion"
"$AGENT" run lat_syscall --samples 1 --monitor interrupts,bogus >/dev/null 2>agent.err
is "$?" 2 "fleetmark-agent run --monitor bogus exits 2"
like "$(cat agent.err)" "--monitor: 'bogus' is not one of interrupts, vmstat, perf-stat" "... and says what is known"

# --- a run ---------------------------------------------------------------------------

cat >plan.yaml <<'P'
name: monitor-local
repeat: 2
samples: 3
benchmarks:
  - bench: munmap
    params:
      threads: [0, 2]
      pages: 8
    monitor: [interrupts, vmstat, perf-stat]
  - bench: lat_syscall
    params:
      op: null
    monitor: [vmstat]
P
# another run on this machine holds its lease for a while: wait for it
run_fm run run plan.yaml -o r --wait-lock 10m
is "$rc" 0 "a run with monitors exits 0"
[ "$rc" = 0 ] || tail -5 run.err | sed 's/^/#   /'
D=$(run_dir r)
T=$D/trials.jsonl
is "$(jq -c '[.plan.points[] | .monitor]' "$D/run.json")" \
	'[["interrupts","vmstat","perf-stat"],["interrupts","vmstat","perf-stat"],["vmstat"]]' \
	"run.json: each point's monitors"
is "$(jq -r 'select(.bench == "munmap" and .status == "ok" and (.metric | startswith("interrupts:"))) | .metric' "$T" | sort -u | xargs)" \
	"interrupts:call_ipis interrupts:resched_ipis interrupts:tlb_shootdowns" \
	"munmap: a line per interrupt counter (x86: TLB shootdowns, function calls, reschedules)"
is "$(jq -r 'select(.bench == "munmap" and .metric == "vmstat:pgfault") | .key' "$T" | sort -u | wc -l)" 4 \
	"munmap: a vmstat:pgfault line for each of its 4 trials"
is "$(jq -r 'select(.monitor) | [(.unit == "/op"), (.monitor.delta | type), (.monitor.ops > 0),
	(.value as $v | ($v - .monitor.delta / .monitor.ops) | (if . < 0 then -. else . end) < 1e-9 * (1 + $v))] | map(tostring) | join(" ")' "$T" | sort -u)" \
	"true number true true" "every counter line: per operation, the value its delta / ops"
# the operation count is iterations x samples of the point's first metric with iterations
is "$(jq -sr 'group_by(.key) | map(select(any(.[]; .metric == "ns_per_munmap"))) |
	map((.[] | select(.metric == "ns_per_munmap") | .iterations * 3) ==
	    (.[] | select(.metric == "interrupts:tlb_shootdowns") | .monitor.ops)) | unique | map(tostring) | join(" ")' "$T")" \
	"true" "munmap: ops = iterations x samples of ns_per_munmap"
is "$(jq -r 'select(.bench == "lat_syscall" and .monitor) | .monitor.name' "$T" | sort -u)" "vmstat" \
	"lat_syscall: only the monitor it asked for"
is "$(jq -r 'select(.bench == "lat_syscall") | .metric' "$T" | sort -u | grep -c '^vmstat:context_switches$')" 1 \
	"lat_syscall: context switches per syscall (vmstat, from /proc/stat)"
# perf-stat: counters where the host counts them, else a note saying why
is "$(jq -r 'select(.bench == "munmap" and .metric == "ns_per_munmap") |
	((.notes // []) | any(startswith("monitor perf-stat: "))) or false' "$T" | sort -u | xargs)" \
	"$(jq -r 'select(.bench == "munmap" and .metric == "ns_per_munmap") | .key' "$T" |
		while read -r k; do jq -r --arg k "$k" 'select(.key == $k and (.metric | startswith("perf-stat:")))' "$T" | grep -q . && echo false || echo true; done | sort -u | xargs)" \
	"perf-stat: a trial without its counters has a note saying why"
diag "perf-stat here: $(jq -r '.notes[]? | select(startswith("monitor perf-stat"))' "$T" | sort -u | head -1)"

# --- the report --------------------------------------------------------------------------

run_fm rep report --table summary "$D"
is "$rc" 0 "report --table summary exits 0"
like "$(grep -E '^munmap +threads=2,.* interrupts:tlb_shootdowns +/op ' rep.out)" ' [0-9.]+ ' \
	"summary: the monitor's counter is a row of its own, per operation"
like "$(grep -E '^munmap .*threads=2.* ns_per_munmap ' rep.out)" '\[[0-9,]+\]' \
	"summary: the oversubscribed point's row carries a note mark"
like "$(cat rep.out)" $'\n\\[[0-9]+\\] 2 accessing threads and the unmapping thread share [0-9]+ CPUs' \
	"... and the agent's note under the table"
run_fm csv report --table summary --format csv "$D"
like "$(head -1 csv.out)" ',notes$' "CSV: a notes column"
run_fm json report --table summary --format json "$D"
is "$(jq -r '[.[] | select(.notes) | .notes[]] | map(select(startswith("THP "))) | length > 0' json.out)" true \
	"JSON: notes on the cells"
done_testing
