/* SPDX-License-Identifier: GPL-2.0 */
/*
 * sched_ext's own state and counters from sysfs (/sys/kernel/sched_ext):
 * state, enable_seq, nr_rejected, switch_all, hotplug_seq, root/ops and, on
 * kernels that have it (6.15 and later), root/events, one "SCX_EV_NAME value"
 * line per counter.  A snapshot is read whole; two snapshots give the
 * interval's deltas.  The directory is a parameter so tests can point it at a
 * fake tree.
 */
#ifndef SCX_SYSFS_H
#define SCX_SYSFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stream/scx_stats.h"

#define SCX_SYSFS_DIR "/sys/kernel/sched_ext"

/*
 * The snapshot is a struct scx_stats (the stream's record, stream/scx_stats.h)
 * holding the counters' values; scx_sysfs__delta() makes it the record.
 */

/*
 * Read a snapshot from dir (SCX_SYSFS_DIR, or a fake tree), ts the time of
 * the read (CLOCK_BOOTTIME).  0, -ENOENT when
 * dir does not exist (no sched_ext), or -EINVAL with err naming the file and
 * line that could not be parsed.
 */
int scx_sysfs__read(const char *dir, struct scx_stats *s, char *err, size_t errsz);

/*
 * now - prev into d: the counters' deltas (a counter absent from prev counts
 * from 0; one that went backwards, as after a reset, counts from 0 again),
 * the state, ops and switch_all of now, interval_ns the time between the reads.
 */
void scx_sysfs__delta(const struct scx_stats *now, const struct scx_stats *prev,
		      struct scx_stats *d);

/*
 * The record of the interval since prev: read dir, rec = the deltas since
 * prev, prev = the values read.  0, or scx_sysfs__read()'s error.
 */
int scx_sysfs__next(const char *dir, struct scx_stats *prev, struct scx_stats *rec, char *err,
		    size_t errsz);

#endif
