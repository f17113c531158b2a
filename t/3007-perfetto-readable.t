#!/bin/sh
# scx-perfetto --readable: waiting slices, wakeup flows and depth counters
# beside the ftrace bundles.  The trace is decoded with protoc and checked
# against the stream by t/data/perfetto-readable-check.py (flows pair, each
# on a switch to the woken task; slices are the stream's waits; counters
# follow the depth), on hand-worked streams and a real capture, and reading
# the trace back gives the same events as without the option.
. "$(dirname "$0")/lib.sh"

D=$TDATA
events() { grep -v '"type":"header"\|"type":"trailer"' "$1"; }
decode() { protoc --decode=perfetto.protos.Trace -I"$SCX_SRC/proto" perfetto_trace.proto <"$1"; }
check() { python3 "$D/perfetto-readable-check.py" "$@"; }

test_expect_success 'setup: events of the handmade trace' '
	scx-perfetto -i "$D/perfetto-handmade.pb" >ev.ndjson &&
	events ev.ndjson >ev.events &&
	test_cmp "$D/perfetto-handmade.events" ev.events
'

for mode in "" --no-compact --deflate; do
	test_expect_success "round trip with --readable ${mode:-(compact)}: the same events" '
		scx-perfetto --readable '"$mode"' -o t.pb <ev.ndjson &&
		scx-perfetto -i t.pb >back.ndjson &&
		events back.ndjson >back.events &&
		test_cmp ev.events back.events
	'
done

test_expect_success PROTOC 'off by default: no readable tracks without the option' '
	scx-perfetto -o plain.pb <ev.ndjson &&
	scx-perfetto --readable -o r.pb <ev.ndjson &&
	decode plain.pb >plain.txt &&
	! grep -q "scx.readable\|TYPE_SLICE_BEGIN\|flow_ids" plain.txt &&
	test $(wc -c <r.pb) -gt $(wc -c <plain.pb)
'

# worked by hand from t/data/perfetto-handmade.events: 101 is woken by 100
# at 11000 towards cpu 1 and runs there at 11200 (the kworker it replaces is
# preempted onto cpu 1's queue, then migrated to cpu 0 at 12500 and never
# runs again); 102 is new at 12100 on cpu 0 and runs at 13000
test_expect_success PROTOC 'the handmade stream: waits, flows and depths as worked by hand' '
	decode r.pb >r.txt &&
	check --dump r.txt ev.ndjson >got &&
	cat >want <<-\EOF &&
	wait 101 11000 11200 runnable, waiting on cpu 1 wait_ns=200 reason=wakeup waker=100
	wait 102 12100 13000 runnable, waiting on cpu 0 wait_ns=900 reason=new task waker=100
	flow 100 11000 -> 101 11200
	flow 100 12100 -> 102 13000
	rq cpu0 12100 1
	rq cpu0 12500 2
	rq cpu0 13000 1
	rq cpu1 11000 1
	rq cpu1 11200 1
	rq cpu1 12500 0
	EOF
	test_cmp want got &&
	check r.txt ev.ndjson >out &&
	grep -q "^flows 2 waits 2 rq-samples 6 dsq-samples 0$" out
'

test_expect_success PROTOC 'thread tracks name the process, carry our marker, events our category' '
	grep -A5 "track_descriptor {" r.txt | grep -A1 "pid: 100" | grep -q "tid: 101" &&
	test "$(grep -c "^    50001: 1$" r.txt)" = 3 &&
	test "$(grep -c "categories: \"scx.readable\"" r.txt)" = "$(grep -c "track_event {" r.txt)" &&
	grep -q "name: \"run queue depth cpu1\"" r.txt &&
	grep -q "unit: UNIT_COUNT" r.txt
'

test_expect_success PROTOC 'the check fails on a trace that disagrees with the stream' '
	sed "0,/uint_value: 200/s//uint_value: 201/" r.txt >bad1.txt &&
	test_must_fail check bad1.txt ev.ndjson 2>err &&
	grep -q "wait_ns 201, duration 200" err &&
	sed "/terminating_flow_ids: 2/d" r.txt >bad2.txt &&
	test_must_fail check bad2.txt ev.ndjson 2>err &&
	grep -q "flow 2: 1 begins, 0 ends" err &&
	sed "s/counter_value: 2$/counter_value: 3/" r.txt >bad3.txt &&
	test_must_fail check bad3.txt ev.ndjson 2>err &&
	grep -q "run queue depth cpu0: sample 1" err
'

cat >scx.ndjson <<\EOF
{"ts":100,"cpu":0,"type":"sched_switch","prev_pid":0,"prev_tgid":0,"prev_comm":"swapper/0","prev_prio":120,"prev_state":0,"next_pid":10,"next_tgid":10,"next_comm":"a","next_prio":120}
{"ts":200,"cpu":0,"type":"sched_waking","pid":20,"tgid":20,"comm":"b","prio":120,"target_cpu":1,"waker_pid":10,"waker_tgid":10}
{"ts":250,"cpu":0,"type":"scx_dsq_insert","pid":20,"tgid":20,"comm":"b","dsq_id":1024,"vtime":5,"slice_ns":20000000,"depth":1}
{"ts":260,"cpu":0,"type":"scx_dsq_insert","pid":30,"tgid":30,"comm":"c","dsq_id":1024,"vtime":6,"slice_ns":20000000,"depth":2}
{"ts":400,"cpu":1,"type":"sched_switch","prev_pid":0,"prev_tgid":0,"prev_comm":"swapper/1","prev_prio":120,"prev_state":0,"next_pid":20,"next_tgid":20,"next_comm":"b","next_prio":120,"dsq_id":1024,"dsq_lat_ns":150,"dsq_depth":1,"dsq_vtime":5,"slice_ns":20000000,"prev_slice_used_ns":0}
{"ts":500,"cpu":0,"type":"sched_switch","prev_pid":10,"prev_tgid":10,"prev_comm":"a","prev_prio":120,"prev_state":0,"next_pid":30,"next_tgid":30,"next_comm":"c","next_prio":120,"dsq_id":1024,"dsq_lat_ns":240,"dsq_depth":0,"dsq_vtime":6,"slice_ns":20000000,"prev_slice_used_ns":400}
{"ts":700,"cpu":0,"type":"sched_switch","prev_pid":30,"prev_tgid":30,"prev_comm":"c","prev_prio":120,"prev_state":1,"next_pid":10,"next_tgid":10,"next_comm":"a","next_prio":120}
EOF

# 20 waits in DSQ 0x400 from its wakeup; 30 was inserted with no wakeup seen,
# so it has no wait; 10 is preempted at 500 and runs again at 700
test_expect_success PROTOC 'sched_ext: waits name their DSQ, DSQ depth follows the stream' '
	scx-perfetto --readable -o scx.pb scx.ndjson &&
	decode scx.pb >scx.txt &&
	check --dump scx.txt scx.ndjson >got &&
	cat >want <<-\EOF &&
	wait 20 200 400 runnable, waiting in DSQ 0x400 wait_ns=200 reason=wakeup waker=10
	wait 10 500 700 runnable, waiting on cpu 0 wait_ns=200 reason=preempted waker=None
	flow 10 200 -> 20 400
	rq cpu0 500 1
	rq cpu0 700 0
	rq cpu1 200 1
	rq cpu1 400 0
	dsq 0x400 250 1
	dsq 0x400 260 2
	dsq 0x400 400 1
	dsq 0x400 500 0
	EOF
	test_cmp want got &&
	check scx.txt scx.ndjson &&
	scx-perfetto -i scx.pb >scx.back &&
	scx-perfetto -o scx-plain.pb scx.ndjson &&
	scx-perfetto -i scx-plain.pb >scx.plain &&
	test_cmp scx.plain scx.back
'

# tid 300 is freed and comes back in another process: the thread tracks of
# --readable name each era's tgid; the reader takes tgids from the process
# tree alone, as for a trace without them
cat >reuse.ndjson <<\EOF
{"ts":100,"cpu":0,"type":"sched_switch","prev_pid":0,"prev_tgid":0,"prev_comm":"swapper/0","prev_prio":120,"prev_state":0,"next_pid":10,"next_tgid":10,"next_comm":"a","next_prio":120}
{"ts":200,"cpu":0,"type":"sched_waking","pid":300,"tgid":300,"comm":"old","prio":120,"target_cpu":0,"waker_pid":10,"waker_tgid":10}
{"ts":300,"cpu":0,"type":"sched_switch","prev_pid":10,"prev_tgid":10,"prev_comm":"a","prev_prio":120,"prev_state":1,"next_pid":300,"next_tgid":300,"next_comm":"old","next_prio":120}
{"ts":400,"cpu":0,"type":"sched_switch","prev_pid":300,"prev_tgid":300,"prev_comm":"old","prev_prio":120,"prev_state":16,"next_pid":10,"next_tgid":10,"next_comm":"a","next_prio":120}
{"ts":500,"cpu":0,"type":"sched_process_free","pid":300,"tgid":300,"comm":"old","prio":120}
{"ts":600,"cpu":0,"type":"sched_waking","pid":300,"tgid":400,"comm":"new","prio":120,"target_cpu":0,"waker_pid":10,"waker_tgid":10}
{"ts":700,"cpu":0,"type":"sched_switch","prev_pid":10,"prev_tgid":10,"prev_comm":"a","prev_prio":120,"prev_state":1,"next_pid":300,"next_tgid":400,"next_comm":"new","next_prio":120}
EOF

test_expect_success 'the reader skips our thread tracks: a reused tid reads back as without' '
	scx-perfetto --readable -o reuse-r.pb reuse.ndjson 2>/dev/null &&
	scx-perfetto -o reuse-n.pb reuse.ndjson 2>/dev/null &&
	scx-perfetto -i reuse-r.pb >reuse-r.back &&
	scx-perfetto -i reuse-n.pb >reuse-n.back &&
	test_cmp reuse-n.back reuse-r.back
'

test_expect_success ZSTD 'setup: a real capture (t/data/events-demo.ndjson.zst)' '
	zstd -dcq "$D/events-demo.ndjson.zst" >demo.ndjson
'

test_expect_success ZSTD 'a real capture: the trace reads back to the same events as without' '
	scx-perfetto --readable -o demo-r.pb demo.ndjson &&
	scx-perfetto -o demo-n.pb demo.ndjson &&
	scx-perfetto -i demo-r.pb >demo-r.back &&
	scx-perfetto -i demo-n.pb >demo-n.back &&
	test_cmp demo-n.back demo-r.back
'

# the capture is ordered per cpu, not across cpus: the checker sorts the
# events by time on its own, as the writer does through its reorder window
test_expect_success PROTOC,ZSTD 'a real capture: every flow pairs, waits and depths match' '
	decode demo-r.pb >demo.txt &&
	check demo.txt demo.ndjson >out &&
	cat out &&
	read x flows y waits z rq rest <out &&
	test "$flows" -gt 1000 && test "$waits" -gt 1000 && test "$rq" -gt 1000
'

test_expect_success '--readable is for writing: refused with -i' '
	test_exit_code 2 scx-perfetto --readable -i r.pb >out 2>err &&
	grep -q "readable" err
'

if test -n "${PERFETTO_PROTOS:-}" && test -f "$PERFETTO_PROTOS/protos/perfetto/trace/trace.proto"; then
	test_expect_success PROTOC 'the readable trace decodes with the upstream Perfetto protos' '
		protoc --decode=perfetto.protos.Trace -I"$PERFETTO_PROTOS" \
			protos/perfetto/trace/trace.proto <r.pb >up.txt &&
		grep -q "terminating_flow_ids: 1" up.txt &&
		grep -q "TYPE_SLICE_BEGIN" up.txt
	'
else
	test_skip 'the readable trace decodes with the upstream Perfetto protos' 'PERFETTO_PROTOS not set'
fi

test_done
