// SPDX-License-Identifier: GPL-2.0
/*
 * resource_link blocks in tool results: load_perfetto_trace points at the
 * trace:// resource it made, in the revisions that have the block
 * (2025-06-18 on, and 2026-07-28 requests in any session), and the linked
 * resource is readable; older sessions get the text block alone.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mcp/mcp.h"
#include "json/json.h"
#include "core/util.h"
#include "tap.h"
#include "mcp-unit.h"

#define LOAD_ARGS(id) \
	"\"params\":{\"name\":\"load_perfetto_trace\",\"arguments\":{" \
	"\"file_path\":\"t.ndjson\",\"trace_id\":\"" id "\"}"
#define LOAD "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"," LOAD_ARGS("t") "}}"
/* another id: the session has loaded t already */
#define LOAD_MODERN \
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\"," LOAD_ARGS( \
		"m") ",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
		     "\"io.modelcontextprotocol/clientCapabilities\":{}}}}"

static struct mcp_server *session(const char *version)
{
	struct mcp_opts o = { .no_live = true };

	return mcp_session(&o, version);
}

/* The result's content blocks: how many, and the type and uri of the second. */
static int blocks(char *type, char *uri, size_t size)
{
	int res = scx_json_get(&doc, 0, "result");
	int content = res >= 0 ? scx_json_get(&doc, res, "content") : -1;
	int second = content >= 0 ? scx_json_at(&doc, content, 1) : -1;

	type[0] = uri[0] = 0;
	if (second >= 0) {
		scx_json_str(&doc, scx_json_get(&doc, second, "type"), type, size);
		scx_json_str(&doc, scx_json_get(&doc, second, "uri"), uri, size);
	}
	return content >= 0 ? doc.tok[content].size : -1;
}

static void write_trace(void)
{
	FILE *f = fopen("t.ndjson", "w");

	if (!f)
		exit(1);
	fputs("{\"type\":\"header\",\"version\":1,\"producer\":\"t\",\"clock\":\"boottime\","
	      "\"hostname\":\"t\",\"kernel\":\"t\",\"nr_cpus\":1,\"topology\":null,"
	      "\"scheduler\":null,\"options\":{},\"start_ns\":0}\n"
	      "{\"ts\":1000,\"cpu\":0,\"type\":\"sched_switch\",\"prev_pid\":1,\"prev_tgid\":1,"
	      "\"prev_comm\":\"a\",\"prev_prio\":120,\"prev_state\":1,\"next_pid\":2,"
	      "\"next_tgid\":2,\"next_comm\":\"b\",\"next_prio\":120}\n",
	      f);
	fclose(f);
}

int main(void)
{
	static const char *const linked[] = { "2025-11-25", "2025-06-18" };
	static const char *const plain[] = { "2025-03-26", "2024-11-05" };
	char dir[] = "/tmp/mcp-links.XXXXXX", type[64], uri[64];
	struct mcp_server *s;

	if (!mkdtemp(dir) || chdir(dir))
		return 1;
	write_trace();
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(linked); i++) {
		s = session(linked[i]);
		ask(s, LOAD);
		ok(blocks(type, uri, sizeof(type)) == 2 && !strcmp(type, "resource_link") &&
			   !strcmp(uri, "trace://t"),
		   "%s: load links to trace://t after its text", linked[i]);
		ask(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\","
		       "\"params\":{\"uri\":\"trace://t\"}}");
		ok(scx_json_get(&doc, 0, "result") >= 0, "%s: the linked resource reads",
		   linked[i]);
		mcp_server__free(s);
	}
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(plain); i++) {
		s = session(plain[i]);
		ask(s, LOAD);
		ok(blocks(type, uri, sizeof(type)) == 1, "%s: the text block alone", plain[i]);
		ask(s, LOAD_MODERN);
		ok(blocks(type, uri, sizeof(type)) == 2 && !strcmp(type, "resource_link"),
		   "a 2026-07-28 request in a %s session gets the link", plain[i]);
		mcp_server__free(s);
	}
	s = session("2025-11-25");
	unlink("t.ndjson");
	ask(s, LOAD);
	ok(blocks(type, uri, sizeof(type)) == 1, "a failed load links to nothing");
	mcp_server__free(s);
	rmdir(dir);
	scx_json_free(&doc);
	scx_buf_free(&out);
	return done_testing();
}
