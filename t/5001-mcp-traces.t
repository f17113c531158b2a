#!/bin/sh
# scx-mcp trace tools on traces whose contents are known: the handmade
# Perfetto trace (expected slices from shared/testdata/README.md, worked out
# from trace_processor's rules), its scx-events NDJSON form, and the wprof
# capture (cross-checked against the aggregation engine).
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

cp "$TDATA/mcp-handmade.pb" h.pb

test_expect_success 'load, summary: every event of the handmade trace by type' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"; call 2 get_trace_summary "{\"trace_id\":\"h\"}"; } | mcp >out &&
	test "$(iserr 1 <out)" = false &&
	text 1 <out | jq -e ".trace_id == \"h\" and .events == 28 and .format == \"perfetto\"" >/dev/null &&
	text 2 <out | jq -c .events_by_type >got &&
	echo "{\"sched_switch\":6,\"sched_waking\":1,\"sched_wakeup\":1,\"sched_wakeup_new\":1,\"sched_migrate_task\":1,\"sched_process_fork\":1,\"sched_process_exec\":1,\"sched_process_exit\":1,\"sched_process_free\":1,\"softirq_entry\":1,\"softirq_exit\":1,\"ipi_send\":1,\"cpu_frequency\":2,\"cpu_idle\":4,\"irq_entry\":1,\"irq_exit\":1,\"task_rename\":1,\"ipi_entry\":1,\"ipi_exit\":1}" >want &&
	test_cmp want got &&
	text 2 <out | jq -e ".first_ts_ns == 10000 and .last_ts_ns == 20000 and .cpus == 2" >/dev/null
'

test_expect_success 'cpu timelines are the slices trace_processor derives' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 get_cpu_timeline "{\"trace_id\":\"h\",\"cpu\":0}"; call 3 get_cpu_timeline "{\"trace_id\":\"h\",\"cpu\":1}"; } | mcp >out &&
	text 2 <out | jq -c "[.slices[] | [.start_ns, .dur_ns, .pid, .end_state]]" >got0 &&
	echo "[[10000,3000,100,\"S\"],[13000,2100,102,\"X\"]]" >want0 && test_cmp want0 got0 &&
	text 3 <out | jq -c "[.slices[] | [.start_ns, .dur_ns, .pid, .end_state]]" >got1 &&
	echo "[[10500,700,50,\"R+\"],[11200,2800,101,\"D\"]]" >want1 && test_cmp want1 got1
'

test_expect_success 'wakeup to schedule: waking 101 at 11000 runs at 11200; wakeup_new 102 at 12100 runs at 13000' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 correlate_wakeup_to_schedule "{\"trace_id\":\"h\"}"
	  call 3 correlate_wakeup_to_schedule "{\"trace_id\":\"h\",\"pid\":101}"; } | mcp >out &&
	text 2 <out | jq -c "[.slowest[] | [.pid, .wakeup_ts_ns, .schedule_ts_ns, .latency_ns, .waker_pid, .run_cpu]]" >got &&
	echo "[[102,12100,13000,900,100,0],[101,11000,11200,200,100,1]]" >want && test_cmp want got &&
	text 2 <out | jq -e ".summary.count == 2 and .summary.min_ns == 200 and .summary.max_ns == 900 and .summary.avg_ns == 550" >/dev/null &&
	text 3 <out | jq -e ".summary.count == 1 and .slowest[0].latency_ns == 200" >/dev/null
'

test_expect_success 'process timeline of 101: two wakeups, one 2800 ns run ending in D' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 get_process_timeline "{\"trace_id\":\"h\",\"pid\":101}"; } | mcp >out &&
	text 2 <out | jq -e ".summary == {\"run_slices\":1,\"runtime_ns\":2800,\"wakeups\":2,\"migrations\":0} and
		.comm == \"worker\" and ([.timeline[].type] == [\"sched_waking\",\"sched_wakeup\",\"run\"])" >/dev/null
'

test_expect_success 'query_trace_events: type, paging, pid, field filters, aggregations' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 query_trace_events "{\"trace_id\":\"h\",\"event_type\":\"sched_switch\",\"limit\":2,\"offset\":2}"
	  call 3 query_trace_events "{\"trace_id\":\"h\",\"pid\":50}"
	  call 4 query_trace_events "{\"trace_id\":\"h\",\"event_type\":\"sched_switch\",\"field_filters\":[{\"field\":\"prev_state\",\"operator\":\"equal\",\"value\":1}]}"
	  call 5 query_trace_events "{\"trace_id\":\"h\",\"field_filters\":[{\"field\":\"comm\",\"operator\":\"contains\",\"value\":\"work\"}]}"
	  call 6 query_trace "{\"trace_id\":\"h\",\"event_type\":\"sched_switch\",\"aggregation\":{\"function\":\"count_by\",\"field\":\"cpu\"}}"
	  call 7 query_trace_events "{\"trace_id\":\"h\",\"event_type\":\"cpu_frequency\",\"aggregation\":{\"function\":\"max\",\"field\":\"khz\"}}"
	  call 8 query_trace_events "{\"trace_id\":\"h\",\"start_time_ns\":14000,\"end_time_ns\":15000,\"aggregation\":{\"function\":\"count\"}}"
	  call 9 query_trace_events "{\"trace_id\":\"h\",\"event_type\":\"bogus\"}"
	  call 10 query_trace_events "{\"trace_id\":\"h\",\"field_filters\":[{\"field\":\"x\",\"operator\":\"like\",\"value\":1}]}"
	} | mcp >out &&
	text 2 <out | jq -e "[.events[].ts] == [11200,13000] and .matched == 6 and .next_offset == 4" >/dev/null &&
	text 3 <out | jq -e "[.events[] | [.ts, .type]] == [[10500,\"sched_switch\"],[11100,\"sched_wakeup\"],[11200,\"sched_switch\"],[12500,\"sched_migrate_task\"]]" >/dev/null &&
	text 4 <out | jq -e "[.events[].ts] == [13000]" >/dev/null &&
	text 5 <out | jq -e "[.events[].ts] == [11000,11100,12500]" >/dev/null &&
	text 6 <out | jq -e ".groups == [{\"value\":0,\"count\":3},{\"value\":1,\"count\":3}]" >/dev/null &&
	text 7 <out | jq -e ".count == 2 and .max == 2400000" >/dev/null &&
	text 8 <out | jq -e ".matched == 5" >/dev/null &&
	test "$(iserr 9 <out)" = true && test "$(iserr 10 <out)" = true
'

test_expect_success 'an scx-events NDJSON stream loads like the Perfetto trace it came from' '
	scx-perfetto -i h.pb -o h.ndjson &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.ndjson\",\"trace_id\":\"s\"}"
	  call 2 get_cpu_timeline "{\"trace_id\":\"s\",\"cpu\":1}"; call 3 get_trace_summary "{\"trace_id\":\"s\"}"; } | mcp >out &&
	text 3 <out | jq -e ".events == 28 and .format == \"scx-ndjson\"" >/dev/null &&
	text 2 <out | jq -c "[.slices[] | [.start_ns, .dur_ns, .pid, .end_state]]" >got &&
	echo "[[10500,700,50,\"R+\"],[11200,2800,101,\"D\"]]" >want && test_cmp want got
'

test_expect_success 'loading refuses paths outside the roots, bad ids, duplicates and corrupt files' '
	mkdir -p in && cp h.pb in/ && head -c 5000 /dev/urandom >in/junk.pb && printf "\012\377\377\377\377\017" >in/trunc.pb &&
	ln -s /etc in/etc && ln -s ../h.pb in/up.pb &&
	{ init_line
	  call 1 load_perfetto_trace "{\"file_path\":\"/etc/passwd\"}"
	  call 2 load_perfetto_trace "{\"file_path\":\"../h.pb\"}"
	  call 3 load_perfetto_trace "{\"file_path\":\"etc/passwd\"}"
	  call 4 load_perfetto_trace "{\"file_path\":\"up.pb\"}"
	  call 5 load_perfetto_trace "{\"file_path\":\"h.pb\",\"trace_id\":\"../x\"}"
	  call 6 load_perfetto_trace "{\"file_path\":\"h.pb\",\"trace_id\":\"a\"}"
	  call 7 load_perfetto_trace "{\"file_path\":\"h.pb\",\"trace_id\":\"a\"}"
	  call 8 load_perfetto_trace "{\"file_path\":\"junk.pb\"}"
	  call 9 load_perfetto_trace "{\"file_path\":\"missing.pb\"}"
	  call 10 load_perfetto_trace "{\"file_path\":\"trunc.pb\"}"
	  call 11 list_traces "{}"
	} | mcp --root in >out &&
	for i in 1 2 3 4; do test "$(iserr $i <out)" = true && text $i <out | grep "outside the directories" || exit 1; done &&
	test "$(iserr 5 <out)" = true && text 5 <out | grep "not valid" &&
	test "$(iserr 6 <out)" = false &&
	test "$(iserr 7 <out)" = true && text 7 <out | grep "already loaded" &&
	test "$(iserr 8 <out)" = true && text 8 <out | grep "cannot load" &&
	test "$(iserr 9 <out)" = true && text 9 <out | grep "No such file" &&
	test "$(iserr 10 <out)" = true &&
	text 11 <out | jq -e "[.traces[].trace_id] == [\"a\"]" >/dev/null
'

test_expect_success 'analyses: scx-agg reports, scxtop aliases, unknown names' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 analyze_trace_scheduling "{\"trace_id\":\"h\",\"analysis_type\":\"cpu-utilization\"}"
	  call 3 analyze_trace_scheduling "{\"trace_id\":\"h\",\"analysis_type\":\"wakeup_chains\"}"
	  call 4 analyze_trace_scheduling "{\"trace_id\":\"h\",\"analysis_type\":\"astrology\"}"
	  call 5 find_scheduling_bottlenecks "{\"trace_id\":\"h\"}"
	  call 6 detect_outliers "{\"trace_id\":\"h\",\"method\":\"MAD\"}"
	  call 7 discover_analyzers "{}"
	  call 8 detect_outliers "{\"trace_id\":\"h\",\"method\":\"tarot\"}"
	  call 9 analyze_cpu_utilization "{\"trace_id\":\"h\"}"
	  call 10 analyze_wakeup_chains "{\"trace_id\":\"h\"}"
	  call 11 detect_outliers "{\"trace_id\":\"h\",\"category\":\"cpu\"}"
	} | mcp >out &&
	text 11 <out | jq -e ".report.tables.cpus.rows == [] and (.note | startswith(\"fewer than 4 cpus\"))" >/dev/null &&
	text 2 <out | jq -e ".analysis == \"cpu-utilization\" and (.report.tables.cpus.rows | length) == 2" >/dev/null &&
	text 3 <out | jq -e ".analysis == \"wakeup-graph\" and .report.report == \"wakeup-graph\"" >/dev/null &&
	test "$(iserr 4 <out)" = true && text 4 <out | grep "one of: cpu-utilization, process-runtime" &&
	text 5 <out | jq -e ".report.report == \"bottlenecks\"" >/dev/null &&
	text 6 <out | jq -e ".report.report == \"outliers\" and .method == \"MAD\" and
		([.report.tables[].rows[].method] - [\"mad\"]) == []" >/dev/null &&
	text 7 <out | jq -e ".analyses | length == 24" >/dev/null &&
	test "$(iserr 8 <out)" = true &&
	test "$(text 9 <out | jq -c .report.tables)" = "$(text 2 <out | jq -c .report.tables)" &&
	text 10 <out | jq -e ".analysis == \"wakeup-graph\"" >/dev/null
'

# t/data/agg-cpu-outliers.ndjson (see t/2000-agg.t): of 16 cpus, cpu 3 is
# busy 90% against 10..25% and cpu 15's task waits 50 us against 1..2.4 us;
# their tasks are 1003 (runtime) and 1015 (wakeup latency).
test_expect_success 'detect_outliers: category cpu ranks cpus, by every method' '
	cp "$TDATA/agg-cpu-outliers.ndjson" c.ndjson &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"c.ndjson\",\"trace_id\":\"c\"}"
	  call 2 detect_outliers "{\"trace_id\":\"c\",\"method\":\"IQR\",\"category\":\"cpu\"}"
	  call 3 detect_outliers "{\"trace_id\":\"c\",\"method\":\"MAD\",\"category\":\"cpu\"}"
	  call 4 detect_outliers "{\"trace_id\":\"c\",\"method\":\"StdDev\",\"category\":\"cpu\"}"
	  call 5 detect_outliers "{\"trace_id\":\"c\",\"method\":\"Percentile\",\"category\":\"cpu\"}"
	  call 6 detect_outliers "{\"trace_id\":\"c\",\"method\":\"IQR\",\"category\":\"latency\"}"
	  call 7 detect_outliers "{\"trace_id\":\"c\",\"method\":\"IQR\"}"
	} | mcp >out &&
	for id in 2 3 4 5; do
		text $id <out | jq -c "[.report.tables.cpus.rows[] | [.metric, .cpu, .value]] | sort" >got &&
		echo "[[\"cpu_rq_delay_p99\",15,50000],[\"cpu_util\",3,90],[\"cpu_wake_lat_p99\",15,50000]]" >want &&
		test_cmp want got &&
		text $id <out | jq -e ".category == \"cpu\" and .note == null and .report.tables.outliers.rows == [] and
			([.report.tables.thresholds.rows[].metric] | length == 5 and all(startswith(\"cpu_\")))" >/dev/null ||
		return 1
	done &&
	text 6 <out | jq -e ".report.tables.cpus.rows == [] and
		([.report.tables.outliers.rows[] | [.metric, .pid]] | sort) == [[\"rq_delay_max\",1015],[\"wake_lat_max\",1015],[\"wake_lat_p99\",1015]]" >/dev/null &&
	text 7 <out | jq -e ".category == \"all\" and (.report.tables.cpus.rows | length) == 3 and
		([.report.tables.outliers.rows[].pid] | sort) == [1003,1015,1015,1015] and
		(.report.tables.thresholds.rows | length) == 10" >/dev/null
'

test_expect_success 'wakeup-graph of a loaded trace has the mutual pairs' '
	cp "$TDATA/agg-mutual.ndjson" m.ndjson &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"m.ndjson\",\"trace_id\":\"m\"}"
	  call 2 analyze_trace_scheduling "{\"trace_id\":\"m\",\"analysis_type\":\"wakeup-graph\"}"; } | mcp >out &&
	text 2 <out | jq -c "[.report.tables.mutual.rows[] | [.pid_a, .pid_b, .a_wakes_b, .b_wakes_a]]" >got &&
	echo "[[100,200,2,1]]" >want && test_cmp want got
'

test_expect_success 'per-cgroup run-queue delay and preemptions of a loaded trace (t/2013)' '
	cp "$TDATA/agg-cgroup.ndjson" c.ndjson &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"c.ndjson\",\"trace_id\":\"c\"}"
	  call 2 analyze_trace_scheduling "{\"trace_id\":\"c\",\"analysis_type\":\"cgroup-latency\"}"
	  call 3 analyze_trace_scheduling "{\"trace_id\":\"c\",\"analysis_type\":\"cgroup_preemptions\"}"; } | mcp >out &&
	text 2 <out | jq -c "[.report.tables.cgroups.rows[] | [.cgroup, .runtime, .rq_p99]] | sort" >got &&
	echo "[[\"(unknown)\",1000,0],[\"/a/x\",5000,2000],[\"/a/y\",2000,1000],[\"/b/z\",7000,1000],[\"id:99\",1000,0]]" >want &&
	test_cmp want got &&
	text 3 <out | jq -c "[.report.tables.pairs.rows[] | [.preempted, .preemptor, .count, .wait]]" >got &&
	echo "[[\"/a/x\",\"/a/y\",1,2000],[\"/b/z\",\"id:99\",1,1000]]" >want &&
	test_cmp want got
'

# an NDJSON trace of 2000 switches: 0..1999 us on cpu 0, pids 1000+i
awk 'BEGIN {
	print "{\"type\":\"header\",\"version\":1,\"producer\":\"t\",\"clock\":\"boottime\",\"nr_cpus\":1}"
	for (i = 0; i < 2000; i++)
		printf "{\"ts\":%d,\"cpu\":0,\"type\":\"sched_switch\",\"prev_pid\":%d,\"prev_tgid\":%d,\"prev_comm\":\"p\",\"prev_prio\":120,\"prev_state\":1,\"next_pid\":%d,\"next_tgid\":%d,\"next_comm\":\"p\",\"next_prio\":120}\n", (i + 1) * 1000, 999 + i, 999 + i, 1000 + i, 1000 + i
}' >big.ndjson

test_expect_success 'results stay under --max-result, say what was cut, and page with offset' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 run_all_analyzers "{\"trace_id\":\"h\",\"limit\":100}"; } | mcp --max-result 6K >out &&
	n=$(text 2 <out | wc -c) && test $n -lt 6144 &&
	text 2 <out | jq -e ".truncated.omitted > 0 and (.reports | length) > 0" >/dev/null &&
	off=0 && total=0 && pages=0 &&
	while :; do
		{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"big.ndjson\"}"
		  call 2 query_trace_events "{\"trace_id\":\"big\",\"limit\":10000,\"offset\":$off}"; } |
			mcp --max-result 16K >out
		test $(text 2 <out | wc -c) -lt 16384
		text 2 <out | jq -e ".events[0].ts == ($off + 1) * 1000" >/dev/null
		total=$((total + $(text 2 <out | jq .returned)))
		pages=$((pages + 1))
		off=$(text 2 <out | jq ".next_offset // empty")
		[ -n "$off" ] || break
		text 2 <out | jq -e ".truncated.reason | test(\"offset\")" >/dev/null
	done &&
	test $total = 2000 && test $pages -gt 10
'

test_expect_success 'export writes JSON under a root only' '
	mkdir -p exp && ln -s /tmp exp/tmp &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"exp/a.json\",\"analysis_types\":[\"cpu_utilization\",\"fairness\"]}"
	  call 3 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"/tmp/scx-mcp-test-escape.json\"}"
	  call 4 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"exp/tmp/scx-mcp-test-escape.json\"}"
	  call 5 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"exp/../../scx-mcp-test-escape.json\"}"
	  call 6 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"exp/b.json\",\"analysis_types\":[\"nope\"]}"
	} | mcp >out &&
	text 2 <out | jq -e ".analyses == 2" >/dev/null &&
	jq -e "(.reports | keys) == [\"cpu-utilization\",\"fairness\"] and .summary.events == 28" exp/a.json >/dev/null &&
	for i in 3 4 5; do test "$(iserr $i <out)" = true || exit 1; done &&
	test ! -e /tmp/scx-mcp-test-escape.json && test ! -e ../scx-mcp-test-escape.json &&
	test "$(iserr 6 <out)" = true && test ! -e exp/b.json
'

test_expect_success 'only regular files: a FIFO or a device is refused at once, the server stays responsive' '
	mkdir -p rf && mkfifo rf/fifo && cp h.pb rf/ &&
	{ init_line
	  call 1 load_perfetto_trace "{\"file_path\":\"fifo\"}"
	  call 2 load_perfetto_trace "{\"file_path\":\"/dev/zero\"}"
	  call 3 load_perfetto_trace "{\"file_path\":\"/dev/null\"}"
	  call 4 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 5 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"fifo\",\"overwrite\":true}"
	  call 6 load_perfetto_trace "{\"file_path\":\"/dev\"}"
	  req 7 ping
	} | mcp --root rf --root /dev >out &&
	for i in 1 2 3 5 6; do
		test "$(iserr $i <out)" = true && text $i <out | grep "not a regular file" || exit 1
	done &&
	test "$(iserr 4 <out)" = false && test "$(resp 7 <out | jq -c .result)" = "{}"
'

test_expect_success 'empty files are not traces; load errors name the file' '
	: >empty.pb && : >empty.ndjson && head -c 300 /dev/urandom | tr "\012" x | sed "1s/^/\\x0a/" >bad.pb &&
	printf "{\"type\":\"header\",\"version\":1}\n" >noev.ndjson &&
	{ init_line
	  call 1 load_perfetto_trace "{\"file_path\":\"empty.pb\"}"
	  call 2 load_perfetto_trace "{\"file_path\":\"empty.ndjson\"}"
	  call 3 load_perfetto_trace "{\"file_path\":\"bad.pb\"}"
	  call 4 load_perfetto_trace "{\"file_path\":\"noev.ndjson\"}"
	  call 5 list_traces "{}"
	} | mcp >out &&
	test "$(iserr 1 <out)" = true && text 1 <out | grep "empty.pb.: the file is empty" &&
	test "$(iserr 2 <out)" = true && text 2 <out | grep "the file is empty" &&
	test "$(iserr 3 <out)" = true && text 3 <out | grep "Perfetto trace (bad.pb: byte" &&
	test "$(iserr 4 <out)" = true && text 4 <out | grep "noev.ndjson" &&
	text 5 <out | jq -e ".traces == []" >/dev/null
'

test_expect_success 'a Perfetto file larger than the memory cap is refused before it is read' '
	{ cat h.pb; head -c 2000000 /dev/zero; } >big.pb &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"big.pb\"}"; } | mcp --max-trace-memory 1M >out &&
	test "$(iserr 1 <out)" = true && text 1 <out | grep "big.pb. is 2000954 bytes, more than the"
'

test_expect_success 'export creates new files only; overwrite replaces a file that has no other link' '
	mkdir -p ow && echo keep >ow/old.json && ln ow/old.json hardlink.json && echo mine >ow/mine.json &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"h.pb\"}"
	  call 3 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"ow/old.json\",\"overwrite\":true}"
	  call 4 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"ow/mine.json\"}"
	  call 5 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"ow/mine.json\",\"overwrite\":true}"
	  req 6 tools/list
	} | mcp >out &&
	test "$(iserr 2 <out)" = true && text 2 <out | grep "exists; export_trace_analysis creates new files only" &&
	cmp h.pb "$TDATA/mcp-handmade.pb" &&
	test "$(iserr 3 <out)" = true && text 3 <out | grep "hard links" && test "$(cat hardlink.json)" = keep &&
	test "$(iserr 4 <out)" = true && text 4 <out | grep "mine.json. exists" &&
	test "$(iserr 5 <out)" = false && jq -e ".summary.events == 28" ow/mine.json >/dev/null &&
	resp 6 <out | jq -e "[.result.tools[] | select(.name == \"export_trace_analysis\")][0] |
		.annotations.destructiveHint == true and .inputSchema.properties.overwrite.type == \"boolean\"" >/dev/null
'

test_expect_success 'wakeup correlation with no pairs is an empty answer (no NULL memcpy under UBSan)' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 correlate_wakeup_to_schedule "{\"trace_id\":\"h\",\"pid\":999999}"; req 3 ping; } | mcp >out &&
	text 2 <out | jq -e ".summary.count == 0 and .slowest == []" >/dev/null &&
	test "$(resp 3 <out | jq -c .result)" = "{}"
'

test_expect_success 'each loaded trace is a resource; list_changed on load and unload' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  req 2 resources/list; req 3 resources/read "{\"uri\":\"trace://h\"}"
	  req 4 completion/complete "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"trace://{trace_id}\"},\"argument\":{\"name\":\"trace_id\",\"value\":\"\"}}"
	  call 5 unload_trace "{\"trace_id\":\"h\"}"; req 6 resources/read "{\"uri\":\"trace://h\"}"; } | mcp >out &&
	test $(jq -c "select(.method == \"notifications/resources/list_changed\")" out | wc -l) = 2 &&
	resp 2 <out | jq -e "[.result.resources[].uri] | index(\"trace://h\") != null" >/dev/null &&
	resp 3 <out | jq -e ".result.contents[0].text | fromjson | .events == 28" >/dev/null &&
	test "$(resp 4 <out | jq -c .result.completion.values)" = "[\"h\"]" &&
	text 5 <out | jq -e ".unloaded == \"h\" and .freed_bytes > 0" >/dev/null &&
	test "$(errcode 6 <out)" = -32002
'

test_expect_success SHARED 'wprof capture: counts, and wakeup latency agrees with the aggregation engine' '
	cp "$SHARED/testdata/perfetto/wprof-schedview.pb.zst" w.pb.zst &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"w.pb.zst\",\"trace_id\":\"w\"}"
	  call 2 correlate_wakeup_to_schedule "{\"trace_id\":\"w\",\"limit\":1}"
	  call 3 analyze_trace_scheduling "{\"trace_id\":\"w\",\"analysis_type\":\"wakeup-latency\",\"limit\":1}"; } | mcp >out &&
	text 1 <out | jq -e ".events == 290350 and .producer == \"perfetto:wprof\"" >/dev/null &&
	a=$(text 2 <out | jq ".summary.count") && b=$(text 3 <out | jq ".report.tables.summary.rows[0].wake_lat.count") &&
	test "$a" = "$b" && test "$a" -gt 1000 &&
	a=$(text 2 <out | jq ".summary.max_ns") && b=$(text 3 <out | jq ".report.tables.summary.rows[0].wake_lat.max") &&
	test "$a" = "$b"
'

test_expect_success SHARED 'detect_outliers keeps only the asked method and category' '
	cp "$SHARED/testdata/perfetto/wprof-schedview.pb.zst" w.pb.zst &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"w.pb.zst\",\"trace_id\":\"w\"}"
	  call 2 detect_outliers "{\"trace_id\":\"w\",\"method\":\"StdDev\",\"category\":\"runtime\",\"limit\":1000}"
	  call 3 detect_outliers "{\"trace_id\":\"w\",\"method\":\"IQR\",\"category\":\"latency\",\"limit\":1000}"; } | mcp >out &&
	text 2 <out | jq -e "([.report.tables[].rows[].method] | unique) == [\"stddev\"] and
		([.report.tables[].rows[].metric] | unique | all(. == \"runtime\" or . == \"switches\"))" >/dev/null &&
	text 3 <out | jq -e "([.report.tables[].rows[].method] | unique) == [\"iqr\"] and
		([.report.tables[].rows[].metric] | all(test(\"lat|delay\")))" >/dev/null
'

test_expect_success SHARED 'the trace memory cap is enforced' '
	cp "$SHARED/testdata/perfetto/wprof-schedview.pb.zst" w.pb.zst &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"w.pb.zst\"}"; call 2 list_traces "{}"; } | mcp --max-trace-memory 4M >out &&
	test "$(iserr 1 <out)" = true && text 1 <out | grep "memory cap" &&
	text 2 <out | jq -e ".traces == []" >/dev/null
'

test_done
