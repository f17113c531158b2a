// SPDX-License-Identifier: GPL-2.0
/* In-kernel aggregation: load bpf/aggregate.bpf.c and read it (see kagg.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "../../bpf/aggregate.h"
#include "aggregate.skel.h"
#include "capture/bpf_missed.h"
#include "capture/capture.h"
#include "capture/kagg.h"
#include "core/libbpf_print.h"
#include "core/util.h"

_Static_assert((int)KC__COUNT == (int)SCX_KS_RQ_DEPTH_NS, "kernel counters lead the snapshot's");
_Static_assert((int)KH__COUNT == (int)SCX_KSH__COUNT, "one snapshot histogram per kernel one");

/*
 * After flipping the generation, programs that began before the flip may
 * still write the old slot.  They run with interrupts off (under the run
 * queue or pi lock) for microseconds; this is three orders of magnitude more.
 */
#define GRACE_NS 2000000
#define CGSLOTS_BYTES ((size_t)2 * KAGG_MAX_CGROUPS * sizeof(struct kagg_cgslot))
#define DSQSLOTS_BYTES ((size_t)2 * KAGG_MAX_DSQS * sizeof(struct kagg_cghist))
#define CGCACHE_BYTES(ncpu) ((size_t)2 * (ncpu) * sizeof(struct kagg_cgcache))

struct scx_kagg {
	struct aggregate_bpf *skel;
	unsigned nr_cpus;
	struct kagg_slot *slots; /* mmap of the slots map: 2 * nr_cpus */
	size_t map_bytes;
	struct kagg_glob *glob; /* read buffer */
	uint64_t *prev;		/* cumulative queue figures at the last read */
	uint64_t start_ns, seq;
	uint64_t drops_prev[KD__COUNT], missed_prev;
	int glob_fd;
	struct bpf_link **links; /* one per program, NULL where not loaded */
	size_t nr_links;
	/* cgroups: NULL without cgroup v2 */
	struct kagg_cgslot *cgslots;  /* mmap: 2 * KAGG_MAX_CGROUPS */
	struct kagg_cgcache *cgcache; /* mmap: 2 * nr_cpus */
	struct kagg_cgbkey *keys;     /* a generation's buckets, as read */
	uint64_t *vals;
	size_t keys_cap;
	/* DSQs: NULL without sched_ext's insert probes */
	struct kagg_cghist *dsqhists; /* mmap: 2 * KAGG_MAX_DSQS */
	struct kagg_cgbkey *dkeys;    /* a generation's buckets, as read */
	uint64_t *dvals;
};

static int begin_first_interval(struct scx_kagg *k);
static void fail(char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

/*
 * sched_ext's DSQ insert and move kfuncs, one program each
 * (bpf/aggregate.bpf.c), those the event mode probes: where an old name is
 * a wrapper of the new, both insert probes see one insert, and the second
 * only sets the same time again; a move is probed under one name only.
 */
static const struct {
	const char *prog, *kfunc;
	const char *unless; /* not loaded where the kernel has this function */
} dsq_probes[] = {
	{ "kagg_insert", "scx_bpf_dsq_insert" },
	{ "kagg_insert_v2", "scx_bpf_dsq_insert___v2" },
	{ "kagg_dispatch", "scx_bpf_dispatch" },
	{ "kagg_insert_vtime", "scx_bpf_dsq_insert_vtime" },
	{ "kagg_dispatch_vtime", "scx_bpf_dispatch_vtime" },
	{ "kagg_insert_vtime_args", "__scx_bpf_dsq_insert_vtime" },
	{ "kagg_move", "scx_bpf_dsq_move" },
	{ "kagg_move_ret", "scx_bpf_dsq_move" },
	{ "kagg_move_vtime", "scx_bpf_dsq_move_vtime" },
	{ "kagg_move_vtime_ret", "scx_bpf_dsq_move_vtime" },
	{ "kagg_from_dsq", "scx_bpf_dispatch_from_dsq", "scx_bpf_dsq_move" },
	{ "kagg_from_dsq_ret", "scx_bpf_dispatch_from_dsq", "scx_bpf_dsq_move" },
	{ "kagg_vtime_from_dsq", "scx_bpf_dispatch_vtime_from_dsq", "scx_bpf_dsq_move_vtime" },
	{ "kagg_vtime_from_dsq_ret", "scx_bpf_dispatch_vtime_from_dsq", "scx_bpf_dsq_move_vtime" },
};

/* Load the DSQ insert probes this kernel can have; true if there is one. */
static bool choose_dsq_probes(struct aggregate_bpf *skel, const struct btf *btf)
{
	bool scx = btf && scx_capture_have_sched_ext(btf);
	bool any = false;

	for (size_t i = 0; i < SCX_ARRAY_SIZE(dsq_probes); i++) {
		struct bpf_program *p =
			bpf_object__find_program_by_name(skel->obj, dsq_probes[i].prog);
		bool on = scx &&
			  scx_capture_kfunc_wanted(btf, dsq_probes[i].kfunc, dsq_probes[i].unless);

		bpf_program__set_autoload(p, on);
		any |= on;
	}
	return any;
}

static bool is_dsq_probe(const struct bpf_program *p)
{
	for (size_t i = 0; i < SCX_ARRAY_SIZE(dsq_probes); i++)
		if (!strcmp(bpf_program__name(p), dsq_probes[i].prog))
			return true;
	return false;
}

/*
 * Attach every loaded program.  A kernel without kprobes refuses the DSQ
 * probes: one note, and the rest counts on (the DSQ histogram stays empty).
 */
static int attach(struct scx_kagg *k, char *err, size_t errsz)
{
	struct scx_buf no_kprobe = { 0 };
	struct bpf_program *p;
	size_t i = 0;
	int e;

	bpf_object__for_each_program(p, k->skel->obj) k->nr_links++;
	k->links = scx_xcalloc(k->nr_links, sizeof(*k->links));
	bpf_object__for_each_program(p, k->skel->obj)
	{
		struct bpf_link *l;

		if (!bpf_program__autoload(p)) {
			i++;
			continue;
		}
		l = bpf_program__attach(p);
		if (l) {
			k->links[i++] = l;
			continue;
		}
		if (is_dsq_probe(p)) {
			/* "kprobe/func" or "kretprobe/func": the function */
			scx_buf_printf(&no_kprobe, "%s%s (%s)", no_kprobe.len ? ", " : "",
				       strchr(bpf_program__section_name(p), '/') + 1,
				       strerror(errno));
			i++;
			continue;
		}
		e = errno;
		fail(err, errsz, "cannot attach %s: %s", bpf_program__section_name(p), strerror(e));
		scx_buf_free(&no_kprobe);
		return e ? -e : -EINVAL;
	}
	if (no_kprobe.len)
		scx_warn("note: cannot attach kprobes to %s: no DSQ queueing time in the kernel "
			 "aggregate",
			 no_kprobe.data);
	scx_buf_free(&no_kprobe);
	return 0;
}

struct scx_kagg *scx_kagg__open(const struct scx_topo *topo, bool cgroups, char *err, size_t errsz)
{
	struct scx_kagg *k = scx_xcalloc(1, sizeof(*k));
	struct btf *btf = NULL;
	int ncpu, e;

	libbpf_set_print(scx_libbpf_print);
	ncpu = libbpf_num_possible_cpus();
	if (ncpu <= 0) {
		fail(err, errsz, "cannot count the possible CPUs: %s", strerror(-ncpu));
		goto fail;
	}
	if (ncpu > KAGG_MAX_CPUS) {
		scx_warn("note: %d possible CPUs, --aggregate keeps the first %d (the rest are "
			 "counted as dropped)",
			 ncpu, KAGG_MAX_CPUS);
		ncpu = KAGG_MAX_CPUS;
	}
	k->nr_cpus = ncpu;
	k->skel = aggregate_bpf__open();
	if (!k->skel) {
		fail(err, errsz, "cannot open the BPF object: %s", strerror(errno));
		goto fail;
	}
	btf = btf__load_vmlinux_btf();
	k->skel->rodata->sw_state_arg = btf ? scx_capture_switch_has_state_arg(btf) : 0;
	k->skel->rodata->dsq_on = choose_dsq_probes(k->skel, btf);
	btf__free(btf);
	if (!k->skel->rodata->dsq_on) {
		bpf_map__set_max_entries(k->skel->maps.dsq_ins, 1);
		bpf_map__set_max_entries(k->skel->maps.dsq_moves, 1);
		bpf_map__set_max_entries(k->skel->maps.dsqslots, 1);
		bpf_map__set_max_entries(k->skel->maps.dsqidx, 1);
		bpf_map__set_max_entries(k->skel->maps.dsqb0, 1);
		bpf_map__set_max_entries(k->skel->maps.dsqb1, 1);
	}
	k->skel->rodata->nr_cpus = ncpu;
	k->skel->rodata->cgc_buckets = kagg_cgc_buckets(ncpu);
	k->skel->rodata->cgroup_on = cgroups;
	if (!cgroups) { /* the maps stay, unused: keep them small */
		bpf_map__set_max_entries(k->skel->maps.cgslots, 1);
		bpf_map__set_max_entries(k->skel->maps.cgidx, 1);
		bpf_map__set_max_entries(k->skel->maps.cgb0, 1);
		bpf_map__set_max_entries(k->skel->maps.cgb1, 1);
		bpf_map__set_max_entries(k->skel->maps.cgcache, 1);
	} else {
		bpf_map__set_max_entries(k->skel->maps.cgcache, 2 * ncpu);
	}
	for (int c = 0; c < ncpu; c++) {
		const struct scx_cpu_topo *t = topo ? scx_topo__cpu(topo, c) : NULL;

		k->skel->rodata->cpu_llc[c] = t ? t->llc : -1;
		k->skel->rodata->cpu_node[c] = t ? t->node : -1;
	}
	bpf_map__set_max_entries(k->skel->maps.slots, 2 * ncpu);
	e = -aggregate_bpf__load(k->skel);
	if (e) {
		scx_capture_load_error(e, err, errsz);
		goto fail;
	}
	k->map_bytes = (size_t)2 * ncpu * sizeof(struct kagg_slot);
	k->slots = mmap(NULL, k->map_bytes, PROT_READ | PROT_WRITE, MAP_SHARED,
			bpf_map__fd(k->skel->maps.slots), 0);
	if (k->slots == MAP_FAILED) {
		k->slots = NULL;
		fail(err, errsz, "cannot map the aggregation slots: %s", strerror(errno));
		goto fail;
	}
	if (cgroups) {
		k->cgslots = mmap(NULL, CGSLOTS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
				  bpf_map__fd(k->skel->maps.cgslots), 0);
		if (k->cgslots == MAP_FAILED) {
			k->cgslots = NULL;
			fail(err, errsz, "cannot map the cgroup slots: %s", strerror(errno));
			goto fail;
		}
		k->cgcache = mmap(NULL, CGCACHE_BYTES(ncpu), PROT_READ | PROT_WRITE, MAP_SHARED,
				  bpf_map__fd(k->skel->maps.cgcache), 0);
		if (k->cgcache == MAP_FAILED) {
			k->cgcache = NULL;
			fail(err, errsz, "cannot map the cgroup caches: %s", strerror(errno));
			goto fail;
		}
		/* the bucket map's entries and every cache's */
		k->keys_cap = KAGG_CG_BUCKETS + (size_t)ncpu * kagg_cgc_buckets(ncpu);
		k->keys = scx_xcalloc(k->keys_cap, sizeof(*k->keys));
		k->vals = scx_xcalloc(k->keys_cap, sizeof(*k->vals));
	}
	if (k->skel->rodata->dsq_on) {
		k->dsqhists = mmap(NULL, DSQSLOTS_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
				   bpf_map__fd(k->skel->maps.dsqslots), 0);
		if (k->dsqhists == MAP_FAILED) {
			k->dsqhists = NULL;
			fail(err, errsz, "cannot map the DSQ slots: %s", strerror(errno));
			goto fail;
		}
		k->dkeys = scx_xcalloc(KAGG_DSQ_BUCKETS, sizeof(*k->dkeys));
		k->dvals = scx_xcalloc(KAGG_DSQ_BUCKETS, sizeof(*k->dvals));
	}
	k->glob = scx_xcalloc(1, sizeof(*k->glob));
	k->prev = scx_xcalloc((size_t)ncpu * 2, sizeof(*k->prev));
	k->glob_fd = bpf_map__fd(k->skel->maps.glob);
	if (attach(k, err, errsz))
		goto fail;
	if ((e = begin_first_interval(k))) {
		fail(err, errsz, "cannot read the aggregation maps: %s", strerror(-e));
		goto fail;
	}
	return k;
fail:
	scx_kagg__free(k);
	return NULL;
}

void scx_kagg__free(struct scx_kagg *k)
{
	if (!k)
		return;
	if (k->slots)
		munmap(k->slots, k->map_bytes);
	if (k->cgslots)
		munmap(k->cgslots, CGSLOTS_BYTES);
	if (k->dsqhists)
		munmap(k->dsqhists, DSQSLOTS_BYTES);
	if (k->cgcache)
		munmap(k->cgcache, CGCACHE_BYTES(k->nr_cpus));
	free(k->keys);
	free(k->vals);
	free(k->dkeys);
	free(k->dvals);
	for (size_t i = 0; i < k->nr_links; i++)
		bpf_link__destroy(k->links[i]);
	free(k->links);
	aggregate_bpf__destroy(k->skel);
	free(k->glob);
	free(k->prev);
	free(k);
}

unsigned scx_kagg__nr_cpus(const struct scx_kagg *k)
{
	return k->nr_cpus;
}

/*
 * Histogram h of slot sl into out, and zeroed; with plus >= 0, histogram
 * plus of the slot added too and left as it is (folded on its own after).
 * A program the grace did not wait out (its CPU stopped mid-program for
 * longer: a vCPU the hypervisor descheduled) can have counted a value in
 * the header and not yet in its bucket, or the reverse: out keeps the
 * buckets, so that the record stays whole, and the values set right are
 * added to *torn.
 */
static void fold_hist(struct kagg_slot *sl, unsigned h, int plus, struct scx_ksnap_hist *out,
		      uint64_t *torn)
{
	struct kagg_hist_hdr *hh = &sl->h[h];
	const struct kagg_hist_hdr *ph = plus >= 0 ? &sl->h[plus] : NULL;
	uint64_t used = hh->used | (ph ? ph->used : 0), total = 0;

	out->count = hh->count;
	out->sum = hh->sum;
	out->min = hh->count ? hh->min : 0;
	out->max = hh->max;
	out->clamped = hh->clamped;
	if (ph && ph->count) {
		out->min = out->count ? SCX_MIN(out->min, ph->min) : ph->min;
		out->max = SCX_MAX(out->max, ph->max);
		out->count += ph->count;
		out->sum += ph->sum;
		out->clamped += ph->clamped;
	}
	/* only the blocks of 64 buckets the programs touched */
	while (used) {
		unsigned blk = __builtin_ctzll(used);
		__u64 *b = &sl->b[h][blk << KAGG_BLOCK_BITS];
		const __u64 *pb = ph ? &sl->b[plus][blk << KAGG_BLOCK_BITS] : NULL;

		used &= used - 1;
		for (unsigned i = 0; i < 1u << KAGG_BLOCK_BITS; i++) {
			uint64_t n = b[i] + (pb ? pb[i] : 0);

			if (!n)
				continue;
			scx_ksnap_hist_add(out, (blk << KAGG_BLOCK_BITS) + i, n);
			total += n;
			b[i] = 0;
		}
	}
	memset(hh, 0, sizeof(*hh));
	if (total != out->count) {
		*torn += total > out->count ? total - out->count : out->count - total;
		out->count = total;
		if (!total)
			out->sum = out->min = out->max = out->clamped = 0;
		else if (out->min > out->max)
			out->min = out->max;
	}
}

void scx_kagg_fold_slots(struct kagg_slot *slots, unsigned nr_cpus, struct scx_ksnap *s)
{
	for (unsigned c = 0; c < nr_cpus; c++) {
		struct kagg_slot *sl = &slots[c];
		struct scx_ksnap_cpu *kc = scx_ksnap_add_cpu(s, (int32_t)c);

		for (unsigned i = 0; i < KC__COUNT; i++)
			kc->c[i] = sl->c[i];
		memset(sl->c, 0, sizeof(sl->c));
		/* rq_delay is both halves (bpf/aggregate.h), before wake_lat is zeroed */
		fold_hist(sl, KH_RQ_DELAY, KH_WAKE_LAT, &kc->h[KH_RQ_DELAY], &s->missed);
		for (unsigned h = 0; h < KH__COUNT; h++)
			if (h != KH_RQ_DELAY)
				fold_hist(sl, h, -1, &kc->h[h], &s->missed);
	}
}

/* ---- cgroups ------------------------------------------------------------------ */

struct cg_order {
	uint64_t id;
	unsigned slot;
};

static int cmp_cg_order(const void *x, const void *y)
{
	const struct cg_order *a = x, *b = y;

	if (a->id != b->id)
		return a->id < b->id ? -1 : 1;
	return a->slot < b->slot ? -1 : a->slot > b->slot;
}

struct cg_bucket {
	uint32_t ent;
	uint16_t hist, bucket;
	uint64_t n;
};

_Static_assert(KAGG_NR_BUCKETS <= 2048 && SCX_KSNAP_CG_HISTS <= 2, "cg_bucket_key() packs them");

/* The order of the record: entry, histogram, bucket. */
static uint64_t cg_bucket_key(const struct cg_bucket *b)
{
	return (uint64_t)b->ent << 12 | (uint64_t)b->hist << 11 | b->bucket;
}

#define CG_DIGIT 11 /* bits a pass */

/*
 * Order the m buckets at a by cg_bucket_key(), using tmp (room for m): a
 * radix sort from the least significant digit, each pass reading in order
 * and writing 2048 streams, returning whichever of a and tmp it ended in.
 * (Placing each bucket by entry was a random write into the whole array
 * for every bucket, the fold's main cost at 10,000 cgroups.)
 */
static struct cg_bucket *sort_cg_buckets(struct cg_bucket *a, size_t m, struct cg_bucket *tmp)
{
	size_t pos[1u << CG_DIGIT];
	uint64_t max = 0;

	for (size_t i = 0; i < m; i++)
		max = SCX_MAX(max, cg_bucket_key(&a[i]));
	for (unsigned shift = 0; shift == 0 || max >> shift; shift += CG_DIGIT) {
		struct cg_bucket *t;
		size_t at = 0;

		memset(pos, 0, sizeof(pos));
		for (size_t i = 0; i < m; i++)
			pos[cg_bucket_key(&a[i]) >> shift & ((1u << CG_DIGIT) - 1)]++;
		for (unsigned d = 0; d < 1u << CG_DIGIT; d++) {
			size_t n = pos[d];

			pos[d] = at;
			at += n;
		}
		for (size_t i = 0; i < m; i++)
			tmp[pos[cg_bucket_key(&a[i]) >> shift & ((1u << CG_DIGIT) - 1)]++] = a[i];
		t = a, a = tmp, tmp = t;
	}
	return a;
}

static bool cgslot_used(const struct kagg_cgslot *sl)
{
	for (unsigned i = 0; i < KAGG_CG_COUNTERS; i++)
		if (sl->c[i])
			return true;
	for (unsigned h = 0; h < KAGG_CG_HISTS; h++)
		if (sl->h[h].nmin)
			return true;
	return false;
}

/*
 * The record's histograms a kernel one goes into (bpf/aggregate.h): a woken
 * task's delay is its wake_lat and part of rq_delay, a preempted task's
 * only part of rq_delay.
 */
static const int cg_hist_out[KAGG_CG_HISTS][2] = {
	[KCH_WOKEN] = { SCX_KSH_WAKE_LAT, SCX_KSH_RQ_DELAY },
	[KCH_PREEMPTED] = { SCX_KSH_RQ_DELAY, -1 },
};

void scx_kagg_fold_cgroups(struct kagg_cgslot *slots, const uint64_t *ids, unsigned nr,
			   const struct kagg_cgbkey *keys, const uint64_t *vals, size_t nb,
			   struct scx_ksnap *s)
{
	struct cg_order *order = scx_xcalloc(nr + 1, sizeof(*order));
	uint32_t *ent = scx_xcalloc(nr + 1, sizeof(*ent)); /* slot -> cgroup entry + 1 */
	struct cg_bucket *bk = scx_xcalloc(2 * nb + 1, sizeof(*bk)), *tmp, *sorted;
	unsigned n = 0, first = s->nr_cgroups;
	uint64_t *nmin; /* per cgroup entry and record histogram: ~min, 0 none */
	size_t m = 0;

	for (unsigned i = 0; i < nr; i++)
		if (cgslot_used(&slots[i]))
			order[n++] = (struct cg_order){ i ? ids[i] : 0, i };
	qsort(order, n, sizeof(*order), cmp_cg_order);
	nmin = scx_xcalloc(((size_t)first + n + 1) * SCX_KSNAP_CG_HISTS, sizeof(*nmin));
	for (unsigned i = 0; i < n; i++) {
		struct kagg_cgslot *sl = &slots[order[i].slot];
		struct scx_ksnap_cgroup *c =
			s->nr_cgroups > first && s->cgroups[s->nr_cgroups - 1].id == order[i].id ?
				&s->cgroups[s->nr_cgroups - 1] :
				scx_ksnap_add_cgroup(s, order[i].id);
		size_t e = (size_t)(c - s->cgroups);

		/* a slot taken twice for one id (a race the programs lose) merges */
		ent[order[i].slot] = (uint32_t)e + 1;
		for (unsigned k = 0; k < KAGG_CG_COUNTERS; k++)
			c->c[k] += sl->c[k];
		/* not counted by the programs: every switch is one of the two */
		c->c[SCX_KS_SWITCHES] = c->c[SCX_KS_VOLUNTARY] + c->c[SCX_KS_INVOLUNTARY];
		for (unsigned h = 0; h < KAGG_CG_HISTS; h++) {
			const struct kagg_cghist *hh = &sl->h[h];

			if (!hh->nmin)
				continue;
			for (unsigned o = 0; o < 2 && cg_hist_out[h][o] >= 0; o++) {
				struct scx_ksnap_hist *kh = &c->h[cg_hist_out[h][o]];
				uint64_t *nm = &nmin[e * SCX_KSNAP_CG_HISTS + cg_hist_out[h][o]];

				*nm = SCX_MAX(*nm, hh->nmin);
				kh->max = SCX_MAX(kh->max, hh->max);
				kh->sum += hh->sum;
				kh->clamped += hh->clamped;
			}
		}
		memset(sl, 0, sizeof(*sl));
	}
	for (size_t e = first; e < s->nr_cgroups; e++)
		for (unsigned h = 0; h < SCX_KSNAP_CG_HISTS; h++)
			if (nmin[e * SCX_KSNAP_CG_HISTS + h])
				s->cgroups[e].h[h].min = ~nmin[e * SCX_KSNAP_CG_HISTS + h];
	/* each bucket into its record histograms, which count their buckets */
	for (size_t i = 0; i < nb; i++) {
		if (keys[i].slot >= nr || !ent[keys[i].slot] || keys[i].hist >= KAGG_CG_HISTS ||
		    keys[i].bucket >= KAGG_NR_BUCKETS || !vals[i])
			continue;
		for (unsigned o = 0; o < 2 && cg_hist_out[keys[i].hist][o] >= 0; o++)
			bk[m++] = (struct cg_bucket){ ent[keys[i].slot] - 1,
						      (uint16_t)cg_hist_out[keys[i].hist][o],
						      keys[i].bucket, vals[i] };
	}
	tmp = scx_xcalloc(m + 1, sizeof(*tmp));
	sorted = sort_cg_buckets(bk, m, tmp);
	for (size_t i = 0; i < m; i++) {
		const struct cg_bucket *q = &sorted[i];
		struct scx_ksnap_hist *kh = &s->cgroups[q->ent].h[q->hist];

		kh->count += q->n;
		if (kh->nr && kh->idx[kh->nr - 1] == q->bucket)
			kh->n[kh->nr - 1] += q->n;
		else
			scx_ksnap_hist_add(kh, q->bucket, q->n);
	}
	free(order);
	free(ent);
	free(nmin);
	free(bk);
	free(tmp);
}

/* ---- DSQs ---------------------------------------------------------------------- */

void scx_kagg_fold_dsqs(struct kagg_cghist *hists, const uint64_t *ids, unsigned nr,
			const struct kagg_cgbkey *keys, const uint64_t *vals, size_t nb,
			struct scx_ksnap *s)
{
	struct cg_order *order = scx_xcalloc(nr + 1, sizeof(*order));
	uint32_t *ent = scx_xcalloc(nr + 1, sizeof(*ent)); /* slot -> dsq entry + 1 */
	struct cg_bucket *bk = scx_xcalloc(nb + 1, sizeof(*bk)), *tmp, *sorted;
	unsigned n = 0, first = s->nr_dsqs;
	uint64_t *nmin;
	size_t m = 0;

	/* slot 0, "other", after every id: sorted as the largest */
	for (unsigned i = 0; i < nr; i++)
		if (hists[i].nmin)
			order[n++] = (struct cg_order){ i ? ids[i] : 0, i };
	qsort(order, n, sizeof(*order), cmp_cg_order);
	if (n && order[0].slot == 0) {
		struct cg_order other = order[0];

		memmove(order, order + 1, (n - 1) * sizeof(*order));
		order[n - 1] = other;
	}
	nmin = scx_xcalloc((size_t)first + n + 1, sizeof(*nmin));
	for (unsigned i = 0; i < n; i++) {
		struct kagg_cghist *hh = &hists[order[i].slot];
		bool other = order[i].slot == 0;
		struct scx_ksnap_dsq *last = s->nr_dsqs > first ? &s->dsqs[s->nr_dsqs - 1] : NULL;
		struct scx_ksnap_dsq *q =
			last && !other && !last->other && last->id == order[i].id ?
				last :
				scx_ksnap_add_dsq(s, order[i].id, other);
		size_t e = (size_t)(q - s->dsqs);

		/* a slot taken twice for one id (a race the programs lose) merges */
		ent[order[i].slot] = (uint32_t)e + 1;
		nmin[e] = SCX_MAX(nmin[e], hh->nmin);
		q->lat.max = SCX_MAX(q->lat.max, hh->max);
		q->lat.sum += hh->sum;
		q->lat.clamped += hh->clamped;
		memset(hh, 0, sizeof(*hh));
	}
	for (size_t e = first; e < s->nr_dsqs; e++)
		s->dsqs[e].lat.min = ~nmin[e];
	for (size_t i = 0; i < nb; i++)
		if (keys[i].slot < nr && ent[keys[i].slot] && !keys[i].hist &&
		    keys[i].bucket < KAGG_NR_BUCKETS && vals[i])
			bk[m++] = (struct cg_bucket){ ent[keys[i].slot] - 1, 0, keys[i].bucket,
						      vals[i] };
	tmp = scx_xcalloc(m + 1, sizeof(*tmp));
	sorted = sort_cg_buckets(bk, m, tmp);
	for (size_t i = 0; i < m; i++) {
		struct scx_ksnap_hist *kh = &s->dsqs[sorted[i].ent].lat;

		kh->count += sorted[i].n;
		if (kh->nr && kh->idx[kh->nr - 1] == sorted[i].bucket)
			kh->n[kh->nr - 1] += sorted[i].n;
		else
			scx_ksnap_hist_add(kh, sorted[i].bucket, sorted[i].n);
	}
	free(order);
	free(ent);
	free(nmin);
	free(bk);
	free(tmp);
}

/*
 * Take every bucket of generation map fd out of the kernel into keys/vals
 * (room for cap).
 */
static int drain_buckets(int fd, struct kagg_cgbkey *keys, uint64_t *vals, size_t cap, size_t *nb)
{
	DECLARE_LIBBPF_OPTS(bpf_map_batch_opts, opts);
	__u32 batch = 0, count;
	void *in = NULL;
	int err;

	*nb = 0;
	for (;;) {
		count = (__u32)(cap - *nb);
		if (!count)
			return 0;
		err = bpf_map_lookup_and_delete_batch(fd, in, &batch, keys + *nb, vals + *nb,
						      &count, &opts);
		*nb += count;
		if (err && errno == ENOENT)
			return 0; /* the last batch */
		if (err)
			return -errno;
		in = &batch;
	}
}

static int read_cgroups(struct scx_kagg *k, uint32_t old, struct scx_ksnap *s)
{
	unsigned nr = SCX_MIN(k->skel->data->cg_next, KAGG_MAX_CGROUPS);
	int fd = bpf_map__fd(old & 1 ? k->skel->maps.cgb1 : k->skel->maps.cgb0);
	struct kagg_cgslot *slots;
	size_t nb;
	int err;

	if (!k->cgslots)
		return 0;
	slots = k->cgslots + (size_t)(old & 1) * KAGG_MAX_CGROUPS;
	err = drain_buckets(fd, k->keys, k->vals, KAGG_CG_BUCKETS, &nb);
	nb = scx_kagg_drain_cgcache(k->cgcache + (size_t)(old & 1) * k->nr_cpus, k->nr_cpus, slots,
				    k->keys, k->vals, nb, k->keys_cap);
	scx_kagg_fold_cgroups(slots, (const uint64_t *)k->skel->bss->cg_id, nr, k->keys, k->vals,
			      nb, s);
	return err;
}

static int read_dsqs(struct scx_kagg *k, uint32_t old, struct scx_ksnap *s)
{
	unsigned nr = SCX_MIN(k->skel->data->dsq_next, KAGG_MAX_DSQS);
	int fd = bpf_map__fd(old & 1 ? k->skel->maps.dsqb1 : k->skel->maps.dsqb0);
	size_t nb;
	int err;

	if (!k->dsqhists)
		return 0;
	err = drain_buckets(fd, k->dkeys, k->dvals, KAGG_DSQ_BUCKETS, &nb);
	scx_kagg_fold_dsqs(k->dsqhists + (size_t)(old & 1) * KAGG_MAX_DSQS,
			   (const uint64_t *)k->skel->bss->dsq_id, nr, k->dkeys, k->dvals, nb, s);
	return err;
}

int scx_kagg__read(struct scx_kagg *k, struct scx_ksnap *s)
{
	struct timespec grace = { 0, GRACE_NS };
	uint32_t old = k->skel->bss->gen, zero = 0;
	uint64_t before, now, missed;
	int err;

	scx_ksnap_reset(s);
	/*
	 * The programs change generation at the flip, which falls between the
	 * two clock reads; a preemption between them (a loaded machine) widens
	 * that, and the record says by how much.
	 */
	before = scx_now_boot_ns();
	__atomic_store_n(&k->skel->bss->gen, old + 1, __ATOMIC_SEQ_CST);
	now = scx_now_boot_ns();
	nanosleep(&grace, NULL);
	scx_kagg_fold_slots(k->slots + (size_t)(old & 1) * k->nr_cpus, k->nr_cpus, s);
	if ((err = read_cgroups(k, old, s)) || (err = read_dsqs(k, old, s)))
		return err;
	if (bpf_map_lookup_elem_flags(k->glob_fd, &zero, k->glob, BPF_F_LOCK))
		return -errno;
	for (unsigned c = 0; c < k->nr_cpus; c++) {
		const struct kagg_qcpu *q = &k->glob->c[c];
		uint64_t *p = &k->prev[2 * c];

		s->cpus[c].c[SCX_KS_RQ_DEPTH_NS] = q->rq_depth_ns - p[0];
		s->cpus[c].c[SCX_KS_WC_LOSS_NS] = q->wc_loss_ns - p[1];
		s->cpus[c].c[SCX_KS_RQ_DEPTH_MAX] = q->rq_depth_max;
		p[0] = q->rq_depth_ns;
		p[1] = q->wc_loss_ns;
	}
	s->seq = k->seq++;
	s->start_ns = k->start_ns;
	s->end_ns = now;
	s->end_skew_ns = now - before;
	k->start_ns = now;
	s->dropped_tasks = k->skel->bss->drops[KD_TASK] - k->drops_prev[KD_TASK];
	s->dropped_cpu = k->skel->bss->drops[KD_CPU] - k->drops_prev[KD_CPU];
	s->dropped_cg_values = k->skel->bss->drops[KD_CG_VALUE] - k->drops_prev[KD_CG_VALUE];
	s->dropped_dsq_values = k->skel->bss->drops[KD_DSQ_VALUE] - k->drops_prev[KD_DSQ_VALUE];
	memcpy(k->drops_prev, (const void *)k->skel->bss->drops, sizeof(k->drops_prev));
	missed = scx_bpf_missed(k->skel->obj, k->links, k->nr_links);
	s->missed += missed - k->missed_prev; /* after the fold's torn values */
	k->missed_prev = missed;
	return 0;
}

/*
 * The programs attach one at a time, so what they counted until the last
 * one was attached started at no single time: the first interval begins at
 * a generation flip instead, as exact as every later boundary.  The counts
 * of the attach are thrown away; drops and recursion misses are kept for
 * the first snapshot to report.
 */
static int begin_first_interval(struct scx_kagg *k)
{
	uint64_t drops[KD__COUNT], missed = k->missed_prev;
	struct scx_ksnap discard = { 0 };
	int err;

	memcpy(drops, k->drops_prev, sizeof(drops));
	err = scx_kagg__read(k, &discard);
	scx_ksnap_free(&discard);
	if (err)
		return err;
	memcpy(k->drops_prev, drops, sizeof(drops));
	k->missed_prev = missed;
	k->seq = 0;
	return 0;
}
