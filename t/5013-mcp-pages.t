#!/bin/sh
# Links, not blobs: a read-only tool whose whole result is larger than a
# tool result answers with what fits, as before, and a resource_link to
# result://N, which resources/read serves in bounded pages, each naming the
# next; their text joined is the whole result.  Sessions before 2025-06-18
# get the cut result alone, as they always did.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

# 3000 switches on 2 CPUs: a query for all of them is ~800 KB of JSON
awk 'BEGIN {
	print "{\"type\":\"header\",\"version\":1,\"producer\":\"t\",\"clock\":\"boottime\",\"hostname\":\"t\",\"kernel\":\"t\",\"nr_cpus\":2,\"topology\":null,\"scheduler\":null,\"options\":{},\"start_ns\":0}"
	for (i = 0; i < 3000; i++)
		printf "{\"ts\":%d,\"cpu\":%d,\"type\":\"sched_switch\",\"prev_pid\":%d,\"prev_tgid\":%d,\"prev_comm\":\"t%d\",\"prev_prio\":120,\"prev_state\":1,\"next_pid\":%d,\"next_tgid\":%d,\"next_comm\":\"t%d\",\"next_prio\":120}\n", 1000 + i * 1000, i % 2, 100 + i % 7, 100 + i % 7, i % 7, 200 + i % 5, 200 + i % 5, i % 5
}' >many.ndjson
load() { call 1 load_perfetto_trace '{"file_path":"many.ndjson","trace_id":"m"}'; }
query() { call 2 query_trace_events '{"trace_id":"m","limit":10000}'; }
links() { jq -c --argjson id "$1" 'select(.id == $id) | [.result.content[] | select(.type == "resource_link")]'; }

test_expect_success 'a query too large for a result links to its whole, paged to the end' '
	rm -f in && mkfifo in &&
	{ mcp <in >out 2>err & } && pid=$! &&
	exec 3>in &&
	{ init_line; load; query; } >&3 &&
	wait_resp out 2 &&
	links 2 <out >link &&
	jq -e "length == 1 and (.[0].uri | test(\"^result://[0-9]+$\")) and .[0].name == \"query_trace_events\"" link >/dev/null &&
	uri=$(jq -r ".[0].uri" link) &&
	# the inline result is cut, as before, and says so
	resp 2 <out | jq -e ".result.structuredContent | .matched == 3000 and .returned < 3000 and has(\"next_offset\")" >/dev/null &&
	# read page after page (each names the next), 200 at most
	: >whole && n=0 &&
	while [ -n "$uri" ] && [ $n -lt 200 ]; do
		id=$((n + 10)) &&
		req $id resources/read "{\"uri\":\"$uri\"}" >&3 &&
		wait_resp out $id &&
		resp $id <out | jq -r ".result.contents[0].text" >page.json &&
		jq -e ".page == $n and .offset >= 0 and (.text | length) > 0" page.json >/dev/null &&
		jq -j ".text" page.json >>whole &&
		uri=$(jq -r ".next // empty" page.json) && n=$((n + 1)) || break
	done &&
	exec 3>&- && wait $pid &&
	say "$n pages" && test -z "$uri" && test $n -gt 1 &&
	test "$(jq -r .pages page.json)" = $n &&
	test "$(wc -c <whole)" = "$(jq -r .bytes page.json)" &&
	# the pieces join into the whole: every event, the inline ones first
	jq -e ".matched == 3000 and .returned == 3000 and (.events | length) == 3000" whole >/dev/null &&
	resp 2 <out | jq -c ".result.structuredContent.events" >inline &&
	jq -c --argjson k "$(jq length inline)" ".events[:\$k]" whole >prefix &&
	test_cmp inline prefix
'

test_expect_success 'a result that fits stays inline, with no link' '
	{ init_line; load; call 2 query_trace_events "{\"trace_id\":\"m\",\"limit\":5}"; } | mcp >out &&
	test "$(links 2 <out)" = "[]" &&
	resp 2 <out | jq -e ".result.structuredContent.returned == 5" >/dev/null
'

test_expect_success 'sessions before 2025-06-18 get the cut result alone; 2026-07-28 requests the link' '
	for v in 2025-03-26 2024-11-05; do
		{ init_line $v; load; query; } | mcp >out &&
		test "$(links 2 <out)" = "[]" &&
		resp 2 <out | jq -e ".result.structuredContent.returned < 3000" >/dev/null || exit 1
	done &&
	m="\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}" &&
	{ printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"load_perfetto_trace\",\"arguments\":{\"file_path\":\"many.ndjson\",\"trace_id\":\"m\"},$m}}"
	  printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"query_trace_events\",\"arguments\":{\"trace_id\":\"m\",\"limit\":10000},$m}}"
	} | mcp >out &&
	links 2 <out | jq -e "length == 1" >/dev/null
'

test_expect_success 'a page that does not exist is resource-not-found' '
	{ init_line; load; query
	  req 3 resources/read "{\"uri\":\"result://1/999\"}"
	  req 4 resources/read "{\"uri\":\"result://1/01\"}"
	  req 5 resources/read "{\"uri\":\"result://0\"}"
	  req 6 resources/read "{\"uri\":\"result://1/0\"}"
	} | mcp >out &&
	test "$(errcode 3 <out)" = -32002 && test "$(errcode 4 <out)" = -32002 &&
	test "$(errcode 5 <out)" = -32002 &&
	resp 6 <out | jq -r ".result.contents[0].text" | jq -e ".page == 0 and .next == \"result://1/1\"" >/dev/null
'

test_done
