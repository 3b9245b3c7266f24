#!/usr/bin/env bash
# t200-plan-errors: `fleetmark plan` on malformed plans and inventories
# (docs/plans-and-fleets.md): each is refused with exit 2 and the exact
# FILE:LINE:COL: message, prints nothing on stdout and writes nothing.
#
# The table below is the test: one row per fixture in tests/data/bad/ (two
# of them, too big to keep in git, are generated here).  Columns:
#   FIXTURE  MODE  EXPECTED-MESSAGE (the rest of the line, a fixed string)
# MODE is `plan` (the fixture is the plan, with a valid inventory), `fleet`
# (the fixture is the inventory, with a valid plan), or `-H=SPEC` (valid
# plan and inventory, the selection SPEC).
# cost: 15 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
[ -x "$TOP/build/fleetmark-agent" ] || [ -n "${FLEETMARK_AGENT:-}" ] ||
	skip_all "no native agent (run make)"
W=$(mktemp -d)
O=$(mktemp -d)	# stdout and stderr of each run, outside the watched tree
trap 'rm -rf "$W" "$O"' EXIT
mkdir -p "$W/run/bad" "$W/run/data" "$W/home"
cp "$TOP"/tests/data/bad/* "$W/run/bad/"
cp "$TOP/tests/data/plan-ok.yaml" "$TOP/tests/data/fleet-ok.yaml" "$W/run/data/"

# Generated fixtures: a file over 1 MB, and one with over 100000 nodes.
{
	printf 'name: t\nbenchmarks:\n  - bench: lat_syscall\n'
	for _ in $(seq 1 14000); do
		printf '# padding padding padding padding padding padding padding padding padding padding\n'
	done
} >"$W/run/bad/plan-huge.yaml"
{
	printf 'name: t\nbenchmarks:\n  - bench: lat_syscall\nx: ['
	printf '1,%.0s' $(seq 1 100001)
	printf '1]\n'
} >"$W/run/bad/plan-many-nodes.yaml"

cases=$(cat <<'EOF'
plan-unknown-key.yaml      plan  bad/plan-unknown-key.yaml:2:1: unknown key 'hots' in plan (did you mean 'hosts'?)
plan-repeat-type.yaml      plan  bad/plan-repeat-type.yaml:2:9: bad repeat 'five': expected a number of trials from 1 to 10000, or auto
plan-repeat-negative.yaml  plan  bad/plan-repeat-negative.yaml:2:9: -1 is out of range (1 to 10000)
plan-duplicate-key.yaml    plan  bad/plan-duplicate-key.yaml:4:1: duplicate key 'repeat' (first at line 2)
plan-anchor.yaml           plan  bad/plan-anchor.yaml:3:5: YAML anchors are not allowed (&one)
plan-alias.yaml            plan  bad/plan-alias.yaml:6:11: YAML aliases are not allowed (*x)
plan-tag.yaml              plan  bad/plan-tag.yaml:3:12: YAML tags are not allowed
plan-tab.yaml              plan  bad/plan-tab.yaml:3:1: tab character where indentation is expected
plan-indent.yaml           plan  bad/plan-indent.yaml:2:9: mapping values are not allowed in this context
plan-at-unquoted.yaml      plan  bad/plan-at-unquoted.yaml:2:9: '@' cannot start a plain YAML value: quote it
plan-bad-duration.yaml     plan  bad/plan-bad-duration.yaml:2:10: '5 minutes' is not a duration
plan-bad-percent.yaml      plan  bad/plan-bad-percent.yaml:5:14: '5 percent' is not a percentage
plan-percent-range.yaml    plan  bad/plan-percent-range.yaml:5:14: percentage '1500%' is over 1000%
plan-unknown-bench.yaml    plan  bad/plan-unknown-bench.yaml:3:12: unknown benchmark 'munmapp' (did you mean 'munmap'?)
plan-unknown-param.yaml    plan  bad/plan-unknown-param.yaml:5:7: unknown parameter 'thread' for munmap (did you mean 'threads'?)
plan-bad-enum.yaml         plan  bad/plan-bad-enum.yaml:5:18: parameter op of lat_syscall: 'reed' is not one of null|read|write|stat|open (did you mean 'read'?)
plan-bad-int.yaml          plan  bad/plan-bad-int.yaml:5:14: parameter pages of munmap: '8x' is not an integer
plan-bad-cpus.yaml         plan  bad/plan-bad-cpus.yaml:5:16: parameter threads of munmap: '0%' is not a CPU count
plan-empty-axis.yaml       plan  bad/plan-empty-axis.yaml:5:16: parameter threads has an empty list: a matrix axis needs at least one value
plan-suite-params.yaml     plan  bad/plan-suite-params.yaml:4:5: lmbench is a suite of
plan-bad-profile.yaml      plan  bad/plan-bad-profile.yaml:4:14: bad profile 'oprofile': expected perf or none
plan-bad-order.yaml        plan  bad/plan-bad-order.yaml:2:8: bad order 'interleaved': expected interleave, sequential or shuffle (did you mean 'interleave'?)
plan-bad-metric.yaml       plan  bad/plan-bad-metric.yaml:5:13: regression metric 'munmap.ns_per_acces': munmap has no metric 'ns_per_acces' (did you mean 'ns_per_access'?)
plan-metric-not-run.yaml   plan  bad/plan-metric-not-run.yaml:5:13: regression metric 'lat_ctx.latency': the plan does not run lat_ctx
plan-duplicate-point.yaml  plan  bad/plan-duplicate-point.yaml:6:5: lat_syscall is measured twice (also by the benchmark at line 3)
plan-no-benchmarks.yaml    plan  bad/plan-no-benchmarks.yaml:2:13: benchmarks: expected a list of benchmark entries, with at least one
plan-bad-write.yaml        plan  bad/plan-bad-write.yaml:4:14: bad path 'relative/path': write needs an absolute, normalised file path
plan-variant-key.yaml      plan  bad/plan-variant-key.yaml:4:5: unknown key 'wirte' in variant 'a' (did you mean 'write'?)
plan-two-docs.yaml         plan  bad/plan-two-docs.yaml:4:1: a second YAML document: a file holds exactly one
plan-empty.yaml            plan  bad/plan-empty.yaml:1:1: empty file: expected a YAML mapping
plan-only-comment.yaml     plan  bad/plan-only-comment.yaml:1:1: empty file: expected a YAML mapping
plan-binary.yaml           plan  bad/plan-binary.yaml:1:1: control characters are not allowed (byte 0x7f): not a UTF-8 text file
plan-nul.yaml              plan  bad/plan-nul.yaml:4:18: NUL character in a string
plan-deep.yaml             plan  bad/plan-deep.yaml:5:39: nesting deeper than 32 levels
plan-huge.yaml             plan  bad/plan-huge.yaml:1:1: file too large (
plan-many-nodes.yaml       plan  bad/plan-many-nodes.yaml:4:199985: more than 100000 YAML nodes
plan-unknown-host.yaml     plan  bad/plan-unknown-host.yaml:2:9: unknown host 'nosuch' in data/fleet-ok.yaml
plan-unknown-label.yaml    plan  bad/plan-unknown-label.yaml:2:9: no host has label 'arm64' in data/fleet-ok.yaml (did you mean 'arm'?)
fleet-unknown-key.yaml     fleet bad/fleet-unknown-key.yaml:3:5: unknown key 'adress' in host 'a' (did you mean 'address'?)
fleet-bad-hostkey.yaml     fleet bad/fleet-bad-hostkey.yaml:2:19: bad host_key_check 'maybe': expected one of yes, accept-new, no
fleet-no-address.yaml      fleet bad/fleet-no-address.yaml:2:3: host 'a' has no address
fleet-duplicate-host.yaml  fleet bad/fleet-duplicate-host.yaml:6:3: duplicate key 'a' (first at line 2)
fleet-case-host.yaml       fleet bad/fleet-case-host.yaml:4:3: duplicate host name 'alpha': same as 'Alpha' at line 2 but for case
fleet-bad-name.yaml        fleet bad/fleet-bad-name.yaml:2:3: bad host name 'bad name'
fleet-bad-port.yaml        fleet bad/fleet-bad-port.yaml:4:11: 70000 is out of range (1 to 65535)
fleet-bad-timeout.yaml     fleet bad/fleet-bad-timeout.yaml:2:20: 'soon' is not a duration
fleet-bad-address.yaml     fleet bad/fleet-bad-address.yaml:3:14: bad address '-oProxyCommand=x'
fleet-default-address.yaml fleet bad/fleet-default-address.yaml:2:3: address belongs to each host, not to defaults
fleet-local-address.yaml   fleet bad/fleet-local-address.yaml:4:14: host 'a' uses the local transport: it takes no address
fleet-bad-transport.yaml   fleet bad/fleet-bad-transport.yaml:3:16: bad transport 'telnet': expected one of ssh, local
fleet-no-hosts.yaml        fleet bad/fleet-no-hosts.yaml:1:8: `hosts:` must map host names to their settings, and name at least one
fleet-reserved-name.yaml   fleet bad/fleet-reserved-name.yaml:2:3: 'all' is reserved: it selects every host
-                          -H=alpah   -H: unknown host 'alpah' in data/fleet-ok.yaml (did you mean 'alpha'?)
-                          -H=@armm   -H: no host has label 'armm' in data/fleet-ok.yaml (did you mean 'arm'?)
-                          -H=alpha,  -H 'alpha,': an empty host name
-                          -H=        -H: no host named
-                          -H=gam*    -H: no host name matches 'gam*' in data/fleet-ok.yaml
-                          -H=@x86_64&@arm -H: '@x86_64&@arm' selects no host of data/fleet-ok.yaml
-                          -H=!alpah  -H: unknown host 'alpah' in data/fleet-ok.yaml (did you mean 'alpha'?)
-                          -H=alpha,!@x86* -H: every host selected is excluded
EOF
)

n_fixtures=0
while read -r fixture mode expected; do
	[ -n "$fixture" ] || continue
	case $mode in
	plan) args=(plan "bad/$fixture" -f data/fleet-ok.yaml) ;;
	fleet) args=(plan data/plan-ok.yaml -f "bad/$fixture") ;;
	-H=*) args=(plan data/plan-ok.yaml -f data/fleet-ok.yaml -H "${mode#-H=}") ;;
	*) echo "bad table row: $fixture $mode" >&2; exit 1 ;;
	esac
	[ "$fixture" = - ] || n_fixtures=$((n_fixtures + 1))
	name=${fixture#-}
	name=${name:-$mode}
	before=$(cd "$W" && find . -printf '%p %s %T@\n' | sort)
	(cd "$W/run" && HOME=$W/home "$FLEETMARK" "${args[@]}" >"$O/out" 2>"$O/err")
	rc=$?
	is "$rc" 2 "$name: exit status 2"
	if grep -qF -- "$expected" "$O/err"; then
		tap_result 0 "$name: $expected"
	else
		tap_result 1 "$name: $expected"
		printf '#   got: %s\n' "$(head -c 400 "$O/err")"
	fi
	after=$(cd "$W" && find . -printf '%p %s %T@\n' | sort)
	if [ -s "$O/out" ] || [ "$before" != "$after" ]; then
		tap_result 1 "$name: nothing on stdout, nothing written"
	else
		tap_result 0 "$name: nothing on stdout, nothing written"
	fi
done <<<"$cases"
check "at least 25 malformed fixtures (have $n_fixtures)" test "$n_fixtures" -ge 25

# Every fixture in tests/data/bad/ is in the table.
for f in "$TOP"/tests/data/bad/*; do
	b=$(basename "$f")
	grep -q "^$b " <<<"$cases"
	tap_result $? "fixture $b has a row in the table"
done

# Patterns that select: the plan's summary names the hosts.
(cd "$W/run" && "$FLEETMARK" plan data/plan-ok.yaml -f data/fleet-ok.yaml -H '*,!@x86_64' -s \
	>"$O/out" 2>"$O/err")
is "$?" 0 "a glob less a label is accepted"
like "$(cat "$O/out")" "1 of 2 hosts selected: beta\$" "and selects the host that is left"
(cd "$W/run" && "$FLEETMARK" plan data/plan-ok.yaml -f data/fleet-ok.yaml -H '@*&!beta' -s \
	>"$O/out" 2>"$O/err")
like "$(cat "$O/out")" "1 of 2 hosts selected: alpha\$" "a label glob with a complement"

# A missing plan file is bad input too.
(cd "$W/run" && "$FLEETMARK" plan no-such-plan.yaml >/dev/null 2>"$O/err")
is "$?" 2 "a missing plan exits 2"
like "$(cat "$O/err")" "no-such-plan.yaml: No such file or directory" "and says why"
(cd "$W/run" && "$FLEETMARK" plan >/dev/null 2>"$O/err")
is "$?" 2 "plan without a file exits 2"
like "$(cat "$O/err")" "^usage: fleetmark plan PLAN" "with the usage"

done_testing
