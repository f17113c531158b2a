#!/bin/sh
# scx-mcp's cgroup tools: analyze_cgroups (per-cgroup run-queue delay, and
# preemptions of one cgroup's tasks by another's) on a loaded event trace
# (t/data/agg-cgroup.ndjson, worked out by hand in t/2013), on an
# scx-events --aggregate recording (t/data/kagg-cgroups.ndjson, checked
# against jq's sums of the kernel's figures), and on the live capture:
# query_stats cgroup and analyze_cgroups without trace_id, first with the
# stand-in producer (t/data/mcp-fake-events.sh FAKE_CGROUP=1: two cgroups
# preempting each other every 10 ms), then under BPF with a workload in a
# fresh cgroup (removed on every exit path).
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"
. "$SCX_SRC/t/lib-capture.sh"

FAKE=$TDATA/mcp-fake-events.sh

test_expect_success JQ 'event trace: latency and preemptions per cgroup, one cgroup kept' '
	cp "$TDATA/agg-cgroup.ndjson" c.ndjson &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"c.ndjson\",\"trace_id\":\"c\"}"
	  call 2 analyze_cgroups "{\"trace_id\":\"c\"}"
	  call 3 analyze_cgroups "{\"trace_id\":\"c\",\"mode\":\"preemptions\"}"
	  call 4 analyze_cgroups "{\"trace_id\":\"c\",\"mode\":\"preemptions\",\"cgroup\":\"/a/y\"}"
	  call 5 analyze_cgroups "{\"trace_id\":\"c\",\"cgroup\":\"/nowhere\"}"
	  call 6 analyze_cgroups "{\"trace_id\":\"c\",\"limit\":2}"; } | mcp >out &&
	text 2 <out | jq -c "[.source, .trace_id, .analysis]" >got &&
	echo "[\"trace\",\"c\",\"cgroup-latency\"]" >want && test_cmp want got &&
	text 2 <out | jq -c "[.report.tables.cgroups.rows[] | [.cgroup, .runtime, .rq_p99]] | sort" >got &&
	echo "[[\"(unknown)\",1000,0],[\"/a/x\",5000,2000],[\"/a/y\",2000,1000],[\"/b/z\",7000,1000],[\"id:99\",1000,0]]" >want &&
	test_cmp want got &&
	text 3 <out | jq -c "[.report.tables.pairs.rows[] | [.preempted, .preemptor, .count, .wait]]" >got &&
	echo "[[\"/a/x\",\"/a/y\",1,2000],[\"/b/z\",\"id:99\",1,1000]]" >want &&
	test_cmp want got &&
	text 4 <out | jq -c "[.report.tables.pairs.rows[] | [.preempted, .preemptor]], [.report.tables.cgroups.rows[].cgroup], .note" >got &&
	printf "%s\n" "[[\"/a/x\",\"/a/y\"]]" "[]" "null" >want && test_cmp want got &&
	text 5 <out | jq -e ".report.tables.cgroups.rows == [] and (.note | test(\"no cgroup .*/nowhere\"))" >/dev/null &&
	text 6 <out | jq -e ".report.tables.cgroups.rows | length == 2" >/dev/null &&
	text 6 <out | jq -e ".report.tables.cgroups.omitted == 3" >/dev/null &&
	resp 2 <out | jq -e ".result.structuredContent == (.result.content[0].text | fromjson)" >/dev/null
'

test_expect_success JQ 'aggregate recording: the kernel'"'"'s per-cgroup figures, named by its records' '
	cp "$TDATA/kagg-cgroups.ndjson" k.ndjson &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"k.ndjson\",\"trace_id\":\"k\"}"
	  call 2 analyze_cgroups "{\"trace_id\":\"k\"}"
	  call 3 analyze_cgroups "{\"trace_id\":\"k\",\"mode\":\"preemptions\"}"; } | mcp >out &&
	jq -s -c "[.[] | select(.type == \"kernel_snapshot\") | .cgroups[] | select(.cgroup == 1032)] |
		[\"/fl3-corpus/w\", (map(.busy_ns) | add), (map(.involuntary) | add),
		 (map(.rq_delay.count) | add), (map(.wake_lat.count) | add)]" k.ndjson >want &&
	text 2 <out | jq -c ".report.tables.cgroups.rows[] | select(.cgroup == \"/fl3-corpus/w\") |
		[.cgroup, .runtime, .preempted, .rq_delay.count, .wake_lat.count]" >got &&
	test_cmp want got &&
	text 2 <out | jq -e "[.report.tables.cgroups.rows[].cgroup] | all(test(\"^id:\") | not)" >/dev/null &&
	test "$(iserr 3 <out)" = true &&
	text 3 <out | grep "kernel aggregates (scx-events --aggregate).*not which cgroup preempted it"
'

test_expect_success JQ 'live, no capture: a hint, not a failure; bad arguments are named' '
	{ init_line
	  call 1 analyze_cgroups "{}"
	  call 2 query_stats "{\"stat_type\":\"cgroup\"}"
	  call 3 analyze_cgroups "{\"mode\":\"pairs\"}"
	  call 4 analyze_cgroups "{\"trace_id\":\"nope\"}"; } | mcp >out &&
	text 1 <out | jq -e ".available == false and (.hint | test(\"control_event_tracking\"))" >/dev/null &&
	text 2 <out | jq -e ".available == false" >/dev/null &&
	test "$(iserr 3 <out)" = true && text 3 <out | grep "mode.*latency, preemptions" &&
	test "$(iserr 4 <out)" = true && text 4 <out | grep "nope"
'

# FAKE_CGROUP: each 1 s interval has 100 switches on cpu 0, pid 100 of
# /fake/a and pid 200 of /fake/b taking 10 ms turns, each switch a
# preemption of the other cgroup's task, which runs again 10 ms later.
# It has no wakeup events, so the run-queue delays are unknown (null).
test_expect_success JQ 'live: cgroup statistics and reports of the last interval are exact' '
	rm -f out &&
	{ init_line
	  req 1 resources/subscribe "{\"uri\":\"stats://aggregated/cpu\"}"
	  wait_updated out stats://aggregated/cpu 2
	  call 2 query_stats "{\"stat_type\":\"cgroup\"}"
	  call 3 analyze_cgroups "{}"
	  call 4 analyze_cgroups "{\"mode\":\"preemptions\"}"
	  call 5 analyze_cgroups "{\"mode\":\"preemptions\",\"cgroup\":\"/fake/b\"}"
	} | FAKE_CGROUP=1 mcp --capture --events-cmd "$FAKE" >out &&
	text 2 <out | jq -c "[.rows[] | [.cgroup, .threads, .busy_ns, .switches, .involuntary]] | sort" >got &&
	echo "[[\"/fake/a\",1,500000000,50,50],[\"/fake/b\",1,500000000,50,50]]" >want &&
	test_cmp want got &&
	text 3 <out | jq -c "[.source, ([.report.tables.cgroups.rows[] | [.cgroup, .runtime, .preempted, .rq_delay, .rq_p99]] | sort)]" >got &&
	echo "[\"live\",[[\"/fake/a\",500000000,50,null,null],[\"/fake/b\",500000000,50,null,null]]]" >want &&
	test_cmp want got &&
	text 4 <out | jq -c "[.report.tables.pairs.rows[] | [.preempted, .preemptor, .count, .wait_avg]] | sort" >got &&
	echo "[[\"/fake/a\",\"/fake/b\",50,10000000],[\"/fake/b\",\"/fake/a\",50,10000000]]" >want &&
	test_cmp want got &&
	text 4 <out | jq -c "[.report.tables.cgroups.rows[] | [.cgroup, .preempted, .by_other]] | sort" >got &&
	echo "[[\"/fake/a\",50,50],[\"/fake/b\",50,50]]" >want &&
	test_cmp want got &&
	text 5 <out | jq -c "([.report.tables.pairs.rows[] | [.preempted, .preemptor]] | sort), [.report.tables.cgroups.rows[].cgroup]" >got &&
	printf "%s\n" "[[\"/fake/a\",\"/fake/b\"],[\"/fake/b\",\"/fake/a\"]]" "[\"/fake/b\"]" >want &&
	test_cmp want got
'

cleanup_cgroup() {
	[ -n "$CG2" ] || return 0
	touch "$TRASH/stop"
	[ -s "$TRASH/work.pid" ] && kill $(cat "$TRASH/work.pid") 2>/dev/null
	remove_cgroups "$CG/w" "$CG"
}
trap 'cleanup_cgroup; cd /; rm -rf "$TRASH"' EXIT
trap 'exit 1' INT TERM HUP

if [ -z "$CG2" ]; then
	test_skip 'live BPF capture of a cgroup' 'no cgroup2 mount'
	test_done
fi

test_expect_success BPF,JQ 'live BPF: the workload'"'"'s cgroup, by its path' '
	mkdir -p "$CG/w" &&
	sh -c "echo \$\$ >\"$CG/w/cgroup.procs\" && while [ ! -e \"$PWD/stop\" ]; do echo x | cat >/dev/null; done" &
	echo $! >work.pid &&
	rm -f out &&
	{ init_line
	  req 1 resources/subscribe "{\"uri\":\"stats://aggregated/cpu\"}"
	  call 2 control_event_tracking "{\"action\":\"start\",\"events\":\"switch,waking\"}"
	  wait_updated out stats://aggregated/cpu 2
	  call 3 analyze_cgroups "{\"cgroup\":\"$REL/w\"}"
	  call 4 query_stats "{\"stat_type\":\"cgroup\",\"limit\":1000}"
	  call 5 control_event_tracking "{\"action\":\"stop\"}"
	} | mcp >out &&
	touch stop &&
	{ text 3 <out | jq -e ".report.tables.cgroups.rows | length == 1 and .[0].cgroup == \"$REL/w\" and .[0].runtime > 0" >/dev/null ||
	  { echo "analyze_cgroups has no runtime for $REL/w:"; text 3 <out | head -c 3000; false; }; } &&
	{ text 4 <out | jq -e "[.rows[] | select(.cgroup == \"$REL/w\" and .switches > 0)] | length == 1" >/dev/null ||
	  { echo "query_stats has no switches for $REL/w:"; text 4 <out | head -c 3000; false; }; }
'

test_done
