// SPDX-License-Identifier: GPL-2.0
/* The snapshot's metrics by name, and the snapshot as NDJSON, text and OpenMetrics. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agg/agg_int.h"
#include "agg/prom.h"
#include "json/json.h"
#include "agg/table.h"
#include "core/util.h"

/* where a metric applies */
#define A_CPU 1	 /* cpu, llc, node, total */
#define A_TASK 2 /* pid, tgid, comm */
#define A_DSQ 4
#define A_OPT 8 /* left out when zero (sched_ext, frequency...) */

enum {
	M_UTIL,
	M_BUSY,
	M_IDLE,
	M_SLICES,
	M_SWITCHES,
	M_VOL,
	M_INVOL,
	M_WAKEUPS,
	M_WAKEUPS_NEW,
	M_MIGR,
	M_XLLC,
	M_XNODE,
	M_FORKS,
	M_EXECS,
	M_EXITS,
	M_SOFTIRQ_NS,
	M_IRQS,
	M_IRQ_NS,
	M_IPI_SENT,
	M_IPI_RECV,
	M_IPI_NS,
	M_FREQ,
	M_CSTATE_NS,
	M_LOST,
	M_RUNNING,
	M_RUNNABLE,
	M_PREEMPTED,
	M_SLEEPING,
	M_BLOCKED,
	M_DEPTH_AVG,
	M_DEPTH_MAX,
	M_DSQ_INS,
	M_DSQ_DISP,
	M_VTIME,
	M_WAKE_LAT,
	M_RQ_DELAY,
	M_SLICE,
	M_DSQ_LAT,
	M_DSQ_DEPTH,
	M_SLICE_USED,
	M_RQ_DEPTH,
	M_WC_LOSS,
	M__COUNT
};

#define M(id, n, k, w, h) [id] = { n, k, h }
const struct scx_agg_metric scx_agg_metrics[] = {
	M(M_UTIL, "util", SCX_AGG_M_RATIO, 0, "busy time / (interval x cpus); tasks: / interval"),
	M(M_BUSY, "busy_ns", SCX_AGG_M_NS, 0, "time running non-idle tasks (tasks: runtime)"),
	M(M_IDLE, "idle_ns", SCX_AGG_M_NS, 0, "time the idle task ran"),
	M(M_SLICES, "slices", SCX_AGG_M_COUNT, 0, "running intervals begun (switch-ins)"),
	M(M_SWITCHES, "switches", SCX_AGG_M_COUNT, 0, "context switches (switch-outs of tasks)"),
	M(M_VOL, "voluntary", SCX_AGG_M_COUNT, 0, "switch-outs into a sleep state"),
	M(M_INVOL, "involuntary", SCX_AGG_M_COUNT, 0, "switch-outs while runnable (preempted)"),
	M(M_WAKEUPS, "wakeups", SCX_AGG_M_COUNT, 0, "wakeups (cpus: with this target cpu)"),
	M(M_WAKEUPS_NEW, "wakeups_new", SCX_AGG_M_COUNT, 0, "first wakeups of new tasks"),
	M(M_MIGR, "migrations", SCX_AGG_M_COUNT, 0, "task migrations (cpus: into this cpu)"),
	M(M_XLLC, "migr_cross_llc", SCX_AGG_M_COUNT, 0, "migrations between LLCs"),
	M(M_XNODE, "migr_cross_node", SCX_AGG_M_COUNT, 0, "migrations between NUMA nodes"),
	M(M_FORKS, "forks", SCX_AGG_M_COUNT, 0, "forks"),
	M(M_EXECS, "execs", SCX_AGG_M_COUNT, 0, "execs"),
	M(M_EXITS, "exits", SCX_AGG_M_COUNT, 0, "exits"),
	M(M_SOFTIRQ_NS, "softirq_ns", SCX_AGG_M_NS, 0, "time in softirqs, all vectors"),
	M(M_IRQS, "irqs", SCX_AGG_M_COUNT, 0, "hard irqs"),
	M(M_IRQ_NS, "irq_ns", SCX_AGG_M_NS, 0, "time in hard irq handlers"),
	M(M_IPI_SENT, "ipi_sent", SCX_AGG_M_COUNT, 0, "IPIs sent"),
	M(M_IPI_RECV, "ipi_received", SCX_AGG_M_COUNT, 0, "IPIs received"),
	M(M_IPI_NS, "ipi_ns", SCX_AGG_M_NS, 0, "time in IPI handlers"),
	M(M_FREQ, "avg_freq_khz", SCX_AGG_M_KHZ, 0, "time-weighted average frequency"),
	M(M_CSTATE_NS, "cstate_ns", SCX_AGG_M_NS, 0, "time in cpu idle states, all states"),
	M(M_LOST, "lost", SCX_AGG_M_COUNT, 0, "events the producer lost"),
	M(M_RUNNING, "running_ns", SCX_AGG_M_NS, 0, "time running"),
	M(M_RUNNABLE, "runnable_ns", SCX_AGG_M_NS, 0, "time runnable after a wakeup (R)"),
	M(M_PREEMPTED, "preempted_ns", SCX_AGG_M_NS, 0, "time runnable after preemption (R+)"),
	M(M_SLEEPING, "sleeping_ns", SCX_AGG_M_NS, 0, "time sleeping (S, I)"),
	M(M_BLOCKED, "blocked_ns", SCX_AGG_M_NS, 0, "time in uninterruptible sleep (D)"),
	M(M_DEPTH_AVG, "rq_depth_avg", SCX_AGG_M_NUM, 0, "time-weighted tasks waiting to run"),
	M(M_DEPTH_MAX, "rq_depth_max", SCX_AGG_M_NUM, 0, "most tasks waiting to run"),
	M(M_DSQ_INS, "dsq_inserts", SCX_AGG_M_COUNT, 0, "sched_ext: tasks inserted on DSQs"),
	M(M_DSQ_DISP, "dsq_dispatches", SCX_AGG_M_COUNT, 0, "sched_ext: tasks run from DSQs"),
	M(M_VTIME, "vtime_delta", SCX_AGG_M_NUM, 0, "sched_ext: DSQ vtime progression"),
	M(M_WAKE_LAT, "wake_lat", SCX_AGG_M_DIST, 0, "wakeup latency: sched_waking to switch-in"),
	M(M_RQ_DELAY, "rq_delay", SCX_AGG_M_DIST, 0, "run-queue delay: runnable to switch-in"),
	M(M_SLICE, "slice", SCX_AGG_M_DIST, 0, "length of running intervals"),
	M(M_DSQ_LAT, "dsq_lat", SCX_AGG_M_DIST, 0, "sched_ext: time queued on a DSQ"),
	M(M_DSQ_DEPTH, "dsq_depth", SCX_AGG_M_DISTN, 0, "sched_ext: DSQ depth"),
	M(M_SLICE_USED, "slice_used", SCX_AGG_M_DIST, 0, "sched_ext: slice used"),
	M(M_RQ_DEPTH, "rq_depth", SCX_AGG_M_DISTN, 0, "tasks waiting after each enqueue"),
	M(M_WC_LOSS, "wc_loss_ns", SCX_AGG_M_NS, 0,
	  "work-conservation loss: idle while a task waited on another, busy cpu"),
};
const unsigned scx_agg_nr_metrics = M__COUNT;

static const uint8_t applies[M__COUNT] = {
	[M_UTIL] = A_CPU | A_TASK,
	[M_BUSY] = A_CPU | A_TASK,
	[M_IDLE] = A_CPU,
	[M_SLICES] = A_CPU | A_TASK,
	[M_SWITCHES] = A_CPU | A_TASK,
	[M_VOL] = A_CPU | A_TASK,
	[M_INVOL] = A_CPU | A_TASK,
	[M_WAKEUPS] = A_CPU | A_TASK,
	[M_WAKEUPS_NEW] = A_CPU | A_TASK,
	[M_MIGR] = A_CPU | A_TASK,
	[M_XLLC] = A_CPU | A_TASK,
	[M_XNODE] = A_CPU | A_TASK,
	[M_FORKS] = A_CPU | A_TASK,
	[M_EXECS] = A_CPU | A_TASK,
	[M_EXITS] = A_CPU | A_TASK,
	[M_SOFTIRQ_NS] = A_CPU,
	[M_IRQS] = A_CPU,
	[M_IRQ_NS] = A_CPU,
	[M_IPI_SENT] = A_CPU,
	[M_IPI_RECV] = A_CPU,
	[M_IPI_NS] = A_CPU,
	[M_FREQ] = A_CPU | A_OPT,
	[M_CSTATE_NS] = A_CPU,
	[M_LOST] = A_CPU,
	[M_RUNNING] = A_TASK,
	[M_RUNNABLE] = A_TASK,
	[M_PREEMPTED] = A_TASK,
	[M_SLEEPING] = A_TASK,
	[M_BLOCKED] = A_TASK,
	[M_DEPTH_AVG] = A_CPU,
	[M_DEPTH_MAX] = A_CPU,
	[M_DSQ_INS] = A_CPU | A_TASK | A_DSQ | A_OPT,
	[M_DSQ_DISP] = A_CPU | A_TASK | A_DSQ | A_OPT,
	[M_VTIME] = A_DSQ | A_OPT,
	[M_WAKE_LAT] = A_CPU | A_TASK,
	[M_RQ_DELAY] = A_CPU | A_TASK,
	[M_SLICE] = A_CPU | A_TASK,
	[M_DSQ_LAT] = A_CPU | A_TASK | A_DSQ | A_OPT,
	[M_DSQ_DEPTH] = A_CPU | A_DSQ | A_OPT,
	[M_SLICE_USED] = A_CPU | A_TASK | A_DSQ | A_OPT,
	[M_RQ_DEPTH] = A_CPU,
	[M_WC_LOSS] = A_CPU,
};

/* the kind of events each metric needs beyond the switches (SCX_AGG_SEEN_*) */
static const uint64_t needs[M__COUNT] = {
	/* a woken task is first seen when it runs: its wait counts as sleep */
	[M_WAKEUPS] = SCX_AGG_SEEN_WAKE,       [M_WAKEUPS_NEW] = SCX_AGG_SEEN_WAKE,
	[M_RUNNABLE] = SCX_AGG_SEEN_WAKE,      [M_SLEEPING] = SCX_AGG_SEEN_WAKE,
	[M_BLOCKED] = SCX_AGG_SEEN_WAKE,       [M_DEPTH_AVG] = SCX_AGG_SEEN_WAKE,
	[M_DEPTH_MAX] = SCX_AGG_SEEN_WAKE,     [M_WAKE_LAT] = SCX_AGG_SEEN_WAKE,
	[M_RQ_DELAY] = SCX_AGG_SEEN_WAKE,      [M_RQ_DEPTH] = SCX_AGG_SEEN_WAKE,
	[M_WC_LOSS] = SCX_AGG_SEEN_WAKE,       [M_MIGR] = SCX_AGG_SEEN_MIGRATE,
	[M_XLLC] = SCX_AGG_SEEN_MIGRATE,       [M_XNODE] = SCX_AGG_SEEN_MIGRATE,
	[M_FORKS] = SCX_AGG_SEEN(SCX_EV_FORK), [M_EXECS] = SCX_AGG_SEEN(SCX_EV_EXEC),
	[M_EXITS] = SCX_AGG_SEEN(SCX_EV_EXIT), [M_SOFTIRQ_NS] = SCX_AGG_SEEN_SOFTIRQ,
	[M_IRQS] = SCX_AGG_SEEN_IRQ,	       [M_IRQ_NS] = SCX_AGG_SEEN_IRQ,
	[M_IPI_SENT] = SCX_AGG_SEEN_IPI,       [M_IPI_RECV] = SCX_AGG_SEEN_IPI,
	[M_IPI_NS] = SCX_AGG_SEEN_IPI_HANDLER, [M_CSTATE_NS] = SCX_AGG_SEEN_IDLE,
};

int scx_agg_metric_index(const char *name)
{
	for (unsigned i = 0; i < M__COUNT; i++)
		if (!strcmp(scx_agg_metrics[i].name, name))
			return (int)i;
	return -1;
}

bool scx_agg_metric_unknown(const struct scx_agg_snap *s, unsigned i)
{
	if (i == M_RQ_DEPTH && (s->seen & SCX_AGG_SEEN_KERNEL))
		return true; /* the kernel keeps the depth's integral and largest only */
	return i < M__COUNT && needs[i] && !(s->seen & needs[i]);
}

/* metric i applies to group g but is unknown: exporters write null, "-", NaN */
static bool unknown_here(const struct scx_agg_snap *sn, const struct scx_agg_group *g, unsigned i)
{
	enum scx_agg_by by = g ? g->by : SCX_AGG_CPU;
	uint8_t where = by <= SCX_AGG_NODE ? A_CPU : by == SCX_AGG_DSQ ? A_DSQ : A_TASK;

	return scx_agg_metric_unknown(sn, i) && (applies[i] & where);
}

static uint64_t sum10(const uint64_t *v, int n)
{
	uint64_t s = 0;

	for (int i = 0; i < n; i++)
		s += v[i];
	return s;
}

bool scx_agg_metric_get(const struct scx_agg_snap *sn, const struct scx_agg_group *g, unsigned i,
			double *v, struct scx_dist *d)
{
	const struct scx_agg_stats *s = g ? g->s : &sn->total;
	enum scx_agg_by by = g ? g->by : SCX_AGG_CPU;
	unsigned ncpu = g ? g->nr : sn->nr_cpus;
	uint8_t where = by <= SCX_AGG_NODE ? A_CPU : by == SCX_AGG_DSQ ? A_DSQ : A_TASK;
	uint64_t dur = sn->end_ns > sn->start_ns ? sn->end_ns - sn->start_ns : 0;
	const struct scx_hist *h = NULL;

	if (i >= M__COUNT || !(applies[i] & where) || scx_agg_metric_unknown(sn, i))
		return false;
	*v = 0;
	switch (i) {
	case M_UTIL:
		if (!dur)
			return false;
		*v = (double)s->busy_ns / dur / (where == A_CPU ? SCX_MAX(ncpu, 1u) : 1);
		return true;
	case M_BUSY:
		*v = s->busy_ns;
		break;
	case M_IDLE:
		*v = s->idle_ns;
		break;
	case M_SLICES:
		*v = s->slices;
		break;
	case M_SWITCHES:
		*v = s->switches;
		break;
	case M_VOL:
		*v = s->voluntary;
		break;
	case M_INVOL:
		*v = s->involuntary;
		break;
	case M_WAKEUPS:
		*v = s->wakeups;
		break;
	case M_WAKEUPS_NEW:
		*v = s->wakeups_new;
		break;
	case M_MIGR:
		*v = s->migrations;
		break;
	case M_XLLC:
		*v = s->migr_cross_llc;
		break;
	case M_XNODE:
		*v = s->migr_cross_node;
		break;
	case M_FORKS:
		*v = s->forks;
		break;
	case M_EXECS:
		*v = s->execs;
		break;
	case M_EXITS:
		*v = s->exits;
		break;
	case M_SOFTIRQ_NS:
		*v = sum10(s->softirq_ns, SCX_NR_SOFTIRQS);
		break;
	case M_IRQS:
		*v = s->irqs;
		break;
	case M_IRQ_NS:
		*v = s->irq_ns;
		break;
	case M_IPI_SENT:
		*v = s->ipi_sent;
		break;
	case M_IPI_RECV:
		*v = s->ipi_received;
		break;
	case M_IPI_NS:
		*v = s->ipi_ns;
		break;
	case M_FREQ:
		if (!s->freq_ns)
			return false;
		*v = s->freq_khz_ns / s->freq_ns;
		return true;
	case M_CSTATE_NS:
		*v = sum10(s->cstate_ns, SCX_AGG_IDLE_STATES);
		break;
	case M_LOST:
		*v = s->lost;
		break;
	case M_RUNNING:
		*v = s->running_ns;
		break;
	case M_RUNNABLE:
		*v = s->runnable_ns;
		break;
	case M_PREEMPTED:
		*v = s->preempted_ns;
		break;
	case M_SLEEPING:
		*v = s->sleeping_ns;
		break;
	case M_BLOCKED:
		*v = s->blocked_ns;
		break;
	case M_DEPTH_AVG:
		if (!dur)
			return false;
		*v = (double)s->rq_depth_ns / dur / SCX_MAX(ncpu, 1u);
		return true;
	case M_DEPTH_MAX:
		*v = s->rq_depth_max;
		break;
	case M_WC_LOSS:
		*v = s->wc_loss_ns;
		break;
	case M_DSQ_INS:
		*v = s->dsq_inserts;
		break;
	case M_DSQ_DISP:
		*v = s->dsq_dispatches;
		break;
	case M_VTIME:
		if (s->vtime_max < s->vtime_min)
			return false;
		*v = (double)(s->vtime_max - s->vtime_min);
		return true;
	case M_WAKE_LAT:
		h = &s->wake_lat;
		break;
	case M_RQ_DELAY:
		h = &s->rq_delay;
		break;
	case M_SLICE:
		h = &s->slice;
		break;
	case M_DSQ_LAT:
		h = &s->dsq_lat;
		break;
	case M_DSQ_DEPTH:
		h = &s->dsq_depth;
		break;
	case M_SLICE_USED:
		/*
		 * count and mean from the counters, kept even when a consumer
		 * skips the histogram (scx-top): the quantiles need it
		 */
		if (!s->slice_used_n)
			return false;
		scx_hist_dist(&s->slice_used, d);
		d->count = s->slice_used_n;
		d->avg = (double)s->slice_used_ns / s->slice_used_n;
		return true;
	case M_RQ_DEPTH:
		h = &s->rq_depth;
		break;
	}
	if (h) {
		if ((applies[i] & A_OPT) && !h->count)
			return false;
		scx_hist_dist(h, d);
		return true;
	}
	return !((applies[i] & A_OPT) && *v == 0);
}

/* ---- NDJSON ---------------------------------------------------------------------- */

static void json_metrics(struct scx_jw *w, const struct scx_agg_snap *sn,
			 const struct scx_agg_group *g)
{
	const struct scx_agg_stats *s = g ? g->s : &sn->total;
	double v;
	struct scx_dist d;

	for (unsigned i = 0; i < M__COUNT; i++) {
		enum scx_agg_mkind k = scx_agg_metrics[i].kind;

		if (!scx_agg_metric_get(sn, g, i, &v, &d)) {
			if (unknown_here(sn, g, i)) {
				scx_jw_key(w, scx_agg_metrics[i].name);
				scx_jw_null(w);
			}
			continue;
		}
		scx_jw_key(w, scx_agg_metrics[i].name);
		if (k == SCX_AGG_M_DIST || k == SCX_AGG_M_DISTN)
			scx_table_jw_dist(w, &d);
		else if (k == SCX_AGG_M_RATIO || k == SCX_AGG_M_NUM || k == SCX_AGG_M_KHZ)
			scx_jw_num(w, v);
		else
			scx_jw_uint(w, (uint64_t)v);
		if (i == M_SOFTIRQ_NS && v > 0) {
			scx_jw_key(w, "softirq");
			scx_jw_obj_begin(w);
			for (int k2 = 0; k2 < SCX_NR_SOFTIRQS; k2++) {
				if (!s->softirqs[k2] && !s->softirq_ns[k2])
					continue;
				scx_jw_key(w, scx_softirq_names[k2]);
				scx_jw_obj_begin(w);
				scx_jw_kuint(w, "count", s->softirqs[k2]);
				scx_jw_kuint(w, "ns", s->softirq_ns[k2]);
				scx_jw_obj_end(w);
			}
			scx_jw_obj_end(w);
		}
		if (i == M_CSTATE_NS && (v > 0 || sum10(s->cstates, SCX_AGG_IDLE_STATES))) {
			static const char *const nm[] = { "0", "1", "2", "3", "4", "5", "6", "7" };

			scx_jw_key(w, "cstates");
			scx_jw_obj_begin(w);
			for (int k2 = 0; k2 < SCX_AGG_IDLE_STATES; k2++) {
				if (!s->cstates[k2] && !s->cstate_ns[k2])
					continue;
				scx_jw_key(w, nm[k2]);
				scx_jw_obj_begin(w);
				scx_jw_kuint(w, "count", s->cstates[k2]);
				scx_jw_kuint(w, "ns", s->cstate_ns[k2]);
				scx_jw_obj_end(w);
			}
			scx_jw_obj_end(w);
		}
	}
}

void scx_agg_group_key_json(struct scx_jw *w, const struct scx_agg_group *g)
{
	switch (g->by) {
	case SCX_AGG_CPU:
		scx_jw_kint(w, "cpu", g->key);
		break;
	case SCX_AGG_LLC:
	case SCX_AGG_NODE:
		scx_jw_kint(w, scx_agg_by_names[g->by], g->key);
		scx_jw_kuint(w, "cpus", g->nr);
		break;
	case SCX_AGG_PID:
		scx_jw_kint(w, "pid", g->key);
		scx_jw_kint(w, "tgid", g->tgid);
		scx_jw_kstr(w, "comm", g->comm);
		break;
	case SCX_AGG_TGID:
		scx_jw_kint(w, "tgid", g->key);
		scx_jw_kstr(w, "comm", g->comm);
		scx_jw_kuint(w, "threads", g->nr);
		break;
	case SCX_AGG_COMM:
		scx_jw_kstr(w, "comm", g->comm);
		scx_jw_kuint(w, "threads", g->nr);
		break;
	case SCX_AGG_DSQ:
		scx_jw_kuint(w, "dsq", (uint64_t)g->key);
		break;
	case SCX_AGG_CGROUP:
		scx_jw_key(w, "cgroup");
		scx_jw_strn(w, g->name, strlen(g->name));
		scx_jw_kuint(w, "threads", g->nr);
		break;
	default:
		break;
	}
}

void scx_agg_snap_json(struct scx_buf *b, const struct scx_agg_snap *s)
{
	struct scx_jw w;

	scx_jw_init(&w, b);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "type", "snapshot");
	scx_jw_kuint(&w, "seq", s->seq);
	scx_jw_kuint(&w, "start_ns", s->start_ns);
	scx_jw_kuint(&w, "end_ns", s->end_ns);
	scx_jw_kuint(&w, "dur_ns", s->end_ns - s->start_ns);
	scx_jw_kbool(&w, "final", s->final);
	scx_jw_kuint(&w, "events", s->events);
	scx_jw_kuint(&w, "lost", s->lost);
	scx_jw_kuint(&w, "unknown", s->unknown);
	scx_jw_kuint(&w, "out_of_order", s->out_of_order);
	scx_jw_kuint(&w, "threads", s->nr_threads);
	scx_jw_kuint(&w, "tasks_dropped", s->tasks_dropped);
	/* kernel snapshots only, and only when it happened */
	if (s->late_intervals)
		scx_jw_kuint(&w, "late_intervals", s->late_intervals);
	scx_jw_kuint(&w, "cpus", s->nr_cpus);
	if (s->scx.ts) {
		scx_jw_key(&w, "sched_ext");
		scx_jw_obj_begin(&w);
		scx_stats_json_fields(&w, &s->scx);
		scx_jw_obj_end(&w);
	}
	scx_jw_key(&w, "total");
	scx_jw_obj_begin(&w);
	json_metrics(&w, s, NULL);
	scx_jw_obj_end(&w);
	scx_jw_key(&w, "groups");
	scx_jw_obj_begin(&w);
	for (int k = 0; k < SCX_AGG_BY__COUNT; k++) {
		if (!s->groups[k] || (!s->nr[k] && k <= SCX_AGG_NODE))
			continue;
		scx_jw_key(&w, scx_agg_by_names[k]);
		scx_jw_arr_begin(&w);
		for (unsigned i = 0; i < s->nr[k]; i++) {
			scx_jw_obj_begin(&w);
			scx_agg_group_key_json(&w, &s->groups[k][i]);
			json_metrics(&w, s, &s->groups[k][i]);
			scx_jw_obj_end(&w);
		}
		scx_jw_arr_end(&w);
	}
	scx_jw_obj_end(&w);
	scx_jw_obj_end(&w);
	scx_buf_add(b, "\n", 1);
}

/* ---- text ------------------------------------------------------------------------- */

/* The columns a person reads first; the NDJSON has everything. */
static const int text_cpu[] = {
	M_UTIL,	 M_SWITCHES,   M_INVOL, M_WAKEUPS,  M_MIGR,	M_XLLC,
	M_XNODE, M_SOFTIRQ_NS, M_LOST,	M_WAKE_LAT, M_RQ_DELAY, -1,
};
static const int text_task[] = {
	M_UTIL, M_BUSY, M_SWITCHES, M_INVOL, M_WAKEUPS, M_MIGR, M_WAKE_LAT, M_RQ_DELAY, -1,
};
static const int text_dsq[] = { M_DSQ_INS, M_DSQ_DISP, M_VTIME, M_DSQ_LAT, M_DSQ_DEPTH, -1 };

static struct scx_table *group_table(const struct scx_agg_snap *s, int k)
{
	const int *ms = k <= SCX_AGG_NODE ? text_cpu : k == SCX_AGG_DSQ ? text_dsq : text_task;
	const char *cols[SCX_TABLE_MAX_COLS + 1];
	char buf[SCX_TABLE_MAX_COLS][48];
	unsigned n = 0, nkeys;
	struct scx_table *t;

	switch (k) {
	case SCX_AGG_PID:
		cols[n++] = "pid:i:key";
		cols[n++] = "comm:s";
		break;
	case SCX_AGG_TGID:
		cols[n++] = "tgid:i:key";
		cols[n++] = "comm:s";
		cols[n++] = "threads:u";
		break;
	case SCX_AGG_COMM:
		cols[n++] = "comm:s:key";
		cols[n++] = "threads:u";
		break;
	case SCX_AGG_DSQ:
		cols[n++] = "dsq:u:key";
		break;
	case SCX_AGG_CGROUP:
		cols[n++] = "cgroup:s:key";
		cols[n++] = "threads:u";
		break;
	default:
		snprintf(buf[0], sizeof(buf[0]), "%s:i:key", scx_agg_by_names[k]);
		cols[n++] = buf[0];
		break;
	}
	nkeys = n;
	for (const int *m = ms; *m >= 0; m++) {
		enum scx_agg_mkind mk = scx_agg_metrics[*m].kind;
		const char *kind = mk == SCX_AGG_M_DIST	 ? "dist" :
				   mk == SCX_AGG_M_NS	 ? "ns" :
				   mk == SCX_AGG_M_RATIO ? "pct" :
				   mk == SCX_AGG_M_COUNT ? "u" :
							   "n";

		snprintf(buf[n], sizeof(buf[n]), "%s:%s", scx_agg_metrics[*m].name, kind);
		cols[n] = buf[n];
		n++;
	}
	cols[n] = NULL;
	t = scx_table_new("snapshot", scx_agg_by_names[k], cols);
	for (unsigned i = 0; i < s->nr[k]; i++) {
		const struct scx_agg_group *g = &s->groups[k][i];
		unsigned r = scx_table_row(t), c = 0;
		struct scx_dist d;
		double v;

		switch (k) {
		case SCX_AGG_PID:
			scx_table_int(t, r, c++, g->key);
			scx_table_str(t, r, c++, g->comm);
			break;
		case SCX_AGG_TGID:
			scx_table_int(t, r, c++, g->key);
			scx_table_str(t, r, c++, g->comm);
			scx_table_uint(t, r, c++, g->nr);
			break;
		case SCX_AGG_COMM:
			scx_table_str(t, r, c++, g->comm);
			scx_table_uint(t, r, c++, g->nr);
			break;
		case SCX_AGG_CGROUP:
			scx_table_str(t, r, c++, g->name);
			scx_table_uint(t, r, c++, g->nr);
			break;
		default:
			scx_table_int(t, r, c++, g->key);
			break;
		}
		c = nkeys;
		for (const int *m = ms; *m >= 0; m++, c++) {
			if (!scx_agg_metric_get(s, g, *m, &v, &d)) {
				if (unknown_here(s, g, *m))
					scx_table_unknown(t, r, c);
				continue;
			}
			switch (scx_agg_metrics[*m].kind) {
			case SCX_AGG_M_DIST:
				scx_table_dist(t, r, c, &d);
				break;
			case SCX_AGG_M_RATIO:
				scx_table_num(t, r, c, v * 100);
				break;
			case SCX_AGG_M_COUNT:
			case SCX_AGG_M_NS:
				scx_table_uint(t, r, c, (uint64_t)v);
				break;
			default:
				scx_table_num(t, r, c, v);
				break;
			}
		}
	}
	return t;
}

void scx_agg_snap_text(struct scx_buf *b, const struct scx_agg_snap *s)
{
	char t0[32], t1[32];
	struct scx_report_ctx ctx = { s->seq, s->start_ns, s->end_ns };

	scx_buf_printf(b, "interval %llu: %s .. %s (%s)  events %llu  lost %llu  unknown %llu\n",
		       (unsigned long long)s->seq, scx_fmt_ns(s->start_ns, t0, sizeof(t0)),
		       scx_fmt_ns(s->end_ns, t1, sizeof(t1)), s->final ? "final" : "full",
		       (unsigned long long)s->events, (unsigned long long)s->lost,
		       (unsigned long long)s->unknown);
	if (s->tasks_dropped) /* past --max-tasks */
		scx_buf_printf(b, "tasks dropped %llu (forgotten past the task limit)\n",
			       (unsigned long long)s->tasks_dropped);
	if (s->scx.ts) {
		scx_stats_text(b, &s->scx);
		scx_buf_addstr(b, "\n");
	}
	for (int k = 0; k < SCX_AGG_BY__COUNT; k++) {
		struct scx_table *t;

		if (!s->groups[k] || !s->nr[k])
			continue;
		t = group_table(s, k);
		scx_report_text(b, t, &ctx);
		scx_table_free(t);
	}
}

/* ---- OpenMetrics ------------------------------------------------------------------ */

static void om_labels(struct scx_buf *b, const struct scx_agg_group *g, const char *extra)
{
	scx_buf_addstr(b, "{");
	if (!g) {
		scx_buf_addstr(b, "scope=\"total\"");
	} else {
		switch (g->by) {
		case SCX_AGG_PID:
			scx_buf_printf(b, "pid=\"%lld\",tgid=\"%d\",comm=", (long long)g->key,
				       g->tgid);
			scx_json_escape(b, g->comm, strnlen(g->comm, SCX_COMM_LEN));
			break;
		case SCX_AGG_TGID:
			scx_buf_printf(b, "tgid=\"%lld\",comm=", (long long)g->key);
			scx_json_escape(b, g->comm, strnlen(g->comm, SCX_COMM_LEN));
			break;
		case SCX_AGG_COMM:
			scx_buf_addstr(b, "comm=");
			scx_json_escape(b, g->comm, strnlen(g->comm, SCX_COMM_LEN));
			break;
		case SCX_AGG_DSQ:
			scx_buf_printf(b, "dsq=\"%llu\"", (unsigned long long)g->key);
			break;
		case SCX_AGG_CGROUP:
			scx_buf_addstr(b, "cgroup=");
			scx_prom_label_escape(b, g->name);
			break;
		default:
			scx_buf_printf(b, "%s=\"%lld\"", scx_agg_by_names[g->by],
				       (long long)g->key);
			break;
		}
	}
	if (extra)
		scx_buf_printf(b, ",%s", extra);
	scx_buf_addstr(b, "}");
}

/* metric name for OpenMetrics: ns become seconds */
static void om_name(char *buf, size_t n, unsigned i)
{
	const struct scx_agg_metric *m = &scx_agg_metrics[i];
	size_t l = strlen(m->name);

	if (l > 3 && !strcmp(m->name + l - 3, "_ns"))
		snprintf(buf, n, "scx_%.*s_seconds", (int)(l - 3), m->name);
	else if (m->kind == SCX_AGG_M_DIST)
		snprintf(buf, n, "scx_%s_seconds", m->name);
	else
		snprintf(buf, n, "scx_%s", m->name);
}

void scx_agg_snap_openmetrics(struct scx_buf *b, const struct scx_agg_snap *s)
{
	char name[64];

	scx_buf_printf(b, "# TYPE scx_interval_seconds gauge\nscx_interval_seconds %.9f\n",
		       (s->end_ns - s->start_ns) / 1e9);
	scx_buf_printf(b, "# TYPE scx_events gauge\nscx_events %llu\n",
		       (unsigned long long)s->events);
	scx_buf_printf(b, "# TYPE scx_lost_events gauge\nscx_lost_events %llu\n",
		       (unsigned long long)s->lost);
	scx_buf_printf(b, "# TYPE scx_tasks_dropped gauge\nscx_tasks_dropped %llu\n",
		       (unsigned long long)s->tasks_dropped);
	if (s->scx.ts)
		scx_prom_scx_stats(b, &s->scx, false);
	for (unsigned i = 0; i < M__COUNT; i++) {
		const struct scx_agg_metric *m = &scx_agg_metrics[i];
		bool dist = m->kind == SCX_AGG_M_DIST || m->kind == SCX_AGG_M_DISTN;
		double scale = m->kind == SCX_AGG_M_NS || m->kind == SCX_AGG_M_DIST ? 1e-9 : 1;
		bool head = false;

		om_name(name, sizeof(name), i);
		for (int k = -1; k < SCX_AGG_BY__COUNT; k++) {
			unsigned n = k < 0 ? 1 : s->groups[k] ? s->nr[k] : 0;

			for (unsigned j = 0; j < n; j++) {
				const struct scx_agg_group *g = k < 0 ? NULL : &s->groups[k][j];
				struct scx_dist d;
				double v;

				bool unknown = unknown_here(s, g, i);

				if (!unknown && !scx_agg_metric_get(s, g, i, &v, &d))
					continue;
				if (unknown && dist)
					continue; /* a summary has no NaN form */
				if (!head) {
					scx_buf_printf(b, "# TYPE %s %s\n# HELP %s %s\n", name,
						       dist ? "summary" : "gauge", name, m->help);
					head = true;
				}
				if (!dist) {
					scx_buf_addstr(b, name);
					om_labels(b, g, NULL);
					if (unknown)
						scx_buf_addstr(
							b, " NaN\n"); /* OpenMetrics' spelling */
					else
						scx_buf_printf(b, " %.9g\n", v * scale);
					continue;
				}
				static const char *const q[] = { "0.5", "0.9", "0.99", "0.999" };
				uint64_t qv[] = { d.p50, d.p90, d.p99, d.p999 };

				for (int x = 0; x < 4 && d.count; x++) {
					char l[32];

					snprintf(l, sizeof(l), "quantile=\"%s\"", q[x]);
					scx_buf_addstr(b, name);
					om_labels(b, g, l);
					scx_buf_printf(b, " %.9g\n", qv[x] * scale);
				}
				scx_buf_printf(b, "%s_count", name);
				om_labels(b, g, NULL);
				scx_buf_printf(b, " %llu\n%s_sum", (unsigned long long)d.count,
					       name);
				om_labels(b, g, NULL);
				scx_buf_printf(b, " %.9g\n", d.avg * d.count * scale);
			}
		}
	}
}
