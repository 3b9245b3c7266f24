#!/usr/bin/env bash
# t300-hosts-check: the transports against the lab fleet.
#
# `fleetmark hosts --check` reaches every lab host (OpenSSH as root and as
# bench, dropbear, both qemu boards, lab-inner through its ProxyJump) with
# one login each; host keys are verified (a rekeyed host fails with
# OpenSSH's message, accept-new records each key once even from two
# concurrent runs, `no` accepts anything and records unknown keys, as
# OpenSSH does; t302 compares each case with the ssh client); a killed,
# a partitioned and a hung host fail with their class without stalling
# the others.  A small driver linked with the controller's objects uploads
# 1 MB to a server, the dropbear host and a board (verified by cksum), and
# sends values full of shell metacharacters through sh_quote() to the
# hosts, which must print them back literally and run nothing.
# With $FLEETMARK_LAB set (tests/run) that lab is used and every fault is
# healed; otherwise the test brings up a lab of its own and removes it.
# cost: 34 s, waiting; lab: all
# shellcheck disable=SC2317 # functions called through check and trap
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_command hosts

use_lab t300
D=$LABDIR
NH=${#HOSTS[@]}


# col FILE HOST N: the N-th column of HOST's row in a hosts --check table.
col() { awk -v h="$2" -v n="$3" '$1 == h { print $n; exit }' "$1"; }
# rows_ok FILE: every host's REACH column says ok.
rows_ok() {
	local h bad=''
	for h in "${HOSTS[@]}"; do [ "$(col "$1" "$h" 4)" = ok ] || bad="$bad $h"; done
	[ -z "$bad" ] || { diag "not ok:$bad"; sed 's/^/#   /' "$1"; return 1; }
}

# --- listing: no connection at all --------------------------------------------

count_before
"$FLEETMARK" hosts -f "$D/fleet.yaml" >"$WORK/list.out" 2>"$WORK/list.err"
rc=$?
is "$rc $(($(wc -l <"$WORK/list.out") - 1))" "0 $NH" "hosts lists the $NH lab hosts"
like "$(grep '^lab-inner ' "$WORK/list.out")" "198\.19\.0\.3 +22 +root +ssh +x86_64,inner +root@198\.18\.4\.1" \
	"hosts shows address, port, user, transport, labels and the jump"
is "$("$FLEETMARK" hosts -f "$D/fleet.yaml" -H @board | awk 'NR > 1 { print $1 }' | xargs)" \
	"board-armhf board-s390x" "-H @board selects the boards"
is "$(login_deltas | tr ' ' '\n' | grep -vc ':0$')" 0 "listing logs in nowhere"
"$FLEETMARK" hosts -f "$D/fleet.yaml" -H lab-99 >/dev/null 2>"$WORK/err"
like "$? $(cat "$WORK/err")" "^2 .*unknown host 'lab-99'" "an unknown host is a usage error (exit 2)"

# --- every host, as root: one login each ----------------------------------------

count_before
t0=$(date +%s%N)
"$FLEETMARK" -v hosts --check -f "$D/fleet.yaml" >"$WORK/root.out" 2>"$WORK/root.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
diag "hosts --check of $NH hosts: $ms ms; $(grep -o 'pacer:.*' "$WORK/root.err")"
sed 's/^/#   /' "$WORK/root.out"
is "$rc" 0 "hosts --check -f fleet.yaml exits 0"
check "every host is reached, host key known, logged in" rows_ok "$WORK/root.out"
is "$(login_deltas)" "$(want_deltas)" "one login per host (lab-jump also relays lab-inner)"
arch_ok() {
	local h want
	for h in "${HOSTS[@]}"; do
		case $h in
		board-armhf) want=armv7l ;;
		board-s390x) want=s390x ;;
		*) want=$(uname -m) ;;
		esac
		[ "$(col "$WORK/root.out" "$h" 7)" = "$want" ] || { diag "$h: arch $(col "$WORK/root.out" "$h" 7), want $want"; return 1; }
		[[ $(col "$WORK/root.out" "$h" 8) =~ ^[1-9][0-9]*$ ]] || { diag "$h: no cpu count"; return 1; }
		[ "$(col "$WORK/root.out" "$h" 9)" = "$(uname -r)" ] || { diag "$h: kernel"; return 1; }
	done
}
check "arch (armv7l and s390x on the boards), cpus and kernel for every host" arch_ok
is "$(col "$WORK/root.out" lab-inner 5) $(col "$WORK/root.out" lab-db 6)" "known publickey" \
	"lab-inner through the jump and lab-db (dropbear) check their keys and log in"

# --- as bench ----------------------------------------------------------------------

"$FLEETMARK" hosts --check -f "$D/fleet-bench.yaml" >"$WORK/bench.out" 2>"$WORK/bench.err"
is "$?" 0 "hosts --check -f fleet-bench.yaml exits 0"
check "every host is reached as bench (boards as root)" rows_ok "$WORK/bench.out"
is "$(col "$WORK/bench.out" lab-01 3) $(col "$WORK/bench.out" lab-db 3) $(col "$WORK/bench.out" lab-inner 3) $(col "$WORK/bench.out" board-armhf 3)" \
	"bench bench bench root" "bench on servers, dropbear and behind the jump; root on boards"

# --- a changed host key ---------------------------------------------------------------

fault rekey lab-03
"$FLEETMARK" hosts --check -f "$D/fleet.yaml" >"$WORK/rekey.out" 2>"$WORK/rekey.err"
rc=$?
is "$rc $(col "$WORK/rekey.out" lab-03 4) $(col "$WORK/rekey.out" lab-03 5)" "3 hostkey changed" \
	"rekey lab-03: exit 3, lab-03 fails with class hostkey"
like "$(grep '^  lab-03: ' "$WORK/rekey.out")" \
	'^  lab-03: hostkey: WARNING: REMOTE HOST IDENTIFICATION HAS CHANGED! host key for lab-03 \(198\.18\.1\.3\) has changed and host_key_check is yes: the ED25519 key sent by the remote host is SHA256:[A-Za-z0-9+/]{43}; offending ED25519 key in .*known_hosts:[0-9]+' \
	"... with OpenSSH's message, the fingerprint and the offending line"
is "$(awk 'NR > 1 && NF > 3 && $4 == "ok"' "$WORK/rekey.out" | wc -l)" "$((NH - 1))" "... while the other $((NH - 1)) hosts succeed"
"$LAB" heal lab-03

# --- accept-new: two runs at once record each key once ------------------------------

: >"$WORK/kh"
sed -e "s#^  known_hosts: .*#  known_hosts: $WORK/kh#" -e 's/^  host_key_check: yes/  host_key_check: accept-new/' \
	"$D/fleet.yaml" >"$WORK/accept-new.yaml"
"$FLEETMARK" hosts --check -f "$WORK/accept-new.yaml" >"$WORK/an1.out" 2>"$WORK/an1.err" &
"$FLEETMARK" hosts --check -f "$WORK/accept-new.yaml" >"$WORK/an2.out" 2>"$WORK/an2.err"
rc2=$?
wait $!
rc1=$?
is "$rc1 $rc2" "0 0" "accept-new, two concurrent runs on an empty known_hosts: both exit 0"
is "$(wc -l <"$WORK/kh") $(sort "$WORK/kh" | uniq -d | wc -l)" "$NH 0" "known_hosts gained $NH lines, no duplicate"
is "$(sort "$WORK/kh" | sha256sum)" "$(sort "$D/known_hosts" | sha256sum)" "... exactly the lab's keys, lab-jump's once"
is "$(cat "$WORK/an1.out" "$WORK/an2.out" | awk '$5 == "new"' | wc -l)" "$NH" "each key reported new by exactly one of the runs"
"$FLEETMARK" hosts --check -f "$WORK/accept-new.yaml" >"$WORK/an3.out" 2>&1
is "$? $(awk 'NR > 1 && $5 == "known"' "$WORK/an3.out" | wc -l) $(wc -l <"$WORK/kh")" "0 $NH $NH" \
	"a third run finds every key known and adds nothing"

# --- no: anything goes; unknown keys are recorded (as OpenSSH does) ---------------------

fault rekey lab-02
sed -e "s#^  known_hosts: .*#  known_hosts: $WORK/none/kh#" -e 's/^  host_key_check: yes/  host_key_check: no/' \
	"$D/fleet.yaml" >"$WORK/no.yaml"
"$FLEETMARK" hosts --check -f "$WORK/no.yaml" >"$WORK/no.out" 2>&1
rc=$?
is "$rc $(awk 'NR > 1 && $4 == "ok" && $5 == "unchecked"' "$WORK/no.out" | wc -l)" "0 $NH" \
	"host_key_check: no accepts every key, the rekeyed lab-02's too"
is "$(wc -l <"$WORK/none/kh") $(sort "$WORK/none/kh" | uniq -d | wc -l)" "$NH 0" \
	"... and records the keys it did not know (all $NH: the file was empty), as ssh does, each once"
"$LAB" heal lab-02

# --- dead, partitioned and hung hosts do not stall the others ----------------------------

sed -e 's/^  connect_timeout: .*/  connect_timeout: 3s/' "$D/fleet.yaml" >"$WORK/t3.yaml"
fault kill lab-04
fault partition lab-05
fault hang lab-06
count_before
t0=$(date +%s%N)
"$FLEETMARK" hosts --check -f "$WORK/t3.yaml" >"$WORK/faults.out" 2>"$WORK/faults.err"
rc=$?
ms=$((($(date +%s%N) - t0) / 1000000))
sed 's/^/#   /' "$WORK/faults.out"
is "$rc" 3 "kill, partition and hang: exit 3"
like "$(col "$WORK/faults.out" lab-04 4) $(grep '^  lab-04: ' "$WORK/faults.out")" \
	'^connect +lab-04: connect: connect to lab-04 \(198\.18\.1\.4\) port 22: Connection refused' \
	"killed lab-04: class connect, connection refused"
like "$(col "$WORK/faults.out" lab-05 4) $(grep '^  lab-05: ' "$WORK/faults.out")" \
	'^timeout +lab-05: timeout: connect to lab-05 .* Connection timed out' "partitioned lab-05: class timeout"
like "$(col "$WORK/faults.out" lab-06 4) $(grep '^  lab-06: ' "$WORK/faults.out")" \
	'^timeout +lab-06: timeout: .*timed out during banner exchange' "hung lab-06: class timeout during banner exchange"
t5=$(col "$WORK/faults.out" lab-05 11)
t5=${t5%s}
awk -v t="$t5" 'BEGIN { exit !(t >= 2.9 && t <= 4) }'
tap_result $? "lab-05 gave up after its 3 s connect timeout (${t5} s)"
[ "$ms" -lt 8000 ]
tap_result $? "the whole check took ${ms} ms: the slowest host's timeout, not a sum"
is "$(awk 'NR > 1 && NF > 3 && $4 == "ok"' "$WORK/faults.out" | wc -l)" "$((NH - 3))" "the $((NH - 3)) other hosts succeed"
d=$(login_deltas)
is "$(echo "$d" | tr ' ' '\n' | grep -E '^lab-0[456]:' | xargs)" "lab-04:0 lab-05:0 lab-06:0" "no login reached the faulty hosts"
for h in lab-04 lab-05 lab-06; do "$LAB" heal "$h"; done

# --- transient failures are retried -------------------------------------------------------

# Twelve names for the dropbear host, which closes more than a few
# unauthenticated connections from one address: those are retried.
if has_host lab-db; then
	# ... with accept-new on an empty known_hosts: the key is recorded once.
	: >"$WORK/kh12"
	{
		sed -e "s#^  known_hosts: .*#  known_hosts: $WORK/kh12#" \
			-e 's/^  host_key_check: yes/  host_key_check: accept-new/' "$D/fleet.yaml" |
			sed -n '/^defaults:/,/^hosts:/p'
		for i in $(seq -w 1 12); do printf '  db-%s:\n    address: 198.18.2.1\n' "$i"; done
	} >"$WORK/db12.yaml"
	n0=$(logins lab-db)
	"$FLEETMARK" -v hosts --check -f "$WORK/db12.yaml" >"$WORK/db12.out" 2>"$WORK/db12.err"
	rc=$?
	diag "$(grep -c 'retrying in' "$WORK/db12.err") dropped handshakes retried; $(grep -o 'pacer:.*' "$WORK/db12.err")"
	is "$rc $(awk 'NR > 1 && $4 == "ok"' "$WORK/db12.out" | wc -l) $(($(logins lab-db) - n0))" "0 12 12" \
		"12 sessions to one dropbear at once: all succeed (dropped handshakes retried), 12 logins"
	is "$(wc -l <"$WORK/kh12") $(awk 'NR > 1 && $5 == "new"' "$WORK/db12.out" | wc -l)" "1 1" \
		"... under accept-new its key is recorded once, and reported new once"
fi

# --- the driver: uploads and quoting through real transports -----------------------------

cat >"$WORK/drv.c" <<'EOF'
/* t300 driver: open one host of a fleet once, then run the operations. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fleet.h"
#include "pace.h"
#include "shquote.h"
#include "transport.h"
#include "xmalloc.h"

static int
unhex(const char *h, char *out)
{
	size_t n = 0;
	unsigned v;

	for (; h[0] && h[1]; h += 2) {
		if (sscanf(h, "%2x", &v) != 1)
			return -1;
		out[n++] = (char)v;
	}
	out[n] = '\0';
	return (int)n;
}

int
main(int argc, char **argv)
{
	struct fleet *f = NULL;
	const struct fleet_host *h;
	struct transport_opts o;
	struct transport *t = NULL;
	struct transport_result res;
	char *err = NULL;
	int i, r;

	if (argc < 3 || fleet_load(argv[1], &f, &err) != 0 || (h = fleet_find(f, argv[2])) == NULL) {
		fprintf(stderr, "usage: drv FLEET HOST OP... (%s)\n", err ? err : "no such host");
		return 2;
	}
	memset(&o, 0, sizeof(o));
	o.name = h->name;
	o.local = h->transport == FLEET_TRANSPORT_LOCAL;
	o.address = h->address;
	o.port = h->port;
	o.user = h->user;
	o.identity = h->identity;
	o.known_hosts = h->known_hosts;
	o.host_key_check = (enum transport_hostkey)h->host_key_check;
	o.connect_timeout_ms = h->connect_timeout_ms;
	o.ssh_config = h->ssh_config;
	o.ssh_config_path = h->ssh_config_path;
	o.proxy_jump = h->proxy_jump;
	if (getenv("T300_KEEPALIVE_MS") != NULL)
		o.keepalive_ms = atoll(getenv("T300_KEEPALIVE_MS"));
	if ((r = transport_open(&o, &t, NULL, &err)) != 0) {
		printf("open fail %s %s\n", transport_class(r), err);
		return 1;
	}
	printf("open ok\n");
	for (i = 3; i < argc; i++) {
		if (strncmp(argv[i], "upload:", 7) == 0) {
			char *local = xstrdup(argv[i] + 7), *remote = strchr(local, ':');

			*remote++ = '\0';
			r = transport_upload_file(t, local, remote, 0755, 120000);
			printf("upload %s %s\n", r == 0 ? "ok" : transport_class(r),
			    r == 0 ? "" : transport_error(t));
			free(local);
		} else if (strncmp(argv[i], "echo:", 5) == 0) {
			char *val = xmalloc(strlen(argv[i]));
			const char *av[4] = { "printf", "%s", val, NULL };
			char *cmd;
			int n = unhex(argv[i] + 5, val);

			cmd = sh_join(av, -1);
			r = transport_run(t, cmd, NULL, 0, 0, 30000, &res);
			printf("echo %s\n", r == 0 && res.exit.status == 0 && (int)res.outlen == n &&
			    memcmp(res.out, val, (size_t)n) == 0 ? "ok" : "bad");
			transport_result_release(&res);
			free(cmd);
			free(val);
		} else if (strcmp(argv[i], "stream") == 0) {
			/* The channel API: input, EAGAIN vs EOF, exit, flow control. */
			struct tchan *c = NULL;
			char buf[8192];
			int from = 0, ok1, ok2, ok3, ok4;
			ssize_t n;
			long long total = 0;

			r = tchan_open(t, "cat; echo done >&2", 4096, 30000, &c);
			ok1 = r == 0 && tchan_write(c, "hello\n", 6, 10000) == 0 &&
			    tchan_read(c, TCHAN_STDOUT, &from, buf, sizeof(buf), 10000) == 6 &&
			    from == TCHAN_STDOUT && memcmp(buf, "hello\n", 6) == 0;
			ok2 = ok1 && tchan_read(c, TCHAN_ANY, NULL, buf, sizeof(buf), 300) == TRANSPORT_EAGAIN;
			ok3 = ok2 && tchan_close_stdin(c) == 0 &&
			    tchan_read(c, TCHAN_STDERR, NULL, buf, sizeof(buf), 10000) == 5 &&
			    memcmp(buf, "done\n", 5) == 0 &&
			    tchan_read(c, TCHAN_ANY, NULL, buf, sizeof(buf), 10000) == 0 &&
			    tchan_wait(c, 10000, NULL) == 0 && tchan_exit_info(c)->status == 0;
			tchan_free(c);
			printf("stream echo %s\n", ok1 && ok2 && ok3 ? "ok" : "bad");
			/* 3 MB through a 4 KB buffer: held back at the host, none lost. */
			r = tchan_open(t, "head -c 3000000 /dev/zero", 4096, 30000, &c);
			while (r == 0 && (n = tchan_read(c, TCHAN_STDOUT, NULL, buf, sizeof(buf), 30000)) > 0)
				total += n;
			ok4 = r == 0 && n == 0 && tchan_dropped(c, TCHAN_STDOUT) == 0 &&
			    tchan_wait(c, 10000, NULL) == 0;
			tchan_free(c);
			printf("stream flow %s %lld\n", ok4 ? "ok" : "bad", total);
			r = transport_run(t, "kill -TERM $$", NULL, 0, 0, 30000, &res);
			printf("stream signal %d %d %s\n", r, res.exit.status, res.exit.signal);
			transport_result_release(&res);
		} else if (strncmp(argv[i], "idle:", 5) == 0) {
			/* Wait on a silent command; a dead peer must show as ELOST. */
			struct tchan *c = NULL;
			char buf[64];
			long long t0;

			r = tchan_open(t, "sleep 120", 0, 30000, &c);
			printf("idle started\n");
			fflush(stdout);
			t0 = pace_now_ms();
			if (r == 0)
				r = (int)tchan_read(c, TCHAN_ANY, NULL, buf, sizeof(buf), atoi(argv[i] + 5));
			printf("idle %s %lld\n", transport_class(r), pace_now_ms() - t0);
			tchan_free(c);
		} else if (strncmp(argv[i], "run:", 4) == 0) {
			r = transport_run(t, argv[i] + 4, NULL, 0, 0, 30000, &res);
			for (size_t k = 0; k < res.outlen; k++)
				if (res.out[k] == '\n')
					res.out[k] = ' ';
			printf("run %d %d %s\n", r, res.exit.status, res.out);
			transport_result_release(&res);
		}
	}
	transport_close(t);
	fleet_free(f);
	return 0;
}
EOF
# the controller's objects but main.o, in its folders too, as the unit tests link them
read -ra OBJS < <(make -s -C "$TOP" print-CTL_LIB_OBJS)
OBJS=("${OBJS[@]/#/$TOP/}")
# shellcheck disable=SC2046 # the libraries are a list of flags
if gcc -std=c11 -D_GNU_SOURCE -I"$TOP/include" -o "$WORK/drv" "$WORK/drv.c" "${OBJS[@]}" \
	$(make -s -C "$TOP" print-CTL_LIBS) 2>"$WORK/cc.err"; then
	tap_result 0 "driver built against the controller's objects"
else
	tap_result 1 "driver built against the controller's objects"
	sed 's/^/# /' "$WORK/cc.err" | head -20
fi

head -c 1048576 /dev/urandom >"$WORK/1m.bin"
read -r want_crc want_size < <(cksum <"$WORK/1m.bin")
want_sha=$(sha256sum <"$WORK/1m.bin" | cut -d' ' -f1)
hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }
MARK=/tmp/t300-pwned
VALUES=(
	"\$(touch $MARK)" "\`touch $MARK\`" "; touch $MARK" "x' ; touch $MARK ; '" "x\"; touch $MARK; \""
	"a b	c" $'line1\nline2; touch '"$MARK" "\$HOME \${IFS} * ? ~ !" "'" "" $'\xff\xfe non-UTF-8 \xc3' "|& > $MARK"
)
OPS=()
for v in "${VALUES[@]}"; do OPS+=("echo:$(hex "$v")"); done

for h in lab-01 lab-db board-armhf lab-inner; do
	has_host "$h" || continue
	count_before
	up=()
	[ "$h" != lab-inner ] && up=("upload:$WORK/1m.bin:/tmp/t300 up.bin" "upload:$WORK/1m.bin:/nonexistent-dir/x")
	"$WORK/drv" "$D/fleet.yaml" "$h" "${up[@]}" "${OPS[@]}" \
		"run:f=/tmp/'t300 up.bin'; if command -v cksum >/dev/null; then cksum <\"\$f\"; else sha256sum <\"\$f\"; wc -c <\"\$f\"; fi; ls -l /tmp/'t300 up.bin' | cut -c1-10; test -e $MARK && echo RAN || echo clean; rm -f /tmp/'t300 up.bin'" \
		>"$WORK/drv-$h.out" 2>"$WORK/drv-$h.err"
	out=$WORK/drv-$h.out
	is "$(head -1 "$out")" "open ok" "$h: driver logs in"
	if [ "$h" != lab-inner ]; then
		is "$(sed -n 2p "$out")" "upload ok " "$h: 1 MB uploaded through an exec channel and verified by cksum"
		like "$(sed -n 3p "$out")" "^upload deploy upload to $h:/nonexistent-dir/x" "$h: upload into a missing directory fails (deploy)"
		like "$(grep '^run ' "$out")" "^run 0 0 ($want_crc $want_size|$want_sha +- +$want_size) -rwxr-xr-x clean" \
			"$h: the file there has the same cksum (sha256sum on busybox) and mode 0755"
	else
		like "$(grep '^run ' "$out")" "^run 0 0 .*clean" "$h: through the jump"
	fi
	is "$(grep -c '^echo ok$' "$out")/$(grep -c '^echo ' "$out")" "${#VALUES[@]}/${#VALUES[@]}" \
		"$h: ${#VALUES[@]} values with shell metacharacters come back literally"
	is "$(grep '^run ' "$out" | grep -ow 'RAN\|clean')" clean "$h: and none of them ran (no $MARK there)"
	is "$(login_deltas | tr ' ' '\n' | grep "^$h:")" "$h:1" "$h: all of it in one login"
done

# --- exec channels on real servers ---------------------------------------------------

for h in lab-07 lab-db board-s390x; do
	has_host "$h" || continue
	"$WORK/drv" "$D/fleet.yaml" "$h" stream >"$WORK/stream-$h.out" 2>&1
	is "$(grep '^stream echo' "$WORK/stream-$h.out")" "stream echo ok" \
		"$h: channel: input echoed, a read times out (EAGAIN) while it runs, EOF and exit 0 after input closes"
	is "$(grep '^stream flow' "$WORK/stream-$h.out")" "stream flow ok 3000000" \
		"$h: 3 MB through a 4 KB channel buffer, flow-controlled, nothing dropped"
	is "$(grep '^stream signal' "$WORK/stream-$h.out")" "stream signal 0 -1 TERM" \
		"$h: a command killed by SIGTERM reports exit signal TERM"
done

# A partition under an open session: keepalives (1 s here) find it dead.
touched+=(lab-08)
T300_KEEPALIVE_MS=1000 "$WORK/drv" "$D/fleet.yaml" lab-08 idle:20000 >"$WORK/idle.out" 2>&1 &
drv=$!
for _ in $(seq 100); do grep -q '^idle started' "$WORK/idle.out" && break; sleep 0.1; done
"$LAB" partition lab-08
wait "$drv"
read -r _ cls ms < <(grep '^idle ' "$WORK/idle.out" | grep -v '^idle started')
"$LAB" heal lab-08
[ "${cls:-}" = connect ] && [ "${ms:-99999}" -lt 12000 ]
tap_result $? "lab-08 partitioned under an idle session: connection lost (class ${cls:-?}) after ${ms:-?} ms, not the 20 s read timeout"

done_testing
