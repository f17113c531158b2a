// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation engine alone: decode a stream into memory once, then time
 * scx_agg__add() over it (CPU time, best of REPS), so the engine's cost is
 * seen apart from the codec's.
 *   agg-engine FILE [REPS] [by-mask] [interval-ns] [top]
 * ('top': skip the histograms scx-top skips, cmd/scx-top.c)
 * prints "events N best S s, X.XXM events/s"
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/agg.h"
#include "stream/stream.h"
#include "core/util.h"

static double cpu_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct scx_reader *r;
	struct scx_event *ev = NULL;
	size_t n = 0, cap = 0;
	struct scx_topo *topo = NULL;
	struct scx_agg_opts o = { .interval_ns = 1000000000, .need = SCX_AGG_NEED_CPUS };
	int reps = argc > 2 ? atoi(argv[2]) : 3;
	double best = 1e30;

	scx_set_prog("agg-engine");
	if (argc < 2)
		return 2;
	if (argc > 3)
		o.by = strtoul(argv[3], NULL, 0);
	if (argc > 4)
		o.interval_ns = strtoull(argv[4], NULL, 0);
	if (o.by & ~SCX_AGG_BY_DEFAULT)
		o.need = 0;
	if (argc > 5 && !strcmp(argv[5], "top")) {
		o.skip_hists = SCX_AGG_HIST_SLICE | SCX_AGG_HIST_RQ_DELAY | SCX_AGG_HIST_RQ_DEPTH;
		o.skip_cpu_hists = SCX_AGG_HIST_DSQ_LAT | SCX_AGG_HIST_DSQ_DEPTH;
		o.need = SCX_AGG_NEED_CPUS; /* and per-task stats only with --by pid/tgid */
	}
	if (!(r = scx_reader__open(argv[1])))
		scx_die(1, "cannot open '%s': %s", argv[1], strerror(errno));
	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 1 << 20;
			ev = scx_xrealloc(ev, cap * sizeof(*ev));
		}
		int st = scx_reader__next(r, &ev[n]);

		if (st == SCX_READ_END)
			break;
		if (st == SCX_READ_ERROR)
			scx_die(1, "%s", scx_reader__error(r));
		if (st == SCX_READ_EVENT)
			n++;
	}
	if (scx_reader__header(r) && scx_reader__header(r)->topo)
		topo = scx_topo__dup(scx_reader__header(r)->topo);
	scx_reader__free(r);
	for (int k = 0; k < reps; k++) {
		struct scx_agg *a = scx_agg__new(topo, &o);
		double t0 = cpu_now(), t;

		for (size_t i = 0; i < n; i++)
			scx_agg__add(a, &ev[i]);
		scx_agg__flush(a);
		t = cpu_now() - t0;
		if (t < best)
			best = t;
		scx_agg__free(a);
	}
	printf("events %zu best %.3f s, %.2fM events/s\n", n, best, n / best / 1e6);
	free(ev);
	scx_topo__free(topo);
	return 0;
}
