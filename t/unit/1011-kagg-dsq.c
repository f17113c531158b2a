// SPDX-License-Identifier: GPL-2.0
/*
 * DSQs in kernel snapshots, without a kernel: per-DSQ histograms and sparse
 * buckets in the programs' layout (bpf/aggregate.h), filled as the programs
 * fill them (model_add() below follows dsq_switch_in() and
 * sparse_hist_add() in bpf/aggregate.bpf.c), fold into the snapshot's
 * "dsqs" array: ids ascending, DSQ 0 (scx_simple's shared DSQ) apart from
 * "other" (slot 0, last), a slot taken twice for one id merged, stray
 * buckets ignored, the histograms zeroed.  The record survives its JSON
 * form; bad arrays are refused naming the key and byte, records without
 * one still read.  In the engine the DSQs become the DSQ groups of --by
 * dsq, and their histograms are, bucket for bucket, those the engine
 * builds from switch events with the same dsq_id and dsq_lat_ns.
 */
#include <stdlib.h>
#include <string.h>

#include "../../bpf/aggregate.h"
#include "agg/agg.h"
#include "agg/agg_ksnap.h"
#include "capture/kagg.h"
#include "core/event.h"
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

/* What dsq_switch_in() does to the DSQ's histogram and the generation's bucket map. */
static void model_add(struct kagg_cghist *hh, unsigned slot, uint64_t v, struct buckets *b)
{
	unsigned bucket = kagg_bucket(v);
	size_t i;

	for (i = 0; i < b->n; i++)
		if (b->keys[i].slot == slot && b->keys[i].bucket == bucket)
			break;
	if (i == b->n) {
		b->keys[b->n] = (struct kagg_cgbkey){ slot, 0, (uint16_t)bucket };
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

#define SCX_DSQ_GLOBAL 0x8000000000000001ull

/* Slot ids: other, GLOBAL, 5, 5 again (a lost race), 700 (empty), 0 (a real DSQ 0). */
static const uint64_t ids[NR_SLOTS] = { 0, SCX_DSQ_GLOBAL, 5, 5, 700, 0 };
/* The snapshot's order: ascending ids, slots 2 and 3 merged, 700 left out, other last. */
static const uint64_t want_ids[] = { 0, 5, SCX_DSQ_GLOBAL, 0 };
static const bool want_other[] = { false, false, false, true };
static const unsigned want_slots[][2] = { { 5, 5 }, { 2, 3 }, { 1, 1 }, { 0, 0 } };

static void fold_round_trip(void)
{
	struct kagg_cghist *hists = scx_xcalloc(NR_SLOTS, sizeof(*hists));
	struct buckets *b = scx_xcalloc(1, sizeof(*b));
	struct scx_hist want[NR_SLOTS], got;
	struct scx_ksnap k = { 0 }, back = { 0 };
	struct scx_json_doc d = { 0 };
	struct scx_buf out = { 0 };
	char err[256] = "", name[96];
	unsigned nz = 0;

	for (unsigned s = 0; s < NR_SLOTS; s++) {
		scx_hist_init(&want[s]);
		for (unsigned i = 0; s != 4 && i < 300 + 700 * (s == 1); i++) {
			uint64_t v = rnd() >> (28 + rnd() % 36); /* below 2^36 */

			model_add(&hists[s], s, v, b);
			scx_hist_add(&want[s], v);
		}
	}
	/* buckets of an empty slot and of one past the table are not the record's */
	b->keys[b->n] = (struct kagg_cgbkey){ 4, 0, 100 };
	b->vals[b->n++] = 5;
	b->keys[b->n] = (struct kagg_cgbkey){ NR_SLOTS + 3, 0, 100 };
	b->vals[b->n++] = 5;
	scx_kagg_fold_dsqs(hists, ids, NR_SLOTS, b->keys, b->vals, b->n, &k);
	is_int(k.nr_dsqs, 4, "four DSQs: the empty slot is left out, a doubled id merges");
	for (unsigned i = 0; i < k.nr_dsqs && i < 4; i++)
		ok(k.dsqs[i].id == want_ids[i] && k.dsqs[i].other == want_other[i],
		   "DSQ %u is %s%llu (%llu)", i, want_other[i] ? "other, " : "",
		   (unsigned long long)want_ids[i], (unsigned long long)k.dsqs[i].id);
	for (unsigned s = 0; s < NR_SLOTS; s++)
		nz += hists[s].nmin || hists[s].sum || hists[s].max || hists[s].clamped;
	is_int(nz, 0, "folding zeroes the histograms");

	k.end_ns = 10;
	k.dropped_dsq_values = 4;
	scx_ksnap_to_json(&out, &k);
	ok(strstr(out.data, "{\"dsq\":\"other\",") != NULL, "other is written as \"other\"");
	ok(!scx_json_parse(&d, out.data, out.len) &&
		   !scx_ksnap_from_json(&d, &back, err, sizeof(err)),
	   "the record decodes (%s)", err);
	is_int(back.nr_dsqs, 4, "... with its four DSQs");
	ok(back.dropped_dsq_values == 4, "... and dropped_dsq_values");
	for (unsigned i = 0; i < back.nr_dsqs && i < 4; i++) {
		const unsigned *ws = want_slots[i];

		ok(back.dsqs[i].id == want_ids[i] && back.dsqs[i].other == want_other[i],
		   "DSQ %u read back as written", i);
		if (ws[1] != ws[0])
			scx_hist_merge(&want[ws[0]], &want[ws[1]]);
		scx_hist_init(&got);
		scx_ksnap_hist_to(&back.dsqs[i].lat, &got);
		snprintf(name, sizeof(name), "DSQ %s%llu dsq_lat", want_other[i] ? "other " : "",
			 (unsigned long long)want_ids[i]);
		same_hist(&got, &want[ws[0]], name);
		scx_hist_free(&got);
	}
	for (unsigned s = 0; s < NR_SLOTS; s++)
		scx_hist_free(&want[s]);
	scx_json_free(&d);
	scx_buf_free(&out);
	scx_ksnap_free(&k);
	scx_ksnap_free(&back);
	free(hists);
	free(b);
}

/* A value past the buckets kept: in the last one, counted as clamped, max exact. */
static void clamped(void)
{
	struct kagg_cghist *hh = scx_xcalloc(2, sizeof(*hh));
	struct buckets *b = scx_xcalloc(1, sizeof(*b));
	static const uint64_t id[2] = { 0, 42 };
	struct scx_ksnap k = { 0 };
	const struct scx_ksnap_hist *h;

	model_add(&hh[1], 1, 1ull << 38, b);
	model_add(&hh[1], 1, 1000, b);
	scx_kagg_fold_dsqs(hh, id, 2, b->keys, b->vals, b->n, &k);
	h = k.nr_dsqs == 1 ? &k.dsqs[0].lat : NULL;
	ok(h && k.dsqs[0].id == 42 && h->clamped == 1 && h->nr == 2 &&
		   h->idx[1] == KAGG_NR_BUCKETS - 1 && h->max == 1ull << 38 && h->min == 1000 &&
		   h->count == 2,
	   "2^38 ns: the last bucket, clamped, min and max exact");
	scx_ksnap_free(&k);
	free(hh);
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
/* 1000 and 2000 ns */
#define H2 "{\"count\":2,\"sum\":3000,\"min\":1000,\"max\":2000,\"clamped\":0,\"b\":[576,1,640,1]}"
/* 3000 ns */
#define H1 "{\"count\":1,\"sum\":3000,\"min\":3000,\"max\":3000,\"clamped\":0,\"b\":[413,1]}"
#define DQ(id, h) "{\"dsq\":" #id ",\"dsq_lat\":" h "}"

static void bad_input(void)
{
	struct scx_ksnap k = { 0 };
	char err[256];

	ok(!decode(HDR "}", &k, err, sizeof(err)) && k.nr_dsqs == 0 && !k.dropped_dsq_values,
	   "a record without dsqs (before them) reads (%s)", err);
	ok(!decode(HDR ",\"dropped_dsq_values\":3,\"dsqs\":[" DQ(0, H2) "," DQ(7, H0) "," DQ(
			   "other", H2) "]}",
		   &k, err, sizeof(err)) &&
		   k.nr_dsqs == 3 && k.dsqs[0].lat.nr == 2 && !k.dsqs[0].other && k.dsqs[2].other &&
		   k.dropped_dsq_values == 3,
	   "a hand-written dsqs array reads, DSQ 0 and other apart (%s)", err);
	ok(decode(HDR ",\"dsqs\":[" DQ(7, H0) "," DQ(7, H0) "]}", &k, err, sizeof(err)) &&
		   strstr(err, "ascending"),
	   "refuses a DSQ twice: '%s'", err);
	ok(decode(HDR ",\"dsqs\":[" DQ(9, H0) "," DQ(7, H0) "]}", &k, err, sizeof(err)) &&
		   strstr(err, "ascending"),
	   "refuses ids out of order: '%s'", err);
	ok(decode(HDR ",\"dsqs\":[" DQ("other", H0) "," DQ(7, H0) "]}", &k, err, sizeof(err)) &&
		   strstr(err, "\"other\" last"),
	   "refuses a DSQ after other: '%s'", err);
	ok(decode(HDR ",\"dsqs\":[{\"dsq\":-3}]}", &k, err, sizeof(err)) &&
		   strstr(err, "\"dsq\"") && strstr(err, "byte "),
	   "refuses a bad id, naming the byte: '%s'", err);
	ok(decode(HDR ",\"dsqs\":[{\"dsq\":\"others\"}]}", &k, err, sizeof(err)) &&
		   strstr(err, "\"dsq\""),
	   "refuses a string other than \"other\": '%s'", err);
	ok(decode(HDR ",\"dsqs\":[{\"dsq\":3}]}", &k, err, sizeof(err)) &&
		   strstr(err, "not an object"),
	   "refuses a missing histogram: '%s'", err);
	ok(decode(HDR ",\"dsqs\":[" DQ(3, "{\"count\":3,\"sum\":0,\"min\":0,\"max\":0,"
					  "\"clamped\":0,\"b\":[5,1]}") "]}",
		  &k, err, sizeof(err)) &&
		   strstr(err, "add up"),
	   "refuses buckets that do not add up: '%s'", err);
	ok(decode(HDR ",\"dsqs\":{}}", &k, err, sizeof(err)) && strstr(err, "not an array"),
	   "refuses dsqs that are not an array: '%s'", err);
	ok(decode(HDR ",\"dsqs\":[3]}", &k, err, sizeof(err)) && strstr(err, "not an object"),
	   "refuses a DSQ that is not an object: '%s'", err);
	ok(decode(HDR ",\"dropped_dsq_values\":-1}", &k, err, sizeof(err)) &&
		   strstr(err, "dropped_dsq_values"),
	   "refuses a bad dropped_dsq_values: '%s'", err);
	scx_ksnap_free(&k);
}

/* ---- the engine: kernel DSQs are the event mode's DSQ groups -------------------- */

#define MAX_GROUPS 8

struct seen {
	int64_t key[MAX_GROUPS];
	uint64_t dispatches[MAX_GROUPS];
	struct scx_hist lat[MAX_GROUPS];
	unsigned n;
	uint64_t lost;
};

static int keep(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	struct seen *w = ctx;

	(void)a;
	for (unsigned i = 0; i < s->nr[SCX_AGG_DSQ] && w->n < MAX_GROUPS; i++) {
		const struct scx_agg_group *g = &s->groups[SCX_AGG_DSQ][i];

		w->key[w->n] = g->key;
		w->dispatches[w->n] = g->s->dsq_dispatches;
		scx_hist_init(&w->lat[w->n]);
		scx_hist_merge(&w->lat[w->n++], &g->s->dsq_lat);
	}
	w->lost += s->lost;
	return 0;
}

static void seen_free(struct seen *w)
{
	for (unsigned i = 0; i < w->n; i++)
		scx_hist_free(&w->lat[i]);
}

static struct scx_agg *engine_new(struct scx_topo *topo, struct seen *w)
{
	struct scx_agg_opts o = {
		.by = 1u << SCX_AGG_DSQ,
		.emit = keep,
		.ctx = w,
	};

	return scx_agg__new(topo, &o);
}

static void engine_record(void)
{
	const char *rec = HDR ",\"dropped_dsq_values\":2,\"dsqs\":[" DQ(0, H2) "," DQ(9, H1) "," DQ(
		"other", H1) "]}";
	struct scx_topo *topo = scx_topo__synthetic(2, 1, 1);
	struct seen w = { 0 };
	struct scx_agg *a = engine_new(topo, &w);
	struct scx_ksnap k = { 0 };
	char err[256];
	int r0 = -1, r9 = -1, ro = -1;

	ok(!decode(rec, &k, err, sizeof(err)) && !scx_agg__add_ksnap(a, &k, true),
	   "the engine takes a snapshot with DSQs (%s)", err);
	for (unsigned i = 0; i < w.n; i++) {
		if (w.key[i] == 0)
			r0 = (int)i;
		else if (w.key[i] == 9)
			r9 = (int)i;
		else if (w.key[i] == -1)
			ro = (int)i;
	}
	is_int(w.n, 3, "three DSQ groups");
	ok(r0 >= 0 && w.dispatches[r0] == 2 && w.lat[r0].count == 2 && w.lat[r0].min == 1000 &&
		   w.lat[r0].max == 2000,
	   "DSQ 0: two dispatches, its queueing times");
	ok(r9 >= 0 && w.dispatches[r9] == 1 && w.lat[r9].sum == 3000, "DSQ 9: one dispatch");
	ok(ro >= 0 && w.dispatches[ro] == 1,
	   "other is the engine's own (other) DSQ group, key -1 (SCX_DSQ_NONE)");
	ok(w.lost == 2, "dropped_dsq_values count as lost (%llu)", (unsigned long long)w.lost);
	seen_free(&w);
	scx_ksnap_free(&k);
	scx_agg__free(a);
	scx_topo__free(topo);
}

/*
 * The same queueing times as switch events (the event mode) and as a
 * folded kernel snapshot: the same DSQ groups, histograms equal bucket for
 * bucket, so a fleet may add the two.
 */
static void events_and_kernel_agree(void)
{
	static const uint64_t dsq_ids[] = { 0, 3, SCX_DSQ_GLOBAL };
	struct kagg_cghist hists[4] = { 0 };
	static const uint64_t slot_ids[4] = { 0, 0, 3, SCX_DSQ_GLOBAL };
	struct buckets *b = scx_xcalloc(1, sizeof(*b));
	struct scx_topo *topo = scx_topo__synthetic(2, 1, 1);
	struct seen we = { 0 }, wk = { 0 };
	struct scx_agg *ae = engine_new(topo, &we), *ak = engine_new(topo, &wk);
	struct scx_ksnap k = { 0 };
	uint64_t ts = 1000000;
	unsigned bad = 0;

	for (unsigned i = 0; i < 3000; i++) {
		unsigned q = (unsigned)(rnd() % 3);
		uint64_t v = rnd() >> (30 + rnd() % 34);
		struct scx_event e = { .ts = ts, .cpu = (int32_t)(i & 1), .type = SCX_EV_SWITCH };

		e.sw.prev_pid = (int32_t)(100 + (i + 2) % 4);
		e.sw.next_pid = (int32_t)(100 + i % 4);
		e.sw.prev_tgid = e.sw.prev_pid;
		e.sw.next_tgid = e.sw.next_pid;
		e.sw.prev_state = SCX_STATE_INTERRUPTIBLE;
		e.sw.dsq_id = dsq_ids[q];
		e.sw.dsq_lat_ns = v;
		e.sw.layer_id = -1;
		e.sw.prev_cgroup = e.sw.next_cgroup = SCX_CGROUP_NONE;
		scx_agg__add(ae, &e);
		model_add(&hists[q + 1], q + 1, v, b);
		ts += 1000;
	}
	scx_agg__flush(ae);
	k.start_ns = 1000000;
	k.end_ns = ts;
	scx_kagg_fold_dsqs(hists, slot_ids, 4, b->keys, b->vals, b->n, &k);
	scx_agg__add_ksnap(ak, &k, true);
	is_int(wk.n, we.n, "as many DSQ groups from the kernel as from events");
	for (unsigned i = 0; i < we.n; i++) {
		unsigned j = 0;
		char name[64];

		while (j < wk.n && wk.key[j] != we.key[i])
			j++;
		if (j == wk.n) {
			bad++;
			continue;
		}
		snprintf(name, sizeof(name), "DSQ %llu: kernel and events",
			 (unsigned long long)we.key[i]);
		same_hist(&wk.lat[j], &we.lat[i], name);
		bad += wk.dispatches[j] != we.dispatches[i];
	}
	is_int(bad, 0, "every event DSQ has its kernel twin, with the same dispatches");
	seen_free(&we);
	seen_free(&wk);
	scx_ksnap_free(&k);
	scx_agg__free(ae);
	scx_agg__free(ak);
	scx_topo__free(topo);
	free(b);
}

int main(void)
{
	fold_round_trip();
	clamped();
	bad_input();
	engine_record();
	events_and_kernel_agree();
	return done_testing();
}
