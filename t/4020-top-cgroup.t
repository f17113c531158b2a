#!/bin/sh
# scx-top's cgroup view in batch mode.  t/data/agg-cgroup.ndjson is worked
# out in t/2013-agg-cgroup.t's header: a 9 us window (1000..10000 ns) in
# which /b/z runs 7000 ns (77.8%), /a/x 5000 (55.6%), /a/y 2000 (22.2%),
# id 99 and the task without an id 1000 each (11.1%); /a/x and /b/z are
# each preempted once (1 per 9 us: 111k/s); /a/y is woken once with a
# 1000 ns latency (shown as its histogram bucket, 1.00us).  The view must
# show the same rows from the events and from scx-agg's snapshots of them,
# and rows from kernel snapshots (t/data/kagg-cgroups.ndjson, from
# scx-events --aggregate with a workload in /fl3-corpus/w).
. "$(dirname "$0")/lib.sh"

LANG=C
export LANG
in=$TDATA/agg-cgroup.ndjson

test_expect_success 'cgroup view: hand-worked rows from events' '
	scx-top -b --no-config --mode num --view cgroup <"$in" >out &&
	grep -q "^CGROUP  *CPU%.* PREEMPT/s " out &&
	grep -q "^/b/z  *77.8  *222k  *111k  *0 " out &&
	grep -q "^/a/x  *55.6  *222k  *111k  *0 " out &&
	grep -q "^/a/y  *22.2  *111k  *0  *111k  *1.00us  *1.00us  *1.00us " out &&
	grep -q "^(unknown)  *11.1 " out &&
	grep -q "^id:99  *11.1 " out &&
	# sorted by CPU time, most first
	grep -n "^/" out | cut -d" " -f1 | tr "\n" " " >order &&
	test "$(cat order)" = "5:/b/z 6:/a/x 7:/a/y "
'

test_expect_success 'cgroup view: the same rows from scx-agg snapshots' '
	scx-top -b --no-config --mode num --view cgroup <"$in" | sed -n "/^CGROUP/,\$p" >direct &&
	scx-agg -g cgroup -f ndjson "$in" |
		scx-top -b --no-config --mode num --view cgroup | sed -n "/^CGROUP/,\$p" >via &&
	test_cmp direct via
'

test_expect_success JQ 'cgroup view: kernel snapshots, preemptions per second' '
	scx-top -b --no-config --mode num --view cgroup <"$TDATA/kagg-cgroups.ndjson" >kout &&
	grep -q "kernel aggregates" kout &&
	# window 0: 28 preemptions of /fl3-corpus/w in 0.2018 s, 139/s (whole
	# numbers from 10/s on)
	jq -r "select(.type == \"kernel_snapshot\" and .seq == 0) |
		(.cgroups[] | select(.cgroup == 1032) | .involuntary) / ((.end_ns - .start_ns) / 1e9) |
		round" "$TDATA/kagg-cgroups.ndjson" >want &&
	test "$(cat want)" = 139 &&
	awk "/^\/fl3-corpus\/w / { print \$4; exit }" kout >got &&
	test "$(cat got)" = "$(cat want)"
'

test_expect_success 'cgroup view: says why it is empty; key and help line' '
	scx-top -b --no-config --view cgroup <"$TDATA/kagg-2cpu.ndjson" >empty &&
	grep -q "no cgroup rows: the input carries no cgroup ids" empty &&
	grep -q " o cgroup h help" empty &&
	scx-top -b --no-config --view help <"$in" >help &&
	grep -q "^o  *view-cgroup  *cgroups: CPU time, preemptions, wakeup latency" help
'

test_expect_success 'cgroup view: sort and view names in the config' '
	printf "view = cgroup\nsort.cgroup = -preempt\n" >conf &&
	scx-top -b --config conf --mode num <"$in" >sorted &&
	grep -q "sort preempt (desc)" sorted
'

test_done
