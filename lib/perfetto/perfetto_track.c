// SPDX-License-Identifier: GPL-2.0
/*
 * TrackEvent traces (wprof's default mode, and the handmade shape) -> events.
 *
 * wprof describes scheduling as slices and instants on per-thread tracks:
 * ONCPU slices (a switch is the END of one and the BEGIN of the next on the
 * same cpu), WAKER/WAKEE instant pairs joined by a flow id (the same flow id
 * marks the wakee's next ONCPU BEGIN, which gives the target cpu),
 * FORKING/FORKED pairs, EXEC/EXIT/FREE/RENAME instants and HARDIRQ/SOFTIRQ
 * slices.  Idle threads sit under the fake process 2000000000 (or have a
 * negative tid) and become pid 0.  Strings are interned per sequence.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto/perfetto_int.h"
#include "perfetto/perfetto_readable.h"
#include "core/util.h"

#define WPROF_IDLE_PID 2000000000
#define WPROF_KERNEL_PID 2000000001

enum {
	N_ONCPU,
	N_WAKER,
	N_WAKEE,
	N_WAKER_NEW,
	N_WAKEE_NEW,
	N_WAKER_UNKNOWN,
	N_WAKEE_UNKNOWN,
	N_WAKING,
	N_FORKING,
	N_FORKED,
	N_EXEC,
	N_EXIT,
	N_FREE,
	N_RENAME,
	N_HARDIRQ,
	N_SOFTIRQ,
	/* annotation names */
	N_CPU,
	N_OFFCPU_REASON,
	N_PREV_STATE,
	N_SCX_DSQ_ID,
	N_DSQ_ID,
	N_SCX_LAYER_ID,
	N_FILENAME,
	N_NEW_NAME,
	N_OLD_NAME,
	N_RENAMED_TO,
	N_IRQ,
	N_ACTION,
	N_WAKER_TID,
	N_FORKED_INTO_TID,
	N_FORKED_FROM_TID,
	/* our own --readable category: derived, not scheduler events */
	N_SCX_READABLE,
	/* values */
	N_PREEMPTED,
	N_BLOCKED,
	N__COUNT
};

static const char *const known[N__COUNT] = {
	"ONCPU",
	"WAKER",
	"WAKEE",
	"WAKER_NEW",
	"WAKEE_NEW",
	"WAKER_UNKNOWN",
	"WAKEE_UNKNOWN",
	"WAKING",
	"FORKING",
	"FORKED",
	"EXEC",
	"EXIT",
	"FREE",
	"RENAME",
	"HARDIRQ",
	"SOFTIRQ",
	"cpu",
	"offcpu_reason",
	"prev_state",
	"scx_dsq_id",
	"dsq_id",
	"scx_layer_id",
	"filename",
	"new_name",
	"old_name",
	"renamed_to",
	"irq",
	"action",
	"waker_tid",
	"forked_into_tid",
	"forked_from_tid",
	SCX_PF_READABLE_CATEGORY,
	"preempted",
	"blocked",
};

static const char *const softirq_names[] = {
	"hi",	    "timer",   "net-tx", "net-rx",  "block",
	"irq-poll", "tasklet", "sched",	 "hrtimer", "rcu",
};

enum { K_CAT, K_NAME, K_ANN, K_VAL };

static void init_names(struct pf_rd *r)
{
	if (r->name_iid[0])
		return;
	for (unsigned i = 0; i < N__COUNT; i++)
		r->name_iid[i] = pf_str(r, known[i], strlen(known[i]));
}

static uint64_t ikey(unsigned kind, uint32_t seq, uint64_t iid)
{
	return (uint64_t)kind << 62 | (uint64_t)(seq & 0x3fffffff) << 32 | (iid & 0xffffffff);
}

static uint32_t interned(const struct pf_rd *r, unsigned kind, uint32_t seq, uint64_t iid)
{
	uint64_t *v = pf_map_get(&r->interned, ikey(kind, seq, iid));

	return v ? (uint32_t)*v : 0;
}

int pf_track_interned(struct pf_rd *r, uint32_t seq, struct pb m)
{
	struct pb_field x, y;
	int rc, rc2;

	init_names(r);
	while ((rc = pb_next(&m, &x)) > 0) {
		unsigned kind;
		switch (x.num) {
		case PF_INTERNED_EVENT_CATEGORIES:
			kind = K_CAT;
			break;
		case PF_INTERNED_EVENT_NAMES:
			kind = K_NAME;
			break;
		case PF_INTERNED_DEBUG_ANNOTATION_NAMES:
			kind = K_ANN;
			break;
		case PF_INTERNED_DEBUG_ANNOTATION_STRING_VALUES:
			kind = K_VAL;
			break;
		default:
			continue;
		}
		if (x.wt != PB_LEN)
			continue;
		struct pb e = x.s;
		uint64_t iid = 0;
		struct pb s = { 0 };
		while ((rc2 = pb_next(&e, &y)) > 0) {
			if (y.num == PF_INTERNED_IID)
				iid = y.v;
			else if (y.num == PF_INTERNED_NAME && y.wt == PB_LEN)
				s = y.s;
		}
		if (rc2 < 0)
			return pf_bad(r, e.p, "malformed interned data");
		uint32_t id = s.p ? pf_str(r, s.p, SCX_MIN((size_t)(s.end - s.p), 255)) : 0;
		*pf_map_put(&r->interned, ikey(kind, seq, iid)) = id;
		if (kind == K_CAT && id == r->name_iid[N_ONCPU])
			r->t->producer = SCX_PF_PROD_WPROF;
	}
	return rc < 0 ? pf_bad(r, m.p, "malformed interned data") : 0;
}

static struct pf_track *track_get(struct pf_rd *r, uint64_t uuid)
{
	uint64_t *v = pf_map_get(&r->tracks, uuid);

	return v ? &r->trk[*v] : NULL;
}

static int32_t track_tid(struct pf_rd *r, uint64_t uuid);

int pf_track_descriptor(struct pf_rd *r, struct pb m)
{
	struct pb_field x, y;
	struct pf_track tk = { 0 };
	uint64_t uuid = 0;
	struct pb tname = { 0 };
	int rc, rc2;

	init_names(r);
	while ((rc = pb_next(&m, &x)) > 0) {
		if (x.num == PF_TD_UUID)
			uuid = x.v;
		else if (x.num == PF_TD_SCX_READABLE)
			return 0; /* not a thread of the trace's: its tgid stays the process tree's */
		else if (x.num == PF_TD_PARENT_UUID)
			tk.parent = x.v;
		else if ((x.num == PF_TD_PROCESS || x.num == PF_TD_THREAD) && x.wt == PB_LEN) {
			bool thread = x.num == PF_TD_THREAD;
			struct pb d = x.s;

			tk.kind = thread ? PF_TRACK_THREAD : PF_TRACK_PROCESS;
			while ((rc2 = pb_next(&d, &y)) > 0) {
				if (y.num == (thread ? PF_THREAD_DESC_PID : PF_PROCESS_DESC_PID))
					tk.pid = (int32_t)y.v;
				else if (thread && y.num == PF_THREAD_DESC_TID)
					tk.tid = (int32_t)y.v;
				else if (thread && y.num == PF_THREAD_DESC_THREAD_NAME &&
					 y.wt == PB_LEN)
					tname = y.s;
				else if (!thread && y.num == PF_PROCESS_DESC_PROCESS_NAME &&
					 y.wt == PB_LEN)
					tname = y.s;
			}
			if (rc2 < 0)
				return pf_bad(r, d.p, "malformed track descriptor");
		}
	}
	if (rc < 0)
		return pf_bad(r, m.p, "malformed track descriptor");
	if (tk.kind == PF_TRACK_THREAD && (tk.pid == WPROF_IDLE_PID || tk.tid < 0)) {
		tk.tid = 0; /* idle: swapper */
		tk.pid = 0;
	} else if (tk.kind == PF_TRACK_PROCESS && tk.pid > 0 && tk.pid < WPROF_IDLE_PID) {
		pf_thread_set(
			r, tk.pid, tk.pid,
			tname.p ? pf_str(r, tname.p,
					 SCX_MIN((size_t)(tname.end - tname.p), SCX_COMM_LEN - 1)) :
				  0,
			3);
	} else if (tk.kind == PF_TRACK_THREAD) {
		if (tk.pid > WPROF_IDLE_PID) /* wprof's fake KERNEL process */
			tk.pid = tk.tid;
		if (tk.tid > 0)
			pf_thread_set(r, tk.tid, tk.pid,
				      tname.p ? pf_str(r, tname.p,
						       SCX_MIN((size_t)(tname.end - tname.p),
							       SCX_COMM_LEN - 1)) :
						0,
				      3);
	}
	if (tk.kind == PF_TRACK_OTHER && tk.parent) {
		/* a child track of a thread (wprof puts slices there): resolve once */
		int32_t tid = track_tid(r, tk.parent);
		if (tid >= 0) {
			tk.kind = PF_TRACK_CHILD;
			tk.tid = tid;
		}
	}
	uint64_t *v = pf_map_get(&r->tracks, uuid);
	if (!v) {
		if (r->ntrk == r->trk_cap) {
			r->trk_cap = r->trk_cap ? r->trk_cap * 2 : 256;
			r->trk = scx_xrealloc(r->trk, r->trk_cap * sizeof(*r->trk));
		}
		v = pf_map_put(&r->tracks, uuid);
		*v = r->ntrk++;
	}
	r->trk[*v] = tk;
	return 0;
}

/* The thread a track belongs to (a thread track or one of its children); -1 if none. */
static int32_t track_tid(struct pf_rd *r, uint64_t uuid)
{
	for (int depth = 0; depth < 8; depth++) {
		struct pf_track *t = track_get(r, uuid);
		if (!t)
			return -1;
		if (t->kind == PF_TRACK_THREAD || t->kind == PF_TRACK_CHILD)
			return t->tid;
		if (!t->parent)
			return -1;
		uuid = t->parent;
	}
	return -1;
}

struct te {
	uint64_t type, track;
	uint32_t name;
	uint32_t cats[4];
	unsigned ncats;
	uint64_t flows[4];
	unsigned nflows;
	/* annotations we use */
	int64_t cpu, dsq, layer, irq, waker_tid, fork_tid;
	bool has_cpu, has_dsq, has_layer, has_irq, has_waker_tid, has_fork_tid;
	uint32_t reason, action, filename, new_name, old_name;
};

static int annotation(struct pf_rd *r, uint32_t seq, struct pb m, struct te *e)
{
	struct pb_field x;
	uint32_t name = 0, sval = 0;
	int64_t ival = 0;
	bool has_int = false;
	int rc;

	while ((rc = pb_next(&m, &x)) > 0) {
		switch (x.num) {
		case PF_DA_NAME_IID:
			name = interned(r, K_ANN, seq, x.v);
			break;
		case PF_DA_NAME:
			if (x.wt == PB_LEN)
				name = pf_str(r, x.s.p, SCX_MIN((size_t)(x.s.end - x.s.p), 255));
			break;
		case PF_DA_UINT_VALUE:
		case PF_DA_INT_VALUE:
		case PF_DA_BOOL_VALUE:
			ival = (int64_t)x.v;
			has_int = true;
			break;
		case PF_DA_STRING_VALUE:
			if (x.wt == PB_LEN)
				sval = pf_str(r, x.s.p,
					      SCX_MIN((size_t)(x.s.end - x.s.p), SCX_PATH_LEN - 1));
			break;
		case PF_DA_STRING_VALUE_IID:
			sval = interned(r, K_VAL, seq, x.v);
			break;
		}
	}
	if (rc < 0)
		return pf_bad(r, m.p, "malformed debug annotation");
	const uint32_t *n = r->name_iid;
	if (name == n[N_CPU] && has_int)
		e->cpu = ival, e->has_cpu = true;
	else if ((name == n[N_SCX_DSQ_ID] || name == n[N_DSQ_ID]) && has_int)
		e->dsq = ival, e->has_dsq = true;
	else if (name == n[N_SCX_LAYER_ID] && has_int)
		e->layer = ival, e->has_layer = true;
	else if (name == n[N_IRQ] && has_int)
		e->irq = ival, e->has_irq = true;
	else if (name == n[N_WAKER_TID] && has_int)
		e->waker_tid = ival, e->has_waker_tid = true;
	else if ((name == n[N_FORKED_INTO_TID] || name == n[N_FORKED_FROM_TID]) && has_int)
		e->fork_tid = ival, e->has_fork_tid = true;
	else if (name == n[N_OFFCPU_REASON] || name == n[N_PREV_STATE])
		e->reason = sval;
	else if (name == n[N_ACTION])
		e->action = sval;
	else if (name == n[N_FILENAME])
		e->filename = sval;
	else if (name == n[N_NEW_NAME] || name == n[N_RENAMED_TO])
		e->new_name = sval;
	else if (name == n[N_OLD_NAME])
		e->old_name = sval;
	return 0;
}

static bool has_cat(const struct pf_rd *r, const struct te *e, unsigned which)
{
	uint32_t id = r->name_iid[which];

	if (e->name == id)
		return true;
	for (unsigned i = 0; i < e->ncats; i++)
		if (e->cats[i] == id)
			return true;
	return false;
}

static struct pf_mark *mark_new(struct pf_rd *r)
{
	if (r->nmarks == r->marks_cap) {
		r->marks_cap = r->marks_cap ? r->marks_cap * 2 : 4096;
		r->marks = scx_xrealloc(r->marks, r->marks_cap * sizeof(*r->marks));
	}
	struct pf_mark *k = &r->marks[r->nmarks];
	memset(k, 0, sizeof(*k));
	k->seq = (uint32_t)r->nmarks++;
	return k;
}

/* The record a flow id names (kind: 0 wake, 1 fork), created on first use. */
static struct pf_rec *flow_rec(struct pf_rd *r, const struct te *e, unsigned kind, bool *fresh)
{
	uint64_t *v = NULL;

	*fresh = true;
	if (e->nflows) {
		v = pf_map_put(&r->flows, e->flows[0] << 1 | kind);
		if (*v && *v <= r->nr) {
			*fresh = false;
			return &r->recs[*v - 1];
		}
	}
	return NULL;
}

static void flow_bind(struct pf_rd *r, const struct te *e, unsigned kind)
{
	if (e->nflows)
		*pf_map_put(&r->flows, e->flows[0] << 1 | kind) = r->nr; /* last rec, +1 */
}

static int softirq_vec(const struct pf_rd *r, uint32_t action, uint32_t name)
{
	const char *a = pf_strp(r, action), *n = pf_strp(r, name);

	if (!*a && !strncmp(n, "SOFTIRQ:", 8))
		a = n + 8;
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(softirq_names); i++)
		if (!strcmp(a, softirq_names[i]))
			return (int)i;
	return -1;
}

/* The fields of a TrackEvent this reader uses; annotations are kept for later. */
static int te_decode(struct pf_rd *r, uint32_t seq, struct pb m, struct te *e, struct pb *ann,
		     unsigned max_ann, unsigned *nann)
{
	struct pb_field x;
	int rc;

	while ((rc = pb_next(&m, &x)) > 0) {
		switch (x.num) {
		case PF_TE_TYPE:
			e->type = x.v;
			break;
		case PF_TE_TRACK_UUID:
			e->track = x.v;
			break;
		case PF_TE_NAME_IID:
			e->name = interned(r, K_NAME, seq, x.v);
			break;
		case PF_TE_NAME:
			if (x.wt == PB_LEN)
				e->name = pf_str(r, x.s.p, SCX_MIN((size_t)(x.s.end - x.s.p), 255));
			break;
		case PF_TE_CATEGORY_IIDS:
			if (x.wt == PB_LEN) {
				struct pb p = x.s;
				uint64_t v;
				while (p.p < p.end) {
					if (pb_varint(&p, &v))
						return pf_bad(r, p.p, "malformed category list");
					if (e->ncats < 4)
						e->cats[e->ncats++] = interned(r, K_CAT, seq, v);
				}
			} else if (e->ncats < 4) {
				e->cats[e->ncats++] = interned(r, K_CAT, seq, x.v);
			}
			break;
		case PF_TE_CATEGORIES:
			if (x.wt == PB_LEN && e->ncats < 4)
				e->cats[e->ncats++] =
					pf_str(r, x.s.p, SCX_MIN((size_t)(x.s.end - x.s.p), 255));
			break;
		case PF_TE_DEBUG_ANNOTATIONS:
			if (x.wt == PB_LEN && *nann < max_ann)
				ann[(*nann)++] = x.s;
			break;
		case PF_TE_FLOW_IDS:
		case PF_TE_TERMINATING_FLOW_IDS:
		case PF_TE_FLOW_IDS_OLD:
		case PF_TE_TERMINATING_FLOW_IDS_OLD:
			if (x.wt == PB_LEN) { /* packed fixed64 */
				for (const uint8_t *p = x.s.p; p + 8 <= x.s.end && e->nflows < 4;
				     p += 8)
					memcpy(&e->flows[e->nflows++], p, 8);
			} else if (e->nflows < 4) {
				e->flows[e->nflows++] = x.v;
			}
			break;
		}
	}
	return rc < 0 ? pf_bad(r, m.p, "malformed track event") : 0;
}

/* A scheduling event the ftrace of the same span already has: one source per span. */
static bool te_in_ftrace_span(const struct pf_rd *r, const struct te *e, uint64_t ts)
{
	return ts >= r->skip_from && ts <= r->skip_to &&
	       (has_cat(r, e, N_ONCPU) || has_cat(r, e, N_WAKER) || has_cat(r, e, N_WAKEE) ||
		has_cat(r, e, N_WAKER_NEW) || has_cat(r, e, N_WAKEE_NEW) ||
		has_cat(r, e, N_WAKER_UNKNOWN) || has_cat(r, e, N_WAKEE_UNKNOWN) ||
		has_cat(r, e, N_WAKING));
}

/* An ONCPU slice's begin or end: a mark, made into switches once all are read. */
static void te_oncpu(struct pf_rd *r, const struct te *e, uint64_t ts, int32_t tid, int cpu,
		     bool begin)
{
	struct pf_mark *k;
	uint64_t *open = pf_map_put(&r->open, ~e->track); /* cpu + 1 of the open slice */

	if (begin) {
		*open = cpu + 1;
	} else {
		if (cpu < 0 && *open)
			cpu = (int)*open - 1;
		*open = 0;
	}
	if (cpu < 0)
		return;
	k = mark_new(r);
	k->ts = ts;
	k->cpu = (int16_t)cpu;
	k->tid = tid;
	k->begin = begin;
	k->dsq = e->has_dsq ? (uint64_t)e->dsq : SCX_DSQ_NONE;
	k->layer = e->has_layer && e->layer >= 0 && e->layer <= INT16_MAX ? (int16_t)e->layer : -1;
	k->state = e->reason == r->name_iid[N_PREEMPTED] ?
			   SCX_STATE_PREEMPTED :
			   SCX_STATE_INTERRUPTIBLE; /* "blocked": S or D is not said */
	if (k->begin) {
		k->comm = e->name == r->name_iid[N_ONCPU] ? 0 : e->name;
		/* the wakee runs: the waking's target cpu */
		for (unsigned i = 0; i < e->nflows; i++) {
			uint64_t *v = pf_map_get(&r->flows, e->flows[i] << 1);
			if (v && *v && *v <= r->nr)
				r->recs[*v - 1].d = cpu;
		}
	}
}

/* A waker or wakee instant: the two halves of one waking, joined by their flow. */
static void te_wake(struct pf_rd *r, const struct te *e, uint64_t ts, int32_t tid, int cpu,
		    bool waker)
{
	bool is_new = has_cat(r, e, N_WAKER_NEW) || has_cat(r, e, N_WAKEE_NEW);
	bool fresh;
	struct pf_rec *rec = flow_rec(r, e, 0, &fresh);

	if (fresh) {
		rec = pf_rec_new(r);
		rec->type = is_new ? SCX_EV_WAKEUP_NEW : SCX_EV_WAKING;
		rec->flags = REC_F_TRACK;
		rec->ts = ts;
		rec->cpu = (int16_t)cpu;
		rec->d = -1;
		flow_bind(r, e, 0);
	}
	if (waker) {
		rec->b = tid;
		if (cpu >= 0)
			rec->cpu = (int16_t)cpu; /* wakings happen on the waker's cpu */
		rec->ts = ts;
	} else {
		rec->a = tid;
		if (e->has_waker_tid)
			rec->b = (int32_t)e->waker_tid;
		if (e->has_cpu && fresh)
			rec->cpu = (int16_t)cpu;
	}
}

/* A forking or forked instant: the two halves of one fork, joined by their flow. */
static void te_fork(struct pf_rd *r, const struct te *e, uint64_t ts, int32_t tid, int cpu)
{
	bool parent = has_cat(r, e, N_FORKING), fresh;
	struct pf_rec *rec = flow_rec(r, e, 1, &fresh);
	struct scx_event *s;

	if (fresh) {
		s = pf_side_new(r, &rec, SCX_EV_FORK);
		rec->flags |= REC_F_TRACK;
		rec->ts = ts;
		rec->cpu = (int16_t)cpu;
		flow_bind(r, e, 1);
	} else {
		s = &r->side[rec->x];
	}
	if (parent) {
		s->fork.parent_pid = tid;
		if (e->has_fork_tid && !s->fork.child_pid)
			s->fork.child_pid = (int32_t)e->fork_tid;
	} else {
		s->fork.child_pid = tid;
		if (e->has_fork_tid && !s->fork.parent_pid)
			s->fork.parent_pid = (int32_t)e->fork_tid;
	}
	r->has_fork = true;
}

/*
 * A hard or soft irq slice.  END carries no annotations: BEGIN remembers
 * what the track has open, and its cpu, which END takes (*cpu).  NULL when
 * the slice makes no event.
 */
static struct scx_event *te_irq(struct pf_rd *r, const struct te *e, bool begin, int *cpu,
				struct pf_rec **rec)
{
	struct scx_event *s;
	uint64_t *open;
	bool hard;

	if (begin) {
		hard = has_cat(r, e, N_HARDIRQ);
		int v = hard ? (int)e->irq : softirq_vec(r, e->action, e->name);
		if (*cpu < 0 || v < 0 || (hard && !e->has_irq))
			return NULL;
		s = pf_side_new(r, rec, hard ? SCX_EV_IRQ_ENTRY : SCX_EV_SOFTIRQ_ENTRY);
		if (hard)
			s->irq.irq = v;
		else
			s->softirq.vec = (uint32_t)v;
		*pf_map_put(&r->open, e->track) =
			1ull << 63 | (uint64_t)hard << 62 | (uint64_t)*cpu << 32 | (uint32_t)v;
		return s;
	}
	open = pf_map_get(&r->open, e->track);
	if (!open || !(*open >> 63))
		return NULL;
	hard = *open >> 62 & 1;
	*cpu = (int)(*open >> 32 & 0x3ff);
	s = pf_side_new(r, rec, hard ? SCX_EV_IRQ_EXIT : SCX_EV_SOFTIRQ_EXIT);
	if (hard)
		s->irq.irq = (int32_t)(uint32_t)*open;
	else
		s->softirq.vec = (uint32_t)*open;
	*open = 0;
	return s;
}

/* An exec, exit, free or rename instant: one event of its own.  NULL for other instants. */
static struct scx_event *te_task(struct pf_rd *r, const struct te *e, int32_t tid,
				 struct pf_rec **rec)
{
	struct scx_event *s;

	if (has_cat(r, e, N_EXEC)) {
		s = pf_side_new(r, rec, SCX_EV_EXEC);
		s->exec.pid = tid;
		s->exec.old_pid = tid;
		strncpy(s->exec.filename, pf_strp(r, e->filename), SCX_PATH_LEN - 1);
	} else if (has_cat(r, e, N_EXIT) || has_cat(r, e, N_FREE)) {
		s = pf_side_new(r, rec, has_cat(r, e, N_EXIT) ? SCX_EV_EXIT : SCX_EV_FREE);
		s->task.pid = tid;
		/* the name is filled from the thread table at delivery */
	} else if (has_cat(r, e, N_RENAME)) {
		s = pf_side_new(r, rec, SCX_EV_TASK_RENAME);
		s->rename.pid = tid;
		strncpy(s->rename.oldcomm, pf_strp(r, e->old_name), SCX_COMM_LEN - 1);
		strncpy(s->rename.newcomm, pf_strp(r, e->new_name), SCX_COMM_LEN - 1);
	} else {
		return NULL;
	}
	return s;
}

int pf_track_event(struct pf_rd *r, uint32_t seq, uint64_t ts, struct pb m)
{
	struct te e = { .cpu = -1 };
	struct pb ann[24];
	unsigned nann = 0;
	struct pf_rec *rec;
	struct scx_event *s;

	init_names(r);
	if (te_decode(r, seq, m, &e, ann, SCX_ARRAY_SIZE(ann), &nann))
		return -EBADMSG;
	if (!e.track || has_cat(r, &e, N_SCX_READABLE))
		return 0; /* ours (--readable) repeat the ftrace events: read those */
	if (te_in_ftrace_span(r, &e, ts)) {
		r->t->stat.skipped_events++;
		return 0;
	}
	for (unsigned i = 0; i < nann; i++)
		if (annotation(r, seq, ann[i], &e))
			return -EBADMSG;

	int32_t tid = track_tid(r, e.track);
	int cpu = e.has_cpu && e.cpu >= 0 && e.cpu < SCX_MAX_CPUS ? (int)e.cpu : -1;

	if (cpu >= 0)
		pf_note_cpu(r, cpu);
	if (tid < 0)
		return 0; /* counters and other non-thread tracks */

	/* an END without names closes the innermost open slice of the track */
	bool bare_end = e.type == PF_TE_SLICE_END && !e.ncats && !e.name;
	if (bare_end) {
		uint64_t *v = pf_map_get(&r->open, e.track);
		if (v && *v >> 63)
			e.cats[e.ncats++] = r->name_iid[*v >> 62 & 1 ? N_HARDIRQ : N_SOFTIRQ];
		else if ((v = pf_map_get(&r->open, ~e.track)) && *v)
			e.cats[e.ncats++] = r->name_iid[N_ONCPU];
	}
	bool begin = e.type == PF_TE_SLICE_BEGIN, instant = e.type == PF_TE_INSTANT;
	bool slice = begin || e.type == PF_TE_SLICE_END;
	bool waker = has_cat(r, &e, N_WAKER) || has_cat(r, &e, N_WAKER_NEW) ||
		     has_cat(r, &e, N_WAKER_UNKNOWN);
	bool wakee = has_cat(r, &e, N_WAKEE) || has_cat(r, &e, N_WAKEE_NEW) ||
		     has_cat(r, &e, N_WAKEE_UNKNOWN) || has_cat(r, &e, N_WAKING);

	/* the halves of a switch, a waking or a fork: joined later */
	if (slice && has_cat(r, &e, N_ONCPU)) {
		te_oncpu(r, &e, ts, tid, cpu, begin);
		return 0;
	}
	if (instant && (waker || wakee)) {
		te_wake(r, &e, ts, tid, cpu, waker);
		return 0;
	}
	if (instant && (has_cat(r, &e, N_FORKING) || has_cat(r, &e, N_FORKED))) {
		te_fork(r, &e, ts, tid, cpu);
		return 0;
	}
	/* events of their own */
	if (instant)
		s = te_task(r, &e, tid, &rec);
	else if (slice && (has_cat(r, &e, N_HARDIRQ) || has_cat(r, &e, N_SOFTIRQ)))
		s = te_irq(r, &e, begin, &cpu, &rec);
	else
		s = NULL;
	if (!s)
		return 0;
	rec->flags |= REC_F_TRACK;
	rec->ts = ts;
	rec->cpu = (int16_t)cpu;
	return 0;
}

static int mark_cmp(const void *a, const void *b)
{
	const struct pf_mark *x = a, *y = b;

	if (x->cpu != y->cpu)
		return x->cpu - y->cpu;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	if (x->begin != y->begin)
		return x->begin - y->begin; /* END before BEGIN */
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/*
 * ONCPU edges -> switches: per cpu in time order, each BEGIN switches from
 * the task whose END came at the same time (or from whatever still runs).  A
 * first BEGIN with nothing before it only seeds the cpu (like the first
 * compact switch); an END with no BEGIN at the same time switches to idle.
 */
void pf_track_finish(struct pf_rd *r)
{
	size_t n = r->nmarks;

	if (!n)
		return;
	qsort(r->marks, n, sizeof(*r->marks), mark_cmp);
	for (size_t i = 0; i < n;) {
		int cpu = r->marks[i].cpu;
		int32_t cur = -1; /* running tid, -1 unknown */
		uint32_t cur_comm = 0;
		for (; i < n && r->marks[i].cpu == cpu; i++) {
			struct pf_mark *k = &r->marks[i];
			struct pf_rec *e;
			if (!k->begin) {
				bool next_begin = i + 1 < n && r->marks[i + 1].cpu == cpu &&
						  r->marks[i + 1].ts == k->ts &&
						  r->marks[i + 1].begin;
				if (next_begin) {
					/* the BEGIN makes the switch; carry prev over */
					r->marks[i + 1].state = k->state;
					if (cur != k->tid)
						cur_comm = 0;
					cur = k->tid;
					cur_comm = k->comm ? k->comm : cur_comm;
					r->marks[i + 1].has_prev = 1;
					continue;
				}
				if (k->tid == 0)
					continue; /* idle ends with nothing after it */
				e = pf_rec_new(r);
				e->type = SCX_EV_SWITCH;
				e->flags = REC_F_TRACK;
				e->ts = k->ts;
				e->cpu = (int16_t)cpu;
				e->a = k->tid;
				e->s1 = cur == k->tid ? cur_comm : 0;
				e->x = k->state;
				e->b = 0;
				cur = 0;
				cur_comm = 0;
				continue;
			}
			e = pf_rec_new(r);
			e->flags = REC_F_TRACK;
			e->ts = k->ts;
			e->cpu = (int16_t)cpu;
			e->b = k->tid;
			e->s2 = k->comm;
			if (!k->has_prev) {
				/*
				 * No END before it: the first slice of the cpu, or one of
				 * wprof's synthetic BEGINs at time 0 for tasks already
				 * running.  It says who runs, not that a switch happened.
				 */
				e->type = REC_SEED;
				if (cur >= 0)
					r->t->stat.skipped_events++;
			} else {
				e->type = SCX_EV_SWITCH;
				e->a = cur < 0 ? 0 : cur;
				e->s1 = cur_comm;
				e->x = k->state;
				if (k->dsq != SCX_DSQ_NONE) {
					/* the side form carries sched_ext data */
					struct scx_event *s;
					struct pf_rec tmp = *e, *e2;
					r->nr--;
					s = pf_side_new(r, &e2, SCX_EV_SWITCH);
					s->sw.prev_pid = tmp.a;
					s->sw.next_pid = tmp.b;
					s->sw.prev_state = tmp.x;
					strncpy(s->sw.prev_comm, pf_strp(r, tmp.s1),
						SCX_COMM_LEN - 1);
					strncpy(s->sw.next_comm, pf_strp(r, tmp.s2),
						SCX_COMM_LEN - 1);
					s->sw.dsq_id = k->dsq;
					s->sw.layer_id = k->layer;
					e2->flags |= REC_F_TRACK;
					e2->ts = tmp.ts;
					e2->cpu = tmp.cpu;
				}
			}
			cur = k->tid;
			cur_comm = k->comm;
		}
	}
}

/*
 * Where ftrace bundles hold the scheduler events of every cpu, TrackEvent
 * sched events would only be dropped later: pass 2 skips them unparsed.
 */
void pf_track_spans(struct pf_rd *r)
{
	int ncpu = SCX_MAX(r->max_cpu + 1, (int)r->t->hdr.nr_cpus);
	uint64_t(*span)[2][2];
	uint64_t from = 0, to = UINT64_MAX;

	r->skip_from = 1;
	r->skip_to = 0;
	if (r->o->source == SCX_PF_SRC_FTRACE) {
		r->skip_from = 0;
		r->skip_to = UINT64_MAX;
		return;
	}
	if (r->o->source == SCX_PF_SRC_TRACK || ncpu <= 0 || ncpu > SCX_MAX_CPUS)
		return;
	span = scx_xcalloc(ncpu, sizeof(*span));
	for (int c = 0; c < ncpu; c++)
		span[c][0][0] = span[c][1][0] = UINT64_MAX;
	for (size_t i = 0; i < r->nr; i++) {
		const struct pf_rec *e = &r->recs[i];
		int k = e->type == SCX_EV_SWITCH || e->type == REC_SEED		 ? 0 :
			e->type == SCX_EV_WAKING || e->type == SCX_EV_WAKEUP_NEW ? 1 :
										   -1;
		if (k < 0 || e->cpu < 0 || e->cpu >= ncpu || (e->flags & REC_F_TRACK))
			continue;
		if (e->ts < span[e->cpu][k][0])
			span[e->cpu][k][0] = e->ts;
		if (e->ts > span[e->cpu][k][1])
			span[e->cpu][k][1] = e->ts;
	}
	for (int c = 0; c < ncpu; c++)
		for (int k = 0; k < 2; k++) {
			if (span[c][k][0] == UINT64_MAX) {
				free(span);
				return; /* a cpu without ftrace: parse everything */
			}
			from = SCX_MAX(from, span[c][k][0]);
			to = SCX_MIN(to, span[c][k][1]);
		}
	free(span);
	r->skip_from = from;
	r->skip_to = to;
}
