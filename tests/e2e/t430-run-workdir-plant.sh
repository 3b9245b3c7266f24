#!/usr/bin/env bash
# t430-run-workdir-plant: another user of a host cannot get root to run a
# program of theirs through fleetmark's work directory.  On lab-01, as
# nobody, a work directory is made before root's run, with a planted
# fleetmark-agent (a script that leaves a marker file) where a source-built
# agent would be cached (src/SUM/agent/, SUM computed as fleetmark does),
# and a symbolic link to a file of root's at every name the upload's
# temporary file once had (PATH.tmp.PID, every PID of the host).  Root's
# run must never run the plant (no marker) nor write through a link (the
# file unchanged), and either run from a work directory of its own, saying
# whose and what mode the planted one had, or fail `deploy` naming the
# directory, its owner and its mode.  Also: root's own work directory with
# mode 0777 is not used either.  About 12 s (three small runs).
# cost: 9 s, busy; lab: lab-01
# shellcheck disable=SC2317 # functions called through trap
TNAME=t430
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab jq python3

use_lab "$TNAME"
H=lab-01
has_host "$H" || skip_all "no $H in the lab"
W=/tmp/fm-t430
MARK=/tmp/fm-t430-marker
VICTIM=/tmp/fm-t430-victim

# host_clean: nothing of this test left on the host.
host_clean() { on_host "$H" "rm -rf $W $W-0 $MARK $VICTIM"; }
trap 'host_clean; _lab_cleanup' EXIT

# as_nobody: the shell script on stdin run on the host as nobody.
as_nobody() {
	"$LAB" ssh "$H" 'setpriv --reuid=65534 --regid=65534 --clear-groups sh -s' >/dev/null 2>&1
}

# The SHA-256 prefix of the agent's source archive, as the deploy makes it
# (agent/*.c *.h Makefile, agent/bench/ and include/wire.h in name order,
# ustar, mode 0644, owner 0, a fixed time, two zero blocks at the end), from
# the tree the fleetmark binary under test runs from.
src_sum() {
	python3 - "$1" <<'PY'
import hashlib, os, sys
top, t = sys.argv[1], bytearray()
for sub in ('agent', 'agent/bench', 'include'):
    for name in sorted(n for n in os.listdir(os.path.join(top, sub)) if n[0] != '.'):
        if (sub == 'include' and name != 'wire.h') or not (name == 'Makefile' or
                (len(name) > 2 and name[-2] == '.' and name[-1] in 'ch')):
            continue
        data = open(os.path.join(top, sub, name), 'rb').read()
        h, n = bytearray(512), ('%s/%s' % (sub, name)).encode()
        h[0:len(n)] = n
        h[100:136] = b'%07o\0%07o\0%07o\0%011o\0' % (0o644, 0, 0, len(data))
        h[136:148] = b'%011o\0' % 1700000000
        h[156], h[257:265], h[148:156] = ord('0'), b'ustar\0' + b'00', b' ' * 8
        h[148:156] = b'%06o\0 ' % sum(h)
        t += h + data + bytes(-len(data) % 512)
print(hashlib.sha256(t + bytes(1024)).hexdigest()[:16])
PY
}
SRC=$(cd "$(dirname "$FLEETMARK")/.." && pwd)
SSUM=$(src_sum "$SRC")
mkdir -p "$WORK/agents/x86_64"
cp "$AGENT" "$WORK/agents/x86_64/fleetmark-agent"
ASUM=$(sha256sum <"$AGENT" | cut -c1-16)
diag "source archive $SSUM (from $SRC), prebuilt agent $ASUM"

cat >"$WORK/plan.yaml" <<'P'
name: plant
repeat: 1
samples: 1
timeout: 30s
benchmarks:
  - bench: lat_syscall
P
# fleet MODE: lab-01 alone, work directory $W, `agent: MODE`.
fleet() {
	sed -n '/^defaults:/,/^hosts:/p' "$LABDIR/fleet.yaml"
	printf '  %s:\n    address: 198.18.1.1\n    workdir: %s\n    agent: %s\n' "$H" "$W" "$1"
}
# run NAME MODE: root's run against the planted host; $rc, $log (host log).
run() {
	fleet "$2" >"$WORK/$1.yaml"
	FLEETMARK_AGENTS=$WORK/agents "$FLEETMARK" run "$WORK/plan.yaml" -f "$WORK/$1.yaml" \
		-o "$WORK/$1" >"$WORK/$1.out" 2>"$WORK/$1.err"
	rc=$?
	log=$(cat "$(run_dir "$WORK/$1")/logs/$H.log" 2>/dev/null)
}
# plant_src DIR: as nobody, a fleetmark-agent that leaves a marker, where
# a built agent is cached in DIR.
plant_src() {
	as_nobody <<EOF
mkdir -p $1/src/$SSUM/agent
cat > $1/src/$SSUM/agent/fleetmark-agent <<'T'
#!/bin/sh
echo "ran as \$(id -u): \$*" >> $MARK
exit 1
T
chmod 755 $1/src/$SSUM/agent/fleetmark-agent
EOF
}

# --- 1. links at every temporary name of the upload (prebuilt agent) -----------------
host_clean
on_host "$H" "echo victim > $VICTIM"
as_nobody <<EOF
mkdir -p $W/agents/$ASUM
perl -e 'symlink("$VICTIM", "$W/agents/$ASUM/fleetmark-agent.tmp.\$_") for 1 .. 32768'
EOF
is "$(on_host "$H" "ls $W/agents/$ASUM | wc -l")" 32768 "nobody's $W holds a link at every PATH.tmp.PID"
t0=$(date +%s%N)
run links prebuilt
ms=$((($(date +%s%N) - t0) / 1000000))
is "$(on_host "$H" "if [ \"\$(cat $VICTIM)\" = victim ]; then echo intact; else
	echo overwritten, \$(wc -c <$VICTIM) bytes now; fi")" intact "root's upload wrote through no planted link (${ms} ms)"
is "$rc" 0 "the run succeeds all the same"
like "$log" "the work directory $W is not this user's to use \\($W belongs to uid 65534 and has mode drwxr-xr-x\\): using $W-0" \
	"... from a work directory of root's own, the host's log says why (owner and mode)"
is "$(on_host "$H" "ls -ldn $W-0 $W-0/agents $W-0/agents/$ASUM $W-0/scratch-0 2>&1" |
	awk '$3 != 0 || substr($1, 6, 1) == "w" || substr($1, 9, 1) == "w"')" "" \
	"... which is root's and no one else's to write"

# --- 2. a planted built agent, in the work directory and in WORKDIR-UID -------------
host_clean
plant_src "$W"
plant_src "$W-0"
is "$(on_host "$H" "stat -c '%u %a' $W/src/$SSUM/agent/fleetmark-agent $W-0/src/$SSUM/agent/fleetmark-agent" | xargs)" \
	"65534 755 65534 755" "nobody planted an agent in $W/src/$SSUM and $W-0/src/$SSUM"
t0=$(date +%s%N)
run planted source
ms=$((($(date +%s%N) - t0) / 1000000))
is "$(on_host "$H" "cat $MARK 2>/dev/null")" "" "root's run did not run the planted agent (${ms} ms)"
is "$rc $(jq -r ".hosts[\"$H\"].status" "$(run_dir "$WORK/planted")/run.json")" "3 failed" \
	"the run fails on that host"
like "$(cat "$WORK/planted.err")" \
	"deploy: $H: no work directory there can be trusted: $W belongs to uid 65534 and has mode drwxr-xr-x, and $W-0 belongs to uid 65534 and has mode drwxr-xr-x" \
	"... at deploy, naming each directory, its owner and its mode"

# --- 3. root's own work directory, writable by everyone ------------------------------
host_clean
on_host "$H" "mkdir $W && chmod 777 $W"
plant_src "$W"
# a good agent built before in root's own WORKDIR-UID, to be taken as it is
"$LAB" ssh "$H" "mkdir -p $W-0/src/$SSUM/agent && cat > $W-0/src/$SSUM/agent/fleetmark-agent &&
	chmod 755 $W-0/src/$SSUM/agent/fleetmark-agent" <"$AGENT" 2>/dev/null
t0=$(date +%s%N)
run open source
ms=$((($(date +%s%N) - t0) / 1000000))
is "$(on_host "$H" "cat $MARK 2>/dev/null")" "" "root's 0777 work directory: the agent planted in it did not run (${ms} ms)"
is "$rc" 0 "the run succeeds"
like "$log" "\\($W belongs to uid 0 and has mode drwxrwxrwx\\): using $W-0" \
	"... from its own WORKDIR-UID, the host's log says why"
like "$log" "agent for Linux x86_64 at $W-0/src/$SSUM/agent/fleetmark-agent \\(already there\\)" \
	"... with the agent built there before"

done_testing
