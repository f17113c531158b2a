/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Placement tracking of the aggregation engine (agg_place.c): where tasks
 * wait and run, whether a CPU sat idle while another had a task waiting, how
 * many threads were runnable and CPUs busy.  agg.c calls the hooks below at
 * the points where its own state changes; the placement reports
 * (agg_report_place.c) read what they gather.  Not an API.
 *
 * Everything is O(1) per event: per-CPU figures that depend on every other
 * CPU ("idle while some other CPU had a task waiting") are kept with running
 * integrals of the global counts (time with at least one, at least two CPUs
 * with a waiting task...) that each CPU samples when its own state changes.
 */
#ifndef SCX_AGG_PLACE_INT_H
#define SCX_AGG_PLACE_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/hist.h"

struct scx_agg;
struct thread;
struct cpu;
struct scx_event;

/* Per thread, inside struct thread. */
struct agg_place_task {
	int32_t prev_cpu;	/* CPU it last ran on when woken, -1 */
	int32_t target_cpu;	/* CPU the wakeup chose (sched_wakeup), -1 */
	int32_t mig_from;	/* CPU it first waited on before a migration, -1 */
	uint8_t kind;		/* PK_*: what made it runnable */
	bool placed;		/* its wakeup placement is done: later migrations are moves */
	uint64_t enq_ts;	/* queued on its current CPU at, 0 if not queued */
	uint64_t enq_v, enq_vl; /* that queue's idle clocks at enq_ts */
	uint64_t placed_ts;	/* placement done at (perf's ready-to-run) */
	uint64_t mig_ts;	/* last migration while waiting, 0 if none */
	/* figures of the interval 'iv' (reset lazily when it differs) */
	uint64_t iv;
	uint64_t wait_ns;	   /* time queued, waits that ended in the interval */
	uint64_t wait_idle_ns;	   /* ... while some other CPU was idle */
	uint64_t wait_idle_llc_ns; /* ... while another CPU of its LLC was idle */
	uint64_t premig_n, premig_ns, premig_max;
};

enum { PK_NONE = 0, PK_WAKE, PK_NEW, PK_PREEMPT };

/* Wakeup placement classes: the CPU that ran the wakee against its previous one. */
enum { WP_PREV, WP_LLC, WP_NODE, WP_REMOTE, WP_NEW, WP_UNKNOWN, WP__COUNT };
/* The CPU that ran it against the one the wakeup chose. */
enum { WT_SAME, WT_LLC, WT_NODE, WT_REMOTE, WT_UNKNOWN, WT__COUNT };

/*
 * What a CPU's figures depend on.  Work conservation's two sides (agg.h,
 * wc_loss): spare, idle with nothing queued (free to take a task), and
 * backlog, busy with a task waiting.  A task queued on an idle CPU is about
 * to run there: neither.
 */
enum {
	PC_OCC = 1,	    /* a task waiting on its run queue */
	PC_OCC2 = 2,	    /* two or more */
	PC_IDLE = 4,	    /* known and running the idle task */
	PC_BUSY = 8,	    /* known and running a task */
	PC_SPARE = 16,	    /* idle, nothing queued */
	PC_BACKLOG = 32,    /* busy, a task waiting */
	PC_CAUSE_SHIFT = 6, /* spare: its idle state, the ww_cause_ns index (2 bits) */
	PC_OFFLINE = 256,   /* known, not running a task, and offline (cpuhp) */
};

/*
 * Per CPU.  Its figures are counted (the time since ts added) only when a
 * condition they depend on changes, or the interval closes: most changes of
 * a CPU (a task queued on a busy CPU that had one waiting already) change
 * none, and cost no arithmetic.  What every change reads comes first.
 */
struct place_cpu {
	bool init;	   /* seen: the fields below are valid */
	uint16_t cond;	   /* PC_* of the engine's view of it at the last change */
	int32_t llc, node; /* slots (id + 1) into the LLC and node arrays, 0 = none */
	uint64_t ts;	   /* its figures are counted up to here */
	/* the global and LLC clocks then */
	uint64_t w1, lw1, i1, li1;
	/* idle clocks of its queue: time some CPU (of its LLC) was spare while it had a backlog */
	uint64_t v, vl;
	/* figures of the interval */
	uint64_t occupied_ns, occupied2_ns; /* >= 1, >= 2 tasks waiting */
	/* the engine's wc_loss (spare while another CPU had a backlog) ... */
	uint64_t idle_ww_llc_ns;	    /* ... while a CPU of its LLC had one */
	uint64_t ww_cause_ns[3];	    /* ... by its idle state: 0, deeper, unknown */
	uint64_t idle_ns;		    /* idle (as known to placement) */
	uint64_t offline_ns, offline_ww_ns; /* offline, and while another CPU had a backlog */
	uint64_t q_wait_ns, q_wait_idle_ns; /* waits on its queue that ended, and of them ... */
	uint64_t premig_n, premig_ns;	    /* waits that left it by migration */
	uint64_t wp[WP__COUNT];		    /* wakeups it ran, by class */
};

/* Per LLC or node slot: counts and running integrals of its CPUs. */
struct place_dom {
	uint32_t n_idle, n_wait; /* CPUs spare, CPUs with a backlog */
	uint64_t ts;
	uint64_t w1, i1; /* clocks: some CPU with a backlog, some spare */
	uint64_t viol;	 /* clock: both at once */
	uint64_t viol0;	 /* viol at the interval start */
};

#define PLACE_SERIES_MAX 4096 /* change points kept per interval */

struct place_point {
	uint64_t ts;
	uint32_t runnable, active;
};

struct agg_place {
	struct place_cpu *cpu;
	unsigned nr_cpu;
	struct place_dom *llc, *node; /* by slot: id + 1 */
	unsigned nr_llc, nr_node;
	struct place_dom all;
	uint64_t iv;	   /* interval number, for the lazy per-thread reset */
	bool seen_cpuhp;   /* the stream has cpuhp_enter/exit events */
	bool seen_wakeup;  /* the stream has sched_wakeup events */
	bool seen_migrate; /* ... sched_migrate_task events */
	/* parallelism */
	bool keep_par;	/* keep the counts below (SCX_AGG_NEED_PLACE_PAR) */
	bool keep_runs; /* keep the runs' classes and waits (SCX_AGG_NEED_PLACE_RUNS) */
	/* keep the per-CPU conditions, clocks and waits (SCX_AGG_NEED_PLACE_QUEUES);
	 * else a CPU's busy bit only, for the active count */
	bool keep_queues;
	uint32_t n_runnable, n_active;
	uint64_t par_ts;
	bool par_started;
	uint64_t *t_runnable, *t_active; /* ns at each count, this interval */
	unsigned cap_runnable, cap_active;
	uint32_t max_runnable, max_active;
	struct place_point *series;
	unsigned nr_series;
	uint64_t series_dropped;
	/* wakeup placement and pre-migration of the interval */
	struct scx_hist wp_lat[WP__COUNT];
	uint64_t wt[WT__COUNT];
	struct scx_hist premig, postmig;
	uint64_t runs; /* runnable periods that ended in a switch-in */
};

/* Hooks (agg.c); each a no-op unless placement is tracked (a->place). */
void agg_place_init(struct scx_agg *a);
void agg_place_free(struct scx_agg *a);
size_t agg_place_mem(const struct scx_agg *a);
/* c's idle/busy state, run queue or idle state may have changed at ts */
void agg_place_cpu(struct scx_agg *a, const struct cpu *c, uint64_t ts);
/* t was queued on (delta 1) or taken off (-1) c's run queue */
void agg_place_queue(struct scx_agg *a, const struct cpu *c, struct thread *t, int delta,
		     uint64_t ts);
/* t goes from thread state 'from' to 'to' */
void agg_place_state(struct scx_agg *a, uint8_t from, uint8_t to, uint64_t ts);
/* t was woken (sched_waking, sched_wakeup or sched_wakeup_new e), not spuriously */
void agg_place_wake(struct scx_agg *a, struct thread *t, const struct scx_event *e);
/* the sched_wakeup that completes t's wakeup: the CPU it chose */
void agg_place_wakeup_done(struct scx_agg *a, struct thread *t, const struct scx_event *e);
/* t was preempted and waits again */
void agg_place_preempted(struct scx_agg *a, struct thread *t, uint64_t ts);
/* t migrates (before the engine updates t->cpu) */
void agg_place_migrate(struct scx_agg *a, struct thread *t, const struct scx_event *e);
/* t is switched in on cpu after waiting (before the engine clears its runnable state) */
void agg_place_run(struct scx_agg *a, struct thread *t, int32_t cpu, uint64_t ts);
/* the interval closes at end / a new one begins */
void agg_place_close(struct scx_agg *a, uint64_t end);
void agg_place_reset(struct scx_agg *a);

static inline bool place_task_fresh(const struct agg_place *p, const struct agg_place_task *pt)
{
	return pt->iv == p->iv;
}

#endif
