/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_ext's own state and counters (/sys/kernel/sched_ext) as a record of
 * the stream (man/scx.7, SCHED_EXT STATE RECORDS): scx-events reads sysfs
 * every second and writes what changed since the previous read, so the
 * counters are per-interval deltas and add up over any span:
 *
 *	{"type":"scx_stats","ts":...,"interval_ns":1000000000,"state":"enabled",
 *	 "ops":"qmap","switch_all":1,"enable_seq":1,"nr_rejected":0,"hotplug_seq":0,
 *	 "events":{"SELECT_CPU_FALLBACK":12,...},"events_dropped":0}
 *
 * state, ops and switch_all are as read at ts; enable_seq, nr_rejected and
 * hotplug_seq are the deltas of those sysfs counters (one per scheduler
 * load, per rejected task, per CPU hotplug); "events" holds the deltas of
 * root/events (kernels from 6.15; absent where the kernel has none), keyed
 * by counter name without its SCX_EV_ prefix.  A counter the kernel lacks
 * is left out.  Like kernel snapshots and cgroup records it is one JSON
 * object on the wire (a JSON record in binary frames), passed on by every
 * reader as SCX_READ_OTHER.
 */
#ifndef SCX_STATS_H
#define SCX_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "json/json.h"

#define SCX_STATS_TYPE "scx_stats"
#define SCX_STATS_MAX_EVENTS 32
#define SCX_STATS_NAME_LEN 48

struct scx_stats_counter {
	char name[SCX_STATS_NAME_LEN]; /* "SELECT_CPU_FALLBACK": the SCX_EV_ prefix dropped */
	uint64_t value;
};

/*
 * Read from sysfs (capture/scx_sysfs.h) it holds the counters' values; in
 * a record, and after scx_sysfs__delta(), their deltas.
 */
struct scx_stats {
	uint64_t ts;	      /* CLOCK_BOOTTIME of the read; 0: no record */
	uint64_t interval_ns; /* span the deltas cover */
	char state[16];	      /* "enabled", "disabled", "enabling", ... */
	char ops[32];	      /* root/ops: the scheduler's name; "" when none is loaded */
	/* -1 where the kernel has no such file */
	int64_t enable_seq, nr_rejected, switch_all, hotplug_seq;
	bool has_events; /* root/events exists */
	unsigned nr_events;
	uint64_t events_dropped; /* counters past SCX_STATS_MAX_EVENTS, not kept */
	struct scx_stats_counter events[SCX_STATS_MAX_EVENTS];
};

/* The record as one JSON object, without newline. */
void scx_stats_to_json(struct scx_buf *b, const struct scx_stats *s);
/* Its fields (all but "type") as keys of the object w has open. */
void scx_stats_json_fields(struct scx_jw *w, const struct scx_stats *s);
/*
 * One line for people, without newline: "sched_ext: enabled qmap switch_all 1
 * | loads 1 rejected 0 hotplugs 0 | events SELECT_CPU_FALLBACK 12 ...", or
 * "... | no root/events" on kernels without the event counters.
 */
void scx_stats_text(struct scx_buf *b, const struct scx_stats *s);
/* Is the object at token 0 of d an scx_stats record? */
bool scx_stats_is(const struct scx_json_doc *d);
/*
 * Decode the record at token 0 of d into s.  0, or -EINVAL with a message
 * naming the key and byte offset in err.  Counters past
 * SCX_STATS_MAX_EVENTS are counted in events_dropped.
 */
int scx_stats_from_json(const struct scx_json_doc *d, struct scx_stats *s, char *err, size_t errsz);
/* The same from the object at token obj (scx-agg's snapshot "sched_ext"). */
int scx_stats_from_json_obj(const struct scx_json_doc *d, int obj, struct scx_stats *s, char *err,
			    size_t errsz);
/*
 * Fold the record src (deltas) into dst, as one longer interval: deltas and
 * interval_ns add up, ts, state, ops and switch_all are src's.  A dst with
 * ts 0 is empty and becomes a copy.
 */
void scx_stats_merge(struct scx_stats *dst, const struct scx_stats *src);
/* The value of counter name in s's events, or NULL. */
const struct scx_stats_counter *scx_stats_event(const struct scx_stats *s, const char *name);

#endif
