#!/bin/sh
# scx-mcp tools that make a resource point at it with a resource_link
# content block (2025-06-18 and later, and 2026-07-28 requests), which
# resources/read then serves; older sessions get the text block alone.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

cp "$TDATA/mcp-handmade.pb" h.pb
load() { call 1 load_perfetto_trace '{"file_path":"h.pb"}'; }
links() { jq -c 'select(.id == 1) | [.result.content[] | select(.type == "resource_link")]'; }

test_expect_success 'load_perfetto_trace links to trace://ID, which resources/read serves' '
	for v in 2025-11-25 2025-06-18; do
		{ init_line $v; load; req 2 resources/read "{\"uri\":\"trace://h\"}"; } | mcp >out &&
		test "$(links <out)" = "[{\"type\":\"resource_link\",\"uri\":\"trace://h\",\"name\":\"h\",\"description\":\"the loaded trace'"'"'s summary; analyse it with the trace tools by trace_id\",\"mimeType\":\"application/json\"}]" &&
		resp 2 <out | jq -r ".result.contents[0].text" | jq -e ".trace_id == \"h\" and .events > 0" >/dev/null || exit 1
	done
'

test_expect_success 'sessions before 2025-06-18 get no resource_link; 2026-07-28 requests do' '
	for v in 2025-03-26 2024-11-05; do
		{ init_line $v; load; } | mcp >out &&
		test "$(links <out)" = "[]" &&
		test "$(jq -c "select(.id == 1) | [.result.content[].type]" out)" = "[\"text\"]" || exit 1
	done &&
	printf "%s\n" "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"load_perfetto_trace\",\"arguments\":{\"file_path\":\"h.pb\"},\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}" |
		mcp >out &&
	links <out | jq -e "length == 1 and .[0].uri == \"trace://h\"" >/dev/null
'

test_expect_success 'a failed load links to nothing' '
	{ init_line; call 1 load_perfetto_trace "{\"file_path\":\"missing.pb\"}"; } | mcp >out &&
	test "$(iserr 1 <out)" = true && test "$(links <out)" = "[]"
'

test_done
