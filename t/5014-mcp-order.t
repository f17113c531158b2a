#!/bin/sh
# scx-mcp's analyses and scx-agg's reports take a stream's events in one
# order, the one its header asks for (scx_order_plan(), "order" in scx(7)), so
# the same stream gives both the same figures.
# t/data/top-small-ooo.ndjson is in time order per CPU only (late events);
# t/data/mcp-order-ties.ndjson ("order":"cpu") has two events of one time on
# two CPUs in the file's order cpu 1 then cpu 0: sorted, the switch-out on
# cpu 0 comes first and its slice is DSQ 7's, not SCX_DSQ_GLOBAL's.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"
LANG=C
export LANG

# with_order ORDER PRODUCER <in >out: the stream with that header ("none": no "order")
with_order() {
	sed -e "1s/\"producer\":\"hand\"/\"producer\":\"$2\"/" \
		-e '1s/,"order":"[a-z]*"//' -e "1s/}\$/,\"order\":\"$1\"}/" \
		-e '1s/,"order":"none"}$/}/'
}

REPORTS="dsq wakeup-latency latency-breakdown task-states cpu-utilization migrations"

# same_figures FILE: every report's tables from scx-agg and from scx-mcp, equal
same_figures() {
	{
		init_line
		call 1 load_perfetto_trace "{\"file_path\":\"$1\",\"trace_id\":\"t\"}"
		id=2
		for r in $REPORTS; do
			call $id analyze_trace_scheduling \
				"{\"trace_id\":\"t\",\"analysis_type\":\"$r\",\"limit\":1000}"
			id=$((id + 1))
		done
	} | mcp --root "$PWD" >"$1.mcp" &&
	test "$(iserr 1 <"$1.mcp")" = false &&
	id=2 &&
	for r in $REPORTS; do
		scx-agg -f ndjson -n 1000 -r "$r" "$1" 2>/dev/null |
			jq -cS "select(.report == \"$r\") | .tables" >"$1.$r.agg" &&
		text $id <"$1.mcp" | jq -cS .report.tables >"$1.$r.mcp" &&
		test -s "$1.$r.agg" &&
		test_cmp "$1.$r.agg" "$1.$r.mcp" || return 1
		id=$((id + 1))
	done
}

test_expect_success 'a "time" stream with late events: the figures of scx-agg' '
	with_order time scx-events <"$TDATA/top-small-ooo.ndjson" >time.ndjson &&
	same_figures time.ndjson
'

test_expect_success 'a "cpu" stream, sorted from its start: the figures of scx-agg' '
	with_order cpu hand <"$TDATA/top-small-ooo.ndjson" >cpu.ndjson &&
	same_figures cpu.ndjson
'

test_expect_success 'older streams without "order", from scx-events and from others' '
	with_order none scx-events <"$TDATA/top-small-ooo.ndjson" >old-events.ndjson &&
	same_figures old-events.ndjson &&
	with_order none hand <"$TDATA/top-small-ooo.ndjson" >old-hand.ndjson &&
	same_figures old-hand.ndjson
'

test_expect_success 'events of one time on two CPUs: the lower CPU first, as scx-agg' '
	cp "$TDATA/mcp-order-ties.ndjson" ties.ndjson &&
	same_figures ties.ndjson &&
	text 2 <ties.ndjson.mcp |
		jq -c "[.report.tables.dsqs.rows[] | [.dsq, .slice_used.count]]" >got &&
	echo "[[7,1],[9223372036854776000,1]]" >want &&
	test_cmp want got
'

test_expect_success 'a late event in a "time" stream: ties sorted from there on' '
	# a cpu_frequency record 200 us late, before the tie
	sed -e "3a\\
{\"ts\":900000,\"cpu\":1,\"type\":\"cpu_frequency\",\"cpu_id\":1,\"khz\":2000000}" \
		"$TDATA/mcp-order-ties.ndjson" | with_order time scx-events >late.ndjson &&
	same_figures late.ndjson &&
	text 2 <late.ndjson.mcp |
		jq -c "[.report.tables.dsqs.rows[] | [.dsq, .slice_used.count]]" >got &&
	test_cmp want got
'

test_expect_success 'the broken promise is said as scx-agg says it' '
	scx-agg -f ndjson time.ndjson 2>agg.err >/dev/null &&
	sed -e "s/^scx-agg: //" agg.err >want &&
	jq -r "select(.method == \"notifications/message\" and .params.level == \"warning\") |
		.params.data" time.ndjson.mcp >got &&
	test_cmp want got
'

test_done
