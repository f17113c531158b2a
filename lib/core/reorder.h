/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A reorder buffer: push events as they come, pop them in timestamp order
 * once the newest event pushed is window_ns later (or all, when draining).
 * Used where a stream is ordered per CPU but not across CPUs: scx-events'
 * BPF side stages events per CPU and flushes each CPU's batch on its own.
 */
#ifndef SCX_REORDER_H
#define SCX_REORDER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/event.h"

struct scx_reorder;
struct scx_reorder *scx_reorder__new(uint64_t window_ns);
void scx_reorder__free(struct scx_reorder *o);
void scx_reorder__push(struct scx_reorder *o, const struct scx_event *e);
/*
 * Nothing older than ts can still arrive: lets events out when the stream
 * goes quiet (a live producer passes its clock minus its worst delay).
 */
void scx_reorder__advance(struct scx_reorder *o, uint64_t ts);
/* true with *e set to the oldest event that may go; drain: any. */
bool scx_reorder__pop(struct scx_reorder *o, struct scx_event *e, bool drain);
/* Events that arrived after a later one had already been popped. */
uint64_t scx_reorder__late(const struct scx_reorder *o);
/* Events held now. */
uint64_t scx_reorder__held(const struct scx_reorder *o);

/*
 * A stream's time order at the least cost its producer allows: the one
 * component both the engine (lib/agg) and scx-top's input use, with the
 * policy of scx_order_plan() (lib/stream, from the stream's header).  Events
 * pass straight through while they come in order; from the first one older
 * than an event before it (or from the start, for a stream sorted per cpu
 * only) they go through a reorder buffer of window_ns.  window_ns 0 never
 * sorts.  Use:
 *
 *	if (scx_sorter__push(&o, e))
 *		use(e);
 *	while (scx_sorter__pop(&o, &ev, at_end))
 *		use(&ev);
 */
struct scx_sorter {
	uint64_t window_ns;
	uint64_t newest;	 /* newest event passed straight through */
	struct scx_reorder *buf; /* NULL until sorting begins */
};
void scx_sorter__init(struct scx_sorter *o, uint64_t window_ns, bool from_start);
void scx_sorter__fini(struct scx_sorter *o);
bool scx_sorter__hold(struct scx_sorter *o, const struct scx_event *e);
/*
 * true: use e now (nothing is held); false: e is held, scx_sorter__pop()
 * gives it back.  Inline: an ordered stream pays one compare an event.
 */
static inline bool scx_sorter__push(struct scx_sorter *o, const struct scx_event *e)
{
	if (!o->buf && (!o->window_ns || e->ts >= o->newest)) {
		if (e->ts > o->newest)
			o->newest = e->ts;
		return true;
	}
	return scx_sorter__hold(o, e);
}
/* The next held event that may go (drain: any); false when none may yet. */
static inline bool scx_sorter__pop(struct scx_sorter *o, struct scx_event *e, bool drain)
{
	return o->buf && scx_reorder__pop(o->buf, e, drain);
}
/* Nothing older than ts can still come (a live producer's clock); only while sorting. */
void scx_sorter__advance(struct scx_sorter *o, uint64_t ts);
/* Whether events go through the buffer (and so come out up to window_ns late). */
static inline bool scx_sorter__sorting(const struct scx_sorter *o)
{
	return o->buf != NULL;
}

#endif
