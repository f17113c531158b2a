#!/bin/sh
# scx-agg --summary and scx-agg diff on generated streams whose answers are
# worked out below.
#
# gen LAT N: task t(100) sleeps on cpu1 at 500, then N times, every 10 us
# from 1000: sched_waking (target cpu1, from cpu0), the switch-in LAT ns
# later, 500 ns of running, and sleep.  Topology: cpus 0-1 in LLC 0, node 0.
#
# A = gen 1000 200, B = gen 2000 200.  wake_lat and rq_delay: A's 200 values
# are all 1000, B's all 2000.  Mann-Whitney on the buckets: B is above A in
# all nA*nB = 40000 pairs, U = 40000 against a mean of 20000; the ties are
# two buckets of 200: sum(t^3 - t) = 2 * 7999800, so
# var = 40000/12 * (401 - 15999600/(400*399)) = 1002500, sd 1001.25,
# z = 19.975, p = erfc(z/sqrt 2) = 9.09e-89.  That is a regression of the
# p50 rows of wake_lat and rq_delay in each group that has them: total,
# cpu 1, llc 0, node 0 and comm t: 10.  The p99 rows: the pooled p99 is
# 2000, nothing lies above its bucket, so the tail test has no variance:
# untested.  Slices are 500 on both sides: all ties, no variance either,
# and equal values are the same.
# Neither stream has sched_migrate_task: the migration rates are not
# compared, and the report says so for A and for B.
. "$(dirname "$0")/lib.sh"

# exits CODE CMD...: CMD exits with CODE
exits() {
	_want=$1
	shift
	_rc=0
	"$@" || _rc=$?
	test "$_rc" = "$_want"
}

gen() {
	awk -v lat="$1" -v n="$2" -v wk="${3:-sched_waking}" -v llc1="${4:-0}" 'BEGIN {
		printf "{\"type\":\"header\",\"version\":1,\"producer\":\"hand\",\"clock\":\"boottime\",\"hostname\":\"t\",\"kernel\":\"6.18\",\"nr_cpus\":2,\"topology\":[{\"cpu\":0,\"core\":0,\"llc\":0,\"node\":0,\"online\":true},{\"cpu\":1,\"core\":1,\"llc\":%d,\"node\":0,\"online\":true}],\"scheduler\":null,\"options\":{},\"start_ns\":0}\n", llc1
		sw = "{\"ts\":%d,\"cpu\":1,\"type\":\"sched_switch\",\"prev_pid\":%d,\"prev_tgid\":%d,\"prev_comm\":\"%s\",\"prev_prio\":120,\"prev_state\":%d,\"next_pid\":%d,\"next_tgid\":%d,\"next_comm\":\"%s\",\"next_prio\":120}\n"
		printf sw, 500, 100, 100, "t", 1, 0, 0, "swapper/1"
		for (i = 0; i < n; i++) {
			t = 10000 * i + 1000
			if (wk != "none")
				printf "{\"ts\":%d,\"cpu\":0,\"type\":\"%s\",\"pid\":100,\"tgid\":100,\"comm\":\"t\",\"prio\":120,\"target_cpu\":1,\"waker_pid\":0,\"waker_tgid\":0}\n", t, wk
			printf sw, t + lat, 0, 0, "swapper/1", 0, 100, 100, "t"
			printf sw, t + lat + 500, 100, 100, "t", 1, 0, 0, "swapper/1"
		}
	}'
}

test_expect_success 'a slower wakeup is a regression beyond noise, exit 3' '
	gen 1000 200 >a.ndjson &&
	gen 2000 200 >b.ndjson &&
	exits 3 scx-agg diff -n 0 -f ndjson a.ndjson b.ndjson >ab &&
	grep -q "{\"verdict\":\"regression\",\"metric\":\"wake_lat.p50\",\"group\":\"total\",\"a\":1000,\"b\":2000,\"change\":1000,\"change_pct\":100,\"p\":9.0[0-9]*e-89,\"test\":\"mann-whitney\"}" ab &&
	grep -q "{\"verdict\":\"regression\",\"metric\":\"rq_delay.p50\",\"group\":\"comm t\"," ab &&
	grep -q "{\"verdict\":\"untested\",\"metric\":\"wake_lat.p99\",\"group\":\"total\",\"a\":1000,\"b\":2000,.*\"p\":null,\"test\":\"tail-proportion\"}" ab &&
	grep -q "{\"verdict\":\"same\",\"metric\":\"slice.p50\",\"group\":\"total\",\"a\":500,\"b\":500,\"change\":0,\"change_pct\":0,\"p\":null," ab &&
	grep -q "\"verdict\":{\"rows\":\[{\"verdict\":\"B is worse than A: 12 regressions: [^\"]*\",\"regressions\":12,\"improvements\":0," ab &&
	grep -q "{\"what\":\"migrations_per_s, cross_llc_per_s, cross_node_per_s\",\"why\":\"A has no sched_migrate_task events\"}" ab
'

test_expect_success 'regressions first, the verdict last; the other way round improves' '
	exits 3 scx-agg diff -H -n 3 a.ndjson b.ndjson >ab.txt &&
	sed -n 4p ab.txt | grep -q "^regression  " &&
	tail -n 1 ab.txt | grep -q "^B is worse than A: 12 regressions: .*+100.0%" &&
	scx-agg diff -H b.ndjson a.ndjson >ba.txt &&
	tail -n 1 ba.txt | grep -q "^B is better than A: 12 improvements: .*-50.0%"
'

test_expect_success 'a summary compares as its capture; interval records merge exactly' '
	scx-agg --summary a.ndjson >a.sum &&
	test $(wc -l <a.sum) = 1 &&
	grep -q "^{\"type\":\"summary\",\"version\":1,.*\"event_types\":{\"sched_switch\":401,\"sched_waking\":200}" a.sum &&
	grep -q "\"wake_lat\":{\"count\":200,\"sum\":200000,\"min\":1000,\"max\":1000,\"b\":\[\[" a.sum &&
	scx-agg --summary -I 100us a.ndjson >ai.sum &&
	test $(wc -l <ai.sum) = 20 &&
	scx-agg diff -n 0 -f ndjson a.sum a.ndjson >s1 &&
	scx-agg diff -n 0 -f ndjson ai.sum a.ndjson >s2 &&
	grep -q "\"regressions\":0,\"improvements\":0,\"changed\":0,\"same\":73,\"untested\":0," s1 &&
	grep -q "\"regressions\":0,\"improvements\":0,\"changed\":0,\"same\":73,\"untested\":0," s2
'

test_expect_success 'missing events: the figure is not compared, never 0' '
	gen 1000 200 none >c.ndjson &&
	scx-agg diff -n 0 -f ndjson a.ndjson c.ndjson >ac &&
	grep -q "{\"what\":\"wake_lat, rq_delay, wakeups_per_s\",\"why\":\"B has no sched_waking, sched_wakeup or sched_wakeup_new events\"}" ac &&
	! grep -q "\"metric\":\"wake_lat" ac &&
	! grep -q "\"metric\":\"rq_delay" ac
'

test_expect_success 'different topologies: cpu, llc and node groups are left out, the rest compared' '
	gen 1000 200 sched_waking 1 >e.ndjson &&
	scx-agg diff -n 0 -f ndjson a.ndjson e.ndjson >ae &&
	grep -q "{\"what\":\"cpu, llc and node groups\",\"why\":\"topologies differ: A 2 cpus 1 llcs 1 nodes, B 2 cpus 2 llcs 1 nodes\"}" ae &&
	! grep -q "\"group\":\"cpu 1\"" ae &&
	grep -q "\"metric\":\"wake_lat.p50\",\"group\":\"comm t\"" ae
'

test_expect_success 'a Perfetto trace is an input too; OpenMetrics output' '
	scx-perfetto a.ndjson -o a.pb &&
	scx-agg diff -n 0 -f ndjson a.pb a.ndjson >pa &&
	grep -q "\"metric\":\"wake_lat.p50\",\"group\":\"total\",\"a\":1000,\"b\":1000," pa &&
	exits 3 scx-agg diff -f openmetrics a.ndjson b.ndjson >om &&
	grep -q "^scx_report_diff_comparison_b{verdict=\"regression\",metric=\"wake_lat.p50\",group=\"total\",test=\"mann-whitney\"} 2000$" om &&
	tail -n 1 om | grep -q "^# EOF$"
'

test_expect_success 'bad input and usage' '
	exits 2 scx-agg diff a.ndjson &&
	exits 2 scx-agg diff --alpha 2 a.ndjson b.ndjson &&
	sed "s/\"count\":200,\"sum\"/\"count\":201,\"sum\"/" a.sum >bad.sum &&
	exits 1 scx-agg diff bad.sum a.ndjson 2>err &&
	grep -q "bad.sum: summary: byte [0-9]*: buckets of \"wake_lat\" hold 200, count 201" err &&
	exits 2 scx-agg --summary -H a.ndjson
'

test_expect_success 'fuzz summary: the seed corpus replays' '
	n=$(ls "$SCX_SRC/t/fuzz/corpus/summary" | wc -l) &&
	test $n -ge 3 &&
	"$SCX_BUILD/fuzz/summary" "$SCX_SRC/t/fuzz/corpus/summary" >out &&
	grep -qx "$n inputs replayed" out
'

test_done
