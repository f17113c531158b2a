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

#define SCX_SYSFS_DIR "/sys/kernel/sched_ext"
#define SCX_SYSFS_MAX_EVENTS 32
#define SCX_SYSFS_NAME_LEN 48

struct scx_sysfs_counter {
	char name[SCX_SYSFS_NAME_LEN]; /* "SELECT_CPU_FALLBACK": the SCX_EV_ prefix dropped */
	uint64_t value;
};

struct scx_sysfs {
	char state[16]; /* "enabled", "disabled", "enabling", ... */
	char ops[32];	/* root/ops: the scheduler's name; "" when none is loaded */
	/* -1 where the kernel has no such file */
	int64_t enable_seq, nr_rejected, switch_all, hotplug_seq;
	bool has_events; /* root/events exists */
	unsigned nr_events;
	uint64_t events_dropped; /* counters past SCX_SYSFS_MAX_EVENTS, not kept */
	struct scx_sysfs_counter events[SCX_SYSFS_MAX_EVENTS];
};

/*
 * Read a snapshot from dir (SCX_SYSFS_DIR, or a fake tree).  0, -ENOENT when
 * dir does not exist (no sched_ext), or -EINVAL with err naming the file and
 * line that could not be parsed.
 */
int scx_sysfs__read(const char *dir, struct scx_sysfs *s, char *err, size_t errsz);

/*
 * now - prev into d: the counters' deltas (a counter absent from prev counts
 * from 0; one that went backwards, as after a reset, counts from 0 again),
 * the state, ops and switch_all of now.
 */
void scx_sysfs__delta(const struct scx_sysfs *now, const struct scx_sysfs *prev,
		      struct scx_sysfs *d);

#endif
