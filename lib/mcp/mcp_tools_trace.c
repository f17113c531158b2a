// SPDX-License-Identifier: GPL-2.0
/* scx-mcp trace tools: load, list, unload, summary. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "agg/agg_ksnap.h"
#include "mcp/mcp_tools.h"
#include "mcp/mcp_trace.h"

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
	scx_jw_obj_begin(&c->w);
	scx_jw_kstr(&c->w, "trace_id", id);
	scx_jw_kstr(&c->w, "resource", uri);
	scx_jw_kstr(&c->w, "path", t->path);
	scx_jw_kstr(&c->w, "format", t->format);
	scx_jw_kstr(&c->w, "producer", t->producer);
	scx_jw_kuint(&c->w, "events", t->nr);
	scx_jw_kuint(&c->w, "duration_ns", t->last_ts - t->first_ts);
	scx_jw_kuint(&c->w, "cpus", t->nr_cpus);
	scx_jw_kuint(&c->w, "tasks", t->tasks.n);
	scx_jw_kuint(&c->w, "memory_bytes", mcp_trace_mem(t));
	scx_jw_knum(&c->w, "load_ms", t->load_ns / 1e6);
	if (r > 0)
		scx_jw_kstr(&c->w, "warning",
			    "the file is truncated or corrupt after the events kept");
	else if (t->ksnaps)
		scx_jw_kstr(&c->w, "warning",
			    SCX_AGG_KSNAP_NO_EVENTS
			    ": analyses see the per-CPU "
			    "figures only, event queries and timelines find nothing");
	scx_jw_kstr(&c->w, "next",
		    "get_trace_summary, analyze_trace_scheduling, query_trace_events");
	scx_jw_obj_end(&c->w);
	return 0;
}

int mcp_t_list(struct mcp_call *c)
{
	struct mcp_server *s = c->s;
	uint64_t mem = 0;

	scx_jw_obj_begin(&c->w);
	scx_jw_key(&c->w, "traces");
	scx_jw_arr_begin(&c->w);
	for (unsigned i = 0; i < s->nr_traces; i++) {
		const struct mcp_trace *t = s->traces[i];

		mem += mcp_trace_mem(t);
		scx_jw_obj_begin(&c->w);
		scx_jw_kstr(&c->w, "trace_id", t->id);
		scx_jw_kstr(&c->w, "path", t->path);
		scx_jw_kstr(&c->w, "format", t->format);
		scx_jw_kuint(&c->w, "events", t->nr);
		scx_jw_kuint(&c->w, "duration_ns", t->last_ts - t->first_ts);
		scx_jw_kuint(&c->w, "memory_bytes", mcp_trace_mem(t));
		scx_jw_obj_end(&c->w);
	}
	scx_jw_arr_end(&c->w);
	scx_jw_kuint(&c->w, "memory_bytes", mem);
	scx_jw_kuint(&c->w, "memory_cap_bytes", s->o.trace_mem_max);
	scx_jw_obj_end(&c->w);
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
	scx_jw_obj_begin(&c->w);
	scx_jw_kstr(&c->w, "unloaded", id);
	scx_jw_kuint(&c->w, "freed_bytes", mem);
	scx_jw_obj_end(&c->w);
	return 0;
}

int mcp_trace_summary(struct mcp_server *s, struct mcp_trace *t, struct scx_jw *w)
{
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "trace_id", t->id);
	scx_jw_kstr(w, "path", t->path);
	scx_jw_kstr(w, "format", t->format);
	scx_jw_kstr(w, "producer", t->producer);
	if (t->hostname[0])
		scx_jw_kstr(w, "hostname", t->hostname);
	if (t->kernel[0])
		scx_jw_kstr(w, "kernel", t->kernel);
	scx_jw_kuint(w, "events", t->nr);
	scx_jw_kuint(w, "first_ts_ns", t->first_ts);
	scx_jw_kuint(w, "last_ts_ns", t->last_ts);
	scx_jw_kuint(w, "duration_ns", t->last_ts - t->first_ts);
	scx_jw_kuint(w, "cpus", t->nr_cpus);
	scx_jw_kuint(w, "tasks", t->tasks.n);
	scx_jw_kuint(w, "lost_events", t->lost);
	if (t->skipped)
		scx_jw_kuint(w, "skipped_records", t->skipped);
	if (t->out_of_order)
		scx_jw_kuint(w, "out_of_order_events", t->out_of_order);
	scx_jw_key(w, "events_by_type");
	scx_jw_obj_begin(w);
	for (unsigned i = 1; i < SCX_EV__COUNT; i++)
		if (t->counts[i])
			scx_jw_kuint(w, scx_ev_name(i), t->counts[i]);
	scx_jw_obj_end(w);
	if (t->last_ts > t->first_ts) {
		double secs = (t->last_ts - t->first_ts) / 1e9;

		scx_jw_knum(w, "switches_per_sec", t->counts[SCX_EV_SWITCH] / secs);
		scx_jw_knum(w, "wakeups_per_sec",
			    (t->counts[SCX_EV_WAKING] ? t->counts[SCX_EV_WAKING] :
							t->counts[SCX_EV_WAKEUP]) /
				    secs);
	}
	scx_jw_kbool(w, "has_topology", t->topo != NULL);
	scx_jw_kuint(w, "memory_bytes", mcp_trace_mem(t));
	scx_jw_knum(w, "load_ms", t->load_ns / 1e6);
	scx_jw_obj_end(w);
	return 0;
}

int mcp_t_summary(struct mcp_call *c)
{
	struct mcp_trace *t = get_trace(c);

	if (!t)
		return -EINVAL;
	return mcp_trace_summary(c->s, t, &c->w);
}
