// SPDX-License-Identifier: GPL-2.0
/*
 * scx-perfetto: scx events -> Perfetto trace (default), or with -i a
 * Perfetto trace (ours, traced's, wprof's) -> scx events.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/opts.h"
#include "perfetto/perfetto_read.h"
#include "perfetto/perfetto_write.h"
#include "stream/lost.h"
#include "stream/stream.h"
#include "core/util.h"

enum {
	OPT_NO_COMPACT = 256,
	OPT_DEFLATE,
	OPT_STAT,
	OPT_SOURCE,
	OPT_RAW_STATE,
	OPT_FORMAT,
	OPT_COMPRESS,
	OPT_BUNDLE,
	OPT_READABLE,
};

static const struct scx_opt opts[] = {
	{ 'i', "input", "TRACE", "read a Perfetto trace and write its events", "@file" },
	{ 'o', "output", "FILE", "write to FILE instead of stdout ('-' = stdout)", "@file" },
	{ OPT_STAT, "stat", NULL, "with -i: print a summary of the trace instead of events" },
	{ OPT_FORMAT, "format", "FORMAT", "with -i: event format to write", "ndjson binary" },
	{ OPT_COMPRESS, "compress", "CODEC", "with -i: compress the event stream",
	  "none gzip zstd" },
	{ OPT_SOURCE, "source", "SOURCE",
	  "with -i: scheduler events from ftrace bundles, track events, or auto",
	  "auto ftrace track" },
	{ OPT_RAW_STATE, "raw-state", NULL, "with -i: keep prev_state as the trace has it" },
	{ 'm', "max-trace-memory", "SIZE",
	  "with -i: most memory the trace may need, inflated and decoded (default 1G)" },
	{ OPT_NO_COMPACT, "no-compact", NULL,
	  "write plain sched_switch/sched_waking, not compact_sched" },
	{ OPT_DEFLATE, "deflate", NULL, "write deflate compressed_packets" },
	{ OPT_BUNDLE, "bundle-events", "N", "events per cpu bundle (default 1024)" },
	{ OPT_READABLE, "readable", NULL,
	  "add waiting slices, wakeup flows and run queue depth counters" },
	{ 'v', "verbose", NULL, "more messages" },
	{ 0 },
};

static const struct scx_cmd cmd = {
	.name = "scx-perfetto",
	.args = "[EVENTS]",
	.summary =
		"Convert scx events to a Perfetto trace, or (-i) a Perfetto trace to scx events.",
	.opts = opts,
	.footer = "Examples:\n"
		  "  scx-events -d 30 | scx-perfetto -o sched.pftrace\n"
		  "  scx-perfetto -i wprof.pb.zst | scx-agg --report all\n"
		  "  scx-perfetto -i trace.pb --stat\n",
};

static volatile sig_atomic_t stop;
static int input_fd = -1;

/*
 * Ctrl-C reaches the whole pipeline; SIGTERM from a supervisor: stop reading
 * and finish the trace cleanly.  Closing the input ends a read blocked on an
 * idle pipe: the kernel restarts the interrupted read(2), and the restart
 * looks the descriptor up again and fails with EBADF (t/3006 checks).
 */
static bool stopping(void)
{
	return stop;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
	if (input_fd >= 0)
		close(input_fd);
}

struct rd_ctx {
	struct scx_writer *w;
	const char *out;
	int err;
	uint64_t lost[SCX_MAX_CPUS]; /* for the trailer */
	unsigned lost_cpus;
};

static int on_trace(void *ctx, const struct scx_pf_trace *t)
{
	struct rd_ctx *c = ctx;
	int rc = scx_writer__header(c->w, &t->hdr);

	if (rc)
		c->err = rc;
	return rc;
}

static int on_event(void *ctx, const struct scx_event *e)
{
	struct rd_ctx *c = ctx;
	int rc = scx_writer__event(c->w, e);

	if (e->type == SCX_EV_LOST && e->cpu >= 0 && e->cpu < SCX_MAX_CPUS) {
		c->lost[e->cpu] += e->lost.count;
		if ((unsigned)e->cpu + 1 > c->lost_cpus)
			c->lost_cpus = e->cpu + 1;
	}
	if (rc)
		c->err = rc;
	return rc;
}

static int do_read(const char *in, const char *out, bool stat, struct scx_pf_opts *po,
		   struct scx_writer_opts *wo)
{
	static struct rd_ctx c;

	c.out = out;
	struct scx_pf_trace *t = NULL;
	int rc, ret = SCX_EXIT_OK;

	if (scx_same_file(in, out))
		scx_die(SCX_EXIT_USAGE, "'%s' is both the input and the output", out);
	if (!stat) {
		c.w = scx_writer__open(out, wo);
		if (!c.w)
			scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", out ? out : "-",
				strerror(errno));
		po->on_event = on_event;
		po->on_trace = on_trace;
		po->ctx = &c;
	}
	rc = scx_pf_read_path(in, po, &t);
	if (t && t->stat.dropped_bundles)
		scx_warn("%s: %llu ftrace bundles of cpus past %d dropped", in ? in : "<stdin>",
			 (unsigned long long)t->stat.dropped_bundles, SCX_MAX_CPUS - 1);
	if ((rc == -EBADMSG || rc == -EFBIG) && t && t->error[0]) {
		scx_warn("%s", t->error);
		ret = SCX_EXIT_FAIL;
	} else if (rc && c.err == -EPIPE) {
		ret = SCX_EXIT_OK; /* the reader went away: a normal stop */
	} else if (rc && c.err) {
		scx_warn("cannot write '%s': %s", out ? out : "-", strerror(-c.err));
		ret = SCX_EXIT_FAIL;
	} else if (rc) {
		scx_warn("cannot read '%s': %s", in, strerror(-rc));
		ret = SCX_EXIT_FAIL;
	}
	if (stat && t && (!rc || rc == -EBADMSG)) {
		struct scx_buf b = { 0 };
		FILE *f = out && strcmp(out, "-") ? fopen(out, "w") : stdout;
		if (!f)
			scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", out, strerror(errno));
		scx_pf_stat_format(&b, t);
		fwrite(b.data, 1, b.len, f);
		scx_buf_free(&b);
		if (fflush(f) || ferror(f)) {
			scx_warn("cannot write '%s': %s", out ? out : "-", strerror(errno));
			ret = SCX_EXIT_FAIL;
		}
		if (f != stdout)
			fclose(f);
	}
	if (c.w) {
		/* a damaged trace gets no trailer: readers downstream then say the
		 * stream is incomplete, as it is */
		if (!c.err && t && !rc) {
			struct scx_trailer tr = { 0 };
			memcpy(tr.counts, t->stat.events, sizeof(tr.counts));
			tr.end_ns = t->stat.last_ts;
			tr.nr_cpus = SCX_MAX(c.lost_cpus, t->hdr.nr_cpus);
			tr.lost = c.lost;
			for (unsigned i = 0; i < c.lost_cpus; i++)
				tr.lost_total += c.lost[i];
			c.err = scx_writer__trailer(c.w, &tr);
		}
		int cr = scx_writer__close(c.w);
		if (!c.err)
			c.err = cr;
		if (c.err && c.err != -EPIPE && ret == SCX_EXIT_OK) {
			scx_warn("cannot write '%s': %s", out ? out : "-", strerror(-c.err));
			ret = SCX_EXIT_FAIL;
		}
	}
	scx_pf_trace__free(t);
	return ret;
}

/*
 * Losses only the trailer counts (no LOST record carried them) become LOST
 * events at the end, so the trace, and streams read back from it, keep them.
 */
static int write_unseen_lost(struct scx_pf_writer *w, const struct scx_lost_tally *l,
			     const struct scx_trailer *tr, uint64_t last_ts)
{
	struct scx_event e = { .type = SCX_EV_LOST };
	int rc;

	e.ts = tr && tr->end_ns > last_ts ? tr->end_ns : last_ts;
	for (unsigned k = 0; tr && k < tr->nr_cpus; k++) {
		e.cpu = (int32_t)k;
		e.lost.count = scx_lost_tally__unseen(l, tr, k);
		if (e.lost.count && (rc = scx_pf_writer__event(w, &e)))
			return rc;
	}
	return 0;
}

static void write_error(const char *out, int err)
{
	if (err == -ETIMEDOUT) /* scx_output_interruptible() gave up */
		scx_warn("the reader of '%s' stopped reading: gave up %d ms after the stop",
			 out ? out : "-", SCX_WRITE_GRACE_MS);
	else
		scx_warn("cannot write '%s': %s", out ? out : "-", strerror(-err));
}

static int do_write(const char *in, const char *out, const struct scx_pf_write_opts *wo)
{
	struct scx_lost_tally lost = { 0 };
	uint64_t last_ts = 0;
	struct scx_reader *r = scx_reader__open(in);
	struct scx_pf_writer *w;
	int out_fd = STDOUT_FILENO;
	struct scx_event e;
	int rc, werr = 0, ret = SCX_EXIT_OK;
	bool header = false;

	if (!r)
		scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", in ? in : "-", strerror(errno));
	if (scx_same_file(in, out))
		scx_die(SCX_EXIT_USAGE, "'%s' is both the input and the output", out);
	if (isatty(1) && (!out || !strcmp(out, "-")))
		scx_die(SCX_EXIT_USAGE,
			"refusing to write a binary trace to a terminal (use -o FILE)");
	if (out && strcmp(out, "-")) {
		out_fd = open(out, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (out_fd < 0)
			scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", out, strerror(errno));
	}
	/* a stalled reader of a pipe or FIFO cannot hold us past a signal */
	scx_output_interruptible(out_fd, stopping);
	w = scx_pf_writer__fdopen(out_fd, wo);
	if (!in || !strcmp(in, "-"))
		input_fd = 0;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	while ((rc = scx_reader__next(r, &e)) != SCX_READ_END) {
		if (rc == SCX_READ_ERROR) {
			if (stop)
				break;
			scx_warn("%s", scx_reader__error(r));
			ret = SCX_EXIT_FAIL;
			break;
		}
		if (!header) {
			header = true;
			scx_pf_writer__header(w, scx_reader__header(r));
		}
		if (rc != SCX_READ_EVENT)
			continue;
		scx_lost_tally__add(&lost, &e);
		last_ts = SCX_MAX(last_ts, e.ts);
		if ((werr = scx_pf_writer__event(w, &e)))
			break;
	}
	if (rc == SCX_READ_END && !werr) {
		werr = write_unseen_lost(w, &lost, scx_reader__trailer(r), last_ts);
		if (!werr)
			werr = scx_pf_writer__end(w); /* before the readable counts below */
		if (scx_reader__warning(r))
			scx_warn("%s", scx_reader__warning(r));
	}
	if (werr && werr != -EPIPE) {
		write_error(out, werr);
		ret = SCX_EXIT_FAIL;
	}
	scx_lost_tally__free(&lost);
	if (scx_pf_writer__readable_late(w))
		scx_warn("--readable: %llu events came later than the %llu ms reorder window: "
			 "waits and depths around them may be off",
			 (unsigned long long)scx_pf_writer__readable_late(w),
			 SCX_PF_READABLE_REORDER_NS / 1000000);
	if (scx_pf_writer__readable_dropped(w))
		scx_warn("--readable: %llu DSQ depth samples left out: more than %d DSQs",
			 (unsigned long long)scx_pf_writer__readable_dropped(w),
			 SCX_PF_READABLE_MAX_DSQS);
	rc = scx_pf_writer__close(w);
	if (out_fd != STDOUT_FILENO && close(out_fd) && !rc)
		rc = -errno;
	if (rc && rc != -EPIPE && ret == SCX_EXIT_OK) {
		write_error(out, rc);
		ret = SCX_EXIT_FAIL;
	}
	scx_reader__free(r);
	return ret;
}

int main(int argc, char **argv)
{
	const char *arg, *in = NULL, *out = NULL;
	struct scx_pf_opts po = { 0 };
	struct scx_writer_opts wo = { 0 };
	struct scx_pf_write_opts pw = { 0 };
	bool stat = false, reading = false;
	uint64_t v;
	int key;

	scx_set_prog(argv[0]);
	signal(SIGPIPE, SIG_IGN);
	while ((key = scx_getopt(&cmd, argc, argv, &arg)) != -1) {
		switch (key) {
		case 'i':
			in = arg;
			reading = true;
			break;
		case 'o':
			out = arg;
			break;
		case OPT_STAT:
			stat = true;
			break;
		case OPT_FORMAT:
			if (scx_format_parse(arg, &wo.format))
				scx_usage_error(&cmd, "unknown format '%s'", arg);
			break;
		case OPT_COMPRESS:
			if (scx_compress_parse(arg, &wo.compress))
				scx_usage_error(&cmd, "unknown compression '%s'", arg);
			break;
		case OPT_SOURCE:
			if (!strcmp(arg, "auto"))
				po.source = SCX_PF_SRC_AUTO;
			else if (!strcmp(arg, "ftrace"))
				po.source = SCX_PF_SRC_FTRACE;
			else if (!strcmp(arg, "track"))
				po.source = SCX_PF_SRC_TRACK;
			else
				scx_usage_error(&cmd, "unknown source '%s'", arg);
			break;
		case OPT_RAW_STATE:
			po.raw_state = true;
			break;
		case 'm':
			if (scx_parse_size(arg, &v) || v < (1u << 20))
				scx_usage_error(
					&cmd, "bad --max-trace-memory '%s' (a size of 1M or more)",
					arg);
			po.max_bytes = v;
			break;
		case OPT_NO_COMPACT:
			pw.no_compact = true;
			break;
		case OPT_DEFLATE:
			pw.deflate = true;
			break;
		case OPT_BUNDLE:
			if (scx_parse_u64(arg, &v) || !v || v > 1000000)
				scx_usage_error(&cmd, "bad --bundle-events '%s'", arg);
			pw.bundle_events = (unsigned)v;
			break;
		case OPT_READABLE:
			pw.readable = true;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
	}
	if (reading) {
		if (optind < argc)
			scx_usage_error(&cmd,
					"extra operand '%s' (with -i, the trace is -i's argument)",
					argv[optind]);
		if (pw.readable)
			scx_usage_error(&cmd, "--readable is for writing a trace, not with -i");
		return do_read(in, out, stat, &po, &wo);
	}
	if (stat)
		scx_usage_error(&cmd, "--stat needs -i TRACE");
	if (optind + 1 < argc)
		scx_usage_error(&cmd, "extra operand '%s'", argv[optind + 1]);
	return do_write(optind < argc ? argv[optind] : NULL, out, &pw);
}
