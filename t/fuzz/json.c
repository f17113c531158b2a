// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the strict JSON reader and every accessor over every token; a string
 * that decodes must re-encode to JSON that parses back to the same bytes.
 * The one-pass reader must agree with the reference (jsmn and its checks,
 * lib/json/json_ref.c) on every input, and numbers must read as strtod reads them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json/json-int.h"

static bool same_tokens(const struct scx_json_doc *a, const struct scx_json_doc *b)
{
	if (a->ntok != b->ntok)
		return false;
	for (int i = 0; i < a->ntok; i++)
		if (memcmp(&a->tok[i], &b->tok[i], sizeof(a->tok[i])) ||
		    scx_json_next(a, i) != scx_json_next(b, i))
			return false;
	return true;
}

/* As t/unit/0002-json.c: equal, or a top-level primitive jsmn wants a delimiter after. */
static void against_reference(const struct scx_json_doc *d, int r, const uint8_t *data, size_t size)
{
	struct scx_json_doc ref = { 0 };
	int rr = scx_json_parse_ref(&ref, (const char *)data, size);

	if (!r && rr && d->tok[0].type == JSMN_PRIMITIVE && d->tok[0].end == (int)size) {
		char *sp = malloc(size + 1);

		memcpy(sp, data, size);
		sp[size] = ' ';
		rr = scx_json_parse_ref(&ref, sp, size + 1);
		if (rr || !same_tokens(d, &ref))
			abort();
		free(sp);
	} else if (!r != !rr || (!r && !same_tokens(d, &ref))) {
		abort();
	}
	scx_json_free(&ref);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scx_json_doc d = { 0 };
	struct scx_json_doc d2 = { 0 };
	struct scx_buf b = { 0 };
	int r = scx_json_parse(&d, (const char *)data, size);

	against_reference(&d, r, data, size);
	if (r) {
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
		int rd = scx_json_double(&d, i, &x);
		if (rd != -EINVAL && d.tok[i].end - d.tok[i].start < 64) {
			char num[64];
			double y;

			memcpy(num, d.js + d.tok[i].start, d.tok[i].end - d.tok[i].start);
			num[d.tok[i].end - d.tok[i].start] = 0;
			y = strtod(num, NULL);
			if (!rd && memcmp(&x, &y, sizeof(x)))
				abort(); /* the fast path is not strtod */
			if (rd == -ERANGE && !isinf(y))
				abort(); /* out of range only where strtod overflows */
		}
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
