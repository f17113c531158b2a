// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space cost of one --aggregate interval, without a kernel: slots
 * for a synthetic machine of C CPUs are filled with the programs' own code
 * (bpf/aggregate.h), then folded into a kernel snapshot and written as its
 * JSON record (what scx-events does each interval), and read back into the
 * engine (what scx-agg does).  Median thread CPU time over R rounds.
 * With CGROUPS, as many cgroup slots too, each with 4 values per histogram
 * in the sparse buckets the programs keep (what the bucket map's batch read
 * hands over), folded into the same record; scx-agg then groups --by cgroup
 * (top 50 + other) and formats Prometheus (scx_prom, as -f prometheus).
 * The bucket map's entries come in no order, as its batch read hands them
 * over (hash order), and the CPUs' caches of the cgroup figures are full
 * when drained (every entry and bucket taken, the most a drain can find, of
 * buckets the map has too; part of cg_fold_us).
 * With DSQS (sched_ext), as many DSQ histograms, 16 values each, in the
 * programs' sparse buckets too, grouped --by dsq (every DSQ a group;
 * Prometheus: 64 series and "other").
 *
 *	kagg CPUS VALUES_PER_HIST ROUNDS [CGROUPS [DSQS]]
 *	  ->  "fold_us emit_us bytes ingest_us emitted cg_fold_us prom_us dsq_fold_us"
 *	(ingest_us includes prom_us; cg_fold_us and dsq_fold_us are part of fold_us)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bpf/aggregate.h"
#include "agg/agg.h"
#include "agg/agg_ksnap.h"
#include "agg/prom.h"
#include "capture/kagg.h"
#include "core/topo.h"
#include "core/util.h"
#include "stream/ksnap.h"

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t median(uint64_t *v, unsigned n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	return v[n / 2];
}

struct run {
	unsigned emitted;
	struct scx_prom *p; /* NULL: no Prometheus */
	struct scx_buf b;
	uint64_t prom_ns;
};

static int count_emit(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	struct run *r = ctx;
	uint64_t t0 = cpu_ns();

	r->emitted++;
	if (r->p) {
		scx_prom__add(r->p, a, s);
		scx_buf_reset(&r->b);
		scx_prom__write(r->p, &r->b);
	}
	r->prom_ns = cpu_ns() - t0;
	return 0;
}

/* The cgroups' slots and sparse buckets, as cg_hist_add() leaves them. */
struct cgset {
	struct kagg_cgslot *slots;
	uint64_t *ids;
	struct kagg_cgbkey *keys;
	uint64_t *vals;
	size_t nb;
};

/* What dsq_switch_in() leaves: histogram slot's sparse bucket of v, from entry first on. */
static void dsq_add(struct kagg_cghist *hh, struct kagg_cgbkey *keys, uint64_t *vals, size_t *nb,
		    unsigned slot, uint64_t v, size_t first)
{
	unsigned bucket = kagg_bucket(v);
	size_t i;

	for (i = first; i < *nb; i++)
		if (keys[i].bucket == bucket)
			break;
	if (i == *nb) {
		keys[*nb] = (struct kagg_cgbkey){ slot, 0, (uint16_t)bucket };
		vals[(*nb)++] = 0;
	}
	vals[i]++;
	hh->sum += v;
	hh->max = SCX_MAX(hh->max, v);
	hh->nmin = SCX_MAX(hh->nmin, ~v);
}

static void cg_add(struct cgset *g, unsigned slot, unsigned h, uint64_t v, size_t first)
{
	struct kagg_cghist *hh = &g->slots[slot].h[h];
	unsigned bucket = kagg_bucket(v);
	size_t i;

	for (i = first; i < g->nb; i++)
		if (g->keys[i].hist == h && g->keys[i].bucket == bucket)
			break;
	if (i == g->nb) {
		g->keys[g->nb] = (struct kagg_cgbkey){ slot, (uint16_t)h, (uint16_t)bucket };
		g->vals[g->nb++] = 0;
	}
	g->vals[i]++;
	hh->sum += v;
	hh->max = SCX_MAX(hh->max, v);
	hh->nmin = SCX_MAX(hh->nmin, ~v);
}

int main(int argc, char **argv)
{
	unsigned cpus = argc > 1 ? atoi(argv[1]) : 512, per = argc > 2 ? atoi(argv[2]) : 1000;
	unsigned rounds = argc > 3 ? atoi(argv[3]) : 21, ncg = argc > 4 ? atoi(argv[4]) : 0;
	unsigned ndsq = argc > 5 ? atoi(argv[5]) : 0, cgc_n = kagg_cgc_buckets(cpus);
	struct kagg_cghist *dh = scx_xcalloc(ndsq + 1, sizeof(*dh));
	uint64_t *dids = scx_xcalloc(ndsq + 1, sizeof(*dids)), *dvals;
	struct kagg_cgbkey *dkeys = scx_xcalloc((ndsq + 1) * 16, sizeof(*dkeys));
	uint64_t *dsqfold = scx_xcalloc(rounds, 8);
	size_t dnb;
	struct kagg_slot *slots = scx_xcalloc(cpus, sizeof(*slots));
	uint64_t *fold = scx_xcalloc(rounds, 8), *emit = scx_xcalloc(rounds, 8);
	uint64_t *ingest = scx_xcalloc(rounds, 8), x = 88172645463325252ull;
	uint64_t *cgfold = scx_xcalloc(rounds, 8), *prom = scx_xcalloc(rounds, 8);
	static struct run run;
	struct cgset g = {
		.slots = scx_xcalloc(ncg + 1, sizeof(*g.slots)),
		.ids = scx_xcalloc(ncg + 1, sizeof(*g.ids)),
		.keys = scx_xcalloc((ncg + 1) * 8 + (size_t)cpus * cgc_n, sizeof(*g.keys)),
		.vals = scx_xcalloc((ncg + 1) * 8 + (size_t)cpus * cgc_n, sizeof(*g.vals)),
	};
	size_t keys_cap = (ncg + 1) * 8 + (size_t)cpus * cgc_n;
	struct kagg_cgcache *caches = scx_xcalloc(ncg ? cpus : 1, sizeof(*caches));
	struct scx_ksnap k = { 0 }, back = { 0 };
	struct scx_json_doc d = { 0 };
	struct scx_agg_opts o = {
		.interval_ns = 0,
		.emit = count_emit,
		.ctx = &run,
		.by = 1u << SCX_AGG_CPU | (ncg ? 1u << SCX_AGG_CGROUP : 0) |
		      (ndsq ? 1u << SCX_AGG_DSQ : 0),
	};
	struct scx_topo *topo = scx_topo__synthetic(cpus, 8, 2);
	struct scx_agg *a = scx_agg__new(topo, &o);
	struct scx_buf b = { 0 };
	char err[256];

	if (!a || !topo)
		return 1;
	dvals = scx_xcalloc((ndsq + 1) * 16, sizeof(*dvals));
	for (unsigned q = 1; q <= ndsq; q++)
		dids[q] = q - 1; /* DSQ 0 is a DSQ like the others */
	if (ncg || ndsq) {
		run.p = scx_prom__new(0);
		scx_prom__start(run.p, a, o.by);
	}
	for (unsigned c = 1; c <= ncg; c++) {
		char path[96];

		g.ids[c] = 100 + c;
		snprintf(path, sizeof(path), "/kubepods.slice/pod%u/ctr%u", c / 4, c);
		scx_agg__cgroup_name(a, g.ids[c], path);
	}
	for (unsigned r = 0; r < rounds; r++) {
		uint64_t t0;

		/* an interval's worth of values: latencies from 1us to 10ms */
		for (unsigned c = 0; c < cpus; c++) {
			for (unsigned i = 0; i < KC__COUNT; i++)
				slots[c].c[i] = per + i;
			for (unsigned h = 0; h < KH__COUNT; h++)
				for (unsigned i = 0; i < per; i++) {
					x ^= x << 13, x ^= x >> 7, x ^= x << 17;
					kagg_hist_add(&slots[c], h, 1000 + x % 10000000);
				}
		}
		g.nb = 0;
		for (unsigned c = 1; c <= ncg; c++) {
			size_t first = g.nb;

			for (unsigned i = 0; i < KAGG_CG_COUNTERS; i++)
				g.slots[c].c[i] = 4 + i;
			for (unsigned h = 0; h < KAGG_CG_HISTS; h++)
				for (unsigned i = 0; i < 4; i++) {
					x ^= x << 13, x ^= x >> 7, x ^= x << 17;
					cg_add(&g, c, h, 1000 + x % 10000000, first);
				}
		}
		for (unsigned c = 0; ncg && c < cpus; c++) {
			struct kagg_cgcache *cc = &caches[c];

			for (unsigned i = 0; i < KAGG_CGC_WAYS; i++) {
				struct kagg_cgc_ent *e = &cc->ent[i];

				e->slot1 = 1 + (c * KAGG_CGC_WAYS + i) % ncg + 1;
				for (unsigned j = 0; j < KAGG_CG_COUNTERS; j++)
					e->c[j] = 1 + j;
				for (unsigned h = 0; h < KAGG_CG_HISTS; h++)
					kagg_cgc_hist_add(&e->h[h], 1000 + i);
			}
			/* buckets the map has too: the same values, some of them in caches */
			for (unsigned i = 0; i < cgc_n; i++) {
				const struct kagg_cgbkey *mk = &g.keys[(c * cgc_n + i) % g.nb];

				cc->bkt[i] = (struct kagg_cgc_bkt){
					kagg_cgc_key(mk->slot, mk->hist, mk->bucket), 1
				};
			}
		}
		for (size_t i = g.nb; i > 1; i--) { /* hash order */
			struct kagg_cgbkey tk;
			uint64_t tv;
			size_t j;

			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			j = x % i;
			tk = g.keys[i - 1], g.keys[i - 1] = g.keys[j], g.keys[j] = tk;
			tv = g.vals[i - 1], g.vals[i - 1] = g.vals[j], g.vals[j] = tv;
		}
		dnb = 0;
		for (unsigned q = 1; q <= ndsq; q++) {
			size_t first = dnb;

			for (unsigned i = 0; i < 16; i++) {
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				dsq_add(&dh[q], dkeys, dvals, &dnb, q, 1000 + x % 10000000, first);
			}
		}
		scx_ksnap_reset(&k);
		t0 = cpu_ns();
		scx_kagg_fold_slots(slots, cpus, &k);
		cgfold[r] = cpu_ns();
		if (ncg) {
			g.nb = scx_kagg_drain_cgcache(caches, cpus, g.slots, g.keys, g.vals, g.nb,
						      keys_cap);
			scx_kagg_fold_cgroups(g.slots, g.ids, ncg + 1, g.keys, g.vals, g.nb, &k);
		}
		cgfold[r] = cpu_ns() - cgfold[r];
		dsqfold[r] = cpu_ns();
		if (ndsq)
			scx_kagg_fold_dsqs(dh, dids, ndsq + 1, dkeys, dvals, dnb, &k);
		dsqfold[r] = cpu_ns() - dsqfold[r];
		fold[r] = cpu_ns() - t0;
		k.end_ns = 15000000000ull * (r + 1);
		k.start_ns = 15000000000ull * r;
		scx_buf_reset(&b);
		t0 = cpu_ns();
		scx_ksnap_to_json(&b, &k);
		emit[r] = cpu_ns() - t0;
		t0 = cpu_ns();
		if (scx_json_parse(&d, b.data, b.len) ||
		    scx_ksnap_from_json(&d, &back, err, sizeof(err)))
			return fprintf(stderr, "kagg: %s\n", err), 1;
		scx_agg__add_ksnap(a, &back, true);
		ingest[r] = cpu_ns() - t0;
		prom[r] = run.prom_ns;
	}
	printf("%.1f %.1f %zu %.1f %u %.1f %.1f %.1f\n", median(fold, rounds) / 1e3,
	       median(emit, rounds) / 1e3, b.len, median(ingest, rounds) / 1e3, run.emitted,
	       median(cgfold, rounds) / 1e3, median(prom, rounds) / 1e3,
	       median(dsqfold, rounds) / 1e3);
	scx_prom__free(run.p);
	scx_buf_free(&run.b);
	free(g.slots);
	free(g.ids);
	free(g.keys);
	free(g.vals);
	free(caches);
	free(cgfold);
	free(prom);
	free(dh);
	free(dids);
	free(dkeys);
	free(dvals);
	free(dsqfold);
	scx_agg__free(a);
	scx_topo__free(topo);
	scx_ksnap_free(&k);
	scx_ksnap_free(&back);
	scx_json_free(&d);
	scx_buf_free(&b);
	free(slots);
	return 0;
}
