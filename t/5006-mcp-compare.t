#!/bin/sh
# scx-mcp compare_traces: scx-agg diff of two loaded traces.  A and B are
# t/2005-agg-diff.t's streams (200 wakeups of one task, run 1000 and 2000 ns
# after their sched_waking): B against A has the 12 regressions worked out
# there; a trace against itself has none.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

gen() {
	awk -v lat="$1" 'BEGIN {
		print "{\"type\":\"header\",\"version\":1,\"producer\":\"hand\",\"clock\":\"boottime\",\"hostname\":\"t\",\"kernel\":\"6.18\",\"nr_cpus\":2,\"topology\":[{\"cpu\":0,\"core\":0,\"llc\":0,\"node\":0,\"online\":true},{\"cpu\":1,\"core\":1,\"llc\":0,\"node\":0,\"online\":true}],\"scheduler\":null,\"options\":{},\"start_ns\":0}"
		sw = "{\"ts\":%d,\"cpu\":1,\"type\":\"sched_switch\",\"prev_pid\":%d,\"prev_tgid\":%d,\"prev_comm\":\"%s\",\"prev_prio\":120,\"prev_state\":%d,\"next_pid\":%d,\"next_tgid\":%d,\"next_comm\":\"%s\",\"next_prio\":120}\n"
		printf sw, 500, 100, 100, "t", 1, 0, 0, "swapper/1"
		for (i = 0; i < 200; i++) {
			t = 10000 * i + 1000
			printf "{\"ts\":%d,\"cpu\":0,\"type\":\"sched_waking\",\"pid\":100,\"tgid\":100,\"comm\":\"t\",\"prio\":120,\"target_cpu\":1,\"waker_pid\":0,\"waker_tgid\":0}\n", t
			printf sw, t + lat, 0, 0, "swapper/1", 0, 100, 100, "t"
			printf sw, t + lat + 500, 100, 100, "t", 1, 0, 0, "swapper/1"
		}
	}'
}

test_expect_success JQ 'compare_traces: regressions of B against A, none against itself' '
	gen 1000 >a.ndjson &&
	gen 2000 >b.ndjson &&
	{ init_line
	  call 1 load_perfetto_trace "{\"file_path\":\"a.ndjson\",\"trace_id\":\"a\"}"
	  call 2 load_perfetto_trace "{\"file_path\":\"b.ndjson\",\"trace_id\":\"b\"}"
	  call 3 compare_traces "{\"trace_a\":\"a\",\"trace_b\":\"b\",\"limit\":3}"
	  call 4 compare_traces "{\"trace_a\":\"a\",\"trace_b\":\"a\"}"
	  call 5 compare_traces "{\"trace_a\":\"a\",\"trace_b\":\"nope\"}"
	} | mcp >out &&
	text 3 <out | jq -e ".regressions == 12 and (.verdict | startswith(\"B is worse than A: 12 regressions\"))
		and .report.tables.comparison.rows[0].verdict == \"regression\"
		and (.report.tables.comparison.rows | length) == 3" >/dev/null &&
	text 4 <out | jq -e ".regressions == 0 and (.verdict | startswith(\"no change beyond noise\"))" >/dev/null &&
	test "$(iserr 5 <out)" = true
'

test_done
