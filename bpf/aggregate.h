/* SPDX-License-Identifier: GPL-2.0 */
/*
 * In-kernel aggregation (bpf/aggregate.bpf.c), shared with
 * lib/capture/kagg.c: the layout of the per-CPU counters and histograms the
 * programs keep, and the bucket function, which is lib/core/hist's
 * scx_hist_index() restricted to KAGG_NR_BUCKETS buckets, so a kernel
 * histogram merges exactly with one built from events (t/unit/1005-kagg
 * checks the two functions against each other).
 *
 * Every CPU has two slots, one per generation: the programs write into the
 * slot of the current generation ('gen' in .bss), user space flips the
 * generation at the end of an interval, waits for programs still running
 * to finish, reads the old slot and zeroes it.  So a slot holds exactly one
 * interval, min and max included, and nothing is read while it is written.
 */
#ifndef SCX_BPF_AGGREGATE_H
#define SCX_BPF_AGGREGATE_H

#ifndef __VMLINUX_H__
#include <linux/bpf.h>
#include <linux/types.h>
#endif

#define KAGG_SUB_BITS 6 /* SCX_HIST_SUB_BITS */
#define KAGG_EXACT (2u << KAGG_SUB_BITS)
/*
 * Buckets kept: indices below 2048 are the values below 2^37 ns (137 s).
 * Larger values go to the last bucket and are counted in 'clamped'.
 */
#define KAGG_NR_BUCKETS 2048
#define KAGG_BLOCK_BITS 6    /* one bit of 'used' per 64 buckets */
#define KAGG_MAX_CPUS 1024   /* cpus past this are counted in 'dropped_cpu' */
#define KAGG_DSQ_TASKS 65536 /* tasks inserted into a DSQ and not yet run */

/*
 * A CPU's wake_lat and rq_delay are kept as the two halves of rq_delay, as
 * a cgroup's are (KCH_WOKEN, KCH_PREEMPTED below): a woken task's delay is
 * its wake_lat as well, so each switch-in adds to one histogram, and the
 * fold (lib/capture/kagg.c) merges the two into the record's rq_delay.
 */
enum kagg_hist {
	KH_WAKE_LAT, /* sched_waking -> switch-in; also part of the record's rq_delay */
	KH_RQ_DELAY, /* preempted -> switch-in; the fold adds KH_WAKE_LAT for rq_delay */
	KH_SLICE,    /* time on CPU per switch */
	KH_DSQ_LAT,  /* sched_ext: insert into a DSQ -> switch-in */
	KH__COUNT
};

enum kagg_counter {
	KC_SWITCHES, /* switch-outs of tasks (pid != 0) */
	KC_VOLUNTARY,
	KC_INVOLUNTARY, /* prev was runnable (R, R+) */
	KC_SLICES,	/* switch-ins of tasks */
	KC_WAKEUPS,	/* sched_waking, on the target CPU */
	KC_WAKEUPS_NEW, /* sched_wakeup_new, on the target CPU */
	KC_MIGRATIONS,	/* on the destination CPU */
	KC_MIGR_CROSS_LLC,
	KC_MIGR_CROSS_NODE,
	KC_BUSY_NS, /* a task ran, from the first switch on */
	KC_IDLE_NS, /* the idle task ran */
	KC__COUNT
};

struct kagg_hist_hdr {
	__u64 count, sum, min, max; /* min, max: valid when count != 0 */
	__u64 used;		    /* bit i: buckets [64i, 64i+64) may be non-zero */
	__u64 clamped;		    /* values past the last bucket */
};

/* One CPU's interval (one generation). */
struct kagg_slot {
	__u64 c[KC__COUNT];
	struct kagg_hist_hdr h[KH__COUNT];
	__u64 b[KH__COUNT][KAGG_NR_BUCKETS];
};

/*
 * The run queues as the event engine sees them (lib/agg/agg.c: a task is
 * queued on a CPU from its wakeup or preemption to its switch-in), under
 * one lock because work-conservation loss compares all CPUs: cumulative
 * since load, user space takes differences.
 */
struct kagg_qcpu {
	__u32 nr_queued;
	__u8 known, busy; /* a switch was seen; a task runs */
	__u8 _pad[2];
	__u64 depth_ts;	    /* rq_depth_ns counted up to here */
	__u64 wc_mark;	    /* idle with nothing queued: wc_clock then */
	__u64 rq_depth_ns;  /* integral of nr_queued */
	__u64 rq_depth_max; /* since load */
	__u64 wc_loss_ns;
};

struct kagg_glob {
	struct bpf_spin_lock lock;
	__u32 _pad;
	__u64 wc_clock;	  /* advances while a task waits on a busy CPU */
	__u64 wc_ts;	  /* wc_clock is counted up to here */
	__u64 wc_waiting; /* tasks queued on busy CPUs */
	struct kagg_qcpu c[KAGG_MAX_CPUS];
};

/*
 * Per cgroup (v2 id), the counters up to KC_BUSY_NS and the wake_lat and
 * rq_delay histograms, for the tasks of the cgroup: a switch counts for prev's
 * cgroup (voluntary, involuntary, busy_ns: prev's time on the CPU) and
 * next's (slices, rq_delay, wake_lat); a wakeup and a migration for the
 * task's.  A cgroup gets a slot the first time it is seen, from 1 up;
 * slot 0 ("other", id 0 in the record) takes the cgroups seen once the table
 * is full.  The slots are shared by all CPUs, so the programs add
 * atomically, and they keep no more than user space needs to rebuild the
 * record exactly, because every atomic costs on every switch:
 * - switches is not counted: every switch is voluntary or involuntary, and
 *   user space adds the two;
 * - rq_delay is kept as its two halves, the runnable periods that began
 *   with a wakeup (KCH_WOKEN: that delay is the task's wake_lat as well,
 *   both count from the waking) and those that began with a preemption
 *   (KCH_PREEMPTED); user space merges the two into rq_delay and takes
 *   wake_lat from the first, so each switch-in updates one histogram;
 * - a histogram's count is the sum of its buckets, added up by user space.
 *
 * The buckets of a cgroup histogram are sparse: one entry of a hash map
 * (one map per generation) per non-empty (slot, histogram, bucket), so a
 * slot costs its counters whatever the latencies.  A value whose bucket
 * finds the map full is left out of its histogram altogether (sum, min and
 * max too) and counted in KD_CG_VALUE, so a histogram's figures always
 * agree with its buckets.
 */
#define KAGG_MAX_CGROUPS 10240
#define KAGG_CG_BUCKETS 131072 /* entries of each generation's bucket map */
#define KAGG_CG_COUNTERS (KC_BUSY_NS + 1)

enum kagg_cg_hist {
	KCH_WOKEN,     /* rq_delay (= wake_lat) of a woken task */
	KCH_PREEMPTED, /* rq_delay of a preempted task */
	KAGG_CG_HISTS
};

struct kagg_cghist {
	__u64 sum, max;
	__u64 nmin; /* ~min, so that both ends are kept by an atomic "max"; 0: empty */
	__u64 clamped;
};

struct kagg_cgslot {
	__u64 c[KAGG_CG_COUNTERS]; /* c[KC_SWITCHES] stays 0 */
	struct kagg_cghist h[KAGG_CG_HISTS];
};

struct kagg_cgbkey {
	__u32 slot;
	__u16 hist;
	__u16 bucket;
};

/*
 * sched_ext: per DSQ (the id a task was last inserted or moved into, as the
 * event mode keys its DSQ groups), the queueing time of the tasks run from
 * it; its count is the DSQ's dispatches.  A DSQ gets a slot the first time
 * a task is inserted into it, from 1 up; slot 0 ("other" in the record)
 * takes the DSQs seen once the table is full.  The histogram is kept as a
 * cgroup's are: a kagg_cghist per slot and generation (the slots map), its
 * buckets sparse in a hash map per generation (key: kagg_cgbkey, hist 0),
 * a value whose bucket finds the map full left out of the histogram and
 * counted in KD_DSQ_VALUE.  Each value is in its CPU's KH_DSQ_LAT as well.
 */
#define KAGG_MAX_DSQS 4096
#define KAGG_DSQ_BUCKETS 65536 /* entries of each generation's bucket map */

/*
 * Each CPU adds to its own cache of the cgroup figures first (one cache per
 * CPU and generation, an mmapable array like the slots): a hash lookup and
 * atomics on lines every CPU writes were most of a switch's cost.  It holds
 * KAGG_CGC_WAYS cgroups, direct-mapped by slot, with their counters and
 * histogram figures, and KAGG_CGC_BUCKETS histogram buckets, direct-mapped
 * by a hash of (slot, histogram, bucket).  An entry another cgroup or bucket
 * needs is first added to the shared slot or bucket map (the flush), with
 * the atomics the programs used before; user space adds what is left in the
 * caches of a generation after the flip.  All of it sums, or takes a
 * maximum, so the record is the same whichever way a value went.
 *
 * The programs on one CPU can interrupt one another (a wakeup with
 * interrupts on, a migration in an interrupt): 'busy' marks the cache taken,
 * and a program that finds it so adds to the shared slots directly.
 *
 * A bucket entry whose flush finds the bucket map full stays in the cache,
 * and the value that wanted its place is left out as before (KD_CG_VALUE).
 */
#define KAGG_CGC_WAYS 16     /* cgroups per cache */
#define KAGG_CGC_BUCKETS 256 /* buckets per cache, at most (kagg_cgc_buckets()) */

struct kagg_cgc_ent {
	__u32 slot1; /* cgroup slot + 1, 0: empty */
	__u32 _pad;
	__u64 c[KAGG_CG_COUNTERS];
	struct kagg_cghist h[KAGG_CG_HISTS];
};

struct kagg_cgc_bkt {
	__u64 key; /* kagg_cgc_key(), 0: empty */
	__u64 n;
};

struct kagg_cgcache {
	__u32 busy;
	__u32 _pad;
	struct kagg_cgc_ent ent[KAGG_CGC_WAYS];
	struct kagg_cgc_bkt bkt[KAGG_CGC_BUCKETS];
};

/* A bucket's cache key, never 0, and back. */
static inline __u64 kagg_cgc_key(__u32 slot, unsigned hist, unsigned bucket)
{
	return (__u64)(slot + 1) << 32 | (__u64)hist << 16 | bucket;
}

static inline struct kagg_cgbkey kagg_cgc_unkey(__u64 key)
{
	struct kagg_cgbkey k = { (__u32)(key >> 32) - 1, (__u16)(key >> 16), (__u16)key };

	return k;
}

/*
 * The buckets each cache uses, a power of two: user space reads every
 * cache's buckets after each flip and folds them with the bucket map's, so
 * all caches together hold at most 32768 (256 each up to 128 CPUs, 64 at
 * 512), and at least 64 each.
 */
static inline unsigned kagg_cgc_buckets(unsigned nr_cpus)
{
	unsigned n = KAGG_CGC_BUCKETS;

	while (n > 64 && (unsigned long long)n * nr_cpus > 32768)
		n /= 2;
	return n;
}

/*
 * The entry of a key in a cache using n buckets: the buckets of one
 * histogram of one cgroup are consecutive (n / 64 octaves fit), the two
 * histograms half the cache apart, and other cgroups move by a
 * multiplicative hash of the slot.
 */
static inline unsigned kagg_cgc_bkt_of(__u32 slot, unsigned hist, unsigned bucket, unsigned n)
{
	return (bucket + hist * (n / 2) + ((slot * 2654435761u) >> 24)) & (n - 1);
}

/* Figures h (of one or more values) into 'to', by one CPU: what hist_merge() adds atomically. */
static inline void kagg_cgc_hist_merge(struct kagg_cghist *to, const struct kagg_cghist *h)
{
	if (!h->nmin)
		return; /* empty */
	to->sum += h->sum;
	if (h->max > to->max)
		to->max = h->max;
	if (h->nmin > to->nmin)
		to->nmin = h->nmin;
	to->clamped += h->clamped;
}

/* Count v in cached histogram figures hh: what cg_hist_add() adds atomically. */
static inline void kagg_cgc_hist_add(struct kagg_cghist *hh, __u64 v)
{
	hh->sum += v;
	if (v > hh->max)
		hh->max = v;
	if (~v > hh->nmin)
		hh->nmin = ~v;
	if (v >> 37)
		hh->clamped++;
}

/* Global counts of what the programs could not account. */
enum kagg_drop {
	KD_TASK,      /* no task storage for a task (allocation failed), or no
		       * room for one more task queued on a DSQ */
	KD_CPU,	      /* an event on a CPU at or past KAGG_MAX_CPUS/nr_cpus */
	KD_CG_VALUE,  /* a cgroup histogram value whose bucket map was full */
	KD_DSQ_VALUE, /* a DSQ histogram value whose bucket map was full */
	KD__COUNT
};

/* Highest set bit of v != 0, by halves: clang 14 crashes on ctlz for BPF. */
static inline unsigned kagg_msb(__u64 v)
{
	unsigned r = 0;

	if (v >> 32) {
		v >>= 32;
		r += 32;
	}
	if (v >> 16) {
		v >>= 16;
		r += 16;
	}
	if (v >> 8) {
		v >>= 8;
		r += 8;
	}
	if (v >> 4) {
		v >>= 4;
		r += 4;
	}
	if (v >> 2) {
		v >>= 2;
		r += 2;
	}
	if (v >> 1)
		r += 1;
	return r;
}

/* lib/core/hist.h's scx_hist_index(), clamped to the buckets kept. */
static inline unsigned kagg_bucket(__u64 v)
{
	unsigned msb, idx;

	if (v < KAGG_EXACT)
		return (unsigned)v;
	msb = kagg_msb(v);
	idx = ((msb - KAGG_SUB_BITS) << KAGG_SUB_BITS) + (unsigned)(v >> (msb - KAGG_SUB_BITS));
	return idx < KAGG_NR_BUCKETS ? idx : KAGG_NR_BUCKETS - 1;
}

/* The verifier must see a bound the compiler already proved and dropped. */
#ifdef __bpf__
#define KAGG_BOUND(x) asm volatile("" : "+r"(x))
#else
#define KAGG_BOUND(x) ((void)0)
#endif

/*
 * Count v, in bucket idx = kagg_bucket(v), in histogram h of slot s: what
 * the programs run, and what t/unit/1005-kagg runs to check that the result
 * is lib/core/hist's.
 */
static inline void kagg_hist_add_at(struct kagg_slot *s, int h, __u64 v, unsigned idx)
{
	struct kagg_hist_hdr *hh = &s->h[h];

	if (!hh->count || v < hh->min)
		hh->min = v;
	if (v > hh->max)
		hh->max = v;
	hh->count++;
	hh->sum += v;
	if (idx == KAGG_NR_BUCKETS - 1 && v >> 37)
		hh->clamped++;
	KAGG_BOUND(idx);
	idx &= KAGG_NR_BUCKETS - 1;
	s->b[h][idx]++;
	hh->used |= 1ull << (idx >> KAGG_BLOCK_BITS);
}

/* The same, bucket idx = kagg_bucket(v) not known yet. */
static inline void kagg_hist_add(struct kagg_slot *s, int h, __u64 v)
{
	kagg_hist_add_at(s, h, v, kagg_bucket(v));
}

#endif
