#!/bin/sh
# scx-events writing to a FIFO whose reader opened it and stopped reading:
# write() would block beyond -d and the signals.  The stop conditions end it
# anyway, with a clear error after a grace of 1 s for the reader.
. "$(dirname "$0")/lib.sh"
. "$SCX_SRC/t/lib-capture.sh"

# Waits up to 60 s for scx-events ($pid): a hang fails the test, not the suite.
wait_stopped() {
	{ sleep 60; kill -KILL $pid 2>/dev/null; } >/dev/null 2>&1 &
	test_exit_code 1 wait $pid &&
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
