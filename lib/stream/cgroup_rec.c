// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup side record of scx(7): {"type":"cgroup","id":N,"path":"/a/b"}
 * names a cgroup v2 id that events carry.  It travels as an "other" object
 * (an NDJSON line, a binary 0x8003 record), so readers older than it pass it
 * on or skip it, and it comes before the first event that carries the id.
 * The path is bytes, like a comm: invalid UTF-8 survives as \u00XX.
 */
#include <stdio.h>
#include <string.h>

#include "core/util.h"
#include "stream/stream.h"

void scx_cgroup_rec_json(struct scx_buf *b, uint64_t id, const char *path)
{
	size_t n = strnlen(path, SCX_CGROUP_PATH_MAX - 1);

	scx_buf_reserve(b, 48 + 6 * n);
	b->len += snprintf(b->data + b->len, 48,
			   "{\"type\":\"cgroup\",\"id\":%llu,\"path\":", (unsigned long long)id);
	b->len += scx_json_escape_to(b->data + b->len, path, n, true);
	b->data[b->len++] = '}';
}

int scx_cgroup_rec_parse(const struct scx_json_doc *d, uint64_t *id, char *path, size_t size,
			 char *err, size_t errsz)
{
	int t = scx_json_get(d, 0, "type"), i, p;
	const jsmntok_t *tok;
	char rec[48], what[96];
	long n;

	if (t < 0 || !scx_json_eq(d, t, "cgroup"))
		return 0;
	i = scx_json_get(d, 0, "id");
	p = scx_json_get(d, 0, "path");
	if (i < 0 || scx_json_uint(d, i, id) || *id == SCX_CGROUP_NONE)
		return scx_json_rec_err(d, i, "cgroup record", err, errsz,
					"\"id\" is not a cgroup id (an integer from 1)");
	snprintf(rec, sizeof(rec), "cgroup record %llu", (unsigned long long)*id);
	if (p < 0 || !scx_json_is_str(d, p))
		return scx_json_rec_err(d, p, rec, err, errsz, "\"path\" is not a string");
	tok = &d->tok[p];
	n = scx_json_unescape(d->js + tok->start, tok->end - tok->start, path, size - 1,
			      SCX_JSON_BYTES);
	if (n < 0 || (size_t)n >= size || n == 0 || path[0] != '/' || memchr(path, 0, n)) {
		snprintf(what, sizeof(what),
			 "\"path\" is not an absolute path of at most %zu bytes", size - 1);
		return scx_json_rec_err(d, p, rec, err, errsz, what);
	}
	path[n] = 0;
	return 1;
}
