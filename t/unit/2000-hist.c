// SPDX-License-Identifier: GPL-2.0
/* Log-linear histogram: exact below 128, 1/128 relative error above, exact merges. */
#include <math.h>
#include <stdlib.h>

#include "core/hist.h"
#include "tap.h"

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* Buckets differing between x and y, plus 1 if count, sum, min or max differ. */
static unsigned differ(const struct scx_hist *x, const struct scx_hist *y)
{
	unsigned bad =
		x->count != y->count || x->sum != y->sum || x->min != y->min || x->max != y->max;

	for (unsigned i = 0; i < SCX_HIST_NR_BUCKETS; i++)
		bad += scx_hist_bucket_count(x, i) != scx_hist_bucket_count(y, i);
	return bad;
}

/*
 * Up to SCX_HIST_INLINE values are kept inline; past that they are counted
 * in buckets.  Around the switch (and with add_n crossing it) the answers
 * must be those of the bucket form.
 */
static void test_inline(uint64_t *seed)
{
	unsigned bad = 0;

	for (unsigned n = 1; n <= 2 * SCX_HIST_INLINE + 2; n++) {
		struct scx_hist h = SCX_HIST_INIT, copy = SCX_HIST_INIT;
		uint64_t x[2 * SCX_HIST_INLINE + 2], w;

		for (unsigned i = 0; i < n; i++) {
			x[i] = rnd(seed) >> (rnd(seed) % 40 + 20);
			scx_hist_add(&h, x[i]);
		}
		scx_hist_merge(&copy, &h);
		qsort(x, n, sizeof(*x), cmp);
		for (double q = 0.05; q < 1; q += 0.05) {
			/* by definition: the middle of the bucket of the value of rank ceil(q n) */
			uint64_t r = (uint64_t)(q * n) + ((double)(uint64_t)(q * n) < q * n);
			uint64_t want = scx_hist_bucket_low(scx_hist_index(x[r - 1]), &w) + w / 2;

			want = want < x[0] ? x[0] : want > x[n - 1] ? x[n - 1] : want;
			bad += scx_hist_quantile(&h, q) != want;
			bad += scx_hist_quantile(&copy, q) != want;
		}
		scx_hist_free(&h);
		scx_hist_free(&copy);
	}
	is_int(bad, 0,
	       "1..18 values, inline and in buckets, merged or not: every quantile as defined");

	/* add_n across the switch: 5 copies, then 5 more of another value */
	struct scx_hist h = SCX_HIST_INIT;

	scx_hist_add_n(&h, 1000, 5);
	is_int(scx_hist_bucket_count(&h, scx_hist_index(1000)), 5, "add_n inline: 5 counted");
	scx_hist_add_n(&h, 5000, 5);
	ok(h.count == 10 && scx_hist_bucket_count(&h, scx_hist_index(1000)) == 5 &&
		   scx_hist_bucket_count(&h, scx_hist_index(5000)) == 5,
	   "add_n past inline: both values counted in buckets");
	is_int(scx_hist_quantile(&h, 0.5), 1004,
	       "p50 of 5x1000 and 5x5000 is 1000's bucket middle");
	is_int(scx_hist_quantile(&h, 0.6), 5000,
	       "p60 is 5000's bucket middle (5024) clamped to the max");
	scx_hist_reset(&h);
	scx_hist_add(&h, 7);
	ok(h.count == 1 && scx_hist_bucket_count(&h, 7) == 1 &&
		   scx_hist_bucket_count(&h, 1000 >> 3) == 0 && scx_hist_quantile(&h, 0.5) == 7,
	   "after a reset, inline again with nothing left over");
	scx_hist_free(&h);
}

/*
 * The used-block bitmap: histograms emptied and refilled with few values in
 * other blocks, interval after interval, as an aggregator does, must merge,
 * empty and report exactly like histograms made fresh each round.
 */
static void test_reuse(uint64_t *seed)
{
	struct scx_hist part[4], sum, fresh_sum, fresh;
	unsigned bad = 0, qbad = 0;

	for (int p = 0; p < 4; p++)
		scx_hist_init(&part[p]);
	scx_hist_init(&sum);
	for (int round = 0; round < 200; round++) {
		scx_hist_init(&fresh_sum);
		scx_hist_reset(&sum);
		for (int p = 0; p < 4; p++) {
			unsigned nv = rnd(seed) % 6; /* 0..5 values, some rounds empty */

			scx_hist_reset(&part[p]);
			scx_hist_init(&fresh);
			for (unsigned i = 0; i < nv; i++) {
				uint64_t x = rnd(seed) >> (rnd(seed) % 50 + 14);

				scx_hist_add(&part[p], x);
				scx_hist_add(&fresh, x);
				scx_hist_add(&fresh_sum, x);
			}
			bad += differ(&part[p], &fresh);
			for (double q = 0; q <= 1; q += 0.125)
				qbad += scx_hist_quantile(&part[p], q) !=
					scx_hist_quantile(&fresh, q);
			scx_hist_merge(&sum, &part[p]);
			scx_hist_free(&fresh);
		}
		bad += differ(&sum, &fresh_sum);
		for (double q = 0; q <= 1; q += 0.125)
			qbad += scx_hist_quantile(&sum, q) != scx_hist_quantile(&fresh_sum, q);
		scx_hist_free(&fresh_sum);
	}
	is_int(bad, 0,
	       "200 rounds of reset, refill and merge equal fresh histograms, bucket by bucket");
	is_int(qbad, 0, "and report the same quantiles");
	for (int p = 0; p < 4; p++)
		scx_hist_free(&part[p]);
	scx_hist_free(&sum);
}

int main(void)
{
	struct scx_hist h, a, b, ab;
	struct scx_dist d;
	uint64_t seed = 88172645463325252ull, w, *v;
	unsigned n = 100000, bad = 0;
	double worst = 0;

	/* every bucket's range maps back to it */
	for (unsigned i = 0; i < SCX_HIST_NR_BUCKETS; i++) {
		uint64_t lo = scx_hist_bucket_low(i, &w);

		if (scx_hist_index(lo) != i || scx_hist_index(lo + w - 1) != i)
			bad++;
		if (i >= SCX_HIST_EXACT && (double)w / 2 / lo > SCX_HIST_REL_ERROR + 1e-12)
			bad++;
	}
	is_int(bad, 0, "every bucket covers [low, low+width) with width/2 <= low/128");
	is_int(scx_hist_index(UINT64_MAX), SCX_HIST_NR_BUCKETS - 1,
	       "the largest value has the last bucket");

	scx_hist_init(&h);
	for (uint64_t x = 0; x < 128; x++)
		scx_hist_add(&h, x);
	scx_hist_dist(&h, &d);
	is_int(d.count, 128, "count");
	is_int(d.p50, 63, "p50 of 0..127 is exact: rank 64 is 63");
	is_int(d.p99, 126, "p99 of 0..127 is exact: rank ceil(126.72) = 127 is 126");
	is_int(d.max, 127, "max");
	ok(d.avg == 63.5, "avg is exact");
	scx_hist_free(&h);

	/* random values over 1ns..17s: every percentile within 1/128 of the true one */
	v = malloc(n * sizeof(*v));
	scx_hist_init(&h);
	for (unsigned i = 0; i < n; i++) {
		v[i] = rnd(&seed) >> (rnd(&seed) % 30 + 30);
		scx_hist_add(&h, v[i]);
	}
	qsort(v, n, sizeof(*v), cmp);
	for (int k = 1; k < 1000; k++) {
		double q = k / 1000.0;
		uint64_t rank = (uint64_t)(q * n), want;

		if ((double)rank < q * n) /* nearest rank: ceil(q * n) */
			rank++;
		want = v[rank ? rank - 1 : 0];
		uint64_t got = scx_hist_quantile(&h, q);
		double err = want ? fabs((double)got - want) / want : got;

		if (err > worst)
			worst = err;
	}
	ok(worst <= SCX_HIST_REL_ERROR, "worst relative error over 999 quantiles %.5f <= 1/128",
	   worst);
	is_int(scx_hist_quantile(&h, 1), v[n - 1], "q=1 is the exact max");
	is_int(scx_hist_quantile(&h, 0), v[0], "q=0 is the exact min");

	/* merge(a, b) is exactly the histogram fed with both */
	scx_hist_init(&a);
	scx_hist_init(&b);
	scx_hist_init(&ab);
	for (unsigned i = 0; i < n; i++) {
		uint64_t x = rnd(&seed) >> (rnd(&seed) % 40 + 20);

		scx_hist_add(i & 1 ? &a : &b, x);
		scx_hist_add(&ab, x);
	}
	scx_hist_merge(&a, &b);
	is_int(differ(&a, &ab), 0,
	       "merged histogram equals the one fed with all values, bucket by bucket");
	scx_hist_reset(&a);
	is_int(a.count, 0, "reset empties");
	scx_hist_add(&a, 1000);
	is_int(scx_hist_quantile(&a, 0.5), 1000,
	       "a single value is reported exactly (clamped to min/max)");
	scx_hist_free(&a);
	scx_hist_free(&b);
	scx_hist_free(&ab);
	scx_hist_free(&h);
	free(v);
	test_reuse(&seed);
	test_inline(&seed);
	return done_testing();
}
