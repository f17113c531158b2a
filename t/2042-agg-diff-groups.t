#!/bin/sh
# scx-agg diff per process (tgid) and per cgroup.  gen LAT: two tasks, 200
# wakeups each: t (pid 100, cgroup /a/x) runs LAT ns after its sched_waking
# on cpu1, u (pid 200, cgroup /b/z) 1000 ns after on cpu0.  B against A
# with t slower: t's process and cgroup regress, u's stay the same.
. "$(dirname "$0")/lib.sh"

gen() {
	awk -v lat="$1" -v extra="${2:-0}" 'BEGIN {
		print "{\"type\":\"header\",\"version\":1,\"producer\":\"hand\",\"clock\":\"boottime\",\"hostname\":\"t\",\"kernel\":\"6.18\",\"nr_cpus\":2,\"topology\":[{\"cpu\":0,\"core\":0,\"llc\":0,\"node\":0,\"online\":true},{\"cpu\":1,\"core\":1,\"llc\":0,\"node\":0,\"online\":true}],\"scheduler\":null,\"options\":{},\"start_ns\":0}"
		print "{\"type\":\"cgroup\",\"id\":11,\"path\":\"/a/x\"}"
		print "{\"type\":\"cgroup\",\"id\":20,\"path\":\"/b/z\"}"
		sw = "{\"ts\":%d,\"cpu\":%d,\"type\":\"sched_switch\",\"prev_pid\":%d,\"prev_tgid\":%d,\"prev_comm\":\"%s\",\"prev_prio\":120,\"prev_state\":%d,\"next_pid\":%d,\"next_tgid\":%d,\"next_comm\":\"%s\",\"next_prio\":120,\"prev_cgroup\":%d,\"next_cgroup\":%d}\n"
		wk = "{\"ts\":%d,\"cpu\":%d,\"type\":\"sched_waking\",\"pid\":%d,\"tgid\":%d,\"comm\":\"%s\",\"prio\":120,\"target_cpu\":%d,\"waker_pid\":0,\"waker_tgid\":0,\"cgroup\":%d}\n"
		printf sw, 500, 1, 100, 100, "t", 1, 0, 0, "swapper/1", 11, 0
		printf sw, 500, 0, 200, 200, "u", 1, 0, 0, "swapper/0", 20, 0
		for (i = 0; i < 200; i++) {
			t = 10000 * i + 1000
			printf wk, t, 0, 100, 100, "t", 1, 11
			printf sw, t + lat, 1, 0, 0, "swapper/1", 0, 100, 100, "t", 0, 11
			printf sw, t + lat + 500, 1, 100, 100, "t", 1, 0, 0, "swapper/1", 11, 0
			printf wk, t, 1, 200, 200, "u", 0, 20
			printf sw, t + 1000, 0, 0, 0, "swapper/0", 0, 200, 200, "u", 0, 20
			printf sw, t + 1500, 0, 200, 200, "u", 1, 0, 0, "swapper/0", 20, 0
		}
		if (extra)	# a process only this capture has
			printf sw, 2000000, 0, 0, 0, "swapper/0", 0, 300, 300, "v", 0, 20
	}'
}

exits() {
	want=$1
	shift
	"$@"
	test $? = "$want"
}

test_expect_success 'setup' '
	gen 1000 >a.ndjson &&
	gen 2000 1 >b.ndjson
'

test_expect_success 'the slower task regresses in its process and cgroup, the other is the same' '
	exits 3 scx-agg diff -n 0 -f ndjson a.ndjson b.ndjson >ab &&
	grep -q "{\"verdict\":\"regression\",\"metric\":\"wake_lat.p50\",\"group\":\"process 100 t\",\"a\":1000,\"b\":2000," ab &&
	grep -q "{\"verdict\":\"regression\",\"metric\":\"wake_lat.p50\",\"group\":\"cgroup /a/x\",\"a\":1000,\"b\":2000," ab &&
	grep -q "{\"verdict\":\"same\",\"metric\":\"wake_lat.p50\",\"group\":\"process 200 u\",\"a\":1000,\"b\":1000," ab &&
	grep -q "{\"verdict\":\"same\",\"metric\":\"wake_lat.p50\",\"group\":\"cgroup /b/z\",\"a\":1000,\"b\":1000," ab &&
	grep -q "{\"what\":\"tgid\",\"why\":\"0 only in A, 1 only in B\"}" ab
'

test_expect_success 'summaries carry the process and cgroup groups, and compare as their captures' '
	scx-agg --summary a.ndjson >a.sum &&
	grep -q "\"tgid\":\[{\"tgid\":100,\"comm\":\"t\",\"nr\":1,\"busy_ns\":100000,\"switches\":201," a.sum &&
	grep -q "\"cgroup\":\[{\"cgroup\":\"/a/x\",\"nr\":1,\"busy_ns\":100000," a.sum &&
	scx-agg --summary b.ndjson >b.sum &&
	exits 3 scx-agg diff -n 0 -f ndjson a.sum b.sum >abs &&
	grep "\"verdict\":\"regression\"" ab | sort >want &&
	grep "\"verdict\":\"regression\"" abs | sort >got &&
	test_cmp want got
'

test_expect_success 'no cgroup ids in the stream: no cgroup groups' '
	scx-agg --summary "$TDATA/agg-basic.ndjson" >basic.sum 2>/dev/null &&
	! grep -q "\"cgroup\":" basic.sum &&
	grep -q "\"tgid\":\[" basic.sum
'

# wprof's real capture (shared/testdata): its first and second second, as
# --summary -I 1s records.  Each process's switches in the summary are those
# of scx-agg -g tgid over the same second, and diff compares every process
# found in both seconds, saying how many are in one only.
test_expect_success SHARED,JQ 'a real capture: per-process groups of two seconds' '
	scx-perfetto -i "$SHARED/testdata/perfetto/wprof-schedview.pb.zst" --format binary >w.bin &&
	scx-agg --summary -I 1s w.bin >w.sum &&
	sed -n 1p w.sum >w1.sum && sed -n 2p w.sum >w2.sum &&
	jq -c "[.groups.tgid[] | [.tgid, .switches]] | sort" w1.sum >sum-sw &&
	scx-agg -I 1s -g tgid -n 0 -f ndjson w.bin 2>/dev/null | sed -n 1p |
		jq -c "[.groups.tgid[] | [.tgid, .switches]] | sort" >snap-sw &&
	test_cmp snap-sw sum-sw &&
	test $(jq ".groups.tgid | length" w1.sum) -gt 100 &&
	{ scx-agg diff -n 0 -f ndjson w1.sum w2.sum >w12; test $? -le 3; } &&
	jq -r "select(.type == \"report\") | .tables.comparison.rows[].group" w12 |
		grep "^process " | sort -u | wc -l >nproc &&
	jq -s "(.[0].groups.tgid | map(.tgid)) as \$a | (.[1].groups.tgid | map(.tgid)) as \$b |
		[\$a[] | select(. as \$x | \$b | index(\$x))] | length" w1.sum w2.sum >nboth &&
	test_cmp nboth nproc
'

test_done
