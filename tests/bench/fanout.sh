#!/usr/bin/env bash
# tests/bench/fanout.sh: deploy the agent and run plans/smoke.yaml on N lab
# hosts with fleetmark, and do the same copy, run and collect with
# parallel-scp + parallel-ssh (Debian's pssh) and with Ansible (ansible-core),
# side by side in one run.  For each N and tool: wall time, hosts that
# succeeded, SSH logins per host (from the servers' logs), controller CPU
# time and peak RSS, the hosts' CPU time (their ssh servers and everything
# those ran, the agents and benchmarks included); for fleetmark also the gap
# between two trials on a host.
#
#   tests/bench/fanout.sh [N...]          (default: 1 8 32 64; root; brings
#                                          up its own lab and takes it down)
#   TOOLS="fleetmark pssh ansible bare"   which tools to run (also
#                                         ansible-default: Ansible's default
#                                         5 forks instead of 32); bare is
#                                         tests/bench/bare-libssh.c (the least
#                                         a libssh loop can do) at BARE_K
#                                         hosts at a time
#   BARE_K="2 8 32"    bare's hosts at a time, one row each
#   PSSH_P=32          parallel-ssh's and parallel-scp's -p (Ansible's forks)
#   TOOL_TIMEOUT=900   seconds a tool may take for one size before it is
#                      stopped (its row then says what it got done)
#   KEEP=DIR           keep fleetmark's run directory of each size (run
#                      with -v, its stderr in err) as DIR/fleetmark-N
#
# Sizes up to 1,000 (the lab's -n); from 100 on the lab raises the kernel's
# neighbour table while it is up.  The lab's own memory (MemAvailable before
# and after lab up) is printed to stderr, and so is the time lab up took.
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
FLEETMARK=${FLEETMARK:-$TOP/build/fleetmark}
AGENT_BIN=$TOP/build/agents/x86_64/fleetmark-agent
SIZES=("${@:-1 8 32 64}")
read -ra SIZES <<<"${SIZES[*]}"
TOOLS=${TOOLS:-fleetmark pssh ansible bare}
BARE_K=${BARE_K:-2 8 32}
PSSH_P=${PSSH_P:-32}
TOOL_TIMEOUT=${TOOL_TIMEOUT:-900}
KEEP=${KEEP:-}
FMLEVEL=-q
[ -n "$KEEP" ] && FMLEVEL=-v
[ "$(id -u)" -eq 0 ] || { echo "fanout.sh: needs root (the lab)" >&2; exit 2; }
if [ ! -x "$FLEETMARK" ] || [ ! -x "$AGENT_BIN" ]; then echo "fanout.sh: run make && make agents" >&2; exit 2; fi
for t in $TOOLS; do
	case $t in
	pssh) command -v parallel-ssh >/dev/null || { echo "apt-get install pssh" >&2; exit 2; } ;;
	ansible*) command -v ansible >/dev/null || { echo "apt-get install ansible-core" >&2; exit 2; } ;;
	esac
done
LAB=$TOP/tests/lab/lab
export FLEETMARK_LAB_DIR=/run/fleetmark-lab
LABDIR=$FLEETMARK_LAB_DIR
W=$(mktemp -d /tmp/fanout.XXXXXX)
trap '"$LAB" down >/dev/null 2>&1; rm -rf "$W"' EXIT
max=0
for n in "${SIZES[@]}"; do [ "$n" -gt "$max" ] && max=$n; done
avail() { awk '$1 == "MemAvailable:" {print int($2 / 1024)}' /proc/meminfo; }
echo "lab up -n $max (no boards)..." >&2
m0=$(avail) t0=$SECONDS
"$LAB" up -n "$max" --boards none >"$W/up.log" 2>&1 || { cat "$W/up.log"; exit 1; }
sleep 2
echo "lab up -n $max: $((SECONDS - t0)) s, $((m0 - $(avail))) MB of memory taken" >&2
case " $TOOLS " in *" bare "*)
	# shellcheck disable=SC2046 # pkg-config prints several words
	cc -O2 -o "$W/bare" "$TOP/tests/bench/bare-libssh.c" $(pkg-config --cflags --libs libssh) -lpthread || exit 1
	k=''
	for b in $BARE_K; do k="$k bare-$b"; done
	TOOLS=${TOOLS/bare/${k# }}
	;;
esac

logins() { grep -cE 'Accepted publickey' "$LABDIR/hosts/$1/sshd.log" 2>/dev/null; }
total_logins() { local h s=0; for h in "$@"; do s=$((s + $(logins "$h"))); done; echo "$s"; }
# The CPU ticks the hosts' ssh servers' children have used (a session's
# processes are counted once the server has reaped them).
hosts_ticks() {
	local h p s=0 st
	for h in "$@"; do
		read -r p <"$LABDIR/hosts/$h/sshd.pid" 2>/dev/null || continue
		read -r st <"/proc/$p/stat" 2>/dev/null || continue
		st=${st##*) }
		read -ra st <<<"$st"
		s=$((s + st[13] + st[14]))
	done
	echo "$s"
}
HZ=$(getconf CLK_TCK)
# The trials of plans/smoke.yaml, as one shell command for pssh and Ansible.
AG=/tmp/fanout-agent/fleetmark-agent
# (stdin from /dev/null on the host: the agent's `run` ends when a piped
# stdin closes, and pssh and Ansible give it one that is closed at once)
SMOKE="for r in 1 2; do $AG run lat_syscall op=null --samples 5 </dev/null && $AG run lat_syscall op=read --samples 5 </dev/null && $AG run lat_pipe --samples 5 </dev/null || exit 1; done"

# Every host's address, as the lab's /etc/hosts names them.
declare -A ADDR
while read -r a h; do [[ $h == lab-[0-9]* ]] && ADDR[$h]=$a; done < <(grep -E '^198\.18\.' "$LABDIR/etc-hosts")
# run a tool for at most TOOL_TIMEOUT s (and everything it started)
bounded() { timeout -k 10 "$TOOL_TIMEOUT" "$@"; }

printf '%-10s %5s %9s %8s %12s %9s %9s %11s %10s\n' tool hosts wall_s ok logins/host ctl_cpu_s peak_MB hosts_cpu_s gap_ms
for n in "${SIZES[@]}"; do
	hosts=()
	for i in $(seq 1 "$n"); do hosts+=("$(printf 'lab-%02d' "$i")"); done
	csv=$(IFS=,; echo "${hosts[*]}")
	printf '%s\n' "${hosts[@]}" >"$W/hosts.txt"
	for tool in $TOOLS; do
		# a fresh work directory on every host: every tool deploys for real
		for h in "${hosts[@]}"; do rm -rf "$LABDIR/hosts/$h/tmp/"fanout* "$LABDIR/hosts/$h/tmp/fleetmark"; done
		rm -f "$W/time"
		before=$(total_logins "${hosts[@]}")
		ticks=$(hosts_ticks "${hosts[@]}")
		gap=-
		case $tool in
		fleetmark)
			sed 's|^  workdir: .*||' "$LABDIR/fleet.yaml" >"$W/fleet.yaml"
			rm -rf "$W/res"
			bounded /usr/bin/time -f '%e %U %S %M' -o "$W/time" "$FLEETMARK" "$FMLEVEL" run "$TOP/plans/smoke.yaml" \
				-f "$W/fleet.yaml" -H "$csv" -o "$W/res" >"$W/out" 2>"$W/err"
			if [ -n "$KEEP" ]; then
				rm -rf "$KEEP/fleetmark-$n"
				mkdir -p "$KEEP" && cp -r "$W/res" "$KEEP/fleetmark-$n" && cp "$W/err" "$KEEP/fleetmark-$n/err"
			fi
			ok=$(jq '[.hosts[] | select(.status == "done" and .failed == 0)] | length' "$W"/res/*/run.json 2>/dev/null || echo 0)
			gap=$(jq -r -s 'group_by(.host)[] | sort_by(.start) | unique_by(.key) | sort_by(.start) |
				[range(1; length) as $i | (.[$i].start - .[$i - 1].start - .[$i - 1].duration) * 1000] | .[]' \
				"$W"/res/*/trials.jsonl 2>/dev/null | sort -g | awk '{v[NR] = $1} END {if (NR) printf "%.1f", v[int((NR + 1) / 2)]; else print "-"}')
			;;
		pssh)
			# Each step on every host, whatever the last one did on a few:
			# the last step's successes are the hosts that got through.
			cat >"$W/pssh.sh" <<P
parallel-ssh -h "$W/hosts.txt" -x "-F $LABDIR/ssh_config" -p $PSSH_P -t 120 -o "$W/p1" "mkdir -p /tmp/fanout-agent" >/dev/null
parallel-scp -h "$W/hosts.txt" -x "-F $LABDIR/ssh_config" -p $PSSH_P -t 120 "$AGENT_BIN" "$AG" >/dev/null
parallel-ssh -h "$W/hosts.txt" -x "-F $LABDIR/ssh_config" -p $PSSH_P -t 300 -o "$W/pout" "$SMOKE" >"$W/pssh.status"
P
			rm -rf "$W/pout" "$W/p1"
			bounded /usr/bin/time -f '%e %U %S %M' -o "$W/time" bash "$W/pssh.sh" >"$W/out" 2>"$W/err"
			ok=$(grep -c '\[SUCCESS\]' "$W/pssh.status" 2>/dev/null)
			;;
		ansible | ansible-default)
			# ansible: 32 forks like pssh; ansible-default: Ansible's default 5
			forks=$PSSH_P
			[ "$tool" = ansible-default ] && forks=5
			{ echo "[lab]"; printf '%s\n' "${hosts[@]}"; } >"$W/inv"
			export ANSIBLE_SSH_ARGS="-F $LABDIR/ssh_config -o ControlMaster=auto -o ControlPersist=60s" ANSIBLE_HOST_KEY_CHECKING=True \
				ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3 ANSIBLE_LOCALHOST_WARNING=False
			cat >"$W/ans.sh" <<P
set -e
ansible lab -i "$W/inv" -f $forks -m file -a "path=/tmp/fanout-agent state=directory" >/dev/null
ansible lab -i "$W/inv" -f $forks -m copy -a "src=$AGENT_BIN dest=$AG mode=0755" >/dev/null
ansible lab -i "$W/inv" -f $forks -m shell -a "$SMOKE" >"$W/ans.out"
P
			bounded /usr/bin/time -f '%e %U %S %M' -o "$W/time" bash "$W/ans.sh" >"$W/out" 2>"$W/err"
			ok=$(grep -c '| CHANGED |' "$W/ans.out" 2>/dev/null)
			;;
		bare-*)
			specs=()
			for h in "${hosts[@]}"; do specs+=("$h:${ADDR[$h]}"); done
			bounded /usr/bin/time -f '%e %U %S %M' -o "$W/time" "$W/bare" "${tool#bare-}" "$LABDIR/id_ed25519" \
				"$LABDIR/known_hosts" "$AGENT_BIN" "$AG" "$SMOKE" "${specs[@]}" >"$W/bare.out" 2>"$W/err"
			ok=$(sed -n 's|^ok \([0-9]*\)/.*|\1|p' "$W/bare.out")
			;;
		esac
		read -r wall user sys rss < <(tail -1 "$W/time") || { wall=0 user=0 sys=0 rss=0; }
		after=$(total_logins "${hosts[@]}")
		sleep 1	# the last sessions reaped
		ticks=$(($(hosts_ticks "${hosts[@]}") - ticks))
		printf '%-10s %5d %9.1f %8s %12.1f %9.2f %9.1f %11.1f %10s\n' "$tool" "$n" "$wall" "$ok/$n" \
			"$(awk -v a="$after" -v b="$before" -v n="$n" 'BEGIN {print (a - b) / n}')" \
			"$(awk -v u="$user" -v s="$sys" 'BEGIN {print u + s}')" "$(awk -v r="$rss" 'BEGIN {print r / 1024}')" \
			"$(awk -v t="$ticks" -v hz="$HZ" 'BEGIN {print t / hz}')" "$gap"
	done
done
