#!/bin/sh
# The tools moved after the trace tools (t/5018) to results written from
# their outputSchema tables: compare_traces, export_trace_analysis,
# discover_analyzers, flight_trigger, the analyses (analyze_trace_scheduling,
# its scxtop aliases, find_scheduling_bottlenecks, run_all_analyzers), the
# timelines, correlate_wakeup_to_schedule and analyze_cgroups.  Their
# results, byte for byte, are the ones the hand-written writers gave
# (t/data/mcp-table-records.golden was made by them); what a time moves is
# masked: load_ms, and the exported file's size, which holds it.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

cp "$TDATA/mcp-handmade.pb" h.pb
cp "$TDATA/agg-cgroup.ndjson" c.ndjson
cp "$TDATA/agg-cpu-outliers.ndjson" o.ndjson

# a stand-in flight recorder: named scx-events, started with --flight, and
# living through the SIGUSR1 it is sent
perl -e 'exec {$^X} "scx-events", "-e",
	q{$SIG{USR1} = sub {}; open(my $f, ">", "ready"); close $f; sleep 1 for 1..600},
	"--", "--flight"' &
fake=$!
trap 'kill $fake 2>/dev/null; cd /; rm -rf "$TRASH"' EXIT
w=0
while [ ! -e ready ] && [ $w -lt 600 ]; do sleep 0.1; w=$((w + 1)); done

# masked as the header says
mask() {
	sed -e 's/\("load_ms\\\{0,1\}"\):[0-9.e+-]*/\1:T/g' -e 's/\("bytes\\\{0,1\}"\):[0-9]*/\1:N/g' \
	    -e "s#$PWD/##g" -e "s/\"pid\":$fake,/\"pid\":P,/"
}
# the text of each result, or its error
results() {
	jq -r 'select(.id > 0) | .result | if .isError then "error: " + .content[0].text
		else .content[0].text end' | mask
}

test_expect_success JQ 'results: the bytes the hand-written writers gave' '
	test -e ready &&
	{ init_line
	  call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 load_perfetto_trace "{\"file_path\":\"c.ndjson\"}"
	  call 3 load_perfetto_trace "{\"file_path\":\"o.ndjson\"}"
	  call 4 discover_analyzers "{}"
	  call 5 compare_traces "{\"trace_a\":\"c\",\"trace_b\":\"o\",\"limit\":2}"
	  call 6 compare_traces "{\"trace_a\":\"h\",\"trace_b\":\"h\",\"limit\":1}"
	  call 7 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"e.json\",\"analysis_types\":[\"cpu_util\",\"ipi\"]}"
	  call 8 export_trace_analysis "{\"trace_id\":\"h\",\"output_path\":\"e.json\"}"
	  call 9 analyze_trace_scheduling "{\"trace_id\":\"c\",\"analysis_type\":\"cgroup-latency\",\"limit\":2}"
	  call 10 analyze_trace_scheduling "{\"trace_id\":\"o\",\"analysis_type\":\"wakeup_chains\",\"limit\":1}"
	  call 11 analyze_wakeup_latency "{\"trace_id\":\"h\",\"limit\":2}"
	  call 12 find_scheduling_bottlenecks "{\"trace_id\":\"o\",\"limit\":2}"
	  call 13 detect_outliers "{\"trace_id\":\"o\",\"category\":\"cpu\",\"limit\":2}"
	  call 14 get_process_timeline "{\"trace_id\":\"h\",\"pid\":101,\"limit\":2}"
	  call 15 get_process_timeline "{\"trace_id\":\"c\",\"pid\":0,\"limit\":2}"
	  call 16 get_cpu_timeline "{\"trace_id\":\"h\",\"cpu\":1,\"limit\":2}"
	  call 17 correlate_wakeup_to_schedule "{\"trace_id\":\"o\",\"limit\":1}"
	  call 18 correlate_wakeup_to_schedule "{\"trace_id\":\"h\",\"pid\":0}"
	  call 19 analyze_cgroups "{\"trace_id\":\"c\",\"mode\":\"preemptions\",\"limit\":1}"
	  call 20 analyze_cgroups "{\"trace_id\":\"c\",\"cgroup\":\"/nowhere\"}"
	  call 21 flight_trigger "{\"pid\":$fake}"
	  call 22 flight_trigger "{\"pid\":1}"
	} | mcp >out &&
	results <out >got &&
	mask <e.json >>got &&
	# without resource links (2025-03-26), and cut to fit 4 KB
	{ init_line 2025-03-26
	  call 1 load_perfetto_trace "{\"file_path\":\"o.ndjson\"}"
	  call 2 export_trace_analysis "{\"trace_id\":\"o\",\"output_path\":\"f.json\",\"analysis_types\":[\"ipi\"]}"
	  call 3 analyze_trace_scheduling "{\"trace_id\":\"o\",\"analysis_type\":\"process-runtime\"}"
	  call 4 run_all_analyzers "{\"trace_id\":\"o\",\"limit\":1}"
	} | mcp --max-result 4K >out &&
	results <out >>got &&
	test_cmp "$TDATA/mcp-table-records.golden" got
'

# detect_outliers (its method, category and note before the report) and
# control_event_tracking (the capture's status) moved later: their bytes
# are the hand-written writers' too (t/data/mcp-table-records-2.golden);
# the capture's counts and times are masked.
FAKE=$TDATA/mcp-fake-events.sh
printf '#!/bin/sh\necho "no bpf here" >&2\nexit 3\n' >bad.sh && chmod +x bad.sh
# (and whether the producer had said who it was when start answered)
lmask() {
	sed -e 's/\("\(events_total\|lost_events\|running_ms\)\\\{0,1\}"\):[0-9]*/\1:N/g' \
	    -e '/"action":"started"/s/"producer":"[^"]*",//'
}
test_expect_success JQ 'detect_outliers and control_event_tracking: the hand-written bytes' '
	rm -f out &&
	{ init_line
	  call 1 load_perfetto_trace "{\"file_path\":\"o.ndjson\"}"
	  call 2 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 3 detect_outliers "{\"trace_id\":\"o\",\"method\":\"MAD\",\"category\":\"latency\",\"limit\":2}"
	  call 4 detect_outliers "{\"trace_id\":\"o\",\"method\":\"Percentile\",\"category\":\"all\",\"limit\":1}"
	  call 5 detect_outliers "{\"trace_id\":\"h\",\"method\":\"StdDev\",\"category\":\"all\"}"
	  call 6 control_event_tracking "{\"action\":\"status\"}"
	  req 10 resources/subscribe "{\"uri\":\"events://stream\"}"
	  call 7 control_event_tracking "{\"action\":\"start\",\"events\":\"sched\",\"comm\":\"fake-a\"}"
	  # (the producer has said who it is once events came)
	  wait_updated out events://stream 1
	  call 8 control_event_tracking "{\"action\":\"status\"}"
	  call 9 control_event_tracking "{\"action\":\"stop\"}"
	} | mcp --events-cmd "$FAKE" >out &&
	results <out | lmask >got &&
	# a producer that exits at once: its error and exit status.  (A file of
	# its own: the loop below reads it while the pipe sets it up, and in a
	# loaded make check it once read the first session, stopped with an
	# exit_status, before the truncation.)
	rm -f out2 &&
	{ init_line
	  call 1 control_event_tracking "{\"action\":\"start\"}"
	  # status until the producer is reaped (120 s at most); the last one counts
	  i=2
	  until grep -q exit_status out2 2>/dev/null || [ $i -gt 1200 ]; do
		call $i control_event_tracking "{\"action\":\"status\"}"
		wait_resp out2 $i
		i=$((i + 1))
		sleep 0.1
	  done
	} | mcp --events-cmd ./bad.sh >out2 &&
	results <out2 | lmask | sed -n "\$p" >>got &&
	test_cmp "$TDATA/mcp-table-records-2.golden" got
'

# get_perf_results moved last (its own table, whose keys are the ones it
# writes): its bytes, and start and stop's, are the hand-written writers'
# (t/data/mcp-table-records-3.golden) on a profile of a stopped process,
# which has no samples; masked: that process's pid, the profile's time and
# the kernel symbols counted (they are the machine's)
pmask() {
	sed -e "s/\"pid\":$stp,/\"pid\":P,/" -e 's/\("\(duration_ms\|kernel_symbols\)"\):[0-9]*/\1:N/'
}
test_expect_success BPF,JQ 'get_perf_results and the profile status: the hand-written bytes' '
	sleep 600 &
	stp=$! &&
	kill -STOP $stp &&
	{ init_line
	  call 1 get_perf_results "{}"
	  call 2 start_perf_profiling "{\"event\":\"sw:cpu-clock\",\"pid\":$stp,\"freq\":99}"
	  call 3 get_perf_results "{\"limit\":1}"
	  call 4 stop_perf_profiling "{}"
	  call 5 get_perf_results "{}"
	  call 6 get_perf_results "{\"include_stacks\":false}"
	} | mcp >out
	r=$?
	kill -9 $stp
	test $r = 0 &&
	results <out | pmask >got &&
	test_cmp "$TDATA/mcp-table-records-3.golden" got
'

# query_stats moved too (one table that each stat_type's writes follow):
# its bytes are the hand-written writers' (t/data/mcp-table-records-4.golden)
# without a capture and over the stand-in producer with sched_ext records;
# masked: every number (the live figures move with time), whether the
# producer had said who it was when start answered, and the machine's
# scheduler (the fields scheduler://current writes too: the next test)
nmask() {
	sed -e 's/\("[A-Za-z_0-9]*"\):-\{0,1\}[0-9][0-9.e+-]*/\1:N/g' \
	    -e '/"action":"started"/s/"producer":"[^"]*",//' \
	    -e 's/^{"sched_ext_supported":.*,"sched_ext_interval":/{S,"sched_ext_interval":/' \
	    -e 's/^{"sched_ext_supported":.*}$/{S}/'
}
test_expect_success JQ 'query_stats: the hand-written bytes' '
	rm -f out &&
	{ init_line
	  call 1 query_stats "{\"stat_type\":\"thread\"}"
	  call 2 query_stats "{\"stat_type\":\"scheduler\"}"
	  req 10 resources/subscribe "{\"uri\":\"stats://aggregated/cpu\"}"
	  wait_resp out 10
	  call 3 control_event_tracking "{\"action\":\"start\"}"
	  wait_updated out stats://aggregated/cpu 2
	  call 4 query_stats "{\"stat_type\":\"cpu\"}"
	  call 5 query_stats "{\"stat_type\":\"thread\",\"limit\":1}"
	  call 6 query_stats "{\"stat_type\":\"process\"}"
	  call 7 query_stats "{\"stat_type\":\"scheduler\"}"
	} | FAKE_SCX=1 mcp --events-cmd "$FAKE" >out &&
	results <out | nmask >got &&
	test_cmp "$TDATA/mcp-table-records-4.golden" got
'

# A loaded sched_ext scheduler (sysfs made up in a mount namespace of its
# own): query_stats scheduler is the object scheduler://current is, the
# same writer's, where main's table lacked switch_all and failed the call
test_expect_success ROOT,JQ 'query_stats scheduler with a sched_ext scheduler loaded' '
	{ init_line
	  call 1 query_stats "{\"stat_type\":\"scheduler\"}"
	  req 2 resources/read "{\"uri\":\"scheduler://current\"}"
	} >in &&
	unshare -m sh -c "mount -t tmpfs none /sys/kernel &&
		mkdir -p /sys/kernel/sched_ext/root &&
		echo enabled >/sys/kernel/sched_ext/state &&
		echo fake >/sys/kernel/sched_ext/root/ops &&
		echo 1 >/sys/kernel/sched_ext/switch_all &&
		exec scx-mcp <in" >out &&
	resp 1 <out | jq -c ".result | .isError, (.structuredContent | del(.counters.ts))" >tool &&
	resp 2 <out | jq -c ".result.contents[0].text | fromjson | false, del(.counters.ts)" >res &&
	test_cmp res tool &&
	grep -q "\"switch_all\":true" tool
'

# query_trace_events and query_trace moved last (one table whose order each
# mode writes in): their bytes are the hand-written writer's
# (t/data/mcp-table-records-5.golden): a page of events (offset, filters,
# one past the end), every aggregation, the errors, and a 4 KB cut
test_expect_success JQ 'query_trace_events and query_trace: the hand-written bytes' '
	q() { call $1 "${3:-query_trace_events}" "$2"; } &&
	{ init_line
	  call 1 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 2 load_perfetto_trace "{\"file_path\":\"o.ndjson\"}"
	  q 3 "{\"trace_id\":\"h\",\"limit\":3}"
	  q 4 "{\"trace_id\":\"h\",\"limit\":2,\"offset\":3,\"event_type\":\"sched_switch\"}"
	  q 5 "{\"trace_id\":\"o\",\"limit\":2,\"cpu\":1,\"pid\":0}"
	  q 6 "{\"trace_id\":\"o\",\"offset\":100000}"
	  q 7 "{\"trace_id\":\"h\",\"aggregation\":{\"function\":\"count\"}}"
	  q 8 "{\"trace_id\":\"o\",\"aggregation\":{\"function\":\"count_by\",\"field\":\"next_comm\"},\"limit\":2}"
	  q 9 "{\"trace_id\":\"o\",\"aggregation\":{\"function\":\"group_by\",\"field\":\"cpu\"}}"
	  q 10 "{\"trace_id\":\"o\",\"event_type\":\"sched_switch\",\"aggregation\":{\"function\":\"avg\",\"field\":\"prev_prio\"}}"
	  q 11 "{\"trace_id\":\"o\",\"aggregation\":{\"function\":\"min\",\"field\":\"prev_state\"}}"
	  q 12 "{\"trace_id\":\"o\",\"aggregation\":{\"function\":\"max\",\"field\":\"next_pid\"}}"
	  q 13 "{\"trace_id\":\"h\",\"aggregation\":{\"function\":\"avg\",\"field\":\"nosuchfield\"}}"
	  q 14 "{\"trace_id\":\"h\",\"aggregation\":{\"function\":\"avg\"}}"
	  q 15 "{\"trace_id\":\"h\",\"aggregation\":{\"function\":\"median\",\"field\":\"cpu\"}}"
	  q 16 "{\"trace_id\":\"nope\"}"
	  q 17 "{\"trace_id\":\"h\",\"limit\":2,\"filters\":[{\"field\":\"next_comm\",\"op\":\"contains\",\"value\":\"a\"}]}" query_trace
	  q 18 "{\"trace_id\":\"o\",\"aggregation\":{\"function\":\"count_by\",\"field\":\"prev_comm\"},\"limit\":1}" query_trace
	  q 19 "{\"trace_id\":\"o\",\"event_type\":\"sched_waking\",\"aggregation\":{\"function\":\"min\",\"field\":\"next_pid\"}}"
	} | mcp >out &&
	results <out >got &&
	{ init_line 2025-03-26
	  call 1 load_perfetto_trace "{\"file_path\":\"o.ndjson\"}"
	  q 2 "{\"trace_id\":\"o\",\"limit\":1000}"
	  q 3 "{\"trace_id\":\"o\",\"aggregation\":{\"function\":\"group_by\",\"field\":\"next_pid\"},\"limit\":1000}"
	} | mcp --max-result 4K >out &&
	results <out >>got &&
	test_cmp "$TDATA/mcp-table-records-5.golden" got
'

test_done
