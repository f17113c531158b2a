#!/bin/sh
# The trace tools whose results are written from their outputSchema tables
# (load_perfetto_trace, list_traces, get_trace_summary and the trace://
# resource, unload_trace): their results, byte for byte, are the ones the
# hand-written writers gave (t/data/mcp-trace-records.golden was made by
# them), load_ms (a time) aside.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

cp "$TDATA/mcp-handmade.pb" h.pb
# an scx-events stream with a hostname, cut short after a bad line (a
# warning); one of a single event (no duration: no rates)
ND=$TDATA/mcp-order-ties.ndjson
{ head -n 3 "$ND"; echo "not json"; sed -n 2p "$ND"; printf "{\"ts\":9000000,\"cpu\":0,\"type\":\"sched_sw"; } >odd.ndjson
head -n 2 "$ND" >one.ndjson

test_expect_success JQ 'trace tool results: the bytes the hand-written writers gave' '
	{ init_line
	  call 1 list_traces "{}"
	  call 2 load_perfetto_trace "{\"file_path\":\"h.pb\"}"
	  call 3 load_perfetto_trace "{\"file_path\":\"h.pb\",\"trace_id\":\"b\"}"
	  call 4 get_trace_summary "{\"trace_id\":\"h\"}"
	  call 5 list_traces "{}"
	  req 6 resources/read "{\"uri\":\"trace://h\"}"
	  call 7 unload_trace "{\"trace_id\":\"b\"}"
	  call 8 list_traces "{}"
	  call 9 load_perfetto_trace "{\"file_path\":\"odd.ndjson\"}"
	  call 10 get_trace_summary "{\"trace_id\":\"odd\"}"
	  call 11 load_perfetto_trace "{\"file_path\":\"one.ndjson\"}"
	  call 12 get_trace_summary "{\"trace_id\":\"one\"}"
	} | mcp >out &&
	for id in 1 2 3 4 5 7 8 9 10 11 12; do text $id <out || exit 1; done >got.raw &&
	resp 6 <out | jq -r ".result.contents[0].text" >>got.raw &&
	sed -e "s/\"load_ms\":[0-9.e+-]*/\"load_ms\":T/" -e "s#$PWD/##g" got.raw >got &&
	test_cmp "$TDATA/mcp-trace-records.golden" got
'

test_done
