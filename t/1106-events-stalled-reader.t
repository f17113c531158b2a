#!/bin/sh
# scx-events writing to a FIFO whose reader opened it and stopped reading:
# write() would block beyond -d and the signals.  The stop conditions end it
# anyway, with a clear error after a grace of 1 s for the reader.
. "$(dirname "$0")/lib.sh"
. "$SCX_SRC/t/lib-capture.sh"

# Waits up to 60 s for scx-events ($pid): a hang fails the test, not the
# suite, and says where it hung (it did once, in a loaded make check).
wait_stopped() {
	rm -f hang.txt
	{ sleep 60 && kill -0 $pid && {
		echo "scx-events hung 60 s after the stop; its threads:"
		for t in /proc/$pid/task/*; do
			echo "$t: $(cat $t/comm) $(grep ^State: $t/status) wchan $(cat $t/wchan)"
			cat $t/stack 2>/dev/null
		done
		kill -KILL $pid; } >hang.txt 2>&1; } >/dev/null 2>&1 &
	{ test_exit_code 1 wait $pid || { sleep 1; cat hang.txt; cat err; false; }; } &&
	cat err &&
	grep -q "the reader of .$1. stopped reading: gave up 1000 ms after the stop" err
}

test_expect_success BPF '-d ends a capture whose FIFO reader stopped reading' '
	stall f1 &&
	{ scx-events -e sched -d 2 -o f1 2>err & } && pid=$! &&
	wait_stopped f1
'

test_expect_success BPF 'SIGTERM ends a capture whose FIFO reader stopped reading' '
	stall f2 &&
	{ scx-events -e sched -o f2 2>err & } && pid=$! &&
	sleep 3 && kill -TERM $pid &&
	wait_stopped f2
'

test_expect_success BPF 'SIGINT ends a capture whose FIFO reader stopped reading' '
	stall f3 &&
	{ scx-events -e sched -o f3 2>err & } && pid=$! &&
	sleep 3 && kill -INT $pid &&
	wait_stopped f3
'

test_done
