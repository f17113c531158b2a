// SPDX-License-Identifier: GPL-2.0
/*
 * Placement reports: work-conservation, runqueue-occupancy, wakeup-placement,
 * pre-migration, parallelism.  The figures are gathered by agg_place.c; the
 * exact definitions are in man/scx-agg.1.  A figure that needs the topology
 * (same LLC, same node) is null (text "-") when the CPUs' LLCs are unknown,
 * never 0; so is one that needs events the stream lacks: the run queues
 * without wakeup events (a woken task is first seen when it runs), the
 * migrations without sched_migrate_task.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_report_int.h"

/* The placement state of CPU i if the engine knows CPU i. */
static const struct place_cpu *pcpu(const struct scx_agg *a, unsigned i)
{
	static const struct place_cpu none; /* no event touched it */
	const struct agg_place *p = a->place;

	if (!agg_cpu_present(a, i))
		return NULL;
	if (i < p->nr_cpu && p->cpu[i].init)
		return &p->cpu[i];
	return &none;
}

/* Each CPU the engine knows, as i and its placement state pc. */
#define FOR_PLACE_CPUS(a, i, pc) \
	for (unsigned i = 0; i < (a)->nr_cpus; i++) \
		for (const struct place_cpu *pc = pcpu(a, i); pc; pc = NULL)

static uint64_t dom_viol(const struct place_dom *d)
{
	return d->viol - d->viol0;
}

/* ---- work-conservation ---------------------------------------------------------- */

/* What the idle-while-waiting figures take for granted, said with them. */
static void wc_limits(struct scx_agg *a, const char *r, struct scx_table **out)
{
	static const char *const lc[] = { "cause:s:key", "assumed:s", NULL };
	struct scx_table *l = scx_table_new(r, "limits", lc);
	unsigned row = scx_table_row(l);

	scx_table_str(l, row, 0, "affinity");
	scx_table_str(l, row, 1,
		      "the stream records no allowed CPUs: every task may run on every CPU");
	if (!a->place->seen_cpuhp) {
		row = scx_table_row(l);
		scx_table_str(l, row, 0, "offline");
		scx_table_str(l, row, 1, "no cpuhp events: a CPU taken offline counts as idle");
	}
	scx_table_append(out, l);
}

AGG_REPORT(agg_rep_work_conservation)
{
	static const char *const sc[] = {
		"cpus:u",
		"violation:ns",
		"violation_pct:pct",
		"idle_while_waiting:ns",
		"waited:ns",
		"waited_while_idle:ns",
		"waited_while_idle_pct:pct",
		NULL,
	};
	static const char *const cc[] = {
		"cpu:i:key",
		"llc:i",
		"node:i",
		"idle:ns",
		"idle_while_waiting:ns",
		"iww_pct:pct",
		"iww_same_llc_ns:n",
		"iww_state0:ns",
		"iww_deeper:ns",
		"iww_state_unknown:ns",
		"offline:ns",
		"offline_while_waiting:ns",
		"waited:ns",
		"waited_while_idle:ns",
		NULL,
	};
	static const char *const lc[] = {
		"llc:i:key", "cpus:u", "violation:ns", "violation_pct:pct", NULL,
	};
	static const char *const nc[] = {
		"node:i:key", "cpus:u", "violation:ns", "violation_pct:pct", NULL,
	};
	static const char *const tc[] = {
		"pid:i:key",
		"comm:s",
		"waited:ns",
		"waited_while_idle:ns",
		"while_idle_pct:pct",
		"while_llc_idle_ns:n",
		NULL,
	};
	struct agg_place *p = a->place;
	struct thread *th;
	size_t pos;
	struct scx_table *s = scx_table_new(r, "summary", sc), *c = scx_table_new(r, "cpus", cc),
			 *l = scx_table_new(r, "llcs", lc), *n = scx_table_new(r, "nodes", nc),
			 *t = scx_table_new(r, "threads", tc);
	uint64_t dur = agg_dur(a), iww = 0, w = 0, wi = 0;
	unsigned ncpu = 0, row;
	bool q = agg_seen(a, SCX_AGG_SEEN_WAKE); /* the queues are known */

	FOR_PLACE_CPUS(a, i, pc)
	{
		const struct cpu *cp = &a->cpus[i];

		ncpu++;
		iww += cp->s.wc_loss_ns;
		w += pc->q_wait_ns;
		wi += pc->q_wait_idle_ns;
		row = scx_table_row(c);
		scx_table_int(c, row, 0, i);
		scx_table_int(c, row, 1, cp->llc);
		scx_table_int(c, row, 2, cp->node);
		scx_table_uint(c, row, 3, pc->idle_ns);
		/* the engine's wc_loss: agg_place.c splits it by cause with the same definition */
		known_uint(c, row, 4, q, cp->s.wc_loss_ns);
		scx_table_num(c, row, 5, known_or_nan(q, agg_pct(cp->s.wc_loss_ns, pc->idle_ns)));
		scx_table_num(c, row, 6, known_or_nan(q && cp->llc >= 0, pc->idle_ww_llc_ns));
		for (unsigned k = 0; k < 3; k++)
			known_uint(c, row, 7 + k, q, pc->ww_cause_ns[k]);
		scx_table_uint(c, row, 10, pc->offline_ns);
		known_uint(c, row, 11, q, pc->offline_ww_ns);
		known_uint(c, row, 12, q, pc->q_wait_ns);
		known_uint(c, row, 13, q, pc->q_wait_idle_ns);
	}
	row = scx_table_row(s);
	scx_table_uint(s, row, 0, ncpu);
	known_uint(s, row, 1, q, dom_viol(&p->all));
	scx_table_num(s, row, 2, known_or_nan(q, agg_pct(dom_viol(&p->all), dur)));
	known_uint(s, row, 3, q, iww);
	known_uint(s, row, 4, q, w);
	known_uint(s, row, 5, q, wi);
	scx_table_num(s, row, 6, known_or_nan(q, agg_pct(wi, w)));
	scx_table_append(out, s);
	agg_report_add(a, out, c, 4);
	FOR_LLC_SLOTS(a, i)
	{
		row = scx_table_row(l);
		scx_table_int(l, row, 0, (int)i - 1);
		scx_table_uint(l, row, 1, a->llc_cpus[i]);
		known_uint(l, row, 2, q, i < p->nr_llc ? dom_viol(&p->llc[i]) : 0);
		scx_table_num(
			l, row, 3,
			known_or_nan(q, agg_pct(i < p->nr_llc ? dom_viol(&p->llc[i]) : 0, dur)));
	}
	agg_report_add(a, out, l, 2);
	FOR_NODE_SLOTS(a, i)
	{
		row = scx_table_row(n);
		scx_table_int(n, row, 0, (int)i - 1);
		scx_table_uint(n, row, 1, a->node_cpus[i]);
		known_uint(n, row, 2, q, i < p->nr_node ? dom_viol(&p->node[i]) : 0);
		scx_table_num(
			n, row, 3,
			known_or_nan(q, agg_pct(i < p->nr_node ? dom_viol(&p->node[i]) : 0, dur)));
	}
	agg_report_add(a, out, n, 2);
	pos = 0;
	while ((th = agg_thread_next(a, &pos))) {
		int32_t qc = th->cpu;

		if (!place_task_fresh(p, &th->pl) || !th->pl.wait_ns)
			continue;
		row = scx_table_row(t);
		scx_table_int(t, row, 0, th->pid);
		scx_table_str(t, row, 1, th->comm);
		/* without wakeups only its waits after preemptions are seen */
		known_uint(t, row, 2, q, th->pl.wait_ns);
		known_uint(t, row, 3, q, th->pl.wait_idle_ns);
		scx_table_num(t, row, 4,
			      known_or_nan(q, agg_pct(th->pl.wait_idle_ns, th->pl.wait_ns)));
		scx_table_num(t, row, 5,
			      known_or_nan(q && qc >= 0 && (unsigned)qc < a->nr_cpus &&
						   a->cpus[qc].llc >= 0,
					   th->pl.wait_idle_llc_ns));
	}
	agg_report_add(a, out, t, 3);
	wc_limits(a, r, out);
	return 0;
}

/* ---- runqueue-occupancy ------------------------------------------------------------ */

AGG_REPORT(agg_rep_runqueue_occupancy)
{
	static const char *const sc[] = {
		"cpus:u", "occupancy:pct", "max_occupancy:pct", "occupancy2:pct", NULL,
	};
	static const char *const cc[] = {
		"cpu:i:key",	 "llc:i",	 "node:i",	   "occupied:ns",
		"occupancy:pct", "occupied2:ns", "occupancy2:pct", NULL,
	};
	static const char *const lc[] = {
		"llc:i:key", "cpus:u", "occupancy:pct", "occupancy2:pct", NULL,
	};
	struct scx_table *s = scx_table_new(r, "summary", sc), *c = scx_table_new(r, "cpus", cc),
			 *l = scx_table_new(r, "llcs", lc);
	uint64_t dur = agg_dur(a), occ = 0, occ2 = 0, mx = 0;
	uint64_t *locc = scx_xcalloc(a->nr_llc_slots * 2 + 1, sizeof(uint64_t));
	unsigned ncpu = 0, row;
	bool q = agg_seen(a, SCX_AGG_SEEN_WAKE); /* the queues are known */

	FOR_PLACE_CPUS(a, i, pc)
	{
		const struct cpu *cp = &a->cpus[i];

		ncpu++;
		occ += pc->occupied_ns;
		occ2 += pc->occupied2_ns;
		mx = SCX_MAX(mx, pc->occupied_ns);
		if (cp->llc + 1 > 0 && cp->llc + 1 < (int)a->nr_llc_slots) {
			locc[2 * (cp->llc + 1)] += pc->occupied_ns;
			locc[2 * (cp->llc + 1) + 1] += pc->occupied2_ns;
		}
		row = scx_table_row(c);
		scx_table_int(c, row, 0, i);
		scx_table_int(c, row, 1, cp->llc);
		scx_table_int(c, row, 2, cp->node);
		known_uint(c, row, 3, q, pc->occupied_ns);
		scx_table_num(c, row, 4, known_or_nan(q, agg_pct(pc->occupied_ns, dur)));
		known_uint(c, row, 5, q, pc->occupied2_ns);
		scx_table_num(c, row, 6, known_or_nan(q, agg_pct(pc->occupied2_ns, dur)));
	}
	row = scx_table_row(s);
	scx_table_uint(s, row, 0, ncpu);
	scx_table_num(s, row, 1, known_or_nan(q, agg_pct(occ, dur * ncpu)));
	scx_table_num(s, row, 2, known_or_nan(q, agg_pct(mx, dur)));
	scx_table_num(s, row, 3, known_or_nan(q, agg_pct(occ2, dur * ncpu)));
	scx_table_append(out, s);
	agg_report_add(a, out, c, 4);
	FOR_LLC_SLOTS(a, i)
	{
		row = scx_table_row(l);
		scx_table_int(l, row, 0, (int)i - 1);
		scx_table_uint(l, row, 1, a->llc_cpus[i]);
		scx_table_num(l, row, 2,
			      known_or_nan(q, agg_pct(locc[2 * i], dur * a->llc_cpus[i])));
		scx_table_num(l, row, 3,
			      known_or_nan(q, agg_pct(locc[2 * i + 1], dur * a->llc_cpus[i])));
	}
	free(locc);
	agg_report_add(a, out, l, 2);
	return 0;
}

/* ---- wakeup-placement ---------------------------------------------------------------- */

AGG_REPORT(agg_rep_wakeup_placement)
{
	static const char *const kc[] = {
		"class:s:key", "wakeups:u", "share:pct", "wake_lat:dist", NULL,
	};
	static const char *const tc[] = {
		"ran_on:s:key",
		"wakeups:u",
		"share:pct",
		NULL,
	};
	static const char *const cc[] = {
		"cpu:i:key",	"wakeups:u", "prev:u",	  "same_llc:u", "same_node:u",
		"other_node:u", "new:u",     "unknown:u", NULL,
	};
	static const char *const cls[WP__COUNT] = {
		"prev-cpu", "same-llc", "same-node", "other-node", "new-task", "unknown",
	};
	static const char *const tgt[WT__COUNT] = {
		"target-cpu", "target-llc", "target-node", "other-node", "target-unknown",
	};
	struct agg_place *p = a->place;
	struct scx_table *k = scx_table_new(r, "classes", kc), *t = scx_table_new(r, "target", tc),
			 *c = scx_table_new(r, "cpus", cc);
	uint64_t all = 0, allt = 0;
	unsigned row;
	bool w = agg_seen(a, SCX_AGG_SEEN_WAKE); /* a stream without wakeups cannot show one */

	for (int i = 0; i < WP__COUNT; i++)
		all += p->wp_lat[i].count;
	for (int i = 0; i < WT__COUNT; i++)
		allt += p->wt[i];
	for (int i = 0; i < WP__COUNT; i++) {
		row = scx_table_row(k);
		scx_table_str(k, row, 0, cls[i]);
		known_uint(k, row, 1, w, p->wp_lat[i].count);
		scx_table_num(k, row, 2, known_or_nan(w, agg_pct(p->wp_lat[i].count, all)));
		known_hist(k, row, 3, w, &p->wp_lat[i]);
	}
	scx_table_append(out, k);
	for (int i = 0; i < WT__COUNT; i++) {
		row = scx_table_row(t);
		scx_table_str(t, row, 0, tgt[i]);
		known_uint(t, row, 1, w, p->wt[i]);
		scx_table_num(t, row, 2, known_or_nan(w, agg_pct(p->wt[i], allt)));
	}
	scx_table_append(out, t);
	FOR_PLACE_CPUS(a, i, pc)
	{
		uint64_t n = 0;

		for (int j = 0; j < WP__COUNT; j++)
			n += pc->wp[j];
		if (!n)
			continue;
		row = scx_table_row(c);
		scx_table_int(c, row, 0, i);
		scx_table_uint(c, row, 1, n);
		for (int j = 0; j < WP__COUNT; j++)
			scx_table_uint(c, row, 2 + j, pc->wp[j]);
	}
	agg_report_add(a, out, c, 1);
	return 0;
}

/* ---- pre-migration ------------------------------------------------------------------- */

AGG_REPORT(agg_rep_pre_migration)
{
	static const char *const sc[] = {
		"runs:u",
		"migrated:u",
		"migrated_pct:pct",
		"pre_migration:ns",
		"pre_mig:dist",
		"post_mig:dist",
		NULL,
	};
	static const char *const cc[] = {
		"cpu:i:key",
		"left:u",
		"pre_migration:ns",
		NULL,
	};
	static const char *const tc[] = {
		"pid:i:key", "comm:s", "migrated:u", "pre_migration:ns", "pre_mig_max:ns", NULL,
	};
	struct agg_place *p = a->place;
	struct thread *th;
	size_t pos;
	struct scx_table *s = scx_table_new(r, "summary", sc), *c = scx_table_new(r, "cpus", cc),
			 *t = scx_table_new(r, "threads", tc);
	unsigned row = scx_table_row(s);
	/* runs need the wakeups; migrations need sched_migrate_task too */
	bool m = agg_seen(a, SCX_AGG_SEEN_WAKE) && p->seen_migrate;

	known_uint(s, row, 0, agg_seen(a, SCX_AGG_SEEN_WAKE), p->runs);
	known_uint(s, row, 1, m, p->premig.count);
	scx_table_num(s, row, 2, known_or_nan(m, agg_pct(p->premig.count, p->runs)));
	known_uint(s, row, 3, m, p->premig.sum);
	known_hist(s, row, 4, m, &p->premig);
	known_hist(s, row, 5, m, &p->postmig);
	scx_table_append(out, s);
	FOR_PLACE_CPUS(a, i, pc)
	{
		if (!pc->premig_n)
			continue;
		row = scx_table_row(c);
		scx_table_int(c, row, 0, i);
		scx_table_uint(c, row, 1, pc->premig_n);
		scx_table_uint(c, row, 2, pc->premig_ns);
	}
	agg_report_add(a, out, c, 2);
	pos = 0;
	while ((th = agg_thread_next(a, &pos))) {
		if (!place_task_fresh(p, &th->pl) || !th->pl.premig_n)
			continue;
		row = scx_table_row(t);
		scx_table_int(t, row, 0, th->pid);
		scx_table_str(t, row, 1, th->comm);
		scx_table_uint(t, row, 2, th->pl.premig_n);
		scx_table_uint(t, row, 3, th->pl.premig_ns);
		scx_table_uint(t, row, 4, th->pl.premig_max);
	}
	agg_report_add(a, out, t, 3);
	return 0;
}

/* ---- parallelism ----------------------------------------------------------------------- */

/* Time-weighted quantile of a count: the least v with time at <= v covering q of the whole. */
static uint64_t tw_quantile(const uint64_t *t, unsigned n, uint64_t whole, double q)
{
	uint64_t acc = 0;

	for (unsigned v = 0; v < n; v++) {
		acc += t[v];
		if (acc >= q * whole)
			return v;
	}
	return n ? n - 1 : 0;
}

static void dist_table(struct scx_agg *a, struct scx_table **out, struct scx_table *d,
		       const uint64_t *t, unsigned n, uint64_t whole)
{
	for (unsigned v = 0; v < n; v++) {
		unsigned row;

		if (!t[v])
			continue;
		row = scx_table_row(d);
		scx_table_uint(d, row, 0, v);
		scx_table_uint(d, row, 1, t[v]);
		scx_table_num(d, row, 2, agg_pct(t[v], whole));
	}
	agg_report_add(a, out, d, 1);
}

AGG_REPORT(agg_rep_parallelism)
{
	static const char *const sc[] = {
		"runnable_avg:n", "runnable_max:u", "runnable_p50:u",	"runnable_p90:u",
		"runnable_p99:u", "active_avg:n",   "active_max:u",	"active_p50:u",
		"active_p90:u",	  "active_p99:u",   "series_dropped:u", NULL,
	};
	static const char *const rc[] = { "runnable:u:key", "time:ns", "share:pct", NULL };
	static const char *const ac[] = { "active:u:key", "time:ns", "share:pct", NULL };
	static const char *const pc[] = { "ts:u", "runnable:u", "active:u", NULL };
	struct agg_place *p = a->place;
	struct scx_table *s = scx_table_new(r, "summary", sc),
			 *rt = scx_table_new(r, "runnable", rc),
			 *at = scx_table_new(r, "active", ac), *st = scx_table_new(r, "series", pc);
	uint64_t dur = agg_dur(a), covered = 0, sr = 0, sa = 0;
	unsigned row;
	/* without wakeups a thread is seen runnable only after a switch-out in state R */
	bool w = agg_seen(a, SCX_AGG_SEEN_WAKE);

	/* before the first change both counts were 0 */
	for (unsigned v = 0; v < p->cap_runnable; v++)
		covered += p->t_runnable[v];
	if (dur > covered) {
		if (!p->cap_runnable) {
			p->t_runnable = scx_xcalloc(1, sizeof(uint64_t));
			p->t_active = scx_xcalloc(1, sizeof(uint64_t));
			p->cap_runnable = p->cap_active = 1;
		}
		p->t_runnable[0] += dur - covered;
		p->t_active[0] += dur - covered;
	}
	for (unsigned v = 0; v < p->cap_runnable; v++)
		sr += v * p->t_runnable[v];
	for (unsigned v = 0; v < p->cap_active; v++)
		sa += v * p->t_active[v];
	row = scx_table_row(s);
	scx_table_num(s, row, 0, known_or_nan(w, dur ? (double)sr / dur : 0));
	known_uint(s, row, 1, w, p->max_runnable);
	known_uint(s, row, 2, w, tw_quantile(p->t_runnable, p->cap_runnable, dur, 0.5));
	known_uint(s, row, 3, w, tw_quantile(p->t_runnable, p->cap_runnable, dur, 0.9));
	known_uint(s, row, 4, w, tw_quantile(p->t_runnable, p->cap_runnable, dur, 0.99));
	scx_table_num(s, row, 5, dur ? (double)sa / dur : 0);
	scx_table_uint(s, row, 6, p->max_active);
	scx_table_uint(s, row, 7, tw_quantile(p->t_active, p->cap_active, dur, 0.5));
	scx_table_uint(s, row, 8, tw_quantile(p->t_active, p->cap_active, dur, 0.9));
	scx_table_uint(s, row, 9, tw_quantile(p->t_active, p->cap_active, dur, 0.99));
	scx_table_uint(s, row, 10, p->series_dropped);
	scx_table_append(out, s);
	/* no rows rather than false ones */
	dist_table(a, out, rt, p->t_runnable, w ? p->cap_runnable : 0, dur);
	dist_table(a, out, at, p->t_active, p->cap_active, dur);
	for (unsigned i = 0; i < p->nr_series; i++) {
		row = scx_table_row(st);
		scx_table_uint(st, row, 0, p->series[i].ts);
		known_uint(st, row, 1, w, p->series[i].runnable);
		scx_table_uint(st, row, 2, p->series[i].active);
	}
	agg_report_add(a, out, st, -1);
	return 0;
}
