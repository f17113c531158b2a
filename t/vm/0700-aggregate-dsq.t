#!/bin/sh
# In the VM, `scx-events --aggregate` under scx_simple keeps each CPU's
# histogram of DSQ queueing time (dsq_lat), and it agrees with the event
# mode's dsq_lat_ns on the same workload: a plain capture of the switches
# with their sched_ext data and the aggregate run at once, as t/1104 runs
# them for the other figures.  scx_simple inserts and never moves tasks
# between DSQs, so both measure from the same insert.
#
# The two cannot cut time at the same instants (each reads the clock
# itself), so for every snapshot but the first and the last, and every CPU,
# the kernel's count of DSQ waits must lie between the event mode's switches
# with DSQ data in [start + band, end - band) and in
# [start - band, end + band), band = 1 ms plus the snapshot's boundary skew;
# the lower bound less the program runs the kernel says it skipped in that
# interval ("missed": a kprobe does not run while another BPF program runs
# on its CPU).
# The values themselves differ by the microseconds between the two
# programs' clock reads: their exact merge with lib/hist is
# t/unit/1005-kagg's check, on the code the programs run.
. "$(dirname "$0")/../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"

test_expect_success 'both captures of scx_simple under load' '
	# (each start on a line of its own, or "&" would put the rest of the
	# chain in the background with it)
	start_capture ev.ndjson -e switch,scx
	ev=$cap_pid
	scx-events --aggregate -I 500ms -o k.ndjson 2>k.err &
	k=$!
	kill -0 $ev &&
	wait_header k.ndjson $k &&
	start_sched scx_simple &&
	load 4 &&
	stop_sched &&
	kill -INT $k && wait $k &&
	sleep 0.5 && kill -INT $ev && wait $ev &&
	keep ev.ndjson k.ndjson k.err capture.err &&
	grep -q "\"type\":\"trailer\"" k.ndjson &&
	tail -n 1 ev.ndjson | grep -q "\"lost_total\":0" &&
	test $(grep -c kernel_snapshot k.ndjson) -ge 6 &&
	! grep -q "cannot attach kprobes" k.err
'

test_expect_success 'the snapshots have DSQ queueing times, and no task was dropped' '
	jq -s -e "[.[] | select(.type == \"kernel_snapshot\") | .cpus[] | .dsq_lat.count // 0] |
		add > 100" k.ndjson &&
	jq -s -e "[.[] | select(.type == \"kernel_snapshot\") | .dropped_tasks] | add == 0" k.ndjson &&
	jq -s -e "[.[] | select(.type == \"kernel_snapshot\") | .cpus[] | select(.dsq_lat) |
		.dsq_lat | .min <= .max and .sum >= .min * .count] | all" k.ndjson
'

# A known breakage, not a pass: in check-scx runs on 2026-11-24 the counts
# disagreed by one in either direction (snapshot 7 cpu 1: kernel 29, events
# 30..30, with one run missed; snapshot 9 cpu 1: kernel 68, events 67..67,
# none missed), and the sums differ more than the clocks explain.  Both
# sides rest on kprobes that the kernel may skip; the aggregate reports its
# skipped runs, the event mode does not.  Until that is found (#15), the
# check runs and says how it went but does not fail the suite.
test_expect_failure 'per CPU, the kernel counts the event mode'"'"'s DSQ waits outside the boundary band' '
	jq -r "select(.type == \"kernel_snapshot\") | .seq as \$s | .start_ns as \$a |
		.end_ns as \$b | .end_skew_ns as \$k | .missed as \$m | .cpus[] |
		[\$s, \$a, \$b, .cpu, .dsq_lat.count // 0, .dsq_lat.sum // 0, \$k, \$m] | @tsv" k.ndjson >win &&
	last=$(awk -F"\t" "{ print \$1 }" win | sort -n | tail -n 1) &&
	t0=$(jq -r "select(.type == \"header\") | .start_ns" ev.ndjson) &&
	t1=$(jq -r "select(.type == \"trailer\") | .end_ns" ev.ndjson) &&
	awk -F"\t" -v last="$last" -v t0="$t0" -v t1="$t1" \
		"\$1 > 0 && \$1 < last && \$2 > t0 + 1000000 && \$3 < t1 - 1000000" win >inner &&
	test -s inner &&
	jq -r "select(.type == \"sched_switch\" and .dsq_lat_ns != null) |
		[.ts, .cpu, .dsq_lat_ns] | @tsv" ev.ndjson >waits &&
	awk -F"\t" "
	FNR == NR { n++; for (i = 1; i <= 8; i++) w[n, i] = \$i; next }
	{
		for (j = 1; j <= n; j++) {
			if (w[j, 4] != \$2) continue
			band = 1000000 + w[j, 7]
			if (\$1 >= w[j, 2] - band && \$1 < w[j, 3] + band) { hi[j]++; hs[j] += \$3 }
			if (\$1 >= w[j, 2] + band && \$1 < w[j, 3] - band) lo[j]++
		}
	}
	END {
		for (j = 1; j <= n; j++) {
			v = w[j, 5] + 0
			printf \"snapshot %s cpu %s dsq_lat count: kernel %d (%d runs missed), events %d..%d; sum kernel %d, events at most %d\n\", w[j, 1], w[j, 4], v, w[j, 8], lo[j], hi[j], w[j, 6], hs[j]
			k += v
			if (v > hi[j] + 0 || v < lo[j] - w[j, 8])
				mm = mm sprintf(\"MISMATCH snapshot %s cpu %s: kernel %d (%d runs missed), events %d..%d\n\", w[j, 1], w[j, 4], v, w[j, 8], lo[j], hi[j])
		}
		printf \"%s\", mm
		exit (mm != \"\" || k < 50)
	}" inner waits >cmp || { cat cmp; false; } &&
	keep cmp &&
	grep -c "dsq_lat count" cmp
'

test_expect_success 'scx-agg and prometheus: per-CPU DSQ queueing time from the snapshots' '
	want=$(jq -s "[.[] | select(.type == \"kernel_snapshot\") | .cpus[] | .dsq_lat.count // 0] | add" k.ndjson) &&
	scx-agg --once -f ndjson k.ndjson >agg &&
	jq -e ".total.dsq_lat.count == $want and .total.dsq_dispatches == $want" agg &&
	scx-agg --once -f prometheus k.ndjson >prom &&
	test "$(awk "/^scx_cpu_dsq_queue_seconds_count/ { s += \$2 } END { print s }" prom)" = "$want" &&
	{ ! command -v promtool >/dev/null || promtool check metrics <prom; }
'

test_done
