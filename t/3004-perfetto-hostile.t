#!/bin/sh
# scx-perfetto on hostile traces and streams: cpu ids past the suite's limit,
# cpu counts past the trailer's table.
. "$(dirname "$0")/lib.sh"

D=$TDATA

test_expect_success 'a trace claiming 3000 cpus: the trailer has 3000 zero lost counts, nothing else' '
	python3 "$D/perfetto-mkcpus.py" 3000 >big.pb &&
	scx-perfetto -i big.pb >big.ndjson 2>err &&
	tail -n 1 big.ndjson | jq -e ".type == \"trailer\" and (.lost | length) == 3000 and
		(.lost | add) == 0 and .lost_total == 0" >/dev/null
'

test_expect_success 'bundles of cpus past the limit are dropped, counted and said' '
	grep -q "big.pb: 1 ftrace bundles of cpus past 16383 dropped" err &&
	scx-perfetto -i big.pb --stat >stat &&
	grep -q "^dropped: 1 bundles of cpus past 16383$" stat &&
	grep -q "\"cpu\":1500," big.ndjson &&
	! grep -q "\"cpu\":20000," big.ndjson
'

test_expect_success 'events of cpus past 1023 keep their cpu through a round trip' '
	grep "\"cpu\":1500," big.ndjson | jq -c "[.ts, .cpu]" >want &&
	scx-perfetto -o rt.pb <big.ndjson &&
	scx-perfetto -i rt.pb | grep "\"cpu\":1500," | jq -c "[.ts, .cpu]" >got &&
	test_cmp want got
'

test_expect_success 'the writer refuses a cpu past the limit' '
	head -n 1 big.ndjson >w.ndjson &&
	echo "{\"ts\":5,\"cpu\":16384,\"type\":\"cpu_idle\",\"state\":1}" >>w.ndjson &&
	test_exit_code 1 scx-perfetto -o w.pb <w.ndjson 2>err &&
	grep -q "line 2: cpu 16384 out of range" err
'

test_expect_success 'a damaged trace gives a stream without a trailer, which readers report' '
	size=$(wc -c <rt.pb) &&
	head -c $((size - 3)) rt.pb >cut.pb &&
	test_exit_code 1 scx-perfetto -i cut.pb >cut.ndjson 2>err &&
	! grep -q "\"type\":\"trailer\"" cut.ndjson &&
	scx-agg cut.ndjson >/dev/null 2>err &&
	grep -q "cut.ndjson: byte [0-9]*: stream ends without a trailer" err
'

test_expect_success 'a stream cut at a record boundary is reported when converted' '
	head -n -1 "$D/agg-basic.ndjson" >cut2.ndjson &&
	scx-perfetto -o cut2.pb <cut2.ndjson 2>err &&
	grep -q "stream ends without a trailer" err
'

test_expect_success 'the same file as input and output is refused and left alone' '
	cp rt.pb same.pb &&
	test_exit_code 2 scx-perfetto -i same.pb -o same.pb 2>err &&
	grep -q "same.pb. is both the input and the output" err &&
	cmp rt.pb same.pb &&
	cp "$D/agg-basic.ndjson" same.ndjson &&
	test_exit_code 2 scx-perfetto -o same.ndjson same.ndjson 2>err &&
	test_exit_code 2 scx-agg -o same.ndjson same.ndjson 2>err &&
	grep -q "is both an input and the output" err &&
	cmp "$D/agg-basic.ndjson" same.ndjson
'

# t/data/agg-basic.ndjson: 5 lost on cpu 0 in a LOST record, 2 on cpu 3 only
# in the trailer
test_expect_success 'losses only the trailer counts survive a round trip and reach scx-top' '
	scx-perfetto -o basic.pb <"$D/agg-basic.ndjson" &&
	scx-perfetto -i basic.pb >basic.ndjson &&
	tail -n 1 basic.ndjson | jq -e ".lost == [5,0,0,2] and .lost_total == 7" >/dev/null &&
	scx-agg basic.ndjson | jq -e ".lost == 7" >/dev/null &&
	scx-top -b --no-config -i "$D/agg-basic.ndjson" >top &&
	grep -q "LOST 7 events" top
'

test_done
