/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the unit tests of scx-mcp's protocol (t/unit/5002, 5003, 5004)
 * share: a server driven line by line through mcp_server__handle(), and
 * the response it gave last, parsed in doc (its text in out).
 */
#ifndef SCX_T_MCP_UNIT_H
#define SCX_T_MCP_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "json/json.h"
#include "core/util.h"

static struct scx_buf out;
static struct scx_json_doc doc;

/*
 * Send one line and parse the line that answers it, the one with an id (a
 * notification may come before or after it); doc is {} and the return -1
 * when no line does.
 */
static int ask(struct mcp_server *s, const char *line)
{
	char *p, *nl;

	scx_buf_reset(&out);
	mcp_server__handle(s, line, strlen(line), &out);
	scx_buf_add(&out, "", 1);
	for (p = out.data; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl)
			*nl = 0;
		if (!scx_json_parse(&doc, p, strlen(p)) && scx_json_get(&doc, 0, "id") >= 0)
			return 0;
	}
	scx_json_parse(&doc, "{}", 2);
	return -1;
}

/* A server with options o, initialized in revision version (NULL: not initialized). */
static struct mcp_server *mcp_session(const struct mcp_opts *o, const char *version)
{
	struct mcp_server *s = mcp_server__new(o);
	char line[256];

	if (!s)
		exit(1);
	if (version) {
		snprintf(line, sizeof(line),
			 "{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":{"
			 "\"protocolVersion\":\"%s\",\"capabilities\":{},\"clientInfo\":{"
			 "\"name\":\"t\",\"version\":\"1\"}}}",
			 version);
		ask(s, line);
	}
	return s;
}

#endif
