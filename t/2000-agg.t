#!/bin/sh
# scx-agg on hand-written streams whose answers are worked out below.
#
# t/data/agg-basic.ndjson: 4 CPUs, cpus 0-1 = LLC 0 / node 0, cpus 2-3 =
# LLC 1 / node 1 (a fake 2-node machine).  Times in ns:
#   1000 cpu0 idle -> a(100)          cpu2 c(300) sleeps -> idle
#   2000 a wakes b(200) onto cpu2     2500 b migrates cpu2 -> cpu0
#   3000 cpu0 a preempted (R+) -> b   4000 c woken onto cpu2 (irq)
#   4500 cpu2 idle -> c               5000 cpu0 b sleeps -> a
#   6000 cpu2 c blocks (D) -> idle    7000 cpu0: 5 events lost
#  10000 cpu0 a sleeps -> idle; trailer: 5 lost on cpu0, 2 on cpu3
# so over [1000, 10000] (9000 ns):
#   cpu0 busy 2000+2000+5000 = 9000 (util 1); cpu2 busy 1500, idle 3500+4000
#   LLC0 util 9000/18000 = 0.5, LLC1 1500/18000, total 10500/36000
#   wake latency: b 3000-2000 = 1000 on cpu0, c 4500-4000 = 500 on cpu2
#   run-queue delay adds a's wait after preemption: 5000-3000 = 2000
#   the migration 2 -> 0 crosses LLC and node; b preempted a once
#   lost 5 + 2 (the trailer's cpu3 count no lost record carried) = 7
. "$(dirname "$0")/lib.sh"

in=$TDATA/agg-basic.ndjson

test_expect_success 'utilisation per cpu, llc, node and total' '
	scx-agg "$in" >out &&
	test $(wc -l <out) = 1 &&
	grep -q "\"start_ns\":1000,\"end_ns\":10000,\"dur_ns\":9000,\"final\":true" out &&
	grep -q "{\"cpu\":0,\"util\":1,\"busy_ns\":9000,\"idle_ns\":0," out &&
	grep -q "{\"cpu\":2,\"util\":0.166666667,\"busy_ns\":1500,\"idle_ns\":7500," out &&
	grep -q "{\"llc\":0,\"cpus\":2,\"util\":0.5,\"busy_ns\":9000," out &&
	grep -q "{\"llc\":1,\"cpus\":2,\"util\":0.0833333333,\"busy_ns\":1500," out &&
	grep -q "{\"node\":1,\"cpus\":2,\"util\":0.0833333333," out &&
	grep -q "\"total\":{\"util\":0.291666667,\"busy_ns\":10500," out
'

test_expect_success 'switches: voluntary and involuntary' '
	grep -q "{\"cpu\":0,[^{]*\"slices\":3,\"switches\":3,\"voluntary\":2,\"involuntary\":1," out &&
	grep -q "{\"cpu\":2,[^{]*\"switches\":2,\"voluntary\":2,\"involuntary\":0,\"wakeups\":2," out
'

test_expect_success 'migrations across LLCs and nodes of a 2-node topology' '
	grep -q "{\"cpu\":0,[^{]*\"migrations\":1,\"migr_cross_llc\":1,\"migr_cross_node\":1," out &&
	grep -q "{\"llc\":1,[^{]*\"migrations\":0,\"migr_cross_llc\":0," out &&
	scx-agg -r migrations "$in" >mig &&
	grep -q "\"summary\":{\"rows\":\[{\"migrations\":1,\"same_llc\":0,\"cross_llc\":1,\"cross_node\":1," mig
'

test_expect_success 'wakeup latency and run-queue delay' '
	grep -q "{\"cpu\":0,.*\"wake_lat\":{\"count\":1,\"min\":1000,\"avg\":1000,\"p50\":1000,\"p90\":1000,\"p99\":1000,\"p999\":1000,\"max\":1000}" out &&
	grep -q "{\"cpu\":2,.*\"wake_lat\":{\"count\":1,\"min\":500,\"avg\":500,.*\"max\":500}" out &&
	grep -q "{\"llc\":0,.*\"rq_delay\":{\"count\":2,\"min\":1000,\"avg\":1500,.*\"max\":2000}" out &&
	grep -q "\"total\":{.*\"wake_lat\":{\"count\":2,\"min\":500,\"avg\":750," out
'

test_expect_success 'preemptions: who preempted whom' '
	scx-agg -r preemptions "$in" >pre &&
	grep -q "\"pairs\":{\"rows\":\[{\"preemptor\":200,\"preemptor_comm\":\"b\",\"preempted\":100,\"preempted_comm\":\"a\",\"count\":1}\]" pre &&
	grep -q "\"threads\":{\"rows\":\[{\"pid\":100,\"comm\":\"a\",\"preempted\":1,\"preempted_wait\":2000," pre
'

# t/data/agg-mutual.ndjson, 2 CPUs: on cpu0 a(100) wakes b(200) at 2000 (runs
# at 2100), b wakes a at 3000 (3300), a wakes b at 4000 (4200); on cpu1 c(300)
# wakes d(400) at 5000 (5400) and d never wakes c.
test_expect_success 'wakeup-graph: tasks that woke each other, one row a pair' '
	scx-agg -r wakeup-graph "$TDATA/agg-mutual.ndjson" >wg &&
	grep -q "\"pairs\":{\"rows\":\[{\"waker\":100,[^]]*\],\"omitted\":0}" wg &&
	test $(grep -o "\"waker\":" wg | wc -l) = 3 &&
	grep -q "\"mutual\":{\"rows\":\[{\"pid_a\":100,\"comm_a\":\"a\",\"pid_b\":200,\"comm_b\":\"b\",\"count\":3,\"a_wakes_b\":2,\"b_wakes_a\":1,\"a_b_lat_avg\":150,\"a_b_lat_max\":200,\"b_a_lat_avg\":300,\"b_a_lat_max\":300}\],\"omitted\":0}" wg &&
	scx-agg -H -r wakeup-graph "$TDATA/agg-mutual.ndjson" >wgh &&
	grep -A 2 "^wakeup-graph: mutual" wgh | tail -n 1 | grep -q "^  100  a  *200  b  *3  *2  *1  *150ns  *200ns  *300ns  *300ns$"
'

test_expect_success 'wakeup-graph: no mutual pair when wakeups go one way' '
	grep -v "\"waker_pid\":200" "$TDATA/agg-mutual.ndjson" >oneway.ndjson &&
	scx-agg -r wakeup-graph oneway.ndjson >wg1 &&
	grep -q "\"mutual\":{\"rows\":\[\],\"omitted\":0}" wg1
'

# t/data/agg-cpu-outliers.ndjson, 16 CPUs over [1000, 1001000]: cpu c's task
# 1000+c sleeps at 1000, is woken at 2000 and runs 1000+100c ns later for
# 100+10c us; but cpu 3's runs 900 us (util 90% against 10..25%) and cpu 15's
# waits 50 us (against 1.0..2.4 us).  Every cpu switches twice, no softirq.
# cpu_util sorted: 10 11 12 14 .. 25 90, so q1 = 14.75, q3 = 22.25 and the
# iqr bounds are 14.75 - 1.5 * 7.5 = 3.5 and 22.25 + 11.25 = 33.5.
test_expect_success 'outliers: the busy cpu and the slow one, by every method' '
	scx-agg -r outliers -n 100 "$TDATA/agg-cpu-outliers.ndjson" | grep "\"type\":\"report\"" >ol &&
	jq -c "[.tables.cpus.rows[] | [.method, .metric, .cpu, .value]] | sort" ol >got &&
	for m in iqr mad percentile stddev; do
		echo "[\"$m\",\"cpu_rq_delay_p99\",15,50000] [\"$m\",\"cpu_util\",3,90] [\"$m\",\"cpu_wake_lat_p99\",15,50000]"
	done | jq -s -c . >want &&
	test_cmp want got &&
	jq -c ".tables.thresholds.rows[] | select(.metric == \"cpu_util\" and .method == \"iqr\")" ol >got &&
	echo "{\"metric\":\"cpu_util\",\"method\":\"iqr\",\"n\":16,\"lower\":3.5,\"upper\":33.5,\"outliers\":1}" >want &&
	test_cmp want got &&
	jq -e "[.tables.thresholds.rows[] | select(.metric | test(\"cpu_(switch_rate|softirq)\")) | .outliers] == [0,0,0,0,0,0,0,0]" ol >/dev/null
'

# 16 cpus alike: each wakes its task at 2000, runs it 3000-103000
even_stream() {
	echo "{\"type\":\"header\",\"version\":1,\"producer\":\"t\",\"clock\":\"boottime\",\"nr_cpus\":16}"
	for c in $(seq 0 15); do
		p=$((1000 + c))
		echo "{\"ts\":2000,\"cpu\":$c,\"type\":\"sched_waking\",\"pid\":$p,\"tgid\":$p,\"comm\":\"t\",\"prio\":120,\"target_cpu\":$c,\"waker_pid\":0,\"waker_tgid\":0}"
		echo "{\"ts\":3000,\"cpu\":$c,\"type\":\"sched_switch\",\"prev_pid\":0,\"prev_tgid\":0,\"prev_comm\":\"swapper\",\"prev_prio\":120,\"prev_state\":0,\"next_pid\":$p,\"next_tgid\":$p,\"next_comm\":\"t\",\"next_prio\":120}"
	done
	for c in $(seq 0 15); do
		p=$((1000 + c))
		echo "{\"ts\":103000,\"cpu\":$c,\"type\":\"sched_switch\",\"prev_pid\":$p,\"prev_tgid\":$p,\"prev_comm\":\"t\",\"prev_prio\":120,\"prev_state\":1,\"next_pid\":0,\"next_tgid\":0,\"next_comm\":\"swapper\",\"next_prio\":120}"
	done
}

test_expect_success 'outliers: cpus that all look alike have none' '
	even_stream >even.ndjson &&
	scx-agg -r outliers even.ndjson | grep "\"type\":\"report\"" >ol &&
	jq -e ".tables.cpus.rows == [] and
		([.tables.thresholds.rows[] | select(.metric | startswith(\"cpu_\"))] |
		 length == 20 and all(.n == 16 and .outliers == 0))" ol >/dev/null
'

test_expect_success 'lost events carried, from records and from the trailer' '
	grep -q "\"events\":11,\"lost\":7,\"unknown\":1," out &&
	grep -q "{\"cpu\":0,.*\"lost\":5," out &&
	grep -q "{\"cpu\":3,.*\"lost\":2," out &&
	scx-agg -r bottlenecks "$in" | grep -q "{\"rule\":\"lost-events\",\"where\":\"all\",\"value\":7,"
'

test_expect_success 'intervals of event time split running time at the boundary' '
	scx-agg -I 4us "$in" >iv &&
	test $(wc -l <iv) = 3 &&
	sed -n 1p iv | grep -q "\"start_ns\":1000,\"end_ns\":5000,.*{\"cpu\":0,\"util\":1,\"busy_ns\":4000," &&
	sed -n 2p iv | grep -q "\"start_ns\":5000,\"end_ns\":9000,.*\"lost\":5,.*{\"cpu\":0,\"util\":1,\"busy_ns\":4000," &&
	sed -n 2p iv | grep -q "{\"cpu\":2,\"util\":0.25,\"busy_ns\":1000," &&
	sed -n 3p iv | grep -q "\"start_ns\":9000,\"end_ns\":10000,\"dur_ns\":1000,\"final\":true,.*\"lost\":2,.*{\"cpu\":0,\"util\":1,\"busy_ns\":1000,"
'

test_expect_success 'replay from a pipe gives the same output' '
	cat "$in" | scx-agg -I 4us >iv2 &&
	test_cmp iv iv2
'

test_expect_success '--topology overrides the header: one LLC for all' '
	printf "[{\"cpu\":0,\"core\":0,\"llc\":0,\"node\":0},{\"cpu\":1,\"core\":1,\"llc\":0,\"node\":0},{\"cpu\":2,\"core\":2,\"llc\":0,\"node\":0},{\"cpu\":3,\"core\":3,\"llc\":0,\"node\":0}]\n" >topo.json &&
	scx-agg --topology topo.json "$in" >one &&
	grep -q "{\"llc\":0,\"cpus\":4,\"util\":0.291666667,\"busy_ns\":10500," one &&
	grep -q "{\"cpu\":0,[^{]*\"migrations\":1,\"migr_cross_llc\":0,\"migr_cross_node\":0," one
'

test_expect_success JQ 'nodes and the total add up whether or not LLCs lie within a node' '
	printf "[{\"cpu\":0,\"core\":0,\"llc\":0,\"node\":0},{\"cpu\":1,\"core\":1,\"llc\":0,\"node\":0},{\"cpu\":2,\"core\":2,\"llc\":1,\"node\":1},{\"cpu\":3,\"core\":3,\"llc\":1,\"node\":1}]\n" >nested.json &&
	printf "[{\"cpu\":0,\"core\":0,\"llc\":0,\"node\":0},{\"cpu\":1,\"core\":1,\"llc\":1,\"node\":0},{\"cpu\":2,\"core\":2,\"llc\":1,\"node\":1},{\"cpu\":3,\"core\":3,\"llc\":0,\"node\":1}]\n" >spanning.json &&
	for t in nested spanning; do
		scx-agg --topology $t.json -g cpu,llc,node "$in" >$t.out &&
		jq -r ".groups.node[] | \"\(.node) \(.busy_ns) \(.wake_lat.count // 0)\"" $t.out >$t.nodes &&
		jq -r ".total.busy_ns, (.groups.cpu | map(.busy_ns) | add), (.groups.node | map(.busy_ns) | add)" $t.out >$t.total || return 1
	done &&
	# nested: node 0 = cpus 0,1 (busy 9000 + 0), node 1 = cpus 2,3 (1500 + 0)
	printf "0 9000 1\n1 1500 1\n" >expect &&
	test_cmp expect nested.nodes &&
	# spanning: node 0 = cpus 0,1, node 1 = cpus 2,3 again, though the LLCs cross them
	test_cmp expect spanning.nodes &&
	printf "10500\n10500\n10500\n" >expect &&
	test_cmp expect nested.total &&
	test_cmp expect spanning.total
'

test_expect_success 'group by thread, process and comm' '
	scx-agg -g pid,tgid,comm "$in" >tasks &&
	grep -q "{\"pid\":100,\"tgid\":100,\"comm\":\"a\",\"util\":0.777777778,\"busy_ns\":7000," tasks &&
	grep -q "{\"tgid\":200,\"comm\":\"b\",\"threads\":1,\"util\":0.222222222,\"busy_ns\":2000," tasks &&
	grep -q "\"comm\":\"c\",\"threads\":1,.*\"runnable_ns\":500,\"preempted_ns\":0,\"sleeping_ns\":3000,\"blocked_ns\":4000" tasks
'

test_expect_success 'every report runs, bounded, with the count left out' '
	scx-agg -r all -n 1 -g pid "$in" >all &&
	test $(grep -c "\"type\":\"report\"" all) = 24 &&
	grep -q "\"type\":\"snapshot\"" all &&
	grep "\"report\":\"task-states\"" all | grep -q "\"threads\":{\"rows\":\[{\"pid\":100,[^]]*\],\"omitted\":2}"
'

test_expect_success 'text and OpenMetrics output' '
	scx-agg -H "$in" >text &&
	grep -q "^cpu    util  switches" text &&
	grep -q "^  0  100.0%         3" text &&
	scx-agg -f openmetrics -g cpu -r cpu-idle "$in" >om &&
	grep -q "^# TYPE scx_busy_seconds gauge$" om &&
	grep -q "^scx_busy_seconds{cpu=\"0\"} 9e-06$" om &&
	grep -q "^scx_wake_lat_seconds{cpu=\"0\",quantile=\"0.99\"} 1e-06$" om &&
	test "$(tail -n 1 om)" = "# EOF"
'

test_expect_success 'binary and NDJSON of the same events give the same output' '
	"$SCX_BUILD/bench/agg-gen" -n 20000 -o gen.ndjson &&
	"$SCX_BUILD/bench/agg-gen" -n 20000 -f binary -o gen.bin &&
	scx-agg -I 5ms -g all -r all gen.ndjson >a.out &&
	scx-agg -I 5ms -g all -r all gen.bin >b.out &&
	test_cmp a.out b.out &&
	test $(grep -c "\"type\":\"snapshot\"" a.out) -gt 1
'

test_expect_success GZIP 'gzip-compressed input' '
	gzip -c "$in" >in.gz &&
	scx-agg in.gz >gz.out &&
	test_cmp out gz.out
'

test_expect_success 'empty input is an error, not a quiet result' '
	test_exit_code 1 scx-agg </dev/null >empty 2>err &&
	grep -q "empty input" err && test ! -s empty
'

test_expect_success 'a malformed line is an error with its line number' '
	head -n 3 "$in" >bad.ndjson &&
	echo "{\"ts\":5000,\"cpu\":0,\"type\":\"sched_switch\",\"prev_pid\":" >>bad.ndjson &&
	test_exit_code 1 scx-agg bad.ndjson >/dev/null 2>err &&
	grep -q "bad.ndjson: line 4" err
'

test_expect_success 'usage errors exit 2' '
	test_exit_code 2 scx-agg -g cpu,nope "$in" 2>err && grep -q "bad --by" err &&
	test_exit_code 2 scx-agg -r no-such-report "$in" 2>err && grep -q "unknown report" err &&
	test_exit_code 2 scx-agg -t nosuch=1 "$in" 2>err && grep -q "bad threshold" err &&
	test_exit_code 2 scx-agg -I 0 "$in" 2>err && grep -q "bad interval" err
'

test_expect_success 'thresholds change the bottleneck findings' '
	scx-agg -r bottlenecks -t switch-rate=1e9 -t migration-rate=1e9 -t imbalance=100 "$in" >bn &&
	! grep -q "switch-rate" bn && ! grep -q "imbalance" bn &&
	grep -q "lost-events" bn
'

test_expect_success 'a missing file and a full disk are errors' '
	test_exit_code 1 scx-agg no-such-file 2>err &&
	grep -q "cannot open .no-such-file." err &&
	if test -w /dev/full; then
		test_exit_code 1 scx-agg "$in" >/dev/full 2>err && grep -q "cannot write" err
	fi
'

# The process table once rehashed a named process by its comm when it grew,
# and a later lookup by tgid made a second row for the same process.
test_expect_success 'a process is one group however many processes there are' '
	scx-agg -f ndjson -b tgid "$SCX_SRC/t/data/events-demo.ndjson.zst" >snap &&
	head -n 1 snap | tr "{" "\n" | sed -n "s/^\"tgid\":\([0-9-]*\),.*/\1/p" | sort >tgids &&
	test $(wc -l <tgids) -gt 300 &&
	sort -u tgids >uniq && test_cmp uniq tgids
'

test_done
