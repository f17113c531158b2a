// SPDX-License-Identifier: GPL-2.0
/*
 * Put a stream that is ordered per CPU back into one time order.
 *
 * scx-events stages events per CPU and each CPU's batch reaches user space
 * on its own schedule, so the stream is ordered per CPU but not across CPUs,
 * while consumers follow tasks across CPUs (a wakeup on one, the switch-in
 * on another).  Each CPU gets a FIFO; a small heap over the FIFOs' heads
 * picks the oldest.  That costs O(log nr_cpus) a event and touches memory
 * in order, where one heap over every held event (100k+ at 1-2M events/s
 * and a 100 ms window) missed the cache at every level.  Heap entries carry
 * their queue's head time and each queue its tail time, so ordering never
 * reads the held events themselves: with 512 queues a pop's sift had cost
 * a cache miss per level, reading each compared head.  An event older
 * than the tail of its own FIFO (an interrupt that went around its CPU's
 * staging) is inserted in place from the tail; it is rare and near the end.
 * Events are held until the newest seen is 'window' later; any that arrive
 * after a newer event was already released go out at once and are counted.
 */
#include <stdlib.h>
#include <string.h>

#include "core/reorder.h"
#include "core/util.h"

struct fifo {
	struct scx_event *ev; /* ring of cap (a power of two) events */
	size_t head, n, cap;
	uint64_t tail_ts; /* time of the newest event, when n > 0 */
	int32_t slot;	  /* position in the heap, -1 when empty */
};

struct head {
	uint64_t ts; /* time of the fifo's oldest event */
	uint32_t qi; /* the fifo */
};

struct scx_reorder {
	struct fifo *q; /* by cpu; the last one takes cpu -1 and strays */
	size_t nq;
	struct head *heap; /* non-empty fifos, oldest head first */
	size_t nheap;
	uint64_t window, newest, late, released_ts, held;
};

#define MAX_QUEUES 8192 /* cpu ids above this share the stray queue */

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
	for (size_t i = 0; i < o->nq; i++)
		free(o->q[i].ev);
	free(o->q);
	free(o->heap);
	free(o);
}

static inline struct scx_event *at(struct fifo *f, size_t i)
{
	return &f->ev[(f->head + i) & (f->cap - 1)];
}

static void heap_set(struct scx_reorder *o, size_t i, struct head h)
{
	o->heap[i] = h;
	o->q[h.qi].slot = (int32_t)i;
}

/* ties go to the lower queue: events of equal time keep a stable order */
static inline bool older(struct head a, struct head b)
{
	return a.ts < b.ts || (a.ts == b.ts && a.qi < b.qi);
}

static void sift_up(struct scx_reorder *o, size_t i)
{
	struct head h = o->heap[i];

	while (i) {
		size_t p = (i - 1) / 2;

		if (!older(h, o->heap[p]))
			break;
		heap_set(o, i, o->heap[p]);
		i = p;
	}
	heap_set(o, i, h);
}

static void sift_down(struct scx_reorder *o, size_t i)
{
	struct head h = o->heap[i];

	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = l;

		if (l >= o->nheap)
			break;
		if (r < o->nheap && older(o->heap[r], o->heap[l]))
			m = r;
		if (!older(o->heap[m], h))
			break;
		heap_set(o, i, o->heap[m]);
		i = m;
	}
	heap_set(o, i, h);
}

static struct fifo *queue_for(struct scx_reorder *o, int32_t cpu, uint32_t *qi)
{
	size_t want = cpu >= 0 && cpu < MAX_QUEUES ? (size_t)cpu + 2 : o->nq ? o->nq : 1;

	if (want > o->nq) {
		/* the stray queue stays last: move it up */
		size_t old = o->nq;

		o->q = scx_xrealloc(o->q, want * sizeof(*o->q));
		o->heap = scx_xrealloc(o->heap, want * sizeof(*o->heap));
		memset(o->q + old, 0, (want - old) * sizeof(*o->q));
		for (size_t i = old; i < want; i++)
			o->q[i].slot = -1;
		if (old) {
			o->q[want - 1] = o->q[old - 1];
			memset(&o->q[old - 1], 0, sizeof(o->q[0]));
			o->q[old - 1].slot = -1;
			if (o->q[want - 1].slot >= 0)
				o->heap[o->q[want - 1].slot].qi = (uint32_t)(want - 1);
		}
		o->nq = want;
	}
	*qi = cpu >= 0 && cpu < MAX_QUEUES ? (uint32_t)cpu : (uint32_t)(o->nq - 1);
	return &o->q[*qi];
}

void scx_reorder__push(struct scx_reorder *o, const struct scx_event *e)
{
	uint32_t qi;
	struct fifo *f = queue_for(o, e->cpu, &qi);
	size_t i;

	if (f->n == f->cap) {
		/* small at first: a ring cycles through all its slots, so an
		 * oversized one writes every event to memory long out of cache */
		size_t cap = f->cap ? f->cap * 2 : 16;
		struct scx_event *ev = scx_xmalloc(cap * sizeof(*ev));

		for (size_t k = 0; k < f->n; k++)
			ev[k] = *at(f, k);
		free(f->ev);
		f->ev = ev;
		f->head = 0;
		f->cap = cap;
	}
	if (e->ts < o->released_ts)
		o->late++;
	if (e->ts > o->newest)
		o->newest = e->ts;
	i = f->n;
	if (!f->n || f->tail_ts <= e->ts) {
		f->tail_ts = e->ts; /* the usual case: in its cpu's order */
	} else {
		/* from the tail back to the first event not newer than e */
		for (; i > 0 && at(f, i - 1)->ts > e->ts; i--)
			*at(f, i) = *at(f, i - 1);
	}
	*at(f, i) = *e;
	f->n++;
	o->held++;
	if (f->slot < 0) {
		heap_set(o, o->nheap++, (struct head){ e->ts, qi });
		sift_up(o, o->nheap - 1);
	} else if (i == 0) {
		o->heap[f->slot].ts = e->ts; /* its head got older */
		sift_up(o, (size_t)f->slot);
	}
}

void scx_reorder__advance(struct scx_reorder *o, uint64_t ts)
{
	if (ts > o->newest)
		o->newest = ts;
}

bool scx_reorder__pop(struct scx_reorder *o, struct scx_event *e, bool drain)
{
	struct fifo *f;

	/* held while newer than newest - window, written so that no sum overflows */
	if (!o->nheap ||
	    (!drain && (o->newest < o->window || o->heap[0].ts > o->newest - o->window)))
		return false;
	f = &o->q[o->heap[0].qi];
	*e = f->ev[f->head];
	f->head = (f->head + 1) & (f->cap - 1);
	f->n--;
	o->held--;
	if (e->ts > o->released_ts)
		o->released_ts = e->ts;
	if (f->n) {
		o->heap[0].ts = f->ev[f->head].ts;
		sift_down(o, 0);
	} else {
		f->slot = -1;
		if (--o->nheap)
			heap_set(o, 0, o->heap[o->nheap]), sift_down(o, 0);
	}
	return true;
}

uint64_t scx_reorder__late(const struct scx_reorder *o)
{
	return o->late;
}

uint64_t scx_reorder__held(const struct scx_reorder *o)
{
	return o->held;
}

/* ---- scx_sorter: the buffer only once the stream needs it ------------------------ */

void scx_sorter__init(struct scx_sorter *o, uint64_t window_ns, bool from_start)
{
	*o = (struct scx_sorter){ .window_ns = window_ns };
	if (window_ns && from_start)
		o->buf = scx_reorder__new(window_ns);
}

void scx_sorter__fini(struct scx_sorter *o)
{
	scx_reorder__free(o->buf);
	o->buf = NULL;
}

/* scx_sorter__push() past its fast path: e goes into the buffer, created at the first late event. */
bool scx_sorter__hold(struct scx_sorter *o, const struct scx_event *e)
{
	if (!o->buf) {
		/* the first event out of order: the stream is sorted per cpu
		 * only (an older scx-events, or streams merged with cat) */
		scx_debug(1, "events out of order: reordering within %llu ms",
			  (unsigned long long)(o->window_ns / 1000000));
		o->buf = scx_reorder__new(o->window_ns);
		/* what passed already is as good as seen */
		scx_reorder__advance(o->buf, o->newest);
	}
	scx_reorder__push(o->buf, e);
	return false;
}

void scx_sorter__advance(struct scx_sorter *o, uint64_t ts)
{
	if (o->buf)
		scx_reorder__advance(o->buf, ts);
}
