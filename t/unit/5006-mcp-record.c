// SPDX-License-Identifier: GPL-2.0
/*
 * Results written from a tool's outputSchema table (mcp_out_write): each
 * kind writes its field under the field's name, in the table's order, and
 * leaves out what it says absent; the entries a tool writes by hand are
 * skipped, and a tool may write them after the record's fields.  Every tool's table binds its entries to values of the type its
 * schema declares.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "mcp/mcp_int.h"
#include "json/json.h"
#include "core/util.h"
#include "tap.h"

struct rec {
	const char *name, *gone;
	uint64_t n, zero, nz;
	int64_t neg, id, no_id;
	double rate, unset;
	bool ok;
	const struct scx_buf *obj, *no_obj;
	const uint64_t *inner, *no_inner;
};

static void nested(struct scx_jw *w, const void *val)
{
	scx_jw_obj_begin(w);
	scx_jw_kuint(w, "n", *(const uint64_t *)val);
	scx_jw_obj_end(w);
}

static const struct mcp_out table[] = {
	MCP_REC_STR(rec, name),
	{ "by_hand", "object" },
	MCP_REC_STR(rec, gone),
	MCP_REC_UINT(rec, n),
	MCP_REC_UINT(rec, zero),
	MCP_REC_UINT_NZ(rec, nz),
	MCP_REC_INT(rec, neg),
	MCP_REC_INT_SET(rec, id),
	MCP_REC_INT_SET(rec, no_id),
	MCP_REC_NUM(rec, rate),
	MCP_REC_NUM_SET(rec, unset),
	MCP_REC_BOOL(rec, ok),
	MCP_REC_OBJ(rec, obj),
	MCP_REC_OBJ(rec, no_obj),
	MCP_REC_FN(rec, inner, "object", nested),
	MCP_REC_FN(rec, no_inner, "object", nested),
	{ "" },
};

/* a boolean that may be left unsaid: false, true, absent; a number that
   may be negative or absent */
struct said {
	int8_t no, yes, unsaid;
	const int64_t *at, *nowhere;
};
static const struct mcp_out said_table[] = {
	MCP_REC_BOOL_SET(said, no), MCP_REC_BOOL_SET(said, yes),   MCP_REC_BOOL_SET(said, unsaid),
	MCP_REC_INT_AT(said, at),   MCP_REC_INT_AT(said, nowhere), { "" },
};

/* the whole object, or (fields) its members, then one of the caller's */
static const char *write(const struct rec *r, bool fields)
{
	static struct scx_buf b;
	struct scx_jw w;

	scx_buf_reset(&b);
	scx_jw_init(&w, &b);
	if (fields) {
		scx_jw_obj_begin(&w);
		mcp_out_fields(&w, table, r);
		scx_jw_key(&w, "by_hand");
		scx_jw_obj_begin(&w);
		scx_jw_obj_end(&w);
		scx_jw_obj_end(&w);
	} else {
		mcp_out_write(&w, table, r);
	}
	scx_buf_add(&b, "", 1);
	return b.data;
}

static const char *type_of(unsigned char val)
{
	switch (val) {
	case MCP_V_STR:
		return "string";
	case MCP_V_UINT:
	case MCP_V_UINT_NZ:
	case MCP_V_INT:
	case MCP_V_INT_SET:
	case MCP_V_INT_AT:
	case MCP_V_NUM:
	case MCP_V_NUM_SET:
		return "number";
	case MCP_V_BOOL:
	case MCP_V_BOOL_SET:
		return "boolean";
	case MCP_V_OBJ:
		return "object";
	}
	return NULL;
}

int main(void)
{
	struct scx_buf obj = { 0 }, empty = { 0 };
	struct rec r = { .name = "a\"b",
			 .n = 7,
			 .nz = 0,
			 .neg = -3,
			 .no_id = -1,
			 .rate = 0.5,
			 .unset = NAN,
			 .ok = true,
			 .obj = &obj };
	const char *got;

	scx_buf_add(&obj, "{\"x\":[1]}", 9);
	r.inner = &r.n;
	got = write(&r, false);
	ok(!strcmp(got, "{\"name\":\"a\\\"b\",\"n\":7,\"zero\":0,\"neg\":-3,\"id\":0,\"rate\":0.5,"
			"\"ok\":true,\"obj\":{\"x\":[1]},\"inner\":{\"n\":7}}"),
	   "absent values left out, the rest in the table's order, escaped: %s", got);
	r = (struct rec){ .gone = "g",
			  .nz = 3,
			  .id = 5,
			  .no_id = 6,
			  .unset = 1.25,
			  .ok = false,
			  .no_obj = &empty };
	r.no_inner = &r.nz;
	scx_buf_add(&empty, "{}", 2);
	got = write(&r, false);
	ok(!strcmp(got,
		   "{\"gone\":\"g\",\"n\":0,\"zero\":0,\"nz\":3,\"neg\":0,\"id\":5,\"no_id\":6,\"rate\":0,"
		   "\"unset\":1.25,\"ok\":false,\"no_obj\":{},\"no_inner\":{\"n\":3}}"),
	   "present once set: %s", got);
	got = write(&r, true);
	ok(!strcmp(got,
		   "{\"gone\":\"g\",\"n\":0,\"zero\":0,\"nz\":3,\"neg\":0,\"id\":5,\"no_id\":6,\"rate\":0,"
		   "\"unset\":1.25,\"ok\":false,\"no_obj\":{},\"no_inner\":{\"n\":3},"
		   "\"by_hand\":{}}"),
	   "the fields alone, for a tool that writes more keys after them: %s", got);
	scx_buf_free(&obj);
	scx_buf_free(&empty);
	{
		struct scx_buf b = { 0 };
		struct scx_jw w;

		scx_jw_init(&w, &b);
		mcp_out_write(
			&w, said_table,
			&(struct said){ .no = 0, .yes = 2, .unsaid = -1, .at = &(int64_t){ -7 } });
		scx_buf_add(&b, "", 1);
		ok(!strcmp(b.data, "{\"no\":false,\"yes\":true,\"at\":-7}"),
		   "a boolean that may be unsaid: false, true, left out; a number at a pointer, "
		   "or none: %s",
		   b.data);
		scx_buf_free(&b);
	}
	char hand[256] = "";
	size_t unbound = 0;

	for (unsigned t = 0; t < mcp_nr_tools; t++) {
		const struct mcp_out *e = mcp_tools[t].out;
		bool typed = true, fn = true;
		unsigned bound = 0;

		for (; e && e->key[0]; e++) {
			if (e->val == MCP_V_HAND)
				continue;
			bound++;
			if (e->val == MCP_V_FN) /* a nested value: scalars have kinds */
				fn &= e->fn &&
				      (!strcmp(e->type, "object") || !strcmp(e->type, "array"));
			else
				typed &= !strcmp(e->type, type_of(e->val));
		}
		if (bound)
			ok(typed && fn,
			   "%s: %u keys of its table bound to a record's fields, each of its schema's type",
			   mcp_tools[t].name, bound);
		else
			unbound += snprintf(hand + unbound, sizeof(hand) - unbound, "%s ",
					    mcp_tools[t].name);
	}
	/* every tool writes its result from its table: none binds no key */
	ok(!hand[0], "the tools whose tables bind no key to a record: %s", hand[0] ? hand : "none");
	/* a profile run as a task ends with get_perf_results' answer, which is
	   checked against start_perf_profiling's table */
	const struct mcp_tool *start = mcp_tool_find("start_perf_profiling"),
			      *results = mcp_tool_find("get_perf_results");
	char missing[256] = "";
	size_t nm = 0;

	for (const struct mcp_out *e = results->out; e->key[0]; e++) {
		const struct mcp_out *f = start->out;

		while (f->key[0] && strcmp(f->key, e->key))
			f++;
		if (!f->key[0] || strcmp(f->type, e->type))
			nm += snprintf(missing + nm, sizeof(missing) - nm, " %s", e->key);
	}
	ok(!missing[0],
	   "get_perf_results' keys are in start_perf_profiling's table, of the same types:%s",
	   missing[0] ? missing : " yes");
	return done_testing();
}
