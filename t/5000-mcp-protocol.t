#!/bin/sh
# scx-mcp: JSON-RPC 2.0 framing, MCP lifecycle, ids, error codes, lists,
# pagination, prompts, completion, logging, driven by scripted conversations.
. "$(dirname "$0")/lib.sh"
. "$TDATA/mcp-lib.sh"

# the 2026-07-28 envelope of a stateless request
MODERN='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'

test_expect_success 'initialize echoes each supported version, proposes the latest otherwise' '
	for v in 2025-11-25 2025-06-18 2025-03-26 2024-11-05; do
		init_line $v | mcp >out &&
		resp 0 <out | jq -e --arg v $v ".result.protocolVersion == \$v and
			.result.serverInfo.name == \"scx-mcp\" and .result.serverInfo.version != null and
			.result.capabilities.resources.subscribe == true and
			.result.capabilities.logging == {} and .result.capabilities.completions == {}" >/dev/null
	done &&
	init_line 1999-01-01 | mcp >out &&
	test "$(resp 0 <out | jq -r .result.protocolVersion)" = 2025-11-25
'

test_expect_success 'before initialize: server/discover answered, other methods -32600, ping ok' '
	{ req 1 server/discover "{$MODERN}"; req 2 tools/list; req 3 ping; init_line
	  req 4 tools/list; req 5 server/discover; } | mcp >out &&
	resp 1 <out | jq -e ".result.supportedVersions[0] == \"2026-07-28\"" >/dev/null &&
	test "$(errcode 5 <out)" = -32602 &&
	test "$(errcode 2 <out)" = -32600 &&
	test "$(resp 3 <out | jq -c .result)" = "{}" &&
	resp 4 <out | jq -e ".result.tools | length > 20" >/dev/null
'

test_expect_success 'ids are echoed exactly: strings with escapes, 0, negatives, beyond 2^53 and 2^64' '
	{ init_line
	  echo "{\"jsonrpc\":\"2.0\",\"id\":\"p-1\",\"method\":\"ping\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"ping\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":-7,\"method\":\"ping\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":4294967297,\"method\":\"ping\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":9007199254740993,\"method\":\"ping\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":18446744073709551617,\"method\":\"ping\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":\"esc \\\\\"1\\\\\" \\\\u00e9\\\\n\",\"method\":\"ping\"}"
	} | mcp >out &&
	grep -F "\"id\":\"p-1\",\"result\":{}" out &&
	grep -F "\"id\":0,\"result\":{}" out &&
	grep -F "\"id\":-7,\"result\":{}" out &&
	grep -F "\"id\":4294967297,\"result\":{}" out &&
	grep -F "\"id\":9007199254740993,\"result\":{}" out &&
	grep -F "\"id\":18446744073709551617,\"result\":{}" out &&
	jq -c "select(.id == \"esc \\\"1\\\" é\\n\")" out | jq -e ".result == {}" >/dev/null
'

test_expect_success 'notifications are never answered, known or not' '
	{ init_line
	  echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":99}}"
	  echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/roots/list_changed\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"method\":\"no/such/notification\",\"params\":{}}"
	  echo "{\"jsonrpc\":\"2.0\",\"method\":\"ping\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":5,\"result\":{}}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":6,\"error\":{\"code\":1,\"message\":\"x\"}}"
	  req 7 ping
	} | mcp >out &&
	test $(wc -l <out) = 2 &&
	test "$(jq -c "[.id]" out | tr -d "\n")" = "[0][7]"
'

test_expect_success 'protocol errors get the right codes and the server keeps going' '
	{ init_line
	  echo "{\"jsonrpc\":\"2.0\",\"id\":\"broken\","
	  echo "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":2}"
	  echo "{\"jsonrpc\":\"1.0\",\"id\":3,\"method\":\"ping\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":null,\"method\":\"ping\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":1.5,\"method\":\"ping\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/list\",\"params\":[1]}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"no/such/method\"}"
	  echo "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"initialize\",\"params\":{\"protocolVersion\":\"2025-11-25\"}}"
	  echo "\"just a string\""
	  printf "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\"}\r\n"
	  echo
	  req 8 ping
	} | mcp >out &&
	all_jsonrpc out &&
	test "$(jq -c "select(.id == null) | .error.code" out | tr "\n" " ")" = "-32700 -32600 -32600 -32600 -32600 " &&
	test "$(errcode 2 <out)" = -32600 &&
	test "$(errcode 3 <out)" = -32600 &&
	test "$(errcode 4 <out)" = -32602 &&
	test "$(errcode 5 <out)" = -32601 &&
	test "$(errcode 6 <out)" = -32600 &&
	test "$(resp 7 <out | jq -c .result)" = "{}" &&
	test "$(resp 8 <out | jq -c .result)" = "{}"
'


test_expect_success '2026-07-28: a dual-era client probes, then speaks statelessly; the same process keeps a legacy session' '
	{ req 1 server/discover "{$MODERN}"
	  req 2 tools/call "{$MODERN,\"name\":\"list_traces\",\"arguments\":{}}"
	  init_line 2025-11-25
	  req 3 tools/call "{\"name\":\"list_traces\",\"arguments\":{}}"
	  req 4 resources/templates/list "{$MODERN}"
	  req 5 ping "{$MODERN}"
	} | mcp >out &&
	all_jsonrpc out &&
	resp 1 <out | jq -e ".result | .resultType == \"complete\" and (.supportedVersions | index(\"2024-11-05\")) and
		.capabilities.resources.subscribe == true and ._meta[\"io.modelcontextprotocol/serverInfo\"].name == \"scx-mcp\"" >/dev/null &&
	resp 2 <out | jq -e ".result.resultType == \"complete\" and (.result.content[0].text | fromjson | .traces == [])" >/dev/null &&
	resp 3 <out | jq -e ".result | has(\"resultType\") | not" >/dev/null &&
	resp 4 <out | jq -e ".result.ttlMs > 0 and .result.cacheScope == \"public\"" >/dev/null &&
	test "$(errcode 5 <out)" = -32601
'

test_expect_success '2026-07-28: logs only at the level a request asks for in its _meta' '
	cp "$TDATA/mcp-handmade.pb" t.pb &&
	LOGINFO="\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{},\"io.modelcontextprotocol/logLevel\":\"info\"}" &&
	{ req 1 tools/call "{$MODERN,\"name\":\"load_perfetto_trace\",\"arguments\":{\"file_path\":\"t.pb\",\"trace_id\":\"a\"}}"
	  req 2 tools/call "{$LOGINFO,\"name\":\"load_perfetto_trace\",\"arguments\":{\"file_path\":\"t.pb\",\"trace_id\":\"b\"}}"
	} | mcp >out &&
	jq -r "select(.method == \"notifications/message\") | .params.data" out >logs &&
	test $(wc -l <logs) = 1 && grep "^loaded trace b:" logs
'

test_expect_success '2026-07-28: subscriptions/listen gets tagged updates until cancelled' '
	{ req 7 subscriptions/listen "{$MODERN,\"notifications\":{\"resourceSubscriptions\":[\"stats://system/cpu\"]}}"
	  sleep 1.5
	  echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":7}}"
	  req 8 server/discover "{$MODERN}"
	  sleep 1.5
	} | mcp --update-interval 200ms >out &&
	jq -c "select(.method == \"notifications/subscriptions/acknowledged\")" out |
		jq -e ".params._meta[\"io.modelcontextprotocol/subscriptionId\"] == 7" >/dev/null &&
	jq -c "select(.method == \"notifications/resources/updated\")" out >upd &&
	test -s upd && jq -e ".params.uri == \"stats://system/cpu\" and .params._meta[\"io.modelcontextprotocol/subscriptionId\"] == 7" upd >/dev/null &&
	after=$(awk "/\"id\":8,/ { seen = 1; next } seen && /resources\/updated/" out | wc -l) && test $after = 0 &&
	test -z "$(resp 7 <out)"
'

test_expect_success '2025-03-26 sessions accept JSON-RPC batches, other versions refuse them' '
	{ init_line 2025-03-26
	  echo "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"method\":\"notifications/x\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}]"
	  echo "[]"
	} | mcp >out &&
	sed -n 2p out | jq -e "length == 2 and .[0].id == 1 and .[0].result == {} and .[1].id == 2 and (.[1].result.tools | length) > 20" >/dev/null &&
	sed -n 3p out | jq -e ".error.code == -32600" >/dev/null &&
	{ init_line 2025-06-18; echo "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]"; } | mcp >out2 &&
	sed -n 2p out2 | jq -e ".error.code == -32600 and (.error.message | test(\"2025-06-18\"))" >/dev/null
'

test_expect_success 'a line over --max-line is refused without being buffered; the next one is served' '
	{ init_line
	  printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{\"pad\":\"%s\"}}\n" "$(head -c 300000 /dev/zero | tr "\0" x)"
	  printf "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\",\"params\":{\"pad\":\"%s\"}}\n" "$(head -c 2000 /dev/zero | tr "\0" x)"
	} | mcp --max-line 64K >out &&
	jq -c "select(.id == null)" out | jq -e ".error.code == -32600 and (.error.message | test(\"longer than\"))" >/dev/null &&
	test "$(resp 2 <out | jq -c .result)" = "{}" &&
	test -z "$(resp 1 <out)"
'

test_expect_success 'a flood of 3000 requests gets 3000 well-formed answers' '
	{ init_line; i=1; while [ $i -le 3000 ]; do req $i ping; i=$((i + 1)); done; } | mcp >out &&
	all_jsonrpc out &&
	test "$(jq -s "[.[] | select(.result == {}) | .id] | unique | length" out)" = 3000
'

test_expect_success 'garbage bytes never crash it nor reach stdout as non-JSON' '
	{ init_line; head -c 200000 /dev/urandom; echo; req 9 ping; } | mcp >out &&
	all_jsonrpc out &&
	test "$(resp 9 <out | jq -c .result)" = "{}"
'

test_expect_success 'only protocol messages on stdout, diagnostics on stderr with -vv' '
	{ init_line; req 1 logging/setLevel "{\"level\":\"debug\"}"; req 2 ping; } | mcp -vv >out 2>err &&
	all_jsonrpc out
'

test_expect_success 'exits at once when stdin closes, also mid-line' '
	{ init_line; printf "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"pi"; } | mcp >out &&
	all_jsonrpc out
'

test_expect_success 'every list pages with cursors; all pages give every item once' '
	for m in tools/list:tools:name resources/list:resources:uri prompts/list:prompts:name \
		 resources/templates/list:resourceTemplates:uriTemplate; do
		meth=${m%%:*} rest=${m#*:}; key=${rest%%:*} field=${rest#*:}
		init_line >in && req 1 $meth >>in && mcp <in >all &&
		resp 1 <all | jq -r ".result.$key[].$field" | sort >want &&
		: >got && cursor= && n=0 &&
		while :; do
			n=$((n + 1))
			init_line >in
			if [ -n "$cursor" ]; then req 1 $meth "{\"cursor\":\"$cursor\"}" >>in; else req 1 $meth >>in; fi
			mcp --page-size 2 <in >out
			resp 1 <out | jq -r ".result.$key[].$field" >>got
			cursor=$(resp 1 <out | jq -r ".result.nextCursor // empty")
			[ -n "$cursor" ] || break
		done &&
		sort got | test_cmp want - &&
		test $n = $(( ($(wc -l <want) + 1) / 2 ))
	done
'

test_expect_success 'an invalid cursor is -32602' '
	{ init_line; req 1 tools/list "{\"cursor\":\"bogus\"}"; req 2 tools/list "{\"cursor\":\"scx-page-999999\"}"; } | mcp >out &&
	test "$(errcode 1 <out)" = -32602 && test "$(errcode 2 <out)" = -32602
'

test_expect_success 'tools have object input schemas, titles and read-only hints' '
	{ init_line; req 1 tools/list; } | mcp >out &&
	resp 1 <out | jq -e "[.result.tools[] | select(.inputSchema.type != \"object\" or
		(.name | test(\"^[A-Za-z0-9_.-]{1,128}$\") | not) or .description == null)] == []" >/dev/null &&
	for t in query_stats get_topology control_event_tracking start_perf_profiling stop_perf_profiling \
		 get_perf_results analyze_waker_wakee analyze_softirq load_perfetto_trace list_traces \
		 get_trace_summary query_trace_events analyze_trace_scheduling get_process_timeline \
		 get_cpu_timeline find_scheduling_bottlenecks correlate_wakeup_to_schedule \
		 detect_outliers run_all_analyzers export_trace_analysis; do
		resp 1 <out | jq -e --arg t $t "[.result.tools[].name] | index(\$t) != null" >/dev/null ||
			{ echo "missing $t"; exit 1; }
	done &&
	resp 1 <out | jq -e "[.result.tools[] | select(.name == \"get_trace_summary\")][0].annotations.readOnlyHint == true" >/dev/null &&
	resp 1 <out | jq -e "[.result.tools[] | select(.name == \"export_trace_analysis\")][0].annotations.readOnlyHint == false" >/dev/null
'

test_expect_success 'tools/call: unknown tool and bad params are -32602, bad argument values isError' '
	{ init_line
	  call 1 no_such_tool "{}"
	  req 2 tools/call "{\"arguments\":{}}"
	  req 3 tools/call "{\"name\":\"list_traces\",\"arguments\":[1]}"
	  call 4 get_trace_summary "{}"
	  call 5 get_trace_summary "{\"trace_id\":5}"
	  call 6 query_stats "{\"stat_type\":\"bogus\"}"
	  call 7 get_cpu_timeline "{\"trace_id\":\"x\",\"cpu\":\"zero\"}"
	  call 8 list_traces "null"
	} | mcp >out &&
	test "$(errcode 1 <out)" = -32602 && test "$(errcode 2 <out)" = -32602 &&
	test "$(errcode 3 <out)" = -32602 &&
	test "$(iserr 4 <out)" = true && text 4 <out | grep "missing required argument .trace_id." &&
	test "$(iserr 5 <out)" = true && text 5 <out | grep "must be a string" &&
	test "$(iserr 6 <out)" = true && text 6 <out | grep "must be one of: cpu, llc" &&
	test "$(iserr 7 <out)" = true &&
	test "$(iserr 8 <out)" = false && text 8 <out | jq -e ".traces == []" >/dev/null
'

test_expect_success 'resources: fixed list, read, unknown is -32002 with the uri, subscribe checks' '
	{ init_line
	  req 1 resources/list
	  req 2 resources/read "{\"uri\":\"scheduler://current\"}"
	  req 3 resources/read "{\"uri\":\"nope://x\"}"
	  req 4 resources/subscribe "{\"uri\":\"nope://x\"}"
	  req 5 resources/subscribe "{\"uri\":\"events://stream\"}"
	  req 6 resources/unsubscribe "{\"uri\":\"events://stream\"}"
	  req 7 resources/read "{}"
	  req 8 resources/read "{\"uri\":\"topology://info\"}"
	  req 9 resources/read "{\"uri\":\"stats://aggregated/cpu\"}"
	} | mcp >out &&
	resp 1 <out | jq -e "[.result.resources[].uri] | contains([\"scheduler://current\",
		\"topology://info\", \"events://stream\", \"stats://aggregated/cpu\", \"stats://aggregated/llc\",
		\"stats://aggregated/node\", \"stats://aggregated/dsq\", \"stats://aggregated/process\",
		\"stats://aggregated/thread\", \"stats://system/cpu\", \"stats://system/memory\",
		\"bpf://programs\"])" >/dev/null &&
	resp 2 <out | jq -e ".result.contents[0].uri == \"scheduler://current\" and
		(.result.contents[0].text | fromjson | has(\"sched_ext_supported\"))" >/dev/null &&
	resp 3 <out | jq -e ".error.code == -32002 and .error.data.uri == \"nope://x\"" >/dev/null &&
	test "$(errcode 4 <out)" = -32002 &&
	test "$(resp 5 <out | jq -c .result)" = "{}" && test "$(resp 6 <out | jq -c .result)" = "{}" &&
	test "$(errcode 7 <out)" = -32602 &&
	resp 8 <out | jq -e ".result.contents[0].text | fromjson | .nr_cpus == $(nproc --all)" >/dev/null &&
	resp 9 <out | jq -e ".result.contents[0].text | fromjson | .available == false" >/dev/null
'

test_expect_success 'prompts: list, get with arguments, unknown and bad arguments are -32602' '
	{ init_line
	  req 1 prompts/list
	  req 2 prompts/get "{\"name\":\"debug_high_latency\",\"arguments\":{\"pid\":\"42\",\"trace_id\":\"run1\"}}"
	  req 3 prompts/get "{\"name\":\"nope\"}"
	  req 4 prompts/get "{\"name\":\"analyze_scheduler_performance\",\"arguments\":{\"focus_area\":\"speed\"}}"
	  req 5 prompts/get "{\"name\":\"debug_high_latency\",\"arguments\":{\"pid\":\"1; rm -rf /\"}}"
	  req 6 prompts/get "{\"name\":\"summarize_system\"}"
	} | mcp >out &&
	test "$(resp 1 <out | jq -r "[.result.prompts[].name] | join(\" \")")" = \
		"analyze_scheduler_performance debug_high_latency analyze_cpu_imbalance investigate_scheduler_behavior summarize_system" &&
	resp 2 <out | jq -r ".result.messages[0].content.text" >p.txt &&
	grep "correlate_wakeup_to_schedule {\"trace_id\":\"run1\",\"pid\":42}" p.txt &&
	test "$(errcode 3 <out)" = -32602 && test "$(errcode 4 <out)" = -32602 &&
	test "$(errcode 5 <out)" = -32602 &&
	resp 6 <out | jq -e ".result.messages[0].role == \"user\"" >/dev/null
'

test_expect_success 'completion of prompt and template arguments' '
	{ init_line
	  req 1 completion/complete "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"analyze_scheduler_performance\"},\"argument\":{\"name\":\"focus_area\",\"value\":\"th\"}}"
	  req 2 completion/complete "{\"ref\":{\"type\":\"ref/resource\",\"uri\":\"stats://aggregated/{group}\"},\"argument\":{\"name\":\"group\",\"value\":\"\"}}"
	  req 3 completion/complete "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"debug_high_latency\"},\"argument\":{\"name\":\"pid\",\"value\":\"1\"}}"
	  req 4 completion/complete "{\"ref\":{\"type\":\"ref/prompt\",\"name\":\"nope\"},\"argument\":{\"name\":\"x\",\"value\":\"\"}}"
	  req 5 completion/complete "{\"ref\":{\"type\":\"ref/bogus\"},\"argument\":{\"name\":\"x\",\"value\":\"\"}}"
	} | mcp >out &&
	test "$(resp 1 <out | jq -c .result.completion.values)" = "[\"throughput\"]" &&
	test "$(resp 2 <out | jq -c .result.completion.values)" = "[\"cpu\",\"llc\",\"node\",\"dsq\",\"process\",\"thread\"]" &&
	resp 3 <out | jq -e ".result.completion.values | index(\"1\") != null and length <= 100" >/dev/null &&
	test "$(errcode 4 <out)" = -32602 && test "$(errcode 5 <out)" = -32602
'

test_expect_success 'logging/setLevel: bad level -32602; messages at or above the level only' '
	cp "$SHARED/testdata/perfetto/handmade/handmade_ftrace_sched.pb" t.pb 2>/dev/null ||
		cp "$TDATA/mcp-handmade.pb" t.pb &&
	{ init_line
	  req 1 logging/setLevel "{\"level\":\"loud\"}"
	  call 2 load_perfetto_trace "{\"file_path\":\"t.pb\",\"trace_id\":\"a\"}"
	  req 3 logging/setLevel "{\"level\":\"info\"}"
	  call 4 load_perfetto_trace "{\"file_path\":\"t.pb\",\"trace_id\":\"b\"}"
	} | mcp >out &&
	test "$(errcode 1 <out)" = -32602 &&
	test "$(jq -c "select(.method == \"notifications/message\") | .params.level" out)" = "\"info\"" &&
	jq -c "select(.method == \"notifications/message\")" out | jq -e ".params.data | test(\"loaded trace b\")" >/dev/null
'

test_expect_success 'progress notifications carry the token and increase' '
	cp "$TDATA/mcp-handmade.pb" t.pb &&
	{ init_line
	  echo "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"load_perfetto_trace\",\"arguments\":{\"file_path\":\"t.pb\"},\"_meta\":{\"progressToken\":\"tok-1\"}}}"
	} | mcp >out &&
	jq -s -e "[.[] | select(.method == \"notifications/progress\")] as \$p |
		(\$p | length) >= 2 and all(\$p[]; .params.progressToken == \"tok-1\") and
		([\$p[].params.progress] == ([\$p[].params.progress] | sort | unique))" out >/dev/null
'

test_expect_success SHARED 'a cancelled load gets no response; pings during it are answered' '
	cp "$SHARED/testdata/perfetto/wprof-schedview.pb.zst" w.pb.zst &&
	{ init_line
	  call 1 load_perfetto_trace "{\"file_path\":\"w.pb.zst\"}"
	  req 2 ping
	  echo "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":{\"requestId\":1,\"reason\":\"t\"}}"
	  call 3 list_traces "{}"
	} | mcp >out &&
	test -z "$(resp 1 <out)" &&
	test "$(resp 2 <out | jq -c .result)" = "{}" &&
	text 3 <out | jq -e ".traces == []" >/dev/null
'

test_expect_success 'fuzz mcp: corpus replays, every answer one JSON object per line' '
	n=$(ls "$SCX_SRC/t/fuzz/corpus/mcp" | wc -l) && test $n -ge 3 &&
	"$SCX_BUILD/fuzz/mcp" "$SCX_SRC/t/fuzz/corpus/mcp" >out &&
	grep -qx "$n inputs replayed" out
'

test_done
