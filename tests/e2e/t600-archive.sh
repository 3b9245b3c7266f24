#!/usr/bin/env bash
# t600-archive: `fleetmark push`, `ls` and `pull` against a file:// archive
# and a real nginx WebDAV server on loopback (tests/lab/archive): round
# trips with every sum verified (the pulled tree equals the original, and
# `fleetmark report` on it prints the same tables); pushing twice is
# harmless; a run without a manifest is not listed; credentials from the
# config file (refused when others may read it) and from the URL, a wrong
# password is a clear error, and the password appears nowhere; a corrupted
# and a truncated file on the server fail the pull, naming the file, and
# leave nothing behind; a server answering 500 is retried, then a clear
# error; nginx killed in the middle of a push of a 60 MB run leaves no
# listed run, and the next push completes it; SIGINT stops a pull cleanly.
# A host's qualification in the WebDAV archive (qualify/HOST.json) warns a
# judged run that pushes there, and is not listed as a run.
# cost: 20 s, waiting
# shellcheck disable=SC2317 # functions called through check
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
"$FLEETMARK" help push >/dev/null 2>&1 || skip_all "$FLEETMARK has no push command"
command -v nginx >/dev/null || skip_all "needs nginx (tools/deps: nginx-light)"
[ -r /usr/lib/nginx/modules/ngx_http_dav_ext_module.so ] ||
	skip_all "needs libnginx-mod-http-dav-ext (tools/deps)"
ARCH=$TOP/tests/lab/archive
W=$(mktemp -d /tmp/t600.XXXXXX)
SRV=$W/srv
trap '"$ARCH" stop "$SRV" >/dev/null 2>&1; rm -rf "$W"' EXIT
chmod 755 "$W"	# nginx's workers (nobody) serve from under it
cd "$W" || exit 1
export XDG_CONFIG_HOME=$W/cfg XDG_CACHE_HOME=$W/cache NO_COLOR=1
unset FLEETMARK_CONFIG

# same_tree A B: the files of run A and of pulled B are equal (B has a MANIFEST more).
same_tree() {
	diff -r -x MANIFEST "$1" "$2" >&2 && [ -s "$2/MANIFEST" ]
}
# same_report A B: `fleetmark report` prints the same tables for both.
same_report() {
	"$FLEETMARK" report "$1" >"$W/ra" 2>/dev/null && "$FLEETMARK" report "$2" >"$W/rb" 2>/dev/null &&
		[ -s "$W/ra" ] && cmp -s "$W/ra" "$W/rb"
}
leftovers() { find "$1" -maxdepth 1 -name '.*pull-*' | wc -l; }

# --- run directories: a fresh smoke run and a fixture -------------------------

"$FLEETMARK" -q run "$TOP/plans/smoke.yaml" -o "$W/results" >/dev/null 2>&1 ||
	{ echo "Bail out! fleetmark run plans/smoke.yaml failed"; exit 1; }
RUN=$(run_dir "$W/results")
ID=${RUN##*/}
cp -r "$TOP/tests/data/report/munmap-base" "$W/results/20011129-120000-munmap-0001"
FIX=$W/results/20011129-120000-munmap-0001
FID=${FIX##*/}

# --- file:// --------------------------------------------------------------------

FA=file://$W/fa
run_fm push1 push "$RUN" "$FA"
is "$rc" 0 "push RUNDIR file://: exit 0"
check "the manifest is uploaded, with the version header" grep -qx 'fleetmark-manifest 1' "$W/fa/$ID/MANIFEST"
run_fm ls1 ls "$FA"
is "$rc $(cat ls1.out)" "0 $ID" "ls file:// lists the run"
run_fm pull1 pull "$FA/$ID" "$W/pf"
is "$rc" 0 "pull file://URL/RUNID DIR: exit 0"
check "pulled tree equals the original" same_tree "$RUN" "$W/pf"
check "report on the pulled run equals report on the original" same_report "$RUN" "$W/pf"
m1=$(stat -c %Y.%s "$W/fa/$ID/MANIFEST")
sleep 1
run_fm push2 push "$RUN" "$FA"
is "$rc $(stat -c %Y.%s "$W/fa/$ID/MANIFEST")" "0 $m1" "pushing again: exit 0, the archive untouched"
like "$(cat push2.err)" "already in" "... saying the run is already there"
run_fm pull2 pull "$FA/$ID" "$W/pf"
is "$rc" 0 "pulling onto the same run again: exit 0"
mkdir -p "$W/other" && echo x >"$W/other/f"
run_fm pull3 pull "$FA/$ID" "$W/other"
is "$rc $(cat "$W/other/f")" "1 x" "pulling onto another directory: exit 1, it is left alone"
like "$(cat pull3.err)" "already exists" "... saying it exists"

# --- WebDAV ---------------------------------------------------------------------

U=$("$ARCH" start "$SRV") || { echo "Bail out! tests/lab/archive start failed"; exit 1; }
PORT=$(cat "$SRV/port")
DATA=$SRV/data
PW=$(cat "$SRV/password")
mkdir -p "$W/cfg/fleetmark"
cat >"$W/cfg/fleetmark/config.yaml" <<EOF
archive:
  tries: 3
webdav:
  - url: $U/auth/runs
    user: bench
    password: "$PW"
EOF
chmod 600 "$W/cfg/fleetmark/config.yaml"

D=$U/dav/runs
run_fm dpush1 push "$RUN" "$D"
is "$rc" 0 "push to WebDAV: exit 0"
run_fm dpush2 push "$FID" "$D" --results "$W/results"
is "$rc" 0 "push a run id under --results: exit 0"
run_fm dls1 ls "$D"
is "$rc $(tr '\n' ' ' <dls1.out)" "0 $FID $ID " "ls lists both runs, oldest id first"
run_fm dpull1 pull "$D/$ID/" "$W/pd"
is "$rc" 0 "pull from WebDAV (URL/RUNID/): exit 0"
check "pulled tree equals the original" same_tree "$RUN" "$W/pd"
check "report on the pulled run equals report on the original" same_report "$RUN" "$W/pd"
(cd "$W" && "$FLEETMARK" pull "$D/$FID" >pull-def.out 2>pull-def.err)
is "$?" 0 "pull without DIR: exit 0"
check "... into ./RUNID, equal to the original" same_tree "$FIX" "$W/$FID"
check "... and its report is the same" same_report "$FIX" "$W/$FID"
run_fm dpush3 push "$RUN" "$D"
is "$rc" 0 "pushing the same run twice: exit 0"
like "$(cat dpush3.err)" "already in" "... nothing sent again"
is "$(grep -c ' "PUT ' "$SRV/logs/access.log")" "$(( $(find "$RUN" "$FIX" -type f | wc -l) + 2 ))" \
	"the server saw one PUT per file and manifest, none for the second push"

# a run without a manifest is incomplete
mkdir -p "$DATA/dav/runs/20011201-000000-partial-0000"
cp "$RUN/run.json" "$DATA/dav/runs/20011201-000000-partial-0000/"
chown -R nobody:nogroup "$DATA/dav/runs" 2>/dev/null
run_fm dls2 ls "$D"
is "$rc $(tr '\n' ' ' <dls2.out)" "0 $FID $ID " "a run without a manifest is not listed"
run_fm dpull2 pull "$D/20011201-000000-partial-0000" "$W/pp"
is "$rc $(test -e "$W/pp" && echo there || echo none)" "1 none" "pulling it fails and writes nothing"
like "$(cat dpull2.err)" "incomplete" "... saying it is incomplete"
run_fm dls3 ls "$U/dav/nothing-here"
is "$rc $(wc -c <dls3.out)" "0 0" "ls of an archive that does not exist yet: no runs"

# a host's qualification beside the runs (qualify --push puts it there): a
# judged run that pushes to the archive reads it over WebDAV; ls lists runs
mkdir -p "$DATA/dav/qruns/qualify"
printf '{"date":"2026-12-02T00:00:00Z","rows":[{"bench":"exec","metric":"seconds","params":"command=true,copies=1","night_detectable":8.35,"boots_needed":6,"nights_needed":12}]}' \
	>"$DATA/dav/qruns/qualify/local.json"
chown -R nobody:nogroup "$DATA/dav/qruns" 2>/dev/null
printf 'name: t600q\nrepeat: 1\nsamples: 1\nbenchmarks:\n  - bench: exec\n    params:\n      command: "true"\n      copies: 1\nregression:\n  threshold: 5%%\n' \
	>"$W/judged.yaml"
run_fm dq1 run "$W/judged.yaml" -o "$W/qres" --push "$U/dav/qruns"
is "$rc" 0 "a judged run pushing to WebDAV: exit 0"
like "$(cat dq1.err)" "local: exec.seconds command=true,copies=1: a night detects 8.3%.* \(qualified 2026-12-02T00:00:00Z, $U/dav/qruns\)" \
	"... warned by the host's qualification in the archive"
run_fm dls4 ls "$U/dav/qruns"
is "$rc $(wc -w <dls4.out)" "0 1" "ls lists the run pushed, not the qualifications"

# --- credentials ------------------------------------------------------------------

A=$U/auth/runs
run_fm apush push "$RUN" "$A"
is "$rc" 0 "push with the config file's credentials: exit 0"
run_fm als ls "$A"
is "$rc $(cat als.out)" "0 $ID" "ls with them"
run_fm apull pull "$A/$ID" "$W/pa"
check "pull with them: the tree equals the original" same_tree "$RUN" "$W/pa"
run_fm aurl ls "http://bench:$PW@127.0.0.1:$PORT/auth/runs"
is "$rc $(cat aurl.out)" "0 $ID" "credentials in the URL work too"
run_fm awrong ls "http://bench:wrong-$PW@127.0.0.1:$PORT/auth/runs"
is "$rc" 1 "a wrong password: exit 1"
like "$(cat awrong.err)" "HTTP 401 \(authentication failed" "... saying authentication failed"
run_fm awrong2 pull "http://bench:x$PW@127.0.0.1:$PORT/auth/runs/$ID" "$W/pw"
is "$rc $(test -e "$W/pw" && echo there || echo none)" "1 none" "a wrong password on pull: exit 1, nothing written"
chmod 644 "$W/cfg/fleetmark/config.yaml"
run_fm aperm ls "$A"
is "$rc" 2 "a config file readable by others: exit 2"
like "$(cat aperm.err)" "config.yaml: permissions 0644 are too open" "... naming the file and its mode"
chmod 600 "$W/cfg/fleetmark/config.yaml"
run_fm anone ls "http://127.0.0.1:$PORT/auth/other"
is "$rc" 1 "no credentials for that URL: exit 1 (401)"
found=$(grep -rlF --exclude-dir=cfg --exclude-dir=srv -- "$PW" "$W" 2>/dev/null)
is "$found" "" "the password is nowhere: run dirs, pulled runs, cache, stdout, stderr"
is "$(grep -cF -- "$PW" "$SRV/logs/access.log" "$SRV/logs/error.log" | grep -vc ':0$')" "0" \
	"... nor in the server's logs (it was never in a URL sent)"

# --- a damaged archive --------------------------------------------------------------

# corrupt one byte, same size
T=$DATA/dav/runs/$ID/trials.jsonl
printf 'X' | dd of="$T" bs=1 seek=10 conv=notrunc status=none
run_fm cor pull "$D/$ID" "$W/pc"
is "$rc $(test -e "$W/pc" && echo there || echo none) $(leftovers "$W")" "1 none 0" \
	"a corrupted file on the server: exit 1, no destination, no temporary directory"
like "$(cat cor.err)" "$ID/trials.jsonl: sha256 [0-9a-f]{64} differs from the manifest" "... naming the file"
cp "$RUN/trials.jsonl" "$T"
L=$DATA/dav/runs/$ID/logs/local.log
truncate -s -20 "$L"
run_fm trunc pull "$D/$ID" "$W/pt"
is "$rc $(test -e "$W/pt" && echo there || echo none) $(leftovers "$W")" "1 none 0" \
	"a truncated file on the server: exit 1, nothing left behind"
like "$(cat trunc.err)" "logs/local.log: [0-9]+ bytes, the manifest says [0-9]+ \(truncated\)" "... naming it as truncated"
cp "$RUN/logs/local.log" "$L"
echo "more" >>"$L"
run_fm long pull "$D/$ID" "$W/pl"
is "$rc $(test -e "$W/pl" && echo there || echo none)" "1 none" "a file longer than the manifest says: exit 1"
like "$(cat long.err)" "logs/local.log: larger than the [0-9]+ bytes the manifest says" "... stopped at the manifest's size"
cp "$RUN/logs/local.log" "$L"
H=$DATA/dav/runs/20011201-000000-hostile-0000
mkdir -p "$H"
printf 'fleetmark-manifest 1\nrun %s\nfiles 1\n%s  1  ../../etc/x\nend\n' "${H##*/}" \
	"$(printf x | sha256sum | cut -c1-64)" >"$H/MANIFEST"
run_fm hostile pull "$D/20011201-000000-hostile-0000" "$W/ph"
is "$rc $(test -e "$W/ph" && echo there || echo none) $(test -e "$W/etc" && echo escaped || echo contained)" \
	"1 none contained" "a manifest with '..' in a path: refused, nothing written"
like "$(cat hostile.err)" "MANIFEST:4: path not allowed" "... at its line"
rm -rf "$H"

# --- a server answering 500 -----------------------------------------------------------

t0=$(date +%s)
run_fm e500 ls "$U/err500/runs"
is "$rc" 1 "ls on a server answering 500: exit 1"
like "$(cat e500.err)" "try 2 of 3" "... after retrying"
like "$(tail -1 e500.err)" "HTTP 500.*gave up after 3 tries" "... then a clear error"
is "$(grep -c 'PROPFIND /err500/' "$SRV/logs/access.log")" 3 "... three tries reached the server ($(($(date +%s) - t0)) s)"
run_fm e500p push "$RUN" "$U/err500/runs"
is "$rc" 1 "push to it: exit 1"

# --- nginx killed in the middle of a push ------------------------------------------------

BIG=$W/results/20011130-000000-big-0001
BID=${BIG##*/}
cp -r "$RUN" "$BIG"
line=$(head -1 "$RUN/trials.jsonl")
# 60 MB of trial lines (copies of one), so the upload takes a while
yes "$line" | head -c 60000000 | head -n -1 >>"$BIG/trials.jsonl"
"$FLEETMARK" push "$BIG" "$D" >kill.out 2>kill.err &
pid=$!
# Files go up in name order, trials.jsonl after run.json: the push is
# stopped (a shell builtin, no fork) as soon as run.json is there, so the
# server dies in the middle of the 60 MB however fast it would have gone.
for _ in $(seq 500); do
	[ -e "$DATA/dav/runs/$BID/run.json" ] && kill -STOP "$pid" 2>/dev/null && break
	sleep 0.02
done
had=$(test -e "$DATA/dav/runs/$BID/run.json" && echo started || echo not-started)
"$ARCH" kill "$SRV"
kill -CONT "$pid" 2>/dev/null
wait "$pid"
krc=$?
is "$had $krc" "started 1" "nginx killed (by pid) once the push had started: push exits 1"
like "$(tail -1 kill.err)" "error: PUT .*$BID/" "... naming the file being sent"
is "$(test -e "$DATA/dav/runs/$BID/MANIFEST" && echo manifest || echo none)" "none" "... no manifest on the server"
"$ARCH" start "$SRV" "$PORT" >/dev/null || echo "Bail out! nginx did not restart on port $PORT"
run_fm kls1 ls "$D"
is "$rc $(grep -c "$BID" kls1.out)" "0 0" "after a restart, ls does not list the partial run"
run_fm kpush push "$BIG" "$D"
is "$rc" 0 "pushing again completes it"
run_fm kls2 ls "$D"
is "$(tr '\n' ' ' <kls2.out)" "$FID $BID $ID " "... and it is listed"
run_fm kpull pull "$D/$BID" "$W/pbig"
check "... and pullable, equal to the original" same_tree "$BIG" "$W/pbig"

# --- Ctrl-C in the middle of a pull ----------------------------------------------------

"$FLEETMARK" pull "$U/slow/runs/$BID" "$W/pint" >int.out 2>int.err &
pid=$!
for _ in $(seq 100); do
	[ -n "$(find "$W" -maxdepth 1 -name ".$BID.pull-*")" ] && break
	sleep 0.05
done
sleep 0.5
kill -INT "$pid"
t0=$(date +%s%N)
wait "$pid"
irc=$?
ims=$((($(date +%s%N) - t0) / 1000000))
is "$irc $(test -e "$W/pint" && echo there || echo none) $(leftovers "$W")" "130 none 0" \
	"SIGINT during a pull (2 MB/s): exit 130, no destination, no temporary directory (${ims} ms)"
like "$(tail -1 int.err)" "interrupted" "... saying it was interrupted"

# --- usage ----------------------------------------------------------------------------

run_fm u1 pull "http://127.0.0.1:$PORT/"
is "$rc" 2 "pull URL without a run id: exit 2"
run_fm u2 ls "ftp://example.org/x"
is "$rc" 2 "ls with an unknown scheme: exit 2"
run_fm u3 push "$W/nonexistent" "$D"
is "$rc" 2 "push of a directory that is no run: exit 2"
run_fm u4 push "$RUN" "$W/fa"
is "$rc" 2 "push to a path that is no URL: exit 2"
run_fm u5 ls "http://u:sekrit@127.0.0.1:$PORT/dav/x?y"
is "$rc $(grep -c sekrit u5.err)" "2 0" "a bad URL with a password: exit 2, the password not shown"
is "$(grep -c $'\r' dpush1.err)" "0" "off a terminal: plain lines, no progress redraws"
if command -v script >/dev/null; then
	script -qec "$FLEETMARK push $FIX file://$W/tty" /dev/null >tty.out 2>&1
	like "$(tr '\r' '\n' <tty.out | grep -cE "^.\[Kpush $FID: [0-9]/[0-9] files, [0-9.]+ of [0-9.]+ MB")" '^[1-9]' \
		"on a terminal: a progress line (files, MB) redrawn in place"
else
	skip "on a terminal: a progress line" "no script(1)"
fi

"$ARCH" stop "$SRV"
mpid=$(cat "$SRV/nginx.pid" 2>/dev/null)
is "${mpid:-gone}" "gone" "nginx stopped by its pid"
done_testing
