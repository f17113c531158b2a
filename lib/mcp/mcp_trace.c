// SPDX-License-Identifier: GPL-2.0
/*
 * Loading traces into scx-mcp: Perfetto traces through lib/perfetto_read,
 * scx-events streams (NDJSON or binary, plain or compressed) through
 * lib/stream.  Either way events land in one compact, time-ordered arena.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "mcp/mcp_trace.h"
#include "perfetto/perfetto_read.h"
#include "stream/lost.h"
#include "stream/zio.h"
#include "stream/stream.h"
#include "core/reorder.h"
#include "core/topo.h"
#include "agg/agg.h"
#include "agg/agg_ksnap.h"

struct rec {
	uint64_t ts;
	int32_t cpu;
	uint16_t type;
	uint16_t len; /* payload bytes that follow */
};

#define REC_ALIGN(n) (((n) + 7) & ~(size_t)7)

bool mcp_trace_next(const struct mcp_trace *t, size_t *off, struct scx_event *e)
{
	struct rec h;

	if (*off + sizeof(h) > t->len)
		return false;
	memcpy(&h, t->data + *off, sizeof(h));
	e->ts = h.ts;
	e->cpu = h.cpu;
	e->type = h.type;
	e->flags = 0;
	memcpy(&e->sw, t->data + *off + sizeof(h), h.len);
	/* zero only what the record did not carry */
	memset((char *)&e->sw + h.len, 0, sizeof(*e) - offsetof(struct scx_event, sw) - h.len);
	if (h.type == SCX_EV_SWITCH && h.len <= SCX_SW_SCX_OFFSET)
		e->sw.dsq_id = SCX_DSQ_NONE;
	*off += REC_ALIGN(sizeof(h) + h.len);
	return true;
}

size_t mcp_trace_mem(const struct mcp_trace *t)
{
	return sizeof(*t) + t->cap + scx_map_bytes(&t->tasks) + t->cgroups.cap;
}

/* ---- tasks ------------------------------------------------------------------- */

const struct mcp_task *mcp_trace_task(const struct mcp_trace *t, int32_t pid)
{
	return pid > 0 ? scx_map_get(&t->tasks, (uint64_t)pid) : NULL;
}

static void task_note(struct mcp_trace *t, int32_t pid, int32_t tgid, const char *comm)
{
	struct mcp_task *k;

	if (pid <= 0)
		return;
	k = scx_map_put(&t->tasks, (uint64_t)pid, NULL);
	k->pid = pid;
	if (tgid > 0)
		k->tgid = tgid;
	if (comm && comm[0])
		memcpy(k->comm, comm, SCX_COMM_LEN);
	k->comm[SCX_COMM_LEN - 1] = 0;
}

/* ---- the engine's order -------------------------------------------------------- */

/*
 * The arena in the order scx-agg's engine takes the stream (t->order, from
 * its header: scx_order_plan()), so the timelines, queries and correlations
 * that walk it see what the analyses count, ties on equal timestamps
 * included.  The order is the engine's own component's (scx_sorter), fed
 * keys that carry each record's offset; the records are moved as they are,
 * bytes unchanged.  A stream that needs no sorting (no late event, not
 * sorted from its start), and every Perfetto trace (window 0: its reader
 * delivers it sorted), is left as it is.  For a while the arena is there
 * twice.
 */
static void key_at(struct scx_event *k, const struct rec *h, size_t off)
{
	*k = (struct scx_event){ .ts = h->ts, .cpu = h->cpu, .type = h->type };
	/* the sorter orders by ts and cpu only; the payload carries the offset */
	memcpy(&k->sw, &off, sizeof(off));
}

static void move_rec(struct mcp_trace *t, const struct scx_event *k, unsigned char *to, size_t *len)
{
	size_t off, n;
	struct rec h;

	memcpy(&off, &k->sw, sizeof(off));
	memcpy(&h, t->data + off, sizeof(h));
	n = REC_ALIGN(sizeof(h) + h.len);
	memcpy(to + *len, t->data + off, n);
	*len += n;
}

static void sort_as_agg(struct mcp_trace *t)
{
	struct scx_sorter o;
	struct scx_event k;
	unsigned char *to;
	size_t off = 0, len = 0;

	if (!t->order.window_ns || (!t->order.from_start && !t->out_of_order) || !t->len)
		return;
	to = scx_xmalloc(t->len);
	scx_sorter__init(&o, t->order.window_ns, t->order.from_start);
	while (off < t->len) {
		struct rec h;

		memcpy(&h, t->data + off, sizeof(h));
		key_at(&k, &h, off);
		off += REC_ALIGN(sizeof(h) + h.len);
		if (scx_sorter__push(&o, &k))
			move_rec(t, &k, to, &len);
		while (scx_sorter__pop(&o, &k, false))
			move_rec(t, &k, to, &len);
	}
	while (scx_sorter__pop(&o, &k, true))
		move_rec(t, &k, to, &len);
	scx_sorter__fini(&o);
	free(t->data);
	t->data = to;
	t->cap = t->len;
}

/* ---- loading ----------------------------------------------------------------- */

struct loader {
	struct mcp_call *c;
	struct mcp_trace *t;
	uint64_t budget;     /* bytes this trace may use */
	uint64_t held;	     /* of them, held by the Perfetto reader while it delivers */
	uint64_t total_hint; /* events expected, for progress */
	int err;
};

static int add_event(void *ctx, const struct scx_event *e)
{
	struct loader *l = ctx;
	struct mcp_trace *t = l->t;
	const struct scx_ev_desc *d = scx_ev_desc(e->type);
	size_t plen = d ? d->payload_size : 0, need;
	struct rec h = { e->ts, e->cpu, e->type, 0 };

	if (!d)
		return 0;
	/* a switch without sched_ext data nor cgroups stores only the fields before dsq_id */
	if (!scx_event_has_scx(e) && !scx_event_has_cgroup(e))
		plen = SCX_SW_SCX_OFFSET;
	h.len = (uint16_t)plen;
	need = REC_ALIGN(sizeof(h) + plen);
	if (t->len + need > t->cap) {
		size_t cap = t->cap ? t->cap + t->cap / 2 : 1 << 20;

		uint64_t avail = l->budget > l->held ? l->budget - l->held : 0;

		while (cap < t->len + need)
			cap *= 2;
		if (cap > avail) {
			cap = SCX_MAX(avail, t->len + need);
			if (t->len + need > avail) {
				l->err = -ENOMEM;
				return -ENOMEM;
			}
		}
		t->data = scx_xrealloc(t->data, cap);
		t->cap = cap;
	}
	memcpy(t->data + t->len, &h, sizeof(h));
	memcpy(t->data + t->len + sizeof(h), &e->sw, plen);
	if (need > sizeof(h) + plen)
		memset(t->data + t->len + sizeof(h) + plen, 0, need - sizeof(h) - plen);
	t->len += need;

	if (!t->nr)
		t->first_ts = e->ts;
	if (e->ts < t->last_ts)
		t->out_of_order++;
	else
		t->last_ts = e->ts;
	t->nr++;
	t->counts[e->type]++;
	if (e->cpu > t->max_cpu)
		t->max_cpu = e->cpu;
	switch (e->type) {
	case SCX_EV_SWITCH:
		task_note(t, e->sw.prev_pid, e->sw.prev_tgid, e->sw.prev_comm);
		task_note(t, e->sw.next_pid, e->sw.next_tgid, e->sw.next_comm);
		break;
	case SCX_EV_WAKING:
	case SCX_EV_WAKEUP:
	case SCX_EV_WAKEUP_NEW:
		task_note(t, e->wake.pid, e->wake.tgid, e->wake.comm);
		break;
	case SCX_EV_FORK:
		task_note(t, e->fork.child_pid, e->fork.child_tgid, e->fork.child_comm);
		break;
	case SCX_EV_EXEC:
		task_note(t, e->exec.pid, e->exec.tgid, e->exec.comm);
		break;
	case SCX_EV_LOST:
		t->lost_records += e->lost.count;
		break;
	}
	if (!(t->nr & 0xffff)) {
		if (mcp_poll_input(l->c->s)) {
			l->err = -ECANCELED;
			return -ECANCELED;
		}
		mcp_progress(l->c->s, (double)t->nr, (double)l->total_hint, "loading events");
	}
	return 0;
}

static size_t rec_size(unsigned type)
{
	const struct scx_ev_desc *d = scx_ev_desc(type);

	if (!d)
		return 0;
	return REC_ALIGN(sizeof(struct rec) +
			 (type == SCX_EV_SWITCH ? SCX_SW_SCX_OFFSET : d->payload_size));
}

static int on_pf_trace(void *ctx, const struct scx_pf_trace *pt)
{
	struct loader *l = ctx;
	struct mcp_trace *t = l->t;
	size_t need = 0;

	l->total_hint = 0;
	/* the reader's records live on until the last event is copied */
	l->held = pt->held_bytes;
	for (unsigned i = 0; i < SCX_EV__COUNT; i++) {
		l->total_hint += pt->stat.events[i];
		need += pt->stat.events[i] * rec_size(i);
	}
	/* the reader knows every event now: size the arena once, no growth slack */
	if (need && need + l->held <= l->budget && !t->cap) {
		t->data = scx_xmalloc(need);
		t->cap = need;
	}
	snprintf(t->producer, sizeof(t->producer), "perfetto:%s",
		 scx_pf_producer_name(pt->producer));
	snprintf(t->hostname, sizeof(t->hostname), "%s", pt->hdr.hostname);
	snprintf(t->kernel, sizeof(t->kernel), "%s", pt->hdr.kernel);
	t->nr_cpus = pt->hdr.nr_cpus;
	t->file_bytes = pt->stat.file_bytes;
	/* threads named in the process tree but never scheduled still get names */
	for (unsigned i = 0; i < pt->nr_threads; i++)
		task_note(t, pt->threads[i].tid, pt->threads[i].tgid, pt->threads[i].comm);
	mcp_progress(l->c->s, 1, (double)l->total_hint + 1, "parsed; storing events");
	return 0;
}

/* The cgroup records kept so far, into the trace's aggregation. */
static void name_cgroups(struct mcp_trace *t)
{
	for (size_t i = 0; i + sizeof(uint64_t) < t->cgroups.len;) {
		uint64_t id;

		memcpy(&id, t->cgroups.data + i, sizeof(id));
		i += sizeof(id);
		scx_agg__cgroup_name(t->agg, id, t->cgroups.data + i);
		i += strlen(t->cgroups.data + i) + 1;
	}
}

/*
 * A kernel snapshot (scx-events --aggregate) holds no events: it goes
 * straight into the trace's aggregation, one interval for the whole trace.
 */
static int add_ksnap(struct mcp_trace *t, struct scx_reader *r, char *err, size_t errsz)
{
	struct scx_agg_opts o = {
		.interval_ns = 0,
		.by = (1u << SCX_AGG_BY__COUNT) - 1,
		.limit = 1000,
	};
	const struct scx_header *h = scx_reader__header(r);
	struct scx_ksnap k = { 0 };
	int rc = -EPROTO;

	err[0] = 0;
	if (!t->agg) {
		if (h && h->topo && !t->topo)
			t->topo = scx_topo__dup(h->topo);
		o.nr_cpus = h ? h->nr_cpus : 0;
		if (!(t->agg = scx_agg__new(t->topo, &o))) {
			snprintf(err, errsz, "cannot create the aggregation: %s", strerror(errno));
			return rc;
		}
		name_cgroups(t);
	}
	if (!scx_ksnap_from_json(scx_reader__doc(r), &k, err, errsz)) {
		if (!t->ksnaps++)
			t->first_ts = k.start_ns;
		t->last_ts = k.end_ns;
		rc = scx_agg__add_ksnap(t->agg, &k, false);
	}
	scx_ksnap_free(&k);
	return rc;
}

/* A cgroup record, kept for the cgroup groups and reports (within the budget). */
static void keep_cgroup(struct loader *l, struct scx_reader *r)
{
	const struct scx_json_doc *d = scx_reader__doc(r);
	char path[SCX_CGROUP_PATH_MAX], msg[256];
	uint64_t id;
	size_t n;

	if (!d || scx_cgroup_rec_parse(d, &id, path, sizeof(path), msg, sizeof(msg)) != 1)
		return;
	/* kernel snapshots fill the aggregation as they are read: name it now */
	if (l->t->agg)
		scx_agg__cgroup_name(l->t->agg, id, path);
	n = strlen(path) + 1;
	if (mcp_trace_mem(l->t) + sizeof(id) + n > l->budget)
		return;
	scx_buf_add(&l->t->cgroups, &id, sizeof(id));
	scx_buf_add(&l->t->cgroups, path, n);
}

/* A stream whose header promised time order and broke it: said as scx-agg says it. */
static void note_disorder(struct loader *l, struct scx_reader *r)
{
	const char *msg;

	if (!scx_reader__disorder(r, &msg))
		return;
	if (l->t->order.window_ns)
		mcp_log(l->c->s, MCP_WARNING, "%s; sorted within %llu ms from there", msg,
			(unsigned long long)(l->t->order.window_ns / 1000000));
	else
		mcp_log(l->c->s, MCP_WARNING, "%s; counted in out_of_order_events", msg);
}

static int load_stream(struct loader *l, int fd, const char *name, char *err, size_t errsz)
{
	struct scx_reader *r = scx_reader__fdopen(fd, name);
	struct mcp_trace *t = l->t;
	const struct scx_header *h;
	const struct scx_trailer *tr;
	struct scx_event e;
	uint64_t missed = 0, missed_recs = 0, n;
	bool kerr = false;
	int rc;

	if (!r)
		return -errno;
	while ((rc = scx_reader__next(r, &e)) == SCX_READ_EVENT || rc == SCX_READ_OTHER) {
		if (rc == SCX_READ_OTHER) {
			if (scx_reader__doc(r) && scx_ksnap_is(scx_reader__doc(r)) &&
			    add_ksnap(t, r, err, errsz)) {
				kerr = true;
				break;
			}
			/* program runs the kernel skipped: lost events (scx(7)) */
			if ((rc = scx_missed_record(scx_reader__doc(r), &n, err, errsz)) < 0) {
				kerr = true;
				break;
			}
			missed += rc ? n : 0;
			missed_recs += rc;
			keep_cgroup(l, r);
			continue;
		}
		if (add_event(l, &e))
			break;
	}
	if (t->agg)
		scx_agg__flush(t->agg);
	if (kerr) {
		rc = -EINVAL; /* ours, and bad: not a Perfetto trace either */
	} else if (rc == SCX_READ_ERROR) {
		snprintf(err, errsz, "%s", scx_reader__error(r));
		rc = t->nr ? -EBADMSG : -EPROTO;
	} else {
		rc = l->err;
	}
	h = scx_reader__header(r);
	t->order = scx_order_plan(h, SCX_REORDER_UNSET, scx_order_legacy_ns(h));
	note_disorder(l, r);
	if (h) {
		snprintf(t->producer, sizeof(t->producer), "%s", h->producer);
		snprintf(t->hostname, sizeof(t->hostname), "%s", h->hostname);
		snprintf(t->kernel, sizeof(t->kernel), "%s", h->kernel);
		t->nr_cpus = h->nr_cpus;
		/* a kernel snapshot may have taken it already (add_ksnap) */
		if (h->topo && !t->topo)
			t->topo = scx_topo__dup(h->topo);
	}
	/* what only the trailer counts is lost too (stream/lost.h) */
	tr = scx_reader__trailer(r);
	t->lost = SCX_MAX(t->lost_records, tr ? tr->lost_total : 0) +
		  SCX_MAX(missed, tr ? tr->missed : 0);
	t->skipped = scx_reader__skipped(r);
	t->skipped -= SCX_MIN(t->skipped, t->ksnaps + missed_recs); /* read, not skipped */
	snprintf(t->format, sizeof(t->format), "%s%s",
		 scx_reader__format(r) == SCX_FMT_BINARY ? "scx-binary" : "scx-ndjson",
		 scx_reader__compression(r) == SCX_COMP_ZSTD ? "+zstd" :
		 scx_reader__compression(r) == SCX_COMP_GZIP ? "+gzip" :
							       "");
	scx_reader__free(r);
	return rc;
}

/*
 * A Perfetto trace starts (after decompression) with field 1, wire type 2:
 * byte 0x0a; scx streams start with '{', white space or the binary magic.
 * Deciding from one byte spares decompressing megabytes in the NDJSON reader
 * before it gives up on a protobuf.
 */
static bool sniff_perfetto(int fd)
{
	struct scx_zin z;
	char b[1];
	bool pb = false;

	if (scx_zin_open(&z, fd, NULL, 0) == 0 && scx_zin_read(&z, b, 1) == 1)
		pb = b[0] == 0x0a;
	scx_zin_close(&z);
	lseek(fd, 0, SEEK_SET);
	return pb;
}

/* The reader names the file it was given, /proc/self/fd/N: show the user's name instead. */
static void name_for_fd(char *err, size_t size, const char *fdpath, const char *name)
{
	char *p = strstr(err, fdpath), rest[1200];

	if (!p)
		return;
	snprintf(rest, sizeof(rest), "%s", p + strlen(fdpath));
	snprintf(p, size - (p - err), "%s%s", name, rest);
}

static void trace_free(struct mcp_trace *t)
{
	if (!t)
		return;
	scx_agg__free(t->agg);
	scx_topo__free(t->topo);
	scx_map_free(&t->tasks);
	scx_buf_free(&t->cgroups);
	free(t->data);
	free(t);
}

static uint64_t mem_used(struct mcp_server *s)
{
	uint64_t m = 0;

	for (unsigned i = 0; i < s->nr_traces; i++)
		m += mcp_trace_mem(s->traces[i]);
	return m;
}

int mcp_trace_load(struct mcp_call *c, const char *path, const char *id)
{
	struct mcp_server *s = c->s;
	struct mcp_trace *t;
	struct loader l = { .c = c };
	char resolved[PATH_MAX], err[1200] = "", pfpath[64];
	uint64_t t0 = scx_now_mono_ns(), used = mem_used(s);
	struct scx_pf_trace *pt = NULL;
	struct stat st = { 0 };
	int fd, rc;

	if (mcp_trace_find(s, id))
		return mcp_fail(c,
				"trace id '%s' is already loaded (unload_trace it first or pick "
				"another trace_id)",
				id);
	fd = mcp_fs_open(s, path, O_RDONLY, resolved);
	if (fd == -EACCES)
		return mcp_fail(c,
				"'%s' is outside the directories scx-mcp may read (%s%s); start "
				"scx-mcp with --root DIR to allow another one",
				path, s->roots[0].path, s->nr_roots > 1 ? ", ..." : "");
	if (fd < 0) {
		mcp_fail(c, "cannot open '%s': %s", path, mcp_fs_strerror(fd));
		return fd;
	}
	if (used >= s->o.trace_mem_max) {
		close(fd);
		return mcp_fail(c,
				"loaded traces already use %llu bytes, the --max-trace-memory cap; "
				"unload_trace one first",
				(unsigned long long)used);
	}
	if (fstat(fd, &st) || !st.st_size) {
		close(fd);
		return mcp_fail(c, "cannot load '%s': %s", path,
				st.st_size ? strerror(errno) : "the file is empty");
	}
	t = scx_xcalloc(1, sizeof(*t));
	scx_map_init(&t->tasks, sizeof(struct mcp_task));
	snprintf(t->id, sizeof(t->id), "%s", id);
	snprintf(t->path, sizeof(t->path), "%s", resolved);
	t->max_cpu = -1;
	l.t = t;
	l.budget = s->o.trace_mem_max - used;

	mcp_progress(s, 0, 0, "reading");
	rc = sniff_perfetto(fd) ? -EPROTO : load_stream(&l, fd, path, err, sizeof(err));
	if (rc == -EPROTO && (uint64_t)st.st_size > l.budget) {
		/* the Perfetto reader holds the whole file: refuse before reading it */
		close(fd);
		trace_free(t);
		return mcp_fail(c,
				"'%s' is %llu bytes, more than the %llu bytes left under the "
				"trace memory cap (--max-trace-memory %llu)",
				path, (unsigned long long)st.st_size, (unsigned long long)l.budget,
				(unsigned long long)s->o.trace_mem_max);
	}
	if (rc == -EPROTO) {
		/* not an scx-events stream: a Perfetto trace, through the fd we opened */
		/* the reader's own memory (inflated trace, decoded events) under the cap too */
		struct scx_pf_opts po = {
			.on_event = add_event,
			.on_trace = on_pf_trace,
			.ctx = &l,
			.max_bytes = SCX_MAX(l.budget, 1),
		};
		char serr[400];

		snprintf(serr, sizeof(serr), "%s", err);
		snprintf(pfpath, sizeof(pfpath), "/proc/self/fd/%d", fd);
		rc = scx_pf_read_path(pfpath, &po, &pt);
		snprintf(t->format, sizeof(t->format), "perfetto");
		if (rc == -EFBIG)
			rc = -ENOMEM; /* refused before it grew: the cap message below */
		else if (rc == -EBADMSG && pt && !t->nr)
			snprintf(err, sizeof(err),
				 "neither an scx-events stream (%s) nor a Perfetto "
				 "trace (%s)",
				 serr, pt->error);
		else if (rc == -EBADMSG && pt)
			snprintf(err, sizeof(err), "%s", pt->error);
		if (pt && rc == -EBADMSG)
			name_for_fd(err, sizeof(err), pfpath, path);
		scx_pf_trace__free(pt);
	}
	close(fd);
	if (l.err)
		rc = l.err;
	if (!rc && !t->nr && !t->ksnaps) {
		rc = -ENODATA;
		snprintf(err, sizeof(err), "no scheduler events in it");
	}
	if (rc == -ECANCELED || rc == -ENOMEM || (rc && !t->nr && !t->ksnaps)) {
		trace_free(t);
		if (rc == -ECANCELED)
			return mcp_fail(c, "cancelled");
		if (rc == -ENOMEM)
			return mcp_fail(c,
					"'%s' needs more than the %llu bytes left under the trace "
					"memory cap (--max-trace-memory %llu)",
					path, (unsigned long long)l.budget,
					(unsigned long long)s->o.trace_mem_max);
		mcp_fail(c, "cannot load '%s': %s", path, err[0] ? err : strerror(-rc));
		return rc;
	}
	if (rc) /* truncated: keep the good prefix, note the error */
		snprintf(t->producer + strlen(t->producer),
			 sizeof(t->producer) - strlen(t->producer), " (truncated)");
	if (t->lost < t->lost_records)
		t->lost = t->lost_records; /* a Perfetto trace: its LOST records only */
	sort_as_agg(t);
	/* give back the slack of the last growth */
	if (t->cap > t->len + 4096) {
		t->data = scx_xrealloc(t->data, t->len ? t->len : 1);
		t->cap = t->len;
	}
	if (!t->nr_cpus)
		t->nr_cpus = t->max_cpu + 1;
	t->load_ns = scx_now_mono_ns() - t0;
	/* aggregate now, so every analysis afterwards only formats a report */
	mcp_progress(s, (double)t->nr + 1, (double)t->nr + 2, "aggregating");
	if (!mcp_trace_agg(c, t)) {
		trace_free(t);
		return -EINVAL;
	}
	t->load_ns = scx_now_mono_ns() - t0;
	s->traces = scx_xrealloc(s->traces, (s->nr_traces + 1) * sizeof(*s->traces));
	s->traces[s->nr_traces++] = t;
	s->list_changed = true;
	if (rc)
		mcp_log(s, MCP_WARNING, "trace %s: %s; kept %llu events before the error", id, err,
			(unsigned long long)t->nr);
	mcp_log(s, MCP_INFO, "loaded trace %s: %llu events in %.3f s", id,
		(unsigned long long)t->nr, t->load_ns / 1e9);
	return rc ? 1 : 0;
}

int mcp_trace_unload(struct mcp_server *s, const char *id)
{
	for (unsigned i = 0; i < s->nr_traces; i++) {
		if (!strcmp(s->traces[i]->id, id)) {
			trace_free(s->traces[i]);
			memmove(&s->traces[i], &s->traces[i + 1],
				(s->nr_traces - i - 1) * sizeof(*s->traces));
			s->nr_traces--;
			s->list_changed = true;
			return 0;
		}
	}
	return -ENOENT;
}

struct mcp_trace *mcp_trace_find(struct mcp_server *s, const char *id)
{
	for (unsigned i = 0; i < s->nr_traces; i++)
		if (!strcmp(s->traces[i]->id, id))
			return s->traces[i];
	return NULL;
}

void mcp_traces_free(struct mcp_server *s)
{
	for (unsigned i = 0; i < s->nr_traces; i++)
		trace_free(s->traces[i]);
	free(s->traces);
	s->traces = NULL;
	s->nr_traces = 0;
}

bool mcp_trace_id_ok(const char *id)
{
	size_t n = strlen(id);

	if (!n || n > 64 || id[0] == '.')
		return false;
	for (size_t i = 0; i < n; i++) {
		char ch = id[i];

		if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		      (ch >= '0' && ch <= '9') || ch == '_' || ch == '-' || ch == '.'))
			return false;
	}
	return true;
}

struct scx_agg *mcp_trace_agg(struct mcp_call *c, struct mcp_trace *t)
{
	/* the arena is in the engine's order already (sort_as_agg) */
	struct scx_agg_opts o = {
		.interval_ns = 0,
		.by = (1u << SCX_AGG_BY__COUNT) - 1,
		.limit = 1000,
	};
	struct scx_event e;
	uint64_t t0;
	size_t off = 0;

	if (t->agg)
		return t->agg;
	t0 = scx_now_mono_ns();
	t->agg = scx_agg__new(t->topo, &o);
	if (!t->agg) {
		mcp_fail(c, "cannot create the aggregation: %s", strerror(errno));
		return NULL;
	}
	name_cgroups(t);
	while (mcp_trace_next(t, &off, &e))
		scx_agg__add(t->agg, &e);
	/* the arena's LOST records counted themselves, on their CPUs */
	if (t->lost > t->lost_records)
		scx_agg__note_lost(t->agg, -1, t->lost - t->lost_records);
	scx_agg__flush(t->agg);
	t->agg_ns = scx_now_mono_ns() - t0;
	return t->agg;
}
