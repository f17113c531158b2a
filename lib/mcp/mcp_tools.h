/* SPDX-License-Identifier: GPL-2.0 */
/* scx-mcp tool implementations (lib/mcp_tools_*.c), called through mcp_tools[]. */
#ifndef SCX_MCP_TOOLS_H
#define SCX_MCP_TOOLS_H

#include "mcp/mcp_int.h"

struct mcp_trace;
/* the keys a trace tool's result starts with: the trace's id (the record's
   trace_id), then a cut and a note, which the tools write by hand */
/* a braced list in a macro: clang-format takes its braces for a block */
/* clang-format off */
#define MCP_TRACE_OUT(rec) MCP_REC_STR(rec, trace_id), { "truncated", "object" }, { "note", "string" }
/* clang-format on */
/* The trace named by the trace_id argument, or NULL with c failed. */
struct mcp_trace *mcp_tool_trace(struct mcp_call *c);

/* traces: mcp_tools_trace.c, mcp_tools_query.c */
int mcp_t_load(struct mcp_call *c);
int mcp_t_list(struct mcp_call *c);
int mcp_t_unload(struct mcp_call *c);
int mcp_t_summary(struct mcp_call *c);
/* their outputSchema tables, which write their results (mcp_out_write) */
extern const struct mcp_out mcp_out_load[], mcp_out_list[], mcp_out_unload[], mcp_out_summary[];
int mcp_t_query(struct mcp_call *c);
/* query_trace_events' and query_trace's table, which writes their results */
extern const struct mcp_out mcp_out_query[];
int mcp_t_analyze(struct mcp_call *c);
int mcp_t_discover(struct mcp_call *c);
/* analyze_trace_scheduling's description: the analyses of scx-agg's report table */
void mcp_analyze_desc(struct scx_buf *b);
int mcp_t_run_all(struct mcp_call *c);
extern const struct mcp_out mcp_out_analysis[], mcp_out_discover[], mcp_out_run_all[];
int mcp_t_bottlenecks(struct mcp_call *c);
int mcp_t_outliers(struct mcp_call *c);
int mcp_t_ptimeline(struct mcp_call *c);
int mcp_t_ctimeline(struct mcp_call *c);
int mcp_t_correlate(struct mcp_call *c);
extern const struct mcp_out mcp_out_ptimeline[], mcp_out_ctimeline[], mcp_out_correlate[];
int mcp_t_export(struct mcp_call *c);
extern const struct mcp_out mcp_out_export[];
int mcp_t_compare(struct mcp_call *c);
extern const struct mcp_out mcp_out_compare[];
/* A report of trace t as JSON (every row) into out: 0, or -EINVAL with c failed. */
int mcp_trace_report_json(struct mcp_call *c, struct mcp_trace *t, const char *name,
			  struct scx_buf *out);
/* live: mcp_tools_live.c */
/* the keys a live tool's result starts with: without a capture or a profile
   it says so (available, hint), by hand; a note */
/* a braced list in a macro: clang-format takes its braces for a block */
/* clang-format off */
#define MCP_LIVE_OUT { "available", "boolean" }, { "hint", "string" }, { "note", "string" }
/* clang-format on */
int mcp_t_query_stats(struct mcp_call *c);
/* its table, which stats://aggregated's writer (mcp_live.c) writes too */
extern const struct mcp_out mcp_out_stats[];
int mcp_t_topology(struct mcp_call *c);
int mcp_t_tracking(struct mcp_call *c);
extern const struct mcp_out mcp_out_tracking[];
/*
 * control_event_tracking's result into w (a task's too): action, the
 * capture's status, note and next; a NULL string is left out.
 */
void mcp_tracking_result(struct mcp_server *s, struct scx_jw *w, const char *action,
			 const char *note, const char *next);
int mcp_t_waker_wakee(struct mcp_call *c);
int mcp_t_softirq(struct mcp_call *c);
/* cgroups of a loaded trace, or of the live capture without trace_id */
int mcp_t_cgroups(struct mcp_call *c);
/* analyze_waker_wakee's and analyze_softirq's table, and analyze_cgroups' */
extern const struct mcp_out mcp_out_live_report[], mcp_out_cgroups[];
int mcp_t_prof_start(struct mcp_call *c);
int mcp_t_prof_stop(struct mcp_call *c);
int mcp_t_prof_results(struct mcp_call *c);
extern const struct mcp_out mcp_out_profile[], mcp_out_perf_results[];

#endif
