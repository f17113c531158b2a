// SPDX-License-Identifier: GPL-2.0
/*
 * scx-top's in-process aggregation: raw events -> one top_model per window
 * of event time.  Kept deliberately small (what the views show and no more);
 * the full engine with every analysis is lib/agg (scx-agg).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "topo.h"
#include "topview.h"

/* ---- log-linear histogram --------------------------------------------------- */

#define SUB_BITS 3
#define SUB (1u << SUB_BITS)
#define MAX_EXP 40			/* 2^40 ns ~ 18 minutes: larger values clamp */
#define NB (SUB + (MAX_EXP - SUB_BITS + 1) * SUB)

struct hist {
	uint32_t b[NB];
	uint64_t n;
	uint64_t min, max;	/* exact: a percentile is clamped into [min, max] */
};

static unsigned hbucket(uint64_t v)
{
	unsigned e;

	if (v < SUB)
		return (unsigned)v;
	e = 63 - __builtin_clzll(v);
	if (e > MAX_EXP)
		return NB - 1;
	return SUB + (e - SUB_BITS) * SUB + (unsigned)((v >> (e - SUB_BITS)) & (SUB - 1));
}

/* Midpoint of a bucket: the value reported for a percentile in it. */
static double hvalue(unsigned i)
{
	unsigned e, s;
	double lo, w;

	if (i < SUB)
		return i;
	e = (i - SUB) / SUB + SUB_BITS;
	s = (i - SUB) % SUB;
	w = (double)(1ull << (e - SUB_BITS));
	lo = (double)(1ull << e) + s * w;
	return lo + (w - 1) / 2;
}

static void hadd(struct hist *h, uint64_t v)
{
	h->b[hbucket(v)]++;
	if (!h->n++ || v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

static void hmerge(struct hist *d, const struct hist *s)
{
	if (!s->n)
		return;
	for (unsigned i = 0; i < NB; i++)
		d->b[i] += s->b[i];
	if (!d->n || s->min < d->min)
		d->min = s->min;
	if (s->max > d->max)
		d->max = s->max;
	d->n += s->n;
}

static double hpct(const struct hist *h, double p)
{
	uint64_t rank = (uint64_t)(p * h->n + 0.999999), acc = 0;

	if (rank < 1)
		rank = 1;
	double v = hvalue(NB - 1);

	for (unsigned i = 0; i < NB; i++) {
		acc += h->b[i];
		if (acc >= rank) {
			v = hvalue(i);
			break;
		}
	}
	return v < h->min ? h->min : v > h->max ? h->max : v;
}

static void put_pcts(struct top_row *r, const struct hist *h)
{
	if (!h || !h->n)
		return;
	r->v[TC_P50] = hpct(h, 0.50);
	r->v[TC_P90] = hpct(h, 0.90);
	r->v[TC_P99] = hpct(h, 0.99);
	r->has[TC_P50] = r->has[TC_P90] = r->has[TC_P99] = true;
}

/* ---- id -> index map (open addressing, rebuilt rather than deleted from) ---- */

struct imap {
	int64_t *keys;
	uint32_t *vals;
	uint32_t cap, n;	/* cap a power of two */
};

static uint32_t ihash(int64_t k)
{
	uint64_t x = (uint64_t)k * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(x >> 32);
}

static void imap_clear(struct imap *m)
{
	m->n = 0;
	if (m->keys)
		memset(m->vals, 0xff, m->cap * sizeof(*m->vals));
}

static void imap_put(struct imap *m, int64_t k, uint32_t v);

static void imap_grow(struct imap *m)
{
	struct imap o = *m;

	m->cap = o.cap ? o.cap * 2 : 256;
	m->keys = scx_xcalloc(m->cap, sizeof(*m->keys));
	m->vals = scx_xmalloc(m->cap * sizeof(*m->vals));
	imap_clear(m);
	for (uint32_t i = 0; i < o.cap; i++)
		if (o.vals[i] != UINT32_MAX)
			imap_put(m, o.keys[i], o.vals[i]);
	free(o.keys);
	free(o.vals);
}

static void imap_put(struct imap *m, int64_t k, uint32_t v)
{
	uint32_t i;

	if ((m->n + 1) * 2 > m->cap)
		imap_grow(m);
	for (i = ihash(k) & (m->cap - 1); m->vals[i] != UINT32_MAX; i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k)
			break;
	if (m->vals[i] == UINT32_MAX)
		m->n++;
	m->keys[i] = k;
	m->vals[i] = v;
}

static uint32_t imap_get(const struct imap *m, int64_t k)
{
	if (!m->cap)
		return UINT32_MAX;
	for (uint32_t i = ihash(k) & (m->cap - 1); m->vals[i] != UINT32_MAX;
	     i = (i + 1) & (m->cap - 1))
		if (m->keys[i] == k)
			return m->vals[i];
	return UINT32_MAX;
}

static void imap_free(struct imap *m)
{
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* ---- state ------------------------------------------------------------------ */

struct counts {
	uint64_t sw, wake, mig, xllc, xnode, run_ns, slice_ns, slice_n;
};

struct cpu {
	bool seen, known;	/* known: cur is reliable (a switch was seen) */
	int32_t cur;		/* running pid */
	uint64_t run_start, sirq_start;
	uint64_t sirq_ns;
	uint32_t khz;
	int32_t llc, node;
	struct counts c;
	struct hist h;
};

struct thread {
	int32_t tid, tgid;
	char comm[SCX_COMM_LEN];
	bool dead, active;
	uint64_t waking_ts;
	uint64_t last_dsq;
	struct counts c;
	struct hist *h;		/* allocated on the first latency sample */
};

struct dsq {
	uint64_t id;
	uint64_t disp, depth_sum, depth_max, slice_ns, slice_n;
	uint64_t vmin, vmax;
	struct hist h;
};

struct top_ev {
	struct scx_topo *topo;
	uint64_t interval, win_start, last_ts;
	bool started;
	uint64_t events, lost, lost_total;
	struct cpu *cpus;
	unsigned nr_cpus;	/* entries in cpus[] (max id + 1) */
	struct thread *th;
	unsigned nr_th, cap_th;
	struct imap thmap;
	struct dsq *dsqs;
	unsigned nr_dsqs, cap_dsqs;
	struct imap dsqmap;
	struct top_model model, prev;
	char scheduler[64];
};

#define MAX_CPUS 65536

struct top_ev *top_ev__new(const struct scx_topo *topo, uint64_t interval_ns)
{
	struct top_ev *a = scx_xcalloc(1, sizeof(*a));

	a->interval = interval_ns ? interval_ns : 1000000000ull;
	top_ev__set_topo(a, topo);
	return a;
}

void top_ev__set_interval(struct top_ev *a, uint64_t interval_ns)
{
	if (interval_ns)
		a->interval = interval_ns;
}

static struct cpu *get_cpu(struct top_ev *a, int32_t id)
{
	const struct scx_cpu_topo *t;

	if (id < 0 || id >= MAX_CPUS)
		return NULL;
	if ((unsigned)id >= a->nr_cpus) {
		unsigned n = SCX_MAX((unsigned)id + 1, a->nr_cpus * 2);

		a->cpus = scx_xrealloc(a->cpus, n * sizeof(*a->cpus));
		memset(a->cpus + a->nr_cpus, 0, (n - a->nr_cpus) * sizeof(*a->cpus));
		for (unsigned i = a->nr_cpus; i < n; i++)
			a->cpus[i].llc = a->cpus[i].node = -1;
		a->nr_cpus = n;
	}
	if (a->cpus[id].llc < 0) {
		t = a->topo ? scx_topo__cpu(a->topo, id) : NULL;
		a->cpus[id].llc = t ? t->llc : 0;
		a->cpus[id].node = t ? t->node : 0;
	}
	a->cpus[id].seen = true;
	return &a->cpus[id];
}

void top_ev__set_topo(struct top_ev *a, const struct scx_topo *topo)
{
	scx_topo__free(a->topo);
	a->topo = topo ? scx_topo__dup(topo) : NULL;
	for (unsigned i = 0; i < a->nr_cpus; i++)
		a->cpus[i].llc = a->cpus[i].node = -1;
	/* every cpu of the topology gets a row, even an idle one */
	for (unsigned i = 0; a->topo && i < a->topo->nr_cpus; i++)
		get_cpu(a, a->topo->cpus[i].cpu);
	for (unsigned i = 0; i < a->nr_cpus; i++)
		if (a->cpus[i].seen && a->cpus[i].llc < 0)
			get_cpu(a, (int32_t)i);
}

void top_ev__free(struct top_ev *a)
{
	if (!a)
		return;
	for (unsigned i = 0; i < a->nr_th; i++)
		free(a->th[i].h);
	free(a->th);
	free(a->cpus);
	free(a->dsqs);
	imap_free(&a->thmap);
	imap_free(&a->dsqmap);
	top_model_free(&a->model);
	top_model_free(&a->prev);
	scx_topo__free(a->topo);
	free(a);
}

const struct top_model *top_ev__model(const struct top_ev *a)
{
	return &a->model;
}

static struct thread *get_thread(struct top_ev *a, int32_t tid, int32_t tgid, const char *comm)
{
	uint32_t i;
	struct thread *t;

	if (tid <= 0)
		return NULL;	/* the idle task is the cpu's business, not a thread */
	i = imap_get(&a->thmap, tid);
	if (i == UINT32_MAX) {
		if (a->nr_th == a->cap_th) {
			a->cap_th = a->cap_th ? a->cap_th * 2 : 256;
			a->th = scx_xrealloc(a->th, a->cap_th * sizeof(*a->th));
		}
		i = a->nr_th++;
		t = &a->th[i];
		memset(t, 0, sizeof(*t));
		t->tid = tid;
		t->tgid = tgid > 0 ? tgid : tid;
		t->last_dsq = SCX_DSQ_NONE;
		imap_put(&a->thmap, tid, i);
	}
	t = &a->th[i];
	if (tgid > 0)
		t->tgid = tgid;
	if (comm && comm[0])
		memcpy(t->comm, comm, SCX_COMM_LEN);
	return t;
}

static struct dsq *get_dsq(struct top_ev *a, uint64_t id)
{
	uint32_t i = imap_get(&a->dsqmap, (int64_t)id);

	if (i == UINT32_MAX) {
		if (a->nr_dsqs == a->cap_dsqs) {
			a->cap_dsqs = a->cap_dsqs ? a->cap_dsqs * 2 : 16;
			a->dsqs = scx_xrealloc(a->dsqs, a->cap_dsqs * sizeof(*a->dsqs));
		}
		i = a->nr_dsqs++;
		memset(&a->dsqs[i], 0, sizeof(a->dsqs[i]));
		a->dsqs[i].id = id;
		a->dsqs[i].vmin = UINT64_MAX;
		imap_put(&a->dsqmap, (int64_t)id, i);
	}
	return &a->dsqs[i];
}

static uint64_t since(const struct top_ev *a, uint64_t start, uint64_t ts)
{
	if (start < a->win_start)
		start = a->win_start;
	return ts > start ? ts - start : 0;
}

/* ---- window close ----------------------------------------------------------- */

static void rates(struct top_row *r, const struct counts *c, double secs)
{
	r->v[TC_SW] = c->sw / secs;
	r->v[TC_WAKE] = c->wake / secs;
	r->v[TC_MIG] = c->mig / secs;
	r->v[TC_XLLC] = c->xllc / secs;
	r->v[TC_XNODE] = c->xnode / secs;
	r->has[TC_SW] = r->has[TC_WAKE] = r->has[TC_MIG] = r->has[TC_XLLC] = r->has[TC_XNODE] = 1;
	if (c->slice_n) {
		r->v[TC_SLICE] = (double)c->slice_ns / c->slice_n;
		r->has[TC_SLICE] = true;
	}
}

static void add_counts(struct counts *d, const struct counts *s)
{
	d->sw += s->sw;
	d->wake += s->wake;
	d->mig += s->mig;
	d->xllc += s->xllc;
	d->xnode += s->xnode;
	d->run_ns += s->run_ns;
	d->slice_ns += s->slice_ns;
	d->slice_n += s->slice_n;
}

/* Roll cpu rows up into an LLC or node table (key: 0 llc, 1 node). */
static void rollup(struct top_ev *a, struct top_model *m, int key, double secs)
{
	enum top_table_id tt = key ? TT_NODE : TT_LLC;
	unsigned ngroups = 0;
	struct grp {
		struct counts c;
		struct hist h;
		double util, sirq, khz;
		unsigned n, nkhz;
		int32_t node;
		bool used;
	} *g;

	for (unsigned i = 0; i < a->nr_cpus; i++)
		if (a->cpus[i].seen)
			ngroups = SCX_MAX(ngroups, (unsigned)(key ? a->cpus[i].node : a->cpus[i].llc) + 1);
	if (!ngroups)
		return;
	g = scx_xcalloc(ngroups, sizeof(*g));
	for (unsigned i = 0; i < a->nr_cpus; i++) {
		struct cpu *c = &a->cpus[i];
		const struct top_row *r;
		struct grp *x;

		if (!c->seen)
			continue;
		x = &g[key ? c->node : c->llc];
		r = top_table_find(&m->t[TT_CPU], i);
		x->used = true;
		x->node = c->node;
		add_counts(&x->c, &c->c);
		hmerge(&x->h, &c->h);
		x->util += r ? r->v[TC_UTIL] : 0;
		x->sirq += r ? r->v[TC_SIRQ] : 0;
		x->n++;
		if (c->khz) {
			x->khz += c->khz;
			x->nkhz++;
		}
	}
	for (unsigned i = 0; i < ngroups; i++) {
		struct top_row *r;

		if (!g[i].used)
			continue;
		r = top_table_get(&m->t[tt], i, key ? -1 : g[i].node);
		rates(r, &g[i].c, secs);
		put_pcts(r, &g[i].h);
		r->v[TC_UTIL] = g[i].util / g[i].n;
		r->v[TC_SIRQ] = g[i].sirq / g[i].n;
		r->has[TC_UTIL] = r->has[TC_SIRQ] = true;
		if (g[i].nkhz) {
			r->v[TC_FREQ] = g[i].khz / g[i].nkhz;
			r->has[TC_FREQ] = true;
		}
	}
	if (key)
		m->nr_nodes = ngroups;
	else
		m->nr_llcs = ngroups;
	free(g);
}

static void close_window(struct top_ev *a, uint64_t end)
{
	struct top_model *m = &a->model;
	double secs = (end - a->win_start) / 1e9;
	struct imap pmap = { 0 };
	struct proc {
		struct counts c;
		struct hist h;
		int32_t tgid;
		unsigned threads;
		bool active, named;
		char comm[SCX_COMM_LEN];
	} *p = NULL;
	unsigned np = 0, cp = 0, live = 0;

	if (secs <= 0)
		secs = 1e-9;
	top_model_copy(&a->prev, m);
	top_model_reset(m);
	m->start_ns = a->win_start;
	m->end_ns = end;
	m->seq = a->prev.seq + 1;
	m->events = a->events;
	m->lost = a->lost;
	m->lost_total = a->lost_total;
	strcpy(m->source, "events");
	memcpy(m->scheduler, a->scheduler, sizeof(m->scheduler));

	/* cpus: close the running and softirq intervals at the window's end */
	for (unsigned i = 0; i < a->nr_cpus; i++) {
		struct cpu *c = &a->cpus[i];
		struct top_row *r;

		if (!c->seen)
			continue;
		if (c->known && c->cur > 0) {
			uint64_t d = since(a, c->run_start, end);
			struct thread *t = get_thread(a, c->cur, 0, NULL);

			c->c.run_ns += d;
			if (t) {
				t->c.run_ns += d;
				t->active = true;
			}
		}
		if (c->sirq_start)
			c->sirq_ns += since(a, c->sirq_start, end);
		m->nr_cpus++;
		r = top_table_get(&m->t[TT_CPU], i, c->node);
		r->aux = c->llc;
		rates(r, &c->c, secs);
		put_pcts(r, &c->h);
		r->v[TC_UTIL] = SCX_MIN(c->c.run_ns / 1e9 / secs, 1.0);
		r->v[TC_SIRQ] = SCX_MIN(c->sirq_ns / 1e9 / secs, 1.0);
		r->has[TC_UTIL] = r->has[TC_SIRQ] = true;
		if (c->khz) {
			r->v[TC_FREQ] = c->khz;
			r->has[TC_FREQ] = true;
		}
	}
	rollup(a, m, 0, secs);
	rollup(a, m, 1, secs);

	/* threads and their processes */
	for (unsigned i = 0; i < a->nr_th; i++) {
		struct thread *t = &a->th[i];
		uint32_t k = imap_get(&pmap, t->tgid);
		struct proc *x;

		if (k == UINT32_MAX) {
			if (np == cp) {
				cp = cp ? cp * 2 : 64;
				p = scx_xrealloc(p, cp * sizeof(*p));
			}
			k = np++;
			memset(&p[k], 0, sizeof(p[k]));
			p[k].tgid = t->tgid;
			imap_put(&pmap, t->tgid, k);
		}
		x = &p[k];
		if (!t->dead)
			x->threads++;
		if (!x->named || t->tid == t->tgid) {
			memcpy(x->comm, t->comm, SCX_COMM_LEN);
			x->named = t->comm[0] != 0;
		}
		if (!t->active)
			continue;
		x->active = true;
		add_counts(&x->c, &t->c);
		if (t->h)
			hmerge(&x->h, t->h);

		struct top_row *r = top_table_get(&m->t[TT_THREAD], t->tid, t->tgid);

		memcpy(r->label, t->comm, SCX_COMM_LEN);
		rates(r, &t->c, secs);
		put_pcts(r, t->h);
		r->v[TC_UTIL] = t->c.run_ns / 1e9 / secs;
		r->has[TC_UTIL] = true;
	}
	for (unsigned i = 0; i < np; i++) {
		struct top_row *r;

		if (!p[i].active)
			continue;
		r = top_table_get(&m->t[TT_PROC], p[i].tgid, -1);
		memcpy(r->label, p[i].comm, SCX_COMM_LEN);
		rates(r, &p[i].c, secs);
		put_pcts(r, &p[i].h);
		r->v[TC_UTIL] = p[i].c.run_ns / 1e9 / secs;
		r->v[TC_THREADS] = p[i].threads;
		r->has[TC_UTIL] = r->has[TC_THREADS] = true;
	}
	free(p);
	imap_free(&pmap);

	for (unsigned i = 0; i < a->nr_dsqs; i++) {
		struct dsq *d = &a->dsqs[i];
		struct top_row *r;

		if (!d->disp && d->vmin == UINT64_MAX)
			continue;
		r = top_table_get(&m->t[TT_DSQ], (int64_t)d->id, -1);
		r->v[TC_DISP] = d->disp / secs;
		r->has[TC_DISP] = true;
		put_pcts(r, &d->h);
		if (d->disp) {
			r->v[TC_DEPTH] = (double)d->depth_sum / d->disp;
			r->has[TC_DEPTH] = true;
		}
		r->v[TC_DEPTHMAX] = d->depth_max;
		r->has[TC_DEPTHMAX] = true;
		if (d->vmin != UINT64_MAX) {
			r->v[TC_VTIME] = (double)(d->vmax - d->vmin);
			r->has[TC_VTIME] = true;
		}
		if (d->slice_n) {
			r->v[TC_SLICE] = (double)d->slice_ns / d->slice_n;
			r->has[TC_SLICE] = true;
		}
	}
	top_model_carry_hist(m, &a->prev);

	/* reset the window's counters; drop exited threads (bounded memory) */
	for (unsigned i = 0; i < a->nr_cpus; i++) {
		struct cpu *c = &a->cpus[i];

		memset(&c->c, 0, sizeof(c->c));
		if (c->h.n)
			memset(&c->h, 0, sizeof(c->h));
		c->sirq_ns = 0;
	}
	imap_clear(&a->thmap);
	for (unsigned i = 0; i < a->nr_th; i++) {
		struct thread *t = &a->th[i];

		if (t->dead) {
			free(t->h);
			continue;
		}
		memset(&t->c, 0, sizeof(t->c));
		if (t->h && t->h->n)
			memset(t->h, 0, sizeof(*t->h));
		t->active = false;
		a->th[live] = *t;
		imap_put(&a->thmap, t->tid, live++);
	}
	a->nr_th = live;
	for (unsigned i = 0; i < a->nr_dsqs; i++) {
		struct dsq *d = &a->dsqs[i];
		uint64_t id = d->id;

		memset(d, 0, sizeof(*d));
		d->id = id;
		d->vmin = UINT64_MAX;
	}
	a->events = a->lost = 0;
}

/* ---- events ----------------------------------------------------------------- */

static void on_switch(struct top_ev *a, struct cpu *c, const struct scx_event *e)
{
	const struct scx_ev_switch *s = &e->sw;
	struct thread *prev = get_thread(a, s->prev_pid, s->prev_tgid, s->prev_comm);
	struct thread *next = get_thread(a, s->next_pid, s->next_tgid, s->next_comm);

	c->c.sw++;
	if (c->known && c->cur > 0 && c->cur == s->prev_pid) {
		uint64_t d = since(a, c->run_start, e->ts);

		c->c.run_ns += d;
		if (prev)
			prev->c.run_ns += d;
	}
	if (prev) {
		prev->active = true;
		if (s->prev_state & SCX_STATE_DEAD)
			prev->dead = true;
		if (s->prev_slice_used_ns) {
			prev->c.slice_ns += s->prev_slice_used_ns;
			prev->c.slice_n++;
			if (prev->last_dsq != SCX_DSQ_NONE) {
				struct dsq *d = get_dsq(a, prev->last_dsq);

				d->slice_ns += s->prev_slice_used_ns;
				d->slice_n++;
			}
		}
	}
	c->cur = s->next_pid;
	c->run_start = e->ts;
	c->known = true;
	if (next) {
		next->active = true;
		next->c.sw++;
		if (next->waking_ts && e->ts >= next->waking_ts) {
			uint64_t lat = e->ts - next->waking_ts;

			hadd(&c->h, lat);
			if (!next->h)
				next->h = scx_xcalloc(1, sizeof(*next->h));
			hadd(next->h, lat);
		}
		next->waking_ts = 0;
	}
	if (s->dsq_id != SCX_DSQ_NONE && s->next_pid > 0) {
		struct dsq *d = get_dsq(a, s->dsq_id);

		d->disp++;
		hadd(&d->h, s->dsq_lat_ns);
		d->depth_sum += s->dsq_depth;
		d->depth_max = SCX_MAX(d->depth_max, (uint64_t)s->dsq_depth);
		if (s->dsq_vtime) {
			d->vmin = SCX_MIN(d->vmin, s->dsq_vtime);
			d->vmax = SCX_MAX(d->vmax, s->dsq_vtime);
		}
		if (next)
			next->last_dsq = s->dsq_id;
	}
}

static void on_wake(struct top_ev *a, const struct scx_event *e)
{
	const struct scx_ev_wakeup *w = &e->wake;
	struct thread *t = get_thread(a, w->pid, w->tgid, w->comm);
	struct cpu *c;

	/* one wakeup per episode: waking and wakeup of the same episode count once */
	if (!t || t->waking_ts)
		return;
	t->waking_ts = e->ts;
	t->c.wake++;
	t->active = true;
	c = get_cpu(a, w->target_cpu >= 0 ? w->target_cpu : e->cpu);
	if (c)
		c->c.wake++;
}

static void on_migrate(struct top_ev *a, const struct scx_event *e)
{
	const struct scx_ev_migrate *mg = &e->mig;
	struct thread *t = get_thread(a, mg->pid, mg->tgid, mg->comm);
	struct cpu *from = get_cpu(a, mg->orig_cpu), *to = get_cpu(a, mg->dest_cpu);
	bool xllc, xnode;

	if (!to)
		return;
	xllc = from && from->llc != to->llc;
	xnode = from && from->node != to->node;
	to->c.mig++;
	to->c.xllc += xllc;
	to->c.xnode += xnode;
	if (t) {
		t->c.mig++;
		t->c.xllc += xllc;
		t->c.xnode += xnode;
		t->active = true;
	}
}

int top_ev__add(struct top_ev *a, const struct scx_event *e)
{
	struct cpu *c;
	int closed = 0;

	if (!a->started) {
		a->started = true;
		a->win_start = e->ts;
	}
	if (e->ts >= a->win_start + a->interval) {
		close_window(a, a->win_start + a->interval);
		/* skip whole empty windows of a gap in one step */
		a->win_start += (e->ts - a->win_start) / a->interval * a->interval;
		closed = 1;
	}
	if (e->ts > a->last_ts)
		a->last_ts = e->ts;
	a->events++;
	c = get_cpu(a, e->cpu);
	switch (e->type) {
	case SCX_EV_SWITCH:
		if (c)
			on_switch(a, c, e);
		break;
	case SCX_EV_WAKING:
	case SCX_EV_WAKEUP:
	case SCX_EV_WAKEUP_NEW:
		on_wake(a, e);
		break;
	case SCX_EV_MIGRATE:
		on_migrate(a, e);
		break;
	case SCX_EV_EXIT:
	case SCX_EV_FREE: {
		uint32_t i = imap_get(&a->thmap, e->task.pid);

		if (i != UINT32_MAX)
			a->th[i].dead = true;
		break;
	}
	case SCX_EV_FORK: {
		struct thread *t = get_thread(a, e->fork.child_pid, e->fork.child_tgid,
					      e->fork.child_comm);

		if (t)
			t->dead = false;	/* a reused tid */
		break;
	}
	case SCX_EV_EXEC:
		get_thread(a, e->exec.pid, e->exec.tgid, e->exec.comm);
		break;
	case SCX_EV_TASK_RENAME:
		get_thread(a, e->rename.pid, e->rename.tgid, e->rename.newcomm);
		break;
	case SCX_EV_SOFTIRQ_ENTRY:
		if (c)
			c->sirq_start = e->ts;
		break;
	case SCX_EV_SOFTIRQ_EXIT:
		if (c && c->sirq_start) {
			c->sirq_ns += since(a, c->sirq_start, e->ts);
			c->sirq_start = 0;
		}
		break;
	case SCX_EV_CPU_FREQUENCY:
		c = get_cpu(a, (int32_t)e->freq.cpu_id);
		if (c)
			c->khz = e->freq.khz;
		break;
	case SCX_EV_DSQ_INSERT: {
		struct dsq *d = get_dsq(a, e->dsq.dsq_id);

		d->depth_max = SCX_MAX(d->depth_max, (uint64_t)e->dsq.depth);
		if (e->dsq.vtime) {
			d->vmin = SCX_MIN(d->vmin, e->dsq.vtime);
			d->vmax = SCX_MAX(d->vmax, e->dsq.vtime);
		}
		break;
	}
	case SCX_EV_LOST:
		a->lost += e->lost.count;
		a->lost_total += e->lost.count;
		break;
	case SCX_EV_SCX_ENABLE:
		snprintf(a->scheduler, sizeof(a->scheduler), "%.*s", SCX_NAME_LEN, e->ops.name);
		break;
	case SCX_EV_SCX_DISABLE:
		a->scheduler[0] = 0;
		break;
	default:
		break;
	}
	return closed;
}

int top_ev__flush(struct top_ev *a)
{
	if (!a->started || !a->events || a->last_ts <= a->win_start)
		return 0;
	close_window(a, a->last_ts);
	a->win_start = a->last_ts;
	return 1;
}

void top_ev__set_scheduler(struct top_ev *a, const char *name)
{
	snprintf(a->scheduler, sizeof(a->scheduler), "%s", name ? name : "");
}
