#!/bin/sh
# Typed results: every tool declares an outputSchema, and its result
# (structuredContent) validates against it with an independent validator
# (python3-jsonschema, JSON Schema 2020-12), in every mode the calls below
# reach; the text block stays, saying the same for older clients.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

cp "$TDATA/mcp-handmade.pb" h.pb

if python3 -c "import jsonschema" 2>/dev/null; then
	HAVE_JSONSCHEMA=1
else
	HAVE_JSONSCHEMA=
fi

test_expect_success 'every tool declares an object outputSchema that forbids unknown keys' '
	{ init_line; req 1 tools/list; } | mcp >out &&
	resp 1 <out | jq -e "[.result.tools[] | select(.outputSchema.type != \"object\" or
		.outputSchema.additionalProperties != false)] == []" >/dev/null
'

# One call per line, ids from 100; live tools run on the stand-in producer.
n=100
c() { printf '{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"%s","arguments":%s}}\n' $n "$1" "$2"; n=$((n + 1)); }
{
	c load_perfetto_trace '{"file_path":"h.pb"}'
	c list_traces '{}'
	c get_trace_summary '{"trace_id":"h"}'
	c query_trace_events '{"trace_id":"h","limit":2}'
	c query_trace_events '{"trace_id":"h","limit":1,"offset":30}'
	c query_trace_events '{"trace_id":"h","aggregation":{"function":"count_by","field":"cpu"}}'
	c query_trace_events '{"trace_id":"h","aggregation":{"function":"avg","field":"cpu"}}'
	c query_trace_events '{"trace_id":"h","aggregation":{"function":"count"}}'
	c query_trace_events '{"trace_id":"h","aggregation":{"function":"group_by","field":"type"}}'
	c query_trace '{"trace_id":"h","event_type":"sched_switch"}'
	for a in cpu-utilization wakeup-latency outliers bottlenecks; do
		c analyze_trace_scheduling "{\"trace_id\":\"h\",\"analysis_type\":\"$a\"}"
	done
	c discover_analyzers '{}'
	c run_all_analyzers '{"trace_id":"h","limit":1}'
	c find_scheduling_bottlenecks '{"trace_id":"h"}'
	c detect_outliers '{"trace_id":"h","category":"cpu"}'
	c get_process_timeline '{"trace_id":"h","pid":101}'
	c get_process_timeline '{"trace_id":"h","pid":100,"limit":1}'
	c get_cpu_timeline '{"trace_id":"h","cpu":1}'
	c correlate_wakeup_to_schedule '{"trace_id":"h"}'
	c correlate_wakeup_to_schedule '{"trace_id":"h","pid":999999}'
	c export_trace_analysis '{"trace_id":"h","output_path":"e.json"}'
	for a in analyze_cpu_utilization analyze_process_runtime analyze_wakeup_latency \
		 analyze_latency_breakdown analyze_migration_patterns analyze_llc_locality \
		 analyze_task_states analyze_preemptions analyze_wakeup_chains analyze_runqueue_depth \
		 analyze_fairness analyze_dsq analyze_dsq_latency analyze_irq analyze_ipi \
		 analyze_cpu_frequency analyze_cpu_idle analyze_power_state; do
		c $a '{"trace_id":"h"}'
	done
	c get_topology '{}'
	c get_topology '{"detail_level":"full","include_offline":true}'
	c query_stats '{"stat_type":"scheduler"}'
	c query_stats '{"stat_type":"system"}'
	c control_event_tracking '{"action":"status"}'
	c get_perf_results '{}'
	c unload_trace '{"trace_id":"h"}'
} >calls
# the same tools once a capture has run for a while
{
	c control_event_tracking '{"action":"start"}'
	echo SLEEP
	for t in cpu llc node dsq process thread; do c query_stats "{\"stat_type\":\"$t\"}"; done
	c analyze_waker_wakee '{}'
	c analyze_waker_wakee '{"mode":"bidirectional"}'
	c analyze_softirq '{"mode":"by_cpu"}'
	c control_event_tracking '{"action":"status"}'
	c control_event_tracking '{"action":"stop"}'
} >live-calls

test_expect_success 'trace tools: every result validates against its outputSchema (python3-jsonschema)' '
	test -n "$HAVE_JSONSCHEMA" || { echo "python3-jsonschema missing (scripts/deps.sh installs it)"; exit 1; } &&
	{ init_line; req 1 tools/list; cat calls; } | mcp >out &&
	{ python3 "$TDATA/mcp-validate.py" out calls >report || { grep -v "^ok" report; false; }; } &&
	test $(grep -c "^ok" report) = $(wc -l <calls)
'

test_expect_success 'live tools with a capture running: every result validates too' '
	test -n "$HAVE_JSONSCHEMA" || exit 1 &&
	{ init_line; req 1 tools/list; sed "/^SLEEP/d" live-calls | head -n 1; sleep 2.5
	  sed "1,/^SLEEP/d" live-calls; } |
		mcp --events-cmd "$TDATA/mcp-fake-events.sh" >out &&
	grep -v "^SLEEP" live-calls >lc &&
	{ python3 "$TDATA/mcp-validate.py" out lc >report || { grep -v "^ok" report; false; }; } &&
	test $(grep -c "^ok" report) -ge 10
'

test_expect_success 'the schema of list_traces lists exactly the keys it writes' '
	{ init_line; req 1 tools/list; } | mcp >out &&
	resp 1 <out | jq -e "[.result.tools[] | select(.name == \"list_traces\")][0].outputSchema.properties |
		keys == [\"memory_bytes\",\"memory_cap_bytes\",\"traces\"]" >/dev/null
'

test_done
