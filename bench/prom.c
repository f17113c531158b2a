// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of the Prometheus exporter per interval: a stream through the engine
 * at an interval, and at every closed interval scx_prom__add() (fold),
 * scx_prom__write() (format) and the atomic textfile rewrite, each timed in
 * thread CPU time.  The engine's own cost is left out: it is the same for
 * every output format.
 *   prom STREAM INTERVAL TEXTFILE
 * prints: intervals series_bytes fold_us format_us write_us (medians)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/agg.h"
#include "agg/prom.h"
#include "stream/stream.h"
#include "core/util.h"

#define MAX_IV 4096

struct run {
	struct scx_prom *p;
	struct scx_buf b;
	const char *textfile;
	unsigned n;
	double fold[MAX_IV], fmt[MAX_IV], wr[MAX_IV];
};

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int emit(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	struct run *r = ctx;
	char err[256];
	double t0, t1, t2, t3;

	if (r->n == MAX_IV)
		return 0;
	t0 = now_us();
	scx_prom__add(r->p, a, s);
	t1 = now_us();
	scx_buf_reset(&r->b);
	scx_prom__write(r->p, &r->b);
	t2 = now_us();
	if (scx_prom_textfile_write(r->textfile, &r->b, err, sizeof(err)))
		scx_die(1, "%s", err);
	t3 = now_us();
	r->fold[r->n] = t1 - t0;
	r->fmt[r->n] = t2 - t1;
	r->wr[r->n] = t3 - t2;
	r->n++;
	return 0;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp);
	return n ? v[n / 2] : 0;
}

int main(int argc, char **argv)
{
	static struct run r;
	struct scx_agg_opts o = { .emit = emit, .ctx = &r };
	struct scx_reader *rd;
	struct scx_agg *a = NULL;
	struct scx_event e;
	int st;

	scx_set_prog("prom");
	if (argc != 4 || scx_parse_duration(argv[2], &o.interval_ns))
		scx_die(2, "usage: prom STREAM INTERVAL TEXTFILE");
	r.textfile = argv[3];
	r.p = scx_prom__new(0);
	if (!(rd = scx_reader__open(argv[1])))
		scx_die(1, "cannot open '%s'", argv[1]);
	while ((st = scx_reader__next(rd, &e)) == SCX_READ_EVENT || st == SCX_READ_OTHER) {
		if (!a) {
			const struct scx_header *h = scx_reader__header(rd);

			a = scx_agg__new(h ? h->topo : NULL, &o);
			scx_prom__start(r.p, a, 0);
		}
		if (st == SCX_READ_EVENT)
			scx_agg__add(a, &e);
	}
	if (a)
		scx_agg__flush(a);
	printf("%u %zu %.1f %.1f %.1f\n", r.n, r.b.len, median(r.fold, r.n), median(r.fmt, r.n),
	       median(r.wr, r.n));
	scx_agg__free(a);
	scx_reader__free(rd);
	scx_prom__free(r.p);
	scx_buf_free(&r.b);
	return 0;
}
