// SPDX-License-Identifier: GPL-2.0
/*
 * Linked results read in pages: a query larger than a tool result links to
 * result://N; its pages, each naming the next and never cut inside a UTF-8
 * character, join into the whole; the oldest linked result is forgotten
 * when a ninth comes; sessions before 2025-06-18 make none; bad page URIs
 * are resource-not-found in the request's era.
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

#define QUERY \
	"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":" \
	"\"query_trace_events\",\"arguments\":{\"trace_id\":\"p\",\"limit\":1000}}}"

static struct mcp_server *session(const char *version)
{
	/* a small result size: a few dozen events do not fit */
	struct mcp_opts o = { .no_live = true, .max_result = 2048 };
	struct mcp_server *s = mcp_session(&o, version);

	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":"
	       "\"load_perfetto_trace\",\"arguments\":{\"file_path\":\"p.ndjson\","
	       "\"trace_id\":\"p\"}}}");
	return s;
}

/* The uri of the call's resource_link, "" without one. */
static const char *link_uri(void)
{
	static char uri[64];
	int content = scx_json_get(&doc, scx_json_get(&doc, 0, "result"), "content");

	uri[0] = 0;
	for (int i = 0, b; content >= 0 && (b = scx_json_at(&doc, content, i)) >= 0; i++)
		if (scx_json_eq(&doc, scx_json_get(&doc, b, "type"), "resource_link"))
			scx_json_str(&doc, scx_json_get(&doc, b, "uri"), uri, sizeof(uri));
	return uri;
}

static int64_t err_code(void)
{
	int64_t c = 0;

	scx_json_int(&doc, scx_json_get(&doc, scx_json_get(&doc, 0, "error"), "code"), &c);
	return c;
}

/* Read uri; its page object parsed into *page (caller frees). 0 or -1. */
static int read_page(struct mcp_server *s, const char *uri, struct scx_json_doc *page,
		     char **text_out)
{
	char line[256];
	int t, n;
	char *text;

	snprintf(line, sizeof(line),
		 "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
		 "{\"uri\":\"%s\"}}",
		 uri);
	ask(s, line);
	t = scx_json_get(&doc, scx_json_get(&doc, 0, "result"), "contents");
	t = scx_json_get(&doc, scx_json_at(&doc, t, 0), "text");
	if (t < 0)
		return -1;
	n = scx_json_str(&doc, t, NULL, 0);
	text = scx_xmalloc(n + 1);
	scx_json_str(&doc, t, text, n + 1);
	*text_out = text;
	return scx_json_parse(page, text, n);
}

static void write_trace(void)
{
	FILE *f = fopen("p.ndjson", "w");

	if (!f)
		exit(1);
	fputs("{\"type\":\"header\",\"version\":1,\"producer\":\"t\",\"clock\":\"boottime\","
	      "\"hostname\":\"t\",\"kernel\":\"t\",\"nr_cpus\":1,\"topology\":null,"
	      "\"scheduler\":null,\"options\":{},\"start_ns\":0}\n",
	      f);
	/* names of two-byte characters only: page boundaries fall inside them */
	for (int i = 0; i < 60; i++)
		fprintf(f,
			"{\"ts\":%d,\"cpu\":0,\"type\":\"sched_switch\",\"prev_pid\":1,"
			"\"prev_tgid\":1,\"prev_comm\":\"\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\","
			"\"prev_prio\":120,\"prev_state\":1,\"next_pid\":2,\"next_tgid\":2,"
			"\"next_comm\":\"\xc3\xa0\xc3\xa0\xc3\xa0\xc3\xa0\xc3\xa0\xc3\xa0\xc3\xa0\","
			"\"next_prio\":120}\n",
			1000 + i * 1000);
	fclose(f);
}

int main(void)
{
	char dir[] = "/tmp/mcp-pages.XXXXXX", uri[64], first[64];
	struct scx_buf whole = { 0 };
	struct scx_json_doc page = { 0 }, all = { 0 };
	struct mcp_server *s;
	int64_t pages = 0, bytes = -1, v;
	bool utf8_ok = true, pages_ok = true;
	unsigned n = 0;

	if (!mkdtemp(dir) || chdir(dir))
		return 1;
	write_trace();
	s = session("2025-11-25");
	ask(s, QUERY);
	snprintf(first, sizeof(first), "%s", link_uri());
	is_str(first, "result://1", "a query larger than a tool result links to result://1");
	snprintf(uri, sizeof(uri), "%s", first);
	while (uri[0] && n < 100) {
		char *text = NULL;
		int t;

		if (read_page(s, uri, &page, &text)) {
			pages_ok = false;
			free(text);
			break;
		}
		t = scx_json_get(&page, 0, "text");
		{
			int len = scx_json_str(&page, t, NULL, 0);
			char *piece = scx_xmalloc(len + 1);

			scx_json_str(&page, t, piece, len + 1);
			if (len && ((unsigned char)piece[0] & 0xc0) == 0x80)
				utf8_ok = false;
			scx_buf_add(&whole, piece, len);
			free(piece);
		}
		if (scx_json_int(&page, scx_json_get(&page, 0, "page"), &v) || v != n)
			pages_ok = false;
		scx_json_int(&page, scx_json_get(&page, 0, "pages"), &pages);
		scx_json_int(&page, scx_json_get(&page, 0, "bytes"), &bytes);
		uri[0] = 0;
		scx_json_str(&page, scx_json_get(&page, 0, "next"), uri, sizeof(uri));
		free(text);
		n++;
	}
	ok(pages_ok && n > 1 && pages == n, "%u pages read in order, each naming the next", n);
	{
		/* the data must put a plain 1024-byte boundary inside a character */
		bool inside = false;

		for (size_t b = 1024; b < whole.len; b += 1024)
			inside |= ((unsigned char)whole.data[b] & 0xc0) == 0x80;
		ok(inside && utf8_ok, "no page starts inside a UTF-8 character");
	}
	is_int(whole.len, bytes, "the pieces have the whole's size");
	ok(!scx_json_parse(&all, whole.data, whole.len) &&
		   !scx_json_int(&all, scx_json_get(&all, 0, "returned"), &v) && v == 60 &&
		   scx_json_at(&all, scx_json_get(&all, 0, "events"), 59) >= 0,
	   "the pieces join into the whole result: all 60 events");

	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
	       "{\"uri\":\"result://1/99\"}}");
	is_int(err_code(), -32002, "a page past the end: -32002 in a session");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
	       "{\"uri\":\"result://1/x\",\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":"
	       "\"2026-07-28\",\"io.modelcontextprotocol/clientCapabilities\":{}}}}");
	is_int(err_code(), -32602, "a bad page: -32602 in a 2026-07-28 request");
	for (int i = 0; i < 8; i++)
		ask(s, QUERY);
	is_str(link_uri(), "result://9", "the ninth linked result");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
	       "{\"uri\":\"result://1\"}}");
	is_int(err_code(), -32002, "the first was forgotten: at most 8 are kept");
	mcp_server__free(s);

	s = session("2025-03-26");
	ask(s, QUERY);
	is_str(link_uri(), "", "a 2025-03-26 session gets no link");
	ask(s, "{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"resources/read\",\"params\":"
	       "{\"uri\":\"result://1\"}}");
	is_int(err_code(), -32002, "and nothing was kept for it");
	mcp_server__free(s);

	unlink("p.ndjson");
	rmdir(dir);
	scx_buf_free(&whole);
	scx_json_free(&page);
	scx_json_free(&all);
	scx_json_free(&doc);
	scx_buf_free(&out);
	return done_testing();
}
