// SPDX-License-Identifier: GPL-2.0
/* scx-mcp tools for the live machine: capture control, statistics, profiling. */
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/event.h"
#include "mcp/mcp_live.h"
#include "mcp/mcp_tools.h"
#include "mcp/mcp_trace.h"
#include "mcp/profile.h"
#include "stream/scx_stats.h"
#include "stream/stream.h"
#include "agg/agg.h"

/* No data yet is a state, not a failure: say so and how to get some. */
static int not_yet(struct mcp_call *c, const char *hint)
{
	scx_jw_obj_begin(&c->w);
	scx_jw_kbool(&c->w, "available", false);
	scx_jw_kstr(&c->w, "hint", hint);
	scx_jw_obj_end(&c->w);
	return 0;
}

int mcp_t_topology(struct mcp_call *c)
{
	static const char *const levels[] = { "summary", "full", NULL };
	bool offline = false;
	int lvl;

	if (mcp_arg_bool(c, "include_offline", &offline) < 0 ||
	    (lvl = mcp_arg_enum(c, "detail_level", levels, 0)) < 0)
		return -EINVAL;
	return mcp_sys_topology(&c->w, lvl == 1, offline);
}

static void scx_interval(struct scx_jw *w, const void *st)
{
	scx_jw_obj_begin(w);
	scx_stats_json_fields(w, st);
	scx_jw_obj_end(w);
}

static void sys_cpu(struct scx_jw *w, const void *unused)
{
	(void)unused;
	mcp_sys_cpu(w);
}

static void sys_memory(struct scx_jw *w, const void *unused)
{
	(void)unused;
	mcp_sys_memory(w);
}

/*
 * query_stats' keys, in one order that every stat_type's writes follow: a
 * live group's (group, the capture's status, available ... omitted_rows;
 * without a capture available and hint alone), scheduler's (the
 * scheduler's fields by hand, the writer scheduler://current shares, then
 * sched_ext_interval) and system's (cpu, memory).
 */
const struct mcp_out mcp_out_stats[] = {
	MCP_REC_STR(mcp_stats_rec, group),
	MCP_LIVE_STATUS_OUT,
	MCP_REC_BOOL_SET(mcp_stats_rec, available),
	MCP_REC_STR(mcp_stats_rec, hint),
	{ "note", "string" },
	MCP_REC_INT_SET(mcp_stats_rec, interval_seq),
	MCP_REC_INT_SET(mcp_stats_rec, start_ns),
	MCP_REC_INT_SET(mcp_stats_rec, end_ns),
	MCP_REC_INT_SET(mcp_stats_rec, events),
	MCP_REC_INT_SET(mcp_stats_rec, lost),
	MCP_REC_INT_SET(mcp_stats_rec, tasks_dropped),
	MCP_REC_FN(mcp_stats_rec, rows, "array", mcp_live_rows),
	MCP_REC_INT_SET(mcp_stats_rec, total_rows),
	MCP_REC_UINT_NZ(mcp_stats_rec, omitted_rows),
	{ "sched_ext_supported", "boolean" },
	{ "state", "string" },
	{ "active", "boolean" },
	{ "name", "string" },
	{ "class", "string" },
	{ "switch_all", "boolean" },
	{ "ops", "string" },
	{ "counters", "object" },
	{ "counters_error", "string" },
	MCP_REC_FN(mcp_stats_rec, sched_ext_interval, "object", scx_interval),
	MCP_REC_FN(mcp_stats_rec, cpu, "object", sys_cpu),
	MCP_REC_FN(mcp_stats_rec, memory, "object", sys_memory),
	{ "" },
};
_Static_assert(offsetof(struct mcp_stats_rec, st) == 0, "the status starts the record");

int mcp_t_query_stats(struct mcp_call *c)
{
	static const char *const types[] = {
		"cpu",	  "llc",       "node",	 "dsq",	   "process",
		"thread", "scheduler", "system", "cgroup", NULL,
	};
	struct mcp_stats_rec rec;
	int64_t limit = 20;
	int k;

	if (mcp_arg_required(c, "stat_type") || (k = mcp_arg_enum(c, "stat_type", types, 0)) < 0 ||
	    mcp_arg_i64(c, "limit", &limit, 1, 1000) < 0)
		return -EINVAL;
	mcp_stats_none(&rec);
	if (k == 6) {
		scx_jw_obj_begin(&c->w);
		mcp_sys_scheduler_fields(&c->w);
		mcp_live_scx_stats(c->s, &c->w);
		scx_jw_obj_end(&c->w);
		return 0;
	}
	if (k == 7) {
		rec.cpu = rec.memory = &rec; /* (any pointer: they read /proc) */
		mcp_out_write(&c->w, mcp_out_stats, &rec);
		return 0;
	}
	if (!c->s->live) {
		rec.available = false;
		rec.hint = "no live capture: start one with control_event_tracking "
			   "{\"action\":\"start\"}, wait a second, then query again";
		mcp_out_write(&c->w, mcp_out_stats, &rec);
		return 0;
	}
	return mcp_live_stats(c->s, types[k], &c->w, (unsigned)limit);
}

/* Capture arguments go to argv (no shell), but stay plain anyway. */
static bool plain(const char *s, const char *extra)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr(extra, *s))
			return false;
	return true;
}

/* a record that starts with the status, so MCP_LIVE_STATUS_OUT's offsets hold */
struct tracking_rec {
	struct mcp_live_status st;
	const char *action, *note, *next;
};
_Static_assert(offsetof(struct tracking_rec, st) == 0, "the status starts the record");
const struct mcp_out mcp_out_tracking[] = {
	MCP_REC_STR(tracking_rec, action),
	MCP_LIVE_STATUS_OUT,
	MCP_REC_STR(tracking_rec, note),
	MCP_REC_STR(tracking_rec, next),
	{ "" },
};

void mcp_tracking_result(struct mcp_server *s, struct scx_jw *w, const char *action,
			 const char *note, const char *next)
{
	struct tracking_rec rec = { .action = action, .note = note, .next = next };

	mcp_live_status_get(s, &rec.st);
	mcp_out_write(w, mcp_out_tracking, &rec);
}

int mcp_t_tracking(struct mcp_call *c)
{
	static const char *const actions[] = {
		"enable", "disable", "status", "start", "stop", NULL
	};
	char events[128] = "", cpus[128] = "", comm[SCX_COMM_LEN] = "", err[256] = "";
	char pidb[24], tgidb[24], desc[512];
	char *args[24];
	int64_t pid = -1, tgid = -1, dur = 0;
	int a, n = 0, r;

	if (mcp_arg_required(c, "action") || (a = mcp_arg_enum(c, "action", actions, 2)) < 0)
		return -EINVAL;
	if (a == 1 || a == 4) {
		if (mcp_live_stop(c->s))
			return mcp_fail(c, "no live capture is running");
		mcp_tracking_result(c->s, &c->w, "stopped", NULL, NULL);
		return 0;
	}
	if (a == 2) {
		mcp_tracking_result(c->s, &c->w, NULL, NULL, NULL);
		return 0;
	}
	if (mcp_arg_str(c, "events", events, sizeof(events)) < 0 ||
	    mcp_arg_str(c, "cpus", cpus, sizeof(cpus)) < 0 ||
	    mcp_arg_str(c, "comm", comm, sizeof(comm)) < 0 ||
	    mcp_arg_i64(c, "pid", &pid, 1, INT32_MAX) < 0 ||
	    mcp_arg_i64(c, "tgid", &tgid, 1, INT32_MAX) < 0 ||
	    mcp_arg_i64(c, "duration_secs", &dur, 0, 3600) < 0)
		return -EINVAL;
	if (!plain(events, ",_") || !plain(cpus, ",-") || !plain(comm, "_-.:/ "))
		return mcp_fail(
			c, "events, cpus and comm may hold only letters, digits and , - _ . :");
	args[n++] = "--format";
	args[n++] = "binary";
	args[n++] = "-o";
	args[n++] = "-";
	if (events[0]) {
		args[n++] = "-e";
		args[n++] = events;
	}
	if (pid > 0) {
		snprintf(pidb, sizeof(pidb), "%lld", (long long)pid);
		args[n++] = "--pid";
		args[n++] = pidb;
	}
	if (tgid > 0) {
		snprintf(tgidb, sizeof(tgidb), "%lld", (long long)tgid);
		args[n++] = "--tgid";
		args[n++] = tgidb;
	}
	if (cpus[0]) {
		args[n++] = "--cpus";
		args[n++] = cpus;
	}
	if (comm[0]) {
		args[n++] = "--comm";
		args[n++] = comm;
	}
	args[n] = NULL;
	desc[0] = 0;
	for (int i = 0; i < n; i++)
		snprintf(desc + strlen(desc), sizeof(desc) - strlen(desc), "%s%s",
			 i ? " " : "scx-events ", args[i]);
	r = mcp_live_start(c->s, args, desc, err, sizeof(err));
	if (r == -EBUSY)
		return mcp_fail(c, "a live capture is already running; stop it first");
	if (r) {
		mcp_fail(c, "cannot start the capture: %s", err[0] ? err : strerror(-r));
		return r;
	}
	mcp_log(c->s, MCP_INFO, "live capture started: %s", desc);
	if (dur) {
		mcp_live_stop_after(c->s, (unsigned)dur);
		c->task_kind = MCP_TASK_CAPTURE;
		c->task_secs = (unsigned)dur;
	}
	mcp_tracking_result(c->s, &c->w, "started", NULL,
			    "query_stats after a second; subscribe to events://stream "
			    "or stats://aggregated/cpu for updates");
	return 0;
}

/* A view of a rendered report: some tables, some rows, another order. */
struct view {
	const char *const *tables;	/* keep these tables only; NULL: all */
	const char *main;		/* the table the view is about ... */
	const char *empty_note;		/* ... and what to say when it shows no row */
	const char *key1, *key2, *key3; /* keep rows where one equals num or str */
	bool filter;
	int64_t num;
	const char *str;
	const char *sort; /* sort rows by this number, descending */
	unsigned limit;
};

struct vrow {
	int tok;
	double key;
};

static int cmp_vrow(const void *a, const void *b)
{
	const struct vrow *x = a, *y = b;

	return x->key < y->key ? 1 : x->key > y->key ? -1 : (x->tok > y->tok) - (x->tok < y->tok);
}

static bool row_match(const struct scx_json_doc *d, int row, const struct view *v)
{
	const char *keys[3] = { v->key1, v->key2, v->key3 };

	for (int i = 0; i < 3; i++) {
		int t = keys[i] ? scx_json_get(d, row, keys[i]) : -1;
		int64_t n;

		if (t < 0)
			continue;
		if (v->str ? scx_json_eq(d, t, v->str) : (!scx_json_int(d, t, &n) && n == v->num))
			return true;
	}
	return false;
}

static void raw_tok(struct scx_jw *w, const struct scx_json_doc *d, int t)
{
	/* strings come without quotes from jsmn: take them back */
	int q = d->tok[t].type == JSMN_STRING;

	scx_jw_raw(w, d->js + d->tok[t].start - q, d->tok[t].end - d->tok[t].start + 2 * q);
}

static bool kept(const struct view *v, const char *table)
{
	if (!v->tables)
		return true;
	for (unsigned i = 0; v->tables[i]; i++)
		if (!strcmp(v->tables[i], table))
			return true;
	return false;
}

/* Returns the rows shown of the view's main table. */
static unsigned report_view(const char *js, size_t len, const struct view *v, struct scx_buf *out)
{
	struct scx_json_doc d = { 0 };
	struct scx_jw w;
	int tables;
	char key[64];
	unsigned main_rows = 0;

	if (scx_json_parse(&d, js, len) || (tables = scx_json_get(&d, 0, "tables")) < 0 ||
	    d.tok[tables].type != JSMN_OBJECT) {
		scx_buf_add(out, js, len);
		scx_json_free(&d);
		return 0;
	}
	scx_jw_init(&w, out);
	scx_jw_obj_begin(&w);
	for (int i = 1, k = 0; k < d.tok[0].size; k++, i = scx_json_next(&d, i + 1)) {
		if (i + 1 == tables)
			continue;
		scx_json_str(&d, i, key, sizeof(key));
		scx_jw_key(&w, key);
		raw_tok(&w, &d, i + 1);
	}
	scx_jw_key(&w, "tables");
	scx_jw_obj_begin(&w);
	for (int i = tables + 1, k = 0; k < d.tok[tables].size; k++, i = scx_json_next(&d, i + 1)) {
		int tb = i + 1, rows = scx_json_get(&d, tb, "rows"),
		    om = scx_json_get(&d, tb, "omitted");
		int64_t omitted = 0;
		struct vrow *vr;
		unsigned n = 0, shown = 0;
		bool has_key;

		scx_json_str(&d, i, key, sizeof(key));
		if (!kept(v, key) || rows < 0 || d.tok[rows].type != JSMN_ARRAY)
			continue;
		if (om >= 0)
			scx_json_int(&d, om, &omitted);
		vr = scx_xcalloc(d.tok[rows].size + 1, sizeof(*vr));
		has_key = d.tok[rows].size && v->filter &&
			  ((v->key1 && scx_json_get(&d, rows + 1, v->key1) >= 0) ||
			   (v->key2 && scx_json_get(&d, rows + 1, v->key2) >= 0) ||
			   (v->key3 && scx_json_get(&d, rows + 1, v->key3) >= 0));
		for (int r = rows + 1, j = 0; j < d.tok[rows].size; j++, r = scx_json_next(&d, r)) {
			int sk = v->sort ? scx_json_get(&d, r, v->sort) : -1;

			if (has_key && !row_match(&d, r, v))
				continue;
			vr[n].tok = r;
			vr[n].key = 0;
			if (sk >= 0)
				scx_json_double(&d, sk, &vr[n].key);
			n++;
		}
		if (v->sort)
			qsort(vr, n, sizeof(*vr), cmp_vrow);
		scx_jw_key(&w, key);
		scx_jw_obj_begin(&w);
		scx_jw_key(&w, "rows");
		scx_jw_arr_begin(&w);
		for (; shown < n && shown < v->limit; shown++)
			raw_tok(&w, &d, vr[shown].tok);
		scx_jw_arr_end(&w);
		scx_jw_kuint(&w, "omitted", n - shown + (has_key ? 0 : (uint64_t)omitted));
		scx_jw_obj_end(&w);
		free(vr);
		if (v->main && !strcmp(key, v->main))
			main_rows = shown;
	}
	scx_jw_obj_end(&w);
	scx_jw_obj_end(&w);
	scx_json_free(&d);
	return main_rows;
}

/*
 * The live reports' results: without a capture, or before its first
 * interval, they say so by hand (not_yet); else the fields of a record,
 * then by hand the note of an empty view.
 */
struct report_rec {
	const char *source, *trace_id, *analysis;
	const struct scx_buf *report;
};
const struct mcp_out mcp_out_live_report[] = {
	MCP_LIVE_OUT,
	MCP_REC_OBJ(report_rec, report),
	{ "mode", "string" },
	{ "" },
};
const struct mcp_out mcp_out_cgroups[] = {
	MCP_LIVE_OUT,
	MCP_REC_STR(report_rec, source),
	MCP_REC_STR(report_rec, trace_id),
	MCP_REC_STR(report_rec, analysis),
	MCP_REC_OBJ(report_rec, report),
	{ "" },
};

/* The view of report JSON b, cut to fit, as the record's report, and its note: the object. */
static void put_view(struct mcp_call *c, const struct mcp_out *out, struct report_rec *rec,
		     const struct scx_buf *b, const struct view *v)
{
	struct scx_buf view = { 0 };
	unsigned main_rows;

	for (struct view lv = *v;; lv.limit /= 2) {
		scx_buf_reset(&view);
		main_rows = report_view(b->data, b->len, &lv, &view);
		if (view.len <= c->cap - 512 || lv.limit <= 1)
			break;
	}
	rec->report = &view;
	scx_jw_obj_begin(&c->w);
	mcp_out_fields(&c->w, out, rec);
	if (v->empty_note && !main_rows)
		scx_jw_kstr(&c->w, "note", v->empty_note);
	scx_jw_obj_end(&c->w);
	scx_buf_free(&view);
}

/*
 * Every kept row of the live capture's report into b: 0; 1 with c answered
 * (no capture or no closed interval yet: a state, not a failure); -1 with c
 * failed.
 */
static int live_report_json(struct mcp_call *c, const char *name, struct scx_buf *b)
{
	int r;

	if (!c->s->live) {
		not_yet(c, "no live capture: start one with control_event_tracking "
			   "{\"action\":\"start\"}, wait a second, then call this again");
		return 1;
	}
	/* every kept row, then the view picks and cuts */
	r = mcp_live_report(c->s, name, 100000, b);
	if (r == -EAGAIN) {
		not_yet(c, "the first 1 s interval of the capture has not closed yet; call "
			   "again in a second");
		return 1;
	}
	if (r)
		return mcp_fail(c, "%s report failed: %s", name,
				r == -EOPNOTSUPP ? "not available in this build (no aggregation "
						   "engine, lib/agg/agg.c)" :
						   strerror(-r));
	return 0;
}

static int live_report(struct mcp_call *c, const char *name, const struct view *v)
{
	struct scx_buf b = { 0 };
	int r = live_report_json(c, name, &b);

	if (!r)
		put_view(c, mcp_out_live_report, &(struct report_rec){ 0 }, &b, v);
	scx_buf_free(&b);
	return r < 0 ? r : 0;
}

int mcp_t_waker_wakee(struct mcp_call *c)
{
	static const char *const modes[] = {
		"critical", "frequency", "latency", "bidirectional", "for_pid", "summary", NULL,
	};
	static const char *const sort[] = { "lat_max", "count", "lat_avg", "count", "count", NULL };
	static const char *const pairs[] = { "summary", "pairs", "chains", NULL };
	static const char *const mutual[] = { "summary", "mutual", NULL };
	static const char *const summary[] = { "summary", NULL };
	int64_t limit = 20, pid = -1;
	struct view v = { 0 };
	char note[128];
	int m;

	if ((m = mcp_arg_enum(c, "mode", modes, 0)) < 0 ||
	    mcp_arg_i64(c, "pid", &pid, 1, INT32_MAX) < 0 ||
	    mcp_arg_i64(c, "limit", &limit, 1, 1000) < 0)
		return -EINVAL;
	if (m == 4 && pid < 0)
		return mcp_fail(c, "mode for_pid needs pid");
	v.limit = (unsigned)limit;
	v.sort = sort[m];
	v.tables = m == 5 ? summary : m == 3 ? mutual : pairs;
	if (pid > 0) {
		v.filter = true;
		v.key1 = m == 3 ? "pid_a" : "waker";
		v.key2 = m == 3 ? "pid_b" : "wakee";
		v.num = pid;
	}
	if (m == 3) {
		/* an empty list alone reads like missing data: say what was looked for */
		if (pid > 0)
			snprintf(note, sizeof(note),
				 "no task and pid %lld woke each other in the "
				 "last interval",
				 (long long)pid);
		else
			snprintf(note, sizeof(note),
				 "no two tasks woke each other in the last "
				 "interval");
		v.main = "mutual";
		v.empty_note = note;
	}
	return live_report(c, "wakeup-graph", &v);
}

int mcp_t_softirq(struct mcp_call *c)
{
	static const char *const modes[] = {
		"summary",
		"by_type",
		"by_cpu",
		NULL,
	};
	static const char *const vectors[] = { "vectors", NULL }, *const cpus[] = { "cpus", NULL };
	int64_t limit = 20, nr = -1;
	struct view v = { 0 };
	int m;

	if ((m = mcp_arg_enum(c, "mode", modes, 0)) < 0 ||
	    mcp_arg_i64(c, "softirq_nr", &nr, 0, 9) < 0 ||
	    mcp_arg_i64(c, "limit", &limit, 1, 100) < 0)
		return -EINVAL;
	v.limit = (unsigned)limit;
	v.tables = m == 1 ? vectors : m == 2 ? cpus : NULL;
	if (nr >= 0) {
		v.filter = true;
		v.key1 = "vec";
		v.key2 = "top_vec";
		v.str = scx_softirq_names[nr];
	}
	return live_report(c, "softirq", &v);
}

/*
 * The cgroup reports of a loaded trace, or without trace_id of the live
 * capture's last interval, the rows of one cgroup path if asked (either
 * side of a preemption pair).
 */
int mcp_t_cgroups(struct mcp_call *c)
{
	static const char *const modes[] = { "latency", "preemptions", NULL };
	static const char *const reports[] = { "cgroup-latency", "cgroup-preemptions" };
	char id[80] = "", cg[SCX_CGROUP_PATH_MAX] = "", note[SCX_CGROUP_PATH_MAX + 64];
	struct mcp_trace *t = NULL;
	struct scx_buf b = { 0 };
	struct view v = { 0 };
	int64_t limit = 20;
	int m, r;

	if ((m = mcp_arg_enum(c, "mode", modes, 0)) < 0 ||
	    mcp_arg_str(c, "trace_id", id, sizeof(id)) < 0 ||
	    mcp_arg_str(c, "cgroup", cg, sizeof(cg)) < 0 ||
	    mcp_arg_i64(c, "limit", &limit, 1, 1000) < 0)
		return -EINVAL;
	v.limit = (unsigned)limit;
	v.main = m ? "pairs" : "cgroups";
	if (cg[0]) {
		v.filter = true;
		v.key1 = "cgroup";
		v.key2 = "preempted";
		v.key3 = "preemptor";
		v.str = cg;
		snprintf(note, sizeof(note),
			 "no cgroup '%s' in the %s (paths are whole, as in "
			 "the cgroups table)",
			 cg, id[0] ? "trace" : "last interval");
		v.empty_note = note;
	}
	if (id[0]) {
		if (!(t = mcp_tool_trace(c)))
			return -EINVAL;
		if (m == 1 && t->ksnaps)
			return mcp_fail(
				c,
				"trace '%s' holds kernel aggregates (scx-events --aggregate): "
				"the kernel counts each cgroup's preemptions (mode latency, "
				"column preempted) but not which cgroup preempted it; a "
				"capture of events has that",
				t->id);
		r = mcp_trace_report_json(c, t, reports[m], &b);
	} else {
		r = live_report_json(c, reports[m], &b);
	}
	if (!r)
		put_view(c, mcp_out_cgroups,
			 &(struct report_rec){ .source = t ? "trace" : "live",
					       .trace_id = t ? t->id : NULL,
					       .analysis = reports[m] },
			 &b, &v);
	scx_buf_free(&b);
	return r < 0 ? r : 0;
}

/* ---- profiling --------------------------------------------------------------------- */

/*
 * start and stop: the action by hand, then the status's fields, then its
 * note by hand.  A profile run as a task (duration_secs) ends with what
 * get_perf_results answers (mcp_tasks.c), so its keys follow (unit 5006
 * checks they are get_perf_results' own, of the same types).
 */
const struct mcp_out mcp_out_profile[] = {
	MCP_LIVE_OUT,
	{ "action", "string" },
	MCP_REC_BOOL(scx_profile_status, running),
	MCP_REC_STR(scx_profile_status, event),
	MCP_REC_UINT(scx_profile_status, freq_hz),
	MCP_REC_INT(scx_profile_status, cpu),
	MCP_REC_INT(scx_profile_status, pid),
	MCP_REC_UINT(scx_profile_status, samples),
	MCP_REC_UINT(scx_profile_status, dropped_samples),
	MCP_REC_UINT(scx_profile_status, distinct_stacks),
	MCP_REC_UINT(scx_profile_status, duration_ms),
	{ "samples_in_untracked_stacks", "number" },
	{ "kernel_symbols", "number" },
	{ "symbols", "array" },
	{ "distinct_symbols", "number" },
	{ "stacks", "array" },
	{ "stacks_omitted", "number" },
	{ "" },
};

static void prof_status(struct mcp_call *c, const char *action)
{
	struct scx_profile_status st;

	scx_profile__status(c->s->prof, &st);
	scx_jw_obj_begin(&c->w);
	scx_jw_kstr(&c->w, "action", action);
	mcp_out_fields(&c->w, mcp_out_profile, &st);
	if (st.note[0])
		scx_jw_kstr(&c->w, "note", st.note);
	scx_jw_obj_end(&c->w);
}

int mcp_t_prof_start(struct mcp_call *c)
{
	struct scx_profile_opts o = {
		.event = "hw:cycles",
		.freq = 99,
		.cpu = -1,
		.pid = -1,
		.max_samples = 10000,
	};
	char event[64] = "", err[256] = "";
	int64_t freq = 99, cpu = -1, pid = -1, max = 10000, dur = 0;

	if (mcp_arg_str(c, "event", event, sizeof(event)) < 0 ||
	    mcp_arg_i64(c, "freq", &freq, 1, 10000) < 0 ||
	    mcp_arg_i64(c, "cpu", &cpu, -1, 4096) < 0 ||
	    mcp_arg_i64(c, "pid", &pid, -1, INT32_MAX) < 0 ||
	    mcp_arg_i64(c, "max_samples", &max, 1, 1000000) < 0 ||
	    mcp_arg_i64(c, "duration_secs", &dur, 0, 3600) < 0)
		return -EINVAL;
	if (c->s->prof && scx_profile__running(c->s->prof))
		return mcp_fail(c, "profiling is already running; stop_perf_profiling first");
	if (event[0])
		o.event = event;
	o.freq = (unsigned)freq;
	o.cpu = (int)cpu;
	o.pid = (int)pid;
	o.max_samples = (uint64_t)max;
	o.duration_s = (unsigned)dur;
	scx_profile__free(c->s->prof);
	c->s->prof = scx_profile__start(&o, err, sizeof(err));
	if (!c->s->prof)
		return mcp_fail(c, "cannot start profiling: %s", err);
	if (dur) {
		c->task_kind = MCP_TASK_PROFILE;
		c->task_secs = (unsigned)dur;
	}
	prof_status(c, "started");
	return 0;
}

int mcp_t_prof_stop(struct mcp_call *c)
{
	if (!c->s->prof || !scx_profile__running(c->s->prof))
		return mcp_fail(c, "profiling is not running");
	scx_profile__stop(c->s->prof);
	prof_status(c, "stopped");
	return 0;
}

/* get_perf_results: without a profile, available and hint by hand */
const struct mcp_out mcp_out_perf_results[] = {
	{ "available", "boolean" },
	{ "hint", "string" },
	MCP_REC_STR(scx_profile_results, event),
	MCP_REC_UINT(scx_profile_results, samples),
	MCP_REC_UINT_NZ(scx_profile_results, samples_in_untracked_stacks),
	MCP_REC_UINT(scx_profile_results, kernel_symbols),
	MCP_REC_FN(scx_profile_results, symbols, "array", scx_profile__symbols),
	MCP_REC_UINT(scx_profile_results, distinct_symbols),
	MCP_REC_FN(scx_profile_results, stacks, "array", scx_profile__stacks),
	MCP_REC_INT_SET(scx_profile_results, distinct_stacks),
	MCP_REC_UINT_NZ(scx_profile_results, stacks_omitted),
	{ "" },
};

static void perf_results_write(struct scx_jw *w, const struct scx_profile_results *r)
{
	mcp_out_write(w, mcp_out_perf_results, r);
}

int mcp_t_prof_results(struct mcp_call *c)
{
	int64_t limit = 20;
	bool stacks = true;

	if (mcp_arg_i64(c, "limit", &limit, 1, 500) < 0 ||
	    mcp_arg_bool(c, "include_stacks", &stacks) < 0)
		return -EINVAL;
	if (!c->s->prof)
		return not_yet(c, "no profile: start one with start_perf_profiling");
	scx_profile__results(c->s->prof, (unsigned)limit, stacks, c->cap, &c->w,
			     perf_results_write);
	return 0;
}
