#!/bin/sh
# bench/mcp-structured-ir.sh: what structured output costs each scx-mcp tool,
# in instructions (valgrind's callgrind), which a loaded machine does not
# blur as it blurs time.  The wprof trace is loaded, then every analysis and
# trace tool of bench/mcp-client is called twice; the second call's whole
# request (read, parse, tool, result, write) is counted, with structured
# output and with SCX_MCP_BENCH_NO_STRUCTURED.  Instructions leave out the
# kernel's share of a round trip (pipe, wake-ups), so the ratios are upper
# bounds on the ratios of time.  Prints a Markdown table on stdout.
# get_topology and flight_trigger read /sys and /proc: their counts move
# with the machine (flight_trigger's with every process running).  It asks
# for pid 1, which is no recorder: without a pid it signalled every flight
# recorder on the machine, and a loaded make check beside the benchmark had
# t/1110's recorder write a window it did not ask for.
# MCP_BENCH_KEEP=DIR keeps the callgrind files there (cg.with.N, cg.without.N:
# dump 2 + 2i is the i-th tool's second call) for callgrind_annotate.
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=${SCX_BUILD:-$here/../.output}
TRACE=${MCP_BENCH_TRACE:-$here/../../shared/testdata/perfetto/wprof-schedview.pb.zst}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/mcp-structured-ir.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

command -v valgrind >/dev/null || { echo "bench/mcp-structured-ir.sh: needs valgrind" >&2; exit 1; }
[ -r "$TRACE" ] || { echo "bench/mcp-structured-ir.sh: no trace at $TRACE" >&2; exit 1; }

req() { printf '{"jsonrpc":"2.0","id":%s,"method":"%s","params":%s}\n' "$1" "$2" "$3"; }
tool() { req "$1" tools/call "{\"name\":\"$2\",\"arguments\":{$3}}"; }

analyses="cpu-utilization process-runtime wakeup-latency latency-breakdown migrations task-states
preemptions wakeup-graph runqueue-depth fairness softirq outliers bottlenecks"
tools="correlate_wakeup_to_schedule| find_scheduling_bottlenecks| detect_outliers| run_all_analyzers|
get_trace_summary| get_cpu_timeline|,\"cpu\":0 get_process_timeline|,\"pid\":1
query_trace_events|,\"event_type\":\"sched_switch\",\"aggregation\":{\"function\":\"count_by\",\"field\":\"next_comm\"}
list_traces| discover_analyzers| compare_traces|,\"trace_a\":\"t\",\"trace_b\":\"t\"
export_trace_analysis|,\"output_path\":\"$tmp/export.json\",\"overwrite\":true
analyze_cgroups|,\"mode\":\"preemptions\" get_topology|\"detail_level\":\"full\" flight_trigger|\"pid\":1"
{
	req 0 initialize '{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}'
	tool 1 load_perfetto_trace "\"file_path\":\"$TRACE\",\"trace_id\":\"t\""
	id=2
	for a in $analyses; do
		for k in 1 2; do
			tool $id analyze_trace_scheduling "\"trace_id\":\"t\",\"analysis_type\":\"$a\""
			id=$((id + 1))
		done
		echo "$a" >>"$tmp/names"
	done
	for t in $tools; do
		name=${t%%|*}
		args=${t#*|}
		case $name in
		list_traces | discover_analyzers | get_topology | flight_trigger) targs=$args ;;
		*) targs="\"trace_id\":\"t\"$args" ;;
		esac
		for k in 1 2; do
			tool $id "$name" "$targs"
			id=$((id + 1))
		done
		echo "$name" >>"$tmp/names"
	done
} >"$tmp/req"

for m in with without; do
	if [ $m = without ]; then
		export SCX_MCP_BENCH_NO_STRUCTURED=1
	fi
	valgrind --tool=callgrind --dump-after=handle_line --callgrind-out-file="$tmp/cg.$m" \
		"$B/scx-mcp" --root / <"$tmp/req" >"$tmp/out.$m" 2>"$tmp/err.$m" ||
		{ cat "$tmp/err.$m" >&2; exit 1; }
	unset SCX_MCP_BENCH_NO_STRUCTURED
	if [ -n "${MCP_BENCH_KEEP:-}" ]; then
		mkdir -p "$MCP_BENCH_KEEP" && cp "$tmp"/cg.$m.* "$tmp/names" "$MCP_BENCH_KEEP/"
	fi
	# dumps: 1 initialize, 2 load, then two per tool: keep the second
	n=$(wc -l <"$tmp/names")
	i=1
	while [ $i -le "$n" ]; do
		awk '/^summary:/ { print $2 }' "$tmp/cg.$m.$((2 + 2 * i))"
		i=$((i + 1))
	done >"$tmp/ir.$m"
done
echo "| tool | instructions with | without | ratio |"
echo "|---|---|---|---|"
paste "$tmp/names" "$tmp/ir.with" "$tmp/ir.without" |
	awk '{ printf "| %s | %d | %d | %.3f |\n", $1, $2, $3, $2 / $3 }'
