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

# ESC ] 0 ; ... BEL sets a terminal's title; ESC [ 2 J clears it
test_expect_success 'comms and hostnames reach a terminal without control bytes' '
	sed -e "s/\"next_comm\":\"a\"/\"next_comm\":\"\\\\u001b]0;pwn\\\\u0007a\"/" \
	    -e "1s/\"hostname\":\"t\"/\"hostname\":\"\\\\u001b[2J\"/" "$in" >esc.ndjson &&
	grep -q "u001b]0;pwn" esc.ndjson &&
	scx-agg -H -r process-runtime,wakeup-graph esc.ndjson >out &&
	grep -q "?]0;pwn?a" out &&
	! grep -q "$(printf "\033")" out &&
	scx-top -b --no-config -m num -i esc.ndjson >top 2>&1 &&
	! grep -q "$(printf "\033")" top &&
	scx-perfetto -o esc.pb <esc.ndjson &&
	scx-perfetto -i esc.pb --stat >stat &&
	grep -q "^hostname: ?\[2J$" stat
'

test_expect_success 'scx-prof -v prints comms without control bytes' '
	printf "{\"comm\":\"x\\\\u001b[2Jy\",\"tid\":1,\"pid\":1,\"time\":\"1.0\",\"addr\":\"1000\",\"cgroup\":\"/a.slice\",\"ip\":\"1\",\"sym\":\"f\",\"dso\":\"d\",\"phys_addr\":\"2000\",\"data_page_size\":4096}\n" >esc.jsonl &&
	scx-prof extract -vv -f esc.jsonl >cfg 2>err &&
	grep -q "x?\[2Jy" err &&
	! grep -q "$(printf "\033")" err
'

test_expect_success 'thresholds that are not numbers, negative or past 100 percent are refused' '
	for t in util-high=nan util-high=200 switch-rate=-1 switch-rate=inf percentile=101; do
		test_exit_code 2 scx-agg -r bottlenecks -t $t "$in" >/dev/null 2>err &&
		grep -q "bad threshold .$t." err || return 1
	done &&
	scx-agg -r bottlenecks -t util-high=100 -t switch-rate=0 "$in" >/dev/null
'

test_expect_success 'scx-top on a terminal with TERM=dumb draws plain frames' '
	TERM=dumb timeout 20 script -qec "scx-top -n 1 --no-config -i $TDATA/top-small.ndjson" /dev/null >dumb &&
	grep -q "^scx-top " dumb &&
	! grep -q "$(printf "\033")" dumb
'

# agg-basic: 10500 ns busy over 9000 ns on 4 cpus = 29.2%, whatever this machine has
test_expect_success 'without a topology, utilisation is over the stream'"'"'s nr_cpus' '
	scx-perfetto -o basic.pb <"$in" &&
	scx-perfetto -i basic.pb >notopo.ndjson &&
	head -n 1 notopo.ndjson | jq -e ".topology == null and .nr_cpus == 4" >/dev/null &&
	scx-agg notopo.ndjson | jq -e ".total.util == 0.291666667" >/dev/null &&
	scx-top -b --no-config -i notopo.ndjson >top &&
	grep -q "^util 29.2%  sw [1-9][0-9.]*k/s  wake [1-9][0-9.]*k/s  worst cpu lat.p99 1.00us" top
'

test_expect_success 'cpus outside the header topology count in the utilisation' '
	sed -e "1s/,{\"cpu\":3,\"core\":3,\"llc\":1,\"node\":1,\"online\":true}//" \
	    -e "s/\"ts\":1000,\"cpu\":2,/\"ts\":1000,\"cpu\":3,/" "$in" >outside.ndjson &&
	head -n 1 outside.ndjson | jq -e ".topology | length == 3" >/dev/null &&
	scx-agg outside.ndjson | jq -e ".total.util == 0.291666667 and (.cpus | length) == 4" >/dev/null
'

test_done
