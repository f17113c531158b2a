/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the report files share (agg_report*.c, agg_analysis.c): the report
 * functions that the report table (agg_reports.c) dispatches to, how a
 * finished table joins a report, and the loops over CPUs, LLCs, nodes and
 * threads.  Not an API.
 */
#ifndef SCX_AGG_REPORT_INT_H
#define SCX_AGG_REPORT_INT_H

#include <math.h>

#include "agg/agg_int.h"
#include "agg/table.h"

/*
 * A report function: appends report r's tables to *out (the name is the
 * first column of every row in the NDJSON output).  0 or -errno.
 */
#define AGG_REPORT(fn) int fn(struct scx_agg *a, const char *r, struct scx_table **out)

AGG_REPORT(agg_rep_process_runtime); /* agg_report.c: tasks */
AGG_REPORT(agg_rep_wakeup_latency);
AGG_REPORT(agg_rep_latency_breakdown);
AGG_REPORT(agg_rep_migrations);
AGG_REPORT(agg_rep_task_states);
AGG_REPORT(agg_rep_preemptions);
AGG_REPORT(agg_rep_wakeup_graph);
AGG_REPORT(agg_rep_cpu_utilization); /* agg_report_cpu.c: CPUs and queues */
AGG_REPORT(agg_rep_runqueue_depth);
AGG_REPORT(agg_rep_softirq);
AGG_REPORT(agg_rep_ipi);
AGG_REPORT(agg_rep_cpu_frequency);
AGG_REPORT(agg_rep_cpu_idle);
AGG_REPORT(agg_rep_dsq);
AGG_REPORT(agg_rep_fairness); /* agg_analysis.c: analyses */
AGG_REPORT(agg_rep_outliers);
AGG_REPORT(agg_rep_bottlenecks);
AGG_REPORT(agg_rep_work_conservation); /* agg_report_place.c: placement */
AGG_REPORT(agg_rep_runqueue_occupancy);
AGG_REPORT(agg_rep_wakeup_placement);
AGG_REPORT(agg_rep_pre_migration);
AGG_REPORT(agg_rep_parallelism);
AGG_REPORT(agg_rep_cgroup_latency); /* agg_report_cgroup.c: cgroups */
AGG_REPORT(agg_rep_cgroup_preemptions);

/*
 * Append t to *out, sorted by column sort_col descending (-1: as filled)
 * and cut to the engine's row limit.
 */
void agg_report_add(struct scx_agg *a, struct scx_table **out, struct scx_table *t, int sort_col);

/*
 * A "summary" table of a pair table: its pairs, and the events past its
 * bound (unattributed: in no pair row); known false: both unknown.
 */
void agg_pairs_summary(struct scx_agg *a, const char *r, const struct ptab *pt, bool known,
		       struct scx_table **out);

static inline double agg_pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * part / whole : 0;
}

/* The stream has had events of the kind kinds (SCX_AGG_SEEN_*: one of its types). */
static inline bool agg_seen(const struct scx_agg *a, uint64_t kinds)
{
	return a->snap.seen & kinds;
}

/*
 * A figure the stream cannot give (agg_seen() false, no topology) is an
 * unknown cell: null in NDJSON, "-" in text, NaN in OpenMetrics; never 0.
 */
static inline double known_or_nan(bool known, double v)
{
	return known ? v : NAN;
}

static inline void known_uint(struct scx_table *t, unsigned row, unsigned col, bool known,
			      uint64_t v)
{
	if (known)
		scx_table_uint(t, row, col, v);
	else
		scx_table_unknown(t, row, col);
}

static inline void known_num(struct scx_table *t, unsigned row, unsigned col, bool known, double v)
{
	scx_table_num(t, row, col, known_or_nan(known, v));
}

static inline void known_hist(struct scx_table *t, unsigned row, unsigned col, bool known,
			      const struct scx_hist *h)
{
	if (known)
		scx_table_hist(t, row, col, h);
	else
		scx_table_unknown(t, row, col);
}

/* The CPUs the engine knows, as const struct cpu *c. */
#define FOR_CPUS(a, c) \
	for (unsigned c##_i = 0; c##_i < (a)->nr_cpus; c##_i++) \
		for (const struct cpu *c = &(a)->cpus[c##_i]; c; c = NULL) \
			if (agg_cpu_present(a, c##_i))

/* The LLC (node) slots with CPUs: slot i is LLC (node) i - 1. */
#define FOR_LLC_SLOTS(a, i) \
	for (unsigned i = 1; i < (a)->nr_llc_slots; i++) \
		if ((a)->llc_cpus[i])
#define FOR_NODE_SLOTS(a, i) \
	for (unsigned i = 1; i < (a)->nr_node_slots; i++) \
		if ((a)->node_cpus[i])

/* The threads with anything in the interval (break leaves both loops). */
#define FOR_THREADS(a, t) \
	for (size_t t##_pos = 0, t##_once = 1; t##_once; t##_once = 0) \
		for (struct thread * t; (t = agg_thread_next(a, &t##_pos));) \
			if (t->has_stats && agg_stats_active(&t->s))

#endif
