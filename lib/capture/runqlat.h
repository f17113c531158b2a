/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wakeup and run-queue latency from the event stream, runqslower-style: a task
 * becomes ready when woken (the first of sched_waking, sched_wakeup,
 * sched_wakeup_new) or when switched out still runnable (preempted), and the
 * latency is the time until it is switched in.  scx-events --flight uses it to
 * trigger a window on a latency above a threshold.  At most SCX_RUNQLAT_MAX
 * tasks wait at once; a ready task past that is not followed, and counted.
 */
#ifndef SCX_RUNQLAT_H
#define SCX_RUNQLAT_H

#include <stdint.h>

#include "core/event.h"
#include "core/hashmap.h"

#define SCX_RUNQLAT_MAX (1u << 20)

struct scx_runqlat {
	struct scx_map ready; /* pid -> struct scx_runqlat_ready */
	uint64_t untracked;   /* ready tasks not followed: the map was full */
};

struct scx_runqlat_hit {
	int32_t pid, tgid;
	char comm[SCX_COMM_LEN];
	uint64_t latency_ns;
	int woken; /* 1: since a wakeup, 0: since a preemption */
};

void scx_runqlat__init(struct scx_runqlat *r);
void scx_runqlat__free(struct scx_runqlat *r);
/* Feed an event in time order; 1 with *hit filled when a task switched in after >= min_ns. */
int scx_runqlat__event(struct scx_runqlat *r, const struct scx_event *e, uint64_t min_ns,
		       struct scx_runqlat_hit *hit);

#endif
