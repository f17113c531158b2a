// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of the cgroup dimension per interval at fleet scale: a synthetic
 * machine (CPUS CPUs, 8 per LLC, 2 LLCs per node) with CGROUPS cgroups of
 * two threads each, every thread woken and run once per 15 s interval of
 * event time.  Each interval is closed with scx_agg__advance(); its emit()
 * folds the snapshot into the Prometheus exporter, formats the exposition
 * and rewrites the textfile.  Thread CPU time, medians over the intervals:
 *   close   the engine closing the interval (per-CPU rollups, per-thread
 *           fold into cgroups, the top-N ranking), exporter work excluded
 *   prom    scx_prom__add + scx_prom__write + the atomic textfile rewrite
 *   events  feeding the interval's events (depends on the event rate)
 * The same run without --by cgroup (cpu only) is the baseline.
 *   cgroup CPUS CGROUPS INTERVALS TEXTFILE BY  (BY: cpu or cpu,cgroup)
 * prints: intervals events_per_interval close_us prom_us events_us bytes cgroup_rows
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "agg/agg.h"
#include "agg/prom.h"
#include "core/topo.h"
#include "core/util.h"

#define IV_NS 15000000000ull
#define MAX_IV 64

struct run {
	struct scx_prom *p;
	struct scx_buf b;
	const char *textfile;
	double prom[MAX_IV];
	unsigned n, rows;
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
	double t0 = now_us();

	scx_prom__add(r->p, a, s);
	scx_buf_reset(&r->b);
	scx_prom__write(r->p, &r->b);
	if (scx_prom_textfile_write(r->textfile, &r->b, err, sizeof(err)))
		scx_die(1, "%s", err);
	if (r->n < MAX_IV)
		r->prom[r->n++] = now_us() - t0;
	r->rows = s->nr[SCX_AGG_CGROUP];
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

static void sw(struct scx_event *e, uint64_t ts, int cpu, int32_t prev, uint64_t pcg, int64_t state,
	       int32_t next, uint64_t ncg)
{
	scx_event_init(e, SCX_EV_SWITCH);
	e->ts = ts;
	e->cpu = cpu;
	e->sw.prev_pid = e->sw.prev_tgid = prev;
	e->sw.prev_state = state;
	e->sw.prev_prio = e->sw.next_prio = 120;
	e->sw.next_pid = e->sw.next_tgid = next;
	e->sw.prev_cgroup = pcg;
	e->sw.next_cgroup = ncg;
	memcpy(e->sw.prev_comm, "w", 2);
	memcpy(e->sw.next_comm, "w", 2);
}

int main(int argc, char **argv)
{
	static struct run r;
	static double close_us[MAX_IV], ev_us[MAX_IV];
	struct scx_agg_opts o = {
		.interval_ns = IV_NS,
		.emit = emit,
		.ctx = &r,
		.need = SCX_AGG_NEED_CPUS,
	};
	unsigned ncpu, ncg, niv, nthr;
	struct scx_topo *topo;
	struct scx_agg *a;
	struct scx_event e;
	uint64_t t0 = 1000000000ull, events = 0;

	scx_set_prog("cgroup");
	if (argc != 6 || scx_agg_parse_by(argv[5], &o.by))
		scx_die(2, "usage: cgroup CPUS CGROUPS INTERVALS TEXTFILE BY");
	ncpu = atoi(argv[1]);
	ncg = atoi(argv[2]);
	niv = atoi(argv[3]);
	nthr = 2 * ncg;
	if (!ncpu || ncpu > 4096 || !ncg || !niv || niv > MAX_IV)
		scx_die(2, "bad arguments");
	r.textfile = argv[4];
	r.p = scx_prom__new(0);
	topo = scx_topo__synthetic(ncpu, 8, 2);
	a = scx_agg__new(topo, &o);
	scx_prom__start(r.p, a, o.by);
	for (unsigned c = 0; c < ncg; c++) {
		char path[96];

		snprintf(path, sizeof(path), "/kubepods.slice/pod%u/ctr%u", c / 4, c);
		scx_agg__cgroup_name(a, 100 + c, path);
	}
	for (unsigned iv = 0; iv < niv; iv++) {
		uint64_t base = t0 + iv * IV_NS, step = IV_NS / (nthr + 1);
		double ts0 = now_us();

		/* every thread: woken onto a CPU, run 1/4 of its share, sleep */
		for (unsigned t = 0; t < nthr; t++) {
			uint64_t ts = base + t * step + 1;
			int cpu = (int)(t % ncpu);
			int32_t pid = 1000 + (int32_t)t;
			uint64_t cg = 100 + t / 2;

			scx_event_init(&e, SCX_EV_WAKING);
			e.ts = ts;
			e.cpu = cpu;
			e.wake.pid = e.wake.tgid = pid;
			e.wake.prio = 120;
			e.wake.target_cpu = cpu;
			e.wake.cgroup = cg;
			scx_agg__add(a, &e);
			sw(&e, ts + 1000 + t % 5000, cpu, 0, 0, 0, pid, cg);
			scx_agg__add(a, &e);
			sw(&e, ts + step / 4, cpu, pid, cg, 1, 0, 0);
			scx_agg__add(a, &e);
			events += 3;
		}
		ev_us[iv] = now_us() - ts0;
		ts0 = now_us();
		scx_agg__advance(a, base + IV_NS +
					    1); /* intervals start at the first event, base + 1 */
		close_us[iv] = now_us() - ts0;
	}
	for (unsigned i = 0; i < niv; i++)
		close_us[i] -= r.prom[i];
	printf("%u %llu %.1f %.1f %.1f %zu %u\n", niv, (unsigned long long)(events / niv),
	       median(close_us, niv), median(r.prom, r.n), median(ev_us, niv), r.b.len, r.rows);
	scx_agg__free(a);
	scx_topo__free(topo);
	scx_prom__free(r.p);
	scx_buf_free(&r.b);
	return 0;
}
