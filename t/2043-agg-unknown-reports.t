#!/bin/sh
# Every report and the snapshot say null (text "-", OpenMetrics NaN) for a
# figure the stream has no events for, never 0; t/2040 does the placement
# reports.  t/data/agg-place.ndjson has wakeups, migrations and cpu_idle but
# no softirq, irq, IPI, fork, exec or exit events; it is fed whole, without
# its wakeup events and without its migrations.  The kernel snapshots of
# t/data/kagg-2cpu.ndjson count wakeups and migrations but keep no
# per-enqueue run-queue depths.
. "$(dirname "$0")/lib.sh"

in=$TDATA/agg-place.ndjson

test_expect_success 'setup: the stream without wakeups, and without migrations' '
	grep -v "\"type\":\"sched_wak" "$in" >nowake.ndjson &&
	grep -v "\"type\":\"sched_migrate_task\"" "$in" >nomig.ndjson &&
	! grep -q sched_wak nowake.ndjson &&
	! grep -q sched_migrate_task nomig.ndjson
'

test_expect_success 'migrations: null without sched_migrate_task, counted with it' '
	scx-agg -n 0 -r migrations nomig.ndjson >m 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"migrations\":null,\"same_llc\":null,\"cross_llc\":null,\"cross_node\":null,\"per_sec\":null}\]" m &&
	grep -q "{\"cpu\":3,\"llc\":2,\"node\":1,\"migrations_in\":null,\"cross_llc\":null,\"cross_node\":null}" m &&
	! grep -q "\"migrations\":0" m &&
	scx-agg -n 0 -r migrations "$in" >m2 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"migrations\":3,\"same_llc\":1,\"cross_llc\":2,\"cross_node\":1," m2 &&
	grep -q "{\"cpu\":2,\"llc\":1,\"node\":0,\"migrations_in\":0,\"cross_llc\":0,\"cross_node\":0}" m2
'

test_expect_success 'runqueue-depth and wakeup-latency: null without wakeups' '
	scx-agg -n 0 -r runqueue-depth,wakeup-latency nowake.ndjson >w 2>/dev/null &&
	grep -q "{\"cpu\":0,\"avg\":null,\"p50\":null,\"p99\":null,\"max\":null,\"enqueues\":null,\"high\":null}" w &&
	grep -q "\"summary\":{\"rows\":\[{\"wakeups\":null,\"wake_lat\":null,\"rq_delay\":null}\]" w &&
	grep -q "{\"cpu\":1,\"wake_lat\":null,\"rq_delay\":null}" w &&
	! grep -q "\"count\":0" w &&
	scx-agg -n 0 -r runqueue-depth,wakeup-latency "$in" >w2 2>/dev/null &&
	! grep -q null w2
'

test_expect_success 'the other task reports: the figures that need wakeups are null' '
	scx-agg -n 0 -r process-runtime,latency-breakdown,task-states,wakeup-graph,fairness,cgroup-latency nowake.ndjson >o 2>/dev/null &&
	grep -q "{\"tgid\":10,\"comm\":\"A\",\"threads\":1,\"runtime\":5000,\"share\":[0-9.]*,\"util\":[0-9.]*,\"switches\":2,\"wakeups\":null,\"rq_delay\":null}" o &&
	grep -q "{\"stage\":\"waking->running\",\"latency\":null,\"share\":null}" o &&
	grep -q "{\"stage\":\"preempted->running\",\"latency\":{\"count\":1," o &&
	grep -q "{\"pid\":10,\"comm\":\"A\",\"running\":5000,\"runnable\":null,\"preempted\":2000,\"sleeping\":null,\"blocked\":null,\"running_pct\":[0-9.]*,\"waiting_pct\":null," o &&
	grep -q "\"report\":\"wakeup-graph\".*\"summary\":{\"rows\":\[{\"pairs\":null,\"unattributed\":null}\]" o &&
	grep -q "\"report\":\"fairness\".*\"starved\":null,\"hogging\":0}" o &&
	grep -q "\"report\":\"cgroup-latency\".*\"wakeups\":null,\"preempted\":1,\"rq_p99\":null,\"rq_delay\":null,\"wake_lat\":null}" o
'

test_expect_success 'ipi: null without ipi_send events' '
	scx-agg -n 0 -r ipi "$in" >i 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"sent\":null,\"received\":null,\"per_sec\":null}\]" i
'

test_expect_success 'snapshot: null for each kind of event the stream lacks' '
	scx-agg nowake.ndjson >s 2>/dev/null &&
	grep -q "\"total\":{[^{]*\"wakeups\":null,\"wakeups_new\":null,\"migrations\":3,[^{]*\"forks\":null,\"execs\":null,\"exits\":null,\"softirq_ns\":null,\"irqs\":null,\"irq_ns\":null,\"ipi_sent\":null,\"ipi_received\":null,\"ipi_ns\":null,\"cstate_ns\":7100," s &&
	grep -q "\"rq_depth_avg\":null,\"rq_depth_max\":null,\"wake_lat\":null,\"rq_delay\":null,\"slice\":{[^}]*},\"rq_depth\":null,\"wc_loss_ns\":null}" s &&
	scx-agg -b pid nowake.ndjson >sp 2>/dev/null &&
	grep -q "{\"pid\":10,[^{]*\"runnable_ns\":null,\"preempted_ns\":2000,\"sleeping_ns\":null,\"blocked_ns\":null," sp &&
	scx-agg nomig.ndjson >sm 2>/dev/null &&
	grep -q "\"migrations\":null,\"migr_cross_llc\":null,\"migr_cross_node\":null" sm &&
	grep -q "\"total\":{[^{]*\"wakeups\":4,\"wakeups_new\":1," sm &&
	grep -q "\"wc_loss_ns\":[0-9]" sm
'

test_expect_success 'snapshot text shows "-", OpenMetrics NaN' '
	scx-agg -H nomig.ndjson >t 2>/dev/null &&
	grep -A1 "^cpu .*migrations" t | tail -n 1 >row &&
	awk "{ print \$6, \$7, \$8, \$9 }" row >got &&
	echo "- - - -" >want &&
	test_cmp want got &&
	scx-agg -f openmetrics nowake.ndjson >om 2>/dev/null &&
	grep -q "^scx_wc_loss_seconds{scope=\"total\"} NaN\$" om &&
	grep -q "^scx_rq_depth_max{cpu=\"0\"} NaN\$" om &&
	! grep -q "^scx_wake_lat_seconds" om &&
	grep -q "^scx_slice_seconds_count{scope=\"total\"} 5\$" om
'

test_expect_success 'an interval closed by the first wakeup already knows the stream has them' '
	scx-agg -I 1000ns "$in" >iv 2>/dev/null &&
	head -n 1 iv | grep -q "\"start_ns\":300,.*\"wakeups\":0,.*\"wc_loss_ns\":0}"
'

test_expect_success 'kernel snapshots: wakeups, migrations and wc_loss known, per-enqueue depths not' '
	scx-agg "$TDATA/kagg-2cpu.ndjson" >k 2>/dev/null &&
	head -n 1 k >k1 &&
	grep -q "\"total\":{[^{]*\"wakeups\":311,\"wakeups_new\":45,\"migrations\":93," k1 &&
	grep -q "\"total\":{.*\"rq_depth_avg\":3.7227567,\"rq_depth_max\":8,.*\"rq_depth\":null,\"wc_loss_ns\":11180660}" k1 &&
	grep -q "\"softirq_ns\":null" k1
'

test_done
