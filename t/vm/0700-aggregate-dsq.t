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
# [start - band, end + band), band = 1 ms plus the snapshot's boundary skew.
# Both sides rest on kprobes, which the kernel skips while another BPF
# program runs on the CPU (a collector's own map reads hold that off for
# as long as they take), and both report the runs skipped: the snapshot's
# "missed", the event mode's "missed" records (scx(7)).  A skipped run can
# take a wait from a count, or move it to a later one, so both bounds widen
# by the runs the snapshot says it missed plus those the event mode's
# records date within the row's wider window.  One thing more: a vCPU
# the host deschedules between the two programs at one hook (TCG, four
# vCPU threads on a loaded host) can hold the aggregate's program past the
# collector's flip for far longer than the band, so a wait the event mode
# dates well inside one snapshot is the kernel's in the next (in a
# check-scx run of 2026-11-29, beside two make check loops: kernel 21 against
# events 22..22, the next snapshot at its upper bound).  A row outside its
# bounds then passes only when it and a neighbour of the same key, taken as
# one window, are inside theirs (a MOVED line): the count is kept across
# the boundary.  Nothing else is allowed.
#
# The values: both measure from the last insert or successful move to the
# switch-in, each with its own clock reads at the same hooks, so where a
# row's count is exact on both sides and nothing was missed, the sums
# differ by no more than the time between the two programs at each hook:
# 1 ms per wait at most, with TCG's slow emulation (a few tens of
# microseconds are usual).  Their exact merge with lib/hist is
# t/unit/1005-kagg's check, on the code the programs run.
#
# The snapshots also keep the waits per DSQ (the "dsqs" array): every wait
# is in its CPU's histogram and its DSQ's, so per snapshot the two add up to
# the same count and sum, and the same comparison with the event mode holds
# per DSQ, the event mode's waits grouped by dsq_id.  scx_simple has one DSQ
# (its shared DSQ 0, or the global one with -f, plus the local DSQs of
# direct inserts); scx_qmap inserts into its shared DSQ and into local DSQs,
# a second run with several.  jq (1.6) reads ids as doubles, so ids within
# 2^11 of each other past 2^53 (SCX_DSQ_LOCAL_ON | cpu) count as one: the
# event mode's waits fall together under that key, and so the snapshot's
# rows with that key are added up before they are compared (each compared
# alone against the merged events failed in the first run under scx_qmap:
# kernel 5, 3, 2 and 5 against events 15).
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

test_expect_success 'the snapshots have DSQ queueing times, and drops are rare' '
	jq -s -e "[.[] | select(.type == \"kernel_snapshot\") | .cpus[] | .dsq_lat.count // 0] |
		add > 100" k.ndjson &&
	# (task storage can fail when a program nests in another, in an
	# interrupt on the CPU: rare, counted, and not what this is about)
	jq -s -e "[.[] | select(.type == \"kernel_snapshot\")] |
		([.[].dropped_tasks] | add) * 100 <= ([.[].cpus[].dsq_lat.count // 0] | add)" k.ndjson &&
	jq -s -e "[.[] | select(.type == \"kernel_snapshot\") | .cpus[] | select(.dsq_lat) |
		.dsq_lat | .min <= .max and .sum >= .min * .count] | all" k.ndjson
'

# compare K EV [dsq]: one line per interior snapshot and CPU (with dsq: and
# DSQ the snapshot has) into cmp (sums with %.0f: the guest's awk prints %d
# no higher than 2^31 - 1), with MISMATCH lines for a count outside its
# widened bounds and SUMS lines for sums further apart than the clocks
# explain; fails when the kernel counted fewer than 50 waits in all.
compare() {
	by=${3:-cpu}
	if test "$by" = dsq; then
		rows="(.dropped_dsq_values // 0) as \$d | .dsqs // [] |
			group_by(.dsq | tostring) | .[] |
			[\$s, \$a, \$b, (.[0].dsq | tostring), (map(.dsq_lat.count // 0) | add),
			 (map(.dsq_lat.sum // 0) | add), \$k, \$m + \$d]"
		key="(.dsq_id | tostring)"
	else
		rows=".cpus[] | [\$s, \$a, \$b, .cpu, .dsq_lat.count // 0, .dsq_lat.sum // 0, \$k, \$m]"
		key=".cpu"
	fi
	rm -f cmp &&
	jq -r "select(.type == \"kernel_snapshot\") | .seq as \$s | .start_ns as \$a |
		.end_ns as \$b | .end_skew_ns as \$k | (.missed + .dropped_tasks) as \$m |
		$rows | @tsv" "$1" >win &&
	last=$(awk -F"\t" "{ print \$1 }" win | sort -n | tail -n 1) &&
	t0=$(jq -r "select(.type == \"header\") | .start_ns" "$2") &&
	t1=$(jq -r "select(.type == \"trailer\") | .end_ns" "$2") &&
	awk -F"\t" -v last="$last" -v t0="$t0" -v t1="$t1" \
		"\$1 > 0 && \$1 < last && \$2 > t0 + 1000000 && \$3 < t1 - 1000000" win >inner &&
	test -s inner &&
	jq -r "select(.type == \"missed\") | [.start_ns, .end_ns, .count] | @tsv" "$2" >evmissed &&
	jq -r "select(.type == \"sched_switch\" and .dsq_lat_ns != null) |
		[.ts, $key, .dsq_lat_ns] | @tsv" "$2" >waits &&
	awk -F"\t" -v by="$by" "
	# nx[j]: the row of the next snapshot with the same key, if it is inner
	function link(  j, i) {
		for (j = 1; j <= n; j++)
			for (i = 1; i <= n; i++)
				if (w[i, 4] == w[j, 4] && w[i, 1] == w[j, 1] + 1) nx[j] = i
		linked = 1
	}
	function band2(j) { return 1000000 + (w[j, 7] > w[nx[j], 7] ? w[j, 7] : w[nx[j], 7]) }
	# the event mode's missed runs dated within [a, b)
	function evm(a, b,  i, e) {
		e = 0
		for (i = 1; i <= nm; i++) if (ms[i] < b && me[i] > a) e += mc[i]
		return e
	}
	# row j and the next as one window: the kernel's two counts within its bounds
	function pair_ok(j,  b, v, wide) {
		if (!nx[j]) return 0
		b = band2(j)
		v = w[j, 5] + w[nx[j], 5]
		wide = w[j, 8] + w[nx[j], 8] + evm(w[j, 2] - b, w[nx[j], 3] + b)
		return v <= phi[j] + wide && v >= plo[j] - wide
	}
	FILENAME == \"inner\" { n++; for (i = 1; i <= 8; i++) w[n, i] = \$i; next }
	!linked { link() }
	FILENAME == \"evmissed\" { nm++; ms[nm] = \$1; me[nm] = \$2; mc[nm] = \$3; next }
	{
		for (j = 1; j <= n; j++) {
			if (w[j, 4] != \$2) continue
			band = 1000000 + w[j, 7]
			if (\$1 >= w[j, 2] - band && \$1 < w[j, 3] + band) { hi[j]++; hs[j] += \$3 }
			if (\$1 >= w[j, 2] + band && \$1 < w[j, 3] - band) lo[j]++
			if (!nx[j]) continue
			band = band2(j)
			if (\$1 >= w[j, 2] - band && \$1 < w[nx[j], 3] + band) phi[j]++
			if (\$1 >= w[j, 2] + band && \$1 < w[nx[j], 3] - band) plo[j]++
		}
	}
	END {
		if (!linked) link()
		for (j = 1; j <= n; j++) if (nx[j]) pv[nx[j]] = j
		for (j = 1; j <= n; j++) {
			band = 1000000 + w[j, 7]
			em = evm(w[j, 2] - band, w[j, 3] + band)
			v = w[j, 5] + 0; km = w[j, 8] + 0; wide = km + em
			printf \"snapshot %s %s %s dsq_lat count: kernel %d, events %d..%d, missed kernel %d events %d; sum kernel %.0f, events %.0f\n\", w[j, 1], by, w[j, 4], v, lo[j], hi[j], km, em, w[j, 6], hs[j] >\"cmp\"
			k += v
			if (v > hi[j] + wide || v < lo[j] - wide) {
				if (pair_ok(j) || (pv[j] && pair_ok(pv[j])))
					printf(\"MOVED snapshot %s %s %s: kernel %d, events %d..%d; with snapshot %s its neighbour it is inside\n\", w[j, 1], by, w[j, 4], v, lo[j], hi[j], pair_ok(j) ? w[nx[j], 1] : w[pv[j], 1]) >\"cmp\"
				else
					printf(\"MISMATCH snapshot %s %s %s: kernel %d, events %d..%d, missed kernel %d events %d\n\", w[j, 1], by, w[j, 4], v, lo[j], hi[j], km, em) >\"cmp\"
			}
			d = w[j, 6] - hs[j]
			if (v && v == lo[j] && v == hi[j] && !wide && (d > v * 1000000 || -d > v * 1000000))
				printf(\"SUMS snapshot %s %s %s: %d waits, kernel %.0f ns, events %.0f ns\n\", w[j, 1], by, w[j, 4], v, w[j, 6], hs[j]) >\"cmp\"
		}
		exit (k < 50)
	}" inner evmissed waits
}

test_expect_success 'the event mode reports the runs it missed, in records and in its trailer' '
	jq -s -e "([.[] | select(.type == \"missed\") | .count] | add // 0) ==
		([.[] | select(.type == \"trailer\") | .missed // 0] | add)" ev.ndjson &&
	jq -s -e "[.[] | select(.type == \"missed\") | .count > 0 and .start_ns < .end_ns] |
		all" ev.ndjson
'

# past_bounds CMP: the least count that, added to every row of CMP (the
# lines compare wrote), takes each past its widened upper bound: one past
# the loosest.  The tests that the comparison fails shift by it: with a
# shift of 1, rows that misses widen let it pass (in one run under
# single-threaded TCG, every per-DSQ row had some).
past_bounds() {
	awk '/dsq_lat count:/ {
		split($10, r, /\.\./); s = r[2] + $13 + $15 - $8; if (s > m) m = s
	} END { print m + 1 }' "$1"
}

test_expect_success 'per CPU, the kernel counts the event mode'"'"'s DSQ waits' '
	compare k.ndjson ev.ndjson &&
	keep cmp &&
	grep -c "dsq_lat count" cmp &&
	grep -c "missed kernel 0 events 0" cmp &&
	! grep MISMATCH cmp
'

# A known breakage, not a pass: the sums differ by more than 1 ms per wait
# in a few rows a run (8 of the 113 rows whose counts agree exactly with
# nothing missed, in three check-scx runs of 2026-11-24), always in the
# direction the attach order gives.  A kprobe runs its newest handler first
# and a tracepoint its oldest, so with the event mode attached first the
# aggregate reads the clock first at the insert and last at the switch-in:
# the kernel's waits are longer by the time between the two programs, a
# median 60 us here, and by tens of milliseconds when the host deschedules
# the vCPU between them (TCG on a loaded host).  With the order reversed
# (one run, same day) every such row had the kernel below the event mode
# instead.  So the 1 ms bound is the emulator's, not the definition's; a
# bound that holds needs the two programs' gap measured, which they do not
# record.  The same stall can also carry one wait over an interval boundary
# past the band (test 4, on an overloaded host).
test_expect_failure 'where the counts agree and nothing was missed, so do the sums' '
	test -s cmp &&
	! grep SUMS cmp
'

test_expect_success 'the comparison fails on kernel counts one past their bounds' '
	off=$(past_bounds cmp) && n=$(grep -c "dsq_lat count" cmp) &&
	echo "every count + $off" &&
	jq -c --argjson off $off "if .type == \"kernel_snapshot\" then
		.cpus |= map(.dsq_lat.count += \$off) else . end" k.ndjson >k-off.ndjson &&
	compare k-off.ndjson ev.ndjson &&
	test "$(grep -c MISMATCH cmp)" = "$n"
'

test_expect_success 'scx-agg and prometheus: per-CPU DSQ queueing time from the snapshots' '
	want=$(jq -s "[.[] | select(.type == \"kernel_snapshot\") | .cpus[] | .dsq_lat.count // 0] | add" k.ndjson) &&
	scx-agg --once -f ndjson k.ndjson >agg &&
	jq -e ".total.dsq_lat.count == $want and .total.dsq_dispatches == $want" agg &&
	scx-agg --once -f prometheus k.ndjson >prom &&
	test "$(awk "/^scx_cpu_dsq_queue_seconds_count/ { s += \$2 } END { print s }" prom)" = "$want" &&
	{ ! command -v promtool >/dev/null || promtool check metrics <prom; }
'

# dsqs_add_up K: per snapshot, the DSQs' waits are the CPUs' (count and sum),
# none left out for a full bucket table
dsqs_add_up() {
	jq -s -e "[.[] | select(.type == \"kernel_snapshot\") |
		([.cpus[].dsq_lat.count // 0] | add) == ([(.dsqs // [])[].dsq_lat.count] | add // 0) and
		([.cpus[].dsq_lat.sum // 0] | add) == ([(.dsqs // [])[].dsq_lat.sum] | add // 0) and
		(.dropped_dsq_values // 0) == 0] | all" "$1"
}

test_expect_success 'scx_simple: per snapshot, the DSQs'"'"' waits are the CPUs'"'"'' '
	dsqs_add_up k.ndjson &&
	jq -s -e "[.[] | select(.type == \"kernel_snapshot\") | .dsqs // [] | .[].dsq] |
		(map(select(. == 0)) | length > 0) and (map(select(. == \"other\")) | length == 0)" \
		k.ndjson
'

test_expect_success 'scx_simple: per DSQ, the kernel counts the event mode'"'"'s DSQ waits' '
	compare k.ndjson ev.ndjson dsq &&
	cp cmp cmp-dsq && keep cmp-dsq &&
	grep -c "dsq_lat count" cmp &&
	! grep MISMATCH cmp
'

test_expect_success 'scx_simple: the per-DSQ comparison fails on DSQ counts one past their bounds' '
	off=$(past_bounds cmp-dsq) && n=$(grep -c "dsq_lat count" cmp-dsq) &&
	echo "every count + $off" &&
	jq -c --argjson off $off "if .type == \"kernel_snapshot\" and .dsqs then
		.dsqs |= map(.dsq_lat.count += \$off) else . end" k.ndjson >k-off.ndjson &&
	compare k-off.ndjson ev.ndjson dsq &&
	test "$(grep -c MISMATCH cmp)" = "$n"
'

test_expect_success 'scx_simple: scx-agg --by dsq and prometheus dsq series from the snapshots' '
	want=$(jq -s "[.[] | select(.type == \"kernel_snapshot\") | .dsqs // [] | .[] |
		select(.dsq == 0) | .dsq_lat.count] | add" k.ndjson) &&
	scx-agg --once -g dsq -f ndjson k.ndjson >agg &&
	grep -q "{\"dsq\":0,\"dsq_dispatches\":$want," agg &&
	scx-agg -g cpu,dsq -f prometheus k.ndjson >prom &&
	awk "/^# EOF/ { n++ } END { print n }" prom >n &&
	awk -v n="$(cat n)" "/^# EOF/ { i++; next } i == n - 1" prom >last &&
	grep -q "^scx_dsq_queue_seconds_count{dsq=\"0\"} $want\$" last &&
	{ ! command -v promtool >/dev/null || promtool check metrics <last; }
'

test_expect_success 'scx_qmap: both captures, several DSQs' '
	start_capture evq.ndjson -e switch,scx
	ev=$cap_pid
	scx-events --aggregate -I 500ms -o kq.ndjson 2>kq.err &
	k=$!
	kill -0 $ev &&
	wait_header kq.ndjson $k &&
	start_sched scx_qmap &&
	load 4 &&
	stop_sched &&
	kill -INT $k && wait $k &&
	sleep 0.5 && kill -INT $ev && wait $ev &&
	keep evq.ndjson kq.ndjson kq.err &&
	tail -n 1 evq.ndjson | grep -q "\"lost_total\":0" &&
	jq -s -e "[.[] | select(.type == \"kernel_snapshot\") | .dsqs // [] | .[].dsq] | unique |
		length >= 2" kq.ndjson
'

test_expect_success 'scx_qmap: per snapshot, the DSQs'"'"' waits are the CPUs'"'"'' '
	dsqs_add_up kq.ndjson
'

test_expect_success 'scx_qmap: per DSQ, the kernel counts the event mode'"'"'s DSQ waits' '
	compare kq.ndjson evq.ndjson dsq &&
	cp cmp cmpq-dsq && keep cmpq-dsq &&
	! grep MISMATCH cmp
'

test_done
