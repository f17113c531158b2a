// SPDX-License-Identifier: GPL-2.0
/*
 * scx-top's input (topinput.h): the stream into one model per window.
 *
 * Three feeders, one per kind of record, each ending in the same place: a
 * model that input_ready() turns into the next frame (history, running
 * loss counts) and the caller shows.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg.h"
#include "agg/agg_ksnap.h"
#include "core/reorder.h"
#include "core/topo.h"
#include "core/util.h"
#include "stream/lost.h"
#include "stream/stream.h"
#include "top/topinput.h"

struct top_input {
	struct scx_reader *r;
	struct scx_agg *agg; /* raw events and kernel snapshots, created at the first one */
	uint64_t interval_ns;
	uint64_t now_ns;       /* 0: the boot clock */
	struct scx_topo *topo; /* --topology, the stream header's or this machine's */
	char scheduler[64];
	enum top_source source;
	int want_tasks;	       /* __atomic: set by the ui thread, read here */
	bool live;	       /* event times follow this machine's clock */
	unsigned by;	       /* groups the engine has been asked for */
	unsigned max_tasks;    /* 0 for the engine's default */
	bool ready;	       /* on_snap() filled snap */
	struct top_model snap; /* the model being filled */
	struct top_model last; /* the previous window (history); what next() returns */
	bool flushed, eof;
	uint64_t reorder_ns;	 /* the user's, or SCX_REORDER_UNSET: the stream decides */
	struct scx_sorter order; /* sorted here, not in the engine: see feed_event() */
	uint64_t snaps;		 /* scx-agg snapshot lines read */
	uint64_t ksnaps;	 /* kernel snapshots read */
	struct scx_ksnap ksnap;
	struct scx_lost_tally lost; /* LOST records, against the trailer's counts */
	struct {
		uint64_t id;
		char *path;
	} *cg_names; /* cgroup records read before the engine existed */
	unsigned nr_cg_names, cg_names_cap;
	char warn[1024]; /* top_input__warning()'s */
};

struct top_input *top_input__new(struct scx_reader *r, const struct top_input_opts *o)
{
	struct top_input *in = calloc(1, sizeof(*in));

	if (!in)
		return NULL;
	in->r = r;
	in->interval_ns = o->interval_ns;
	in->reorder_ns = o->reorder_ns;
	in->max_tasks = o->max_tasks;
	in->topo = o->topo;
	in->now_ns = o->now_ns;
	return in;
}

void top_input__free(struct top_input *in)
{
	if (!in)
		return;
	scx_agg__free(in->agg);
	scx_ksnap_free(&in->ksnap);
	scx_sorter__fini(&in->order);
	scx_topo__free(in->topo);
	scx_reader__free(in->r);
	scx_lost_tally__free(&in->lost);
	for (unsigned k = 0; k < in->nr_cg_names; k++)
		free(in->cg_names[k].path);
	free(in->cg_names);
	top_model_free(&in->snap);
	top_model_free(&in->last);
	free(in);
}

void top_input__want(struct top_input *in, unsigned what)
{
	__atomic_store_n(&in->want_tasks, (int)what, __ATOMIC_RELAXED);
}

enum top_source top_input__source(const struct top_input *in)
{
	return in->source;
}

const char *top_input__warning(struct top_input *in)
{
	const char *trailer = in->snaps ? NULL : scx_reader__warning(in->r), *order = NULL;

	if (!scx_reader__disorder(in->r, &order))
		return trailer;
	if (in->reorder_ns)
		snprintf(in->warn, sizeof(in->warn), "%s; sorted within %llu ms from there%s%s",
			 order, (unsigned long long)(in->reorder_ns / 1000000), trailer ? "\n" : "",
			 trailer ? trailer : "");
	else
		snprintf(in->warn, sizeof(in->warn), "%s; used as it came (--reorder 0)%s%s", order,
			 trailer ? "\n" : "", trailer ? trailer : "");
	return in->warn;
}

static int on_snap(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	struct top_input *in = ctx;

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

/* The groups the views need: per-task ones only for the process and cgroup views. */
static unsigned input_by(struct top_input *in)
{
	unsigned by = (1u << SCX_AGG_CPU) | (1u << SCX_AGG_LLC) | (1u << SCX_AGG_NODE) |
		      (1u << SCX_AGG_DSQ);
	/* a replay is always kept whole: it may end before the view changes */
	unsigned want = in->live ? (unsigned)__atomic_load_n(&in->want_tasks, __ATOMIC_RELAXED) :
				   TOP_WANT_TASKS | TOP_WANT_CGROUPS;

	if (want & TOP_WANT_TASKS)
		by |= (1u << SCX_AGG_PID) | (1u << SCX_AGG_TGID);
	if (want & TOP_WANT_CGROUPS)
		by |= 1u << SCX_AGG_CGROUP;
	return by;
}

/*
 * A cgroup record names an id for the cgroup groups (1; 0: another object).
 * Records come before the first event, when there is no engine yet: they
 * wait in in->cg_names until input_start().
 */
static int cgroup_record(struct top_input *in, const struct scx_json_doc *d)
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

/* The stream header's topology, unless --topology gave one. */
static void header_topo(struct top_input *in)
{
	const struct scx_header *h = scx_reader__header(in->r);

	if (h && h->topo && !in->topo)
		in->topo = scx_topo__dup(h->topo);
}

/*
 * The engine, at the first event or kernel snapshot: the header (and its
 * topology) is known then.  The input is live when that record is from the
 * last 10 s of this machine's boot clock (scx-events, top-gen -R); a
 * recording is not.
 */
static int input_start(struct top_input *in, enum top_source source, uint64_t first_ts, char *err,
		       size_t errsz)
{
	const struct scx_header *h = scx_reader__header(in->r);
	uint64_t now = in->now_ns ? in->now_ns : scx_now_boot_ns();
	bool boot_clock = !h || !h->clock[0] || !strcmp(h->clock, "boottime");

	in->source = source;
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

	header_topo(in);
	if (h)
		snprintf(in->scheduler, sizeof(in->scheduler), "%s", h->scheduler);
	/* events sorted here, not in the engine: see feed_event() */
	struct scx_order_plan op = scx_order_plan(h, in->reorder_ns, SCX_REORDER_DEFAULT_NS);

	in->reorder_ns = op.window_ns;
	scx_sorter__init(&in->order, op.window_ns, op.from_start);
	in->agg = scx_agg__new(in->topo, &o);
	if (!in->agg) {
		int ret = -errno;

		snprintf(err, errsz, "cannot start the aggregation: %s", strerror(-ret));
		return ret;
	}
	for (unsigned i = 0; i < in->nr_cg_names; i++) {
		scx_agg__cgroup_name(in->agg, in->cg_names[i].id, in->cg_names[i].path);
		free(in->cg_names[i].path);
	}
	free(in->cg_names);
	in->cg_names = NULL;
	in->nr_cg_names = in->cg_names_cap = 0;
	return 0;
}

/* A model is ready: history and the running loss count. */
static const struct top_model *input_ready(struct top_input *in)
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
 * Snapshot lines are models already: nothing aggregates a record after them
 * (it used to crash scx-top).
 */
static int after_snapshots(struct top_input *in, const char *what, char *err, size_t errsz)
{
	snprintf(err, errsz, "byte %llu of the input: %s after scx-agg snapshot lines",
		 (unsigned long long)scx_reader__offset(in->r), what);
	return -EINVAL;
}

/*
 * An event into the engine, in time order by the same component and policy
 * as the engine's own (scx_sorter, scx_order_plan()): in order so far, no
 * buffer and no delay; from the first late event (or the start, for a
 * stream sorted per cpu), through the buffer.  Sorted here and not by the
 * engine because the engine drains its buffer in one go, and two windows
 * closed in one drain would be one frame: next() takes events out one at
 * a time and stops at each window.
 */
static int feed_event(struct top_input *in, const struct scx_event *e, char *err, size_t errsz)
{
	int ret;

	if (in->source == TOP_SRC_NONE &&
	    (ret = input_start(in, TOP_SRC_EVENTS, e->ts, err, errsz)))
		return ret;
	if (in->source == TOP_SRC_SNAPSHOTS)
		return after_snapshots(in, "an event", err, errsz);
	scx_lost_tally__add(&in->lost, e);
	if (scx_sorter__push(&in->order, e))
		scx_agg__add(in->agg, e);
	return 0;
}

/* A kernel snapshot (scx-events --aggregate) is one window of its own. */
static int feed_ksnap(struct top_input *in, const struct scx_json_doc *doc, char *err, size_t errsz)
{
	int ret;

	if ((ret = scx_ksnap_from_json(doc, &in->ksnap, err, errsz)))
		return ret;
	if (in->source == TOP_SRC_NONE &&
	    (ret = input_start(in, TOP_SRC_KERNEL, in->ksnap.start_ns, err, errsz)))
		return ret;
	if (in->source == TOP_SRC_SNAPSHOTS)
		return after_snapshots(in, "a kernel snapshot", err, errsz);
	in->ksnaps++;
	scx_agg__add_ksnap(in->agg, &in->ksnap, true);
	return 0;
}

/*
 * An scx-agg snapshot line is a model of its own.  Returns 1 when it is one
 * to show; other objects (reports, summaries) pass by with a debug note.
 */
static int feed_snapshot(struct top_input *in, char *err, size_t errsz)
{
	const struct scx_json_doc *doc = scx_reader__doc(in->r);
	const char *line;
	size_t len;
	int bad;

	if (doc) {
		bad = top_snap_parse_doc(&in->snap, doc, err, errsz);
	} else {
		line = scx_reader__line(in->r, &len);
		bad = top_snap_parse(&in->snap, line, len, err, errsz);
	}
	if (bad < 0) {
		scx_debug(1, "%s", err);
		return 0;
	}
	in->snaps++;
	if (in->snap.end_ns <= in->snap.start_ns)
		return 0; /* an empty final interval */
	if (in->source == TOP_SRC_NONE) {
		in->source = TOP_SRC_SNAPSHOTS;
		header_topo(in);
		if (!in->topo)
			in->topo = local_topo(&in->snap);
	}
	if (in->topo)
		top_model_apply_topo(&in->snap, in->topo);
	return 1;
}

/*
 * A "missed" record (program runs the kernel skipped, scx(7)): events lost
 * on no known CPU, in the window open.  1 when it was one, 0 for other lines,
 * -EINVAL when malformed.
 */
static int feed_missed(struct top_input *in, char *err, size_t errsz)
{
	uint64_t n;
	int ret = scx_missed_record(scx_reader__doc(in->r), &n, err, errsz);

	if (ret <= 0)
		return ret;
	in->lost.missed += n;
	if (in->agg)
		scx_agg__note_lost(in->agg, -1, n);
	return 1;
}

/*
 * End of input: losses only the trailer counts belong in the last window,
 * and the engine closes its partial window.
 */
static void input_end(struct top_input *in)
{
	const struct scx_trailer *tr = scx_reader__trailer(in->r);
	uint64_t missed = scx_lost_tally__missed_unseen(&in->lost, tr);

	for (unsigned k = 0; tr && k < tr->nr_cpus; k++) {
		uint64_t n = scx_lost_tally__unseen(&in->lost, tr, k);

		if (n)
			scx_agg__note_lost(in->agg, k, n);
	}
	if (missed)
		scx_agg__note_lost(in->agg, -1, missed);
	in->flushed = true;
	/* kernel snapshots closed their windows themselves */
	if (!in->ksnaps)
		scx_agg__flush(in->agg);
}

int top_input__next(struct top_input *in, const struct top_model **m, char *err, size_t errsz)
{
	struct scx_event e;
	int ret, missed;

	for (;;) {
		/* events leave the reorder buffer one at a time: each may close
		 * a window, and every window is a frame */
		while (!in->ready && scx_sorter__pop(&in->order, &e, in->eof))
			scx_agg__add(in->agg, &e);
		if (!in->ready && in->eof && in->agg && !in->flushed)
			input_end(in);
		if (in->ready) {
			*m = input_ready(in);
			return 1;
		}
		if (in->eof)
			return 0;
		ret = scx_reader__next(in->r, &e);
		if (ret == SCX_READ_EVENT) {
			if ((ret = feed_event(in, &e, err, errsz)))
				return ret;
		} else if (ret == SCX_READ_OTHER && scx_reader__doc(in->r) &&
			   scx_stats_is(scx_reader__doc(in->r))) {
			struct scx_stats st;

			/* sched_ext's counters: into the window open when read */
			if ((ret = scx_stats_from_json(scx_reader__doc(in->r), &st, err, errsz)))
				return ret;
			if (in->agg)
				scx_agg__note_scx_stats(in->agg, &st);
		} else if (ret == SCX_READ_OTHER && scx_reader__doc(in->r) &&
			   scx_ksnap_is(scx_reader__doc(in->r))) {
			if ((ret = feed_ksnap(in, scx_reader__doc(in->r), err, errsz)))
				return ret;
		} else if (ret == SCX_READ_OTHER && cgroup_record(in, scx_reader__doc(in->r))) {
			continue;
		} else if (ret == SCX_READ_OTHER && (missed = feed_missed(in, err, errsz))) {
			if (missed < 0)
				return missed;
		} else if (ret == SCX_READ_OTHER) {
			if (feed_snapshot(in, err, errsz)) {
				*m = input_ready(in);
				return 1;
			}
		} else if (ret == SCX_READ_END) {
			in->eof = true;
		} else {
			/* the reader's message is the one: copied, not reworded */
			snprintf(err, errsz, "%s", scx_reader__error(in->r));
			return -EINVAL;
		}
	}
}
