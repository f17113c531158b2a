/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The aggregation engine: feed it struct scx_event in time order, and it
 * cuts event time into intervals and, for each, hands back one snapshot of
 * metrics per CPU, LLC, NUMA node, thread, process, comm and DSQ, plus named
 * analyses ("reports").  scx-agg is its command line; scx-top and scx-mcp
 * call it directly.
 *
 *	struct scx_agg_opts o = { .interval_ns = 1000000000, .emit = on_snap };
 *	struct scx_agg *a = scx_agg__new(topo, &o);
 *	while (scx_reader__next(r, &e) == SCX_READ_EVENT)
 *		scx_agg__add(a, &e);		// on_snap() runs at each boundary
 *	scx_agg__flush(a);			// the last, partial interval
 *	scx_agg__free(a);
 *
 * Intervals are in event time: [t0 + k*interval, t0 + (k+1)*interval), t0 the
 * first event's timestamp, so replaying a recording gives the live output.
 * Running, idle, frequency and state time that crosses a boundary is split
 * at the boundary (trace_processor instead drops the overflow of a slice
 * into the next partition).  An interval in which no event arrived is still
 * emitted (a CPU kept running its task through it).
 *
 * Inside emit(), and after scx_agg__flush() until the next add, the engine
 * holds the closed interval: the snapshot, scx_agg__report() and the group
 * pointers are valid then and no longer after the next add/advance.
 *
 * Definitions (after trace_processor and perf sched latency; man/scx-agg.1):
 *  - busy: time a CPU ran a non-idle task (pid != 0); a task's runtime.  Time
 *    on a CPU before its first sched_switch is unknown, neither busy nor idle.
 *  - util = busy / (interval length x CPUs in the group); for task groups
 *    busy / interval length (a process may exceed 1).
 *  - wake_lat: sched_waking (sched_wakeup when the stream has no waking, and
 *    sched_wakeup_new) to the switch-in of that task, on the CPU it ran on.
 *    A waking for a task that is running or runnable is spurious, ignored.
 *  - rq_delay: every runnable period before a switch-in: wakeups and waits
 *    after preemption (prev_state R or R+), i.e. perf sched latency's delay
 *    and trace_processor's sched latency.
 *  - voluntary switch: prev_state not runnable; involuntary: R or R+.
 *  - migrations: sched_migrate_task, counted on the destination CPU and on
 *    the task; cross_llc / cross_node compare the two CPUs' LLC and node.
 *  - wakeups are counted on the target CPU; ipi_sent on the sender,
 *    ipi_received on the target.
 *  - wc_loss (work-conservation loss): time a CPU was idle with nothing
 *    queued for it while a task waited on a CPU that was running another;
 *    CPUs before their first switch take no part.
 *
 * Memory: per-CPU state, one entry per live thread (dropped at
 * sched_process_free; with --by pid kept until the end of that interval; a
 * few hundred bytes, with the thread's own figures about 2 KB when a
 * requested output needs them; at most max_tasks of them), and
 * per-interval tables (processes, comms, DSQs, waker/wakee and preemption
 * pairs) emptied after each interval.
 */
#ifndef SCX_AGG_H
#define SCX_AGG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/event.h"
#include "core/hist.h"
#include "core/topo.h"
#include "stream/scx_stats.h"

/* Group kinds; also the words of --by. */
enum scx_agg_by {
	SCX_AGG_CPU = 0,
	SCX_AGG_LLC,
	SCX_AGG_NODE,
	SCX_AGG_PID,  /* thread */
	SCX_AGG_TGID, /* process */
	SCX_AGG_COMM,
	SCX_AGG_DSQ,
	SCX_AGG_CGROUP, /* cgroup v2 path, folded to cgroup_depth levels */
	SCX_AGG_BY__COUNT
};
#define SCX_AGG_BY_DEFAULT ((1u << SCX_AGG_CPU) | (1u << SCX_AGG_LLC) | (1u << SCX_AGG_NODE))

#define SCX_NR_SOFTIRQS 10    /* HI TIMER NET_TX NET_RX BLOCK IRQ_POLL TASKLET SCHED HRTIMER RCU */
#define SCX_AGG_IDLE_STATES 8 /* cpu_idle states 0..7; deeper ones count as 7 */

/*
 * Metrics of one group over one interval.  Counters are plain sums.  The
 * order is for the cache: what every switch or wakeup counts fills the first
 * two lines (the per-CPU stats do not stay in cache on big machines).
 */
struct scx_agg_stats {
	uint64_t busy_ns;  /* non-idle running time (tasks: runtime) */
	uint64_t idle_ns;  /* CPU groups: the idle task ran */
	uint64_t slices;   /* running intervals begun (switch-ins of tasks) */
	uint64_t switches; /* switch-outs of tasks */
	uint64_t voluntary, involuntary;
	uint64_t wakeups;     /* sched_waking (tasks: woken; CPUs: target) */
	uint64_t wakeups_new; /* sched_wakeup_new */
	uint64_t migrations, migr_cross_llc, migr_cross_node;
	/* sched_ext: switch-outs with slice data and the slice they used (the
	 * mean without the slice_used histogram, see skip_hists) */
	uint64_t slice_used_n, slice_used_ns;
	uint64_t dsq_inserts, dsq_dispatches;
	uint64_t rq_depth_ns; /* CPUs: integral of tasks waiting; / time = avg depth */
	/* not sums: merged as the max, min and max */
	uint64_t rq_depth_max;
	uint64_t vtime_min, vtime_max; /* DSQ vtime seen (max - min = progression) */
	/* sums again, up to freq_khz_ns */
	uint64_t running_ns, runnable_ns, preempted_ns, sleeping_ns, blocked_ns, other_ns;
	uint64_t forks, execs, exits;
	uint64_t softirq_ns[SCX_NR_SOFTIRQS], softirqs[SCX_NR_SOFTIRQS];
	uint64_t irq_ns, irqs;			 /* hard irqs */
	uint64_t ipi_sent, ipi_received, ipi_ns; /* ipi_ns: handler time */
	uint64_t cstate_ns[SCX_AGG_IDLE_STATES], cstates[SCX_AGG_IDLE_STATES];
	uint64_t lost;		    /* events the producer lost */
	uint64_t cstate_obs_ns;	    /* CPUs: time since the first cpu_idle event */
	uint64_t wc_loss_ns;	    /* CPUs: idle while another CPU had a task waiting */
	double freq_khz_ns;	    /* integral of frequency over freq_ns */
	uint64_t freq_ns;	    /* time with a known frequency */
	struct scx_hist wake_lat;   /* waking -> switch-in, ns */
	struct scx_hist rq_delay;   /* runnable -> switch-in, ns */
	struct scx_hist slice;	    /* length of running intervals, ns */
	struct scx_hist dsq_lat;    /* sched_ext: time queued on the DSQ, ns */
	struct scx_hist dsq_depth;  /* sched_ext: DSQ depth at insert and dispatch */
	struct scx_hist slice_used; /* sched_ext: slice used before a switch-out, ns */
	struct scx_hist rq_depth;   /* CPUs: waiting tasks after each enqueue */
};

/* One row of a snapshot. */
struct scx_agg_group {
	enum scx_agg_by by;
	int64_t key;		 /* cpu, llc, node, pid, tgid or dsq id; comm: 0 */
	int32_t tgid;		 /* pid groups */
	unsigned nr;		 /* CPUs in cpu/llc/node groups; threads in tgid/comm */
	char comm[SCX_COMM_LEN]; /* pid, tgid (the leader's) and comm groups */
	const struct scx_agg_stats *s;
	const char *name; /* cgroup groups: the path, "(other)", "(unknown)" */
};

struct scx_agg_snap {
	uint64_t seq;			 /* 0, 1, ... */
	uint64_t start_ns, end_ns;	 /* [start, end) in event time */
	bool final;			 /* closed by flush: end is the last event */
	uint64_t events;		 /* events in the interval */
	uint64_t lost;			 /* events lost by the producer in the interval */
	uint64_t unknown;		 /* events of types the engine does not use */
	uint64_t out_of_order;		 /* events older than the one before */
	uint64_t nr_threads;		 /* threads tracked at the end */
	uint64_t tasks_dropped;		 /* threads forgotten in the interval (max_tasks) */
	uint64_t late_intervals;	 /* kernel snapshots' late_intervals (collector late) */
	uint64_t by_type[SCX_EV__COUNT]; /* events of each type in the interval */
	unsigned nr[SCX_AGG_BY__COUNT];	 /* groups of each kind (0 if not asked) */
	const struct scx_agg_group *groups[SCX_AGG_BY__COUNT];
	/* sched_ext's own counters: the scx_stats records read in the interval
	 * folded together (stream/scx_stats.h); scx.ts == 0: none */
	struct scx_stats scx;
	struct scx_agg_stats total; /* all CPUs together */
	unsigned nr_cpus;	    /* CPUs in 'total' (topology, else seen) */
	/*
	 * The event types the stream has had so far, SCX_AGG_SEEN(type) bits
	 * (a kernel snapshot stands for the switches, wakeups and migrations it
	 * counted).  A figure that needs a kind the stream never had is
	 * unknown, not 0.
	 */
	uint64_t seen;
};

#define SCX_AGG_SEEN(type) (1ull << (type))
/* the kinds of events a figure can need: one of the types is enough */
#define SCX_AGG_SEEN_WAKE \
	(SCX_AGG_SEEN(SCX_EV_WAKING) | SCX_AGG_SEEN(SCX_EV_WAKEUP) | \
	 SCX_AGG_SEEN(SCX_EV_WAKEUP_NEW))
#define SCX_AGG_SEEN_MIGRATE SCX_AGG_SEEN(SCX_EV_MIGRATE)
#define SCX_AGG_SEEN_SOFTIRQ \
	(SCX_AGG_SEEN(SCX_EV_SOFTIRQ_ENTRY) | SCX_AGG_SEEN(SCX_EV_SOFTIRQ_EXIT))
#define SCX_AGG_SEEN_IRQ (SCX_AGG_SEEN(SCX_EV_IRQ_ENTRY) | SCX_AGG_SEEN(SCX_EV_IRQ_EXIT))
#define SCX_AGG_SEEN_IPI SCX_AGG_SEEN(SCX_EV_IPI_SEND)
#define SCX_AGG_SEEN_IPI_HANDLER (SCX_AGG_SEEN(SCX_EV_IPI_ENTRY) | SCX_AGG_SEEN(SCX_EV_IPI_EXIT))
#define SCX_AGG_SEEN_IDLE SCX_AGG_SEEN(SCX_EV_CPU_IDLE)
/* a kernel snapshot (scx-events --aggregate): it has no per-enqueue depths */
#define SCX_AGG_SEEN_KERNEL (1ull << 63)

struct scx_agg;

struct scx_agg_opts {
	uint64_t interval_ns; /* 0: one interval for the whole input */
	unsigned by;	      /* mask of 1 << SCX_AGG_*; 0 = SCX_AGG_BY_DEFAULT */
	unsigned limit;	      /* rows per report table, 0 = 20 */
	/* Called at every closed interval; non-zero return stops: add() returns it. */
	int (*emit)(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx);
	void *ctx;
	/*
	 * What to keep beyond the per-CPU metrics: SCX_AGG_NEED_* bits, 0 for
	 * all.  --by pid/tgid/comm add what they need; the rest is for reports
	 * (struct scx_agg_report's needs).  Less is faster: per-CPU only is about twice
	 * as fast as everything.
	 */
	unsigned need;
	/*
	 * Sort window, ns of event time: events are held until one newer by
	 * this much arrives, and passed on in time order: for streams in time
	 * order per CPU only (a header's "order":"cpu", older scx-events, streams
	 * merged by hand); 0 takes events as they come (older ones are counted in
	 * out_of_order).  flush() drains the window.  Sorting starts at the first
	 * event older than one before it, or with reorder_from_start at the
	 * first event (scx_order_plan() decides both from the stream's header).
	 */
	uint64_t reorder_ns;
	bool reorder_from_start;
	/*
	 * Histograms left empty, SCX_AGG_HIST_* bits: in every group
	 * (skip_hists), or in the CPU groups and their LLC, node and total
	 * rollups only (skip_cpu_hists).  A consumer that never reads a
	 * distribution saves its cost: a few cache lines per event on every
	 * CPU, and a merge per group at every interval.  Counters (rq_depth_max,
	 * dsq_dispatches, ...) are kept.
	 */
	unsigned skip_hists, skip_cpu_hists;
	/*
	 * Cpus of the traced machine when there is no topology (a stream
	 * header's nr_cpus: traces read back from Perfetto have no topology).
	 * Utilisation is divided by the larger of this and the cpus seen,
	 * never by the analysing machine's count.
	 */
	unsigned nr_cpus;
	/*
	 * Cgroup groups (--by cgroup and the cgroup reports): paths folded to
	 * their first cgroup_depth levels below the root (0: whole paths); in
	 * the snapshot the cgroup_top groups first by cgroup_sort (0: 50),
	 * the rest summed into one "(other)" row, so 10,000 cgroups make 51
	 * rows.  A thread counts under the cgroup it was last seen in.
	 */
	unsigned cgroup_depth, cgroup_top;
	/*
	 * DSQ groups: with dsq_top, the dsq_top first by dispatches (ties by
	 * id) and one "(other)" row (key -1) with the rest; 0: every DSQ.
	 */
	unsigned dsq_top;
	enum scx_agg_cgsort {
		SCX_AGG_CGSORT_BUSY = 0, /* CPU time */
		SCX_AGG_CGSORT_RQ_DELAY, /* run-queue delay, summed */
		SCX_AGG_CGSORT_RQ_P99,	 /* run-queue delay p99 */
		SCX_AGG_CGSORT_WAKEUPS,
		SCX_AGG_CGSORT_SWITCHES,
		SCX_AGG_CGSORT__COUNT
	} cgroup_sort;
	/*
	 * Threads tracked at most, 0 for SCX_AGG_MAX_TASKS_DEFAULT.  Past it the
	 * ones that exited go first, then the least recently seen: their
	 * process and comm figures are kept, their own row and any wakeup in
	 * flight are lost, and they are counted in tasks_dropped.
	 */
	unsigned max_tasks;
};
#define SCX_AGG_CGROUP_TOP 50
extern const char *const scx_agg_cgsort_names[SCX_AGG_CGSORT__COUNT]; /* "busy", ... */

#define SCX_AGG_MAX_TASKS_DEFAULT 65536u
#define SCX_AGG_MAX_TASKS_LIMIT 4194304u /* the kernel's PID_MAX_LIMIT */

/* --max-tasks N: 1 to SCX_AGG_MAX_TASKS_LIMIT; -EINVAL otherwise. */
int scx_agg_parse_max_tasks(const char *arg, unsigned *out);

/* The histograms of struct scx_agg_stats, for skip_hists */
#define SCX_AGG_HIST_WAKE_LAT 1u
#define SCX_AGG_HIST_RQ_DELAY 2u
#define SCX_AGG_HIST_SLICE 4u
#define SCX_AGG_HIST_DSQ_LAT 8u
#define SCX_AGG_HIST_DSQ_DEPTH 16u
#define SCX_AGG_HIST_SLICE_USED 32u
#define SCX_AGG_HIST_RQ_DEPTH 64u

#define SCX_AGG_NEED_THREADS 1u	  /* per-thread stats */
#define SCX_AGG_NEED_PROCESSES 2u /* per-process and per-comm tables */
#define SCX_AGG_NEED_PAIRS 4u	  /* waker/wakee and preemption pairs, chains */
#define SCX_AGG_NEED_CPUS 8u	  /* per-CPU metrics only (always kept) */
#define SCX_AGG_NEED_PLACE 16u	  /* placement tracking (agg_place.c), from the start only */
#define SCX_AGG_NEED_CGROUPS 32u  /* cgroup groups */
/* the cgroup preemption pairs (cgroup-preemptions): a hash look-up per preemption */
#define SCX_AGG_NEED_CGROUP_PAIRS 64u
/*
 * Placement figures beyond the run queues (with SCX_AGG_NEED_PLACE): the
 * runnable and active counts over time (parallelism, summaries), and each
 * run's wakeup class and pre-migration wait (wakeup-placement,
 * pre-migration).  Apart, so that one placement report costs only its own.
 */
#define SCX_AGG_NEED_PLACE_PAR 128u
#define SCX_AGG_NEED_PLACE_RUNS 256u
/*
 * The run queues' placement figures (with SCX_AGG_NEED_PLACE): each CPU's
 * waits, occupancy and idle-while-waiting clocks (work-conservation,
 * runqueue-occupancy, wakeup-placement, pre-migration, summaries).  Without
 * it placement keeps only what parallelism needs.
 */
#define SCX_AGG_NEED_PLACE_QUEUES 512u
#define SCX_AGG_NEED_ALL 1015u

/*
 * topo may be NULL (CPUs then appear as seen, in LLC and node -1); it is
 * copied.  NULL + errno on failure.
 */
struct scx_agg *scx_agg__new(const struct scx_topo *topo, const struct scx_agg_opts *o);
void scx_agg__free(struct scx_agg *a);
/*
 * Change the groups (SCX_AGG_* bits of opts.by, 0 for the default) from the
 * next interval on: a live view asks for per-task tables only while it shows
 * them, and the engine then keeps no per-task statistics at all.
 */
void scx_agg__set_by(struct scx_agg *a, unsigned by);
/*
 * Set a report threshold by name ("switch-rate", "wake-p99", ...: see
 * scx_agg_thresholds[] and man/scx-agg.1).  0, -ENOENT for an unknown name, or
 * -ERANGE for a value that is not finite, negative or past the threshold's max.
 */
int scx_agg__set_threshold(struct scx_agg *a, const char *name, double value);

/*
 * Name a cgroup id (a cgroup record of the stream, scx(7)): its path below
 * the cgroup2 mount, "/" for the root.  Ids without a name show as "id:N".
 * At most SCX_AGG_CGROUP_IDS ids are named; later ones are counted in
 * scx_agg__cgroup_dropped() and show by number.
 */
#define SCX_AGG_CGROUP_IDS (1u << 20)
void scx_agg__cgroup_name(struct scx_agg *a, uint64_t id, const char *path);
uint64_t scx_agg__cgroup_dropped(const struct scx_agg *a);

/* Feed one event.  0, or emit()'s non-zero return value. */
int scx_agg__add(struct scx_agg *a, const struct scx_event *e);
/* Close every interval that ends at or before ts without an event (live use). */
int scx_agg__advance(struct scx_agg *a, uint64_t ts);
/* Lost events known from elsewhere (a stream trailer); cpu -1 if unknown. */
void scx_agg__note_lost(struct scx_agg *a, int cpu, uint64_t count);
/* Events the reader skipped (unknown types), carried into the snapshot. */
void scx_agg__note_unknown(struct scx_agg *a, uint64_t count);
/*
 * An scx_stats record (sched_ext's sysfs counters), folded into the interval
 * open when it is read: scx-events writes one a second, between events
 * that may be up to its flush interval older, so with intervals of a
 * second or more it lands in its own interval or the one after.
 */
void scx_agg__note_scx_stats(struct scx_agg *a, const struct scx_stats *s);
/* Close the current interval at the last event's time and emit it. */
int scx_agg__flush(struct scx_agg *a);
/* The last closed interval, or NULL before the first. */
const struct scx_agg_snap *scx_agg__snapshot(struct scx_agg *a);
/* Bytes the engine holds (for the memory figures). */
size_t scx_agg__mem(struct scx_agg *a);

/* ---- metrics, generically (for table views and exporters) ---------------- */

enum scx_agg_mkind {
	SCX_AGG_M_COUNT, /* events in the interval */
	SCX_AGG_M_NS,	 /* time, ns */
	SCX_AGG_M_RATIO, /* 0..1 (util may exceed 1 for processes) */
	SCX_AGG_M_KHZ,
	SCX_AGG_M_DIST,	 /* a histogram of ns: struct scx_dist */
	SCX_AGG_M_NUM,	 /* a plain number (average depth, vtime) */
	SCX_AGG_M_DISTN, /* a histogram of plain numbers (depths) */
};

struct scx_agg_metric {
	const char *name; /* NDJSON key: "util", "wake_lat" */
	enum scx_agg_mkind kind;
	const char *help; /* one line, for OpenMetrics HELP and man page */
};

/* The metrics of the snapshot schema, in output order. */
extern const struct scx_agg_metric scx_agg_metrics[];
extern const unsigned scx_agg_nr_metrics;
/*
 * Value of metric i for group g of snapshot s: *v for scalars, *d for
 * distributions.  Returns false when the metric does not apply (e.g. avg
 * frequency with no frequency events): exporters leave it out; and when it
 * is unknown (below).
 */
bool scx_agg_metric_get(const struct scx_agg_snap *s, const struct scx_agg_group *g, unsigned i,
			double *v, struct scx_dist *d);
/*
 * Metric i needs events the stream has not had (the wakeup figures without
 * wakeup events, the migrations without sched_migrate_task): exporters say
 * null ("-" in text, NaN in OpenMetrics), never 0.
 */
bool scx_agg_metric_unknown(const struct scx_agg_snap *s, unsigned i);
/* The index in scx_agg_metrics[] of the metric with this NDJSON key, or -1. */
int scx_agg_metric_index(const char *name);
/* g NULL above means the snapshot's total (all CPUs). */

struct scx_buf;
/* The snapshot as one NDJSON line (schema below), with '\n'. */
void scx_agg_snap_json(struct scx_buf *b, const struct scx_agg_snap *s);
struct scx_jw;
/*
 * The keys of a group as the snapshot's NDJSON writes them ("cpu", or
 * "llc" and "cpus", or "pid", "tgid" and "comm", ...), into the open object.
 */
void scx_agg_group_key_json(struct scx_jw *w, const struct scx_agg_group *g);
/* Aligned tables with units, one per group kind. */
void scx_agg_snap_text(struct scx_buf *b, const struct scx_agg_snap *s);
/* OpenMetrics text exposition of the snapshot, without the final "# EOF". */
void scx_agg_snap_openmetrics(struct scx_buf *b, const struct scx_agg_snap *s);

extern const char *const scx_agg_by_names[SCX_AGG_BY__COUNT]; /* "cpu", "llc", ... */
extern const char *const scx_softirq_names[SCX_NR_SOFTIRQS];  /* "HI", "TIMER", ... */
/* Parse "cpu,llc,node" into a mask.  0 or -EINVAL. */
int scx_agg_parse_by(const char *s, unsigned *mask);

/* ---- reports ------------------------------------------------------------- */

struct scx_table; /* table.h */

/*
 * The reports, one row each (agg_reports.c), in the order "all" runs them;
 * scx-agg's dispatch, --help and completions and scx-mcp's analysis list
 * come from this table.
 */
struct scx_agg_report {
	const char *name; /* "cpu-utilization" */
	unsigned needs;	  /* SCX_AGG_NEED_* bits for the engine's options */
	/* Appends the report's tables to *out; 0 or -errno. */
	int (*run)(struct scx_agg *a, const char *name, struct scx_table **out);
	const char *summary; /* one line: what it shows, lowercase, no full stop */
};
extern const struct scx_agg_report scx_agg_reports[]; /* ends with a NULL name */
/* The report called name, or NULL. */
const struct scx_agg_report *scx_agg_report_find(const char *name);
/*
 * Run a named report on the closed interval.  *out is a list of tables
 * (table.h) the caller frees with scx_table_free().  0, -ENOENT for an
 * unknown name, -EAGAIN before the first closed interval, -ENODATA for a
 * placement report when the engine was made without SCX_AGG_NEED_PLACE.
 */
int scx_agg__report(struct scx_agg *a, const char *name, struct scx_table **out);

/* Thresholds of the bottlenecks and fairness reports: name, default, meaning. */
struct scx_agg_threshold {
	const char *name;
	double def;
	const char *help;
	double max; /* largest meaningful value (percentages: 100); 0: none */
};
extern const struct scx_agg_threshold scx_agg_thresholds[];
extern const unsigned scx_agg_nr_thresholds;

/*
 * ---- NDJSON snapshot schema (stable; add keys, never rename) -------------
 *
 * One line per interval:
 *   {"type":"snapshot","seq":0,"start_ns":T0,"end_ns":T1,"dur_ns":D,"final":false,
 *    "events":N,"lost":N,"unknown":N,"out_of_order":N,"threads":N,"cpus":N,
 *    "total":{METRICS},
 *    "groups":{"cpu":[{"cpu":0,METRICS},...],"llc":[{"llc":0,"cpus":2,METRICS}],
 *              "node":[{"node":0,"cpus":4,...}],"pid":[{"pid":P,"tgid":T,"comm":C,...}],
 *              "tgid":[{"tgid":T,"comm":C,"threads":N,...}],
 *              "comm":[{"comm":C,"threads":N,...}],"dsq":[{"dsq":ID,...}],
 *              "cgroup":[{"cgroup":PATH,"threads":N,...}]}}
 * METRICS are the keys of scx_agg_metrics[] that apply (a metric that does
 * not apply is absent).  Times are integers in ns; util is a ratio; a
 * distribution is {"count":N,"min":..,"avg":..,"p50":..,"p90":..,"p99":..,
 * "p999":..,"max":..}, {"count":0} when empty; "softirq" is
 * {"TIMER":{"count":N,"ns":T},...} and "cstates" {"0":{"count":N,"ns":T},...}
 * with only non-zero entries.  Reports are lines of their own:
 *   {"type":"report","report":"wakeup-latency","seq":0,"start_ns":T0,"end_ns":T1,
 *    "tables":{"summary":{"rows":[{...}],"omitted":0},...}}
 */

#endif
