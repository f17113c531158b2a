/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What makes a trace readable at a glance in Perfetto's UI (scx-perfetto
 * --readable): TrackEvents derived from the scheduler events, written beside
 * the ftrace bundles that carry the events themselves.
 *
 *  - per thread, a slice for each time it waited runnable: from its wakeup
 *    (or from being preempted) to its switch-in, named for the queue it
 *    waited on ("runnable, waiting on cpu N" or "runnable, waiting in DSQ
 *    0x..."), with the wait in ns as an argument;
 *  - a flow from a "wakeup" instant on the waker's thread to a "switch-in"
 *    instant on the woken thread where it starts to run;
 *  - per cpu, a "run queue depth" counter: the tasks woken or preempted onto
 *    that cpu and not yet running (moved by migrations);
 *  - per DSQ, a "DSQ depth" counter from the depths the stream reports on
 *    DSQ inserts and switches.
 *
 * A wait is written when it ends (the switch-in), so a wait still open when
 * the trace ends has no slice; trace_processor sorts packets by time.  The
 * thread tracks carry a private field and every event the category
 * SCX_PF_READABLE_CATEGORY, by which our reader skips them: the round trip
 * stays exact.  Memory is bounded by the number of threads and DSQs.
 */
#ifndef SCX_PERFETTO_READABLE_H
#define SCX_PERFETTO_READABLE_H

#include <stddef.h>
#include <stdint.h>

#include "core/event.h"
#include "perfetto/perfetto_write.h" /* SCX_PF_READABLE_MAX_DSQS */

#define SCX_PF_READABLE_CATEGORY "scx.readable"

/* Append one TracePacket body to the trace; 0 or -errno. */
typedef int (*pf_emit_fn)(void *ctx, const void *body, size_t n);

struct pf_readable;

struct pf_readable *pf_readable_new(pf_emit_fn emit, void *ctx);
/*
 * Derive from one event what it adds to the readable tracks; 0 or -errno.
 * Events are taken in time order through a reorder window of
 * SCX_PF_READABLE_REORDER_NS.
 */
int pf_readable_event(struct pf_readable *rd, const struct scx_event *e);
/* The end of the stream: derive from what the reorder window still holds. */
int pf_readable_finish(struct pf_readable *rd);
/* Events that came later than the window allows (derived late, out of order). */
uint64_t pf_readable_late(const struct pf_readable *rd);
/* DSQ depth samples not written because SCX_PF_READABLE_MAX_DSQS DSQs had tracks. */
uint64_t pf_readable_dropped(const struct pf_readable *rd);
void pf_readable_free(struct pf_readable *rd);

#endif
