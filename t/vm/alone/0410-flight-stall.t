#!/bin/sh
# scx-events --flight while scx_qmap -t 2 stalls every 2nd user thread until
# the watchdog disables it: the window holds the stall's exit record, the
# stalled task's last wakeup with no switch-in after it, and the dump, in
# which that task has been runnable at least as long as the exit message says.
#
# t/vm/run.sh boots a guest of its own for each t/vm/alone/*.t, so this runs
# before any other scheduler in that boot.  It must: on the 6.12.117 guest
# kernel a watchdog stall after other scx_qmap runs in the same boot (after
# the main boot's tests, or 0600's) left runnable tasks (rcu_sched among them)
# never run again while every vCPU idled, and the guest hung;
# t/vm/extra/0420-stall-without-tracer.t reproduced that without any of our
# programs.  It waits for the load through
# enable_seq, not the state: qmap can be enabled and disabled between two
# looks at the state.
. "$(dirname "$0")/../../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"
. "$SCX_SRC/t/vm/lib-flight.sh"

test_expect_success 'no scheduler has run in this boot' '
	test "$(cat /sys/kernel/sched_ext/enable_seq)" = 0 &&
	test "$(scx_state)" = disabled
'

test_expect_success 'start the flight recorder' '
	mkdir win &&
	scx-events --flight 30s,64M -o win 2>flight.err &
	echo $! >cap.pid &&
	for _ in $(seq 600); do grep -q "flight recorder:" flight.err && break; sleep 0.1; done &&
	grep -q "flight recorder:" flight.err
'

test_expect_success 'a watchdog stall: a window with its exit record' '
	progress "stall: start" &&
	seq0=$(cat /sys/kernel/sched_ext/enable_seq) &&
	{ timeout 200 "$SCX_SCHED/scx_qmap" -t 2 >qstall.out 2>&1 & } &&
	# what runs, should the guest stop making progress
	{ (sleep 120; progress "stall: still here after 120 s"; ps -eo pid,stat,wchan:32,comm >/dev/console 2>&1) & } &&
	sampler=$! &&
	wait_loaded $seq0 && progress "stall: enabled" &&
	load 5 && progress "stall: load done" &&
	wait_disabled 180 && progress "stall: disabled" &&
	w=$(wait_window 1) && progress "stall: window written" &&
	kill $sampler &&
	cp "$w" stall.ndjson && keep stall.ndjson qstall.out &&
	! grep -q "\"exit_kind\":64," stall.ndjson &&
	trig stall.ndjson | grep -q "\"reason\":\"scx_exit\",\"seq\":1," &&
	grep "\"type\":\"scx_disable\"" stall.ndjson >dis && test_line_count 1 dis && cat dis &&
	grep -q "\"exit_kind\":1026,.*\"reason\":\"runnable task stall\"" dis &&
	! grep -q "\"exit_kind\":1025" stall.ndjson &&
	grep -n "\"type\":\"scx_enable\",\"name\":\"qmap\"" stall.ndjson >en && test_line_count 1 en &&
	test "$(cut -d: -f1 en)" -lt "$(grep -n "\"type\":\"scx_disable\"" stall.ndjson | cut -d: -f1)"
'

# The exit message names the task: "COMM[PID] failed to run for S.MMMs".
test_expect_success 'the window holds the stalled task going runnable and never run' '
	sed -n "s/.*\"msg\":\"\(.*\)\[\([0-9]*\)\] failed to run for \([0-9]*\)\.\([0-9]*\)s\".*/\2 \3\4 \1/p" dis >who &&
	test_line_count 1 who && read -r pid ms comm <who && ms=$(expr "$ms" + 0) &&
	echo "$pid $ms $comm" >who &&
	echo "stalled: $comm pid $pid for $ms ms" &&
	# its last event that leaves it runnable: a wakeup, or a switch-out
	# still running (prev_state 0, R, or 256, R+); no switch-in after that.
	# grep first: jq on the whole window takes a minute under TCG.
	grep -E "\"type\":\"scx_disable\"|\"(pid|prev_pid|next_pid)\":$pid," stall.ndjson |
	jq -r --argjson p "$pid" "
		(select(.type == \"scx_disable\") | \"d \(.ts)\"),
		(select((.type == \"sched_waking\" or .type == \"sched_wakeup\" or
			 .type == \"sched_wakeup_new\") and .pid == \$p) | \"r \(.ts)\"),
		(select(.type == \"sched_switch\" and .prev_pid == \$p and
			(.prev_state == 0 or .prev_state == 256)) | \"r \(.ts)\"),
		(select(.type == \"sched_switch\" and .next_pid == \$p) | \"i \(.ts)\")
	" >ev &&
	awk -v ms="$ms" "
		\$1 == \"r\" { r = \$2; ran = 0 }
		\$1 == \"i\" && r { ran = 1 }
		\$1 == \"d\" { d = \$2 }
		END {
			print \"runnable at\", r, \"ran after\", ran, \"disable at\", d
			# the watchdog counts in jiffies: allow 100 ms for the ticks
			exit !(r && !ran && d && d - r >= (ms - 100) * 1000000)
		}" ev
'

test_expect_success 'the dump: the stalled task runnable as long as the message says' '
	grep "\"type\":\"scx_dump_line\"" stall.ndjson | head -n 1 | grep -q "triggered exit kind 1026:" &&
	grep "\"type\":\"scx_dump_task\"" stall.ndjson >tasks &&
	read -r pid ms comm <who &&
	jq -e -s --argjson p "$pid" --arg c "$comm" --argjson ms "$ms" \
		"map(select(.pid == \$p)) | length == 1 and
		 (.[0].comm == \$c and .[0].state == \"R\" and -.[0].runnable_ms >= \$ms)" tasks &&
	! grep -q "did not parse" flight.err
'

test_expect_success 'the capture goes on after the stall and stops cleanly' '
	kill -0 $(cat cap.pid) &&
	kill -INT $(cat cap.pid) &&
	while kill -0 $(cat cap.pid) 2>/dev/null; do sleep 0.1; done &&
	keep flight.err &&
	test $(ls win | wc -l) = 1
'

test_done
