#!/usr/bin/env bash
# t202-cli-agent: the controller's command line (docs/guide.md: global options,
# help, exit codes, colour only on a terminal and never with NO_COLOR) and
# `fleetmark agent list|path|build`.
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
[ -x "$FLEETMARK" ] || skip_all "no controller at $FLEETMARK (run make)"
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
# Outside a source tree, `agent build` says what to do instead.
cp "$FLEETMARK" "$W/fleetmark"
"$W/fleetmark" agent build >/dev/null 2>"$W/err"
is "$?" 1 "agent build outside a source tree exits 1"
like "$(cat "$W/err")" "does not run from a source tree.*make agents" "with a clear message"

done_testing
