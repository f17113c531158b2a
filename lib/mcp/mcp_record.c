// SPDX-License-Identifier: GPL-2.0
/*
 * A tool result written from its outputSchema table: the tool fills a
 * record (a struct), the table names each key's field and kind, and the
 * writer walks the table.  The schema (tools/list), the check before a
 * result is sent (mcp_outcheck.c) and the result come from one table, so a
 * key, its type and its order are written once.
 */
#include <math.h>
#include <string.h>

#include "mcp/mcp_int.h"

void mcp_out_fields(struct scx_jw *w, const struct mcp_out *o, const void *rec)
{
	const char *base = rec;

	for (; o->key[0]; o++) {
		const void *f = base + o->off;
		const void *p;
		uint64_t u;
		int64_t i;
		double d;

		switch (o->val) {
		case MCP_V_HAND:
			break;
		case MCP_V_STR:
			if (*(const char *const *)f)
				scx_jw_kstr(w, o->key, *(const char *const *)f);
			break;
		case MCP_V_UINT:
		case MCP_V_UINT_NZ:
			memcpy(&u, f, sizeof(u));
			if (u || o->val == MCP_V_UINT)
				scx_jw_kuint(w, o->key, u);
			break;
		case MCP_V_INT:
		case MCP_V_INT_SET:
			memcpy(&i, f, sizeof(i));
			if (i >= 0 || o->val == MCP_V_INT)
				scx_jw_kint(w, o->key, i);
			break;
		case MCP_V_INT_AT:
			memcpy(&p, f, sizeof(p));
			if (p) {
				memcpy(&i, p, sizeof(i));
				scx_jw_kint(w, o->key, i);
			}
			break;
		case MCP_V_NUM:
		case MCP_V_NUM_SET:
			memcpy(&d, f, sizeof(d));
			if (!isnan(d) || o->val == MCP_V_NUM)
				scx_jw_knum(w, o->key, d);
			break;
		case MCP_V_BOOL:
			scx_jw_kbool(w, o->key, *(const bool *)f);
			break;
		case MCP_V_BOOL_SET:
			if (*(const int8_t *)f >= 0)
				scx_jw_kbool(w, o->key, *(const int8_t *)f != 0);
			break;
		case MCP_V_OBJ:
			memcpy(&p, f, sizeof(p));
			if (p) {
				const struct scx_buf *b = p;

				scx_jw_key(w, o->key);
				scx_jw_raw(w, b->data, b->len);
			}
			break;
		case MCP_V_FN:
			memcpy(&p, f, sizeof(p));
			if (p) {
				scx_jw_key(w, o->key);
				o->fn(w, p);
			}
			break;
		}
	}
}

void mcp_out_write(struct scx_jw *w, const struct mcp_out *o, const void *rec)
{
	scx_jw_obj_begin(w);
	mcp_out_fields(w, o, rec);
	scx_jw_obj_end(w);
}
