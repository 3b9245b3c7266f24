#!/usr/bin/env bash
# t414-run-bad-params: parameters a benchmark does not accept, and what a
# user sees when trials fail (docs/plans-and-fleets.md, docs/guide.md,
# docs/reports.md).  On this machine, no lab:
#  - `fleetmark plan` refuses a value out of the catalogue's range
#    (lat_ctx procs: 5000, munmap pages: 0) and a product over munmap's
#    limit, exit 2, at the value's FILE:LINE:COL; `list` shows the ranges;
#  - it warns when a sweep puts more tasks than the local host has CPUs;
#  - the agent refuses them too: `run` exits 2, serve answers bad-request;
#  - a run whose point the agent refuses (threads: N% that resolves over
#    the limit, which no plan check can know) records status bad-request
#    (kind benchmark), shows the first failure of the point with its message
#    live and later ones by class, gives the host that reason, and prints
#    the failures table; the report of the run has it too.
# cost: 2 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
[ -x "$AGENT" ] || skip_all "no native agent at $AGENT (run make)"
need_tools jq
WORK=$(mktemp -d /tmp/t414.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1
mkdir plans
CPUS=$(getconf _NPROCESSORS_ONLN)

# --- plan-time checks -------------------------------------------------------------

cat >plans/ctx.yaml <<'EOF'
name: ctx
benchmarks:
  - bench: lat_ctx
    params:
      procs: [2, 5000]
EOF
cat >plans/pages.yaml <<'EOF'
name: pages
benchmarks:
  - bench: munmap
    params: { threads: 1, pages: 0 }
EOF
cat >plans/limit.yaml <<'EOF'
name: limit
benchmarks:
  - bench: munmap
    params:
      threads: [1, 16]
      accesses: 512K
EOF
"$FLEETMARK" plan plans/ctx.yaml >out 2>err
is "$? $(wc -c <out)" "2 0" "plan: a value out of range exits 2, nothing on stdout"
is "$(cat err)" "fleetmark: error: plans/ctx.yaml:5:18: parameter procs of lat_ctx: 5000 is out of range (2 to 1024)" \
	"... at the value, with the range"
"$FLEETMARK" plan plans/pages.yaml >out 2>err
is "$?" 2 "plan: munmap pages: 0 exits 2"
is "$(cat err)" "fleetmark: error: plans/pages.yaml:4:34: parameter pages of munmap: 0 is out of range (1 to 262144)" \
	"... at the value"
"$FLEETMARK" plan plans/limit.yaml >out 2>err
is "$?" 2 "plan: threads x accesses over munmap's limit exits 2"
is "$(cat err)" "fleetmark: error: plans/limit.yaml:6:17: munmap threads=16 accesses=512K: threads x accesses is 16 x 524288, more than 4194304" \
	"... at the later of the two values, naming the point"
like "$("$FLEETMARK" list lat_ctx)" "processes in the ring; 2 to 1024" "list BENCH shows a parameter's range"
like "$("$FLEETMARK" list munmap)" "threads x accesses: at most 4194304" "... and a benchmark's limit"
is "$("$AGENT" list --json | jq -c 'select(.name == "munmap") | [(.params[] | select(.name == "pages") | [.min, .max]), .limits]')" \
	'[[1,262144],[{"product":["threads","accesses"],"max":4194304}]]' \
	"list --json: min, max and limits"

# The CPU warning: a sweep past the local host's CPUs.
over=$((CPUS * 2))
cat >plans/many.yaml <<EOF
name: many
benchmarks:
  - bench: munmap
    params:
      threads: [1, $over, $((over * 2))]
EOF
"$FLEETMARK" plan -s plans/many.yaml >out 2>err
is "$?" 0 "plan: more threads than CPUs is valid"
is "$(cat err)" "fleetmark: warning: plans/many.yaml:3:5: munmap threads $over, $((over * 2)) are more than the $CPUS CPU$([ "$CPUS" = 1 ] || echo s) of host local: the tasks share CPUs, so the numbers measure oversubscription too" \
	"... with one warning naming the values over the local host's CPUs"
cat >plans/fits.yaml <<'EOF'
name: fits
benchmarks:
  - bench: munmap
    params: { threads: [1, 100%] }
EOF
"$FLEETMARK" plan -s plans/fits.yaml >out 2>err
is "$? $(wc -c <err)" "0 0" "no warning when every count fits"

# --- the agent -----------------------------------------------------------------------

"$AGENT" run lat_ctx procs=5000 --samples 2 >out 2>err
is "$? $(wc -c <out)" "2 0" "agent run: out of range exits 2 before the trial starts"
is "$(cat err)" "fleetmark-agent: parameter procs: 5000 is out of range (2 to 1024)" "... saying why"
is "$(echo '{"type":"trial","id":"a","bench":"munmap","params":{"pages":0}}' | "$AGENT" serve |
	jq -r 'select(.id == "a") | .type + " " + (.class // .status)' | xargs)" \
	"error bad-request end bad-request" "agent serve: a trial out of range is a bad-request"
"$AGENT" run bw_mem size=1536 --samples 2 >out 2>err
is "$? $(jq -r 'select(.type == "error") | .class' out)" "2 bad-request" \
	"a benchmark's own bad-request check exits 2 with class bad-request"

# --- a run with a point the agent refuses ---------------------------------------------

# 300% of the host's CPUs is at least 3 threads: 3 x 4194304 is over the limit.
cat >plans/ring.yaml <<'EOF'
name: ring
repeat: 2
samples: 3
timeout: 60s
benchmarks:
  - bench: lat_ctx
    params:
      procs: 2
  - bench: munmap
    params:
      threads: 300%
      accesses: 4M
EOF
"$FLEETMARK" run plans/ring.yaml -o r --wait-lock 5m >out 2>err
is "$?" 3 "the run finishes with failed trials: exit 3"
D=$(echo r/*)
is "$(jq -r 'select(.bench == "munmap") | .status + " " + .kind' "$D/trials.jsonl" | sort | uniq -c | xargs)" \
	"2 bad-request benchmark" "trials.jsonl: status bad-request, kind benchmark, as docs/results.md says"
n=$((CPUS * 3))
msg="threads x accesses is $n x 4194304, more than 4194304"
is "$(grep -c "trial 2/4 failed: bad-request: $msg\$" err)" 1 "live: the point's first failure with its message"
is "$(grep -c "trial 4/4 failed: bad-request, as before\$" err)" 1 "live: the next failure of that point by its class"
like "$(grep -E '^local ' out | head -1)" "^local +done +2 +2 +0 +bad-request: munmap threads=300% accesses=4M: $msg\$" \
	"host table: the done host's reason is its first failure"
is "$(jq -r .hosts.local.reason "$D/run.json")" "bad-request: munmap threads=300% accesses=4M: $msg" \
	"run.json: the same reason"
like "$(cat out)" "Failures: 2 trials not ok" "the end of the run prints the failures table"
like "$(grep -E '^local +- +munmap' out)" "^local +- +munmap +threads=300%,pages=8,accesses=4M,write=0,huge=0,region=16M +bad-request +$msg +2\$" \
	"... a row for the point: host, variant, bench, point, class, first message, count"
is "$("$FLEETMARK" report "$D" --table failures --format csv 2>/dev/null)" \
	"table,host,variant,bench,point,class,first message,count
failures,local,-,munmap,\"threads=300%,pages=8,accesses=4M,write=0,huge=0,region=16M\",bad-request,\"$msg\",2" \
	"report --table failures: the same row in CSV"
"$FLEETMARK" report "$D" --table failures --format csv -o "$WORK/failures.csv" 2>/dev/null
is "$?" 0 "report --table failures exits 0"
# Two points failing: the host's reason counts the others.
cat >plans/two.yaml <<'EOF'
name: two
repeat: 1
samples: 2
timeout: 60s
benchmarks:
  - bench: munmap
    params:
      threads: [300%, 400%]
      accesses: 4M
EOF
"$FLEETMARK" run plans/two.yaml -o r2 --wait-lock 5m >out 2>err
like "$(grep -E '^local ' out | head -1)" "bad-request: munmap threads=300% accesses=4M: .* \(and 1 more point failed\)\$" \
	"host table: how many more points failed"
like "$(grep -c 'failed: bad-request: threads x accesses' err)" '^2$' "live: each point's first failure has its message"

done_testing
