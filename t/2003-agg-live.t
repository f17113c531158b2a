#!/bin/sh
# Live: the same workload recorded at the same time by scx-events and by
# `perf sched record`; per task, scx-agg's switch count, max and total delay
# equals perf's recorded switches exactly, and the max delay matches
# `perf sched latency -p` within the live tolerance of t/data/agg-perfcmp.pl
# --live (1% + 20us, two clocks) for at least 75% of the tasks (perf sched
# latency's state machine skips some waits; the script says why).
# As in t/2002-agg-perf.t, scx-agg is given perf 6.1's view: delays from
# sched_wakeup (sched_waking left out) and R+ switch-outs read as sleeps.
# Only the workload's own tasks are compared: both recorders see the whole
# machine, and another run of this test (or any sched-messaging) on a shared
# machine overlaps perf's window only in part.  They are the descendants of
# the leader in perf's fork records; the leader itself, which ran as "sh"
# and "perf" before its exec, is left out (its early switches are counted
# under another name by perf).
# When perf or scx-events loses events under load (each counts and reports
# it) the comparison is skipped.
# Counts are checked exactly against perf's own recorded switch events;
# perf sched latency's per-task counts and totals depend on its state
# machine skipping waits (see t/data/agg-perfcmp.pl), so only its max delay
# is compared live.
. "$(dirname "$0")/lib.sh"
. "$SCX_SRC/t/lib-capture.sh"

if ! test -x "$SCX_BUILD/scx-events"; then
	test_skip 'live comparison with perf sched latency' 'scx-events not built'
	test_done
	exit 0
fi

test_expect_success BPF,PERF 'record one workload with scx-events and perf sched at once' '
	start_capture "$TRASH/live.ndjson" -e switch,wakeup,wakeup_new &&
	perf sched record -q -m 16M -o "$TRASH/perf.data" -e sched:sched_wakeup -- \
		sh -c "echo \$\$ >\"$TRASH/leader\"; exec perf bench sched messaging -g 1 -l 10" \
		>/dev/null 2>&1 &&
	stop_capture &&
	tail -n 1 "$TRASH/live.ndjson" | grep -q "\"type\":\"trailer\"" &&
	# the leader'"'"'s descendants: FORK(pid:tid):(ppid:ptid), by thread id
	perf script -i "$TRASH/perf.data" --show-task-events 2>/dev/null |
		awk -v root=$(cat "$TRASH/leader") "BEGIN { own[root] = 1 }
			/PERF_RECORD_FORK\(/ {
				s = \$0; sub(/.*PERF_RECORD_FORK\(/, \"\", s)
				c = s; sub(/\).*/, \"\", c); sub(/.*:/, \"\", c)
				p = s; sub(/^[^(]*\(/, \"\", p); sub(/\).*/, \"\", p); sub(/.*:/, \"\", p)
				if (p in own) own[c] = 1
			}
			END { for (t in own) if (t != root) print t }" >"$TRASH/own.pids" &&
	{ test $(wc -l <"$TRASH/own.pids") -ge 10 || { echo "the leader'"'"'s tasks:"; cat "$TRASH/own.pids"; false; }; }
'

# own: the lines of perf sched latency -p on stdin that are the workload'"'"'s
own() {
	awk "NR == FNR { own[\$1] = 1; next }
		{ p = \$0; sub(/ *\|.*/, \"\", p); sub(/.*:/, \"\", p); if (p in own) print }" \
		"$TRASH/own.pids" -
}

# Both streams must be whole.  A machine loaded enough to starve scx-events'
# reader makes it lose events, which it counts in its trailer (a reported
# loss, not a silent one): then nothing can be compared, as when perf loses.
lost=$(tail -n 1 "$TRASH/live.ndjson" 2>/dev/null | sed -n "s/.*\"lost_total\":\([0-9]*\).*/\1/p")
if test_have_prereq BPF,PERF && test "${lost:-0}" != 0; then
	test_skip 'every task perf saw is in scx-agg'"'"'s output, and the comparisons' \
		"scx-events lost $lost events under load"
	test_done
	exit 0
fi

test_expect_success BPF,PERF 'every task perf saw is in scx-agg'"'"'s output' '
	perf sched latency -p -i "$TRASH/perf.data" 2>/dev/null |
		grep "sched-messaging:" | own >perf.txt &&
	scx-agg -g pid "$TRASH/live.ndjson" >all.ndjson &&
	n=$(wc -l <perf.txt) && test "$n" -ge 10 &&
	for p in $(sed -n "s/.*:\([0-9]*\) *|.*/\1/p" perf.txt); do
		grep -q "{\"pid\":$p,\"tgid\":[0-9]*,\"comm\":\"sched-messaging\",[^{]*\"slices\":[1-9]" all.ndjson ||
			{ echo "pid $p missing"; exit 1; }
	done
'

# scx-events stages events per CPU, so its stream is sorted only within its
# flush interval: scx-agg sorts it back with its reorder window (100ms by
# default for scx-events streams); without it this comparison fails.
if test_have_prereq BPF,PERF && test -s "$TRASH/perf.data" &&
   { perf report -i "$TRASH/perf.data" --stats 2>/dev/null | grep -q "LOST.*[1-9]" ||
     perf sched latency -i "$TRASH/perf.data" 2>&1 >/dev/null | grep -qi "lost"; }; then
	test_skip 'per-task switches and delays match perf sched latency' 'perf lost events under load'
else
	# perf's raw events are the reference for counts: every switch-out
	# perf recorded for a task is one of scx-agg's switches, exactly
	test_expect_success BPF,PERF 'per-task switches equal perf'"'"'s recorded sched_switch events' '
		perf script -i "$TRASH/perf.data" -F trace 2>/dev/null |
			sed -n "s/.*prev_comm=sched-messaging prev_pid=\([0-9]*\) .*/\1/p" |
			sort -n | uniq -c | awk "{ print \$2, \$1 }" |
			awk "NR == FNR { own[\$1] = 1; next } \$1 in own" "$TRASH/own.pids" - >perf-in.txt &&
		test $(wc -l <perf-in.txt) -ge 10 &&
		scx-agg -g pid "$TRASH/live.ndjson" >all.ndjson &&
		while read p n; do
			grep -q "{\"pid\":$p,\"tgid\":[0-9]*,\"comm\":\"sched-messaging\",[^{]*\"switches\":$n," all.ndjson ||
				{ echo "pid $p: perf recorded $n switches, scx-agg:"; grep -o "{\"pid\":$p,[^{]*\"switches\":[0-9]*" all.ndjson; exit 1; }
		done <perf-in.txt
	'

	test_expect_success BPF,PERF 'per-task max delay matches perf sched latency' '
		perf sched latency -p -i "$TRASH/perf.data" 2>/dev/null |
			grep "sched-messaging:" | own >perf.txt &&
		test $(wc -l <perf.txt) -ge 10 &&
		grep -v "\"type\":\"sched_waking\"" "$TRASH/live.ndjson" |
			sed "s/\"prev_state\":256,/\"prev_state\":1,/" | scx-agg -g pid >agg.ndjson &&
		rc=0 &&
		perl "$TDATA/agg-perfcmp.pl" --live perf.txt agg.ndjson >cmp.txt || rc=$?;
		cat cmp.txt; test $rc = 0 &&
		n=$(sed -n "s/^compared \([0-9]*\).*/\1/p" cmp.txt) && test "$n" -ge 10
	'
fi

test_done
