// SPDX-License-Identifier: GPL-2.0
/*
 * Placement tracking (agg_place_int.h): the state behind the reports
 * work-conservation, runqueue-occupancy, wakeup-placement, pre-migration and
 * parallelism.  agg.c calls a hook wherever its own view of a CPU or a task
 * changes; when that changes a condition a CPU's figures depend on (PC_*),
 * the hook counts the time since the CPU's last such change, then keeps the
 * new conditions.
 *
 * Work conservation has the definition of agg.h's wc_loss: a CPU is spare
 * when it is idle with nothing queued, and has a backlog when it runs a task
 * while another waits on it (a task queued on an idle CPU is about to run
 * there, and counts on neither side).  "CPU i spare while some CPU had a
 * backlog" depends on every CPU, but is kept in O(1) per event: the clock w1
 * counts the time during which at least one CPU had a backlog, and i needs
 * only w1 as it was when its own state last changed.  Tasks waiting on a
 * backlog use the same trick with the clock i1 of time with a spare CPU.
 */
#include <stdlib.h>
#include <string.h>

#include "agg/agg_int.h"
#include "core/util.h"

#define PAR_MAX 65536 /* counts kept apart in the parallelism distributions */

void agg_place_init(struct scx_agg *a)
{
	struct agg_place *p = scx_xcalloc(1, sizeof(*p));

	for (int i = 0; i < WP__COUNT; i++)
		scx_hist_init(&p->wp_lat[i]);
	scx_hist_init(&p->premig);
	scx_hist_init(&p->postmig);
	p->keep_par = a->need & SCX_AGG_NEED_PLACE_PAR;
	p->keep_runs = a->need & SCX_AGG_NEED_PLACE_RUNS;
	p->keep_queues = a->need & SCX_AGG_NEED_PLACE_QUEUES;
	a->place = p;
}

void agg_place_free(struct scx_agg *a)
{
	struct agg_place *p = a->place;

	if (!p)
		return;
	for (int i = 0; i < WP__COUNT; i++)
		scx_hist_free(&p->wp_lat[i]);
	scx_hist_free(&p->premig);
	scx_hist_free(&p->postmig);
	free(p->cpu);
	free(p->llc);
	free(p->node);
	free(p->t_runnable);
	free(p->t_active);
	free(p->series);
	free(p);
	a->place = NULL;
}

size_t agg_place_mem(const struct scx_agg *a)
{
	const struct agg_place *p = a->place;
	size_t n;

	if (!p)
		return 0;
	n = sizeof(*p) + p->nr_cpu * sizeof(*p->cpu) + (p->nr_llc + p->nr_node) * sizeof(*p->llc) +
	    (p->cap_runnable + p->cap_active) * sizeof(uint64_t) +
	    PLACE_SERIES_MAX * sizeof(*p->series) * !!p->series;
	for (int i = 0; i < WP__COUNT; i++)
		n += scx_hist_bytes(&p->wp_lat[i]);
	return n + scx_hist_bytes(&p->premig) + scx_hist_bytes(&p->postmig);
}

/* ---- clocks ---------------------------------------------------------------- */

static inline void dom_advance(struct place_dom *d, uint64_t ts)
{
	uint64_t dt;

	if (ts <= d->ts)
		return;
	dt = ts - d->ts;
	d->ts = ts;
	if (d->n_wait)
		d->w1 += dt;
	if (d->n_idle)
		d->i1 += dt;
	/* the two sets are disjoint: a spare CPU and another with a backlog */
	if (d->n_idle && d->n_wait)
		d->viol += dt;
}

/* The LLC or node slot s, grown on demand; NULL for slot 0 (no LLC or node known). */
static struct place_dom *dom_get(struct place_dom **arr, unsigned *nr, int s)
{
	if (s <= 0 || s > 65536)
		return NULL;
	if ((unsigned)s >= *nr) {
		unsigned n = SCX_MAX((unsigned)s + 1, *nr * 2);

		*arr = scx_xrealloc(*arr, n * sizeof(**arr));
		memset(*arr + *nr, 0, (n - *nr) * sizeof(**arr));
		*nr = n;
	}
	return &(*arr)[s];
}

static void pcpu_grow(struct agg_place *p, unsigned id)
{
	unsigned n = SCX_MAX(id + 1, p->nr_cpu * 2);

	p->cpu = scx_xrealloc(p->cpu, n * sizeof(*p->cpu));
	memset(p->cpu + p->nr_cpu, 0, (n - p->nr_cpu) * sizeof(*p->cpu));
	p->nr_cpu = n;
}

static inline struct place_cpu *pcpu_get(struct agg_place *p, const struct cpu *c)
{
	unsigned id = (unsigned)c->id;

	if (id >= p->nr_cpu)
		pcpu_grow(p, id);
	return &p->cpu[id];
}

/*
 * pc's LLC and node slots, which exist from when pc was first seen (the
 * per-event paths look them up often: no bounds or growth checks there).
 */
static inline struct place_dom *pcpu_llc(struct agg_place *p, const struct place_cpu *pc)
{
	return pc->llc ? &p->llc[pc->llc] : NULL;
}

static inline struct place_dom *pcpu_node(struct agg_place *p, const struct place_cpu *pc)
{
	return pc->node ? &p->node[pc->node] : NULL;
}

/* Event time never runs backwards here: a late event counts at the newest time. */
static uint64_t place_now(struct agg_place *p, uint64_t ts)
{
	if (ts > p->all.ts)
		dom_advance(&p->all, ts);
	return p->all.ts;
}

/*
 * Count pc's figures from ts to now with the conditions it had, and take
 * now and the clocks as the new marks.  The global clocks are at now
 * (place_now), pc's LLC l too.
 */
static void count(struct agg_place *p, struct place_cpu *pc, const struct place_dom *l,
		  uint64_t now)
{
	const struct place_dom *g = &p->all;
	unsigned k = pc->cond;

	if (pc->init) {
		uint64_t dt = now - pc->ts;

		if (k & PC_OCC)
			pc->occupied_ns += dt;
		if (k & PC_OCC2)
			pc->occupied2_ns += dt;
		if (k & PC_IDLE)
			pc->idle_ns += dt;
		if (k & PC_SPARE) {
			pc->ww_cause_ns[(k >> PC_CAUSE_SHIFT) & 3] += g->w1 - pc->w1;
			if (l)
				pc->idle_ww_llc_ns += l->w1 - pc->lw1;
		}
		if (k & PC_OFFLINE) {
			pc->offline_ns += dt;
			pc->offline_ww_ns += g->w1 - pc->w1;
		}
		if (k & PC_BACKLOG) {
			pc->v += g->i1 - pc->i1;
			if (l)
				pc->vl += l->i1 - pc->li1;
		}
	}
	pc->init = true;
	pc->ts = now;
	pc->w1 = g->w1;
	pc->i1 = g->i1;
	if (l) {
		pc->lw1 = l->w1;
		pc->li1 = l->i1;
	}
}

/* ---- parallelism -------------------------------------------------------------- */

static inline void par_count(uint64_t **t, unsigned *cap, uint32_t v, uint64_t dt)
{
	v = SCX_MIN(v, PAR_MAX - 1);
	if (v >= *cap) {
		unsigned n = SCX_MIN(SCX_MAX(v + 1, *cap * 2), PAR_MAX);

		*t = scx_xrealloc(*t, n * sizeof(**t));
		memset(*t + *cap, 0, (n - *cap) * sizeof(**t));
		*cap = n;
	}
	(*t)[v] += dt;
}

static inline void par_advance(struct agg_place *p, uint64_t now)
{
	if (p->par_started && now > p->par_ts) {
		par_count(&p->t_runnable, &p->cap_runnable, p->n_runnable, now - p->par_ts);
		par_count(&p->t_active, &p->cap_active, p->n_active, now - p->par_ts);
	}
	if (now > p->par_ts || !p->par_started)
		p->par_ts = now;
	p->par_started = true;
}

/* A change point of the counts, for the series table. */
static void par_point(struct agg_place *p, uint64_t now)
{
	struct place_point *last = p->nr_series ? &p->series[p->nr_series - 1] : NULL;

	p->max_runnable = SCX_MAX(p->max_runnable, p->n_runnable);
	p->max_active = SCX_MAX(p->max_active, p->n_active);
	if (last && last->ts == now) {
		/* several changes at one time are one step, or none */
		const struct place_point *before = p->nr_series > 1 ? last - 1 : NULL;

		if (before && before->runnable == p->n_runnable && before->active == p->n_active)
			p->nr_series--;
		else
			*last = (struct place_point){ now, p->n_runnable, p->n_active };
		return;
	}
	if (last && last->runnable == p->n_runnable && last->active == p->n_active)
		return;
	if (p->nr_series == PLACE_SERIES_MAX) {
		p->series_dropped++;
		return;
	}
	if (!p->series)
		p->series = scx_xmalloc(PLACE_SERIES_MAX * sizeof(*p->series));
	p->series[p->nr_series++] = (struct place_point){ now, p->n_runnable, p->n_active };
}

void agg_place_state(struct scx_agg *a, uint8_t from, uint8_t to, uint64_t ts)
{
	struct agg_place *p = a->place;
	uint64_t now;

	/* trace_processor's runnable count: state R only, not R+ (preempted) */
	if (!p->keep_par || (from == TS_RUNNABLE) == (to == TS_RUNNABLE))
		return;
	now = place_now(p, ts);
	par_advance(p, now);
	if (to == TS_RUNNABLE)
		p->n_runnable++;
	else if (p->n_runnable)
		p->n_runnable--;
	par_point(p, now);
}

/* ---- CPUs ------------------------------------------------------------------------ */

static void dom_change(struct place_dom *d, int dspare, int dbacklog)
{
	if (!d)
		return;
	d->n_idle += dspare;
	d->n_wait += dbacklog;
}

/* The conditions of c (PC_*) as the engine sees it. */
static inline unsigned cpu_cond(const struct cpu *c)
{
	unsigned k = (c->nr_queued ? PC_OCC : 0) | (c->nr_queued > 1 ? PC_OCC2 : 0);

	if (!c->known)
		return k;
	if (c->curr)
		return k | PC_BUSY | (c->nr_queued ? PC_BACKLOG : 0);
	if (c->offline)
		return k | PC_OFFLINE;
	if (c->nr_queued)
		return k | PC_IDLE;
	return k | PC_IDLE | PC_SPARE |
	       (!c->cidle_seen	      ? 2u :
		(int8_t)c->cstate > 0 ? 1u :
					0u)
		       << PC_CAUSE_SHIFT;
}

/*
 * c's conditions changed to k: count pc's (c's) figures with the old ones,
 * then move the counts of its LLC, node and the whole machine.
 */
static __attribute__((noinline)) void place_change(struct agg_place *p, const struct cpu *c,
						   struct place_cpu *pc, unsigned k, uint64_t now)
{
	unsigned was = pc->cond;
	struct place_dom *l, *n;
	int dspare, dbacklog;

	if (!pc->init) {
		/* slot 0 (none) when unknown or past dom_get's bound */
		pc->llc = dom_get(&p->llc, &p->nr_llc, c->llc + 1) ? c->llc + 1 : 0;
		pc->node = dom_get(&p->node, &p->nr_node, c->node + 1) ? c->node + 1 : 0;
	}
	l = pcpu_llc(p, pc);
	n = pcpu_node(p, pc);
	if (l)
		dom_advance(l, now);
	if (n)
		dom_advance(n, now);
	count(p, pc, l, now);
	pc->cond = (uint16_t)k;
	dspare = !!(k & PC_SPARE) - !!(was & PC_SPARE);
	dbacklog = !!(k & PC_BACKLOG) - !!(was & PC_BACKLOG);
	if (dspare || dbacklog) {
		dom_change(&p->all, dspare, dbacklog);
		dom_change(l, dspare, dbacklog);
		dom_change(n, dspare, dbacklog);
	}
	if (((k ^ was) & PC_BUSY) && p->keep_par) {
		par_advance(p, now);
		p->n_active += (k & PC_BUSY) ? 1 : -1;
		par_point(p, now);
	}
}

/* pc, c's, up to date at now: most calls find its conditions unchanged. */
static inline struct place_cpu *place_cpu(struct agg_place *p, const struct cpu *c, uint64_t now)
{
	struct place_cpu *pc = pcpu_get(p, c);
	unsigned k = cpu_cond(c);

	if (!pc->init || k != pc->cond)
		place_change(p, c, pc, k, now);
	return pc;
}

/* pc's queue idle clocks, counted up to now (a backlog moves them). */
static void queue_clocks(struct agg_place *p, struct place_cpu *pc, uint64_t now)
{
	struct place_dom *l = pcpu_llc(p, pc);

	pc->v += p->all.i1 - pc->i1;
	pc->i1 = p->all.i1;
	if (l) {
		dom_advance(l, now);
		pc->vl += l->i1 - pc->li1;
		pc->li1 = l->i1;
	}
}

/*
 * Parallelism alone (no SCX_AGG_NEED_PLACE_QUEUES): the active count moves
 * when a CPU starts or stops running a task, at the same times as
 * place_change() moves it, and nothing else of the CPU is kept (its queue's
 * changes were most of the calls).  Apart from place_cpu(), whose inlined
 * hot path stays as it was.
 */
static __attribute__((noinline)) void place_busy(struct agg_place *p, const struct cpu *c,
						 uint64_t ts)
{
	struct place_cpu *pc = pcpu_get(p, c);
	unsigned busy = c->known && c->curr ? PC_BUSY : 0; /* cpu_cond()'s PC_BUSY */
	uint64_t now = place_now(p, ts);		   /* event time as every hook keeps it */

	if (pc->init && busy == pc->cond)
		return;
	if (busy != pc->cond) {
		par_advance(p, now);
		p->n_active += busy ? 1 : -1;
		par_point(p, now);
	}
	pc->cond = (uint16_t)busy;
	pc->init = true;
}

void agg_place_cpu(struct scx_agg *a, const struct cpu *c, uint64_t ts)
{
	if (!a->place->keep_queues) {
		place_busy(a->place, c, ts);
		return;
	}
	place_cpu(a->place, c, place_now(a->place, ts));
}

/* t's figures of this interval, zeroed the first time it is touched in it */
static struct agg_place_task *task_iv(struct agg_place *p, struct thread *t)
{
	struct agg_place_task *pt = &t->pl;

	if (pt->iv != p->iv) {
		pt->iv = p->iv;
		pt->wait_ns = pt->wait_idle_ns = pt->wait_idle_llc_ns = 0;
		pt->premig_n = pt->premig_ns = pt->premig_max = 0;
	}
	return pt;
}

void agg_place_queue(struct scx_agg *a, const struct cpu *c, struct thread *t, int delta,
		     uint64_t ts)
{
	struct agg_place *p = a->place;
	struct agg_place_task *pt = &t->pl;
	uint64_t now;
	struct place_cpu *pc;

	if (!p->keep_queues) {
		place_busy(p, c, ts);
		return;
	}
	now = place_now(p, ts);
	pc = place_cpu(p, c, now);
	if (pc->cond & PC_BACKLOG)
		queue_clocks(p, pc, now);
	if (delta > 0) {
		pt->enq_ts = now;
		pt->enq_v = pc->v;
		pt->enq_vl = pc->vl;
		return;
	}
	if (!pt->enq_ts)
		return;
	pt = task_iv(p, t);
	pt->wait_ns += now - pt->enq_ts;
	pt->wait_idle_ns += pc->v - pt->enq_v;
	pt->wait_idle_llc_ns += pc->vl - pt->enq_vl;
	pc->q_wait_ns += now - pt->enq_ts;
	pc->q_wait_idle_ns += pc->v - pt->enq_v;
	pt->enq_ts = 0;
}

/* ---- wakeups and migrations ----------------------------------------------------- */

static void begin_wait(struct agg_place_task *pt, uint8_t kind)
{
	pt->kind = kind;
	pt->mig_ts = 0;
	pt->mig_from = -1;
	pt->target_cpu = -1;
	pt->placed = false;
}

void agg_place_wake(struct scx_agg *a, struct thread *t, const struct scx_event *e)
{
	struct agg_place_task *pt = &t->pl;

	begin_wait(pt, e->type == SCX_EV_WAKEUP_NEW ? PK_NEW : PK_WAKE);
	pt->prev_cpu = t->cpu;
	/* sched_waking fires before the kernel picks a CPU, sched_wakeup(_new) after */
	if (e->type != SCX_EV_WAKING) {
		if (e->type == SCX_EV_WAKEUP)
			a->place->seen_wakeup = true;
		pt->target_cpu = e->wake.target_cpu;
		pt->placed = true;
		pt->placed_ts = e->ts;
	}
}

void agg_place_wakeup_done(struct scx_agg *a, struct thread *t, const struct scx_event *e)
{
	struct agg_place_task *pt = &t->pl;

	a->place->seen_wakeup = true;
	if (pt->placed || pt->kind != PK_WAKE)
		return;
	pt->target_cpu = e->wake.target_cpu;
	pt->placed = true;
	pt->placed_ts = e->ts;
}

void agg_place_preempted(struct scx_agg *a, struct thread *t, uint64_t ts)
{
	struct agg_place_task *pt = &t->pl;

	(void)a;
	begin_wait(pt, PK_PREEMPT);
	pt->prev_cpu = t->cpu;
	pt->placed = true;
	pt->placed_ts = ts;
}

void agg_place_migrate(struct scx_agg *a, struct thread *t, const struct scx_event *e)
{
	struct agg_place_task *pt = &t->pl;

	a->place->seen_migrate = true;
	if ((t->state != TS_RUNNABLE && t->state != TS_PREEMPTED) || pt->kind == PK_NONE)
		return;
	if (pt->placed) {
		/* moved after it was placed: it waited, then went elsewhere */
		if (!pt->mig_ts)
			pt->mig_from = e->mig.orig_cpu;
		pt->mig_ts = SCX_MAX(e->ts, pt->placed_ts);
	} else if (!a->place->seen_wakeup) {
		/* no sched_wakeup in the stream: the first move after sched_waking
		 * is the wakeup's own choice of CPU */
		pt->placed = true;
		pt->placed_ts = e->ts;
	}
	/* else: between sched_waking and sched_wakeup, the wakeup choosing */
}

/* CPUs a and b compared: same CPU, same LLC, same node, other node, or unknown topology. */
static int relate(const struct scx_agg *a, int32_t x, int32_t y)
{
	const struct cpu *cx, *cy;

	if (x < 0 || y < 0 || (unsigned)x >= a->nr_cpus || (unsigned)y >= a->nr_cpus)
		return WT_UNKNOWN;
	if (x == y)
		return WT_SAME;
	cx = &a->cpus[x];
	cy = &a->cpus[y];
	if (cx->llc >= 0 && cx->llc == cy->llc)
		return WT_LLC;
	if (cx->llc < 0 || cy->llc < 0 || cx->node < 0 || cy->node < 0)
		return WT_UNKNOWN;
	return cx->node == cy->node ? WT_NODE : WT_REMOTE;
}

void agg_place_run(struct scx_agg *a, struct thread *t, int32_t cpu, uint64_t ts)
{
	struct agg_place *p = a->place;
	struct agg_place_task *pt = &t->pl;
	uint64_t now = place_now(p, ts);

	p->runs++;
	if (pt->kind == PK_NONE)
		return;
	if (!p->keep_runs) {
		pt->kind = PK_NONE; /* no report asked for the runs' figures */
		return;
	}
	if (pt->placed && pt->mig_ts) {
		uint64_t pre = pt->mig_ts - pt->placed_ts;

		pt = task_iv(p, t);
		scx_hist_add(&p->premig, pre);
		scx_hist_add(&p->postmig, now > pt->mig_ts ? now - pt->mig_ts : 0);
		pt->premig_n++;
		pt->premig_ns += pre;
		pt->premig_max = SCX_MAX(pt->premig_max, pre);
		if (pt->mig_from >= 0 && (unsigned)pt->mig_from < p->nr_cpu) {
			p->cpu[pt->mig_from].premig_n++;
			p->cpu[pt->mig_from].premig_ns += pre;
		}
	}
	if ((pt->kind == PK_WAKE || pt->kind == PK_NEW) && t->waking_ts) {
		uint64_t w = now > t->waking_ts ? now - t->waking_ts : 0;
		int cls = pt->kind == PK_NEW ? WP_NEW : relate(a, pt->prev_cpu, cpu);

		/* WT_* and WP_* agree on their first four */
		if (pt->kind != PK_NEW && cls == WT_UNKNOWN)
			cls = WP_UNKNOWN;
		scx_hist_add(&p->wp_lat[cls], w);
		if (cpu >= 0 && (unsigned)cpu < p->nr_cpu)
			p->cpu[cpu].wp[cls]++;
		p->wt[relate(a, pt->target_cpu, cpu)]++;
	}
	pt->kind = PK_NONE;
}

/* ---- intervals -------------------------------------------------------------------- */

void agg_place_close(struct scx_agg *a, uint64_t end)
{
	struct agg_place *p = a->place;
	uint64_t now = place_now(p, end);

	for (unsigned i = 0; p->keep_queues && i < p->nr_llc; i++)
		dom_advance(&p->llc[i], now);
	for (unsigned i = 0; p->keep_queues && i < p->nr_node; i++)
		dom_advance(&p->node[i], now);
	for (unsigned i = 0; p->keep_queues && i < p->nr_cpu; i++)
		if (p->cpu[i].init)
			count(p, &p->cpu[i], pcpu_llc(p, &p->cpu[i]), now);
	if (p->keep_par)
		par_advance(p, now);
}

void agg_place_reset(struct scx_agg *a)
{
	struct agg_place *p = a->place;

	p->iv++;
	for (unsigned i = 0; i < p->nr_cpu; i++) {
		struct place_cpu *pc = &p->cpu[i];

		pc->occupied_ns = pc->occupied2_ns = pc->idle_ww_llc_ns = 0;
		memset(pc->ww_cause_ns, 0, sizeof(pc->ww_cause_ns));
		pc->idle_ns = pc->q_wait_ns = pc->q_wait_idle_ns = 0;
		pc->offline_ns = pc->offline_ww_ns = 0;
		pc->premig_n = pc->premig_ns = 0;
		memset(pc->wp, 0, sizeof(pc->wp));
	}
	p->all.viol0 = p->all.viol;
	for (unsigned i = 0; i < p->nr_llc; i++)
		p->llc[i].viol0 = p->llc[i].viol;
	for (unsigned i = 0; i < p->nr_node; i++)
		p->node[i].viol0 = p->node[i].viol;
	if (p->t_runnable)
		memset(p->t_runnable, 0, p->cap_runnable * sizeof(uint64_t));
	if (p->t_active)
		memset(p->t_active, 0, p->cap_active * sizeof(uint64_t));
	p->max_runnable = p->n_runnable;
	p->max_active = p->n_active;
	p->nr_series = 0;
	p->series_dropped = 0;
	if (p->par_started)
		par_point(p, p->par_ts); /* where the counts stand as it opens */
	for (int i = 0; i < WP__COUNT; i++)
		scx_hist_reset(&p->wp_lat[i]);
	memset(p->wt, 0, sizeof(p->wt));
	scx_hist_reset(&p->premig);
	scx_hist_reset(&p->postmig);
	p->runs = 0;
}
