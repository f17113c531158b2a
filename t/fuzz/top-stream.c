// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz scx-top's input layer (lib/top/topinput.c): the bytes as a whole
 * stream (events, scx-agg snapshot lines or kernel snapshots, in or out of
 * time order), each model rendered as scx-top would show it.
 */
#include <stdlib.h>

#include "stream/stream.h"
#include "top/topinput.h"
#include "top/topview.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct top_input_opts o = { .interval_ns = 1000000, .reorder_ns = 10000000 };
	struct scx_reader *r = scx_reader__mem(data, size, "fuzz");
	struct top_input *in = r ? top_input__new(r, &o) : NULL;
	const struct top_model *m;
	struct top_view v;
	struct scx_buf b = { 0 };
	char err[256];
	unsigned frames = 0;

	if (!in) {
		scx_reader__free(r);
		return 0;
	}
	top_view_init(&v);
	v.escapes = v.color = false;
	while (top_input__next(in, &m, err, sizeof(err)) > 0) {
		/* the views in turn; the per-task tables come and go with them */
		v.view = frames++ % TV_HELP;
		top_input__want(in, v.view == TV_PROC	? TOP_WANT_TASKS :
				    v.view == TV_CGROUP ? TOP_WANT_CGROUPS :
							  0);
		scx_buf_reset(&b);
		top_render(&b, m, &v);
		if (m->start_ns > m->end_ns)
			abort();
	}
	scx_buf_free(&b);
	top_input__free(in);
	return 0;
}
