#!/bin/sh
# scx-agg and scx-top on hostile input: ids and cpus outside what the suite's
# tables hold, refused on the way in with the place they were found.
. "$(dirname "$0")/lib.sh"

in=$TDATA/agg-basic.ndjson

test_expect_success 'a header topology with an llc below -1 is refused, not indexed' '
	sed "1s/\"llc\":1,\"node\":1/\"llc\":-2,\"node\":1/" "$in" >bad-llc.ndjson &&
	test_exit_code 1 scx-agg bad-llc.ndjson >/dev/null 2>err &&
	grep -q "bad-llc.ndjson: line 1: header: bad \"topology\"" err &&
	test_exit_code 1 scx-top -b --no-config -i bad-llc.ndjson >/dev/null 2>err &&
	grep -q "header: bad \"topology\"" err
'

test_expect_success 'a --topology file with a node below -1 or past the cpu limit is refused' '
	echo "[{\"cpu\":0,\"node\":-5}]" >neg.json &&
	test_exit_code 1 scx-agg --topology neg.json "$in" >/dev/null 2>err &&
	grep -q "neg.json: byte 1: bad topology entry" err &&
	echo "[{\"cpu\":0,\"llc\":2147483647}]" >big.json &&
	test_exit_code 1 scx-agg --topology big.json "$in" >/dev/null 2>err &&
	grep -q "big.json: byte 1: bad topology entry" err &&
	test_exit_code 1 scx-top -b --no-config --topology neg.json -i "$in" >/dev/null 2>err &&
	grep -q "bad topology entry" err
'

test_expect_success 'an event on a cpu past the limit is an error with its line' '
	sed "2s/\"cpu\":0,/\"cpu\":16384,/" "$in" >bigcpu.ndjson &&
	test_exit_code 1 scx-agg bigcpu.ndjson >/dev/null 2>err &&
	grep -q "bigcpu.ndjson: line 2: cpu 16384 out of range" err &&
	sed "2s/\"cpu\":0,/\"cpu\":-2,/" "$in" >negcpu.ndjson &&
	test_exit_code 1 scx-agg negcpu.ndjson >/dev/null 2>err &&
	grep -q "line 2: cpu -2 out of range" err
'

test_expect_success 'a header or trailer naming more cpus than the limit is refused' '
	sed "1s/\"nr_cpus\":4,/\"nr_cpus\":16385,/" "$in" >bignr.ndjson &&
	test_exit_code 1 scx-agg bignr.ndjson >/dev/null 2>err &&
	grep -q "line 1: header: bad \"nr_cpus\"" err
'

test_done
