#!/bin/sh
# scx-agg --by cgroup and the cgroup reports on a hand-worked stream
# (t/data/agg-cgroup.ndjson): cgroups / (1), /a (10), /a/x (11), /a/y (12),
# /b/z (20) are named; 99 has no record; pid 400 carries no cgroup id.
#   cpu0: 100 (/a/x) runs 1000-3000, is preempted (R+) by 101 (/a/y, woken
#         at 2000), runs again 5000-8000; 400 (unknown) runs 9000-10000.
#   cpu1: 200 (/b/z) runs 1000-6000, is preempted by 300 (id 99) which
#         runs 6000-7000, runs again 7000-9000.
# So CPU time: /b/z 7000, /a/x 5000, /a/y 2000, id:99 1000, (unknown) 1000;
# run-queue delay: 101 waited 1000, 100 2000 after its preemption, 200 1000.
. "$(dirname "$0")/lib.sh"

in=$TDATA/agg-cgroup.ndjson

test_expect_success JQ 'by cgroup: whole paths, ranked by CPU time, ties by name' '
	scx-agg -g cgroup "$in" |
		jq -c ".groups.cgroup[] | [.cgroup, .threads, .busy_ns, .switches, .involuntary]" >got &&
	cat >want <<-\EOT &&
	["/b/z",1,7000,2,1]
	["/a/x",1,5000,2,1]
	["/a/y",1,2000,1,0]
	["(unknown)",1,1000,1,0]
	["id:99",1,1000,1,0]
	EOT
	test_cmp want got
'

test_expect_success JQ 'run-queue delay per cgroup' '
	scx-agg -g cgroup "$in" |
		jq -c ".groups.cgroup[] | [.cgroup, .rq_delay.count, .rq_delay.max, .wake_lat.count]" >got &&
	cat >want <<-\EOT &&
	["/b/z",1,1000,0]
	["/a/x",1,2000,0]
	["/a/y",1,1000,1]
	["(unknown)",0,null,0]
	["id:99",0,null,0]
	EOT
	test_cmp want got
'

test_expect_success JQ '--cgroup-depth folds paths into their ancestors' '
	scx-agg -g cgroup --cgroup-depth 1 "$in" |
		jq -c ".groups.cgroup[] | [.cgroup, .threads, .busy_ns, .rq_delay.count]" >got &&
	cat >want <<-\EOT &&
	["/a",2,7000,2]
	["/b",1,7000,1]
	["(unknown)",1,1000,0]
	["id:99",1,1000,0]
	EOT
	test_cmp want got &&
	scx-agg -g cgroup --cgroup-depth 2 "$in" | jq -r ".groups.cgroup[0].cgroup" >got &&
	echo /b/z >want &&
	test_cmp want got
'

test_expect_success JQ '--cgroup-top keeps the first N and sums the rest into (other)' '
	scx-agg -g cgroup --cgroup-top 2 "$in" |
		jq -c ".groups.cgroup[] | [.cgroup, .threads, .busy_ns, .switches]" >got &&
	cat >want <<-\EOT &&
	["/b/z",1,7000,2]
	["/a/x",1,5000,2]
	["(other)",3,4000,3]
	EOT
	test_cmp want got &&
	scx-agg -g cgroup --cgroup-top 1 --cgroup-sort rq-p99 "$in" |
		jq -c "[.groups.cgroup[] | .cgroup]" >got &&
	echo "[\"/a/x\",\"(other)\"]" >want &&
	test_cmp want got &&
	scx-agg -g cgroup --cgroup-top 1 --cgroup-sort wakeups "$in" |
		jq -c "[.groups.cgroup[] | .cgroup]" >got &&
	echo "[\"/a/y\",\"(other)\"]" >want &&
	test_cmp want got
'

test_expect_success JQ 'cgroup-preemptions: pairs of different cgroups, and the wait after' '
	scx-agg -r cgroup-preemptions "$in" >rep &&
	jq -c ".tables.pairs.rows[] | [.preempted, .preemptor, .count, .waited, .wait, .wait_max]" rep >got &&
	cat >want <<-\EOT &&
	["/a/x","/a/y",1,1,2000,2000]
	["/b/z","id:99",1,1,1000,1000]
	EOT
	test_cmp want got &&
	scx-agg -r cgroup-preemptions --cgroup-depth 1 "$in" >rep1 &&
	jq -c ".tables.pairs.rows" rep1 >got &&
	echo "[{\"preempted\":\"/b\",\"preemptor\":\"id:99\",\"count\":1,\"waited\":1,\"wait\":1000,\"wait_avg\":1000,\"wait_max\":1000}]" >want &&
	test_cmp want got &&
	jq -c "[.tables.cgroups.rows[] | [.cgroup, .preempted, .by_other]] | sort" rep1 >got &&
	echo "[[\"/a\",1,0],[\"/b\",1,1]]" >want &&
	test_cmp want got
'

test_expect_success JQ 'cgroup-latency: every cgroup, worst p99 first' '
	scx-agg -r cgroup-latency --cgroup-top 1 "$in" |
		jq -c "[.tables.cgroups.rows[] | [.cgroup, .rq_p99, .runtime]] | .[0], length" >got &&
	printf "%s\n" "[\"/a/x\",2000,5000]" 5 >want &&
	test_cmp want got
'

test_expect_success 'prometheus: a cgroup label, top-N series and other' '
	scx-agg -g cgroup --cgroup-top 2 -f prometheus "$in" >prom &&
	grep "^scx_cgroup_busy_seconds_total" prom >got &&
	cat >want <<-\EOT &&
	scx_cgroup_busy_seconds_total{cgroup="/b/z"} 0.000007
	scx_cgroup_busy_seconds_total{cgroup="/a/x"} 0.000005
	scx_cgroup_busy_seconds_total{cgroup="other"} 0.000004
	EOT
	test_cmp want got &&
	grep -q "^scx_cgroup_rq_delay_seconds_count{cgroup=\"/a/x\"} 1$" prom
'

test_expect_success PROMTOOL 'promtool finds nothing to say about the cgroup families' '
	scx-agg -g cpu,cgroup -f prometheus "$in" >prom &&
	promtool check metrics <prom >out 2>&1 &&
	test_line_count 0 out
'

test_expect_success 'a label value escapes quotes and backslashes' '
	cat >q.ndjson <<-\EOT &&
	{"type":"cgroup","id":5,"path":"/q\"\\z"}
	{"ts":1,"cpu":0,"type":"sched_switch","prev_pid":0,"prev_tgid":0,"prev_comm":"i","prev_prio":120,"prev_state":0,"next_pid":7,"next_tgid":7,"next_comm":"q","next_prio":120,"next_cgroup":5}
	{"ts":9,"cpu":0,"type":"sched_switch","prev_pid":7,"prev_tgid":7,"prev_comm":"q","prev_prio":120,"prev_state":1,"next_pid":0,"next_tgid":0,"next_comm":"i","next_prio":120,"prev_cgroup":5}
	EOT
	scx-agg -g cgroup -f prometheus q.ndjson 2>/dev/null | grep "^scx_cgroup_busy" >got &&
	cat >want <<-\EOT &&
	scx_cgroup_busy_seconds_total{cgroup="/q\"\\z"} 0.000000008
	EOT
	test_cmp want got
'

test_expect_success 'a stream without cgroup ids counts under (unknown)' '
	scx-agg -g cgroup "$TDATA/agg-basic.ndjson" >out &&
	grep -q "\"cgroup\":\[{\"cgroup\":\"(unknown)\"" out
'

test_expect_success 'cgroup records are not unknown lines' '
	scx-agg "$in" >out 2>err &&
	grep -q "\"unknown\":0," out
'

test_expect_success 'a malformed cgroup record is an error naming it' '
	{ echo "{\"type\":\"cgroup\",\"id\":0,\"path\":\"/x\"}" && cat "$in"; } >bad.ndjson &&
	test_exit_code 1 scx-agg -g cgroup bad.ndjson >out 2>err &&
	grep -q "bad.ndjson: .*cgroup record: \"id\" is not a cgroup id" err &&
	{ echo "{\"type\":\"cgroup\",\"id\":3,\"path\":\"rel\"}" && cat "$in"; } >bad2.ndjson &&
	test_exit_code 1 scx-agg -g cgroup bad2.ndjson >out 2>err &&
	grep -q "cgroup record 3: \"path\" is not an absolute path" err
'

test_expect_success 'bad cgroup options are usage errors' '
	test_exit_code 2 scx-agg --cgroup-top 0 "$in" 2>err && grep -q "bad cgroup top" err &&
	test_exit_code 2 scx-agg --cgroup-depth x "$in" 2>err && grep -q "bad cgroup depth" err &&
	test_exit_code 2 scx-agg --cgroup-sort nope "$in" 2>err && grep -q "bad cgroup sort" err
'

test_done
