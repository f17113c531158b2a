// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mcp timelines and wakeup -> schedule correlation over a loaded trace:
 * one pass over the trace's arena each, bounded output.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_query.h"
#include "mcp/mcp_tools.h"
#include "mcp/mcp_trace.h"
#include "stream/stream.h"

/*
 * Their results: the fields of a record, then by hand what a pass over the
 * trace writes as it goes (rows, their summary, a cut).
 */
struct timeline_rec {
	const char *trace_id;
	int64_t pid, tgid, cpu; /* the one asked for; the others -1 */
	const char *comm, *wakeup_event;
};
const struct mcp_out mcp_out_ptimeline[] = {
	MCP_TRACE_OUT(timeline_rec),
	MCP_REC_INT_SET(timeline_rec, pid),
	MCP_REC_INT_SET(timeline_rec, tgid),
	MCP_REC_STR(timeline_rec, comm),
	{ "timeline", "array" },
	{ "summary", "object" },
	{ "" },
};
const struct mcp_out mcp_out_ctimeline[] = {
	MCP_TRACE_OUT(timeline_rec),
	MCP_REC_INT_SET(timeline_rec, cpu),
	{ "slices", "array" },
	{ "summary", "object" },
	{ "" },
};
const struct mcp_out mcp_out_correlate[] = {
	MCP_TRACE_OUT(timeline_rec),
	MCP_REC_INT_SET(timeline_rec, pid),
	MCP_REC_STR(timeline_rec, wakeup_event),
	{ "summary", "object" },
	{ "slowest", "array" },
	{ "" },
};

/* ---- timelines ------------------------------------------------------------------- */

static void slice_row(struct mcp_call *c, const char *what, uint64_t start, uint64_t end, int cpu,
		      int32_t pid, const char *comm, int64_t state)
{
	char sb[16];

	scx_jw_obj_begin(&c->w);
	scx_jw_kstr(&c->w, "type", what);
	scx_jw_kuint(&c->w, "start_ns", start);
	scx_jw_kuint(&c->w, "dur_ns", end - start);
	scx_jw_kint(&c->w, "cpu", cpu);
	if (pid >= 0) {
		scx_jw_kint(&c->w, "pid", pid);
		scx_jw_kstr(&c->w, "comm", comm);
	}
	if (state >= 0)
		scx_jw_kstr(&c->w, "end_state", scx_state_str(state, sb, sizeof(sb)));
	scx_jw_obj_end(&c->w);
}

int mcp_t_ptimeline(struct mcp_call *c)
{
	struct mcp_trace *t = mcp_tool_trace(c);
	uint64_t from, to, *open, rows = 0, shown = 0, run_ns = 0, slices = 0, wakeups = 0,
				  migr = 0;
	int64_t pid = -1, limit;
	struct scx_event e;
	struct scx_buf tmp = { 0 };
	size_t off = 0;
	char comm[SCX_COMM_LEN];
	bool by_tgid;

	if (!t || mcp_arg_required(c, "pid") || mcp_arg_i64(c, "pid", &pid, 0, INT32_MAX) < 0 ||
	    mcp_arg_range(c, &from, &to) || mcp_arg_limit(c, 200, 10000, &limit))
		return -EINVAL;
	/* a pid that is some thread's tgid but no thread itself means the process */
	by_tgid = false;
	if (!mcp_trace_task(t, (int32_t)pid) || mcp_trace_task(t, (int32_t)pid)->tgid == pid) {
		const struct mcp_task *k;
		size_t pos = 0;

		while ((k = scx_map_next(&t->tasks, &pos, NULL)))
			if (k->pid != pid && k->tgid == pid)
				by_tgid = true;
	}
	mcp_comm_of(t, (int32_t)pid, comm);
	open = scx_xcalloc(t->max_cpu + 2, sizeof(*open));
	scx_jw_obj_begin(&c->w);
	mcp_out_fields(&c->w, mcp_out_ptimeline,
		       &(struct timeline_rec){ .trace_id = t->id,
					       .pid = by_tgid ? -1 : pid,
					       .tgid = by_tgid ? pid : -1,
					       .cpu = -1,
					       .comm = comm });
	scx_jw_key(&c->w, "timeline");
	scx_jw_arr_begin(&c->w);
	while (mcp_trace_next(t, &off, &e)) {
		bool in_range = e.ts >= from && e.ts <= to, emit;
		int32_t p;

		if (e.ts > to)
			break;
		switch (e.type) {
		case SCX_EV_SWITCH:
			if (e.cpu < 0 || e.cpu > t->max_cpu)
				break;
			p = by_tgid ? e.sw.prev_tgid : e.sw.prev_pid;
			if (p == pid && e.sw.prev_pid && open[e.cpu]) {
				uint64_t st = open[e.cpu] - 1;

				open[e.cpu] = 0;
				if (e.ts < from || st > to)
					break;
				run_ns += e.ts - SCX_MAX(st, from);
				slices++;
				rows++;
				if ((int64_t)shown < limit && mcp_room(c)) {
					slice_row(c, "run", st, e.ts, e.cpu,
						  by_tgid ? e.sw.prev_pid : -1, e.sw.prev_comm,
						  e.sw.prev_state);
					shown++;
				}
			}
			p = by_tgid ? e.sw.next_tgid : e.sw.next_pid;
			if (p == pid && e.sw.next_pid)
				open[e.cpu] = e.ts + 1;
			break;
		case SCX_EV_WAKING:
		case SCX_EV_WAKEUP:
		case SCX_EV_WAKEUP_NEW:
		case SCX_EV_MIGRATE:
		case SCX_EV_FORK:
		case SCX_EV_EXEC:
		case SCX_EV_EXIT:
			if (!in_range)
				break;
			if (e.type == SCX_EV_FORK)
				emit = (by_tgid ? e.fork.parent_tgid : e.fork.parent_pid) == pid ||
				       (by_tgid ? e.fork.child_tgid : e.fork.child_pid) == pid;
			else if (e.type == SCX_EV_MIGRATE)
				emit = (by_tgid ? e.mig.tgid : e.mig.pid) == pid;
			else if (e.type == SCX_EV_EXEC)
				emit = (by_tgid ? e.exec.tgid : e.exec.pid) == pid;
			else if (e.type == SCX_EV_EXIT)
				emit = (by_tgid ? e.task.tgid : e.task.pid) == pid;
			else
				emit = (by_tgid ? e.wake.tgid : e.wake.pid) == pid;
			if (!emit)
				break;
			if (e.type == SCX_EV_MIGRATE)
				migr++;
			else if (e.type != SCX_EV_FORK && e.type != SCX_EV_EXEC &&
				 e.type != SCX_EV_EXIT)
				wakeups++;
			rows++;
			if ((int64_t)shown < limit && mcp_room(c)) {
				mcp_raw_event(c, &e, &tmp);
				shown++;
			}
			break;
		}
	}
	scx_jw_arr_end(&c->w);
	scx_jw_key(&c->w, "summary");
	scx_jw_obj_begin(&c->w);
	scx_jw_kuint(&c->w, "run_slices", slices);
	scx_jw_kuint(&c->w, "runtime_ns", run_ns);
	scx_jw_kuint(&c->w, "wakeups", wakeups);
	scx_jw_kuint(&c->w, "migrations", migr);
	scx_jw_obj_end(&c->w);
	if (shown < rows)
		mcp_note_cut(c, shown, rows - shown,
			     (int64_t)shown >= limit ? "limit" :
						       "result size cap; narrow the time range");
	scx_jw_obj_end(&c->w);
	free(open);
	scx_buf_free(&tmp);
	return 0;
}

int mcp_t_ctimeline(struct mcp_call *c)
{
	struct mcp_trace *t = mcp_tool_trace(c);
	uint64_t from, to, last = 0, rows = 0, shown = 0, busy = 0, idle = 0, sw = 0;
	int64_t cpu = -1, limit;
	struct scx_event e;
	struct scx_map tasks = SCX_MAP_INIT(uint8_t); /* pids seen running */
	size_t off = 0;
	int32_t cur = -1;
	char cur_comm[SCX_COMM_LEN] = "";

	if (!t || mcp_arg_required(c, "cpu") || mcp_arg_i64(c, "cpu", &cpu, 0, 1 << 20) < 0 ||
	    mcp_arg_range(c, &from, &to) || mcp_arg_limit(c, 200, 10000, &limit))
		return -EINVAL;
	if (cpu > t->max_cpu)
		return mcp_fail(c, "cpu %lld has no events in trace '%s' (cpus 0-%d)",
				(long long)cpu, t->id, t->max_cpu);
	scx_jw_obj_begin(&c->w);
	mcp_out_fields(
		&c->w, mcp_out_ctimeline,
		&(struct timeline_rec){ .trace_id = t->id, .pid = -1, .tgid = -1, .cpu = cpu });
	scx_jw_key(&c->w, "slices");
	scx_jw_arr_begin(&c->w);
	while (mcp_trace_next(t, &off, &e)) {
		if (e.type != SCX_EV_SWITCH || e.cpu != cpu)
			continue;
		if (e.ts > to)
			break;
		if (cur >= 0 && e.ts >= from) {
			uint64_t st = SCX_MAX(last, from);

			if (cur)
				busy += e.ts - st;
			else
				idle += e.ts - st;
			rows++;
			if ((int64_t)shown < limit && mcp_room(c)) {
				slice_row(c, cur ? "run" : "idle", last, e.ts, (int)cpu, cur,
					  cur_comm, cur ? e.sw.prev_state : -1);
				shown++;
			}
		}
		if (e.ts >= from) {
			sw++;
			scx_map_put(&tasks, (uint64_t)e.sw.next_pid, NULL);
		}
		cur = e.sw.next_pid;
		memcpy(cur_comm, e.sw.next_comm, SCX_COMM_LEN);
		cur_comm[SCX_COMM_LEN - 1] = 0;
		last = e.ts;
	}
	scx_jw_arr_end(&c->w);
	scx_jw_key(&c->w, "summary");
	scx_jw_obj_begin(&c->w);
	scx_jw_kuint(&c->w, "switches", sw);
	scx_jw_kuint(&c->w, "busy_ns", busy);
	scx_jw_kuint(&c->w, "idle_ns", idle);
	if (busy + idle)
		scx_jw_knum(&c->w, "util", (double)busy / (busy + idle));
	scx_jw_kuint(&c->w, "distinct_tasks", tasks.n);
	scx_jw_obj_end(&c->w);
	if (shown < rows)
		mcp_note_cut(c, shown, rows - shown,
			     (int64_t)shown >= limit ? "limit" :
						       "result size cap; narrow the time range");
	scx_jw_obj_end(&c->w);
	scx_map_free(&tasks);
	return 0;
}

/* ---- wakeup -> schedule ---------------------------------------------------------- */

enum { ST_UNKNOWN, ST_RUNNING, ST_RUNNABLE, ST_SLEEPING };

struct pending {
	uint64_t ts; /* waking time, 0 when not waiting for one */
	int32_t waker, wake_cpu, target_cpu;
	int32_t state;
};

static struct pending *pend_of(struct scx_map *m, struct pending **pend, size_t *n, size_t *cap,
			       int32_t pid)
{
	uint32_t *slot = scx_map_put(m, (uint64_t)pid, NULL); /* index + 1 */

	if (!*slot) {
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 1024;
			*pend = scx_xrealloc(*pend, *cap * sizeof(**pend));
		}
		memset(&(*pend)[*n], 0, sizeof(**pend));
		*slot = (uint32_t)++*n;
	}
	return &(*pend)[*slot - 1];
}

struct pair {
	uint64_t wake_ts, lat;
	int32_t pid, waker, wake_cpu, run_cpu;
};

static int cmp_lat_desc(const void *a, const void *b)
{
	const struct pair *x = a, *y = b;

	return x->lat < y->lat ? 1 :
	       x->lat > y->lat ? -1 :
				 (x->wake_ts > y->wake_ts) - (x->wake_ts < y->wake_ts);
}

/* The k-th smallest of a[0..n) (a is reordered): quickselect, O(n). */
static uint64_t kth(uint64_t *a, size_t n, size_t k)
{
	size_t lo = 0, hi = n - 1;

	while (lo < hi) {
		uint64_t pivot = a[lo + (hi - lo) / 2];
		size_t i = lo, j = hi;

		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				uint64_t x = a[i];

				a[i] = a[j];
				a[j] = x;
				i++;
				if (j == 0)
					break;
				j--;
			}
		}
		if (k <= j)
			hi = j;
		else if (k >= i)
			lo = i;
		else
			return a[k];
	}
	return a[k];
}

/* Keep the 'cap' slowest pairs in a min-heap on latency. */
static void heap_push(struct pair *h, size_t *n, size_t cap, const struct pair *p)
{
	size_t i;

	if (*n == cap) {
		if (cmp_lat_desc(p, &h[0]) >= 0) /* not slower than the fastest kept */
			return;
		/* replace the root and sift down */
		i = 0;
		h[0] = *p;
		for (;;) {
			size_t l = 2 * i + 1, r = l + 1, m = i;

			if (l < *n && cmp_lat_desc(&h[l], &h[m]) > 0)
				m = l;
			if (r < *n && cmp_lat_desc(&h[r], &h[m]) > 0)
				m = r;
			if (m == i)
				break;
			struct pair x = h[i];

			h[i] = h[m];
			h[m] = x;
			i = m;
		}
		return;
	}
	i = (*n)++;
	h[i] = *p;
	while (i && cmp_lat_desc(&h[i], &h[(i - 1) / 2]) > 0) {
		struct pair x = h[i];

		h[i] = h[(i - 1) / 2];
		h[(i - 1) / 2] = x;
		i = (i - 1) / 2;
	}
}

int mcp_t_correlate(struct mcp_call *c)
{
	struct mcp_trace *t = mcp_tool_trace(c);
	int64_t pid = -1, limit;
	struct scx_map map = SCX_MAP_INIT(uint32_t);
	struct pending *pend = NULL;
	size_t npend = 0, cappend = 0, npairs = 0, cappairs = 0, off = 0, shown = 0;
	struct pair *pairs = NULL;
	uint64_t *lat;
	struct scx_event e;
	unsigned wake_type;

	if (!t || mcp_arg_i64(c, "pid", &pid, 0, INT32_MAX) < 0 ||
	    mcp_arg_limit(c, 100, 10000, &limit))
		return -EINVAL;
	/* waking is the start of a wakeup; traces without it have only wakeup */
	wake_type = t->counts[SCX_EV_WAKING] ? SCX_EV_WAKING : SCX_EV_WAKEUP;
	while (mcp_trace_next(t, &off, &e)) {
		struct pending *p;

		if (e.type == wake_type || e.type == SCX_EV_WAKEUP_NEW) {
			if (e.wake.pid <= 0 || (pid >= 0 && e.wake.pid != pid))
				continue;
			p = pend_of(&map, &pend, &npend, &cappend, e.wake.pid);
			/* a waking of a running or runnable task is spurious (as in scx-agg);
			 * the first waking of a sleeping one starts the wait */
			if (p->state == ST_RUNNING || p->state == ST_RUNNABLE || p->ts)
				continue;
			*p = (struct pending){ e.ts, e.wake.waker_pid, e.cpu, e.wake.target_cpu,
					       ST_RUNNABLE };
		} else if (e.type == SCX_EV_SWITCH) {
			if (e.sw.prev_pid > 0 && (pid < 0 || e.sw.prev_pid == pid)) {
				p = pend_of(&map, &pend, &npend, &cappend, e.sw.prev_pid);
				p->ts = 0;
				p->state = (e.sw.prev_state == SCX_STATE_RUNNING ||
					    e.sw.prev_state == SCX_STATE_PREEMPTED) ?
						   ST_RUNNABLE :
						   ST_SLEEPING;
			}
			if (e.sw.next_pid <= 0 || (pid >= 0 && e.sw.next_pid != pid))
				continue;
			p = pend_of(&map, &pend, &npend, &cappend, e.sw.next_pid);
			if (p->ts) {
				if (npairs == cappairs) {
					cappairs = cappairs ? cappairs * 2 : 4096;
					pairs = scx_xrealloc(pairs, cappairs * sizeof(*pairs));
				}
				pairs[npairs++] =
					(struct pair){ p->ts,	 e.ts - p->ts, e.sw.next_pid,
						       p->waker, p->wake_cpu,  e.cpu };
			}
			p->ts = 0;
			p->state = ST_RUNNING;
		}
	}
	lat = scx_xmalloc((npairs + 1) * sizeof(*lat));
	for (size_t i = 0; i < npairs; i++)
		lat[i] = pairs[i].lat;
	/* only the slowest 'limit' are shown: a heap, then sort those few */
	{
		size_t keep = SCX_MIN((size_t)limit, npairs), nh = 0;
		struct pair *h = scx_xmalloc((keep + 1) * sizeof(*h));

		for (size_t i = 0; i < npairs && keep; i++)
			heap_push(h, &nh, keep, &pairs[i]);
		/* no pairs: pairs is NULL, and memcpy() may not be given NULL even for 0 bytes */
		if (nh) {
			qsort(h, nh, sizeof(*h), cmp_lat_desc);
			memcpy(pairs, h, nh * sizeof(*h));
		}
		free(h);
	}

	scx_jw_obj_begin(&c->w);
	mcp_out_fields(&c->w, mcp_out_correlate,
		       &(struct timeline_rec){ .trace_id = t->id,
					       .pid = pid,
					       .tgid = -1,
					       .cpu = -1,
					       .wakeup_event = scx_ev_name(wake_type) });
	scx_jw_key(&c->w, "summary");
	scx_jw_obj_begin(&c->w);
	scx_jw_kuint(&c->w, "count", npairs);
	if (npairs) {
		double sum = 0;
		uint64_t mn = UINT64_MAX, mx = 0;

		for (size_t i = 0; i < npairs; i++) {
			sum += lat[i];
			mn = SCX_MIN(mn, lat[i]);
			mx = SCX_MAX(mx, lat[i]);
		}
		scx_jw_kuint(&c->w, "min_ns", mn);
		scx_jw_knum(&c->w, "avg_ns", sum / npairs);
		/* exact, by rank (index round((n-1) q)) */
		scx_jw_kuint(&c->w, "p50_ns",
			     kth(lat, npairs, (size_t)((npairs - 1) * 0.50 + 0.5)));
		scx_jw_kuint(&c->w, "p90_ns",
			     kth(lat, npairs, (size_t)((npairs - 1) * 0.90 + 0.5)));
		scx_jw_kuint(&c->w, "p99_ns",
			     kth(lat, npairs, (size_t)((npairs - 1) * 0.99 + 0.5)));
		scx_jw_kuint(&c->w, "p999_ns",
			     kth(lat, npairs, (size_t)((npairs - 1) * 0.999 + 0.5)));
		scx_jw_kuint(&c->w, "max_ns", mx);
	}
	scx_jw_obj_end(&c->w);
	scx_jw_key(&c->w, "slowest");
	scx_jw_arr_begin(&c->w);
	for (size_t i = 0; i < npairs && (int64_t)shown < limit && mcp_room(c); i++, shown++) {
		const struct pair *p = &pairs[i]; /* the heap's sorted top */
		char comm[SCX_COMM_LEN];

		scx_jw_obj_begin(&c->w);
		scx_jw_kint(&c->w, "pid", p->pid);
		mcp_comm_of(t, p->pid, comm);
		scx_jw_kstr(&c->w, "comm", comm);
		scx_jw_kuint(&c->w, "wakeup_ts_ns", p->wake_ts);
		scx_jw_kuint(&c->w, "schedule_ts_ns", p->wake_ts + p->lat);
		scx_jw_kuint(&c->w, "latency_ns", p->lat);
		scx_jw_kint(&c->w, "waker_pid", p->waker);
		mcp_comm_of(t, p->waker, comm);
		scx_jw_kstr(&c->w, "waker_comm", comm);
		scx_jw_kint(&c->w, "wake_cpu", p->wake_cpu);
		scx_jw_kint(&c->w, "run_cpu", p->run_cpu);
		scx_jw_obj_end(&c->w);
	}
	scx_jw_arr_end(&c->w);
	if (shown < npairs)
		mcp_note_cut(c, shown, npairs - shown,
			     (int64_t)shown >= limit ? "limit" : "result size cap");
	scx_jw_obj_end(&c->w);
	free(lat);
	free(pairs);
	free(pend);
	scx_map_free(&map);
	return 0;
}
