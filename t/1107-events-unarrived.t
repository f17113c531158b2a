#!/bin/sh
# Every record the BPF programs write must arrive: at the stop scx-events
# compares, per CPU, what its programs say they handed to the ring buffer
# (or still hold staged) with what it read, and counts the difference as
# lost.  The kernel loses no record on demand, so a shim
# (t/preload/emitted-extra.c) makes the programs' count say 5 more on CPU 0,
# as a record lost between the programs and user space would.
. "$(dirname "$0")/lib.sh"

shim=$SCX_BUILD/t/preload/emitted-extra.so

# lost_per_cpu < trailer: the trailer's lost array, one CPU a line
lost_per_cpu() { sed -n "s/.*\"lost\":\[\([0-9,]*\)\].*/\1/p" | tr , "\n"; }

test_expect_success BPF 'a capture that loses nothing says nothing and counts nothing' '
	scx-events -e sched -d 1 -o ev.ndjson 2>err &&
	tail -n 1 ev.ndjson >trailer &&
	grep "\"lost_total\":0," trailer &&
	test "$(lost_per_cpu <trailer | sort -u)" = 0 &&
	! grep "lost" err &&
	! grep "\"type\":\"lost\"" ev.ndjson
'

# the sanitizers want their runtime first: no shim in front of them
test_expect_success BPF,!SANITIZE 'records written and never read are counted as lost on their CPU' '
	SCX_TEST_EXTRA_EMITTED=5 LD_PRELOAD=$shim scx-events -e sched -d 1 -o ev.ndjson 2>err &&
	cat err &&
	grep -x "scx-events: 5 records the BPF programs wrote never arrived: counted as lost" err &&
	! grep "ring buffer was full" err &&
	grep "\"cpu\":0,\"type\":\"lost\",\"count\":5}" ev.ndjson &&
	test $(grep -c "\"type\":\"lost\"" ev.ndjson) = 1 &&
	tail -n 1 ev.ndjson >trailer &&
	grep "\"lost_total\":5," trailer &&
	test "$(lost_per_cpu <trailer | head -n 1)" = 5 &&
	test -z "$(lost_per_cpu <trailer | sed 1d | grep -vx 0)"
'

test_expect_success BPF,!SANITIZE 'scx-agg counts them as it counts every lost event' '
	scx-agg -f ndjson <ev.ndjson >agg.ndjson &&
	grep "\"final\":true,\"events\":[0-9]*,\"lost\":5," agg.ndjson
'

test_done
