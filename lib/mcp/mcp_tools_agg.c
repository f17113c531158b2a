// SPDX-License-Identifier: GPL-2.0
/*
 * scx-mcp analyses of loaded traces: the scx-agg reports (lib/agg/agg.h) run on
 * the whole trace as one interval.  The aggregation is built once per trace
 * and kept, so each analysis after the first only formats a report.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp/mcp_query.h"
#include "mcp/mcp_tools.h"
#include "mcp/mcp_trace.h"

#include "agg/agg.h"
#include "agg/agg_summary.h"
#include "agg/table.h"

/* scxtop's analysis names -> scx-agg report names */
static const char *const aliases[][2] = {
	{ "migration_patterns", "migrations" },
	{ "llc_locality", "migrations" },
	{ "dsq_summary", "dsq" },
	{ "dsq_latency", "dsq" },
	{ "wakeup_chains", "wakeup-graph" },
	{ "waker_wakee", "wakeup-graph" },
	{ "irq_analysis", "softirq" },
	{ "ipi_analysis", "ipi" },
	{ "power_state", "cpu-idle" },
	{ "cpu_util", "cpu-utilization" },
};

static const char *report_name(const char *in, char *buf, size_t size)
{
	const struct scx_agg_report *r;

	for (unsigned i = 0; i < SCX_ARRAY_SIZE(aliases); i++)
		if (!strcmp(in, aliases[i][0]))
			return aliases[i][1];
	snprintf(buf, size, "%s", in);
	for (char *p = buf; *p; p++)
		*p = *p == '_' ? '-' : (*p >= 'A' && *p <= 'Z') ? *p + 32 : *p;
	r = scx_agg_report_find(buf);
	return r ? r->name : NULL;
}

/*
 * Report JSON of at most 'room' bytes into out: the row limit is halved
 * until it fits.  0, or -errno from the engine.
 */
static int render(struct scx_agg *a, const char *name, unsigned limit, size_t room,
		  struct scx_buf *out, unsigned *used_limit)
{
	const struct scx_agg_snap *snap = scx_agg__snapshot(a);
	struct scx_report_ctx rc = { 0 };
	int r;

	if (snap) {
		rc.seq = snap->seq;
		rc.start_ns = snap->start_ns;
		rc.end_ns = snap->end_ns;
	}
	for (;;) {
		struct scx_table *list = NULL;

		r = scx_agg__report(a, name, &list);
		if (r)
			return r;
		for (struct scx_table *t = list; t; t = t->next)
			scx_table_limit(t, limit);
		scx_buf_reset(out);
		scx_report_json(out, list, &rc);
		scx_table_free(list);
		while (out->len && out->data[out->len - 1] == '\n')
			out->len--;
		if (out->len <= room || limit <= 1)
			break;
		limit /= 2;
	}
	*used_limit = limit;
	return 0;
}

/*
 * The analysis tools' results, detect_outliers' too: the fields of a record,
 * then a cut after the report, written by hand.  Keys in the order both
 * write them: detect_outliers its method, category and note before the
 * report; the others have no method, category or note.
 */
struct report_rec {
	const char *trace_id, *method, *category, *note, *analysis;
	const struct scx_buf *report;
};
const struct mcp_out mcp_out_analysis[] = {
	MCP_REC_STR(report_rec, trace_id), MCP_REC_STR(report_rec, method),
	MCP_REC_STR(report_rec, category), MCP_REC_STR(report_rec, note),
	MCP_REC_STR(report_rec, analysis), MCP_REC_OBJ(report_rec, report),
	{ "truncated", "object" },	   { "" },
};

static int one_report(struct mcp_call *c, struct mcp_trace *t, const char *name, unsigned limit)
{
	struct scx_agg *a = mcp_trace_agg(c, t);
	struct scx_buf b = { 0 };
	unsigned used;
	int r;

	if (!a)
		return -EINVAL;
	r = render(a, name, limit, c->cap > c->out.len + 256 ? c->cap - c->out.len - 256 : 256, &b,
		   &used);
	if (r) {
		scx_buf_free(&b);
		return mcp_fail(c, "analysis %s failed: %s", name, strerror(-r));
	}
	scx_jw_obj_begin(&c->w);
	mcp_out_fields(&c->w, mcp_out_analysis,
		       &(struct report_rec){ .trace_id = t->id, .analysis = name, .report = &b });
	if (used < limit)
		mcp_note_cut(c, used, limit - used,
			     "rows per table reduced to fit the result size cap");
	scx_jw_obj_end(&c->w);
	scx_buf_free(&b);
	return 0;
}

int mcp_trace_report_json(struct mcp_call *c, struct mcp_trace *t, const char *name,
			  struct scx_buf *out)
{
	struct scx_agg *a = mcp_trace_agg(c, t);
	unsigned used;
	int r;

	if (!a)
		return -EINVAL;
	r = render(a, name, UINT32_MAX, SIZE_MAX, out, &used);
	if (r)
		return mcp_fail(c, "analysis %s failed: %s", name, strerror(-r));
	return 0;
}

/* mcp_arg_limit() into the unsigned row limit of scx_agg_opts */
static int get_limit(struct mcp_call *c, int64_t def, int64_t max, unsigned *lim)
{
	int64_t v;

	if (mcp_arg_limit(c, def, max, &v))
		return -EINVAL;
	*lim = (unsigned)v;
	return 0;
}

int mcp_t_analyze(struct mcp_call *c)
{
	struct mcp_trace *t = mcp_tool_trace(c);
	char type[64], buf[64], list[600] = "";
	const char *name;
	unsigned limit;

	if (c->tool && c->tool->report) {
		if (!t || get_limit(c, 20, 1000, &limit))
			return -EINVAL;
		return one_report(c, t, c->tool->report, limit);
	}
	if (!t || mcp_arg_required(c, "analysis_type") ||
	    mcp_arg_str(c, "analysis_type", type, sizeof(type)) < 0 ||
	    get_limit(c, 20, 1000, &limit))
		return -EINVAL;
	name = report_name(type, buf, sizeof(buf));
	if (!name) {
		for (unsigned i = 0; scx_agg_reports[i].name; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s",
				 i ? ", " : "", scx_agg_reports[i].name);
		return mcp_fail(c, "unknown analysis_type '%s'; one of: %s", type, list);
	}
	return one_report(c, t, name, limit);
}

int mcp_t_bottlenecks(struct mcp_call *c)
{
	struct mcp_trace *t = mcp_tool_trace(c);
	unsigned limit;

	if (!t || get_limit(c, 10, 100, &limit))
		return -EINVAL;
	return one_report(c, t, "bottlenecks", limit);
}

static int col_of(const struct scx_table *t, const char *name)
{
	for (unsigned i = 0; i < t->ncols; i++)
		if (!strcmp(t->cols[i].name, name))
			return (int)i;
	return -EINVAL;
}

/*
 * Does an outlier row's metric belong to the category (0 latency, 1 runtime,
 * 2 cpu, 3 all)?  The engine names the metrics of CPUs cpu_*; latency and
 * runtime are those of tasks.
 */
static bool in_category(const char *metric, int cat)
{
	bool cpu = !strncmp(metric, "cpu_", 4);
	bool lat = strstr(metric, "lat") || strstr(metric, "delay");

	switch (cat) {
	case 0:
		return !cpu && lat;
	case 1:
		return !cpu && !lat &&
		       (strstr(metric, "runtime") || strstr(metric, "switch") ||
			strstr(metric, "busy"));
	case 2:
		return cpu;
	}
	return true;
}

int mcp_t_outliers(struct mcp_call *c)
{
	static const char *const methods[] = { "IQR", "MAD", "StdDev", "Percentile", NULL };
	static const char *const engine[] = { "iqr", "mad", "stddev", "percentile" };
	static const char *const cats[] = { "latency", "runtime", "cpu", "all", NULL };
	struct mcp_trace *t = mcp_tool_trace(c);
	const struct scx_agg_snap *snap;
	struct scx_report_ctx rc = { 0 };
	struct scx_table *list = NULL;
	struct scx_buf b = { 0 };
	struct scx_agg *a;
	unsigned limit, nt = 0, saved[16];
	int m, k, r;

	if (!t || get_limit(c, 20, 1000, &limit) ||
	    (m = mcp_arg_enum(c, "method", methods, 0)) < 0 ||
	    (k = mcp_arg_enum(c, "category", cats, 3)) < 0 || !(a = mcp_trace_agg(c, t)))
		return -EINVAL;
	r = scx_agg__report(a, "outliers", &list);
	if (r)
		return mcp_fail(c, "outlier analysis failed: %s", strerror(-r));
	snap = scx_agg__snapshot(a);
	if (snap) {
		rc.start_ns = snap->start_ns;
		rc.end_ns = snap->end_ns;
	}
	/* keep the rows of the asked method and category: move them to the front */
	for (struct scx_table *tb = list; tb && nt < 16; tb = tb->next, nt++) {
		int mc = col_of(tb, "method"), xc = col_of(tb, "metric");
		unsigned keep = 0, n = tb->nrows;

		saved[nt] = n;
		for (unsigned i = 0; i < n && mc >= 0 && xc >= 0; i++) {
			union scx_cell *row = &tb->cells[(size_t)i * tb->ncols];

			if (strcmp(row[mc].s, engine[m]) || !in_category(row[xc].s, k))
				continue;
			if (i != keep) {
				union scx_cell tmp[SCX_TABLE_MAX_COLS];
				union scx_cell *dst = &tb->cells[(size_t)keep * tb->ncols];

				memcpy(tmp, dst, tb->ncols * sizeof(*tmp));
				memcpy(dst, row, tb->ncols * sizeof(*tmp));
				memcpy(row, tmp, tb->ncols * sizeof(*tmp));
			}
			keep++;
		}
		if (mc >= 0 && xc >= 0)
			tb->nrows = keep;
		if (tb->nrows > limit) {
			tb->omitted += tb->nrows - limit;
			tb->nrows = limit;
		}
	}
	scx_report_json(&b, list, &rc);
	while (b.len && b.data[b.len - 1] == '\n')
		b.len--;
	nt = 0;
	for (struct scx_table *tb = list; tb && nt < 16; tb = tb->next, nt++)
		tb->nrows = saved[nt]; /* so every cell is freed */
	scx_table_free(list);
	if (b.len > c->cap) {
		scx_buf_free(&b);
		return mcp_fail(c,
				"the outlier report does not fit the result size cap; lower limit");
	}
	mcp_out_write(&c->w, mcp_out_analysis,
		      &(struct report_rec){
			      .trace_id = t->id,
			      .method = methods[m],
			      .category = cats[k],
			      .note = (k == 2 || k == 3) && snap && snap->nr_cpus < 4 ?
					      "fewer than 4 cpus in the trace: too few to call "
					      "one an outlier, so no cpu is ranked" :
					      NULL,
			      .report = &b,
		      });
	scx_buf_free(&b);
	return 0;
}

void mcp_analyze_desc(struct scx_buf *b)
{
	scx_buf_printf(b, "Run one scx-agg analysis on a loaded trace: ");
	for (unsigned i = 0; scx_agg_reports[i].name; i++)
		scx_buf_printf(b, "%s%s", i ? ", " : "", scx_agg_reports[i].name);
	scx_buf_printf(b, " (scxtop's names such as cpu_utilization or wakeup_chains work too).");
}

static void analyses(struct scx_jw *w, const void *val)
{
	const struct scx_agg_report *r = val;

	scx_jw_arr_begin(w);
	for (; r->name; r++)
		scx_jw_str(w, r->name);
	scx_jw_arr_end(w);
}

static void scxtop_aliases(struct scx_jw *w, const void *val)
{
	const char *const(*al)[2] = val;

	scx_jw_obj_begin(w);
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(aliases); i++)
		scx_jw_kstr(w, al[i][0], al[i][1]);
	scx_jw_obj_end(w);
}

struct discover_rec {
	const struct scx_agg_report *analyses;
	const char *const (*scxtop_aliases)[2];
};
const struct mcp_out mcp_out_discover[] = {
	MCP_REC_FN(discover_rec, analyses, "array", analyses),
	MCP_REC_FN(discover_rec, scxtop_aliases, "object", scxtop_aliases),
	{ "" },
};

int mcp_t_discover(struct mcp_call *c)
{
	mcp_out_write(&c->w, mcp_out_discover, &(struct discover_rec){ scx_agg_reports, aliases });
	return 0;
}

/* the record's fields, then the reports and a cut by hand */
struct run_all_rec {
	const char *trace_id;
	uint64_t rows_per_table;
};
const struct mcp_out mcp_out_run_all[] = {
	MCP_TRACE_OUT(run_all_rec),
	MCP_REC_UINT(run_all_rec, rows_per_table),
	{ "reports", "object" },
	{ "" },
};

int mcp_t_run_all(struct mcp_call *c)
{
	struct mcp_trace *t = mcp_tool_trace(c);
	struct scx_agg *a;
	struct scx_buf b = { 0 };
	unsigned limit, n = 0, done = 0;

	if (!t || get_limit(c, 5, 100, &limit) || !(a = mcp_trace_agg(c, t)))
		return -EINVAL;
	while (scx_agg_reports[n].name)
		n++;
	scx_jw_obj_begin(&c->w);
	mcp_out_fields(&c->w, mcp_out_run_all,
		       &(struct run_all_rec){ .trace_id = t->id, .rows_per_table = limit });
	scx_jw_key(&c->w, "reports");
	scx_jw_obj_begin(&c->w);
	for (unsigned i = 0; i < n; i++) {
		/* an equal share of what is left for each remaining report */
		size_t left = c->cap > c->out.len + 512 ? c->cap - c->out.len - 512 : 0;
		unsigned used;

		if (left < 256)
			break;
		if (render(a, scx_agg_reports[i].name, limit, left / (n - i), &b, &used))
			continue;
		if (b.len > left)
			break;
		scx_jw_key(&c->w, scx_agg_reports[i].name);
		scx_jw_raw(&c->w, b.data, b.len);
		done++;
	}
	scx_jw_obj_end(&c->w);
	if (done < n)
		mcp_note_cut(c, done, n - done,
			     "result size cap; run analyze_trace_scheduling for "
			     "the reports left out");
	scx_jw_obj_end(&c->w);
	scx_buf_free(&b);
	return 0;
}

struct export_rec {
	const char *trace_id, *output_path;
	uint64_t bytes, analyses;
	const char *resource; /* the file as a resource, when linked */
	uint64_t pages;	      /* its pages: at least 1, the file is never empty */
	char uri[48];
};
const struct mcp_out mcp_out_export[] = {
	MCP_TRACE_OUT(export_rec),
	MCP_REC_STR(export_rec, output_path),
	MCP_REC_UINT(export_rec, bytes),
	MCP_REC_UINT(export_rec, analyses),
	MCP_REC_STR(export_rec, resource),
	MCP_REC_UINT_NZ(export_rec, pages),
	{ "" },
};

/*
 * The file written, also readable as a resource: a client that cannot read
 * the server's files (a remote one, a sandboxed one) gets a resource_link
 * to result://N, served in bounded pages like any linked result.  The bytes
 * are the file's as written; a file larger than a kept result is named by
 * its path only.
 */
static void export_link(struct mcp_call *c, const struct scx_buf *out, struct export_rec *rec)
{
	char desc[256];
	unsigned pages;

	if (!mcp_resource_links(c->s) || out->len > MCP_LINK_MAX)
		return;
	mcp_link_keep(c->s, c->tool->name, out->data, out->len, rec->uri, sizeof(rec->uri), &pages);
	snprintf(desc, sizeof(desc),
		 "the file written (output_path), %zu bytes of JSON in %u pages: read %s, then "
		 "each page's next; join their text",
		 out->len, pages, rec->uri);
	mcp_call_link(c, rec->uri, c->tool->name, desc);
	rec->resource = rec->uri;
	rec->pages = pages;
}

int mcp_t_export(struct mcp_call *c)
{
	struct mcp_trace *t = mcp_tool_trace(c);
	const struct scx_json_doc *d = c->d;
	char path[PATH_MAX], resolved[PATH_MAX], buf[64];
	struct scx_buf out = { 0 }, b = { 0 };
	struct export_rec rec;
	struct scx_jw w;
	struct scx_agg *a;
	int arr, fd, r;
	unsigned nr = 0, used;
	bool overwrite = false;
	struct stat st = { 0 };

	if (!t || mcp_arg_required(c, "output_path") ||
	    mcp_arg_str(c, "output_path", path, sizeof(path)) < 0 ||
	    mcp_arg_bool(c, "overwrite", &overwrite) < 0 || !(a = mcp_trace_agg(c, t)))
		return -EINVAL;
	arr = c->args >= 0 ? scx_json_get(d, c->args, "analysis_types") : -1;
	if (arr >= 0 && !scx_json_is_null(d, arr) && d->tok[arr].type != JSMN_ARRAY)
		return mcp_fail(c, "analysis_types must be an array of analysis names");
	scx_jw_init(&w, &out);
	scx_jw_obj_begin(&w);
	scx_jw_kstr(&w, "trace_id", t->id);
	scx_jw_kstr(&w, "source", t->path);
	scx_jw_key(&w, "summary");
	mcp_trace_summary(c->s, t, &w);
	scx_jw_key(&w, "reports");
	scx_jw_obj_begin(&w);
	for (int i = 0;; i++) {
		const char *name;

		if (arr >= 0 && !scx_json_is_null(d, arr)) {
			int e = scx_json_at(d, arr, i);
			char in[64];

			if (e < 0)
				break;
			if (!scx_json_is_str(d, e) ||
			    scx_json_str(d, e, in, sizeof(in)) >= (int)sizeof(in) ||
			    !(name = report_name(in, buf, sizeof(buf)))) {
				scx_buf_free(&out);
				return mcp_fail(c,
						"analysis_types[%d] is not a known analysis "
						"(see discover_analyzers)",
						i);
			}
		} else if (!(name = scx_agg_reports[i].name)) {
			break;
		}
		if (render(a, name, 1000, SIZE_MAX, &b, &used))
			continue;
		scx_jw_key(&w, name);
		scx_jw_raw(&w, b.data, b.len);
		nr++;
	}
	scx_jw_obj_end(&w);
	scx_jw_obj_end(&w);
	scx_buf_add(&out, "\n", 1);
	scx_buf_free(&b);

	/*
	 * A new file only, unless the client asked to replace one: the model
	 * choosing the name may well pick a loaded trace.  A file with another
	 * link may be the same inode as one outside the roots: never replaced.
	 */
	fd = mcp_fs_open(c->s, path, O_WRONLY | O_CREAT | (overwrite ? 0 : O_EXCL), resolved);
	if (fd == -EACCES) {
		scx_buf_free(&out);
		return mcp_fail(c,
				"'%s' is outside the directories scx-mcp may write (%s); start "
				"scx-mcp with --root DIR to allow another one",
				path, c->s->roots[0].path);
	}
	if (fd == -EEXIST) {
		scx_buf_free(&out);
		return mcp_fail(c,
				"'%s' exists; export_trace_analysis creates new files only, "
				"unless overwrite is true",
				path);
	}
	if (fd < 0) {
		scx_buf_free(&out);
		mcp_fail(c, "cannot create '%s': %s", path, mcp_fs_strerror(fd));
		return fd;
	}
	if (overwrite && (fstat(fd, &st) || st.st_nlink > 1)) {
		close(fd);
		scx_buf_free(&out);
		return mcp_fail(c,
				"will not overwrite '%s': it has %lu hard links, and another "
				"name may lie outside the allowed directories",
				path, (unsigned long)st.st_nlink);
	}
	r = overwrite && ftruncate(fd, 0) ? -errno : 0;
	if (!r)
		r = scx_write_all(fd, out.data, out.len);
	if (close(fd) && !r)
		r = -errno;
	if (r) {
		scx_buf_free(&out);
		mcp_fail(c, "cannot write '%s': %s", path, strerror(-r));
		return r;
	}
	rec = (struct export_rec){ .trace_id = t->id,
				   .output_path = resolved,
				   .bytes = out.len,
				   .analyses = nr };
	export_link(c, &out, &rec);
	mcp_out_write(&c->w, mcp_out_export, &rec);
	scx_buf_free(&out);
	return 0;
}

/* A loaded trace named by argument key, or NULL with c failed. */
static struct mcp_trace *trace_arg(struct mcp_call *c, const char *key)
{
	char id[80];
	struct mcp_trace *t;

	if (mcp_arg_required(c, key) || mcp_arg_str(c, key, id, sizeof(id)) < 0)
		return NULL;
	if (!(t = mcp_trace_find(c->s, id)))
		mcp_fail(c, "no trace '%s' is loaded; load it with load_perfetto_trace", id);
	return t;
}

struct compare_rec {
	const char *trace_a, *trace_b, *verdict;
	uint64_t regressions, improvements;
	const struct scx_buf *report;
};
const struct mcp_out mcp_out_compare[] = {
	MCP_REC_STR(compare_rec, trace_a),
	MCP_REC_STR(compare_rec, trace_b),
	MCP_REC_STR(compare_rec, verdict),
	MCP_REC_UINT(compare_rec, regressions),
	MCP_REC_UINT(compare_rec, improvements),
	MCP_REC_OBJ(compare_rec, report),
	{ "" },
};

/* scx-agg diff of two loaded traces: their summaries compared (agg_summary.h). */
int mcp_t_compare(struct mcp_call *c)
{
	struct mcp_trace *t[2] = { trace_arg(c, "trace_a"), NULL };
	struct scx_sum *sum[2] = { NULL, NULL };
	struct scx_diff_opts o = { 0 };
	struct scx_diff_verdict v;
	struct scx_report_ctx rc = { 0 };
	struct scx_table *list = NULL;
	struct scx_buf b = { 0 };
	int64_t pct = 5, alpha_e6 = 10000;
	unsigned limit;
	char err[256];
	int r = -EINVAL;

	if (!t[0] || !(t[1] = trace_arg(c, "trace_b")) || get_limit(c, 20, 1000, &limit) ||
	    mcp_arg_i64(c, "min_change_pct", &pct, 1, 1000) < 0 ||
	    mcp_arg_i64(c, "alpha_ppm", &alpha_e6, 1, 999999) < 0)
		return -EINVAL;
	o.limit = limit;
	o.min_change = pct / 100.0;
	o.alpha = alpha_e6 / 1e6;
	for (int i = 0; i < 2; i++) {
		struct scx_agg *a = mcp_trace_agg(c, t[i]);

		if (!a)
			goto out;
		sum[i] = scx_sum__new();
		scx_buf_reset(&b);
		scx_agg_summary_json(a, &b);
		if (scx_sum__add_json(sum[i], b.data, b.len - 1, err, sizeof(err))) {
			mcp_fail(c, "cannot summarise trace '%s': %s", t[i]->id, err);
			goto out;
		}
	}
	scx_agg_diff(sum[0], sum[1], &o, &list, &v);
	scx_buf_reset(&b);
	scx_report_json(&b, list, &rc);
	while (b.len && b.data[b.len - 1] == '\n')
		b.len--;
	if (b.len + 512 > c->cap) {
		mcp_fail(c, "the comparison does not fit the result size cap; lower limit");
		goto out;
	}
	mcp_out_write(&c->w, mcp_out_compare,
		      &(struct compare_rec){ .trace_a = t[0]->id,
					     .trace_b = t[1]->id,
					     .verdict = v.line,
					     .regressions = v.regressions,
					     .improvements = v.improvements,
					     .report = &b });
	r = 0;
out:
	scx_table_free(list);
	scx_buf_free(&b);
	scx_sum__free(sum[0]);
	scx_sum__free(sum[1]);
	return r;
}
