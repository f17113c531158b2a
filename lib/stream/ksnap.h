/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel snapshots: the record `scx-events --aggregate` writes once per
 * interval instead of events (man/scx.7, KERNEL SNAPSHOTS).  Per CPU, the
 * counters and log-linear histograms of one interval, kept by
 * bpf/aggregate.bpf.c.  A histogram travels as its non-empty buckets, whose
 * indices are lib/core/hist's (scx_hist_index()), with exact count, sum,
 * min and max: rebuilt with scx_ksnap_hist_to(), it is the histogram the
 * event engine would have built from the same values, bucket for bucket.
 *
 * On the wire it is one JSON object, {"type":"kernel_snapshot",...}: an
 * NDJSON line, or a JSON record (0x8003) in binary frames, so every reader
 * passes it on as SCX_READ_OTHER and consumers pick it up by its type.
 */
#ifndef SCX_KSNAP_H
#define SCX_KSNAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/hist.h"
#include "json/json.h"

#define SCX_KSNAP_TYPE "kernel_snapshot"

/* Counters, in bpf/aggregate.h's order (enum kagg_counter), then the queue figures. */
enum scx_ksnap_counter {
	SCX_KS_SWITCHES,
	SCX_KS_VOLUNTARY,
	SCX_KS_INVOLUNTARY,
	SCX_KS_SLICES,
	SCX_KS_WAKEUPS,
	SCX_KS_WAKEUPS_NEW,
	SCX_KS_MIGRATIONS,
	SCX_KS_MIGR_CROSS_LLC,
	SCX_KS_MIGR_CROSS_NODE,
	SCX_KS_BUSY_NS,
	SCX_KS_IDLE_NS,
	SCX_KS_RQ_DEPTH_NS,  /* integral of the queue length over the interval */
	SCX_KS_RQ_DEPTH_MAX, /* longest queue since the collector started */
	SCX_KS_WC_LOSS_NS,   /* lib/agg/agg.h's wc_loss */
	SCX_KS__COUNT
};

enum scx_ksnap_hist_id {
	SCX_KSH_WAKE_LAT,
	SCX_KSH_RQ_DELAY,
	SCX_KSH_SLICE,
	SCX_KSH_DSQ_LAT, /* sched_ext; left out of the record when empty */
	SCX_KSH__COUNT
};

extern const char *const scx_ksnap_counter_names[SCX_KS__COUNT];
extern const char *const scx_ksnap_hist_names[SCX_KSH__COUNT];

struct scx_ksnap_hist {
	uint64_t count, sum, min, max; /* min, max: 0 when empty */
	uint64_t clamped;	       /* values past the buckets kept, in the last one */
	unsigned nr, cap;	       /* non-empty buckets */
	uint32_t *idx;		       /* ascending */
	uint64_t *n;
};

struct scx_ksnap_cpu {
	int32_t cpu;
	uint64_t c[SCX_KS__COUNT];
	struct scx_ksnap_hist h[SCX_KSH__COUNT];
};

/*
 * A cgroup's figures (the "cgroups" array): the counters up to busy_ns and
 * the wake_lat and rq_delay histograms of the tasks in cgroup v2 id 'id'.
 * Id 0 is "other": the cgroups seen after the collector's table was full.
 */
#define SCX_KSNAP_CG_COUNTERS (SCX_KS_BUSY_NS + 1)
#define SCX_KSNAP_CG_HISTS SCX_KSH_SLICE

struct scx_ksnap_cgroup {
	uint64_t id;
	uint64_t c[SCX_KSNAP_CG_COUNTERS];
	struct scx_ksnap_hist h[SCX_KSNAP_CG_HISTS];
};

/*
 * A DSQ's queueing time (the "dsqs" array, sched_ext): the time from the
 * last insert or move into DSQ 'id' to the switch-in, of the tasks run from
 * it, as the event mode's dsq_lat_ns keyed by dsq_id.  'other' (id 0) holds
 * the DSQs seen after the collector's table was full.
 */
struct scx_ksnap_dsq {
	uint64_t id;
	bool other;
	struct scx_ksnap_hist lat;
};

struct scx_ksnap {
	uint64_t seq;
	uint64_t start_ns, end_ns;   /* [start, end), CLOCK_BOOTTIME */
	uint64_t end_skew_ns;	     /* the kernel's interval ended within [end - skew, end] */
	uint64_t late_intervals;     /* deadlines passed before it was cut (a slow reader) */
	uint64_t dropped_tasks;	     /* task state not kept (allocation failed) */
	uint64_t dropped_cpu;	     /* events on CPUs past the collector's table */
	uint64_t missed;	     /* program runs the kernel skipped (recursion) */
	uint64_t dropped_cg_values;  /* cgroup histogram values not kept (bucket map full) */
	uint64_t dropped_dsq_values; /* DSQ histogram values not kept (bucket map full) */
	unsigned nr_cpus, cap;
	struct scx_ksnap_cpu *cpus;
	unsigned nr_cgroups, cg_cap;
	struct scx_ksnap_cgroup *cgroups;
	unsigned nr_dsqs, dsq_cap; /* ids ascending, then at most one 'other' */
	struct scx_ksnap_dsq *dsqs;
};

/* Empty s, keeping its memory. */
void scx_ksnap_reset(struct scx_ksnap *s);
void scx_ksnap_free(struct scx_ksnap *s);
/* Append a CPU (zeroed) and return it. */
struct scx_ksnap_cpu *scx_ksnap_add_cpu(struct scx_ksnap *s, int32_t cpu);
/* Append a cgroup (zeroed) and return it. */
struct scx_ksnap_cgroup *scx_ksnap_add_cgroup(struct scx_ksnap *s, uint64_t id);
/* Append a DSQ (empty) and return it; other: the DSQs past the table (id 0). */
struct scx_ksnap_dsq *scx_ksnap_add_dsq(struct scx_ksnap *s, uint64_t id, bool other);
/* Append bucket idx with n values (idx ascending, n != 0). */
void scx_ksnap_hist_add(struct scx_ksnap_hist *h, uint32_t idx, uint64_t n);

/* The record as one JSON object, without newline. */
void scx_ksnap_to_json(struct scx_buf *b, const struct scx_ksnap *s);
/* Is the object at token 0 of d a kernel snapshot? */
bool scx_ksnap_is(const struct scx_json_doc *d);
/*
 * Decode a kernel snapshot (token 0 of d) into s (reset first).  0, or
 * -EINVAL with a message naming the key and byte offset in err.
 */
int scx_ksnap_from_json(const struct scx_json_doc *d, struct scx_ksnap *s, char *err, size_t errsz);
/* Add h's values to dst, bucket for bucket (dst may hold values already). */
void scx_ksnap_hist_to(const struct scx_ksnap_hist *h, struct scx_hist *dst);

#endif
