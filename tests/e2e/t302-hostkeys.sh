#!/usr/bin/env bash
# t302-hostkeys: host key checking behaves as OpenSSH's.  For each state
# of known_hosts -- the right key, none (unknown), another key of the same
# type (changed), only keys of other types for the host (other: the host
# sends ed25519, known_hosts has rsa and ecdsa; and the reverse, an extra
# server on lab-04 port 2222 that sends ecdsa while known_hosts has only
# ed25519) -- and each policy (yes, accept-new, no), the real ssh client
# and `fleetmark hosts --check` are run against the same host from copies
# of the same known_hosts: both accept or both refuse, and both leave the
# same lines in known_hosts.  Then accept-new with 16 host entries for one
# address, checked by two processes at once, records the key exactly once.
# An identity file with mode 0644 is refused by both (libssh itself does
# not check; fleetmark applies OpenSSH's rule).
# cost: 20 s, busy; lab: lab-03 lab-04 lab-05
# shellcheck disable=SC2317 # functions called through trap
TNAME=t302
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_lab ssh ssh-keygen
[ -x /usr/sbin/sshd ] || skip_all "needs sshd"

use_lab "$TNAME"
L=$LABDIR
A=198.18.1.4
XPID=''
X=''
trap '[ -n "$XPID" ] && kill "$XPID" 2>/dev/null; [ -n "$X" ] && rm -rf "$X"; _lab_cleanup' EXIT

# Keys known_hosts may hold instead of the hosts' own.
ssh-keygen -q -t ed25519 -N '' -f "$WORK/other_ed25519" >/dev/null
ssh-keygen -q -t rsa -b 2048 -N '' -f "$WORK/other_rsa" >/dev/null
ssh-keygen -q -t ecdsa -N '' -f "$WORK/other_ecdsa" >/dev/null
ssh-keygen -q -t ecdsa -N '' -f "$WORK/x_ecdsa" >/dev/null
pub() { cut -d' ' -f1,2 "$1"; }
HOSTPUB=$(pub "$L/hosts/lab-04/host_key.pub")

# A second server on lab-04, port 2222, that offers only an ecdsa key.  It
# runs in the host's own namespaces (network and mounts, entered through
# its server's pid), so that its sessions see the host's private /root
# and /tmp as the first server's do, not this machine's: a login shell
# reading this machine's root dotfiles can take any time (a stale lock of
# a version manager's rehash held every session here for 60 s).  Its
# files are in the lab's state directory, which the host sees.
X=$L/hosts/lab-04/t302-second
mkdir -p "$X"
cp "$WORK/x_ecdsa" "$WORK/x_ecdsa.pub" "$X/"
sed -e "s#^Port 22#Port 2222#" -e "s#^HostKey .*#HostKey $X/x_ecdsa#" \
	-e "s#^PidFile .*#PidFile $X/x.pid#" "$L/hosts/lab-04/sshd_config" >"$X/x_sshd_config"
nsenter -t "$(cat "$L/hosts/lab-04/sshd.pid")" -m -n /usr/sbin/sshd -f "$X/x_sshd_config" \
	-E "$X/x.log" || { echo "Bail out! cannot start the second sshd"; exit 1; }
for _ in $(seq 50); do [ -s "$X/x.pid" ] && break; sleep 0.1; done
XPID=$(cat "$X/x.pid")

# kh STATE PORT: the known_hosts contents of a state, for port 22 or 2222.
kh() {
	local n=$A
	[ "$2" = 22 ] || n="[$A]:$2"
	case $1 in
	known) [ "$2" = 22 ] && echo "$n $HOSTPUB" || echo "$n $(pub "$WORK/x_ecdsa.pub")" ;;
	unknown) : ;;
	changed) [ "$2" = 22 ] && echo "$n $(pub "$WORK/other_ed25519.pub")" || echo "$n $(pub "$WORK/other_ecdsa.pub")" ;;
	other) if [ "$2" = 22 ]; then
		echo "$n $(pub "$WORK/other_rsa.pub")"
		echo "$n $(pub "$WORK/other_ecdsa.pub")"
	else
		echo "$n $HOSTPUB"
	fi ;;
	esac
	echo "198.18.1.3 $(pub "$L/hosts/lab-03/host_key.pub")"	# someone else's line
}

# OpenSSH's verdict: "accept" or "refuse".
ssh_verdict() {	# KNOWN_HOSTS POLICY PORT
	ssh -F /dev/null -o UserKnownHostsFile="$1" -o GlobalKnownHostsFile=/dev/null \
		-o StrictHostKeyChecking="$2" -o UpdateHostKeys=no -o BatchMode=yes -o CheckHostIP=no \
		-o IdentityFile="$L/id_ed25519" -o IdentitiesOnly=yes -o IdentityAgent=none \
		-o ConnectTimeout=5 -p "$3" "root@$A" true </dev/null >/dev/null 2>>"$WORK/ssh.err" &&
		echo accept || echo refuse
}
fm_verdict() {	# KNOWN_HOSTS POLICY PORT
	cat >"$WORK/fleet.yaml" <<F
defaults:
  user: root
  identity: $L/id_ed25519
  known_hosts: $1
  host_key_check: $2
  connect_timeout: 5s
  ssh_config: false
hosts:
  target:
    address: $A
    port: $3
F
	"$FLEETMARK" hosts --check -f "$WORK/fleet.yaml" >"$WORK/fm.out" 2>>"$WORK/fm.err" &&
		echo accept || echo refuse
}
# The lines of a known_hosts as "name type key", sorted.
lines() { awk 'NF >= 3 {print $1, $2, $3}' "$1" 2>/dev/null | sort; }

for port in 22 2222; do
	for state in known unknown changed other; do
		for pol in yes accept-new no; do
			kh "$state" "$port" >"$WORK/kh.ssh"
			cp "$WORK/kh.ssh" "$WORK/kh.fm"
			want=$(ssh_verdict "$WORK/kh.ssh" "$pol" "$port")
			got=$(fm_verdict "$WORK/kh.fm" "$pol" "$port")
			is "$got" "$want" "port $port, $state key, $pol: fleetmark and ssh both $want"
			[ "$got" = "$want" ] || sed 's/^/#   /' "$WORK/fm.out" | tail -2
			is "$(lines "$WORK/kh.fm")" "$(lines "$WORK/kh.ssh")" "... and leave the same known_hosts"
		done
	done
done

# --- an identity file others may read is refused, as by OpenSSH -------------------

cp "$L/id_ed25519" "$WORK/loose_key"
chmod 644 "$WORK/loose_key"
ssh -F /dev/null -o UserKnownHostsFile="$L/known_hosts" -o GlobalKnownHostsFile=/dev/null -o BatchMode=yes \
	-o IdentityFile="$WORK/loose_key" -o IdentitiesOnly=yes -o IdentityAgent=none -o ConnectTimeout=5 \
	"root@$A" true </dev/null >/dev/null 2>"$WORK/loose.ssh"
is "$?" 255 "ssh refuses an identity with mode 0644"
like "$(cat "$WORK/loose.ssh")" "UNPROTECTED PRIVATE KEY FILE" "... saying it is unprotected"
sed -e "s#^  identity: .*#  identity: $WORK/loose_key#" "$L/fleet.yaml" >"$WORK/loose.yaml"
"$FLEETMARK" hosts --check -f "$WORK/loose.yaml" -H lab-04 >"$WORK/loose.out" 2>&1
is "$?" 3 "fleetmark refuses it too: exit 3"
like "$(cat "$WORK/loose.out")" "auth: .*identity $WORK/loose_key: permissions 0644 are too open" "... class auth, saying why"
chmod 600 "$WORK/loose_key"
"$FLEETMARK" hosts --check -f "$WORK/loose.yaml" -H lab-04 >"$WORK/loose.out" 2>&1
is "$?" 0 "... and takes it once it is 0600"

# --- accept-new: many sessions to one host at once ---------------------------------

: >"$WORK/kh16"
{
	printf 'defaults:\n  user: root\n  identity: %s\n  known_hosts: %s\n' "$L/id_ed25519" "$WORK/kh16"
	printf '  host_key_check: accept-new\n  connect_timeout: 10s\n  ssh_config: false\nhosts:\n'
	for i in $(seq -w 1 16); do printf '  n-%s:\n    address: 198.18.1.5\n' "$i"; done
} >"$WORK/many.yaml"
"$FLEETMARK" hosts --check -f "$WORK/many.yaml" >"$WORK/m1.out" 2>&1 &
p1=$!
"$FLEETMARK" hosts --check -f "$WORK/many.yaml" >"$WORK/m2.out" 2>&1
rc2=$?
wait $p1
rc1=$?
is "$rc1 $rc2" "0 0" "accept-new, 2 processes x 16 entries for one address on an empty known_hosts: both exit 0"
is "$(lines "$WORK/kh16")" "198.18.1.5 $(pub "$L/hosts/lab-05/host_key.pub")" "... the key is recorded exactly once"
is "$(cat "$WORK/m1.out" "$WORK/m2.out" | awk '$5 == "new"' | wc -l)" 1 "... and reported new once"

done_testing
