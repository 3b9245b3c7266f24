#!/usr/bin/env bash
# t204-cli-ab-usage: `fleetmark ab` refuses what it cannot run before the
# first reboot, with the exit status and message docs/ab.md gives (2 for
# bad usage or input: a side missing, a kexec side of bad syntax, a boot:
# entry a host lacks, a host named twice, --boots below 2,
# an unknown order, a plan or fleet error at FILE:LINE:COL, an unknown
# host; a resume of what is not an ab directory), runs no side command and
# writes nothing; --dry-run prints each host's sequence in the order asked
# for, and writes nothing either; without --boots, the boots a side are
# what the hosts' qualification records say the plan's rows need (up to
# 12).  A resume runs nothing its ab.json says:
# without -A and -B, with a side that is not the one recorded (a tampered
# ab.json), with an ab.json or directory others can write, an ab.json of
# 1 GB, one that lacks a member or whose boot's run leaves the directory,
# or with an option ab.json records (-H, --boots...), it is refused before
# anything runs; ab.json's plan name is escaped in the message.  No lab,
# no board.
# cost: 1 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
W=$(mktemp -d)
O=$(mktemp -d)	# each command's output, outside the watched tree
trap 'rm -rf "$W" "$O"' EXIT
mkdir -p "$W/run"
cp "$TOP/tests/data/plan-ok.yaml" "$TOP/tests/data/fleet-ok.yaml" "$W/run/"
cp "$TOP/tests/data/bad/plan-bad-int.yaml" "$TOP/tests/data/bad/fleet-bad-port.yaml" "$W/run/"
cd "$W/run" || exit 1
# A side command that ran would leave this file behind.
SIDE="touch $W/run/side-ran"
# The side a tampered ab.json says: it would leave its own mark.
EVIL="touch $W/run/evil-ran"

# abdir DIR SIDE-A: an ab directory as `ab` leaves it after an interrupted
# first boot of host alpha (docs/ab.md, "On disk"), side B "$SIDE".
abdir() {
	mkdir -m 755 "$1"
	cat >"$1/ab.json" <<-EOF
	{"format": 1, "start": "2026-12-07T10:00:00Z", "plan": "$W/run/plan-ok.yaml",
	 "plan_name": "ok", "plan_seed": 1, "fleet": "$W/run/fleet-ok.yaml",
	 "hosts": ["alpha"],
	 "sides": {"A": {"command": "$2", "label": "A", "expect": null},
	           "B": {"command": "$SIDE", "label": "B", "expect": null}},
	 "order": "abba", "seed": 1, "boots_per_side": 2, "threshold": 5.0,
	 "sequences": {"alpha": [
	   {"boot": 1, "side": "A", "block": 0, "state": "running"},
	   {"boot": 2, "side": "B", "block": 0, "state": "pending"},
	   {"boot": 3, "side": "B", "block": 1, "state": "pending"},
	   {"boot": 4, "side": "A", "block": 1, "state": "pending"}]}}
	EOF
	chmod 644 "$1/ab.json"
}
abdir "$W/ab-good" "$SIDE"
abdir "$W/ab-tampered" "$EVIL"
abdir "$W/ab-0666" "$SIDE"
chmod 666 "$W/ab-0666/ab.json"
abdir "$W/ab-dir0777" "$SIDE"
chmod 777 "$W/ab-dir0777"
# ab.json without its plan, and one whose plan_name carries an escape
# sequence and a tab: each written in place, so their modes stay 0644.
abdir "$W/ab-noplan" "$SIDE"
sed -i 's|"plan": "[^"]*",||' "$W/ab-noplan/ab.json"
abdir "$W/ab-planname" "$SIDE"
sed -i 's|"plan_name": "ok"|"plan_name": "ok\\u001b[2J\\tx"|' "$W/ab-planname/ab.json"
# A done boot whose run points out of the ab directory.
abdir "$W/ab-runout" "$SIDE"
sed -i 's|"state": "running"}|"state": "done", "run": "boots/../../run"}|' \
	"$W/ab-runout/ab.json"

# Every name, mode, size, time and content.
snapshot() {
	(cd "$W" && find . -printf '%p %m %s %T@\n' | sort &&
		find . -type f -exec sha256sum {} + | sort)
}
before=$(snapshot)

# refuse CODE MESSAGE DESCRIPTION ARGS...: ab ARGS exits CODE, says MESSAGE
# (a fixed string) on stderr, prints nothing on stdout.
refuse() {
	local code=$1 msg=$2 desc=$3
	shift 3
	"$FLEETMARK" ab "$@" >"$O/out" 2>"$O/err"
	is "$?" "$code" "$desc: exit $code"
	if grep -qF -- "$msg" "$O/err"; then
		tap_result 0 "$desc: says so"
	else
		tap_result 1 "$desc: says so"
		sed 's/^/#   /' "$O/err" | head -5
	fi
	is "$(cat "$O/out")" "" "$desc: nothing on stdout"
}

refuse 2 "give both sides: -A SIDE and -B SIDE" "no -B" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -o res
refuse 2 "give both sides: -A SIDE and -B SIDE" "no -A" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha -B "$SIDE" -o res
refuse 2 "give the hosts: -H HOSTS" "no -H" \
	plan-ok.yaml -f fleet-ok.yaml -A "$SIDE" -B "$SIDE" -o res
refuse 2 "-H alpha,beta,alpha: host 'alpha' is named twice" "a host named twice" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha,beta,alpha -A "$SIDE" -B "$SIDE" -o res
refuse 2 "--boots: expected a number from 2 to 99, not '1'" "--boots 1" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -B "$SIDE" --boots 1 -o res
refuse 2 "--order: expected abba, alternate or random, not 'aabb'" "an unknown order" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -B "$SIDE" --order aabb -o res
refuse 2 "plan-bad-int.yaml:5:14: parameter pages of munmap: '8x' is not an integer" \
	"a plan error" plan-bad-int.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -B "$SIDE" -o res
refuse 2 "fleet-bad-port.yaml:4:11: 70000 is out of range (1 to 65535)" "a fleet error" \
	plan-ok.yaml -f fleet-bad-port.yaml -H alpha -A "$SIDE" -B "$SIDE" -o res
refuse 2 "-H: unknown host 'gamma'" "an unknown host" \
	plan-ok.yaml -f fleet-ok.yaml -H gamma -A "$SIDE" -B "$SIDE" -o res
refuse 2 "is not an ab directory (no ab.json)" "--resume of a directory without ab.json" \
	--resume "$W/run" -A "$SIDE" -B "$SIDE"
refuse 2 "unknown format 'xml' (text, md, csv, json, html)" "--format xml" \
	plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -B "$SIDE" --format xml -o res
refuse 2 "-B 'kexec:/boot/vmlinuz,inird=/boot/initrd.img': kexec: unknown option 'inird'" \
	"a kexec side of bad syntax" plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" \
	-B kexec:/boot/vmlinuz,inird=/boot/initrd.img -o res
refuse 2 "-A 'kexec:vmlinuz': kexec: the kernel 'vmlinuz' is not an absolute path" \
	"a kexec side with a relative kernel" plan-ok.yaml -f fleet-ok.yaml -H alpha \
	-A kexec:vmlinuz -B "$SIDE" -o res
refuse 2 "-B good: host 'alpha' has no boot: entry 'good' in fleet-ok.yaml" \
	"a boot: entry a host lacks" plan-ok.yaml -f fleet-ok.yaml -H alpha,beta -A "$SIDE" \
	-B good -o res

# --resume: the sides again, those recorded, from an ab.json the user owns.
refuse 2 "--resume $W/ab-good: give both sides again: -A SIDE and -B SIDE" \
	"--resume without -A and -B" --resume "$W/ab-good"
refuse 2 "--resume $W/ab-good: give both sides again: -A SIDE and -B SIDE" \
	"--resume without -B" --resume "$W/ab-good" -A "$SIDE"
refuse 2 "$W/ab-tampered/ab.json: side A is not the -A given" \
	"--resume of an ab.json whose side A was changed" \
	--resume "$W/ab-tampered" -A "$SIDE" -B "$SIDE"
refuse 2 "$W/ab-good/ab.json: side B is not the -B given" \
	"--resume with another -B than the one recorded" \
	--resume "$W/ab-good" -A "$SIDE" -B "$EVIL"
refuse 2 "$W/ab-0666/ab.json: writable by group or others (mode 0666): not trusted" \
	"--resume of an ab.json others can write" \
	--resume "$W/ab-0666" -A "$SIDE" -B "$SIDE"
refuse 2 "$W/ab-dir0777: writable by group or others (mode 0777): not trusted" \
	"--resume of an ab directory others can write" \
	--resume "$W/ab-dir0777" -A "$SIDE" -B "$SIDE"
if [ "$(id -u)" = 0 ]; then
	cp -a "$W/ab-good" "$O/ab-other"
	chown 65534 "$O/ab-other/ab.json"
	refuse 2 "$O/ab-other/ab.json: owned by uid 65534, neither you nor root" \
		"--resume of another user's ab.json" \
		--resume "$O/ab-other" -A "$SIDE" -B "$SIDE"
else
	skip "--resume of another user's ab.json" "needs root to chown"
	skip "... says so" "needs root"
	skip "... nothing on stdout" "needs root"
fi
# An ab.json of 1 GB (sparse) is not read whole.
abdir "$O/ab-huge" "$SIDE"
truncate -s 1G "$O/ab-huge/ab.json"
refuse 2 "$O/ab-huge/ab.json: larger than 16777216 bytes: not an ab.json" \
	"--resume of an ab.json of 1 GB" --resume "$O/ab-huge" -A "$SIDE" -B "$SIDE"
is "$(stat -c %s "$O/ab-huge/ab.json")" 1073741824 "... left as it was"
# Each member is checked before it is used.
refuse 2 "$W/ab-noplan/ab.json: not an ab.json of format 1: \"plan\" or \"plan_name\" \
missing or not a string" "--resume of an ab.json without its plan" \
	--resume "$W/ab-noplan" -A "$SIDE" -B "$SIDE"
refuse 2 "$W/ab-runout/ab.json: not an ab.json of format 1: a boot's \"run\" is not a \
directory of boots/" "--resume of an ab.json whose run leaves the directory" \
	--resume "$W/ab-runout" -A "$SIDE" -B "$SIDE"
# The recorded plan name as text from a file: its controls (the tab too) as \xNN.
refuse 2 "$W/ab-planname: the plan is 'ok\\x1b[2J\\x09x', not 'ok'" \
	"--resume of another plan: ab.json's name escaped" \
	--resume "$W/ab-planname" -A "$SIDE" -B "$SIDE"
# What a resume takes from ab.json is not given again.
for opt in "-H alpha" "--label-a A" "--label-b B" "--expect-a 6.6" "--expect-b 6.7" \
	"--boots 2" "--order abba" "--threshold 5%" "-o res"; do
	# shellcheck disable=SC2086 # the option and its value, two words
	refuse 2 "--resume $W/ab-good: ${opt%% *} is not taken on a resume: the recorded \
ones are used" "--resume with ${opt%% *}" --resume "$W/ab-good" -A "$SIDE" -B "$SIDE" $opt
done
# The same directory with the sides recorded is taken up (--dry-run: and
# left as it is): the refusals above are the checks', not the file's.
"$FLEETMARK" ab --resume "$W/ab-good" -A "$SIDE" -B "$SIDE" --dry-run >"$O/out" 2>"$O/err"
is "$?" 0 "--resume with the sides recorded: exit 0"
is "$(cat "$O/out")" "dry run: $W/ab-good is taken up from each host's first boot not done" \
	"... taken up"

# --dry-run: each host's sequence, abba by default; alternate when asked.
"$FLEETMARK" ab plan-ok.yaml -f fleet-ok.yaml -H alpha,beta -A "$SIDE" -B "$SIDE" \
	--boots 3 -o res --dry-run >"$O/out" 2>"$O/err"
is "$?" 0 "--dry-run: exit 0"
is "$(grep -E '^(alpha|beta):' "$O/out")" "alpha: A B B A A B
beta: A B B A A B" "--dry-run: abba, 3 boots a side, per host"
like "$(cat "$O/out")" "machine time: .* at most about [0-9]+ s" "--dry-run: the machine time"
"$FLEETMARK" ab plan-ok.yaml -f fleet-ok.yaml -H alpha -A "$SIDE" -B "$SIDE" \
	--order alternate --boots 2 -o res --dry-run >"$O/out" 2>"$O/err"
is "$(grep -E '^alpha:' "$O/out")" "alpha: A B A B" "--dry-run --order alternate"

# Without --boots, the hosts' qualifications choose: alpha's row needs 4
# boots a side to see 5% (its pair sd 0.02: 3 pairs detect 6.58%, 4 pairs
# 4.56%, by the noncentral t computed with mpmath), beta's 5 (0.025: 5.73%
# and 4.65%); alpha's second row would need more than 12 and is left to
# its warning.
mkdir -p "$O/q/qualify"
qrow() { printf '{"bench":"lat_syscall","metric":"%s","params":"op=null","pair_sd":%s,"alpha":0.05}' "$1" "$2"; }
echo "{\"date\":\"2026-12-01T00:00:00Z\",\"rows\":[$(qrow latency 0.02),$(qrow other 0.5)]}" \
	>"$O/q/qualify/alpha.json"
echo "{\"date\":\"2026-12-01T00:00:00Z\",\"rows\":[$(qrow latency 0.025)]}" >"$O/q/qualify/beta.json"
"$FLEETMARK" ab plan-ok.yaml -f fleet-ok.yaml -H alpha,beta -A "$SIDE" -B "$SIDE" \
	-o "$O/q" --dry-run >"$O/out" 2>"$O/err"
is "$?" 0 "qualified hosts, no --boots: --dry-run exit 0"
like "$(cat "$O/err")" "5 boots a side, from the hosts' qualifications" "it says where its boots come from"
is "$(grep -E '^alpha:' "$O/out")" "alpha: A B B A A B B A A B" "... 5 boots a side: the most a row needs"
like "$(cat "$O/err")" "alpha: lat_syscall.other op=null: 5 boots a side detect .*more than 1000 boots a side would" \
	"the row that needs more than 12 is warned about"
check_fail "... and the rows 5 boots see are not" grep -q "lat_syscall.latency" "$O/err"
"$FLEETMARK" ab plan-ok.yaml -f fleet-ok.yaml -H alpha,beta -A "$SIDE" -B "$SIDE" \
	-o "$O/q" --boots 3 --dry-run >"$O/out" 2>"$O/err"
is "$(grep -E '^alpha:' "$O/out")" "alpha: A B B A A B" "--boots 3 is taken as given"
like "$(cat "$O/err")" "alpha: lat_syscall.latency op=null: 3 boots a side detect 6.6%, not the threshold 5%; 4 boots a side would" \
	"... with a warning for the row 3 boots cannot see"
check_fail "... and no word of qualifications choosing" grep -q "from the hosts' qualifications" "$O/err"

# A row whose A/A variance was moderated (prior_df 50) is predicted on its
# test's 50 + n - 1 df: pair sd 0.025 then needs 3 boots a side, 2
# detecting 6.07% and 3 4.93% (mpmath's noncentral t), where on its own
# df it needs 5.
mkdir -p "$O/m/qualify"
echo "{\"date\":\"2026-12-01T00:00:00Z\",\"rows\":[{\"bench\":\"lat_syscall\",\"metric\":\"latency\",\"params\":\"op=null\",\"pair_sd\":0.025,\"alpha\":0.05,\"prior_df\":50}]}" \
	>"$O/m/qualify/beta.json"
"$FLEETMARK" ab plan-ok.yaml -f fleet-ok.yaml -H beta -A "$SIDE" -B "$SIDE" \
	-o "$O/m" --boots 2 --dry-run >"$O/out" 2>"$O/err"
like "$(cat "$O/err")" "beta: lat_syscall.latency op=null: 2 boots a side detect 6.1%, not the threshold 5%; 3 boots a side would" \
	"a moderated row: its boots on the prior's df too"

is "$(snapshot)" "$before" "nothing written, no side command run"
check_fail "the tampered side did not run" test -e "$W/run/evil-ran"
check_fail "no side ran" test -e "$W/run/side-ran"
done_testing
