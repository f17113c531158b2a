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
#include "core/opts.h"
#include "agg/table.h"
#include "stream/stream.h"
#include "core/util.h"

enum { OPT_ONCE = 256, OPT_TOPOLOGY, OPT_NO_SNAPSHOT, OPT_REORDER };
enum fmt { FMT_AUTO, FMT_NDJSON, FMT_TEXT, FMT_OPENMETRICS };

static const struct scx_opt opts[] = {
	{ 'i', "interval", "DURATION", "one snapshot per DURATION of event time (e.g. 1s, 250ms)" },
	{ OPT_ONCE, "once", NULL, "one snapshot for the whole input (the default)" },
	{ 'b', "by", "LIST", "group by cpu,llc,node,pid,tgid,comm,dsq or all (default cpu,llc,node)",
	  "cpu llc node pid tgid comm dsq all" },
	{ 'r', "report", "NAME", "run a report (repeatable, comma list, or all)",
	  "all cpu-utilization process-runtime wakeup-latency latency-breakdown migrations "
	  "task-states preemptions wakeup-graph runqueue-depth fairness softirq ipi "
	  "cpu-frequency cpu-idle dsq outliers bottlenecks work-conservation runqueue-occupancy "
	  "wakeup-placement pre-migration parallelism" },
	{ 'n', "limit", "N", "rows per report table (default 20, 0 for all)" },
	{ 't', "threshold", "NAME=VALUE", "set a report threshold (repeatable)" },
	{ 'f', "format", "FORMAT", "ndjson, text or openmetrics (default: text on a terminal)",
	  "ndjson text openmetrics" },
	{ 'H', "human", NULL, "same as --format text" },
	{ OPT_NO_SNAPSHOT, "no-snapshot", NULL, "print only the reports, not the group snapshots" },
	{ OPT_REORDER, "reorder", "DURATION",
	  "sort events within this window once any arrives out of order (default 100ms for scx-events, else 0)" },
	{ OPT_TOPOLOGY, "topology", "FILE", "topology JSON overriding the stream's and this machine's",
	  "@file" },
	{ 'o', "output", "FILE", "write to FILE instead of stdout", "@file" },
	{ 'v', "verbose", NULL, "more messages on stderr (repeatable)" },
	{ 0 },
};

static const struct scx_cmd cmd = {
	.name = "scx-agg",
	.args = "[FILE]...",
	.summary = "Aggregate scheduler events per CPU, LLC, node, task and DSQ, and analyse them.",
	.opts = opts,
	.footer = "Reads stdin when no FILE is given.  Reports: cpu-utilization process-runtime\n"
		  "wakeup-latency latency-breakdown migrations task-states preemptions wakeup-graph\n"
		  "runqueue-depth fairness softirq ipi cpu-frequency cpu-idle dsq outliers bottlenecks\n"
		  "work-conservation runqueue-occupancy wakeup-placement pre-migration parallelism.\n",
};

struct ctx {
	enum fmt fmt;
	bool snapshots;
	const char *reports[32];
	unsigned nr_reports;
	int fd;
	struct scx_buf out;
	int werr;
};

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

	if (c->snapshots) {
		if (c->fmt == FMT_NDJSON)
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
		int err = scx_agg__report(a, c->reports[i], &t);

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
	if (c->fmt == FMT_OPENMETRICS)
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
		for (unsigned i = 0; scx_agg_report_names[i]; i++)
			c->reports[c->nr_reports++] = scx_agg_report_names[i];
		return 0;
	}
	for (unsigned i = 0; scx_agg_report_names[i]; i++) {
		if (strlen(scx_agg_report_names[i]) != len || strncmp(scx_agg_report_names[i], item, len))
			continue;
		for (unsigned k = 0; k < c->nr_reports; k++)
			if (c->reports[k] == scx_agg_report_names[i])
				return 0;
		if (c->nr_reports < SCX_ARRAY_SIZE(c->reports))
			c->reports[c->nr_reports++] = scx_agg_report_names[i];
		return 0;
	}
	scx_usage_error(&cmd, "unknown report '%.*s'", (int)len, item);
}

/* Events lost per CPU as the stream's LOST records said, to compare with its trailer. */
struct lost_seen {
	uint64_t *cpu;
	unsigned n;
	uint64_t other;
};

static void lost_add(struct lost_seen *l, int cpu, uint64_t count)
{
	if (cpu < 0 || cpu > 65535) {
		l->other += count;
		return;
	}
	if ((unsigned)cpu >= l->n) {
		unsigned n = cpu + 1;

		l->cpu = scx_xrealloc(l->cpu, n * sizeof(*l->cpu));
		memset(l->cpu + l->n, 0, (n - l->n) * sizeof(*l->cpu));
		l->n = n;
	}
	l->cpu[cpu] += count;
}

int main(int argc, char **argv)
{
	struct scx_agg_opts ao = { 0 };
	struct ctx c = { .fd = STDOUT_FILENO };
	struct scx_topo *topo_file = NULL, *topo_sys = NULL;
	const char *out_path = NULL, *topo_path = NULL;
	const char *thr[64];
	unsigned nthr = 0;
	struct lost_seen lost = { 0 };
	struct scx_agg *a = NULL;
	bool by_given = false, no_snap = false, reorder_given = false;
	const char *arg;
	int key, rc = SCX_EXIT_OK, err = 0;

	scx_set_prog(argv[0]);
	while ((key = scx_getopt(&cmd, argc, argv, &arg)) != -1) {
		uint64_t v;

		switch (key) {
		case 'i':
			if (scx_parse_duration(arg, &ao.interval_ns) || !ao.interval_ns)
				scx_usage_error(&cmd, "bad interval '%s'", arg);
			break;
		case OPT_ONCE:
			ao.interval_ns = 0;
			break;
		case 'b':
			if (scx_agg_parse_by(arg, &ao.by))
				scx_usage_error(&cmd, "bad --by '%s': use cpu,llc,node,pid,tgid,comm,dsq", arg);
			by_given = true;
			break;
		case 'r':
			scx_split_list(arg, add_report, &c);
			break;
		case 'n':
			if (scx_parse_u64(arg, &v) || v > 1000000)
				scx_usage_error(&cmd, "bad limit '%s'", arg);
			ao.limit = v ? (unsigned)v : UINT32_MAX;
			break;
		case 't':
			if (!strchr(arg, '=') || nthr == SCX_ARRAY_SIZE(thr))
				scx_usage_error(&cmd, "bad threshold '%s': use NAME=VALUE", arg);
			thr[nthr++] = arg;
			break;
		case 'f':
			if (!strcmp(arg, "ndjson") || !strcmp(arg, "json"))
				c.fmt = FMT_NDJSON;
			else if (!strcmp(arg, "text"))
				c.fmt = FMT_TEXT;
			else if (!strcmp(arg, "openmetrics") || !strcmp(arg, "prometheus"))
				c.fmt = FMT_OPENMETRICS;
			else
				scx_usage_error(&cmd, "unknown format '%s'", arg);
			break;
		case 'H':
			c.fmt = FMT_TEXT;
			break;
		case OPT_NO_SNAPSHOT:
			no_snap = true;
			break;
		case OPT_REORDER:
			if (scx_parse_duration(arg, &ao.reorder_ns))
				scx_usage_error(&cmd, "bad reorder window '%s'", arg);
			reorder_given = true;
			break;
		case OPT_TOPOLOGY:
			topo_path = arg;
			break;
		case 'o':
			out_path = arg;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
	}
	signal(SIGPIPE, SIG_IGN);
	if (out_path && strcmp(out_path, "-")) {
		c.fd = open(out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (c.fd < 0)
			scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", out_path, strerror(errno));
	}
	if (c.fmt == FMT_AUTO)
		c.fmt = isatty(c.fd) ? FMT_TEXT : FMT_NDJSON;
	/* with reports only, the snapshots are noise unless --by asked for them */
	c.snapshots = !no_snap && (by_given || !c.nr_reports);
	if (topo_path) {
		char msg[256] = "";

		if (!(topo_file = scx_topo__from_file(topo_path, msg, sizeof(msg))))
			scx_die(SCX_EXIT_FAIL, "cannot read topology '%s': %s", topo_path,
				msg[0] ? msg : strerror(errno));
	}
	/* keep only what the reports read: per-CPU metrics alone are much cheaper */
	ao.need = SCX_AGG_NEED_CPUS;
	for (unsigned i = 0; i < c.nr_reports; i++)
		ao.need |= scx_agg_report_needs(c.reports[i]);
	ao.emit = on_snapshot;
	ao.ctx = &c;

	for (int i = optind; i < argc || i == optind; i++) {
		const char *path = i < argc ? argv[i] : "-";
		struct scx_reader *r = scx_reader__open(path);
		struct scx_event e;
		int st;

		if (!r)
			scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", path, strerror(errno));
		while ((st = scx_reader__next(r, &e)) != SCX_READ_END) {
			if (st == SCX_READ_ERROR) {
				scx_warn("%s", scx_reader__error(r));
				rc = SCX_EXIT_FAIL;
				break;
			}
			if (!a) {
				const struct scx_header *h = scx_reader__header(r);
				const struct scx_topo *t = topo_file;

				if (!t && h && h->topo)
					t = h->topo;
				if (!t && (topo_sys = scx_topo__from_sysfs("/sys")))
					t = topo_sys;
				/* scx-events stages events per CPU: its stream is sorted
				 * only within its flush interval (50 ms by default) */
				if (!reorder_given && h && !strcmp(h->producer, "scx-events"))
					ao.reorder_ns = 100000000;
				if (!(a = scx_agg__new(t, &ao)))
					scx_die(SCX_EXIT_FAIL, "cannot start: %s", strerror(errno));
				for (unsigned k = 0; k < nthr; k++) {
					char name[64];
					const char *eq = strchr(thr[k], '=');
					char *end;
					double v = strtod(eq + 1, &end);

					snprintf(name, sizeof(name), "%.*s", (int)(eq - thr[k]), thr[k]);
					if (end == eq + 1 || *end || scx_agg__set_threshold(a, name, v))
						scx_usage_error(&cmd, "bad threshold '%s'", thr[k]);
				}
			}
			if (st != SCX_READ_EVENT)
				continue;
			if (e.type == SCX_EV_LOST)
				lost_add(&lost, e.cpu, e.lost.count);
			if ((err = scx_agg__add(a, &e)))
				break;
		}
		if (a && st == SCX_READ_END) {
			const struct scx_trailer *tr = scx_reader__trailer(r);

			scx_agg__note_unknown(a, scx_reader__skipped(r));
			/* lost counts only the trailer knows (no LOST record carried them) */
			for (unsigned k = 0; tr && tr->lost && k < tr->nr_cpus; k++) {
				uint64_t seen = k < lost.n ? lost.cpu[k] : 0;

				if (tr->lost[k] > seen)
					scx_agg__note_lost(a, k, tr->lost[k] - seen);
			}
		}
		scx_reader__free(r);
		if (rc || c.werr || err)
			break;
		if (lost.cpu)
			memset(lost.cpu, 0, lost.n * sizeof(*lost.cpu));
	}
	if (!a && !rc) {
		/* empty input: still one (empty) snapshot, so a pipeline sees a result */
		if (!(a = scx_agg__new(topo_file, &ao)))
			scx_die(SCX_EXIT_FAIL, "cannot start: %s", strerror(errno));
	}
	if (a && !rc && !c.werr)
		scx_agg__flush(a);
	flush_out(&c);
	if (c.werr && c.werr != -EPIPE) {
		scx_warn("cannot write output: %s", strerror(-c.werr));
		rc = SCX_EXIT_FAIL;
	}
	scx_agg__free(a);
	scx_topo__free(topo_file);
	scx_topo__free(topo_sys);
	free(lost.cpu);
	scx_buf_free(&c.out);
	if (c.fd != STDOUT_FILENO && close(c.fd) && !rc) {
		scx_warn("cannot write '%s': %s", out_path, strerror(errno));
		rc = SCX_EXIT_FAIL;
	}
	return rc;
}
