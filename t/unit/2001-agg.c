// SPDX-License-Identifier: GPL-2.0
/*
 * The aggregation engine fed struct scx_event directly, on a fake topology of
 * 4 CPUs: cpus 0-1 are LLC 0 on node 0, cpus 2-3 LLC 1 on node 1.  Every
 * expected number is worked out by hand in the comments.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "agg/table.h"
#include "tap.h"

static struct scx_event ev(uint64_t ts, int cpu, unsigned type)
{
	struct scx_event e;

	scx_event_init(&e, type);
	e.ts = ts;
	e.cpu = cpu;
	return e;
}

static struct scx_event sw(uint64_t ts, int cpu, int prev, int64_t state, int next)
{
	struct scx_event e = ev(ts, cpu, SCX_EV_SWITCH);

	e.sw.prev_pid = e.sw.prev_tgid = prev;
	e.sw.next_pid = e.sw.next_tgid = next;
	e.sw.prev_state = state;
	snprintf(e.sw.prev_comm, SCX_COMM_LEN, "t%d", prev);
	snprintf(e.sw.next_comm, SCX_COMM_LEN, "t%d", next);
	return e;
}

static struct scx_event wake(uint64_t ts, int cpu, int pid, int target, int waker)
{
	struct scx_event e = ev(ts, cpu, SCX_EV_WAKING);

	e.wake.pid = e.wake.tgid = pid;
	e.wake.target_cpu = target;
	e.wake.waker_pid = e.wake.waker_tgid = waker;
	snprintf(e.wake.comm, SCX_COMM_LEN, "t%d", pid);
	return e;
}

static struct scx_event mig(uint64_t ts, int pid, int from, int to)
{
	struct scx_event e = ev(ts, to, SCX_EV_MIGRATE);

	e.mig.pid = e.mig.tgid = pid;
	e.mig.orig_cpu = from;
	e.mig.dest_cpu = to;
	return e;
}

#define MAXSNAP 8
static struct got {
	uint64_t start, end, lost, events, unknown;
	double util[4], llc_util[2], node_util[2], total_util;
	uint64_t busy[4], idle[4], sw[4], invol[4], xllc[4], xnode[4];
	uint64_t llc_wake_count[2], llc_rq_max[2];
	bool rollup_exact;
	unsigned nr_pid;
} got[MAXSNAP];
static unsigned nsnap;

static const struct scx_agg_group *find(const struct scx_agg_snap *s, int by, int64_t key)
{
	for (unsigned i = 0; i < s->nr[by]; i++)
		if (s->groups[by][i].key == key)
			return &s->groups[by][i];
	return NULL;
}

static bool same_hist(const struct scx_hist *x, const struct scx_hist *y)
{
	if (x->count != y->count || x->sum != y->sum ||
	    (x->count && (x->min != y->min || x->max != y->max)))
		return false;
	for (unsigned i = 0; i < SCX_HIST_NR_BUCKETS; i++)
		if (scx_hist_bucket_count(x, i) != scx_hist_bucket_count(y, i))
			return false;
	return true;
}

static int on_snap(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	struct got *g = &got[nsnap < MAXSNAP ? nsnap++ : MAXSNAP - 1];
	double v;
	struct scx_dist d;

	g->start = s->start_ns;
	g->end = s->end_ns;
	g->lost = s->lost;
	g->events = s->events;
	g->unknown = s->unknown;
	g->nr_pid = s->nr[SCX_AGG_PID];
	for (int c = 0; c < 4; c++) {
		const struct scx_agg_group *gr = find(s, SCX_AGG_CPU, c);

		scx_agg_metric_get(s, gr, 0, &g->util[c], &d);
		g->busy[c] = gr->s->busy_ns;
		g->idle[c] = gr->s->idle_ns;
		g->sw[c] = gr->s->switches;
		g->invol[c] = gr->s->involuntary;
		g->xllc[c] = gr->s->migr_cross_llc;
		g->xnode[c] = gr->s->migr_cross_node;
	}
	g->rollup_exact = true;
	for (int l = 0; l < 2; l++) {
		const struct scx_agg_group *gr = find(s, SCX_AGG_LLC, l);
		struct scx_hist m = SCX_HIST_INIT;

		scx_agg_metric_get(s, gr, 0, &g->llc_util[l], &d);
		scx_agg_metric_get(s, find(s, SCX_AGG_NODE, l), 0, &g->node_util[l], &d);
		g->llc_wake_count[l] = gr->s->wake_lat.count;
		g->llc_rq_max[l] = gr->s->rq_delay.max;
		/* the LLC's histogram is the merge of its CPUs' */
		scx_hist_merge(&m, &find(s, SCX_AGG_CPU, 2 * l)->s->rq_delay);
		scx_hist_merge(&m, &find(s, SCX_AGG_CPU, 2 * l + 1)->s->rq_delay);
		g->rollup_exact &= same_hist(&m, &gr->s->rq_delay);
		scx_hist_free(&m);
	}
	scx_agg_metric_get(s, NULL, 0, &v, &d);
	g->total_util = v;
	return 0;
}

static int feed(struct scx_agg *a, const struct scx_event *e, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (scx_agg__add(a, &e[i]))
			return -1;
	return 0;
}

/*
 * The scenario (ns):
 *  1000 cpu0: idle -> 100            cpu2: 300 sleeps (S) -> idle
 *  2000 100 wakes 200 onto cpu2      2500 200 migrates cpu2 -> cpu0 (cross LLC and node)
 *  3000 cpu0: 100 preempted (R+) -> 200   (200 waited 1000 since waking)
 *  4000 300 woken onto cpu2 (irq)    4500 cpu2: idle -> 300 (waited 500)
 *  5000 cpu0: 200 sleeps -> 100 (100 waited 2000 after preemption)
 *  6000 cpu2: 300 blocks (D) -> idle   7000 cpu0 lost 5 events
 * 10000 cpu0: 100 sleeps -> idle
 */
static void scenario(struct scx_event *e, unsigned *n)
{
	struct scx_event l = ev(7000, 0, SCX_EV_LOST), u = ev(2600, 1, 200);

	l.lost.count = 5;
	*n = 0;
	e[(*n)++] = sw(1000, 0, 0, 0, 100);
	e[(*n)++] = sw(1000, 2, 300, SCX_STATE_INTERRUPTIBLE, 0);
	e[(*n)++] = wake(2000, 0, 200, 2, 100);
	e[(*n)++] = mig(2500, 200, 2, 0);
	e[(*n)++] = u; /* a type the engine does not know */
	e[(*n)++] = sw(3000, 0, 100, SCX_STATE_PREEMPTED, 200);
	e[(*n)++] = wake(4000, 3, 300, 2, 0);
	e[(*n)++] = sw(4500, 2, 0, 0, 300);
	e[(*n)++] = sw(5000, 0, 200, SCX_STATE_INTERRUPTIBLE, 100);
	e[(*n)++] = sw(6000, 2, 300, SCX_STATE_UNINTERRUPTIBLE, 0);
	e[(*n)++] = l;
	e[(*n)++] = sw(10000, 0, 100, SCX_STATE_INTERRUPTIBLE, 0);
}

static uint64_t report_cell(struct scx_agg *a, const char *rep, const char *table, unsigned row,
			    const char *col, bool *found)
{
	struct scx_table *t, *x;
	uint64_t v = 0;

	*found = false;
	if (scx_agg__report(a, rep, &t))
		return 0;
	for (x = t; x; x = x->next) {
		if (strcmp(x->name, table) || row >= x->nrows)
			continue;
		for (unsigned c = 0; c < x->ncols; c++) {
			if (strcmp(x->cols[c].name, col))
				continue;
			*found = true;
			v = x->cols[c].kind == SCX_COL_INT ?
				    (uint64_t)x->cells[row * x->ncols + c].i :
			    x->cols[c].kind == SCX_COL_NUM || x->cols[c].kind == SCX_COL_PCT ?
				    (uint64_t)(x->cells[row * x->ncols + c].d * 1000 + 0.5) :
				    x->cells[row * x->ncols + c].u;
		}
	}
	scx_table_free(t);
	return v;
}

/* Rows of a report table, with those the limit left out; -1 if there is no such table. */
static int report_rows(struct scx_agg *a, const char *rep, const char *table)
{
	struct scx_table *t, *x;
	int n = -1;

	if (scx_agg__report(a, rep, &t))
		return -1;
	for (x = t; x; x = x->next)
		if (!strcmp(x->name, table))
			n = (int)(x->nrows + x->omitted);
	scx_table_free(t);
	return n;
}

/* ---- wakeup-graph: tasks that woke each other */

static void test_mutual(struct scx_topo *topo)
{
	struct scx_agg_opts o = {
		0,
	};
	/*
	 * cpu0: 100 wakes 200 (runs 100 ns later), 200 wakes 100 (300 ns),
	 * 100 wakes 200 again (200 ns); cpu2: 300 wakes 400 (400 ns), and 400
	 * never wakes 300.  One mutual pair, 100 and 200: 2 + 1 wakeups,
	 * 100 -> 200 at 150 ns on average and 200 at most, 200 -> 100 300 ns.
	 */
	struct scx_event e[] = {
		sw(1000, 0, 0, 0, 100),
		sw(1000, 2, 0, 0, 300),
		wake(2000, 0, 200, 0, 100),
		sw(2100, 0, 100, SCX_STATE_INTERRUPTIBLE, 200),
		wake(3000, 0, 100, 0, 200),
		sw(3300, 0, 200, SCX_STATE_INTERRUPTIBLE, 100),
		wake(4000, 0, 200, 0, 100),
		sw(4200, 0, 100, SCX_STATE_INTERRUPTIBLE, 200),
		wake(5000, 2, 400, 2, 300),
		sw(5400, 2, 300, SCX_STATE_INTERRUPTIBLE, 400),
		sw(6000, 0, 200, SCX_STATE_INTERRUPTIBLE, 0),
		sw(6000, 2, 400, SCX_STATE_INTERRUPTIBLE, 0),
	};
	static const struct {
		const char *col;
		uint64_t want;
	} cells[] = {
		{ "pid_a", 100 },	{ "pid_b", 200 },	{ "count", 3 },
		{ "a_wakes_b", 2 },	{ "b_wakes_a", 1 },	{ "a_b_lat_avg", 150 },
		{ "a_b_lat_max", 200 }, { "b_a_lat_avg", 300 }, { "b_a_lat_max", 300 },
	};
	struct scx_agg *a = scx_agg__new(topo, &o);
	bool f;

	feed(a, e, SCX_ARRAY_SIZE(e));
	scx_agg__flush(a);
	is_int(report_rows(a, "wakeup-graph", "pairs"), 3, "mutual: three one-way pairs");
	is_int(report_rows(a, "wakeup-graph", "mutual"), 1, "mutual: one pair woke each other");
	for (size_t i = 0; i < SCX_ARRAY_SIZE(cells); i++) {
		uint64_t v = report_cell(a, "wakeup-graph", "mutual", 0, cells[i].col, &f);

		ok(f && v == cells[i].want, "mutual: %s %llu (got %llu)", cells[i].col,
		   (unsigned long long)cells[i].want, (unsigned long long)v);
	}
	scx_agg__free(a);
}

/* ---- outliers among CPUs */

struct flagged {
	unsigned n;  /* rows of the cpus table for the metric and method */
	int64_t cpu; /* of the last such row */
	double value, bound, score;
};

static struct flagged cpu_outliers(struct scx_agg *a, const char *metric, const char *method)
{
	struct flagged f = { 0 };
	struct scx_table *t, *x;

	if (scx_agg__report(a, "outliers", &t))
		return f;
	for (x = t; x; x = x->next) {
		if (strcmp(x->name, "cpus"))
			continue;
		/* metric, method, cpu, value, bound, score */
		for (unsigned r = 0; r < x->nrows; r++) {
			union scx_cell *c = &x->cells[r * x->ncols];

			if (strcmp(c[0].s, metric) || strcmp(c[1].s, method))
				continue;
			f.n++;
			f.cpu = c[2].i;
			f.value = c[3].d;
			f.bound = c[4].d;
			f.score = c[5].d;
		}
	}
	scx_table_free(t);
	return f;
}

static bool near(double x, double want)
{
	return x > want - 1e-3 && x < want + 1e-3;
}

/*
 * 8 CPUs over [1000, 1001000]: cpu c runs task 100+c from 1000 for busy[c]
 * ns, then idles; each switches once (1000/s everywhere, so no switch-rate
 * outlier).  Utilisation 10..16% on cpus 0-6 and 90% on cpu 7, so sorted
 * 10 11 12 13 14 15 16 90:
 *   iqr: q1 = 11.75, q3 = 15.25 (IQR 3.5), upper 15.25 + 1.5 * 3.5 = 20.5,
 *        score (90 - 15.25) / 3.5 = 21.357
 *   mad: median 13.5, deviations .5 .5 1.5 1.5 2.5 2.5 3.5 76.5, MAD 2,
 *        upper 13.5 + 3.5 * 2 / 0.6745 = 23.878, score 0.6745 * 76.5 / 2 = 25.800
 *   stddev: mean 22.625, sd sqrt(5215.875 / 8) = 25.534; with 8 values no
 *        z-score exceeds 7 / sqrt(8) = 2.47, so sigma 3 flags nothing and
 *        sigma 2 flags cpu 7: upper 22.625 + 2 * 25.534 = 73.693, z 2.639
 *   percentile 99: upper 16 + 0.93 * (90 - 16) = 84.82, score 90 / 84.82 = 1.061
 * With every cpu at 13%, no method flags anything.
 */
static struct scx_agg *cpu_spread(struct scx_topo *topo, const uint64_t *busy)
{
	struct scx_agg_opts o = {
		0,
	};
	struct scx_agg *a = scx_agg__new(topo, &o);
	struct scx_event e[17];
	unsigned n = 0;

	for (int c = 0; c < 8; c++)
		e[n++] = sw(1000, c, 0, 0, 100 + c);
	for (int c = 0; c < 8; c++)
		e[n++] = sw(1000 + busy[c], c, 100 + c, SCX_STATE_INTERRUPTIBLE, 0);
	e[n++] = ev(1001000, 0, SCX_EV_CPU_FREQUENCY);
	/* feed in time order: the busy cpu switches last */
	feed(a, e, n);
	scx_agg__flush(a);
	return a;
}

static void test_cpu_outliers(void)
{
	static const uint64_t skewed[8] = {
		100000, 110000, 120000, 130000, 140000, 150000, 160000, 900000,
	};
	static const uint64_t even[8] = {
		130000, 130000, 130000, 130000, 130000, 130000, 130000, 130000,
	};
	static const struct {
		const char *method;
		double bound, score;
	} want[] = {
		{ "iqr", 20.5, 74.75 / 3.5 },
		{ "mad", 13.5 + 7 / 0.6745, 0.6745 * 76.5 / 2 },
		{ "percentile", 84.82, 90 / 84.82 },
	};
	static const char *const metrics[] = {
		"cpu_util",	    "cpu_switch_rate", "cpu_wake_lat_p99",
		"cpu_rq_delay_p99", "cpu_softirq_pct",
	};
	static const char *const methods[] = { "iqr", "mad", "stddev", "percentile" };
	struct scx_topo *topo = scx_topo__synthetic(8, 4, 1);
	struct scx_agg *a = cpu_spread(topo, skewed);
	struct flagged f;
	unsigned all = 0;

	for (size_t i = 0; i < SCX_ARRAY_SIZE(want); i++) {
		f = cpu_outliers(a, "cpu_util", want[i].method);
		ok(f.n == 1 && f.cpu == 7 && near(f.value, 90) && near(f.bound, want[i].bound) &&
			   near(f.score, want[i].score),
		   "cpu outliers: %s flags cpu 7 at 90%% past %.3f, score %.3f (%u rows, cpu %lld, "
		   "bound %.3f, score %.3f)",
		   want[i].method, want[i].bound, want[i].score, f.n, (long long)f.cpu, f.bound,
		   f.score);
	}
	f = cpu_outliers(a, "cpu_util", "stddev");
	is_int(f.n, 0, "cpu outliers: stddev at 3 sigma flags none of 8 values");
	scx_agg__set_threshold(a, "sigma", 2);
	f = cpu_outliers(a, "cpu_util", "stddev");
	ok(f.n == 1 && f.cpu == 7 && near(f.bound, 73.693) && near(f.score, 2.639),
	   "cpu outliers: stddev at 2 sigma flags cpu 7 past 73.693, z 2.639 (%u rows, bound %.3f, "
	   "score %.3f)",
	   f.n, f.bound, f.score);
	for (int m = 1; m < 5; m++)
		for (int me = 0; me < 4; me++)
			all += cpu_outliers(a, metrics[m], methods[me]).n;
	is_int(all, 0, "cpu outliers: no other metric has one (switch rate and softirq even)");
	scx_agg__free(a);

	a = cpu_spread(topo, even);
	all = 0;
	for (int m = 0; m < 5; m++)
		for (int me = 0; me < 4; me++)
			all += cpu_outliers(a, metrics[m], methods[me]).n;
	is_int(all, 0, "cpu outliers: all cpus at 13%%, none flagged");
	is_int(report_rows(a, "outliers", "cpus"), 0, "cpu outliers: the cpus table is empty");
	scx_agg__free(a);
	scx_topo__free(topo);
}

/* ---- process groups are recycled between intervals (gtab spares) */

static struct {
	uint64_t count, min, max, p50;
	bool found, other_found;
} tg[2];
static unsigned ntg;

static int on_snap_tgid(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	int64_t key = ntg == 0 ? 500 : 600, other = ntg == 0 ? 600 : 500;
	const struct scx_agg_group *g = find(s, SCX_AGG_TGID, key);

	if (ntg >= 2)
		return 0;
	tg[ntg].found = g != NULL;
	tg[ntg].other_found = find(s, SCX_AGG_TGID, other) != NULL;
	if (g) {
		tg[ntg].count = g->s->wake_lat.count;
		tg[ntg].min = g->s->wake_lat.min;
		tg[ntg].max = g->s->wake_lat.max;
		tg[ntg].p50 = scx_hist_quantile(&g->s->wake_lat, 0.5);
	}
	ntg++;
	return 0;
}

static void test_group_reuse(struct scx_topo *topo)
{
	struct scx_agg_opts o = {
		.emit = on_snap_tgid,
		.by = 1u << SCX_AGG_TGID,
		.interval_ns = 100000,
	};
	/*
	 * [0, 100000): 500 waits 30000 and 40000 on cpu1; [100000, 200000): only
	 * 600, waiting 70.  The second interval's group reuses the first's
	 * memory: it must hold 600's one value and nothing of 500's.
	 */
	struct scx_event e[] = {
		sw(0, 1, 0, 0, 0),
		wake(1000, 0, 500, 1, 0),
		sw(31000, 1, 0, 0, 500),
		sw(32000, 1, 500, SCX_STATE_INTERRUPTIBLE, 0),
		wake(50000, 0, 500, 1, 0),
		sw(90000, 1, 0, 0, 500),
		sw(95000, 1, 500, SCX_STATE_INTERRUPTIBLE, 0),
		wake(150000, 0, 600, 1, 0),
		sw(150070, 1, 0, 0, 600),
		sw(160000, 1, 600, SCX_STATE_INTERRUPTIBLE, 0),
		ev(199999, 2, SCX_EV_CPU_FREQUENCY),
	};
	struct scx_agg *a = scx_agg__new(topo, &o);

	feed(a, e, SCX_ARRAY_SIZE(e));
	scx_agg__flush(a);
	scx_agg__free(a);
	is_int(ntg, 2, "reuse: two intervals");
	ok(tg[0].found && tg[0].count == 2 && tg[0].min == 30000 && tg[0].max == 40000,
	   "reuse: interval 0, process 500 waited 30000 and 40000");
	ok(tg[1].found && !tg[1].other_found, "reuse: interval 1 has process 600 only");
	ok(tg[1].count == 1 && tg[1].min == 70 && tg[1].max == 70 && tg[1].p50 == 70,
	   "reuse: and its group holds its one 70 ns wait, nothing of 500's (count %llu, p50 %llu)",
	   (unsigned long long)tg[1].count, (unsigned long long)tg[1].p50);
}

/* ---- groups switched on and off between intervals (scx_agg__set_by) */

static struct {
	unsigned nr_pid;
	bool found;
	uint64_t sleeping, runnable, wakes;
} sb[4];
static unsigned nsb;

static int on_snap_by(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	const struct scx_agg_group *g = find(s, SCX_AGG_PID, 500);

	if (nsb >= 4)
		return 0;
	sb[nsb].nr_pid = s->nr[SCX_AGG_PID];
	sb[nsb].found = g != NULL;
	if (g) {
		sb[nsb].sleeping = g->s->sleeping_ns;
		sb[nsb].runnable = g->s->runnable_ns;
		sb[nsb].wakes = g->s->wake_lat.count;
	}
	nsb++;
	return 0;
}

static void test_set_by(struct scx_topo *topo)
{
	struct scx_agg_opts o = {
		.emit = on_snap_by,
		.by = 1u << SCX_AGG_CPU,
		.need = SCX_AGG_NEED_CPUS,
		.interval_ns = 100000,
	};
	/* 500 runs in [0, 100000), sleeps from 32000, wakes at 150000 and runs at 150500 */
	struct scx_event e1[] = {
		wake(1000, 0, 500, 1, 0), sw(2000, 1, 0, 0, 500),
		sw(32000, 1, 500, SCX_STATE_INTERRUPTIBLE, 0),
	}, e2[] = {
		wake(150000, 0, 500, 1, 0), sw(150500, 1, 0, 0, 500),
		sw(160000, 1, 500, SCX_STATE_INTERRUPTIBLE, 0),
		wake(250000, 0, 500, 1, 0), sw(251000, 1, 0, 0, 500),
		sw(260000, 1, 500, SCX_STATE_INTERRUPTIBLE, 0),
		ev(299999, 2, SCX_EV_CPU_FREQUENCY),
	};
	struct scx_agg *a = scx_agg__new(topo, &o);

	feed(a, e1, SCX_ARRAY_SIZE(e1));
	/* asked for during [0, 100000): from [100000, 200000) on */
	scx_agg__set_by(a, 1u << SCX_AGG_CPU | 1u << SCX_AGG_PID);
	feed(a, e2, 3);
	/* and off again during [100000, 200000): gone from [200000, ...) */
	scx_agg__set_by(a, 1u << SCX_AGG_CPU);
	feed(a, e2 + 3, SCX_ARRAY_SIZE(e2) - 3);
	scx_agg__flush(a);
	scx_agg__free(a);
	is_int(nsb, 3, "set_by: three intervals");
	ok(sb[0].nr_pid == 0, "set_by: no thread groups before they were asked for");
	ok(sb[1].found && sb[1].wakes == 1 && sb[1].runnable == 500,
	   "set_by: the next interval has 500, woken once, runnable 500 ns");
	/* 100000 -> 150000 and 160000 -> 200000; from 32000 it would be 158000 */
	is_int(sb[1].sleeping, 90000,
	       "set_by: its sleep is counted from the interval's start, not from when it fell asleep");
	ok(sb[2].nr_pid == 0, "set_by: switched off, no thread groups again");
}

/* ---- report tables: the descending sort is stable and takes big tables */

static void test_table_sort(void)
{
	static const char *const cols[] = { "id:u:key", "v:n", NULL };
	struct scx_table *t = scx_table_new("r", "t", cols);
	const unsigned n = 65536;
	unsigned bad = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned r = scx_table_row(t);

		scx_table_uint(t, r, 0, i);
		/* keys 0..99 in a scrambled order, each 655 or 656 times; one NaN */
		scx_table_num(t, r, 1, i == 7 ? NAN : (double)((i * 37) % 100));
	}
	scx_table_sort_desc(t, 1);
	for (unsigned r = 1; r < n; r++) {
		double a = t->cells[(r - 1) * 2 + 1].d, b = t->cells[r * 2 + 1].d;
		uint64_t ia = t->cells[(r - 1) * 2].u, ib = t->cells[r * 2].u;

		if (b != b)
			continue;
		bad += a != a || a < b || (a == b && ia > ib);
	}
	is_int(bad, 0, "65536 rows sorted by value, descending, equal values in their old order");
	ok(t->cells[(n - 1) * 2 + 1].d != t->cells[(n - 1) * 2 + 1].d &&
		   t->cells[(n - 1) * 2].u == 7,
	   "a NaN value sorts last");
	scx_table_free(t);
}

/* ---- without per-task groups, nothing is kept per task (scx-top's cpu view) */

static void test_no_task_stats(struct scx_topo *topo)
{
	struct scx_agg_opts o = {
		.by = 1u << SCX_AGG_CPU,
		.need = SCX_AGG_NEED_CPUS,
		.interval_ns = 1000000000,
	};
	struct scx_agg *a = scx_agg__new(topo, &o);
	size_t mem_100 = 0;
	uint64_t ts = 1000;

	/* 500 and 600 take turns on cpu 1 through a DSQ, with wakeups between */
	for (int i = 0; i < 2000; i++) {
		struct scx_event w = wake(ts, 0, i & 1 ? 600 : 500, 1, 0);
		struct scx_event s = sw(ts + 100 + i % 50 * 1000, 1, i & 1 ? 500 : 600,
					SCX_STATE_INTERRUPTIBLE, i & 1 ? 600 : 500);

		s.sw.dsq_id = 5;
		s.sw.dsq_lat_ns = 1000 + (uint64_t)i * 7919 % 100000;
		scx_agg__add(a, &w);
		scx_agg__add(a, &s);
		ts += 100000;
		if (i == 100)
			mem_100 = scx_agg__mem(a);
	}
	is_int(scx_agg__mem(a), mem_100,
	       "cpu groups only: memory after 2000 switches as after 100 (no per-task histograms)");
	scx_agg__free(a);
}

/* ---- histograms a consumer skips stay empty; nothing else changes (scx-top) */

static struct {
	uint64_t slice, rq_delay, rq_depth, wake, wake_max, sw, busy, depth_max;
} sk[2];

static int on_snap_skip(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	unsigned k = *(unsigned *)ctx;

	memset(&sk[k], 0, sizeof(sk[k]));
	for (int c = 0; c < 4; c++) {
		const struct scx_agg_stats *st = find(s, SCX_AGG_CPU, c)->s;

		sk[k].slice += st->slice.count;
		sk[k].rq_delay += st->rq_delay.count;
		sk[k].rq_depth += st->rq_depth.count;
		sk[k].wake += st->wake_lat.count;
		sk[k].wake_max = SCX_MAX(sk[k].wake_max, st->wake_lat.max);
		sk[k].sw += st->switches;
		sk[k].busy += st->busy_ns;
		sk[k].depth_max = SCX_MAX(sk[k].depth_max, st->rq_depth_max);
	}
	return 0;
}

static void test_skip_hists(struct scx_topo *topo)
{
	struct scx_event e[32];
	unsigned n;

	scenario(e, &n);
	for (unsigned k = 0; k < 2; k++) {
		struct scx_agg_opts o = {
			.emit = on_snap_skip,
			.ctx = &k,
			.by = 1u << SCX_AGG_CPU,
			.need = SCX_AGG_NEED_CPUS,
		};
		struct scx_agg *a;

		if (k)
			o.skip_hists =
				SCX_AGG_HIST_SLICE | SCX_AGG_HIST_RQ_DELAY | SCX_AGG_HIST_RQ_DEPTH;
		a = scx_agg__new(topo, &o);
		feed(a, e, n);
		scx_agg__flush(a);
		scx_agg__free(a);
	}
	ok(sk[0].slice && sk[0].rq_delay && sk[0].rq_depth,
	   "skip_hists: without it the slice, rq_delay and rq_depth histograms fill (%llu %llu %llu)",
	   (unsigned long long)sk[0].slice, (unsigned long long)sk[0].rq_delay,
	   (unsigned long long)sk[0].rq_depth);
	ok(!sk[1].slice && !sk[1].rq_delay && !sk[1].rq_depth,
	   "skip_hists: with it they stay empty");
	ok(sk[1].wake == sk[0].wake && sk[1].wake_max == sk[0].wake_max && sk[1].sw == sk[0].sw &&
		   sk[1].busy == sk[0].busy && sk[1].depth_max == sk[0].depth_max &&
		   sk[0].depth_max,
	   "skip_hists: wakeup latency, switches, busy time and the deepest queue are unchanged");
}

/* skip_cpu_hists: the CPU side leaves the DSQ histograms empty, the DSQ groups keep them */
static uint64_t skc_cpu_lat, skc_cpu_disp, skc_dsq_lat, skc_dsq_depth;
static uint64_t skc_used_hist, skc_used_n, skc_used_ns, skc_dsq_used_n;

static int on_snap_skip_cpu(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	const struct scx_agg_group *c = find(s, SCX_AGG_CPU, 1), *d = find(s, SCX_AGG_DSQ, 5);

	skc_cpu_lat = c ? c->s->dsq_lat.count + s->total.dsq_lat.count + 1000 * !c : 0;
	skc_cpu_disp = c ? c->s->dsq_dispatches : 0;
	skc_dsq_lat = d ? d->s->dsq_lat.count : 0;
	skc_dsq_depth = d ? d->s->dsq_depth.count : 0;
	skc_used_hist = c ? c->s->slice_used.count + (d ? d->s->slice_used.count : 1) : 1;
	skc_used_n = c ? c->s->slice_used_n : 0;
	skc_used_ns = c ? c->s->slice_used_ns : 0;
	skc_dsq_used_n = d ? d->s->slice_used_n : 0;
	return 0;
}

static void test_skip_cpu_hists(struct scx_topo *topo)
{
	struct scx_agg_opts o = {
		.emit = on_snap_skip_cpu,
		.by = 1u << SCX_AGG_CPU | 1u << SCX_AGG_DSQ,
		.need = SCX_AGG_NEED_CPUS,
		.skip_hists = SCX_AGG_HIST_SLICE_USED,
		.skip_cpu_hists = SCX_AGG_HIST_DSQ_LAT | SCX_AGG_HIST_DSQ_DEPTH,
	};
	struct scx_agg *a = scx_agg__new(topo, &o);
	uint64_t ts = 1000;

	for (int i = 0; i < 20; i++) {
		struct scx_event s =
			sw(ts, 1, i & 1 ? 500 : 600, SCX_STATE_INTERRUPTIBLE, i & 1 ? 600 : 500);

		s.sw.dsq_id = 5;
		s.sw.dsq_lat_ns = 1000 + i;
		s.sw.dsq_depth = 2;
		s.sw.prev_slice_used_ns = 100 + i;
		scx_agg__add(a, &s);
		ts += 1000;
	}
	scx_agg__flush(a);
	scx_agg__free(a);
	ok(skc_cpu_lat == 0 && skc_cpu_disp == 20,
	   "skip_cpu_hists: cpu 1 counts 20 dispatches, its DSQ latency histogram stays empty");
	ok(skc_dsq_lat == 20 && skc_dsq_depth == 20,
	   "skip_cpu_hists: the DSQ group keeps its latency and depth histograms, 20 values each "
	   "(%llu %llu)",
	   (unsigned long long)skc_dsq_lat, (unsigned long long)skc_dsq_depth);
	/* 20 switch-outs used 100..119 ns; the DSQ saw the 19 after the first switch-in */
	ok(skc_used_hist == 0 && skc_used_n == 20 && skc_used_ns == 2190 && skc_dsq_used_n == 19,
	   "skip_hists: no slice_used histogram, but its counters for the mean (cpu %llu/%llu, "
	   "dsq %llu)",
	   (unsigned long long)skc_used_ns, (unsigned long long)skc_used_n,
	   (unsigned long long)skc_dsq_used_n);
}

int main(void)
{
	struct scx_topo *topo = scx_topo__synthetic(4, 2, 1);
	struct scx_agg_opts o = {
		.emit = on_snap,
		.by = (1u << SCX_AGG_BY__COUNT) - 1,
	};
	/* by all: the process tables are kept (see the memory test below) */
	struct scx_event e[32];
	struct scx_agg *a;
	unsigned n;
	bool f;

	ok(topo && topo->nr_llcs == 2 && topo->nr_nodes == 2, "fake topology: 2 LLCs on 2 nodes");
	scenario(e, &n);

	/* ---- one interval: [1000, 10000], 9000 ns */
	a = scx_agg__new(topo, &o);
	feed(a, e, n);
	scx_agg__flush(a);
	is_int(nsnap, 1, "--once: one snapshot");
	is_int(got[0].start, 1000, "starts at the first event");
	is_int(got[0].end, 10000, "ends at the last event");
	/* cpu0 ran 100 1000-3000, 200 3000-5000, 100 5000-10000: busy 9000 of 9000 */
	is_int(got[0].busy[0], 9000, "cpu0 busy");
	ok(got[0].util[0] == 1.0, "cpu0 util 1");
	/* cpu2: idle 1000-4500 and 6000-10000, 300 ran 4500-6000 */
	is_int(got[0].busy[2], 1500, "cpu2 busy");
	is_int(got[0].idle[2], 7500, "cpu2 idle");
	/* LLC 0 = cpus 0,1: 9000 / (9000 * 2); LLC 1: 1500 / 18000; total 10500 / 36000 */
	ok(got[0].llc_util[0] == 0.5, "llc0 util 0.5 (%g)", got[0].llc_util[0]);
	ok(got[0].llc_util[1] == 1500.0 / 18000, "llc1 util 1/12 (%g)", got[0].llc_util[1]);
	ok(got[0].node_util[1] == 1500.0 / 18000, "node1 util 1/12");
	ok(got[0].total_util == 10500.0 / 36000, "total util (%g)", got[0].total_util);
	/* switches on cpu0: 100 R+, 200 S, 100 S; one involuntary */
	is_int(got[0].sw[0], 3, "cpu0 switches");
	is_int(got[0].invol[0], 1, "cpu0 involuntary (the R+ preemption)");
	is_int(got[0].xllc[0], 1, "migration 2->0 is cross-LLC, counted on cpu0");
	is_int(got[0].xnode[0], 1, "... and cross-node");
	is_int(got[0].xllc[2], 0, "nothing migrated into cpu2");
	/* wake latencies: 200 on cpu0 (1000), 300 on cpu2 (500); rq delay adds 100's 2000 */
	is_int(got[0].llc_wake_count[0], 1, "llc0 has one wakeup latency");
	is_int(got[0].llc_rq_max[0], 2000, "llc0 max run-queue delay is 100's preemption wait");
	is_int(got[0].llc_rq_max[1], 500, "llc1 max run-queue delay");
	ok(got[0].rollup_exact, "LLC histograms are exactly the merge of their CPUs'");
	is_int(got[0].lost, 5, "lost events carried");
	is_int(got[0].unknown, 1, "unknown event type counted");
	is_int(got[0].nr_pid, 3, "three threads");

	is_int(report_cell(a, "preemptions", "pairs", 0, "preemptor", &f), 200,
	       "200 preempted ...");
	is_int(report_cell(a, "preemptions", "pairs", 0, "preempted", &f), 100, "... 100");
	is_int(report_cell(a, "preemptions", "pairs", 0, "count", &f), 1, "once");
	is_int(report_cell(a, "migrations", "summary", 0, "cross_node", &f), 1,
	       "migrations report");
	is_int(report_cell(a, "task-states", "threads", 0, "preempted", &f), 2000,
	       "100 spent 2000 preempted (R+)");
	is_int(report_cell(a, "task-states", "threads", 0, "running", &f), 7000, "100 ran 7000");
	is_int(report_cell(a, "wakeup-graph", "pairs", 1, "lat_max", &f) +
		       report_cell(a, "wakeup-graph", "pairs", 0, "lat_max", &f),
	       1500, "wakeup-graph: 100->200 took 1000, irq->300 500");
	/* fairness: runtimes 1500, 2000, 7000: gini = 2*(1500+4000+21000)/(3*10500) - 4/3 */
	is_int(report_cell(a, "fairness", "summary", 0, "gini", &f),
	       (uint64_t)((2.0 * 26500 / 31500 - 4.0 / 3) * 1000 + 0.5), "fairness gini");
	{
		struct scx_table *t;

		is_int(scx_agg__report(a, "no-such-report", &t), -ENOENT,
		       "unknown report: -ENOENT");
	}
	scx_agg__free(a);

	/* ---- intervals of 4000: [1000,5000) [5000,9000) [9000,10000] */
	nsnap = 0;
	o.interval_ns = 4000;
	a = scx_agg__new(topo, &o);
	feed(a, e, n);
	scx_agg__flush(a);
	is_int(nsnap, 3, "three intervals");
	is_int(got[0].busy[0], 4000, "interval 0: cpu0 busy 1000-5000");
	is_int(got[1].busy[0], 4000, "interval 1: 100 runs 5000-9000, split at the boundary");
	is_int(got[2].busy[0], 1000, "interval 2: 9000-10000");
	is_int(got[0].busy[2], 500, "interval 0: cpu2 busy 4500-5000");
	is_int(got[1].busy[2], 1000, "interval 1: cpu2 busy 5000-6000");
	is_int(got[0].lost + got[1].lost + got[2].lost, 5, "lost once");
	is_int(got[1].lost, 5, "in the interval it was reported in");
	is_int(got[0].events + got[1].events + got[2].events, n, "every event in one interval");
	scx_agg__free(a);

	/* ---- a reorder window puts shuffled events back in order */
	{
		struct scx_event sh[32];
		struct got want = got[0];

		/* swap neighbours on different cpus: late by up to 1000 ns */
		memcpy(sh, e, n * sizeof(*e));
		for (unsigned i = 0; i + 1 < n; i += 2) {
			struct scx_event t = sh[i];

			sh[i] = sh[i + 1];
			sh[i + 1] = t;
		}
		nsnap = 0;
		o.interval_ns = 4000;
		o.reorder_ns = 2000;
		a = scx_agg__new(topo, &o);
		feed(a, sh, n);
		scx_agg__flush(a);
		is_int(nsnap, 3, "reordered: three intervals");
		ok(!memcmp(&got[0], &want, sizeof(want)),
		   "reordered: interval 0 as from sorted input");
		is_int(scx_agg__snapshot(a)->out_of_order, 0, "nothing left out of order");
		o.reorder_ns = 0;
		scx_agg__free(a);
	}

	/* ---- memory stays bounded: 200000 short-lived threads */
	{
		struct scx_agg_opts o2 = { 0 };
		size_t mem_small = 0, mem_big;
		unsigned maxthr = 0;

		a = scx_agg__new(topo, &o2);
		for (int i = 0; i < 200000; i++) {
			int pid = 1000 + i;
			uint64_t t = 10000 + (uint64_t)i * 100;
			struct scx_event x[4];

			x[0] = wake(t, 1, pid, 1, 0);
			x[1] = sw(t + 10, 1, 0, 0, pid);
			x[2] = sw(t + 50, 1, pid, SCX_STATE_DEAD, 0);
			x[3] = ev(t + 60, 1, SCX_EV_FREE);
			x[3].task.pid = x[3].task.tgid = pid;
			feed(a, x, 4);
			if (i == 100000)
				mem_small = scx_agg__mem(a);
			if (scx_agg__snapshot(a) == NULL && i % 1000 == 0) {
				const struct scx_agg_snap *s;

				scx_agg__advance(a, t); /* no interval: nothing closes */
				s = scx_agg__snapshot(a);
				(void)s;
			}
		}
		mem_big = scx_agg__mem(a);
		ok(mem_big <= mem_small + mem_small / 10,
		   "memory after 200k threads %zu about as after 100k (%zu): bounded", mem_big,
		   mem_small);
		scx_agg__flush(a);
		maxthr = scx_agg__snapshot(a)->nr_threads;
		is_int(maxthr, 0, "freed threads are dropped");
		scx_agg__free(a);
	}

	/* ---- spurious waking and out-of-order events */
	{
		struct scx_agg_opts o3 = { .emit = on_snap };
		struct scx_event x[] = {
			sw(1000, 0, 0, 0, 7),
			wake(1500, 1, 7, 0, 9), /* 7 is running: spurious */
			sw(2000, 0, 7, SCX_STATE_INTERRUPTIBLE, 0),
			wake(3000, 1, 7, 0, 9),
			sw(2500, 1, 0, 0, 0), /* late */
			sw(3700, 0, 0, 0, 7),
		};

		nsnap = 0;
		a = scx_agg__new(topo, &o3);
		feed(a, x, SCX_ARRAY_SIZE(x));
		scx_agg__flush(a);
		is_int(scx_agg__snapshot(a)->out_of_order, 1,
		       "an older event is counted out of order");
		is_int(scx_agg__snapshot(a)->total.wake_lat.count, 1,
		       "the spurious waking gave no latency");
		is_int(scx_agg__snapshot(a)->total.wake_lat.max, 700, "wake latency 3000 -> 3700");
		scx_agg__free(a);
	}
	test_group_reuse(topo);
	test_set_by(topo);
	test_no_task_stats(topo);
	test_skip_hists(topo);
	test_skip_cpu_hists(topo);
	test_mutual(topo);
	scx_topo__free(topo);
	test_cpu_outliers();
	test_table_sort();
	return done_testing();
}
