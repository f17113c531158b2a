#!/bin/sh
# scx-perfetto -i: Perfetto traces (handmade, upstream test traces, compressed
# forms) -> events.  Expected values come from the traces' textprotos and from
# trace_processor's own answers (shared/testdata/perfetto/upstream/EXPECTED.md).
. "$(dirname "$0")/lib.sh"

D=$TDATA

# events FILE: the event lines of a stream (no header/trailer)
events() { grep -v '"type":"header"\|"type":"trailer"' "$1"; }

# sched_rows < events: trace_processor's sched table rebuilt from switches:
# "ts,cpu,dur,end_state,priority,tid" ordered by ts then cpu; the last slice of
# a cpu has dur -1 and end_state [NULL].
sched_rows() {
	sed -n 's/.*"ts":\([0-9]*\),"cpu":\([0-9]*\),"type":"sched_switch".*"prev_state":\([0-9]*\),"next_pid":\([0-9]*\).*"next_prio":\([-0-9]*\).*/\1 \2 \3 \4 \5/p' |
	awk '
	function st(s) { return s == 0 ? "R" : s == 1 ? "S" : s == 2 ? "D" : s == 16 ? "X" : s == 256 ? "R+" : s == 128 ? "I" : "?" }
	{
		if ($2 in open) print open[$2] "," $1 - start[$2] "," st($3) "," prio[$2] "," tid[$2]
		open[$2] = $1 "," $2; start[$2] = $1; prio[$2] = $5; tid[$2] = $4
	}
	END { for (c in open) print open[c] ",-1,[NULL]," prio[c] "," tid[c] }' |
	sort -t, -k1,1n -k2,2n
}

test_expect_success 'handmade ftrace trace: every event kind' '
	scx-perfetto -i "$D/perfetto-handmade.pb" >out &&
	events out >got &&
	test_cmp "$D/perfetto-handmade.events" got
'

test_expect_success 'handmade: header carries kernel and cpus' '
	head -n 1 out >hdr &&
	grep -q "\"producer\":\"perfetto:unknown\"" hdr &&
	grep -q "\"kernel\":\"6.8.0-test\"" hdr &&
	grep -q "\"nr_cpus\":2" hdr
'

test_expect_success 'handmade: sched slices as trace_processor derives them' '
	cat >want <<-\EOF &&
	10000,0,3000,S,120,100
	10500,1,700,R+,120,50
	11200,1,2800,D,120,101
	13000,0,2100,X,120,102
	14000,1,-1,[NULL],120,0
	15100,0,-1,[NULL],120,0
	EOF
	sched_rows <out >got &&
	test_cmp want got
'

test_expect_success 'handmade: waker is the common pid, tgid from the process tree' '
	grep "\"type\":\"sched_waking\"" out >w &&
	grep -q "\"pid\":101,\"tgid\":100,.*\"waker_pid\":100,\"waker_tgid\":100" w &&
	grep -q "\"type\":\"sched_process_fork\".*\"child_pid\":102,\"child_tgid\":102" out
'

for z in deflate.pb zstd.pb pb.gz; do
	test_expect_success "handmade as $z reads the same" '
		scx-perfetto -i "$D/perfetto-handmade.'$z'" >outz &&
		events outz >gotz &&
		test_cmp "$D/perfetto-handmade.events" gotz
	'
done

test_expect_success 'compact_sched: the first switch per cpu only seeds, waker is the running task' '
	scx-perfetto -i "$D/perfetto-compact.pb" >c &&
	cat >want <<-\EOF &&
	11200,1,2800,D,120,101
	13000,0,2100,X,120,102
	14000,1,-1,[NULL],120,0
	15100,0,-1,[NULL],120,0
	EOF
	sched_rows <c >got &&
	test_cmp want got &&
	grep -q "\"ts\":11000,\"cpu\":0,\"type\":\"sched_waking\",\"pid\":101,.*\"target_cpu\":1,\"waker_pid\":100" c
'

test_expect_success 'binary output carries the same events' '
	scx-perfetto -i "$D/perfetto-handmade.pb" --format binary >b &&
	test "$(head -c 1 b)" != "{" &&
	scx-perfetto -i "$D/perfetto-handmade.pb" --compress zstd >z &&
	test "$(od -An -tx1 -N4 z | tr -d " ")" = 28b52ffd
'

test_expect_success 'upstream synth_1: sched table equals trace_processor (EXPECTED.md)' '
	cat >want <<-\EOF &&
	1,0,99,R,0,3
	50,1,70,R,0,1
	100,0,15,R,0,2
	115,0,-1,[NULL],0,3
	120,1,50,R,0,2
	170,1,80,R,0,0
	250,1,140,R,0,2
	390,1,-1,[NULL],0,4
	EOF
	scx-perfetto -i "$D/perfetto-synth_1.pb" | sched_rows >got &&
	test_cmp want got
'

test_expect_success 'upstream compact_sched_crop: crop and first-switch rule (EXPECTED.md)' '
	cat >want <<-\EOF &&
	1100,6,100,R,120,42
	1200,3,-1,[NULL],120,51
	1200,6,-1,[NULL],120,43
	EOF
	scx-perfetto -i "$D/perfetto-compact_crop.pb" | sched_rows >got &&
	test_cmp want got
'

test_expect_success 'upstream process tracking: thread -> process as trace_processor (EXPECTED.md)' '
	# tid 22 and 32-34 are CLONE_THREAD children named by a later process tree;
	# tid 31 is reused: process 30 first, process 40 after ts 30
	cat >want <<-\EOF &&
	1 10 10
	2 11 0
	3 12 10
	10 20 20
	11 21 20
	12 22 20
	13 22 20
	20 30 30
	21 31 30
	22 32 30
	23 33 30
	24 32 30
	25 34 30
	27 40 40
	28 40 40
	30 31 40
	31 31 40
	EOF
	scx-perfetto -i "$D/perfetto-process_tracking.pb" |
		sed -n "s/^{\"ts\":\([0-9]*\),.*\"\(next\|child\)_pid\":\([0-9]*\),\"\(next\|child\)_tgid\":\([0-9]*\).*/\1 \3 \5/p" |
		grep -v " 0 0$" >got &&
	test_cmp want got
'

test_expect_success SHARED 'upstream: ftrace before tracing_started is dropped (EXPECTED.md)' '
	printf "100,2,10,R,0,1\n110,2,-1,[NULL],0,2\n" >want &&
	scx-perfetto -i "$SHARED/testdata/perfetto/upstream/synth_ftrace_with_tracing_start.pb" |
		sched_rows >got &&
	test_cmp want got
'

test_expect_success SHARED 'every upstream and handmade trace reads without error' '
	for f in "$SHARED"/testdata/perfetto/upstream/*.pb "$SHARED"/testdata/perfetto/handmade/*.pb*; do
		scx-perfetto -i "$f" >/dev/null || { echo "failed: $f"; exit 1; }
	done
'

test_expect_success 'TrackEvent trace: a waking linked by a flow, a slice end switches out' '
	scx-perfetto -i "$D/perfetto-trackevent.pb" >t &&
	grep -q "\"ts\":11000,\"cpu\":0,\"type\":\"sched_waking\",\"pid\":101,\"tgid\":100,\"comm\":\"worker\",.*\"target_cpu\":1,\"waker_pid\":100" t &&
	grep -q "\"ts\":14000,\"cpu\":1,\"type\":\"sched_switch\",\"prev_pid\":101,.*\"next_pid\":0" t
'

test_expect_success '--stat summarises without converting' '
	scx-perfetto -i "$D/perfetto-handmade.deflate.pb" --stat >s &&
	grep -q "^compression: file none, compressed_packets 1," s &&
	grep -q "^  sched_switch: 6$" s &&
	grep -q "^  cpu_idle: 4$" s &&
	grep -q "^cpus: 2$" s &&
	grep -q "^threads: " s &&
	grep -q "^time: 10000 .. 20000" s &&
	scx-perfetto -i "$D/perfetto-handmade.zstd.pb" --stat | grep -q "zstd_compressed_packets 1$" &&
	scx-perfetto -i "$D/perfetto-handmade.pb.gz" --stat | grep -q "^compression: file gzip"
'

test_expect_success 'stdin works as input' '
	scx-perfetto -i - <"$D/perfetto-handmade.pb.gz" >o2 &&
	events o2 >g2 &&
	test_cmp "$D/perfetto-handmade.events" g2
'

test_done
