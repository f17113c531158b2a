#!/bin/sh
# Not in make check-scx: run it with
#   make check-scx SCX_VM_TESTS=t/vm/extra/0410-flight-stall.t
# scx-events --flight while scx_qmap -t 2 stalls every 2nd user thread until
# the watchdog disables it: the window holds the stall's exit record and the
# dump.  Kept out of check-scx because the 6.12.117 guest kernel stops making
# progress after this stall when it follows other scx_qmap runs in the same
# boot, with or without our programs: t/vm/extra/0420-stall-without-tracer.t
# reproduces it with no scx-events loaded (runnable tasks such as rcu_sched
# are never run again while every vCPU idles, forks wait forever; see there).
# It waits for the load through enable_seq, not the state: qmap can be
# enabled and disabled between two looks at the state.
. "$(dirname "$0")/../../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"
. "$SCX_SRC/t/vm/lib-flight.sh"

test_expect_success 'start the flight recorder' '
	mkdir win &&
	scx-events --flight 30s,64M -o win 2>flight.err &
	echo $! >cap.pid &&
	for _ in $(seq 600); do grep -q "flight recorder:" flight.err && break; sleep 0.1; done &&
	grep -q "flight recorder:" flight.err
'

test_expect_success 'a watchdog stall: a window, the stalled tasks in the dump' '
	progress "stall: start" &&
	seq0=$(cat /sys/kernel/sched_ext/enable_seq) &&
	{ timeout 200 "$SCX_SCHED/scx_qmap" -t 2 >qstall.out 2>&1 & } &&
	{ (sleep 120; progress "stall: still here after 120 s"; ps -eo pid,stat,wchan:32,comm >/dev/console 2>&1) & } &&
	wait_loaded $seq0 && progress "stall: enabled" &&
	load 5 && progress "stall: load done" &&
	wait_disabled 180 && progress "stall: disabled" &&
	w=$(wait_window 1) && progress "stall: window written" &&
	cp "$w" stall.ndjson && keep stall.ndjson qstall.out &&
	! grep -q "\"exit_kind\":64," stall.ndjson &&
	trig stall.ndjson | grep -q "\"reason\":\"scx_exit\",\"seq\":1," &&
	grep "\"type\":\"scx_disable\"" stall.ndjson >dis && test_line_count 1 dis && cat dis &&
	grep -q "\"exit_kind\":1026,.*\"reason\":\"runnable task stall\"" dis &&
	! grep -q "\"exit_kind\":1025" stall.ndjson &&
	grep "\"type\":\"scx_dump_line\"" stall.ndjson | head -n 1 | grep -q "triggered exit kind 1026:" &&
	grep "\"type\":\"scx_dump_task\"" stall.ndjson >tasks &&
	test $(wc -l <tasks) -ge 1
'

test_done
