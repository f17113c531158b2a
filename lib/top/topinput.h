/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx-top's input: one stream in, one model per window out.
 *
 * The stream may be raw events (scx-events, a replay), scx-agg snapshot lines
 * or kernel snapshots (scx-events --aggregate); the first record decides.
 * Events are aggregated here, put in time order first when they arrive out
 * of order (live scx-events), and each closed window becomes a model.
 * Snapshots are models already.  Nothing here touches a terminal or a
 * thread: scx-top's reader thread, its batch loop and the unit tests call
 * top_input__next() the same way.
 */
#ifndef SCX_TOPINPUT_H
#define SCX_TOPINPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "top/topview.h"

struct scx_reader;
struct scx_topo;

/* What the stream turned out to be, decided by its first record. */
enum top_source {
	TOP_SRC_NONE,	   /* nothing read yet */
	TOP_SRC_EVENTS,	   /* raw events, aggregated here */
	TOP_SRC_SNAPSHOTS, /* scx-agg snapshot lines */
	TOP_SRC_KERNEL,	   /* kernel snapshots (scx-events --aggregate) */
};

struct top_input_opts {
	uint64_t interval_ns; /* window length for raw events */
	/*
	 * Hold out-of-order events this long; 0: never reorder.
	 * SCX_REORDER_UNSET: as the stream's header says (scx_order_plan()).
	 */
	uint64_t reorder_ns;
	unsigned max_tasks; /* the engine's task cap; 0: its default */
	/*
	 * --topology: the input owns it from now on.  NULL: the stream
	 * header's, else (snapshots) this machine's when it has their cpus.
	 */
	struct scx_topo *topo;
	/*
	 * The boot clock now, to tell a live stream from a recording; 0
	 * reads it.  Tests set it to make a synthetic stream live.
	 */
	uint64_t now_ns;
};

struct top_input;

/* Takes r (freed with the input).  NULL + errno when out of memory. */
struct top_input *top_input__new(struct scx_reader *r, const struct top_input_opts *o);
void top_input__free(struct top_input *in);

/*
 * Reads until the next window's model is ready.  Returns 1 with *m set (valid
 * until the next call), 0 at end of input (after the last partial window),
 * -EINVAL with a message in err on bad input (-errno when the engine cannot
 * start), as lib/README.md's "Errors" says.
 */
int top_input__next(struct top_input *in, const struct top_model **m, char *err, size_t errsz);

/*
 * Which per-task figures the view shows: TOP_WANT_TASKS for per-task rows,
 * TOP_WANT_CGROUPS for cgroup rows (built from per-thread figures).  They
 * cost most of the aggregation on big machines, so a live stream keeps them
 * only while they are shown (from the next window on); a recording always
 * keeps them.  Safe to call from another thread than top_input__next()'s.
 */
#define TOP_WANT_TASKS 1u
#define TOP_WANT_CGROUPS 2u
void top_input__want(struct top_input *in, unsigned what);

enum top_source top_input__source(const struct top_input *in);

/*
 * What to tell the user at a normal end of input (an empty stream, a stream
 * without a trailer, events out of the time order the header promised), or
 * NULL.  Snapshot streams have no trailer to miss.
 */
const char *top_input__warning(struct top_input *in);

#endif
