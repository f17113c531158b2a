// SPDX-License-Identifier: GPL-2.0
/* Kernel snapshots (ksnap.h): the record, its JSON form and its checks. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/event.h"
#include "core/util.h"
#include "stream/ksnap.h"

#define REC "kernel_snapshot" /* the record in error messages */

const char *const scx_ksnap_counter_names[SCX_KS__COUNT] = {
	"switches",    "voluntary",   "involuntary",	"slices",	   "wakeups",
	"wakeups_new", "migrations",  "migr_cross_llc", "migr_cross_node", "busy_ns",
	"idle_ns",     "rq_depth_ns", "rq_depth_max",	"wc_loss_ns",
};

const char *const scx_ksnap_hist_names[SCX_KSH__COUNT] = { "wake_lat", "rq_delay", "slice",
							   "dsq_lat" };

/*
 * A histogram the record leaves out when empty: dsq_lat, which only a
 * kernel with sched_ext has (and records written before it lack).
 */
static bool hist_optional(unsigned i)
{
	return i == SCX_KSH_DSQ_LAT;
}

void scx_ksnap_reset(struct scx_ksnap *s)
{
	for (unsigned i = 0; i < s->nr_cpus; i++)
		for (unsigned h = 0; h < SCX_KSH__COUNT; h++)
			s->cpus[i].h[h].nr = 0;
	for (unsigned i = 0; i < s->nr_cgroups; i++)
		for (unsigned h = 0; h < SCX_KSNAP_CG_HISTS; h++)
			s->cgroups[i].h[h].nr = 0;
	for (unsigned i = 0; i < s->nr_dsqs; i++)
		s->dsqs[i].lat.nr = 0;
	s->nr_cpus = s->nr_cgroups = s->nr_dsqs = 0;
	s->seq = s->start_ns = s->end_ns = s->end_skew_ns = s->late_intervals = 0;
	s->dropped_tasks = s->dropped_cpu = s->missed = s->dropped_cg_values = 0;
	s->dropped_dsq_values = 0;
}

void scx_ksnap_free(struct scx_ksnap *s)
{
	for (unsigned i = 0; i < s->cap; i++) {
		for (unsigned h = 0; h < SCX_KSH__COUNT; h++) {
			free(s->cpus[i].h[h].idx);
			free(s->cpus[i].h[h].n);
		}
	}
	for (unsigned i = 0; i < s->cg_cap; i++) {
		for (unsigned h = 0; h < SCX_KSNAP_CG_HISTS; h++) {
			free(s->cgroups[i].h[h].idx);
			free(s->cgroups[i].h[h].n);
		}
	}
	for (unsigned i = 0; i < s->dsq_cap; i++) {
		free(s->dsqs[i].lat.idx);
		free(s->dsqs[i].lat.n);
	}
	free(s->cpus);
	free(s->cgroups);
	free(s->dsqs);
	memset(s, 0, sizeof(*s));
}

/* Empty h, keeping its bucket arrays. */
static void hist_clear(struct scx_ksnap_hist *h)
{
	h->count = h->sum = h->min = h->max = h->clamped = 0;
	h->nr = 0;
}

struct scx_ksnap_cgroup *scx_ksnap_add_cgroup(struct scx_ksnap *s, uint64_t id)
{
	struct scx_ksnap_cgroup *c;

	if (s->nr_cgroups == s->cg_cap) {
		unsigned cap = s->cg_cap ? s->cg_cap * 2 : 16;

		s->cgroups = scx_xrealloc(s->cgroups, cap * sizeof(*s->cgroups));
		memset(s->cgroups + s->cg_cap, 0, (cap - s->cg_cap) * sizeof(*s->cgroups));
		s->cg_cap = cap;
	}
	c = &s->cgroups[s->nr_cgroups++];
	memset(c->c, 0, sizeof(c->c));
	for (unsigned h = 0; h < SCX_KSNAP_CG_HISTS; h++)
		hist_clear(&c->h[h]);
	c->id = id;
	return c;
}

struct scx_ksnap_dsq *scx_ksnap_add_dsq(struct scx_ksnap *s, uint64_t id, bool other)
{
	struct scx_ksnap_dsq *d;

	if (s->nr_dsqs == s->dsq_cap) {
		unsigned cap = s->dsq_cap ? s->dsq_cap * 2 : 16;

		s->dsqs = scx_xrealloc(s->dsqs, cap * sizeof(*s->dsqs));
		memset(s->dsqs + s->dsq_cap, 0, (cap - s->dsq_cap) * sizeof(*s->dsqs));
		s->dsq_cap = cap;
	}
	d = &s->dsqs[s->nr_dsqs++];
	hist_clear(&d->lat);
	d->id = other ? 0 : id;
	d->other = other;
	return d;
}

struct scx_ksnap_cpu *scx_ksnap_add_cpu(struct scx_ksnap *s, int32_t cpu)
{
	struct scx_ksnap_cpu *c;

	if (s->nr_cpus == s->cap) {
		unsigned cap = s->cap ? s->cap * 2 : 16;

		s->cpus = scx_xrealloc(s->cpus, cap * sizeof(*s->cpus));
		memset(s->cpus + s->cap, 0, (cap - s->cap) * sizeof(*s->cpus));
		s->cap = cap;
	}
	c = &s->cpus[s->nr_cpus++];
	/* keep the bucket arrays of an earlier snapshot */
	memset(c->c, 0, sizeof(c->c));
	for (unsigned h = 0; h < SCX_KSH__COUNT; h++)
		hist_clear(&c->h[h]);
	c->cpu = cpu;
	return c;
}

void scx_ksnap_hist_add(struct scx_ksnap_hist *h, uint32_t idx, uint64_t n)
{
	if (h->nr == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 32;
		h->idx = scx_xrealloc(h->idx, h->cap * sizeof(*h->idx));
		h->n = scx_xrealloc(h->n, h->cap * sizeof(*h->n));
	}
	h->idx[h->nr] = idx;
	h->n[h->nr++] = n;
}

/*
 * A histogram's [idx,n,...] formatted in one piece into tmp, then added
 * whole: 512 CPUs make a million numbers a record, and the writer's
 * per-value separator and reserve were half of writing them.
 */
static void buckets_to_json(struct scx_jw *w, const struct scx_ksnap_hist *kh, struct scx_buf *tmp)
{
	char *p;

	scx_buf_reset(tmp);
	scx_buf_reserve(tmp, (size_t)kh->nr * 42 + 2);
	p = tmp->data;
	*p++ = '[';
	for (unsigned j = 0; j < kh->nr; j++) {
		if (j)
			*p++ = ',';
		p += scx_fmt_u64(p, kh->idx[j]);
		*p++ = ',';
		p += scx_fmt_u64(p, kh->n[j]);
	}
	*p++ = ']';
	scx_jw_raw(w, tmp->data, (size_t)(p - tmp->data));
}

/* Histogram kh as member 'name' of the object being written. */
static void hist_to_json(struct scx_jw *w, const char *name, const struct scx_ksnap_hist *kh,
			 struct scx_buf *tmp)
{
	scx_jw_key(w, name);
	scx_jw_obj_begin(w);
	scx_jw_kuint(w, "count", kh->count);
	scx_jw_kuint(w, "sum", kh->sum);
	scx_jw_kuint(w, "min", kh->min);
	scx_jw_kuint(w, "max", kh->max);
	scx_jw_kuint(w, "clamped", kh->clamped);
	scx_jw_key(w, "b");
	buckets_to_json(w, kh, tmp);
	scx_jw_obj_end(w);
}

/* The counters 0..nc and histograms 0..nh of a cpu or cgroup object. */
static void figures_to_json(struct scx_jw *w, const uint64_t *c, unsigned nc,
			    const struct scx_ksnap_hist *h, unsigned nh, struct scx_buf *tmp)
{
	for (unsigned k = 0; k < nc; k++)
		scx_jw_kuint(w, scx_ksnap_counter_names[k], c[k]);
	for (unsigned i = 0; i < nh; i++)
		if (!hist_optional(i) || h[i].count)
			hist_to_json(w, scx_ksnap_hist_names[i], &h[i], tmp);
}

/* The DSQs' members: dropped_dsq_values and the "dsqs" array. */
static void dsqs_to_json(struct scx_jw *w, const struct scx_ksnap *s, struct scx_buf *tmp)
{
	scx_jw_kuint(w, "dropped_dsq_values", s->dropped_dsq_values);
	scx_jw_key(w, "dsqs");
	scx_jw_arr_begin(w);
	for (unsigned i = 0; i < s->nr_dsqs; i++) {
		const struct scx_ksnap_dsq *d = &s->dsqs[i];

		scx_jw_obj_begin(w);
		if (d->other)
			scx_jw_kstr(w, "dsq", "other");
		else
			scx_jw_kuint(w, "dsq", d->id);
		hist_to_json(w, scx_ksnap_hist_names[SCX_KSH_DSQ_LAT], &d->lat, tmp);
		scx_jw_obj_end(w);
	}
	scx_jw_arr_end(w);
}

void scx_ksnap_to_json(struct scx_buf *b, const struct scx_ksnap *s)
{
	struct scx_buf tmp = { 0 };
	struct scx_jw w;

	scx_jw_init(&w, b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "type", SCX_KSNAP_TYPE);
	scx_jw_kuint(&w, "seq", s->seq);
	scx_jw_kuint(&w, "start_ns", s->start_ns);
	scx_jw_kuint(&w, "end_ns", s->end_ns);
	scx_jw_kuint(&w, "end_skew_ns", s->end_skew_ns);
	/* optional: on time, the record is as it was before the key existed */
	if (s->late_intervals)
		scx_jw_kuint(&w, "late_intervals", s->late_intervals);
	scx_jw_kuint(&w, "dropped_tasks", s->dropped_tasks);
	scx_jw_kuint(&w, "dropped_cpu", s->dropped_cpu);
	scx_jw_kuint(&w, "missed", s->missed);
	scx_jw_kuint(&w, "dropped_cgroup_values", s->dropped_cg_values);
	scx_jw_key(&w, "cpus");
	scx_jw_arr_begin(&w);
	for (unsigned i = 0; i < s->nr_cpus; i++) {
		const struct scx_ksnap_cpu *c = &s->cpus[i];

		scx_jw_obj_begin(&w);
		scx_jw_kint(&w, "cpu", c->cpu);
		figures_to_json(&w, c->c, SCX_KS__COUNT, c->h, SCX_KSH__COUNT, &tmp);
		scx_jw_obj_end(&w);
	}
	scx_jw_arr_end(&w);
	scx_jw_key(&w, "cgroups");
	scx_jw_arr_begin(&w);
	for (unsigned i = 0; i < s->nr_cgroups; i++) {
		const struct scx_ksnap_cgroup *c = &s->cgroups[i];

		scx_jw_obj_begin(&w);
		scx_jw_kuint(&w, "cgroup", c->id);
		figures_to_json(&w, c->c, SCX_KSNAP_CG_COUNTERS, c->h, SCX_KSNAP_CG_HISTS, &tmp);
		scx_jw_obj_end(&w);
	}
	scx_jw_arr_end(&w);
	/* sched_ext only, so left out when empty as the CPUs' dsq_lat */
	if (s->nr_dsqs || s->dropped_dsq_values)
		dsqs_to_json(&w, s, &tmp);
	scx_jw_obj_end(&w);
	scx_buf_free(&tmp);
}

bool scx_ksnap_is(const struct scx_json_doc *d)
{
	int t = d->ntok > 0 && d->tok[0].type == JSMN_OBJECT ? scx_json_get(d, 0, "type") : -1;

	return t >= 0 && scx_json_eq(d, t, SCX_KSNAP_TYPE);
}

/*
 * The keys of one object, looked up in the order scx_ksnap_to_json() writes
 * them: a lookup first tries the key after the last one found, so a record
 * as written costs one comparison a key instead of a scan of the object
 * (the scans were a third of reading 10,000 cgroups).  Any other order
 * still reads, through scx_json_get(), with the same result: names are
 * looked up once each, so the keys passed are all other names, and the key
 * found is the first of its name as scx_json_get() finds it.
 */
struct keys {
	const struct scx_json_doc *d;
	int obj, next, left;
};

static struct keys keys_of(const struct scx_json_doc *d, int obj)
{
	return (struct keys){ d, obj, obj + 1, d->tok[obj].size };
}

static int key_find(struct keys *k, const char *key)
{
	int v = k->next + 1;

	if (k->left > 0 && v < k->d->ntok && scx_json_key_eq(k->d, k->next, key, strlen(key))) {
		k->next = scx_json_next(k->d, v);
		k->left--;
		return v;
	}
	return scx_json_get(k->d, k->obj, key);
}

/* *v = the unsigned value of key in k's object; missing or not one: error */
static int get_u(struct keys *k, const char *key, uint64_t *v, char *err, size_t errsz)
{
	int i = key_find(k, key);
	char what[64];

	if (i >= 0 && !scx_json_uint(k->d, i, v))
		return 0;
	snprintf(what, sizeof(what), "missing or bad \"%s\"", key);
	return scx_json_rec_err(k->d, i >= 0 ? i : k->obj, REC, err, errsz, what);
}

static int hist_from_json(const struct scx_json_doc *d, int obj, struct scx_ksnap_hist *h,
			  char *err, size_t errsz)
{
	uint64_t total = 0, prev = 0;
	struct keys hk;
	int arr, i;

	if (obj < 0 || d->tok[obj].type != JSMN_OBJECT)
		return scx_json_rec_err(d, obj, REC, err, errsz, "a histogram is not an object");
	hk = keys_of(d, obj);
	if (get_u(&hk, "count", &h->count, err, errsz) || get_u(&hk, "sum", &h->sum, err, errsz) ||
	    get_u(&hk, "min", &h->min, err, errsz) || get_u(&hk, "max", &h->max, err, errsz) ||
	    get_u(&hk, "clamped", &h->clamped, err, errsz))
		return -EINVAL;
	arr = key_find(&hk, "b");
	if (arr < 0 || d->tok[arr].type != JSMN_ARRAY || d->tok[arr].size % 2)
		return scx_json_rec_err(d, arr >= 0 ? arr : obj, REC, err, errsz,
					"\"b\" is not an array of pairs");
	i = arr + 1;
	for (int k = 0; k < d->tok[arr].size; k += 2) {
		uint64_t idx, n;

		if (scx_json_uint(d, i, &idx) || scx_json_uint(d, i + 1, &n))
			return scx_json_rec_err(d, i, REC, err, errsz, "bad bucket");
		if (idx >= SCX_HIST_NR_BUCKETS || (h->nr && idx <= prev) || !n)
			return scx_json_rec_err(d, i, REC, err, errsz,
						"bucket out of range, out of order or empty");
		if (total + n < total)
			return scx_json_rec_err(d, i, REC, err, errsz, "bucket counts overflow");
		total += n;
		prev = idx;
		scx_ksnap_hist_add(h, (uint32_t)idx, n);
		i += 2;
	}
	if (total != h->count)
		return scx_json_rec_err(d, obj, REC, err, errsz,
					"bucket counts do not add up to \"count\"");
	if (h->count && h->min > h->max)
		return scx_json_rec_err(d, obj, REC, err, errsz, "\"min\" is above \"max\"");
	return 0;
}

/* The counters 0..nc and histograms 0..nh of a cpu or cgroup object (k). */
static int figures_from_json(struct keys *k, uint64_t *c, unsigned nc, struct scx_ksnap_hist *h,
			     unsigned nh, char *err, size_t errsz)
{
	for (unsigned n = 0; n < nc; n++)
		if (get_u(k, scx_ksnap_counter_names[n], &c[n], err, errsz))
			return -EINVAL;
	for (unsigned i = 0; i < nh; i++) {
		int v = key_find(k, scx_ksnap_hist_names[i]);

		if (v < 0 && hist_optional(i))
			continue; /* stays empty */
		if (hist_from_json(k->d, v, &h[i], err, errsz))
			return -EINVAL;
	}
	return 0;
}

/* The optional "cgroups" array (records before it had none): ids ascending. */
static int cgroups_from_json(const struct scx_json_doc *d, struct scx_ksnap *s, char *err,
			     size_t errsz)
{
	int arr = scx_json_get(d, 0, "cgroups"), i;
	struct keys top = keys_of(d, 0);

	if (scx_json_get(d, 0, "dropped_cgroup_values") >= 0 &&
	    get_u(&top, "dropped_cgroup_values", &s->dropped_cg_values, err, errsz))
		return -EINVAL;
	if (arr < 0)
		return 0;
	if (d->tok[arr].type != JSMN_ARRAY)
		return scx_json_rec_err(d, arr, REC, err, errsz, "\"cgroups\" is not an array");
	i = arr + 1;
	for (int k = 0; k < d->tok[arr].size; k++, i = scx_json_next(d, i)) {
		struct scx_ksnap_cgroup *c;
		struct keys ck;
		uint64_t id;
		int ci;

		if (d->tok[i].type != JSMN_OBJECT)
			return scx_json_rec_err(d, i, REC, err, errsz, "a cgroup is not an object");
		ck = keys_of(d, i);
		ci = key_find(&ck, "cgroup");
		if (ci < 0 || scx_json_uint(d, ci, &id))
			return scx_json_rec_err(d, ci >= 0 ? ci : i, REC, err, errsz,
						"missing or bad \"cgroup\"");
		if (s->nr_cgroups && id <= s->cgroups[s->nr_cgroups - 1].id)
			return scx_json_rec_err(d, ci, REC, err, errsz,
						"cgroup ids are not in ascending order");
		c = scx_ksnap_add_cgroup(s, id);
		if (figures_from_json(&ck, c->c, SCX_KSNAP_CG_COUNTERS, c->h, SCX_KSNAP_CG_HISTS,
				      err, errsz))
			return -EINVAL;
	}
	return 0;
}

/*
 * The optional "dsqs" array (records before it had none): ids ascending,
 * then at most one "other".
 */
static int dsqs_from_json(const struct scx_json_doc *d, struct scx_ksnap *s, char *err,
			  size_t errsz)
{
	int arr = scx_json_get(d, 0, "dsqs"), i;
	struct keys top = keys_of(d, 0);

	if (scx_json_get(d, 0, "dropped_dsq_values") >= 0 &&
	    get_u(&top, "dropped_dsq_values", &s->dropped_dsq_values, err, errsz))
		return -EINVAL;
	if (arr < 0)
		return 0;
	if (d->tok[arr].type != JSMN_ARRAY)
		return scx_json_rec_err(d, arr, REC, err, errsz, "\"dsqs\" is not an array");
	i = arr + 1;
	for (int k = 0; k < d->tok[arr].size; k++, i = scx_json_next(d, i)) {
		const struct scx_ksnap_dsq *last = s->nr_dsqs ? &s->dsqs[s->nr_dsqs - 1] : NULL;
		struct scx_ksnap_dsq *q;
		struct keys qk;
		uint64_t id = 0;
		bool other;
		int qi;

		if (d->tok[i].type != JSMN_OBJECT)
			return scx_json_rec_err(d, i, REC, err, errsz, "a dsq is not an object");
		qk = keys_of(d, i);
		qi = key_find(&qk, "dsq");
		other = qi >= 0 && d->tok[qi].type == JSMN_STRING && scx_json_eq(d, qi, "other");
		if (qi < 0 || (!other && scx_json_uint(d, qi, &id)))
			return scx_json_rec_err(d, qi >= 0 ? qi : i, REC, err, errsz,
						"missing or bad \"dsq\" (an id or \"other\")");
		if (last && (last->other || (!other && id <= last->id)))
			return scx_json_rec_err(d, qi, REC, err, errsz,
						"dsq ids are not in ascending order, "
						"\"other\" last");
		q = scx_ksnap_add_dsq(s, id, other);
		if (hist_from_json(d, key_find(&qk, scx_ksnap_hist_names[SCX_KSH_DSQ_LAT]), &q->lat,
				   err, errsz))
			return -EINVAL;
	}
	return 0;
}

int scx_ksnap_from_json(const struct scx_json_doc *d, struct scx_ksnap *s, char *err, size_t errsz)
{
	struct keys top;
	int arr, i;

	scx_ksnap_reset(s);
	if (!scx_ksnap_is(d))
		return scx_json_rec_err(d, 0, REC, err, errsz, "not a kernel snapshot");
	top = keys_of(d, 0);
	if (get_u(&top, "seq", &s->seq, err, errsz) ||
	    get_u(&top, "start_ns", &s->start_ns, err, errsz) ||
	    get_u(&top, "end_ns", &s->end_ns, err, errsz) ||
	    get_u(&top, "dropped_tasks", &s->dropped_tasks, err, errsz) ||
	    get_u(&top, "dropped_cpu", &s->dropped_cpu, err, errsz) ||
	    get_u(&top, "missed", &s->missed, err, errsz))
		return -EINVAL;
	if (s->end_ns < s->start_ns)
		return scx_json_rec_err(d, 0, REC, err, errsz, "\"end_ns\" is before \"start_ns\"");
	/* optional: records before it had none */
	if (scx_json_get(d, 0, "end_skew_ns") >= 0 &&
	    get_u(&top, "end_skew_ns", &s->end_skew_ns, err, errsz))
		return -EINVAL;
	if (scx_json_get(d, 0, "late_intervals") >= 0 &&
	    get_u(&top, "late_intervals", &s->late_intervals, err, errsz))
		return -EINVAL;
	arr = scx_json_get(d, 0, "cpus");
	if (arr < 0 || d->tok[arr].type != JSMN_ARRAY)
		return scx_json_rec_err(d, arr >= 0 ? arr : 0, REC, err, errsz,
					"\"cpus\" is not an array");
	i = arr + 1;
	for (int k = 0; k < d->tok[arr].size; k++, i = scx_json_next(d, i)) {
		struct scx_ksnap_cpu *c;
		struct keys ck;
		int64_t cpu;
		int ci;

		if (d->tok[i].type != JSMN_OBJECT)
			return scx_json_rec_err(d, i, REC, err, errsz, "a cpu is not an object");
		ck = keys_of(d, i);
		ci = key_find(&ck, "cpu");
		if (ci < 0 || scx_json_int(d, ci, &cpu) || cpu < 0 || cpu >= SCX_MAX_CPUS)
			return scx_json_rec_err(d, ci >= 0 ? ci : i, REC, err, errsz,
						"missing or bad \"cpu\"");
		for (unsigned j = 0; j < s->nr_cpus; j++)
			if (s->cpus[j].cpu == cpu)
				return scx_json_rec_err(d, ci, REC, err, errsz,
							"a cpu appears twice");
		c = scx_ksnap_add_cpu(s, (int32_t)cpu);
		if (figures_from_json(&ck, c->c, SCX_KS__COUNT, c->h, SCX_KSH__COUNT, err, errsz))
			return -EINVAL;
	}
	if (cgroups_from_json(d, s, err, errsz))
		return -EINVAL;
	return dsqs_from_json(d, s, err, errsz);
}

void scx_ksnap_hist_to(const struct scx_ksnap_hist *h, struct scx_hist *dst)
{
	uint64_t sum = dst->sum, min = dst->min, max = dst->max, w;

	if (!h->count)
		return;
	/* a bucket's lowest value stands for its values: same buckets, same quantiles */
	for (unsigned i = 0; i < h->nr; i++)
		scx_hist_add_n(dst, scx_hist_bucket_low(h->idx[i], &w), h->n[i]);
	dst->sum = sum + h->sum;
	dst->min = SCX_MIN(min, h->min);
	dst->max = SCX_MAX(max, h->max);
}
