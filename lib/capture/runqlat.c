// SPDX-License-Identifier: GPL-2.0
/* Wakeup and run-queue latency from the event stream (runqlat.h). */
#include <stdio.h>
#include <string.h>

#include "capture/runqlat.h"

struct ready {
	uint64_t ts;
	int32_t tgid;
	int32_t woken;
};

void scx_runqlat__init(struct scx_runqlat *r)
{
	memset(r, 0, sizeof(*r));
	scx_map_init(&r->ready, sizeof(struct ready));
}

void scx_runqlat__free(struct scx_runqlat *r)
{
	scx_map_free(&r->ready);
}

static void mark(struct scx_runqlat *r, int32_t pid, int32_t tgid, uint64_t ts, int woken)
{
	struct ready *v;
	bool added;

	if (pid <= 0)
		return; /* the idle task is never waiting */
	if (!scx_map_get(&r->ready, pid) && r->ready.n >= SCX_RUNQLAT_MAX) {
		r->untracked++;
		return;
	}
	v = scx_map_put(&r->ready, pid, &added);
	if (!added)
		return; /* waking then wakeup: the first counts */
	v->ts = ts;
	v->tgid = tgid;
	v->woken = woken;
}

int scx_runqlat__event(struct scx_runqlat *r, const struct scx_event *e, uint64_t min_ns,
		       struct scx_runqlat_hit *hit)
{
	const struct ready *v;
	int got = 0;

	switch (e->type) {
	case SCX_EV_WAKING:
	case SCX_EV_WAKEUP:
	case SCX_EV_WAKEUP_NEW:
		mark(r, e->wake.pid, e->wake.tgid, e->ts, 1);
		break;
	case SCX_EV_EXIT:
	case SCX_EV_FREE:
		scx_map_del(&r->ready, e->task.pid);
		break;
	case SCX_EV_SWITCH:
		v = e->sw.next_pid > 0 ? scx_map_get(&r->ready, e->sw.next_pid) : NULL;
		if (v && e->ts >= v->ts && e->ts - v->ts >= min_ns) {
			hit->pid = e->sw.next_pid;
			hit->tgid = e->sw.next_tgid;
			memcpy(hit->comm, e->sw.next_comm, SCX_COMM_LEN);
			hit->latency_ns = e->ts - v->ts;
			hit->woken = v->woken;
			got = 1;
		}
		if (v)
			scx_map_del(&r->ready, e->sw.next_pid);
		if (e->sw.prev_state == SCX_STATE_RUNNING ||
		    e->sw.prev_state == SCX_STATE_PREEMPTED)
			mark(r, e->sw.prev_pid, e->sw.prev_tgid, e->ts, 0);
		break;
	}
	return got;
}
