// SPDX-License-Identifier: GPL-2.0
/*
 * The check of a tool's result against its outputSchema before it is sent
 * (mcp_call_result): it finds each top-level member without parsing the
 * values, so nested strings holding quotes, escapes and brackets must not
 * shift it; a key not in the tool's table, or of another type, makes the
 * call an internal error; good results carry structuredContent, byte for
 * byte the text.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp.h"
#include "mcp/mcp_int.h"
#include "json/json.h"
#include "core/util.h"
#include "tap.h"

static const struct mcp_out table[] = {
	{ "name", "string" },
	{ "n", "number" },
	{ "ok", "boolean" },
	{ "rows", "array" },
	{ "obj", "object" },
	{ "a_key_of_more_than_16", "number" },
	{ "" },
};
static const struct mcp_tool tool = { .name = "fake", .out = table };

static struct mcp_server *srv;
static struct scx_json_doc doc;
static struct scx_buf res;

/* The CallToolResult for a tool that wrote json; 0 when it is not an error. */
static int result_of(const char *json)
{
	struct mcp_call c = { .s = srv, .tool = &tool, .args = -1 };
	struct scx_jw w;
	bool err = true;

	scx_buf_reset(&res);
	/* exactly its size: the sanitizers see a read past the result */
	c.out.len = c.out.cap = strlen(json);
	c.out.data = scx_xmalloc(c.out.len);
	memcpy(c.out.data, json, c.out.len);
	scx_jw_init(&w, &res);
	mcp_call_result(&c, &w);
	scx_buf_free(&c.out);
	if (scx_json_parse(&doc, res.data, res.len))
		return -1;
	scx_json_bool(&doc, scx_json_get(&doc, 0, "isError"), &err);
	return err;
}

/* The structuredContent of the last result, as text ("" without one). */
static const char *structured(void)
{
	static char buf[4096];
	int t = scx_json_get(&doc, 0, "structuredContent");

	if (t < 0)
		return "";
	snprintf(buf, sizeof(buf), "%.*s", doc.tok[t].end - doc.tok[t].start,
		 doc.js + doc.tok[t].start);
	return buf;
}

static bool message_has(const char *s)
{
	int content = scx_json_get(&doc, 0, "content");
	char text[1200] = "";

	scx_json_str(&doc, scx_json_get(&doc, scx_json_at(&doc, content, 0), "text"), text,
		     sizeof(text));
	return strstr(text, s) != NULL;
}

int main(void)
{
	struct mcp_opts o = { .no_live = true };
	static const char *const good[] = {
		"{}",
		"{\"name\":\"a\",\"n\":1,\"ok\":true,\"rows\":[],\"obj\":{}}",
		/* keys in any order, repeated, negative and fractional numbers */
		"{\"obj\":{\"k\":[1,2]},\"n\":-2.5e3,\"name\":\"b\",\"n\":0,\"ok\":false}",
		/* nested strings that hold what ends a value */
		"{\"rows\":[\"}\",\"]\",\",\",\"\\\"}\",\"\\\\\"],\"name\":\"x\\\"}\",\"n\":7}",
		"{\"obj\":{\"a\":\"{[\",\"b\":{\"c\":\"\\\\\\\"]\"}},\"ok\":true}",
		"{ \"name\" : \"sp\" , \"n\" : 3 }",
		/* a key past the 16 bytes compared at once, and strings, escapes and
		   brackets across the 16-byte steps of the scan */
		"{\"a_key_of_more_than_16\":1,\"name\":\"0123456789abcde\\\"0123456789\\\\\",\"rows\":"
		"[{\"k\":\"0123456789abc}]\"},{\"k\":\"[[[[[[[[[[[[[[[[[[[[\"},[],{}],\"n\":12345678901234567890}",
		/* the keys out of the table's order */
		"{\"n\":1,\"a_key_of_more_than_16\":2,\"name\":\"z\"}",
	};
	static const struct {
		const char *json, *msg;
	} bad[] = {
		{ "{\"name\":\"a\",\"extra\":1}", "has 'extra' not in its outputSchema" },
		{ "{\"n\":\"1\"}", "has 'n' of another type than its outputSchema" },
		{ "{\"ok\":null}", "has 'ok' of another type than" },
		{ "{\"rows\":{}}", "has 'rows' of another type than" },
		/* a key hidden in a nested string is not a member... */
		{ "{\"name\":\"\\\",\\\"extra\\\":1\",\"n\":[{\"x\":\"}\"}]}",
		  "has 'n' of another type than" },
		/* ...and one after a nested object with a bracket in a string is */
		{ "{\"obj\":{\"s\":\"}}\"},\"nope\":true}", "has 'nope' not in" },
		{ "[1,2]", "not a JSON object" },
		{ "{\"name\" 1}", "not a JSON object" },
		{ "{\"name\":\"a\",}", "not a JSON object" },
		{ "{\"name\":\"a\"", "not a JSON object" },
		/* the table's key cut short, or run on, or spelt with an escape */
		{ "{\"nam\":\"a\",\"n\":1,\"ok\":true,\"rows\":[]}", "has 'nam' not in" },
		{ "{\"names\":\"a\",\"n\":1,\"ok\":true,\"rows\":[]}", "has 'names' not in" },
		{ "{\"na\\u006de\":\"a\",\"n\":1,\"ok\":true,\"rows\":[]}", "not in" },
		{ "{\"a_key_of_more_than_1\":1,\"n\":1,\"ok\":true}",
		  "has 'a_key_of_more_than_1' not in" },
		{ "{\"a_key_of_more_than_16x\":1}", "not in" },
		{ "{\"\":1}", "has '' not in" },
		/* a string that does not end, past the 16-byte steps */
		{ "{\"name\":\"0123456789abcdef0123456789\\\"}", "not a JSON object" },
	};

	srv = mcp_server__new(&o);
	if (!srv)
		return 1;
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(good); i++) {
		ok(result_of(good[i]) == 0, "good %u passes the check", i);
		ok(!strcmp(structured(), good[i]), "good %u: structuredContent is the text: %s", i,
		   structured());
	}
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(bad); i++) {
		ok(result_of(bad[i].json) == 1, "bad %u is an error", i);
		ok(message_has(bad[i].msg) && !*structured(), "bad %u says '%s'", i, bad[i].msg);
	}
	/*
	 * Nested values are skipped 16 bytes a step: slide escapes, quotes and
	 * brackets in strings across the steps' edges (a backslash or a quote
	 * as a step's last byte carries into the next).
	 */
	bool slid_good = true, slid_bad = true;

	for (unsigned pad = 0; pad < 40; pad++) {
		char json[256];
		const char *tail = "\\\"}]\\\\\",\"t\":[1,{\"u\":\"]\\\"\"},[[]],\"{\"]}";

		snprintf(json, sizeof(json), "{\"obj\":{\"s\":\"%.*s%s,\"n\":%u}", (int)pad,
			 "0123456789012345678901234567890123456789", tail, pad);
		slid_good &= result_of(json) == 0 && !strcmp(structured(), json);
		snprintf(json, sizeof(json), "{\"obj\":{\"s\":\"%.*s%s,\"nope\":%u}", (int)pad,
			 "0123456789012345678901234567890123456789", tail, pad);
		slid_bad &= result_of(json) == 1 && message_has("has 'nope' not in");
	}
	ok(slid_good, "nested values: escapes and brackets in strings at every offset pass");
	ok(slid_bad, "nested values: the member after them is found at every offset");
	/* the check compares a table's keys 16 bytes at once and knows five types */
	for (unsigned t = 0; t < mcp_nr_tools; t++) {
		const struct mcp_out *e = mcp_tools[t].out;
		bool fits = true, typed = true;

		for (; e && e->key[0]; e++) {
			fits &= memchr(e->key, 0, MCP_OUT_KEY) != NULL;
			typed &= !strcmp(e->type, "string") || !strcmp(e->type, "number") ||
				 !strcmp(e->type, "boolean") || !strcmp(e->type, "object") ||
				 !strcmp(e->type, "array");
		}
		ok(fits && typed, "%s: every outputSchema key fits MCP_OUT_KEY, of a known type",
		   mcp_tools[t].name);
	}
	/* the bench knob sends the text alone and checks nothing */
	srv->bench_no_structured = true;
	ok(result_of("{\"extra\":1}") == 0 && !*structured(),
	   "without structured output: unchecked");
	scx_json_free(&doc);
	scx_buf_free(&res);
	mcp_server__free(srv);
	return done_testing();
}
