// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mcp tools: the table clients see in tools/list, argument decoding,
 * and tools/call.  Names follow scxtop's MCP server where it has the tool,
 * so prompts written for it keep working.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mcp/mcp_int.h"
#include "mcp/mcp_tools.h"
#include "mcp/mcp_tools_flight.h"

#define TRACE_ID \
	"\"trace_id\":{\"type\":\"string\",\"description\":\"id given by load_perfetto_trace\"}"
#define LIMIT(d, max) \
	"\"limit\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":" #max ",\"default\":" #d "}"
#define TRANGE \
	"\"start_time_ns\":{\"type\":\"integer\",\"minimum\":0},\"end_time_ns\":{\"type\":\"integer\",\"minimum\":0}"
#define OBJ(props, req) "{\"type\":\"object\",\"properties\":{" props "}" req "}"
#define REQ(...) ",\"required\":[" __VA_ARGS__ "]"
#define NOARGS "{\"type\":\"object\",\"properties\":{},\"additionalProperties\":false}"

const struct mcp_tool mcp_tools[] = {
	/* ---- traces ---- */
	{ "load_perfetto_trace", "Load a trace",
	  "Load a Perfetto trace (.pb/.perfetto-trace, plain, gzip or zstd; scxtop, traced, wprof "
	  "sched view and TrackEvent) or an scx-events stream into memory for the trace_* tools. "
	  "The file must be under a directory scx-mcp was started with.",
	  OBJ("\"file_path\":{\"type\":\"string\"},\"trace_id\":{\"type\":\"string\","
	      "\"pattern\":\"^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$\",\"description\":"
	      "\"default: the file name without extensions\"}",
	      REQ("\"file_path\"")),
	  0, mcp_t_load, .out = mcp_out_load },
	{ "list_traces", "List loaded traces",
	  "Loaded traces with event counts, time span and memory.", NOARGS, MCP_T_RO, mcp_t_list,
	  .out = mcp_out_list },
	{ "unload_trace", "Unload a trace", "Free a loaded trace and its memory.",
	  OBJ(TRACE_ID, REQ("\"trace_id\"")), 0, mcp_t_unload, .out = mcp_out_unload },
	{ "get_trace_summary", "Trace summary",
	  "Events by type, time span, CPUs, tasks, lost events and the producer of a loaded trace.",
	  OBJ(TRACE_ID, REQ("\"trace_id\"")), MCP_T_RO, mcp_t_summary, .out = mcp_out_summary },
	{ "query_trace_events", "Query trace events",
	  "Events of a loaded trace filtered by type, time, CPU, pid and field conditions, with "
	  "limit/offset paging or an aggregation (count, count_by, avg, min, max, group_by).",
	  OBJ(TRACE_ID
	      ",\"event_type\":{\"type\":\"string\",\"description\":\"sched_switch, "
	      "sched_waking, sched_wakeup, sched_migrate_task, softirq_entry, ... or all\"}," TRANGE
	      ",\"cpu\":{\"type\":\"integer\"},\"pid\":{\"type\":\"integer\",\"description\":"
	      "\"any pid field of the event\"},\"field_filters\":{\"type\":\"array\",\"items\":"
	      "{\"type\":\"object\",\"properties\":{\"field\":{\"type\":\"string\"},\"operator\":"
	      "{\"type\":\"string\",\"enum\":[\"equal\",\"not_equal\",\"greater_than\",\"less_than\","
	      "\"greater_or_equal\",\"less_or_equal\",\"contains\"]},\"value\":{}},\"required\":"
	      "[\"field\",\"operator\",\"value\"]}}," LIMIT(
		      100,
		      10000) ",\"offset\":{\"type\":"
			     "\"integer\",\"minimum\":0},\"aggregation\":{\"type\":\"object\",\"properties\":"
			     "{\"function\":{\"type\":\"string\",\"enum\":[\"count\",\"count_by\",\"avg\",\"min\","
			     "\"max\",\"group_by\"]},\"field\":{\"type\":\"string\"}},\"required\":[\"function\"]}",
	      REQ("\"trace_id\"")),
	  MCP_T_RO, mcp_t_query, .out = mcp_out_query },
	{ "query_trace", "Query trace events (alias)", "Same as query_trace_events (scxtop name).",
	  OBJ(TRACE_ID
	      ",\"event_type\":{\"type\":\"string\"}," TRANGE ",\"cpu\":{\"type\":"
	      "\"integer\"},\"pid\":{\"type\":\"integer\"},\"field_filters\":{\"type\":\"array\"}," LIMIT(
		      100,
		      10000) ",\"offset\":{\"type\":\"integer\",\"minimum\":0},\"aggregation\":"
			     "{\"type\":\"object\"}",
	      REQ("\"trace_id\"")),
	  MCP_T_RO, mcp_t_query, .out = mcp_out_query },
	{ "analyze_trace_scheduling", "Scheduling analysis of a trace", NULL,
	  OBJ(TRACE_ID ",\"analysis_type\":{\"type\":\"string\"}," LIMIT(20, 1000),
	      REQ("\"trace_id\",\"analysis_type\"")),
	  MCP_T_RO, mcp_t_analyze, .out = mcp_out_analysis, .desc_fn = mcp_analyze_desc },
	{ "discover_analyzers", "List analyses", "The analyses analyze_trace_scheduling runs.",
	  OBJ(TRACE_ID, ""), MCP_T_RO, mcp_t_discover, .out = mcp_out_discover },
	{ "run_all_analyzers", "Run every analysis",
	  "Every analysis on a loaded trace, the top rows of each, bounded to fit a tool result.",
	  OBJ(TRACE_ID "," LIMIT(5, 100), REQ("\"trace_id\"")), MCP_T_RO, mcp_t_run_all,
	  .out = mcp_out_run_all },
	{ "find_scheduling_bottlenecks", "Find bottlenecks",
	  "Rule-based bottlenecks of a loaded trace (context-switch rate, wakeup latency, "
	  "migrations, runqueue depth...), worst first.",
	  OBJ(TRACE_ID "," LIMIT(10, 100), REQ("\"trace_id\"")), MCP_T_RO, mcp_t_bottlenecks,
	  .out = mcp_out_analysis },
	{ "detect_outliers", "Detect outliers",
	  "Tasks and CPUs whose latency, runtime or utilization is an outlier (IQR, MAD, "
	  "StdDev or Percentile method).  category latency and runtime rank tasks (wakeup "
	  "latency, run-queue delay; runtime, switches); cpu ranks CPUs (utilization, switches "
	  "per second, p99 wakeup latency and run-queue delay, softirq share); all both.",
	  OBJ(TRACE_ID
	      ",\"method\":{\"type\":\"string\",\"enum\":[\"IQR\",\"MAD\",\"StdDev\","
	      "\"Percentile\"],\"default\":\"IQR\"},\"category\":{\"type\":\"string\",\"enum\":"
	      "[\"latency\",\"runtime\",\"cpu\",\"all\"],\"default\":\"all\"}," LIMIT(20, 1000),
	      REQ("\"trace_id\"")),
	  MCP_T_RO, mcp_t_outliers, .out = mcp_out_analysis },
	{ "get_process_timeline", "Process timeline",
	  "Running slices, wakeups and migrations of one thread (pid) or of every thread of a "
	  "process (tgid) in a loaded trace.",
	  OBJ(TRACE_ID ",\"pid\":{\"type\":\"integer\"}," TRANGE "," LIMIT(200, 10000),
	      REQ("\"trace_id\",\"pid\"")),
	  MCP_T_RO, mcp_t_ptimeline, .out = mcp_out_ptimeline },
	{ "get_cpu_timeline", "CPU timeline", "What ran on one CPU, slice by slice.",
	  OBJ(TRACE_ID ",\"cpu\":{\"type\":\"integer\",\"minimum\":0}," TRANGE
		       "," LIMIT(200, 10000),
	      REQ("\"trace_id\",\"cpu\"")),
	  MCP_T_RO, mcp_t_ctimeline, .out = mcp_out_ctimeline },
	{ "correlate_wakeup_to_schedule", "Wakeup to schedule",
	  "Each wakeup matched to the moment the task ran: latency, waker, CPUs; the slowest "
	  "first, with percentiles over all of them.",
	  OBJ(TRACE_ID ",\"pid\":{\"type\":\"integer\"}," LIMIT(100, 10000), REQ("\"trace_id\"")),
	  MCP_T_RO, mcp_t_correlate, .out = mcp_out_correlate },
	{ "compare_traces", "Compare two traces",
	  "scx-agg diff of two loaded traces (A the baseline, B the candidate): per metric and "
	  "group (total, CPU, LLC, node, comm, DSQ) both values, the change, a p-value from a test "
	  "on the histograms (Mann-Whitney on bucket counts for p50, tail proportion for p99, "
	  "Poisson for rates), regressions first, what cannot be compared, and a one-line verdict.",
	  OBJ("\"trace_a\":{\"type\":\"string\"},\"trace_b\":{\"type\":\"string\"},"
	      "\"min_change_pct\":{\"type\":\"integer\",\"minimum\":1,\"default\":5},"
	      "\"alpha_ppm\":{\"type\":\"integer\",\"minimum\":1,\"maximum\":999999,"
	      "\"default\":10000,\"description\":\"p-value threshold in millionths\"}," LIMIT(20,
											      1000),
	      REQ("\"trace_a\",\"trace_b\"")),
	  MCP_T_RO, mcp_t_compare, .out = mcp_out_compare },
	{ "export_trace_analysis", "Export analyses",
	  "Write analyses of a loaded trace as JSON to a new file under an allowed directory; "
	  "an existing file is replaced only with overwrite true (and never one with other "
	  "hard links).",
	  OBJ(TRACE_ID
	      ",\"output_path\":{\"type\":\"string\"},\"analysis_types\":{\"type\":"
	      "\"array\",\"items\":{\"type\":\"string\"},\"description\":\"default: all\"},"
	      "\"overwrite\":{\"type\":\"boolean\",\"default\":false,\"description\":"
	      "\"replace output_path if it exists\"}",
	      REQ("\"trace_id\",\"output_path\"")),
	  MCP_T_WRITES | MCP_T_DESTRUCTIVE, mcp_t_export, .out = mcp_out_export },
/* scxtop's one-analysis tools, kept so prompts written for it still work */
#define ALIAS(tool, rep) \
	{ tool, \
	  "Analysis: " rep, \
	  "scxtop name for analyze_trace_scheduling with analysis_type " rep ".", \
	  OBJ(TRACE_ID "," LIMIT(20, 1000), REQ("\"trace_id\"")), \
	  MCP_T_RO, \
	  mcp_t_analyze, \
	  rep, \
	  mcp_out_analysis }
	ALIAS("analyze_cpu_utilization", "cpu-utilization"),
	ALIAS("analyze_process_runtime", "process-runtime"),
	ALIAS("analyze_wakeup_latency", "wakeup-latency"),
	ALIAS("analyze_latency_breakdown", "latency-breakdown"),
	ALIAS("analyze_migration_patterns", "migrations"),
	ALIAS("analyze_llc_locality", "migrations"),
	ALIAS("analyze_task_states", "task-states"),
	ALIAS("analyze_preemptions", "preemptions"),
	ALIAS("analyze_wakeup_chains", "wakeup-graph"),
	ALIAS("analyze_runqueue_depth", "runqueue-depth"),
	ALIAS("analyze_fairness", "fairness"),
	ALIAS("analyze_dsq", "dsq"),
	ALIAS("analyze_dsq_latency", "dsq"),
	ALIAS("analyze_irq", "softirq"),
	ALIAS("analyze_ipi", "ipi"),
	ALIAS("analyze_cpu_frequency", "cpu-frequency"),
	ALIAS("analyze_cpu_idle", "cpu-idle"),
	ALIAS("analyze_power_state", "cpu-idle"),
#undef ALIAS
	/* ---- live machine ---- */
	{ "query_stats", "Live statistics",
	  "Statistics of the running capture (cpu, llc, node, dsq, process, thread, cgroup: the "
	  "50 cgroups with the most CPU time and (other)), or of the "
	  "system (scheduler, system).  scheduler: the scheduler, sched_ext's state and sysfs "
	  "counters (loads, rejected tasks, root/events where the kernel has it) since boot, and "
	  "with a live capture their deltas over its last interval (sched_ext_interval).",
	  OBJ("\"stat_type\":{\"type\":\"string\",\"enum\":[\"cpu\",\"llc\",\"node\",\"dsq\","
	      "\"process\",\"thread\",\"scheduler\",\"system\",\"cgroup\"]}," LIMIT(20, 1000),
	      REQ("\"stat_type\"")),
	  MCP_T_RO | MCP_T_LIVE, mcp_t_query_stats, .out = mcp_out_stats },
	{ "get_topology", "CPU topology", "CPUs, cores, LLCs and NUMA nodes of this machine.",
	  OBJ("\"include_offline\":{\"type\":\"boolean\",\"default\":false},\"detail_level\":"
	      "{\"type\":\"string\",\"enum\":[\"summary\",\"full\"],\"default\":\"summary\"}",
	      ""),
	  MCP_T_RO | MCP_T_LIVE, mcp_t_topology, .out = mcp_out_topology },
	{ "control_event_tracking", "Start/stop live capture",
	  "Start (enable), stop (disable) or query (status) live capture by an scx-events child; "
	  "filters apply in BPF.  While it runs, query_stats, analyze_* and the events://stream "
	  "and stats:// resources have live data.  With duration_secs the capture stops by "
	  "itself; a 2026-07-28 client that declares the tasks extension gets a task to poll.",
	  OBJ("\"action\":{\"type\":\"string\",\"enum\":[\"enable\",\"disable\",\"status\","
	      "\"start\",\"stop\"]},\"events\":{\"type\":\"string\",\"description\":\"scx-events "
	      "-e list, e.g. switch,wakeup\"},\"pid\":{\"type\":\"integer\"},\"tgid\":{\"type\":"
	      "\"integer\"},\"cpus\":{\"type\":\"string\",\"description\":\"cpu list, e.g. 0-3\"},"
	      "\"comm\":{\"type\":\"string\"},"
	      "\"duration_secs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":3600,"
	      "\"default\":0,\"description\":\"start: stop after this long (0: when stopped)\"}",
	      REQ("\"action\"")),
	  MCP_T_LIVE, mcp_t_tracking, .out = mcp_out_tracking },
	MCP_TOOL_FLIGHT,
	{ "analyze_waker_wakee", "Waker/wakee pairs",
	  "Who wakes whom in the last second of the live capture, with counts and wakeup "
	  "latency.  mode bidirectional: only pairs of tasks that woke each other, one row a "
	  "pair with the wakeups and latency each way, most wakeups first; pid: pairs with that "
	  "task.",
	  OBJ("\"mode\":{\"type\":\"string\",\"enum\":[\"critical\",\"frequency\",\"latency\","
	      "\"bidirectional\",\"for_pid\",\"summary\"],\"default\":\"critical\"},\"pid\":"
	      "{\"type\":\"integer\"}," LIMIT(20, 1000),
	      ""),
	  MCP_T_RO | MCP_T_LIVE, mcp_t_waker_wakee, .out = mcp_out_live_report },
	{ "analyze_softirq", "Softirq time", "Softirq counts and time in the live capture.",
	  OBJ("\"mode\":{\"type\":\"string\",\"enum\":[\"summary\",\"by_type\",\"by_cpu\"],"
	      "\"default\":\"summary\"},\"softirq_nr\":{\"type\":\"integer\",\"minimum\":0,"
	      "\"maximum\":9}," LIMIT(20, 100),
	      ""),
	  MCP_T_RO | MCP_T_LIVE, mcp_t_softirq, .out = mcp_out_live_report },
	{ "analyze_cgroups", "Cgroup scheduling",
	  "Per-cgroup scheduling of a loaded trace (trace_id) or, without trace_id, of the live "
	  "capture's last 1 s interval.  mode latency: each cgroup's run-queue delay and wakeup "
	  "latency distributions, CPU time, wakeups and preemptions, highest p99 delay first "
	  "(scx-agg's cgroup-latency report); mode preemptions: tasks of one cgroup preempted by "
	  "another's, pairs (preempted, preemptor) with counts and the wait until the preempted "
	  "task ran again, and per cgroup the share preempted by other cgroups "
	  "(cgroup-preemptions).  cgroup keeps the rows of one path.  Cgroups are named by the "
	  "stream's cgroup records; an scx-events --aggregate trace has mode latency only.",
	  OBJ(TRACE_ID
	      ",\"mode\":{\"type\":\"string\",\"enum\":[\"latency\",\"preemptions\"],"
	      "\"default\":\"latency\"},\"cgroup\":{\"type\":\"string\",\"description\":"
	      "\"a whole cgroup v2 path, e.g. /system.slice/foo.service\"}," LIMIT(20, 1000),
	      ""),
	  MCP_T_RO, mcp_t_cgroups, .out = mcp_out_cgroups },
	{ "start_perf_profiling", "Start CPU profiling",
	  "Sample stacks (kernel and user) with a BPF perf_event program; cpu-clock when the "
	  "machine has no hardware PMU.  With duration_secs, a 2026-07-28 client that declares "
	  "the tasks extension gets a task whose result is the profile.",
	  OBJ("\"event\":{\"type\":\"string\",\"default\":\"hw:cycles\",\"description\":"
	      "\"hw:cycles, hw:instructions, sw:cpu-clock, sw:task-clock\"},\"freq\":{\"type\":"
	      "\"integer\",\"minimum\":1,\"maximum\":10000,\"default\":99},\"cpu\":{\"type\":"
	      "\"integer\",\"default\":-1},\"pid\":{\"type\":\"integer\",\"default\":-1},"
	      "\"max_samples\":{\"type\":\"integer\",\"minimum\":1,\"default\":10000},"
	      "\"duration_secs\":{\"type\":\"integer\",\"minimum\":0,\"maximum\":3600,"
	      "\"default\":0}",
	      ""),
	  MCP_T_LIVE, mcp_t_prof_start, .out = mcp_out_profile },
	{ "stop_perf_profiling", "Stop CPU profiling", "Stop sampling; results stay available.",
	  NOARGS, MCP_T_LIVE, mcp_t_prof_stop, .out = mcp_out_profile },
	{ "get_perf_results", "CPU profile", "Hottest symbols and stacks of the profile.",
	  OBJ(LIMIT(20, 500) ",\"include_stacks\":{\"type\":\"boolean\",\"default\":true}", ""),
	  MCP_T_RO | MCP_T_LIVE, mcp_t_prof_results, .out = mcp_out_perf_results },
};
const unsigned mcp_nr_tools = SCX_ARRAY_SIZE(mcp_tools);

const struct mcp_tool *mcp_tool_find(const char *name)
{
	for (unsigned i = 0; i < mcp_nr_tools; i++)
		if (!strcmp(mcp_tools[i].name, name))
			return &mcp_tools[i];
	return NULL;
}

/* {"type":"object","properties":{...},"additionalProperties":false} from the table */
static void output_schema(struct scx_jw *w, const struct mcp_out *out)
{
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "type", "object");
	scx_jw_key(w, "properties");
	scx_jw_obj_begin(w);
	for (; out->key[0]; out++) {
		scx_jw_key(w, out->key);
		scx_jw_obj_begin(w);
		scx_jw_kstr(w, "type", out->type);
		scx_jw_obj_end(w);
	}
	scx_jw_obj_end(w);
	scx_jw_kbool(w, "additionalProperties", false);
	scx_jw_obj_end(w);
}

int mcp_tools_list(struct mcp_server *s, int params, struct scx_jw *w)
{
	unsigned start, end;
	int r = mcp_page_start(s, params, mcp_nr_tools, &start);

	if (r)
		return r;
	end = SCX_MIN(mcp_nr_tools, start + s->o.page_size);
	scx_jw_obj_begin(w);
	scx_jw_key(w, "tools");
	scx_jw_arr_begin(w);
	for (unsigned i = start; i < end; i++) {
		const struct mcp_tool *t = &mcp_tools[i];

		scx_jw_obj_begin(w);
		scx_jw_kstr(w, "name", t->name);
		scx_jw_kstr(w, "title", t->title);
		if (t->desc_fn) {
			struct scx_buf d = { 0 };

			t->desc_fn(&d);
			scx_jw_kstr(w, "description", d.data);
			scx_buf_free(&d);
		} else {
			scx_jw_kstr(w, "description", t->desc);
		}
		mcp_icons(s, w, mcp_tool_icon(t));
		scx_jw_key(w, "inputSchema");
		scx_jw_raw(w, t->schema, strlen(t->schema));
		if (t->out) {
			scx_jw_key(w, "outputSchema");
			output_schema(w, t->out);
		}
		scx_jw_key(w, "annotations");
		scx_jw_obj_begin(w);
		scx_jw_kstr(w, "title", t->title);
		scx_jw_kbool(w, "readOnlyHint", t->flags & MCP_T_RO);
		scx_jw_kbool(w, "destructiveHint", t->flags & MCP_T_DESTRUCTIVE);
		scx_jw_kbool(w, "idempotentHint", t->flags & MCP_T_RO);
		scx_jw_kbool(w, "openWorldHint", t->flags & MCP_T_LIVE);
		scx_jw_obj_end(w);
		scx_jw_obj_end(w);
	}
	scx_jw_arr_end(w);
	mcp_page_next(s, w, start, mcp_nr_tools);
	scx_jw_obj_end(w);
	return 0;
}

/*
 * resource_link content came with 2025-06-18: an older client's schema has
 * no such block, and SDKs reject a result with a content type they lack.
 */
bool mcp_resource_links(const struct mcp_server *s)
{
	return s->modern || (s->proto[0] && strcmp(s->proto, "2025-06-18") >= 0);
}

/* A task's outcome is read by a 2026-07-28 client, whatever request settles it. */
static bool call_links(const struct mcp_call *c)
{
	return c->for_task || mcp_resource_links(c->s);
}

void mcp_call_result(struct mcp_call *c, struct scx_jw *w)
{
	bool structured = !c->s->bench_no_structured;

	if (structured && !c->failed && c->out.len)
		mcp_check_output(c);
	scx_jw_obj_begin(w);
	scx_jw_key(w, "content");
	scx_jw_arr_begin(w);
	scx_jw_obj_begin(w);
	scx_jw_kstr(w, "type", "text");
	scx_jw_key(w, "text");
	if (c->failed)
		scx_jw_str(w, c->msg);
	else
		scx_jw_strn(w, c->out.data ? c->out.data : "{}", c->out.data ? c->out.len : 2);
	scx_jw_obj_end(w);
	if (!c->failed && c->link_uri[0] && call_links(c)) {
		scx_jw_obj_begin(w);
		scx_jw_kstr(w, "type", "resource_link");
		scx_jw_kstr(w, "uri", c->link_uri);
		scx_jw_kstr(w, "name", c->link_name);
		scx_jw_kstr(w, "description", c->link_desc);
		scx_jw_kstr(w, "mimeType", "application/json");
		scx_jw_obj_end(w);
	}
	scx_jw_arr_end(w);
	/* the same object typed, for clients that read outputSchema; the text
	   above stays for those that do not */
	if (structured && !c->failed && c->out.len && c->tool->out) {
		scx_jw_key(w, "structuredContent");
		scx_jw_raw(w, c->out.data, c->out.len);
	}
	scx_jw_kbool(w, "isError", c->failed);
	scx_jw_obj_end(w);
}

size_t mcp_inline_cap(const struct mcp_server *s)
{
	return s->o.max_result - SCX_MIN(s->o.max_result / 8, 4096);
}

/*
 * The whole result is larger than a tool result: keep it for reading in
 * pages and run the tool again within the inline budget (it cuts as it
 * always did, saying what it left out); the answer links to the whole.
 * Only read-only tools come here: running one twice changes nothing.
 */
static void link_whole(struct mcp_call *c)
{
	char uri[48], desc[256];
	size_t whole = c->out.len;
	unsigned pages;

	mcp_link_keep(c->s, c->tool->name, c->out.data, whole, uri, sizeof(uri), &pages);
	snprintf(desc, sizeof(desc),
		 "the whole result of %s, %zu bytes of JSON in %u pages: read %s, then each "
		 "page's next; join their text",
		 c->tool->name, whole, pages, uri);
	scx_buf_reset(&c->out);
	c->cap = mcp_inline_cap(c->s);
	scx_jw_init(&c->w, &c->out);
	c->tool->fn(c);
	if (!c->failed)
		mcp_call_link(c, uri, c->tool->name, desc);
	else /* it does not fit at all: the failure says where the whole is */
		snprintf(c->msg + strlen(c->msg), sizeof(c->msg) - strlen(c->msg),
			 "; the whole result, %zu bytes of JSON, reads from %s in %u pages", whole,
			 uri, pages);
}

void mcp_call_run(struct mcp_call *c)
{
	const struct mcp_tool *t = c->tool;
	/* a read-only tool may write it all, to be read through a link */
	bool linked = (t->flags & MCP_T_RO) && call_links(c);

	scx_buf_reset(&c->out);
	c->cap = mcp_inline_cap(c->s);
	if (linked)
		c->cap = SCX_MAX(c->cap, (size_t)MCP_LINK_MAX);
	scx_jw_init(&c->w, &c->out);
	t->fn(c);
	/* (a cancelled request's answer is not sent; a task's outcome is kept) */
	if (linked && !c->failed && (c->for_task || !c->s->cancelled) &&
	    c->out.len > mcp_inline_cap(c->s))
		link_whole(c);
}

int mcp_tools_call(struct mcp_server *s, int params, struct scx_jw *w)
{
	const struct scx_json_doc *d = &s->doc;
	int n = scx_json_get(d, params, "name"), args = scx_json_get(d, params, "arguments");
	const struct mcp_tool *t;
	struct mcp_call c = { .s = s, .d = d, .args = -1 };
	char name[160];

	if (n < 0 || !scx_json_is_str(d, n))
		return mcp_error(s, MCP_INVALID_PARAMS, "params.name must be a string");
	scx_json_str(d, n, name, sizeof(name));
	t = mcp_tool_find(name);
	if (!t)
		return mcp_error(s, MCP_INVALID_PARAMS, "unknown tool: %s", name);
	c.tool = t;
	if (args >= 0 && !scx_json_is_null(d, args)) {
		if (d->tok[args].type != JSMN_OBJECT)
			return mcp_error(s, MCP_INVALID_PARAMS,
					 "params.arguments must be an object");
		c.args = args;
	}
	/* a task whose work ended settles before a tool can replace that work */
	mcp_tasks_tick(s);
	if ((t->flags & MCP_T_LIVE) && s->o.no_live && strcmp(t->name, "get_topology") &&
	    strcmp(t->name, "query_stats")) {
		mcp_fail(&c, "live capture and profiling are disabled (scx-mcp --no-live)");
		goto out;
	}
	mcp_call_run(&c);
	/* work that outlasts a request, for a client that declared tasks */
	if (!c.failed && c.task_kind && s->modern && s->req_tasks && !s->cancelled &&
	    !mcp_task_create(&c, w)) {
		scx_buf_free(&c.out);
		return 0;
	}
out:
	if (s->cancelled) {
		scx_buf_free(&c.out);
		return 0;
	}
	mcp_call_result(&c, w);
	scx_buf_free(&c.out);
	return 0;
}

/* ---- arguments ---------------------------------------------------------------- */

int mcp_fail(struct mcp_call *c, const char *fmt, ...)
{
	va_list ap;

	if (c->failed) /* keep the first, most specific message */
		return -EINVAL;
	va_start(ap, fmt);
	vsnprintf(c->msg, sizeof(c->msg), fmt, ap);
	va_end(ap);
	c->failed = true;
	return -EINVAL;
}

static int arg_tok(struct mcp_call *c, const char *key)
{
	int t = c->args >= 0 ? scx_json_get(c->d, c->args, key) : -1;

	/* an explicit null means "not given", as clients send for optional fields */
	return t >= 0 && scx_json_is_null(c->d, t) ? -1 : t;
}

int mcp_arg_required(struct mcp_call *c, const char *key)
{
	if (arg_tok(c, key) < 0)
		return mcp_fail(c, "missing required argument '%s'", key);
	return 0;
}

int mcp_arg_str(struct mcp_call *c, const char *key, char *buf, size_t size)
{
	int t = arg_tok(c, key), n;

	if (t < 0)
		return 0;
	if (!scx_json_is_str(c->d, t))
		return mcp_fail(c, "argument '%s' must be a string", key);
	n = scx_json_str(c->d, t, buf, size);
	if (n < 0 || (size_t)n >= size)
		return mcp_fail(c, "argument '%s' is too long (at most %zu bytes)", key, size - 1);
	if (strlen(buf) != (size_t)n)
		return mcp_fail(c, "argument '%s' contains a NUL character", key);
	return 1;
}

int mcp_arg_i64(struct mcp_call *c, const char *key, int64_t *v, int64_t min, int64_t max)
{
	int t = arg_tok(c, key);
	int64_t x;

	if (t < 0)
		return 0;
	if (scx_json_is_str(c->d, t)) {
		/* some clients send every argument as a string */
		char buf[32];

		if (scx_json_str(c->d, t, buf, sizeof(buf)) >= (int)sizeof(buf) ||
		    scx_parse_i64(buf, &x))
			return mcp_fail(c, "argument '%s' must be an integer", key);
	} else if (scx_json_int(c->d, t, &x)) {
		return mcp_fail(c, "argument '%s' must be an integer", key);
	}
	if (x < min || x > max)
		return mcp_fail(c, "argument '%s' must be between %lld and %lld", key,
				(long long)min, (long long)max);
	*v = x;
	return 1;
}

int mcp_arg_bool(struct mcp_call *c, const char *key, bool *v)
{
	int t = arg_tok(c, key);

	if (t < 0)
		return 0;
	if (scx_json_is_str(c->d, t)) {
		if (scx_json_eq(c->d, t, "true"))
			*v = true;
		else if (scx_json_eq(c->d, t, "false"))
			*v = false;
		else
			return mcp_fail(c, "argument '%s' must be true or false", key);
		return 1;
	}
	if (scx_json_bool(c->d, t, v))
		return mcp_fail(c, "argument '%s' must be true or false", key);
	return 1;
}

int mcp_arg_enum(struct mcp_call *c, const char *key, const char *const *words, int def)
{
	char buf[64], list[512] = "";
	int r = mcp_arg_str(c, key, buf, sizeof(buf));

	if (r < 0)
		return -EINVAL;
	if (!r)
		return def;
	for (int i = 0; words[i]; i++)
		if (!strcasecmp(buf, words[i]))
			return i;
	for (int i = 0; words[i]; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
			 words[i]);
	return mcp_fail(c, "argument '%s' must be one of: %s", key, list);
}

void mcp_call_link(struct mcp_call *c, const char *uri, const char *name, const char *desc)
{
	snprintf(c->link_uri, sizeof(c->link_uri), "%s", uri);
	snprintf(c->link_name, sizeof(c->link_name), "%s", name);
	snprintf(c->link_desc, sizeof(c->link_desc), "%s", desc);
}

void mcp_note_cut(struct mcp_call *c, uint64_t shown, uint64_t omitted, const char *why)
{
	scx_jw_key(&c->w, "truncated");
	scx_jw_obj_begin(&c->w);
	scx_jw_kuint(&c->w, "shown", shown);
	scx_jw_kuint(&c->w, "omitted", omitted);
	scx_jw_kstr(&c->w, "reason", why);
	scx_jw_obj_end(&c->w);
}
