#!/bin/sh
# scx-events --flight while scx_qmap -T 2 stalls every 2nd kernel thread it
# is asked to enqueue, until the watchdog disables it.  Either the watchdog
# names a stalled kernel thread ("kworker/0:1[42] failed to run for
# 5.012s"), or the stalled thread is the watchdog's own worker, whose
# absence the tick notices ("watchdog failed to check in for 5.016s"): both
# are a runnable task stall (1026).  The window holds the exit record and
# the dump; a named thread went runnable in the window and never ran, and
# the dump has it runnable as long as the message says; else the dump has a
# kernel thread runnable for at least 2.5 s, the watchdog's period (qmap's
# timeout is 5 s, the watchdog runs every half of it).
#
# In a boot of its own (t/vm/alone/), the first scheduler of its kernel: see
# 0410-flight-stall.t for why a stall must not follow other scheduler runs.
. "$(dirname "$0")/../../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"
. "$SCX_SRC/t/vm/lib-flight.sh"

test_expect_success 'no scheduler has run in this boot' '
	test "$(cat /sys/kernel/sched_ext/enable_seq)" = 0 &&
	test "$(scx_state)" = disabled
'

test_expect_success 'start the flight recorder' 'start_flight'

test_expect_success 'a kernel thread stall: a window with its exit record' 'stall_window -T 2'

test_expect_success 'the stall names a kernel thread, or the watchdog did not check in' '
	stall_who dis >who &&
	if test -s who; then
		test_line_count 1 who && read -r pid ms comm <who &&
		echo "stalled: $comm pid $pid for $ms ms" &&
		is_kthread $pid
	else
		grep "\"msg\":\"watchdog failed to check in for [0-9]*\.[0-9]*s\"" dis
	fi
'

test_expect_success 'the dump and the window: the stalled kernel thread never ran' '
	grep "\"type\":\"scx_dump_line\"" stall.ndjson | head -n 1 | grep -q "triggered exit kind 1026:" &&
	! grep -q "did not parse" flight.err &&
	if test -s who; then
		read -r pid ms comm <who &&
		never_ran stall.ndjson $pid $ms &&
		dump_stalled stall.ndjson $pid "$comm" $ms
	else
		# runnable kernel threads of the dump, waiting 2.5 s or more
		grep "\"type\":\"scx_dump_task\"" stall.ndjson |
		jq -r "select(.state == \"R\" and .current == 0 and .runnable_ms <= -2500) | .pid" >waiting &&
		cat waiting &&
		for p in $(cat waiting); do is_kthread $p && echo $p; done >kwaiting &&
		test -s kwaiting
	fi
'

test_expect_success 'the capture goes on after the stall and stops cleanly' '
	stop_flight && test $(ls win | wc -l) = 1
'

test_done
