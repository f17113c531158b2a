// SPDX-License-Identifier: GPL-2.0
/*
 * The per-CPU caches of the cgroup figures (bpf/aggregate.h), without a
 * kernel: values and counts of many cgroups go through a few CPUs' caches,
 * filled and flushed as the programs do (the model_* functions below follow
 * bpf/aggregate.bpf.c's cgc_ent(), cgc_flush(), cg_count() and
 * cg_hist_add()), with more cgroups than ways and more buckets than the
 * cache holds, so entries are flushed to the shared slots and bucket map
 * all the time.  After scx_kagg_drain_cgcache() the fold gives the record
 * the programs gave when every value went straight to the shared slots,
 * cgroup for cgroup, counter for counter, bucket for bucket.  With a bucket
 * map that fills up, a value is left out whole: each histogram's count,
 * sum, min and max are those of exactly the values its buckets hold, and
 * the values left out are counted.
 */
#include <stdlib.h>
#include <string.h>

#include "../../bpf/aggregate.h"
#include "capture/kagg.h"
#include "core/hist.h"
#include "core/util.h"
#include "stream/ksnap.h"
#include "tap.h"

#define NR_CPUS 3
#define NR_SLOTS 40 /* more than KAGG_CGC_WAYS, and some share a way */
#define MAX_KEYS 65536

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	rnd_state ^= rnd_state << 13;
	rnd_state ^= rnd_state >> 7;
	rnd_state ^= rnd_state << 17;
	return rnd_state;
}

/* A generation's bucket map: at most cap entries, as BPF_NOEXIST makes them. */
struct bmap {
	struct kagg_cgbkey keys[MAX_KEYS];
	uint64_t vals[MAX_KEYS];
	size_t n, cap;
};

struct world {
	struct kagg_cgslot slots[KAGG_MAX_CGROUPS]; /* one generation's */
	struct bmap map;
	uint64_t dropped;
};

/* cg_bucket_add(): false when the bucket is new and the map full */
static bool model_bucket_add(struct bmap *m, struct kagg_cgbkey k, uint64_t n)
{
	size_t i;

	for (i = 0; i < m->n; i++)
		if (!memcmp(&m->keys[i], &k, sizeof(k)))
			break;
	if (i == m->n) {
		if (m->n == m->cap)
			return false;
		m->keys[m->n] = k;
		m->vals[m->n++] = 0;
	}
	m->vals[i] += n;
	return true;
}

/* cgc_ent() with cgc_flush() */
static struct kagg_cgc_ent *model_ent(struct world *w, struct kagg_cgcache *c, unsigned slot)
{
	struct kagg_cgc_ent *e = &c->ent[slot & (KAGG_CGC_WAYS - 1)];

	if (e->slot1 == slot + 1)
		return e;
	if (e->slot1) {
		struct kagg_cgslot *to = &w->slots[e->slot1 - 1];

		for (unsigned i = 0; i < KAGG_CG_COUNTERS; i++)
			to->c[i] += e->c[i];
		for (unsigned h = 0; h < KAGG_CG_HISTS; h++)
			kagg_cgc_hist_merge(&to->h[h], &e->h[h]);
		memset(e, 0, sizeof(*e));
	}
	e->slot1 = slot + 1;
	return e;
}

/* cg_count(); c NULL: the shared slot, as a program that finds the cache busy does */
static void model_count(struct world *w, struct kagg_cgcache *c, unsigned slot, unsigned k,
			uint64_t d)
{
	if (c)
		model_ent(w, c, slot)->c[k] += d;
	else
		w->slots[slot].c[k] += d;
}

/* cg_hist_add() */
static bool model_hist_add(struct world *w, struct kagg_cgcache *c, unsigned slot, unsigned h,
			   uint64_t v)
{
	unsigned idx = kagg_bucket(v);
	struct kagg_cghist one = { v, v, ~v, (v >> 37) != 0 };
	struct kagg_cgc_bkt *b;
	uint64_t key;

	if (!c) {
		if (!model_bucket_add(
			    &w->map, (struct kagg_cgbkey){ slot, (uint16_t)h, (uint16_t)idx }, 1)) {
			w->dropped++;
			return false;
		}
		kagg_cgc_hist_merge(&w->slots[slot].h[h], &one);
		return true;
	}
	key = kagg_cgc_key(slot, h, idx);
	b = &c->bkt[kagg_cgc_bkt_of(slot, h, idx, KAGG_CGC_BUCKETS)];
	if (b->key != key) {
		if (b->key && !model_bucket_add(&w->map, kagg_cgc_unkey(b->key), b->n)) {
			w->dropped++;
			return false;
		}
		b->key = key;
		b->n = 0;
	}
	b->n++;
	kagg_cgc_hist_add(&model_ent(w, c, slot)->h[h], v);
	return true;
}

static const uint64_t *slot_ids(void)
{
	static uint64_t ids[NR_SLOTS];

	for (unsigned i = 1; i < NR_SLOTS; i++)
		ids[i] = 1000 + 7 * i;
	return ids;
}

/* The record of world w after the read: caches drained (when given), then folded. */
static void read_world(struct world *w, struct kagg_cgcache *caches, struct scx_ksnap *k)
{
	struct kagg_cgbkey *keys =
		scx_xcalloc(MAX_KEYS + NR_CPUS * KAGG_CGC_BUCKETS, sizeof(*keys));
	uint64_t *vals = scx_xcalloc(MAX_KEYS + NR_CPUS * KAGG_CGC_BUCKETS, sizeof(*vals));
	size_t nb = w->map.n;

	memcpy(keys, w->map.keys, nb * sizeof(*keys));
	memcpy(vals, w->map.vals, nb * sizeof(*vals));
	if (caches)
		nb = scx_kagg_drain_cgcache(caches, NR_CPUS, w->slots, keys, vals, nb,
					    MAX_KEYS + NR_CPUS * KAGG_CGC_BUCKETS);
	scx_kagg_fold_cgroups(w->slots, slot_ids(), NR_SLOTS, keys, vals, nb, k);
	free(keys);
	free(vals);
}

static bool same_khist(const struct scx_ksnap_hist *a, const struct scx_ksnap_hist *b)
{
	if (a->count != b->count || a->sum != b->sum || a->min != b->min || a->max != b->max ||
	    a->clamped != b->clamped || a->nr != b->nr)
		return false;
	for (size_t i = 0; i < a->nr; i++)
		if (a->idx[i] != b->idx[i] || a->n[i] != b->n[i])
			return false;
	return true;
}

/*
 * A value of one of several scales, so that a cgroup's buckets outgrow its
 * part of a cache; past the buckets kept (clamped) when 'huge'.
 */
static uint64_t value(bool huge)
{
	switch (rnd() % (huge ? 4 : 3)) {
	case 0:
		return rnd() % 200;
	case 1:
		return 1000 + rnd() % 50000;
	case 2:
		return rnd() >> (28 + rnd() % 36); /* below 2^36 */
	default:
		return (1ull << 37) + rnd() % 1000; /* clamped */
	}
}

/* Counts and values through the caches, or straight to the shared slots: the same record. */
static void same_record(bool busy_now_and_then)
{
	struct world *direct = scx_xcalloc(1, sizeof(*direct));
	struct world *cached = scx_xcalloc(1, sizeof(*cached));
	struct kagg_cgcache *caches = scx_xcalloc(NR_CPUS, sizeof(*caches));
	struct scx_ksnap a = { 0 }, b = { 0 };
	unsigned bad = 0, nz = 0;

	direct->map.cap = cached->map.cap = MAX_KEYS;
	for (unsigned i = 0; i < 40000; i++) {
		/* mostly a few cgroups, as on a CPU, and now and then any */
		unsigned slot = rnd() % 8 ? rnd() % 5 : rnd() % NR_SLOTS;
		struct kagg_cgcache *c = &caches[rnd() % NR_CPUS];
		unsigned k = 1 + rnd() % (KAGG_CG_COUNTERS - 1), h = rnd() % KAGG_CG_HISTS;
		uint64_t d = rnd() % 3 ? 1 : rnd() % 100000, v = value(true);

		if (busy_now_and_then && rnd() % 16 == 0)
			c = NULL;
		model_count(direct, NULL, slot, k, d);
		model_count(cached, c, slot, k, d);
		model_hist_add(direct, NULL, slot, h, v);
		model_hist_add(cached, c, slot, h, v);
	}
	ok(cached->map.n < direct->map.n, "the caches kept buckets out of the map (%zu of %zu)",
	   cached->map.n, direct->map.n);
	read_world(direct, NULL, &a);
	read_world(cached, caches, &b);
	ok(a.nr_cgroups == NR_SLOTS && b.nr_cgroups == a.nr_cgroups,
	   "every cgroup is in the record (%u, %u)", a.nr_cgroups, b.nr_cgroups);
	for (unsigned i = 0; i < a.nr_cgroups && i < b.nr_cgroups; i++) {
		bad += a.cgroups[i].id != b.cgroups[i].id;
		bad += memcmp(a.cgroups[i].c, b.cgroups[i].c, sizeof(a.cgroups[i].c)) != 0;
		for (unsigned h = 0; h < SCX_KSNAP_CG_HISTS; h++)
			bad += !same_khist(&a.cgroups[i].h[h], &b.cgroups[i].h[h]);
	}
	ok(!bad, "%s: counters and histograms are the direct ones (%u differ)",
	   busy_now_and_then ? "some values past busy caches" : "all values through the caches",
	   bad);
	for (unsigned c = 0; c < NR_CPUS; c++)
		for (size_t i = 0; i < sizeof(caches[c]); i++)
			nz += ((const unsigned char *)&caches[c])[i] != 0;
	is_int(nz, 0, "draining empties the caches");
	ok(direct->dropped == 0 && cached->dropped == 0, "nothing dropped with room in the map");
	scx_ksnap_free(&a);
	scx_ksnap_free(&b);
	free(direct);
	free(cached);
	free(caches);
}

/* A full bucket map: what is left out is left out whole, and counted. */
static void full_map(void)
{
	struct world *w = scx_xcalloc(1, sizeof(*w));
	struct kagg_cgcache *caches = scx_xcalloc(NR_CPUS, sizeof(*caches));
	struct scx_hist want[NR_SLOTS][KAGG_CG_HISTS];
	struct scx_ksnap k = { 0 };
	unsigned bad = 0, kept = 0;

	w->map.cap = 50;
	for (unsigned s = 0; s < NR_SLOTS; s++)
		for (unsigned h = 0; h < KAGG_CG_HISTS; h++)
			scx_hist_init(&want[s][h]);
	for (unsigned i = 0; i < 5000; i++) {
		unsigned slot = 1 + rnd() % 3, h = rnd() % KAGG_CG_HISTS;
		uint64_t v = value(false); /* lib/hist keeps more buckets */

		if (model_hist_add(w, &caches[rnd() % NR_CPUS], slot, h, v)) {
			scx_hist_add(&want[slot][h], v);
			kept++;
		}
	}
	ok(w->dropped > 0 && kept > 0, "the map filled: %llu values left out, %u kept",
	   (unsigned long long)w->dropped, kept);
	read_world(w, caches, &k);
	for (unsigned i = 0; i < k.nr_cgroups; i++) {
		unsigned slot = (unsigned)(k.cgroups[i].id - 1000) / 7;

		for (unsigned h = 0; h < KAGG_CG_HISTS; h++) {
			/* KCH_WOKEN is the record's wake_lat, KCH_PREEMPTED only in rq_delay */
			const struct scx_ksnap_hist *kh =
				&k.cgroups[i]
					 .h[h == KCH_WOKEN ? SCX_KSH_WAKE_LAT : SCX_KSH_RQ_DELAY];
			struct scx_hist got;

			if (h == KCH_PREEMPTED)
				continue;
			scx_hist_init(&got);
			scx_ksnap_hist_to(kh, &got);
			bad += got.count != want[slot][h].count || got.sum != want[slot][h].sum ||
			       got.min != want[slot][h].min || got.max != want[slot][h].max;
			for (unsigned b = 0; b < SCX_HIST_NR_BUCKETS; b++)
				bad += scx_hist_bucket_count(&got, b) !=
				       scx_hist_bucket_count(&want[slot][h], b);
			scx_hist_free(&got);
		}
	}
	ok(k.nr_cgroups == 3 && !bad,
	   "each wake_lat is lib/hist's of the values kept, buckets and figures (%u differ)", bad);
	for (unsigned s = 0; s < NR_SLOTS; s++)
		for (unsigned h = 0; h < KAGG_CG_HISTS; h++)
			scx_hist_free(&want[s][h]);
	scx_ksnap_free(&k);
	free(w);
	free(caches);
}

/* Keys and their entries. */
static void keys(void)
{
	unsigned bad = 0, clash = 0;
	bool seen[KAGG_CGC_BUCKETS] = { false };

	for (unsigned s = 0; s < KAGG_MAX_CGROUPS; s += 97)
		for (unsigned h = 0; h < KAGG_CG_HISTS; h++)
			for (unsigned b = 0; b < KAGG_NR_BUCKETS; b += 13) {
				struct kagg_cgbkey k = kagg_cgc_unkey(kagg_cgc_key(s, h, b));

				bad += !kagg_cgc_key(s, h, b) || k.slot != s || k.hist != h ||
				       k.bucket != b ||
				       kagg_cgc_bkt_of(s, h, b, KAGG_CGC_BUCKETS) >=
					       KAGG_CGC_BUCKETS ||
				       kagg_cgc_bkt_of(s, h, b, 64) >= 64;
			}
	is_int(bad, 0, "a key is never 0, and gives back its slot, histogram and bucket");
	/* four octaves of one histogram of one cgroup fit without a clash */
	for (unsigned b = 640; b < 640 + KAGG_CGC_BUCKETS; b++) {
		unsigned e = kagg_cgc_bkt_of(9, KCH_WOKEN, b, KAGG_CGC_BUCKETS);

		clash += seen[e] || e == kagg_cgc_bkt_of(9, KCH_PREEMPTED, b, KAGG_CGC_BUCKETS);
		seen[e] = true;
	}
	is_int(clash, 0, "256 consecutive buckets of a histogram have entries of their own");
	/* the caches' size: 32768 buckets together at most, 64 each at least */
	is_int(kagg_cgc_buckets(2), 256, "2 CPUs: 256 buckets a cache");
	is_int(kagg_cgc_buckets(128), 256, "128 CPUs: 256 buckets a cache");
	is_int(kagg_cgc_buckets(129), 128, "129 CPUs: 128 buckets a cache");
	is_int(kagg_cgc_buckets(512), 64, "512 CPUs: 64 buckets a cache");
	is_int(kagg_cgc_buckets(4096), 64, "4096 CPUs: 64, never fewer");
}

int main(void)
{
	keys();
	same_record(false);
	same_record(true);
	full_map();
	return done_testing();
}
