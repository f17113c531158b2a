// SPDX-License-Identifier: GPL-2.0
/*
 * Time scx-top's frame rendering: aggregate a stream (argv[1], e.g. from
 * top-gen -c 512 -N 8) through lib/agg like scx-top does, keep the last
 * window with a full sparkline history, then render every view many times,
 * as a 240x70 terminal frame and as a batch frame with every row.
 * Prints one line per view: "view MODE: N rows, X us/frame, Y bytes".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "stream/stream.h"
#include "top/topview.h"
#include "core/util.h"

static struct top_model model, prev;
static struct scx_topo *topo;

static int on_snap(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	if (s->end_ns <= s->start_ns)
		return 0;
	top_model_from_agg(&model, s, topo);
	top_model_carry_hist(&model, &prev);
	top_model_copy(&prev, &model);
	return 0;
}

int main(int argc, char **argv)
{
	struct scx_reader *r = scx_reader__open(argc > 1 ? argv[1] : "-");
	struct scx_agg_opts o = { .interval_ns = 250000000, .by = 0x5f, .emit = on_snap };
	struct scx_agg *a = NULL;
	struct scx_event e;
	struct scx_buf b = { 0 };
	int iters = argc > 2 ? atoi(argv[2]) : 1000;

	if (!r)
		scx_die(1, "cannot open input");
	while (scx_reader__next(r, &e) == SCX_READ_EVENT) {
		if (!a) {
			const struct scx_header *h = scx_reader__header(r);

			topo = h && h->topo ? scx_topo__dup(h->topo) : NULL;
			a = scx_agg__new(topo, &o);
		}
		scx_agg__add(a, &e);
	}
	scx_agg__flush(a);
	for (int view = 0; view < TV__COUNT; view++) {
		for (int batch = 0; batch < 2; batch++) {
			struct top_view v;
			uint64_t t0, t1;

			top_view_init(&v);
			v.view = view;
			v.mode = view == TV_LLC ? TM_SPARK : TM_BAR;
			v.utf8 = true;
			v.escapes = v.color = !batch;
			v.rows = batch ? 0 : 70;
			v.cols = batch ? 0 : 240;
			top_render(&b, &model, &v); /* warm up */
			t0 = scx_now_mono_ns();
			for (int i = 0; i < iters; i++) {
				scx_buf_reset(&b);
				top_render(&b, &model, &v);
			}
			t1 = scx_now_mono_ns();
			printf("%s %s: %d lines, %.1f us/frame, %zu bytes\n", top_view_name(view),
			       batch ? "batch" : "tty", v.nr_lines, (t1 - t0) / 1e3 / iters, b.len);
		}
	}
	scx_buf_free(&b);
	scx_agg__free(a);
	scx_reader__free(r);
	top_model_free(&model);
	top_model_free(&prev);
	scx_topo__free(topo);
	return 0;
}
