/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_ext's counters over a flight-recorder window (scx-events --flight):
 * what the kernel counted while the window's events happened, as one
 * scx_stats record (stream/scx_stats.h) written with the window.  Samples of
 * the sysfs counters are taken every 'every_ns' (a second, or the window's
 * length / 60 for windows over a minute) and kept for about the window's
 * length in a fixed ring; a window's record holds the deltas from the last
 * sample at or before its first event to the trigger, so interval_ns covers
 * the window and at most one sample interval before it.  It never reaches back
 * past the previous window's read: a window starts empty after a trigger, and
 * events that happened before that read can be still on their way, so that
 * the next window's first event precedes it; so no two windows' deltas overlap
 * (and adjacent windows' add up to the kernel's counts).
 *
 *	scx_flight_stats__init(&fs, SCX_SYSFS_DIR, window_ns, err, sizeof(err));
 *	scx_flight_stats__tick(&fs, now, ...);		// from the capture loop
 *	scx_flight_stats__window(&fs, window_start, &rec, ...);	// at a trigger
 */
#ifndef SCX_FLIGHT_STATS_H
#define SCX_FLIGHT_STATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/scx_stats.h"

#define SCX_FLIGHT_STATS_SAMPLES 64

struct scx_flight_stats {
	const char *dir; /* SCX_SYSFS_DIR, or a fake tree */
	uint64_t every_ns;
	uint64_t next_ns;  /* CLOCK_BOOTTIME of the next sample */
	uint64_t floor_ns; /* the previous window's read: no window counts from before it */
	unsigned head, n;  /* oldest sample at head */
	struct scx_stats s[SCX_FLIGHT_STATS_SAMPLES];
};

/*
 * Take the first sample.  0, -ENOENT without sched_ext, or -EINVAL with err
 * naming the file that could not be read (scx_sysfs__read()).
 */
int scx_flight_stats__init(struct scx_flight_stats *fs, const char *dir, uint64_t window_ns,
			   char *err, size_t errsz);
/* Take a sample if one is due at now (CLOCK_BOOTTIME ns).  0 or as above. */
int scx_flight_stats__tick(struct scx_flight_stats *fs, uint64_t now, char *err, size_t errsz);
/*
 * The record of a window whose first event is at window_start: read the
 * counters now, rec = their deltas since the last sample at or before
 * window_start (the oldest kept, if none is that old), and not before the
 * previous window's read.  The read is kept as a sample, the start of the next
 * window.  0 or as above.
 */
int scx_flight_stats__window(struct scx_flight_stats *fs, uint64_t window_start,
			     struct scx_stats *rec, char *err, size_t errsz);

#endif
