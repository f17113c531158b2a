// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz scx-mcp's message handling: the input is a conversation, one message
 * per line, given to three servers: a 2025-11-25 session, a 2025-03-26 one
 * (JSON-RPC batches) and one never initialized (2026-07-28 requests with
 * their _meta envelope, server/discover, subscriptions/listen, the tasks
 * extension's methods).  Whatever comes in, every line a server answers
 * must be one JSON object, or for a batch one array of objects (the framing
 * clients rely on).
 * Live tools are off (--no-live) and files are confined to an empty root.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "mcp/mcp.h"
#include "core/util.h"

enum { LEGACY, BATCHES, MODERN, NR_ERAS };

static struct mcp_server *server(int era)
{
	static struct mcp_server *s[NR_ERAS];
	static char dir[] = "/tmp/scx-mcp-fuzz.XXXXXX";
	static const char *roots[1]; /* one empty root for all three */
	static const char *const init[NR_ERAS] = {
		"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
		"{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
		"\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
		"{\"protocolVersion\":\"2025-03-26\",\"capabilities\":{},"
		"\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}",
		NULL,
	};
	struct mcp_opts o = { 0 };
	struct scx_buf out = { 0 };

	if (s[era])
		return s[era];
	if (!roots[0] && !(roots[0] = mkdtemp(dir)))
		abort();
	o.roots = roots;
	o.nr_roots = 1;
	o.no_live = true;
	o.max_line = 1 << 20;
	o.max_result = 8192;
	o.page_size = 3;
	s[era] = mcp_server__new(&o);
	if (!s[era])
		abort();
	if (init[era])
		mcp_server__handle(s[era], init[era], strlen(init[era]), &out);
	scx_buf_free(&out);
	return s[era];
}

static bool all_objects(const struct scx_json_doc *d)
{
	if (d->tok[0].type == JSMN_OBJECT)
		return true;
	if (d->tok[0].type != JSMN_ARRAY || !d->tok[0].size)
		return false;
	for (int i = 0, t; (t = scx_json_at(d, 0, i)) >= 0; i++)
		if (d->tok[t].type != JSMN_OBJECT)
			return false;
	return true;
}

static void check(const struct scx_buf *out)
{
	struct scx_json_doc d = { 0 };
	size_t i = 0;

	while (i < out->len) {
		const char *nl = memchr(out->data + i, '\n', out->len - i);

		if (!nl || scx_json_parse(&d, out->data + i, nl - (out->data + i)) ||
		    !all_objects(&d)) {
			fprintf(stderr, "bad output line: %.*s\n", (int)(out->len - i),
				out->data + i);
			abort();
		}
		i = nl - out->data + 1;
	}
	scx_json_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	for (int era = 0; era < NR_ERAS; era++) {
		struct mcp_server *s = server(era);
		struct scx_buf out = { 0 };
		size_t i = 0;

		while (i < size) {
			const uint8_t *nl = memchr(data + i, '\n', size - i);
			size_t n = nl ? (size_t)(nl - (data + i)) : size - i;

			mcp_server__handle(s, (const char *)data + i, n, &out);
			i += n + 1;
		}
		check(&out);
		scx_buf_free(&out);
	}
	return 0;
}
