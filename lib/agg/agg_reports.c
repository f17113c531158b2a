// SPDX-License-Identifier: GPL-2.0
/*
 * The report table: every report once, with what the engine must keep for
 * it, the function that computes it and one line that says what it shows.
 * Dispatch, "all", scx-agg --help and -r's completions, and scx-mcp's
 * analysis list all read this table; t/9000-docs.t checks that the man
 * page's REPORTS section names exactly these.  A new report is a function
 * in one of the agg_report*.c files (declared in agg_report_int.h) and one
 * row here.
 */
#include <errno.h>
#include <string.h>

#include "agg/agg_report_int.h"

#define T SCX_AGG_NEED_THREADS
#define P SCX_AGG_NEED_PROCESSES
#define PAIRS SCX_AGG_NEED_PAIRS
#define PLACE (SCX_AGG_NEED_PLACE | SCX_AGG_NEED_PLACE_QUEUES)
#define PAR (SCX_AGG_NEED_PLACE | SCX_AGG_NEED_PLACE_PAR)
#define RUNS (PLACE | SCX_AGG_NEED_PLACE_RUNS)

/* The order is the order of "all", of --help and of scx-mcp's list. */
const struct scx_agg_report scx_agg_reports[] = {
	{ "cpu-utilization", 0, agg_rep_cpu_utilization,
	  "utilisation, busy and idle time, switches, slices per CPU" },
	{ "process-runtime", T | P, agg_rep_process_runtime,
	  "runtime, share, switches and run-queue delay per process" },
	{ "wakeup-latency", T, agg_rep_wakeup_latency,
	  "wakeup latency and run-queue delay, per CPU and thread" },
	{ "latency-breakdown", 0, agg_rep_latency_breakdown,
	  "the stages from waking, or preemption, to running" },
	{ "migrations", T, agg_rep_migrations, "migrations within and across LLCs and nodes" },
	{ "task-states", T | P, agg_rep_task_states,
	  "time running, waiting and sleeping per thread and process" },
	{ "preemptions", T | PAIRS, agg_rep_preemptions,
	  "who preempted whom, and how often each thread was" },
	{ "wakeup-graph", T | PAIRS, agg_rep_wakeup_graph,
	  "who woke whom, mutual wakers, the slowest wakeup chains" },
	{ "runqueue-depth", 0, agg_rep_runqueue_depth,
	  "waiting tasks per CPU: average, p50, p99, largest" },
	{ "fairness", T, agg_rep_fairness,
	  "fair share, Gini coefficient, starved and hogging threads" },
	{ "softirq", 0, agg_rep_softirq, "softirq time per vector and per CPU" },
	{ "ipi", 0, agg_rep_ipi, "IPIs sent and received per CPU" },
	{ "cpu-frequency", 0, agg_rep_cpu_frequency, "average frequency per CPU" },
	{ "cpu-idle", 0, agg_rep_cpu_idle, "idle states per CPU: count, time, average, share" },
	{ "dsq", 0, agg_rep_dsq, "sched_ext DSQs: depth, queueing latency, slice used" },
	{ "outliers", T, agg_rep_outliers, "threads and CPUs that four outlier methods flag" },
	{ "bottlenecks", 0, agg_rep_bottlenecks,
	  "rule-based bottlenecks with a severity, worst first" },
	{ "work-conservation", PLACE, agg_rep_work_conservation,
	  "CPUs idle while another had a task waiting, and who waited" },
	{ "runqueue-occupancy", PLACE, agg_rep_runqueue_occupancy,
	  "time each run queue held one, and two, waiting tasks" },
	{ "wakeup-placement", RUNS, agg_rep_wakeup_placement,
	  "where woken tasks ran: prev CPU, same LLC or node, other" },
	{ "pre-migration", RUNS, agg_rep_pre_migration,
	  "how long tasks waited on a CPU before a migration" },
	{ "parallelism", PAR, agg_rep_parallelism,
	  "how many threads were runnable and CPUs active, over time" },
	{ "cgroup-latency", T | SCX_AGG_NEED_CGROUPS, agg_rep_cgroup_latency,
	  "run-queue delay and wakeup latency per cgroup" },
	{ "cgroup-preemptions", T | SCX_AGG_NEED_CGROUP_PAIRS, agg_rep_cgroup_preemptions,
	  "tasks of one cgroup preempted by another cgroup's" },
	{ NULL },
};

const struct scx_agg_report *scx_agg_report_find(const char *name)
{
	for (const struct scx_agg_report *r = scx_agg_reports; r->name; r++)
		if (!strcmp(r->name, name))
			return r;
	return NULL;
}

int scx_agg__report(struct scx_agg *a, const char *name, struct scx_table **out)
{
	const struct scx_agg_report *r = scx_agg_report_find(name);

	*out = NULL;
	if (!a->closed)
		return -EAGAIN;
	if (!r)
		return -ENOENT;
	if ((r->needs & SCX_AGG_NEED_PLACE) && !a->place)
		return -ENODATA; /* the engine was not asked for placement */
	if ((r->needs &
	     (SCX_AGG_NEED_PLACE_PAR | SCX_AGG_NEED_PLACE_RUNS | SCX_AGG_NEED_PLACE_QUEUES)) &
	    ~a->need)
		return -ENODATA; /* ... or not for this report's figures */
	return r->run(a, r->name, out);
}

void agg_report_add(struct scx_agg *a, struct scx_table **out, struct scx_table *t, int sort_col)
{
	if (sort_col >= 0)
		scx_table_sort_desc(t, sort_col);
	scx_table_limit(t, a->o.limit);
	scx_table_append(out, t);
}
