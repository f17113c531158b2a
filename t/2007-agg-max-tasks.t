#!/bin/sh
# The per-task bound (--max-tasks): memory stays bounded on a stream of a
# million distinct pids, and what was forgotten is counted in every format.
. "$(dirname "$0")/lib.sh"

in=$TDATA/agg-max-tasks.ndjson

# agg-max-tasks.ndjson, worked by hand with --max-tasks 4: cpu 0 runs 10,
# then 11, ... 15, one after the other; 11 exits (prev_state 32, Z), the
# others sleep.  Switching to 14 needs a fifth task: 11 goes first (it
# exited).  Switching to 15: 10 goes (last seen at 2000, the oldest; 15's
# predecessor 14 is newer, and the running one stays).  The wakeup of 10 at
# 7000: 12 goes (seen at 4000).  Left: 13, 14, 15 and the new 10, which
# runs on cpu 1 at 8000 (wakeup latency 1000).  Dropped: 3.
test_expect_success 'the tasks forgotten past --max-tasks are the ones worked by hand' '
	scx-agg -f ndjson --max-tasks 4 -g pid,tgid "$in" >cap.json &&
	jq -e ".threads == 4 and .tasks_dropped == 3" cap.json &&
	test "$(jq -c "[.groups.pid[].pid]" cap.json)" = "[10,13,14,15]" &&
	jq -e ".total.wake_lat.count == 1 and .total.wake_lat.max == 1000" cap.json
'

test_expect_success 'a forgotten task still counts in its process' '
	scx-agg -f ndjson -g tgid "$in" >all.json &&
	jq -e ".threads == 6 and .tasks_dropped == 0" all.json &&
	jq -c "[.groups.tgid[] | [.tgid, .switches, .slices]]" all.json >all.rows &&
	jq -c "[.groups.tgid[] | [.tgid, .switches, .slices]]" cap.json >cap.rows &&
	test_cmp all.rows cap.rows
'

test_expect_success 'text, prometheus, openmetrics and scx-top say how many were dropped' '
	scx-agg -H --max-tasks 4 "$in" >cap.txt &&
	grep -q "^tasks dropped 3 " cap.txt &&
	scx-agg -H "$in" >all.txt &&
	! grep -q "tasks dropped" all.txt &&
	scx-agg -f prometheus --max-tasks 4 "$in" >cap.prom &&
	grep -q "^scx_tasks_dropped_total 3$" cap.prom &&
	scx-agg -f openmetrics --max-tasks 4 "$in" >cap.om &&
	grep -q "^scx_tasks_dropped 3$" cap.om &&
	scx-top -b --no-config -n 1 --max-tasks 4 -i "$in" >top.txt &&
	grep -q "TASKS DROPPED 3 (3 in window)" top.txt
'

test_expect_success 'bad --max-tasks values are usage errors' '
	for v in 0 4194305 -1 abc; do
		test_exit_code 2 scx-agg --max-tasks $v "$in" >/dev/null 2>err &&
		grep -q "bad --max-tasks" err &&
		test_exit_code 2 scx-top -b --max-tasks $v -i "$in" >/dev/null 2>err &&
		grep -q "bad --max-tasks" err || return 1
	done
'

# cpu 0 switches from pid i to pid i+1: every event brings a new pid.
million_pids() {
	awk -v n=1000000 'BEGIN {
		print "{\"type\":\"header\",\"version\":1,\"producer\":\"gen\",\"clock\":\"boottime\",\"nr_cpus\":2,\"start_ns\":0}"
		for (i = 1; i <= n; i++)
			printf "{\"ts\":%d,\"cpu\":0,\"type\":\"sched_switch\",\"prev_pid\":%d,\"prev_state\":1,\"next_pid\":%d}\n", i * 1000, i, i + 1
		printf "{\"type\":\"trailer\",\"counts\":{\"sched_switch\":%d},\"lost\":[0,0],\"lost_total\":0,\"end_ns\":%d}\n", n, n * 1000
	}'
}

# Peak RSS in KB of "$@" reading million_pids, its output in out.json.
# ASan keeps freed memory in a quarantine (256 MB by default): keep it small
# so that the sanitizer build measures the program, not the quarantine.
peak_kb() {
	million_pids |
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=8" \
		/usr/bin/time -f "%M" -o rss "$@" >out.json &&
	cat rss
}

# Unbounded, a million tasks took 1.6 GB with -g pid, and 250 MB per cpu.
test_expect_success TIME 'a million distinct pids per cpu: memory bounded, the drops counted' '
	kb=$(peak_kb scx-agg -f ndjson) &&
	say "peak RSS per cpu, default limit: $kb KB" &&
	test "$kb" -lt 120000 &&
	jq -e ".threads + .tasks_dropped == 1000001 and .threads <= 65536" out.json
'

test_expect_success TIME 'a million distinct pids with -g pid and --max-tasks 10000: bounded' '
	kb=$(peak_kb scx-agg -f ndjson -g pid --max-tasks 10000) &&
	say "peak RSS with -g pid, --max-tasks 10000: $kb KB" &&
	test "$kb" -lt 120000 &&
	jq -e ".threads + .tasks_dropped == 1000001 and .threads <= 10000" out.json &&
	jq -e "(.groups.pid | length) == .threads" out.json
'

test_done
