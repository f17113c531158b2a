// SPDX-License-Identifier: GPL-2.0
/*
 * scx-events --aggregate: the figures of lib/agg/agg.c's per-CPU groups kept
 * in the kernel, so that nothing per event crosses to user space.  The
 * definitions are the engine's (lib/agg/agg.h) and so is the per-task state
 * they need (a task's last state, when it became runnable, when it was
 * woken, which queue it waits on), kept in task storage: bounded by the
 * tasks that exist, freed with them, and a failed allocation is counted.
 *
 * Per-CPU counters and histograms go to the generation slots of
 * bpf/aggregate.h, written by one CPU each except the wakeup and migration
 * counters of a target CPU (atomic adds).  Queue depth and
 * work-conservation loss need every CPU's queue at once: they are kept under
 * one lock, taken once per switch, wakeup and cross-CPU migration.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "aggregate.h"
#include "events.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by lib/capture/kagg.c before load. */
const volatile __u32 nr_cpus = 1;      /* slots per generation */
const volatile __u32 sw_state_arg = 1; /* sched_switch has the prev_state argument */
const volatile __s32 cpu_llc[KAGG_MAX_CPUS] = {};
const volatile __s32 cpu_node[KAGG_MAX_CPUS] = {};
const volatile __u32 cgroup_on = 1; /* 0: no cgroup v2, no cgroup figures */
const volatile __u32 dsq_on = 0;    /* sched_ext: the DSQ insert probes are loaded */
const volatile __u32 cgc_buckets = KAGG_CGC_BUCKETS; /* kagg_cgc_buckets(nr_cpus) */

/* Flipped by user space at every interval. */
volatile __u32 gen;
__u64 drops[KD__COUNT];
/* Cgroup slots handed out (slot 0 is "other"), and the id of each. */
__u32 cg_next = 1;
__u64 cg_id[KAGG_MAX_CGROUPS];
/* The same for DSQs (sched_ext). */
__u32 dsq_next = 1;
__u64 dsq_id[KAGG_MAX_DSQS];

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2); /* 2 * nr_cpus, set at load */
	__type(key, __u32);
	__type(value, struct kagg_slot);
} slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kagg_glob);
} glob SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2 * KAGG_MAX_CGROUPS);
	__type(key, __u32);
	__type(value, struct kagg_cgslot);
} cgslots SEC(".maps");

/* Each CPU's cache of the cgroup figures, per generation (bpf/aggregate.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2); /* 2 * nr_cpus, set at load */
	__type(key, __u32);
	__type(value, struct kagg_cgcache);
} cgcache SEC(".maps");

/* cgroup id -> slot */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KAGG_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, __u32);
} cgidx SEC(".maps");

/* Sparse histogram buckets of up to n entries (cgroups', DSQs'), one map per generation. */
#define SPARSE_BUCKET_MAP(n) \
	struct { \
		__uint(type, BPF_MAP_TYPE_HASH); \
		__uint(map_flags, BPF_F_NO_PREALLOC); \
		__uint(max_entries, n); \
		__type(key, struct kagg_cgbkey); \
		__type(value, __u64); \
	}
SPARSE_BUCKET_MAP(KAGG_CG_BUCKETS) cgb0 SEC(".maps");
SPARSE_BUCKET_MAP(KAGG_CG_BUCKETS) cgb1 SEC(".maps");

/*
 * sched_ext: when each task queued on a DSQ was inserted, and the DSQ's
 * slot, by pid (kprobes cannot use task storage), until its switch-in takes
 * it out.  This map and the DSQ maps below are sized to 1 without sched_ext.
 */
struct kagg_dsqins {
	__u64 ts;
	__u32 slot; /* the DSQ's slot in dsqslots */
	__u32 _pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KAGG_DSQ_TASKS);
	__type(key, __u32);
	__type(value, struct kagg_dsqins);
} dsq_ins SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2 * KAGG_MAX_DSQS);
	__type(key, __u32);
	__type(value, struct kagg_cghist);
} dsqslots SEC(".maps");

/* DSQ id -> slot */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KAGG_MAX_DSQS);
	__type(key, __u64);
	__type(value, __u32);
} dsqidx SEC(".maps");

/* The sparse buckets of the DSQ histograms. */
SPARSE_BUCKET_MAP(KAGG_DSQ_BUCKETS) dsqb0 SEC(".maps");
SPARSE_BUCKET_MAP(KAGG_DSQ_BUCKETS) dsqb1 SEC(".maps");

/* What only the CPU itself touches. */
struct kagg_own {
	__u64 run_start;   /* the running task switched in */
	__u64 acct_ts;	   /* busy/idle counted up to here */
	__u32 known, curr; /* a switch was seen; pid running */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct kagg_own);
} own SEC(".maps");

enum { TS_UNKNOWN = 0, TS_RUNNING, TS_RUNNABLE, TS_ASLEEP };

struct kagg_task {
	__u64 runnable_ts; /* became runnable, 0: not */
	__u64 waking_ts;   /* sched_waking of this runnable period, 0: none */
	__u32 qcpu1;	   /* queue it waits on + 1, 0: none (storage starts zeroed) */
	__u32 state;
	__u64 cg_id;   /* the cgroup cg_slot belongs to */
	__u32 cg_slot; /* + 1, 0: not looked up yet */
	__u32 _pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct kagg_task);
} tasks SEC(".maps");

/* CPU cpu's slot in generation g (gen, read once per program run). */
static __always_inline struct kagg_slot *slot_of(__u32 cpu, __u32 g)
{
	__u32 key = (g & 1) * nr_cpus + cpu;

	if (cpu >= nr_cpus)
		return 0;
	return bpf_map_lookup_elem(&slots, &key);
}

static __always_inline void drop(int what)
{
	__sync_fetch_and_add(&drops[what], 1);
}

static __always_inline struct kagg_task *task_of(struct task_struct *p)
{
	struct kagg_task *t = bpf_task_storage_get(&tasks, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);

	if (!t) {
		drop(KD_TASK);
		return 0;
	}
	return t;
}

static __always_inline __s32 task_cpu(struct task_struct *p)
{
	struct task_struct___cpu {
		unsigned int cpu;
	} __attribute__((preserve_access_index)) *q = (void *)p;

	if (bpf_core_field_exists(p->thread_info.cpu))
		return p->thread_info.cpu;
	return q->cpu;
}

static __always_inline unsigned int task_state(struct task_struct *p)
{
	struct task_struct___old {
		long state;
	} __attribute__((preserve_access_index)) *o = (void *)p;

	if (bpf_core_field_exists(p->__state))
		return BPF_CORE_READ(p, __state);
	return BPF_CORE_READ(o, state);
}

/* ---- tables of slots by id (cgroups, DSQs) ----------------------------------------- */

/*
 * The slot of id in a table of cap slots (idx: id -> slot; *next: the next
 * slot to hand out; ids: the id of each slot), handed out the first time
 * id is seen; 0 ("other") once the table is full, and looked up again next
 * time.  Below cap, whatever the other CPUs do.
 */
static __always_inline __u32 table_slot(void *idx, __u32 *next, __u64 *ids, __u32 cap, __u64 id)
{
	__u32 slot, *found = bpf_map_lookup_elem(idx, &id);

	if (found) {
		slot = *found;
	} else {
		/* checked first, so *next stops near the cap and never wraps */
		slot = *next < cap ? __sync_fetch_and_add(next, 1) : cap;
		if (slot >= cap)
			return 0;
		/*
		 * a compare, not a mask: cap need not be a power of two (a mask
		 * of 10239 folded cgroup slots 2048 to 8191 onto 0 to 2047)
		 */
		KAGG_BOUND(slot);
		if (slot < cap)
			ids[slot] = id;
		if (bpf_map_update_elem(idx, &id, &slot, BPF_NOEXIST)) {
			/* another CPU gave it a slot first: this one stays empty */
			found = bpf_map_lookup_elem(idx, &id);
			slot = found ? *found : 0;
		}
	}
	return slot < cap ? slot : 0;
}

/* ---- cgroups --------------------------------------------------------------------- */

/* The slot of task p's cgroup, -1 when cgroups are off or p has no storage. */
static __always_inline int cg_slot_of(struct task_struct *p, struct kagg_task *t)
{
	__u64 id;
	__u32 slot;

	if (!cgroup_on || !t)
		return -1;
	id = p->cgroups->dfl_cgrp->kn->id;
	if (t->cg_slot && t->cg_id == id && t->cg_slot <= KAGG_MAX_CGROUPS)
		return t->cg_slot - 1;
	slot = table_slot(&cgidx, &cg_next, cg_id, KAGG_MAX_CGROUPS, id);
	if (slot) {
		t->cg_id = id;
		t->cg_slot = slot + 1;
	}
	return slot;
}

/* Cgroup slot 'slot' of generation g, shared by all CPUs. */
static __always_inline struct kagg_cgslot *cg_shared(__u32 slot, __u32 g)
{
	__u32 key = (g & 1) * KAGG_MAX_CGROUPS + slot;

	if (slot >= KAGG_MAX_CGROUPS)
		return 0;
	return bpf_map_lookup_elem(&cgslots, &key);
}

static __always_inline void atomic_max(__u64 *p, __u64 v)
{
	for (int i = 0; i < 4; i++) {
		__u64 old = *p;

		if (v <= old || __sync_val_compare_and_swap(p, old, v) == old)
			return;
	}
}

/* The entry of bucket k in a bucket map, made if missing; NULL if the map is full. */
static __always_inline __u64 *sparse_bucket(void *m, struct kagg_cgbkey *k)
{
	__u64 zero = 0, *n = bpf_map_lookup_elem(m, k);

	if (n)
		return n;
	bpf_map_update_elem(m, k, &zero, BPF_NOEXIST); /* fails if another CPU made it */
	return bpf_map_lookup_elem(m, k);
}

/* Histogram figures hh (of one or more values) into shared ones, atomically. */
static __always_inline void hist_merge(struct kagg_cghist *to, struct kagg_cghist *hh)
{
	if (!hh->nmin)
		return; /* empty */
	__sync_fetch_and_add(&to->sum, hh->sum);
	atomic_max(&to->max, hh->max);
	atomic_max(&to->nmin, hh->nmin);
	if (hh->clamped)
		__sync_fetch_and_add(&to->clamped, hh->clamped);
}

/* Count v in sparse histogram hh, whose bucket entry is n (NULL: the map was full). */
static __always_inline void sparse_hist_add(struct kagg_cghist *hh, __u64 *n, __u64 v, int full)
{
	struct kagg_cghist one = { .sum = v, .max = v, .nmin = ~v, .clamped = (v >> 37) != 0 };

	if (!n) {
		drop(full);
		return;
	}
	__sync_fetch_and_add(n, 1);
	hist_merge(hh, &one);
}

/* Generation g's entry of cgroup bucket k, made if missing; NULL if the map is full. */
static __always_inline __u64 *cg_bucket(struct kagg_cgbkey *k, __u32 g)
{
	/* one call per map: the verifier inlines a lookup whose map it knows */
	if (g & 1)
		return sparse_bucket(&cgb1, k);
	return sparse_bucket(&cgb0, k);
}

/* ---- each CPU's cache of the cgroup figures (bpf/aggregate.h) ------------------- */

/* This CPU's cache in generation g, taken; NULL: off, or held by a program this one interrupted. */
static __always_inline struct kagg_cgcache *cgc_take(__u32 g)
{
	__u32 cpu = bpf_get_smp_processor_id(), key = (g & 1) * nr_cpus + cpu;
	struct kagg_cgcache *c;

	if (!cgroup_on || cpu >= nr_cpus)
		return 0;
	c = bpf_map_lookup_elem(&cgcache, &key);
	if (!c || c->busy)
		return 0;
	c->busy = 1;
	barrier();
	return c;
}

static __always_inline void cgc_give(struct kagg_cgcache *c)
{
	if (!c)
		return;
	barrier();
	c->busy = 0;
}

/* Cached entry e into its shared slot of generation g, and emptied. */
static __always_inline void cgc_flush(struct kagg_cgc_ent *e, __u32 g)
{
	struct kagg_cgslot *cs = cg_shared(e->slot1 - 1, g);

	if (cs) {
		for (int i = 0; i < KAGG_CG_COUNTERS; i++)
			if (e->c[i])
				__sync_fetch_and_add(&cs->c[i], e->c[i]);
		for (int h = 0; h < KAGG_CG_HISTS; h++)
			hist_merge(&cs->h[h], &e->h[h]);
	}
	__builtin_memset(e, 0, sizeof(*e));
}

/* The entry of cgroup slot 'slot' in cache c, made from what the place held. */
static __always_inline struct kagg_cgc_ent *cgc_ent(struct kagg_cgcache *c, __u32 slot, __u32 g)
{
	struct kagg_cgc_ent *e = &c->ent[slot & (KAGG_CGC_WAYS - 1)];

	if (e->slot1 == slot + 1)
		return e;
	if (e->slot1)
		cgc_flush(e, g);
	e->slot1 = slot + 1;
	return e;
}

/* Add d to counter k of cgroup slot 'slot': in cache c, or shared when c is NULL. */
static __always_inline void cg_count(struct kagg_cgcache *c, __u32 slot, __u32 g, int k, __u64 d)
{
	struct kagg_cgslot *cs;

	if ((unsigned)k >= KAGG_CG_COUNTERS)
		return;
	if (c) {
		cgc_ent(c, slot, g)->c[k] += d;
		return;
	}
	if ((cs = cg_shared(slot, g)))
		__sync_fetch_and_add(&cs->c[k], d);
}

/* Count v (in bucket idx) in histogram h of cgroup slot 'slot', as cg_count() does. */
static __always_inline void cg_hist_add(struct kagg_cgcache *c, __u32 slot, __u32 g, int h, __u64 v,
					unsigned idx)
{
	struct kagg_cgbkey k = { .slot = slot, .hist = h, .bucket = idx };
	struct kagg_cgc_bkt *b;
	struct kagg_cgslot *cs;
	__u64 key, *n;

	h &= KAGG_CG_HISTS - 1;
	if (!c) {
		if ((cs = cg_shared(slot, g)))
			sparse_hist_add(&cs->h[h], cg_bucket(&k, g), v, KD_CG_VALUE);
		return;
	}
	key = kagg_cgc_key(slot, h, idx);
	b = &c->bkt[kagg_cgc_bkt_of(slot, h, idx, cgc_buckets) & (KAGG_CGC_BUCKETS - 1)];
	if (b->key != key) {
		if (b->key) {
			struct kagg_cgbkey old = kagg_cgc_unkey(b->key);

			if (!(n = cg_bucket(&old, g))) {
				drop(KD_CG_VALUE); /* the map is full: b stays for user space */
				return;
			}
			__sync_fetch_and_add(n, b->n);
		}
		b->key = key;
		b->n = 0;
	}
	b->n++;
	kagg_cgc_hist_add(&cgc_ent(c, slot, g)->h[h], v);
}

/* ---- the queues, under glob's lock (lib/agg/agg.c's wc_* and depth_*) ------- */

#define QC(g, cpu) (&(g)->c[(cpu) & (KAGG_MAX_CPUS - 1)])

static __always_inline bool wc_idle(struct kagg_qcpu *c)
{
	return c->known && !c->busy && !c->nr_queued;
}

static __always_inline void wc_leave(struct kagg_glob *g, struct kagg_qcpu *c, __u64 ts)
{
	if (ts > g->wc_ts) {
		if (g->wc_waiting)
			g->wc_clock += ts - g->wc_ts;
		g->wc_ts = ts;
	}
	if (wc_idle(c))
		c->wc_loss_ns += g->wc_clock - c->wc_mark;
	else if (c->known && c->busy)
		g->wc_waiting -= c->nr_queued;
}

static __always_inline void wc_enter(struct kagg_glob *g, struct kagg_qcpu *c)
{
	if (wc_idle(c))
		c->wc_mark = g->wc_clock;
	else if (c->known && c->busy)
		g->wc_waiting += c->nr_queued;
}

static __always_inline void depth_account(struct kagg_qcpu *c, __u64 ts)
{
	if (ts > c->depth_ts && c->depth_ts)
		c->rq_depth_ns += (ts - c->depth_ts) * c->nr_queued;
	if (ts > c->depth_ts)
		c->depth_ts = ts;
}

static __always_inline void enqueue(struct kagg_glob *g, struct kagg_qcpu *c, __u64 ts)
{
	depth_account(c, ts);
	wc_leave(g, c, ts);
	c->nr_queued++;
	wc_enter(g, c);
	if (c->nr_queued > c->rq_depth_max)
		c->rq_depth_max = c->nr_queued;
}

static __always_inline void dequeue(struct kagg_glob *g, struct kagg_qcpu *c, __u64 ts)
{
	if (!c->nr_queued)
		return;
	depth_account(c, ts);
	wc_leave(g, c, ts);
	c->nr_queued--;
	wc_enter(g, c);
}

/* ---- sched_ext DSQs: lib/agg/agg.c's dsq_lat, as the event mode measures it ------ */

/* The histogram of DSQ slot in generation g. */
static __always_inline struct kagg_cghist *dsq_hist_of(__u32 slot, __u32 g)
{
	__u32 key = (g & 1) * KAGG_MAX_DSQS + slot;

	return bpf_map_lookup_elem(&dsqslots, &key);
}

/*
 * Task p (a kfunc's argument: read, not loaded) was inserted, or moved,
 * into DSQ id now.
 */
static __always_inline void dsq_insert(struct task_struct *p, __u64 id)
{
	struct kagg_dsqins ins = { .ts = bpf_ktime_get_boot_ns() };
	__u32 pid;

	if (!p)
		return;
	pid = BPF_CORE_READ(p, pid);
	if (!pid)
		return;
	ins.slot = table_slot(&dsqidx, &dsq_next, dsq_id, KAGG_MAX_DSQS, id);
	if (bpf_map_update_elem(&dsq_ins, &pid, &ins, BPF_ANY))
		drop(KD_TASK);
}

/*
 * The task pid switches in on the CPU of slot s in generation g: its time
 * on the DSQ, if it was on one, for the CPU and the DSQ.
 */
static __always_inline void dsq_switch_in(struct kagg_slot *s, __u32 g, __u32 pid, __u64 ts)
{
	struct kagg_dsqins *ins = bpf_map_lookup_elem(&dsq_ins, &pid);
	struct kagg_cgbkey k = {};
	struct kagg_cghist *dh;
	__u64 v, *n;
	unsigned idx;

	if (!ins)
		return;
	v = ts >= ins->ts ? ts - ins->ts : 0;
	idx = kagg_bucket(v);
	kagg_hist_add_at(s, KH_DSQ_LAT, v, idx);
	if ((dh = dsq_hist_of(ins->slot, g))) {
		k.slot = ins->slot;
		k.bucket = idx;
		if (g & 1)
			n = sparse_bucket(&dsqb1, &k);
		else
			n = sparse_bucket(&dsqb0, &k);
		sparse_hist_add(dh, n, v, KD_DSQ_VALUE);
	}
	bpf_map_delete_elem(&dsq_ins, &pid);
}

/*
 * The insert kfuncs of every kernel since 6.12 (the task is the first
 * argument of each); lib/capture/kagg.c loads those this kernel has.
 */
#define DSQ_INSERT_PROBE(name, func) \
	SEC("?kprobe/" #func) \
	int BPF_KPROBE(name, struct task_struct *p, __u64 dsq_id) \
	{ \
		dsq_insert(p, dsq_id); \
		return 0; \
	}

DSQ_INSERT_PROBE(kagg_insert, scx_bpf_dsq_insert)
DSQ_INSERT_PROBE(kagg_insert_v2, scx_bpf_dsq_insert___v2)
DSQ_INSERT_PROBE(kagg_dispatch, scx_bpf_dispatch)
DSQ_INSERT_PROBE(kagg_insert_vtime, scx_bpf_dsq_insert_vtime)
DSQ_INSERT_PROBE(kagg_dispatch_vtime, scx_bpf_dispatch_vtime)

/* 6.19+: the arguments after the task come in a struct, the DSQ id first */
SEC("?kprobe/__scx_bpf_dsq_insert_vtime")
int BPF_KPROBE(kagg_insert_vtime_args, struct task_struct *p, __u64 *args)
{
	__u64 id = 0;

	bpf_probe_read_kernel(&id, sizeof(id), args);
	dsq_insert(p, id);
	return 0;
}

/*
 * Moves between DSQs restart the time as the event mode's do: from the
 * return of a move the kfunc says succeeded (scx_bpf_dsq_move[_vtime](),
 * 6.12's scx_bpf_dispatch[_vtime]_from_dsq()).  The entry notes the task
 * for its return, per current task and last in, first out, as an
 * interrupt's move can nest in another; LRU, so an entry whose return was
 * missed cannot pile up.
 */
#define KAGG_MOVE_NEST 2
struct kagg_moves {
	__u32 n, _pad;
	__u64 task[KAGG_MOVE_NEST]; /* the task moved, 0: none */
	__u64 dsq[KAGG_MOVE_NEST];  /* the DSQ it is moved into */
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096); /* sized to 1 without sched_ext */
	__type(key, __u64);	   /* the current task_struct's address */
	__type(value, struct kagg_moves);
} dsq_moves SEC(".maps");

static __always_inline void dsq_move_enter(struct task_struct *p, __u64 dsq)
{
	__u64 key = bpf_get_current_task();
	struct kagg_moves *m = bpf_map_lookup_elem(&dsq_moves, &key), fresh = {};
	__u32 i;

	if (!m) {
		bpf_map_update_elem(&dsq_moves, &key, &fresh, BPF_NOEXIST);
		m = bpf_map_lookup_elem(&dsq_moves, &key);
		if (!m) {
			drop(KD_TASK);
			return;
		}
	}
	i = m->n++; /* the return takes it off */
	if (i < KAGG_MOVE_NEST) {
		m->task[i] = (__u64)p;
		m->dsq[i] = dsq;
	}
}

static __always_inline void dsq_move_exit(bool moved)
{
	__u64 key = bpf_get_current_task();
	struct kagg_moves *m = bpf_map_lookup_elem(&dsq_moves, &key);
	__u32 i;

	if (!m || !m->n)
		return;
	i = --m->n;
	if (i < KAGG_MOVE_NEST && moved && m->task[i])
		dsq_insert((struct task_struct *)m->task[i], m->dsq[i]);
	if (!m->n)
		bpf_map_delete_elem(&dsq_moves, &key);
}

#define DSQ_MOVE_PROBES(name, func) \
	SEC("?kprobe/" #func) \
	int BPF_KPROBE(name, void *it, struct task_struct *p, __u64 dsq_id) \
	{ \
		dsq_move_enter(p, dsq_id); \
		return 0; \
	} \
	SEC("?kretprobe/" #func) \
	int BPF_KRETPROBE(name##_ret, __u64 ret) \
	{ \
		dsq_move_exit(ret & 0xff); /* a bool: the rest of the register is not set */ \
		return 0; \
	}

DSQ_MOVE_PROBES(kagg_move, scx_bpf_dsq_move)
DSQ_MOVE_PROBES(kagg_move_vtime, scx_bpf_dsq_move_vtime)
DSQ_MOVE_PROBES(kagg_from_dsq, scx_bpf_dispatch_from_dsq)
DSQ_MOVE_PROBES(kagg_vtime_from_dsq, scx_bpf_dispatch_vtime_from_dsq)

/* ---- sched_switch --------------------------------------------------------------- */

SEC("tp_btf/sched_switch")
int BPF_PROG(kagg_switch, bool preempt, struct task_struct *prev, struct task_struct *next)
{
	unsigned int raw = sw_state_arg ? (unsigned int)ctx[3] : task_state(prev);
	__u32 cpu = bpf_get_smp_processor_id(), zero = 0;
	__u64 ts = bpf_ktime_get_boot_ns();
	struct kagg_task *pt = 0, *nt = 0;
	struct kagg_slot *s;
	struct kagg_own *o = bpf_map_lookup_elem(&own, &zero);
	struct kagg_glob *g = bpf_map_lookup_elem(&glob, &zero);
	struct kagg_qcpu *qc, *nq = 0;
	struct kagg_cgcache *cc;
	__u64 ran = 0;
	__u32 gn = gen;
	bool invol = false;
	int cgs;

	s = slot_of(cpu, gn);
	if (!s || !o || !g || cpu >= KAGG_MAX_CPUS) {
		drop(KD_CPU);
		return 0;
	}
	cc = cgc_take(gn);
	if (o->known && ts > o->acct_ts) {
		if (o->curr) {
			s->c[KC_BUSY_NS] += ts - o->acct_ts;
			if (ts >= o->run_start) {
				ran = ts - o->run_start;
				kagg_hist_add(s, KH_SLICE, ran);
			}
		} else {
			s->c[KC_IDLE_NS] += ts - o->acct_ts;
		}
	}
	if (ts > o->acct_ts)
		o->acct_ts = ts;
	if (prev->pid) {
		__u16 st = ev_report_state(preempt, raw, prev->exit_state);

		invol = st == EV_TASK_REPORT_MAX || !(st & 0xff);
		s->c[KC_SWITCHES]++;
		s->c[invol ? KC_INVOLUNTARY : KC_VOLUNTARY]++;
		pt = task_of(prev);
		if (pt) {
			pt->state = invol ? TS_RUNNABLE : TS_ASLEEP;
			if (invol) {
				pt->runnable_ts = ts;
				pt->waking_ts = 0;
				pt->qcpu1 = cpu + 1;
			}
		}
		if ((cgs = cg_slot_of(prev, pt)) >= 0) {
			cg_count(cc, cgs, gn, invol ? KC_INVOLUNTARY : KC_VOLUNTARY, 1);
			if (o->curr == prev->pid)
				cg_count(cc, cgs, gn, KC_BUSY_NS, ran);
		}
	}
	if (next->pid) {
		nt = task_of(next);
		if ((cgs = cg_slot_of(next, nt)) >= 0)
			cg_count(cc, cgs, gn, KC_SLICES, 1);
		if (nt) {
			if (nt->state == TS_RUNNABLE) {
				/*
				 * a waking is when its task became runnable: wake_lat ==
				 * rq_delay, one half of rq_delay (bpf/aggregate.h); the
				 * bucket is found once for the CPU's and the cgroup's
				 */
				__u64 rq = ts >= nt->runnable_ts ? ts - nt->runnable_ts : 0;
				unsigned idx = kagg_bucket(rq);
				bool woken = nt->waking_ts != 0;

				kagg_hist_add_at(s, woken ? KH_WAKE_LAT : KH_RQ_DELAY, rq, idx);
				if (cgs >= 0)
					cg_hist_add(cc, cgs, gn, woken ? KCH_WOKEN : KCH_PREEMPTED,
						    rq, idx);
			}
			if (nt->qcpu1 && nt->qcpu1 <= nr_cpus)
				nq = QC(g, nt->qcpu1 - 1);
			nt->qcpu1 = 0;
			nt->state = TS_RUNNING;
			nt->runnable_ts = nt->waking_ts = 0;
		}
		s->c[KC_SLICES]++;
		if (dsq_on)
			dsq_switch_in(s, gn, next->pid, ts);
	}
	cgc_give(cc);
	o->known = 1;
	o->curr = next->pid;
	o->run_start = ts;

	qc = QC(g, cpu);
	bpf_spin_lock(&g->lock);
	if (pt && invol)
		enqueue(g, qc, ts);
	if (nq)
		dequeue(g, nq, ts);
	wc_leave(g, qc, ts);
	qc->known = 1;
	qc->busy = next->pid != 0;
	wc_enter(g, qc);
	bpf_spin_unlock(&g->lock);
	return 0;
}

/* ---- wakeups, migration ------------------------------------------------------- */

static __always_inline void wake(struct task_struct *p, int counter)
{
	__u64 ts = bpf_ktime_get_boot_ns();
	struct kagg_task *t;
	struct kagg_slot *s;
	struct kagg_glob *g;
	struct kagg_cgcache *cc;
	__u32 zero = 0, cpu, gn = gen;
	int cgs;

	if (!p->pid || !(t = task_of(p)))
		return;
	if (t->state == TS_RUNNING || t->state == TS_RUNNABLE)
		return; /* spurious: it never slept */
	cpu = task_cpu(p);
	t->state = TS_RUNNABLE;
	t->runnable_ts = t->waking_ts = ts;
	if (!(s = slot_of(cpu, gn)) || cpu >= KAGG_MAX_CPUS ||
	    !(g = bpf_map_lookup_elem(&glob, &zero))) {
		drop(KD_CPU);
		return;
	}
	__sync_fetch_and_add(&s->c[counter], 1);
	if ((cgs = cg_slot_of(p, t)) >= 0) {
		cc = cgc_take(gn);
		cg_count(cc, cgs, gn, counter, 1);
		cgc_give(cc);
	}
	t->qcpu1 = cpu + 1;
	bpf_spin_lock(&g->lock);
	enqueue(g, QC(g, cpu), ts);
	bpf_spin_unlock(&g->lock);
}

SEC("tp_btf/sched_waking")
int BPF_PROG(kagg_waking, struct task_struct *p)
{
	wake(p, KC_WAKEUPS);
	return 0;
}

SEC("tp_btf/sched_wakeup_new")
int BPF_PROG(kagg_wakeup_new, struct task_struct *p)
{
	wake(p, KC_WAKEUPS_NEW);
	return 0;
}

SEC("tp_btf/sched_migrate_task")
int BPF_PROG(kagg_migrate, struct task_struct *p, int dest_cpu)
{
	__u32 orig = task_cpu(p), dest = dest_cpu, zero = 0;
	__u64 ts = bpf_ktime_get_boot_ns();
	struct kagg_task *t;
	struct kagg_slot *s;
	struct kagg_glob *g;
	struct kagg_cgcache *cc;
	__u32 gn = gen;
	bool xllc, xnode;
	int cgs;

	if (!p->pid)
		return 0;
	if (!(s = slot_of(dest, gn)) || orig >= nr_cpus || dest >= KAGG_MAX_CPUS ||
	    !(g = bpf_map_lookup_elem(&glob, &zero))) {
		drop(KD_CPU);
		return 0;
	}
	orig &= KAGG_MAX_CPUS - 1;
	xllc = cpu_llc[orig] != cpu_llc[dest];
	xnode = cpu_node[orig] != cpu_node[dest];
	__sync_fetch_and_add(&s->c[KC_MIGRATIONS], 1);
	if (xllc)
		__sync_fetch_and_add(&s->c[KC_MIGR_CROSS_LLC], 1);
	if (xnode)
		__sync_fetch_and_add(&s->c[KC_MIGR_CROSS_NODE], 1);
	t = task_of(p);
	if ((cgs = cg_slot_of(p, t)) >= 0) {
		cc = cgc_take(gn);
		cg_count(cc, cgs, gn, KC_MIGRATIONS, 1);
		if (xllc)
			cg_count(cc, cgs, gn, KC_MIGR_CROSS_LLC, 1);
		if (xnode)
			cg_count(cc, cgs, gn, KC_MIGR_CROSS_NODE, 1);
		cgc_give(cc);
	}
	if (!t || !t->qcpu1 || t->qcpu1 == dest + 1 || t->qcpu1 > nr_cpus)
		return 0;
	bpf_spin_lock(&g->lock);
	dequeue(g, QC(g, t->qcpu1 - 1), ts);
	enqueue(g, QC(g, dest), ts);
	bpf_spin_unlock(&g->lock);
	t->qcpu1 = dest + 1;
	return 0;
}
