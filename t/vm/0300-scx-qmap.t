#!/bin/sh
# In the VM, scx_qmap with a 5 ms slice under load while scx-events captures.
# scx_qmap queues tasks in BPF FIFO maps and moves them to its shared DSQ 0
# from ops.dispatch, or straight to the local DSQ of an idle CPU; it keeps no
# vtime.  The switches must say so: DSQ 0, SCX_DSQ_LOCAL or
# SCX_DSQ_LOCAL_ON|cpu, vtime 0, slices of 5 ms (a re-enqueue keeps the slice
# it had, so a few may differ, none above the kernel's default 20 ms).
. "$(dirname "$0")/../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"

test_expect_success 'capture scx_qmap being loaded, run and unloaded' '
	start_capture ev.ndjson &&
	start_sched scx_qmap -s 5000 &&
	load 3 &&
	stop_sched &&
	stop_capture &&
	cp ev.ndjson qmap.ndjson && keep qmap.ndjson scx_qmap.out capture.err &&
	tail -n 1 ev.ndjson | grep -q "\"lost_total\":0"
'

test_expect_success 'load and unload of "qmap" in the stream' '
	grep -n "\"type\":\"scx_enable\".*\"name\":\"qmap\"" ev.ndjson >en &&
	grep -n "\"type\":\"scx_disable\".*\"name\":\"qmap\"" ev.ndjson >dis &&
	test_line_count 1 en && test_line_count 1 dis &&
	grep -q "\"exit_kind\":64,\"exit_code\":0,\"reason\":\"unregistered from user space\"" dis &&
	test "$(cut -d: -f1 en)" -lt "$(cut -d: -f1 dis)"
'

test_expect_success 'DSQ ids are those scx_qmap uses' '
	sw_scx ev.ndjson >sw &&
	test $(wc -l <sw) -ge 100 &&
	u64 dsq_id <sw | sort | uniq -c | sort -rn >ids &&
	cat ids &&
	awk -v on=$SCX_DSQ_LOCAL_ON -v local=$SCX_DSQ_LOCAL "
		# as strings: awk would compare ids above 2^53 as rounded doubles
		\$2 \"\" == \"0\" { shared = 1; next }
		\$2 \"\" == local \"\" { next }
		# LOCAL_ON|cpu: compare the digits, awk would round the number
		substr(\$2, 1, 17) == substr(on, 1, 17) && length(\$2) == length(on) { next }
		{ print \"unexpected DSQ\", \$2; bad = 1 }
		END { exit bad || !shared }" ids
'

test_expect_success 'FIFO: vtime never moves; 5 ms slices' '
	# a task keeps the dsq_vtime an earlier scheduler (scx_simple, in the
	# same boot) gave it: FIFO must not move it
	grep "\"slice_ns\":" sw >scx &&
	test $(wc -l <scx) -gt 100 &&
	jq_true -s scx "group_by(.next_pid) | map(map(.dsq_vtime) | unique | length) | max == 1" \
		"map(.slice_ns) | max <= 20000000" \
		"(map(select(.slice_ns == 5000000)) | length) * 2 > length" &&
	jq_true -s sw "map(.prev_slice_used_ns) | max <= 20000000" "map(.dsq_lat_ns) | add > 0"
'

test_expect_success 'DSQ time is bounded by the waking-to-switch time' '
	check_dsq_bound ev.ndjson
'

# scx_qmap -e N raises scx_bpf_error("test triggering error") after N
# enqueues: the kernel disables it, and the record says so.
test_expect_success 'an scx_bpf_error exit: kind, reason and message' '
	start_capture err.ndjson -e switch,scx &&
	{ timeout 120 "$SCX_SCHED/scx_qmap" -e 200 >qerr.out 2>&1 || :; } &&
	wait_state disabled &&
	stop_capture &&
	keep err.ndjson qerr.out &&
	grep "\"type\":\"scx_disable\"" err.ndjson >dis &&
	cat dis &&
	test_line_count 1 dis &&
	grep -q "\"name\":\"qmap\",\"exit_kind\":1025,\"exit_code\":0,\"reason\":\"scx_bpf_error\",\"msg\":\"test triggering error\"" dis
'

test_done
