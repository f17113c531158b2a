#!/bin/sh
# Cgroups in scx-events --aggregate, on the live kernel.  Two fresh cgroups
# (CG2/scx-test-PID/a and .../b) each run a workload while a plain
# `scx-events` and `scx-events --aggregate` watch at once.  For every
# snapshot both captures saw whole, and each of the two cgroups, the
# kernel's switches, voluntary, involuntary and slices must lie between the
# events of that cgroup counted in [start + 1ms, end - 1ms) and in
# [start - 1ms, end + 1ms) (the two programs read the clock themselves, so
# a switch near a boundary may fall on either side: t/1104 explains).
# Wakeups leave out spurious wakings, judged from each program's own task
# state, so they are only bounded above.  That a cgroup histogram is
# lib/hist's bucket for bucket is t/unit/1010-kagg-cgroup's check.  Then
# the tools on the aggregate stream: the cgroup records name both cgroups,
# scx-agg --by cgroup and --cgroup-depth sum the kernel's figures, and the
# cgroup-latency report runs.  The cgroups are removed on every exit path.
# Needs root, BPF and a cgroup2 mount.
. "$(dirname "$0")/lib.sh"
. "$SCX_SRC/t/lib-capture.sh"

cleanup_cgroups() {
	# captures a failed step left running
	[ -s "$TRASH/capture.pids" ] && kill -INT $(cat "$TRASH/capture.pids") 2>/dev/null
	remove_cgroups "$CG/a" "$CG/b" "$CG"
}
trap 'cleanup_cgroups; cd /; rm -rf "$TRASH"' EXIT
trap 'exit 1' INT TERM HUP

if [ -z "$CG2" ]; then
	test_skip 'cgroups in the aggregate mode' 'no cgroup2 mount'
	test_done
fi

# in_cgroup DIR SCRIPT: run the shell script inside cgroup DIR
in_cgroup() {
	sh -c 'echo $$ >"$0/cgroup.procs" && eval "$1"' "$1" "$2"
}

# a: pipe ping-pong (many voluntary switches); b: short sleeps
WORK_A='i=0; while [ $i -lt 300 ]; do echo x | cat >/dev/null; i=$((i + 1)); done'
WORK_B='i=0; while [ $i -lt 60 ]; do sleep 0.01; i=$((i + 1)); done'

test_expect_success BPF,JQ 'live: both captures of two cgroups'"'"' workloads' '
	mkdir "$CG" "$CG/a" "$CG/b" &&
	stat -c %i "$CG/a" >ida &&
	stat -c %i "$CG/b" >idb &&
	{ scx-events -e switch,waking,wakeup_new,migrate -o ev.ndjson 2>ev.err & ev=$!; } &&
	echo $ev >"$TRASH/capture.pids" &&
	wait_header ev.ndjson $ev &&
	{ scx-events --aggregate -I 300ms -o k.ndjson 2>k.err & k=$!; } &&
	echo $k >>"$TRASH/capture.pids" &&
	wait_header k.ndjson $k &&
	sleep 0.4 &&
	# only the workload of a in the background: "x && y &" would take
	# the waits above along, and b (once wholly) ran before the programs
	# were attached
	{ in_cgroup "$CG/a" "$WORK_A" & a=$!; } &&
	in_cgroup "$CG/b" "$WORK_B" &&
	wait $a &&
	sleep 0.7 &&
	kill -INT $k && wait $k &&
	sleep 0.3 && kill -INT $ev && wait $ev &&
	grep -q "\"type\":\"trailer\"" ev.ndjson &&
	grep -q "\"type\":\"trailer\"" k.ndjson &&
	test $(grep -c kernel_snapshot k.ndjson) -ge 4 &&
	rm "$TRASH/capture.pids" &&
	# the kernel counted all of both workloads: their first event is
	# inside the first snapshot
	t0=$(jq -s "map(select(.type == \"kernel_snapshot\")) | .[0].start_ns" k.ndjson) &&
	for id in $(cat ida idb); do
		first=$(grep "_cgroup\":$id[,}]" ev.ndjson | head -n 1 | jq .ts) &&
		echo "cgroup $id: first event at $first, first snapshot from $t0" &&
		test "$first" -gt "$t0" || return 1
	done
'

test_expect_success BPF,JQ 'live: each cgroup is named once, before its figures' '
	read -r A <ida && read -r B <idb &&
	for c in "$A a" "$B b"; do
		set -- $c
		grep -n "^{\"type\":\"cgroup\",\"id\":$1,\"path\":\"$REL/$2\"}" k.ndjson >rec$2 || {
			# (it failed once in a loaded make check loop for b, without a word)
			echo "no cgroup record names $REL/$2 ($1); the cgroup records of $REL:"
			grep "\"path\":\"$REL" k.ndjson
			echo "events that carry cgroup $1: $(grep -c "cgroup\":$1[,}]" ev.ndjson)," \
				"snapshots: $(grep -c "\"cgroup\":$1," k.ndjson) of $(grep -c kernel_snapshot k.ndjson)"
			echo "in the snapshots: dropped_tasks, dropped_cpu, dropped_cgroup_values, missed, and switches of cgroup 0 (other):" \
				$(jq -s -c "[.[] | select(.type == \"kernel_snapshot\")] |
					[(map(.dropped_tasks // 0) | add), (map(.dropped_cpu // 0) | add),
					 (map(.dropped_cgroup_values // 0) | add), (map(.missed // 0) | add),
					 ([.[].cgroups[]? | select(.cgroup == 0) | .switches] | add)]" k.ndjson)
			tail -n 1 k.ndjson; cat k.err
			return 1; }
	done &&
	test_line_count 1 reca && test_line_count 1 recb &&
	first=$(grep -n "\"cgroup\":$A," k.ndjson | grep kernel_snapshot | head -n 1 | cut -d: -f1) &&
	test "$(cut -d: -f1 reca)" -lt "$first" &&
	# each has switches of its own in the kernel'"'"'s figures (a cgroup
	# folded onto another once went unnoticed by the comparison below)
	for id in $A $B; do
		jq -s -e "[.[] | select(.type == \"kernel_snapshot\") | .cgroups[]? |
			select(.cgroup == $id) | .switches] | add > 0" k.ndjson >/dev/null ||
			{ echo "cgroup $id has no switches in the kernel snapshots"; return 1; }
	done
'

if test_have_prereq BPF && test -s "$TRASH/ev.ndjson" && ! grep -q "\"lost_total\":0" "$TRASH/ev.ndjson"; then
	test_skip 'live: per-cgroup kernel counts equal the events'"'"' outside the boundary band' \
		'the event capture lost events under load'
else
test_expect_success BPF,JQ 'live: per-cgroup kernel counts equal the events'"'"' outside the boundary band' '
	read -r A <ida && read -r B <idb &&
	jq -r --argjson a $A --argjson b $B "select(.type == \"kernel_snapshot\") |
		.seq as \$s | .start_ns as \$t0 | .end_ns as \$t1 |
		(.cgroups | map({(.cgroup | tostring): .}) | add // {}) as \$cg |
		(\$a, \$b) as \$id | (\$cg[\$id | tostring] // {}) as \$c |
		[\$s, \$t0, \$t1, \$id, \$c.switches // 0, \$c.voluntary // 0,
		 \$c.involuntary // 0, \$c.slices // 0, \$c.wakeups // 0] | @tsv" k.ndjson >win &&
	t0=$(jq -r "select(.type == \"header\") | .start_ns" ev.ndjson) &&
	t1=$(jq -r "select(.type == \"trailer\") | .end_ns" ev.ndjson) &&
	awk -F"\t" -v t0="$t0" -v t1="$t1" "\$2 > t0 + 1000000 && \$3 < t1 - 1000000" win >inner &&
	test -s inner &&
	# 1 ms either side of a boundary, and how long the collector took to set
	# each boundary (t/1104)
	skew=$(jq -s "[.[] | select(.type == \"kernel_snapshot\") | .end_skew_ns] | max" k.ndjson) &&
	echo "largest boundary skew $skew ns" &&
	awk -v band=$((1000000 + skew)) "
	function num(key,   v) {
		if (!match(\$0, \"\\\"\" key \"\\\":[0-9]+\")) return 0
		v = substr(\$0, RSTART, RLENGTH); sub(/.*:/, \"\", v); return v + 0
	}
	function count(id, col) { if (id) { cg[k] = id; c[k++] = col } }
	BEGIN { j0 = 1 }
	FNR == NR { n++; for (i = 1; i <= 9; i++) w[n, i] = \$i; next }
	{
		ts = num(\"ts\")
		k = 0
		if (index(\$0, \"\\\"sched_switch\\\"\")) {
			st = num(\"prev_state\")
			invol = (st >= 256 || st % 256 == 0)
			if (num(\"prev_pid\")) { count(num(\"prev_cgroup\"), 5); count(num(\"prev_cgroup\"), invol ? 7 : 6) }
			if (num(\"next_pid\")) count(num(\"next_cgroup\"), 8)
		} else if (index(\$0, \"\\\"sched_waking\\\"\")) {
			count(num(\"cgroup\"), 9)
		} else next
		# the windows are in time order, and so are the events but for a
		# late one now and then: skip the windows that ended a second ago
		while (j0 < n && w[j0, 3] + band + 1000000000 < ts) j0++
		for (j = j0; j <= n && w[j, 2] - band <= ts; j++)
			for (m = 0; m < k; m++) {
				if (w[j, 4] != cg[m]) continue
				if (ts >= w[j, 2] - band && ts < w[j, 3] + band) hi[j, c[m]]++
				if (ts >= w[j, 2] + band && ts < w[j, 3] - band) lo[j, c[m]]++
			}
	}
	END {
		split(\"- - - - switches voluntary involuntary slices wakeups\", name)
		for (j = 1; j <= n; j++) for (i = 5; i <= 9; i++) {
			v = w[j, i] + 0
			printf \"snapshot %s cgroup %s %s: kernel %d, events %d..%d\n\", w[j, 1], w[j, 4], name[i], v, lo[j, i], hi[j, i]
			if (v > hi[j, i] + 0 || (i < 9 && v < lo[j, i] + 0))
				mm = mm sprintf(\"MISMATCH snapshot %s cgroup %s %s: kernel %d, events %d..%d\n\", w[j, 1], w[j, 4], name[i], v, lo[j, i], hi[j, i])
			total[i] += v
		}
		printf \"%s\", mm
		exit (mm != \"\" || total[5] < 20 ? 1 : 0)
	}" inner ev.ndjson >cmp || { cat cmp; false; } &&
	grep -c switches cmp
'
fi

# Every cgroup value passes a CPU's cache (bpf/aggregate.h) and is read
# back after the flip: what a drain or flush lost would show here.  Each
# switch-in of a task that waited adds one run-queue delay, so the count is
# at most the slices and, for these workloads whose tasks all wait before
# they run, nearly all of them (9 in 10; a task first seen running is the
# exception); and each histogram's sum lies between count
# times its min and count times its max.
test_expect_success BPF,JQ 'live: each cgroup'"'"'s histograms count its switch-ins' '
	read -r A <ida && read -r B <idb &&
	for id in $A $B; do
		jq -s -e --argjson id $id "[.[] | select(.type == \"kernel_snapshot\") |
			.cgroups[]? | select(.cgroup == \$id)] as \$c |
			(\$c | map(.slices) | add) as \$s |
			(\$c | map(.rq_delay.count) | add) as \$r |
			(\$c | map(.wake_lat.count) | add) as \$w |
			([\$c[] | (.rq_delay, .wake_lat) | select(.count > 0) |
			  select(.min > .max or .sum < .count * .min or .sum > .count * .max)] |
			 length) as \$bad |
			{slices: \$s, rq_delay: \$r, wake_lat: \$w, bad: \$bad} | debug |
			\$w <= \$r and \$r <= \$s and \$r * 10 >= \$s * 9 and \$bad == 0" \
			k.ndjson >/dev/null ||
			{ echo "cgroup $id: histogram counts do not fit its slices"; return 1; }
	done
'

test_expect_success BPF,JQ 'live: scx-agg --by cgroup sums the kernel'"'"'s cgroup figures' '
	read -r A <ida && read -r B <idb &&
	for id in $A $B; do
		jq -s "[.[] | select(.type == \"kernel_snapshot\") | .cgroups[] |
			select(.cgroup == $id) | [.switches, .involuntary, .rq_delay.count]] |
			transpose | map(add)" k.ndjson || return 1
	done | jq -s -c . >want &&
	scx-agg --once -g cgroup -f ndjson k.ndjson >once &&
	jq -c "[.groups.cgroup[] | select(.cgroup == \"$REL/a\" or .cgroup == \"$REL/b\")] |
		sort_by(.cgroup) | map([.switches, .involuntary, .rq_delay.count])" once >got &&
	test_cmp want got &&
	scx-agg --once -g cgroup --cgroup-depth 1 -f ndjson k.ndjson >d1 &&
	jq -e -s "(.[0].groups.cgroup | map(select(.cgroup == \"$REL/a\" or .cgroup == \"$REL/b\") |
		.switches) | add) == (.[1].groups.cgroup[] | select(.cgroup == \"$REL\") | .switches)" \
		once d1
'

test_expect_success BPF,JQ 'live: the cgroup-latency report runs on the aggregate stream' '
	scx-agg --once -r cgroup-latency -f ndjson k.ndjson >rep &&
	jq -e "select(.report == \"cgroup-latency\") | .tables.cgroups.rows | map(select(.cgroup == \"$REL/a\")) |
		length == 1" rep ||
	{ cat rep; false; }
'

test_done
