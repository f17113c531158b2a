#!/bin/sh
# wprof's two Perfetto modes (real 3 s captures in shared/testdata/perfetto).
# Reference counts come from shared/research/wprof.md (counted there with
# protoc on the same files): 147,109 sched_switch and 142,023 sched_waking in
# the sched view's bundles, prev_state histogram 1:65772 0:64993 0x2001:11208
# 0x200:5012 0x402:108 0x80:15 0x102:1; the TrackEvent capture replayed by
# wprof itself in its sched view gave 112,611 switches and 142 wakeup_new.
. "$(dirname "$0")/lib.sh"

W=$SHARED/testdata/perfetto
count() { grep -c "\"type\":\"$1\"" "$2" || true; }

LC_ALL=C
export LC_ALL

# switch_check < events: "prev/next mismatches, out-of-order events, switches"
switch_check() {
	awk -F'[:,]' '
	!/^\{"ts"/ { next }
	{ if ($2 + 0 < last) ooo++; last = $2 + 0 }
	index($0, "\"type\":\"sched_switch\"") {
		i = index($0, "\"next_pid\":"); next_pid = substr($0, i + 11) + 0
		if (($4 in n) && n[$4] != $8 + 0) bad++
		n[$4] = next_pid; sw++
	}
	END { print bad + 0, ooo + 0, sw + 0 }'
}

test_expect_success SHARED 'sched view: every bundle event, none twice from the TrackEvents' '
	scx-perfetto -i "$W/wprof-schedview.pb.zst" >s.ndjson &&
	test "$(count sched_switch s.ndjson)" = 147109 &&
	test "$(count sched_waking s.ndjson)" = 142023 &&
	head -n 1 s.ndjson | grep -q "\"producer\":\"perfetto:wprof\"" &&
	head -n 1 s.ndjson | grep -q "\"hostname\":\"vm\",\"kernel\":\"6.18.44-fc-v669\""
'

test_expect_success SHARED 'sched view: events in time order although bundles are not' '
	switch_check <s.ndjson >chk &&
	read bad ooo n <chk &&
	test "$ooo" = 0 && test "$n" = 147109
'

test_expect_success SHARED 'sched view: raw __state converted like the kernel tracepoint' '
	grep -o "\"prev_state\":[0-9]*" s.ndjson | sort | uniq -c | awk "{ print \$2, \$1 }" >got &&
	cat >want <<-\EOF &&
	"prev_state":0 70005
	"prev_state":1 76980
	"prev_state":128 108
	"prev_state":16 15
	"prev_state":2 1
	EOF
	test_cmp want got &&
	scx-perfetto -i "$W/wprof-schedview.pb.zst" --raw-state --source ftrace |
		grep -c "\"prev_state\":8193" >raw &&
	test "$(cat raw)" = 11208
'

test_expect_success SHARED 'sched view: the same switches from bundles and from TrackEvents' '
	scx-perfetto -i "$W/wprof-schedview.pb.zst" --source ftrace >f.ndjson &&
	scx-perfetto -i "$W/wprof-schedview.pb.zst" --source track >t.ndjson &&
	test "$(count sched_switch f.ndjson)" = 147109 &&
	test "$(count sched_switch t.ndjson)" = 147109 &&
	switch_check <f.ndjson >cf && switch_check <t.ndjson >ct &&
	test_cmp cf ct &&
	scx-perfetto -i "$W/wprof-schedview.pb.zst" --stat >st &&
	grep -q "^sched_source: mixed$" st
'

test_expect_success SHARED 'TrackEvent mode: ONCPU slices become the switches wprof itself counts' '
	scx-perfetto -i "$W/wprof-trackevent.pb.zst" >te.ndjson &&
	test "$(count sched_switch te.ndjson)" = 112611 &&
	test "$(count sched_wakeup_new te.ndjson)" = 142 &&
	switch_check <te.ndjson >chk &&
	read bad ooo n <chk && test "$ooo" = 0 && test "$n" = 112611
'

test_expect_success SHARED 'TrackEvent mode: idle is pid 0, no fake wprof pids leak' '
	! grep -q "\"[a-z_]*pid\":-" te.ndjson &&
	! grep -q "2000000" te.ndjson &&
	grep -q "\"prev_pid\":0,\"prev_tgid\":0,\"prev_comm\":\"swapper/[01]\"" te.ndjson &&
	grep -q "\"next_pid\":0,\"next_tgid\":0,\"next_comm\":\"swapper/[01]\"" te.ndjson
'

test_expect_success SHARED 'TrackEvent mode: waking pairs, forks, execs, irqs' '
	grep "\"type\":\"sched_waking\"" te.ndjson | head -n 1 >w1 &&
	grep -q "\"ts\":10551,\"cpu\":0,\"type\":\"sched_waking\",\"pid\":27422,.*\"target_cpu\":0,\"waker_pid\":7160" w1 &&
	test "$(count sched_process_fork te.ndjson)" -gt 0 &&
	grep -q "\"type\":\"sched_process_exec\".*\"filename\":\"/usr/bin/dpkg-deb\"" te.ndjson &&
	test "$(count softirq_entry te.ndjson)" = "$(count softirq_exit te.ndjson)" &&
	test "$(count irq_entry te.ndjson)" -gt 0 &&
	scx-perfetto -i "$W/wprof-trackevent.pb.zst" --stat >ts &&
	grep -q "^sched_source: track_event$" ts &&
	grep -q "^producer: wprof$" ts
'

test_done
