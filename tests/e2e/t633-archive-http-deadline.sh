#!/usr/bin/env bash
# t633-archive-http-deadline: a server that drips bytes (a 4 MB MANIFEST
# at 5 bytes/s, fast enough for the stall rule) cannot keep a pull going:
# each try has a deadline of max_time plus its bytes at min_rate (the
# config file's archive: keys; here 1 s and 4 MB/s, so about 2 s), after
# which the pull fails with a clear error.  The server is a few lines of
# python3 on 127.0.0.1 started by the test and stopped by its pid; each
# command is bounded by timeout(1).  SIGINT during the drip exits 130.
# Costs about 5 s.
# cost: 4 s, waiting
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
need_tools python3
W=$(mktemp -d /tmp/t633.XXXXXX)
SRV=
trap '[ -z "$SRV" ] || kill "$SRV" 2>/dev/null; rm -rf "$W"' EXIT
cd "$W" || exit 1
export XDG_CONFIG_HOME=$W/cfg XDG_CACHE_HOME=$W/cache NO_COLOR=1 FLEETMARK_CONFIG=$W/config.yaml

cat >drip.py <<'EOF'
# Answers every request with a 4 MB body sent a byte every 0.2 s; at most 60 s a connection.
import http.server, sys, time
class H(http.server.BaseHTTPRequestHandler):
    def drip(self):
        self.send_response(200)
        self.send_header("Content-Length", str(4 * 1024 * 1024))
        self.end_headers()
        end = time.monotonic() + 60
        while time.monotonic() < end:
            try:
                self.wfile.write(b"f")
                self.wfile.flush()
            except OSError:
                return
            time.sleep(0.2)
    do_GET = do_PROPFIND = drip
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
EOF
python3 drip.py "$W/port" &
SRV=$!
for _ in $(seq 50); do [ -s "$W/port" ] && break; sleep 0.1; done
[ -s "$W/port" ] || { echo "Bail out! the drip server did not start"; exit 1; }
URL=http://127.0.0.1:$(cat "$W/port")/arch/20011130-041500-t633-0001

printf 'archive:\n  tries: 1\n  max_time: 1s\n  min_rate: 4000000\n' >config.yaml
chmod 600 config.yaml
start=$(date +%s)
timeout -s KILL 30 "$FLEETMARK" pull "$URL" "$W/p1" >pull1.out 2>pull1.err
rc=$?
took=$(($(date +%s) - start))
is "$rc" 1 "pull from a server that drips: exit 1 (137: still going after 30 s)"
like "$(cat pull1.err)" "GET .*MANIFEST.*[Tt]imed out" "... the MANIFEST's GET timed out"
like "$took" '^([0-9]|1[0-9])$' "... after the deadline, not the server's pace (${took} s)"
check "... and nothing pulled" test ! -e "$W/p1"

printf 'archive:\n  min_rate: 0\n' >bad.yaml
chmod 600 bad.yaml
FLEETMARK_CONFIG=$W/bad.yaml timeout -s KILL 10 "$FLEETMARK" pull "$URL" "$W/p2" >bad.out 2>bad.err
rc=$?
is "$rc" 2 "min_rate: 0 in the config file is refused (exit 2)"
like "$(cat bad.err)" "bad.yaml:2:.*min_rate|bad.yaml:2:" "... naming the file and line"

# interrupted while the MANIFEST drips, with the default deadline (minutes)
printf 'archive:\n  tries: 1\n' >config.yaml
timeout -s KILL 30 "$FLEETMARK" pull "$URL" "$W/p3" >int.out 2>int.err &
pid=$!
sleep 1
kill -INT "$pid"
wait "$pid"
is "$?" 130 "SIGINT during the drip: exit 130"

done_testing
