// SPDX-License-Identifier: GPL-2.0
/* Log-linear histograms: see hist.h for the error bound and why they merge. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/hist.h"
#include "core/util.h"

void scx_hist_init(struct scx_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void scx_hist_free(struct scx_hist *h)
{
	free(h->b);
	scx_hist_init(h);
}

/*
 * Run the statement that follows once for each block that may hold counts,
 * in ascending order, with [first, end) its buckets clipped to the window.
 * (A break in it leaves only the current block.)
 */
#define FOR_USED_BLOCKS(h, first, end) \
	for (unsigned w_ = 0; w_ < SCX_HIST_USED_WORDS; w_++) \
		for (uint64_t bits_ = (h)->used[w_]; bits_; bits_ &= bits_ - 1) \
			for (unsigned blk_ = w_ * 64 + __builtin_ctzll(bits_), \
				      first = SCX_MAX(blk_ << SCX_HIST_BLOCK_BITS, (h)->lo), \
				      end = SCX_MIN((blk_ + 1) << SCX_HIST_BLOCK_BITS, (h)->hi), \
				      once_ = 1; \
			     once_; once_ = 0)

void scx_hist_reset(struct scx_hist *h)
{
	if (!h->count)
		return; /* empty: every bucket and bit is zero already */
	/* only the blocks that may hold counts: the rest are zero already */
	if (h->count > SCX_HIST_INLINE && h->b)
		FOR_USED_BLOCKS(h, first, end)
	if (first < end)
		memset(h->b + (first - h->lo), 0, (end - first) * sizeof(*h->b));
	memset(h->used, 0, sizeof(h->used));
	h->count = h->sum = h->max = 0;
	h->min = UINT64_MAX;
}

uint64_t scx_hist_bucket_low(unsigned idx, uint64_t *width)
{
	unsigned octave, shift;

	if (idx < SCX_HIST_EXACT) {
		*width = 1;
		return idx;
	}
	octave = (idx - SCX_HIST_EXACT) >> SCX_HIST_SUB_BITS; /* 0 for [128, 256) */
	shift = octave + 1;
	*width = 1ull << shift;
	return (uint64_t)((1u << SCX_HIST_SUB_BITS) + (idx & ((1u << SCX_HIST_SUB_BITS) - 1)))
	       << shift;
}

/*
 * Grow the bucket window to hold [first, last], rounded out to whole powers
 * of two so a histogram does not reallocate on every new bucket.  (Few
 * values stay inline and never get here.)
 */
static void grow_to(struct scx_hist *h, unsigned first, unsigned last)
{
	const unsigned step = 1u << SCX_HIST_SUB_BITS;
	unsigned lo = h->b ? SCX_MIN(h->lo, first) : first;
	unsigned hi = h->b ? SCX_MAX(h->hi, last + 1) : last + 1;
	uint64_t *nb;

	lo -= lo % step;
	hi = SCX_MIN((hi + step - 1) / step * step, SCX_HIST_NR_BUCKETS);
	nb = scx_xcalloc(hi - lo, sizeof(*nb));
	if (h->b) {
		memcpy(nb + (h->lo - lo), h->b, (h->hi - h->lo) * sizeof(*nb));
		free(h->b);
	}
	h->b = nb;
	h->lo = lo;
	h->hi = hi;
}

void scx_hist__grow(struct scx_hist *h, unsigned idx)
{
	grow_to(h, idx, idx);
}

/* Move the inline values into buckets: the histogram outgrew SCX_HIST_INLINE. */
void scx_hist__spill(struct scx_hist *h)
{
	uint64_t v[SCX_HIST_INLINE];
	unsigned n = (unsigned)SCX_MIN(h->count, SCX_HIST_INLINE);

	memcpy(v, h->v, n * sizeof(*v));
	memset(h->used, 0, sizeof(h->used));
	/* one allocation for the range seen so far, not one per new power of two */
	if (n) {
		unsigned first = scx_hist_index(h->min), last = scx_hist_index(h->max);

		if (!h->b || first < h->lo || last >= h->hi)
			grow_to(h, first, last);
	}
	for (unsigned i = 0; i < n; i++)
		scx_hist__count(h, v[i], 1);
}

void scx_hist_merge(struct scx_hist *dst, const struct scx_hist *src)
{
	if (!src->count)
		return;
	if (dst->count + src->count <= SCX_HIST_INLINE) {
		memcpy(dst->v + dst->count, src->v, src->count * sizeof(*src->v));
	} else {
		if (dst->count <= SCX_HIST_INLINE)
			scx_hist__spill(dst);
		if (src->count <= SCX_HIST_INLINE) {
			for (unsigned i = 0; i < src->count; i++)
				scx_hist__count(dst, src->v[i], 1);
		} else {
			FOR_USED_BLOCKS(src, first, end)
			for (unsigned i = first; i < end; i++)
				if (src->b[i - src->lo])
					scx_hist__count_idx(dst, i, src->b[i - src->lo]);
		}
	}
	dst->count += src->count;
	dst->sum += src->sum;
	dst->min = SCX_MIN(dst->min, src->min);
	dst->max = SCX_MAX(dst->max, src->max);
}

uint64_t scx_hist_bucket_count(const struct scx_hist *h, unsigned idx)
{
	uint64_t n = 0;

	if (h->count <= SCX_HIST_INLINE) {
		for (unsigned i = 0; i < h->count; i++)
			n += scx_hist_index(h->v[i]) == idx;
		return n;
	}
	return idx >= h->lo && idx < h->hi && h->b ? h->b[idx - h->lo] : 0;
}

/* The rank of quantile q among count values: the smallest r with r >= q * count. */
static uint64_t rank_of(double q, uint64_t count)
{
	uint64_t rank = (uint64_t)(q * count);

	if ((double)rank < q * count)
		rank++;
	return rank ? rank : 1;
}

static uint64_t bucket_value(const struct scx_hist *h, unsigned i)
{
	uint64_t w, v = scx_hist_bucket_low(i, &w) + w / 2;

	return SCX_MAX(SCX_MIN(v, h->max), h->min);
}

/*
 * Values for nq ascending quantiles in one pass over the buckets: snapshots
 * ask for four of every histogram, and at hundreds of CPUs a pass each was a
 * sixth of scx-agg's time.
 */
static void quantiles(const struct scx_hist *h, const double *q, uint64_t *out, unsigned nq)
{
	/* nq <= 8: callers ask for at most the four of scx_dist */
	uint64_t seen = 0, rank[8];
	unsigned k = 0;

	for (unsigned j = 0; j < nq && j < 8; j++)
		rank[j] = q[j] >= 1 ? UINT64_MAX : rank_of(q[j], h->count);
	while (k < nq && q[k] <= 0)
		out[k++] = h->min;
	if (h->count <= SCX_HIST_INLINE) {
		/* the value of each rank, sorted by insertion: at most 8 */
		uint64_t v[SCX_HIST_INLINE];

		for (unsigned i = 0; i < h->count; i++) {
			unsigned j = i;

			for (; j && v[j - 1] > h->v[i]; j--)
				v[j] = v[j - 1];
			v[j] = h->v[i];
		}
		for (; k < nq && rank[k] <= h->count; k++)
			out[k] = bucket_value(h, scx_hist_index(v[rank[k] - 1]));
	} else
		FOR_USED_BLOCKS(h, first, end)
		{
			for (unsigned i = first; i < end && k < nq; i++) {
				seen += h->b[i - h->lo];
				if (seen < rank[k])
					continue;
				while (k < nq && seen >= rank[k])
					out[k++] = bucket_value(h, i);
			}
		}
	while (k < nq)
		out[k++] = h->max;
}

uint64_t scx_hist_quantile(const struct scx_hist *h, double q)
{
	uint64_t v;

	if (!h->count)
		return 0;
	quantiles(h, &q, &v, 1);
	return v;
}

void scx_hist_dist(const struct scx_hist *h, struct scx_dist *d)
{
	static const double q[] = { 0.50, 0.90, 0.99, 0.999 };
	uint64_t v[4];

	memset(d, 0, sizeof(*d));
	if (!h->count)
		return;
	d->count = h->count;
	d->min = h->min;
	d->max = h->max;
	d->avg = (double)h->sum / h->count;
	quantiles(h, q, v, 4);
	d->p50 = v[0];
	d->p90 = v[1];
	d->p99 = v[2];
	d->p999 = v[3];
}

size_t scx_hist_bytes(const struct scx_hist *h)
{
	return h->b ? (h->hi - h->lo) * sizeof(*h->b) : 0;
}
