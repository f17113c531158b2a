// SPDX-License-Identifier: GPL-2.0
/*
 * Perfetto trace -> scx events.  The input is walked packet by packet with
 * the hand-written decoder of perfetto_wire.h; ftrace bundles (verbose and
 * compact_sched) are handled here, TrackEvents in perfetto_track.c.  Events
 * are kept compact, sorted by time once the whole trace is read, then
 * completed (comms, tgids, wakers) and delivered.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfetto/perfetto_int.h"
#include "core/util.h"
#include "stream/zio.h"

/* ---- small containers ------------------------------------------------------ */

static uint64_t str_hash(const void *s, size_t n)
{
	const uint8_t *p = s;
	uint64_t h = 0xcbf29ce484222325ULL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 0x100000001b3ULL;
	return h;
}

uint32_t pf_str(struct pf_rd *r, const void *s, size_t n)
{
	uint64_t h;
	uint64_t *v;

	if (!n)
		return 0;
	n = strnlen(s, n); /* embedded NULs end a comm, as in the kernel */
	if (!n)
		return 0;
	for (h = str_hash(s, n);; h++) {
		v = pf_map_get(&r->strs, h);
		if (!v)
			break;
		const char *q = r->pool + r->str_off[*v];
		if (strlen(q) == n && !memcmp(q, s, n))
			return (uint32_t)*v;
	}
	if (r->nstr == r->str_cap) {
		r->str_cap = r->str_cap ? r->str_cap * 2 : 1024;
		r->str_off = scx_xrealloc(r->str_off, r->str_cap * sizeof(*r->str_off));
	}
	if (r->pool_len + n + 1 > r->pool_cap) {
		r->pool_cap = SCX_MAX(r->pool_cap * 2, r->pool_len + n + 1 + 4096);
		r->pool = scx_xrealloc(r->pool, r->pool_cap);
	}
	if (!r->nstr) { /* id 0 is the empty string */
		r->pool[0] = 0;
		r->pool_len = 1;
		r->str_off[r->nstr++] = 0;
	}
	memcpy(r->pool + r->pool_len, s, n);
	r->pool[r->pool_len + n] = 0;
	r->str_off[r->nstr] = r->pool_len;
	r->pool_len += n + 1;
	*pf_map_put(&r->strs, h) = r->nstr;
	return r->nstr++;
}

const char *pf_strp(const struct pf_rd *r, uint32_t id)
{
	return id && id < r->nstr ? r->pool + r->str_off[id] : "";
}

struct pf_rec *pf_rec_new(struct pf_rd *r)
{
	if (r->nr == r->cap) {
		r->cap = r->cap ? r->cap * 2 : 4096;
		r->recs = scx_xrealloc(r->recs, r->cap * sizeof(*r->recs));
	}
	struct pf_rec *e = &r->recs[r->nr++];
	memset(e, 0, sizeof(*e));
	return e;
}

struct scx_event *pf_side_new(struct pf_rd *r, struct pf_rec **rec, unsigned type)
{
	if (r->nside == r->side_cap) {
		r->side_cap = r->side_cap ? r->side_cap * 2 : 256;
		r->side = scx_xrealloc(r->side, r->side_cap * sizeof(*r->side));
	}
	struct scx_event *e = &r->side[r->nside];
	scx_event_init(e, type);
	*rec = pf_rec_new(r);
	(*rec)->type = type;
	(*rec)->flags = REC_F_SIDE;
	(*rec)->x = r->nside++;
	return e;
}

void pf_tg_note(struct pf_rd *r, int32_t tid, int32_t tgid, int32_t via)
{
	if (r->ntg == r->tg_cap) {
		r->tg_cap = r->tg_cap ? r->tg_cap * 2 : 256;
		r->tgs = scx_xrealloc(r->tgs, r->tg_cap * sizeof(*r->tgs));
	}
	r->tgs[r->ntg] = (struct pf_tg){ .ts = r->cur_ts,
					 .tid = tid,
					 .tgid = tgid,
					 .via = via,
					 .seq = (uint32_t)r->ntg };
	r->ntg++;
}

void pf_thread_set(struct pf_rd *r, int32_t tid, int32_t tgid, uint32_t comm, uint8_t prio)
{
	uint64_t *v = pf_map_get(&r->thr_idx, (uint32_t)tid);
	struct pf_thr *t;

	if (!v) {
		if (r->nthr == r->thr_cap) {
			r->thr_cap = r->thr_cap ? r->thr_cap * 2 : 256;
			r->thr = scx_xrealloc(r->thr, r->thr_cap * sizeof(*r->thr));
			r->thr_tid = scx_xrealloc(r->thr_tid, r->thr_cap * sizeof(*r->thr_tid));
		}
		v = pf_map_put(&r->thr_idx, (uint32_t)tid);
		*v = r->nthr;
		r->thr_tid[r->nthr] = tid;
		memset(&r->thr[r->nthr++], 0, sizeof(*t));
	}
	t = &r->thr[*v];
	if (tgid > 0) {
		if (t->tgid != tgid || !r->ntg)
			pf_tg_note(r, tid, tgid, 0);
		t->tgid = tgid;
	}
	if (comm && prio >= t->prio) {
		t->comm = comm;
		t->prio = prio;
	}
}

static struct pf_proc *proc_get(struct pf_rd *r, int32_t pid)
{
	uint64_t *v = pf_map_get(&r->proc_idx, (uint32_t)pid);

	if (!v) {
		if (r->nproc == r->proc_cap) {
			r->proc_cap = r->proc_cap ? r->proc_cap * 2 : 64;
			r->proc = scx_xrealloc(r->proc, r->proc_cap * sizeof(*r->proc));
		}
		v = pf_map_put(&r->proc_idx, (uint32_t)pid);
		*v = r->nproc;
		r->proc[r->nproc] = (struct pf_proc){ .pid = pid };
		r->nproc++;
	}
	return &r->proc[*v];
}

void pf_note_cpu(struct pf_rd *r, int cpu)
{
	if (cpu > r->max_cpu)
		r->max_cpu = cpu;
}

int pf_bad(struct pf_rd *r, const uint8_t *at, const char *msg)
{
	struct scx_pf_trace *t = r->t;

	if (t->error[0])
		return -EBADMSG;
	if (r->inner) {
		t->error_offset = r->inner_off;
		snprintf(t->error, sizeof(t->error),
			 "%s: byte %llu: %s (at byte %llu of the decompressed packet)", r->name,
			 (unsigned long long)r->inner_off, msg, (unsigned long long)(at - r->base));
	} else {
		t->error_offset = r->base_off + (uint64_t)(at - r->base);
		snprintf(t->error, sizeof(t->error), "%s: byte %llu: %s", r->name,
			 (unsigned long long)t->error_offset, msg);
	}
	return -EBADMSG;
}

/* ---- ftrace ---------------------------------------------------------------- */

/* Scalars and payloads of fields 1..15 of a small message, by number. */
struct pf_small {
	uint64_t v[16];
	struct pb s[16];
	uint32_t has;
};

static int small_decode(struct pf_rd *r, struct pb m, struct pf_small *f)
{
	struct pb_field x;
	int rc;

	memset(f, 0, sizeof(*f)); /* absent fields read as 0, as in protobuf */
	while ((rc = pb_next(&m, &x)) > 0) {
		if (x.num >= 16)
			continue;
		f->has |= 1u << x.num;
		if (x.wt == PB_LEN)
			f->s[x.num] = x.s;
		else
			f->v[x.num] = x.v;
	}
	return rc < 0 ? pf_bad(r, m.p, "malformed ftrace event") : 0;
}

static void copy_comm(char *dst, struct pb s)
{
	size_t n = SCX_MIN((size_t)(s.end - s.p), SCX_COMM_LEN - 1);

	memset(dst, 0, SCX_COMM_LEN);
	if (s.p)
		memcpy(dst, s.p, n);
}

static uint32_t small_str(struct pf_rd *r, const struct pf_small *f, unsigned n)
{
	if (!(f->has & 1u << n))
		return 0;
	return pf_str(r, f->s[n].p, SCX_MIN((size_t)(f->s[n].end - f->s[n].p), SCX_COMM_LEN - 1));
}

#define I32(n) ((int32_t)f->v[n])
#define HAS(g, n) ((g)->has & 1u << (n))

/* The FtraceEvent around the event: its time, its pid and the event itself. */
struct ft_envelope {
	uint64_t ts, pid;
	uint32_t id;		/* the event oneof's field number; 0 for none */
	struct pb payload, ext; /* ext: our scx fields beside a sched_switch */
};

static int ftrace_envelope(struct pf_rd *r, struct pb m, struct ft_envelope *v)
{
	struct pb_field x;
	int rc;

	memset(v, 0, sizeof(*v));
	while ((rc = pb_next(&m, &x)) > 0) {
		if (x.num == PF_FTRACE_TIMESTAMP)
			v->ts = x.v;
		else if (x.num == PF_FTRACE_PID)
			v->pid = x.v;
		else if (x.num == PF_FTRACE_SCX_SWITCH && x.wt == PB_LEN)
			v->ext = x.s;
		else if (x.wt == PB_LEN && x.num > PF_FTRACE_PID &&
			 x.num != PF_FTRACE_COMMON_FLAGS) {
			/* the event oneof: whichever message is there */
			v->id = x.num;
			v->payload = x.s;
		}
	}
	return rc < 0 ? pf_bad(r, m.p, "malformed ftrace event") : 0;
}

/*
 * sched_switch: a full event when our scx fields ride along, else a compact
 * record; either way the cpu's current task and both threads' names.
 */
static int ft_switch(struct pf_rd *r, int cpu, const struct pf_small *f, struct pb ext,
		     struct pf_rec **ep)
{
	struct pf_small g = { 0 };
	int32_t prev = I32(PF_SW_PREV_PID), next = I32(PF_SW_NEXT_PID);
	int64_t state = (int64_t)f->v[PF_SW_PREV_STATE];
	struct scx_event *s;
	struct pf_rec *e;

	if (ext.p && small_decode(r, ext, &g))
		return -EBADMSG;
	if (ext.p) {
		s = pf_side_new(r, ep, SCX_EV_SWITCH);
		s->sw.prev_pid = prev;
		s->sw.prev_prio = I32(PF_SW_PREV_PRIO);
		s->sw.prev_state = state;
		s->sw.next_pid = next;
		s->sw.next_prio = I32(PF_SW_NEXT_PRIO);
		copy_comm(s->sw.prev_comm, f->s[PF_SW_PREV_COMM]);
		copy_comm(s->sw.next_comm, f->s[PF_SW_NEXT_COMM]);
		if (HAS(&g, PF_SCXSW_DSQ_ID))
			s->sw.dsq_id = g.v[PF_SCXSW_DSQ_ID];
		s->sw.dsq_lat_ns = g.v[PF_SCXSW_DSQ_LAT_NS];
		s->sw.dsq_vtime = g.v[PF_SCXSW_DSQ_VTIME];
		s->sw.slice_ns = g.v[PF_SCXSW_SLICE_NS];
		s->sw.prev_slice_used_ns = g.v[PF_SCXSW_PREV_SLICE_USED_NS];
		s->sw.dsq_depth = (uint32_t)g.v[PF_SCXSW_DSQ_DEPTH];
		if (HAS(&g, PF_SCXSW_LAYER_ID))
			s->sw.layer_id = (int32_t)g.v[PF_SCXSW_LAYER_ID];
	} else {
		e = *ep = pf_rec_new(r);
		e->type = SCX_EV_SWITCH;
		e->a = prev;
		e->c = I32(PF_SW_PREV_PRIO);
		e->x = state;
		e->b = next;
		e->d = I32(PF_SW_NEXT_PRIO);
		e->s1 = small_str(r, f, PF_SW_PREV_COMM);
		e->s2 = small_str(r, f, PF_SW_NEXT_COMM);
	}
	if (state & ~(int64_t)0x1ff)
		r->has_state_raw = true;
	if (cpu < SCX_MAX_CPUS) {
		r->cur[cpu].pid = next;
		r->cur[cpu].prio = I32(PF_SW_NEXT_PRIO);
		r->cur[cpu].comm = small_str(r, f, PF_SW_NEXT_COMM);
		r->cur[cpu].known = true;
	}
	if (prev > 0)
		pf_thread_set(r, prev, 0, small_str(r, f, PF_SW_PREV_COMM), 1);
	if (next > 0)
		pf_thread_set(r, next, 0, small_str(r, f, PF_SW_NEXT_COMM), 1);
	return 0;
}

/* sched_wakeup, sched_waking, sched_wakeup_new: compact records. */
static void ft_wakeup(struct pf_rd *r, const struct ft_envelope *v, const struct pf_small *f,
		      struct pf_rec **ep)
{
	struct pf_rec *e = *ep = pf_rec_new(r);

	e->type = v->id == PF_EV_SCHED_WAKEUP ? SCX_EV_WAKEUP :
		  v->id == PF_EV_SCHED_WAKING ? SCX_EV_WAKING :
						SCX_EV_WAKEUP_NEW;
	e->flags = REC_F_VERBOSE_WAKE;
	e->a = I32(PF_WK_PID);
	e->b = (int32_t)v->pid;
	e->c = I32(PF_WK_PRIO);
	e->d = HAS(f, PF_WK_TARGET_CPU) ? I32(PF_WK_TARGET_CPU) : -1;
	e->s1 = small_str(r, f, PF_WK_COMM);
	if (e->a > 0)
		pf_thread_set(r, e->a, 0, e->s1, 1);
}

/* task_newtask: thread grouping, and a fork if the trace has none. */
static void ft_newtask(struct pf_rd *r, const struct ft_envelope *v, const struct pf_small *f,
		       struct pf_rec **ep)
{
	int32_t child = I32(PF_NEWTASK_PID), pid = (int32_t)v->pid;
	uint32_t comm = small_str(r, f, PF_NEWTASK_COMM);
	bool thread = f->v[PF_NEWTASK_CLONE_FLAGS] & 0x10000; /* CLONE_THREAD */
	uint64_t *pv = pf_map_get(&r->thr_idx, (uint32_t)v->pid);
	int32_t ptgid = pv ? r->thr[*pv].tgid : 0;
	struct scx_event *s;

	if (child <= 0)
		return; /* swapper: trace_processor ignores it too */
	r->cur_ts = v->ts;
	if (thread) {
		/* the creator's process, which may only be named later */
		pf_thread_set(r, child, 0, comm, 1);
		pf_tg_note(r, child, 0, pid);
	} else {
		pf_thread_set(r, child, child, comm, 1);
		pf_tg_note(r, child, child, 0);
		proc_get(r, child)->ppid = ptgid ? ptgid : pid;
	}
	s = pf_side_new(r, ep, SCX_EV_FORK);
	(*ep)->flags |= REC_F_NEWTASK;
	s->fork.parent_pid = pid;
	s->fork.child_pid = child;
	s->fork.child_tgid = thread ? 0 : child;
	copy_comm(s->fork.child_comm, f->s[PF_NEWTASK_COMM]);
}

/* ipi_raise: one ipi_send per target cpu, each with its own time and cpu. */
static void ft_ipi_raise(struct pf_rd *r, int cpu, const struct ft_envelope *v,
			 const struct pf_small *f)
{
	uint32_t mask = (uint32_t)f->v[PF_IPI_RAISE_TARGET_CPUS];
	struct pf_rec *e = NULL;
	struct scx_event *s;

	for (int c = 0; c < 32; c++) {
		if (!(mask & 1u << c))
			continue;
		s = pf_side_new(r, &e, SCX_EV_IPI_SEND);
		s->ipi.target_cpu = c;
		e->ts = v->ts;
		e->cpu = (int16_t)cpu;
	}
}

static void copy_str(char *dst, struct pb s, size_t size)
{
	if (s.p)
		memcpy(dst, s.p, SCX_MIN((size_t)(s.end - s.p), size - 1));
}

/*
 * The other events, each a full event whose fields map one to one.  Returns
 * false for an event this reader does not know (it is skipped).
 */
static bool ft_side(struct pf_rd *r, const struct ft_envelope *v, const struct pf_small *f,
		    struct pf_rec **ep)
{
	uint32_t id = v->id;
	struct pb_field x;
	struct scx_event *s;

	switch (id) {
	case PF_EV_SCHED_MIGRATE_TASK:
		s = pf_side_new(r, ep, SCX_EV_MIGRATE);
		s->mig.pid = I32(PF_MIG_PID);
		s->mig.prio = I32(PF_MIG_PRIO);
		s->mig.orig_cpu = I32(PF_MIG_ORIG_CPU);
		s->mig.dest_cpu = I32(PF_MIG_DEST_CPU);
		copy_comm(s->mig.comm, f->s[PF_MIG_COMM]);
		break;
	case PF_EV_SCHED_PROCESS_FORK:
		s = pf_side_new(r, ep, SCX_EV_FORK);
		s->fork.parent_pid = I32(PF_FORK_PARENT_PID);
		s->fork.child_pid = I32(PF_FORK_CHILD_PID);
		copy_comm(s->fork.parent_comm, f->s[PF_FORK_PARENT_COMM]);
		copy_comm(s->fork.child_comm, f->s[PF_FORK_CHILD_COMM]);
		r->has_fork = true;
		break;
	case PF_EV_SCHED_PROCESS_EXEC:
		s = pf_side_new(r, ep, SCX_EV_EXEC);
		s->exec.pid = I32(PF_EXEC_PID);
		s->exec.old_pid = I32(PF_EXEC_OLD_PID);
		copy_str(s->exec.filename, f->s[PF_EXEC_FILENAME], SCX_PATH_LEN);
		/* past small_decode's field numbers: walked again */
		for (struct pb q = v->payload; pb_next(&q, &x) > 0;)
			if (x.num == PF_EXEC_SCX_COMM && x.wt == PB_LEN)
				copy_comm(s->exec.comm, x.s);
		break;
	case PF_EV_SCHED_PROCESS_EXIT:
		s = pf_side_new(r, ep, SCX_EV_EXIT);
		s->task.pid = I32(PF_EXIT_PID);
		copy_comm(s->task.comm, f->s[PF_EXIT_COMM]);
		s->task.tgid = I32(PF_EXIT_TGID);
		s->task.prio = I32(PF_EXIT_PRIO);
		break;
	case PF_EV_SCHED_PROCESS_FREE:
		s = pf_side_new(r, ep, SCX_EV_FREE);
		s->task.pid = I32(PF_FREE_PID);
		copy_comm(s->task.comm, f->s[PF_FREE_COMM]);
		s->task.prio = I32(PF_FREE_PRIO);
		break;
	case PF_EV_TASK_RENAME:
		s = pf_side_new(r, ep, SCX_EV_TASK_RENAME);
		s->rename.pid = I32(PF_RENAME_PID);
		copy_comm(s->rename.oldcomm, f->s[PF_RENAME_OLDCOMM]);
		copy_comm(s->rename.newcomm, f->s[PF_RENAME_NEWCOMM]);
		break;
	case PF_EV_SOFTIRQ_ENTRY:
	case PF_EV_SOFTIRQ_EXIT:
		s = pf_side_new(r, ep,
				id == PF_EV_SOFTIRQ_ENTRY ? SCX_EV_SOFTIRQ_ENTRY :
							    SCX_EV_SOFTIRQ_EXIT);
		s->softirq.vec = (uint32_t)f->v[PF_SOFTIRQ_VEC];
		break;
	case PF_EV_IRQ_HANDLER_ENTRY:
	case PF_EV_IRQ_HANDLER_EXIT:
		s = pf_side_new(r, ep,
				id == PF_EV_IRQ_HANDLER_ENTRY ? SCX_EV_IRQ_ENTRY : SCX_EV_IRQ_EXIT);
		s->irq.irq = I32(PF_IRQ_IRQ);
		s->irq.ret = id == PF_EV_IRQ_HANDLER_EXIT ? I32(PF_IRQ_RET) : 0;
		break;
	case PF_EV_IPI_ENTRY:
	case PF_EV_IPI_EXIT:
		pf_side_new(r, ep, id == PF_EV_IPI_ENTRY ? SCX_EV_IPI_ENTRY : SCX_EV_IPI_EXIT);
		break;
	case PF_EV_SCX_IPI_SEND:
		s = pf_side_new(r, ep, SCX_EV_IPI_SEND);
		s->ipi.target_cpu = I32(PF_SCXIPI_TARGET_CPU);
		s->ipi.callsite = f->v[PF_SCXIPI_CALLSITE];
		break;
	case PF_EV_CPU_FREQUENCY:
		s = pf_side_new(r, ep, SCX_EV_CPU_FREQUENCY);
		s->freq.khz = (uint32_t)f->v[PF_CPU_STATE];
		s->freq.cpu_id = (uint32_t)f->v[PF_CPU_CPU_ID];
		pf_note_cpu(r, (int)SCX_MIN(f->v[PF_CPU_CPU_ID], 1023));
		break;
	case PF_EV_CPU_IDLE:
		s = pf_side_new(r, ep, SCX_EV_CPU_IDLE);
		s->idle.state = (uint32_t)f->v[PF_CPU_STATE];
		s->idle.cpu_id = (uint32_t)f->v[PF_CPU_CPU_ID];
		pf_note_cpu(r, (int)SCX_MIN(f->v[PF_CPU_CPU_ID], 1023));
		break;
	case PF_EV_SCX_DSQ_INSERT:
		s = pf_side_new(r, ep, SCX_EV_DSQ_INSERT);
		s->dsq.pid = I32(PF_SCXDSQ_PID);
		s->dsq.dsq_id = f->v[PF_SCXDSQ_DSQ_ID];
		s->dsq.vtime = f->v[PF_SCXDSQ_VTIME];
		s->dsq.slice_ns = f->v[PF_SCXDSQ_SLICE_NS];
		s->dsq.depth = (uint32_t)f->v[PF_SCXDSQ_DEPTH];
		copy_comm(s->dsq.comm, f->s[PF_SCXDSQ_COMM]);
		if (HAS(f, PF_SCXDSQ_FROM_DSQ_ID)) /* a move's source DSQ */
			s->dsq.from_dsq_id = f->v[PF_SCXDSQ_FROM_DSQ_ID];
		break;
	case PF_EV_SCX_CPUHP_ENTER:
	case PF_EV_SCX_CPUHP_EXIT:
		s = pf_side_new(r, ep,
				id == PF_EV_SCX_CPUHP_ENTER ? SCX_EV_CPUHP_ENTER :
							      SCX_EV_CPUHP_EXIT);
		s->cpuhp.cpu_id = (uint32_t)f->v[PF_SCXHP_CPU_ID];
		s->cpuhp.target = I32(PF_SCXHP_TARGET);
		s->cpuhp.idx = I32(PF_SCXHP_IDX);
		s->cpuhp.ret = I32(PF_SCXHP_RET);
		break;
	case PF_EV_SCX_ENABLE:
	case PF_EV_SCX_DISABLE:
		s = pf_side_new(r, ep,
				id == PF_EV_SCX_ENABLE ? SCX_EV_SCX_ENABLE : SCX_EV_SCX_DISABLE);
		copy_str(s->ops.name, f->s[PF_SCXOPS_NAME], SCX_NAME_LEN);
		break;
	default:
		return false;
	}
	return true;
}

/* One FtraceEvent of a bundle: decoded by kind, then stamped with its time and cpu. */
static int ftrace_event(struct pf_rd *r, int cpu, struct pb m)
{
	struct ft_envelope v;
	struct pf_small f;
	struct pf_rec *e = NULL;

	if (ftrace_envelope(r, m, &v))
		return -EBADMSG;
	r->t->stat.ftrace_events++;
	if (!v.id)
		return 0;
	if (small_decode(r, v.payload, &f))
		return -EBADMSG;
	switch (v.id) {
	case PF_EV_SCHED_SWITCH:
		if (ft_switch(r, cpu, &f, v.ext, &e))
			return -EBADMSG;
		break;
	case PF_EV_SCHED_WAKEUP:
	case PF_EV_SCHED_WAKING:
	case PF_EV_SCHED_WAKEUP_NEW:
		ft_wakeup(r, &v, &f, &e);
		break;
	case PF_EV_TASK_NEWTASK:
		ft_newtask(r, &v, &f, &e);
		break;
	case PF_EV_IPI_RAISE:
		ft_ipi_raise(r, cpu, &v, &f);
		return 0;
	default:
		if (!ft_side(r, &v, &f, &e))
			return 0;
	}
	if (e) {
		e->ts = v.ts;
		e->cpu = (int16_t)cpu;
	}
	return 0;
}

/* Append the elements of a repeated scalar field (packed or not) to arr[i]. */
static int arr_add(struct pf_rd *r, unsigned i, const struct pb_field *x)
{
	struct pb p = x->s;
	uint64_t v;

	if (x->wt != PB_LEN) {
		p.p = NULL;
		v = x->v;
		goto one;
	}
	while (p.p < p.end) {
		if (pb_varint(&p, &v))
			return pf_bad(r, p.p, "malformed packed array in compact_sched");
one:
		if (r->arr_n[i] == r->arr_cap[i]) {
			r->arr_cap[i] = r->arr_cap[i] ? r->arr_cap[i] * 2 : 1024;
			r->arr[i] = scx_xrealloc(r->arr[i], r->arr_cap[i] * sizeof(uint64_t));
		}
		r->arr[i][r->arr_n[i]++] = v;
		if (!p.p)
			break;
	}
	return 0;
}

static int compact_sched(struct pf_rd *r, int cpu, struct pb m)
{
	struct pb_field x;
	unsigned nitab = 0;
	int rc;

	memset(r->arr_n, 0, sizeof(r->arr_n));
	while ((rc = pb_next(&m, &x)) > 0) {
		if (x.num == PF_CS_INTERN_TABLE && x.wt == PB_LEN) {
			if (nitab < SCX_ARRAY_SIZE(r->itab))
				r->itab[nitab++] = x.s;
		} else if (x.num >= 1 && x.num <= PF_CS__LAST &&
			   (x.wt == PB_LEN || x.wt == PB_VARINT)) {
			if (arr_add(r, x.num, &x))
				return -EBADMSG;
		}
	}
	if (rc < 0)
		return pf_bad(r, m.p, "malformed compact_sched");

	/* switches: as many as the shortest of their arrays */
	static const unsigned sw_arr[] = { PF_CS_SWITCH_PREV_STATE, PF_CS_SWITCH_NEXT_PID,
					   PF_CS_SWITCH_NEXT_PRIO, PF_CS_SWITCH_NEXT_COMM_INDEX };
	size_t n = r->arr_n[PF_CS_SWITCH_TIMESTAMP];
	for (unsigned k = 0; k < SCX_ARRAY_SIZE(sw_arr); k++)
		n = SCX_MIN(n, r->arr_n[sw_arr[k]]);
	uint64_t ts = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t ci = r->arr[PF_CS_SWITCH_NEXT_COMM_INDEX][i];
		uint32_t comm = ci < nitab ?
					pf_str(r, r->itab[ci].p,
					       SCX_MIN((size_t)(r->itab[ci].end - r->itab[ci].p),
						       SCX_COMM_LEN - 1)) :
					0;
		int32_t pid = (int32_t)r->arr[PF_CS_SWITCH_NEXT_PID][i];
		int32_t prio = (int32_t)r->arr[PF_CS_SWITCH_NEXT_PRIO][i];
		struct pf_rec *e = pf_rec_new(r);

		ts += r->arr[PF_CS_SWITCH_TIMESTAMP][i];
		r->t->stat.compact_switches++;
		e->ts = ts;
		e->cpu = (int16_t)cpu;
		if (!r->cur[cpu].known) {
			/* no prev: only seeds the cpu, like trace_processor */
			e->type = REC_SEED;
			r->t->stat.skipped_events++;
		} else {
			e->type = SCX_EV_SWITCH;
			e->a = r->cur[cpu].pid;
			e->c = r->cur[cpu].prio;
			e->s1 = r->cur[cpu].comm;
			e->x = (int64_t)r->arr[PF_CS_SWITCH_PREV_STATE][i];
		}
		e->b = pid;
		e->d = prio;
		e->s2 = comm;
		r->cur[cpu].pid = pid;
		r->cur[cpu].prio = prio;
		r->cur[cpu].comm = comm;
		r->cur[cpu].known = true;
		if (pid > 0)
			pf_thread_set(r, pid, 0, comm, 1);
	}

	/* wakings likewise (their common_flags are optional, and unused) */
	static const unsigned wk_arr[] = { PF_CS_WAKING_PID, PF_CS_WAKING_TARGET_CPU,
					   PF_CS_WAKING_PRIO, PF_CS_WAKING_COMM_INDEX };
	n = r->arr_n[PF_CS_WAKING_TIMESTAMP];
	for (unsigned k = 0; k < SCX_ARRAY_SIZE(wk_arr); k++)
		n = SCX_MIN(n, r->arr_n[wk_arr[k]]);
	ts = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t ci = r->arr[PF_CS_WAKING_COMM_INDEX][i];
		struct pf_rec *e = pf_rec_new(r);

		ts += r->arr[PF_CS_WAKING_TIMESTAMP][i];
		r->t->stat.compact_wakings++;
		e->ts = ts;
		e->cpu = (int16_t)cpu;
		e->type = SCX_EV_WAKING;
		e->flags = REC_F_WAKER_CPU;
		e->a = (int32_t)r->arr[PF_CS_WAKING_PID][i];
		e->d = (int32_t)r->arr[PF_CS_WAKING_TARGET_CPU][i];
		e->c = (int32_t)r->arr[PF_CS_WAKING_PRIO][i];
		e->s1 = ci < nitab ? pf_str(r, r->itab[ci].p,
					    SCX_MIN((size_t)(r->itab[ci].end - r->itab[ci].p),
						    SCX_COMM_LEN - 1)) :
				     0;
		if (e->a > 0)
			pf_thread_set(r, e->a, 0, e->s1, 1);
	}
	return 0;
}

static int ftrace_bundle(struct pf_rd *r, struct pb m)
{
	struct pb it = m, compact = { 0 };
	struct pb_field x;
	uint64_t cpu = UINT64_MAX, lost_count = 0, lost_ts = 0;
	bool lost = false, has_lost_ts = false;
	uint64_t crop = 0;
	size_t start;
	int rc;

	r->t->stat.bundles++;
	while ((rc = pb_next(&it, &x)) > 0) {
		if (x.num == PF_BUNDLE_CPU && x.wt == PB_VARINT)
			cpu = x.v;
		else if (x.num == PF_BUNDLE_LOST_EVENTS && x.wt == PB_VARINT)
			lost = x.v;
		else if (x.num == PF_BUNDLE_COMPACT_SCHED && x.wt == PB_LEN)
			compact = x.s;
		else if ((x.num == PF_BUNDLE_LAST_READ_EVENT_TIMESTAMP ||
			  x.num == PF_BUNDLE_PREVIOUS_BUNDLE_END_TIMESTAMP) &&
			 x.wt == PB_VARINT)
			crop = SCX_MAX(crop, x.v);
		else if (x.num == PF_BUNDLE_SCX_LOST_COUNT)
			lost_count = x.v;
		else if (x.num == PF_BUNDLE_SCX_LOST_TS) {
			lost_ts = x.v;
			has_lost_ts = true;
		}
	}
	if (rc < 0)
		return pf_bad(r, it.p, "malformed ftrace bundle");
	if (cpu >= SCX_MAX_CPUS) { /* no table here has room: drop, and say so */
		r->t->stat.dropped_bundles++;
		return 0;
	}
	pf_note_cpu(r, (int)cpu);
	if (!(r->bundle_seen[cpu / 32] & 1u << (cpu % 32))) {
		/*
		 * The first bundle of a cpu says where its ring buffer data is
		 * complete; trace_processor keeps earlier events out of its tables.
		 */
		r->bundle_seen[cpu / 32] |= 1u << (cpu % 32);
		r->ftrace_cut = SCX_MAX(r->ftrace_cut, crop);
	}
	start = r->nr;
	it = m;
	while ((rc = pb_next(&it, &x)) > 0)
		if (x.num == PF_BUNDLE_EVENT && x.wt == PB_LEN && ftrace_event(r, (int)cpu, x.s))
			return -EBADMSG;
	if (compact.p && compact_sched(r, (int)cpu, compact))
		return -EBADMSG;
	if (lost) {
		struct pf_rec *e;
		struct scx_event *s = pf_side_new(r, &e, SCX_EV_LOST);

		r->t->stat.lost_bundles++;
		s->lost.count = lost_count;
		e->cpu = (int16_t)cpu;
		/* without our private timestamp, the loss is before the bundle's first event */
		if (has_lost_ts) {
			e->ts = lost_ts;
		} else {
			uint64_t first = UINT64_MAX;
			for (size_t i = start; i + 1 < r->nr; i++)
				if (r->recs[i].ts < first)
					first = r->recs[i].ts;
			e->ts = first == UINT64_MAX ? 0 : first;
		}
	}
	return 0;
}

/* ---- other packets ----------------------------------------------------------- */

static int process_tree(struct pf_rd *r, struct pb m)
{
	struct pb_field x, y;
	int rc, rc2;

	r->t->stat.process_trees++;
	while ((rc = pb_next(&m, &x)) > 0) {
		if (x.wt != PB_LEN)
			continue;
		struct pb s = x.s;
		if (x.num == PF_PTREE_PROCESSES) {
			int32_t pid = 0, ppid = 0;
			struct scx_buf cmd = { 0 };
			bool is_comm = false;
			while ((rc2 = pb_next(&s, &y)) > 0) {
				if (y.num == PF_PROCESS_PID)
					pid = (int32_t)y.v;
				else if (y.num == PF_PROCESS_PPID)
					ppid = (int32_t)y.v;
				else if (y.num == PF_PROCESS_CMDLINE && y.wt == PB_LEN) {
					if (cmd.len)
						scx_buf_add(&cmd, " ", 1);
					scx_buf_add(&cmd, y.s.p, y.s.end - y.s.p);
				} else if (y.num == PF_PROCESS_CMDLINE_IS_COMM)
					is_comm = y.v;
			}
			if (rc2 < 0) {
				scx_buf_free(&cmd);
				return pf_bad(r, s.p, "malformed process tree");
			}
			if (pid <= 0) {
				scx_buf_free(&cmd);
				continue;
			}
			struct pf_proc *p = proc_get(r, pid);
			p->ppid = ppid;
			if (cmd.len) {
				scx_buf_add(&cmd, "", 1);
				free(p->cmdline);
				p->cmdline = cmd.data;
				/* the main thread's name: argv[0]'s basename, or the comm itself */
				const char *name = p->cmdline, *sl;
				size_t n = strcspn(name, is_comm ? "" : " ");
				if (!is_comm && (sl = memrchr(name, '/', n)))
					n -= sl + 1 - name, name = sl + 1;
				pf_thread_set(r, pid, pid,
					      pf_str(r, name, SCX_MIN(n, SCX_COMM_LEN - 1)), 2);
			} else {
				scx_buf_free(&cmd);
				pf_thread_set(r, pid, pid, 0, 0);
			}
		} else if (x.num == PF_PTREE_THREADS) {
			int32_t tid = 0, tgid = 0;
			uint32_t name = 0;
			while ((rc2 = pb_next(&s, &y)) > 0) {
				if (y.num == PF_THREAD_TID)
					tid = (int32_t)y.v;
				else if (y.num == PF_THREAD_TGID)
					tgid = (int32_t)y.v;
				else if (y.num == PF_THREAD_NAME && y.wt == PB_LEN)
					name = pf_str(r, y.s.p,
						      SCX_MIN((size_t)(y.s.end - y.s.p),
							      SCX_COMM_LEN - 1));
			}
			if (rc2 < 0)
				return pf_bad(r, s.p, "malformed process tree");
			if (tid > 0)
				pf_thread_set(r, tid, tgid, name, 2);
		}
	}
	return rc < 0 ? pf_bad(r, m.p, "malformed process tree") : 0;
}

/* wprof (newer versions): GenericKernelProcessTree {processes {pid, ppid, cmdline}} */
static int generic_process_tree(struct pf_rd *r, struct pb m)
{
	struct pb_field x, y;
	int rc, rc2;

	while ((rc = pb_next(&m, &x)) > 0) {
		if (x.num != PF_GKPTREE_PROCESSES || x.wt != PB_LEN)
			continue;
		struct pb s = x.s;
		int32_t pid = 0, ppid = 0;
		struct pb cmd = { 0 };
		while ((rc2 = pb_next(&s, &y)) > 0) {
			if (y.num == PF_GKPROCESS_PID)
				pid = (int32_t)y.v;
			else if (y.num == PF_GKPROCESS_PPID)
				ppid = (int32_t)y.v;
			else if (y.num == PF_GKPROCESS_CMDLINE && y.wt == PB_LEN)
				cmd = y.s;
		}
		if (rc2 < 0)
			return pf_bad(r, s.p, "malformed process tree");
		if (pid <= 0)
			continue;
		struct pf_proc *p = proc_get(r, pid);
		p->ppid = ppid;
		if (cmd.p && !p->cmdline)
			p->cmdline = strndup((const char *)cmd.p, cmd.end - cmd.p);
		pf_thread_set(r, pid, pid, 0, 0);
	}
	return rc < 0 ? pf_bad(r, m.p, "malformed process tree") : 0;
}

static void copy_field(char *dst, size_t size, struct pb s)
{
	size_t n = SCX_MIN((size_t)(s.end - s.p), size - 1);

	memcpy(dst, s.p, n);
	dst[n] = 0;
}

static int system_info(struct pf_rd *r, struct pb m)
{
	struct pb_field x, y;
	struct scx_header *h = &r->t->hdr;
	int rc;

	r->t->stat.system_infos++;
	while ((rc = pb_next(&m, &x)) > 0) {
		if (x.num == PF_SYSINFO_UTSNAME && x.wt == PB_LEN) {
			struct pb u = x.s;
			while ((rc = pb_next(&u, &y)) > 0) {
				if (y.wt != PB_LEN)
					continue;
				if (y.num == PF_UTS_SYSNAME) {
					/* wprof 907fa19 put the hostname there */
					if (y.s.end - y.s.p == 5 && !memcmp(y.s.p, "Linux", 5))
						r->has_sysname_linux = true;
					else
						copy_field(h->hostname, sizeof(h->hostname), y.s);
				} else if (y.num == PF_UTS_RELEASE) {
					copy_field(h->kernel, sizeof(h->kernel), y.s);
				}
			}
			if (rc < 0)
				return pf_bad(r, u.p, "malformed system_info");
		} else if (x.num == PF_SYSINFO_NUM_CPUS && x.wt == PB_VARINT &&
			   x.v <= SCX_MAX_CPUS) {
			h->nr_cpus = (unsigned)x.v;
		} else if (x.num == PF_SYSINFO_MACHINE_NAME && x.wt == PB_LEN) {
			copy_field(h->hostname, sizeof(h->hostname), x.s);
		} else if (x.num == PF_SYSINFO_TRACING_SERVICE_VERSION && x.wt == PB_LEN &&
			   x.s.end - x.s.p >= 12 && !memcmp(x.s.p, "scx-perfetto", 12)) {
			r->t->producer = SCX_PF_PROD_SCX;
		}
	}
	return rc < 0 ? pf_bad(r, m.p, "malformed system_info") : 0;
}

static int clock_snapshot(struct pf_rd *r, struct pb m)
{
	struct pb_field x, y;
	int rc;
	uint64_t boot = 0, real = 0;
	bool has_boot = false, has_real = false;

	r->t->stat.clock_snapshots++;
	while ((rc = pb_next(&m, &x)) > 0) {
		if (x.num != PF_CLKSNAP_CLOCKS || x.wt != PB_LEN)
			continue;
		struct pb c = x.s;
		uint64_t id = 0, ts = 0;
		while ((rc = pb_next(&c, &y)) > 0) {
			if (y.num == PF_CLOCK_ID)
				id = y.v;
			else if (y.num == PF_CLOCK_TIMESTAMP)
				ts = y.v;
		}
		if (rc < 0)
			return pf_bad(r, c.p, "malformed clock_snapshot");
		if (id == PF_BUILTIN_CLOCK_BOOTTIME)
			boot = ts, has_boot = true;
		else if (id == PF_BUILTIN_CLOCK_REALTIME)
			real = ts, has_real = true;
	}
	if (rc < 0)
		return pf_bad(r, m.p, "malformed clock_snapshot");
	if (has_boot && has_real && !r->t->realtime_at_zero)
		r->t->realtime_at_zero = real - boot;
	return 0;
}

static int walk(struct pf_rd *r, const uint8_t *buf, size_t len);

/*
 * What the reader holds now, roughly: the trace bytes and the decoded records,
 * strings and slices.  Checked against the limit after every packet, so one
 * packet is all it can overshoot by.
 */
static uint64_t rd_mem(const struct pf_rd *r)
{
	return r->held + r->cap * sizeof(*r->recs) + r->side_cap * sizeof(*r->side) + r->pool_cap +
	       r->str_cap * sizeof(*r->str_off) + r->tg_cap * sizeof(*r->tgs) +
	       r->marks_cap * sizeof(*r->marks) + r->thr_cap * (sizeof(*r->thr) + 4);
}

/* -EFBIG with t->error naming the input and the limit. */
static int too_big(struct scx_pf_trace *t, const char *name, const char *what, uint64_t limit)
{
	struct scx_buf b = { 0 };

	/* through a buffer: a long file name may cut the message, never overflow it */
	scx_buf_printf(&b, "%s: %s more than the reader's memory limit of %llu bytes (%llu MiB)",
		       name, what, (unsigned long long)limit, (unsigned long long)(limit >> 20));
	snprintf(t->error, sizeof(t->error), "%.*s", (int)b.len, b.data);
	scx_buf_free(&b);
	return -EFBIG;
}

/* Inflate a compressed packet in pieces, never past what the limit leaves. */
static int decompress_packet(struct pf_rd *r, struct pb s, bool zstd, const uint8_t *at)
{
	const char *what = zstd ? "zstd_compressed_packets" : "compressed_packets";
	struct scx_buf out = { 0 };
	struct scx_zin z;
	char msg[240];
	uint64_t room;
	int err = 0;

	if (r->inner)
		return pf_bad(r, at, "nested compressed packets");
	room = r->limit > rd_mem(r) ? r->limit - rd_mem(r) : 0;
	err = zstd ? scx_zin_open(&z, -1, s.p, s.end - s.p) :
		     scx_zin_open_deflate(&z, s.p, s.end - s.p);
	if (err) {
		scx_zin_close(&z);
		return err;
	}
	if (zstd && z.comp != SCX_COMP_ZSTD) {
		scx_zin_close(&z);
		return pf_bad(r, at, "corrupt zstd_compressed_packets (no zstd frame)");
	}
	for (;;) {
		if (out.cap - out.len < (64u << 10))
			scx_buf_reserve(&out, SCX_MAX(out.cap, 256u << 10));
		ssize_t n = scx_zin_read(&z, out.data + out.len, out.cap - out.len);
		if (n < 0) {
			snprintf(msg, sizeof(msg), "%s %s (%s)",
				 strstr(z.err, "truncated") ? "truncated" : "corrupt", what, z.err);
			err = pf_bad(r, at, msg);
			break;
		}
		if (!n)
			break;
		out.len += n;
		if (out.len > room) {
			snprintf(msg, sizeof(msg), "byte %llu: %s inflates to",
				 (unsigned long long)(r->base_off + (uint64_t)(at - r->base)),
				 what);
			err = too_big(r->t, r->name, msg, r->limit);
			break;
		}
	}
	scx_zin_close(&z);
	if (!err) {
		const uint8_t *ob = r->base;
		uint64_t oo = r->base_off;

		r->inner = true;
		r->inner_off = r->base_off + (uint64_t)(at - r->base);
		r->held += out.len;
		err = walk(r, (const uint8_t *)out.data, out.len);
		r->held -= out.len;
		r->inner = false;
		r->base = ob;
		r->base_off = oo;
	}
	scx_buf_free(&out);
	return err;
}

static int packet(struct pf_rd *r, struct pb m, const uint8_t *at)
{
	struct pb it = m;
	struct pb_field x;
	struct pb interned = { 0 }, data = { 0 };
	uint32_t kind = 0, seq = 0;
	uint64_t ts = 0;
	bool started = false;
	int rc;

	/*
	 * Pass 2 (track_event packets only) revisits packets pass 1 counted; a
	 * compressed packet is handled whole in pass 1 and skipped in pass 2.
	 */
	if (r->pass == 2) {
		while ((rc = pb_next(&it, &x)) > 0) {
			if (x.num == PF_PKT_TIMESTAMP)
				ts = x.v;
			else if (x.num == PF_PKT_TRUSTED_SEQUENCE_ID)
				seq = (uint32_t)x.v;
			else if (x.num == PF_PKT_TRACK_EVENT && x.wt == PB_LEN)
				data = x.s, kind = PF_PKT_TRACK_EVENT;
		}
		if (rc < 0)
			return pf_bad(r, it.p, "malformed trace packet");
		if (kind != PF_PKT_TRACK_EVENT)
			return 0;
		r->t->stat.track_events++;
		return pf_track_event(r, seq, ts, data);
	}
	r->t->stat.packets++;
	while ((rc = pb_next(&it, &x)) > 0) {
		switch (x.num) {
		case PF_PKT_TIMESTAMP:
			ts = x.v;
			break;
		case PF_PKT_TRUSTED_SEQUENCE_ID:
			seq = (uint32_t)x.v;
			break;
		case PF_PKT_INTERNED_DATA:
			if (x.wt == PB_LEN)
				interned = x.s;
			break;
		case PF_PKT_FTRACE_EVENTS:
		case PF_PKT_PROCESS_TREE:
		case PF_PKT_CLOCK_SNAPSHOT:
		case PF_PKT_TRACK_EVENT:
		case PF_PKT_SYSTEM_INFO:
		case PF_PKT_COMPRESSED_PACKETS:
		case PF_PKT_TRACK_DESCRIPTOR:
		case PF_PKT_GENERIC_KERNEL_PROCESS_TREE:
		case PF_PKT_ZSTD_COMPRESSED_PACKETS:
			if (x.wt == PB_LEN) {
				kind = x.num;
				data = x.s;
			}
			break;
		case PF_PKT_SERVICE_EVENT: /* ftrace before tracing_started is dropped */
			if (x.wt == PB_LEN) {
				struct pb q = x.s;
				struct pb_field y;
				while (pb_next(&q, &y) > 0)
					if (y.num == PF_SVC_TRACING_STARTED && y.wt == PB_VARINT &&
					    y.v)
						started = true;
			}
			/* fallthrough */
		case PF_PKT_TRACE_CONFIG: /* traced wrote this */
			if (r->t->producer == SCX_PF_PROD_UNKNOWN)
				r->t->producer = SCX_PF_PROD_TRACED;
			r->t->stat.other_packets++;
			break;
		case PF_PKT_TRUSTED_UID:
		case PF_PKT_SEQUENCE_FLAGS:
		case PF_PKT_INCREMENTAL_STATE_CLEARED:
		case PF_PKT_PREVIOUS_PACKET_DROPPED:
		case PF_PKT_TIMESTAMP_CLOCK_ID:
		case PF_PKT_TRACE_PACKET_DEFAULTS:
		case PF_PKT_TRUSTED_PID:
		case PF_PKT_FIRST_PACKET_ON_SEQUENCE:
		case PF_PKT_MACHINE_ID:
			break; /* fields beside the data */
		default:
			if (x.wt == PB_LEN)
				r->t->stat.other_packets++;
		}
	}
	if (rc < 0)
		return pf_bad(r, it.p, "malformed trace packet");
	r->cur_ts = ts;
	if (started && !r->started_seen) {
		r->started_seen = true;
		r->ftrace_cut = SCX_MAX(r->ftrace_cut, ts);
	}
	if (interned.p && pf_track_interned(r, seq, interned))
		return -EBADMSG;
	switch (kind) {
	case PF_PKT_FTRACE_EVENTS:
		return ftrace_bundle(r, data);
	case PF_PKT_PROCESS_TREE:
		return process_tree(r, data);
	case PF_PKT_GENERIC_KERNEL_PROCESS_TREE:
		return generic_process_tree(r, data);
	case PF_PKT_CLOCK_SNAPSHOT:
		return clock_snapshot(r, data);
	case PF_PKT_SYSTEM_INFO:
		return system_info(r, data);
	case PF_PKT_TRACK_EVENT:
		if (r->pass == 1 && !r->inner)
			return 0; /* pass 2 */
		r->t->stat.track_events++;
		return pf_track_event(r, seq, ts, data);
	case PF_PKT_TRACK_DESCRIPTOR:
		r->t->stat.track_descriptors++;
		return pf_track_descriptor(r, data);
	case PF_PKT_COMPRESSED_PACKETS:
		r->t->stat.compressed_packets++;
		return decompress_packet(r, data, false, at);
	case PF_PKT_ZSTD_COMPRESSED_PACKETS:
		r->t->stat.zstd_packets++;
		return decompress_packet(r, data, true, at);
	}
	return 0;
}

/* A trace is a sequence of Trace.packet (field 1) records. */
static int walk(struct pf_rd *r, const uint8_t *buf, size_t len)
{
	struct pb b = { buf, buf + len };
	struct pb_field x;
	int rc;

	r->base = buf;
	r->base_off = 0;
	for (;;) {
		const uint8_t *at = b.p;
		size_t keep = r->nr;

		rc = pb_next(&b, &x);
		if (rc == 0)
			return 0;
		if (rc < 0 && at == buf && !r->inner && *at == '{')
			return pf_bad(r, at,
				      "not a Perfetto trace (an event stream? read it without -i)");
		if (rc < 0)
			return pf_bad(r, at, "truncated or malformed trace packet");
		if (x.num != PF_TRACE_PACKET || x.wt != PB_LEN)
			continue; /* unknown Trace field: skip */
		rc = packet(r, x.s, at);
		if (!rc && rd_mem(r) > r->limit)
			rc = too_big(r->t, r->name, "the trace and its events need", r->limit);
		if (rc) {
			r->nr = keep; /* drop the half-decoded packet */
			return rc;
		}
	}
}

/* ---- input --------------------------------------------------------------------- */

/* ---- finishing: sort, complete, deliver ------------------------------------------ */

struct key {
	uint64_t ts;
	uint32_t i;
};

static int key_cmp(const void *a, const void *b)
{
	const struct key *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The kernel's __task_state_index() on a raw __state (wprof 907fa19 writes those). */
static int64_t state_from_raw(int64_t s)
{
	if ((s & 0xfff) == 0x402) /* TASK_IDLE = UNINTERRUPTIBLE | NOLOAD */
		return SCX_STATE_IDLE;
	if (s & 0x1000) /* TASK_RTLOCK_WAIT */
		return SCX_STATE_UNINTERRUPTIBLE;
	int64_t v = s & 0x7f;
	if (!v)
		return s & 0x80 ? SCX_STATE_DEAD : 0; /* TASK_DEAD while exiting */
	return (int64_t)1 << (63 - __builtin_clzll((uint64_t)v));
}

static int tg_cmp(const void *a, const void *b)
{
	const struct pf_tg *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* tgid of tid at time ts: the last assignment before ts, else the first after it. */
static int32_t tg_lookup(struct pf_rd *r, int32_t tid, uint64_t ts, int depth)
{
	uint64_t *v = pf_map_get(&r->tg_idx, (uint32_t)tid);
	size_t start, n, lo = 0, hi;
	struct pf_tg *g;

	if (!v)
		return 0;
	start = *v >> 24;
	n = *v & 0xffffff;
	hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->tgs[start + mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	g = &r->tgs[start + (lo ? lo - 1 : 0)];
	if (!g->tgid && g->via && depth < 8) {
		g->tgid = tg_lookup(r, g->via, g->ts, depth + 1);
		if (!g->tgid)
			g->tgid = g->via; /* the creator's process was never named */
	}
	return g->tgid;
}

static void tg_finish(struct pf_rd *r)
{
	if (r->ntg)
		qsort(r->tgs, r->ntg, sizeof(*r->tgs), tg_cmp);
	for (size_t i = 0; i < r->ntg;) {
		size_t j = i;
		while (j < r->ntg && r->tgs[j].tid == r->tgs[i].tid)
			j++;
		*pf_map_put(&r->tg_idx, (uint32_t)r->tgs[i].tid) =
			(uint64_t)i << 24 | SCX_MIN(j - i, 0xffffffu);
		i = j;
	}
	/* the thread table says where each thread ended up */
	for (size_t i = 0; i < r->nthr; i++) {
		int32_t g = tg_lookup(r, r->thr_tid[i], UINT64_MAX, 0);
		if (g)
			r->thr[i].tgid = g;
	}
}

static int32_t tgid_at(struct pf_rd *r, int32_t tid, uint64_t ts)
{
	int32_t g;
	uint64_t *v;

	if (tid <= 0)
		return 0;
	g = tg_lookup(r, tid, ts, 0);
	if (g)
		return g;
	v = pf_map_get(&r->thr_idx, (uint32_t)tid);
	return v ? r->thr[*v].tgid : 0;
}

static void fill_comm(char *dst, const struct pf_rd *r, uint32_t id, int32_t pid, int cpu)
{
	const char *s = pf_strp(r, id);

	if (!*s && pid == 0 && cpu >= 0)
		snprintf(dst, SCX_COMM_LEN, "swapper/%d", cpu);
	else if (!*s && pid > 0) {
		uint64_t *v = pf_map_get(&r->thr_idx, (uint32_t)pid);
		strncpy(dst, v ? pf_strp(r, r->thr[*v].comm) : "", SCX_COMM_LEN - 1);
	} else
		strncpy(dst, s, SCX_COMM_LEN - 1);
}

/* Drop TrackEvent-derived sched events where ftrace covers the same cpu and time. */
static void resolve_sources(struct pf_rd *r)
{
	int ncpu = r->max_cpu + 1;
	enum { SW, WK, NCLS };
	uint64_t(*span)[NCLS][2] = scx_xcalloc(ncpu > 0 ? ncpu : 1, sizeof(*span));
	bool ftrace = false, track = false;
	enum scx_pf_source src = r->o->source;

	for (int c = 0; c < ncpu; c++)
		for (int k = 0; k < NCLS; k++)
			span[c][k][0] = UINT64_MAX;
	for (size_t i = 0; i < r->nr; i++) {
		struct pf_rec *e = &r->recs[i];
		int k = e->type == SCX_EV_SWITCH || e->type == REC_SEED ? SW :
			e->type == SCX_EV_WAKING || e->type == SCX_EV_WAKEUP_NEW ||
					e->type == SCX_EV_WAKEUP ?
									  WK :
									  -1;
		if (e->type == SCX_EV_FORK && (e->flags & REC_F_NEWTASK) && r->has_fork)
			e->flags |= REC_F_DROP; /* real fork events are there */
		if (e->ts < r->ftrace_cut && !(e->flags & REC_F_TRACK) && e->type != REC_SEED) {
			/* before the data is complete: a switch still says who runs */
			if (e->type == SCX_EV_SWITCH && !(e->flags & REC_F_SIDE))
				e->type = REC_SEED;
			else
				e->flags |= REC_F_DROP;
			r->t->stat.skipped_events++;
		}
		if (k < 0 || e->cpu < 0 || e->cpu >= ncpu)
			continue;
		if (e->flags & REC_F_TRACK) {
			track = true;
			continue;
		}
		ftrace = true;
		if (e->ts < span[e->cpu][k][0])
			span[e->cpu][k][0] = e->ts;
		if (e->ts > span[e->cpu][k][1])
			span[e->cpu][k][1] = e->ts;
	}
	for (size_t i = 0; i < r->nr; i++) {
		struct pf_rec *e = &r->recs[i];
		bool is_track = e->flags & REC_F_TRACK;
		int k = e->type == SCX_EV_SWITCH || e->type == REC_SEED ? SW :
			e->type == SCX_EV_WAKING || e->type == SCX_EV_WAKEUP_NEW ||
					e->type == SCX_EV_WAKEUP ?
									  WK :
									  -1;
		if (src == SCX_PF_SRC_FTRACE && is_track && k >= 0)
			e->flags |= REC_F_DROP;
		else if (src == SCX_PF_SRC_TRACK && !is_track && k >= 0)
			e->flags |= REC_F_DROP;
		else if (src == SCX_PF_SRC_AUTO && is_track && k >= 0 && e->cpu >= 0 &&
			 e->cpu < ncpu && e->ts >= span[e->cpu][k][0] &&
			 e->ts <= span[e->cpu][k][1])
			e->flags |= REC_F_DROP;
		if ((e->flags & REC_F_DROP) && e->type != REC_SEED && !(e->flags & REC_F_NEWTASK))
			r->t->stat.skipped_events++;
	}
	r->t->stat.sched_source =
		ftrace && track && src == SCX_PF_SRC_AUTO ?
			"mixed" :
		ftrace && src != SCX_PF_SRC_TRACK ?
			(r->t->stat.compact_switches ? "compact_sched" : "ftrace") :
		track && src != SCX_PF_SRC_FTRACE ? "track_event" :
						    "none";
	free(span);
}

/* The task running on each cpu as delivery goes: the waker of a compact wakeup. */
struct running {
	int32_t pid;
	bool known;
};

/* Records to deliver, in time order (usually already so: then no sort). */
static struct key *delivery_order(struct pf_rd *r, size_t *nk)
{
	struct key *keys = scx_xmalloc((r->nr ? r->nr : 1) * sizeof(*keys));
	bool sorted = true;
	size_t n = 0;

	for (size_t i = 0; i < r->nr; i++) {
		if (r->recs[i].flags & REC_F_DROP)
			continue;
		keys[n].ts = r->recs[i].ts;
		keys[n].i = (uint32_t)i;
		if (n && keys[n - 1].ts > keys[n].ts)
			sorted = false;
		n++;
	}
	if (!sorted)
		qsort(keys, n, sizeof(*keys), key_cmp);
	*nk = n;
	return keys;
}

/* Header facts that need the whole trace. */
static void trace_facts(struct pf_rd *r, const struct key *keys, size_t nk)
{
	struct scx_pf_trace *t = r->t;

	if (!t->hdr.nr_cpus)
		t->hdr.nr_cpus = r->max_cpu + 1 > 0 ? (unsigned)r->max_cpu + 1 : 0;
	for (size_t k = 0; k < nk; k++) {
		const struct pf_rec *e = &r->recs[keys[k].i];
		if (e->type == REC_SEED)
			continue;
		if (!t->stat.first_ts)
			t->stat.first_ts = e->ts;
		t->stat.last_ts = e->ts;
	}
	t->hdr.start_ns = t->stat.first_ts;
	t->hdr.order = SCX_ORDER_TIME; /* delivered sorted, below */
	t->ts_relative = t->stat.first_ts < 1000000000ull && t->producer == SCX_PF_PROD_WPROF;
	snprintf(t->hdr.producer, sizeof(t->hdr.producer), "perfetto:%s",
		 scx_pf_producer_name(t->producer));
}

/*
 * A record as an event: a full one as it is, a compact switch or wakeup
 * filled in (names, tgids, the waker from the cpu's running task).  false
 * for a wakeup whose waker cannot be known (skipped, as trace_processor).
 */
static bool rec_event(struct pf_rd *r, const struct pf_rec *e, const struct running *cur, int ncpu,
		      struct scx_event *ev)
{
	bool wprof = r->t->producer == SCX_PF_PROD_WPROF;
	int cpu = e->cpu;
	bool on = cpu >= 0 && cpu < ncpu;

	if (e->flags & REC_F_SIDE) {
		*ev = r->side[e->x];
		return true;
	}
	scx_event_init(ev, e->type);
	if (e->type == SCX_EV_SWITCH) {
		ev->sw.prev_pid = e->a;
		ev->sw.next_pid = e->b;
		ev->sw.prev_prio = e->c;
		ev->sw.next_prio = e->d;
		ev->sw.prev_state = e->x;
		fill_comm(ev->sw.prev_comm, r, e->s1, e->a, cpu);
		fill_comm(ev->sw.next_comm, r, e->s2, e->b, cpu);
		return true;
	}
	ev->wake.pid = e->a;
	ev->wake.prio = e->c;
	ev->wake.target_cpu = e->d;
	fill_comm(ev->wake.comm, r, e->s1, e->a, cpu);
	ev->wake.waker_pid = e->b;
	if ((e->flags & REC_F_WAKER_CPU) || (wprof && (e->flags & REC_F_VERBOSE_WAKE))) {
		if (on && cur[cpu].known)
			ev->wake.waker_pid = cur[cpu].pid;
		else if (e->flags & REC_F_WAKER_CPU)
			return false;
		else
			ev->wake.waker_pid = 0;
	}
	ev->wake.waker_tgid = tgid_at(r, ev->wake.waker_pid, e->ts);
	ev->wake.tgid = tgid_at(r, ev->wake.pid, e->ts);
	return true;
}

/* What every event gets at delivery: raw states decoded, tgids and missing names. */
static void complete_event(struct pf_rd *r, const struct pf_rec *e, bool raw, struct scx_event *ev)
{
	int cpu = e->cpu;

	switch (ev->type) {
	case SCX_EV_SWITCH:
		if (raw && !(e->flags & REC_F_TRACK))
			ev->sw.prev_state = state_from_raw(ev->sw.prev_state);
		if (!ev->sw.prev_comm[0])
			fill_comm(ev->sw.prev_comm, r, 0, ev->sw.prev_pid, cpu);
		if (!ev->sw.next_comm[0])
			fill_comm(ev->sw.next_comm, r, 0, ev->sw.next_pid, cpu);
		ev->sw.prev_tgid = tgid_at(r, ev->sw.prev_pid, e->ts);
		ev->sw.next_tgid = tgid_at(r, ev->sw.next_pid, e->ts);
		break;
	case SCX_EV_MIGRATE:
		ev->mig.tgid = tgid_at(r, ev->mig.pid, e->ts);
		break;
	case SCX_EV_FORK:
		ev->fork.parent_tgid = tgid_at(r, ev->fork.parent_pid, e->ts);
		if (!ev->fork.child_tgid)
			ev->fork.child_tgid = tgid_at(r, ev->fork.child_pid, e->ts);
		if (!ev->fork.parent_comm[0])
			fill_comm(ev->fork.parent_comm, r, 0, ev->fork.parent_pid, -1);
		break;
	case SCX_EV_EXEC:
		ev->exec.tgid = tgid_at(r, ev->exec.pid, e->ts);
		if (!ev->exec.comm[0])
			fill_comm(ev->exec.comm, r, 0, ev->exec.pid, -1);
		break;
	case SCX_EV_EXIT:
	case SCX_EV_FREE:
		if (!ev->task.tgid)
			ev->task.tgid = tgid_at(r, ev->task.pid, e->ts);
		break;
	case SCX_EV_TASK_RENAME:
		ev->rename.tgid = tgid_at(r, ev->rename.pid, e->ts);
		break;
	case SCX_EV_DSQ_INSERT:
		ev->dsq.tgid = tgid_at(r, ev->dsq.pid, e->ts);
		break;
	}
}

/* Every record kept, in time order, as events to the caller's on_event. */
static int deliver(struct pf_rd *r)
{
	struct scx_pf_trace *t = r->t;
	int ncpu = r->max_cpu + 1 > 0 ? r->max_cpu + 1 : 1;
	struct running *cur = scx_xcalloc(ncpu, sizeof(*cur));
	bool raw = r->has_state_raw || (t->producer == SCX_PF_PROD_WPROF && !r->has_sysname_linux);
	size_t nk;
	struct key *keys = delivery_order(r, &nk);
	int rc = 0;

	if (r->o->raw_state)
		raw = false;
	trace_facts(r, keys, nk);
	t->held_bytes = rd_mem(r) + r->nr * sizeof(*keys);
	if (r->o->on_trace && (rc = r->o->on_trace(r->o->ctx, t)))
		goto out;

	for (size_t k = 0; k < nk; k++) {
		const struct pf_rec *e = &r->recs[keys[k].i];
		struct scx_event ev;
		int cpu = e->cpu;
		bool on = cpu >= 0 && cpu < ncpu;

		if (e->type == REC_SEED) {
			if (on)
				cur[cpu].pid = e->b, cur[cpu].known = true;
			continue;
		}
		if (!rec_event(r, e, cur, ncpu, &ev)) {
			t->stat.skipped_events++; /* as trace_processor */
			continue;
		}
		ev.ts = e->ts;
		ev.cpu = cpu;
		complete_event(r, e, raw, &ev);
		if (ev.type == SCX_EV_SWITCH && on)
			cur[cpu].pid = ev.sw.next_pid, cur[cpu].known = true;
		t->stat.events[ev.type]++;
		if (r->o->on_event && (rc = r->o->on_event(r->o->ctx, &ev)))
			goto out;
	}
out:
	free(cur);
	free(keys);
	return rc;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct scx_pf_thread *x = a, *y = b;

	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_process(const void *a, const void *b)
{
	const struct scx_pf_process *x = a, *y = b;

	return (x->pid > y->pid) - (x->pid < y->pid);
}

static void export_tables(struct pf_rd *r)
{
	struct scx_pf_trace *t = r->t;

	t->threads = scx_xcalloc(r->nthr ? r->nthr : 1, sizeof(*t->threads));
	for (size_t i = 0; i < r->nthr; i++) {
		t->threads[i].tid = r->thr_tid[i];
		t->threads[i].tgid = r->thr[i].tgid;
		strncpy(t->threads[i].comm, pf_strp(r, r->thr[i].comm), SCX_COMM_LEN - 1);
	}
	t->nr_threads = r->nthr;
	qsort(t->threads, t->nr_threads, sizeof(*t->threads), cmp_thread);
	t->processes = scx_xcalloc(r->nproc ? r->nproc : 1, sizeof(*t->processes));
	for (size_t i = 0; i < r->nproc; i++) {
		t->processes[i].pid = r->proc[i].pid;
		t->processes[i].ppid = r->proc[i].ppid;
		if (r->proc[i].cmdline) {
			t->processes[i].cmdline = r->proc[i].cmdline;
			r->proc[i].cmdline = NULL;
		} else {
			uint64_t *v = pf_map_get(&r->thr_idx, (uint32_t)r->proc[i].pid);
			t->processes[i].cmdline = scx_xstrdup(v ? pf_strp(r, r->thr[*v].comm) : "");
		}
	}
	t->nr_processes = r->nproc;
	qsort(t->processes, t->nr_processes, sizeof(*t->processes), cmp_process);
}

static void rd_free(struct pf_rd *r)
{
	free(r->recs);
	free(r->side);
	free(r->pool);
	free(r->str_off);
	scx_map_free(&r->strs);
	scx_map_free(&r->thr_idx);
	free(r->thr);
	free(r->thr_tid);
	scx_map_free(&r->proc_idx);
	free(r->tgs);
	scx_map_free(&r->tg_idx);
	for (size_t i = 0; i < r->nproc; i++)
		free(r->proc[i].cmdline);
	free(r->proc);
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(r->arr); i++)
		free(r->arr[i]);
	scx_map_free(&r->interned);
	scx_map_free(&r->tracks);
	free(r->trk);
	scx_map_free(&r->flows);
	scx_map_free(&r->open);
	free(r->marks);
	free(r);
}

/*
 * Decode buf and deliver its events.  owned, when not NULL, is the buffer
 * holding buf; mapped says buf is a mapping of the file (map_file()).  Either
 * is released as soon as both walks are done, before delivery, since records
 * keep string ids and no pointers into it.  A trace is ten times the size of
 * its records, so this is most of a reader's peak memory while its consumer
 * builds its own copy of the events.
 */
static int read_buf(const uint8_t *buf, size_t len, uint64_t file_len, uint64_t limit,
		    const char *name, const struct scx_pf_opts *o, struct scx_pf_trace *t,
		    struct scx_buf *owned, bool mapped)
{
	static const struct scx_pf_opts none;
	struct pf_rd *r = scx_xcalloc(1, sizeof(*r));
	int err, rc;

	r->name = name;
	r->o = o ? o : &none;
	scx_map_init(&r->strs, sizeof(uint64_t));
	scx_map_init(&r->thr_idx, sizeof(uint64_t));
	scx_map_init(&r->tg_idx, sizeof(uint64_t));
	scx_map_init(&r->proc_idx, sizeof(uint64_t));
	scx_map_init(&r->interned, sizeof(uint64_t));
	scx_map_init(&r->tracks, sizeof(uint64_t));
	scx_map_init(&r->flows, sizeof(uint64_t));
	scx_map_init(&r->open, sizeof(uint64_t));
	r->t = t;
	r->limit = limit;
	r->held = owned ? owned->cap : len;
	r->max_cpu = -1;
	r->skip_from = 1; /* nothing skipped until the spans are known */
	t->stat.bytes = len;
	t->stat.file_bytes = file_len;
	r->pass = 1;
	err = walk(r, buf, len);
	if (err && err != -EBADMSG)
		goto out;
	{
		/* track events up to where pass 1 stopped */
		int err2;
		pf_track_spans(r);
		r->pass = 2;
		err2 = walk(r, buf, err ? SCX_MIN(r->t->error_offset, len) : len);
		if (err2 && err2 != -EBADMSG)
			err = err2;
		if (err && err != -EBADMSG)
			goto out;
		if (err2)
			err = err2;
	}
	if (owned)
		scx_buf_free(owned);
	if (mapped)
		munmap((void *)buf, len);
	mapped = false;
	r->held = 0;
	r->base = NULL;
	pf_track_finish(r);
	resolve_sources(r);
	tg_finish(r);
	export_tables(r);
	rc = deliver(r);
	if (rc)
		err = rc;
out:
	if (mapped)
		munmap((void *)buf, len);
	rd_free(r);
	return err;
}

static struct scx_pf_trace *trace_new(void)
{
	struct scx_pf_trace *t = scx_xcalloc(1, sizeof(*t));

	t->hdr.version = SCX_WIRE_VERSION;
	snprintf(t->hdr.clock, sizeof(t->hdr.clock), "boottime");
	t->stat.file_compression = "none";
	t->stat.sched_source = "none";
	return t;
}

/*
 * Decompress a whole-file gzip or zstd trace (or read a plain one from a file)
 * into out, in pieces, never past the limit: a trace is read twice (track
 * events after everything else), so it is held, and a small file that
 * inflates to gigabytes stops here.  0; -EFBIG or -errno with t->error set;
 * -EBADMSG for a damaged file, with what decompressed before the damage in
 * out, to deliver what it holds before reporting.
 */
static int slurp(struct scx_zin *z, const char *name, uint64_t limit, struct scx_pf_trace *t,
		 struct scx_buf *out)
{
	for (;;) {
		if (out->cap - out->len < (64u << 10))
			scx_buf_reserve(out, SCX_MIN(SCX_MAX(out->cap, 1u << 20), 64u << 20));
		ssize_t n = scx_zin_read(z, out->data + out->len, out->cap - out->len);
		if (n == -EINVAL) {
			t->error_offset = out->len;
			snprintf(t->error, sizeof(t->error), "%s: %s", name, z->err);
			return -EBADMSG;
		}
		if (n < 0) {
			snprintf(t->error, sizeof(t->error), "%s: %s", name, z->err);
			return (int)n;
		}
		if (!n)
			return 0;
		out->len += n;
		if (out->len > limit)
			return too_big(t, name, z->comp == SCX_COMP_NONE ? "holds" : "inflates to",
				       limit);
	}
}

/*
 * A plain regular file of size bytes, mapped whole: decoded where it lies,
 * without read()'s copy into a buffer the size of the file (for a 45 MB
 * trace, a third of the reader's CPU time went to that copy and its page
 * faults).  NULL when it cannot be mapped (an empty file, /proc, a file
 * system without mmap): the caller reads it instead.  The pages are the
 * page cache's, prefaulted in one call; the limit still counts them.
 */
static const uint8_t *map_file(int fd, size_t size)
{
	void *m;

	if (!size)
		return NULL;
	m = mmap(NULL, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
	return m == MAP_FAILED ? NULL : m;
}

/*
 * Read a trace from fd, or from memory when fd < 0.  Plain memory, and a
 * plain file at a path (mappable: not stdin, whose offset may not be 0), are
 * decoded where they lie; anything else is first gathered (and inflated) by
 * slurp().
 */
static int read_input(int fd, bool mappable, const void *mem, size_t memlen, const char *name,
		      const struct scx_pf_opts *o, struct scx_pf_trace **out)
{
	uint64_t limit = o && o->max_bytes ? o->max_bytes : SCX_PF_MAX_BYTES_DEFAULT;
	struct scx_pf_trace *t = trace_new();
	struct scx_buf un = { 0 };
	struct scx_zin z;
	struct stat st;
	int err, uw;

	*out = t;
	err = scx_zin_open(&z, fd, mem, memlen);
	if (err) {
		snprintf(t->error, sizeof(t->error), "%s: %s", name, z.err);
		scx_zin_close(&z);
		return err;
	}
	t->stat.file_compression = z.comp == SCX_COMP_GZIP ? "gzip" :
				   z.comp == SCX_COMP_ZSTD ? "zstd" :
							     "none";
	if (scx_zin_is_plain_mem(&z)) {
		scx_zin_close(&z);
		if (memlen > limit)
			return too_big(t, name, "holds", limit);
		return read_buf(mem, memlen, memlen, limit, name, o, t, NULL, false);
	}
	/* a plain file larger than the limit is refused before it is read */
	if (fd >= 0 && z.comp == SCX_COMP_NONE && !fstat(fd, &st) && S_ISREG(st.st_mode)) {
		if ((uint64_t)st.st_size > limit) {
			scx_zin_close(&z);
			return too_big(t, name, "holds", limit);
		}
		const uint8_t *map = mappable ? map_file(fd, st.st_size) : NULL;
		if (map) {
			scx_zin_close(&z);
			return read_buf(map, st.st_size, st.st_size, limit, name, o, t, NULL, true);
		}
		scx_buf_reserve(&un, st.st_size + 1); /* one allocation, no growth */
	}
	if (z.comp == SCX_COMP_ZSTD) {
		/* the frame's size claim sizes the buffer, never past the limit */
		unsigned long long sz = ZSTD_getFrameContentSize(z.src, z.clen);
		if (sz != ZSTD_CONTENTSIZE_UNKNOWN && sz != ZSTD_CONTENTSIZE_ERROR)
			scx_buf_reserve(&un, SCX_MIN(sz, limit) + 1);
	}
	uw = slurp(&z, name, limit, t, &un);
	uint64_t file_len = fd < 0 ? memlen : z.raw_off + z.cpos;
	scx_zin_close(&z);
	if (uw && uw != -EBADMSG) {
		scx_buf_free(&un);
		return uw;
	}
	/* a damaged compressed file: deliver what decompressed, then report */
	char saved[sizeof(t->error)];
	uint64_t off = t->error_offset;

	memcpy(saved, t->error, sizeof(saved));
	t->error[0] = 0;
	err = read_buf((const uint8_t *)un.data, un.len, file_len, limit, name, o, t, &un, false);
	/* the file's damage explains a cut packet: report it, at its file offset */
	if (uw == -EBADMSG && (!err || err == -EBADMSG)) {
		memcpy(t->error, saved, sizeof(saved));
		t->error_offset = off;
		err = -EBADMSG;
	}
	scx_buf_free(&un);
	return err;
}

int scx_pf_read_mem(const void *buf, size_t len, const char *name, const struct scx_pf_opts *o,
		    struct scx_pf_trace **out)
{
	return read_input(-1, false, buf, len, name ? name : "<memory>", o, out);
}

int scx_pf_read_path(const char *path, const struct scx_pf_opts *o, struct scx_pf_trace **out)
{
	bool is_stdin = !path || !strcmp(path, "-");
	int fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	int err;

	*out = NULL;
	if (fd < 0)
		return -errno;
	err = read_input(fd, !is_stdin, NULL, 0, is_stdin ? "<stdin>" : path, o, out);
	if (!is_stdin)
		close(fd);
	return err;
}

void scx_pf_trace__free(struct scx_pf_trace *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->nr_processes; i++)
		free(t->processes[i].cmdline);
	free(t->processes);
	free(t->threads);
	free(t->hdr.options_json); /* topo is never set here */
	free(t);
}

const struct scx_pf_thread *scx_pf_trace__thread(const struct scx_pf_trace *t, int32_t tid)
{
	struct scx_pf_thread k = { .tid = tid };

	return t->nr_threads ? bsearch(&k, t->threads, t->nr_threads, sizeof(k), cmp_thread) : NULL;
}

const struct scx_pf_process *scx_pf_trace__process(const struct scx_pf_trace *t, int32_t pid)
{
	struct scx_pf_process k = { .pid = pid };

	return t->nr_processes ?
		       bsearch(&k, t->processes, t->nr_processes, sizeof(k), cmp_process) :
		       NULL;
}

const char *scx_pf_producer_name(enum scx_pf_producer p)
{
	switch (p) {
	case SCX_PF_PROD_SCX:
		return "scx";
	case SCX_PF_PROD_TRACED:
		return "traced";
	case SCX_PF_PROD_WPROF:
		return "wprof";
	default:
		return "unknown";
	}
}
