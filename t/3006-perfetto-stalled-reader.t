#!/bin/sh
# scx-perfetto writing to a FIFO whose reader opened it and stopped reading:
# write() would block past SIGTERM and SIGINT (they restart it).  A signal
# ends it anyway, with a clear error after a grace of 1 s for the reader.
# And the other end: a writer that keeps its pipe open and sends nothing;
# a signal must end the read too, and the trace of what came is whole.
. "$(dirname "$0")/lib.sh"
. "$SCX_SRC/t/lib-capture.sh"

# 20,000 switches: a trace far larger than the stalled reader's page.
test_expect_success 'setup: a stream larger than a pipe' '
	head -n 1 "$SCX_SRC/t/data/agg-basic.ndjson" >big.ndjson &&
	awk "BEGIN { for (i = 1; i <= 20000; i++)
		printf \"{\\\"ts\\\":%d,\\\"cpu\\\":%d,\\\"type\\\":\\\"sched_switch\\\",\\\"prev_pid\\\":%d,\\\"prev_tgid\\\":%d,\\\"prev_comm\\\":\\\"w%d\\\",\\\"prev_prio\\\":120,\\\"prev_state\\\":1,\\\"next_pid\\\":%d,\\\"next_tgid\\\":%d,\\\"next_comm\\\":\\\"w%d\\\",\\\"next_prio\\\":120}\\n\",
			i * 1000, i % 4, 100 + i % 50, 100 + i % 50, i % 50, 101 + i % 50, 101 + i % 50, (i + 1) % 50 }" >>big.ndjson &&
	scx-perfetto -o big.pb <big.ndjson &&
	test $(wc -c <big.pb) -gt 65536
'

watchdog() {
	{ sleep 30; kill -KILL $1 2>/dev/null; } >/dev/null 2>&1 &
}

# The signal comes while the input is still open; up to 30 s
# for scx-perfetto ($pid): a hang fails the test, not the suite.
stalled_run() {
	stall "$1" &&
	{ { cat big.ndjson; sleep 3; } | scx-perfetto -o "$1" 2>err & } && pid=$! &&
	sleep 1 && kill -$2 $pid &&
	watchdog $pid &&
	test_exit_code 1 wait $pid &&
	cat err &&
	grep -q "the reader of .$1. stopped reading: gave up 1000 ms after the stop" err
}

test_expect_success 'SIGTERM ends a trace whose FIFO reader stopped reading' '
	stalled_run f1 TERM
'

test_expect_success 'SIGINT ends a trace whose FIFO reader stopped reading' '
	stalled_run f2 INT
'

# The feeder writes into a FIFO, not a pipeline: sh would wait for the
# whole pipeline, feeder included, and hide whether scx-perfetto ended.
test_expect_success 'SIGTERM ends the read of an idle input pipe; the trace is whole' '
	mkfifo in &&
	{ sh -c "echo \$\$ >feeder.pid; head -n 101 big.ndjson; exec sleep 60" >in & } &&
	{ scx-perfetto -o idle.pb <in 2>err & } && pid=$! &&
	for _ in $(seq 100); do test -s idle.pb && break; sleep 0.1; done &&
	sleep 1 && kill -TERM $pid &&
	watchdog $pid &&
	wait $pid &&
	kill $(cat feeder.pid) &&
	scx-perfetto -i idle.pb >back.ndjson &&
	test "$(grep -c "\"type\":\"sched_switch\"" back.ndjson)" = 100
'

test_done
