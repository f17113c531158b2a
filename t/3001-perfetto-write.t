#!/bin/sh
# scx-perfetto (writing): events -> trace.  The trace is checked by decoding
# it with protoc (our proto/ subset, and upstream's protos when
# PERFETTO_PROTOS points at a checkout), and by reading it back.
. "$(dirname "$0")/lib.sh"

D=$TDATA
events() { grep -v '"type":"header"\|"type":"trailer"' "$1"; }
decode() { protoc --decode=perfetto.protos.Trace -I"$SCX_SRC/proto" perfetto_trace.proto <"$1"; }

test_expect_success 'setup: events of the handmade trace' '
	scx-perfetto -i "$D/perfetto-handmade.pb" >ev.ndjson &&
	events ev.ndjson >ev.events &&
	test_cmp "$D/perfetto-handmade.events" ev.events
'

for mode in "" --no-compact --deflate "--deflate --no-compact" "--bundle-events=1"; do
	test_expect_success "round trip events -> trace -> events ${mode:-(compact)}" '
		scx-perfetto '"$mode"' -o t.pb <ev.ndjson &&
		scx-perfetto -i t.pb >back.ndjson &&
		events back.ndjson >back.events &&
		test_cmp ev.events back.events
	'
done

test_expect_success 'an operand names the event file; binary and zstd events are read too' '
	scx-perfetto -i "$D/perfetto-handmade.pb" --format binary --compress zstd >ev.bin.zst &&
	scx-perfetto -o t2.pb ev.bin.zst &&
	scx-perfetto -i t2.pb >back2.ndjson &&
	events back2.ndjson >back2.events &&
	test_cmp ev.events back2.events
'

test_expect_success PROTOC 'the trace decodes with our proto/ and holds what trace_processor needs' '
	scx-perfetto -o t.pb <ev.ndjson &&
	decode t.pb >t.txt &&
	grep -q "sysname: \"Linux\"" t.txt &&
	grep -q "release: \"6.8.0-test\"" t.txt &&
	grep -q "tracing_service_version: \"scx-perfetto " t.txt &&
	grep -q "primary_trace_clock: BUILTIN_CLOCK_BOOTTIME" t.txt &&
	grep -q "clock_id: 6" t.txt && grep -q "clock_id: 3" t.txt &&
	grep -q "process_tree {" t.txt &&
	grep -A3 "threads {" t.txt | grep -q "tgid: 100" &&
	grep -q "task_newtask {" t.txt &&
	grep -q "compact_sched {" t.txt &&
	grep -q "intern_table: \"app\"" t.txt &&
	test "$(grep -c "cpu: [01]$" t.txt)" -ge 2 &&
	grep -q "sched_process_exec {" t.txt && grep -q "cpu_idle {" t.txt &&
	grep -q "cpu_frequency {" t.txt && grep -q "softirq_entry {" t.txt &&
	grep -q "ipi_raise {" t.txt && grep -q "sched_migrate_task {" t.txt
'

test_expect_success PROTOC 'compact: the first switch of each cpu is plain, the rest compact' '
	decode t.pb >t.txt &&
	test "$(grep -c "sched_switch {" t.txt)" = 3 &&
	test "$(grep -c "switch_timestamp:" t.txt)" = 3 &&
	test "$(grep -c "waking_timestamp:" t.txt)" = 1
'

test_expect_success PROTOC '--no-compact writes plain sched_switch and sched_waking' '
	scx-perfetto --no-compact -o p.pb <ev.ndjson &&
	decode p.pb >p.txt &&
	! grep -q "compact_sched" p.txt &&
	test "$(grep -c "sched_switch {" p.txt)" = 6 &&
	test "$(grep -c "sched_waking {" p.txt)" = 1
'

test_expect_success PROTOC '--deflate writes compressed_packets with a zlib header' '
	scx-perfetto --deflate -o z.pb <ev.ndjson &&
	decode z.pb >z.txt &&
	grep -q "^  compressed_packets: \"x\\\\234" z.txt &&
	! grep -q "ftrace_events" z.txt
'

test_expect_success PROTOC 'lost events flag the bundle and keep their count' '
	cat >lost.ndjson <<-\EOF &&
	{"ts":100,"cpu":1,"type":"sched_switch","prev_pid":0,"prev_tgid":0,"prev_comm":"swapper/1","prev_prio":120,"prev_state":0,"next_pid":7,"next_tgid":7,"next_comm":"a","next_prio":120}
	{"ts":150,"cpu":1,"type":"lost","count":42}
	{"ts":200,"cpu":1,"type":"sched_switch","prev_pid":9,"prev_tgid":9,"prev_comm":"b","prev_prio":120,"prev_state":1,"next_pid":7,"next_tgid":7,"next_comm":"a","next_prio":120}
	EOF
	scx-perfetto -o l.pb <lost.ndjson &&
	decode l.pb >l.txt &&
	grep -q "lost_events: true" l.txt &&
	grep -q "scx_lost_count: 42" l.txt &&
	scx-perfetto -i l.pb >l.back &&
	grep -q "\"ts\":150,\"cpu\":1,\"type\":\"lost\",\"count\":42" l.back &&
	test "$(grep -c "\"type\":\"sched_switch\"" l.back)" = 2
'

test_expect_success PROTOC 'sched_ext data: kept on the switch, plotted as counter tracks' '
	cat >dsq.ndjson <<-\EOF &&
	{"ts":100,"cpu":0,"type":"sched_switch","prev_pid":0,"prev_tgid":0,"prev_comm":"swapper/0","prev_prio":120,"prev_state":0,"next_pid":7,"next_tgid":7,"next_comm":"a","next_prio":120,"dsq_id":1024,"dsq_lat_ns":12345,"dsq_depth":3,"dsq_vtime":777,"slice_ns":20000000,"prev_slice_used_ns":0}
	EOF
	scx-perfetto -o d.pb <dsq.ndjson &&
	decode d.pb >d.txt &&
	grep -q "name: \"DSQ latency cpu0\"" d.txt &&
	grep -q "unit: UNIT_TIME_NS" d.txt &&
	grep -q "name: \"DSQ depth cpu0\"" d.txt &&
	grep -q "counter_value: 12345" d.txt &&
	grep -q "counter_value: 3$" d.txt &&
	scx-perfetto -i d.pb >d.back &&
	grep -q "\"dsq_id\":1024,\"dsq_lat_ns\":12345,\"dsq_depth\":3,\"dsq_vtime\":777,\"slice_ns\":20000000" d.back
'

if test -n "${PERFETTO_PROTOS:-}" && test -f "$PERFETTO_PROTOS/protos/perfetto/trace/trace.proto"; then
	test_expect_success PROTOC 'the trace decodes with the upstream Perfetto protos' '
		for f in t.pb p.pb z.pb l.pb d.pb; do
			protoc --decode=perfetto.protos.Trace -I"$PERFETTO_PROTOS" \
				protos/perfetto/trace/trace.proto <$f >up.txt || exit 1
			grep -q "system_info\|compressed_packets" up.txt || exit 1
		done &&
		protoc --decode=perfetto.protos.Trace -I"$PERFETTO_PROTOS" \
			protos/perfetto/trace/trace.proto <t.pb >up.txt &&
		grep -q "sysname: \"Linux\"" up.txt && grep -q "compact_sched {" up.txt &&
		grep -q "task_newtask {" up.txt
	'
else
	test_skip 'the trace decodes with the upstream Perfetto protos' 'PERFETTO_PROTOS not set'
fi

test_expect_success SHARED 'round trip of a real capture (290k events of wprof)' '
	scx-perfetto -i "$SHARED/testdata/perfetto/wprof-schedview.pb.zst" --format binary >w.bin &&
	scx-perfetto -o w.pb w.bin &&
	scx-perfetto -i w.pb --format binary >w2.bin &&
	scx-perfetto -i w.pb --stat >w.stat &&
	grep -q "^  sched_switch: 147109$" w.stat &&
	grep -q "^  sched_waking: 142023$" w.stat &&
	scx-perfetto -i "$SHARED/testdata/perfetto/wprof-schedview.pb.zst" >w1.ndjson &&
	scx-perfetto -i w.pb >w2.ndjson &&
	events w1.ndjson >w1.ev && events w2.ndjson >w2.ev &&
	cmp w1.ev w2.ev
'

# The input stays open (a fifo held by fd 3) so the writer is mid-stream.
test_expect_success SHARED 'a killed writer leaves a trace valid up to its last packet' '
	mkfifo f1 &&
	{ scx-perfetto -o k.pb <f1 & } &&
	pid=$! &&
	exec 3>f1 &&
	cat w.bin >&3 &&
	for i in $(seq 1 40); do
		test "$(wc -c <k.pb)" -gt 600000 && break
		sleep 0.25
	done &&
	kill -9 $pid &&
	exec 3>&- &&
	scx-perfetto -i k.pb --stat >k.stat &&
	n=$(sed -n "s/^  sched_switch: //p" k.stat) &&
	test "$n" -gt 1000
'

test_expect_success SHARED 'SIGTERM ends the writer cleanly with everything read so far' '
	mkfifo f2 &&
	{ scx-perfetto -o s.pb <f2 & } &&
	pid=$! &&
	exec 4>f2 &&
	cat w.bin >&4 &&
	for i in $(seq 1 40); do
		test -s s.pb && break
		sleep 0.25
	done &&
	sleep 1 &&
	kill -TERM $pid &&
	wait $pid &&
	exec 4>&- &&
	scx-perfetto -i s.pb --stat >s.stat &&
	grep -q "^  sched_switch: 147109$" s.stat
'

test_expect_success 'usage errors exit 2' '
	test_exit_code 2 scx-perfetto --stat </dev/null 2>e1 &&
	grep -q "needs -i" e1 &&
	test_exit_code 2 scx-perfetto -i x --format xml 2>e2 &&
	test_exit_code 2 scx-perfetto -i x --source what 2>e3 &&
	test_exit_code 2 scx-perfetto --bundle-events 0 2>e4 &&
	grep -q "bad --bundle-events" e4
'

test_done
