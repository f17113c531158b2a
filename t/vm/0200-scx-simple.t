#!/bin/sh
# In the VM, scx_simple (vtime mode) under load while scx-events captures:
# its load and unload are in the stream, and the switches carry DSQ data that
# fit scx_simple: tasks come from its shared DSQ 0 (vtime ordered, so a
# vtime) or straight from SCX_DSQ_LOCAL when select_cpu found an idle CPU,
# with its 20 ms slice; the time queued in a DSQ is bounded by the task's
# waking-to-switch time.  Then the rest of the suite on that capture.
. "$(dirname "$0")/../lib.sh"
. "$SCX_SRC/t/lib-capture.sh"
. "$SCX_SRC/t/vm/lib-vm.sh"

test_expect_success 'capture scx_simple being loaded, run and unloaded' '
	start_capture ev.ndjson &&
	start_sched scx_simple &&
	load 3 &&
	stop_sched &&
	stop_capture &&
	keep ev.ndjson scx_simple.out capture.err &&
	tail -n 1 ev.ndjson | grep -q "\"lost_total\":0"
'

test_expect_success 'load and unload: the scheduler by name, in order, the exit kind and reason' '
	grep -n "\"type\":\"scx_enable\"" ev.ndjson >en &&
	grep -n "\"type\":\"scx_disable\"" ev.ndjson >dis &&
	test_line_count 1 en && test_line_count 1 dis &&
	grep -q "\"name\":\"simple\"" en && grep -q "\"name\":\"simple\"" dis &&
	grep -q "\"exit_kind\":64,\"exit_code\":0,\"reason\":\"unregistered from user space\"" dis &&
	test "$(cut -d: -f1 en)" -lt "$(cut -d: -f1 dis)"
'

test_expect_success 'switches carry DSQ data, from scx_simple DSQs only' '
	sw_scx ev.ndjson >sw &&
	test $(wc -l <sw) -ge 100 &&
	u64 dsq_id <sw | sort | uniq -c | sort -rn >ids &&
	cat ids &&
	awk "{ print \$2 }" ids | sort >used &&
	printf "%s\n" 0 $SCX_DSQ_LOCAL | sort >allowed &&
	comm -23 used allowed >other &&
	test_line_count 0 other &&
	grep -q " 0$" ids && grep -q " $SCX_DSQ_LOCAL$" ids
'

test_expect_success 'values fit scx_simple: vtime advancing on DSQ 0, 20 ms slices, sane depths' '
	# switches from a CPU going idle carry no sched_ext fields: only the
	# records that have them are judged
	grep "\"dsq_id\":0," sw >shared &&
	grep "\"slice_ns\":" sw >scx &&
	test $(wc -l <scx) -gt 100 &&
	jq_true -s shared "map(.dsq_vtime) | max > 0" \
		"group_by(.next_pid) | map(map(.dsq_vtime) | unique | length) | max > 1" \
		"map(select(.dsq_depth > 0)) | length > 0" &&
	jq_true -s scx "map(.slice_ns) | (max <= 20000000 and min > 0)" \
		"map(.dsq_lat_ns) | (min >= 0 and max < 30000000000 and add > 0)" \
		"map(.dsq_depth) | (max < 1000)" &&
	jq -s -e "map(.prev_slice_used_ns) | max <= 20000000" sw
'

# sched_waking is traced before select_cpu and enqueue insert the task, so a
# task that blocked (switched out in a sleeping state, hence off every DSQ)
# and was woken cannot have waited in a DSQ longer than from its waking to
# its switch in.  (A task preempted with a sleeping state set is woken while
# still queued: it is left out.)
test_expect_success 'DSQ time is bounded by the waking-to-switch time' '
	check_dsq_bound ev.ndjson
'

# The same capture through the rest of the suite: every tool must see the
# DSQs the stream has, with numbers that add up to the stream's.
test_expect_success 'scx-agg --by dsq -r dsq: the DSQs and dispatch counts of the stream' '
	scx-agg --by dsq -r dsq <ev.ndjson >agg.ndjson &&
	keep agg.ndjson &&
	jq -c "select(.report == \"dsq\") | .tables.dsqs.rows[]" agg.ndjson >rows &&
	cat rows &&
	test $(wc -l <rows) -ge 2 &&
	jq_true -s rows "map(.dispatches) | add == $(wc -l <sw)" \
		"all(.[]; .dispatches > 0 and .dsq_lat.count == .dispatches and .dsq_lat.max > 0)" \
		"map(select(.dsq == 0)) | .[0].vtime_delta > 0" &&
	scx-agg --by dsq -r dsq -H <ev.ndjson >agg.txt &&
	grep -q "^dsq: dsqs" agg.txt
'

test_expect_success 'scx-top -b --view=dsq: one row per DSQ with dispatches' '
	scx-top -b --no-config --mode num --view=dsq <ev.ndjson >top.txt &&
	keep top.txt &&
	# frames before scx_simple loads say "no DSQ data"; a later one has rows
	grep -q "DISP/s" top.txt &&
	awk "/DISP\/s/ { on = 1; next } on && NF >= 8 && \$2 + 0 > 0 { n++ } /^scx-top/ { on = 0 }
	     END { exit !(n >= 2) }" top.txt
'

test_expect_success 'scx-perfetto: sched_ext tracks written, DSQ data read back unchanged' '
	scx-perfetto -o ev.pb <ev.ndjson &&
	grep -a -q "DSQ latency cpu" ev.pb &&
	grep -a -q "DSQ depth cpu" ev.pb &&
	scx-perfetto -i ev.pb >back.ndjson &&
	for f in ev.ndjson back.ndjson; do
		# Perfetto carries neither layer ids nor cgroup ids (scx-perfetto(1))
		sw_scx $f | sed -e "s/,\"layer_id\":-*[0-9]*//" \
			-e "s/,\"\(prev_\|next_\|\)cgroup\":[0-9]*//g" |
		sed -n "s/.*\"ts\":\([0-9]*\),.*\(\"dsq_id\".*\)}$/\1 \2/p" | sort >$f.dsq || exit 1
	done &&
	test $(wc -l <ev.ndjson.dsq) = $(wc -l <sw) &&
	test_cmp ev.ndjson.dsq back.ndjson.dsq
'

test_expect_success 'scx-mcp analyze_dsq on the capture: the same DSQs and counts' '
	. "$SCX_SRC/t/data/mcp-lib.sh" &&
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"ev.ndjson\"}"
	  call 2 analyze_dsq "{\"trace_id\":\"ev\"}"; } | timeout 120 scx-mcp --root "$PWD" >mcp.out &&
	text 2 <mcp.out >dsq.json &&
	keep dsq.json &&
	jq -c ".report.tables.dsqs.rows[]" dsq.json >mrows &&
	test_cmp rows mrows
'

test_done
