// SPDX-License-Identifier: GPL-2.0
/*
 * Summary records (agg_summary.h): written from a closed interval, read back
 * and merged.  Everything in a record is a sum, an extreme or a histogram, so
 * records of several intervals or captures merge exactly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_int.h"
#include "agg/agg_summary.h"
#include "agg/agg_summary_int.h"
#include "json/json.h"

const struct sum_fig sum_figs[F__COUNT] = {
	[F_BUSY] = { "busy_ns" },	   [F_SWITCHES] = { "switches" },
	[F_INVOL] = { "involuntary" },	   [F_WAKEUPS] = { "wakeups" },
	[F_MIGR] = { "migrations" },	   [F_XLLC] = { "migr_cross_llc" },
	[F_XNODE] = { "migr_cross_node" }, [F_VIOL] = { "violation_ns" },
	[F_RUNNABLE] = { "runnable_ns" },  [F_ACTIVE] = { "active_ns" },
};

const char *const sum_hists[H__COUNT] = { "wake_lat", "rq_delay", "slice", "dsq_lat" };
const char *const sum_kinds[SK__COUNT] = { "total", "cpu", "llc",  "node",
					   "comm",  "dsq", "tgid", "cgroup" };

/* ---- writing ----------------------------------------------------------------- */

static void hist_json(struct scx_jw *w, const char *key, const struct scx_hist *h)
{
	scx_jw_key(w, key);
	scx_jw_obj_begin(w);
	scx_jw_kuint(w, "count", h->count);
	if (h->count) {
		scx_jw_kuint(w, "sum", h->sum);
		scx_jw_kuint(w, "min", h->min);
		scx_jw_kuint(w, "max", h->max);
		scx_jw_key(w, "b");
		scx_jw_arr_begin(w);
		for (unsigned i = scx_hist_index(h->min); i <= scx_hist_index(h->max); i++) {
			uint64_t n = scx_hist_bucket_count(h, i);

			if (!n)
				continue;
			scx_jw_arr_begin(w);
			scx_jw_uint(w, i);
			scx_jw_uint(w, n);
			scx_jw_arr_end(w);
		}
		scx_jw_arr_end(w);
	}
	scx_jw_obj_end(w);
}

/* The figures a stream without their events cannot give (scx_agg_metric_unknown). */
struct sum_unknown {
	bool wakeups, migr, wake_lat, rq_delay;
};

static bool metric_unknown(const struct scx_agg_snap *s, const char *metric)
{
	return scx_agg_metric_unknown(s, (unsigned)scx_agg_metric_index(metric));
}

/* null, never a 0 that claims a count: diff leaves the figure out */
static void kuint_known(struct scx_jw *w, const char *key, bool unknown, uint64_t v)
{
	if (unknown) {
		scx_jw_key(w, key);
		scx_jw_null(w);
	} else {
		scx_jw_kuint(w, key, v);
	}
}

static void hist_known(struct scx_jw *w, const char *key, bool unknown, const struct scx_hist *h)
{
	if (unknown) {
		scx_jw_key(w, key);
		scx_jw_null(w);
	} else {
		hist_json(w, key, h);
	}
}

static void figs_json(struct scx_jw *w, const struct scx_agg_stats *s, const struct sum_unknown *u,
		      bool dsq)
{
	scx_jw_kuint(w, "busy_ns", s->busy_ns);
	scx_jw_kuint(w, "switches", s->switches);
	scx_jw_kuint(w, "involuntary", s->involuntary);
	kuint_known(w, "wakeups", u->wakeups, s->wakeups + s->wakeups_new);
	kuint_known(w, "migrations", u->migr, s->migrations);
	kuint_known(w, "migr_cross_llc", u->migr, s->migr_cross_llc);
	kuint_known(w, "migr_cross_node", u->migr, s->migr_cross_node);
	hist_known(w, "wake_lat", u->wake_lat, &s->wake_lat);
	hist_known(w, "rq_delay", u->rq_delay, &s->rq_delay);
	hist_json(w, "slice", &s->slice);
	if (dsq)
		hist_json(w, "dsq_lat", &s->dsq_lat);
}

/* CPU -> LLC, node of the topology in one number: equal topologies, equal numbers */
static uint64_t topo_fingerprint(const struct scx_agg *a, unsigned *cpus)
{
	uint64_t h = 0xcbf29ce484222325ull;

	*cpus = 0;
	for (unsigned i = 0; i < a->nr_cpus; i++) {
		if (!agg_cpu_present(a, i))
			continue;
		(*cpus)++;
		h = (h ^ i) * 0x100000001b3ull;
		h = (h ^ (uint32_t)a->cpus[i].llc) * 0x100000001b3ull;
		h = (h ^ (uint32_t)a->cpus[i].node) * 0x100000001b3ull;
	}
	return h;
}

/* "(unknown)" and "(other)" are no cgroup another capture has: not written */
static bool cgroup_named(const struct scx_agg_group *g)
{
	return g->name && g->name[0] != '(';
}

static bool named_cgroups(const struct scx_agg_snap *s)
{
	for (unsigned i = 0; i < s->nr[SCX_AGG_CGROUP]; i++)
		if (cgroup_named(&s->groups[SCX_AGG_CGROUP][i]))
			return true;
	return false;
}

void scx_agg_summary_json(struct scx_agg *a, struct scx_buf *b)
{
	const struct scx_agg_snap *s = &a->snap;
	const struct agg_place *p = a->place;
	struct scx_jw w;
	unsigned cpus, llcs = 0, nodes = 0;
	uint64_t fp = topo_fingerprint(a, &cpus);
	const struct sum_unknown u = {
		.wakeups = metric_unknown(s, "wakeups"),
		.migr = metric_unknown(s, "migrations"),
		.wake_lat = metric_unknown(s, "wake_lat"),
		.rq_delay = metric_unknown(s, "rq_delay"),
	};
	/* waiting tasks and runnable threads are seen from their wakeups */
	bool queues_unknown = metric_unknown(s, "wc_loss_ns");

	for (unsigned i = 1; i < a->nr_llc_slots; i++)
		llcs += a->llc_cpus[i] > 0;
	for (unsigned i = 1; i < a->nr_node_slots; i++)
		nodes += a->node_cpus[i] > 0;
	scx_jw_init(&w, b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "type", "summary");
	scx_jw_kuint(&w, "version", SCX_SUMMARY_VERSION);
	scx_jw_kuint(&w, "seq", s->seq);
	scx_jw_kuint(&w, "start_ns", s->start_ns);
	scx_jw_kuint(&w, "end_ns", s->end_ns);
	scx_jw_kuint(&w, "dur_ns", s->end_ns - s->start_ns);
	scx_jw_kuint(&w, "events", s->events);
	scx_jw_kuint(&w, "lost", s->lost);
	scx_jw_key(&w, "event_types");
	scx_jw_obj_begin(&w);
	for (unsigned t = 1; t < SCX_EV__COUNT; t++)
		if (s->by_type[t])
			scx_jw_kuint(&w, scx_ev_name(t), s->by_type[t]);
	scx_jw_obj_end(&w);
	scx_jw_key(&w, "topology");
	scx_jw_obj_begin(&w);
	scx_jw_kuint(&w, "cpus", cpus);
	scx_jw_kuint(&w, "llcs", llcs);
	scx_jw_kuint(&w, "nodes", nodes);
	scx_jw_kuint(&w, "fingerprint", fp);
	scx_jw_obj_end(&w);
	scx_jw_key(&w, "total");
	scx_jw_obj_begin(&w);
	scx_jw_kuint(&w, "nr", s->nr_cpus);
	figs_json(&w, &s->total, &u, false);
	if (p) {
		uint64_t r = 0, act = 0;

		for (unsigned v = 0; v < p->cap_runnable; v++)
			r += v * p->t_runnable[v];
		for (unsigned v = 0; v < p->cap_active; v++)
			act += v * p->t_active[v];
		kuint_known(&w, "violation_ns", queues_unknown, p->all.viol - p->all.viol0);
		kuint_known(&w, "runnable_ns", queues_unknown, r);
		scx_jw_kuint(&w, "active_ns", act);
	}
	scx_jw_obj_end(&w);
	scx_jw_key(&w, "groups");
	scx_jw_obj_begin(&w);
	for (int k = SCX_AGG_CPU; k < SCX_AGG_BY__COUNT; k++) {
		if (k == SCX_AGG_PID || !s->nr[k] || (k == SCX_AGG_CGROUP && !named_cgroups(s)))
			continue;
		scx_jw_key(&w, scx_agg_by_names[k]);
		scx_jw_arr_begin(&w);
		for (unsigned i = 0; i < s->nr[k]; i++) {
			const struct scx_agg_group *g = &s->groups[k][i];

			if (k == SCX_AGG_CGROUP && !cgroup_named(g))
				continue;
			scx_jw_obj_begin(&w);
			if (k == SCX_AGG_COMM)
				scx_jw_kstr(&w, "comm", g->comm);
			else if (k == SCX_AGG_DSQ)
				scx_jw_kuint(&w, "dsq", (uint64_t)g->key);
			else if (k == SCX_AGG_CGROUP)
				scx_jw_kstr(&w, "cgroup", g->name);
			else
				scx_jw_kint(&w, scx_agg_by_names[k], g->key);
			if (k == SCX_AGG_TGID)
				scx_jw_kstr(&w, "comm", g->comm);
			scx_jw_kuint(&w, "nr", g->nr);
			figs_json(&w, g->s, &u, k == SCX_AGG_DSQ);
			scx_jw_obj_end(&w);
		}
		scx_jw_arr_end(&w);
	}
	scx_jw_obj_end(&w);
	scx_jw_obj_end(&w);
	scx_buf_add(b, "\n", 1);
}

/* ---- reading and merging ------------------------------------------------------ */

struct scx_sum *scx_sum__new(void)
{
	struct scx_sum *s = scx_xcalloc(1, sizeof(*s));

	s->total.kind = SK_TOTAL;
	for (int h = 0; h < H__COUNT; h++)
		scx_hist_init(&s->total.h[h]);
	return s;
}

static void grp_free(struct sum_grp *g)
{
	for (int h = 0; h < H__COUNT; h++)
		scx_hist_free(&g->h[h]);
}

void scx_sum__free(struct scx_sum *s)
{
	if (!s)
		return;
	grp_free(&s->total);
	for (unsigned i = 0; i < s->nr_groups; i++)
		grp_free(&s->groups[i]);
	free(s->groups);
	free(s);
}

unsigned scx_sum__records(const struct scx_sum *s)
{
	return s->records;
}

/* The group of kind and key (name: a comm group's comm, a cgroup group's path). */
static struct sum_grp *grp_get(struct scx_sum *s, int kind, int64_t key, const char *name)
{
	const char *comm = kind == SK_COMM ? name : "", *path = kind == SK_CGROUP ? name : "";
	struct sum_grp *g;

	for (unsigned i = 0; i < s->nr_groups; i++) {
		g = &s->groups[i];
		if (g->kind == kind && g->key == key &&
		    (kind != SK_COMM || !strncmp(g->comm, comm, SCX_COMM_LEN)) &&
		    !strncmp(g->path, path, SUM_PATH_LEN))
			return g;
	}
	if (s->nr_groups == s->cap_groups) {
		s->cap_groups = s->cap_groups ? s->cap_groups * 2 : 64;
		s->groups = scx_xrealloc(s->groups, s->cap_groups * sizeof(*s->groups));
	}
	g = &s->groups[s->nr_groups++];
	memset(g, 0, sizeof(*g));
	g->kind = kind;
	g->key = key;
	snprintf(g->comm, sizeof(g->comm), "%s", comm);
	snprintf(g->path, sizeof(g->path), "%s", path);
	for (int h = 0; h < H__COUNT; h++)
		scx_hist_init(&g->h[h]);
	return g;
}

struct rd {
	struct scx_json_doc *d;
	char *err;
	size_t errsz;
	int bad;
};

/* A null figure (unknown to the stream) reads as absent. */
static uint64_t rd_uint(struct rd *r, int obj, const char *key, bool *present)
{
	int i = scx_json_get(r->d, obj, key);
	uint64_t v = 0;

	if (i >= 0 && scx_json_is_null(r->d, i))
		i = -1;
	if (present)
		*present = i >= 0;
	if (i >= 0 && scx_json_uint(r->d, i, &v) && !r->bad) {
		snprintf(r->err, r->errsz, "byte %d: \"%s\" is not an unsigned number",
			 r->d->tok[i].start, key);
		r->bad = 1;
	}
	return v;
}

static void rd_hist(struct rd *r, int obj, const char *key, struct scx_hist *h)
{
	int o = scx_json_get(r->d, obj, key), arr, e;
	uint64_t n, sum, mn, mx;

	if (o < 0 || scx_json_is_null(r->d, o))
		return; /* unknown to the stream */
	n = rd_uint(r, o, "count", NULL);
	if (!n)
		return;
	sum = rd_uint(r, o, "sum", NULL);
	mn = rd_uint(r, o, "min", NULL);
	mx = rd_uint(r, o, "max", NULL);
	arr = scx_json_get(r->d, o, "b");
	if (arr < 0 || r->bad) {
		if (!r->bad)
			snprintf(r->err, r->errsz, "byte %d: histogram \"%s\" without buckets",
				 r->d->tok[o].start, key);
		r->bad = 1;
		return;
	}
	{
		struct scx_hist t;
		uint64_t seen = 0;

		scx_hist_init(&t);
		for (int i = 0; (e = scx_json_at(r->d, arr, i)) >= 0; i++) {
			int ji = scx_json_at(r->d, e, 0), jc = scx_json_at(r->d, e, 1);
			uint64_t idx, c;

			if (ji < 0 || jc < 0 || scx_json_uint(r->d, ji, &idx) ||
			    scx_json_uint(r->d, jc, &c) || idx >= SCX_HIST_NR_BUCKETS || !c ||
			    c > n - seen) {
				snprintf(r->err, r->errsz, "byte %d: bad bucket in \"%s\"",
					 r->d->tok[e].start, key);
				r->bad = 1;
				break;
			}
			{
				uint64_t wd;

				scx_hist_add_n(&t, scx_hist_bucket_low((unsigned)idx, &wd), c);
			}
			seen += c;
		}
		if (!r->bad && seen != n) {
			snprintf(r->err, r->errsz,
				 "byte %d: buckets of \"%s\" hold %llu, count %llu",
				 r->d->tok[o].start, key, (unsigned long long)seen,
				 (unsigned long long)n);
			r->bad = 1;
		}
		if (!r->bad) {
			/* the exact figures the buckets round */
			t.sum = sum;
			t.min = mn;
			t.max = mx;
			scx_hist_merge(h, &t);
		}
		scx_hist_free(&t);
	}
}

static void rd_figs(struct rd *r, int obj, struct sum_grp *g)
{
	for (int f = 0; f < F__COUNT; f++) {
		bool present;
		uint64_t v = rd_uint(r, obj, sum_figs[f].name, &present);

		if (present) {
			g->fig[f] += v;
			g->has |= 1u << f;
		}
	}
	g->nr = SCX_MAX(g->nr, (unsigned)rd_uint(r, obj, "nr", NULL));
	for (int h = 0; h < H__COUNT; h++)
		rd_hist(r, obj, sum_hists[h], &g->h[h]);
	g->records++;
}

int scx_sum__add_json(struct scx_sum *s, const char *line, size_t len, char *err, size_t errsz)
{
	struct scx_json_doc d = { 0 };
	struct rd r = { &d, err, errsz, 0 };
	int o, t, gr;
	uint64_t v, fp;

	if (scx_json_parse(&d, line, len)) {
		snprintf(err, errsz, "byte %zu: %s", d.err_off, d.err);
		scx_json_free(&d);
		return -EINVAL;
	}
	if (d.ntok < 1 || d.tok[0].type != JSMN_OBJECT || (t = scx_json_get(&d, 0, "type")) < 0 ||
	    !scx_json_eq(&d, t, "summary")) {
		snprintf(err, errsz, "byte 0: not a summary record (\"type\":\"summary\")");
		scx_json_free(&d);
		return -EINVAL;
	}
	v = rd_uint(&r, 0, "version", NULL);
	if (!r.bad && v != SCX_SUMMARY_VERSION) {
		snprintf(err, errsz, "byte 0: summary version %llu, this scx-agg reads %d",
			 (unsigned long long)v, SCX_SUMMARY_VERSION);
		r.bad = 1;
	}
	s->dur += rd_uint(&r, 0, "dur_ns", NULL);
	s->events += rd_uint(&r, 0, "events", NULL);
	s->lost += rd_uint(&r, 0, "lost", NULL);
	if ((o = scx_json_get(&d, 0, "event_types")) >= 0)
		for (unsigned k = 1; k < SCX_EV__COUNT; k++)
			s->by_type[k] += rd_uint(&r, o, scx_ev_name(k), NULL);
	if ((o = scx_json_get(&d, 0, "topology")) >= 0) {
		unsigned cpus = rd_uint(&r, o, "cpus", NULL);

		fp = rd_uint(&r, o, "fingerprint", NULL);
		if (s->records && (fp != s->topo_fp || cpus != s->cpus))
			s->topo_mixed = true;
		s->topo_fp = fp;
		s->cpus = cpus;
		s->llcs = rd_uint(&r, o, "llcs", NULL);
		s->nodes = rd_uint(&r, o, "nodes", NULL);
	}
	if ((o = scx_json_get(&d, 0, "total")) >= 0)
		rd_figs(&r, o, &s->total);
	if ((gr = scx_json_get(&d, 0, "groups")) >= 0) {
		for (int k = SK_CPU; k < SK__COUNT && !r.bad; k++) {
			int arr = scx_json_get(&d, gr, sum_kinds[k]), e;

			for (int i = 0; arr >= 0 && (e = scx_json_at(&d, arr, i)) >= 0 && !r.bad;
			     i++) {
				char name[SUM_PATH_LEN] = "";
				int64_t key = 0;
				int ki = scx_json_get(&d, e, sum_kinds[k]), ci;
				struct sum_grp *g;

				if (ki < 0 ||
				    (k == SK_COMM   ? scx_json_str(&d, ki, name, SCX_COMM_LEN) < 0 :
				     k == SK_CGROUP ? scx_json_str(&d, ki, name, sizeof(name)) < 0 :
				     k == SK_DSQ    ? scx_json_uint(&d, ki, (uint64_t *)&key) :
						      scx_json_int(&d, ki, &key))) {
					snprintf(err, errsz, "byte %d: %s group without its key",
						 d.tok[e].start, sum_kinds[k]);
					r.bad = 1;
					break;
				}
				g = grp_get(s, k, key, name);
				/* a process's name: its leader's comm, in the last record */
				if (k == SK_TGID && (ci = scx_json_get(&d, e, "comm")) >= 0 &&
				    scx_json_str(&d, ci, g->comm, sizeof(g->comm)) < 0)
					g->comm[0] = 0;
				rd_figs(&r, e, g);
			}
		}
	}
	scx_json_free(&d);
	if (r.bad)
		return -EINVAL;
	s->records++;
	return 0;
}
