// SPDX-License-Identifier: GPL-2.0
/*
 * scx-top's input layer (lib/top/topinput.c) on synthetic streams: windows
 * from events, the same windows when the events come out of order, scx-agg
 * snapshot lines and kernel snapshots, per-task tables on a live stream,
 * losses from LOST records and the trailer, and bad input.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"
#include "agg/agg.h"
#include "core/util.h"
#include "stream/ksnap.h"
#include "stream/stream.h"
#include "top/topinput.h"

#define MS 1000000ull
#define T0 (5000 * MS) /* first event time of every stream */

static const char header[] =
	"{\"type\":\"header\",\"version\":1,\"producer\":\"unit\",\"clock\":\"boottime\","
	"\"hostname\":\"t\",\"kernel\":\"6.18\",\"nr_cpus\":2,\"topology\":["
	"{\"cpu\":0,\"core\":0,\"llc\":0,\"node\":0,\"online\":true},"
	"{\"cpu\":1,\"core\":1,\"llc\":1,\"node\":0,\"online\":true}],"
	"\"scheduler\":\"unit_sched\",\"options\":{},\"start_ns\":0}\n";

/* A switch on cpu from prev to next (0 is idle). */
static void sw(struct scx_buf *b, uint64_t ts, int cpu, int prev, int next)
{
	char line[512];

	snprintf(line, sizeof(line),
		 "{\"ts\":%llu,\"cpu\":%d,\"type\":\"sched_switch\",\"prev_pid\":%d,"
		 "\"prev_tgid\":%d,\"prev_comm\":\"%s\",\"prev_prio\":120,\"prev_state\":%d,"
		 "\"next_pid\":%d,\"next_tgid\":%d,\"next_comm\":\"%s\",\"next_prio\":120}\n",
		 (unsigned long long)ts, cpu, prev, prev, prev ? "work" : "swapper", prev ? 1 : 0,
		 next, next, next ? "work" : "swapper");
	scx_buf_addstr(b, line);
}

/*
 * 10 ms of events on two cpus: cpu 0 busy 3/4 of each ms (task 100),
 * cpu 1 busy 1/4 (task 200).  Each millisecond's events are two batches;
 * with shuffle the later batch comes first from the 4th ms on, as a live
 * capture's batches from different cpus can.
 */
static unsigned event_stream(struct scx_buf *b, bool shuffle)
{
	struct scx_buf ev[2] = { 0 };
	unsigned n = 0;

	scx_buf_addstr(b, header);
	for (unsigned ms = 0; ms < 10; ms++) {
		uint64_t t = T0 + ms * MS;
		unsigned k = 0;

		sw(&ev[k++ / 2], t, 0, 0, 100);
		sw(&ev[k++ / 2], t + 100000, 1, 0, 200);
		sw(&ev[k++ / 2], t + 350000, 1, 200, 0);
		sw(&ev[k++ / 2], t + 750000, 0, 100, 0);
		if (shuffle && ms >= 3)
			scx_buf_add(b, ev[1].data, ev[1].len);
		scx_buf_add(b, ev[0].data, ev[0].len);
		if (!shuffle || ms < 3)
			scx_buf_add(b, ev[1].data, ev[1].len);
		n += 4;
		scx_buf_reset(&ev[0]);
		scx_buf_reset(&ev[1]);
	}
	scx_buf_free(&ev[0]);
	scx_buf_free(&ev[1]);
	return n;
}

struct frames {
	unsigned n;
	uint64_t events, start[32], end[32];
	double util0[32], util1[32];
	bool tasks_off[32];
	unsigned procs[32];
	uint64_t lost_total;
	char source[32];
	char scheduler[64];
};

static double cpu_util(const struct top_model *m, int cpu)
{
	const struct top_row *r = top_table_find(&m->t[TT_CPU], cpu);

	return r && r->has[TC_UTIL] ? r->v[TC_UTIL] : -1;
}

/* Every frame of a stream; the return of the last top_input__next(). */
static int run(const struct scx_buf *b, struct top_input_opts *o, struct frames *f,
	       enum top_source *src, char *err, size_t errsz, bool want_tasks_from_2)
{
	struct scx_reader *r = scx_reader__mem(b->data, b->len, "unit");
	struct top_input *in = top_input__new(r, o);
	const struct top_model *m;
	int ret;

	memset(f, 0, sizeof(*f));
	while ((ret = top_input__next(in, &m, err, errsz)) > 0 && f->n < 32) {
		f->events += m->events;
		f->start[f->n] = m->start_ns;
		f->end[f->n] = m->end_ns;
		f->util0[f->n] = cpu_util(m, 0);
		f->util1[f->n] = cpu_util(m, 1);
		f->tasks_off[f->n] = m->tasks_off;
		f->procs[f->n] = m->t[TT_PROC].n;
		f->lost_total = m->lost_total;
		snprintf(f->source, sizeof(f->source), "%s", m->source);
		snprintf(f->scheduler, sizeof(f->scheduler), "%s", m->scheduler);
		f->n++;
		if (want_tasks_from_2 && f->n == 2)
			top_input__want(in, TOP_WANT_TASKS);
	}
	if (src)
		*src = top_input__source(in);
	top_input__free(in);
	return ret;
}

static void test_events(void)
{
	struct scx_buf b = { 0 };
	struct top_input_opts o = { .interval_ns = 2 * MS, .reorder_ns = 100 * MS };
	struct frames f;
	enum top_source src;
	char err[256] = "";
	unsigned n = event_stream(&b, false);
	int ret = run(&b, &o, &f, &src, err, sizeof(err), false);

	is_int(ret, 0, "events: the stream ends without error (%s)", err);
	is_int(src, TOP_SRC_EVENTS, "events: the source is events");
	is_str(f.source, "events", "events: the model says so");
	is_str(f.scheduler, "unit_sched", "events: the header's scheduler is shown");
	/* windows of 2 ms over 9.75 ms of events: four whole and a last one */
	is_int(f.n, 5, "events: one frame per 2 ms window, the last partial one too");
	is_int(f.events, n, "events: every event is in some window");
	ok(f.start[0] == T0 && f.end[0] == T0 + 2 * MS, "events: the first window is [T0, T0+2ms)");
	for (unsigned i = 1; i < f.n; i++)
		ok(f.start[i] == f.end[i - 1], "events: window %u starts where %u ended", i, i - 1);
	ok(fabs(f.util0[1] - 0.75) < 1e-9, "events: cpu 0 is busy 3/4 (%g)", f.util0[1]);
	ok(fabs(f.util1[1] - 0.25) < 1e-9, "events: cpu 1 is busy 1/4 (%g)", f.util1[1]);
	ok(!f.tasks_off[0] && f.procs[0] == 2, "events: a recording keeps its tasks (%u)",
	   f.procs[0]);
	scx_buf_free(&b);
}

/*
 * Out of order within the reorder window: the same frames as in order, once
 * reordering has begun.  The input notices disorder at the first event older
 * than one before, so the batch that revealed it (ms 3) went to the engine
 * as it came, and the task it left running spoils windows 1 and 2.
 */
static void test_reorder(void)
{
	struct scx_buf a = { 0 }, b = { 0 };
	struct top_input_opts o = { .interval_ns = 2 * MS, .reorder_ns = 100 * MS };
	struct frames fa, fb;
	char err[256] = "";
	bool same = true;

	event_stream(&a, false);
	event_stream(&b, true);
	ok(a.len == b.len && memcmp(a.data, b.data, a.len), "reorder: the streams differ in order");
	is_int(run(&a, &o, &fa, NULL, err, sizeof(err), false), 0, "reorder: in order reads");
	is_int(run(&b, &o, &fb, NULL, err, sizeof(err), false), 0, "reorder: out of order reads");
	is_int(fb.n, fa.n, "reorder: as many frames");
	is_int(fb.events, fa.events, "reorder: as many events");
	for (unsigned i = 0; i < fa.n; i++)
		same &= fa.start[i] == fb.start[i] && fa.end[i] == fb.end[i];
	ok(same, "reorder: the same windows");
	ok(fa.n == 5 && fa.util0[3] == fb.util0[3] && fa.util1[3] == fb.util1[3] &&
		   fa.util0[4] == fb.util0[4] && fa.util1[4] == fb.util1[4],
	   "reorder: the same utilisation once reordering has begun (%g %g %g %g / %g %g %g %g)",
	   fa.util0[3], fa.util1[3], fa.util0[4], fa.util1[4], fb.util0[3], fb.util1[3],
	   fb.util0[4], fb.util1[4]);
	/* without reordering the engine sees cpu 1's busy time cut short */
	o.reorder_ns = 0;
	is_int(run(&b, &o, &fb, NULL, err, sizeof(err), false), 0, "reorder off: reads");
	ok(fb.util1[3] != fa.util1[3] || fb.util0[3] != fa.util0[3],
	   "reorder off: out-of-order events change the figures (%g %g)", fb.util0[3], fb.util1[3]);
	scx_buf_free(&a);
	scx_buf_free(&b);
}

/* A live stream keeps per-task tables only while a view shows them. */
static void test_live_tasks(void)
{
	struct scx_buf b = { 0 };
	struct top_input_opts o = { .interval_ns = 2 * MS, .now_ns = T0 + 10 * MS };
	struct frames f;
	char err[256] = "";

	event_stream(&b, false);
	is_int(run(&b, &o, &f, NULL, err, sizeof(err), true), 0, "live: reads");
	ok(f.tasks_off[0] && f.procs[0] == 0, "live: no tasks while no view shows them");
	ok(f.tasks_off[1] && f.tasks_off[2], "live: nor in the window during which it changed");
	/* the engine takes the change at a window's start, and learns a task
	 * at its next switch */
	ok(f.n == 5 && f.procs[4] == 2, "live: tasks within two windows of the change (%u)",
	   f.procs[4]);
	/* a recording (its times far from now) keeps them from the start */
	o.now_ns = T0 + 3600000 * MS;
	is_int(run(&b, &o, &f, NULL, err, sizeof(err), false), 0, "replay: reads");
	ok(!f.tasks_off[0] && f.procs[0] == 2, "replay: tasks from the first window");
	scx_buf_free(&b);
}

/* LOST records in their window; what only the trailer counts, in the last. */
static void test_lost(void)
{
	struct scx_buf b = { 0 };
	struct top_input_opts o = { .interval_ns = 2 * MS };
	struct frames f;
	char err[256] = "", line[256];

	event_stream(&b, false);
	snprintf(line, sizeof(line), "{\"ts\":%llu,\"cpu\":1,\"type\":\"lost\",\"count\":5}\n",
		 (unsigned long long)(T0 + 9 * MS + 900000));
	scx_buf_addstr(&b, line);
	scx_buf_addstr(&b, "{\"type\":\"trailer\",\"counts\":{\"sched_switch\":40},"
			   "\"lost\":[3,5],\"lost_total\":8,\"end_ns\":0}\n");
	is_int(run(&b, &o, &f, NULL, err, sizeof(err), false), 0, "lost: reads (%s)", err);
	is_int(f.lost_total, 8, "lost: 5 seen on cpu 1 and 3 only the trailer counts");
	scx_buf_free(&b);
}

/* scx-agg snapshots of the same events: the same figures, no aggregation here. */
static int write_snap(struct scx_agg *a, const struct scx_agg_snap *s, void *ctx)
{
	scx_agg_snap_json(ctx, s);
	scx_buf_addstr(ctx, "\n");
	return 0;
}

static void test_snapshots(void)
{
	struct scx_buf ev = { 0 }, snaps = { 0 };
	struct top_input_opts o = { .interval_ns = 2 * MS };
	struct scx_agg_opts ao = { .interval_ns = 2 * MS, .emit = write_snap, .ctx = &snaps };
	struct scx_reader *r;
	struct scx_event e;
	struct scx_agg *a = NULL;
	struct frames fe, fs;
	enum top_source src;
	char err[256] = "";
	bool same = true;

	event_stream(&ev, false);
	ok(!scx_agg_parse_by("cpu,llc,node,tgid,pid,dsq", &ao.by), "snapshots: groups");
	r = scx_reader__mem(ev.data, ev.len, "unit");
	while (scx_reader__next(r, &e) == SCX_READ_EVENT) {
		if (!(a = a ? a : scx_agg__new(scx_reader__header(r)->topo, &ao)))
			break;
		scx_agg__add(a, &e);
	}
	scx_agg__flush(a);
	scx_agg__free(a);
	scx_reader__free(r);

	is_int(run(&ev, &o, &fe, NULL, err, sizeof(err), false), 0, "snapshots: events read");
	is_int(run(&snaps, &o, &fs, &src, err, sizeof(err), false), 0, "snapshots: lines read");
	is_int(src, TOP_SRC_SNAPSHOTS, "snapshots: the source is snapshots");
	is_str(fs.source, "scx-agg", "snapshots: the model says so");
	is_int(fs.n, fe.n, "snapshots: as many frames as from the events");
	is_int(fs.events, fe.events, "snapshots: as many events");
	for (unsigned i = 0; i < fe.n; i++)
		same &= fabs(fe.util0[i] - fs.util0[i]) < 1e-9 &&
			fabs(fe.util1[i] - fs.util1[i]) < 1e-9;
	ok(same, "snapshots: the same utilisation per window");

	/* an event after snapshot lines: an error naming where, not a crash */
	scx_buf_add(&snaps, ev.data + strlen(header), ev.len - strlen(header));
	is_int(run(&snaps, &o, &fs, NULL, err, sizeof(err), false), -EINVAL,
	       "snapshots then events: an error");
	ok(strstr(err, "byte ") && strstr(err, "an event after scx-agg snapshot lines"),
	   "snapshots then events: says what and where (%s)", err);
	scx_buf_free(&ev);
	scx_buf_free(&snaps);
}

/* Kernel snapshots (scx-events --aggregate): each is one window. */
static void test_kernel(void)
{
	struct scx_buf b = { 0 };
	struct top_input_opts o = { .interval_ns = 1000 * MS };
	struct scx_ksnap k = { 0 };
	struct frames f;
	enum top_source src;
	char err[256] = "";

	scx_buf_addstr(&b, header);
	for (unsigned i = 0; i < 3; i++) {
		scx_ksnap_reset(&k);
		k.seq = i;
		k.start_ns = T0 + i * 1000 * MS;
		k.end_ns = k.start_ns + 1000 * MS;
		for (int cpu = 0; cpu < 2; cpu++) {
			struct scx_ksnap_cpu *c = scx_ksnap_add_cpu(&k, cpu);

			c->c[SCX_KS_SWITCHES] = 100;
			c->c[SCX_KS_BUSY_NS] = (cpu ? 200 : 600) * MS;
			c->c[SCX_KS_IDLE_NS] = (cpu ? 800 : 400) * MS;
		}
		scx_ksnap_to_json(&b, &k);
		scx_buf_addstr(&b, "\n");
	}
	is_int(run(&b, &o, &f, &src, err, sizeof(err), false), 0, "kernel: reads (%s)", err);
	is_int(src, TOP_SRC_KERNEL, "kernel: the source is kernel snapshots");
	is_str(f.source, TOP_SOURCE_KERNEL, "kernel: the model says so");
	is_int(f.n, 3, "kernel: one frame per snapshot");
	ok(fabs(f.util0[2] - 0.6) < 1e-9 && fabs(f.util1[2] - 0.2) < 1e-9,
	   "kernel: utilisation from busy time (%g %g)", f.util0[2], f.util1[2]);
	scx_ksnap_free(&k);
	scx_buf_free(&b);
}

static void test_bad(void)
{
	static const char cut[] = "{\"ts\":1,\"cpu\":0,\"type\":\"sched_sw";
	struct scx_buf b = { 0 };
	struct top_input_opts o = { .interval_ns = 2 * MS };
	struct frames f;
	char err[256] = "";

	scx_buf_addstr(&b, header);
	scx_buf_addstr(&b, cut);
	is_int(run(&b, &o, &f, NULL, err, sizeof(err), false), -EINVAL,
	       "bad: a cut line is an error");
	ok(strstr(err, "unit: line 2"), "bad: the error names the input and line (%s)", err);

	scx_buf_reset(&b);
	is_int(run(&b, &o, &f, NULL, err, sizeof(err), false), -EINVAL, "empty: an error");
	is_str(err, "unit: empty input", "empty: says so");
	is_int(f.n, 0, "empty: no frame");

	/* a header and nothing else: no frame, and a note that the trailer is missing */
	scx_buf_addstr(&b, header);
	struct top_input *in = top_input__new(scx_reader__mem(b.data, b.len, "unit"), &o);
	const struct top_model *m;

	is_int(top_input__next(in, &m, err, sizeof(err)), 0, "header only: no error, no frame");
	ok(top_input__warning(in) && strstr(top_input__warning(in), "without a trailer"),
	   "header only: the missing trailer is a warning (%s)", top_input__warning(in));
	top_input__free(in);
	scx_buf_free(&b);
}

int main(void)
{
	test_events();
	test_reorder();
	test_live_tasks();
	test_lost();
	test_snapshots();
	test_kernel();
	test_bad();
	return done_testing();
}
