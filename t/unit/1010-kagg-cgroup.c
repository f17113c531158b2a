// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroups in kernel snapshots, without a kernel: cgroup slots and sparse
 * buckets in the programs' layout (bpf/aggregate.h), filled as the programs
 * fill them (model_add() below follows cg_hist_add() in
 * bpf/aggregate.bpf.c), fold into the snapshot's "cgroups" array in
 * ascending id order, with "other" as id 0, a slot taken twice for one id
 * merged and stray buckets ignored; switches are voluntary + involuntary,
 * wake_lat the woken delays and rq_delay the woken and preempted ones, and
 * the histograms rebuilt from the record are lib/core/hist's of the same
 * values bucket for bucket, counts included (the programs count none).  Bad cgroup
 * arrays are refused; records without one still read.  In the engine the
 * ids become the cgroup groups of --by cgroup, named by cgroup records and
 * folded by --cgroup-depth.
 */
#include <stdlib.h>
#include <string.h>

#include "../../bpf/aggregate.h"
#include "agg/agg.h"
#include "agg/agg_ksnap.h"
#include "capture/kagg.h"
#include "core/hist.h"
#include "core/topo.h"
#include "core/util.h"
#include "stream/ksnap.h"
#include "tap.h"

#define NR_SLOTS 6
#define MAX_KEYS 4096

static uint64_t rnd_state = 88172645463325252ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

struct buckets {
	struct kagg_cgbkey keys[MAX_KEYS];
	uint64_t vals[MAX_KEYS];
	size_t n;
};

/* What cg_hist_add() does to the slot and the generation's bucket map. */
static void model_add(struct kagg_cgslot *sl, unsigned slot, unsigned h, uint64_t v,
		      struct buckets *b)
{
	struct kagg_cghist *hh = &sl->h[h];
	unsigned bucket = kagg_bucket(v);
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->keys[i].slot == slot && b->keys[i].hist == h && b->keys[i].bucket == bucket)
			break;
	if (i == b->n) {
		b->keys[b->n] = (struct kagg_cgbkey){ slot, (uint16_t)h, (uint16_t)bucket };
		b->vals[b->n++] = 0;
	}
	b->vals[i]++;
	hh->sum += v;
	hh->max = SCX_MAX(hh->max, v);
	hh->nmin = SCX_MAX(hh->nmin, ~v);
	hh->clamped += !!(v >> 37);
}

static bool same_hist(const struct scx_hist *a, const struct scx_hist *b, const char *what)
{
	unsigned bad = 0;

	for (unsigned i = 0; i < SCX_HIST_NR_BUCKETS; i++)
		bad += scx_hist_bucket_count(a, i) != scx_hist_bucket_count(b, i);
	for (double q = 0; q <= 1.0; q += 0.125)
		bad += scx_hist_quantile(a, q) != scx_hist_quantile(b, q);
	return ok(!bad && a->count == b->count && a->sum == b->sum && a->min == b->min &&
			  a->max == b->max,
		  "%s: buckets, quantiles, count %llu/%llu, sum, min %llu/%llu, max agree", what,
		  (unsigned long long)a->count, (unsigned long long)b->count,
		  (unsigned long long)a->min, (unsigned long long)b->min);
}

/* Slot ids: 0 other, 900, 500, 500 again (a lost race), 700 (empty), 300. */
static const uint64_t ids[NR_SLOTS] = { 0, 900, 500, 500, 700, 300 };
/* The snapshot's order: ascending ids, slot 2 and 3 merged, 700 left out. */
static const uint64_t want_ids[] = { 0, 300, 500, 900 };
static const unsigned want_slots[][2] = { { 0, 0 }, { 5, 5 }, { 2, 3 }, { 1, 1 } };

static void fold_round_trip(void)
{
	struct kagg_cgslot *slots = scx_xcalloc(NR_SLOTS, sizeof(*slots));
	struct buckets *b = scx_xcalloc(1, sizeof(*b));
	struct scx_hist want[NR_SLOTS][SCX_KSNAP_CG_HISTS], got;
	struct scx_ksnap k = { 0 }, back = { 0 };
	struct scx_json_doc d = { 0 };
	struct scx_buf out = { 0 };
	char err[256] = "", name[96];
	unsigned nz = 0;

	for (unsigned s = 0; s < NR_SLOTS; s++) {
		for (unsigned h = 0; h < SCX_KSNAP_CG_HISTS; h++)
			scx_hist_init(&want[s][h]);
		/* woken delays are wake_lat and rq_delay, preempted ones rq_delay */
		for (unsigned h = 0; h < KAGG_CG_HISTS; h++) {
			for (unsigned i = 0; s != 4 && i < 300 + 700 * (s == 1); i++) {
				uint64_t v = rnd() >> (28 + rnd() % 36); /* below 2^36 */

				model_add(&slots[s], s, h, v, b);
				scx_hist_add(&want[s][SCX_KSH_RQ_DELAY], v);
				if (h == KCH_WOKEN)
					scx_hist_add(&want[s][SCX_KSH_WAKE_LAT], v);
			}
		}
		/* the programs leave switches at 0: the fold adds it up */
		for (unsigned c = 1; s != 4 && c < KAGG_CG_COUNTERS; c++)
			slots[s].c[c] = 10 * s + c + 1;
	}
	/* buckets of an empty slot and of one past the table are not the record's */
	b->keys[b->n] = (struct kagg_cgbkey){ 4, 0, 100 };
	b->vals[b->n++] = 5;
	b->keys[b->n] = (struct kagg_cgbkey){ NR_SLOTS + 3, 1, 100 };
	b->vals[b->n++] = 5;
	scx_kagg_fold_cgroups(slots, ids, NR_SLOTS, b->keys, b->vals, b->n, &k);
	is_int(k.nr_cgroups, 4, "four cgroups: the empty slot is left out, a doubled id merges");
	for (unsigned i = 0; i < k.nr_cgroups && i < 4; i++)
		ok(k.cgroups[i].id == want_ids[i], "cgroup %u is id %llu (%llu)", i,
		   (unsigned long long)want_ids[i], (unsigned long long)k.cgroups[i].id);
	for (unsigned s = 0; s < NR_SLOTS; s++)
		for (unsigned c = 0; c < KAGG_CG_COUNTERS; c++)
			nz += slots[s].c[c] != 0 || (c < KAGG_CG_HISTS && slots[s].h[c].nmin);
	is_int(nz, 0, "folding zeroes the slots");

	k.end_ns = 10;
	k.dropped_cg_values = 4;
	scx_ksnap_to_json(&out, &k);
	ok(!scx_json_parse(&d, out.data, out.len) &&
		   !scx_ksnap_from_json(&d, &back, err, sizeof(err)),
	   "the record decodes (%s)", err);
	is_int(back.nr_cgroups, 4, "... with its four cgroups");
	ok(back.dropped_cg_values == 4, "... and dropped_cgroup_values");
	for (unsigned i = 0; i < back.nr_cgroups && i < 4; i++) {
		const unsigned *ws = want_slots[i];
		/* voluntary + involuntary: 10 s + 2 and 10 s + 3 per slot s */
		uint64_t c0 = (20 * ws[0] + 5) + (ws[1] != ws[0] ? 20 * ws[1] + 5 : 0);

		ok(back.cgroups[i].id == want_ids[i] && back.cgroups[i].c[SCX_KS_SWITCHES] == c0,
		   "cgroup %llu: switches %llu", (unsigned long long)want_ids[i],
		   (unsigned long long)back.cgroups[i].c[SCX_KS_SWITCHES]);
		for (unsigned h = 0; h < SCX_KSNAP_CG_HISTS; h++) {
			if (ws[1] != ws[0])
				scx_hist_merge(&want[ws[0]][h], &want[ws[1]][h]);
			scx_hist_init(&got);
			scx_ksnap_hist_to(&back.cgroups[i].h[h], &got);
			snprintf(name, sizeof(name), "cgroup %llu %s",
				 (unsigned long long)want_ids[i], scx_ksnap_hist_names[h]);
			same_hist(&got, &want[ws[0]][h], name);
			scx_hist_free(&got);
		}
	}
	for (unsigned s = 0; s < NR_SLOTS; s++)
		for (unsigned h = 0; h < SCX_KSNAP_CG_HISTS; h++)
			scx_hist_free(&want[s][h]);
	scx_json_free(&d);
	scx_buf_free(&out);
	scx_ksnap_free(&k);
	scx_ksnap_free(&back);
	free(slots);
	free(b);
}

/* A value past the buckets kept: in the last one, counted as clamped, max exact. */
static void clamped(void)
{
	struct kagg_cgslot *slot = scx_xcalloc(1, sizeof(*slot));
	struct buckets *b = scx_xcalloc(1, sizeof(*b));
	static const uint64_t id = 42;
	struct scx_ksnap k = { 0 };

	model_add(slot, 0, 0, 1ull << 38, b);
	model_add(slot, 0, 0, 1000, b);
	scx_kagg_fold_cgroups(slot, &id, 1, b->keys, b->vals, b->n, &k);
	ok(k.nr_cgroups == 1 && k.cgroups[0].h[0].clamped == 1 && k.cgroups[0].h[0].nr == 2 &&
		   k.cgroups[0].h[0].idx[1] == KAGG_NR_BUCKETS - 1 &&
		   k.cgroups[0].h[0].max == 1ull << 38 && k.cgroups[0].h[0].min == 1000 &&
		   k.cgroups[0].h[0].count == 2 && k.cgroups[0].h[1].count == 2 &&
		   k.cgroups[0].h[1].clamped == 1,
	   "2^38 ns: the last bucket, clamped, min and max exact, in both histograms");
	scx_ksnap_free(&k);
	free(slot);
	free(b);
}

static int decode(const char *json, struct scx_ksnap *k, char *err, size_t errsz)
{
	struct scx_json_doc d = { 0 };
	int rc = -1;

	err[0] = '\0';
	if (!scx_json_parse(&d, json, strlen(json)))
		rc = scx_ksnap_from_json(&d, k, err, errsz);
	scx_json_free(&d);
	return rc;
}

#define HDR \
	"{\"type\":\"kernel_snapshot\",\"seq\":0,\"start_ns\":1000,\"end_ns\":2000,\"dropped_tasks\":0," \
	"\"dropped_cpu\":0,\"missed\":0,\"cpus\":[]"
#define H0 "{\"count\":0,\"sum\":0,\"min\":0,\"max\":0,\"clamped\":0,\"b\":[]}"
#define H2 "{\"count\":2,\"sum\":3000,\"min\":1000,\"max\":2000,\"clamped\":0,\"b\":[576,1,640,1]}"
#define CNT(sw) \
	"\"switches\":" #sw ",\"voluntary\":1,\"involuntary\":1,\"slices\":2,\"wakeups\":1," \
	"\"wakeups_new\":0,\"migrations\":0,\"migr_cross_llc\":0,\"migr_cross_node\":0," \
	"\"busy_ns\":5000"
#define CG(id, sw, h) "{\"cgroup\":" #id "," CNT(sw) ",\"wake_lat\":" h ",\"rq_delay\":" h "}"

static void bad_input(void)
{
	struct scx_ksnap k = { 0 };
	char err[256];

	ok(!decode(HDR "}", &k, err, sizeof(err)) && k.nr_cgroups == 0,
	   "a record without cgroups (before them) reads (%s)", err);
	ok(!decode(HDR ",\"cgroups\":[" CG(0, 1, H0) "," CG(7, 2, H2) "]}", &k, err, sizeof(err)) &&
		   k.nr_cgroups == 2 && k.cgroups[1].h[1].nr == 2,
	   "a hand-written cgroups array reads (%s)", err);
	ok(decode(HDR ",\"cgroups\":[" CG(7, 1, H0) "," CG(7, 2, H0) "]}", &k, err, sizeof(err)) &&
		   strstr(err, "ascending"),
	   "refuses a cgroup twice: '%s'", err);
	ok(decode(HDR ",\"cgroups\":[" CG(9, 1, H0) "," CG(7, 2, H0) "]}", &k, err, sizeof(err)) &&
		   strstr(err, "ascending"),
	   "refuses ids out of order: '%s'", err);
	ok(decode(HDR ",\"cgroups\":[{\"cgroup\":-3}]}", &k, err, sizeof(err)) &&
		   strstr(err, "\"cgroup\"") && strstr(err, "byte "),
	   "refuses a bad id, naming the byte: '%s'", err);
	ok(decode(HDR ",\"cgroups\":[{\"cgroup\":3}]}", &k, err, sizeof(err)) &&
		   strstr(err, "\"switches\""),
	   "refuses a missing counter: '%s'", err);
	ok(decode(HDR ",\"cgroups\":[{\"cgroup\":3," CNT(1) ",\"wake_lat\":" H0 "}]}", &k, err,
		  sizeof(err)) &&
		   strstr(err, "not an object"),
	   "refuses a missing histogram: '%s'", err);
	ok(decode(HDR ",\"cgroups\":{}}", &k, err, sizeof(err)) && strstr(err, "not an array"),
	   "refuses cgroups that are not an array: '%s'", err);
	ok(decode(HDR ",\"dropped_cgroup_values\":-1}", &k, err, sizeof(err)) &&
		   strstr(err, "dropped_cgroup_values"),
	   "refuses a bad dropped_cgroup_values: '%s'", err);
	scx_ksnap_free(&k);
}

struct seen {
	char names[8][64];
	uint64_t switches[8], rq_count[8];
	unsigned n;
};

static int keep(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	struct seen *w = ctx;

	(void)a;
	w->n = 0;
	for (unsigned i = 0; i < s->nr[SCX_AGG_CGROUP] && i < 8; i++) {
		const struct scx_agg_group *g = &s->groups[SCX_AGG_CGROUP][i];

		snprintf(w->names[w->n], sizeof(w->names[0]), "%s", g->name);
		w->switches[w->n] = g->s->switches;
		w->rq_count[w->n++] = g->s->rq_delay.count;
	}
	return 0;
}

/* The row called name, or -1. */
static int row(const struct seen *w, const char *name)
{
	for (unsigned i = 0; i < w->n; i++)
		if (!strcmp(w->names[i], name))
			return (int)i;
	return -1;
}

static void engine(unsigned depth)
{
	const char *rec = HDR ",\"cgroups\":[" CG(0, 4, H0) "," CG(7, 2, H2) "," CG(8, 3, H2) "]}";
	struct seen w = { 0 };
	struct scx_agg_opts o = {
		.by = 1u << SCX_AGG_CGROUP,
		.need = SCX_AGG_NEED_CGROUPS,
		.emit = keep,
		.ctx = &w,
		.cgroup_depth = depth,
	};
	struct scx_topo *topo = scx_topo__synthetic(2, 1, 1);
	struct scx_agg *a = scx_agg__new(topo, &o);
	struct scx_ksnap k = { 0 };
	char err[256];
	int r;

	scx_agg__cgroup_name(a, 7, "/svc/web");
	scx_agg__cgroup_name(a, 8, "/svc/db");
	ok(!decode(rec, &k, err, sizeof(err)) && !scx_agg__add_ksnap(a, &k, true),
	   "depth %u: the engine takes the snapshot (%s)", depth, err);
	if (!depth) {
		r = row(&w, "/svc/web");
		ok(r >= 0 && w.switches[r] == 2 && w.rq_count[r] == 2,
		   "/svc/web has its cgroup's switches and run-queue delays");
		r = row(&w, "/svc/db");
		ok(r >= 0 && w.switches[r] == 3, "/svc/db has its own");
	} else {
		r = row(&w, "/svc");
		ok(r >= 0 && w.switches[r] == 5 && w.rq_count[r] == 4,
		   "depth 1: /svc sums both (%d rows)", w.n);
	}
	r = row(&w, "(other)");
	ok(r >= 0 && w.switches[r] == 4, "depth %u: id 0 is the (other) row", depth);
	scx_ksnap_free(&k);
	scx_agg__free(a);
	scx_topo__free(topo);
}

int main(void)
{
	fold_round_trip();
	clamped();
	bad_input();
	engine(0);
	engine(1);
	return done_testing();
}
