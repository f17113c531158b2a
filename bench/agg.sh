#!/bin/sh
# scx-agg throughput (events/s of CPU time, one core, best of REPS) from binary
# frames and NDJSON for --by cpu,llc,node -i 1s, --report all on a 300k-event
# stream, the same events through `perf sched latency` (recorded live with
# perf sched record, converted with t/data/agg-perf2scx.pl), and peak memory
# against events, threads and CPUs.  Writes bench/results/agg.md.
#
#   N=4000000 REPS=3 sh bench/agg.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=$here/..
SCX_BUILD=${SCX_BUILD:-$src/.output}
agg=$SCX_BUILD/scx-agg
gen=$SCX_BUILD/bench/agg-gen
N=${N:-4000000}
REPS=${REPS:-3}
out=$here/results/agg.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/scx-bench-agg.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
[ -x "$agg" ] && [ -x "$gen" ] || { echo "agg: build first (make)" >&2; exit 1; }

# best user+sys seconds and the peak RSS (KiB) of REPS runs of "$@"
measure() {
	best= rss=0
	for _ in $(seq "$REPS"); do
		/usr/bin/time -f "%U %S %M" -o "$tmp/t" "$@" >/dev/null
		s=$(awk '{ printf "%.3f", $1 + $2 }' "$tmp/t")
		m=$(awk '{ print $3 }' "$tmp/t")
		[ -z "$best" ] || [ "$(echo "$s < $best" | awk '{ print ($1 < $3) }')" = 1 ] && best=$s
		[ "$m" -gt "$rss" ] && rss=$m
	done
	echo "$best $rss"
}
events() { "$agg" "$@" | grep -o '"events":[0-9]*' | awk -F: '{ s += $2 } END { print s }'; }
rate() { awk -v n="$1" -v s="$2" 'BEGIN { printf "%.2f", (s > 0 ? n / s / 1e6 : 0) }'; }

load=$(cut -d" " -f1 /proc/loadavg)
"$gen" -f binary -n "$N" -o "$tmp/ev.bin"
"$gen" -f ndjson -n "$N" -o "$tmp/ev.ndjson"
nev=$(events -i 1s "$tmp/ev.bin")
set -- $(measure "$agg" -i 1s "$tmp/ev.bin"); bin_s=$1
set -- $(measure "$agg" -i 1s "$tmp/ev.ndjson"); nd_s=$1
set -- $(measure "$agg" -i 1s -b all "$tmp/ev.bin"); all_s=$1
# the engine alone, events already decoded in memory
eng=$("$SCX_BUILD/bench/agg-engine" "$tmp/ev.bin" "$REPS" | sed -n 's/.*, \([0-9.]*\)M events.*/\1/p')
eng_all=$("$SCX_BUILD/bench/agg-engine" "$tmp/ev.bin" "$REPS" 0x7f | sed -n 's/.*, \([0-9.]*\)M events.*/\1/p')

"$gen" -f binary -n 480000 -o "$tmp/small.bin"
nsmall=$(events "$tmp/small.bin")
set -- $(measure "$agg" -r all "$tmp/small.bin"); rep_s=$1 rep_rss=$2

# the same events through perf sched latency and scx-agg
perf_row="| perf sched latency | not run: perf sched record unavailable | | |"
if command -v perf >/dev/null && perf sched record -q -m 64M -o "$tmp/perf.data" -e sched:sched_wakeup -- \
	perf bench sched messaging -g 10 -l 300 >/dev/null 2>&1; then
	perf script --ns -i "$tmp/perf.data" 2>/dev/null | grep -v 'sched_waking:' |
		perl "$src/t/data/agg-perf2scx.pl" >"$tmp/perf.ndjson"
	npe=$(events "$tmp/perf.ndjson")
	# ten runs per measurement: one run is near /usr/bin/time's 10 ms resolution
	loop='for i in 1 2 3 4 5 6 7 8 9 10; do "$0" "$@" >/dev/null 2>&1; done'
	div10() { awk -v s="$1" 'BEGIN { printf "%.4f", s / 10 }'; }
	set -- $(measure sh -c "$loop" perf sched latency -p -i "$tmp/perf.data"); ps=$(div10 "$1") prss=$2
	set -- $(measure sh -c "$loop" "$agg" -b pid "$tmp/perf.ndjson"); as=$(div10 "$1") arss=$2
	set -- $(measure sh -c "$loop" "$agg" -b pid -r all "$tmp/perf.ndjson"); as2=$(div10 "$1")
	ratio=$(awk -v a="$ps" -v b="$as" 'BEGIN { printf "%.1f", (b > 0 ? a / b : 0) }')
	perf_row="| perf sched latency -p (perf.data) | $npe | ${ps}s ($(rate "$npe" "$ps")M/s), ${prss} KiB | 1 |
| scx-agg -g pid (same events, NDJSON) | $npe | ${as}s ($(rate "$npe" "$as")M/s), ${arss} KiB | ${ratio}x faster |
| scx-agg -g pid -r all (same events) | $npe | ${as2}s ($(rate "$npe" "$as2")M/s) | |"
fi

# memory: peak RSS against events, threads and CPUs (--by cpu,llc,node -r all)
mem_rows=
for spec in "1000000 200 8" "4000000 200 8" "4000000 20000 8" "4000000 200 256"; do
	set -- $spec
	"$gen" -f binary -n "$1" -t "$2" -c "$3" -o "$tmp/m.bin"
	set -- $spec $(measure "$agg" -b all -r all "$tmp/m.bin")
	mem_rows="$mem_rows| $1 | $2 | $3 | $5 |
"
done

cat >"$out" <<EOM
# scx-agg

Measured by bench/agg.sh on $(uname -r), $(nproc) CPUs shared with other jobs; CPU time (user+sys)
of one process on one core, best of $REPS runs (load average at the start: $load).  Input from bench/agg-gen (synthetic, self-consistent
switch/waking/migrate/softirq/idle/ipi mix on 8 CPUs, 200 threads), read from the page cache.

| run | events | CPU time | events/s |
|---|---|---|---|
| --by cpu,llc,node -i 1s, binary frames | $nev | ${bin_s}s | $(rate "$nev" "$bin_s")M |
| --by cpu,llc,node -i 1s, NDJSON | $nev | ${nd_s}s | $(rate "$nev" "$nd_s")M |
| --by all -i 1s, binary frames | $nev | ${all_s}s | $(rate "$nev" "$all_s")M |
| engine alone (bench/agg-engine, decoded events in memory), cpu,llc,node | $nev | | ${eng}M |
| engine alone, --by all (every table kept) | $nev | | ${eng_all}M |
| --report all --once, binary | $nsmall | ${rep_s}s (peak ${rep_rss} KiB) | $(rate "$nsmall" "$rep_s")M |

Same events as perf (a live \`perf bench sched messaging -g 10 -l 300\` recorded with
\`perf sched record -m 64M -e sched:sched_wakeup\`; perf reads its perf.data, scx-agg the
conversion by t/data/agg-perf2scx.pl; CPU time per run, from ten runs; perf may lose events while
recording on a loaded machine, both tools then read the same remaining events):

| tool | events | CPU time, peak RSS | ratio |
|---|---|---|---|
$perf_row

Peak RSS of \`scx-agg -g all -r all --once\` (everything kept) by input size (agg-gen attempts),
threads and CPUs:

| events (attempts) | threads | CPUs | peak RSS KiB |
|---|---|---|---|
$mem_rows
Memory grows with threads, not with events or CPUs: with everything kept, each thread's three
latency histograms (wake_lat, rq_delay, slice; dense over the range of values seen) cost about
17 KiB when its values span 1us..30ms, so 20000 busy threads take about 340 MB.  The default
(--by cpu,llc,node, no reports) keeps no per-thread histograms.
EOM
cat "$out"
