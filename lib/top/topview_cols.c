// SPDX-License-Identifier: GPL-2.0
/* The columns of scx-top's views, by name and format (topview_cols.h). */
#include <string.h>

#include "top/topview_cols.h"

/* ---- columns ---------------------------------------------------------------- */

#define ID(n, h, w) { n, h, w, -1, CF_ID }
#define V(n, h, w, c, f) { n, h, w, c, f }
#define LAT_COLS \
	V("p50", "LAT.p50", 9, TC_P50, CF_NS), V("p90", "LAT.p90", 9, TC_P90, CF_NS), \
		V("p99", "LAT.p99", 9, TC_P99, CF_NS)
#define MIG_COLS \
	V("mig", "MIG/s", 7, TC_MIG, CF_RATE), V("xllc", "XLLC/s", 8, TC_XLLC, CF_RATE), \
		V("xnode", "XNODE/s", 9, TC_XNODE, CF_RATE)

static const struct col cpu_cols[] = {
	ID("cpu", "CPU", 5),
	{ "llc", "LLC", 4, -1, CF_PARENT },
	V("util", "UTIL%", 7, TC_UTIL, CF_PCT),
	V("sw", "SW/s", 7, TC_SW, CF_RATE),
	V("wake", "WAKE/s", 8, TC_WAKE, CF_RATE),
	LAT_COLS,
	MIG_COLS,
	V("freq", "MHz", 6, TC_FREQ, CF_MHZ),
	V("sirq", "SIRQ%", 7, TC_SIRQ, CF_PCT),
	{ 0 },
};
static const struct col llc_cols[] = {
	ID("llc", "LLC", 5),
	{ "node", "NODE", 5, -1, CF_PARENT },
	V("util", "UTIL%", 7, TC_UTIL, CF_PCT),
	V("sw", "SW/s", 7, TC_SW, CF_RATE),
	V("wake", "WAKE/s", 8, TC_WAKE, CF_RATE),
	LAT_COLS,
	MIG_COLS,
	V("freq", "MHz", 6, TC_FREQ, CF_MHZ),
	V("sirq", "SIRQ%", 7, TC_SIRQ, CF_PCT),
	{ 0 },
};
static const struct col node_cols[] = {
	ID("node", "NODE", 5),
	V("util", "UTIL%", 7, TC_UTIL, CF_PCT),
	V("sw", "SW/s", 7, TC_SW, CF_RATE),
	V("wake", "WAKE/s", 8, TC_WAKE, CF_RATE),
	LAT_COLS,
	MIG_COLS,
	V("freq", "MHz", 6, TC_FREQ, CF_MHZ),
	V("sirq", "SIRQ%", 7, TC_SIRQ, CF_PCT),
	{ 0 },
};
static const struct col proc_cols[] = {
	ID("pid", "PID", 8),
	{ "comm", "COMM", 17, -1, CF_LABEL },
	V("threads", "THR", 5, TC_THREADS, CF_NUM),
	V("util", "CPU%", 6, TC_UTIL, CF_PCT),
	V("sw", "SW/s", 7, TC_SW, CF_RATE),
	V("wake", "WAKE/s", 8, TC_WAKE, CF_RATE),
	LAT_COLS,
	MIG_COLS,
	V("slice", "SLICE", 8, TC_SLICE, CF_NS),
	{ 0 },
};
static const struct col dsq_cols[] = {
	{ "dsq", "DSQ", 18, -1, CF_HEX },
	V("disp", "DISP/s", 8, TC_DISP, CF_RATE),
	V("p50", "QLAT.p50", 10, TC_P50, CF_NS),
	V("p90", "QLAT.p90", 10, TC_P90, CF_NS),
	V("p99", "QLAT.p99", 10, TC_P99, CF_NS),
	V("depth", "DEPTH", 7, TC_DEPTH, CF_NUM1),
	V("maxdepth", "MAXDEP", 8, TC_DEPTHMAX, CF_NUM),
	V("vtime", "VTIME+", 9, TC_VTIME, CF_RATE),
	V("slice", "SLICE", 8, TC_SLICE, CF_NS),
	{ 0 },
};

static const struct col cgroup_cols[] = {
	{ "cgroup", "CGROUP", 24, -1, CF_LABEL },
	V("util", "CPU%", 6, TC_UTIL, CF_PCT),
	V("sw", "SW/s", 7, TC_SW, CF_RATE),
	V("preempt", "PREEMPT/s", 10, TC_PREEMPT, CF_RATE),
	V("wake", "WAKE/s", 8, TC_WAKE, CF_RATE),
	LAT_COLS,
	V("mig", "MIG/s", 7, TC_MIG, CF_RATE),
	{ 0 },
};

static const struct col *const view_cols[TV__COUNT] = {
	cpu_cols, llc_cols, node_cols, proc_cols, dsq_cols, cgroup_cols, NULL,
};
static const enum top_table_id view_table[TV__COUNT] = {
	TT_CPU, TT_LLC, TT_NODE, TT_PROC, TT_DSQ, TT_CGROUP, TT_CPU,
};

int top_view_ncols(enum top_viewid v)
{
	int n = 0;

	if (v >= TV__COUNT || !view_cols[v])
		return 0;
	while (view_cols[v][n].name)
		n++;
	return n;
}

int top_col_by_name(enum top_viewid v, const char *s)
{
	for (int i = 0; i < top_view_ncols(v); i++)
		if (!strcmp(view_cols[v][i].name, s))
			return i;
	return -1;
}

const char *top_col_name(enum top_viewid v, int idx)
{
	return idx >= 0 && idx < top_view_ncols(v) ? view_cols[v][idx].name : NULL;
}

const struct col *top_view_cols(enum top_viewid v)
{
	return v < TV__COUNT ? view_cols[v] : NULL;
}

enum top_table_id top_view_table(enum top_viewid v)
{
	return view_table[v < TV__COUNT ? v : TV_CPU];
}
