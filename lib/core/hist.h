/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Log-linear histograms of unsigned 64-bit values (nanoseconds, depths).
 *
 * Values below 128 are counted exactly.  Above, every power of two is cut
 * into 64 equal buckets, and a quantile is reported as the middle of its
 * bucket (clamped to the exact min and max), so a reported quantile is
 * within 1/128 (0.79%) of a value of that rank.  count, sum, min and max are
 * exact.  Two histograms merge by adding bucket counts, so the merge of the
 * per-CPU histograms of an LLC is exactly the histogram the LLC would have
 * had if it had been fed directly.
 *
 * Buckets are kept in one array covering only the range of indices seen, so
 * a histogram of latencies between 1us and 10ms costs about 7 KiB.  A bitmap
 * marks the blocks of SCX_HIST_BLOCK buckets that may be non-zero, so that
 * merging, emptying and reading a histogram cost what it holds, not its
 * range.  And up to SCX_HIST_INLINE values are kept as they are, in the
 * bitmap's place, touching no buckets at all: every interval an aggregator
 * fills, merges, reads and empties thousands of per-task histograms holding
 * a handful of values each, and bucket memory out of cache was most of that
 * cost.  Both forms give the same answers: a quantile is always the middle
 * of the bucket of the value of its rank.
 */
#ifndef SCX_HIST_H
#define SCX_HIST_H

#include <stdbool.h>
#include <stdint.h>

#define SCX_HIST_SUB_BITS 6			 /* 64 buckets per power of two */
#define SCX_HIST_EXACT (2u << SCX_HIST_SUB_BITS) /* values below are exact */
#define SCX_HIST_NR_BUCKETS \
	(SCX_HIST_EXACT + (64 - SCX_HIST_SUB_BITS - 1) * (1u << SCX_HIST_SUB_BITS))
#define SCX_HIST_REL_ERROR (1.0 / (2u << SCX_HIST_SUB_BITS)) /* 1/128 */
#define SCX_HIST_BLOCK_BITS 3				     /* 8 buckets per bit of used[] */
#define SCX_HIST_USED_WORDS ((SCX_HIST_NR_BUCKETS >> SCX_HIST_BLOCK_BITS) / 64 + 1)

#define SCX_HIST_INLINE SCX_HIST_USED_WORDS /* values kept as they are */

struct scx_hist {
	uint64_t count, sum, min, max; /* sum wraps after 584 years of ns */
	uint32_t lo, hi;	       /* b[] holds the counts of buckets [lo, hi) */
	uint64_t *b;
	union {
		/* count <= SCX_HIST_INLINE: the values, and b[] is all zero */
		uint64_t v[SCX_HIST_INLINE];
		/* count > SCX_HIST_INLINE: block bit clear means its buckets are 0 */
		uint64_t used[SCX_HIST_USED_WORDS];
	};
};

/* count..max of a histogram; every field 0 when count is 0 */
struct scx_dist {
	uint64_t count, min, max, p50, p90, p99, p999;
	double avg;
};

/* a braced list in a macro: clang-format takes its braces for a block */
/* clang-format off */
#define SCX_HIST_INIT { 0, 0, UINT64_MAX, 0, 0, 0, NULL, { { 0 } } }
/* clang-format on */

void scx_hist_init(struct scx_hist *h);
void scx_hist_free(struct scx_hist *h);	 /* leaves an empty, usable histogram */
void scx_hist_reset(struct scx_hist *h); /* empty it, keep its memory */

static inline unsigned scx_hist_index(uint64_t v)
{
	unsigned msb;

	if (v < SCX_HIST_EXACT)
		return (unsigned)v;
	msb = 63 - __builtin_clzll(v);
	return ((msb - SCX_HIST_SUB_BITS) << SCX_HIST_SUB_BITS) +
	       (unsigned)(v >> (msb - SCX_HIST_SUB_BITS));
}

/* Lowest value of bucket idx, and its width. */
uint64_t scx_hist_bucket_low(unsigned idx, uint64_t *width);

void scx_hist__grow(struct scx_hist *h, unsigned idx);
void scx_hist__spill(struct scx_hist *h);

/* Count n in bucket idx of the bucket array (the histogram is past inline). */
static inline void scx_hist__count_idx(struct scx_hist *h, unsigned idx, uint64_t n)
{
	if (idx < h->lo || idx >= h->hi || !h->b)
		scx_hist__grow(h, idx);
	h->b[idx - h->lo] += n;
	h->used[idx >> (SCX_HIST_BLOCK_BITS + 6)] |= 1ull << (idx >> SCX_HIST_BLOCK_BITS & 63);
}

static inline void scx_hist__count(struct scx_hist *h, uint64_t v, uint64_t n)
{
	scx_hist__count_idx(h, scx_hist_index(v), n);
}

static inline void scx_hist_add_n(struct scx_hist *h, uint64_t v, uint64_t n)
{
	if (!n)
		return;
	if (h->count + n <= SCX_HIST_INLINE) {
		for (uint64_t i = h->count; i < h->count + n && i < SCX_HIST_INLINE; i++)
			h->v[i] = v;
	} else {
		if (h->count <= SCX_HIST_INLINE)
			scx_hist__spill(h);
		scx_hist__count(h, v, n);
	}
	h->count += n;
	h->sum += v * n;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
}

static inline void scx_hist_add(struct scx_hist *h, uint64_t v)
{
	scx_hist_add_n(h, v, 1);
}

/* dst += src; exact (see above). */
void scx_hist_merge(struct scx_hist *dst, const struct scx_hist *src);
/* Value of rank ceil(q * count) (nearest rank), q in [0, 1]; 0 when empty. */
uint64_t scx_hist_quantile(const struct scx_hist *h, double q);
void scx_hist_dist(const struct scx_hist *h, struct scx_dist *d);
/* Values counted in bucket idx (whichever form the histogram is in). */
uint64_t scx_hist_bucket_count(const struct scx_hist *h, unsigned idx);
/* Bytes of bucket memory held (for the memory figures). */
size_t scx_hist_bytes(const struct scx_hist *h);

#endif
