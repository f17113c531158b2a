// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz scx-mcp's message handling: the input is a conversation, one message
 * per line, after a fixed initialize.  Whatever comes in, every line the
 * server answers must be one JSON object (the framing clients rely on).
 * Live tools are off (--no-live) and files are confined to an empty root.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json.h"
#include "mcp/mcp.h"
#include "core/util.h"

static struct mcp_server *server(void)
{
	static struct mcp_server *s;
	static char dir[] = "/tmp/scx-mcp-fuzz.XXXXXX";
	static const char *roots[1];
	static const char init[] = "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\","
		"\"params\":{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},"
		"\"clientInfo\":{\"name\":\"fuzz\",\"version\":\"1\"}}}";
	struct mcp_opts o = { 0 };
	struct scx_buf out = { 0 };

	if (s)
		return s;
	if (!mkdtemp(dir))
		abort();
	roots[0] = dir;
	o.roots = roots;
	o.nr_roots = 1;
	o.no_live = true;
	o.max_line = 1 << 20;
	o.max_result = 8192;
	o.page_size = 3;
	s = mcp_server__new(&o);
	if (!s)
		abort();
	mcp_server__handle(s, init, sizeof(init) - 1, &out);
	scx_buf_free(&out);
	return s;
}

static void check(const struct scx_buf *out)
{
	struct scx_json_doc d = { 0 };
	size_t i = 0;

	while (i < out->len) {
		const char *nl = memchr(out->data + i, '\n', out->len - i);

		if (!nl || scx_json_parse(&d, out->data + i, nl - (out->data + i)) ||
		    d.tok[0].type != JSMN_OBJECT) {
			fprintf(stderr, "bad output line: %.*s\n", (int)(out->len - i), out->data + i);
			abort();
		}
		i = nl - out->data + 1;
	}
	scx_json_free(&d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mcp_server *s = server();
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
	return 0;
}
