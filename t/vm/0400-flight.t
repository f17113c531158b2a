#!/bin/sh
# In the VM, scx-events --flight while scx_qmap exits two ways: an
# scx_bpf_error (-e: after N enqueues) and a normal unload.  (A watchdog
# stall, qmap -t, is t/vm/alone/0410-flight-stall.t, in a boot of its own:
# the guest kernel hangs when it follows another qmap exit, see there.)  Each exit writes its own window
# holding the events that led up to it, the exit record, and for the
# error the kernel's debug dump as text and as CPU and task records; the
# capture goes on after each.  The dump lists the tasks on each CPU's local
# queue, and there may be none: the error can fire from an interrupt while
# every CPU idles, so the test asks for as many task records as task lines.
. "$(dirname "$0")/../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"
. "$SCX_SRC/t/vm/lib-flight.sh"

test_expect_success 'start the flight recorder' '
	mkdir win &&
	scx-events --flight 30s,64M -o win 2>flight.err &
	echo $! >cap.pid &&
	for _ in $(seq 600); do grep -q "flight recorder:" flight.err && break; sleep 0.1; done &&
	grep -q "flight recorder:" flight.err
'

test_expect_success 'scx_bpf_error: the window, its exit record and the dump' '
	{ timeout 120 "$SCX_SCHED/scx_qmap" -e 500 >qerr.out 2>&1 & } &&
	load 3 &&
	wait_disabled 120 &&
	w=$(wait_window 1) && cp "$w" err.ndjson && keep err.ndjson qerr.out flight.err &&
	trig err.ndjson >t && cat t &&
	grep -q "\"reason\":\"scx_exit\",\"seq\":1," t &&
	grep "\"type\":\"scx_disable\"" err.ndjson >dis && test_line_count 1 dis &&
	grep -q "\"name\":\"qmap\",\"exit_kind\":1025,\"exit_code\":0,\"reason\":\"scx_bpf_error\",\"msg\":\"test triggering error\"" dis
'

test_expect_success 'the error window holds what led up to it' '
	grep -n "\"type\":\"scx_enable\",\"name\":\"qmap\"" err.ndjson >en && test_line_count 1 en &&
	grep -n "\"type\":\"scx_disable\"" err.ndjson >dis &&
	sw_scx err.ndjson >sw && test $(wc -l <sw) -ge 20 &&
	test "$(cut -d: -f1 en)" -lt "$(cut -d: -f1 dis)" &&
	test "$(grep -c "\"type\":\"sched_switch\"" err.ndjson)" -ge 100
'

test_expect_success 'the error dump: text, CPU and task records' '
	grep "\"type\":\"scx_dump_line\"" err.ndjson >lines &&
	test $(wc -l <lines) -ge 10 &&
	head -n 1 lines | grep -q "\"seq\":0,.*triggered exit kind 1025:" &&
	grep -q "\"line\":\"  scx_bpf_error (test triggering error)\"" lines &&
	grep -q "\"line\":\"CPU states\"" lines &&
	jq -r "select(.type == \"scx_dump_line\") | .line" err.ndjson >dump.txt && keep dump.txt &&
	grep "\"type\":\"scx_dump_cpu\"" err.ndjson >cpus &&
	test $(wc -l <cpus) -ge 1 &&
	test $(wc -l <cpus) = $(grep -c "^CPU [0-9]" dump.txt) &&
	jq -e -s "all(.cpu_id >= 0 and .cpu_id < $SCX_VM_CPUS and .curr_class != \"\")" cpus &&
	{ grep "\"type\":\"scx_dump_task\"" err.ndjson >tasks || :; } &&
	test $(wc -l <tasks) = $(grep -Ec "^ [* ][A-Za-z] .*ms$" dump.txt) &&
	jq -r .cpu_id cpus | sort -u >cpu_ids &&
	jq -r .cpu_id tasks | sort -u >task_cpus &&
	test -z "$(comm -13 cpu_ids task_cpus)" &&
	! grep -q "did not parse" flight.err
'

test_expect_success 'a normal unload: a second window, no dump' '
	progress "unload: start" &&
	start_sched scx_qmap &&
	load 2 &&
	stop_sched &&
	w=$(wait_window 2) && cp "$w" unreg.ndjson && keep unreg.ndjson &&
	grep "\"type\":\"scx_disable\"" unreg.ndjson >dis && test_line_count 1 dis &&
	grep -q "\"exit_kind\":64," dis &&
	! grep -q "\"type\":\"scx_dump_" unreg.ndjson
'

# sched_ext's counters over each window: one scx_stats record before the
# trigger, its deltas from a sample at or before the window's first event,
# so it counts the loads of qmap that the window holds (the error window
# holds one).  The unload's window starts after the error's trigger, and
# never counts from before the read written with the error's window: the
# sample before that read would count the first load again when it came less
# than a second before the error (CI's guest, stop 22).
test_expect_success 'each window carries sched_ext counters over it' '
	prev=0 &&
	for f in err.ndjson unreg.ndjson; do
		grep "\"type\":\"scx_stats\"" $f >st &&
		test_line_count 1 st && cat st &&
		tail -n 3 $f | head -n 1 | grep -q "\"type\":\"scx_stats\"" &&
		n=$(grep -c "\"type\":\"scx_enable\"" $f || :) &&
		jq -e ".enable_seq == $n and .nr_rejected == 0" st &&
		trig $f >t &&
		jq -e -n --slurpfile s st --slurpfile t t --argjson prev $prev "
			(\$s[0].ts - \$s[0].interval_ns) as \$base |
			(\$base <= \$t[0].window_start or \$base == \$prev) and \$s[0].ts >= \$t[0].ts" &&
		prev=$(jq .ts st) ||
		exit 1
	done &&
	grep -h "\"type\":\"scx_stats\"" err.ndjson unreg.ndjson >both &&
	jq -e -s ".[1].ts - .[1].interval_ns >= .[0].ts" both
'

test_expect_success 'the capture went on through both; the tools read the windows' '
	kill -INT $(cat cap.pid) &&
	while kill -0 $(cat cap.pid) 2>/dev/null; do sleep 0.1; done &&
	keep flight.err &&
	test $(ls win | wc -l) = 2 &&
	scx-agg --by dsq -r dsq <err.ndjson >agg.out &&
	scx-perfetto -o err.pb <err.ndjson &&
	scx-top -b -n 1 --view=dsq <err.ndjson >top.out
'

test_done
