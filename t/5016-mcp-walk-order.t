#!/bin/sh
# The tools that walk a loaded trace's events (query_trace_events, the
# process and CPU timelines, correlate_wakeup_to_schedule) take them in the
# order the analyses do, scx-agg's (t/5014): a stream sorted per CPU only
# ("order":"cpu") gives them what the same events sorted by time give them,
# and events of one time on two CPUs come lower CPU first.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"
LANG=C
export LANG

# walks FILE >OUT: every walking tool's structured result, one a line
walks() {
	{
		init_line
		call 1 load_perfetto_trace "{\"file_path\":\"$1\",\"trace_id\":\"t\"}"
		call 2 query_trace_events '{"trace_id":"t","limit":10000}'
		call 3 correlate_wakeup_to_schedule '{"trace_id":"t","limit":10000}'
		id=10
		for cpu in 0 1 2 3; do
			call $id get_cpu_timeline "{\"trace_id\":\"t\",\"cpu\":$cpu,\"limit\":10000}"
			id=$((id + 1))
		done
		for pid in $(jq -r "select(.type == \"sched_switch\") | .prev_pid, .next_pid" "$1" | sort -un); do
			call $id get_process_timeline "{\"trace_id\":\"t\",\"pid\":$pid,\"limit\":10000}"
			id=$((id + 1))
		done
	} | mcp --root "$PWD" >"$1.mcp" &&
	test "$(iserr 1 <"$1.mcp")" = false &&
	jq -c "select(.id > 1 and .method == null) | [.id, .result.isError, .result.structuredContent]" "$1.mcp"
}

test_expect_success 'a "cpu" stream walks as the same events sorted by time' '
	sed "1s/}\$/,\"order\":\"cpu\"}/" "$TDATA/top-small-ooo.ndjson" >cpu.ndjson &&
	# sorted by time, then cpu (jq sorts stably): nothing late, nothing to sort
	{ head -n 1 "$TDATA/top-small-ooo.ndjson" | sed "s/}\$/,\"order\":\"time\"}/"
	  jq -c "select(.ts != null)" "$TDATA/top-small-ooo.ndjson" | jq -cs "sort_by(.ts, .cpu) | .[]"
	  tail -n 1 "$TDATA/top-small-ooo.ndjson"
	} >sorted.ndjson &&
	! test_cmp "$TDATA/top-small-ooo.ndjson" sorted.ndjson >/dev/null &&
	walks cpu.ndjson >cpu.out && walks sorted.ndjson >sorted.out &&
	test $(wc -l <cpu.out) -ge 8 &&
	jq -se "map(select(.[0] == 3))[0][2].summary.count > 0" cpu.out >/dev/null &&
	test_cmp sorted.out cpu.out
'

test_expect_success 'events of one time on two CPUs walk lower CPU first, as the analyses count them' '
	cp "$TDATA/mcp-order-ties.ndjson" ties.ndjson &&
	walks ties.ndjson >ties.out &&
	# the file has the insert on cpu 1 before the switch-out on cpu 0
	jq -c "select(.[0] == 2) | [.[2].events[] | select(.ts == 5000000) | [.cpu, .type]]" ties.out >got &&
	echo "[[0,\"sched_switch\"],[1,\"scx_dsq_insert\"]]" >want &&
	test_cmp want got
'

test_done
