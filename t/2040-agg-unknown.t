#!/bin/sh
# Placement figures a stream cannot give are null (text "-", OpenMetrics
# NaN), never 0.  t/data/agg-place.ndjson (worked out in t/2004-agg-place.t)
# with its wakeup events removed: a woken task is first seen when it runs, so
# the run queues, the runnable count and the wakeups are unknown; what comes
# from the switches alone (idle time, busy CPUs) stays.  Without its
# sched_migrate_task events, the migrations are unknown.
. "$(dirname "$0")/lib.sh"

in=$TDATA/agg-place.ndjson

test_expect_success 'setup: the stream without wakeups, and without migrations' '
	grep -v "\"type\":\"sched_wak" "$in" >nowake.ndjson &&
	grep -v "\"type\":\"sched_migrate_task\"" "$in" >nomig.ndjson &&
	! grep -q sched_wak nowake.ndjson &&
	grep -q sched_migrate_task nowake.ndjson &&
	! grep -q sched_migrate_task nomig.ndjson
'

test_expect_success 'work-conservation: the queue figures are null without wakeups' '
	scx-agg -n 0 -r work-conservation nowake.ndjson >wc 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"cpus\":4,\"violation\":null,\"violation_pct\":null,\"idle_while_waiting\":null,\"waited\":null,\"waited_while_idle\":null,\"waited_while_idle_pct\":null}\]" wc &&
	grep -q "{\"cpu\":1,\"llc\":0,\"node\":0,\"idle\":3600,\"idle_while_waiting\":null,\"iww_pct\":null,\"iww_same_llc_ns\":null,\"iww_state0\":null,\"iww_deeper\":null,\"iww_state_unknown\":null,\"offline\":0,\"offline_while_waiting\":null,\"waited\":null,\"waited_while_idle\":null}" wc &&
	grep -q "\"llcs\":{\"rows\":\[{\"llc\":0,\"cpus\":2,\"violation\":null,\"violation_pct\":null}" wc &&
	grep -q "\"nodes\":{\"rows\":\[{\"node\":0,\"cpus\":3,\"violation\":null,\"violation_pct\":null}" wc &&
	grep -q "{\"pid\":10,\"comm\":\"A\",\"waited\":null,\"waited_while_idle\":null,\"while_idle_pct\":null,\"while_llc_idle_ns\":null}" wc &&
	! grep -q "\"violation\":0" wc
'

test_expect_success 'runqueue-occupancy: null without wakeups' '
	scx-agg -n 0 -r runqueue-occupancy nowake.ndjson >occ 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"cpus\":4,\"occupancy\":null,\"max_occupancy\":null,\"occupancy2\":null}\]" occ &&
	grep -q "{\"cpu\":0,\"llc\":0,\"node\":0,\"occupied\":null,\"occupancy\":null,\"occupied2\":null,\"occupancy2\":null}" occ &&
	grep -q "{\"llc\":0,\"cpus\":2,\"occupancy\":null,\"occupancy2\":null}" occ
'

test_expect_success 'wakeup-placement: the wakeups are null without wakeup events' '
	scx-agg -n 0 -r wakeup-placement nowake.ndjson >wp 2>/dev/null &&
	grep -q "{\"class\":\"prev-cpu\",\"wakeups\":null,\"share\":null,\"wake_lat\":null}" wp &&
	grep -q "{\"ran_on\":\"target-cpu\",\"wakeups\":null,\"share\":null}" wp &&
	! grep -q "\"wakeups\":0" wp
'

test_expect_success 'pre-migration: runs need wakeups, migrations sched_migrate_task' '
	scx-agg -n 0 -r pre-migration nowake.ndjson >pmw 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"runs\":null,\"migrated\":null,\"migrated_pct\":null,\"pre_migration\":null,\"pre_mig\":null,\"post_mig\":null}\]" pmw &&
	scx-agg -n 0 -r pre-migration nomig.ndjson >pmm 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"runs\":6,\"migrated\":null,\"migrated_pct\":null,\"pre_migration\":null,\"pre_mig\":null,\"post_mig\":null}\]" pmm
'

test_expect_success 'parallelism: the runnable count is null without wakeups, busy cpus stay' '
	scx-agg -n 0 -r parallelism nowake.ndjson >par 2>/dev/null &&
	grep -q "\"summary\":{\"rows\":\[{\"runnable_avg\":null,\"runnable_max\":null,\"runnable_p50\":null,\"runnable_p90\":null,\"runnable_p99\":null,\"active_avg\":2.74025974,\"active_max\":4," par &&
	grep -q "\"runnable\":{\"rows\":\[\]" par &&
	grep -q "{\"ts\":4500,\"runnable\":null,\"active\":4}" par
'

test_expect_success 'text shows "-", OpenMetrics NaN' '
	scx-agg -H -n 0 -r runqueue-occupancy,pre-migration nowake.ndjson >txt 2>/dev/null &&
	grep -A2 "^runqueue-occupancy: summary" txt | tail -n 1 >row &&
	echo "   4          -              -           -" >want &&
	test_cmp want row &&
	! grep -q nan txt &&
	scx-agg -f openmetrics -n 0 -r runqueue-occupancy nowake.ndjson >om 2>/dev/null &&
	grep -q "^scx_report_runqueue_occupancy_summary_occupancy{} NaN\$" om &&
	grep -q "^scx_report_runqueue_occupancy_cpus_occupied_seconds{cpu=\"0\"} NaN\$" om
'

test_expect_success 'a figure the topology cannot give is "-" in text too' '
	grep -v "\"type\":\"header\"" "$in" >notopo.ndjson &&
	scx-agg -H -n 0 -r work-conservation notopo.ndjson >nt 2>/dev/null &&
	grep -q "^work-conservation: threads" nt &&
	! grep -q nan nt
'

test_expect_success 'diff: the queue figures of a side without wakeups are not compared' '
	scx-agg diff -n 0 -f ndjson "$in" nowake.ndjson >d 2>/dev/null &&
	grep -q "{\"what\":\"violation_pct, runnable_avg\",\"why\":\"B has no sched_waking, sched_wakeup or sched_wakeup_new events\"}" d &&
	! grep -q "\"metric\":\"violation_pct\"" d &&
	! grep -q "\"metric\":\"runnable_avg\"" d &&
	grep -q "\"metric\":\"active_avg\",\"group\":\"total\"" d
'

test_done
