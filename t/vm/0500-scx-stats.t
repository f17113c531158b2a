#!/bin/sh
# In the VM, sched_ext's own state and counters (sysfs) as scx_stats records
# while two schedulers are loaded and unloaded in one capture: enable_seq
# rises by one per load, the state and scheduler name follow, nr_rejected is
# there; scx-agg folds the records into its snapshots and Prometheus
# counters.  root/events (6.15 and later) is checked where the kernel has it.
. "$(dirname "$0")/../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"

# the records of FILE, one per line
stats() { grep "\"type\":\"scx_stats\"" "$1"; }

test_expect_success 'capture scx_simple and scx_qmap loaded one after the other' '
	wait_state disabled &&
	seq0=$(cat /sys/kernel/sched_ext/enable_seq) &&
	start_capture ev.ndjson -e switch,scx &&
	sleep 1.5 &&
	start_sched scx_simple && load 2 && stop_sched &&
	start_sched scx_qmap && load 2 &&
	{ test -e /sys/kernel/sched_ext/root/events && echo yes >has-events || :; } &&
	stop_sched &&
	sleep 1.5 &&
	stop_capture &&
	seq1=$(cat /sys/kernel/sched_ext/enable_seq) &&
	echo "enable_seq $seq0 -> $seq1" &&
	test $((seq1 - seq0)) = 2 &&
	keep ev.ndjson capture.err &&
	stats ev.ndjson >st &&
	cat st &&
	test $(wc -l <st) -ge 4
'

test_expect_success 'enable_seq: one per load, as many as scx_enable records' '
	jq_true -s st "map(.enable_seq) | add == 2" "map(.enable_seq) | max <= 2 and min >= 0" &&
	test "$(grep -c "\"type\":\"scx_enable\"" ev.ndjson)" = 2
'

test_expect_success 'state and scheduler follow the loads' '
	jq -r "\"\(.state) \(.ops)\"" st | uniq >seen &&
	cat seen &&
	grep -qx "enabled simple" seen &&
	grep -qx "enabled qmap" seen &&
	grep -q "^disabled" seen &&
	test "$(tail -n 1 seen | cut -d" " -f1)" = disabled
'

test_expect_success 'nr_rejected and switch_all in every record, deltas add up' '
	jq_true -s st "all(has(\"nr_rejected\") and has(\"switch_all\") and .interval_ns > 0)" \
		"map(.nr_rejected) | add == 0" "(map(.interval_ns) | add) > 5000000000"
'

test_expect_success 'root/events where the kernel has it' '
	if test -s has-events; then
		jq_true -s st "map(select(.events)) | length > 0" \
			"map(.events // {} | to_entries[] | .value) | all(. >= 0)"
	else
		jq -s -e "all(has(\"events\") | not)" st
	fi
'

# on the console (prove shows stderr): what was not checked live, and why
test -s "$TRASH/has-events" ||
	echo "# 0500: root/events skipped: no root/events on this kernel ($(uname -r))" >&2

test_expect_success 'scx-agg: snapshots and Prometheus counters' '
	scx-agg -I 1s -f ndjson ev.ndjson >snaps &&
	test "$(jq -s "map(.sched_ext.enable_seq // 0) | add" snaps)" = 2 &&
	scx-agg -f prometheus ev.ndjson >prom &&
	grep -x "# TYPE scx_sched_ext_loads_total counter" prom &&
	grep -x "scx_sched_ext_loads_total 2" prom &&
	grep -x "scx_sched_ext_rejected_tasks_total 0" prom &&
	scx-agg -f text ev.ndjson >text &&
	grep "^sched_ext: disabled .* loads 2 rejected 0" text
'

test_expect_success 'scx-events --aggregate: a record with each snapshot' '
	scx-events --aggregate -I 1s >agg.ndjson 2>agg.err &
	agg_pid=$! &&
	# the first record means the counters were read once: the load comes after
	for _ in $(seq 600); do grep -q "\"type\":\"scx_stats\"" agg.ndjson && break; sleep 0.1; done &&
	grep -q "\"type\":\"scx_stats\"" agg.ndjson &&
	start_sched scx_simple && load 1 && stop_sched &&
	sleep 1 &&
	kill -INT $agg_pid && wait $agg_pid &&
	keep agg.ndjson agg.err &&
	stats agg.ndjson >ast &&
	test "$(jq -s "map(.enable_seq) | add" ast)" = 1 &&
	test "$(grep -c kernel_snapshot agg.ndjson)" = "$(wc -l <ast)"
'

test_done
