#!/bin/sh
# The Prometheus exporter and --summary say unknown, never 0, for figures the
# stream has no events for (t/2043 does the reports and snapshots).
# Prometheus has no null: a family that cannot be counted is left out.  A
# summary's figure is null, and scx-agg diff leaves it out of the comparison.
# t/data/agg-place.ndjson has wakeups, migrations and cpu_idle but no softirq,
# irq, IPI, fork, exec or exit events; it is fed whole, without its wakeup
# events and without its migrations.
. "$(dirname "$0")/lib.sh"

in=$TDATA/agg-place.ndjson

# has_family NAME...: each family's # TYPE line is in prom; no_family: no line
has_family() {
	for f; do
		grep -q "^# TYPE $f " prom || { echo "missing family $f" >&2; return 1; }
	done
}
no_family() {
	for f; do
		! grep -q "^$f" prom || { echo "family $f written" >&2; return 1; }
	done
}

test_expect_success 'setup: the stream without wakeups, and without migrations' '
	grep -v "\"type\":\"sched_wak" "$in" >nowake.ndjson &&
	grep -v "\"type\":\"sched_migrate_task\"" "$in" >nomig.ndjson &&
	grep -v "\"type\":\"sched_wak" "$TDATA/agg-cgroup.ndjson" >cg-nowake.ndjson &&
	! grep -q "\"type\":\"sched_wak" nowake.ndjson cg-nowake.ndjson &&
	! grep -q sched_migrate_task nomig.ndjson
'

test_expect_success 'prometheus: without wakeups the families that need them are left out' '
	scx-agg -f prometheus nowake.ndjson >prom 2>/dev/null &&
	no_family scx_cpu_wakeups_total scx_cpu_new_task_wakeups_total \
		scx_cpu_rq_wait_seconds_total scx_cpu_work_conservation_loss_seconds_total \
		scx_cpu_rq_depth_max_tasks scx_cpu_wake_latency_seconds \
		scx_cpu_rq_delay_seconds scx_cpu_rq_depth_tasks &&
	has_family scx_cpu_switches_total scx_cpu_migrations_total scx_cpu_slice_seconds &&
	grep -q "^scx_cpu_migrations_total{cpu=\"3\",llc=\"2\",node=\"1\"} 1\$" prom
'

test_expect_success 'prometheus: kinds the stream never had are left out, the others kept' '
	scx-agg -f prometheus nowake.ndjson >prom 2>/dev/null &&
	no_family scx_cpu_forks_total scx_cpu_execs_total scx_cpu_exits_total \
		scx_cpu_softirq_seconds_total scx_cpu_irqs_total scx_cpu_irq_seconds_total \
		scx_cpu_sent_ipis_total scx_cpu_received_ipis_total scx_cpu_ipi_seconds_total &&
	has_family scx_cpu_idle_state_seconds_total scx_cpu_busy_seconds_total
'

test_expect_success 'prometheus: without migrations those families are left out' '
	scx-agg -f prometheus nomig.ndjson >prom 2>/dev/null &&
	no_family scx_cpu_migrations_total scx_cpu_cross_llc_migrations_total \
		scx_cpu_cross_node_migrations_total &&
	has_family scx_cpu_wakeups_total scx_cpu_wake_latency_seconds \
		scx_cpu_rq_depth_tasks &&
	scx-agg -f prometheus "$in" >prom 2>/dev/null &&
	has_family scx_cpu_migrations_total scx_cpu_cross_llc_migrations_total \
		scx_cpu_cross_node_migrations_total
'

test_expect_success 'prometheus: cgroup families that need wakeups are left out without them' '
	scx-agg -f prometheus -g cpu,cgroup cg-nowake.ndjson >prom 2>/dev/null &&
	has_family scx_cgroup_busy_seconds_total scx_cgroup_switches_total &&
	no_family scx_cgroup_wakeups_total scx_cgroup_wake_latency_seconds \
		scx_cgroup_rq_delay_seconds &&
	scx-agg -f prometheus -g cpu,cgroup "$TDATA/agg-cgroup.ndjson" >prom 2>/dev/null &&
	has_family scx_cgroup_wakeups_total scx_cgroup_wake_latency_seconds
'

test_expect_success 'prometheus: kernel snapshots keep no per-enqueue depth' '
	scx-agg -f prometheus "$TDATA/kagg-2cpu.ndjson" >prom 2>/dev/null &&
	no_family scx_cpu_rq_depth_tasks scx_cpu_forks_total &&
	has_family scx_cpu_wakeups_total scx_cpu_rq_depth_max_tasks \
		scx_cpu_work_conservation_loss_seconds_total
'

test_expect_success PROMTOOL 'prometheus: promtool finds nothing with families left out' '
	for f in nowake nomig; do
		scx-agg -f prometheus $f.ndjson >$f.prom 2>/dev/null &&
		promtool check metrics <$f.prom >lint 2>&1 &&
		test_line_count 0 lint || return 1
	done
'

test_expect_success 'summary: null for the figures without their events' '
	scx-agg --summary nowake.ndjson >s 2>/dev/null &&
	grep -q "\"total\":{\"nr\":4,\"busy_ns\":21100,\"switches\":9,\"involuntary\":1,\"wakeups\":null,\"migrations\":3,\"migr_cross_llc\":2,\"migr_cross_node\":1,\"wake_lat\":null,\"rq_delay\":null,\"slice\":{\"count\":5," s &&
	grep -q "\"violation_ns\":null,\"runnable_ns\":null,\"active_ns\":21100}" s &&
	grep -q "{\"cpu\":1,\"nr\":1,\"busy_ns\":3400,\"switches\":2,\"involuntary\":0,\"wakeups\":null," s &&
	! grep -q "\"wakeups\":0" s &&
	scx-agg --summary nomig.ndjson >sm 2>/dev/null &&
	grep -q "\"wakeups\":5,\"migrations\":null,\"migr_cross_llc\":null,\"migr_cross_node\":null,\"wake_lat\":{\"count\":5," sm &&
	scx-agg --summary "$in" >sa 2>/dev/null &&
	! grep -q null sa
'

test_expect_success 'diff reads null figures as unknown and leaves them out' '
	scx-agg --summary nowake.ndjson >a.sum 2>/dev/null &&
	scx-agg --summary nomig.ndjson >b.sum 2>/dev/null &&
	scx-agg diff -n 0 a.sum b.sum >d &&
	grep -q "{\"what\":\"wake_lat, rq_delay, wakeups_per_s\",\"why\":\"A has no sched_waking, sched_wakeup or sched_wakeup_new events\"}" d &&
	grep -q "{\"what\":\"violation_pct, runnable_avg\",\"why\":\"A has no" d &&
	grep -q "{\"what\":\"migrations_per_s, cross_llc_per_s, cross_node_per_s\",\"why\":\"B has no sched_migrate_task events\"}" d &&
	! grep -q "\"metric\":\"rq_delay\|\"metric\":\"wake_lat\|\"metric\":\"wakeups_per_s\|\"metric\":\"migrations_per_s" d &&
	grep -q "\"metric\":\"active_avg\",\"group\":\"total\"" d &&
	! grep -q "without placement tracking" d
'

test_expect_success 'diff of a summary with itself compares the known figures' '
	scx-agg --summary "$in" >full.sum 2>/dev/null &&
	scx-agg diff -n 0 full.sum full.sum >d &&
	grep -q "\"metric\":\"rq_delay.p50\",\"group\":\"total\"" d &&
	grep -q "\"metric\":\"violation_pct\",\"group\":\"total\"" d &&
	grep -q "\"not_compared\":{\"rows\":\[\]" d
'

test_done
