// SPDX-License-Identifier: GPL-2.0
/*
 * Placement's need bits: an engine asked for parallelism alone
 * (SCX_AGG_NEED_PLACE | SCX_AGG_NEED_PLACE_PAR, without
 * SCX_AGG_NEED_PLACE_QUEUES) keeps only a CPU's busy bit, and its
 * parallelism report is the same, byte for byte, as an engine that keeps
 * everything; the reports that need the run queues refuse with -ENODATA.
 * On a fake topology of 4 CPUs, 2 per LLC, one LLC per node.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "agg/agg_summary.h"
#include "agg/table.h"
#include "core/util.h"
#include "tap.h"

static struct scx_event sw(uint64_t ts, int cpu, int prev, int64_t state, int next)
{
	struct scx_event e;

	scx_event_init(&e, SCX_EV_SWITCH);
	e.ts = ts;
	e.cpu = cpu;
	e.sw.prev_pid = e.sw.prev_tgid = prev;
	e.sw.next_pid = e.sw.next_tgid = next;
	e.sw.prev_state = state;
	snprintf(e.sw.prev_comm, SCX_COMM_LEN, "t%d", prev);
	snprintf(e.sw.next_comm, SCX_COMM_LEN, "t%d", next);
	return e;
}

static struct scx_event wake(uint64_t ts, int cpu, int pid, int target)
{
	struct scx_event e;

	scx_event_init(&e, SCX_EV_WAKING);
	e.ts = ts;
	e.cpu = cpu;
	e.wake.pid = e.wake.tgid = pid;
	e.wake.target_cpu = target;
	snprintf(e.wake.comm, SCX_COMM_LEN, "t%d", pid);
	return e;
}

/*
 * Tasks queue behind busy CPUs while others idle, so the run queues, the
 * idle clocks and the busy count all move:
 *  1000 cpu0: idle -> 100; cpu1: idle -> 101
 *  1500 200 and 201 woken onto cpu0 (both wait; cpu2 and cpu3 idle)
 *  2000 cpu2: idle -> 300
 *  3000 cpu0: 100 preempted -> 200   4000 cpu1: 101 sleeps -> 201
 *  5000 cpu0: 200 sleeps -> 100      6000 cpu2: 300 sleeps -> idle
 *  7000 cpu1: 201 sleeps -> idle     8000 cpu0: 100 sleeps -> idle
 */
static unsigned scenario(struct scx_event *e)
{
	unsigned n = 0;

	e[n++] = sw(1000, 0, 0, 0, 100);
	e[n++] = sw(1000, 1, 0, 0, 101);
	e[n++] = wake(1500, 1, 200, 0);
	e[n++] = wake(1500, 1, 201, 0);
	e[n++] = sw(2000, 2, 0, 0, 300);
	e[n++] = sw(3000, 0, 100, SCX_STATE_PREEMPTED, 200);
	e[n++] = sw(4000, 1, 101, SCX_STATE_INTERRUPTIBLE, 201);
	e[n++] = sw(5000, 0, 200, SCX_STATE_INTERRUPTIBLE, 100);
	e[n++] = sw(6000, 2, 300, SCX_STATE_INTERRUPTIBLE, 0);
	e[n++] = sw(7000, 1, 201, SCX_STATE_INTERRUPTIBLE, 0);
	e[n++] = sw(8000, 0, 100, SCX_STATE_INTERRUPTIBLE, 0);
	return n;
}

static struct scx_agg *run(struct scx_topo *topo, unsigned need, uint64_t interval_ns)
{
	struct scx_agg_opts o = { .need = need, .interval_ns = interval_ns };
	struct scx_agg *a = scx_agg__new(topo, &o);
	struct scx_event e[16];
	unsigned n = scenario(e);

	for (unsigned i = 0; i < n; i++)
		scx_agg__add(a, &e[i]);
	scx_agg__flush(a);
	return a;
}

/* The report's NDJSON line into b (cleared first); its return value. */
static int report(struct scx_agg *a, const char *name, struct scx_buf *b)
{
	struct scx_report_ctx c = { 0 };
	struct scx_table *t = NULL;
	int err = scx_agg__report(a, name, &t);

	b->len = 0;
	if (!err)
		scx_report_json(b, t, &c);
	scx_table_free(t);
	return err;
}

int main(void)
{
	struct scx_topo *topo = scx_topo__synthetic(4, 2, 1);
	const unsigned par = SCX_AGG_NEED_PLACE | SCX_AGG_NEED_PLACE_PAR;
	static const char *const queues[] = { "work-conservation", "runqueue-occupancy",
					      "wakeup-placement", "pre-migration" };
	struct scx_buf all = { 0 }, only = { 0 };
	struct scx_agg *a = run(topo, 0, 0), *p = run(topo, par, 0);

	is_int(report(a, "parallelism", &all), 0, "parallelism from an engine that keeps all");
	is_int(report(p, "parallelism", &only), 0, "parallelism alone, without the run queues");
	ok(all.len && all.len == only.len && !memcmp(all.data, only.data, all.len),
	   "parallelism alone is byte-identical to the full engine's");
	/* 2000-3000 cpus 0-2 run; 200 and 201 wait on cpu0 from 1500 to 3000 and 4000 */
	ok(all.len && strstr(all.data, "\"active_max\":3,"), "three CPUs busy at once");
	ok(all.len && strstr(all.data, "\"runnable_max\":2,"), "two threads runnable at once");
	for (size_t i = 0; i < SCX_ARRAY_SIZE(queues); i++) {
		is_int(report(p, queues[i], &only), -ENODATA, "%s needs the run queues", queues[i]);
		is_int(report(a, queues[i], &all), 0, "%s from the full engine", queues[i]);
	}
	scx_agg__free(a);
	scx_agg__free(p);

	/* per interval too: the busy bit carries across interval boundaries */
	a = run(topo, 0, 1500);
	p = run(topo, par, 1500);
	is_int(report(a, "parallelism", &all), 0, "last interval, full engine");
	is_int(report(p, "parallelism", &only), 0, "last interval, parallelism alone");
	ok(all.len && all.len == only.len && !memcmp(all.data, only.data, all.len),
	   "the last interval's parallelism is byte-identical too");
	scx_agg__free(a);
	scx_agg__free(p);

	/* summaries read the violation clocks: they ask for the run queues */
	ok(SCX_SUMMARY_NEED & SCX_AGG_NEED_PLACE_QUEUES, "summaries keep the run queues");
	p = run(topo, SCX_SUMMARY_NEED, 0);
	is_int(report(p, "work-conservation", &only), 0, "work-conservation with summary needs");
	scx_agg__free(p);

	scx_buf_free(&all);
	scx_buf_free(&only);
	scx_topo__free(topo);
	return done_testing();
}
