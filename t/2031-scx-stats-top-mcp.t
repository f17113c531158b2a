#!/bin/sh
# sched_ext's counters (scx_stats records) in scx-top's header, from events
# and from scx-agg's snapshots, and in scx-mcp's query_stats scheduler: the
# deltas of the live capture's last interval (a stand-in producer writes a
# record every 50 ms, t/data/mcp-fake-events.sh with FAKE_SCX=1).
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

gen() {
	awk 'BEGIN {
		printf "{\"type\":\"header\",\"version\":1,\"producer\":\"hand\",\"clock\":\"boottime\",\"hostname\":\"t\",\"kernel\":\"6.18\",\"nr_cpus\":2,\"scheduler\":\"qmap\",\"options\":{},\"start_ns\":0}\n"
		sw = "{\"ts\":%.0f,\"cpu\":%d,\"type\":\"sched_switch\",\"prev_pid\":0,\"prev_tgid\":0,\"prev_comm\":\"swapper\",\"prev_prio\":120,\"prev_state\":0,\"next_pid\":%d,\"next_tgid\":%d,\"next_comm\":\"t\",\"next_prio\":120}\n"
		for (i = 1; i <= 20; i++) {
			printf sw, i * 1e8, i % 2, 100 + i, 100 + i
			if (i == 5)
				print "{\"type\":\"scx_stats\",\"ts\":500000000,\"interval_ns\":1000000000,\"state\":\"enabled\",\"ops\":\"qmap\",\"switch_all\":1,\"enable_seq\":1,\"nr_rejected\":3,\"events\":{\"SELECT_CPU_FALLBACK\":7},\"events_dropped\":0}"
		}
	}'
}

line="sched_ext: enabled qmap switch_all 1 | loads 1 rejected 3 | events SELECT_CPU_FALLBACK 7"

test_expect_success 'scx-top: the header line, from events' '
	gen >in.ndjson &&
	scx-top -b --no-config --mode num <in.ndjson >out &&
	grep -x "$line" out
'

test_expect_success 'scx-top: the header line, from scx-agg snapshots' '
	scx-agg -f ndjson in.ndjson >snaps &&
	scx-top -b --no-config --mode num <snaps >out2 &&
	grep -x "$line" out2
'

test_expect_success 'scx-top: no line without records' '
	grep -v scx_stats in.ndjson | scx-top -b --no-config --mode num >out3 &&
	! grep -q "^sched_ext:" out3
'

test_expect_success 'scx-top: a malformed record is an error' '
	{ head -n 3 in.ndjson &&
	  echo "{\"type\":\"scx_stats\",\"ts\":1,\"interval_ns\":1,\"state\":\"x\",\"ops\":\"\",\"events_dropped\":0,\"events\":{\"A\":-1}}"; } >bad &&
	test_must_fail scx-top -b --no-config --mode num <bad 2>err &&
	grep "scx_stats: an event counter is not a count" err
'

test_expect_success 'scx-mcp query_stats scheduler: the live interval'"'"'s deltas' '
	rm -f out &&
	{ init_line
	  req 1 resources/subscribe "{\"uri\":\"stats://aggregated/cpu\"}"
	  call 2 control_event_tracking "{\"action\":\"start\"}"
	  wait_updated out stats://aggregated/cpu 2
	  call 3 query_stats "{\"stat_type\":\"scheduler\"}"
	  wait_resp out 3
	  call 4 control_event_tracking "{\"action\":\"stop\"}"
	} | FAKE_SCX=1 mcp --events-cmd "$TDATA/mcp-fake-events.sh" >out &&
	text 3 <out >sched.json &&
	cat sched.json &&
	jq -e ".sched_ext_interval.ops == \"fake\" and .sched_ext_interval.state == \"enabled\" and
		.sched_ext_interval.events.SELECT_CPU_FALLBACK >= 2 and
		.sched_ext_interval.events.SELECT_CPU_FALLBACK % 2 == 0 and
		.sched_ext_interval.interval_ns >= 50000000" sched.json >/dev/null
'

test_done
