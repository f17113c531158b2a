// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the strict JSON reader and every accessor over every token; a string
 * that decodes must re-encode to JSON that parses back to the same bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scx_json_doc d = { 0 };
	struct scx_json_doc d2 = { 0 };
	struct scx_buf b = { 0 };

	if (scx_json_parse(&d, (const char *)data, size)) {
		if (!d.err || d.err_off > size)
			abort();
		goto out;
	}
	for (int i = 0; i < d.ntok; i++) {
		int64_t v;
		uint64_t u;
		double x;
		bool bo;
		char buf[32];

		scx_json_int(&d, i, &v);
		scx_json_uint(&d, i, &u);
		scx_json_double(&d, i, &x);
		scx_json_bool(&d, i, &bo);
		scx_json_is_null(&d, i);
		if (scx_json_next(&d, i) <= i)
			abort();
		if (d.tok[i].type == JSMN_OBJECT)
			scx_json_get(&d, i, "type");
		if (d.tok[i].type == JSMN_ARRAY)
			scx_json_at(&d, i, d.tok[i].size - 1);
		scx_json_str(&d, i, buf, sizeof(buf));
		char *s = scx_json_strdup(&d, i);
		if (!s)
			continue;
		int n = scx_json_str(&d, i, NULL, 0);
		b.len = 0;
		scx_json_escape(&b, s, n);
		if (scx_json_parse(&d2, b.data, b.len))
			abort();
		char *s2 = scx_json_strdup(&d2, 0);
		/* NUL-free valid UTF-8 survives exactly */
		if (!s2 || (strlen(s) == (size_t)n && strcmp(s, s2)))
			abort();
		free(s2);
		free(s);
	}
out:
	scx_json_free(&d);
	scx_json_free(&d2);
	scx_buf_free(&b);
	return 0;
}
