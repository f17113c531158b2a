#!/bin/sh
# Work-conservation loss (wc_loss_ns) on the hand-written stream of
# t/2000-agg.t.  CPUs 1 and 3 never switch, so only 0 and 2 take part:
#   1000 cpu2 goes idle; 2000 b is woken onto idle cpu2 (about to run
#   there: no loss); 2500 b migrates to cpu0, busy with a: cpu2 is idle
#   with nothing queued while b waits, so the loss runs from 2500;
#   3000 a is preempted on cpu0 and waits there (still a waiter);
#   4000 c is woken onto cpu2, which has a task queued again: the loss
#   stops after 1500 ns, all of it on cpu2 (LLC 1, node 1);
#   5000 a runs, nothing waits; 6000 cpu2 idle again, but nobody waits.
. "$(dirname "$0")/lib.sh"

in=$TDATA/agg-basic.ndjson

test_expect_success JQ 'loss on the idle cpu while another cpu had a waiter' '
	scx-agg "$in" | jq -c "[.total.wc_loss_ns, [.groups.cpu[].wc_loss_ns],
		[.groups.llc[].wc_loss_ns], [.groups.node[].wc_loss_ns]]" >got &&
	echo "[1500,[0,0,1500,0],[0,1500],[0,1500]]" >want &&
	test_cmp want got
'

test_expect_success JQ 'split at interval boundaries as the other times' '
	scx-agg -I 1000ns "$in" | jq -c "[.start_ns, .total.wc_loss_ns]" | head -n 4 >got &&
	printf "%s\n" "[1000,0]" "[2000,500]" "[3000,1000]" "[4000,0]" >want &&
	test_cmp want got
'

test_expect_success 'exported as a prometheus counter' '
	scx-agg -f prometheus "$in" >prom &&
	grep "^scx_cpu_work_conservation_loss_seconds_total{cpu=\"2\"" prom >got &&
	echo "scx_cpu_work_conservation_loss_seconds_total{cpu=\"2\",llc=\"1\",node=\"1\"} 0.0000015" >want &&
	test_cmp want got
'

test_done
