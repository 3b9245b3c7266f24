#!/usr/bin/env bash
# t304-jump-chain-long: a long proxy_jump chain fails with a clear message.
#
# 11 hops are refused before anything starts, saying how many fleetmark
# takes (each hop nests the others' ssh command, and past 9 hops it no
# longer fits in one argument); 8 hops start, and fail with what the first
# hop's ssh said (nothing listens on 127.0.0.1 port 9), never with a
# message that ends in "Success".  Needs no lab.  Costs about 1 s here.
# cost: 1 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
command -v ssh >/dev/null || skip_all "needs the OpenSSH client"

WORK=$(mktemp -d /tmp/t304.XXXXXX)
trap 'rm -rf "$WORK"' EXIT

# fleet N: an inventory whose host b jumps N times through 127.0.0.1 port 9.
fleet() {
	local hops i
	hops=root@127.0.0.1:9
	for ((i = 1; i < $1; i++)); do hops="$hops,root@127.0.0.1:9"; done
	cat >"$WORK/fleet$1.yaml" <<YAML
defaults:
  ssh_config: false
  known_hosts: $WORK/known_hosts
  host_key_check: no
  connect_timeout: 3s
hosts:
  b:
    address: 198.18.0.1
    proxy_jump: $hops
YAML
}

fleet 11
"$FLEETMARK" hosts --check -f "$WORK/fleet11.yaml" >"$WORK/11.out" 2>&1
rc=$?
out=$(tr '\n' ' ' <"$WORK/11.out")
like "$rc $out" "^3 .*b: .*jump chain of 11 hops is longer than the 8 fleetmark takes" \
	"11 hops are refused, saying how many are taken"
unlike=0
grep -q 'Success' "$WORK/11.out" && unlike=1
tap_result "$unlike" "... and the message does not say \"Success\""

fleet 8
"$FLEETMARK" hosts --check -f "$WORK/fleet8.yaml" >"$WORK/8.out" 2>&1
rc=$?
like "$rc $(tr '\n' ' ' <"$WORK/8.out")" "^3 .*b: .*via .*Connection refused" \
	"8 hops start, and fail with the first hop's own words"

done_testing
