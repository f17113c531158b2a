// SPDX-License-Identifier: GPL-2.0
/*
 * Reports on tasks: process-runtime, wakeup-latency, latency-breakdown,
 * migrations, task-states, preemptions, wakeup-graph.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_report_int.h"

AGG_REPORT(agg_rep_process_runtime)
{
	static const char *const cols[] = {
		"tgid:i:key", "comm:s",	    "threads:u", "runtime:ns",	  "share:pct",
		"util:pct",   "switches:u", "wakeups:u", "rq_delay:dist", NULL,
	};
	static const char *const sc[] = {
		"processes:u",
		"runtime:ns",
		"busy_share:pct",
		NULL,
	};
	struct scx_table *t = scx_table_new(r, "processes", cols),
			 *s = scx_table_new(r, "summary", sc);
	uint64_t total = 0, dur = agg_dur(a);
	bool w = agg_seen(a, SCX_AGG_SEEN_WAKE);
	unsigned row;

	struct grp *g;
	size_t pos = 0;

	while ((g = agg_gtab_next(&a->tgid, &pos)))
		total += g->s.busy_ns;
	for (pos = 0; (g = agg_gtab_next(&a->tgid, &pos));) {
		row = scx_table_row(t);
		scx_table_int(t, row, 0, g->key);
		scx_table_str(t, row, 1, g->comm);
		scx_table_uint(t, row, 2, g->nr);
		scx_table_uint(t, row, 3, g->s.busy_ns);
		scx_table_num(t, row, 4, agg_pct(g->s.busy_ns, total));
		scx_table_num(t, row, 5, agg_pct(g->s.busy_ns, dur));
		scx_table_uint(t, row, 6, g->s.switches);
		known_uint(t, row, 7, w, g->s.wakeups);
		known_hist(t, row, 8, w, &g->s.rq_delay);
	}
	row = scx_table_row(s);
	scx_table_uint(s, row, 0, a->tgid.map.n);
	scx_table_uint(s, row, 1, total);
	scx_table_num(s, row, 2,
		      dur && a->snap.nr_cpus ? agg_pct(total, dur * a->snap.nr_cpus) : 0);
	scx_table_append(out, s);
	agg_report_add(a, out, t, 3);
	return 0;
}

AGG_REPORT(agg_rep_wakeup_latency)
{
	static const char *const sc[] = {
		"wakeups:u",
		"wake_lat:dist",
		"rq_delay:dist",
		NULL,
	};
	static const char *const cc[] = {
		"cpu:i:key",
		"wake_lat:dist",
		"rq_delay:dist",
		NULL,
	};
	static const char *const tc[] = {
		"pid:i:key", "comm:s", "wakeups:u", "wake_lat:dist", NULL,
	};
	struct scx_table *s = scx_table_new(r, "summary", sc), *c = scx_table_new(r, "cpus", cc),
			 *t = scx_table_new(r, "threads", tc);
	unsigned row = scx_table_row(s);
	/* without wakeup events a woken task is first seen when it runs */
	bool w = agg_seen(a, SCX_AGG_SEEN_WAKE);

	known_uint(s, row, 0, w, a->snap.total.wakeups + a->snap.total.wakeups_new);
	known_hist(s, row, 1, w, &a->snap.total.wake_lat);
	known_hist(s, row, 2, w, &a->snap.total.rq_delay);
	scx_table_append(out, s);
	FOR_CPUS(a, cp)
	{
		row = scx_table_row(c);
		scx_table_int(c, row, 0, cp->id);
		known_hist(c, row, 1, w, &cp->s.wake_lat);
		known_hist(c, row, 2, w, &cp->s.rq_delay);
	}
	agg_report_add(a, out, c, -1);
	FOR_THREADS(a, th)
	{
		if (!th->s.wake_lat.count)
			continue;
		row = scx_table_row(t);
		scx_table_int(t, row, 0, th->pid);
		scx_table_str(t, row, 1, th->comm);
		scx_table_uint(t, row, 2, th->s.wakeups + th->s.wakeups_new);
		scx_table_hist(t, row, 3, &th->s.wake_lat);
	}
	agg_report_add(a, out, t, 3);
	return 0;
}

AGG_REPORT(agg_rep_latency_breakdown)
{
	static const char *const cols[] = {
		"stage:s:key",
		"latency:dist",
		"share:pct",
		NULL,
	};
	struct scx_table *t = scx_table_new(r, "stages", cols);
	const struct scx_hist *h[] = {
		&a->lb_wake,
		&a->lb_run,
		&a->snap.total.wake_lat,
		&a->lb_preempt,
		&a->snap.total.rq_delay,
	};
	static const char *const names[] = {
		"waking->wakeup",     "wakeup->running",   "waking->running",
		"preempted->running", "runnable->running",
	};
	double whole = a->lb_wake.sum + a->lb_run.sum;
	bool w = agg_seen(a, SCX_AGG_SEEN_WAKE);

	for (int i = 0; i < 5; i++) {
		unsigned row = scx_table_row(t);
		bool known = w || i == 3; /* preemptions come from the switches */

		scx_table_str(t, row, 0, names[i]);
		known_hist(t, row, 1, known, h[i]);
		/* share of the waking->running time of wakeups seen at all three points */
		known_num(t, row, 2, known,
			  i < 2 && whole > 0  ? 100.0 * h[i]->sum / whole :
			  i == 2 && whole > 0 ? 100 :
						0);
	}
	scx_table_append(out, t);
	return 0;
}

AGG_REPORT(agg_rep_migrations)
{
	static const char *const sc[] = {
		"migrations:u", "same_llc:u", "cross_llc:u", "cross_node:u", "per_sec:n", NULL,
	};
	static const char *const cc[] = {
		"cpu:i:key",   "llc:i",	       "node:i", "migrations_in:u",
		"cross_llc:u", "cross_node:u", NULL,
	};
	static const char *const tc[] = {
		"pid:i:key", "comm:s", "migrations:u", "cross_llc:u", "cross_node:u", NULL,
	};
	struct scx_table *s = scx_table_new(r, "summary", sc), *c = scx_table_new(r, "cpus", cc),
			 *t = scx_table_new(r, "threads", tc);
	const struct scx_agg_stats *tot = &a->snap.total;
	uint64_t dur = agg_dur(a);
	unsigned row = scx_table_row(s);
	bool m = agg_seen(a, SCX_AGG_SEEN_MIGRATE); /* else unknown, not 0 */

	known_uint(s, row, 0, m, tot->migrations);
	known_uint(s, row, 1, m, tot->migrations - tot->migr_cross_llc);
	known_uint(s, row, 2, m, tot->migr_cross_llc);
	known_uint(s, row, 3, m, tot->migr_cross_node);
	known_num(s, row, 4, m, dur ? tot->migrations * 1e9 / dur : 0);
	scx_table_append(out, s);
	FOR_CPUS(a, cp)
	{
		row = scx_table_row(c);
		scx_table_int(c, row, 0, cp->id);
		scx_table_int(c, row, 1, cp->llc);
		scx_table_int(c, row, 2, cp->node);
		known_uint(c, row, 3, m, cp->s.migrations);
		known_uint(c, row, 4, m, cp->s.migr_cross_llc);
		known_uint(c, row, 5, m, cp->s.migr_cross_node);
	}
	agg_report_add(a, out, c, -1);
	FOR_THREADS(a, th)
	{
		if (!th->s.migrations)
			continue;
		row = scx_table_row(t);
		scx_table_int(t, row, 0, th->pid);
		scx_table_str(t, row, 1, th->comm);
		scx_table_uint(t, row, 2, th->s.migrations);
		scx_table_uint(t, row, 3, th->s.migr_cross_llc);
		scx_table_uint(t, row, 4, th->s.migr_cross_node);
	}
	agg_report_add(a, out, t, 2);
	return 0;
}

/*
 * Without wakeup events a woken task is first seen when it runs: its wait
 * counts as sleep, so the runnable, sleeping and blocked times and the
 * waiting share are unknown (w false); running and preempted stay.
 */
static void state_row(struct scx_table *t, int64_t key, const char *comm,
		      const struct scx_agg_stats *s, bool w)
{
	unsigned row = scx_table_row(t);
	uint64_t all = s->running_ns + s->runnable_ns + s->preempted_ns + s->sleeping_ns +
		       s->blocked_ns + s->other_ns;

	scx_table_int(t, row, 0, key);
	scx_table_str(t, row, 1, comm);
	scx_table_uint(t, row, 2, s->running_ns);
	known_uint(t, row, 3, w, s->runnable_ns);
	scx_table_uint(t, row, 4, s->preempted_ns);
	known_uint(t, row, 5, w, s->sleeping_ns);
	known_uint(t, row, 6, w, s->blocked_ns);
	scx_table_num(t, row, 7, agg_pct(s->running_ns, all));
	known_num(t, row, 8, w, agg_pct(s->runnable_ns + s->preempted_ns, all));
	scx_table_uint(t, row, 9, s->voluntary);
	scx_table_uint(t, row, 10, s->involuntary);
}

AGG_REPORT(agg_rep_task_states)
{
	static const char *const tc[] = {
		"pid:i:key",	   "comm:s",	  "running:ns",	   "runnable:ns",
		"preempted:ns",	   "sleeping:ns", "blocked:ns",	   "running_pct:pct",
		"waiting_pct:pct", "voluntary:u", "involuntary:u", NULL,
	};
	static const char *const pc[] = {
		"tgid:i:key",	   "comm:s",	  "running:ns",	   "runnable:ns",
		"preempted:ns",	   "sleeping:ns", "blocked:ns",	   "running_pct:pct",
		"waiting_pct:pct", "voluntary:u", "involuntary:u", NULL,
	};
	struct scx_table *t = scx_table_new(r, "threads", tc),
			 *p = scx_table_new(r, "processes", pc);
	bool w = agg_seen(a, SCX_AGG_SEEN_WAKE);

	FOR_THREADS(a, th)
	state_row(t, th->pid, th->comm, &th->s, w);
	agg_report_add(a, out, t, 2);
	const struct grp *g;
	size_t pos = 0;

	while ((g = agg_gtab_next(&a->tgid, &pos)))
		state_row(p, g->key, g->comm, &g->s, w);
	agg_report_add(a, out, p, 2);
	return 0;
}

static const char *comm_of(struct scx_agg *a, int32_t pid)
{
	struct thread *t = pid ? agg_thread_find(a, pid) : NULL;

	return t ? t->comm : pid ? "?" : "(irq/idle)";
}

/*
 * How many pairs, and how many events found the pair table full; unknown
 * (known false) when the stream lacks the events that make the pairs.
 */
void agg_pairs_summary(struct scx_agg *a, const char *r, const struct ptab *pt, bool known,
		       struct scx_table **out)
{
	static const char *const sc[] = {
		"pairs:u",
		"unattributed:u",
		NULL,
	};
	struct scx_table *s = scx_table_new(r, "summary", sc);
	unsigned row = scx_table_row(s);

	known_uint(s, row, 0, known, pt->map.n);
	known_uint(s, row, 1, known, pt->dropped);
	scx_table_append(out, s);
}

static int32_t pair_from(const struct pair *pr)
{
	return (int32_t)((pr->key - 1) >> 32);
}

static int32_t pair_to(const struct pair *pr)
{
	return (int32_t)(uint32_t)(pr->key - 1);
}

/* A row of a pair table: both tasks with their comms, then the count (columns 0-4). */
static unsigned pair_row(struct scx_agg *a, struct scx_table *p, const struct pair *pr)
{
	int32_t x = pair_from(pr), y = pair_to(pr);
	unsigned row = scx_table_row(p);

	scx_table_int(p, row, 0, x);
	scx_table_str(p, row, 1, comm_of(a, x));
	scx_table_int(p, row, 2, y);
	scx_table_str(p, row, 3, comm_of(a, y));
	scx_table_uint(p, row, 4, pr->count);
	return row;
}

AGG_REPORT(agg_rep_preemptions)
{
	static const char *const pc[] = {
		"preemptor:i:key",  "preemptor_comm:s", "preempted:i:key",
		"preempted_comm:s", "count:u",		NULL,
	};
	static const char *const tc[] = {
		"pid:i:key", "comm:s", "preempted:u", "preempted_wait:ns", "voluntary:u", NULL,
	};
	struct scx_table *p = scx_table_new(r, "pairs", pc), *t = scx_table_new(r, "threads", tc);

	const struct pair *pr;
	size_t pos = 0;

	while ((pr = scx_map_next(&a->preempts.map, &pos, NULL)))
		pair_row(a, p, pr);
	agg_pairs_summary(a, r, &a->preempts, true, out);
	agg_report_add(a, out, p, 4);
	FOR_THREADS(a, th)
	{
		unsigned row;

		if (!th->s.involuntary)
			continue;
		row = scx_table_row(t);
		scx_table_int(t, row, 0, th->pid);
		scx_table_str(t, row, 1, th->comm);
		scx_table_uint(t, row, 2, th->s.involuntary);
		scx_table_uint(t, row, 3, th->s.preempted_ns);
		scx_table_uint(t, row, 4, th->s.voluntary);
	}
	agg_report_add(a, out, t, 2);
	return 0;
}

static int cmp_pair_key(const void *x, const void *y)
{
	const struct pair *a = *(const struct pair *const *)x, *b = *(const struct pair *const *)y;

	return a->key < b->key ? -1 : a->key > b->key;
}

/* Wakeups one way of a mutual pair: the count, and average and largest latency at lat. */
static void mutual_dir(struct scx_table *t, unsigned row, unsigned count, unsigned lat,
		       const struct pair *pr)
{
	scx_table_uint(t, row, count, pr->count);
	scx_table_uint(t, row, lat, pr->runs ? pr->sum_ns / pr->runs : 0);
	scx_table_uint(t, row, lat + 1, pr->max_ns);
}

/*
 * Tasks that woke each other: ping-pong between two threads (a request and
 * its reply, a lock handed back and forth) is a cost the one-way pairs do
 * not show.  One row per unordered pair, the lower pid as task a.  The
 * reverse pair is found in a sorted copy of the table: its hash is agg.c's.
 */
static void mutual(struct scx_agg *a, const char *r, struct scx_table **out)
{
	static const char *const mc[] = {
		"pid_a:i:key",	  "comm_a:s",	    "pid_b:i:key",    "comm_b:s",
		"count:u",	  "a_wakes_b:u",    "b_wakes_a:u",    "a_b_lat_avg:ns",
		"a_b_lat_max:ns", "b_a_lat_avg:ns", "b_a_lat_max:ns", NULL,
	};
	struct scx_table *t = scx_table_new(r, "mutual", mc);
	const struct pair **v = scx_xmalloc((a->wakes.map.n + 1) * sizeof(*v)), *pr;
	unsigned n = 0;
	size_t pos = 0;

	while ((pr = scx_map_next(&a->wakes.map, &pos, NULL)))
		v[n++] = pr;
	qsort(v, n, sizeof(*v), cmp_pair_key);
	for (unsigned i = 0; i < n; i++) {
		int32_t x = pair_from(v[i]), y = pair_to(v[i]);
		struct pair back = { .key = ((uint64_t)(uint32_t)y << 32 | (uint32_t)x) + 1 };
		const struct pair *want = &back, **ba;
		unsigned row;

		/*
		 * pid 0 (irq, idle) is never woken; a task waking itself is no
		 * pair; count 0 is a wakeup of the interval before that ran in
		 * this one
		 */
		if (x <= 0 || x >= y || !v[i]->count)
			continue;
		ba = bsearch(&want, v, n, sizeof(*v), cmp_pair_key);
		if (!ba || !(*ba)->count)
			continue;
		row = scx_table_row(t);
		scx_table_int(t, row, 0, x);
		scx_table_str(t, row, 1, comm_of(a, x));
		scx_table_int(t, row, 2, y);
		scx_table_str(t, row, 3, comm_of(a, y));
		scx_table_uint(t, row, 4, v[i]->count + (*ba)->count);
		mutual_dir(t, row, 5, 7, v[i]);
		mutual_dir(t, row, 6, 9, *ba);
	}
	free(v);
	agg_report_add(a, out, t, 4);
}

AGG_REPORT(agg_rep_wakeup_graph)
{
	static const char *const pc[] = {
		"waker:i:key", "waker_comm:s", "wakee:i:key", "wakee_comm:s",
		"count:u",     "lat_avg:ns",   "lat_max:ns",  NULL,
	};
	static const char *const cc[] = {
		"chain:s:key",
		"length:u",
		"latency:ns",
		NULL,
	};
	struct scx_table *p = scx_table_new(r, "pairs", pc), *c = scx_table_new(r, "chains", cc);

	const struct pair *pr;
	size_t pos = 0;

	while ((pr = scx_map_next(&a->wakes.map, &pos, NULL))) {
		unsigned row = pair_row(a, p, pr);
		scx_table_uint(p, row, 5, pr->runs ? pr->sum_ns / pr->runs : 0);
		scx_table_uint(p, row, 6, pr->max_ns);
	}
	agg_pairs_summary(a, r, &a->wakes, agg_seen(a, SCX_AGG_SEEN_WAKE), out);
	agg_report_add(a, out, p, 4);
	mutual(a, r, out);
	for (unsigned i = 0; i < a->nr_chains; i++) {
		const struct chain *ch = &a->chains[i];
		char buf[(CHAIN_MAX + 1) * 12] = "";
		size_t n = 0;
		unsigned row;

		for (unsigned k = 0; k < ch->len; k++)
			n += snprintf(buf + n, sizeof(buf) - n, "%s%d", k ? ">" : "", ch->p[k]);
		row = scx_table_row(c);
		scx_table_str(c, row, 0, buf);
		scx_table_uint(c, row, 1, ch->len);
		scx_table_uint(c, row, 2, ch->lat);
	}
	agg_report_add(a, out, c, 2);
	return 0;
}
