#!/usr/bin/env bash
# t700-own-bad-inputs: `bench: program` (docs/own-benchmarks.md) refuses
# bad plans before anything runs, with FILE:LINE:COL (a regex that does not
# compile, a group no metric names, a metric no group fills, a missing
# source, an unknown {param}, ...), and on this machine (default fleet,
# local transport) fails bad programs alone with a clear error: output no
# rule matches (bad-output, its first lines shown), a crash (the signal and
# the stderr tail), a hang past the deadline (timeout, nothing left
# running), 100 MB of output (bad-output, drained and counted), a build that
# fails (deploy, the compiler's first error lines); and a {param} with
# shell metacharacters arrives in argv literally.
# cost: 10 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
need_tools jq
command -v cc >/dev/null || command -v musl-gcc >/dev/null || skip_all "needs a C compiler"
WORK=$(mktemp -d /tmp/t700.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME=$WORK/cache
cd "$WORK" || exit 1

# --- plan-time errors: exit 2, the position, nothing run ------------------------

printf 'int main(void) { return 0; }\n' >ok.c
head='name: t
timeout: 10s
benchmarks:
  - bench: program
    name: p'
plan_err() {	# NAME EXPECTED-MESSAGE, the plan's rest on stdin
	{ printf '%s\n' "$head"; cat; } >"$1.yaml"
	run_fm "$1" plan "$1.yaml"
	is "$rc $(grep -cF -- "$2" "$1.err")" "2 1" "plan: $2"
	if [ "$rc" != 2 ] || ! grep -qF -- "$2" "$1.err"; then sed 's/^/#   /' "$1.err"; fi
}
plan_err re-compile "re-compile.yaml:8:16: match: does not compile" <<'Y'
    command: /bin/true
    parse:
      - match: '(?P<x>\d+'
        metrics: { x: { unit: ns, direction: lower } }
Y
plan_err re-lazy "re-lazy.yaml:8:16: match: lazy and possessive quantifiers are not supported at character 12" <<'Y'
    command: /bin/true
    parse:
      - match: 'a (?P<x>\d+?)'
        metrics: { x: { unit: ns, direction: lower } }
Y
plan_err re-blowup "re-blowup.yaml:8:16: match: repetitions of repetitions make a pattern of more than 1000 parts at character 16" <<'Y'
    command: /bin/true
    parse:
      - match: '(?P<x>((\d{30}){30}){30})'
        metrics: { x: { unit: ns, direction: lower } }
Y
plan_err group-unused "group-unused.yaml:8:16: match: group 'y' is not a metric" <<'Y'
    command: /bin/true
    parse:
      - match: '(?P<x>\d+) (?P<y>\d+)'
        metrics: { x: { unit: ns, direction: lower } }
Y
plan_err metric-nogroup "metric-nogroup.yaml:9:55: metric z: no group (?P<z>...) in the match fills it" <<'Y'
    command: /bin/true
    parse:
      - match: '(?P<x>\d+)'
        metrics: { x: { unit: ns, direction: lower }, z: { unit: ns, direction: lower } }
Y
plan_err no-direction "no-direction.yaml:9:23: metric x needs \`direction:\` (lower or higher)" <<'Y'
    command: /bin/true
    parse:
      - match: '(?P<x>\d+)'
        metrics: { x: { unit: ns } }
Y
plan_err no-source "no-source.yaml:6:14: source 'missing.c': No such file or directory" <<'Y'
    source: [missing.c]
    build: "cc -o p missing.c"
    parse:
      - match: '(?P<x>\d+)'
        metrics: { x: { unit: ns, direction: lower } }
Y
plan_err unknown-param "unknown-param.yaml:7:29: args: unknown parameter {pagez}" <<'Y'
    command: /bin/echo
    args: ["-n", "{pages}", "{pagez}"]
    params: { pages: [8, 16] }
    parse:
      - match: '(?P<x>\d+)'
        metrics: { x: { unit: ns, direction: lower } }
Y
plan_err both "both.yaml:7:5: bench: program needs either \`source:\` (files next to the plan) or \`command:\` (a program on the host), not both" <<'Y'
    source: [ok.c]
    command: /bin/true
    build: "cc -o ok ok.c"
    parse:
      - match: '(?P<x>\d+)'
        metrics: { x: { unit: ns, direction: lower } }
Y
sed 's/name: p$/name: munmap/' >taken.yaml <<Y
$head
    command: /bin/true
    parse:
      - match: '(?P<x>\d+)'
        metrics: { x: { unit: ns, direction: lower } }
Y
run_fm taken plan taken.yaml
is "$rc $(cat taken.err)" "2 fleetmark: error: taken.yaml:5:11: program name 'munmap' is taken by a built-in benchmark" \
	"plan: a program cannot take a built-in benchmark's name"
plan_err bad-key "bad-key.yaml:6:5: unknown key 'biuld' in program benchmark (did you mean 'build'?)" <<'Y'
    biuld: "cc -o ok ok.c"
    source: [ok.c]
    parse:
      - match: '(?P<x>\d+)'
        metrics: { x: { unit: ns, direction: lower } }
Y
is "$(find "$WORK" -name 'fleetmark-trial.*' | wc -l) $(find "$XDG_CACHE_HOME" -mindepth 1 -maxdepth 1 ! -name '.*' 2>/dev/null | wc -l)" "0 0" \
	"plan errors run and build nothing"

# --- run-time failures, one trial each, on the default fleet --------------------

export T700_MARK=1
sh_plan() {	# NAME TIMEOUT SCRIPT: a plan running /bin/sh -c SCRIPT
	cat >"$1.yaml" <<Y
name: $1
repeat: 1
samples: 3
timeout: $2
benchmarks:
  - bench: program
    name: $1
    command: /bin/sh
    args: ["-c", '$3']
    parse:
      - match: 'value: (?P<v>\d+)'
        metrics:
          v: { unit: ns, direction: lower }
Y
}
trial() {	# NAME: "status message" of its one trial
	jq -r '.status + " " + (.message // "") | gsub("\n"; " ")' "$(run_dir "$WORK/r-$1")/trials.jsonl" | head -1
}
run_one() {	# NAME: run it into r-NAME
	run_fm "$1" run -q --wait-lock 5m -o "$WORK/r-$1" "$1.yaml"
}

sh_plan nomatch 10s 'echo first line; echo second line; echo "value: none"'
run_one nomatch
is "$rc" 3 "a program whose output no rule matches: exit 3 (a trial failed)"
like "$(trial nomatch)" '^bad-output nomatch: no line of its output \(35 bytes\) matched a parse rule; it printed: first line \| second line \| value: none$' \
	"no match: bad-output with the first lines it printed"

sh_plan stdin 10s 'cat; echo "value: 5"'
run_one stdin
is "$rc $(trial stdin)" "0 ok " "the program's stdin is /dev/null (cat ends at once)"

sh_plan crash 10s 'echo "about to crash" >&2; kill -SEGV $$'
run_one crash
like "$(trial crash)" '^bench crash killed by signal 11 \(Segmentation fault\); stderr: about to crash$' \
	"a crash: the signal and the stderr tail"

sh_plan failing 10s 'echo "cannot open /nonexistent" >&2; exit 7'
run_one failing
like "$(trial failing)" '^bench failing exited with status 7; stderr: cannot open /nonexistent$' \
	"a non-zero exit: the status and the stderr tail"

sh_plan hang 3s 'echo started >&2; sleep 300 & sleep 300'
run_one hang
like "$(trial hang)" '^timeout hang did not finish within its deadline \([0-9.]+ s\), killed; it printed 0 bytes; stderr: started$' \
	"a hang: timeout at the deadline, with the stderr tail"
d=$(jq -r '.duration' "$(run_dir "$WORK/r-hang")/trials.jsonl")
check "a hang: the trial ends at its deadline (${d} s)" awk -v d="$d" 'BEGIN { exit !(d >= 2.5 && d < 6) }'
is "$(procs_with_mark T700_MARK)" "" "a hang: nothing it started is left running"

sh_plan flood 30s 'head -c 104857600 /dev/zero | tr "\0" x; echo; echo "value: 1"'
run_one flood
is "$(trial flood)" "bad-output flood printed 104857610 bytes, more than the 1048576 kept: its output cannot be parsed whole" \
	"100 MB of output: drained, counted and refused (bad-output)"

# --- a build that fails: deploy, with the compiler's first lines ------------------

printf 'int main(void) { return 0 }\n' >broken.c
cat >broken.yaml <<'Y'
name: broken
repeat: 1
benchmarks:
  - bench: program
    name: broken
    source: [broken.c]
    build: "cc -o broken broken.c"
    parse:
      - match: 'value: (?P<v>\d+)'
        metrics: { v: { unit: ns, direction: lower } }
  - bench: lat_syscall
    params: { op: null }
Y
run_one broken
is "$rc" 3 "a build that fails: exit 3"
like "$(trial broken)" "^deploy local: broken: the build for [a-z0-9_]+ \([a-z0-9_-]+gcc\) failed with status 1:.*broken.c:1:.*error" \
	"a build that fails: a deploy error with the compiler's first lines"
is "$(jq -r 'select(.bench == "lat_syscall") | .status' "$(run_dir "$WORK/r-broken")/trials.jsonl")" ok \
	"a build that fails: the plan's other benchmarks still run"
is "$(find "$XDG_CACHE_HOME/fleetmark/programs" -mindepth 1 -maxdepth 1 ! -name '.*' | wc -l)" 0 "a failed build caches nothing"

# --- {param} with shell metacharacters arrives literally -------------------------

# shellcheck disable=SC2016 # literal on purpose
evil='$(touch pwned); `touch pwned2` && echo "x" | cat > pwned3 ; *'
cat >literal.yaml <<Y
name: literal
repeat: 1
benchmarks:
  - bench: program
    name: literal
    command: /bin/sh
    args: ["-c", 'printf "%s" "\$1" > got.txt; printf "len: %s\n" "\${#1}"; cp got.txt "$WORK/got.txt"', "sh", "{p}"]
    params:
      p: '$evil'
    parse:
      - match: '^len: (?P<len>\d+)$'
        metrics: { len: { unit: B, direction: lower } }
Y
run_one literal
is "$rc $(jq -r '.status + " " + (.value|tostring)' "$(run_dir "$WORK/r-literal")/trials.jsonl")" "0 ok ${#evil}" \
	"a {param} with shell metacharacters: one argv element of its length"
is "$(cat "$WORK/got.txt" 2>/dev/null)" "$evil" "it arrives literally, byte for byte"
is "$(find / -xdev -maxdepth 4 -name 'pwned*' 2>/dev/null | head -3)" "" "and nothing in it ran"

done_testing
