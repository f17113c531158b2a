#!/bin/sh
# scx-top's header line says "-" for the rates a stream cannot give: without
# wakeup events no wakeup rate (and no latency), without sched_migrate_task
# no migration rates; never a 0 that claims a count (#16).  The same from
# events and from scx-agg's snapshots of them.
. "$(dirname "$0")/lib.sh"

in=$TDATA/agg-place.ndjson

# header FILE: the header's rates line of the first frame, from the events
# and through scx-agg
header() {
	scx-top -b -n 1 <"$1" | grep -a "^util .* sw " &&
	scx-agg "$1" | scx-top -b -n 1 | grep -a "^util .* sw "
}

test_expect_success 'setup: the stream without wakeups, without migrations' '
	grep -v -E "\"sched_(waking|wakeup|wakeup_new)\"" "$in" >nowake.ndjson &&
	grep -v "\"sched_migrate_task\"" "$in" >nomig.ndjson &&
	test $(wc -l <nowake.ndjson) -lt $(wc -l <"$in") &&
	test $(wc -l <nomig.ndjson) -lt $(wc -l <"$in")
'

test_expect_success 'with every event: the rates' '
	header "$in" >got &&
	test_line_count 2 got &&
	! grep -q "wake -\|mig -" got &&
	grep -q "wake [0-9.]*[kM]*/s .* mig [0-9.]*[kM]*/s (xllc [0-9.]*[kM]*  xnode [0-9.]*[kM]*)" got
'

test_expect_success 'without wakeups: wake and its latency are -, migrations stay' '
	header nowake.ndjson >got &&
	test_line_count 2 got &&
	test $(grep -c "  wake -  worst node lat.p99 -  mig [0-9.]*[kM]*/s" got) = 2
'

test_expect_success 'without migrations: mig, xllc and xnode are -, wakeups stay' '
	header nomig.ndjson >got &&
	test_line_count 2 got &&
	test $(grep -c "  wake [0-9.]*[kM]*/s .*  mig - (xllc -  xnode -)" got) = 2
'

test_done
