// SPDX-License-Identifier: GPL-2.0
/*
 * Waiting slices, wakeup flows and depth counters for scx-perfetto
 * --readable (see perfetto_readable.h).  Packets are encoded by hand like the
 * bundles: one TrackEvent per packet, names and categories inline (no
 * interning, so no incremental state to keep), on a sequence of their own.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perfetto/perfetto_fields.h"
#include "perfetto/perfetto_readable.h"
#include "perfetto/perfetto_wire.h"
#include "core/hashmap.h"
#include "core/reorder.h"
#include "core/util.h"

enum { SEQ_READABLE = 4 };
enum { WAIT_WAKEUP = 1, WAIT_NEW, WAIT_PREEMPTED };

/* Track uuids: a byte of our own above the tid, cpu or DSQ index. */
#define UUID_THREAD(tid) (0x5eull << 32 | (uint32_t)(tid))
#define UUID_RQ(cpu) (0x5dull << 32 | (uint32_t)(cpu))
#define UUID_DSQ(idx) (0x5full << 32 | (uint32_t)(idx))

struct rd_task {
	uint64_t wait_ts; /* when the current wait began */
	uint64_t dsq;	  /* last DSQ it was inserted into, SCX_DSQ_NONE if none */
	int32_t tgid;
	int32_t waker;	 /* who woke it, 0 if an interrupt or idle did */
	int32_t qcpu;	 /* cpu whose run queue it waits on */
	uint8_t waiting; /* WAIT_*, 0 when not waiting */
	bool track;	 /* thread track descriptor written */
};

struct pf_readable {
	pf_emit_fn emit;
	void *ctx;
	bool started;
	struct scx_map tasks; /* tid -> struct rd_task */
	struct scx_map dsqs;  /* dsq id -> index + 1 of its depth track */
	uint32_t ndsqs;
	uint64_t dropped;
	uint64_t next_flow;
	int32_t depth[SCX_MAX_CPUS];
	uint8_t rq_track[SCX_MAX_CPUS];
	int dirty[4]; /* cpus whose depth this event changed */
	unsigned ndirty;
	struct scx_reorder *order; /* events in time order */
};

struct pf_readable *pf_readable_new(pf_emit_fn emit, void *ctx)
{
	struct pf_readable *rd = scx_xcalloc(1, sizeof(*rd));

	rd->emit = emit;
	rd->ctx = ctx;
	rd->next_flow = 1;
	rd->order = scx_reorder__new(SCX_PF_READABLE_REORDER_NS);
	scx_map_init(&rd->tasks, sizeof(struct rd_task));
	scx_map_init(&rd->dsqs, sizeof(uint32_t));
	return rd;
}

void pf_readable_free(struct pf_readable *rd)
{
	if (!rd)
		return;
	scx_map_free(&rd->tasks);
	scx_map_free(&rd->dsqs);
	scx_reorder__free(rd->order);
	free(rd);
}

uint64_t pf_readable_dropped(const struct pf_readable *rd)
{
	return rd->dropped;
}

/* ---- encoding ------------------------------------------------------------------ */

/* TracePacket {timestamp, sequence id, [cleared], <field> payload}. */
static int packet(struct pf_readable *rd, uint64_t ts, uint32_t field, const uint8_t *pl, size_t n)
{
	uint8_t buf[640], *p;

	if (n > sizeof(buf) - 40)
		return -EOVERFLOW;
	p = pb_put_u64(buf, PF_PKT_TIMESTAMP, ts);
	p = pb_put_u64(p, PF_PKT_TRUSTED_SEQUENCE_ID, SEQ_READABLE);
	if (!rd->started) {
		p = pb_put_u64(p, PF_PKT_SEQUENCE_FLAGS, PF_SEQ_INCREMENTAL_STATE_CLEARED);
		rd->started = true;
	}
	p = pb_put_bytes(p, field, pl, n);
	return rd->emit(rd->ctx, buf, p - buf);
}

/* TrackEvent's common head: type, track, our category, a name. */
static uint8_t *ev_head(uint8_t *q, unsigned type, uint64_t uuid, const char *name)
{
	q = pb_put_u64(q, PF_TE_TYPE, type);
	q = pb_put_u64(q, PF_TE_TRACK_UUID, uuid);
	q = pb_put_str(q, PF_TE_CATEGORIES, SCX_PF_READABLE_CATEGORY, 32);
	if (name)
		q = pb_put_str(q, PF_TE_NAME, name, 64);
	return q;
}

/* DebugAnnotation {name, uint_value} */
static uint8_t *ann_uint(uint8_t *q, const char *name, uint64_t v)
{
	uint8_t a[48], *p = pb_put_str(a, PF_DA_NAME, name, 24);

	p = pb_put_u64(p, PF_DA_UINT_VALUE, v);
	return pb_put_bytes(q, PF_TE_DEBUG_ANNOTATIONS, a, p - a);
}

/* DebugAnnotation {name, string_value} */
static uint8_t *ann_str(uint8_t *q, const char *name, const char *s)
{
	uint8_t a[64], *p = pb_put_str(a, PF_DA_NAME, name, 24);

	p = pb_put_str(p, PF_DA_STRING_VALUE, s, 32);
	return pb_put_bytes(q, PF_TE_DEBUG_ANNOTATIONS, a, p - a);
}

static uint8_t *put_fixed64(uint8_t *q, uint32_t num, uint64_t v)
{
	q = pb_put_tag(q, num, PB_I64);
	for (int i = 0; i < 8; i++)
		*q++ = (uint8_t)(v >> 8 * i);
	return q;
}

/* ---- tracks -------------------------------------------------------------------- */

static struct rd_task *task_get(struct pf_readable *rd, int32_t tid, int32_t tgid)
{
	bool added;
	struct rd_task *t = scx_map_put(&rd->tasks, (uint32_t)tid, &added);

	if (added)
		t->dsq = SCX_DSQ_NONE;
	if (tgid > 0)
		t->tgid = tgid;
	return t;
}

/* The thread's track: a thread descriptor (pid = tgid) marked as ours. */
static int thread_track(struct pf_readable *rd, uint64_t ts, int32_t tid)
{
	struct rd_task *t = task_get(rd, tid, 0);
	uint8_t d[64], *q, th[32], *r;

	if (t->track)
		return 0;
	t->track = true;
	r = pb_put_u64(th, PF_THREAD_DESC_PID, (uint32_t)(t->tgid > 0 ? t->tgid : tid));
	r = pb_put_u64(r, PF_THREAD_DESC_TID, (uint32_t)tid);
	q = pb_put_u64(d, PF_TD_UUID, UUID_THREAD(tid));
	q = pb_put_bytes(q, PF_TD_THREAD, th, r - th);
	q = pb_put_u64(q, PF_TD_SCX_READABLE, 1);
	return packet(rd, ts, PF_PKT_TRACK_DESCRIPTOR, d, q - d);
}

/* A counter track of unit COUNT, described once. */
static int count_track(struct pf_readable *rd, uint64_t ts, uint64_t uuid, const char *name)
{
	uint8_t d[96], *q, cd[8], *r;

	r = pb_put_u64(cd, PF_COUNTER_DESC_UNIT, PF_UNIT_COUNT);
	q = pb_put_u64(d, PF_TD_UUID, uuid);
	q = pb_put_str(q, PF_TD_NAME, name, 48);
	q = pb_put_bytes(q, PF_TD_COUNTER, cd, r - cd);
	return packet(rd, ts, PF_PKT_TRACK_DESCRIPTOR, d, q - d);
}

static int count_value(struct pf_readable *rd, uint64_t ts, uint64_t uuid, int64_t v)
{
	uint8_t ev[96], *q = ev_head(ev, PF_TE_COUNTER, uuid, NULL);

	q = pb_put_i64(q, PF_TE_COUNTER_VALUE, v);
	return packet(rd, ts, PF_PKT_TRACK_EVENT, ev, q - ev);
}

/* ---- run queue depth ------------------------------------------------------------- */

static void depth_add(struct pf_readable *rd, int cpu, int d)
{
	if (cpu < 0 || cpu >= SCX_MAX_CPUS)
		return;
	rd->depth[cpu] += d;
	if (rd->depth[cpu] < 0)
		rd->depth[cpu] = 0; /* after lost events: never below empty */
	for (unsigned i = 0; i < rd->ndirty; i++)
		if (rd->dirty[i] == cpu)
			return;
	if (rd->ndirty < SCX_ARRAY_SIZE(rd->dirty))
		rd->dirty[rd->ndirty++] = cpu;
}

/* One sample per cpu whose depth the event changed, with the depth after it. */
static int depth_flush(struct pf_readable *rd, uint64_t ts)
{
	int rc = 0;

	for (unsigned i = 0; i < rd->ndirty && !rc; i++) {
		int cpu = rd->dirty[i];
		if (!rd->rq_track[cpu]) {
			char name[48];
			rd->rq_track[cpu] = 1;
			snprintf(name, sizeof(name), "run queue depth cpu%d", cpu);
			if ((rc = count_track(rd, ts, UUID_RQ(cpu), name)))
				break;
		}
		rc = count_value(rd, ts, UUID_RQ(cpu), rd->depth[cpu]);
	}
	rd->ndirty = 0;
	return rc;
}

static int dsq_depth(struct pf_readable *rd, uint64_t ts, uint64_t dsq, uint32_t depth)
{
	uint32_t *idx = scx_map_get(&rd->dsqs, dsq);
	int rc;

	if (!idx) {
		char name[48];
		if (rd->ndsqs >= SCX_PF_READABLE_MAX_DSQS) {
			rd->dropped++;
			return 0;
		}
		idx = scx_map_put(&rd->dsqs, dsq, NULL);
		*idx = ++rd->ndsqs;
		snprintf(name, sizeof(name), "DSQ 0x%llx depth", (unsigned long long)dsq);
		if ((rc = count_track(rd, ts, UUID_DSQ(*idx), name)))
			return rc;
	}
	return count_value(rd, ts, UUID_DSQ(*idx), depth);
}

/* ---- waits ----------------------------------------------------------------------- */

static void wait_begin(struct pf_readable *rd, struct rd_task *t, uint64_t ts, unsigned why,
		       int32_t waker, int cpu)
{
	t->waiting = (uint8_t)why;
	t->wait_ts = ts;
	t->waker = waker > 0 ? waker : 0;
	t->qcpu = cpu;
	depth_add(rd, cpu, 1);
}

static void wait_move(struct pf_readable *rd, struct rd_task *t, int cpu)
{
	if (cpu == t->qcpu || cpu < 0 || cpu >= SCX_MAX_CPUS)
		return;
	depth_add(rd, t->qcpu, -1);
	depth_add(rd, cpu, 1);
	t->qcpu = cpu;
}

/*
 * tid starts to run at ts on cpu: its wait slice, and when a task woke it,
 * the wakeup on the waker's track flowing to the switch-in on its own.
 */
static int wait_end(struct pf_readable *rd, int32_t tid, uint64_t ts, int cpu, uint64_t dsq)
{
	static const char *const why[] = { "", "wakeup", "new task", "preempted" };
	struct rd_task t = *task_get(rd, tid, 0);
	uint8_t ev[512], *q;
	char name[64];
	uint64_t flow = 0;
	int rc;

	task_get(rd, tid, 0)->waiting = 0;
	depth_add(rd, t.qcpu, -1);
	if (dsq == SCX_DSQ_NONE)
		dsq = t.dsq;
	if (dsq != SCX_DSQ_NONE)
		snprintf(name, sizeof(name), "runnable, waiting in DSQ 0x%llx",
			 (unsigned long long)dsq);
	else
		snprintf(name, sizeof(name), "runnable, waiting on cpu %d", t.qcpu);
	if ((rc = thread_track(rd, t.wait_ts, tid)))
		return rc;

	q = ev_head(ev, PF_TE_SLICE_BEGIN, UUID_THREAD(tid), name);
	q = ann_uint(q, "wait_ns", ts - t.wait_ts);
	q = ann_str(q, "reason", why[t.waiting]);
	if (t.waker)
		q = ann_uint(q, "waker_tid", (uint32_t)t.waker);
	if ((rc = packet(rd, t.wait_ts, PF_PKT_TRACK_EVENT, ev, q - ev)))
		return rc;
	q = ev_head(ev, PF_TE_SLICE_END, UUID_THREAD(tid), NULL);
	if ((rc = packet(rd, ts, PF_PKT_TRACK_EVENT, ev, q - ev)))
		return rc;

	if (t.waiting != WAIT_PREEMPTED && t.waker && t.waker != tid) {
		flow = rd->next_flow++;
		if ((rc = thread_track(rd, t.wait_ts, t.waker)))
			return rc;
		q = ev_head(ev, PF_TE_INSTANT, UUID_THREAD(t.waker), "wakeup");
		q = ann_uint(q, "wakee_tid", (uint32_t)tid);
		q = put_fixed64(q, PF_TE_FLOW_IDS, flow);
		if ((rc = packet(rd, t.wait_ts, PF_PKT_TRACK_EVENT, ev, q - ev)))
			return rc;
		q = ev_head(ev, PF_TE_INSTANT, UUID_THREAD(tid), "switch-in");
		q = ann_uint(q, "on_cpu", (uint32_t)cpu);
		q = ann_uint(q, "wait_ns", ts - t.wait_ts);
		q = put_fixed64(q, PF_TE_TERMINATING_FLOW_IDS, flow);
		if ((rc = packet(rd, ts, PF_PKT_TRACK_EVENT, ev, q - ev)))
			return rc;
	}
	return 0;
}

/* A switch's prev is still runnable: preempted (R or R+), not blocked. */
static bool still_runnable(int64_t prev_state)
{
	return (prev_state & ~(int64_t)SCX_STATE_PREEMPTED) == 0;
}

static int on_switch(struct pf_readable *rd, const struct scx_event *e)
{
	const struct scx_ev_switch *s = &e->sw;
	struct rd_task *t;
	int rc = 0;

	if (s->next_pid > 0) {
		t = task_get(rd, s->next_pid, s->next_tgid);
		if (t->waiting && (rc = wait_end(rd, s->next_pid, e->ts, e->cpu, s->dsq_id)))
			return rc;
	}
	if (s->prev_pid > 0 && s->prev_pid != s->next_pid && still_runnable(s->prev_state)) {
		t = task_get(rd, s->prev_pid, s->prev_tgid);
		if (!t->waiting)
			wait_begin(rd, t, e->ts, WAIT_PREEMPTED, 0, e->cpu);
	}
	if (s->dsq_id != SCX_DSQ_NONE)
		rc = dsq_depth(rd, e->ts, s->dsq_id, s->dsq_depth);
	return rc;
}

static void on_wake(struct pf_readable *rd, const struct scx_event *e)
{
	const struct scx_ev_wakeup *k = &e->wake;
	int cpu = k->target_cpu >= 0 && k->target_cpu < SCX_MAX_CPUS ? k->target_cpu : e->cpu;
	struct rd_task *t;

	if (k->pid <= 0)
		return;
	t = task_get(rd, k->pid, k->tgid);
	if (!t->waiting) {
		wait_begin(rd, t, e->ts, e->type == SCX_EV_WAKEUP_NEW ? WAIT_NEW : WAIT_WAKEUP,
			   k->waker_pid, cpu);
		t->dsq = SCX_DSQ_NONE;
	} else if (e->type == SCX_EV_WAKEUP && t->waiting != WAIT_PREEMPTED) {
		/* sched_waking names the task's old cpu, sched_wakeup where it was queued */
		wait_move(rd, t, cpu);
	}
}

static int derive(struct pf_readable *rd, const struct scx_event *e)
{
	struct rd_task *t;
	int rc = 0;

	switch (e->type) {
	case SCX_EV_SWITCH:
		rc = on_switch(rd, e);
		break;
	case SCX_EV_WAKING:
	case SCX_EV_WAKEUP:
	case SCX_EV_WAKEUP_NEW:
		on_wake(rd, e);
		break;
	case SCX_EV_MIGRATE:
		t = e->mig.pid > 0 ? scx_map_get(&rd->tasks, (uint32_t)e->mig.pid) : NULL;
		if (t && t->waiting)
			wait_move(rd, t, e->mig.dest_cpu);
		break;
	case SCX_EV_DSQ_INSERT:
		if (e->dsq.pid > 0)
			task_get(rd, e->dsq.pid, e->dsq.tgid)->dsq = e->dsq.dsq_id;
		rc = dsq_depth(rd, e->ts, e->dsq.dsq_id, e->dsq.depth);
		break;
	case SCX_EV_FREE:
		/* the task is gone: forget it, so memory follows the live threads */
		t = e->task.pid > 0 ? scx_map_get(&rd->tasks, (uint32_t)e->task.pid) : NULL;
		if (t) {
			if (t->waiting)
				depth_add(rd, t->qcpu, -1);
			scx_map_del(&rd->tasks, (uint32_t)e->task.pid);
		}
		break;
	default:
		break;
	}
	if (!rc && rd->ndirty)
		rc = depth_flush(rd, e->ts);
	return rc;
}

/* Pass on held events nothing older can precede any more (all when draining). */
static int drain(struct pf_readable *rd, bool all)
{
	struct scx_event e;
	int rc;

	while (scx_reorder__pop(rd->order, &e, all))
		if ((rc = derive(rd, &e)))
			return rc;
	return 0;
}

/*
 * A wait is a wakeup on one cpu and a switch on another: in a stream ordered
 * per cpu only, the switch may come first.  Events go through a reorder
 * window like scx-agg's, from the first on: by the first event out of order,
 * the batches of one cpu may already have gone past another's.
 */
int pf_readable_event(struct pf_readable *rd, const struct scx_event *e)
{
	scx_reorder__push(rd->order, e);
	return drain(rd, false);
}

int pf_readable_finish(struct pf_readable *rd)
{
	return drain(rd, true);
}

uint64_t pf_readable_late(const struct pf_readable *rd)
{
	return scx_reorder__late(rd->order);
}
