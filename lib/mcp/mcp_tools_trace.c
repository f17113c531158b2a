// SPDX-License-Identifier: GPL-2.0
/* scx-mcp trace tools: load, list, unload, summary. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agg/agg_ksnap.h"
#include "mcp/mcp_tools.h"
#include "mcp/mcp_trace.h"

/*
 * What the trace tools say of a trace: one record, filled once
 * (trace_rec), written through the tools' outputSchema tables below
 * (mcp_out_write): each key is the field of that name.
 */
struct trace_rec {
	const char *trace_id, *resource, *path, *format, *producer, *hostname, *kernel;
	uint64_t events, first_ts_ns, last_ts_ns, duration_ns, cpus, tasks, lost_events;
	uint64_t skipped_records, out_of_order_events, memory_bytes;
	double switches_per_sec, wakeups_per_sec, load_ms;
	bool has_topology;
	const char *warning, *next;
	const uint64_t *events_by_type; /* the trace's counts, by event type */
};

static void trace_rec(const struct mcp_trace *t, struct trace_rec *r)
{
	double secs = (t->last_ts - t->first_ts) / 1e9;

	*r = (struct trace_rec){
		.trace_id = t->id,
		.path = t->path,
		.format = t->format,
		.producer = t->producer,
		.hostname = t->hostname[0] ? t->hostname : NULL,
		.kernel = t->kernel[0] ? t->kernel : NULL,
		.events = t->nr,
		.first_ts_ns = t->first_ts,
		.last_ts_ns = t->last_ts,
		.duration_ns = t->last_ts - t->first_ts,
		.cpus = t->nr_cpus,
		.tasks = t->tasks.n,
		.lost_events = t->lost,
		.skipped_records = t->skipped,
		.out_of_order_events = t->out_of_order,
		.memory_bytes = mcp_trace_mem(t),
		/* rates of a trace with a duration */
		.switches_per_sec = NAN,
		.wakeups_per_sec = NAN,
		.load_ms = t->load_ns / 1e6,
		.has_topology = t->topo != NULL,
		.events_by_type = t->counts,
	};
	if (t->last_ts > t->first_ts) {
		r->switches_per_sec = t->counts[SCX_EV_SWITCH] / secs;
		r->wakeups_per_sec = (t->counts[SCX_EV_WAKING] ? t->counts[SCX_EV_WAKING] :
								 t->counts[SCX_EV_WAKEUP]) /
				     secs;
	}
}

static void events_by_type(struct scx_jw *w, const void *val)
{
	const uint64_t *counts = val;

	scx_jw_obj_begin(w);
	for (unsigned i = 1; i < SCX_EV__COUNT; i++)
		if (counts[i])
			scx_jw_kuint(w, scx_ev_name(i), counts[i]);
	scx_jw_obj_end(w);
}

const struct mcp_out mcp_out_load[] = {
	MCP_TRACE_OUT(trace_rec),
	MCP_REC_STR(trace_rec, resource),
	MCP_REC_STR(trace_rec, path),
	MCP_REC_STR(trace_rec, format),
	MCP_REC_STR(trace_rec, producer),
	MCP_REC_UINT(trace_rec, events),
	MCP_REC_UINT(trace_rec, duration_ns),
	MCP_REC_UINT(trace_rec, cpus),
	MCP_REC_UINT(trace_rec, tasks),
	MCP_REC_UINT(trace_rec, memory_bytes),
	MCP_REC_NUM(trace_rec, load_ms),
	MCP_REC_STR(trace_rec, warning),
	MCP_REC_STR(trace_rec, next),
	{ "" },
};
const struct mcp_out mcp_out_summary[] = {
	MCP_TRACE_OUT(trace_rec),
	MCP_REC_STR(trace_rec, path),
	MCP_REC_STR(trace_rec, format),
	MCP_REC_STR(trace_rec, producer),
	MCP_REC_STR(trace_rec, hostname),
	MCP_REC_STR(trace_rec, kernel),
	MCP_REC_UINT(trace_rec, events),
	MCP_REC_UINT(trace_rec, first_ts_ns),
	MCP_REC_UINT(trace_rec, last_ts_ns),
	MCP_REC_UINT(trace_rec, duration_ns),
	MCP_REC_UINT(trace_rec, cpus),
	MCP_REC_UINT(trace_rec, tasks),
	MCP_REC_UINT(trace_rec, lost_events),
	MCP_REC_UINT_NZ(trace_rec, skipped_records),
	MCP_REC_UINT_NZ(trace_rec, out_of_order_events),
	MCP_REC_FN(trace_rec, events_by_type, "object", events_by_type),
	MCP_REC_NUM_SET(trace_rec, switches_per_sec),
	MCP_REC_NUM_SET(trace_rec, wakeups_per_sec),
	MCP_REC_BOOL(trace_rec, has_topology),
	MCP_REC_UINT(trace_rec, memory_bytes),
	MCP_REC_NUM(trace_rec, load_ms),
	{ "" },
};
/* one trace of list_traces (its schema says "array" of them) */
static const struct mcp_out list_item[] = {
	MCP_REC_STR(trace_rec, trace_id),
	MCP_REC_STR(trace_rec, path),
	MCP_REC_STR(trace_rec, format),
	MCP_REC_UINT(trace_rec, events),
	MCP_REC_UINT(trace_rec, duration_ns),
	MCP_REC_UINT(trace_rec, memory_bytes),
	{ "" },
};
struct list_rec {
	const struct mcp_server *traces; /* written as its loaded traces */
	uint64_t memory_bytes, memory_cap_bytes;
};

static void list_traces(struct scx_jw *w, const void *val)
{
	const struct mcp_server *s = val;

	scx_jw_arr_begin(w);
	for (unsigned i = 0; i < s->nr_traces; i++) {
		struct trace_rec r;

		trace_rec(s->traces[i], &r);
		mcp_out_write(w, list_item, &r);
	}
	scx_jw_arr_end(w);
}

const struct mcp_out mcp_out_list[] = {
	MCP_REC_FN(list_rec, traces, "array", list_traces),
	MCP_REC_UINT(list_rec, memory_bytes),
	MCP_REC_UINT(list_rec, memory_cap_bytes),
	{ "" },
};
struct unload_rec {
	const char *unloaded;
	uint64_t freed_bytes;
};
const struct mcp_out mcp_out_unload[] = {
	MCP_REC_STR(unload_rec, unloaded),
	MCP_REC_UINT(unload_rec, freed_bytes),
	{ "" },
};

/* The default id: the file name up to its first dot, made id-safe. */
static void default_id(const char *path, char *id, size_t size)
{
	const char *b = strrchr(path, '/');
	size_t n = 0;

	b = b ? b + 1 : path;
	for (; *b && *b != '.' && n + 1 < size && n < 64; b++) {
		char ch = *b;

		id[n++] = ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
			   (ch >= '0' && ch <= '9') || ch == '-') ?
				  ch :
				  '_';
	}
	if (!n)
		id[n++] = 't';
	id[n] = 0;
}

int mcp_t_load(struct mcp_call *c)
{
	char path[PATH_MAX], id[80] = "", uri[96];
	struct mcp_trace *t;
	struct trace_rec rec;
	int r;

	if (mcp_arg_required(c, "file_path") || mcp_arg_str(c, "file_path", path, sizeof(path)) < 0)
		return -EINVAL;
	r = mcp_arg_str(c, "trace_id", id, sizeof(id));
	if (r < 0)
		return -EINVAL;
	if (!r)
		default_id(path, id, sizeof(id));
	else if (!mcp_trace_id_ok(id))
		return mcp_fail(c,
				"trace_id '%s' is not valid: use 1-64 of A-Z a-z 0-9 _ - . "
				"(not starting with a dot)",
				id);
	r = mcp_trace_load(c, path, id);
	if (r < 0)
		return -EINVAL;
	t = mcp_trace_find(c->s, id);
	snprintf(uri, sizeof(uri), "trace://%s", id);
	mcp_call_link(c, uri, id,
		      "the loaded trace's summary; analyse it with the trace tools by trace_id");
	trace_rec(t, &rec);
	rec.trace_id = id;
	rec.resource = uri;
	if (r > 0)
		rec.warning = "the file is truncated or corrupt after the events kept";
	else if (t->ksnaps)
		rec.warning = SCX_AGG_KSNAP_NO_EVENTS
			": analyses see the per-CPU "
			"figures only, event queries and timelines find nothing";
	rec.next = "get_trace_summary, analyze_trace_scheduling, query_trace_events";
	mcp_out_write(&c->w, mcp_out_load, &rec);
	return 0;
}

int mcp_t_list(struct mcp_call *c)
{
	struct list_rec rec = { .traces = c->s, .memory_cap_bytes = c->s->o.trace_mem_max };

	for (unsigned i = 0; i < c->s->nr_traces; i++)
		rec.memory_bytes += mcp_trace_mem(c->s->traces[i]);
	mcp_out_write(&c->w, mcp_out_list, &rec);
	return 0;
}

static struct mcp_trace *get_trace(struct mcp_call *c)
{
	char id[80];
	struct mcp_trace *t;

	if (mcp_arg_required(c, "trace_id") || mcp_arg_str(c, "trace_id", id, sizeof(id)) < 0)
		return NULL;
	t = mcp_trace_find(c->s, id);
	if (!t) {
		char list[256] = "";

		for (unsigned i = 0; i < c->s->nr_traces && strlen(list) < 200; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", c->s->traces[i]->id);
		mcp_fail(c,
			 "no trace '%s' is loaded (loaded: %s); load it with load_perfetto_trace",
			 id, list[0] ? list : "none");
	}
	return t;
}

struct mcp_trace *mcp_tool_trace(struct mcp_call *c)
{
	return get_trace(c);
}

int mcp_t_unload(struct mcp_call *c)
{
	struct mcp_trace *t = get_trace(c);
	char id[80];
	size_t mem;

	if (!t)
		return -EINVAL;
	snprintf(id, sizeof(id), "%s", t->id);
	mem = mcp_trace_mem(t);
	mcp_trace_unload(c->s, id);
	mcp_out_write(&c->w, mcp_out_unload,
		      &(struct unload_rec){ .unloaded = id, .freed_bytes = mem });
	return 0;
}

int mcp_trace_summary(struct mcp_server *s, struct mcp_trace *t, struct scx_jw *w)
{
	struct trace_rec rec;

	trace_rec(t, &rec);
	mcp_out_write(w, mcp_out_summary, &rec);
	return 0;
}

int mcp_t_summary(struct mcp_call *c)
{
	struct mcp_trace *t = get_trace(c);

	if (!t)
		return -EINVAL;
	return mcp_trace_summary(c->s, t, &c->w);
}
