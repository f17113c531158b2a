// SPDX-License-Identifier: GPL-2.0
/*
 * scx-agg: aggregate an event stream per CPU, LLC, node, thread, process,
 * comm and DSQ, per interval of event time, and run the scheduling reports.
 * The engine is lib/agg/agg.c; this file is options, wiring and the read loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg/agg.h"
#include "agg/agg_ksnap.h"
#include "agg/prom.h"
#include "agg/agg_summary.h"
#include "core/opts.h"
#include "agg/table.h"
#include "stream/lost.h"
#include "stream/stream.h"
#include "core/util.h"
#include "perfetto/perfetto_read.h"

enum {
	OPT_ONCE = 256,
	OPT_TOPOLOGY,
	OPT_NO_SNAPSHOT,
	OPT_REORDER,
	OPT_TEXTFILE,
	OPT_SUMMARY,
	OPT_ALPHA,
	OPT_MIN_CHANGE,
	OPT_CG_DEPTH,
	OPT_CG_TOP,
	OPT_CG_SORT,
	OPT_DSQ_TOP,
	OPT_MAX_TASKS
};
enum fmt { FMT_AUTO, FMT_NDJSON, FMT_TEXT, FMT_OPENMETRICS, FMT_PROMETHEUS };

/* not const: -r's completion words come from the report table (report_help()) */
static struct scx_opt opts[] = {
	{ 'I', "interval", "DURATION", "one snapshot per DURATION of event time (e.g. 1s, 250ms)" },
	{ OPT_ONCE, "once", NULL, "one snapshot for the whole input (the default)" },
	{ 'g', "by", "LIST",
	  "group by cpu,llc,node,pid,tgid,comm,dsq,cgroup or all (default cpu,llc,node)",
	  "cpu llc node pid tgid comm dsq cgroup all" },
	{ OPT_CG_DEPTH, "cgroup-depth", "N",
	  "cgroup groups: fold paths to their first N levels below the root (default 0: whole)" },
	{ OPT_CG_TOP, "cgroup-top", "N",
	  "cgroup groups: the N first by --cgroup-sort, the rest in one \"(other)\" row (default 50)" },
	{ OPT_CG_SORT, "cgroup-sort", "METRIC",
	  "rank cgroups by busy, rq-delay, rq-p99, wakeups or switches (default busy)",
	  "busy rq-delay rq-p99 wakeups switches" },
	{ OPT_DSQ_TOP, "dsq-top", "N",
	  "DSQ groups: the N first by dispatches, the rest in one \"(other)\" row (default all; "
	  "prometheus: 64)" },
	{ 'r', "report", "NAME", "run a report (repeatable, comma list, or all)" },
	{ 'n', "limit", "N", "rows per report table (default 20, 0 for all)" },
	{ 't', "threshold", "NAME=VALUE", "set a report threshold (repeatable)" },
	{ 'f', "format", "FORMAT",
	  "ndjson, text, prometheus or openmetrics (default: text on a terminal)",
	  "ndjson text prometheus openmetrics" },
	{ 'H', "human", NULL, "same as --format text" },
	{ OPT_NO_SNAPSHOT, "no-snapshot", NULL, "print only the reports, not the group snapshots" },
	{ OPT_SUMMARY, "summary", NULL,
	  "one compact summary record per interval, for scx-agg diff" },
	{ OPT_REORDER, "reorder", "DURATION",
	  "sort events within this window, as the stream's header says (default 100ms; 0 never sorts)" },
	{ OPT_TOPOLOGY, "topology", "FILE",
	  "topology JSON overriding the stream's and this machine's", "@file" },
	{ OPT_MAX_TASKS, "max-tasks", "N",
	  "track at most N tasks, forgetting the least recently seen (default 65536)" },
	{ 'o', "output", "FILE", "write to FILE instead of stdout", "@file" },
	{ OPT_TEXTFILE, "textfile", "FILE",
	  "rewrite FILE atomically with the prometheus figures at every interval (node_exporter)",
	  "@file" },
	{ 'v', "verbose", NULL, "more messages on stderr (repeatable)" },
	{ 0 },
};

/* the letters before the suite had one vocabulary (scx(7), OPTION LETTERS) */
static const struct scx_opt_old old_spellings[] = {
	{ 'I', 'i' },
	{ 'g', 'b' },
	{ 0 },
};

static const char *const subcommands[] = { "diff", NULL };

static struct scx_cmd cmd = {
	.name = "scx-agg",
	.subcommands = subcommands,
	.args = "[FILE]...",
	.summary = "Aggregate scheduler events per CPU, LLC, node, task and DSQ, and analyse them.",
	.opts = opts,
	.old = old_spellings,
};

/*
 * --help's list of reports and -r's completion words, from the report table
 * so that neither can miss a report.
 */
static void report_help(void)
{
	static struct scx_buf words, footer;

	scx_buf_addstr(&words, "all");
	scx_buf_addstr(&footer, "Reads stdin when no FILE is given.\n\nReports (-r NAME):\n");
	for (const struct scx_agg_report *r = scx_agg_reports; r->name; r++) {
		scx_buf_printf(&words, " %s", r->name);
		scx_buf_printf(&footer, "  %-20s%s\n", r->name, r->summary);
	}
	scx_buf_printf(&footer, "  %-20s%s\n", "all", "every report above");
	for (struct scx_opt *o = opts; o->key; o++)
		if (o->key == 'r')
			o->values = words.data;
	cmd.footer = footer.data;
}

struct ctx {
	enum fmt fmt;
	bool snapshots, summary;
	const struct scx_agg_report *reports[32];
	unsigned nr_reports;
	int fd;
	struct scx_buf out;
	int werr;
	struct scx_prom *prom; /* -f prometheus or --textfile */
	const char *textfile;
	struct scx_buf tf;
	int tf_err;		/* the last textfile error, warned once */
	struct scx_ksnap ksnap; /* the last kernel snapshot read */
	uint64_t nr_ksnaps, nr_events;
};

/*
 * A kernel snapshot (scx-events --aggregate): one interval of its own unless
 * --interval or --once said how to cut time.  Reports need single events.
 */
static int add_ksnap(struct ctx *c, struct scx_agg *a, struct scx_reader *r, const char *path,
		     bool own_interval)
{
	char err[256];

	for (unsigned i = 0; i < c->nr_reports; i++)
		if (!scx_agg_ksnap_report_ok(c->reports[i]->name))
			scx_die(SCX_EXIT_USAGE, "%s: report '%s' needs single events: %s", path,
				c->reports[i]->name, SCX_AGG_KSNAP_NO_EVENTS);
	if (scx_ksnap_from_json(scx_reader__doc(r), &c->ksnap, err, sizeof(err))) {
		scx_warn("%s: %s", path, err);
		return -EINVAL;
	}
	if (c->nr_events)
		scx_die(SCX_EXIT_FAIL, "the input mixes events and kernel snapshots");
	c->nr_ksnaps++;
	return scx_agg__add_ksnap(a, &c->ksnap, own_interval);
}

/* Rewrite the textfile with the cumulative figures. */
static void prom_textfile(struct ctx *c)
{
	char msg[4400];
	int err;

	if (!c->textfile)
		return;
	scx_buf_reset(&c->tf);
	scx_prom__write(c->prom, &c->tf);
	err = scx_prom_textfile_write(c->textfile, &c->tf, msg, sizeof(msg));
	/* an always-on collector keeps going through a full disk, saying so once */
	if (err && err != c->tf_err)
		scx_warn("%s", msg);
	else if (!err && c->tf_err)
		scx_warn("textfile '%s' written again", c->textfile);
	c->tf_err = err;
}

static int flush_out(struct ctx *c)
{
	int err;

	if (!c->out.len || c->werr)
		return c->werr;
	err = scx_write_all(c->fd, c->out.data, c->out.len);
	scx_buf_reset(&c->out);
	if (err)
		c->werr = err;
	return err;
}

static int on_snapshot(struct scx_agg *a, const struct scx_agg_snap *s, void *arg)
{
	struct ctx *c = arg;
	struct scx_report_ctx rc = { s->seq, s->start_ns, s->end_ns };

	if (c->prom) {
		scx_prom__add(c->prom, a, s);
		prom_textfile(c);
	}
	if (c->summary) {
		scx_agg_summary_json(a, &c->out);
	} else if (c->snapshots) {
		if (c->fmt == FMT_PROMETHEUS)
			scx_prom__write(c->prom, &c->out);
		else if (c->fmt == FMT_NDJSON)
			scx_agg_snap_json(&c->out, s);
		else if (c->fmt == FMT_TEXT)
			scx_agg_snap_text(&c->out, s);
		else
			scx_agg_snap_openmetrics(&c->out, s);
	} else if (c->fmt == FMT_TEXT) {
		char b0[32], b1[32];

		scx_buf_printf(&c->out, "interval %llu: %s .. %s  events %llu  lost %llu\n",
			       (unsigned long long)s->seq, scx_fmt_ns(s->start_ns, b0, sizeof(b0)),
			       scx_fmt_ns(s->end_ns, b1, sizeof(b1)), (unsigned long long)s->events,
			       (unsigned long long)s->lost);
	}
	for (unsigned i = 0; i < c->nr_reports; i++) {
		struct scx_table *t;
		int err = scx_agg__report(a, c->reports[i]->name, &t);

		if (err)
			return err;
		if (c->fmt == FMT_NDJSON)
			scx_report_json(&c->out, t, &rc);
		else if (c->fmt == FMT_TEXT)
			scx_report_text(&c->out, t, &rc);
		else
			scx_report_openmetrics(&c->out, t);
		scx_table_free(t);
	}
	if (c->fmt == FMT_OPENMETRICS || (c->fmt == FMT_PROMETHEUS && c->snapshots))
		scx_buf_addstr(&c->out, "# EOF\n");
	else if (c->fmt == FMT_TEXT)
		scx_buf_addstr(&c->out, "\n");
	return flush_out(c) ? -EPIPE : 0;
}

static int add_report(const char *item, size_t len, void *arg)
{
	struct ctx *c = arg;

	if (len == 3 && !strncmp(item, "all", 3)) {
		c->nr_reports = 0;
		for (const struct scx_agg_report *r = scx_agg_reports; r->name; r++)
			if (c->nr_reports < SCX_ARRAY_SIZE(c->reports))
				c->reports[c->nr_reports++] = r;
		return 0;
	}
	for (const struct scx_agg_report *r = scx_agg_reports; r->name; r++) {
		if (strlen(r->name) != len || strncmp(r->name, item, len))
			continue;
		for (unsigned k = 0; k < c->nr_reports; k++)
			if (c->reports[k] == r)
				return 0;
		if (c->nr_reports < SCX_ARRAY_SIZE(c->reports))
			c->reports[c->nr_reports++] = r;
		return 0;
	}
	scx_usage_error(&cmd, "unknown report '%.*s'", (int)len, item);
}

/* A cgroup record names an id for the cgroup groups (1); 0 for other lines; a malformed one is an error. */
static int cgroup_record(struct scx_agg *a, struct scx_reader *r, const char *path_in)
{
	const struct scx_json_doc *d = scx_reader__doc(r);
	char path[SCX_CGROUP_PATH_MAX], err[256];
	uint64_t id;
	int k;

	if (!d || (k = scx_cgroup_rec_parse(d, &id, path, sizeof(path), err, sizeof(err))) == 0)
		return 0;
	if (k < 0) {
		scx_warn("%s: before byte %llu: %s", path_in,
			 (unsigned long long)scx_reader__offset(r), err);
		return -EINVAL;
	}
	scx_agg__cgroup_name(a, id, path);
	return 1;
}

/*
 * A "missed" record (scx(7): program runs the kernel skipped, so events
 * that never reached the stream) counts as lost events on no known CPU (1);
 * 0 for other lines; a malformed one is an error.  The tally keeps its
 * count against the trailer's.
 */
static int missed_record(struct scx_agg *a, struct scx_reader *r, const char *path_in,
			 struct scx_lost_tally *l)
{
	char err[256];
	uint64_t n;
	int rc = scx_missed_record(scx_reader__doc(r), &n, err, sizeof(err));

	if (rc < 0) {
		scx_warn("%s: before byte %llu: %s", path_in,
			 (unsigned long long)scx_reader__offset(r), err);
		return rc;
	}
	if (rc) {
		scx_agg__note_lost(a, -1, n);
		l->missed += n;
	}
	return rc;
}

/* An scx_stats record goes into the interval (1); 0 for other lines; a malformed one is an error. */
static int scx_stats_record(struct scx_agg *a, struct scx_reader *r, const char *path_in)
{
	const struct scx_json_doc *d = scx_reader__doc(r);
	struct scx_stats s;
	char err[256];

	if (!d || !scx_stats_is(d))
		return 0;
	if (scx_stats_from_json(d, &s, err, sizeof(err))) {
		scx_warn("%s: before byte %llu: %s", path_in,
			 (unsigned long long)scx_reader__offset(r), err);
		return -EINVAL;
	}
	scx_agg__note_scx_stats(a, &s);
	return 1;
}

/* ---- scx-agg diff ------------------------------------------------------------- */

static const struct scx_opt diff_opts[] = {
	{ 'f', "format", "FORMAT", "ndjson, text or openmetrics (default: text on a terminal)",
	  "ndjson text openmetrics" },
	{ 'H', "human", NULL, "same as --format text" },
	{ 'n', "limit", "N", "rows of the comparison (default 20, 0 for all)" },
	{ OPT_ALPHA, "alpha", "P",
	  "a change is beyond noise when its p-value is below P (default 0.01)" },
	{ OPT_MIN_CHANGE, "min-change", "PCT",
	  "... and it is at least PCT percent of A's value (default 5)" },
	{ OPT_TOPOLOGY, "topology", "FILE", "topology JSON for inputs that carry none", "@file" },
	{ 'o', "output", "FILE", "write to FILE instead of stdout", "@file" },
	{ 'v', "verbose", NULL, "more messages on stderr (repeatable)" },
	{ 0 },
};

static const struct scx_cmd diff_cmd = {
	.name = "scx-agg diff",
	.args = "A B",
	.summary = "Compare two captures, recordings, Perfetto traces or --summary files.",
	.opts = diff_opts,
	.footer =
		"Exit status: 0 no regression beyond noise, 3 regressions found, 1 error, 2 usage.\n",
};

#define EXIT_REGRESSION 3

/* One input of diff: its summary, from summary records or from the events. */
struct diff_in {
	struct scx_sum *sum;
	struct scx_agg *agg;
	const struct scx_topo *topo;
	struct scx_buf line;
	char err[256];
	int failed;
};

static int diff_on_snap(struct scx_agg *a, const struct scx_agg_snap *s, void *arg)
{
	struct diff_in *in = arg;

	(void)s;
	scx_buf_reset(&in->line);
	scx_agg_summary_json(a, &in->line);
	if (scx_sum__add_json(in->sum, in->line.data, in->line.len - 1, in->err, sizeof(in->err)))
		in->failed = 1;
	return 0;
}

/* in's engine, started by its first event or cgroup record (in->topo is set by then) */
static struct scx_agg *diff_agg(struct diff_in *in)
{
	if (!in->agg) {
		struct scx_agg_opts o = {
			.by = SCX_SUMMARY_BY,
			.need = SCX_SUMMARY_NEED,
			.emit = diff_on_snap,
			.ctx = in,
		};

		if (!(in->agg = scx_agg__new(in->topo, &o)))
			scx_die(SCX_EXIT_FAIL, "cannot start: %s", strerror(errno));
	}
	return in->agg;
}

static int diff_event(void *arg, const struct scx_event *e)
{
	return scx_agg__add(diff_agg(arg), e);
}

static void diff_load(struct diff_in *in, const char *path, const struct scx_topo *topo)
{
	struct scx_reader *r = scx_reader__open(path);
	struct scx_event e;
	bool any = false;
	int st = SCX_READ_ERROR;

	in->sum = scx_sum__new();
	if (!r)
		scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", path, strerror(errno));
	while ((st = scx_reader__next(r, &e)) != SCX_READ_END && st != SCX_READ_ERROR) {
		if (!in->agg && (st == SCX_READ_OTHER || st == SCX_READ_EVENT)) {
			const struct scx_header *h = scx_reader__header(r);

			in->topo = topo ? topo : h && h->topo ? h->topo : NULL;
		}
		if (st == SCX_READ_OTHER) {
			size_t len;
			const char *l = scx_reader__line(r, &len);

			if (len > 18 && !memcmp(l, "{\"type\":\"summary\"", 17)) {
				if (scx_sum__add_json(in->sum, l, len, in->err, sizeof(in->err)))
					scx_die(SCX_EXIT_FAIL, "%s: summary: %s", path, in->err);
				any = true;
			} else if (scx_reader__doc(r) && cgroup_record(diff_agg(in), r, path) < 0) {
				scx_die(SCX_EXIT_FAIL, "%s: bad cgroup record", path);
			}
			continue;
		}
		if (st != SCX_READ_EVENT)
			continue;
		any = true;
		diff_event(in, &e);
	}
	if (st == SCX_READ_ERROR && !any) {
		/* not a stream nor a summary: a Perfetto trace? */
		struct scx_pf_opts po = { .on_event = diff_event, .ctx = in };
		struct scx_pf_trace *t = NULL;
		char msg[512];
		int err;

		snprintf(msg, sizeof(msg), "%s", scx_reader__error(r));
		in->topo = topo;
		err = scx_pf_read_path(path, &po, &t);
		if (err && !in->agg && err != -EFBIG)
			scx_die(SCX_EXIT_FAIL, "%s", msg);
		if (err)
			scx_die(SCX_EXIT_FAIL, "%s", t && t->error[0] ? t->error : strerror(-err));
		scx_pf_trace__free(t);
	} else if (st == SCX_READ_ERROR) {
		scx_die(SCX_EXIT_FAIL, "%s", scx_reader__error(r));
	}
	scx_reader__free(r);
	if (in->agg) {
		scx_agg__flush(in->agg);
		if (in->failed)
			scx_die(SCX_EXIT_FAIL, "%s: %s", path, in->err);
	}
	if (!scx_sum__records(in->sum))
		scx_die(SCX_EXIT_FAIL, "%s: no events and no summary records", path);
}

static int diff_main(int argc, char **argv)
{
	struct scx_diff_opts o = { .limit = 20 };
	struct diff_in in[2] = { 0 };
	struct scx_topo *topo = NULL;
	struct scx_diff_verdict v;
	struct scx_table *t;
	struct scx_buf b = { 0 };
	struct scx_report_ctx rc = { 0 };
	enum fmt fmt = FMT_AUTO;
	const char *arg, *out_path = NULL;
	int key, fd = STDOUT_FILENO, rc_exit;
	uint64_t u;

	while ((key = scx_getopt(&diff_cmd, argc, argv, &arg)) != -1) {
		char *end;

		switch (key) {
		case 'f':
			if (!strcmp(arg, "ndjson") || !strcmp(arg, "json"))
				fmt = FMT_NDJSON;
			else if (!strcmp(arg, "text"))
				fmt = FMT_TEXT;
			else if (!strcmp(arg, "openmetrics"))
				fmt = FMT_OPENMETRICS;
			else
				scx_usage_error(&diff_cmd, "unknown format '%s'", arg);
			break;
		case 'H':
			fmt = FMT_TEXT;
			break;
		case 'n':
			if (scx_parse_u64(arg, &u) || u > 1000000)
				scx_usage_error(&diff_cmd, "bad limit '%s'", arg);
			o.limit = (unsigned)u;
			break;
		case OPT_ALPHA:
			o.alpha = strtod(arg, &end);
			if (end == arg || *end || !(o.alpha > 0 && o.alpha < 1))
				scx_usage_error(&diff_cmd, "bad alpha '%s': use 0 < P < 1", arg);
			break;
		case OPT_MIN_CHANGE:
			o.min_change = strtod(arg, &end) / 100;
			if (end == arg || *end || !(o.min_change > 0))
				scx_usage_error(&diff_cmd, "bad min-change '%s'", arg);
			break;
		case OPT_TOPOLOGY: {
			char msg[256] = "";

			if (!(topo = scx_topo__from_file(arg, msg, sizeof(msg))))
				scx_die(SCX_EXIT_FAIL, "cannot read topology '%s': %s", arg,
					msg[0] ? msg : strerror(errno));
			break;
		}
		case 'o':
			out_path = arg;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
	}
	if (argc - optind != 2)
		scx_usage_error(&diff_cmd, "need two inputs, A and B");
	signal(SIGPIPE, SIG_IGN);
	for (int i = 0; i < 2; i++)
		diff_load(&in[i], argv[optind + i], topo);
	if (out_path && strcmp(out_path, "-")) {
		fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0)
			scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", out_path, strerror(errno));
	}
	if (fmt == FMT_AUTO)
		fmt = isatty(fd) ? FMT_TEXT : FMT_NDJSON;
	scx_agg_diff(in[0].sum, in[1].sum, &o, &t, &v);
	if (fmt == FMT_NDJSON) {
		scx_report_json(&b, t, &rc);
	} else if (fmt == FMT_TEXT) {
		scx_report_text(&b, t, &rc);
		scx_buf_printf(&b, "\n%s\n", v.line);
	} else {
		scx_report_openmetrics(&b, t);
		scx_buf_addstr(&b, "# EOF\n");
	}
	rc_exit = v.regressions ? EXIT_REGRESSION : SCX_EXIT_OK;
	if ((key = scx_write_all(fd, b.data, b.len)) && key != -EPIPE) {
		scx_warn("cannot write output: %s", strerror(-key));
		rc_exit = SCX_EXIT_FAIL;
	}
	if (fd != STDOUT_FILENO && close(fd)) {
		scx_warn("cannot write '%s': %s", out_path, strerror(errno));
		rc_exit = SCX_EXIT_FAIL;
	}
	scx_table_free(t);
	scx_buf_free(&b);
	for (int i = 0; i < 2; i++) {
		scx_agg__free(in[i].agg);
		scx_sum__free(in[i].sum);
		scx_buf_free(&in[i].line);
	}
	scx_topo__free(topo);
	return rc_exit;
}

/* One aggregation: the command line, the engine once the first input's
 * header is known, and what the inputs have said so far. */
struct run {
	struct ctx c;
	struct scx_agg_opts ao;
	const char *out_path, *topo_path;
	const char *thr[64]; /* NAME=VALUE, set once the engine exists */
	unsigned nthr;
	bool by_given, no_snap, reorder_given, interval_given;
	struct scx_topo *topo_file, *topo_sys;
	struct scx_lost_tally lost;
	struct scx_agg *a;
	int rc, err;
};

static void parse_args(struct run *R, int argc, char **argv)
{
	struct scx_agg_opts *ao = &R->ao;
	struct ctx *c = &R->c;
	const char *arg;
	int key;

	while ((key = scx_getopt(&cmd, argc, argv, &arg)) != -1) {
		uint64_t v;

		switch (key) {
		case 'I':
			if (scx_parse_duration(arg, &ao->interval_ns) || !ao->interval_ns)
				scx_usage_error(&cmd, "bad interval '%s'", arg);
			R->interval_given = true;
			break;
		case OPT_ONCE:
			ao->interval_ns = 0;
			R->interval_given = true;
			break;
		case 'g':
			if (scx_agg_parse_by(arg, &ao->by))
				scx_usage_error(&cmd,
						"bad --by '%s': use cpu,llc,node,pid,tgid,comm,dsq,"
						"cgroup",
						arg);
			R->by_given = true;
			break;
		case OPT_CG_DEPTH:
			if (scx_parse_u64(arg, &v) || v > 64)
				scx_usage_error(&cmd, "bad cgroup depth '%s': 0 to 64", arg);
			ao->cgroup_depth = (unsigned)v;
			break;
		case OPT_CG_TOP:
			if (scx_parse_u64(arg, &v) || !v || v > 100000)
				scx_usage_error(&cmd, "bad cgroup top '%s': 1 to 100000", arg);
			ao->cgroup_top = (unsigned)v;
			break;
		case OPT_DSQ_TOP:
			if (scx_parse_u64(arg, &v) || !v || v > 100000)
				scx_usage_error(&cmd, "bad DSQ top '%s': 1 to 100000", arg);
			ao->dsq_top = (unsigned)v;
			break;
		case OPT_CG_SORT: {
			unsigned k;

			for (k = 0; k < SCX_AGG_CGSORT__COUNT; k++)
				if (!strcmp(arg, scx_agg_cgsort_names[k]))
					break;
			if (k == SCX_AGG_CGSORT__COUNT)
				scx_usage_error(&cmd,
						"bad cgroup sort '%s': busy, rq-delay, rq-p99, "
						"wakeups or switches",
						arg);
			ao->cgroup_sort = k;
			break;
		}
		case 'r':
			scx_split_list(arg, add_report, c);
			break;
		case 'n':
			if (scx_parse_u64(arg, &v) || v > 1000000)
				scx_usage_error(&cmd, "bad limit '%s'", arg);
			ao->limit = v ? (unsigned)v : UINT32_MAX;
			break;
		case 't':
			if (!strchr(arg, '=') || R->nthr == SCX_ARRAY_SIZE(R->thr))
				scx_usage_error(&cmd, "bad threshold '%s': use NAME=VALUE", arg);
			R->thr[R->nthr++] = arg;
			break;
		case 'f':
			if (!strcmp(arg, "ndjson") || !strcmp(arg, "json"))
				c->fmt = FMT_NDJSON;
			else if (!strcmp(arg, "text"))
				c->fmt = FMT_TEXT;
			else if (!strcmp(arg, "openmetrics"))
				c->fmt = FMT_OPENMETRICS;
			else if (!strcmp(arg, "prometheus"))
				c->fmt = FMT_PROMETHEUS;
			else
				scx_usage_error(&cmd, "unknown format '%s'", arg);
			break;
		case 'H':
			c->fmt = FMT_TEXT;
			break;
		case OPT_NO_SNAPSHOT:
			R->no_snap = true;
			break;
		case OPT_SUMMARY:
			c->summary = true;
			break;
		case OPT_REORDER:
			if (scx_parse_duration(arg, &ao->reorder_ns))
				scx_usage_error(&cmd, "bad reorder window '%s'", arg);
			R->reorder_given = true;
			break;
		case OPT_TOPOLOGY:
			R->topo_path = arg;
			break;
		case OPT_MAX_TASKS:
			if (scx_agg_parse_max_tasks(arg, &ao->max_tasks))
				scx_usage_error(&cmd, "bad --max-tasks '%s': use 1 to %u", arg,
						SCX_AGG_MAX_TASKS_LIMIT);
			break;
		case 'o':
			R->out_path = arg;
			break;
		case OPT_TEXTFILE:
			c->textfile = arg;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
	}
}

/* What goes out and where (format, snapshots, Prometheus, the output file),
 * the topology file, and what the engine must keep for it. */
static void plan(struct run *R, int argc, char **argv)
{
	struct ctx *c = &R->c;

	signal(SIGPIPE, SIG_IGN);
	for (int i = optind; R->out_path && i < argc; i++)
		if (scx_same_file(argv[i], R->out_path))
			scx_die(SCX_EXIT_USAGE, "'%s' is both an input and the output",
				R->out_path);
	if (c->fmt == FMT_PROMETHEUS && c->nr_reports)
		scx_usage_error(
			&cmd,
			"reports are per-interval tables: use -f openmetrics or ndjson for them");
	if (c->textfile) {
		char msg[4400];

		if (scx_prom_textfile_check(c->textfile, msg, sizeof(msg)))
			scx_die(SCX_EXIT_FAIL, "%s", msg);
		/* the textfile is the output unless one was asked for too */
		if (c->fmt == FMT_AUTO && !R->out_path && !c->nr_reports)
			R->no_snap = true;
	}
	if (c->fmt == FMT_PROMETHEUS || c->textfile) {
		c->prom = scx_prom__new(R->ao.dsq_top);
		scx_prom__set_cgroup_cap(c->prom, R->ao.cgroup_top);
	}
	if (R->out_path && strcmp(R->out_path, "-")) {
		c->fd = open(R->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (c->fd < 0)
			scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", R->out_path,
				strerror(errno));
	}
	if (c->summary && c->fmt != FMT_AUTO && c->fmt != FMT_NDJSON)
		scx_usage_error(&cmd, "--summary writes NDJSON only");
	if (c->summary)
		c->fmt = FMT_NDJSON;
	if (c->fmt == FMT_AUTO)
		c->fmt = isatty(c->fd) ? FMT_TEXT : FMT_NDJSON;
	/* with reports only, the snapshots are noise unless --by asked for them */
	c->snapshots = !R->no_snap && !c->summary && (R->by_given || !c->nr_reports);
	if (R->topo_path) {
		char msg[256] = "";

		if (!(R->topo_file = scx_topo__from_file(R->topo_path, msg, sizeof(msg))))
			scx_die(SCX_EXIT_FAIL, "cannot read topology '%s': %s", R->topo_path,
				msg[0] ? msg : strerror(errno));
	}
	/* keep only what the reports read: per-CPU metrics alone are much cheaper */
	R->ao.need = SCX_AGG_NEED_CPUS;
	if (c->summary) {
		R->ao.by = SCX_SUMMARY_BY;
		R->ao.need |= SCX_SUMMARY_NEED;
	}
	for (unsigned i = 0; i < c->nr_reports; i++)
		R->ao.need |= c->reports[i]->needs;
	R->ao.emit = on_snapshot;
	R->ao.ctx = c;
}

/* -t NAME=VALUE, once the engine knows its thresholds' names. */
static void set_thresholds(struct run *R)
{
	for (unsigned k = 0; k < R->nthr; k++) {
		const char *t = R->thr[k];
		char name[64];
		const char *eq = strchr(t, '=');
		char *end;
		double v = strtod(eq + 1, &end);

		snprintf(name, sizeof(name), "%.*s", (int)(eq - t), t);
		if (end == eq + 1 || *end || scx_agg__set_threshold(R->a, name, v))
			scx_usage_error(&cmd,
					"bad threshold '%s' (a known name and a number from 0; "
					"percentages to 100)",
					t);
	}
}

/* The engine, at the first record: the topology and the time order come
 * from the first input's header unless the command line gave them. */
static void start_engine(struct run *R, struct scx_reader *r)
{
	const struct scx_header *h = scx_reader__header(r);
	const struct scx_topo *t = R->topo_file;

	if (!t && h && h->topo)
		t = h->topo;
	/* a header without topology still says how many cpus the
	 * traced machine had; this machine's are only a last guess */
	if (!t && h && h->nr_cpus)
		R->ao.nr_cpus = h->nr_cpus;
	else if (!t && (R->topo_sys = scx_topo__from_sysfs("/sys")))
		t = R->topo_sys;
	/* the header says how to sort, as in scx-mcp's loader */
	struct scx_order_plan op = scx_order_plan(
		h, R->reorder_given ? R->ao.reorder_ns : SCX_REORDER_UNSET, scx_order_legacy_ns(h));

	R->ao.reorder_ns = op.window_ns;
	R->ao.reorder_from_start = op.from_start;
	if (!(R->a = scx_agg__new(t, &R->ao)))
		scx_die(SCX_EXIT_FAIL, "cannot start: %s", strerror(errno));
	if (R->c.prom) {
		/* every series at 0 before the first interval */
		scx_prom__start(R->c.prom, R->a, R->ao.by);
		prom_textfile(&R->c);
	}
	set_thresholds(R);
}

/* After an input's last record: what only its end knows (records nobody
 * read, losses only the trailer counted) and its reader's warnings. */
static void end_input(struct run *R, struct scx_reader *r, int st, uint64_t ks0,
		      uint64_t cgroup_recs, uint64_t scx_recs, uint64_t missed_recs)
{
	const char *msg;

	if (R->a && st == SCX_READ_END) {
		const struct scx_trailer *tr = scx_reader__trailer(r);

		/* kernel snapshots, cgroup, scx_stats and missed records are
		 * JSON records the reader passed on, not unknown */
		uint64_t other = scx_reader__skipped(r) - cgroup_recs - scx_recs - missed_recs;

		scx_agg__note_unknown(R->a, other - SCX_MIN(other, R->c.nr_ksnaps - ks0));
		/* lost counts only the trailer knows (no LOST record carried them) */
		for (unsigned k = 0; tr && k < tr->nr_cpus; k++) {
			uint64_t n = scx_lost_tally__unseen(&R->lost, tr, k);

			if (n)
				scx_agg__note_lost(R->a, k, n);
		}
		/* skipped runs only the trailer knows (no missed record carried them) */
		uint64_t unseen = scx_lost_tally__missed_unseen(&R->lost, tr);

		if (unseen)
			scx_agg__note_lost(R->a, -1, unseen);
	}
	if (st == SCX_READ_END && scx_reader__warning(r))
		scx_warn("%s", scx_reader__warning(r));
	if (scx_reader__disorder(r, &msg) && R->ao.reorder_ns)
		scx_warn("%s; sorted within %llu ms from there", msg,
			 (unsigned long long)(R->ao.reorder_ns / 1000000));
	else if (scx_reader__disorder(r, &msg))
		scx_warn("%s; counted in out_of_order (--reorder 0)", msg);
}

/* One input, record by record, into the engine; errors land in R->rc
 * (reported) or R->err (the engine's). */
static void read_input(struct run *R, const char *path)
{
	struct ctx *c = &R->c;
	struct scx_reader *r = scx_reader__open(path);
	uint64_t ks0 = c->nr_ksnaps;
	struct scx_event e;
	uint64_t cgroup_recs = 0, scx_recs = 0, missed_recs = 0;
	int st, cgk;

	if (!r)
		scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", path, strerror(errno));
	while ((st = scx_reader__next(r, &e)) != SCX_READ_END) {
		if (st == SCX_READ_ERROR) {
			scx_warn("%s", scx_reader__error(r));
			R->rc = SCX_EXIT_FAIL;
			break;
		}
		if (!R->a)
			start_engine(R, r);
		if (st == SCX_READ_OTHER && scx_reader__doc(r) &&
		    scx_ksnap_is(scx_reader__doc(r))) {
			if ((R->err = add_ksnap(c, R->a, r, path, !R->interval_given))) {
				if (R->err == -EINVAL) {
					R->rc = SCX_EXIT_FAIL;
					R->err = 0;
				}
				break;
			}
			continue;
		}
		if (st == SCX_READ_OTHER && (cgk = cgroup_record(R->a, r, path))) {
			if (cgk < 0) {
				R->rc = SCX_EXIT_FAIL;
				break;
			}
			cgroup_recs++;
		}
		if (st == SCX_READ_OTHER && (cgk = scx_stats_record(R->a, r, path))) {
			if (cgk < 0) {
				R->rc = SCX_EXIT_FAIL;
				break;
			}
			scx_recs++;
		}
		if (st == SCX_READ_OTHER && (cgk = missed_record(R->a, r, path, &R->lost))) {
			if (cgk < 0) {
				R->rc = SCX_EXIT_FAIL;
				break;
			}
			missed_recs++;
		}
		if (st != SCX_READ_EVENT)
			continue;
		if (c->nr_ksnaps)
			scx_die(SCX_EXIT_FAIL, "the input mixes events and kernel snapshots");
		c->nr_events++;
		scx_lost_tally__add(&R->lost, &e);
		if ((R->err = scx_agg__add(R->a, &e)))
			break;
	}
	end_input(R, r, st, ks0, cgroup_recs, scx_recs, missed_recs);
	scx_reader__free(r);
}

/* The last interval, the output's end, and the exit status. */
static int finish(struct run *R)
{
	struct ctx *c = &R->c;
	int rc = R->rc;

	if (!R->a && !rc) {
		/* empty input: still one (empty) snapshot, so a pipeline sees a result */
		if (!(R->a = scx_agg__new(R->topo_file, &R->ao)))
			scx_die(SCX_EXIT_FAIL, "cannot start: %s", strerror(errno));
	}
	/* kernel snapshots that were intervals of their own are all out already */
	if (R->a && !rc && !c->werr && !(c->nr_ksnaps && !R->interval_given))
		scx_agg__flush(R->a);
	flush_out(c);
	if (c->werr && c->werr != -EPIPE) {
		scx_warn("cannot write output: %s", strerror(-c->werr));
		rc = SCX_EXIT_FAIL;
	}
	scx_agg__free(R->a);
	scx_topo__free(R->topo_file);
	scx_topo__free(R->topo_sys);
	scx_lost_tally__free(&R->lost);
	scx_buf_free(&c->out);
	scx_buf_free(&c->tf);
	scx_prom__free(c->prom);
	scx_ksnap_free(&c->ksnap);
	if (c->tf_err && !rc)
		rc = SCX_EXIT_FAIL;
	if (c->fd != STDOUT_FILENO && close(c->fd) && !rc) {
		scx_warn("cannot write '%s': %s", R->out_path, strerror(errno));
		rc = SCX_EXIT_FAIL;
	}
	return rc;
}

int main(int argc, char **argv)
{
	static struct run R = { .c.fd = STDOUT_FILENO, .rc = SCX_EXIT_OK };

	scx_set_prog(argv[0]);
	if (argc > 1 && !strcmp(argv[1], "diff"))
		return diff_main(argc - 1, argv + 1);
	report_help();
	parse_args(&R, argc, argv);
	plan(&R, argc, argv);
	for (int i = optind; i < argc || i == optind; i++) {
		read_input(&R, i < argc ? argv[i] : "-");
		if (R.rc || R.c.werr || R.err)
			break;
		scx_lost_tally__reset(&R.lost);
	}
	return finish(&R);
}
