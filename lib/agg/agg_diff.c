// SPDX-License-Identifier: GPL-2.0
/*
 * A/B comparison of two summaries (agg_summary.h).  Each metric of each
 * group found in both is compared, and the change is tested against
 * run-to-run noise with a test that works on what a summary holds:
 *  - distributions (p50 rows): Mann-Whitney U on the histogram bucket counts
 *    (values in one bucket are ties), normal approximation with the tie
 *    correction;
 *  - distribution tails (p99 rows): the share of values above the pooled p99
 *    bucket, two-proportion z test;
 *  - event rates: the two counts as Poisson over their durations, z test;
 *  - time shares (utilisation, violation): no noise model in one capture,
 *    reported as changed or not by --min-change alone, never as regressions.
 * A change counts when p < alpha and it is at least min_change of A's value.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_summary_int.h"
#include "agg/table.h"
#include "core/util.h"

enum test { T_NONE, T_MWU, T_TAIL, T_POISSON };
static const char *const test_names[] = { "none", "mann-whitney", "tail-proportion", "poisson" };
enum dir { D_NEUTRAL, D_HIGHER_WORSE };
enum cls { C_REGRESSION, C_IMPROVEMENT, C_CHANGED, C_UNTESTED, C_SAME, C__COUNT };
static const char *const cls_names[] = {
	"regression", "improvement", "changed", "untested", "same",
};

struct row {
	enum cls cls;
	const char *metric;
	char group[SUM_PATH_LEN + 16];
	double a, b, p, z;
	enum test test;
};

struct rows {
	struct row *r;
	unsigned n, cap;
};

static struct row *row_add(struct rows *rs)
{
	if (rs->n == rs->cap) {
		rs->cap = rs->cap ? rs->cap * 2 : 256;
		rs->r = scx_xrealloc(rs->r, rs->cap * sizeof(*rs->r));
	}
	memset(&rs->r[rs->n], 0, sizeof(rs->r[0]));
	return &rs->r[rs->n++];
}

static double p_of_z(double z)
{
	return erfc(fabs(z) / sqrt(2));
}

/* Mann-Whitney U of B against A over bucket counts: z > 0 when B's values are larger. */
static bool mwu(const struct scx_hist *a, const struct scx_hist *b, double *z)
{
	double na = a->count, nb = b->count, n = na + nb, u = 0, ties = 0, below_a = 0, sd;
	unsigned lo, hi;

	if (a->count < 10 || b->count < 10)
		return false;
	lo = scx_hist_index(SCX_MIN(a->min, b->min));
	hi = scx_hist_index(SCX_MAX(a->max, b->max));
	for (unsigned i = lo; i <= hi; i++) {
		double ca = scx_hist_bucket_count(a, i), cb = scx_hist_bucket_count(b, i),
		       t = ca + cb;

		u += cb * (below_a + ca / 2);
		below_a += ca;
		ties += t * t * t - t;
	}
	sd = sqrt(na * nb / 12 * ((n + 1) - ties / (n * (n - 1))));
	if (!(sd > 0))
		return false;
	*z = (u - na * nb / 2) / sd;
	return true;
}

/* Share above the pooled p99 bucket, B against A: z > 0 when B has more. */
static bool tail(const struct scx_hist *a, const struct scx_hist *b, double *z)
{
	struct scx_hist pool;
	double xa = 0, xb = 0, na = a->count, nb = b->count, p, sd;
	unsigned cut, hi;

	if (a->count < 100 || b->count < 100)
		return false;
	scx_hist_init(&pool);
	scx_hist_merge(&pool, a);
	scx_hist_merge(&pool, b);
	cut = scx_hist_index(scx_hist_quantile(&pool, 0.99));
	scx_hist_free(&pool);
	hi = scx_hist_index(SCX_MAX(a->max, b->max));
	for (unsigned i = cut + 1; i <= hi; i++) {
		xa += scx_hist_bucket_count(a, i);
		xb += scx_hist_bucket_count(b, i);
	}
	p = (xa + xb) / (na + nb);
	sd = sqrt(p * (1 - p) * (1 / na + 1 / nb));
	if (!(sd > 0))
		return false;
	*z = (xb / nb - xa / na) / sd;
	return true;
}

/* Two Poisson counts over their durations: z > 0 when B's rate is higher. */
static bool poisson(double ca, double ta, double cb, double tb, double *z)
{
	double sd;

	if (ta <= 0 || tb <= 0 || ca + cb < 10)
		return false;
	sd = sqrt(ca / (ta * ta) + cb / (tb * tb));
	if (!(sd > 0))
		return false;
	*z = (cb / tb - ca / ta) / sd;
	return true;
}

static void judge(struct row *r, bool tested, enum dir dir, const struct scx_diff_opts *o)
{
	double rel = r->a ? fabs(r->b - r->a) / fabs(r->a) : r->b ? INFINITY : 0;

	r->p = tested ? p_of_z(r->z) : NAN;
	if (r->test == T_NONE) {
		/* no noise model: a change, never a regression */
		r->cls = rel >= o->min_change ? C_CHANGED : C_SAME;
		return;
	}
	if (!tested) {
		/* too few values for the test: equal is still equal */
		r->cls = r->a == r->b ? C_SAME : C_UNTESTED;
		return;
	}
	if (r->p >= o->alpha || rel < o->min_change || r->a == r->b)
		r->cls = C_SAME;
	else if (dir == D_NEUTRAL)
		r->cls = C_CHANGED;
	else
		r->cls = (r->b > r->a) ? C_REGRESSION : C_IMPROVEMENT;
}

/* What the stream must hold for a metric to mean anything. */
static bool has_wakeups(const struct scx_sum *s)
{
	return s->by_type[SCX_EV_WAKING] + s->by_type[SCX_EV_WAKEUP] +
	       s->by_type[SCX_EV_WAKEUP_NEW];
}

struct ctx {
	const struct scx_sum *a, *b;
	const struct scx_diff_opts *o;
	struct rows rows;
	struct scx_table *nc; /* not compared */
};

static void not_compared(struct ctx *c, const char *what, const char *why)
{
	unsigned row = scx_table_row(c->nc);

	scx_table_str(c->nc, row, 0, what);
	scx_table_str(c->nc, row, 1, why);
}

static void dist_rows(struct ctx *c, const char *group, const struct sum_grp *ga,
		      const struct sum_grp *gb, int h, enum dir dir, const char *m50,
		      const char *m99)
{
	struct row *r = row_add(&c->rows);
	bool t;

	r->metric = m50;
	snprintf(r->group, sizeof(r->group), "%s", group);
	r->a = scx_hist_quantile(&ga->h[h], 0.5);
	r->b = scx_hist_quantile(&gb->h[h], 0.5);
	r->test = T_MWU;
	t = mwu(&ga->h[h], &gb->h[h], &r->z);
	judge(r, t, dir, c->o);
	r = row_add(&c->rows);
	r->metric = m99;
	snprintf(r->group, sizeof(r->group), "%s", group);
	r->a = scx_hist_quantile(&ga->h[h], 0.99);
	r->b = scx_hist_quantile(&gb->h[h], 0.99);
	r->test = T_TAIL;
	t = tail(&ga->h[h], &gb->h[h], &r->z);
	judge(r, t, dir, c->o);
}

static void rate_row(struct ctx *c, const char *group, const char *metric, uint64_t ca, uint64_t cb,
		     enum dir dir)
{
	struct row *r = row_add(&c->rows);
	double ta = c->a->dur / 1e9, tb = c->b->dur / 1e9;
	bool t;

	r->metric = metric;
	snprintf(r->group, sizeof(r->group), "%s", group);
	r->a = ta > 0 ? ca / ta : 0;
	r->b = tb > 0 ? cb / tb : 0;
	r->test = T_POISSON;
	t = poisson(ca, ta, cb, tb, &r->z);
	judge(r, t, dir, c->o);
}

static void share_row(struct ctx *c, const char *group, const char *metric, double va, double vb)
{
	struct row *r = row_add(&c->rows);

	r->metric = metric;
	snprintf(r->group, sizeof(r->group), "%s", group);
	r->a = va;
	r->b = vb;
	r->test = T_NONE;
	judge(r, false, D_NEUTRAL, c->o);
}

static void compare_group(struct ctx *c, const struct sum_grp *ga, const struct sum_grp *gb)
{
	char group[SUM_PATH_LEN + 16];
	bool wake = has_wakeups(c->a) && has_wakeups(c->b);
	bool mig = c->a->by_type[SCX_EV_MIGRATE] && c->b->by_type[SCX_EV_MIGRATE];
	double da = c->a->dur, db = c->b->dur;

	if (ga->kind == SK_TOTAL)
		snprintf(group, sizeof(group), "total");
	else if (ga->kind == SK_COMM)
		snprintf(group, sizeof(group), "comm %s", ga->comm);
	else if (ga->kind == SK_DSQ)
		snprintf(group, sizeof(group), "dsq %#llx", (unsigned long long)ga->key);
	else if (ga->kind == SK_TGID)
		snprintf(group, sizeof(group), "process %lld %s", (long long)ga->key, gb->comm);
	else if (ga->kind == SK_CGROUP)
		snprintf(group, sizeof(group), "cgroup %s", ga->path);
	else
		snprintf(group, sizeof(group), "%s %lld", sum_kinds[ga->kind], (long long)ga->key);
	if (ga->kind != SK_DSQ) {
		/* tasks' groups: util is of one CPU */
		bool tasks = ga->kind == SK_COMM || ga->kind == SK_TGID || ga->kind == SK_CGROUP;
		unsigned na = tasks ? 1 : SCX_MAX(ga->nr, 1u);
		unsigned nb = tasks ? 1 : SCX_MAX(gb->nr, 1u);

		share_row(c, group, "util", da ? 100.0 * ga->fig[F_BUSY] / (da * na) : 0,
			  db ? 100.0 * gb->fig[F_BUSY] / (db * nb) : 0);
		rate_row(c, group, "switches_per_s", ga->fig[F_SWITCHES], gb->fig[F_SWITCHES],
			 D_NEUTRAL);
		rate_row(c, group, "involuntary_per_s", ga->fig[F_INVOL], gb->fig[F_INVOL],
			 D_HIGHER_WORSE);
		/* without wakeups only the preempted tasks' waits: unknown (summary null) */
		if (wake)
			dist_rows(c, group, ga, gb, H_RQ, D_HIGHER_WORSE, "rq_delay.p50",
				  "rq_delay.p99");
		dist_rows(c, group, ga, gb, H_SLICE, D_NEUTRAL, "slice.p50", "slice.p99");
	}
	if (wake && ga->kind != SK_DSQ) {
		rate_row(c, group, "wakeups_per_s", ga->fig[F_WAKEUPS], gb->fig[F_WAKEUPS],
			 D_NEUTRAL);
		dist_rows(c, group, ga, gb, H_WAKE, D_HIGHER_WORSE, "wake_lat.p50", "wake_lat.p99");
	}
	if (mig && ga->kind != SK_DSQ) {
		rate_row(c, group, "migrations_per_s", ga->fig[F_MIGR], gb->fig[F_MIGR],
			 D_HIGHER_WORSE);
		rate_row(c, group, "cross_llc_per_s", ga->fig[F_XLLC], gb->fig[F_XLLC],
			 D_HIGHER_WORSE);
		rate_row(c, group, "cross_node_per_s", ga->fig[F_XNODE], gb->fig[F_XNODE],
			 D_HIGHER_WORSE);
	}
	if (ga->kind == SK_DSQ)
		dist_rows(c, group, ga, gb, H_DSQ, D_HIGHER_WORSE, "dsq_lat.p50", "dsq_lat.p99");
	if (ga->kind == SK_TOTAL && (ga->has & gb->has & (1u << F_ACTIVE))) {
		/* waiting tasks and runnable threads are seen from their wakeups (else null) */
		if (wake && (ga->has & gb->has & (1u << F_VIOL))) {
			share_row(c, group, "violation_pct", da ? 100.0 * ga->fig[F_VIOL] / da : 0,
				  db ? 100.0 * gb->fig[F_VIOL] / db : 0);
			share_row(c, group, "runnable_avg", da ? ga->fig[F_RUNNABLE] / da : 0,
				  db ? gb->fig[F_RUNNABLE] / db : 0);
		}
		share_row(c, group, "active_avg", da ? ga->fig[F_ACTIVE] / da : 0,
			  db ? gb->fig[F_ACTIVE] / db : 0);
	}
}

static const struct sum_grp *find(const struct scx_sum *s, const struct sum_grp *g)
{
	for (unsigned i = 0; i < s->nr_groups; i++) {
		const struct sum_grp *h = &s->groups[i];

		if (h->kind == g->kind && h->key == g->key &&
		    (g->kind != SK_COMM || !strncmp(h->comm, g->comm, SCX_COMM_LEN)) &&
		    !strncmp(h->path, g->path, SUM_PATH_LEN))
			return h;
	}
	return NULL;
}

/* Say what one side lacks for the total's metrics. */
static void missing(struct ctx *c)
{
	const struct scx_sum *s[2] = { c->a, c->b };
	static const char side[2] = { 'A', 'B' };
	char why[160];

	for (int i = 0; i < 2; i++) {
		if (!has_wakeups(s[i])) {
			snprintf(why, sizeof(why),
				 "%c has no sched_waking, sched_wakeup or "
				 "sched_wakeup_new events",
				 side[i]);
			not_compared(c, "wake_lat, rq_delay, wakeups_per_s", why);
			if (s[i]->total.has & (1u << F_ACTIVE))
				not_compared(c, "violation_pct, runnable_avg", why);
		}
		if (!s[i]->by_type[SCX_EV_MIGRATE]) {
			snprintf(why, sizeof(why), "%c has no sched_migrate_task events", side[i]);
			not_compared(c, "migrations_per_s, cross_llc_per_s, cross_node_per_s", why);
		}
		if (!(s[i]->total.has & (1u << F_ACTIVE))) {
			snprintf(why, sizeof(why), "%c was summarised without placement tracking",
				 side[i]);
			not_compared(c, "violation_pct, runnable_avg, active_avg", why);
		}
		if (!s[i]->by_type[SCX_EV_SWITCH]) {
			snprintf(why, sizeof(why), "%c has no sched_switch events", side[i]);
			not_compared(c, "util, rq_delay, slice", why);
		}
	}
}

static int cmp_row(const void *x, const void *y)
{
	const struct row *r = x, *s = y;
	double zr = isnan(r->p) ? 0 : fabs(r->z), zs = isnan(s->p) ? 0 : fabs(s->z);

	if (r->cls != s->cls)
		return (int)r->cls - (int)s->cls;
	return zr > zs ? -1 : zr < zs;
}

void scx_agg_diff(const struct scx_sum *a, const struct scx_sum *b, const struct scx_diff_opts *opt,
		  struct scx_table **out, struct scx_diff_verdict *v)
{
	static const char *const cc[] = {
		"verdict:s", "metric:s:key", "group:s:key", "a:n",    "b:n",
		"change:n",  "change_pct:n", "p:n",	    "test:s", NULL
	};
	static const char *const nc[] = { "what:s:key", "why:s", NULL };
	static const char *const vc[] = {
		"verdict:s", "regressions:u", "improvements:u", "changed:u",
		"same:u",    "untested:u",    "not_compared:u", NULL,
	};
	struct scx_diff_opts o = opt ? *opt : (struct scx_diff_opts){ 0 };
	struct ctx c = { a, b, &o, { 0 }, scx_table_new("diff", "not_compared", nc) };
	struct scx_table *t = scx_table_new("diff", "comparison", cc), *vt;
	unsigned only_a[SK__COUNT] = { 0 }, only_b[SK__COUNT] = { 0 }, cnt[C__COUNT] = { 0 };
	bool topo_ok =
		a->topo_fp == b->topo_fp && a->cpus == b->cpus && !a->topo_mixed && !b->topo_mixed;
	char why[200];
	size_t n = 0;

	if (!o.alpha)
		o.alpha = 0.01;
	if (!o.min_change)
		o.min_change = 0.05;
	memset(v, 0, sizeof(*v));
	if (!topo_ok) {
		snprintf(why, sizeof(why),
			 "topologies differ: A %u cpus %u llcs %u nodes%s, B %u cpus "
			 "%u llcs %u nodes%s",
			 a->cpus, a->llcs, a->nodes, a->topo_mixed ? " (mixed)" : "", b->cpus,
			 b->llcs, b->nodes, b->topo_mixed ? " (mixed)" : "");
		not_compared(&c, "cpu, llc and node groups", why);
	}
	missing(&c);
	compare_group(&c, &a->total, &b->total);
	for (unsigned i = 0; i < a->nr_groups; i++) {
		const struct sum_grp *ga = &a->groups[i], *gb;
		bool cpu_kind = ga->kind == SK_CPU || ga->kind == SK_LLC || ga->kind == SK_NODE;

		if (cpu_kind && !topo_ok)
			continue;
		if (!(gb = find(b, ga))) {
			only_a[ga->kind]++;
			continue;
		}
		compare_group(&c, ga, gb);
	}
	for (unsigned i = 0; i < b->nr_groups; i++)
		if (!find(a, &b->groups[i]))
			only_b[b->groups[i].kind]++;
	for (int k = SK_CPU; k < SK__COUNT; k++) {
		if (!only_a[k] && !only_b[k])
			continue;
		if ((k == SK_CPU || k == SK_LLC || k == SK_NODE) && !topo_ok)
			continue;
		snprintf(why, sizeof(why), "%u only in A, %u only in B", only_a[k], only_b[k]);
		not_compared(&c, sum_kinds[k], why);
	}
	qsort(c.rows.r, c.rows.n, sizeof(*c.rows.r), cmp_row);
	for (unsigned i = 0; i < c.rows.n; i++) {
		const struct row *r = &c.rows.r[i];
		unsigned row = scx_table_row(t);

		cnt[r->cls]++;
		scx_table_str(t, row, 0, cls_names[r->cls]);
		scx_table_str(t, row, 1, r->metric);
		scx_table_str(t, row, 2, r->group);
		scx_table_num(t, row, 3, r->a);
		scx_table_num(t, row, 4, r->b);
		scx_table_num(t, row, 5, r->b - r->a);
		scx_table_num(t, row, 6, r->a ? 100.0 * (r->b - r->a) / fabs(r->a) : NAN);
		scx_table_num(t, row, 7, r->p);
		scx_table_str(t, row, 8, test_names[r->test]);
	}
	v->regressions = cnt[C_REGRESSION];
	v->improvements = cnt[C_IMPROVEMENT];
	v->changed = cnt[C_CHANGED];
	v->same = cnt[C_SAME];
	v->untested = cnt[C_UNTESTED];
	if (v->regressions)
		n = snprintf(v->line, sizeof(v->line), "B is worse than A: %u regression%s",
			     v->regressions, v->regressions > 1 ? "s" : "");
	else if (v->improvements)
		n = snprintf(v->line, sizeof(v->line), "B is better than A: %u improvement%s",
			     v->improvements, v->improvements > 1 ? "s" : "");
	else
		n = snprintf(v->line, sizeof(v->line), "no change beyond noise");
	/* name the worst few: the rows are sorted regressions first */
	for (unsigned i = 0, k = 0; i < c.rows.n && k < 3 && n < sizeof(v->line); i++) {
		const struct row *r = &c.rows.r[i];

		if (r->cls != (v->regressions ? C_REGRESSION : C_IMPROVEMENT))
			continue;
		n += snprintf(v->line + n, sizeof(v->line) - n, "%s %s of %s %+.1f%%",
			      k ? "," : ":", r->metric, r->group,
			      r->a ? 100.0 * (r->b - r->a) / fabs(r->a) : INFINITY);
		k++;
	}
	if (n < sizeof(v->line))
		snprintf(v->line + n, sizeof(v->line) - n,
			 " (%u compared, %u changed, %u untested, "
			 "%u not compared)",
			 c.rows.n, v->changed, v->untested, c.nc->nrows);
	vt = scx_table_new("diff", "verdict", vc);
	{
		unsigned row = scx_table_row(vt);

		scx_table_str(vt, row, 0, v->line);
		scx_table_uint(vt, row, 1, v->regressions);
		scx_table_uint(vt, row, 2, v->improvements);
		scx_table_uint(vt, row, 3, v->changed);
		scx_table_uint(vt, row, 4, v->same);
		scx_table_uint(vt, row, 5, v->untested);
		scx_table_uint(vt, row, 6, c.nc->nrows);
	}
	scx_table_limit(t, o.limit);
	*out = NULL;
	scx_table_append(out, t);
	scx_table_append(out, c.nc);
	scx_table_append(out, vt);
	free(c.rows.r);
}
