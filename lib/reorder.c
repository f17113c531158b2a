// SPDX-License-Identifier: GPL-2.0
/*
 * Put a live stream back in time order.  scx-events
 * stages events per CPU and flushes each CPU's batch on its own (up to its
 * --flush delay, 50 ms by default), so its stream is ordered per CPU but
 * not across CPUs, and an engine that follows tasks across CPUs (a thread
 * that ran on cpu 1 and then on cpu 0) needs them in order.  A min-heap
 * holds events until the newest seen is 'window' later, then releases them
 * oldest first.  Events that arrive later than that are released at once
 * and counted.
 */
#include <stdlib.h>
#include <string.h>

#include "reorder.h"
#include "util.h"

/* The heap holds keys only; events stay put in a slab (cheap sift swaps). */
struct key {
	uint64_t ts;
	uint64_t seq;		/* arrival order: keeps equal timestamps in order */
	uint32_t slot;
};

struct scx_reorder {
	struct key *h;
	struct scx_event *slab;
	uint32_t *free;		/* free slab slots */
	size_t n, cap, nfree;
	uint64_t window, newest, seq, late, released_ts;
};

struct scx_reorder *scx_reorder__new(uint64_t window_ns)
{
	struct scx_reorder *o = scx_xcalloc(1, sizeof(*o));

	o->window = window_ns;
	return o;
}

void scx_reorder__free(struct scx_reorder *o)
{
	if (!o)
		return;
	free(o->h);
	free(o->slab);
	free(o->free);
	free(o);
}

static bool before(const struct key *a, const struct key *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->seq < b->seq);
}

void scx_reorder__push(struct scx_reorder *o, const struct scx_event *e)
{
	size_t i;
	uint32_t slot;

	if (o->n == o->cap) {
		size_t cap = o->cap ? o->cap * 2 : 1024;

		o->h = scx_xrealloc(o->h, cap * sizeof(*o->h));
		o->slab = scx_xrealloc(o->slab, cap * sizeof(*o->slab));
		o->free = scx_xrealloc(o->free, cap * sizeof(*o->free));
		/* the new slots are free (the old ones are all in use: n == cap) */
		for (size_t k = o->cap; k < cap; k++)
			o->free[o->nfree++] = (uint32_t)(cap - 1 - (k - o->cap));
		o->cap = cap;
	}
	if (e->ts < o->released_ts)
		o->late++;
	if (e->ts > o->newest)
		o->newest = e->ts;
	slot = o->free[--o->nfree];
	o->slab[slot] = *e;
	i = o->n++;
	o->h[i] = (struct key){ e->ts, o->seq++, slot };
	while (i) {
		size_t p = (i - 1) / 2;
		struct key t;

		if (!before(&o->h[i], &o->h[p]))
			break;
		t = o->h[i];
		o->h[i] = o->h[p];
		o->h[p] = t;
		i = p;
	}
}

bool scx_reorder__pop(struct scx_reorder *o, struct scx_event *e, bool drain)
{
	size_t i = 0;

	if (!o->n)
		return false;
	if (!drain && o->h[0].ts + o->window > o->newest)
		return false;
	*e = o->slab[o->h[0].slot];
	o->free[o->nfree++] = o->h[0].slot;
	if (e->ts > o->released_ts)
		o->released_ts = e->ts;
	o->h[0] = o->h[--o->n];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		struct key t;

		if (l < o->n && before(&o->h[l], &o->h[m]))
			m = l;
		if (r < o->n && before(&o->h[r], &o->h[m]))
			m = r;
		if (m == i)
			break;
		t = o->h[i];
		o->h[i] = o->h[m];
		o->h[m] = t;
		i = m;
	}
	return true;
}

uint64_t scx_reorder__late(const struct scx_reorder *o)
{
	return o->late;
}

uint64_t scx_reorder__held(const struct scx_reorder *o)
{
	return o->n;
}
