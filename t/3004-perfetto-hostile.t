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

test_done
