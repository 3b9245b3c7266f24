#!/usr/bin/env bash
# t140-agent-cross: every static agent of `make agents` runs under qemu-user
# and speaks exactly the same wire format as the native one (big-endian and
# 32-bit correctness); the agent also builds from its own POSIX Makefile.
# cost: 15 s, busy
# shellcheck source-path=SCRIPTDIR source=../lib.sh
. "$(dirname "$0")/../lib.sh"
AGENTS=${AGENTS:-$TOP/build/agents}
[ -d "$AGENTS" ] || skip_all "no static agents in $AGENTS (run make agents)"
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
export TMPDIR=$W/tmp
mkdir -p "$TMPDIR"

declare -A QEMU=([x86_64]="" [aarch64]=qemu-aarch64-static [armhf]=qemu-arm-static
	[ppc64]=qemu-ppc64-static [ppc64el]=qemu-ppc64le-static [s390x]=qemu-s390x-static)
declare -A ENDIAN=([x86_64]=little [aarch64]=little [armhf]=little [ppc64]=big
	[ppc64el]=little [s390x]=big)

# The shape of a JSON-lines file: each line's type and sorted member names.
shape() { jq -c '[.type, (keys | sort)]' "$1"; }

# A few quick benchmarks that exercise integers, strings, children and files
# (lat_pipe with 5 ms samples: its default second would make the shapes
# differ by the number of heartbeats under emulation).
quick=("lat_syscall op=null" "lat_syscall op=open" "spin work=1 extra=5" "lat_pipe interval=5000")

for arch in x86_64 aarch64 armhf ppc64 ppc64el s390x; do
	bin=$AGENTS/$arch/fleetmark-agent
	q=${QEMU[$arch]}
	if [ ! -x "$bin" ]; then
		tap_result 1 "$arch: agent built"
		continue
	fi
	if [ -n "$q" ] && ! command -v "$q" >/dev/null; then
		skip "$arch: runs under $q" "$q not installed"
		continue
	fi
	file -b "$bin" | grep -q "statically linked"
	tap_result $? "$arch: agent is statically linked"
	run() { $q "$bin" "$@"; }

	run version >"$W/$arch.version" 2>&1
	like "$(cat "$W/$arch.version")" "^fleetmark-agent [0-9.]+ protocol [0-9]+ $arch\$" "$arch: version names its architecture"

	run list --json >"$W/$arch.list"
	if [ "$arch" = x86_64 ]; then
		check "x86_64: list is JSON lines" jq_all "$W/$arch.list"
	else
		cmp -s "$W/x86_64.list" "$W/$arch.list"
		tap_result $? "$arch: list is byte for byte the native one"
	fi

	run env --json >"$W/$arch.env"
	check "$arch: env is one JSON object" jq_all "$W/$arch.env"
	is "$(jq -r '.arch + " " + .endian' "$W/$arch.env")" "$arch ${ENDIAN[$arch]}" "$arch: env reports arch and byte order"
	check "$arch: env has cpus, page size, kernel" jq -e '.cpus >= 1 and .page_size >= 4096 and .uname.release != ""' "$W/$arch.env"
	[ "$arch" = x86_64 ] || is "$(jq -c 'keys' "$W/$arch.env")" "$(jq -c 'keys' "$W/x86_64.env")" "$arch: env has the native member set"

	for b in "${quick[@]}"; do
		name=${b// /_}
		# shellcheck disable=SC2086
		run run $b --samples 3 >"$W/$arch.$name" 2>"$W/$arch.$name.err" </dev/null
		rc=$?
		is "$rc" 0 "$arch: run $b exits 0"
		if [ "$arch" = x86_64 ]; then
			check "x86_64: run $b is JSON lines" jq_all "$W/$arch.$name"
		else
			is "$(shape "$W/$arch.$name")" "$(shape "$W/x86_64.$name")" "$arch: run $b has the native line shapes"
			is "$(jq -c 'select(.type == "header") | .params' "$W/$arch.$name")" \
				"$(jq -c 'select(.type == "header") | .params' "$W/x86_64.$name")" "$arch: run $b resolves the same parameters"
		fi
		check "$arch: run $b gives 3 positive samples" lines_ok "$W/$arch.$name" metric \
			'.count == 3 and (.samples | length) == 3 and all(.samples[]; . > 0)'
	done
done
is "$(ls -A "$TMPDIR")" "" "no scratch file left by any architecture"

# The agent builds alone from its own POSIX Makefile, with only cc and libc.
mkdir -p "$W/src"
cp -r "$TOP/agent" "$TOP/include" "$W/src/"
rm -f "$W/src/agent/fleetmark-agent"
make -s -C "$W/src/agent" CC=cc >"$W/build.log" 2>&1
tap_result $? "the agent builds from agent/Makefile alone"
"$W/src/agent/fleetmark-agent" run lat_syscall --samples 1 </dev/null | jq -e -s 'map(.type) == ["header","metric","end"]' >/dev/null
tap_result $? "and the result runs a benchmark"

done_testing
