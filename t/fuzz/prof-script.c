// SPDX-License-Identifier: GPL-2.0
/*
 * perf.script lines: every line either parses into views inside the line or
 * is rejected with a reason, and what process writes for it reads back as a
 * valid perf.jsonl record with the same pid and tid.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "prof/prof.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct prof_process p = { 0 };
	struct scx_buf out = { 0 }, scratch = { 0 };
	size_t start = 0;

	while (start <= size) {
		const char *nl = memchr(s + start, '\n', size - start);
		size_t end = nl ? (size_t)(nl - s) : size;
		struct prof_sample smp;
		struct prof_rec r;
		const char *why = NULL, *rwhy;
		size_t off;
		int k = prof_script_parse(s + start, end - start, &smp, &why);

		if ((k == PROF_LINE_BAD || k == PROF_LINE_NO_CGROUP) && !why)
			abort();
		if (k == PROF_LINE_OK) {
			const struct scx_str *f[] = {
				&smp.comm, &smp.time, &smp.addr, &smp.cgroup,
				&smp.ip,   &smp.sym,  &smp.dso,	 &smp.phys,
			};

			for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
				if (f[i]->n && (f[i]->p < s + start || f[i]->p + f[i]->n > s + end))
					abort();
			scx_buf_reset(&out);
			prof_jsonl_write(&out, &smp, NULL);
			if (prof_rec_parse(out.data, out.len - 1, &r, &scratch, &off, &rwhy) ||
			    r.pid != smp.pid || r.tid != smp.tid)
				abort();
		}
		start = end + 1;
	}
	/* the streaming path, fed in two uneven chunks */
	scx_buf_reset(&out);
	if (!prof_process__feed(&p, s, size / 3, &out) &&
	    !prof_process__feed(&p, s + size / 3, size - size / 3, &out))
		prof_process__finish(&p, &out);
	prof_process__free(&p);
	scx_buf_free(&out);
	scx_buf_free(&scratch);
	return 0;
}
