// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz the summary reader of scx-agg diff.  Beyond not crashing: a record
 * read twice merges into counts that are exactly double, and two summaries
 * of whatever was read compare without fault.
 */
#include <stdlib.h>
#include <string.h>

#include "agg/agg_summary_int.h"
#include "agg/table.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct scx_sum *a = scx_sum__new(), *b = scx_sum__new();
	char err[256];

	if (!scx_sum__add_json(a, (const char *)data, size, err, sizeof(err))) {
		struct scx_table *t;
		struct scx_diff_verdict v;

		if (scx_sum__add_json(a, (const char *)data, size, err, sizeof(err)))
			abort(); /* read once, read twice */
		if (scx_sum__add_json(b, (const char *)data, size, err, sizeof(err)))
			abort();
		if (a->total.h[H_WAKE].count != 2 * b->total.h[H_WAKE].count ||
		    a->total.fig[F_BUSY] != 2 * b->total.fig[F_BUSY])
			abort();
		scx_agg_diff(a, b, NULL, &t, &v);
		scx_table_free(t);
	}
	scx_sum__free(a);
	scx_sum__free(b);
	return 0;
}
