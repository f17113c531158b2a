// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus buckets are exact sums of lib/core/hist buckets: for values
 * spread over every octave, in both forms of a histogram (inline and
 * spilled), each bucket holds exactly the values a brute-force count puts
 * between its bounds.
 */
#include <stdlib.h>

#include "agg/prom.h"
#include "core/hist.h"
#include "core/util.h"
#include "tap.h"

#define NV 20000

static void check(const uint64_t *v, unsigned n, bool ns, const char *what)
{
	unsigned nb = ns ? SCX_PROM_NS_BOUNDS : SCX_PROM_DEPTH_BOUNDS;
	uint64_t got[SCX_PROM_NS_BOUNDS + 1] = { 0 }, want[SCX_PROM_NS_BOUNDS + 1] = { 0 };
	struct scx_hist h = SCX_HIST_INIT;
	unsigned bad = 0;

	for (unsigned i = 0; i < n; i++) {
		unsigned b = 0;

		scx_hist_add(&h, v[i]);
		while (b < nb && v[i] > scx_prom_bound(ns, b))
			b++;
		want[b]++;
	}
	scx_prom_hist_buckets(&h, ns, got);
	for (unsigned b = 0; b <= nb; b++)
		if (got[b] != want[b]) {
			printf("# %s bucket %u: got %llu want %llu\n", what, b,
			       (unsigned long long)got[b], (unsigned long long)want[b]);
			bad++;
		}
	ok(!bad, "%s: %u values, every bucket exact", what, n);
	scx_hist_free(&h);
}

int main(void)
{
	static uint64_t v[NV];
	uint64_t rng = 42;

	is_int(scx_prom_bound(true, 0), 1023, "first ns bound is 2^10 - 1");
	is_int(scx_prom_bound(false, 0), 0, "first depth bound is 0");
	is_int(scx_prom_bound(false, 3), 7, "depth bound 3 is 7");
	for (unsigned i = 0; i < NV; i++) {
		unsigned bits = (unsigned)(scx_xorshift64(&rng) % 38);
		uint64_t r = scx_xorshift64(&rng);

		/* every octave, and the values right at and around each bound */
		v[i] = i % 3 == 0 ? (r & ((1ull << bits) - 1)) :
		       i % 3 == 1 ? (1ull << bits) - 1 :
				    (1ull << bits) + (r & 1);
	}
	check(v, 3, true, "ns, inline form");
	check(v, NV, true, "ns, bucket form");
	for (unsigned i = 0; i < NV; i++)
		v[i] %= 3000;
	check(v, 3, false, "depth, inline form");
	check(v, NV, false, "depth, bucket form");
	done_testing();
}
