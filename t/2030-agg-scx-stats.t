#!/bin/sh
# scx-agg on sched_ext's own counters (scx_stats records, scx(7)): the
# records of an interval fold into its snapshot (NDJSON "sched_ext", the
# text line), Prometheus gets cumulative _total counters with HELP and TYPE,
# the records are not counted as unknown, a malformed one is an error that
# names the file and byte.
#
# gen: two CPUs switching every 100 ms for 3 s; a record every second: the
# first with one load and root/events, the second with a rejected task, the
# third 6.12-like (no events).
. "$(dirname "$0")/lib.sh"

gen() {
	awk 'BEGIN {
		printf "{\"type\":\"header\",\"version\":1,\"producer\":\"hand\",\"clock\":\"boottime\",\"hostname\":\"t\",\"kernel\":\"6.18\",\"nr_cpus\":2,\"scheduler\":\"qmap\",\"options\":{},\"start_ns\":0}\n"
		sw = "{\"ts\":%.0f,\"cpu\":%d,\"type\":\"sched_switch\",\"prev_pid\":0,\"prev_tgid\":0,\"prev_comm\":\"swapper\",\"prev_prio\":120,\"prev_state\":0,\"next_pid\":%d,\"next_tgid\":%d,\"next_comm\":\"t\",\"next_prio\":120}\n"
		st = "{\"type\":\"scx_stats\",\"ts\":%.0f,\"interval_ns\":1000000000,\"state\":\"enabled\",\"ops\":\"qmap\",\"switch_all\":0,\"enable_seq\":%d,\"nr_rejected\":%d,\"hotplug_seq\":0%s,\"events_dropped\":0}\n"
		for (i = 1; i <= 30; i++) {
			printf sw, i * 1e8, i % 2, 100 + i, 100 + i
			if (i % 10 == 5)
				printf st, i * 1e8, i == 5, i == 15, \
					i == 25 ? "" : ",\"events\":{\"SELECT_CPU_FALLBACK\":" i ",\"DISPATCH_KEEP_LAST\":1}"
		}
	}'
}

test_expect_success 'the interval snapshots carry the records' '
	gen >in.ndjson &&
	scx-agg -I 1s -f ndjson in.ndjson >snaps &&
	test "$(jq -s "[.[] | select(.sched_ext)] | length" snaps)" = 3 &&
	test "$(jq -s "[.[].sched_ext.enable_seq // 0] | add" snaps)" = 1 &&
	test "$(jq -s "[.[].sched_ext.nr_rejected // 0] | add" snaps)" = 1 &&
	test "$(jq -s "[.[].sched_ext.events.SELECT_CPU_FALLBACK // 0] | add" snaps)" = 20 &&
	test "$(jq -s "[.[] | select(.sched_ext) | .sched_ext.events == null] | map(select(.)) | length" snaps)" = 1 &&
	test "$(jq -s "[.[].unknown] | add" snaps)" = 0
'

test_expect_success 'one interval: the records folded' '
	scx-agg -f ndjson in.ndjson >one &&
	jq -c .sched_ext one >got &&
	echo "{\"ts\":2500000000,\"interval_ns\":3000000000,\"state\":\"enabled\",\"ops\":\"qmap\",\"switch_all\":0,\"enable_seq\":1,\"nr_rejected\":1,\"hotplug_seq\":0,\"events\":{\"SELECT_CPU_FALLBACK\":20,\"DISPATCH_KEEP_LAST\":2},\"events_dropped\":0}" >want &&
	test_cmp want got
'

test_expect_success 'text: one sched_ext line a snapshot' '
	scx-agg -f text in.ndjson >text &&
	grep -x "sched_ext: enabled qmap switch_all 0 | loads 1 rejected 1 hotplugs 0 | events SELECT_CPU_FALLBACK 20 DISPATCH_KEEP_LAST 2" text
'

test_expect_success 'prometheus: _total counters with HELP and TYPE' '
	scx-agg -I 1s -f prometheus in.ndjson >prom &&
	tac prom | awk "NR > 1 && /^# EOF/ { exit } { print }" >final &&
	grep -x "# TYPE scx_sched_ext_loads_total counter" final &&
	grep -q "^# HELP scx_sched_ext_loads_total " final &&
	grep -x "scx_sched_ext_loads_total 1" final &&
	grep -x "scx_sched_ext_rejected_tasks_total 1" final &&
	grep -x "# TYPE scx_sched_ext_events_total counter" final &&
	grep -x "scx_sched_ext_events_total{event=\"SELECT_CPU_FALLBACK\"} 20" final &&
	grep -x "scx_sched_ext_enabled{state=\"enabled\",ops=\"qmap\"} 1" final
'

test_expect_success 'openmetrics: the interval as gauges' '
	scx-agg -f openmetrics in.ndjson >om &&
	grep -x "# TYPE scx_sched_ext_loads gauge" om &&
	grep -x "scx_sched_ext_loads 1" om
'

test_expect_success 'a stream without records: no sched_ext figures' '
	grep -v scx_stats in.ndjson >plain &&
	scx-agg -f ndjson plain >snap &&
	test "$(jq .sched_ext snap)" = null &&
	scx-agg -f prometheus plain >p &&
	! grep -q sched_ext p
'

test_expect_success 'a malformed record: an error naming the file and byte' '
	{ head -n 3 in.ndjson &&
	  echo "{\"type\":\"scx_stats\",\"ts\":1,\"interval_ns\":1,\"state\":\"x\",\"ops\":\"\",\"events_dropped\":0,\"enable_seq\":-1}"; } >bad &&
	test_must_fail scx-agg -f ndjson bad 2>err &&
	grep "bad: before byte [0-9]*: byte [0-9]*: scx_stats: \"enable_seq\" is not a count" err
'

test_done
