// SPDX-License-Identifier: GPL-2.0
/*
 * Results written from a tool's outputSchema table (mcp_out_write): each
 * kind writes its field under the field's name, in the table's order, and
 * leaves out what it says absent; the entries a tool writes by hand are
 * skipped.  Every tool's table binds its entries to values of the type its
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
	double rate, unset;
	bool ok;
};

static void nested(struct scx_jw *w, const void *rec)
{
	scx_jw_obj_begin(w);
	scx_jw_kuint(w, "n", ((const struct rec *)rec)->n);
	scx_jw_obj_end(w);
}

static const struct mcp_out table[] = {
	MCP_REC_STR(rec, name),
	{ "by_hand", "object" },
	MCP_REC_STR(rec, gone),
	MCP_REC_UINT(rec, n),
	MCP_REC_UINT(rec, zero),
	MCP_REC_UINT_NZ(rec, nz),
	MCP_REC_NUM(rec, rate),
	MCP_REC_NUM_SET(rec, unset),
	MCP_REC_BOOL(rec, ok),
	MCP_REC_FN("inner", "object", nested),
	{ "" },
};

static const char *write(const struct rec *r)
{
	static struct scx_buf b;
	struct scx_jw w;

	scx_buf_reset(&b);
	scx_jw_init(&w, &b);
	mcp_out_write(&w, table, r);
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
	case MCP_V_NUM:
	case MCP_V_NUM_SET:
		return "number";
	case MCP_V_BOOL:
		return "boolean";
	}
	return NULL;
}

int main(void)
{
	struct rec r = { .name = "a\"b", .n = 7, .nz = 0, .rate = 0.5, .unset = NAN, .ok = true };
	const char *got = write(&r);

	ok(!strcmp(got, "{\"name\":\"a\\\"b\",\"n\":7,\"zero\":0,\"rate\":0.5,\"ok\":true,"
			"\"inner\":{\"n\":7}}"),
	   "absent values left out, the rest in the table's order, escaped: %s", got);
	r = (struct rec){ .gone = "g", .nz = 3, .unset = 1.25, .ok = false };
	got = write(&r);
	ok(!strcmp(got, "{\"gone\":\"g\",\"n\":0,\"zero\":0,\"nz\":3,\"rate\":0,\"unset\":1.25,"
			"\"ok\":false,\"inner\":{\"n\":0}}"),
	   "present once set: %s", got);
	for (unsigned t = 0; t < mcp_nr_tools; t++) {
		const struct mcp_out *e = mcp_tools[t].out;
		bool typed = true, fn = true;
		unsigned bound = 0;

		for (; e && e->key[0]; e++) {
			if (e->val == MCP_V_HAND)
				continue;
			bound++;
			if (e->val == MCP_V_FN)
				fn &= e->fn != NULL;
			else
				typed &= !strcmp(e->type, type_of(e->val));
		}
		if (bound)
			ok(typed && fn,
			   "%s: %u keys written from its table, each of its schema's type",
			   mcp_tools[t].name, bound);
	}
	return done_testing();
}
