/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flight recorder's ring (scx-events --flight): the most recent events,
 * bounded by time (events older than the newest by more than window_ns leave)
 * and by bytes (at most size / sizeof(struct scx_event) events: the oldest
 * leaves early when the ring is full, and is counted as dropped).  Events are
 * kept decoded, a copy each, so keeping one costs less than writing it.
 * Memory is taken as the ring fills, never past the bound.
 *
 *	f = scx_flight__new(10 s, 256 MiB);
 *	scx_flight__push(f, &e);	// for every event, in time order
 *	scx_flight__write(f, w, NULL, &trigger);	// the window, oldest first, then the trigger
 *	scx_flight__clear(f);		// the next window starts empty
 */
#ifndef SCX_FLIGHT_H
#define SCX_FLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "core/event.h"

struct scx_buf;
struct scx_writer;

/*
 * scx-mcp's flight_trigger sends SIGUSR1 with sigqueue() and this value, so
 * the recorder names the window "mcp" even when scx-mcp has exited before the
 * signal is handled (its /proc/PID/comm is gone by then).
 */
#define SCX_FLIGHT_SIGVAL_MCP 0x6d637031 /* "mcp1" */

struct scx_flight {
	struct scx_event *ev; /* cap slots, mapped */
	size_t bytes;	      /* of the mapping */
	size_t cap, head, n;  /* oldest at head */
	uint64_t window_ns;
	uint64_t aged;	  /* events that left by time: the window's normal motion */
	uint64_t dropped; /* events pushed out by the size bound, since the last clear */
	uint64_t dropped_total;
};

/* NULL + errno (EINVAL: a bound too small for one event) */
struct scx_flight *scx_flight__new(uint64_t window_ns, uint64_t size_bytes);
void scx_flight__free(struct scx_flight *f);
void scx_flight__push(struct scx_flight *f, const struct scx_event *e);
/* The i-th event from the oldest (i < f->n). */
const struct scx_event *scx_flight__at(const struct scx_flight *f, size_t i);
/* Forget every event (not the totals). */
void scx_flight__clear(struct scx_flight *f);
/*
 * Write the window's events, oldest first, then side (a JSON side record,
 * one object without newline, such as the window's scx_stats; NULL for
 * none), then the trigger record t, whose window_start, events and dropped
 * this fills in; counts[type] gets the events written.  0 or the writer's
 * -errno.
 */
int scx_flight__write(struct scx_flight *f, struct scx_writer *w, const struct scx_buf *side,
		      struct scx_event *t, uint64_t counts[SCX_EV__COUNT]);

#endif
