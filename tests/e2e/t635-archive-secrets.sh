#!/usr/bin/env bash
# t635-archive-secrets: what a server echoes back cannot leak a secret.
# A server (python3 on 127.0.0.1, started by the test, stopped by its pid)
# answers every request 500 with the request's Authorization header in
# the body: the password, and base64(user:password) as sent, are printed
# neither in the retry lines nor in the error.  A ~/.netrc readable by
# others is ignored with a warning, and its password never sent.  A
# config.yaml that is a symbolic link (as dotfile managers make) to a
# mode 0600 file of the user is read; one leading to a 0644 file is
# refused.  Costs about 3 s.
# cost: 3 s, busy
set -u
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"

need_controller
need_tools python3
W=$(mktemp -d /tmp/t635.XXXXXX)
SRV=
trap '[ -z "$SRV" ] || kill "$SRV" 2>/dev/null; rm -rf "$W"' EXIT
cd "$W" || exit 1
mkdir -p home cfg/fleetmark dotfiles
export HOME=$W/home XDG_CONFIG_HOME=$W/cfg XDG_CACHE_HOME=$W/cache NO_COLOR=1
unset FLEETMARK_CONFIG NETRC

cat >echo.py <<'EOF'
# Answers 500, quoting the Authorization header; logs each one to argv[2].
import http.server, sys
class H(http.server.BaseHTTPRequestHandler):
    def echo(self):
        auth = self.headers.get("Authorization", "none")
        with open(sys.argv[2], "a") as f:
            f.write(auth + "\n")
        body = ("500 Internal Server Error " + auth).encode()
        self.send_response(500)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    do_GET = do_PROPFIND = do_PUT = do_MKCOL = echo
    def log_message(self, *a):
        pass
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
open(sys.argv[1], "w").write(str(s.server_address[1]))
s.serve_forever()
EOF
python3 echo.py "$W/port" "$W/auth.log" &
SRV=$!
for _ in $(seq 50); do [ -s "$W/port" ] && break; sleep 0.1; done
[ -s "$W/port" ] || { echo "Bail out! the echo server did not start"; exit 1; }
PORT=$(cat "$W/port")
PW=S3cretPassw0rd-XYZ
B64=$(printf 'bench:%s' "$PW" | base64)

# two tries: the retry line is printed too
printf 'archive:\n  tries: 2\n' >plain.yaml
chmod 600 plain.yaml
export FLEETMARK_CONFIG=$W/plain.yaml
run_fm echo ls "http://bench:$PW@127.0.0.1:$PORT/arch"
is "$rc" 1 "ls against a server answering 500: exit 1"
check "... the server did get the credentials" grep -q "Basic $B64" auth.log
like "$(cat echo.err)" "try 2 of 2" "... a retry line was printed"
check_fail "... the password is printed nowhere" grep -q "$PW" echo.err echo.out
check_fail "... nor base64(user:password)" grep -q "$B64" echo.err echo.out
like "$(cat echo.err)" "HTTP 500: 500 Internal Server Error Basic \*\*\*" "... it is shown as Basic ***"

unset FLEETMARK_CONFIG
printf 'archive:\n  tries: 1\n' >dotfiles/config.yaml
chmod 600 dotfiles/config.yaml
ln -s "$W/dotfiles/config.yaml" cfg/fleetmark/config.yaml
run_fm link ls "http://127.0.0.1:$PORT/arch"
is "$rc" 1 "a symlinked config.yaml (to a 0600 file) is read: exit 1 (the server's 500)"
check_fail "... not refused" grep -q 'symbolic links' link.err
chmod 644 dotfiles/config.yaml
run_fm open ls "http://127.0.0.1:$PORT/arch"
is "$rc" 2 "... one leading to a 0644 file is refused (exit 2)"
like "$(cat open.err)" "permissions 0644 are too open" "... saying why"
export FLEETMARK_CONFIG=$W/plain.yaml

printf 'machine 127.0.0.1\nlogin bench\npassword %s\n' "$PW" >home/.netrc
chmod 644 home/.netrc
: >auth.log
run_fm netrc ls "http://127.0.0.1:$PORT/arch"
is "$rc" 1 "ls with a ~/.netrc readable by others: exit 1 (the server's 500)"
like "$(cat netrc.err)" "\.netrc: readable or writable by group or others: ignored" "... the netrc is ignored with a warning"
check_fail "... and its password was not sent" grep -q "Basic" auth.log
chmod 600 home/.netrc
: >auth.log
run_fm netrc2 ls "http://127.0.0.1:$PORT/arch"
check "a ~/.netrc of mode 0600 is used" grep -q "Basic $B64" auth.log
check_fail "... and its password printed nowhere" grep -q "$PW\|$B64" netrc2.err netrc2.out

done_testing
