# tests/lib-html.sh: helpers of the HTML report's tests (t510-t519), on top
# of tests/lib.sh.  Source lib.sh first.
# shellcheck shell=bash

# shellcheck disable=SC2034 # used by the scripts that source this
HTML_DATA=$TOP/tests/data/report

# html_setup: skip without the controller, jq or perl; D is the report
# fixtures, W a scratch directory removed at exit, and the current one.
html_setup() {
	need_controller
	need_tools jq perl
	D=$HTML_DATA
	W=$(mktemp -d)
	# shellcheck disable=SC2064 # W is expanded now, on purpose
	trap "rm -rf '$W'" EXIT
	cd "$W" || exit 1
}

# html NAME ARGS...: `fleetmark report ARGS --format html` into NAME.html
# (stderr in NAME.err); rc is its exit status.
html() {
	local name=$1
	shift
	"$FLEETMARK" report "$@" --format html >"$name.html" 2>"$name.err"
	# shellcheck disable=SC2034 # rc is the caller's
	rc=$?
}

# section FILE ID: the HTML of <section id="ID"> (sections do not nest).
section() {
	perl -0777 -ne 'print $1 if /(<section id="\Q'"$2"'\E".*?<\/section>)/s' "$1"
}

# svgs FILE KIND: each <svg data-chart="KIND"> of FILE on a line of its own.
svgs() {
	perl -0777 -ne 'while (/(<svg data-chart="\Q'"$2"'\E".*?<\/svg>)/sg) { my $s = $1; $s =~ s/\n//g; print "$s\n" }' "$1"
}

# outside_frame FILE KIND: for each chart of KIND, the y coordinates of its
# whiskers, boxes and trial dots that fall outside its frame (the plot's
# <rect class="frame">), as "chart N: y=..." lines; nothing when all are in.
outside_frame() {
	svgs "$1" "$2" | perl -ne '
		my $n = $.;
		my ($fy, $fh) = /<rect class="frame" x="[^"]*" y="([^"]*)" width="[^"]*" height="([^"]*)"/ or next;
		my @y;
		while (/<path class="whisker" d="([^"]*)"/g) {
			my $d = $1;
			push @y, $1 while $d =~ /M-?[0-9.]+ (-?[0-9.]+)/g;
			push @y, $1 while $d =~ /V(-?[0-9.]+)/g;
		}
		push @y, $1 while /<circle class="dot" [^>]*cy="([^"]*)"/g;
		while (/<rect class="box" x="[^"]*" y="([^"]*)" width="[^"]*" height="([^"]*)"/g) {
			push @y, $1, $1 + $2;
		}
		for my $y (@y) {
			print "chart $n: y=$y outside $fy..", $fy + $fh, "\n"
				if $y < $fy - 0.05 || $y > $fy + $fh + 0.05;
		}'
}

# CHROMIUM: the browser, or empty.
CHROMIUM=${CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}

# chrome DIR FILE.html ARGS...: headless Chromium on DIR/FILE.html with no
# network and a fresh profile, bounded to 120 s; stdout is Chromium's
# (--dump-dom), stderr goes to DIR/FILE.log.  Only its own process group
# is killed on timeout (timeout(1) signals the child it started).
chrome() {
	local dir=$1 f=$2 ud
	shift 2
	ud=$(mktemp -d "$dir/profile.XXXXXX")
	timeout -k 5 120 "$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking --disable-component-update \
		--disable-sync --user-data-dir="$ud" --hide-scrollbars \
		"$@" "file://$dir/$f" 2>"$dir/${f%.html}.log"
}

# measure DIR NAME WIDTH: load DIR/NAME.html at WIDTH px in Chromium and
# print what its layout measured: "vw=W sw=S point=L-R ... mark=L-R
# svg=MAXRIGHT hatch=H", the viewport's and the document's width, the left and
# right edge of each column of the compact compare table, and the right
# edge of the widest chart, and whether a noisy matrix cell is hatched as
# Chromium computes its style ("yes", "no", "none": no noisy cell).  The
# page forbids scripts (its CSP), so a copy
# without the CSP and with a measuring script at the end is what loads.
measure() {
	local dir=$1 name=$2 w=$3
	MEASURE_JS=$(cat <<'EOF2'
<script>
var o = [], m = 0;
document.querySelectorAll("table.changes th[data-col]").forEach(function (e) {
	var b = e.getBoundingClientRect();
	o.push(e.dataset.col + "=" + Math.round(b.left) + "-" + Math.round(b.right));
});
document.querySelectorAll("svg").forEach(function (e) {
	m = Math.max(m, Math.round(e.getBoundingClientRect().right));
});
var h = document.querySelector("td[data-noisy]");
var hatch = h ? (getComputedStyle(h).backgroundImage.indexOf("repeating-linear-gradient") >= 0 ? "yes" : "no") : "none";
var p = document.createElement("pre");
p.id = "measured";
p.textContent = "vw=" + window.innerWidth + " sw=" + document.documentElement.scrollWidth +
	" " + o.join(" ") + " svg=" + m + " hatch=" + hatch;
document.body.appendChild(p);
</script>
EOF2
) perl -0777 -pe 's/<meta http-equiv="Content-Security-Policy"[^>]*>//; s/<\/body>/$ENV{MEASURE_JS}<\/body>/' \
		"$dir/$name.html" >"$dir/$name-m$w.html"
	chrome "$dir" "$name-m$w.html" --window-size="$w,900" --dump-dom |
		sed -n 's/.*<pre id="measured">\([^<]*\)<\/pre>.*/\1/p'
}

# png_size FILE: "WIDTHxHEIGHT" of a PNG, from its IHDR.
png_size() {
	od -An -tu1 -j16 -N8 "$1" | awk '{ printf "%dx%d\n", $1*2^24 + $2*2^16 + $3*2^8 + $4, $5*2^24 + $6*2^16 + $7*2^8 + $8 }'
}
