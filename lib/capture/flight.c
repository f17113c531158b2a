// SPDX-License-Identifier: GPL-2.0
/* The flight recorder's ring: the last events, bounded by time and bytes (flight.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "capture/flight.h"
#include "core/util.h"
#include "stream/stream.h"

struct scx_flight *scx_flight__new(uint64_t window_ns, uint64_t size_bytes)
{
	struct scx_flight *f;
	size_t cap = size_bytes / sizeof(struct scx_event);

	if (!window_ns || !cap) {
		errno = EINVAL;
		return NULL;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	/*
	 * Pages come as the ring fills (never past the bound).  Huge pages where
	 * the kernel gives them: the first fill of a 256M ring is otherwise 65k
	 * page faults on the reader's path, each dearer than writing the event.
	 */
	f->bytes = cap * sizeof(struct scx_event);
	f->ev = mmap(NULL, f->bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (f->ev == MAP_FAILED) {
		free(f);
		errno = ENOMEM;
		return NULL;
	}
	madvise(f->ev, f->bytes, MADV_HUGEPAGE);
	f->cap = cap;
	f->window_ns = window_ns;
	return f;
}

void scx_flight__free(struct scx_flight *f)
{
	if (!f)
		return;
	munmap(f->ev, f->bytes);
	free(f);
}

const struct scx_event *scx_flight__at(const struct scx_flight *f, size_t i)
{
	size_t j = f->head + i;

	return &f->ev[j >= f->cap ? j - f->cap : j];
}

static void pop(struct scx_flight *f)
{
	f->head = f->head + 1 == f->cap ? 0 : f->head + 1;
	f->n--;
}

void scx_flight__push(struct scx_flight *f, const struct scx_event *e)
{
	size_t tail;

	/* the window is cut at the newest event's time: a stopped clock keeps all */
	while (f->n && e->ts > f->window_ns && f->ev[f->head].ts < e->ts - f->window_ns) {
		pop(f);
		f->aged++;
	}
	if (f->n == f->cap) {
		pop(f);
		f->dropped++;
		f->dropped_total++;
	}
	tail = f->head + f->n;
	f->ev[tail >= f->cap ? tail - f->cap : tail] = *e;
	f->n++;
}

void scx_flight__clear(struct scx_flight *f)
{
	f->head = 0;
	f->n = 0;
	f->dropped = 0;
}

int scx_flight__write(struct scx_flight *f, struct scx_writer *w, const struct scx_buf *side,
		      struct scx_event *t, uint64_t counts[SCX_EV__COUNT])
{
	int err = 0;

	t->flight.window_start = f->n ? scx_flight__at(f, 0)->ts : t->ts;
	t->flight.events = f->n;
	t->flight.dropped = f->dropped;
	for (size_t i = 0; i < f->n && !err; i++) {
		const struct scx_event *e = scx_flight__at(f, i);

		err = scx_writer__event(w, e);
		if (e->type < SCX_EV__COUNT)
			counts[e->type]++;
	}
	if (!err && side && side->len)
		err = scx_writer__raw(w, side->data, side->len);
	if (!err)
		err = scx_writer__event(w, t);
	if (!err)
		counts[t->type]++;
	return err;
}
