#!/usr/bin/env bash
# t203-cli-man-completion: the man pages (fleetmark(1), fleetmark-plan(5),
# fleetmark-fleet(5)) render without a warning and agree with every
# command's help, the help agrees with each command's getopt table, `make
# install` puts pages and completion where man and bash-completion look,
# and the bash completion completes commands, options, plans, hosts and
# @labels of the -f inventory, run ids and table names.
# cost: 13 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
need_controller
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
MAN=$TOP/docs/man
export LC_ALL=C.UTF-8

# --- the pages render cleanly -----------------------------------------------------
for p in fleetmark.1 fleetmark-plan.5 fleetmark-fleet.5; do
	if ! command -v groff >/dev/null; then
		skip "$p: groff -ww" "no groff (tools/deps)"
		continue
	fi
	groff -man -Tutf8 -ww -z "$MAN/$p" 2>"$W/err"
	r=$?
	is "$r:$(cat "$W/err")" "0:" "$p: groff -man -Tutf8 -ww: no warning"
	if command -v mandoc >/dev/null; then
		mandoc -Tlint -Wwarning "$MAN/$p" >"$W/err" 2>&1
		is "$?:$(cat "$W/err")" "0:" "$p: mandoc -Tlint: no warning"
	else
		skip "$p: mandoc -Tlint" "no mandoc (tools/deps)"
	fi
	if command -v man >/dev/null; then
		MANWIDTH=80 man -l "$MAN/$p" >"$W/out" 2>"$W/err"
		r=$?
		is "$r:$(cat "$W/err")" "0:" "$p: man -l renders it"
		like "$(head -5 "$W/out")" "^NAME" "$p: starting with its NAME"
	else
		skip "$p: man -l renders it" "no man"
		skip "$p: starting with its NAME" "no man"
	fi
done

# --- fleetmark(1) describes every option of every command -----------------------
# The page as text, hyphens as hyphens; a command's part runs from its
# heading ("   fleetmark run PLAN ...") to the next one.
if command -v groff >/dev/null; then
	groff -man -Tascii -P-cbou "$MAN/fleetmark.1" 2>/dev/null >"$W/page"
	for c in $("$FLEETMARK" help --complete); do
		awk -v c="$c" '
			/^   fleetmark / { on = ($2 == c) }
			/^[A-Z]/ { on = 0 }
			on' "$W/page" >"$W/part"
		[ -s "$W/part" ] || { tap_result 1 "fleetmark(1) has a part for $c"; continue; }
		missing=
		while read -r o _; do
			case $o in -v | --verbose | -q | --quiet | -h | --help) continue ;; esac
			grep -Eq -- "(^|[^-[:alnum:]])$o([^-[:alnum:]]|$)" "$W/part" || missing="$missing $o"
		done < <("$FLEETMARK" help --complete "$c")
		is "${missing:-none}" none "fleetmark(1) describes every option of $c"
	done
	for p in fleetmark-plan.5 fleetmark-fleet.5; do
		like "$(grep -o 'fleetmark-[a-z]*(5)' "$W/page" | sort -u | tr '\n' ' ')" "${p%.5}\\(5\\)" \
			"fleetmark(1) points to ${p%.5}(5)"
	done
	# The plan and inventory keys the loaders know are in their pages.
	groff -man -Tascii -P-cbou "$MAN/fleetmark-plan.5" 2>/dev/null >"$W/plan5"
	missing=
	for k in name description hosts repeat samples order seed timeout variants benchmarks \
		regression write setup teardown bench params profile threshold metrics \
		source command build program args parse; do
		grep -q "^ *$k:" "$W/plan5" || missing="$missing $k"
	done
	is "${missing:-none}" none "fleetmark-plan(5) describes every plan key"
	groff -man -Tascii -P-cbou "$MAN/fleetmark-fleet.5" 2>/dev/null >"$W/fleet5"
	missing=
	for k in address transport user port identity known_hosts host_key_check connect_timeout \
		workdir ssh_config proxy_jump agent labels; do
		grep -q "^ *$k:" "$W/fleet5" || missing="$missing $k"
	done
	is "${missing:-none}" none "fleetmark-fleet(5) describes every host key"
else
	skip "fleetmark(1) against the help" "no groff (tools/deps)"
fi

# --- each command's help against its getopt table ------------------------------
# Every long option of a src/cmd/ file's option table and every letter of its
# getopt string is in the help of one of the file's commands.
for f in run:run plan:plan list:list agent:agent hosts:hosts report:report,compare \
	archive:push,pull,ls bisect:bisect-run ab:ab history:history; do
	src=$TOP/src/cmd/${f%%:*}.c
	helpopts=
	for c in $(tr ',' ' ' <<<"${f#*:}"); do
		helpopts="$helpopts $("$FLEETMARK" help --complete "$c" | cut -d' ' -f1)"
	done
	missing=
	while read -r o; do
		grep -qw -- "--$o" <<<"$helpopts" || missing="$missing --$o"
	done < <(grep -oE '\{ "[a-z-]+", (no|required)_argument' "$src" | cut -d'"' -f2)
	for l in $(grep -oE 'getopt(_long)?\(argc, argv, "[^"]*"' "$src" | cut -d'"' -f2 |
		tr -d '+:' | fold -w1 | sort -u); do
		grep -qw -- "-$l" <<<"$helpopts" || missing="$missing -$l"
	done
	is "${missing:-none}" none "src/cmd/${f%%:*}.c: every option it parses is in the help"
done

# --- make install ------------------------------------------------------------------
if make -s -C "$TOP" install DESTDIR="$W/dest" PREFIX=/usr >"$W/out" 2>&1; then
	for p in man1/fleetmark.1 man5/fleetmark-plan.5 man5/fleetmark-fleet.5; do
		cmp -s "$W/dest/usr/share/man/$p" "$MAN/${p#*/}"
		tap_result $? "make install: share/man/$p"
	done
	cmp -s "$W/dest/usr/share/bash-completion/completions/fleetmark" \
		"$TOP/contrib/completion/fleetmark.bash"
	tap_result $? "make install: share/bash-completion/completions/fleetmark"
	if command -v man >/dev/null; then
		like "$(MANWIDTH=80 man -M "$W/dest/usr/share/man" 5 fleetmark-plan 2>&1 | head -3)" \
			"^FLEETMARK-PLAN\\(5\\)" "man finds the installed pages"
	else
		skip "man finds the installed pages" "no man"
	fi
else
	tap_result 1 "make install DESTDIR=... PREFIX=/usr"
	diag "$(tail -5 "$W/out")"
fi

# --- bash completion ------------------------------------------------------------------
# complete WORDS...: what completing the last word gives, sorted, on one line.
complete_words() {
	# shellcheck disable=SC2016 # expanded by the inner bash
	bash -c 'cd "$1" || exit 1
		. "$2"
		shift 2
		COMP_WORDS=("$@")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_fleetmark 2>/dev/null
		printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " " | sed "s/ $//"' \
		complete "$W/c" "$TOP/contrib/completion/fleetmark.bash" "$FLEETMARK" "$@"
}
mkdir -p "$W/c/plans" "$W/c/results/20011130-041500-smoke-3f2a" "$W/c/results/not-a-run" \
	"$W/c/out/20011201-010203-lmbench-0a1b"
printf 'name: p\nbenchmarks:\n  - bench: lat_pipe\n' >"$W/c/plans/p.yaml"
printf 'x\n' >"$W/c/plans/notes.txt"
printf 'hosts:\n  alpha:\n    transport: local\n    labels: [x86_64, fast]\n  beta:\n    transport: local\n    labels: [numa]\n' \
	>"$W/c/lab.yaml"
printf '{}\n' >"$W/c/results/20011130-041500-smoke-3f2a/run.json"
printf '{}\n' >"$W/c/out/20011201-010203-lmbench-0a1b/run.json"

is "$(bash -c ". '$TOP/contrib/completion/fleetmark.bash'; complete -p fleetmark")" \
	"complete -F _fleetmark fleetmark" "the script registers _fleetmark for fleetmark"
is "$(complete_words r)" "report run" "commands"
is "$(complete_words -v l)" "list ls" "commands after a global option"
is "$(complete_words --v)" "--verbose --version" "global options"
is "$(complete_words run --la)" "--label" "a command's options"
is "$(complete_words plan -)" "--help --quiet --summary --verbose -H -f -h -q -s -v" \
	"every option of plan"
is "$(complete_words plan plans/)" "plans/p.yaml" "plan files (YAML only)"
is "$(complete_words run -f l)" "lab.yaml" "-f: inventories"
is "$(complete_words run -f lab.yaml -H '')" "@fast @numa @x86_64 all alpha beta" \
	"-H: the hosts and @labels of the inventory given with -f"
is "$(complete_words hosts -f lab.yaml -H alpha,@n)" "alpha,@numa" "after a comma, the next word"
is "$(complete_words hosts -H '')" "@local all local" "without -f, the embedded fleet"
is "$(complete_words report '')" "20011130-041500-smoke-3f2a latest" \
	"runs: the run ids of results/ and latest"
is "$(complete_words report --results out '')" "20011201-010203-lmbench-0a1b latest" \
	"of --results DIR"
is "$(complete_words run plans/p.yaml --resume 2001)" "20011130-041500-smoke-3f2a" "--resume: run ids"
mkdir -p "$W/c/grp/20011202-020000-p-0001" "$W/c/grp/20011202-020001-p-0002"
printf '{\n  "run": "20011202-020000-p-0001",\n  "group": "night-1",\n  "plan": {}\n}\n' \
	>"$W/c/grp/20011202-020000-p-0001/run.json"
printf '{"run":"20011202-020001-p-0002","group":"night-1"}\n' >"$W/c/grp/20011202-020001-p-0002/run.json"
is "$(complete_words report --results grp '')" \
	"20011202-020000-p-0001 20011202-020001-p-0002 group:night-1 latest" \
	"report: the run groups of the results directory too, once each"
is "$(complete_words report --results grp --baseline gr)" "group:night-1" "--baseline REF: run groups"
is "$(complete_words run plans/p.yaml -o grp --resume '')" \
	"20011202-020000-p-0001 20011202-020001-p-0002 latest" "--resume: no run group (a run is needed)"
is "$(complete_words report latest --table m)" "matrix" "table names"
is "$(complete_words compare a b -F j)" "json" "formats"
is "$(complete_words ab p.yaml -A k)" "kexec:" "ab's sides: the start of a kexec"
is "$(complete_words agent '')" "build list path" "agent's subcommands"
is "$(complete_words help pl)" "plan" "help: command names"
is "$(complete_words run --label '')" "" "nothing for a free-form argument"
if [ -x "$AGENT" ]; then
	is "$(complete_words list mun)" "munmap" "list: benchmark names"
else
	skip "list: benchmark names" "no agent at $AGENT"
fi

done_testing
