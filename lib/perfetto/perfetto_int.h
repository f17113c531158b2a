/* SPDX-License-Identifier: GPL-2.0 */
/* Internals shared by the Perfetto reader's files (perfetto_read.c, perfetto_track.c). */
#ifndef SCX_PERFETTO_INT_H
#define SCX_PERFETTO_INT_H

#include <stdint.h>

#include "perfetto/perfetto_read.h"
#include "perfetto/perfetto_wire.h"
#include "perfetto/perfetto_fields.h"
#include "core/hashmap.h"
#include "core/util.h"

/*
 * A decoded event, compact (48 bytes instead of 176) because a whole trace is
 * held before sorting.  Switch: a/b = prev/next pid, c/d = prev/next prio,
 * s1/s2 = prev/next comm, x = prev_state.  Wakings: a = pid, b = waker,
 * c = prio, d = target cpu, s1 = comm.  Anything else is a full scx_event in
 * the side array, x = its index (REC_F_SIDE).
 */
struct pf_rec {
	uint64_t ts;
	int64_t x;
	int32_t a, b, c, d;
	uint32_t s1, s2;
	int16_t cpu;
	uint8_t type; /* enum scx_ev_type, or REC_SEED */
	uint8_t flags;
};

#define REC_SEED 0 /* sets the running task of a cpu (b, d, s2), not delivered */
#define REC_F_SIDE 0x01
#define REC_F_TRACK 0x02	/* derived from TrackEvents */
#define REC_F_WAKER_CPU 0x04	/* waker = the task running on cpu when delivered */
#define REC_F_NEWTASK 0x08	/* fork synthesised from task_newtask */
#define REC_F_VERBOSE_WAKE 0x10 /* waker from FtraceEvent.pid (unless the producer lies) */
#define REC_F_DROP 0x80

/* The maps of struct pf_rd hold uint64_t values. */
static inline uint64_t *pf_map_get(const struct scx_map *m, uint64_t k)
{
	return scx_map_get(m, k);
}

static inline uint64_t *pf_map_put(struct scx_map *m, uint64_t k) /* 0 if new */
{
	return scx_map_put(m, k, NULL);
}

struct pf_thr {
	int32_t tgid;
	uint32_t comm; /* string id */
	uint8_t prio;  /* name priority: 1 ftrace, 2 process tree, 3 descriptor */
};

/* tid -> tgid as learned at a time; tid reuse and late process trees make it time-dependent */
struct pf_tg {
	uint64_t ts;
	int32_t tid, tgid;
	int32_t via; /* CLONE_THREAD child: the process of this creating thread */
	uint32_t seq;
};

struct pf_proc {
	int32_t pid, ppid;
	char *cmdline;
};

struct pf_track {
	uint64_t parent;
	int32_t tid, pid;
	uint8_t kind; /* enum pf_track_kind */
};

enum pf_track_kind {
	PF_TRACK_OTHER,	  /* counters and the like */
	PF_TRACK_THREAD,  /* with a ThreadDescriptor */
	PF_TRACK_PROCESS, /* with a ProcessDescriptor */
	PF_TRACK_CHILD,	  /* under a thread's track (wprof puts slices there) */
};

/* One ONCPU slice edge from TrackEvents, turned into switches after the parse. */
struct pf_mark {
	uint64_t ts;
	uint64_t dsq;  /* SCX_DSQ_NONE when absent */
	int32_t state; /* SCX_STATE_* bits: 9 of them */
	int32_t tid;
	uint32_t comm;
	uint32_t seq; /* input order, for a stable sort */
	int16_t cpu;
	int16_t layer; /* scx_layer_id, -1 when absent */
	uint8_t begin;
	uint8_t has_prev; /* an END before this BEGIN gave the switch its prev */
};

struct pf_rd {
	const char *name;
	const struct scx_pf_opts *o;
	struct scx_pf_trace *t;
	uint64_t limit; /* most bytes held (scx_pf_opts.max_bytes) */
	uint64_t held;	/* trace bytes held: the input and an inflated packet */
	int pass;	/* 1: everything but track events, 2: track events */
	/* pass 2 skips sched track events in [skip_from, skip_to]: ftrace covers them */
	uint64_t skip_from, skip_to;
	const uint8_t *base; /* start of the buffer being walked */
	uint64_t base_off;   /* its offset in the input, for messages */
	bool inner;	     /* walking a compressed packet's content */
	uint64_t inner_off;  /* the compressed packet's offset */

	struct pf_rec *recs;
	size_t nr, cap;
	struct scx_event *side;
	size_t nside, side_cap;

	/* strings: id -> offset in pool; 0 is "" */
	char *pool;
	size_t pool_len, pool_cap;
	uint32_t *str_off;
	uint32_t nstr, str_cap;
	struct scx_map strs; /* hash -> id (chained by linear probing on the hash) */

	struct scx_map thr_idx; /* tid -> index in thr[] */
	struct pf_thr *thr;
	int32_t *thr_tid;
	size_t nthr, thr_cap;
	struct pf_tg *tgs;
	size_t ntg, tg_cap;
	struct scx_map tg_idx; /* tid -> first record << 24 | count, after sorting */
	uint64_t cur_ts;       /* time of what is being decoded, for tgs */
	struct scx_map proc_idx;
	struct pf_proc *proc;
	size_t nproc, proc_cap;

	int max_cpu;
	uint64_t ftrace_cut; /* ftrace before this is dropped, as trace_processor does */
	uint32_t bundle_seen[SCX_MAX_CPUS / 32];
	bool has_fork, has_state_raw;
	bool has_sysname_linux;
	bool started_seen;
	uint32_t ftrace_seed[SCX_MAX_CPUS / 32]; /* cpus whose compact stream was seeded */
	struct {
		int32_t pid, prio;
		uint32_t comm;
		bool known;
	} cur[SCX_MAX_CPUS]; /* decode-time running task per cpu (compact sched) */

	/* compact sched scratch arrays */
	uint64_t *arr[PF_CS__LAST + 1]; /* by CompactSched field number */
	size_t arr_n[PF_CS__LAST + 1], arr_cap[PF_CS__LAST + 1];
	struct pb itab[4096];

	/* TrackEvent state */
	struct scx_map interned; /* (kind, seq, iid) -> string id */
	struct scx_map tracks;	 /* uuid -> index in trk[] */
	struct pf_track *trk;
	size_t ntrk, trk_cap;
	struct scx_map flows; /* flow id -> rec index + 1 */
	struct scx_map open;  /* track uuid -> open irq/softirq slice */
	struct pf_mark *marks;
	size_t nmarks, marks_cap;
	uint32_t name_iid[64]; /* well-known annotation/category names -> string ids */
};

/* helpers in perfetto_read.c */
int pf_bad(struct pf_rd *r, const uint8_t *at, const char *msg);
uint32_t pf_str(struct pf_rd *r, const void *s, size_t n);
const char *pf_strp(const struct pf_rd *r, uint32_t id);
struct pf_rec *pf_rec_new(struct pf_rd *r);
struct scx_event *pf_side_new(struct pf_rd *r, struct pf_rec **rec, unsigned type);
void pf_tg_note(struct pf_rd *r, int32_t tid, int32_t tgid, int32_t via);
void pf_thread_set(struct pf_rd *r, int32_t tid, int32_t tgid, uint32_t comm, uint8_t prio);
void pf_note_cpu(struct pf_rd *r, int cpu);

/* perfetto_track.c */
int pf_track_interned(struct pf_rd *r, uint32_t seq, struct pb m);
int pf_track_descriptor(struct pf_rd *r, struct pb m);
int pf_track_event(struct pf_rd *r, uint32_t seq, uint64_t ts, struct pb m);
void pf_track_finish(struct pf_rd *r);
void pf_track_spans(struct pf_rd *r);

#endif
