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
};

static void fail(char *err, size_t errsz, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fail(char *err, size_t errsz, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errsz, fmt, ap);
	va_end(ap);
}

struct scx_kagg *scx_kagg__open(const struct scx_topo *topo, char *err, size_t errsz)
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
	btf__free(btf);
	k->skel->rodata->nr_cpus = ncpu;
	for (int c = 0; c < ncpu; c++) {
		const struct scx_cpu_topo *t = topo ? scx_topo__cpu(topo, c) : NULL;

		k->skel->rodata->cpu_llc[c] = t ? t->llc : -1;
		k->skel->rodata->cpu_node[c] = t ? t->node : -1;
	}
	bpf_map__set_max_entries(k->skel->maps.slots, 2 * ncpu);
	e = -aggregate_bpf__load(k->skel);
	if (e) {
		if (e == EPERM || e == EACCES)
			fail(err, errsz,
			     "cannot load BPF programs: %s; run scx-events as root "
			     "(it needs CAP_BPF and CAP_PERFMON)",
			     strerror(e));
		else
			fail(err, errsz,
			     "cannot load BPF programs: %s (run with -v for the "
			     "verifier log)",
			     strerror(e));
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
	k->glob = scx_xcalloc(1, sizeof(*k->glob));
	k->prev = scx_xcalloc((size_t)ncpu * 2, sizeof(*k->prev));
	k->glob_fd = bpf_map__fd(k->skel->maps.glob);
	e = -aggregate_bpf__attach(k->skel);
	if (e) {
		fail(err, errsz, "cannot attach BPF programs: %s", strerror(e));
		goto fail;
	}
	k->start_ns = scx_now_boot_ns();
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
	aggregate_bpf__destroy(k->skel);
	free(k->glob);
	free(k->prev);
	free(k);
}

unsigned scx_kagg__nr_cpus(const struct scx_kagg *k)
{
	return k->nr_cpus;
}

static void fold_hist(struct kagg_slot *sl, unsigned h, struct scx_ksnap_hist *out)
{
	struct kagg_hist_hdr *hh = &sl->h[h];
	uint64_t used = hh->used;

	out->count = hh->count;
	out->sum = hh->sum;
	out->min = hh->count ? hh->min : 0;
	out->max = hh->max;
	out->clamped = hh->clamped;
	/* only the blocks of 64 buckets the programs touched */
	while (used) {
		unsigned blk = __builtin_ctzll(used);
		__u64 *b = &sl->b[h][blk << KAGG_BLOCK_BITS];

		used &= used - 1;
		for (unsigned i = 0; i < 1u << KAGG_BLOCK_BITS; i++) {
			if (!b[i])
				continue;
			scx_ksnap_hist_add(out, (blk << KAGG_BLOCK_BITS) + i, b[i]);
			b[i] = 0;
		}
	}
	memset(hh, 0, sizeof(*hh));
}

void scx_kagg_fold_slots(struct kagg_slot *slots, unsigned nr_cpus, struct scx_ksnap *s)
{
	for (unsigned c = 0; c < nr_cpus; c++) {
		struct kagg_slot *sl = &slots[c];
		struct scx_ksnap_cpu *kc = scx_ksnap_add_cpu(s, (int32_t)c);

		for (unsigned i = 0; i < KC__COUNT; i++)
			kc->c[i] = sl->c[i];
		memset(sl->c, 0, sizeof(sl->c));
		for (unsigned h = 0; h < KH__COUNT; h++)
			fold_hist(sl, h, &kc->h[h]);
	}
}

/* Program runs the kernel skipped because another BPF program was running. */
static uint64_t recursion_misses(struct scx_kagg *k)
{
	struct bpf_program *p;
	uint64_t n = 0;

	bpf_object__for_each_program(p, k->skel->obj)
	{
		struct bpf_prog_info info = { 0 };
		__u32 len = sizeof(info);

		if (bpf_program__fd(p) >= 0 &&
		    !bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

int scx_kagg__read(struct scx_kagg *k, struct scx_ksnap *s)
{
	struct timespec grace = { 0, GRACE_NS };
	uint32_t old = k->skel->bss->gen, zero = 0;
	uint64_t now, missed;

	scx_ksnap_reset(s);
	__atomic_store_n(&k->skel->bss->gen, old + 1, __ATOMIC_SEQ_CST);
	now = scx_now_boot_ns();
	nanosleep(&grace, NULL);
	scx_kagg_fold_slots(k->slots + (size_t)(old & 1) * k->nr_cpus, k->nr_cpus, s);
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
	k->start_ns = now;
	s->dropped_tasks = k->skel->bss->drops[KD_TASK] - k->drops_prev[KD_TASK];
	s->dropped_cpu = k->skel->bss->drops[KD_CPU] - k->drops_prev[KD_CPU];
	memcpy(k->drops_prev, (const void *)k->skel->bss->drops, sizeof(k->drops_prev));
	missed = recursion_misses(k);
	s->missed = missed - k->missed_prev;
	k->missed_prev = missed;
	return 0;
}
