#!/bin/sh
# bench/mcp.sh: scx-mcp as an MCP client sees it (bench/mcp-client.c over
# pipes): round trip of a small tool, load_perfetto_trace of the 45.6 MB
# wprof capture, each analysis on it, memory; in the same run the floor set
# by the Perfetto reader alone (scx-perfetto -i).  scxtop cannot be built
# here (no Rust toolchain, no crates.io), so its published figures are the
# comparison.  Writes bench/results/mcp.md.
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=${SCX_BUILD:-$here/../.output}
TRACE=${MCP_BENCH_TRACE:-$here/../../shared/testdata/perfetto/wprof-schedview.pb.zst}
RUNS=${MCP_BENCH_RUNS:-5}
OUT=$here/results/mcp.md
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcp-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

[ -r "$TRACE" ] || { echo "bench/mcp.sh: no trace at $TRACE" >&2; exit 1; }
i=1
while [ $i -le "$RUNS" ]; do
	"$B/bench/mcp-client" "$B/scx-mcp" "$TRACE" 5000 >"$tmp/run.$i" || exit 1
	/usr/bin/time -f "%e %M %U %S" "$B/scx-perfetto" -i "$TRACE" --format binary -o /dev/null \
		2>"$tmp/floor.$i" >/dev/null
	i=$((i + 1))
done
# median of a figure over the runs
med() { cat "$tmp"/run.* | awk -v k="$1" '$1 == k { print $2 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
floor_s=$(tail -qn 1 "$tmp"/floor.* | awk '{ print $1 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
floor_cpu=$(tail -qn 1 "$tmp"/floor.* | awk '{ print ($3 + $4) * 1000 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
floor_kb=$(tail -qn 1 "$tmp"/floor.* | awk '{ print $2 }' | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }')
size=$(zstd -lv "$TRACE" 2>/dev/null | awk '/Decompressed Size/ { gsub(/[(]/, "", $5); print $5 }')
[ -n "$size" ] || size=$(stat -c %s "$TRACE")
load=$(med load)
peak=$(med rss_peak)
loaded=$(med rss_loaded)
maxan=0
for a in $(cat "$tmp/run.1" | awk '/^(analysis|tool)_/ { print $1 }'); do
	v=$(med "$a")
	maxan=$(echo "$v $maxan" | awk '{ print ($1 > $2) ? $1 : $2 }')
done
load_avg=$(cut -d" " -f1 /proc/loadavg)

{
	echo "# scx-mcp benchmark"
	echo
	echo "Machine: $(nproc) CPUs, load average $load_avg at the end of the run (other jobs were running);"
	echo "trace: $(basename "$TRACE") ($size bytes uncompressed, 290k sched events); median of $RUNS runs."
	echo "Times are what a client sees: request written to scx-mcp's stdin until the response line is read."
	echo
	echo "| figure | scx-mcp | target | scxtop (published, 40 MB / 722k-event trace) |"
	echo "|---|---|---|---|"
	echo "| small tool round trip (list_traces), p50 | $(med roundtrip_p50) ms | < 1 ms | - |"
	echo "| small tool round trip, p99 | $(med roundtrip_p99) ms | | - |"
	echo "| ping round trip, mean | $(med ping_avg) ms | | - |"
	echo "| load_perfetto_trace (parse + index + aggregate) | $load ms | < 1000 ms | 10-30 s |"
	echo "| load_perfetto_trace, CPU time of scx-mcp | $(med load_cpu) ms | | |"
	echo "| Perfetto reader alone (scx-perfetto -i, same run), wall / CPU | $(echo "$floor_s" | awk '{ printf "%.0f", $1 * 1000 }') / $floor_cpu ms | | |"
	echo "| peak RSS during load | $peak KiB ($(echo "$peak $size" | awk '{ printf "%.2f", $1 * 1024 / $2 }')x trace) | < 2x | ~200 MB for 40 MB (5x) |"
	echo "| Perfetto reader alone, peak RSS | $floor_kb KiB ($(echo "$floor_kb $size" | awk '{ printf "%.2f", $1 * 1024 / $2 }')x) | | |"
	echo "| RSS with the trace loaded | $loaded KiB ($(echo "$loaded $size" | awk '{ printf "%.2f", $1 * 1024 / $2 }')x) | | |"
	echo "| slowest analysis or trace tool | $maxan ms | < 100 ms | 12-265 ms |"
	echo "| correlate_wakeup_to_schedule (all 77k wakeups) | $(med tool_correlate_wakeup_to_schedule) ms | < 100 ms | 2.3 s |"
	echo
	echo "Each analysis (analyze_trace_scheduling) and trace tool, median ms:"
	echo
	echo "| analysis | ms |"
	echo "|---|---|"
	for a in $(awk '/^(analysis|tool)_/ { print $1 }' "$tmp/run.1"); do
		echo "| ${a#*_} | $(med "$a") |"
	done
	echo
	echo "Ratios against scxtop's published figures (different trace and machine, so indicative):"
	echo "load $(echo "$load" | awk '{ printf "%.0f-%.0fx", 10000 / $1, 30000 / $1 }') faster,"
	echo "wakeup correlation $(med tool_correlate_wakeup_to_schedule | awk '{ printf "%.0fx", 2300 / $1 }') faster,"
	echo "slowest analysis $(echo "$maxan" | awk '{ printf "%.1fx", 265 / $1 }') faster than scxtop's slowest (bottlenecks, 265 ms)."
	echo "The peak during load is set by lib/perfetto_read (its own peak above); the loaded trace"
	echo "itself is kept in ~68 bytes per event."
} >"$OUT"
cat "$OUT"
