/* SPDX-License-Identifier: GPL-2.0 */
/*
 * scx-top's view model and renderer.  A model is one window of aggregated
 * numbers (rows per CPU, LLC, node, process, thread and DSQ); a view is what
 * the user looks at (which table, sort column, filter, scroll, display mode,
 * theme).  top_render() turns both into one frame in a buffer, with or
 * without escape sequences, so everything here is testable without a
 * terminal and the terminal layer (term.h) only writes the buffer out.
 *
 * Models are filled either from lib/agg snapshots (topview_agg.c: raw
 * events aggregated in-process) or from scx-agg's NDJSON snapshot lines
 * (topview_snap.c).
 */
#ifndef SCX_TOPVIEW_H
#define SCX_TOPVIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/event.h"
#include "core/util.h"
#include "stream/scx_stats.h"

/* Columns: the value index in top_row.v[]. */
enum top_col {
	TC_UTIL, /* busy fraction of the window, 0..1 (per cpu; summed for procs) */
	TC_SW,	 /* context switches /s */
	TC_WAKE, /* wakeups /s */
	TC_P50,	 /* wakeup-to-run latency, ns */
	TC_P90,
	TC_P99,
	TC_MIG,	     /* migrations /s */
	TC_XLLC,     /* ... of which across LLCs /s */
	TC_XNODE,    /* ... of which across nodes /s */
	TC_FREQ,     /* kHz, 0 when unknown */
	TC_SIRQ,     /* softirq time fraction of the window, 0..1 */
	TC_THREADS,  /* processes: live threads */
	TC_DEPTH,    /* DSQ: average depth seen when a task left it */
	TC_DEPTHMAX, /* DSQ: max depth */
	TC_VTIME,    /* DSQ: vtime progression over the window */
	TC_SLICE,    /* average slice used, ns */
	TC_DISP,     /* DSQ: dispatches /s */
	TC_PREEMPT,  /* involuntary switch-outs (preemptions) /s */
	TC__COUNT
};

enum top_table_id { TT_CPU, TT_LLC, TT_NODE, TT_PROC, TT_THREAD, TT_DSQ, TT_CGROUP, TT__COUNT };

enum top_viewid { TV_CPU, TV_LLC, TV_NODE, TV_PROC, TV_DSQ, TV_CGROUP, TV_HELP, TV__COUNT };

enum top_mode { TM_NUM, TM_BAR, TM_SPARK, TM__COUNT };

#define TOP_HIST 64 /* samples of utilisation history per row (sparklines) */
#define TOP_LABEL 24

struct top_row {
	int64_t id;	       /* cpu, llc, node, pid, tid or dsq id */
	int64_t parent;	       /* cpu: node; llc: node; thread: tgid; else -1 */
	int64_t aux;	       /* cpu: llc */
	char label[TOP_LABEL]; /* comm for processes and threads; a cgroup's path (its end) */
	double v[TC__COUNT];
	bool has[TC__COUNT];  /* value known (else rendered "-") */
	float hist[TOP_HIST]; /* utilisation history, newest last */
	unsigned nr_hist;
};

struct top_table {
	struct top_row *rows;
	unsigned n, cap;
};

/* source of a model built from kernel snapshots (scx-events --aggregate) */
#define TOP_SOURCE_KERNEL "kernel aggregates"

struct top_model {
	uint64_t start_ns, end_ns;    /* event-time window */
	uint64_t seq;		      /* windows so far */
	uint64_t events;	      /* events in the window */
	uint64_t lost;		      /* lost events reported in the window */
	uint64_t lost_total;	      /* ... and since the start */
	uint64_t tasks_dropped;	      /* tasks forgotten past --max-tasks in the window */
	uint64_t tasks_dropped_total; /* ... and since the start */
	unsigned nr_cpus, nr_llcs, nr_nodes;
	char source[32]; /* "events", "scx-agg", TOP_SOURCE_KERNEL */
	bool tasks_off;	 /* no per-task tables asked for in this window */
	char scheduler[64];
	struct scx_stats scx; /* sched_ext's state and counters in the window; ts 0: none */
	struct top_table t[TT__COUNT];
};

/* Row in table tt with id, created (zeroed, has[] false) if absent. */
struct top_row *top_table_get(struct top_table *t, int64_t id, int64_t parent);
struct top_row *top_table_find(const struct top_table *t, int64_t id);
/* Append a row without looking for an existing one (the feeder knows ids are unique). */
struct top_row *top_table_add(struct top_table *t, int64_t id, int64_t parent);
void top_table_clear(struct top_table *t);
void top_model_reset(struct top_model *m); /* keeps allocations */
void top_model_free(struct top_model *m);
/* Deep copy (dst's old content freed). */
void top_model_copy(struct top_model *dst, const struct top_model *src);
/* Exchange two models (their rows too): a copy of thousands of rows was a
 * tenth of scx-top's time on a 512-CPU stream. */
void top_model_swap(struct top_model *a, struct top_model *b);
/* Carry utilisation history from the previous window into the new one. */
void top_model_carry_hist(struct top_model *m, const struct top_model *prev);

/* ---- actions (keys map to these; config names in topconf) ---------------- */

enum top_action {
	TA_NONE,
	TA_VIEW_CPU,
	TA_VIEW_LLC,
	TA_VIEW_NODE,
	TA_VIEW_PROC,
	TA_VIEW_DSQ,
	TA_VIEW_CGROUP,
	TA_HELP,
	TA_MODE,
	TA_SORT_NEXT,
	TA_SORT_PREV,
	TA_SORT_REVERSE,
	TA_FILTER,
	TA_PAUSE,
	TA_FASTER,
	TA_SLOWER,
	TA_THEME,
	TA_SAVE,
	TA_QUIT,
	TA_UP,
	TA_DOWN,
	TA_PGUP,
	TA_PGDN,
	TA_HOME,
	TA_END,
	TA_ENTER,
	TA_ESC,
	TA__COUNT
};

/* ---- view state ---------------------------------------------------------- */

enum top_theme { TH_DEFAULT, TH_OCEAN, TH_FOREST, TH_GREY, TH__COUNT };

struct top_view {
	enum top_viewid view, prev_view;
	enum top_mode mode;
	enum top_theme theme;
	int sort[TV__COUNT]; /* column index in the view's column list */
	bool sort_asc[TV__COUNT];
	int scroll;	  /* first data line shown */
	int sel;	  /* selected line (process view) */
	int64_t sel_id;	  /* ... and its pid: the selection follows it */
	bool sel_moved;	  /* sel changed by a key: sel_id follows sel */
	int64_t expanded; /* pid whose threads are shown, -1 none */
	char filter[64];  /* comm substring or pid; "" none */
	bool editing;	  /* filter prompt open */
	char edit[64];
	bool paused;
	bool ended;   /* input ended */
	bool color;   /* false: NO_COLOR or batch */
	bool escapes; /* false in batch mode: plain text */
	bool utf8;    /* sparkline/bar glyphs */
	unsigned refresh_ms;
	int rows, cols;		     /* terminal size; rows <= 0: no limit */
	char status[512];	     /* one-shot message in the footer */
	const char *config_path;     /* for the help view */
	char keyname[TA__COUNT][12]; /* key bound to each action, for help */
	bool want_toggle;	     /* Enter: fold/unfold at the next render */
	/* filled by top_render: lines of data, for scrolling */
	int nr_lines, page;
};

void top_view_init(struct top_view *v);

/* View and column names as used in the config file and on the command line. */
const char *top_view_name(enum top_viewid v);
int top_view_by_name(const char *s); /* -1 if unknown */
const char *top_mode_name(enum top_mode m);
int top_mode_by_name(const char *s);
const char *top_theme_name(enum top_theme t);
int top_theme_by_name(const char *s);
/* Column names of a view ("util", "sw", ...), for sort settings. */
int top_col_by_name(enum top_viewid v, const char *s); /* index or -1 */
const char *top_col_name(enum top_viewid v, int idx);  /* NULL past the end */

const char *top_action_name(enum top_action a);
int top_action_by_name(const char *s); /* -1 if unknown */

/*
 * Apply an action.  Returns 1 for TA_QUIT (outside help and the filter
 * prompt), 2 for TA_SAVE (the caller writes the config), else 0.
 */
int top_view_action(struct top_view *v, enum top_action a);
/* A printable key typed while the filter prompt is open (Backspace = 127). */
void top_view_edit_key(struct top_view *v, int ch);

/* ---- rendering ----------------------------------------------------------- */

/*
 * Append one frame to out.  With v->escapes the frame starts at the home
 * position, clears each line's tail and the rest of the screen, and is
 * clipped to v->rows x v->cols; without, it is plain text with every row
 * (v->rows <= 0) and no escape sequence at all.
 */
void top_render(struct scx_buf *out, const struct top_model *m, struct top_view *v);

/* Number formats used by the renderer (exported for tests). */
/* v with dec (0-2) decimals and unit, into buf (>= 32 bytes for the fast path) */
const char *top_fmt_fixed(double v, int dec, const char *unit, char *buf, size_t size);
const char *top_fmt_rate(double v, char *buf, size_t size); /* 12.3k */
const char *top_fmt_ns(double ns, char *buf, size_t size);  /* 12.3us */

struct scx_topo;

/* ---- lib/agg snapshots -> models (topview_agg.c) ------------------------ */

struct scx_agg_snap;
/* Fill m from an in-process lib/agg snapshot; topo (may be NULL) places cpus
 * in their LLC and node.  lost_total and scheduler are the caller's. */
void top_model_from_agg(struct top_model *m, const struct scx_agg_snap *s,
			const struct scx_topo *topo);

/* ---- scx-agg snapshots -> models (topview_snap.c) ------------------------ */

/* Place cpu rows in their LLC and node, and LLC rows in their node. */
void top_model_apply_topo(struct top_model *m, const struct scx_topo *topo);
/*
 * Fill m from one scx-agg snapshot line (the NDJSON object scx-agg writes per
 * interval).  Returns 0, or -EINVAL with a message in err when the line is
 * not a snapshot scx-top understands.
 */
int top_snap_parse(struct top_model *m, const char *line, size_t len, char *err, size_t errsz);
/* The same from a line already parsed (scx_reader__doc()). */
struct scx_json_doc;
int top_snap_parse_doc(struct top_model *m, const struct scx_json_doc *d, char *err, size_t errsz);

#endif
