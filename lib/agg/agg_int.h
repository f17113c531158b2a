/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the aggregation engine shared by agg*.c; not an API. */
#ifndef SCX_AGG_INT_H
#define SCX_AGG_INT_H

#include <stddef.h>

#include "agg/agg.h"
#include "agg/agg_place_int.h"
#include "core/hashmap.h"
#include "core/reorder.h"

enum tstate {
	TS_UNKNOWN = 0, /* not seen in a state yet: its time is not counted */
	TS_RUNNING,
	TS_RUNNABLE,  /* R: woken, or preempted with prev_state 0 */
	TS_PREEMPTED, /* R+ */
	TS_SLEEPING,  /* S, I */
	TS_BLOCKED,   /* D */
	TS_OTHER,     /* T, t, X, Z, P, exited */
};

#define CHAIN_MAX 8

/*
 * What every event touches comes first and fills one cache line (threads
 * and the cpu array are allocated 64-aligned): at 512 CPUs and thousands of
 * threads the state does not stay in cache between pipe reads, and each
 * line more was a miss per event.
 */
struct thread {
	int32_t pid, tgid;
	uint8_t state;
	bool dead;	      /* freed; kept to the end of the interval for --by pid */
	bool folded;	      /* its stats are in the process/comm tables already */
	uint8_t chain_len;    /* wakers that led to this wakeup, oldest first */
	int32_t cpu;	      /* cpu it runs on, or ran on last */
	int32_t qcpu;	      /* cpu whose queue it waits on, -1 */
	int32_t waker;	      /* pid that woke it last, 0 from irq/idle */
	uint64_t state_ts;    /* state time is counted up to here */
	uint64_t runnable_ts; /* became runnable (0: not runnable) */
	uint64_t waking_ts;   /* sched_waking of the current runnable period, 0 if none */
	uint64_t wakeup_ts;   /* sched_wakeup after that waking, 0 if none */
	uint64_t dsq;	      /* last DSQ, SCX_DSQ_NONE */
	/* the first cache line ends here */
	char comm[SCX_COMM_LEN];
	bool has_stats; /* s is allocated: only while a->tstats (thread_new) */
	int32_t chain[CHAIN_MAX];
	uint64_t chain_lat;	  /* their wake latencies, summed (with pairs only) */
	struct agg_place_task pl; /* placement (agg_place.c) */
	uint64_t cgroup;	  /* cgroup id it was last seen in, 0 unknown */
	uint32_t preempt_cg;	  /* cgroup key + 1 of the task that preempted it last, 0 */
	_Alignas(64) struct scx_agg_stats s; /* its hot counters on their own lines */
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct thread, comm) == 64, "struct thread: hot fields in one line");

struct cpu {
	int32_t id, llc, node;
	bool seen, known; /* known: curr is valid (a switch was seen) */
	int32_t curr;	  /* pid running, 0 idle */
	uint32_t nr_queued;
	uint64_t acct_ts;   /* busy/idle counted up to here */
	uint64_t run_start; /* curr switched in */
	uint64_t depth_ts;
	int32_t softirq; /* vector in progress, -1 */
	int32_t cstate;	 /* -1: not idle */
	/* the first cache line ends here (see struct thread) */
	uint64_t softirq_ts;
	uint32_t freq_khz; /* 0 unknown */
	bool cidle_seen;
	bool offline; /* between cpuhp teardown and bring-up (on_cpuhp) */
	uint64_t freq_ts;
	uint64_t cidle_ts;
	uint64_t cstate_ts;
	uint64_t irq_ts, ipi_ts;	     /* 0: none in progress */
	uint64_t wc_mark;		     /* idle and nothing queued: scx_agg.wc_clock then */
	_Alignas(64) struct scx_agg_stats s; /* its hot counters on their own lines */
} __attribute__((aligned(64)));
_Static_assert(offsetof(struct cpu, freq_khz) == 64, "struct cpu: hot fields in one line");

/* tgid, comm and DSQ groups */
struct grp {
	int64_t key;
	char comm[SCX_COMM_LEN];
	unsigned nr;
	struct grp *next_spare;
	struct scx_agg_stats s;
};

struct gtab {
	struct scx_map map; /* key, or the hash of comm (core/hashmap.h), -> struct grp * */
	struct grp *other;  /* what did not fit (see GROUPS_MAX) */
	/*
	 * Groups of past intervals, emptied, kept with their histogram memory:
	 * the same processes come back every interval, and allocating and
	 * growing their histograms anew was a fifth of a 512-CPU interval.
	 */
	struct grp *spare;
};

struct pair {
	uint64_t key;			      /* (a << 32 | b) + 1; 0 = empty */
	uint64_t count, runs, sum_ns, max_ns; /* runs: wakeups that ran, with sum/max latency */
};

struct ptab {
	struct scx_map map; /* key -> struct pair */
	uint64_t dropped;   /* events whose pair did not fit */
	struct pair scratch;
};

/*
 * Cgroup names (agg_cgroup.c): ids to paths, and the paths folded to the
 * depth asked for, interned as keys 0.. of the cgroup table.  Key 0 is
 * "(unknown)" (a task seen without a cgroup id), key 1 "(other)".
 */
#define CG_KEY_UNKNOWN 0u
#define CG_KEY_OTHER 1u
#define CG_NAMES_MAX (1u << 16) /* folded names; past it "(other)" */
struct agg_cgroups {
	struct scx_map ids;    /* id -> struct cg_id */
	struct scx_map byname; /* hash of a folded name -> key (the next hash on a collision) */
	char **names;	       /* by key */
	unsigned nr, cap;
	uint64_t dropped;     /* cgroup records past SCX_AGG_CGROUP_IDS */
	struct ptab preempts; /* (victim key, preemptor key) -> pair */
	struct grp *rest;     /* the snapshot's "(other)" row */
	bool on;	      /* cgroup groups are kept */
	bool pairs;	      /* ... and the preemption pairs (on too) */
};

#define NR_CHAINS 32
struct chain {
	uint8_t len; /* pids in p[] */
	int32_t p[CHAIN_MAX + 1];
	uint64_t lat; /* wake latencies along the chain */
};

struct scx_agg {
	struct scx_agg_opts o;
	struct scx_topo *topo;
	double th[32]; /* thresholds by scx_agg_thresholds[] index */

	struct cpu *cpus;		      /* by cpu id */
	unsigned nr_cpus;		      /* entries in cpus[] */
	unsigned nr_llc_slots, nr_node_slots; /* ids + 1: slot 0 holds id -1 */
	struct scx_agg_stats *llc, *node;
	unsigned *llc_cpus, *node_cpus;
	int *llc_node; /* close_interval: node slot of each LLC slot, -1 none */

	struct scx_map threads; /* pid -> struct thread * */
	unsigned ndead;		/* freed threads kept for their --by pid row */
	unsigned max_tasks;	/* threads tracked at most (o.max_tasks or the default) */
	uint64_t *evict_ts;	/* evict_tasks(): scratch of max_tasks entries */

	struct gtab tgid, comm, dsq, cgroup;
	struct grp *dsq_rest; /* with dsq_top: the snapshot's DSQ "(other)" row */
	struct ptab wakes, preempts;
	struct agg_cgroups cg; /* agg_cgroup.c */
	/*
	 * Work-conservation loss: wc_clock advances while any task waits on a
	 * busy CPU (wc_waiting of them); an idle CPU with nothing queued adds
	 * what the clock advanced while it stayed so.  O(1) per change.
	 */
	uint64_t wc_clock, wc_ts;
	uint64_t wc_waiting;
	struct scx_hist lb_wake;    /* latency-breakdown: waking -> wakeup */
	struct scx_hist lb_run;	    /* wakeup -> switch-in */
	struct scx_hist lb_preempt; /* preempted -> switch-in */
	struct chain chains[NR_CHAINS];
	unsigned nr_chains;
	struct agg_place *place; /* placement tracking, NULL unless needed */

	unsigned need;	  /* SCX_AGG_NEED_* */
	unsigned next_by; /* o.by from the next interval on (scx_agg__set_by) */
	/*
	 * Time order (core/reorder.h): ordered streams (scx-events sorts its
	 * own) never pay for a buffer.
	 */
	struct scx_sorter order;
	bool fold;   /* keep the process and comm tables */
	bool tstats; /* keep per-thread stats */
	bool pairs;
	bool started, closed; /* closed: holds a closed interval, reset on the next add */
	uint64_t iv_start, iv_end, last_ts;
	struct scx_agg_snap snap;
	struct scx_agg_group *garr[SCX_AGG_BY__COUNT];
	unsigned gcap[SCX_AGG_BY__COUNT];
};

/*
 * Kernel snapshots (agg_ksnap.c) fill the CPU stats of an interval directly:
 * begin (own_interval: the snapshot is the interval, else the engine's
 * intervals roll at its start), the stats of each CPU (NULL past the
 * limit), end (closes the snapshot's own interval and emits it).
 */
int agg_ksnap_begin(struct scx_agg *a, uint64_t t0, bool own_interval);
struct scx_agg_stats *agg_ksnap_cpu(struct scx_agg *a, int32_t cpu);
/* The stats of cgroup id's group (0: "other"); NULL when cgroups are not kept. */
struct scx_agg_stats *agg_ksnap_cgroup(struct scx_agg *a, uint64_t id);
/* The DSQ group of id (other: the DSQs past the collector's table). */
struct scx_agg_stats *agg_ksnap_dsq(struct scx_agg *a, uint64_t id, bool other);
int agg_ksnap_end(struct scx_agg *a, uint64_t end, bool own_interval);

static inline struct thread *agg_thread_find(const struct scx_agg *a, int32_t pid)
{
	struct thread **t = scx_map_get(&a->threads, (uint32_t)pid);

	return t ? *t : NULL;
}

/* The threads one by one: *pos starts at 0; NULL after the last. */
static inline struct thread *agg_thread_next(const struct scx_agg *a, size_t *pos)
{
	struct thread **t = scx_map_next(&a->threads, pos, NULL);

	return t ? *t : NULL;
}

bool agg_stats_active(const struct scx_agg_stats *s);

#endif

/* A CPU of the topology, or one seen in the stream. */
static inline bool agg_cpu_present(const struct scx_agg *a, unsigned i)
{
	return a->cpus[i].seen || (a->topo && scx_topo__cpu(a->topo, i));
}

static inline uint64_t agg_dur(const struct scx_agg *a)
{
	return a->snap.end_ns > a->snap.start_ns ? a->snap.end_ns - a->snap.start_ns : 0;
}

/* Threshold indexes into a->th[] (order of scx_agg_thresholds[]). */
enum {
	TH_SWITCH_RATE,
	TH_WAKE_P99,
	TH_MIGR_RATE,
	TH_UTIL_HIGH,
	TH_RQ_P99,
	TH_IMBALANCE,
	TH_RQ_DEPTH,
	TH_SOFTIRQ,
	TH_LOST,
	TH_STARVED,
	TH_HOG,
	TH_IQR_K,
	TH_MAD_Z,
	TH_SIGMA,
	TH_PCT,
	TH__COUNT
};

/* agg_cgroup.c */
void agg_cgroup_init(struct scx_agg *a);
void agg_cgroup_free(struct scx_agg *a);
size_t agg_cgroup_mem(const struct scx_agg *a);
/* The group key of cgroup id (0: unknown) at the engine's depth. */
uint32_t agg_cgroup_key(struct scx_agg *a, uint64_t id);
const char *agg_cgroup_key_name(const struct scx_agg *a, uint32_t key);

/* The groups of a table one by one, "(other)" last: *pos starts at 0; NULL after the last. */
static inline struct grp *agg_gtab_next(const struct gtab *t, size_t *pos)
{
	struct grp **g = scx_map_next(&t->map, pos, NULL);

	if (g)
		return *g;
	if (*pos == t->map.cap + 1 && t->other) {
		(*pos)++;
		return t->other;
	}
	return NULL;
}
