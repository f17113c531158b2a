#!/bin/sh
# scx-events --aggregate: kernel snapshots and what the other tools make of
# them.  The first part reads a stored capture (t/data/kagg-2cpu.ndjson, 3
# one-second snapshots of this 2-CPU machine) and needs no root.
#
# The live part runs `scx-events --aggregate` and a plain `scx-events` on
# the same workload at once.  The two cannot cut time at the same instants:
# each program reads the clock itself, and a switch in the microseconds
# around a snapshot boundary may fall on either side.  So for every
# snapshot the event capture saw whole (all of them: the kernel capture
# starts after the event capture is attached and stops before it; its first
# interval begins at a flip once every program is attached, like the
# others), and every CPU, the kernel's count must lie between the events
# counted in [start + 1ms, end - 1ms) and in [start - 1ms, end + 1ms): an
# exact check outside a 1 ms band around each boundary.  That holds for
# what does not depend on the programs' own task state: switches,
# voluntary and involuntary, slices and migrations.  Wakeups leave out
# spurious wakings, judged from task state each program learnt since its
# own attach, so they are only bounded by the raw wakings.  Histograms hold
# times, and two programs never read the same clock value: that kernel
# histograms are lib/hist's bucket for bucket is t/unit/1005-kagg's check,
# on the code the programs run.
. "$(dirname "$0")/lib.sh"
. "$SCX_SRC/t/lib-capture.sh"

in=$TDATA/kagg-2cpu.ndjson

test_expect_success JQ 'scx-agg: one snapshot per kernel snapshot, counters and histograms kept' '
	scx-agg -f ndjson "$in" >snaps &&
	test_line_count 3 snaps &&
	jq -c "select(.type == \"kernel_snapshot\") | [.start_ns, .end_ns, ([.cpus[].switches] | add),
		([.cpus[].wake_lat.count] | add), ([.cpus[].wc_loss_ns] | add)]" "$in" >want &&
	jq -c "[.start_ns, .end_ns, .total.switches, .total.wake_lat.count, .total.wc_loss_ns]" snaps >got &&
	test_cmp want got &&
	jq -c "select(.type == \"kernel_snapshot\") | [.cpus[] | [.cpu, .slices, .wake_lat.max, .rq_delay.min]]" \
		"$in" >want &&
	jq -c "[.groups.cpu[] | [.cpu, .slices, .wake_lat.max, .rq_delay.min]]" snaps >got &&
	test_cmp want got
'

test_expect_success JQ 'scx-agg --once: one interval holding all of them' '
	scx-agg --once -f ndjson "$in" >once &&
	test_line_count 1 once &&
	jq -s "[.[] | select(.type == \"kernel_snapshot\") | .cpus[].switches] | add" "$in" >want &&
	jq ".total.switches" once >got &&
	test_cmp want got &&
	jq -e ".unknown == 0" once
'

test_expect_success JQ,PROMTOOL 'prometheus: cumulative counters, buckets, promtool finds nothing' '
	scx-agg -f prometheus "$in" >prom &&
	awk "/^# EOF/ { n++; next } n == 2" prom >last &&
	grep "^scx_cpu_switches_total{cpu=\"1\"" last | sed "s/.* //" >got &&
	jq -s "[.[] | select(.type == \"kernel_snapshot\") | .cpus[] | select(.cpu == 1) | .switches] | add" \
		"$in" >want &&
	test_cmp want got &&
	grep "^scx_cpu_wake_latency_seconds_count{cpu=\"0\"" last | sed "s/.* //" >got &&
	jq -s "[.[] | select(.type == \"kernel_snapshot\") | .cpus[] | select(.cpu == 0) | .wake_lat.count] | add" \
		"$in" >want &&
	test_cmp want got &&
	promtool check metrics <last >lint 2>&1 &&
	test ! -s lint
'

# dsq_lat (sched_ext only: live in t/vm/0700) added to a stored record:
# three values on each CPU of each snapshot
test_expect_success JQ,PROMTOOL 'a snapshot with DSQ queueing times: scx-agg and prometheus' '
	jq -c "if .type == \"kernel_snapshot\" then .cpus |= map(. + {dsq_lat: {count: 3,
		sum: 3000, min: 500, max: 1500, clamped: 0, b: [253, 1, 317, 1, 349, 1]}}) else . end" \
		"$in" >dsq.ndjson &&
	n=$(grep -c kernel_snapshot dsq.ndjson) &&
	scx-agg --once -f ndjson dsq.ndjson >agg &&
	jq -e ".total.dsq_lat | .count == $n * 6 and .min == 500 and .max == 1500" agg &&
	jq -e ".groups.cpu | map(.dsq_lat.count) == [$n * 3, $n * 3]" agg &&
	jq -e ".total.dsq_dispatches == $n * 6" agg &&
	scx-agg --once -f prometheus dsq.ndjson >prom &&
	grep -q "^scx_cpu_dsq_queue_seconds_count{cpu=\"1\",.*} $((n * 3))$" prom &&
	promtool check metrics <prom &&
	scx-agg --once -f ndjson "$in" >plain &&
	jq -e "(.total.dsq_lat.count // 0) == 0" plain
'

# per-DSQ queueing times (sched_ext only: live in t/vm/0700) added to a
# stored record: in each snapshot DSQ 0 (scx_simple's shared one) has 500
# and 1000 ns, DSQ 7 1500 ns, the collector's overflow "other" 500 ns
test_expect_success JQ,PROMTOOL 'per-DSQ snapshots: --by dsq, the dsq report, prometheus' '
	jq -c "if .type == \"kernel_snapshot\" then . + {dropped_dsq_values: 0, dsqs: [
		{dsq: 0, dsq_lat: {count: 2, sum: 1500, min: 500, max: 1000, clamped: 0, b: [253, 1, 317, 1]}},
		{dsq: 7, dsq_lat: {count: 1, sum: 1500, min: 1500, max: 1500, clamped: 0, b: [349, 1]}},
		{dsq: \"other\", dsq_lat: {count: 1, sum: 500, min: 500, max: 500, clamped: 0, b: [253, 1]}}]}
		else . end" "$in" >pdsq.ndjson &&
	n=$(grep -c kernel_snapshot pdsq.ndjson) &&
	scx-agg --once -g dsq -f ndjson pdsq.ndjson >agg &&
	jq -c "[.groups.dsq[] | [.dsq_dispatches, .dsq_lat.count, .dsq_lat.min, .dsq_lat.max,
		.dsq_inserts, .dsq_depth]]" agg >got &&
	echo "[[$((2 * n)),$((2 * n)),500,1000,null,null],[$n,$n,1500,1500,null,null],[$n,$n,500,500,null,null]]" >want &&
	test_cmp want got &&
	grep -o "{\"dsq\":[0-9][0-9]*" agg >got &&
	printf "{\"dsq\":%s\n" 0 7 18446744073709551615 >want &&
	test_cmp want got &&
	scx-agg --once -r dsq -H pdsq.ndjson >rep &&
	grep -E "^ +7 +- +$n " rep &&
	scx-agg -g cpu,dsq -f prometheus pdsq.ndjson >prom &&
	awk "/^# EOF/ { n++; next } n == $((n - 1))" prom >last &&
	grep -q "^scx_dsq_dispatches_total{dsq=\"0\"} $((2 * n))\$" last &&
	grep -q "^scx_dsq_queue_seconds_count{dsq=\"7\"} $n\$" last &&
	grep -q "^scx_dsq_queue_seconds_bucket{dsq=\"other\",le=\"0.000001023\"} $n\$" last &&
	! grep -q "^scx_dsq_inserts_total\|^scx_dsq_depth_tasks" last &&
	promtool check metrics <last >lint 2>&1 &&
	test ! -s lint
'

test_expect_success JQ,PROMTOOL '--dsq-top: the DSQs with the most dispatches, the rest as (other)' '
	n=$(grep -c kernel_snapshot pdsq.ndjson) &&
	scx-agg --once -g dsq --dsq-top 1 -f ndjson pdsq.ndjson >agg &&
	grep -o "{\"dsq\":[0-9][0-9]*,\"dsq_dispatches\":[0-9]*" agg >got &&
	printf "{\"dsq\":%s,\"dsq_dispatches\":%s\n" 0 $((2 * n)) 18446744073709551615 $((2 * n)) >want &&
	test_cmp want got &&
	jq -e ".groups.dsq[1].dsq_lat | .count == $((2 * n)) and .min == 500 and .max == 1500" agg &&
	scx-agg -g dsq --dsq-top 1 -f prometheus pdsq.ndjson >prom &&
	grep "^scx_dsq_dispatches_total" prom | sed "s/ .*//" | sort -u >got &&
	printf "scx_dsq_dispatches_total{dsq=\"%s\"}\n" 0 other >want &&
	test_cmp want got &&
	awk "/^# EOF/ { n++; next } n == $((n - 1))" prom >last &&
	promtool check metrics <last &&
	test_must_fail scx-agg --dsq-top 0 pdsq.ndjson 2>err &&
	grep "bad DSQ top .0.: 1 to 100000" err
'

test_expect_success 'per-DSQ snapshots: bad dsqs are named with their byte offset' '
	sed "2s/\"dsqs\":\[{\"dsq\":0,/\"dsqs\":[{\"dsq\":-1,/" pdsq.ndjson >bad &&
	! cmp -s bad pdsq.ndjson &&
	test_must_fail scx-agg -f ndjson bad 2>err &&
	grep "bad: byte [0-9]*: kernel_snapshot: missing or bad \"dsq\"" err
'

test_expect_success 'reports need single events, and say so' '
	test_exit_code 2 scx-agg -r wakeup-latency "$in" 2>err &&
	grep "report .wakeup-latency. needs single events: this stream has only kernel aggregates" err
'

test_expect_success 'events and kernel snapshots in one input are refused' '
	{ cat "$in"; cat "$TDATA/agg-basic.ndjson"; } >mixed &&
	test_must_fail scx-agg mixed 2>err &&
	grep "mixes events and kernel snapshots" err
'

test_expect_success 'a bad kernel snapshot is named with its byte offset' '
	sed "2s/\"switches\":264/\"switches\":-1/" "$in" >bad &&
	test_must_fail scx-agg -f ndjson bad 2>err &&
	grep "bad: byte [0-9]*: kernel_snapshot: missing or bad \"switches\"" err
'

# a collector that fell behind (scx-events(1)): the second snapshot merged 4
test_expect_success JQ,PROMTOOL 'late_intervals: in the snapshot, the prometheus counter, checked' '
	sed "3s/\"missed\":0,/\"missed\":0,\"late_intervals\":4,/" "$in" >late &&
	test $(grep -c late_intervals late) = 1 &&
	scx-agg -f ndjson late >snaps &&
	jq -c "[.seq, .late_intervals]" snaps >got &&
	printf "[0,null]\n[1,4]\n[2,null]\n" >want &&
	test_cmp want got &&
	scx-agg -f prometheus late >prom &&
	grep "^scx_late_intervals_total " prom | sed "s/.* //" >got &&
	printf "0\n4\n4\n" >want &&
	test_cmp want got &&
	awk "/^# EOF/ { n++; next } n == 2" prom >last &&
	promtool check metrics <last >lint 2>&1 &&
	test ! -s lint &&
	scx-agg -f prometheus "$TDATA/agg-basic.ndjson" >prom &&
	! grep late_intervals prom &&
	sed "3s/\"missed\":0,/\"missed\":0,\"late_intervals\":-4,/" "$in" >bad &&
	test_must_fail scx-agg bad 2>err &&
	grep "bad: byte [0-9]*: kernel_snapshot: missing or bad \"late_intervals\"" err
'

test_expect_success 'scx-top: cpu views from the snapshots, the process view says why it is empty' '
	scx-top -b -n 1 -i "$in" >frame &&
	grep "kernel aggregates  cpus 2" frame &&
	grep "^   0   0   54.1" frame &&
	scx-top -b -n 1 --view=proc -i "$in" >frame &&
	grep "no per-task or DSQ rows: the input has only kernel aggregates" frame
'

test_expect_success JQ 'scx-mcp: loads the snapshots for analyses, and warns' '
	. "$TDATA/mcp-lib.sh" &&
	cp "$in" k.ndjson &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"k.ndjson\",\"trace_id\":\"k\"}"
	  call 2 analyze_trace_scheduling "{\"trace_id\":\"k\",\"analysis_type\":\"cpu_utilization\"}"; } |
		mcp >out &&
	text 1 <out | jq -e ".events == 0 and (.warning | test(\"only kernel aggregates\"))" &&
	jq -s "[.[] | select(.type == \"kernel_snapshot\") | .cpus[].switches] | add" "$in" >want &&
	text 2 <out | jq ".report.tables.summary.rows[0].switches" >got &&
	test_cmp want got
'

test_expect_success 'usage: --interval needs --aggregate, which takes no event options' '
	test_exit_code 2 scx-events -I 1s 2>err &&
	grep "interval goes with --aggregate" err &&
	test_exit_code 2 scx-events --aggregate -e switch 2>err &&
	grep "do not apply" err &&
	test_exit_code 2 scx-events --aggregate -I 1ms 2>err &&
	grep "invalid interval" err
'

# ---- live ----------------------------------------------------------------------

workload() {
	if command -v perf >/dev/null; then
		perf bench sched messaging -g 1 -l 20 >/dev/null 2>&1
		taskset -c 0 perf bench sched pipe -l 20000 >/dev/null 2>&1
	else
		i=0; while [ $i -lt 2000 ]; do echo x | cat >/dev/null; i=$((i + 1)); done
	fi
}

test_expect_success BPF,JQ 'live: both captures of one workload' '
	# test 9 left a k.ndjson: wait_header would find it at once, and the
	# workload could start before the aggregate is attached
	rm -f ev.ndjson k.ndjson
	scx-events -e switch,waking,wakeup_new,migrate -o ev.ndjson 2>ev.err &
	ev=$!
	# (set -e: each start on a line of its own, or "&" would put the
	# wait in the background with it)
	wait_header ev.ndjson $ev
	scx-events --aggregate -I 500ms -o k.ndjson 2>k.err &
	k=$!
	wait_header k.ndjson $k &&
	sleep 0.7 && workload && sleep 1.2 &&
	kill -INT $k && wait $k &&
	sleep 0.5 && kill -INT $ev && wait $ev &&
	grep -q "\"type\":\"trailer\"" ev.ndjson &&
	grep -q "\"type\":\"trailer\"" k.ndjson &&
	test $(grep -c kernel_snapshot k.ndjson) -ge 4
'

if test_have_prereq BPF && test -s "$TRASH/ev.ndjson" && ! grep -q "\"lost_total\":0" "$TRASH/ev.ndjson"; then
	test_skip 'live: kernel counts equal the events'"'"' outside the boundary band' \
		'the event capture lost events under load'
else
test_expect_success BPF,JQ 'live: kernel counts equal the events'"'"' outside the boundary band' '
	jq -r "select(.type == \"kernel_snapshot\") | .seq as \$s | .start_ns as \$a | .end_ns as \$b |
		.cpus[] | [\$s, \$a, \$b, .cpu, .switches, .voluntary, .involuntary, .slices,
		.migrations, .wakeups] | @tsv" k.ndjson >win &&
	# the snapshots both captures saw whole: from the event capture'"'"'s
	# attach (its header) to its detach (its trailer)
	t0=$(jq -r "select(.type == \"header\") | .start_ns" ev.ndjson) &&
	t1=$(jq -r "select(.type == \"trailer\") | .end_ns" ev.ndjson) &&
	awk -F"\t" -v t0="$t0" -v t1="$t1" "\$2 > t0 + 1000000 && \$3 < t1 - 1000000" win >inner &&
	test -s inner &&
	# 1 ms either side of a boundary, and how long the collector took to set
	# each boundary (a preemption there, on a loaded machine)
	skew=$(jq -s "[.[] | select(.type == \"kernel_snapshot\") | .end_skew_ns] | max" k.ndjson) &&
	echo "largest boundary skew $skew ns" &&
	awk -v band=$((1000000 + skew)) "
	BEGIN { j0 = 1 }
	FNR == NR { n++; for (i = 1; i <= 10; i++) w[n, i] = \$i; next }
	{
		ts = \$0; sub(/.*\"ts\":/, \"\", ts); sub(/,.*/, \"\", ts); ts += 0
		cpu = \$0; sub(/.*\"cpu\":/, \"\", cpu); sub(/,.*/, \"\", cpu); cpu += 0
		k = 0
		if (index(\$0, \"\\\"sched_switch\\\"\")) {
			prev = \$0; sub(/.*\"prev_pid\":/, \"\", prev); sub(/,.*/, \"\", prev)
			next_ = \$0; sub(/.*\"next_pid\":/, \"\", next_); sub(/,.*/, \"\", next_)
			st = \$0; sub(/.*\"prev_state\":/, \"\", st); sub(/,.*/, \"\", st); st += 0
			invol = (st >= 256 || st % 256 == 0)
			if (prev + 0) { c[k++] = 5; c[k++] = invol ? 7 : 6 }
			if (next_ + 0) c[k++] = 8
		} else if (index(\$0, \"\\\"sched_migrate_task\\\"\")) {
			cpu = \$0; sub(/.*\"dest_cpu\":/, \"\", cpu); sub(/[,}].*/, \"\", cpu); cpu += 0
			c[k++] = 9
		} else if (index(\$0, \"\\\"sched_waking\\\"\")) {
			cpu = \$0; sub(/.*\"target_cpu\":/, \"\", cpu); sub(/,.*/, \"\", cpu); cpu += 0
			c[k++] = 10
		} else next
		# the windows are in time order, and so are the events but for a
		# late one now and then: skip the windows that ended a second ago
		while (j0 < n && w[j0, 3] + band + 1000000000 < ts) j0++
		for (j = j0; j <= n && w[j, 2] - band <= ts; j++) {
			if (w[j, 4] != cpu) continue
			for (m = 0; m < k; m++) {
				if (ts >= w[j, 2] - band && ts < w[j, 3] + band) hi[j, c[m]]++
				if (ts >= w[j, 2] + band && ts < w[j, 3] - band) lo[j, c[m]]++
			}
		}
	}
	END {
		split(\"- - - - switches voluntary involuntary slices migrations wakeups\", name)
		for (j = 1; j <= n; j++) for (i = 5; i <= 10; i++) {
			v = w[j, i] + 0
			printf \"snapshot %s cpu %s %s: kernel %d, events %d..%d\n\", w[j, 1], w[j, 4], name[i], v, lo[j, i], hi[j, i]
			if (v > hi[j, i] + 0 || (i < 10 && v < lo[j, i] + 0))
				mm = mm sprintf(\"MISMATCH snapshot %s cpu %s %s: kernel %d, events %d..%d\n\", w[j, 1], w[j, 4], name[i], v, lo[j, i], hi[j, i])
		}
		printf \"%s\", mm
		bad = mm != \"\"
		exit (bad ? 1 : 0)
	}" inner ev.ndjson >cmp || { cat cmp; false; } &&
	grep -c switches cmp
'
fi

test_expect_success BPF,JQ 'live: the pinned pipe benchmark is in cpu 0'"'"'s switches' '
	command -v perf >/dev/null || exit 0
	jq -s "[.[] | select(.type == \"kernel_snapshot\") | .cpus[] | select(.cpu == 0) | .switches] | add" \
		k.ndjson >n &&
	# (it failed once in a loaded make check, without saying more)
	{ test $(cat n) -ge 40000 || {
		echo "cpu 0 switches in the aggregate: $(cat n), want >= 40000; the snapshots:" &&
		jq -c "select(.type == \"kernel_snapshot\") | [.start_ns, .end_ns, .missed,
			.dropped_tasks, (.cpus[] | select(.cpu == 0) | .switches)]" k.ndjson
		false
	}; }
'

# SIGSTOP stands for a collector that falls behind (a reader that stops
# reading blocks its writes the same way): stopped for 1 s at 100 ms
# intervals, it cuts at least 0.9 s late, and the kernel kept counting
test_expect_success BPF,JQ 'live: a collector that fell behind merges intervals, loses none' '
	start_capture late.ndjson --aggregate --no-cgroups -I 100ms &&
	kill -STOP $cap_pid && sleep 1 && kill -CONT $cap_pid &&
	for _ in $(seq 600); do
		grep -q late_intervals late.ndjson && break
		sleep 0.1
	done &&
	stop_capture &&
	grep "intervals merged into it" capture.err &&
	jq -s -e "[.[] | select(.type == \"kernel_snapshot\")] as \$k |
		(\$k | length) >= 2 and
		all(range(1; \$k | length); \$k[.].start_ns == \$k[. - 1].end_ns) and
		([\$k[] | .late_intervals // 0] | add) >= 5 and
		all(\$k[] | select(.late_intervals);
		    .end_ns - .start_ns >= .late_intervals * 100000000)" late.ndjson || {
		jq -c "select(.type == \"kernel_snapshot\") | [.seq, .start_ns, .end_ns, .late_intervals]" \
			late.ndjson; false; } &&
	scx-agg -f prometheus late.ndjson >prom &&
	jq -s "[.[] | .late_intervals // 0] | add" late.ndjson >want &&
	grep "^scx_late_intervals_total " prom | tail -n 1 | sed "s/.* //" >got &&
	test_cmp want got
'

test_expect_success BPF,PROMTOOL 'live: prometheus on the aggregate stream passes promtool' '
	scx-agg -f prometheus k.ndjson >prom &&
	awk "/^# EOF/ { n++; if (n == 3) exit; next } n == 2" prom >one &&
	test -s one &&
	promtool check metrics <one >lint 2>&1 &&
	test ! -s lint
'

test_done
