#!/usr/bin/env bash
# t301-ssh-config-agent: a host reached through the Host entry of an OpenSSH
# client config (HostName, User, Port, IdentityFile), and keys taken from a
# running ssh-agent when the inventory names no identity.
# cost: 1 s, busy; lab: lab-02 lab-db
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab ssh-agent
use_lab t301
L=$LABDIR

# --- ~/.ssh/config-style Host entries ------------------------------------------
cat >"$WORK/config" <<CFG
Host alias-three
  HostName 198.18.1.3
  User bench
  Port 22
  IdentityFile $L/id_ed25519
CFG
cat >"$WORK/cfg.yaml" <<YAML
defaults:
  known_hosts: $L/known_hosts
  host_key_check: yes
  connect_timeout: 10s
  ssh_config: $WORK/config
hosts:
  three:
    address: alias-three
YAML
HOME=$WORK "$FLEETMARK" hosts --check -f "$WORK/cfg.yaml" >"$WORK/cfg.out" 2>"$WORK/cfg.err"
is "$?" 0 "a host named only by its ssh_config Host entry is reached"
like "$(grep '^three ' "$WORK/cfg.out")" "^three +alias-three +bench +ok +known +[a-z/]+ +x86_64" \
	"... through the entry's HostName, as its User, with its IdentityFile"
sed -e "s|^  ssh_config: .*|  ssh_config: false|" "$WORK/cfg.yaml" >"$WORK/nocfg.yaml"
HOME=$WORK "$FLEETMARK" hosts --check -f "$WORK/nocfg.yaml" >"$WORK/nocfg.out" 2>&1
is "$?" 3 "with ssh_config: false the alias means nothing (exit 3)"

# --- keys from ssh-agent ---------------------------------------------------------
mkdir -p "$WORK/home"
if ! agent_out=$(ssh-agent -a "$WORK/agent.sock" -s); then
	tap_result 1 "ssh-agent starts"
	done_testing
fi
agent_pid=$(printf '%s\n' "$agent_out" | sed -n 's/^SSH_AGENT_PID=\([0-9]*\);.*/\1/p')
trap 'kill "$agent_pid" 2>/dev/null; _lab_cleanup' EXIT
SSH_AUTH_SOCK=$WORK/agent.sock ssh-add -q "$L/id_ed25519" 2>/dev/null
tap_result $? "the lab key is added to a private ssh-agent"
sed -e '/^  identity: /d' "$L/fleet.yaml" >"$WORK/agent.yaml"
# HOME without keys: only the agent can authenticate
HOME=$WORK/home SSH_AUTH_SOCK=$WORK/agent.sock "$FLEETMARK" hosts --check -f "$WORK/agent.yaml" \
	-H lab-02,lab-db >"$WORK/agent.out" 2>&1
is "$?" 0 "with no identity in the inventory, keys come from ssh-agent (OpenSSH and dropbear)"
HOME=$WORK/home SSH_AUTH_SOCK='' "$FLEETMARK" hosts --check -f "$WORK/agent.yaml" -H lab-02 \
	>"$WORK/noagent.out" 2>&1
is "$?" 3 "without the agent and without key files, auth fails (exit 3)"
like "$(cat "$WORK/noagent.out")" "lab-02 .*auth" "... classed auth"
kill "$agent_pid"

done_testing
