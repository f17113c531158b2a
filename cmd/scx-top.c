// SPDX-License-Identifier: GPL-2.0
/*
 * scx-top: a live terminal view of the scheduler, fed by a pipe.
 *
 *	scx-events | scx-top			raw events, aggregated here
 *	scx-events | scx-agg --by cpu,llc,node | scx-top	scx-agg snapshots
 *	scx-perfetto -i t.proto | scx-top	a replay
 *
 * stdin is the data, keys come from /dev/tty.  One reader thread decodes and
 * aggregates; the main thread owns the terminal: it polls the keyboard with
 * a timeout of the next frame, and draws each frame from a buffer in one
 * write.  Batch mode (-b, or stdout not a terminal) has no thread and no
 * terminal: one plain-text frame per window of event time.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agg/agg.h"
#include "agg/agg_ksnap.h"
#include "core/opts.h"
#include "stream/lost.h"
#include "stream/stream.h"
#include "top/term.h"
#include "top/topconf.h"
#include "core/reorder.h"
#include "top/topview.h"
#include "core/util.h"

enum {
	OPT_VIEW = 256,
	OPT_TOPOLOGY,
	OPT_REORDER,
	OPT_SORT,
	OPT_FILTER,
	OPT_THEME,
	OPT_NO_CONFIG,
	OPT_SAVE_CONFIG,
	OPT_MODE,
	OPT_CONFIG,
	OPT_MAX_TASKS,
};

static const struct scx_opt options[] = {
	{ 'i', "input", "FILE", "read events or scx-agg snapshots from FILE (default stdin)",
	  "@file" },
	{ OPT_TOPOLOGY, "topology", "FILE",
	  "cpu topology (JSON) when the input has none (default: this machine's)", "@file" },
	{ OPT_REORDER, "reorder", "DURATION",
	  "hold events this long to put them in time order (default 100ms, 0: off)" },
	{ OPT_MAX_TASKS, "max-tasks", "N",
	  "track at most N tasks, forgetting the least recently seen (default 65536)" },
	{ 'b', "batch", NULL, "plain-text frames on stdout, no terminal control (like top -b)" },
	{ 'n', "iterations", "N", "stop after N frames" },
	{ 'd', "delay", "SECONDS", "refresh interval and window length (default 1s)" },
	{ OPT_VIEW, "view", "VIEW", "first view", "cpu llc node proc dsq cgroup help" },
	{ OPT_MODE, "mode", "MODE", "utilisation as numbers, bars or sparklines", "num bar spark" },
	{ OPT_SORT, "sort", "COLUMN", "sort the first view by COLUMN (-COLUMN: descending)" },
	{ OPT_FILTER, "filter", "TEXT", "show processes whose comm contains TEXT, or pid TEXT" },
	{ OPT_THEME, "theme", "THEME", "colour theme", "default ocean forest grey" },
	{ OPT_CONFIG, "config", "FILE", "config file (default $XDG_CONFIG_HOME/scx-top/config)",
	  "@file" },
	{ OPT_NO_CONFIG, "no-config", NULL, "do not read a config file" },
	{ OPT_SAVE_CONFIG, "save-config", NULL, "write the settings to the config file and exit" },
	{ 'v', "verbose", NULL, "more messages" },
	{ 0 }
};

/*
 * The letters before the suite had one vocabulary (scx(7), OPTION LETTERS):
 * -m is memory and -c a comm elsewhere, so mode and config are long only.
 */
static const struct scx_opt_old old_spellings[] = {
	{ OPT_MODE, 'm' },
	{ OPT_CONFIG, 'c' },
	{ 0 },
};

static const struct scx_cmd cmd = {
	.name = "scx-top",
	.args = NULL,
	.summary = "Live per-CPU, LLC, node, process, DSQ and cgroup view of scheduler events.",
	.opts = options,
	.old = old_spellings,
	.footer =
		"Keys: h help, c/l/n/p/s/o views, m mode, < > sort, / filter, space pause, q quit.\n"
		"NO_COLOR in the environment turns colours off; TERM=dumb means -b.\n",
};

/* ---- shared between the reader thread and the ui ---------------------------- */

struct shared {
	pthread_mutex_t lock;
	struct top_model model; /* the last published window */
	uint64_t version;	/* bumped on every publish */
	bool ended;
	char err[512];	/* input error, "" none */
	char warn[512]; /* end-of-input warning */
};

struct input {
	struct scx_reader *r;
	struct scx_agg *agg; /* raw events, created at the first one */
	uint64_t interval_ns;
	struct scx_topo *topo; /* from the stream header, or NULL */
	char scheduler[64];
	/*
	 * Per-task tables cost most of the aggregation on big machines, so the
	 * engine keeps them only while the process view is shown: the ui sets
	 * want_tasks, the reader passes it on at the next window.  Cgroup
	 * groups need per-thread stats too: only while the cgroup view is shown.
	 */
	int want_tasks;	       /* __atomic: ui -> reader; WANT_* bits */
	bool live;	       /* event times follow this machine's clock */
	unsigned by;	       /* groups the engine has been asked for */
	unsigned max_tasks;    /* --max-tasks, 0 for the engine's default */
	bool ready;	       /* emit() filled snap */
	struct top_model snap; /* scratch for snapshot lines */
	struct top_model last; /* previous window (history) */
	bool topo_set, flushed, eof;
	uint64_t reorder_ns; /* 0: feed events as they come */
	uint64_t last_ts;    /* newest event fed before reordering began */
	struct scx_reorder *order;
	uint64_t snaps;	 /* scx-agg snapshot lines read */
	uint64_t ksnaps; /* kernel snapshots (scx-events --aggregate) read */
	struct scx_ksnap ksnap;
	uint64_t skipped;
	struct scx_lost_tally lost; /* LOST records, against the trailer's counts */
	struct {
		uint64_t id;
		char *path;
	} *cg_names; /* cgroup records read before the engine existed */
	unsigned nr_cg_names, cg_names_cap;
};

static int on_snap(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	struct input *in = ctx;

	/* the flush after an interval that ended exactly at the last event */
	if (s->final && s->end_ns <= s->start_ns)
		return 0;
	top_model_from_agg(&in->snap, s, in->topo);
	memcpy(in->snap.scheduler, in->scheduler, sizeof(in->scheduler));
	in->snap.tasks_off = !(in->by & (1u << SCX_AGG_PID));
	if (in->ksnaps)
		snprintf(in->snap.source, sizeof(in->snap.source), "%s", TOP_SOURCE_KERNEL);
	in->ready = true;
	return 0;
}

/*
 * scx-agg snapshots carry no topology: use this machine's when it has every
 * cpu of the snapshot (the live case), else leave cpus ungrouped.
 */
static struct scx_topo *local_topo(const struct top_model *m)
{
	struct scx_topo *t = scx_topo__from_sysfs("/sys");

	for (unsigned i = 0; t && i < m->t[TT_CPU].n; i++) {
		if (!scx_topo__cpu(t, (int)m->t[TT_CPU].rows[i].id)) {
			scx_topo__free(t);
			return NULL;
		}
	}
	return t;
}

#define WANT_TASKS 1
#define WANT_CGROUPS 2

/* The groups the views need: per-task ones only for the process and cgroup views. */
static unsigned input_by(struct input *in)
{
	unsigned by = (1u << SCX_AGG_CPU) | (1u << SCX_AGG_LLC) | (1u << SCX_AGG_NODE) |
		      (1u << SCX_AGG_DSQ);
	/* a replay is always kept whole: it may end before the view changes */
	int want = in->live ? __atomic_load_n(&in->want_tasks, __ATOMIC_RELAXED) :
			      WANT_TASKS | WANT_CGROUPS;

	if (want & WANT_TASKS)
		by |= (1u << SCX_AGG_PID) | (1u << SCX_AGG_TGID);
	if (want & WANT_CGROUPS)
		by |= 1u << SCX_AGG_CGROUP;
	return by;
}

/* Does the view show per-task or cgroup rows (help over such a view counts)? */
static void want_tasks(struct input *in, const struct top_view *v)
{
	enum top_viewid shown = v->view == TV_HELP ? v->prev_view : v->view;
	int want = (shown == TV_PROC ? WANT_TASKS : 0) | (shown == TV_CGROUP ? WANT_CGROUPS : 0);

	__atomic_store_n(&in->want_tasks, want, __ATOMIC_RELAXED);
}

/*
 * A cgroup record names an id for the cgroup groups (1; 0: another object).
 * Records come before the first event, when there is no engine yet: they
 * wait in in->cg_names until input_start().
 */
static int cgroup_record(struct input *in, const struct scx_json_doc *d)
{
	char path[SCX_CGROUP_PATH_MAX], err[256];
	uint64_t id;
	int k = d ? scx_cgroup_rec_parse(d, &id, path, sizeof(path), err, sizeof(err)) : 0;

	if (k < 0)
		scx_debug(1, "%s", err);
	if (k <= 0)
		return k < 0;
	if (in->agg) {
		scx_agg__cgroup_name(in->agg, id, path);
	} else if (in->nr_cg_names < SCX_AGG_CGROUP_IDS) {
		if (in->nr_cg_names == in->cg_names_cap) {
			in->cg_names_cap = in->cg_names_cap ? 2 * in->cg_names_cap : 64;
			in->cg_names = scx_xrealloc(in->cg_names,
						    in->cg_names_cap * sizeof(*in->cg_names));
		}
		in->cg_names[in->nr_cg_names].id = id;
		in->cg_names[in->nr_cg_names++].path = scx_xstrdup(path);
	}
	return 1;
}

/*
 * The engine, at the first event: the header (and its topology) is known
 * then.  The input is live when that event is from the last 10 s of this
 * machine's boot clock (scx-events, top-gen -R); a recording is not.
 */
static void input_start(struct input *in, uint64_t first_ts)
{
	const struct scx_header *h = scx_reader__header(in->r);
	uint64_t now = scx_now_boot_ns();
	bool boot_clock = !h || !h->clock[0] || !strcmp(h->clock, "boottime");

	in->live =
		boot_clock && first_ts <= now + 1000000000ull && first_ts + 10000000000ull >= now;
	struct scx_agg_opts o = {
		.interval_ns = in->interval_ns,
		.by = in->by = input_by(in),
		/* per-CPU metrics only, plus what by asks for: no waker/wakee pairs */
		.need = SCX_AGG_NEED_CPUS,
		/*
		 * Distributions no view shows (lib/top/topview_agg.c reads the rest):
		 * rows show wakeup latency percentiles and the mean slice used
		 * (from counters), DSQ rows their queueing latency and depth.
		 */
		.skip_hists = SCX_AGG_HIST_SLICE | SCX_AGG_HIST_RQ_DELAY | SCX_AGG_HIST_RQ_DEPTH |
			      SCX_AGG_HIST_SLICE_USED,
		.skip_cpu_hists = SCX_AGG_HIST_DSQ_LAT | SCX_AGG_HIST_DSQ_DEPTH,
		.emit = on_snap,
		.ctx = in,
		.nr_cpus = h ? h->nr_cpus : 0, /* when there is no topology */
		.max_tasks = in->max_tasks,
	};

	in->topo_set = true;
	if (h && h->topo && !in->topo) /* --topology wins */
		in->topo = scx_topo__dup(h->topo);
	if (h)
		snprintf(in->scheduler, sizeof(in->scheduler), "%s", h->scheduler);
	in->agg = scx_agg__new(in->topo, &o);
	if (!in->agg)
		scx_die(SCX_EXIT_FAIL, "cannot start the aggregation: %s", strerror(errno));
	for (unsigned i = 0; i < in->nr_cg_names; i++) {
		scx_agg__cgroup_name(in->agg, in->cg_names[i].id, in->cg_names[i].path);
		free(in->cg_names[i].path);
	}
	free(in->cg_names);
	in->cg_names = NULL;
	in->nr_cg_names = in->cg_names_cap = 0;
}

/* A model is ready: history and the running loss count. */
static const struct top_model *input_ready(struct input *in)
{
	unsigned by = input_by(in);

	if (in->agg && by != in->by) {
		scx_agg__set_by(in->agg, by); /* from the next window on */
		in->by = by;
	}
	in->ready = false;
	in->snap.lost_total = in->last.lost_total + in->snap.lost;
	in->snap.tasks_dropped_total = in->last.tasks_dropped_total + in->snap.tasks_dropped;
	top_model_carry_hist(&in->snap, &in->last);
	/* the new model becomes the last one; snap is refilled from scratch */
	top_model_swap(&in->last, &in->snap);
	return &in->last;
}

/*
 * Read until the next model is ready.  Returns 1 with *m set to a model,
 * 0 at end of input (after the last partial window), -1 on error.
 */
static int input_next(struct input *in, const struct top_model **m, char *err, size_t errsz)
{
	struct scx_event e;
	const char *line;
	size_t len;
	int ret;

	for (;;) {
		/* events leave the reorder buffer one at a time: each may close
		 * a window, and every window is a frame */
		while (in->order && scx_reorder__pop(in->order, &e, in->eof)) {
			scx_agg__add(in->agg, &e);
			if (in->ready) {
				*m = input_ready(in);
				return 1;
			}
		}
		if (in->eof) {
			if (in->agg && !in->flushed) {
				const struct scx_trailer *tr = scx_reader__trailer(in->r);

				/* losses only the trailer counts belong in the last window */
				for (unsigned k = 0; tr && k < tr->nr_cpus; k++) {
					uint64_t n = scx_lost_tally__unseen(&in->lost, tr, k);

					if (n)
						scx_agg__note_lost(in->agg, k, n);
				}
				in->flushed = true;
				/* kernel snapshots closed their windows themselves */
				if (!in->ksnaps)
					scx_agg__flush(in->agg);
				if (in->ready) {
					*m = input_ready(in);
					return 1;
				}
			}
			return 0;
		}
		ret = scx_reader__next(in->r, &e);
		if (ret == SCX_READ_EVENT) {
			if (!in->topo_set)
				input_start(in, e.ts);
			scx_lost_tally__add(&in->lost, &e);
			/* in order so far (files, replays): no buffer and no delay;
			 * from the first event older than one before (live
			 * scx-events), every event goes through the buffer */
			if (!in->order && (!in->reorder_ns || e.ts >= in->last_ts)) {
				in->last_ts = e.ts;
				scx_agg__add(in->agg, &e);
				if (in->ready) {
					*m = input_ready(in);
					return 1;
				}
				continue;
			}
			if (!in->order) {
				in->order = scx_reorder__new(in->reorder_ns);
				scx_debug(1, "events out of order: reordering within %llu ms",
					  (unsigned long long)(in->reorder_ns / 1000000));
			}
			scx_reorder__push(in->order, &e);
		} else if (ret == SCX_READ_OTHER && scx_reader__doc(in->r) &&
			   scx_stats_is(scx_reader__doc(in->r))) {
			struct scx_stats st;

			/* sched_ext's counters: into the window open when read */
			if (scx_stats_from_json(scx_reader__doc(in->r), &st, err, errsz))
				return -1;
			if (in->agg)
				scx_agg__note_scx_stats(in->agg, &st);
		} else if (ret == SCX_READ_OTHER && scx_reader__doc(in->r) &&
			   scx_ksnap_is(scx_reader__doc(in->r))) {
			/* a kernel snapshot is one window of its own */
			if (scx_ksnap_from_json(scx_reader__doc(in->r), &in->ksnap, err, errsz))
				return -1;
			if (!in->topo_set)
				input_start(in, in->ksnap.start_ns);
			in->ksnaps++;
			scx_agg__add_ksnap(in->agg, &in->ksnap, true);
			if (in->ready) {
				*m = input_ready(in);
				return 1;
			}
		} else if (ret == SCX_READ_OTHER && cgroup_record(in, scx_reader__doc(in->r))) {
			continue;
		} else if (ret == SCX_READ_OTHER) {
			const struct scx_json_doc *doc = scx_reader__doc(in->r);
			int bad;

			if (doc) {
				bad = top_snap_parse_doc(&in->snap, doc, err, errsz);
			} else {
				line = scx_reader__line(in->r, &len);
				bad = top_snap_parse(&in->snap, line, len, err, errsz);
			}
			if (bad < 0) {
				/* reports and other objects pass by; only say so */
				scx_debug(1, "%s", err);
				continue;
			}
			in->snaps++;
			if (in->snap.end_ns <= in->snap.start_ns)
				continue; /* an empty final interval */
			if (!in->topo_set) {
				const struct scx_header *h = scx_reader__header(in->r);

				in->topo_set = true;
				if (h && h->topo && !in->topo)
					in->topo = scx_topo__dup(h->topo);
				else if (!in->topo)
					in->topo = local_topo(&in->snap);
			}
			if (in->topo)
				top_model_apply_topo(&in->snap, in->topo);
			*m = input_ready(in);
			return 1;
		} else if (ret == SCX_READ_END) {
			in->eof = true;
		} else {
			snprintf(err, errsz, "%s", scx_reader__error(in->r));
			return -1;
		}
	}
}

/* ---- batch mode --------------------------------------------------------------- */

static int run_batch(struct input *in, struct top_view *v, uint64_t iterations)
{
	struct scx_buf out = { 0 };
	const struct top_model *m;
	char err[512];
	uint64_t frames = 0;
	int ret;

	v->escapes = v->color = false;
	v->rows = v->cols = 0;
	signal(SIGPIPE, SIG_IGN); /* EPIPE from write() instead: a normal stop */
	while ((ret = input_next(in, &m, err, sizeof(err))) > 0) {
		scx_buf_reset(&out);
		if (frames)
			scx_buf_addstr(&out, "\n");
		top_render(&out, m, v);
		if (scx_write_all(STDOUT_FILENO, out.data, out.len) < 0) {
			scx_buf_free(&out);
			/* a reader that went away (head, less) is a normal stop */
			return errno == EPIPE ? 0 :
						(scx_warn("cannot write: %s", strerror(errno)), 1);
		}
		if (iterations && ++frames >= iterations)
			break;
		if (!iterations)
			frames++;
	}
	scx_buf_free(&out);
	if (ret < 0) {
		scx_warn("%s", err);
		return SCX_EXIT_FAIL;
	}
	if (ret == 0 && scx_reader__warning(in->r) && !in->snaps)
		scx_warn("%s", scx_reader__warning(in->r));
	return 0;
}

/* ---- interactive mode --------------------------------------------------------- */

static struct shared sh = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *reader_main(void *arg)
{
	struct input *in = arg;
	const struct top_model *m;
	char err[512];
	int ret;

	while ((ret = input_next(in, &m, err, sizeof(err))) > 0) {
		pthread_mutex_lock(&sh.lock);
		top_model_copy(&sh.model, m);
		sh.version++;
		pthread_mutex_unlock(&sh.lock);
	}
	pthread_mutex_lock(&sh.lock);
	sh.ended = true;
	if (ret < 0)
		snprintf(sh.err, sizeof(sh.err), "%s", err);
	else if (scx_reader__warning(in->r) && !in->snaps)
		snprintf(sh.warn, sizeof(sh.warn), "%s", scx_reader__warning(in->r));
	pthread_mutex_unlock(&sh.lock);
	return NULL;
}

struct ui {
	struct top_view *v;
	struct top_keymap *km;
	const char *config;
	bool quit;
	uint64_t status_until;
};

static void set_status(struct ui *u, const char *msg)
{
	snprintf(u->v->status, sizeof(u->v->status), "%.500s", msg);
	u->status_until = scx_now_mono_ns() + 3000000000ull;
}

static void on_key(int key, void *ctx)
{
	struct ui *u = ctx;
	struct top_view *v = u->v;
	int act = key >= 0 && key < SCX_KEY__MAX ? u->km->act[key] : TA_NONE;
	char msg[1200];

	if (v->editing && key != SCX_KEY_ENTER && key != SCX_KEY_ESC) {
		top_view_edit_key(v, key == SCX_KEY_BACKSPACE ? 127 : key);
		return;
	}
	if (v->editing)
		act = key == SCX_KEY_ENTER ? TA_ENTER : TA_ESC;
	switch (top_view_action(v, act)) {
	case 1:
		u->quit = true;
		break;
	case 2:
		if (!u->config) {
			set_status(u, "no config path: set XDG_CONFIG_HOME or HOME, "
				      "or use --config");
			break;
		}
		int err = top_conf_save(u->config, v, u->km);

		if (err)
			snprintf(msg, sizeof(msg), "cannot write '%s': %s", u->config,
				 strerror(-err));
		else
			snprintf(msg, sizeof(msg), "settings written to %s", u->config);
		set_status(u, msg);
		break;
	}
}

static int run_tty(struct input *in, struct top_view *v, struct top_keymap *km, const char *config,
		   uint64_t iterations)
{
	struct ui u = { .v = v, .km = km, .config = config };
	struct top_model shown = { 0 };
	struct scx_buf out = { 0 };
	uint64_t seen = 0, next = 0, frames = 0;
	bool redraw = true;
	pthread_t th;
	int err, rc = 0;

	strcpy(shown.source, "events");
	err = scx_term__open();
	if (err)
		scx_die(SCX_EXIT_FAIL, "cannot open the terminal /dev/tty: %s", strerror(-err));
	scx_term__size(&v->rows, &v->cols);
	want_tasks(in, v);
	if ((err = pthread_create(&th, NULL, reader_main, in)))
		scx_die(SCX_EXIT_FAIL, "cannot start the reader: %s", strerror(err));
	pthread_detach(th);

	while (!u.quit && !scx_term_quit) {
		uint64_t now = scx_now_mono_ns();
		struct pollfd pfd = { .fd = scx_term__fd(), .events = POLLIN };
		int timeout;

		if (scx_term_winch) {
			scx_term_winch = 0;
			scx_term__size(&v->rows, &v->cols);
			redraw = true;
		}
		if (now >= next) {
			next = now + (uint64_t)v->refresh_ms * 1000000;
			redraw = true;
		}
		if (u.status_until && now >= u.status_until) {
			v->status[0] = 0;
			u.status_until = 0;
		}
		if (redraw) {
			want_tasks(in, v); /* a key may have changed the view */
			pthread_mutex_lock(&sh.lock);
			if (!v->paused && sh.version != seen) {
				/* the reader overwrites sh.model with its next one */
				top_model_swap(&shown, &sh.model);
				seen = sh.version;
				frames++;
			}
			v->ended = sh.ended;
			if (sh.err[0] && !v->status[0])
				snprintf(v->status, sizeof(v->status), "input error: %.480s",
					 sh.err);
			pthread_mutex_unlock(&sh.lock);
			scx_buf_reset(&out);
			top_render(&out, &shown, v);
			if (scx_term__write(out.data, out.len) < 0)
				break;
			redraw = false;
			if (iterations && frames >= iterations)
				break;
		}
		timeout = (int)((next - now) / 1000000) + 1;
		if (poll(&pfd, 1, timeout) > 0) {
			if (pfd.revents & (POLLHUP | POLLERR))
				break;
			if (scx_term__read_keys(on_key, &u) < 0)
				break;
			redraw = true;
		}
	}
	scx_term__restore();
	/* the reader thread may be blocked in read(): exit without joining it */
	pthread_mutex_lock(&sh.lock);
	if (sh.err[0]) {
		scx_warn("%s", sh.err);
		rc = SCX_EXIT_FAIL;
	} else if (sh.warn[0]) {
		scx_warn("%s", sh.warn);
	}
	pthread_mutex_unlock(&sh.lock);
	scx_buf_free(&out);
	top_model_free(&shown);
	return rc;
}

/* ---- main ------------------------------------------------------------------- */

static void conf_warn(const char *msg, void *ctx)
{
	int *n = ctx;

	scx_warn("%s", msg);
	(*n)++;
}

int main(int argc, char **argv)
{
	const char *arg, *input = NULL, *config = NULL, *sort = NULL, *filter = NULL;
	const char *view = NULL, *mode = NULL, *theme = NULL, *topology = NULL;
	bool batch = false, no_config = false, save = false;
	uint64_t iterations = 0, delay = 0, reorder = 100000000;
	struct top_view v;
	struct top_keymap km;
	struct input in = { 0 };
	char *def_config = NULL;
	int c, warnings = 0, rc, i;

	scx_set_prog(argv[0]);
	while ((c = scx_getopt(&cmd, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'i':
			input = arg;
			break;
		case 'b':
			batch = true;
			break;
		case 'n':
			if (scx_parse_u64(arg, &iterations) || !iterations)
				scx_usage_error(&cmd, "bad --iterations '%s'", arg);
			break;
		case 'd':
			if (scx_parse_duration(arg, &delay) || delay < 50000000ull ||
			    delay > 60000000000ull)
				scx_usage_error(&cmd, "bad --delay '%s' (50ms to 60s)", arg);
			break;
		case OPT_VIEW:
			view = arg;
			break;
		case OPT_TOPOLOGY:
			topology = arg;
			break;
		case OPT_REORDER:
			if (scx_parse_duration(arg, &reorder) || reorder > 10000000000ull)
				scx_usage_error(&cmd, "bad --reorder '%s' (0 to 10s)", arg);
			break;
		case OPT_MAX_TASKS:
			if (scx_agg_parse_max_tasks(arg, &in.max_tasks))
				scx_usage_error(&cmd, "bad --max-tasks '%s': use 1 to %u", arg,
						SCX_AGG_MAX_TASKS_LIMIT);
			break;
		case OPT_MODE:
			mode = arg;
			break;
		case OPT_SORT:
			sort = arg;
			break;
		case OPT_FILTER:
			filter = arg;
			break;
		case OPT_THEME:
			theme = arg;
			break;
		case OPT_CONFIG:
			config = arg;
			break;
		case OPT_NO_CONFIG:
			no_config = true;
			break;
		case OPT_SAVE_CONFIG:
			save = true;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
	}
	if (optind < argc)
		scx_usage_error(&cmd, "unexpected argument '%s'", argv[optind]);

	top_view_init(&v);
	top_keymap_defaults(&km);
	if (!config)
		config = def_config = top_conf_default_path();
	if (config && !no_config) {
		rc = top_conf_load(config, &v, &km, conf_warn, &warnings);
		if (rc < 0 && rc != -ENOENT)
			scx_warn("cannot read config '%s': %s", config, strerror(-rc));
	}
	/* the command line wins over the file */
	if (view && ((i = top_view_by_name(view)) < 0))
		scx_usage_error(&cmd, "unknown view '%s'", view);
	if (view) {
		v.view = v.prev_view = i;
		if (i == TV_HELP)
			v.prev_view = TV_CPU;
	}
	if (mode && (i = top_mode_by_name(mode)) < 0)
		scx_usage_error(&cmd, "unknown mode '%s'", mode);
	if (mode)
		v.mode = i;
	if (theme && (i = top_theme_by_name(theme)) < 0)
		scx_usage_error(&cmd, "unknown theme '%s'", theme);
	if (theme)
		v.theme = i;
	if (sort) {
		bool desc = sort[0] == '-';
		enum top_viewid sv = v.view == TV_HELP ? v.prev_view : v.view;

		if ((i = top_col_by_name(sv, sort + desc)) < 0)
			scx_usage_error(&cmd, "no column '%s' in the %s view", sort + desc,
					top_view_name(sv));
		v.sort[sv] = i;
		v.sort_asc[sv] = !desc;
	}
	if (filter)
		snprintf(v.filter, sizeof(v.filter), "%s", filter);
	if (delay)
		v.refresh_ms = (unsigned)(delay / 1000000);
	if (save) {
		if (!config)
			scx_die(SCX_EXIT_FAIL, "no config path: set XDG_CONFIG_HOME or HOME, "
					       "or use --config");
		rc = top_conf_save(config, &v, &km);
		if (rc)
			scx_die(SCX_EXIT_FAIL, "cannot write '%s': %s", config, strerror(-rc));
		free(def_config);
		return 0;
	}
	top_keymap_names(&km, &v);
	v.config_path = config;
	{
		const char *nc = getenv("NO_COLOR");
		const char *lc = getenv("LC_ALL");

		v.color = !(nc && nc[0]);
		if (!lc || !lc[0])
			lc = getenv("LC_CTYPE");
		if (!lc || !lc[0])
			lc = getenv("LANG");
		v.utf8 = lc && (strcasestr(lc, "UTF-8") || strcasestr(lc, "utf8"));
	}
	if (!isatty(STDOUT_FILENO))
		batch = true;
	/* a terminal that cannot move the cursor (Emacs shell, TERM=dumb): plain frames */
	if (!batch && (!getenv("TERM") || !strcmp(getenv("TERM"), "dumb"))) {
		scx_debug(1, "TERM is dumb or unset: batch frames, as with -b");
		batch = true;
	}
	if (!input && isatty(STDIN_FILENO))
		scx_usage_error(&cmd, "standard input is a terminal: pipe events in "
				      "(scx-events | scx-top) or use -i FILE");

	in.r = input ? scx_reader__open(input) : scx_reader__fdopen(STDIN_FILENO, "stdin");
	if (!in.r)
		scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", input ? input : "stdin",
			strerror(errno));
	in.interval_ns = (uint64_t)v.refresh_ms * 1000000;
	in.reorder_ns = reorder;
	if (topology) {
		char terr[256];

		in.topo = scx_topo__from_file(topology, terr, sizeof(terr));
		if (!in.topo)
			scx_die(SCX_EXIT_FAIL, "%s", terr);
	}
	if (warnings)
		snprintf(v.status, sizeof(v.status), "config: %d warning%s, see stderr after exit",
			 warnings, warnings > 1 ? "s" : "");
	if (batch)
		want_tasks(&in, &v);
	rc = batch ? run_batch(&in, &v, iterations) : run_tty(&in, &v, &km, config, iterations);
	if (batch) {
		scx_agg__free(in.agg);
		scx_ksnap_free(&in.ksnap);
		for (unsigned k = 0; k < in.nr_cg_names; k++)
			free(in.cg_names[k].path);
		free(in.cg_names);
		scx_reorder__free(in.order);
		scx_topo__free(in.topo);
		scx_reader__free(in.r);
		scx_lost_tally__free(&in.lost);
		top_model_free(&in.snap);
		top_model_free(&in.last);
	}
	free(def_config);
	return rc;
}
