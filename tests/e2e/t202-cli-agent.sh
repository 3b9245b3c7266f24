#!/usr/bin/env bash
# t202-cli-agent: the controller's command line (global options, help,
# option errors, exit codes, colour only on a terminal and never with
# NO_COLOR), `fleetmark agent list|path|build`, `list`, several plans and
# their estimates, `hosts --check`'s agent column for this machine, and
# the trial values `run -v` shows.
# cost: 14 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

# --- global options and the command table ------------------------------------
out=$("$FLEETMARK" help)
is "$?" 0 "help exits 0"
like "$out" "^usage: fleetmark" "help starts with the usage"
for c in plan agent help; do
	like "$out" "  $c +[a-z]" "help lists $c with its summary"
done
is "$("$FLEETMARK" --help)" "$out" "--help is help"
like "$("$FLEETMARK" --version)" '^fleetmark [0-9]+\.[0-9]+\.[0-9]+$' "--version"
like "$("$FLEETMARK" help plan)" "usage: fleetmark plan PLAN" "help COMMAND shows its usage"
"$FLEETMARK" plna >"$W/out" 2>"$W/err"
is "$?" 2 "an unknown command exits 2"
like "$(cat "$W/err")" "unknown command 'plna' \(did you mean 'plan'\?\)" "with a suggestion"
like "$(cat "$W/err")" "usage: fleetmark" "and the usage, on stderr"
is "$(cat "$W/out")" "" "nothing on stdout"
"$FLEETMARK" >/dev/null 2>&1
is "$?" 2 "no command exits 2"
"$FLEETMARK" --bogus >/dev/null 2>"$W/err"
is "$?" 2 "an unknown global option exits 2"
"$FLEETMARK" plan -h >"$W/out" 2>&1
is "$?" 0 "plan -h exits 0"
like "$(cat "$W/out")" "usage: fleetmark plan" "plan -h prints the usage"

# --- every command's help --------------------------------------------------------
for c in run plan list agent hosts report compare push pull ls bisect-run help; do
	"$FLEETMARK" "$c" --help >"$W/out" 2>"$W/err"
	r=$?
	if [ $r -eq 0 ] && grep -q "^fleetmark $c: " "$W/out" && grep -q "^usage: fleetmark $c" "$W/out" &&
		grep -q '^exit status:$' "$W/out" && grep -q '^examples:$' "$W/out" && [ ! -s "$W/err" ]; then
		tap_result 0 "$c --help: summary, usage, exit statuses, examples"
	else
		tap_result 1 "$c --help: summary, usage, exit statuses, examples (exit $r)"
	fi
	is "$("$FLEETMARK" help "$c")" "$(cat "$W/out")" "help $c is $c --help"
done
out=$("$FLEETMARK" run --help)
like "$out" "  --label NAME +the run's name in reports \(letters, digits, . _ -\), e.g." \
	"run --help describes an option, its argument and its default"
like "$out" "  130  interrupted" "and the exit statuses"
is "$("$FLEETMARK" plan -h)" "$("$FLEETMARK" plan --help)" "plan -h is plan --help (getopt_long)"

# --- option errors: the usual prefix and a suggestion ------------------------------
"$FLEETMARK" run --lable x plans/smoke.yaml >"$W/out" 2>"$W/err"
is "$?" 2 "an unknown option exits 2"
is "$(head -1 "$W/err")" "fleetmark run: unrecognized option '--lable' (did you mean '--label'?)" \
	"named with the command, with a suggestion"
like "$(sed -n 2p "$W/err")" "^usage: fleetmark run PLAN" "then the usage"
is "$(cat "$W/out")" "" "nothing on stdout"
"$FLEETMARK" hosts --chek 2>"$W/err"
is "$(head -1 "$W/err")" "fleetmark hosts: unrecognized option '--chek' (did you mean '--check'?)" \
	"every command (hosts)"
"$FLEETMARK" report latest --t x 2>"$W/err"
is "$(head -1 "$W/err")" "fleetmark report: option '--t' is ambiguous; possibilities: '--table' '--threshold'" \
	"an ambiguous abbreviation"
"$FLEETMARK" compare a b --tabel x 2>"$W/err"
is "$(head -1 "$W/err")" "fleetmark compare: unrecognized option '--tabel' (did you mean '--table'?)" \
	"compare's errors name compare, not report"
"$FLEETMARK" plan -f 2>"$W/err"
is "$(head -1 "$W/err")" "fleetmark plan: option requires an argument -- 'f'" "a missing argument"
"$FLEETMARK" --verbsoe plan 2>"$W/err"
is "$(head -1 "$W/err")" "fleetmark: unrecognized option '--verbsoe' (did you mean '--verbose'?)" \
	"a global option"
# --verbose and --quiet, as every command's help lists them, after the command too
for c in agent push pull ls bisect-run collect history hosts list plan report run compare; do
	"$FLEETMARK" "$c" --verbose --quiet --help >"$W/out" 2>"$W/err"
	echo "$c $? $(wc -c <"$W/err")"
done >"$W/common"
is "$(awk '$2 != 0 || $3 != 0' "$W/common")" "" "every command takes --verbose and --quiet (the options its help lists)"
is "$("$FLEETMARK" list --quiet 2>&1 >/dev/null; echo "exit $?")" "exit 0" "list --quiet: exit 0, nothing on stderr"
like "$("$FLEETMARK" list --verbose 2>&1 >/dev/null)" "benchmark catalogue: [0-9]+ benchmarks" "list --verbose: its verbose line"

# Colour: only on a terminal, never with NO_COLOR (even empty).
if command -v script >/dev/null; then
	tty_out=$(script -qc "$FLEETMARK plna" /dev/null </dev/null 2>&1)
	like "$tty_out" $'\033\\[' "an error on a terminal is coloured"
	tty_out=$(NO_COLOR='' script -qc "$FLEETMARK plna" /dev/null </dev/null 2>&1)
	if grep -q $'\033' <<<"$tty_out"; then r=1; else r=0; fi
	tap_result $r "never with NO_COLOR set"
else
	skip "colour on a terminal" "no script(1)"
	skip "colour with NO_COLOR" "no script(1)"
fi
"$FLEETMARK" plna 2>"$W/err"
if grep -q $'\033' "$W/err"; then r=1; else r=0; fi
tap_result $r "no colour off a terminal"

# -v shows more, -q shows less (the catalogue line is verbose).
if [ -x "$TOP/build/fleetmark-agent" ]; then
	"$FLEETMARK" -v plan "$TOP/plans/smoke.yaml" >/dev/null 2>"$W/err"
	like "$(cat "$W/err")" "benchmark catalogue: [0-9]+ benchmarks" "-v logs the catalogue"
	"$FLEETMARK" plan "$TOP/plans/smoke.yaml" >/dev/null 2>"$W/err"
	is "$(cat "$W/err")" "" "without -v, a valid plan logs nothing"
	FLEETMARK_AGENT=/nonexistent/agent "$FLEETMARK" plan "$TOP/plans/smoke.yaml" \
		>/dev/null 2>"$W/err"
	is "$?" 1 "no agent for the catalogue: exit 1 (an error, not bad input)"
	like "$(cat "$W/err")" "FLEETMARK_AGENT=/nonexistent/agent" "naming what was tried"

	# Several plans, each with an estimate per host.
	"$FLEETMARK" plan -s "$TOP/plans/smoke.yaml" "$TOP/plans/lmbench.yaml" >"$W/out" 2>"$W/err"
	is "$?" 0 "plan takes several plans"
	like "$(cat "$W/out")" "^plan smoke " "the first"
	like "$(cat "$W/out")" "^plan lmbench " "and the second"
	like "$(cat "$W/out")" "^host local: 6 trials, about 1s \\(estimate; at most 6m00s\\)$" \
		"an estimate per host, with the timeout as its bound"
	like "$(cat "$W/out")" "the estimate is a model, not a measurement" "saying how it is made"
	like "$(cat "$W/out")" "2 plans: 2 valid, 0 not" "and a last line for several plans"
	if grep -q '^  #  variant' "$W/out"; then r=1; else r=0; fi
	tap_result $r "-s: no trial lists"
	"$FLEETMARK" plan "$TOP/plans/smoke.yaml" >"$W/out"
	like "$(grep -A1 '^host local: 6 trials, about 1s' "$W/out" | tail -1)" "^  #  variant" \
		"without -s, each host's trials under its estimate"
	printf 'name: bad\nbenchmarks:\n  - bench: lat_sycsall\n' >"$W/bad.yaml"
	"$FLEETMARK" plan -s "$W/bad.yaml" "$TOP/plans/smoke.yaml" >"$W/out" 2>"$W/err"
	is "$?" 2 "an invalid plan among them: exit 2"
	like "$(cat "$W/err")" "bad.yaml:3:12: unknown benchmark 'lat_sycsall'" "its error"
	like "$(cat "$W/out")" "^plan $W/bad.yaml: not valid" "named on stdout"
	like "$(cat "$W/out")" "^plan smoke " "and the others still shown"
	"$FLEETMARK" plan -s "$TOP/plans/dcache-multiuser.yaml" >"$W/out"
	like "$(cat "$W/out")" "host local: 9 trials, duration unknown \\(no model for exec; at most 1h30m\\)" \
		"a benchmark without a model is said to be unknown"

	# list: the catalogue.
	"$FLEETMARK" list >"$W/out" 2>"$W/err"
	is "$?" 0 "list exits 0"
	is "$(grep -A2 '^lat_ctx: ' "$W/out" | tail -2)" "  params   procs=2 size=0 pin=none sampling=lmbench
  metrics  latency (us, lower is better), handoff (us, lower is better)" \
		"each benchmark: parameters with defaults, metrics with units and directions"
	is "$(grep -c '^[a-z_0-9]*: ' "$W/out")" "$("$AGENT" list --json | grep -c '"type":"bench"')" \
		"every benchmark of the agent's catalogue"
	out=$("$FLEETMARK" list munmap)
	like "$out" "threads +cpus +4 +threads accessing memory" "list BENCH: a parameter's type, default, meaning"
	like "$out" "accesses_per_thread_ms +accesses/ms +higher" "a metric's unit and direction"
	like "$("$FLEETMARK" list lmbench)" "38 points|[0-9]+ points \\(a plan" "a suite's points"
	"$FLEETMARK" list mumnap >/dev/null 2>"$W/err"
	is "$?" 2 "an unknown benchmark exits 2"
	like "$(cat "$W/err")" "unknown benchmark 'mumnap' \\(did you mean 'munmap'\\?\\)" "with a suggestion"

	# -v: each finished trial's values in the (plain) progress lines.
	(cd "$W" && "$FLEETMARK" -v run "$TOP/plans/smoke.yaml" -o "$W/results" >"$W/out" 2>"$W/err")
	is "$?" 0 "run -v"
	is "$(grep -cE '^[0-9T:-]+Z local trial [1-6]/6 [a-z_]+( (op=[a-z]+|interval=[0-9]+))? rep [12]: latency [0-9.]+ us$' "$W/err")" 6 \
		"one line of values per trial"
fi

# --- agent list | path | build -------------------------------------------------
mkdir -p "$W/agents/x86_64" "$W/agents/armhf" "$W/agents/empty"
printf 'pretend x86_64 agent\n' >"$W/agents/x86_64/fleetmark-agent"
printf 'pretend armhf agent\n' >"$W/agents/armhf/fleetmark-agent"
chmod +x "$W/agents"/*/fleetmark-agent
out=$(FLEETMARK_AGENTS=$W/agents "$FLEETMARK" agent list)
is "$?" 0 "agent list exits 0"
line=$(grep '^x86_64 ' <<<"$out")
sum=$(sha256sum "$W/agents/x86_64/fleetmark-agent" | cut -d' ' -f1)
like "$line" "^x86_64 +21 +$sum +$W/agents/x86_64/fleetmark-agent$" \
	"arch, size, sha256 (as sha256sum) and path"
like "$(grep '^armhf ' <<<"$out")" "^armhf " "every architecture found is listed"
is "$(grep -c '^empty ' <<<"$out")" 0 "a directory without a binary is not an agent"
is "$(FLEETMARK_AGENTS=$W/agents "$FLEETMARK" agent path x86_64)" \
	"$W/agents/x86_64/fleetmark-agent" "agent path ARCH"
is "$(FLEETMARK_AGENTS=$W/agents "$FLEETMARK" agent path armv7l)" \
	"$W/agents/armhf/fleetmark-agent" "agent path accepts uname -m names (armv7l is armhf)"
FLEETMARK_AGENTS=$W/agents "$FLEETMARK" agent path x86-64 >"$W/out" 2>"$W/err"
is "$?" 1 "an architecture without an agent exits 1"
like "$(cat "$W/err")" "no agent for architecture 'x86-64' \(did you mean 'x86_64'\?\)" \
	"with a suggestion"
"$FLEETMARK" agent frobnicate >/dev/null 2>&1
is "$?" 2 "an unknown agent subcommand exits 2"
if [ -d "$TOP/build/agents" ]; then
	n=$(find "$TOP/build/agents" -name fleetmark-agent -type f | wc -l)
	is "$("$FLEETMARK" agent list | tail -n +2 | wc -l)" "$n" \
		"without FLEETMARK_AGENTS, the agents of the build tree ($n)"
else
	skip "agents of the build tree" "no build/agents (make agents)"
fi
# Without static agents (after a plain `make`), list explains instead of failing.
mkdir -p "$W/bin" "$W/none"
cp "$FLEETMARK" "$W/bin/fleetmark"
FLEETMARK_AGENTS=$W/none "$W/bin/fleetmark" agent list >"$W/out" 2>"$W/err"
r=$?
if grep -q '^ARCH ' "$W/out"; then
	skip "agent list without static agents" "installed agents in $(grep -m1 / "$W/out")"
	skip "says what to do" "installed agents"
else
	is "$r" 0 "agent list without static agents exits 0"
	like "$(tr '\n' ' ' <"$W/err")" "no static agents yet; looked in:.*$W/none.*\`make agents\`.*compiled there from source" \
		"saying what make built, what make agents builds, and what hosts do meanwhile"
fi
FLEETMARK_AGENTS=$W/none "$W/bin/fleetmark" agent path x86_64 >/dev/null 2>&1
is "$?" 1 "agent path without static agents is still an error"

# hosts --check: how the agent gets to this machine.
if command -v cc >/dev/null || command -v gcc >/dev/null || command -v clang >/dev/null; then
	FLEETMARK_AGENTS=$W/none "$W/bin/fleetmark" hosts --check >"$W/out" 2>&1
	r=$?
	if grep -q '^ARCH ' <(FLEETMARK_AGENTS=$W/none "$W/bin/fleetmark" agent list 2>/dev/null); then
		skip "hosts --check says source:CC" "installed agents"
		skip "explained under the table" "installed agents"
	else
		like "$(grep '^local ' "$W/out")" " source:(cc|gcc|clang) " \
			"no static agent, a compiler: the agent is built there (source:CC), not missing"
		like "$(cat "$W/out")" "source:CC: no prebuilt agent is used for this host; it is compiled there" \
			"explained under the table"
	fi
	is "$r" 0 "and the host is fine"
else
	skip "hosts --check says source:CC" "no C compiler here"
	skip "explained under the table" "no C compiler here"
	skip "and the host is fine" "no C compiler here"
fi
if [ "$(uname -m)" = x86_64 ]; then
	FLEETMARK_AGENTS=$W/agents "$FLEETMARK" hosts --check >"$W/out" 2>&1
	like "$(grep '^local ' "$W/out")" " x86_64 " "with a static agent for the architecture: its name"
else
	skip "with a static agent for the architecture: its name" "not an x86_64 machine"
fi

# Outside a source tree, `agent build` says what to do instead.
cp "$FLEETMARK" "$W/fleetmark"
"$W/fleetmark" agent build >/dev/null 2>"$W/err"
is "$?" 1 "agent build outside a source tree exits 1"
like "$(cat "$W/err")" "does not run from a source tree.*make agents" "with a clear message"

done_testing
