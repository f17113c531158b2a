// SPDX-License-Identifier: GPL-2.0
/*
 * perf.jsonl and hints.jsonl readers: any bytes are either a record or an
 * error with an offset inside the line; extract over the same bytes builds a
 * config that the mitosis validator accepts whenever reading succeeded.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prof/prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct prof_extract_opts o = { .threshold = 5.0 };
	struct scx_buf scratch = { 0 }, cfg = { 0 }, warn = { 0 }, sum = { 0 };
	struct prof_extract *x;
	char err[512];
	size_t start = 0;

	while (start < size) {
		const char *nl = memchr(s + start, '\n', size - start);
		size_t end = nl ? (size_t)(nl - s) : size, off = 0;
		struct prof_rec r;
		struct prof_hint_rec h;
		const char *why = NULL;

		if (prof_rec_parse(s + start, end - start, &r, &scratch, &off, &why)) {
			if (!why || off > end - start)
				abort();
		}
		why = NULL;
		if (prof_hint_parse(s + start, end - start, &h, &why) && !why)
			abort();
		start = end + 1;
	}
	for (int fmt = 0; fmt < 2; fmt++) {
		o.format = fmt;
		x = prof_extract__new(&o, err, sizeof(err));
		if (!x)
			abort();
		if (!prof_extract__feed(x, s, size) && !prof_extract__finish(x)) {
			prof_extract__summary(x, 2, &sum);
			scx_buf_reset(&cfg);
			if (prof_extract__config(x, &cfg, &warn))
				abort();
			if (fmt == PROF_FMT_MITOSIS &&
			    prof_mitosis_validate(cfg.data, cfg.len, err, sizeof(err)))
				abort();
		}
		prof_extract__free(x);
	}
	scx_buf_free(&scratch);
	scx_buf_free(&cfg);
	scx_buf_free(&warn);
	scx_buf_free(&sum);
	return 0;
}
