#!/bin/sh
# scx-events' "missed" records and the trailer's "missed" (scx(7): program
# runs the kernel skipped, whose events never reached the stream) are lost
# events to scx-agg, scx-top and scx-mcp, on no known CPU: counted once
# whether the records, the trailer or both carry them, never as unknown
# records.  t/data/agg-basic.ndjson
# has 7 lost events (5 on cpu 0, 2 on cpu 3) and one unknown record.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

in=$TDATA/agg-basic.ndjson
MISSED='{"type":"missed","start_ns":1000,"end_ns":2000,"count":7}'

# with_trailer EXTRA: the stream with EXTRA appended inside its trailer object
with_trailer() { tail -n 1 "$in" | sed "s/}\$/$1}/"; }

test_expect_success 'setup: the stream with missed records, a trailer total, both' '
	{ head -n -1 "$in" && echo "$MISSED" && tail -n 1 "$in"; } >rec.ndjson &&
	{ head -n -1 "$in" && with_trailer ",\"missed\":9"; } >trailer.ndjson &&
	{ head -n -1 "$in" && echo "$MISSED" && with_trailer ",\"missed\":9"; } >both.ndjson &&
	{ head -n -1 "$in" && echo "{\"type\":\"missed\",\"start_ns\":1,\"end_ns\":2}" &&
		tail -n 1 "$in"; } >bad.ndjson
'

test_expect_success 'without missed runs: 7 lost, 1 unknown' '
	scx-agg -n 0 "$in" >out &&
	grep -q "\"lost\":7,\"unknown\":1," out
'

test_expect_success 'a missed record adds its count to the lost events, not to unknown' '
	scx-agg -n 0 rec.ndjson >out &&
	grep -q "\"lost\":14,\"unknown\":1," out
'

test_expect_success 'the trailer alone carries them: its total counts' '
	scx-agg -n 0 trailer.ndjson >out &&
	grep -q "\"lost\":16,\"unknown\":1," out
'

test_expect_success 'records and trailer: the trailer adds only what no record carried' '
	scx-agg -n 0 both.ndjson >out &&
	grep -q "\"lost\":16,\"unknown\":1," out
'

test_expect_success 'they reach Prometheus lost events and the text header' '
	scx-agg -f text rec.ndjson >txt &&
	grep -q "lost 14  unknown 1" txt &&
	scx-agg -f prometheus rec.ndjson >prom &&
	grep -q "^scx_lost_events_total 14" prom
'

test_expect_success 'a missed record without its count is an error that says where' '
	test_exit_code 1 scx-agg -n 0 bad.ndjson >out 2>err &&
	grep -q "bad.ndjson: before byte [0-9]*: .*missed: missing or bad \"count\"" err
'

test_expect_success 'scx-top counts them in its LOST header' '
	for f in "$in" rec.ndjson trailer.ndjson both.ndjson; do
		scx-top -b -n 1 <"$f" | grep -o "LOST [0-9]* events" || exit 1
	done >got &&
	printf "LOST %s events\n" 7 14 16 16 >want &&
	test_cmp want got
'

test_expect_success 'scx-mcp counts them in lost_events, not in skipped_records' '
	cp "$in" base.ndjson &&
	for f in base rec trailer both; do
		{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"$f.ndjson\"}"
		  call 2 get_trace_summary "{\"trace_id\":\"$f\"}"; } | mcp >out &&
		text 2 <out | jq -c "[.lost_events, .skipped_records]" || exit 1
	done >got &&
	printf "[%s,1]\n" 7 14 16 16 >want &&
	test_cmp want got
'

test_expect_success 'scx-mcp: a missed record without its count is a warning that says what' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"bad.ndjson\"}"; } | mcp >out &&
	grep -q "\"level\":\"warning\".*missed: missing or bad .*count" out &&
	text 1 <out | jq -e ".warning" >/dev/null
'

test_done
