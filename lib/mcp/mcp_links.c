// SPDX-License-Identifier: GPL-2.0
/*
 * Linked results: a read-only tool whose whole result does not fit in one
 * tool result (--max-result) answers with the part that fits, as before,
 * and a resource_link to result://N, where the whole is kept for reading in
 * pages.  resources/read has no cursor in any revision, so the page is in
 * the URI: result://N is its first page, result://N/K page K, and each page
 * names the next one; the pages' "text" joined in order is the result's
 * JSON, byte for byte.
 *
 * Memory is bounded: a result of at most MCP_LINK_MAX bytes (a tool that
 * would write more is cut there, and says so as it always does), at most
 * MCP_MAX_LINKED of them, the oldest forgotten first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_int.h"

struct mcp_linked {
	unsigned n; /* result://n */
	char tool[64];
	struct scx_buf text;
};

/* bytes of the result in one page: its escaped text fits a tool result's room */
static size_t page_bytes(const struct mcp_server *s)
{
	return SCX_MAX(s->o.max_result / 3, (size_t)1024);
}

static unsigned nr_pages(const struct mcp_server *s, const struct mcp_linked *l)
{
	return (unsigned)((l->text.len + page_bytes(s) - 1) / page_bytes(s));
}

static void linked_free(struct mcp_linked *l)
{
	if (!l)
		return;
	scx_buf_free(&l->text);
	free(l);
}

void mcp_links_free(struct mcp_server *s)
{
	for (unsigned i = 0; i < MCP_MAX_LINKED; i++) {
		linked_free(s->linked[i]);
		s->linked[i] = NULL;
	}
}

void mcp_link_keep(struct mcp_server *s, const char *tool, const char *text, size_t len, char *uri,
		   size_t size, unsigned *pages)
{
	unsigned slot = 0;
	struct mcp_linked *l;

	/* a free slot, else the oldest one */
	for (unsigned i = 0; i < MCP_MAX_LINKED; i++) {
		if (!s->linked[i]) {
			slot = i;
			break;
		}
		if (s->linked[i]->n < s->linked[slot]->n)
			slot = i;
	}
	linked_free(s->linked[slot]);
	l = scx_xcalloc(1, sizeof(*l));
	l->n = ++s->linked_seq;
	snprintf(l->tool, sizeof(l->tool), "%s", tool);
	scx_buf_add(&l->text, text, len);
	s->linked[slot] = l;
	snprintf(uri, size, "result://%u", l->n);
	*pages = nr_pages(s, l);
}

/* result://N or result://N/K: the kept result and the page, or NULL */
static struct mcp_linked *parse(struct mcp_server *s, const char *uri, unsigned *page)
{
	char *end;
	unsigned long n, k = 0;

	if (strncmp(uri, "result://", 9) || uri[9] < '1' || uri[9] > '9')
		return NULL;
	n = strtoul(uri + 9, &end, 10);
	if (*end == '/') {
		const char *p = end + 1;

		if (*p < '0' || *p > '9' || (*p == '0' && p[1]))
			return NULL;
		k = strtoul(p, &end, 10);
	}
	if (*end || n > UINT32_MAX || k > UINT32_MAX)
		return NULL;
	for (unsigned i = 0; i < MCP_MAX_LINKED; i++) {
		struct mcp_linked *l = s->linked[i];

		if (l && l->n == n && k < nr_pages(s, l)) {
			*page = (unsigned)k;
			return l;
		}
	}
	return NULL;
}

bool mcp_link_exists(struct mcp_server *s, const char *uri)
{
	unsigned page;

	return parse(s, uri, &page);
}

/* A page cut inside a UTF-8 sequence would not be valid text: move to its start. */
static size_t char_start(const struct scx_buf *b, size_t off)
{
	while (off < b->len && off && ((unsigned char)b->data[off] & 0xc0) == 0x80)
		off--;
	return off;
}

int mcp_link_read(struct mcp_server *s, const char *uri, struct scx_jw *w)
{
	struct mcp_linked *l;
	unsigned page, pages;
	size_t from, to;
	char next[48];

	if (!(l = parse(s, uri, &page)))
		return mcp_error_no_resource(s, uri);
	pages = nr_pages(s, l);
	from = char_start(&l->text, (size_t)page * page_bytes(s));
	to = char_start(&l->text, SCX_MIN(l->text.len, (size_t)(page + 1) * page_bytes(s)));
	if (page + 1 == pages)
		to = l->text.len;
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "tool", l->tool);
	scx_jw_kuint(w, "page", page);
	scx_jw_kuint(w, "pages", pages);
	scx_jw_kuint(w, "bytes", l->text.len);
	scx_jw_kuint(w, "offset", from);
	scx_jw_key(w, "text");
	scx_jw_strn(w, l->text.data + from, to - from);
	if (page + 1 < pages) {
		snprintf(next, sizeof(next), "result://%u/%u", l->n, page + 1);
		scx_jw_kstr(w, "next", next);
	}
	scx_jw_obj_end(w);
	return 0;
}
