#!/bin/sh
# scx-events writing to a FIFO whose reader opened it and stopped reading:
# write() would block beyond -d and the signals.  The stop conditions end it
# anyway, with a clear error after a grace of 1 s for the reader.
. "$(dirname "$0")/lib.sh"

# A reader that opens the FIFO $1, shrinks it to one page (full after a few
# events, whatever the load) and never reads.
stall() {
	rm -f "$1" ready && mkfifo "$1" &&
	{ python3 -c "import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDONLY | os.O_NONBLOCK)
fcntl.fcntl(fd, 1031, 4096)	# F_SETPIPE_SZ
open(\"ready\", \"w\").close()
time.sleep(60)" "$1" >/dev/null 2>&1 & } && staller=$! &&
	while ! test -e ready; do sleep 0.1; done
}

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
