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
#include "core/opts.h"
#include "stream/stream.h"
#include "top/term.h"
#include "top/topconf.h"
#include "top/topinput.h"
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

/* Which rows the view shows (help over a view counts as that view)? */
static void want_tasks(struct top_input *in, const struct top_view *v)
{
	enum top_viewid shown = v->view == TV_HELP ? v->prev_view : v->view;

	top_input__want(in, (shown == TV_PROC ? TOP_WANT_TASKS : 0) |
				    (shown == TV_CGROUP ? TOP_WANT_CGROUPS : 0));
}

/* ---- batch mode --------------------------------------------------------------- */

static int run_batch(struct top_input *in, struct top_view *v, uint64_t iterations)
{
	struct scx_buf out = { 0 };
	const struct top_model *m;
	char err[512];
	uint64_t frames = 0;
	int ret;

	v->escapes = v->color = false;
	v->rows = v->cols = 0;
	signal(SIGPIPE, SIG_IGN); /* EPIPE from write() instead: a normal stop */
	while ((ret = top_input__next(in, &m, err, sizeof(err))) > 0) {
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
	if (ret == 0 && top_input__warning(in))
		scx_warn("%s", top_input__warning(in));
	return 0;
}

/* ---- interactive mode --------------------------------------------------------- */

static struct shared sh = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *reader_main(void *arg)
{
	struct top_input *in = arg;
	const struct top_model *m;
	char err[512];
	int ret;

	while ((ret = top_input__next(in, &m, err, sizeof(err))) > 0) {
		pthread_mutex_lock(&sh.lock);
		top_model_copy(&sh.model, m);
		sh.version++;
		pthread_mutex_unlock(&sh.lock);
	}
	pthread_mutex_lock(&sh.lock);
	sh.ended = true;
	if (ret < 0)
		snprintf(sh.err, sizeof(sh.err), "%s", err);
	else if (top_input__warning(in))
		snprintf(sh.warn, sizeof(sh.warn), "%s", top_input__warning(in));
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

static int run_tty(struct top_input *in, struct top_view *v, struct top_keymap *km,
		   const char *config, uint64_t iterations)
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

/* The command line, as given; settings() applies it over the config file. */
struct args {
	const char *input, *config, *sort, *filter, *view, *mode, *theme, *topology;
	bool batch, no_config, save;
	uint64_t iterations, delay;
	struct top_input_opts io;
};

static void parse_args(int argc, char **argv, struct args *a)
{
	const char *arg;
	int c;

	while ((c = scx_getopt(&cmd, argc, argv, &arg)) != -1) {
		switch (c) {
		case 'i':
			a->input = arg;
			break;
		case 'b':
			a->batch = true;
			break;
		case 'n':
			if (scx_parse_u64(arg, &a->iterations) || !a->iterations)
				scx_usage_error(&cmd, "bad --iterations '%s'", arg);
			break;
		case 'd':
			if (scx_parse_duration(arg, &a->delay) || a->delay < 50000000ull ||
			    a->delay > 60000000000ull)
				scx_usage_error(&cmd, "bad --delay '%s' (50ms to 60s)", arg);
			break;
		case OPT_VIEW:
			a->view = arg;
			break;
		case OPT_TOPOLOGY:
			a->topology = arg;
			break;
		case OPT_REORDER:
			if (scx_parse_duration(arg, &a->io.reorder_ns) ||
			    a->io.reorder_ns > 10000000000ull)
				scx_usage_error(&cmd, "bad --reorder '%s' (0 to 10s)", arg);
			break;
		case OPT_MAX_TASKS:
			if (scx_agg_parse_max_tasks(arg, &a->io.max_tasks))
				scx_usage_error(&cmd, "bad --max-tasks '%s': use 1 to %u", arg,
						SCX_AGG_MAX_TASKS_LIMIT);
			break;
		case OPT_MODE:
			a->mode = arg;
			break;
		case OPT_SORT:
			a->sort = arg;
			break;
		case OPT_FILTER:
			a->filter = arg;
			break;
		case OPT_THEME:
			a->theme = arg;
			break;
		case OPT_CONFIG:
			a->config = arg;
			break;
		case OPT_NO_CONFIG:
			a->no_config = true;
			break;
		case OPT_SAVE_CONFIG:
			a->save = true;
			break;
		case 'v':
			scx_verbose++;
			break;
		}
	}
	if (optind < argc)
		scx_usage_error(&cmd, "unexpected argument '%s'", argv[optind]);
}

/* The view's settings: defaults, then the config file, then the command
 * line, which wins.  Returns the config file's warning count. */
static int settings(const struct args *a, struct top_view *v, struct top_keymap *km)
{
	int warnings = 0, rc, i;

	top_view_init(v);
	top_keymap_defaults(km);
	if (a->config && !a->no_config) {
		rc = top_conf_load(a->config, v, km, conf_warn, &warnings);
		if (rc < 0 && rc != -ENOENT)
			scx_warn("cannot read config '%s': %s", a->config, strerror(-rc));
	}
	if (a->view) {
		if ((i = top_view_by_name(a->view)) < 0)
			scx_usage_error(&cmd, "unknown view '%s'", a->view);
		v->view = v->prev_view = i;
		if (i == TV_HELP)
			v->prev_view = TV_CPU;
	}
	if (a->mode) {
		if ((i = top_mode_by_name(a->mode)) < 0)
			scx_usage_error(&cmd, "unknown mode '%s'", a->mode);
		v->mode = i;
	}
	if (a->theme) {
		if ((i = top_theme_by_name(a->theme)) < 0)
			scx_usage_error(&cmd, "unknown theme '%s'", a->theme);
		v->theme = i;
	}
	if (a->sort) {
		bool desc = a->sort[0] == '-';
		enum top_viewid sv = v->view == TV_HELP ? v->prev_view : v->view;

		if ((i = top_col_by_name(sv, a->sort + desc)) < 0)
			scx_usage_error(&cmd, "no column '%s' in the %s view", a->sort + desc,
					top_view_name(sv));
		v->sort[sv] = i;
		v->sort_asc[sv] = !desc;
	}
	if (a->filter)
		snprintf(v->filter, sizeof(v->filter), "%s", a->filter);
	if (a->delay)
		v->refresh_ms = (unsigned)(a->delay / 1000000);
	return warnings;
}

/* Colours unless NO_COLOR; UTF-8 drawing when the locale says so. */
static void terminal_caps(struct top_view *v)
{
	const char *nc = getenv("NO_COLOR");
	const char *lc = getenv("LC_ALL");

	v->color = !(nc && nc[0]);
	if (!lc || !lc[0])
		lc = getenv("LC_CTYPE");
	if (!lc || !lc[0])
		lc = getenv("LANG");
	v->utf8 = lc && (strcasestr(lc, "UTF-8") || strcasestr(lc, "utf8"));
}

/* Plain frames when asked, when stdout is no terminal, or when the terminal
 * cannot move the cursor (Emacs shell, TERM=dumb). */
static bool want_batch(bool asked)
{
	if (asked || !isatty(STDOUT_FILENO))
		return true;
	if (!getenv("TERM") || !strcmp(getenv("TERM"), "dumb")) {
		scx_debug(1, "TERM is dumb or unset: batch frames, as with -b");
		return true;
	}
	return false;
}

/* The input: the stream, the window length and the topology. */
static struct top_input *open_input(struct args *a, const struct top_view *v)
{
	struct scx_reader *r;
	struct top_input *in;

	if (!a->input && isatty(STDIN_FILENO))
		scx_usage_error(&cmd, "standard input is a terminal: pipe events in "
				      "(scx-events | scx-top) or use -i FILE");
	r = a->input ? scx_reader__open(a->input) : scx_reader__fdopen(STDIN_FILENO, "stdin");
	if (!r)
		scx_die(SCX_EXIT_FAIL, "cannot open '%s': %s", a->input ? a->input : "stdin",
			strerror(errno));
	a->io.interval_ns = (uint64_t)v->refresh_ms * 1000000;
	if (a->topology) {
		char terr[256];

		a->io.topo = scx_topo__from_file(a->topology, terr, sizeof(terr));
		if (!a->io.topo)
			scx_die(SCX_EXIT_FAIL, "%s", terr);
	}
	in = top_input__new(r, &a->io);
	if (!in)
		scx_die(SCX_EXIT_FAIL, "cannot read the input: %s", strerror(errno));
	return in;
}

int main(int argc, char **argv)
{
	struct args a = { .io.reorder_ns = SCX_REORDER_UNSET };
	struct top_view v;
	struct top_keymap km;
	struct top_input *in;
	char *def_config = NULL;
	bool batch;
	int warnings, rc;

	scx_set_prog(argv[0]);
	parse_args(argc, argv, &a);
	if (!a.config)
		a.config = def_config = top_conf_default_path();
	warnings = settings(&a, &v, &km);
	if (a.save) {
		if (!a.config)
			scx_die(SCX_EXIT_FAIL, "no config path: set XDG_CONFIG_HOME or HOME, "
					       "or use --config");
		rc = top_conf_save(a.config, &v, &km);
		if (rc)
			scx_die(SCX_EXIT_FAIL, "cannot write '%s': %s", a.config, strerror(-rc));
		free(def_config);
		return 0;
	}
	top_keymap_names(&km, &v);
	v.config_path = a.config;
	terminal_caps(&v);
	batch = want_batch(a.batch);
	in = open_input(&a, &v);
	if (warnings)
		snprintf(v.status, sizeof(v.status), "config: %d warning%s, see stderr after exit",
			 warnings, warnings > 1 ? "s" : "");
	if (batch) {
		want_tasks(in, &v);
		rc = run_batch(in, &v, a.iterations);
		top_input__free(in);
	} else {
		/* the reader thread may still be in read(): leave the input be */
		rc = run_tty(in, &v, &km, a.config, a.iterations);
	}
	free(def_config);
	return rc;
}
