// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mcp's two protocol eras side by side: the initialize handshake
 * (2025-11-25, 2025-06-18, 2025-03-26, 2024-11-05) and the stateless
 * 2026-07-28 revision (server/discover, the per-request _meta envelope,
 * resultType and cache hints, subscriptions/listen).  Each request and
 * error shape, a modern request in a legacy session and the reverse, and
 * JSON-RPC batches in the one era that has them, and icons in the
 * revisions that define them.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "json/json.h"
#include "core/util.h"
#include "tap.h"

#define MODERN_META \
	"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"," \
	"\"io.modelcontextprotocol/clientCapabilities\":{}}"

static struct scx_buf out;
static struct scx_json_doc doc;

static struct mcp_server *server(void)
{
	struct mcp_opts o = { .no_live = true };
	struct mcp_server *s = mcp_server__new(&o);

	if (!s)
		exit(1);
	return s;
}

/* Send one line; parse the last line answered (empty: nothing was). */
static int ask(struct mcp_server *s, const char *line)
{
	char *last;

	scx_buf_reset(&out);
	mcp_server__handle(s, line, strlen(line), &out);
	if (!out.len)
		return -1;
	out.data[--out.len] = 0; /* the final newline */
	last = strrchr(out.data, '\n');
	last = last ? last + 1 : out.data;
	return scx_json_parse(&doc, last, strlen(last));
}

/* The token at a path of object keys, e.g. at("error", "code", NULL). */
static int at(const char *key, ...)
{
	va_list ap;
	int t = 0;

	va_start(ap, key);
	for (; key && t >= 0; key = va_arg(ap, const char *))
		t = scx_json_get(&doc, t, key);
	va_end(ap);
	return t;
}

static long long num(int t)
{
	int64_t v = 0;

	return t >= 0 && !scx_json_int(&doc, t, &v) ? v : -999999;
}

static bool str_is(int t, const char *want)
{
	return t >= 0 && scx_json_eq(&doc, t, want);
}

static void initialize(struct mcp_server *s, const char *version)
{
	char line[256];

	snprintf(line, sizeof(line),
		 "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
		 "\"params\":{\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":"
		 "{\"name\":\"t\",\"version\":\"1\"}}}",
		 version);
	ask(s, line);
}

static void legacy_session(void)
{
	struct mcp_server *s = server();

	initialize(s, "2025-11-25");
	ok(str_is(at("result", "protocolVersion", NULL), "2025-11-25"), "legacy: initialize");

	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}");
	ok(at("result", "tools", NULL) >= 0 && at("result", "resultType", NULL) < 0 &&
		   at("result", "ttlMs", NULL) < 0,
	   "legacy: tools/list has no 2026 fields");

	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\",\"params\":{" MODERN_META
	       "}}");
	ok(str_is(at("result", "resultType", NULL), "complete") &&
		   num(at("result", "ttlMs", NULL)) > 0 &&
		   str_is(at("result", "cacheScope", NULL), "public") &&
		   str_is(at("result", "_meta", "io.modelcontextprotocol/serverInfo", "name", NULL),
			  "scx-mcp"),
	   "modern request in a legacy session: served statelessly, stamped and cacheable");

	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"resources/read\",\"params\":{" MODERN_META
	    ",\"uri\":\"stats://system/cpu\"}}");
	ok(num(at("result", "ttlMs", NULL)) == 0 &&
		   str_is(at("result", "cacheScope", NULL), "private"),
	   "modern: live resource reads are never cached");

	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"resources/read\",\"params\":{" MODERN_META
	    ",\"uri\":\"nope://x\"}}");
	is_int(num(at("error", "code", NULL)), -32602, "modern: unknown resource is -32602");
	ok(str_is(at("error", "data", "uri", NULL), "nope://x"), "modern: ... with data.uri");
	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"resources/read\",\"params\":{\"uri\":\"nope://x\"}}");
	is_int(num(at("error", "code", NULL)), -32002, "legacy: unknown resource is -32002");

	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":6,\"method\":\"ping\",\"params\":{" MODERN_META "}}");
	is_int(num(at("error", "code", NULL)), -32601, "modern: ping is gone (-32601)");
	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"logging/setLevel\",\"params\":{" MODERN_META
	    ",\"level\":\"info\"}}");
	is_int(num(at("error", "code", NULL)), -32601, "modern: logging/setLevel is gone (-32601)");
	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":8,\"method\":\"resources/subscribe\",\"params\":{" MODERN_META
	    ",\"uri\":\"events://stream\"}}");
	is_int(num(at("error", "code", NULL)), -32601,
	       "modern: resources/subscribe is gone (-32601)");
	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"logging/setLevel\",\"params\":{\"level\":\"info\"}}");
	ok(at("result", NULL) >= 0, "legacy: logging/setLevel still works");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"subscriptions/listen\",\"params\":"
	       "{\"notifications\":{}}}");
	is_int(num(at("error", "code", NULL)), -32602,
	       "legacy: subscriptions/listen without the 2026-07-28 envelope is invalid params");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":101,\"method\":\"server/discover\",\"params\":{}}");
	is_int(num(at("error", "code", NULL)), -32602, "server/discover without _meta: -32602");
	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":102,\"method\":\"server/discover\",\"params\":{\"_meta\":"
	    "{\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
	is_int(num(at("error", "code", NULL)), -32602,
	       "server/discover without _meta's protocolVersion: -32602");

	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"tools/list\",\"params\":{\"_meta\":"
	       "{\"io.modelcontextprotocol/protocolVersion\":\"2025-11-25\","
	       "\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
	is_int(num(at("error", "code", NULL)), -32022, "modern envelope, unknown version: -32022");
	ok(str_is(scx_json_at(&doc, at("error", "data", "supported", NULL), 0), "2026-07-28") &&
		   str_is(at("error", "data", "requested", NULL), "2025-11-25"),
	   "... with data.supported and data.requested");

	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":12,\"method\":\"tools/list\",\"params\":{\"_meta\":"
	       "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}}}");
	is_int(num(at("error", "code", NULL)), -32602, "modern: clientCapabilities is required");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":13,\"method\":\"tools/list\",\"params\":{\"_meta\":"
	       "{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
	       "\"io.modelcontextprotocol/clientCapabilities\":{},"
	       "\"io.modelcontextprotocol/logLevel\":\"loud\"}}}");
	is_int(num(at("error", "code", NULL)), -32602, "modern: a bad logLevel is -32602");

	ask(s, "[{\"jsonrpc\":\"2.0\",\"id\":14,\"method\":\"ping\"}]");
	is_int(num(at("error", "code", NULL)), -32600, "2025-11-25: batches are refused");
	mcp_server__free(s);
}

static void modern_first(void)
{
	struct mcp_server *s = server();

	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"server/discover\",\"params\":{" MODERN_META
	    "}}");
	ok(str_is(scx_json_at(&doc, at("result", "supportedVersions", NULL), 0), "2026-07-28") &&
		   str_is(scx_json_at(&doc, at("result", "supportedVersions", NULL), 1),
			  "2025-11-25"),
	   "discover: supportedVersions, newest first, legacy versions too");
	ok(at("result", "capabilities", "tools", NULL) >= 0 &&
		   str_is(at("result", "resultType", NULL), "complete") &&
		   at("result", "_meta", "io.modelcontextprotocol/serverInfo", "version", NULL) >=
			   0,
	   "discover: capabilities, resultType and serverInfo");

	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/list\"}");
	is_int(num(at("error", "code", NULL)), -32600, "legacy request before initialize: -32600");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"prompts/list\",\"params\":{" MODERN_META
	       "}}");
	ok(at("result", "prompts", NULL) >= 0 && str_is(at("result", "cacheScope", NULL), "public"),
	   "modern request needs no initialize");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":4,\"method\":\"tools/call\",\"params\":{" MODERN_META
	       ",\"name\":\"list_traces\",\"arguments\":{}}}");
	ok(at("result", "content", NULL) >= 0 &&
		   str_is(at("result", "resultType", NULL), "complete"),
	   "modern tools/call");

	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":\"sub-1\",\"method\":\"subscriptions/listen\",\"params\":{" MODERN_META
	    ",\"notifications\":{\"resourcesListChanged\":true,\"resourceSubscriptions\":"
	    "[\"events://stream\",\"nope://x\"]}}}");
	ok(str_is(at("method", NULL), "notifications/subscriptions/acknowledged") &&
		   str_is(at("params", "_meta", "io.modelcontextprotocol/subscriptionId", NULL),
			  "sub-1"),
	   "listen: acknowledged, tagged with the request id");
	ok(str_is(scx_json_at(&doc, at("params", "notifications", "resourceSubscriptions", NULL),
			      0),
		  "events://stream") &&
		   scx_json_at(&doc, at("params", "notifications", "resourceSubscriptions", NULL),
			       1) < 0,
	   "listen: only resources that exist are acknowledged");
	ok(!strchr(out.data, '\n'), "listen: no response while it is open");

	/* the reverse: a legacy handshake after modern requests */
	initialize(s, "2025-06-18");
	ok(str_is(at("result", "protocolVersion", NULL), "2025-06-18") &&
		   at("result", "resultType", NULL) < 0,
	   "initialize after modern requests: legacy from now on");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"ping\"}");
	ok(at("result", NULL) >= 0, "legacy ping after the handshake");
	ask(s, "{\"jsonrpc\":\"2.0\",\"method\":\"notifications/cancelled\",\"params\":"
	       "{\"requestId\":\"sub-1\"}}");
	ok(!out.len, "cancelling a listen is not answered");
	mcp_server__free(s);
}

static void batches(void)
{
	struct mcp_server *s = server();

	ask(s, "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]");
	is_int(num(at("error", "code", NULL)), -32600, "no batches before initialize");
	initialize(s, "2025-03-26");
	ask(s,
	    "[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"},{\"jsonrpc\":\"2.0\",\"method\":"
	    "\"notifications/initialized\"},{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"nope\"},7]");
	ok(doc.tok[0].type == JSMN_ARRAY && doc.tok[0].size == 3,
	   "2025-03-26: one array of 3 answers");
	ok(num(scx_json_get(&doc, scx_json_at(&doc, 0, 0), "id")) == 1 &&
		   scx_json_get(&doc, scx_json_at(&doc, 0, 0), "result") >= 0,
	   "... the ping's result");
	is_int(num(scx_json_get(&doc, scx_json_get(&doc, scx_json_at(&doc, 0, 1), "error"),
				"code")),
	       -32601, "... the unknown method's error");
	is_int(num(scx_json_get(&doc, scx_json_get(&doc, scx_json_at(&doc, 0, 2), "error"),
				"code")),
	       -32600, "... the element that is no request");
	ok(ask(s, "[{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}]") == -1,
	   "a batch of notifications gets no answer");
	ask(s, "[]");
	is_int(num(at("error", "code", NULL)), -32600, "an empty batch is one invalid request");
	mcp_server__free(s);
}

/* the first tool's (resource's, prompt's) icon, or -1: lists are read whole */
static int first_icon(const char *list)
{
	return at("result", list, NULL) < 0 ?
		       -1 :
		       scx_json_get(&doc, scx_json_at(&doc, at("result", list, NULL), 0), "icons");
}

/* Icons came with 2025-11-25: its sessions and 2026-07-28 get them, older ones not. */
static void icons(void)
{
	static const char *const lists[][2] = {
		{ "tools/list", "tools" },
		{ "resources/list", "resources" },
		{ "resources/templates/list", "resourceTemplates" },
		{ "prompts/list", "prompts" },
	};
	struct mcp_server *s = server();
	char line[512];
	int icon;

	initialize(s, "2025-11-25");
	icon = scx_json_get(&doc, at("result", "serverInfo", NULL), "icons");
	ok(icon >= 0 && doc.tok[icon].type == JSMN_ARRAY, "2025-11-25: serverInfo has icons");
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(lists); i++) {
		snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"%s\"}",
			 i + 1, lists[i][0]);
		ask(s, line);
		icon = scx_json_at(&doc, first_icon(lists[i][1]), 0);
		ok(str_is(scx_json_get(&doc, icon, "mimeType"), "image/svg+xml") &&
			   !strncmp(doc.js + doc.tok[scx_json_get(&doc, icon, "src")].start,
				    "data:image/svg+xml;base64,", 26) &&
			   str_is(scx_json_at(&doc, scx_json_get(&doc, icon, "sizes"), 0), "any"),
		   "2025-11-25: %s items have an SVG icon", lists[i][0]);
	}
	mcp_server__free(s);

	s = server();
	initialize(s, "2025-06-18");
	ok(scx_json_get(&doc, at("result", "serverInfo", NULL), "icons") < 0,
	   "2025-06-18: no icons in serverInfo");
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(lists); i++) {
		snprintf(line, sizeof(line), "{\"jsonrpc\":\"2.0\",\"id\":%u,\"method\":\"%s\"}",
			 i + 1, lists[i][0]);
		ask(s, line);
		ok(at("result", lists[i][1], NULL) >= 0 && first_icon(lists[i][1]) < 0,
		   "2025-06-18: %s items have no icons", lists[i][0]);
	}
	/* the reverse: a modern request in that old session gets them */
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/list\",\"params\":{" MODERN_META
	       "}}");
	ok(first_icon("tools") >= 0, "a 2026-07-28 request in a 2025-06-18 session gets icons");
	ask(s,
	    "{\"jsonrpc\":\"2.0\",\"id\":10,\"method\":\"server/discover\",\"params\":{" MODERN_META
	    "}}");
	ok(scx_json_get(&doc, at("result", "_meta", "io.modelcontextprotocol/serverInfo", NULL),
			"icons") >= 0,
	   "discover: serverInfo has icons");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":11,\"method\":\"prompts/list\",\"params\":{" MODERN_META
	       "}}");
	ok(scx_json_get(&doc, at("result", "_meta", "io.modelcontextprotocol/serverInfo", NULL),
			"icons") < 0,
	   "other modern results: serverInfo without icons");
	mcp_server__free(s);
}

int main(void)
{
	legacy_session();
	modern_first();
	batches();
	icons();
	scx_json_free(&doc);
	scx_buf_free(&out);
	return done_testing();
}
