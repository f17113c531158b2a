/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx-agg's metrics as scx-top's columns (topview_metric.c), for both inputs:
 * an in-process lib/agg snapshot (topview_agg.c) reads the figures agg
 * computed (scx_agg_metric_get()), an scx-agg snapshot line (topview_snap.c)
 * reads the same figures back from their JSON.  Either way one table says
 * which metric fills which column, and one function puts it there, so the
 * two inputs cannot show different numbers.  Not an API.
 */
#ifndef SCX_TOPVIEW_INT_H
#define SCX_TOPVIEW_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "top/topview.h"

/* What a member of a snapshot's group object is to scx-top. */
enum top_key {
	K_COL, /* a metric shown as is (or per second: rate) in one column */
	K_ID,  /* a group's id or its parent's ("cpu", "tgid", ...) */
	K_COMM,
	K_CGROUP,   /* a cgroup group's path: its id and label */
	K_CPUS,	    /* the CPUs of an LLC or node group */
	K_THREADS,  /* the threads of a process */
	K_SIRQ,	    /* softirq ns: a share of the CPUs' time */
	K_WAKE_LAT, /* distributions: their p50, p90, p99 */
	K_DSQ_LAT,
	K_SLICE_USED, /* its average */
	K_DSQ_DEPTH,  /* its average and largest */
};

struct top_member {
	const char *name;
	unsigned len;
	enum top_key key;
	int col;
	bool rate;
};

/* The member named s (n bytes), NULL for one no view shows. */
const struct top_member *top_member_find(const char *s, unsigned n);

/*
 * The parts of a distribution scx-top shows, as doubles (a JSON line may
 * hold any number); 'have' has a TOP_D_* bit for each one known.
 */
struct top_dist {
	double count, avg, p50, p90, p99, max;
	unsigned have;
};
#define TOP_D_COUNT 1u
#define TOP_D_AVG 2u
#define TOP_D_P50 4u
#define TOP_D_P90 8u
#define TOP_D_P99 16u
#define TOP_D_MAX 32u

/* A row being filled: what the columns need beyond one metric. */
struct top_fill {
	double secs; /* the interval */
	bool dsq;    /* a DSQ row: its latency is dsq_lat, not wake_lat */
	double sirq; /* softirq ns, -1 unknown */
};

/*
 * Put metric mb of a group into r: v for a number, d for a distribution.
 * Call top_fill_done() after the last.
 */
void top_fill_metric(struct top_row *r, struct top_fill *f, const struct top_member *mb, double v,
		     const struct top_dist *d);
/* The columns that need more than one metric; cpus: the group's CPUs (1 for tasks). */
void top_fill_done(struct top_row *r, const struct top_fill *f, double cpus);
/* A cgroup row's label: its path, or the end of it when it is too long ("..." first). */
void top_label_path(struct top_row *r, const char *path);
/* A cgroup row's id from its path, the same in every window (FNV-1a, >= 0). */
int64_t top_path_id(const char *path);

#endif
