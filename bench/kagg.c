// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space cost of one --aggregate interval, without a kernel: slots
 * for a synthetic machine of C CPUs are filled with the programs' own code
 * (bpf/aggregate.h), then folded into a kernel snapshot and written as its
 * JSON record (what scx-events does each interval), and read back into the
 * engine (what scx-agg does).  Median thread CPU time over R rounds.
 *
 *	kagg CPUS VALUES_PER_HIST ROUNDS  ->  "fold_us emit_us bytes ingest_us"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bpf/aggregate.h"
#include "agg/agg.h"
#include "agg/agg_ksnap.h"
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

static int count_emit(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	(void)a;
	(void)s;
	++*(unsigned *)ctx;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned cpus = argc > 1 ? atoi(argv[1]) : 512, per = argc > 2 ? atoi(argv[2]) : 1000;
	unsigned rounds = argc > 3 ? atoi(argv[3]) : 21, emitted = 0;
	struct kagg_slot *slots = scx_xcalloc(cpus, sizeof(*slots));
	uint64_t *fold = scx_xcalloc(rounds, 8), *emit = scx_xcalloc(rounds, 8);
	uint64_t *ingest = scx_xcalloc(rounds, 8), x = 88172645463325252ull;
	struct scx_ksnap k = { 0 }, back = { 0 };
	struct scx_json_doc d = { 0 };
	struct scx_agg_opts o = { .interval_ns = 0, .emit = count_emit, .ctx = &emitted };
	struct scx_topo *topo = scx_topo__synthetic(cpus, 8, 2);
	struct scx_agg *a = scx_agg__new(topo, &o);
	struct scx_buf b = { 0 };
	char err[256];

	if (!a || !topo)
		return 1;
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
		scx_ksnap_reset(&k);
		t0 = cpu_ns();
		scx_kagg_fold_slots(slots, cpus, &k);
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
	}
	printf("%.1f %.1f %zu %.1f %u\n", median(fold, rounds) / 1e3, median(emit, rounds) / 1e3,
	       b.len, median(ingest, rounds) / 1e3, emitted);
	scx_agg__free(a);
	scx_topo__free(topo);
	scx_ksnap_free(&k);
	scx_ksnap_free(&back);
	scx_json_free(&d);
	scx_buf_free(&b);
	free(slots);
	return 0;
}
