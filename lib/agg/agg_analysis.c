// SPDX-License-Identifier: GPL-2.0
/* Analyses over the closed interval: fairness, outliers, bottlenecks. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_report_int.h"

/* Threads that ran or waited to run in the interval. */
static unsigned demanding(struct scx_agg *a, struct thread ***out)
{
	struct thread **v = scx_xmalloc((a->threads.n + 1) * sizeof(*v)), *t;
	unsigned n = 0;
	size_t pos = 0;

	while ((t = agg_thread_next(a, &pos)))
		if (t->has_stats && (t->s.busy_ns || t->s.runnable_ns || t->s.preempted_ns))
			v[n++] = t;
	*out = v;
	return n;
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return a < b ? -1 : a > b;
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

AGG_REPORT(agg_rep_fairness)
{
	static const char *const sc[] = {
		"threads:u",	   "runtime:ns", "fair_share:ns", "gini:n",
		"max_min_ratio:n", "starved:u",	 "hogging:u",	  NULL,
	};
	static const char *const tc[] = {
		"pid:i:key", "comm:s", "runtime:ns", "fair_pct:pct", "waiting:ns", NULL,
	};
	struct scx_table *s = scx_table_new(r, "summary", sc),
			 *st = scx_table_new(r, "starved", tc),
			 *hg = scx_table_new(r, "hogging", tc);
	struct thread **v;
	unsigned n = demanding(a, &v), row, nst = 0, nhg = 0;
	uint64_t *rt = scx_xmalloc((n + 1) * sizeof(*rt)), total = 0;
	double fair, g = 0, weighted = 0;

	for (unsigned i = 0; i < n; i++) {
		rt[i] = v[i]->s.busy_ns;
		total += rt[i];
	}
	qsort(rt, n, sizeof(*rt), cmp_u64);
	for (unsigned i = 0; i < n; i++)
		weighted += (double)(i + 1) * rt[i];
	if (n && total)
		g = 2 * weighted / ((double)n * total) - (double)(n + 1) / n;
	fair = n ? (double)total / n : 0;
	for (unsigned i = 0; i < n; i++) {
		struct thread *t = v[i];
		uint64_t waited = t->s.runnable_ns + t->s.preempted_ns;
		struct scx_table *tb = NULL;

		/* starved: wanted the CPU more than it got it, and got little */
		if (t->s.busy_ns < fair * a->th[TH_STARVED] / 100 && waited > t->s.busy_ns)
			tb = st, nst++;
		else if (t->s.busy_ns > fair * a->th[TH_HOG])
			tb = hg, nhg++;
		if (!tb)
			continue;
		row = scx_table_row(tb);
		scx_table_int(tb, row, 0, t->pid);
		scx_table_str(tb, row, 1, t->comm);
		scx_table_uint(tb, row, 2, t->s.busy_ns);
		scx_table_num(tb, row, 3, fair > 0 ? 100 * t->s.busy_ns / fair : 0);
		/* without wakeups only the preempted waits are seen */
		known_uint(tb, row, 4, agg_seen(a, SCX_AGG_SEEN_WAKE), waited);
	}
	row = scx_table_row(s);
	scx_table_uint(s, row, 0, n);
	scx_table_uint(s, row, 1, total);
	scx_table_uint(s, row, 2, (uint64_t)fair);
	scx_table_num(s, row, 3, g);
	scx_table_num(s, row, 4, n && rt[0] ? (double)rt[n - 1] / rt[0] : 0);
	known_uint(s, row, 5, agg_seen(a, SCX_AGG_SEEN_WAKE), nst);
	scx_table_uint(s, row, 6, nhg);
	scx_table_append(out, s);
	agg_report_add(a, out, st, 4);
	agg_report_add(a, out, hg, 2);
	free(rt);
	free(v);
	return 0;
}

/* ---- outliers ---------------------------------------------------------------------- */

static double quantile_sorted(const double *x, unsigned n, double q)
{
	double pos = q * (n - 1);
	unsigned lo = (unsigned)pos;

	if (lo + 1 >= n)
		return x[n - 1];
	return x[lo] + (pos - lo) * (x[lo + 1] - x[lo]);
}

enum { OM_WAKE_MAX, OM_WAKE_P99, OM_RUNTIME, OM_SWITCHES, OM_RQ_MAX, OM__COUNT };

static double thread_metric(const struct thread *t, int m)
{
	switch (m) {
	case OM_WAKE_MAX:
		return t->s.wake_lat.count ? (double)t->s.wake_lat.max : NAN;
	case OM_WAKE_P99:
		return t->s.wake_lat.count ? (double)scx_hist_quantile(&t->s.wake_lat, .99) : NAN;
	case OM_RUNTIME:
		return (double)t->s.busy_ns;
	case OM_SWITCHES:
		return (double)t->s.switches;
	case OM_RQ_MAX:
		return t->s.rq_delay.count ? (double)t->s.rq_delay.max : NAN;
	}
	return NAN;
}

enum { OC_UTIL, OC_SWITCH_RATE, OC_WAKE_P99, OC_RQ_P99, OC_SOFTIRQ, OC__COUNT };

/*
 * NAN where the metric says nothing of the CPU.  A CPU whose time was never
 * known (no switch seen on it: offline, or left out of the capture) would
 * otherwise look idle and be called an outlier for it.
 */
static double cpu_metric(const struct scx_agg *a, const struct cpu *c, int m)
{
	uint64_t dur = agg_dur(a), sirq = 0;
	bool timed = dur && c->s.busy_ns + c->s.idle_ns;

	switch (m) {
	case OC_UTIL:
		return timed ? 100.0 * c->s.busy_ns / dur : NAN;
	case OC_SWITCH_RATE:
		return timed ? c->s.switches * 1e9 / dur : NAN;
	case OC_WAKE_P99:
		return c->s.wake_lat.count ? (double)scx_hist_quantile(&c->s.wake_lat, .99) : NAN;
	case OC_RQ_P99:
		return c->s.rq_delay.count ? (double)scx_hist_quantile(&c->s.rq_delay, .99) : NAN;
	case OC_SOFTIRQ:
		for (int k = 0; k < SCX_NR_SOFTIRQS; k++)
			sirq += c->s.softirq_ns[k];
		return timed ? 100.0 * sirq / dur : NAN;
	}
	return NAN;
}

/*
 * One metric over n entities, y[i] NAN where it does not apply: a row of th
 * per method with its bounds, and a row of ot per entity outside them.  ot's
 * columns: metric, method, id (pid or cpu), comm when comm is not NULL,
 * value, bound, score.
 */
static void outlier_metric(struct scx_agg *a, const char *metric, const double *y,
			   const int64_t *id, const char *const *comm, unsigned n,
			   struct scx_table *th, struct scx_table *ot)
{
	static const char *const meth[] = { "iqr", "mad", "stddev", "percentile" };
	double *x = scx_xmalloc((n + 1) * sizeof(*x)), *dev = scx_xmalloc((n + 1) * sizeof(*dev));
	double q1, q3, med, mad, mean = 0, sd = 0;
	unsigned k = 0;

	for (unsigned i = 0; i < n; i++)
		if (!isnan(y[i]))
			x[k++] = y[i];
	if (k < 4) /* too few to call anything an outlier */
		goto cleanup;
	qsort(x, k, sizeof(*x), cmp_dbl);
	q1 = quantile_sorted(x, k, .25);
	q3 = quantile_sorted(x, k, .75);
	med = quantile_sorted(x, k, .5);
	for (unsigned i = 0; i < k; i++) {
		dev[i] = fabs(x[i] - med);
		mean += x[i];
	}
	mean /= k;
	for (unsigned i = 0; i < k; i++)
		sd += (x[i] - mean) * (x[i] - mean);
	sd = sqrt(sd / k);
	qsort(dev, k, sizeof(*dev), cmp_dbl);
	mad = quantile_sorted(dev, k, .5);
	for (int me = 0; me < 4; me++) {
		double lo, hi;
		unsigned cnt = 0, row, col;

		switch (me) {
		case 0:
			lo = q1 - a->th[TH_IQR_K] * (q3 - q1);
			hi = q3 + a->th[TH_IQR_K] * (q3 - q1);
			break;
		case 1: /* modified z = 0.6745 (x - median) / MAD */
			lo = mad > 0 ? med - a->th[TH_MAD_Z] * mad / 0.6745 : -INFINITY;
			hi = mad > 0 ? med + a->th[TH_MAD_Z] * mad / 0.6745 : INFINITY;
			break;
		case 2:
			lo = mean - a->th[TH_SIGMA] * sd;
			hi = mean + a->th[TH_SIGMA] * sd;
			break;
		default:
			lo = -INFINITY;
			hi = quantile_sorted(x, k, a->th[TH_PCT] / 100);
			break;
		}
		for (unsigned i = 0; i < n; i++) {
			double yi = y[i], score;

			if (isnan(yi) || (yi <= hi && yi >= lo))
				continue;
			cnt++;
			/* distance past the bound in units of the method's spread */
			if (me == 0)
				score = q3 > q1 ? (yi > hi ? yi - q3 : q1 - yi) / (q3 - q1) : 0;
			else if (me == 1)
				score = mad > 0 ? 0.6745 * fabs(yi - med) / mad : 0;
			else if (me == 2)
				score = sd > 0 ? fabs(yi - mean) / sd : 0;
			else
				score = hi > 0 ? yi / hi : 0;
			row = scx_table_row(ot);
			col = 0;
			scx_table_str(ot, row, col++, metric);
			scx_table_str(ot, row, col++, meth[me]);
			scx_table_int(ot, row, col++, id[i]);
			if (comm)
				scx_table_str(ot, row, col++, comm[i]);
			scx_table_num(ot, row, col++, yi);
			scx_table_num(ot, row, col++, yi > hi ? hi : lo);
			scx_table_num(ot, row, col, score);
		}
		row = scx_table_row(th);
		scx_table_str(th, row, 0, metric);
		scx_table_str(th, row, 1, meth[me]);
		scx_table_uint(th, row, 2, k);
		scx_table_num(th, row, 3, isinf(lo) ? 0 : lo);
		scx_table_num(th, row, 4, isinf(hi) ? 0 : hi);
		scx_table_uint(th, row, 5, cnt);
	}
cleanup:
	free(x);
	free(dev);
}

/*
 * Threads, and CPUs, whose metric lies outside the bounds of each method.
 * CPU metrics are named cpu_* so that the thresholds table keys both.
 */
AGG_REPORT(agg_rep_outliers)
{
	static const char *const tnames[] = {
		"wake_lat_max", "wake_lat_p99", "runtime", "switches", "rq_delay_max",
	};
	static const char *const cnames[] = {
		"cpu_util",	    "cpu_switch_rate", "cpu_wake_lat_p99",
		"cpu_rq_delay_p99", "cpu_softirq_pct",
	};
	static const char *const tc[] = {
		"metric:s:key", "method:s:key", "n:u", "lower:n", "upper:n", "outliers:u", NULL,
	};
	static const char *const oc[] = {
		"metric:s:key", "method:s:key", "pid:i:key", "comm:s",
		"value:n",	"bound:n",	"score:n",   NULL,
	};
	static const char *const cc[] = {
		"metric:s:key", "method:s:key", "cpu:i:key", "value:n", "bound:n", "score:n", NULL,
	};
	struct scx_table *th = scx_table_new(r, "thresholds", tc);
	struct scx_table *ot = scx_table_new(r, "outliers", oc), *ct = scx_table_new(r, "cpus", cc);
	struct thread **v;
	unsigned n = demanding(a, &v), nc = 0, size = SCX_MAX(n, a->nr_cpus) + 1;
	double *y = scx_xmalloc(size * sizeof(*y));
	int64_t *id = scx_xmalloc(size * sizeof(*id));
	const char **comm = scx_xmalloc(size * sizeof(*comm));

	for (unsigned i = 0; i < n; i++) {
		id[i] = v[i]->pid;
		comm[i] = v[i]->comm;
	}
	for (int m = 0; m < OM__COUNT; m++) {
		for (unsigned i = 0; i < n; i++)
			y[i] = thread_metric(v[i], m);
		outlier_metric(a, tnames[m], y, id, comm, n, th, ot);
	}
	FOR_CPUS(a, cp)
	id[nc++] = cp->id;
	for (int m = 0; m < OC__COUNT; m++) {
		for (unsigned i = 0; i < nc; i++)
			y[i] = cpu_metric(a, &a->cpus[id[i]], m);
		outlier_metric(a, cnames[m], y, id, NULL, nc, th, ct);
	}
	scx_table_append(out, th);
	agg_report_add(a, out, ot, 6);
	agg_report_add(a, out, ct, 5);
	free(y);
	free(id);
	free(comm);
	free(v);
	return 0;
}

/* ---- bottlenecks ------------------------------------------------------------------- */

static void finding(struct scx_table *t, const char *rule, const char *where, double value,
		    double limit, const char *what)
{
	unsigned row = scx_table_row(t);

	scx_table_str(t, row, 0, rule);
	scx_table_str(t, row, 1, where);
	scx_table_num(t, row, 2, value);
	scx_table_num(t, row, 3, limit);
	scx_table_num(t, row, 4, limit > 0 ? fmin(value / limit, 10) : 10);
	scx_table_str(t, row, 5, what);
}

AGG_REPORT(agg_rep_bottlenecks)
{
	static const char *const fc[] = {
		"rule:s:key", "where:s:key", "value:n", "threshold:n",
		"severity:n", "meaning:s",   NULL,
	};
	struct scx_table *t = scx_table_new(r, "findings", fc);
	uint64_t dur = agg_dur(a);
	double secs = dur / 1e9, umax = -1, umin = 101;
	char where[32];
	int cmax = -1, cmin = -1;

	if (a->snap.lost > a->th[TH_LOST])
		finding(t, "lost-events", "all", (double)a->snap.lost, a->th[TH_LOST],
			"the producer lost events: counts and latencies of this interval are low");
	for (unsigned i = 0; i < a->nr_cpus && dur; i++) {
		const struct cpu *c = &a->cpus[i];
		double u = 100.0 * c->s.busy_ns / dur, rate = c->s.switches / secs, sirq = 0;
		double p99;

		if (!agg_cpu_present(a, i))
			continue;
		snprintf(where, sizeof(where), "cpu %u", i);
		if (u > umax)
			umax = u, cmax = i;
		if (u < umin)
			umin = u, cmin = i;
		if (rate > a->th[TH_SWITCH_RATE])
			finding(t, "switch-rate", where, rate, a->th[TH_SWITCH_RATE],
				"context switches per second");
		p99 = scx_hist_quantile(&c->s.wake_lat, .99) / 1e6;
		if (c->s.wake_lat.count && p99 > a->th[TH_WAKE_P99])
			finding(t, "wakeup-latency", where, p99, a->th[TH_WAKE_P99],
				"p99 wakeup latency, ms");
		p99 = scx_hist_quantile(&c->s.rq_delay, .99) / 1e6;
		if (u >= a->th[TH_UTIL_HIGH] && c->s.rq_delay.count && p99 > a->th[TH_RQ_P99])
			finding(t, "saturated", where, p99, a->th[TH_RQ_P99],
				"cpu busy and tasks wait: p99 run-queue delay, ms");
		if (c->s.rq_depth_max > a->th[TH_RQ_DEPTH])
			finding(t, "runqueue-depth", where, (double)c->s.rq_depth_max,
				a->th[TH_RQ_DEPTH], "tasks waiting at once");
		for (int k = 0; k < SCX_NR_SOFTIRQS; k++)
			sirq += c->s.softirq_ns[k];
		sirq = 100 * sirq / dur;
		if (sirq > a->th[TH_SOFTIRQ])
			finding(t, "softirq", where, sirq, a->th[TH_SOFTIRQ],
				"percent of time in softirqs");
	}
	if (secs > 0 && a->snap.total.migrations / secs > a->th[TH_MIGR_RATE])
		finding(t, "migration-rate", "all", a->snap.total.migrations / secs,
			a->th[TH_MIGR_RATE], "migrations per second");
	if (cmax >= 0 && cmin >= 0 && umax - umin > a->th[TH_IMBALANCE]) {
		snprintf(where, sizeof(where), "cpu %d vs %d", cmax, cmin);
		finding(t, "imbalance", where, umax - umin, a->th[TH_IMBALANCE],
			"utilisation of the busiest minus the idlest cpu, points");
	}
	agg_report_add(a, out, t, 4);
	return 0;
}
