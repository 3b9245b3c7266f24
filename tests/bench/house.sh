#!/usr/bin/env bash
# house.sh: the shape of the controller's code in numbers, for a tree or
# two trees side by side (docs/internals.md, "The shape in numbers"):
#
#   tests/bench/house.sh [TREE [OLD_TREE]]
#
#   lines       of src/ and include/ (.c and .h), and the net change
#               against OLD_TREE
#   entries     at the top of src/ (files and folders)
#   functions   over 60, 100 and 150 lines, the median, and the ten
#               longest (ctags --fields=+ne over src/)
#   cycles      the share of src/ files in a dependency cycle: an edge
#               A -> B when A names a function or variable that B defines
#               and exports (not static, defined in one file only), then
#               Tarjan's strongly connected components; approximate, as
#               a name used as a local elsewhere adds an edge
#
# Needs universal ctags and python3.  Reads files only; writes nothing.
set -u
TREE=$(cd "${1:-$(dirname "$0")/../..}" && pwd) || exit 2
OLD=${2:-}

measure() {
	local t=$1
	# shellcheck disable=SC2046 # file names without spaces
	(cd "$t" && ctags --c-kinds=fv --fields=+nef --sort=no -f - \
		$(find src -name '*.c' | sort) 2>/dev/null) >/tmp/house-tags.$$ || return 1
	python3 - "$t" /tmp/house-tags.$$ <<'PY'
import os, re, sys, statistics, subprocess
tree, tags = sys.argv[1], sys.argv[2]
srcs = subprocess.run(['find', 'src', 'include', '-name', '*.[ch]'], cwd=tree,
                      capture_output=True, text=True).stdout.split()
lines = sum(sum(1 for _ in open(os.path.join(tree, f), errors='replace')) for f in srcs)
top = len(os.listdir(os.path.join(tree, 'src')))
funcs = []
for l in open(tags):
    if l.startswith('!'):
        continue
    parts = l.rstrip('\n').split('\t')
    name, path = parts[0], parts[1]
    f = dict(p.split(':', 1) for p in parts[3:] if ':' in p)
    if parts[3] == 'f' and 'line' in f and 'end' in f:
        funcs.append((int(f['end']) - int(f['line']) + 1, name, path, int(f['line'])))
n = [x[0] for x in funcs]
print(f"lines        {lines} (src/ and include/)")
print(f"top of src/  {top} entries")
print(f"functions    {len(n)}, median {statistics.median(n):g} lines, "
      f"{sum(x > 60 for x in n)} over 60, {sum(x > 100 for x in n)} over 100, "
      f"{sum(x > 150 for x in n)} over 150")
for ln, name, path, at in sorted(funcs, reverse=True)[:10]:
    print(f"  {ln:4d}  {name}  {path}:{at}")
# The symbol graph: exported names (not static) defined in exactly one file.
cfiles = [f for f in srcs if f.startswith('src/') and f.endswith('.c')]
text = {}
for f in cfiles:
    s = open(os.path.join(tree, f), errors='replace').read()
    s = re.sub(r'/\*.*?\*/', ' ', s, flags=re.S)
    s = re.sub(r'"(\\.|[^"\\\n])*"', '""', s)
    text[f] = s
defs = {}
for l in open(tags):
    parts = l.rstrip('\n').split('\t')
    if len(parts) < 4 or '\tfile:' in l:
        continue
    defs.setdefault(parts[0], set()).add(parts[1])
owner = {k: next(iter(v)) for k, v in defs.items() if len(v) == 1}
edges = {f: set() for f in cfiles}
for f, s in text.items():
    for w in set(re.findall(r'\b[a-z_]\w*\b', s)):
        o = owner.get(w)
        if o and o != f:
            edges[f].add(o)
index, low, on, stack, sccs, i = {}, {}, set(), [], [], [0]
sys.setrecursionlimit(10000)
def visit(v):
    index[v] = low[v] = i[0]; i[0] += 1; stack.append(v); on.add(v)
    for w in edges[v]:
        if w not in index:
            visit(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], index[w])
    if low[v] == index[v]:
        c = []
        while True:
            w = stack.pop(); on.discard(w); c.append(w)
            if w == v:
                break
        if len(c) > 1:
            sccs.append(sorted(c))
for v in cfiles:
    if v not in index:
        visit(v)
incyc = sum(len(c) for c in sccs)
print(f"cycles       {incyc} of {len(cfiles)} src/ files ({100 * incyc / len(cfiles):.0f}%) "
      f"in {len(sccs)} cycles")
for c in sorted(sccs, key=len, reverse=True):
    print(f"  {len(c):3d}  " + " ".join(x[4:] for x in c))
print(f"@lines {lines}")
PY
	rm -f /tmp/house-tags.$$
}

new=$(measure "$TREE") || exit 1
if [ -n "$OLD" ]; then
	old=$(measure "$(cd "$OLD" && pwd)") || exit 1
	echo "== $OLD"
	grep -v '^@' <<<"$old"
	echo "== $TREE"
	grep -v '^@' <<<"$new"
	a=$(sed -n 's/^@lines //p' <<<"$old") b=$(sed -n 's/^@lines //p' <<<"$new")
	echo "net lines    $((b - a)) ($a -> $b)"
else
	grep -v '^@' <<<"$new"
fi
