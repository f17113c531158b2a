// SPDX-License-Identifier: GPL-2.0
/*
 * perfetto_read/perfetto_write through the library API: wire decoding, the
 * round trip of every event kind (compact, plain, deflate), the 512 KiB limit
 * of compressed packets, truncation with byte offsets, callback stops.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "perfetto/perfetto_read.h"
#include "perfetto/perfetto_wire.h"
#include "perfetto/perfetto_write.h"
#include "tap.h"
#include "core/util.h"

struct evs {
	struct scx_event *e;
	size_t n, cap;
};

static void push(struct evs *v, const struct scx_event *e)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? v->cap * 2 : 256;
		v->e = realloc(v->e, v->cap * sizeof(*v->e));
	}
	v->e[v->n++] = *e;
}

static int collect(void *ctx, const struct scx_event *e)
{
	push(ctx, e);
	return 0;
}

static void sw(struct evs *v, uint64_t ts, int cpu, int prev, int prev_tgid, const char *pc,
	       int64_t state, int next, int next_tgid, const char *nc)
{
	struct scx_event e;

	scx_event_init(&e, SCX_EV_SWITCH);
	e.ts = ts;
	e.cpu = cpu;
	e.sw.prev_pid = prev;
	e.sw.prev_tgid = prev_tgid;
	e.sw.prev_prio = 120;
	e.sw.prev_state = state;
	e.sw.next_pid = next;
	e.sw.next_tgid = next_tgid;
	e.sw.next_prio = next ? 120 : 120;
	strcpy(e.sw.prev_comm, pc);
	strcpy(e.sw.next_comm, nc);
	push(v, &e);
}

static void wake(struct evs *v, unsigned type, uint64_t ts, int cpu, int pid, int tgid,
		 const char *comm, int target, int waker, int waker_tgid)
{
	struct scx_event e;

	scx_event_init(&e, type);
	e.ts = ts;
	e.cpu = cpu;
	e.wake.pid = pid;
	e.wake.tgid = tgid;
	e.wake.prio = 120;
	e.wake.target_cpu = target;
	e.wake.waker_pid = waker;
	e.wake.waker_tgid = waker_tgid;
	strcpy(e.wake.comm, comm);
	push(v, &e);
}

/* Every event kind, on two cpus, in time order. */
static void sample(struct evs *v)
{
	struct scx_event e;

	sw(v, 1000, 0, 0, 0, "swapper/0", 0, 100, 100, "app");
	sw(v, 1100, 1, 0, 0, "swapper/1", 0, 200, 200, "db");
	wake(v, SCX_EV_WAKING, 1200, 0, 101, 100, "worker", 1, 100, 100); /* compact */
	wake(v, SCX_EV_WAKING, 1250, 0, 201, 200, "dbw", 1, 0, 0); /* waker from irq: plain */
	wake(v, SCX_EV_WAKEUP, 1300, 1, 101, 100, "worker", 1, 200, 200);
	sw(v, 1400, 1, 200, 200, "db", SCX_STATE_PREEMPTED, 101, 100, "worker");
	scx_event_init(&e, SCX_EV_FORK);
	e.ts = 1500, e.cpu = 0;
	e.fork.parent_pid = 100, e.fork.parent_tgid = 100, e.fork.child_pid = 102;
	e.fork.child_tgid = 102;
	strcpy(e.fork.parent_comm, "app");
	strcpy(e.fork.child_comm, "app");
	push(v, &e);
	scx_event_init(&e, SCX_EV_FORK); /* a thread */
	e.ts = 1510, e.cpu = 0;
	e.fork.parent_pid = 100, e.fork.parent_tgid = 100, e.fork.child_pid = 103;
	e.fork.child_tgid = 100;
	strcpy(e.fork.parent_comm, "app");
	strcpy(e.fork.child_comm, "app");
	push(v, &e);
	wake(v, SCX_EV_WAKEUP_NEW, 1600, 0, 102, 102, "app", 0, 100, 100);
	scx_event_init(&e, SCX_EV_MIGRATE);
	e.ts = 1700, e.cpu = 1;
	e.mig.pid = 200, e.mig.tgid = 200, e.mig.prio = 120, e.mig.orig_cpu = 1, e.mig.dest_cpu = 0;
	strcpy(e.mig.comm, "db");
	push(v, &e);
	sw(v, 2000, 0, 100, 100, "app", SCX_STATE_INTERRUPTIBLE, 102, 102, "app");
	scx_event_init(&e, SCX_EV_EXEC);
	e.ts = 2100, e.cpu = 0;
	e.exec.pid = 102, e.exec.tgid = 102, e.exec.old_pid = 102;
	strcpy(e.exec.comm, "true");
	strcpy(e.exec.filename, "/usr/bin/true");
	push(v, &e);
	scx_event_init(&e, SCX_EV_TASK_RENAME);
	e.ts = 2100, e.cpu = 0;
	e.rename.pid = 102, e.rename.tgid = 102;
	strcpy(e.rename.oldcomm, "app");
	strcpy(e.rename.newcomm, "true");
	push(v, &e);
	scx_event_init(&e, SCX_EV_SOFTIRQ_ENTRY);
	e.ts = 2200, e.cpu = 0, e.softirq.vec = 3;
	push(v, &e);
	e.type = SCX_EV_SOFTIRQ_EXIT, e.ts = 2250;
	push(v, &e);
	scx_event_init(&e, SCX_EV_IRQ_ENTRY);
	e.ts = 2300, e.cpu = 1, e.irq.irq = 42;
	push(v, &e);
	scx_event_init(&e, SCX_EV_IRQ_EXIT);
	e.ts = 2310, e.cpu = 1, e.irq.irq = 42, e.irq.ret = 1;
	push(v, &e);
	scx_event_init(&e, SCX_EV_IPI_SEND);
	e.ts = 2400, e.cpu = 0, e.ipi.target_cpu = 1;
	push(v, &e);
	e.ts = 2401, e.ipi.target_cpu = 1, e.ipi.callsite = 0xffffffff81234567ull;
	push(v, &e);
	scx_event_init(&e, SCX_EV_IPI_ENTRY);
	e.ts = 2450, e.cpu = 1;
	push(v, &e);
	e.type = SCX_EV_IPI_EXIT, e.ts = 2460;
	push(v, &e);
	scx_event_init(&e, SCX_EV_CPU_FREQUENCY);
	e.ts = 2500, e.cpu = 0, e.freq.cpu_id = 0, e.freq.khz = 2400000;
	push(v, &e);
	scx_event_init(&e, SCX_EV_CPU_IDLE);
	e.ts = 2600, e.cpu = 1, e.idle.cpu_id = 1, e.idle.state = SCX_IDLE_EXIT;
	push(v, &e);
	/* lost events on cpu 1, then a switch whose prev does not follow */
	scx_event_init(&e, SCX_EV_LOST);
	e.ts = 2700, e.cpu = 1, e.lost.count = 17;
	push(v, &e);
	sw(v, 2800, 1, 300, 300, "other", SCX_STATE_UNINTERRUPTIBLE, 200, 200, "db");
	/* sched_ext data */
	sw(v, 2900, 1, 200, 200, "db", SCX_STATE_PREEMPTED, 101, 100, "worker");
	v->e[v->n - 1].sw.dsq_id = 0x8000000000000001ull;
	v->e[v->n - 1].sw.dsq_lat_ns = 12345;
	v->e[v->n - 1].sw.dsq_depth = 3;
	v->e[v->n - 1].sw.dsq_vtime = 999;
	v->e[v->n - 1].sw.slice_ns = 20000000;
	v->e[v->n - 1].sw.prev_slice_used_ns = 5000;
	v->e[v->n - 1].sw.layer_id = 4;
	scx_event_init(&e, SCX_EV_DSQ_INSERT);
	e.ts = 2950, e.cpu = 0;
	e.dsq.pid = 201, e.dsq.tgid = 200, e.dsq.dsq_id = 7, e.dsq.vtime = 5, e.dsq.slice_ns = 6;
	e.dsq.depth = 2;
	strcpy(e.dsq.comm, "dbw");
	push(v, &e);
	scx_event_init(&e, SCX_EV_CPUHP_ENTER);
	e.ts = 3000, e.cpu = 0, e.cpuhp.cpu_id = 1, e.cpuhp.target = 5, e.cpuhp.idx = 4;
	push(v, &e);
	e.type = SCX_EV_CPUHP_EXIT, e.ts = 3001, e.cpuhp.ret = -22;
	push(v, &e);
	scx_event_init(&e, SCX_EV_SCX_ENABLE);
	e.ts = 3100, e.cpu = 0;
	strcpy(e.ops.name, "rusty");
	push(v, &e);
	sw(v, 3200, 0, 102, 102, "true", SCX_STATE_DEAD, 0, 0, "swapper/0");
	scx_event_init(&e, SCX_EV_EXIT);
	e.ts = 3150, e.cpu = 0, e.task.pid = 102, e.task.tgid = 102, e.task.prio = 120;
	strcpy(e.task.comm, "true");
	push(v, &e);
	e.type = SCX_EV_FREE, e.ts = 3300;
	push(v, &e);
}

static int cmp_ts(const void *a, const void *b)
{
	const struct scx_event *x = a, *y = b;

	return (x->ts > y->ts) - (x->ts < y->ts);
}

static char *tmpl(void)
{
	static char p[64];

	snprintf(p, sizeof(p), "/tmp/scx-pf-unit.XXXXXX");
	return p;
}

/* Write v with o, return the file's bytes. */
static char *write_trace(const struct evs *v, const struct scx_pf_write_opts *o, size_t *len)
{
	char *path = tmpl();
	int fd = mkstemp(path);
	struct scx_pf_writer *w = scx_pf_writer__fdopen(fd, o);
	struct scx_buf b = { 0 };
	char tmp[65536];
	ssize_t n;

	for (size_t i = 0; i < v->n; i++)
		scx_pf_writer__event(w, &v->e[i]);
	if (scx_pf_writer__close(w))
		return NULL;
	lseek(fd, 0, SEEK_SET);
	while ((n = read(fd, tmp, sizeof(tmp))) > 0)
		scx_buf_add(&b, tmp, n);
	close(fd);
	unlink(path);
	*len = b.len;
	return b.data;
}

static bool same_events(const struct evs *a, const struct evs *b, const char *what)
{
	if (a->n != b->n) {
		printf("# %s: %zu events, want %zu\n", what, b->n, a->n);
		return false;
	}
	for (size_t i = 0; i < a->n; i++)
		if (memcmp(&a->e[i], &b->e[i], sizeof(a->e[i]))) {
			printf("# %s: event %zu (%s at %llu) differs\n", what, i,
			       scx_ev_name(a->e[i].type), (unsigned long long)a->e[i].ts);
			return false;
		}
	return true;
}

static void test_wire(void)
{
	uint8_t buf[32], *p;
	struct pb b;
	struct pb_field f;
	uint64_t v;

	p = pb_put_varint(buf, 300);
	is_int(p - buf, 2, "varint 300 takes 2 bytes");
	b = (struct pb){ buf, p };
	ok(!pb_varint(&b, &v) && v == 300, "varint 300 decodes");
	p = pb_put_i64(buf, 2, -1);
	is_int(p - buf, 11, "negative int32 is 10 bytes plus the tag");
	b = (struct pb){ buf, p };
	ok(pb_next(&b, &f) == 1 && f.num == 2 && (int32_t)f.v == -1, "negative int32 decodes");
	memset(buf, 0xff, 11);
	b = (struct pb){ buf, buf + 11 };
	ok(pb_varint(&b, &v) < 0, "overlong varint is malformed");
	buf[0] = 0x0a, buf[1] = 0x05, buf[2] = 0x00;
	b = (struct pb){ buf, buf + 3 };
	ok(pb_next(&b, &f) < 0 && b.p == buf, "length past the end is malformed, position kept");
	buf[0] = 0x0b; /* group start */
	b = (struct pb){ buf, buf + 3 };
	ok(pb_next(&b, &f) < 0, "groups are rejected");
}

static void test_round_trip(void)
{
	static const struct {
		const char *name;
		struct scx_pf_write_opts o;
	} modes[] = {
		{ "compact", { 0 } },
		{ "no-compact", { .no_compact = true } },
		{ "deflate", { .deflate = true } },
		{ "small bundles", { .bundle_events = 2 } },
	};
	struct evs in = { 0 };

	sample(&in);
	qsort(in.e, in.n, sizeof(*in.e), cmp_ts);
	for (size_t m = 0; m < SCX_ARRAY_SIZE(modes); m++) {
		struct evs out = { 0 };
		struct scx_pf_opts o = { .on_event = collect, .ctx = &out };
		struct scx_pf_trace *t;
		size_t len;
		char *buf = write_trace(&in, &modes[m].o, &len);
		int rc = scx_pf_read_mem(buf, len, "rt", &o, &t);

		is_int(rc, 0, "%s: reads back", modes[m].name);
		ok(same_events(&in, &out, modes[m].name), "%s: same %zu events", modes[m].name,
		   in.n);
		is_int(t->producer, SCX_PF_PROD_SCX, "%s: producer is scx", modes[m].name);
		is_int(t->stat.lost_bundles, 1, "%s: one bundle flagged lost", modes[m].name);
		if (m == 0) {
			ok(t->stat.compact_switches > 0 && t->stat.compact_wakings == 1,
			   "compact: switches and the running task's waking are compact");
			const struct scx_pf_thread *th = scx_pf_trace__thread(t, 103);
			ok(th && th->tgid == 100, "thread 103 belongs to process 100");
			const struct scx_pf_process *pr = scx_pf_trace__process(t, 100);
			ok(pr && !strcmp(pr->cmdline, "app"), "process 100 is named app");
		}
		if (m == 1)
			is_int(t->stat.compact_switches, 0, "no-compact: no compact switches");
		if (m == 2)
			ok(t->stat.compressed_packets >= 1, "deflate: compressed_packets");
		scx_pf_trace__free(t);
		free(buf);
		free(out.e);
	}
	free(in.e);
}

/* Many events: every deflate packet stays under 512 KiB and the trace reads back. */
static void test_deflate_limit(void)
{
	struct evs in = { 0 }, out = { 0 };
	struct scx_pf_write_opts wo = { .deflate = true };
	struct scx_pf_opts o = { .on_event = collect, .ctx = &out };
	struct scx_pf_trace *t;
	uint64_t seed = 1;
	size_t len, max = 0, npk = 0;
	char *buf;

	for (int i = 0; i < 400000; i++) {
		int cpu = i & 1;
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		int next = 1000 + (int)(seed >> 33) % 5000;
		int prev = in.n >= 2 ? in.e[in.n - 2].sw.next_pid : 0;
		char c1[16], c2[16];
		snprintf(c1, sizeof(c1), "t%d", prev);
		snprintf(c2, sizeof(c2), "t%d", next);
		sw(&in, 1000 + (uint64_t)i * 997, cpu, prev, prev, prev ? c1 : "swapper", 1, next,
		   next, c2);
	}
	buf = write_trace(&in, &wo, &len);
	struct pb b = { (uint8_t *)buf, (uint8_t *)buf + len };
	struct pb_field f;
	while (pb_next(&b, &f) > 0) {
		size_t sz = f.s.end - f.s.p;
		npk++;
		if (sz > max)
			max = sz;
	}
	ok(npk > 3 && max < 512 * 1024, "deflate: %zu packets, largest %zu bytes < 512 KiB", npk,
	   max);
	is_int(scx_pf_read_mem(buf, len, "big", &o, &t), 0, "deflate: 400k switches read back");
	ok(same_events(&in, &out, "deflate big"), "deflate: same 400k events");
	scx_pf_trace__free(t);
	free(buf);
	free(in.e);
	free(out.e);
}

static int stop_at_3(void *ctx, const struct scx_event *e)
{
	return ++*(int *)ctx == 3 ? 7 : 0;
}

static void test_errors(void)
{
	struct evs in = { 0 }, out = { 0 };
	struct scx_pf_write_opts wo = { .no_compact = true, .bundle_events = 1 };
	struct scx_pf_opts o = { .on_event = collect, .ctx = &out };
	struct scx_pf_trace *t;
	size_t len, cut = 0, whole = 0;
	char *buf;
	int n = 0;

	sample(&in);
	qsort(in.e, in.n, sizeof(*in.e), cmp_ts);
	buf = write_trace(&in, &wo, &len);
	/* cut inside the last-but-two top-level packet */
	struct pb b = { (uint8_t *)buf, (uint8_t *)buf + len };
	struct pb_field f;
	const uint8_t *starts[4096];
	size_t ns = 0;
	for (const uint8_t *at = b.p; pb_next(&b, &f) > 0; at = b.p)
		starts[ns++] = at;
	cut = starts[ns - 3] - (uint8_t *)buf + 3;
	int rc = scx_pf_read_mem(buf, cut, "cut", &o, &t);
	is_int(rc, -EBADMSG, "truncated: -EBADMSG");
	is_int(t->error_offset, starts[ns - 3] - (uint8_t *)buf,
	       "truncated: offset of the cut packet");
	ok(strstr(t->error, "cut: byte ") != NULL, "truncated: message names input and byte (%s)",
	   t->error);
	/* events of the complete packets were delivered */
	struct evs full = { 0 };
	struct scx_pf_opts o2 = { .on_event = collect, .ctx = &full };
	struct scx_pf_trace *t2;
	scx_pf_read_mem(buf, starts[ns - 3] - (uint8_t *)buf, "whole", &o2, &t2);
	whole = full.n;
	ok(out.n == whole && whole > 0 && same_events(&full, &out, "prefix"),
	   "truncated: the %zu events before the cut were delivered", whole);
	scx_pf_trace__free(t);
	scx_pf_trace__free(t2);

	struct scx_pf_opts o3 = { .on_event = stop_at_3, .ctx = &n };
	is_int(scx_pf_read_mem(buf, len, "stop", &o3, &t), 7, "a callback's value stops the read");
	is_int(n, 3, "after three events");
	scx_pf_trace__free(t);

	is_int(scx_pf_read_mem("", 0, "empty", NULL, &t), 0, "an empty trace is valid");
	is_int(t->stat.packets, 0, "with no packets");
	scx_pf_trace__free(t);
	is_int(scx_pf_read_mem("\x0a\x02\xff\xff", 4, "junk", NULL, &t), -EBADMSG,
	       "a malformed packet is an error");
	scx_pf_trace__free(t);
	/* unknown packet fields and unknown Trace fields are skipped */
	is_int(scx_pf_read_mem("\x0a\x03\xb8\x3e\x05\x12\x01\x00", 8, "unknown", NULL, &t), 0,
	       "unknown fields are skipped");
	is_int(t->stat.packets, 1, "one packet");
	scx_pf_trace__free(t);
	free(buf);
	free(in.e);
	free(out.e);
	free(full.e);
}

/* ---- a hand-built wprof-style TrackEvent trace ---------------------------- */

static void packet(struct scx_buf *b, const uint8_t *body, size_t n)
{
	uint8_t h[16], *p = h;

	*p++ = 0x0a;
	p = pb_put_varint(p, n);
	scx_buf_add(b, h, p - h);
	scx_buf_add(b, body, n);
}

static uint8_t *sub(uint8_t *p, uint32_t num, const uint8_t *m, const uint8_t *end)
{
	return pb_put_bytes(p, num, m, end - m);
}

static uint8_t *named(uint8_t *p, uint32_t num, uint64_t iid, const char *name)
{
	uint8_t m[64], *q = pb_put_u64(m, 1, iid);

	q = pb_put_str(q, 2, name, 64);
	return sub(p, num, m, q);
}

/* TrackEvent {type, track, category iid, annotations cpu/extra, flow} at ts */
/* when >= 0, te() adds an "scx_layer_id" annotation (name iid 103) with this value */
static int64_t te_layer = -1;

static void te(struct scx_buf *b, uint64_t ts, int type, uint64_t track, uint64_t cat,
	       uint64_t name_iid, int cpu, uint64_t extra_name, int64_t extra, uint64_t flow)
{
	uint8_t ev[256], *q = ev, pk[300], *p = pk, a[32], *r;

	q = pb_put_u64(q, 9, type);
	q = pb_put_u64(q, 11, track);
	if (cat)
		q = pb_put_u64(q, 3, cat);
	if (name_iid)
		q = pb_put_u64(q, 10, name_iid);
	if (cpu >= 0) {
		r = pb_put_u64(a, 1, 100); /* "cpu" */
		r = pb_put_i64(r, 4, cpu);
		q = sub(q, 4, a, r);
	}
	if (extra_name) {
		r = pb_put_u64(a, 1, extra_name);
		r = extra_name == 102 ? pb_put_u64(r, 17, (uint64_t)extra) :
					pb_put_i64(r, 4, extra);
		q = sub(q, 4, a, r);
	}
	if (te_layer >= 0) {
		r = pb_put_u64(a, 1, 103);
		r = pb_put_i64(r, 4, te_layer);
		q = sub(q, 4, a, r);
	}
	if (flow) {
		q = pb_put_tag(q, 47, PB_I64);
		memcpy(q, &flow, 8);
		q += 8;
	}
	p = pb_put_u64(p, 8, ts);
	p = pb_put_u64(p, 10, 7);
	p = sub(p, 11, ev, q);
	packet(b, pk, p - pk);
}

static void thread_track(struct scx_buf *b, uint64_t uuid, int pid, int tid, const char *name)
{
	uint8_t t[64], *q, d[96], *r, pk[128], *p;

	q = pb_put_u64(t, 1, pid);
	q = pb_put_u64(q, 2, tid);
	q = pb_put_str(q, 5, name, 16);
	r = pb_put_u64(d, 1, uuid);
	r = sub(r, 4, t, q);
	p = pb_put_u64(pk, 10, 7);
	p = sub(p, 60, d, r);
	packet(b, pk, p - pk);
}

static void test_trackevent(void)
{
	struct scx_buf b = { 0 };
	uint8_t in[512], *q = in, pk[600], *p = pk;
	struct evs out = { 0 };
	struct scx_pf_opts o = { .on_event = collect, .ctx = &out };
	struct scx_pf_trace *t;
	enum { ONCPU = 1, WAKER = 2, WAKEE = 3, FORKING = 4, FORKED = 5 };

	q = named(q, 1, ONCPU, "ONCPU");
	q = named(q, 1, WAKER, "WAKER");
	q = named(q, 1, WAKEE, "WAKEE");
	q = named(q, 1, FORKING, "FORKING");
	q = named(q, 1, FORKED, "FORKED");
	q = named(q, 2, 50, "app");
	q = named(q, 2, 51, "db");
	q = named(q, 3, 100, "cpu");
	q = named(q, 3, 101, "scx_dsq_id");
	q = named(q, 3, 102, "offcpu_reason");
	q = named(q, 3, 103, "scx_layer_id");
	q = named(q, 29, 200, "preempted");
	p = pb_put_u64(p, 10, 7);
	p = pb_put_u64(p, 13, 1);
	p = sub(p, 12, in, q);
	packet(&b, pk, p - pk);
	thread_track(&b, 1000, 10, 10, "app");
	thread_track(&b, 1001, 2000000001, 20, "db");	    /* wprof's KERNEL process */
	thread_track(&b, 1002, 2000000000, 1, "swapper/0"); /* idle */
	te(&b, 0, 1, 1000, ONCPU, 50, 0, 0, 0, 0);	    /* synthetic: app runs at start */
	te(&b, 150, 3, 1000, WAKER, 0, 0, 0, 0, 77);	    /* app wakes db */
	te(&b, 150, 3, 1001, WAKEE, 0, 0, 0, 0, 77);
	te(&b, 200, 2, 1000, ONCPU, 0, 0, 102, 200, 0); /* app preempted */
	te_layer = 3;
	te(&b, 200, 1, 1001, ONCPU, 51, 0, 101, 5, 77); /* db runs from DSQ 5, layer 3 */
	te_layer = -1;
	te(&b, 300, 3, 1001, FORKING, 0, 0, 0, 0, 88);
	te(&b, 300, 3, 1000, FORKED, 0, 0, 0, 0, 88);
	te(&b, 400, 2, 1001, ONCPU, 0, 0, 0, 0, 0); /* db blocks */
	te(&b, 400, 1, 1002, ONCPU, 0, 0, 0, 0, 0); /* idle */

	is_int(scx_pf_read_mem(b.data, b.len, "te", &o, &t), 0, "track events: read");
	is_int(t->producer, SCX_PF_PROD_WPROF, "track events: producer wprof (ONCPU category)");
	is_int(out.n, 4, "track events: waking, 2 switches, fork");
	if (out.n == 4) {
		struct scx_event *w = &out.e[0], *s1 = &out.e[1], *f = &out.e[2], *s2 = &out.e[3];
		ok(w->type == SCX_EV_WAKING && w->ts == 150 && w->cpu == 0 && w->wake.pid == 20 &&
			   w->wake.waker_pid == 10 && w->wake.target_cpu == 0 &&
			   !strcmp(w->wake.comm, "db"),
		   "WAKER/WAKEE by flow: waking of 20 by 10, target cpu from the ONCPU begin");
		ok(s1->type == SCX_EV_SWITCH && s1->ts == 200 && s1->sw.prev_pid == 10 &&
			   s1->sw.prev_state == SCX_STATE_PREEMPTED && s1->sw.next_pid == 20 &&
			   s1->sw.next_tgid == 20 && s1->sw.dsq_id == 5 &&
			   !strcmp(s1->sw.next_comm, "db") && !strcmp(s1->sw.prev_comm, "app"),
		   "END+BEGIN: switch 10 (R+) -> 20 with dsq 5, kernel thread is its own tgid");
		is_int(s1->sw.layer_id, 3, "scx_layer_id annotation kept as the switch's layer_id");
		ok(f->type == SCX_EV_FORK && f->fork.parent_pid == 20 && f->fork.child_pid == 10,
		   "FORKING/FORKED by flow: fork 20 -> 10");
		ok(s2->type == SCX_EV_SWITCH && s2->ts == 400 && s2->sw.prev_pid == 20 &&
			   s2->sw.prev_state == SCX_STATE_INTERRUPTIBLE && s2->sw.next_pid == 0 &&
			   !strcmp(s2->sw.next_comm, "swapper/0"),
		   "idle thread of the fake IDLE process is pid 0");
	}
	scx_pf_trace__free(t);
	out.n = 0;
	o.source = SCX_PF_SRC_FTRACE;
	is_int(scx_pf_read_mem(b.data, b.len, "te", &o, &t), 0, "--source ftrace: read");
	is_int(out.n, 1, "--source ftrace: only the fork remains");
	scx_pf_trace__free(t);
	free(out.e);
	scx_buf_free(&b);
}

/* compressed_packets may carry a gzip header instead of zlib's (trace_processor takes both) */
static void test_gzip_packets(void)
{
	struct evs in = { 0 }, a = { 0 }, b = { 0 };
	struct scx_pf_write_opts wo = { .no_compact = true };
	struct scx_pf_opts oa = { .on_event = collect, .ctx = &a },
			   ob = { .on_event = collect, .ctx = &b };
	struct scx_pf_trace *t;
	size_t len;
	char *inner;
	z_stream z = { 0 };
	uint8_t *gz, hdr[32], *p;
	struct scx_buf trace = { 0 };

	sample(&in);
	qsort(in.e, in.n, sizeof(*in.e), cmp_ts);
	inner = write_trace(&in, &wo, &len);
	gz = malloc(len + 1024);
	deflateInit2(&z, 6, Z_DEFLATED, 16 + 15, 8, Z_DEFAULT_STRATEGY);
	z.next_in = (Bytef *)inner;
	z.avail_in = len;
	z.next_out = gz;
	z.avail_out = len + 1024;
	deflate(&z, Z_FINISH);
	size_t zn = z.total_out;
	deflateEnd(&z);
	ok(gz[0] == 0x1f && gz[1] == 0x8b, "gzip header");
	p = hdr;
	*p++ = 0x0a;
	p = pb_put_varint(p, 2 + pb_varint_len(zn) + zn);
	p = pb_put_tag(p, 50, PB_LEN);
	p = pb_put_varint(p, zn);
	scx_buf_add(&trace, hdr, p - hdr);
	scx_buf_add(&trace, gz, zn);
	is_int(scx_pf_read_mem(inner, len, "plain", &oa, &t), 0, "plain trace reads");
	scx_pf_trace__free(t);
	is_int(scx_pf_read_mem(trace.data, trace.len, "gz", &ob, &t), 0,
	       "gzip compressed_packets read");
	is_int(t->stat.compressed_packets, 1, "one compressed packet");
	scx_pf_trace__free(t);
	ok(a.n > 0 && same_events(&a, &b, "gzip packets"), "same %zu events as the plain trace",
	   a.n);
	free(inner);
	free(gz);
	scx_buf_free(&trace);
	free(in.e);
	free(a.e);
	free(b.e);
}

int main(void)
{
	test_gzip_packets();
	test_trackevent();
	test_wire();
	test_round_trip();
	test_deflate_limit();
	test_errors();
	return done_testing();
}
