// SPDX-License-Identifier: GPL-2.0
/* scx-mcp resources: the fixed ones, one per loaded trace, and templates. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "mcp/mcp_int.h"
#include "mcp/mcp_trace.h"

struct res {
	const char *uri, *name, *title, *desc;
};

static const char *const groups[] = { "cpu", "llc", "node", "dsq", "process", "thread", NULL };

static const struct res fixed[] = {
	{ "scheduler://current", "scheduler", "Current scheduler",
	  "The sched_ext scheduler loaded now (or the kernel's default class) and its state." },
	{ "topology://info", "topology", "CPU topology",
	  "CPUs with their core, LLC and NUMA node." },
	{ "events://stream", "event-stream", "Live event stream",
	  "The newest scheduler events of the running capture (control_event_tracking). "
	  "Subscribe: notifications/resources/updated at most once a second while events arrive." },
	{ "stats://aggregated/cpu", "stats-cpu", "Live per-CPU statistics",
	  "Per-CPU metrics of the last closed interval of the running capture." },
	{ "stats://aggregated/llc", "stats-llc", "Live per-LLC statistics", "Per-LLC metrics." },
	{ "stats://aggregated/node", "stats-node", "Live per-node statistics",
	  "Per-NUMA-node metrics." },
	{ "stats://aggregated/dsq", "stats-dsq", "Live per-DSQ statistics",
	  "sched_ext DSQ metrics." },
	{ "stats://aggregated/process", "stats-process", "Live per-process statistics",
	  "Busiest processes of the last interval." },
	{ "stats://aggregated/thread", "stats-thread", "Live per-thread statistics",
	  "Busiest threads of the last interval." },
	{ "stats://system/cpu", "system-cpu", "System CPU time", "/proc/stat CPU times per CPU." },
	{ "stats://system/memory", "system-memory", "System memory", "/proc/meminfo essentials." },
	{ "bpf://programs", "bpf-programs", "Loaded BPF programs",
	  "BPF programs with run time and run counts (when kernel.bpf_stats_enabled)." },
};

static const struct res templates[] = {
	{ "trace://{trace_id}", "trace", "Loaded trace",
	  "Summary of a trace loaded by "
	  "load_perfetto_trace." },
	{ "stats://aggregated/{group}", "stats", "Live statistics by group",
	  "group: cpu, llc, node, dsq, process or thread." },
};

#define NR_FIXED SCX_ARRAY_SIZE(fixed)

bool mcp_resource_exists(struct mcp_server *s, const char *uri)
{
	for (unsigned i = 0; i < NR_FIXED; i++)
		if (!strcmp(uri, fixed[i].uri))
			return true;
	return (!strncmp(uri, "trace://", 8) && mcp_trace_find(s, uri + 8)) ||
	       mcp_link_exists(s, uri);
}

int mcp_resource_read(struct mcp_server *s, const char *uri, struct scx_jw *w, const char **mime)
{
	*mime = "application/json";
	if (!strcmp(uri, "scheduler://current"))
		return mcp_sys_scheduler(w);
	if (!strcmp(uri, "topology://info"))
		return mcp_sys_topology(w, true, true);
	if (!strcmp(uri, "stats://system/cpu"))
		return mcp_sys_cpu(w);
	if (!strcmp(uri, "stats://system/memory"))
		return mcp_sys_memory(w);
	if (!strcmp(uri, "bpf://programs"))
		return mcp_sys_bpf_programs(w, 200);
	if (!strcmp(uri, "events://stream"))
		return mcp_live_stream(s, w);
	if (!strncmp(uri, "stats://aggregated/", 19)) {
		for (unsigned i = 0; groups[i]; i++)
			if (!strcmp(uri + 19, groups[i]))
				return mcp_live_stats(s, groups[i], w, 50);
	}
	if (!strncmp(uri, "trace://", 8)) {
		struct mcp_trace *t = mcp_trace_find(s, uri + 8);

		if (t)
			return mcp_trace_summary(s, t, w);
	}
	if (!strncmp(uri, "result://", 9))
		return mcp_link_read(s, uri, w);
	return mcp_error_no_resource(s, uri);
}

int mcp_resources_list(struct mcp_server *s, int params, struct scx_jw *w)
{
	unsigned total = NR_FIXED + s->nr_traces, start, end;
	int r = mcp_page_start(s, params, total, &start);

	if (r)
		return r;
	end = SCX_MIN(total, start + s->o.page_size);
	scx_jw_obj_begin(w);
	scx_jw_key(w, "resources");
	scx_jw_arr_begin(w);
	for (unsigned i = start; i < end; i++) {
		scx_jw_obj_begin(w);
		if (i < NR_FIXED) {
			scx_jw_kstr(w, "uri", fixed[i].uri);
			scx_jw_kstr(w, "name", fixed[i].name);
			scx_jw_kstr(w, "title", fixed[i].title);
			scx_jw_kstr(w, "description", fixed[i].desc);
			mcp_icons(s, w, mcp_resource_icon(fixed[i].uri));
		} else {
			const struct mcp_trace *t = s->traces[i - NR_FIXED];
			char uri[96], desc[PATH_MAX + 200];

			snprintf(uri, sizeof(uri), "trace://%s", t->id);
			snprintf(desc, sizeof(desc), "Summary of trace %s (%s)", t->id, t->path);
			scx_jw_kstr(w, "uri", uri);
			scx_jw_kstr(w, "name", t->id);
			scx_jw_kstr(w, "title", "Loaded trace");
			scx_jw_kstr(w, "description", desc);
			mcp_icons(s, w, MCP_ICON_TRACE);
		}
		scx_jw_kstr(w, "mimeType", "application/json");
		scx_jw_obj_end(w);
	}
	scx_jw_arr_end(w);
	mcp_page_next(s, w, start, total);
	scx_jw_obj_end(w);
	return 0;
}

int mcp_templates_list(struct mcp_server *s, int params, struct scx_jw *w)
{
	unsigned total = SCX_ARRAY_SIZE(templates), start, end;
	int r = mcp_page_start(s, params, total, &start);

	if (r)
		return r;
	end = SCX_MIN(total, start + s->o.page_size);
	scx_jw_obj_begin(w);
	scx_jw_key(w, "resourceTemplates");
	scx_jw_arr_begin(w);
	for (unsigned i = start; i < end; i++) {
		scx_jw_obj_begin(w);
		scx_jw_kstr(w, "uriTemplate", templates[i].uri);
		scx_jw_kstr(w, "name", templates[i].name);
		scx_jw_kstr(w, "title", templates[i].title);
		scx_jw_kstr(w, "description", templates[i].desc);
		mcp_icons(s, w, mcp_resource_icon(templates[i].uri));
		scx_jw_kstr(w, "mimeType", "application/json");
		scx_jw_obj_end(w);
	}
	scx_jw_arr_end(w);
	mcp_page_next(s, w, start, total);
	scx_jw_obj_end(w);
	return 0;
}

/* Trace ids starting with prefix. */
unsigned mcp_complete_trace_ids(struct mcp_server *s, const char *prefix, struct scx_jw *w,
				unsigned max, unsigned *total)
{
	unsigned n = 0;

	for (unsigned i = 0; i < s->nr_traces; i++) {
		if (strncmp(s->traces[i]->id, prefix, strlen(prefix)))
			continue;
		if (n < max)
			scx_jw_str(w, s->traces[i]->id);
		n++;
	}
	*total = n;
	return SCX_MIN(n, max);
}

unsigned mcp_complete_template(struct mcp_server *s, const char *tmpl, const char *arg,
			       const char *prefix, struct scx_jw *w, unsigned max, unsigned *total)
{
	unsigned n = 0;

	*total = 0;
	if (!strcmp(tmpl, "trace://{trace_id}") && !strcmp(arg, "trace_id"))
		return mcp_complete_trace_ids(s, prefix, w, max, total);
	if (!strcmp(tmpl, "stats://aggregated/{group}") && !strcmp(arg, "group")) {
		for (unsigned i = 0; groups[i]; i++) {
			if (strncmp(groups[i], prefix, strlen(prefix)))
				continue;
			scx_jw_str(w, groups[i]);
			n++;
		}
	}
	*total = n;
	return n;
}
