// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mcp prompts: scxtop's five workflows, rewritten for this server's
 * tools.  Arguments are optional strings; a given trace_id turns the live
 * workflow into a trace workflow.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_int.h"

struct parg {
	const char *name, *desc;
	bool required;
};

struct prompt {
	const char *name, *title, *desc;
	struct parg args[3];
};

static const struct prompt prompts[] = {
	{ "analyze_scheduler_performance",
	  "Analyze scheduler performance",
	  "Walk through latency, throughput or balance of the scheduler, live or on a trace.",
	  { { "focus_area", "latency, throughput or balance (default: all three)", false },
	    { "trace_id", "a loaded trace instead of the live machine", false } } },
	{ "debug_high_latency",
	  "Debug high latency",
	  "Find why tasks (or one pid) wait long between wakeup and running.",
	  { { "pid", "the thread or process to focus on", false },
	    { "trace_id", "a loaded trace instead of the live machine", false } } },
	{ "analyze_cpu_imbalance",
	  "Analyze CPU imbalance",
	  "Check whether load is spread evenly over CPUs, LLCs and nodes.",
	  { { "trace_id", "a loaded trace instead of the live machine", false } } },
	{ "investigate_scheduler_behavior",
	  "Investigate scheduler behavior",
	  "Characterize what a sched_ext scheduler does: dispatch queues, slices, migrations.",
	  { { "scheduler_name", "e.g. scx_rusty (default: the loaded one)", false } } },
	{ "summarize_system",
	  "Summarize system",
	  "A short overview of the machine, its scheduler and its current load.",
	  { { 0 } } },
};

static const struct prompt *find(const char *name)
{
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(prompts); i++)
		if (!strcmp(prompts[i].name, name))
			return &prompts[i];
	return NULL;
}

bool mcp_prompt_exists(const char *name)
{
	return find(name) != NULL;
}

int mcp_prompts_list(struct mcp_server *s, int params, struct scx_jw *w)
{
	unsigned total = SCX_ARRAY_SIZE(prompts), start, end;
	int r = mcp_page_start(s, params, total, &start);

	if (r)
		return r;
	end = SCX_MIN(total, start + s->o.page_size);
	scx_jw_obj_begin(w);
	scx_jw_key(w, "prompts");
	scx_jw_arr_begin(w);
	for (unsigned i = start; i < end; i++) {
		const struct prompt *p = &prompts[i];

		scx_jw_obj_begin(w);
		scx_jw_kstr(w, "name", p->name);
		scx_jw_kstr(w, "title", p->title);
		scx_jw_kstr(w, "description", p->desc);
		mcp_icons(s, w, MCP_ICON_PROMPT);
		scx_jw_key(w, "arguments");
		scx_jw_arr_begin(w);
		for (unsigned j = 0; j < 3 && p->args[j].name; j++) {
			scx_jw_obj_begin(w);
			scx_jw_kstr(w, "name", p->args[j].name);
			scx_jw_kstr(w, "description", p->args[j].desc);
			scx_jw_kbool(w, "required", p->args[j].required);
			scx_jw_obj_end(w);
		}
		scx_jw_arr_end(w);
		scx_jw_obj_end(w);
	}
	scx_jw_arr_end(w);
	mcp_page_next(s, w, start, total);
	scx_jw_obj_end(w);
	return 0;
}

static void text_perf(struct scx_buf *b, const char *focus, const char *trace)
{
	bool all = !*focus;

	scx_buf_printf(b, "Analyze the CPU scheduler's performance%s%s%s.\n\n",
		       *focus ? " with a focus on " : "", focus, "");
	if (*trace) {
		scx_buf_printf(b,
			       "Use trace '%s' (already loaded). Start with get_trace_summary "
			       "{\"trace_id\":\"%s\"}.\n",
			       trace, trace);
		if (all || !strcmp(focus, "latency"))
			scx_buf_printf(b, "- Latency: analyze_trace_scheduling analysis_type "
					  "wakeup-latency and latency-breakdown; "
					  "correlate_wakeup_to_schedule for the worst wakeups.\n");
		if (all || !strcmp(focus, "throughput"))
			scx_buf_printf(b, "- Throughput: analysis_type cpu-utilization, "
					  "process-runtime and task-states.\n");
		if (all || !strcmp(focus, "balance"))
			scx_buf_printf(b, "- Balance: analysis_type runqueue-depth, migrations and "
					  "fairness.\n");
		scx_buf_printf(b, "Finish with find_scheduling_bottlenecks and detect_outliers.\n");
	} else {
		scx_buf_printf(b,
			       "On the live machine: read scheduler://current and topology://info, "
			       "then control_event_tracking {\"action\":\"start\"}, wait a few "
			       "seconds, and use query_stats (stat_type cpu, llc, process).\n");
		if (all || !strcmp(focus, "latency"))
			scx_buf_printf(
				b,
				"- Latency: the wake_lat and rq_delay distributions in "
				"query_stats cpu and thread; analyze_waker_wakee mode latency.\n");
		if (all || !strcmp(focus, "throughput"))
			scx_buf_printf(b, "- Throughput: util and switches per CPU; "
					  "start_perf_profiling for where CPU time goes.\n");
		if (all || !strcmp(focus, "balance"))
			scx_buf_printf(b,
				       "- Balance: compare util across CPUs and LLCs; migrations "
				       "cross_llc/cross_node.\n");
		scx_buf_printf(b,
			       "Stop the capture with control_event_tracking {\"action\":\"stop\"} "
			       "when done.\n");
	}
	scx_buf_printf(b, "Report concrete numbers (units: ns, %%), the likely cause, and what to "
			  "change.");
}

static void text_latency(struct scx_buf *b, const char *pid, const char *trace)
{
	scx_buf_printf(b, "Debug high scheduling latency%s%s.\n\n", *pid ? " of pid " : "", pid);
	if (*trace)
		scx_buf_printf(
			b,
			"1. correlate_wakeup_to_schedule {\"trace_id\":\"%s\"%s%s%s}: the "
			"slowest wakeups and percentiles.\n2. analyze_trace_scheduling "
			"latency-breakdown and runqueue-depth: is the wait in the wakeup path or "
			"behind other tasks?\n3. %s get_cpu_timeline on the CPU where it "
			"waited: who ran meanwhile.\n4. analysis_type preemptions: who preempts "
			"it.\n",
			trace, *pid ? ",\"pid\":" : "", pid, "",
			*pid ? "get_process_timeline for the pid, then" : "");
	else
		scx_buf_printf(
			b,
			"1. control_event_tracking {\"action\":\"start\"%s%s}.\n2. After a few "
			"seconds, query_stats thread and cpu: wake_lat and rq_delay p99.\n"
			"3. analyze_waker_wakee mode latency%s.\n4. Read events://stream for "
			"recent switches; stop the capture at the end.\n",
			*pid ? ",\"tgid\":" : "", pid, *pid ? " (mode for_pid with the pid)" : "");
	scx_buf_printf(b, "Say where the time goes (waiting to be woken, runnable behind whom, "
			  "migrations) with numbers.");
}

static void text_imbalance(struct scx_buf *b, const char *trace)
{
	if (*trace)
		scx_buf_printf(b,
			       "Check CPU imbalance in trace '%s': analyze_trace_scheduling "
			       "cpu-utilization, runqueue-depth, migrations and fairness; "
			       "detect_outliers category cpu.  Compare busy CPUs with idle ones at "
			       "the same time (get_cpu_timeline).",
			       trace);
	else
		scx_buf_printf(
			b,
			"Check CPU imbalance live: read topology://info, start "
			"control_event_tracking, then query_stats cpu, llc and node a few "
			"seconds apart.  Look for CPUs with high util and deep run queues while "
			"others idle, and for cross-LLC migrations.  Stop the capture when done.");
}

static void text_sched(struct scx_buf *b, const char *name)
{
	scx_buf_printf(b,
		       "Investigate the behavior of the sched_ext scheduler %s.\n"
		       "1. Read scheduler://current (state and name) and topology://info.\n"
		       "2. control_event_tracking start; after a few seconds query_stats dsq "
		       "(dispatch queues: depth, latency, vtime), cpu and process.\n"
		       "3. analyze_waker_wakee and query_stats thread: slices, preemptions, "
		       "migrations.\n4. bpf://programs for the scheduler's BPF run time.\n"
		       "Describe its policy as observed (queues, slices, placement) and any "
		       "anomaly.",
		       *name ? name : "that is loaded");
}

int mcp_prompts_get(struct mcp_server *s, int params, struct scx_jw *w)
{
	const struct scx_json_doc *d = &s->doc;
	int n = scx_json_get(d, params, "name"), args = scx_json_get(d, params, "arguments");
	char name[96], vals[3][128] = { "", "", "" };
	const struct prompt *p;
	struct scx_buf b = { 0 };

	if (n < 0 || !scx_json_is_str(d, n))
		return mcp_error(s, MCP_INVALID_PARAMS, "params.name must be a string");
	scx_json_str(d, n, name, sizeof(name));
	p = find(name);
	if (!p)
		return mcp_error(s, MCP_INVALID_PARAMS, "unknown prompt: %s", name);
	if (args >= 0 && !scx_json_is_null(d, args) && d->tok[args].type != JSMN_OBJECT)
		return mcp_error(s, MCP_INVALID_PARAMS, "params.arguments must be an object");
	for (unsigned j = 0; j < 3 && p->args[j].name; j++) {
		int v = args >= 0 ? scx_json_get(d, args, p->args[j].name) : -1;

		if (v < 0) {
			if (p->args[j].required)
				return mcp_error(s, MCP_INVALID_PARAMS,
						 "missing required argument %s", p->args[j].name);
			continue;
		}
		if (!scx_json_is_str(d, v) ||
		    scx_json_str(d, v, vals[j], sizeof(vals[j])) >= (int)sizeof(vals[j]))
			return mcp_error(s, MCP_INVALID_PARAMS,
					 "argument %s must be a short string", p->args[j].name);
		/* the values are pasted into text the model reads: keep them plain */
		for (char *c = vals[j]; *c; c++)
			if (!isalnum((unsigned char)*c) && !strchr("_-.:", *c))
				return mcp_error(s, MCP_INVALID_PARAMS,
						 "argument %s: only letters, "
						 "digits and _ - . : are allowed",
						 p->args[j].name);
	}
	if (!strcmp(name, "analyze_scheduler_performance")) {
		if (vals[0][0] && strcmp(vals[0], "latency") && strcmp(vals[0], "throughput") &&
		    strcmp(vals[0], "balance"))
			return mcp_error(s, MCP_INVALID_PARAMS,
					 "focus_area must be latency, "
					 "throughput or balance");
		text_perf(&b, vals[0], vals[1]);
	} else if (!strcmp(name, "debug_high_latency")) {
		char *end;

		if (vals[0][0] && (strtol(vals[0], &end, 10) <= 0 || *end))
			return mcp_error(s, MCP_INVALID_PARAMS, "pid must be a positive integer");
		text_latency(&b, vals[0], vals[1]);
	} else if (!strcmp(name, "analyze_cpu_imbalance")) {
		text_imbalance(&b, vals[0]);
	} else if (!strcmp(name, "investigate_scheduler_behavior")) {
		text_sched(&b, vals[0]);
	} else {
		scx_buf_printf(
			&b, "Summarize this system for a scheduler engineer: read "
			    "scheduler://current, topology://info, stats://system/cpu and "
			    "stats://system/memory; list loaded traces with list_traces.  Give "
			    "CPUs/LLCs/nodes, the scheduler, CPU load and memory in a few lines.");
	}
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "description", p->desc);
	scx_jw_key(w, "messages");
	scx_jw_arr_begin(w);
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "role", "user");
	scx_jw_key(w, "content");
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "type", "text");
	scx_jw_key(w, "text");
	scx_jw_strn(w, b.data, b.len);
	scx_jw_obj_end(w);
	scx_jw_obj_end(w);
	scx_jw_arr_end(w);
	scx_jw_obj_end(w);
	scx_buf_free(&b);
	return 0;
}

static unsigned words(const char *const *ws, const char *prefix, struct scx_jw *w, unsigned max,
		      unsigned *total)
{
	unsigned n = 0;

	for (unsigned i = 0; ws[i]; i++) {
		if (strncmp(ws[i], prefix, strlen(prefix)))
			continue;
		if (n < max)
			scx_jw_str(w, ws[i]);
		n++;
	}
	*total = n;
	return SCX_MIN(n, max);
}

/* Running pids whose decimal form starts with prefix. */
static unsigned pids(const char *prefix, struct scx_jw *w, unsigned max, unsigned *total)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	unsigned n = 0;

	*total = 0;
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		if (!isdigit((unsigned char)de->d_name[0]) ||
		    strncmp(de->d_name, prefix, strlen(prefix)))
			continue;
		if (n < max)
			scx_jw_str(w, de->d_name);
		n++;
	}
	closedir(d);
	*total = n;
	return SCX_MIN(n, max);
}

unsigned mcp_complete_prompt(struct mcp_server *s, const char *name, const char *arg,
			     const char *prefix, struct scx_jw *w, unsigned max, unsigned *total)
{
	static const char *const focus[] = { "latency", "throughput", "balance", NULL };
	static const char *const scheds[] = {
		"scx_bpfland", "scx_cosmos",  "scx_flash",    "scx_lavd",
		"scx_layered", "scx_mitosis", "scx_p2dq",     "scx_rustland",
		"scx_rusty",   "scx_simple",  "scx_tickless", NULL,
	};

	*total = 0;
	if (!strcmp(arg, "trace_id"))
		return mcp_complete_trace_ids(s, prefix, w, max, total);
	if (!strcmp(arg, "focus_area"))
		return words(focus, prefix, w, max, total);
	if (!strcmp(arg, "scheduler_name"))
		return words(scheds, prefix, w, max, total);
	if (!strcmp(arg, "pid"))
		return pids(prefix, w, max, total);
	(void)name;
	return 0;
}
