#!/bin/sh
# scx-events against hostile surroundings: a FIFO nobody reads, a hangup,
# a reorder window longer than the uptime, cpus and sizes that cannot be.
. "$(dirname "$0")/lib.sh"
. "$SCX_SRC/t/lib-capture.sh"

prog_ids() { cat /proc/$1/fdinfo/* 2>/dev/null | sed -n "s/^prog_id:[[:space:]]*//p" | sort -u; }

test_expect_success 'a cpu this machine cannot have and an impossible ring size are usage errors' '
	test_exit_code 2 scx-events -C 16000 -d 1 >/dev/null 2>err &&
	grep -q "invalid cpu list .16000.: cpu 16000 is not a possible cpu here" err &&
	test_exit_code 2 scx-events -b 16G -d 1 >/dev/null 2>err &&
	grep -q "invalid ring size .16G.: a power of two from 4K to 2G" err
'

test_expect_success BPF 'a FIFO without a reader: nothing attached, and -d still ends the wait' '
	mkfifo fifo &&
	test_exit_code 1 timeout 20 scx-events -e sched -d 1 -o fifo 2>err &&
	grep -q "stopped before a reader opened .fifo." err
'

test_expect_success BPF 'a FIFO without a reader: SIGTERM ends the wait, no program was loaded' '
	scx-events -e sched -o fifo 2>err &
	pid=$! &&
	sleep 0.5 &&
	test -z "$(prog_ids $pid)" &&
	kill -TERM $pid &&
	test_exit_code 1 wait $pid &&
	grep -q "stopped before a reader opened" err
'

test_expect_success BPF 'a FIFO with a reader gets the whole stream' '
	cat fifo >got.ndjson &
	reader=$! &&
	timeout 20 scx-events -e sched -d 1 -o fifo &&
	wait $reader &&
	head -n 1 got.ndjson | grep -q "\"type\":\"header\"" &&
	tail -n 1 got.ndjson | grep -q "\"type\":\"trailer\""
'

test_expect_success BPF 'SIGHUP stops the capture with a trailer' '
	start_capture hup.ndjson -e sched &&
	sleep 0.3 &&
	kill -HUP $cap_pid &&
	wait $cap_pid &&
	tail -n 1 hup.ndjson | grep -q "\"type\":\"trailer\""
'

test_expect_success BPF 'a --flush longer than the uptime keeps the stream in time order' '
	timeout 20 scx-events -e sched -f ndjson --flush 100000000s -d 1 >flush.ndjson 2>err &&
	! grep -q "came later than" err &&
	field ts <flush.ndjson >ts &&
	test -s ts && sort -n -c ts
'

test_done
