#!/bin/sh
# cgroup-preemptions past the pair table's bound (65536 pairs an interval)
# are counted in the report's summary table as unattributed, not printed as
# a warning beside it.  300 cgroups, each task preempted once by every other
# cgroup's task: 89700 pairs, so at least 89700 - 65536 = 24164 preemptions
# find the table full.
. "$(dirname "$0")/lib.sh"

test_expect_success 'setup: 89700 preemptions between 300 cgroups' '
	awk "BEGIN { ts = 1000; for (i = 0; i < 300; i++) for (j = 0; j < 300; j++) if (i != j)
		printf \"{\\\"ts\\\":%d,\\\"cpu\\\":0,\\\"type\\\":\\\"sched_switch\\\",\\\"prev_pid\\\":%d,\\\"prev_tgid\\\":%d,\\\"prev_comm\\\":\\\"p\\\",\\\"prev_prio\\\":120,\\\"prev_state\\\":256,\\\"next_pid\\\":%d,\\\"next_tgid\\\":%d,\\\"next_comm\\\":\\\"p\\\",\\\"next_prio\\\":120,\\\"prev_cgroup\\\":%d,\\\"next_cgroup\\\":%d}\\n\",
			ts++, 1000 + i, 1000 + i, 1000 + j, 1000 + j, 5000 + i, 5000 + j }" >in.ndjson &&
	test $(wc -l <in.ndjson) = 89700
'

test_expect_success JQ 'NDJSON: the summary has the full table and the preemptions past it' '
	scx-agg -n 1 -r cgroup-preemptions in.ndjson >rep 2>err &&
	jq -c ".tables.summary.rows[0].pairs" rep >pairs &&
	echo 65536 >want &&
	test_cmp want pairs &&
	test $(jq ".tables.summary.rows[0].unattributed" rep) -ge 24164 &&
	! grep -q "pair table" err
'

test_expect_success 'text: the summary table is shown, no warning' '
	scx-agg -H -n 1 -r cgroup-preemptions in.ndjson >txt 2>err &&
	grep -q "^cgroup-preemptions: summary" txt &&
	grep -q unattributed txt &&
	! grep -q "pair table" err
'

test_done
