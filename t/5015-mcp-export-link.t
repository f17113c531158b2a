#!/bin/sh
# Links, not blobs, for the one tool that writes a report: export_trace_analysis
# keeps its text (the path, the size) for older clients and, where the
# revision has resource_link, links to result://N, the file's bytes served by
# resources/read in bounded pages, each naming the next.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

cp "$TDATA/agg-basic.ndjson" b.ndjson
load() { call 1 load_perfetto_trace '{"file_path":"b.ndjson","trace_id":"b"}'; }
exp() { call 2 export_trace_analysis "{\"trace_id\":\"b\",\"output_path\":\"$1\"}"; }
links() { jq -c 'select(.id == 2) | [.result.content[] | select(.type == "resource_link")]'; }
# requests for pages 0..39 of result://1: more than the file has
pages() {
	req 10 resources/read '{"uri":"result://1"}'
	for k in $(seq 1 39); do
		req $((10 + k)) resources/read "{\"uri\":\"result://1/$k\"}"
	done
}

test_expect_success 'export_trace_analysis links to the file it wrote, paged to the end' '
	{ init_line; load; exp e.json; pages; } | mcp -R . --max-result 4096 >out &&
	test "$(iserr 2 <out)" = false &&
	links <out >link &&
	jq -e "length == 1 and .[0].uri == \"result://1\" and .[0].name == \"export_trace_analysis\" and .[0].mimeType == \"application/json\"" link >/dev/null &&
	# the text stays: the path and size, and the link named in it too
	text 2 <out >t.json &&
	jq -e ".output_path == \"$PWD/e.json\" and .bytes == $(wc -c <e.json) and .resource == \"result://1\"" t.json >/dev/null &&
	resp 2 <out | jq -c .result.structuredContent >sc.json &&
	jq -c . t.json >t1.json && test_cmp t1.json sc.json &&
	# each page is bounded, names the next; joined they are the file, byte for byte
	n=$(jq -r .pages t.json) && say "$n pages" && test "$n" -gt 1 &&
	: >whole &&
	for k in $(seq 0 $((n - 1))); do
		resp $((10 + k)) <out | jq -r ".result.contents[0].text" >page.json &&
		jq -e ".tool == \"export_trace_analysis\" and .page == $k and .pages == $n and (.text | length) <= 1365" page.json >/dev/null &&
		if [ $k -lt $((n - 1)) ]; then
			test "$(jq -r .next page.json)" = "result://1/$((k + 1))"
		else
			test "$(jq -r ".next // \"none\"" page.json)" = none
		fi &&
		jq -j .text page.json >>whole || exit 1
	done &&
	cmp whole e.json &&
	# and no page past the end
	test "$(errcode $((10 + n)) <out)" = -32002
'

test_expect_success 'sessions before 2025-06-18 get the path alone, as before; 2026-07-28 requests the link' '
	for v in 2025-03-26 2024-11-05; do
		rm -f e.json &&
		{ init_line $v; load; exp e.json; } | mcp -R . >out &&
		test "$(links <out)" = "[]" &&
		text 2 <out | jq -e "has(\"resource\") | not" >/dev/null &&
		test -s e.json || exit 1
	done &&
	rm -f e.json &&
	m="\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}" &&
	{ printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"load_perfetto_trace\",\"arguments\":{\"file_path\":\"b.ndjson\",\"trace_id\":\"b\"},$m}}"
	  printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"export_trace_analysis\",\"arguments\":{\"trace_id\":\"b\",\"output_path\":\"e.json\"},$m}}"
	} | mcp -R . >out &&
	links <out | jq -e "length == 1 and (.[0].uri | test(\"^result://[0-9]+$\"))" >/dev/null
'

test_expect_success 'a failed export links to nothing' '
	{ init_line; load; exp /nowhere/e.json; } | mcp -R . >out &&
	test "$(iserr 2 <out)" = true && test "$(links <out)" = "[]"
'

test_done
