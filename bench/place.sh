#!/bin/sh
# Cost of the placement reports and of scx-agg diff (issue #16's targets):
#  - each new report added to the 17 older ones, against those 17 alone, on
#    the --report all benchmark stream of bench/agg.sh (agg-gen -n 480000);
#    with BASE=DIR (a build of the tree before the placement reports), the
#    17 reports of that build too;
#  - scx-agg with the placement reports at 512 CPUs, binary frames;
#  - scx-agg diff of two copies of the 45 MB wprof sched-view capture.
# CPU time (user+sys), best of REPS runs.  Writes bench/results/place.md.
#
#   REPS=3 BASE=.output-base sh bench/place.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/..
SCX_BUILD=${SCX_BUILD:-$src/.output}
SHARED=${SHARED:-$src/../shared}
agg=$SCX_BUILD/scx-agg
gen=$SCX_BUILD/bench/agg-gen
REPS=${REPS:-3}
BASE=${BASE:-}
out=$here/results/place.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scx-bench-place.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "$agg" ] && [ -x "$gen" ] || { echo "place: build first (make)" >&2; exit 1; }

measure() {
	best=
	for _ in $(seq "$REPS"); do
		/usr/bin/time -f "%U %S" -o "$tmp/t" "$@" >/dev/null
		s=$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/t")
		[ -z "$best" ] || [ "$(echo "$s $best" | awk '{ print ($1 < $2) }')" = 1 ] && best=$s
	done
	echo "$best"
}
# ten runs of "$@" in one measurement, divided by ten: one run of the small stream
# is near /usr/bin/time's 10 ms resolution
measure10() {
	t=$(measure sh -c 'for i in 1 2 3 4 5 6 7 8 9 10; do "$0" "$@" >/dev/null; done' "$@")
	awk -v s="$t" 'BEGIN { printf "%.4f", s / 10 }'
}
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? n / s / 1e6 : 0) }'; }
pct() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.1f%%", (b > 0 ? 100 * (a - b) / b : 0) }'; }

old=cpu-utilization,process-runtime,wakeup-latency,latency-breakdown,migrations,task-states
old=$old,preemptions,wakeup-graph,runqueue-depth,fairness,softirq,ipi,cpu-frequency,cpu-idle
old=$old,dsq,outliers,bottlenecks
new="work-conservation runqueue-occupancy wakeup-placement pre-migration parallelism"

"$gen" -f binary -n 480000 -o "$tmp/small.bin"
n=$("$agg" "$tmp/small.bin" | grep -o '"events":[0-9]*' | head -n 1 | cut -d: -f2)
load=$(cut -d" " -f1 /proc/loadavg)
t17=$(measure10 "$agg" -r "$old" "$tmp/small.bin")
rows="| the 17 older reports | $n | ${t17}s | |
"
if [ -n "$BASE" ]; then
	tb=$(measure10 "$BASE/scx-agg" -r all "$tmp/small.bin")
	rows="$rows| the 17 reports, build before the placement reports | $n | ${tb}s | $(pct "$t17" "$tb") (17 now against then) |
"
fi
for r in $new; do
	t=$(measure10 "$agg" -r "$old,$r" "$tmp/small.bin")
	rows="$rows| the 17 + $r | $n | ${t}s | $(pct "$t" "$t17") |
"
done
tall=$(measure10 "$agg" -r all "$tmp/small.bin")
rows="$rows| --report all (22) | $n | ${tall}s | $(pct "$tall" "$t17") |
"

"$gen" -f binary -n 8000000 -c 512 -t 2000 -o "$tmp/big.bin"
nb=$("$agg" "$tmp/big.bin" | grep -o '"events":[0-9]*' | head -n 1 | cut -d: -f2)
tdef=$(measure "$agg" "$tmp/big.bin")
tpl=$(measure "$agg" -r work-conservation,runqueue-occupancy,wakeup-placement,pre-migration,parallelism "$tmp/big.bin")

drow="| scx-agg diff of two 45 MB wprof captures | not run: $SHARED/testdata missing | |"
if [ -r "$SHARED/testdata/perfetto/wprof-schedview.pb.zst" ]; then
	zstd -q -dc "$SHARED/testdata/perfetto/wprof-schedview.pb.zst" >"$tmp/a.pb"
	cp "$tmp/a.pb" "$tmp/b.pb"
	sz=$(du -m "$tmp/a.pb" | cut -f1)
	td=$(measure "$agg" diff -f ndjson "$tmp/a.pb" "$tmp/b.pb")
	tz=$(measure "$agg" diff -f ndjson "$SHARED/testdata/perfetto/wprof-schedview.pb.zst" \
		"$SHARED/testdata/perfetto/wprof-schedview.pb.zst")
	drow="| scx-agg diff A B, wprof sched view, ${sz} MB each (.pb) | ${td}s | target < 2 s |
| the same from the .pb.zst files | ${tz}s | |"
fi

cat >"$out" <<EOM
# placement reports and scx-agg diff

Measured by bench/place.sh on $(uname -r), $(nproc) CPUs shared with other jobs; CPU time (user+sys)
of one process, best of $REPS runs (load average at the start: $load).

Each new report added to the 17 older ones, on bench/agg.sh's --report all stream (agg-gen -n
480000, 8 CPUs, 200 threads, binary frames; target: each under +20%):

| reports | events | CPU time | against the 17 |
|---|---|---|---|
$rows
At 512 CPUs (agg-gen -n 8000000 -c 512 -t 2000, binary frames; target >= 8M events/s with the
placement reports):

| run | events | CPU time | events/s |
|---|---|---|---|
| default (--by cpu,llc,node), no report | $nb | ${tdef}s | $(rate "$nb" "$tdef")M |
| the five placement reports | $nb | ${tpl}s | $(rate "$nb" "$tpl")M |

| comparison | CPU time | |
|---|---|---|
$drow
EOM
cat "$out"
