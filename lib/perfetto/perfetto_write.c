// SPDX-License-Identifier: GPL-2.0
/*
 * scx events -> Perfetto trace.  The cold packets (system_info, clock
 * snapshot) go through protobuf-c; bundles are encoded by hand because they
 * are the hot path (millions of events per second).
 *
 * compact_sched has no prev_pid and no waker: trace_processor takes them from
 * the previous switch on the cpu.  A switch whose prev is not the cpu's last
 * next (the first switch of a cpu, or after a loss) or that carries sched_ext
 * data is written as a plain sched_switch, and a waking whose waker is not
 * the running task as a plain sched_waking, so nothing is lost in the round
 * trip and trace_processor's rules still hold.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "perfetto_trace.pb-c.h"
#include "perfetto/perfetto_fields.h"
#include "perfetto/perfetto_readable.h"
#include "perfetto/perfetto_wire.h"
#include "perfetto/perfetto_write.h"
#include "core/hashmap.h"
#include "core/util.h"

#ifndef SCX_VERSION
#define SCX_VERSION "unknown"
#endif

#define OUT_FLUSH (256u << 10) /* write out (or compress) every 256 KiB */
#define BUNDLE_BYTES (192u << 10)
#define ITAB_MAX 4096
#define ITAB_HASH 8192

enum { SEQ_PROCESS = 1, SEQ_FTRACE = 2, SEQ_TRACK = 3 };

struct wcpu {
	struct scx_buf ev;		     /* encoded "event" entries of the bundle */
	struct scx_buf arr[PF_CS__LAST + 1]; /* packed compact arrays, by field */
	struct scx_buf itab;		     /* encoded intern_table entries */
	char (*comms)[SCX_COMM_LEN];
	uint16_t hash[ITAB_HASH]; /* comm -> index + 1 */
	unsigned nitab, nev, nsw, nwk;
	uint64_t last_sw_ts, last_wk_ts;
	int32_t cur_pid, cur_prio;
	char cur_comm[SCX_COMM_LEN];
	bool known;
	bool lost;
	uint64_t lost_count, lost_ts;
	uint8_t dsq_tracks; /* counter descriptors written, one bit each */
};

struct scx_pf_writer {
	int fd;
	bool own_fd;
	struct scx_pf_write_opts o;
	struct scx_buf out;	   /* framed packets not yet written (or compressed) */
	struct scx_buf pkt;	   /* scratch */
	struct scx_buf pt_threads; /* pending ProcessTree.threads / processes entries */
	struct scx_buf pt_procs;
	struct wcpu *cpu[SCX_MAX_CPUS];
	struct scx_map tids;	      /* tid -> tgid + 1 (named in a ProcessTree) */
	struct pf_readable *readable; /* NULL unless o.readable */
	bool header_done, track_seq_started;
	uint64_t bytes;
	int err;
};

/* ---- output ------------------------------------------------------------------ */

static int out_write(struct scx_pf_writer *w, const void *p, size_t n)
{
	int rc = scx_write_all(w->fd, p, n);

	if (rc && !w->err)
		w->err = rc;
	if (!rc)
		w->bytes += n;
	return rc;
}

static int out_drain(struct scx_pf_writer *w)
{
	int rc = 0;

	if (!w->out.len || w->err)
		return w->err;
	if (!w->o.deflate) {
		rc = out_write(w, w->out.data, w->out.len);
		w->out.len = 0;
		return rc;
	}
	/* one TracePacket{compressed_packets} per batch: zlib header, as traced */
	uLongf zlen = compressBound(w->out.len);
	uint8_t *z = scx_xmalloc(zlen + 32), *p;
	uint8_t hdr[32];

	if (compress2(z, &zlen, (const Bytef *)w->out.data, w->out.len,
		      w->o.level ? w->o.level : 6) != Z_OK) {
		free(z);
		return w->err = -ENOMEM;
	}
	size_t inner = 1 + pb_varint_len(zlen) + zlen; /* field 50 is two tag bytes */
	inner += 1;
	p = hdr;
	p = pb_put_tag(p, PF_TRACE_PACKET, PB_LEN);
	p = pb_put_varint(p, inner);
	p = pb_put_tag(p, PF_PKT_COMPRESSED_PACKETS, PB_LEN);
	p = pb_put_varint(p, zlen);
	rc = out_write(w, hdr, p - hdr);
	if (!rc)
		rc = out_write(w, z, zlen);
	free(z);
	w->out.len = 0;
	return rc;
}

/* Append pkt (a TracePacket body) to the output as Trace.packet. */
static int emit_packet(struct scx_pf_writer *w, const void *body, size_t n)
{
	uint8_t hdr[PB_VARINT_MAX + 1], *p = hdr;

	if (w->o.deflate && w->out.len && w->out.len + n > OUT_FLUSH)
		out_drain(w);
	p = pb_put_tag(p, PF_TRACE_PACKET, PB_LEN);
	p = pb_put_varint(p, n);
	scx_buf_add(&w->out, hdr, p - hdr);
	scx_buf_add(&w->out, body, n);
	if (w->out.len >= OUT_FLUSH)
		return out_drain(w);
	return w->err;
}

static int emit_readable(void *ctx, const void *body, size_t n)
{
	return emit_packet(ctx, body, n);
}

/* ---- cold packets through protobuf-c ----------------------------------------- */

static int emit_pc(struct scx_pf_writer *w, const Perfetto__Protos__TracePacket *tp)
{
	size_t n = perfetto__protos__trace_packet__get_packed_size(tp);
	uint8_t *buf = scx_xmalloc(n ? n : 1);
	int rc;

	perfetto__protos__trace_packet__pack(tp, buf);
	rc = emit_packet(w, buf, n);
	free(buf);
	return rc;
}

static uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int scx_pf_writer__header(struct scx_pf_writer *w, const struct scx_header *h)
{
	Perfetto__Protos__TracePacket tp = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	Perfetto__Protos__SystemInfo si = PERFETTO__PROTOS__SYSTEM_INFO__INIT;
	Perfetto__Protos__Utsname un = PERFETTO__PROTOS__UTSNAME__INIT;
	Perfetto__Protos__ClockSnapshot cs = PERFETTO__PROTOS__CLOCK_SNAPSHOT__INIT;
	Perfetto__Protos__ClockSnapshot__Clock ck[3] = {
		PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT,
		PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT,
		PERFETTO__PROTOS__CLOCK_SNAPSHOT__CLOCK__INIT,
	};
	Perfetto__Protos__ClockSnapshot__Clock *ckp[3] = { &ck[0], &ck[1], &ck[2] };
	struct utsname u;
	char version[64];
	uint64_t boot, mono, real;
	int rc;

	if (w->header_done)
		return 0;
	w->header_done = true;
	uname(&u);
	/* trace_processor decodes prev_state by the kernel version it finds here */
	un.sysname = "Linux";
	un.release = h && h->kernel[0] ? (char *)h->kernel : u.release;
	un.machine = u.machine;
	si.utsname = &un;
	snprintf(version, sizeof(version), "scx-perfetto %s", SCX_VERSION);
	si.tracing_service_version = version;
	if (h && h->nr_cpus) {
		si.has_num_cpus = 1;
		si.num_cpus = h->nr_cpus;
	}
	si.has_page_size = 1;
	si.page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	if (h && h->hostname[0])
		si.machine_name = (char *)h->hostname;
	tp.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_SYSTEM_INFO;
	tp.system_info = &si;
	tp.optional_trusted_packet_sequence_id_case =
		PERFETTO__PROTOS__TRACE_PACKET__OPTIONAL_TRUSTED_PACKET_SEQUENCE_ID_TRUSTED_PACKET_SEQUENCE_ID;
	tp.trusted_packet_sequence_id = SEQ_PROCESS;
	if ((rc = emit_pc(w, &tp)))
		return rc;

	/* the three clocks read together; BOOTTIME is what events use */
	boot = clock_ns(CLOCK_BOOTTIME);
	mono = clock_ns(CLOCK_MONOTONIC);
	real = clock_ns(CLOCK_REALTIME);
	ck[0].has_clock_id = ck[0].has_timestamp = 1;
	ck[0].clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_BOOTTIME;
	ck[0].timestamp = boot;
	ck[1].has_clock_id = ck[1].has_timestamp = 1;
	ck[1].clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_MONOTONIC;
	ck[1].timestamp = mono;
	ck[2].has_clock_id = ck[2].has_timestamp = 1;
	ck[2].clock_id = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_REALTIME;
	ck[2].timestamp = real;
	cs.n_clocks = 3;
	cs.clocks = ckp;
	cs.has_primary_trace_clock = 1;
	cs.primary_trace_clock = PERFETTO__PROTOS__BUILTIN_CLOCK__BUILTIN_CLOCK_BOOTTIME;
	tp.data_case = PERFETTO__PROTOS__TRACE_PACKET__DATA_CLOCK_SNAPSHOT;
	tp.clock_snapshot = &cs;
	tp.has_timestamp = 1;
	tp.timestamp = boot;
	return emit_pc(w, &tp);
}

/* ---- threads and processes ------------------------------------------------------ */

static void note_thread(struct scx_pf_writer *w, int32_t tid, int32_t tgid, const char *comm)
{
	uint8_t buf[64], *p;
	uint64_t *v;

	if (tid <= 0 || tgid <= 0)
		return;
	v = scx_map_get(&w->tids, (uint32_t)tid);
	if (v && *v == (uint64_t)tgid + 1)
		return;
	v = scx_map_put(&w->tids, (uint32_t)tid, NULL);
	*v = (uint64_t)tgid + 1;
	p = pb_put_u64(buf, PF_THREAD_TID, (uint32_t)tid);
	if (comm && *comm)
		p = pb_put_str(p, PF_THREAD_NAME, comm, SCX_COMM_LEN);
	p = pb_put_u64(p, PF_THREAD_TGID, (uint32_t)tgid);
	uint8_t l[PB_VARINT_MAX + 2], *lp;
	lp = pb_put_tag(l, PF_PTREE_THREADS, PB_LEN);
	scx_buf_add(&w->pt_threads, l, pb_put_varint(lp, p - buf) - l);
	scx_buf_add(&w->pt_threads, buf, p - buf);
	if (tid == tgid && comm && *comm) {
		/* the process, named by its comm (cmdline_is_comm) */
		p = pb_put_u64(buf, PF_PROCESS_PID, (uint32_t)tgid);
		p = pb_put_str(p, PF_PROCESS_CMDLINE, comm, SCX_COMM_LEN);
		p = pb_put_u64(p, PF_PROCESS_CMDLINE_IS_COMM, 1);
		lp = pb_put_tag(l, PF_PTREE_PROCESSES, PB_LEN);
		scx_buf_add(&w->pt_procs, l, pb_put_varint(lp, p - buf) - l);
		scx_buf_add(&w->pt_procs, buf, p - buf);
	}
}

static int flush_process_tree(struct scx_pf_writer *w, uint64_t ts)
{
	struct scx_buf *b = &w->pkt;
	uint8_t tmp[32], *p;
	int rc;

	if (!w->pt_threads.len && !w->pt_procs.len)
		return 0;
	b->len = 0;
	p = pb_put_tag(tmp, PF_PKT_PROCESS_TREE, PB_LEN);
	p = pb_put_varint(p, w->pt_procs.len + w->pt_threads.len);
	scx_buf_add(b, tmp, p - tmp);
	scx_buf_add(b, w->pt_procs.data, w->pt_procs.len);
	scx_buf_add(b, w->pt_threads.data, w->pt_threads.len);
	p = pb_put_u64(tmp, PF_PKT_TIMESTAMP, ts);
	p = pb_put_u64(p, PF_PKT_TRUSTED_SEQUENCE_ID, SEQ_PROCESS);
	scx_buf_add(b, tmp, p - tmp);
	rc = emit_packet(w, b->data, b->len);
	w->pt_threads.len = w->pt_procs.len = 0;
	return rc;
}

/* ---- bundles ------------------------------------------------------------------- */

static struct wcpu *cpu_get(struct scx_pf_writer *w, int cpu)
{
	if (!w->cpu[cpu]) {
		w->cpu[cpu] = scx_xcalloc(1, sizeof(struct wcpu));
		w->cpu[cpu]->comms = scx_xmalloc(ITAB_MAX * SCX_COMM_LEN);
	}
	return w->cpu[cpu];
}

static void add_len_field(struct scx_buf *b, uint32_t num, const struct scx_buf *payload)
{
	uint8_t tmp[16], *p = pb_put_tag(tmp, num, PB_LEN);

	p = pb_put_varint(p, payload->len);
	scx_buf_add(b, tmp, p - tmp);
	scx_buf_add(b, payload->data, payload->len);
}

static int flush_cpu(struct scx_pf_writer *w, int cpu)
{
	struct wcpu *c = w->cpu[cpu];
	struct scx_buf *b = &w->pkt, cs = { 0 };
	uint8_t tmp[64], *p;
	size_t body;
	int rc;

	if (!c || (!c->nev && !c->nsw && !c->nwk && !c->lost))
		return 0;
	if ((rc = flush_process_tree(w, c->last_sw_ts)))
		return rc;
	if (c->nsw || c->nwk) {
		scx_buf_add(&cs, c->itab.data, c->itab.len);
		for (unsigned i = 1; i < SCX_ARRAY_SIZE(c->arr); i++)
			if (c->arr[i].len)
				add_len_field(&cs, i, &c->arr[i]);
	}
	/* bundle body: cpu, events, lost, compact_sched, our lost fields */
	p = pb_put_u64(tmp, PF_BUNDLE_CPU, (uint32_t)cpu);
	body = (p - tmp) + c->ev.len;
	if (c->lost)
		body += 2 + 3 + pb_varint_len(c->lost_count) + 3 + pb_varint_len(c->lost_ts);
	if (cs.len)
		body += 1 + pb_varint_len(cs.len) + cs.len;
	b->len = 0;
	uint8_t h[16], *q = pb_put_tag(h, PF_PKT_FTRACE_EVENTS, PB_LEN);
	q = pb_put_varint(q, body);
	scx_buf_add(b, h, q - h);
	scx_buf_add(b, tmp, p - tmp);
	scx_buf_add(b, c->ev.data, c->ev.len);
	if (c->lost) {
		p = pb_put_u64(tmp, PF_BUNDLE_LOST_EVENTS, 1);
		p = pb_put_u64(p, PF_BUNDLE_SCX_LOST_COUNT, c->lost_count);
		p = pb_put_u64(p, PF_BUNDLE_SCX_LOST_TS, c->lost_ts);
		scx_buf_add(b, tmp, p - tmp);
	}
	if (cs.len)
		add_len_field(b, PF_BUNDLE_COMPACT_SCHED, &cs);
	p = pb_put_u64(tmp, PF_PKT_TRUSTED_SEQUENCE_ID, SEQ_FTRACE);
	scx_buf_add(b, tmp, p - tmp);
	scx_buf_free(&cs);
	rc = emit_packet(w, b->data, b->len);

	c->ev.len = c->itab.len = 0;
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(c->arr); i++)
		c->arr[i].len = 0;
	if (c->nitab)
		memset(c->hash, 0, sizeof(c->hash));
	c->nitab = c->nev = c->nsw = c->nwk = 0;
	c->lost = false;
	c->lost_count = c->lost_ts = 0;
	return rc;
}

static int maybe_flush(struct scx_pf_writer *w, int cpu)
{
	struct wcpu *c = w->cpu[cpu];
	unsigned limit = w->o.bundle_events ? w->o.bundle_events : 1024;

	if (c->nev + c->nsw + c->nwk >= limit || c->ev.len >= BUNDLE_BYTES ||
	    c->nitab >= ITAB_MAX - 2)
		return flush_cpu(w, cpu);
	return w->err;
}

static inline void put_varint(struct scx_buf *b, uint64_t v)
{
	if (b->cap - b->len < PB_VARINT_MAX)
		scx_buf_reserve(b, PB_VARINT_MAX);
	b->len = (char *)pb_put_varint((uint8_t *)b->data + b->len, v) - b->data;
}

static uint32_t itab_index(struct wcpu *c, const char *comm)
{
	size_t n = strnlen(comm, SCX_COMM_LEN - 1);
	uint64_t h = 0xcbf29ce484222325ULL;
	uint8_t tmp[32], *p;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (uint8_t)comm[i]) * 0x100000001b3ULL;
	for (size_t i = h & (ITAB_HASH - 1);; i = (i + 1) & (ITAB_HASH - 1)) {
		if (!c->hash[i]) {
			c->hash[i] = (uint16_t)(c->nitab + 1);
			memset(c->comms[c->nitab], 0, SCX_COMM_LEN);
			memcpy(c->comms[c->nitab], comm, n);
			p = pb_put_bytes(tmp, PF_CS_INTERN_TABLE, comm, n);
			scx_buf_add(&c->itab, tmp, p - tmp);
			return c->nitab++;
		}
		const char *s = c->comms[c->hash[i] - 1];
		if (!strncmp(s, comm, SCX_COMM_LEN - 1) && strnlen(s, SCX_COMM_LEN - 1) == n)
			return c->hash[i] - 1;
	}
}

/* One FtraceEvent {timestamp, pid, <id> payload [, scx_switch ext]} into the bundle. */
static void put_event(struct wcpu *c, uint64_t ts, uint32_t pid, uint32_t id, const uint8_t *pl,
		      size_t pn, const uint8_t *ext, size_t en)
{
	uint8_t tmp[64], *p = tmp;
	size_t body;

	body = 1 + pb_varint_len(ts) + 1 + pb_varint_len(pid) + pb_varint_len((uint64_t)id << 3) +
	       pb_varint_len(pn) + pn;
	if (ext)
		body += 3 + pb_varint_len(en) + en;
	p = pb_put_tag(p, PF_BUNDLE_EVENT, PB_LEN);
	p = pb_put_varint(p, body);
	p = pb_put_u64(p, PF_FTRACE_TIMESTAMP, ts);
	p = pb_put_u64(p, PF_FTRACE_PID, pid);
	p = pb_put_tag(p, id, PB_LEN);
	p = pb_put_varint(p, pn);
	scx_buf_add(&c->ev, tmp, p - tmp);
	scx_buf_add(&c->ev, pl, pn);
	if (ext) {
		p = pb_put_tag(tmp, PF_FTRACE_SCX_SWITCH, PB_LEN);
		p = pb_put_varint(p, en);
		scx_buf_add(&c->ev, tmp, p - tmp);
		scx_buf_add(&c->ev, ext, en);
	}
	c->nev++;
}

static uint64_t dsq_uuid(int cpu, int k)
{
	return 0x5c000000ull + (uint64_t)cpu * 8 + k;
}

/* sched_ext data as counter tracks per cpu, so the UI plots them. */
static int dsq_counters(struct scx_pf_writer *w, int cpu, const struct scx_event *e)
{
	static const char *const names[] = { "DSQ latency", "DSQ depth", "DSQ vtime", "slice" };
	const uint64_t vals[] = {
		e->sw.dsq_lat_ns,
		e->sw.dsq_depth,
		e->sw.dsq_vtime,
		e->sw.slice_ns,
	};
	struct wcpu *c = w->cpu[cpu];
	uint8_t buf[160], *p, d[128], *q, cd[16], *r;
	int rc;

	for (int k = 0; k < 4; k++) {
		if (!(c->dsq_tracks & 1 << k)) {
			char name[48];
			c->dsq_tracks |= 1 << k;
			snprintf(name, sizeof(name), "%s cpu%d", names[k], cpu);
			/* CounterDescriptor: unit TIME_NS for times, COUNT for depth */
			r = pb_put_u64(cd, PF_COUNTER_DESC_UNIT,
				       k == 1 ? PF_UNIT_COUNT : PF_UNIT_TIME_NS);
			q = pb_put_u64(d, PF_TD_UUID, dsq_uuid(cpu, k));
			q = pb_put_str(q, PF_TD_NAME, name, sizeof(name));
			q = pb_put_bytes(q, PF_TD_COUNTER, cd, r - cd);
			p = pb_put_u64(buf, PF_PKT_TIMESTAMP, e->ts);
			p = pb_put_u64(p, PF_PKT_TRUSTED_SEQUENCE_ID, SEQ_TRACK);
			if (!w->track_seq_started) {
				p = pb_put_u64(p, PF_PKT_SEQUENCE_FLAGS,
					       PF_SEQ_INCREMENTAL_STATE_CLEARED);
				w->track_seq_started = true;
			}
			p = pb_put_bytes(p, PF_PKT_TRACK_DESCRIPTOR, d, q - d);
			if ((rc = emit_packet(w, buf, p - buf)))
				return rc;
		}
		q = pb_put_u64(d, PF_TE_TYPE, PF_TE_COUNTER);
		q = pb_put_u64(q, PF_TE_TRACK_UUID, dsq_uuid(cpu, k));
		q = pb_put_u64(q, PF_TE_COUNTER_VALUE, vals[k]);
		p = pb_put_u64(buf, PF_PKT_TIMESTAMP, e->ts);
		p = pb_put_u64(p, PF_PKT_TRUSTED_SEQUENCE_ID, SEQ_TRACK);
		p = pb_put_bytes(p, PF_PKT_TRACK_EVENT, d, q - d);
		if ((rc = emit_packet(w, buf, p - buf)))
			return rc;
	}
	return 0;
}

static int write_switch(struct scx_pf_writer *w, struct wcpu *c, int cpu, const struct scx_event *e)
{
	const struct scx_ev_switch *s = &e->sw;
	bool has_dsq = s->dsq_id != SCX_DSQ_NONE;
	bool compact = !w->o.no_compact && !has_dsq && c->known && c->cur_pid == s->prev_pid &&
		       c->cur_prio == s->prev_prio &&
		       !strncmp(c->cur_comm, s->prev_comm, SCX_COMM_LEN);
	uint8_t pl[128], *p, ext[80], *x = ext;
	int rc = 0;

	note_thread(w, s->prev_pid, s->prev_tgid, s->prev_comm);
	note_thread(w, s->next_pid, s->next_tgid, s->next_comm);
	if (compact) {
		put_varint(&c->arr[PF_CS_SWITCH_TIMESTAMP], c->nsw ? e->ts - c->last_sw_ts : e->ts);
		put_varint(&c->arr[PF_CS_SWITCH_PREV_STATE], (uint64_t)s->prev_state);
		put_varint(&c->arr[PF_CS_SWITCH_NEXT_PID], (uint64_t)(int64_t)s->next_pid);
		put_varint(&c->arr[PF_CS_SWITCH_NEXT_PRIO], (uint64_t)(int64_t)s->next_prio);
		put_varint(&c->arr[PF_CS_SWITCH_NEXT_COMM_INDEX], itab_index(c, s->next_comm));
		c->last_sw_ts = e->ts;
		c->nsw++;
	} else {
		/* a plain switch after compact ones would be read out of order: new bundle */
		if (c->nsw && (rc = flush_cpu(w, cpu)))
			return rc;
		p = pb_put_str(pl, PF_SW_PREV_COMM, s->prev_comm, SCX_COMM_LEN);
		p = pb_put_i64(p, PF_SW_PREV_PID, s->prev_pid);
		p = pb_put_i64(p, PF_SW_PREV_PRIO, s->prev_prio);
		p = pb_put_i64(p, PF_SW_PREV_STATE, s->prev_state);
		p = pb_put_str(p, PF_SW_NEXT_COMM, s->next_comm, SCX_COMM_LEN);
		p = pb_put_i64(p, PF_SW_NEXT_PID, s->next_pid);
		p = pb_put_i64(p, PF_SW_NEXT_PRIO, s->next_prio);
		if (has_dsq) {
			x = pb_put_u64(x, PF_SCXSW_DSQ_ID, s->dsq_id);
			x = pb_put_u64(x, PF_SCXSW_DSQ_LAT_NS, s->dsq_lat_ns);
			x = pb_put_u64(x, PF_SCXSW_DSQ_VTIME, s->dsq_vtime);
			x = pb_put_u64(x, PF_SCXSW_SLICE_NS, s->slice_ns);
			x = pb_put_u64(x, PF_SCXSW_PREV_SLICE_USED_NS, s->prev_slice_used_ns);
			x = pb_put_u64(x, PF_SCXSW_DSQ_DEPTH, s->dsq_depth);
			if (s->layer_id >= 0)
				x = pb_put_i64(x, PF_SCXSW_LAYER_ID, s->layer_id);
		}
		put_event(c, e->ts, (uint32_t)s->prev_pid, PF_EV_SCHED_SWITCH, pl, p - pl,
			  has_dsq ? ext : NULL, x - ext);
	}
	c->known = true;
	c->cur_pid = s->next_pid;
	c->cur_prio = s->next_prio;
	memcpy(c->cur_comm, s->next_comm, SCX_COMM_LEN);
	if (has_dsq && (rc = dsq_counters(w, cpu, e)))
		return rc;
	return 0;
}

static int write_wake(struct scx_pf_writer *w, struct wcpu *c, const struct scx_event *e)
{
	const struct scx_ev_wakeup *k = &e->wake;
	uint8_t pl[64], *p;
	uint32_t id = e->type == SCX_EV_WAKING ? PF_EV_SCHED_WAKING :
		      e->type == SCX_EV_WAKEUP ? PF_EV_SCHED_WAKEUP :
						 PF_EV_SCHED_WAKEUP_NEW;

	note_thread(w, k->pid, k->tgid, k->comm);
	if (id == PF_EV_SCHED_WAKING && !w->o.no_compact && c->known &&
	    c->cur_pid == k->waker_pid) {
		put_varint(&c->arr[PF_CS_WAKING_TIMESTAMP], c->nwk ? e->ts - c->last_wk_ts : e->ts);
		put_varint(&c->arr[PF_CS_WAKING_PID], (uint64_t)(int64_t)k->pid);
		put_varint(&c->arr[PF_CS_WAKING_TARGET_CPU], (uint64_t)(int64_t)k->target_cpu);
		put_varint(&c->arr[PF_CS_WAKING_PRIO], (uint64_t)(int64_t)k->prio);
		put_varint(&c->arr[PF_CS_WAKING_COMM_INDEX], itab_index(c, k->comm));
		c->last_wk_ts = e->ts;
		c->nwk++;
		return 0;
	}
	p = pb_put_str(pl, PF_WK_COMM, k->comm, SCX_COMM_LEN);
	p = pb_put_i64(p, PF_WK_PID, k->pid);
	p = pb_put_i64(p, PF_WK_PRIO, k->prio);
	p = pb_put_i64(p, PF_WK_SUCCESS, 1);
	p = pb_put_i64(p, PF_WK_TARGET_CPU, k->target_cpu);
	put_event(c, e->ts, (uint32_t)k->waker_pid, id, pl, p - pl, NULL, 0);
	return 0;
}

/*
 * The ftrace payload of an event whose fields map one to one, into pl (up to
 * *end); *common is the pid of the event's common field when it is not the
 * cpu's running task.  Returns the event's field number in FtraceEvent, 0 for
 * a kind that has none.
 */
static uint32_t encode_ftrace(struct scx_pf_writer *w, const struct scx_event *e, uint8_t *pl,
			      uint8_t **end, uint32_t *common)
{
	uint8_t *p = pl;
	uint32_t id;

	switch (e->type) {
	case SCX_EV_MIGRATE:
		note_thread(w, e->mig.pid, e->mig.tgid, e->mig.comm);
		id = PF_EV_SCHED_MIGRATE_TASK;
		p = pb_put_str(p, PF_MIG_COMM, e->mig.comm, SCX_COMM_LEN);
		p = pb_put_i64(p, PF_MIG_PID, e->mig.pid);
		p = pb_put_i64(p, PF_MIG_PRIO, e->mig.prio);
		p = pb_put_i64(p, PF_MIG_ORIG_CPU, e->mig.orig_cpu);
		p = pb_put_i64(p, PF_MIG_DEST_CPU, e->mig.dest_cpu);
		break;
	case SCX_EV_EXEC:
		note_thread(w, e->exec.pid, e->exec.tgid, e->exec.comm);
		id = PF_EV_SCHED_PROCESS_EXEC;
		*common = (uint32_t)e->exec.pid;
		p = pb_put_str(p, PF_EXEC_FILENAME, e->exec.filename, SCX_PATH_LEN);
		p = pb_put_i64(p, PF_EXEC_PID, e->exec.pid);
		p = pb_put_i64(p, PF_EXEC_OLD_PID, e->exec.old_pid);
		p = pb_put_str(p, PF_EXEC_SCX_COMM, e->exec.comm, SCX_COMM_LEN);
		break;
	case SCX_EV_EXIT:
	case SCX_EV_FREE:
		note_thread(w, e->task.pid, e->task.tgid, e->task.comm);
		/* exit and free share comm and pid; exit has tgid before prio */
		id = e->type == SCX_EV_EXIT ? PF_EV_SCHED_PROCESS_EXIT : PF_EV_SCHED_PROCESS_FREE;
		p = pb_put_str(p, PF_EXIT_COMM, e->task.comm, SCX_COMM_LEN);
		p = pb_put_i64(p, PF_EXIT_PID, e->task.pid);
		if (id == PF_EV_SCHED_PROCESS_EXIT) {
			p = pb_put_i64(p, PF_EXIT_TGID, e->task.tgid);
			p = pb_put_i64(p, PF_EXIT_PRIO, e->task.prio);
		} else {
			p = pb_put_i64(p, PF_FREE_PRIO, e->task.prio);
		}
		break;
	case SCX_EV_TASK_RENAME:
		note_thread(w, e->rename.pid, e->rename.tgid, e->rename.newcomm);
		id = PF_EV_TASK_RENAME;
		*common = (uint32_t)e->rename.pid;
		p = pb_put_i64(p, PF_RENAME_PID, e->rename.pid);
		p = pb_put_str(p, PF_RENAME_OLDCOMM, e->rename.oldcomm, SCX_COMM_LEN);
		p = pb_put_str(p, PF_RENAME_NEWCOMM, e->rename.newcomm, SCX_COMM_LEN);
		break;
	case SCX_EV_SOFTIRQ_ENTRY:
	case SCX_EV_SOFTIRQ_EXIT:
		id = e->type == SCX_EV_SOFTIRQ_ENTRY ? PF_EV_SOFTIRQ_ENTRY : PF_EV_SOFTIRQ_EXIT;
		p = pb_put_u64(p, PF_SOFTIRQ_VEC, e->softirq.vec);
		break;
	case SCX_EV_IRQ_ENTRY:
		id = PF_EV_IRQ_HANDLER_ENTRY;
		p = pb_put_i64(p, PF_IRQ_IRQ, e->irq.irq);
		break;
	case SCX_EV_IRQ_EXIT:
		id = PF_EV_IRQ_HANDLER_EXIT;
		p = pb_put_i64(p, PF_IRQ_IRQ, e->irq.irq);
		p = pb_put_i64(p, PF_IRQ_RET, e->irq.ret);
		break;
	case SCX_EV_IPI_SEND:
		if (!e->ipi.callsite && e->ipi.target_cpu >= 0 && e->ipi.target_cpu < 32) {
			id = PF_EV_IPI_RAISE; /* trace_processor's raw table shows it */
			p = pb_put_u64(p, PF_IPI_RAISE_TARGET_CPUS, 1u << e->ipi.target_cpu);
		} else {
			id = PF_EV_SCX_IPI_SEND;
			p = pb_put_i64(p, PF_SCXIPI_TARGET_CPU, e->ipi.target_cpu);
			p = pb_put_u64(p, PF_SCXIPI_CALLSITE, e->ipi.callsite);
		}
		break;
	case SCX_EV_IPI_ENTRY:
	case SCX_EV_IPI_EXIT:
		id = e->type == SCX_EV_IPI_ENTRY ? PF_EV_IPI_ENTRY : PF_EV_IPI_EXIT;
		break;
	case SCX_EV_CPU_FREQUENCY:
		id = PF_EV_CPU_FREQUENCY;
		p = pb_put_u64(p, PF_CPU_STATE, e->freq.khz);
		p = pb_put_u64(p, PF_CPU_CPU_ID, e->freq.cpu_id);
		break;
	case SCX_EV_CPU_IDLE:
		id = PF_EV_CPU_IDLE;
		p = pb_put_u64(p, PF_CPU_STATE, e->idle.state);
		p = pb_put_u64(p, PF_CPU_CPU_ID, e->idle.cpu_id);
		break;
	case SCX_EV_DSQ_INSERT:
		note_thread(w, e->dsq.pid, e->dsq.tgid, e->dsq.comm);
		id = PF_EV_SCX_DSQ_INSERT;
		p = pb_put_i64(p, PF_SCXDSQ_PID, e->dsq.pid);
		p = pb_put_u64(p, PF_SCXDSQ_DSQ_ID, e->dsq.dsq_id);
		p = pb_put_u64(p, PF_SCXDSQ_VTIME, e->dsq.vtime);
		p = pb_put_u64(p, PF_SCXDSQ_SLICE_NS, e->dsq.slice_ns);
		p = pb_put_u64(p, PF_SCXDSQ_DEPTH, e->dsq.depth);
		p = pb_put_str(p, PF_SCXDSQ_COMM, e->dsq.comm, SCX_COMM_LEN);
		if (e->dsq.from_dsq_id != SCX_DSQ_NONE)
			p = pb_put_u64(p, PF_SCXDSQ_FROM_DSQ_ID, e->dsq.from_dsq_id);
		break;
	case SCX_EV_CPUHP_ENTER:
	case SCX_EV_CPUHP_EXIT:
		id = e->type == SCX_EV_CPUHP_ENTER ? PF_EV_SCX_CPUHP_ENTER : PF_EV_SCX_CPUHP_EXIT;
		p = pb_put_u64(p, PF_SCXHP_CPU_ID, e->cpuhp.cpu_id);
		p = pb_put_i64(p, PF_SCXHP_TARGET, e->cpuhp.target);
		p = pb_put_i64(p, PF_SCXHP_IDX, e->cpuhp.idx);
		if (id == PF_EV_SCX_CPUHP_EXIT)
			p = pb_put_i64(p, PF_SCXHP_RET, e->cpuhp.ret);
		break;
	case SCX_EV_SCX_ENABLE:
	case SCX_EV_SCX_DISABLE:
		id = e->type == SCX_EV_SCX_ENABLE ? PF_EV_SCX_ENABLE : PF_EV_SCX_DISABLE;
		p = pb_put_str(p, PF_SCXOPS_NAME, e->ops.name, SCX_NAME_LEN);
		break;
	default:
		return 0;
	}
	*end = p;
	return id;
}

/* task_newtask for trace_processor's process grouping, then the fork itself. */
static int write_fork(struct scx_pf_writer *w, struct wcpu *c, int cpu, const struct scx_event *e)
{
	const struct scx_ev_fork *f = &e->fork;
	uint8_t nt[64], *q = nt, pl[256], *p = pl;
	bool thread =
		f->child_tgid && f->child_tgid == f->parent_tgid && f->child_pid != f->child_tgid;

	note_thread(w, f->parent_pid, f->parent_tgid, f->parent_comm);
	note_thread(w, f->child_pid, f->child_tgid, f->child_comm);
	q = pb_put_i64(q, PF_NEWTASK_PID, f->child_pid);
	q = pb_put_str(q, PF_NEWTASK_COMM, f->child_comm, SCX_COMM_LEN);
	q = pb_put_u64(q, PF_NEWTASK_CLONE_FLAGS,
		       thread ? 0x10000 | 0x800 | 0x100 | 0x200 | 0x400 : 0x11);
	put_event(c, e->ts, (uint32_t)f->parent_pid, PF_EV_TASK_NEWTASK, nt, q - nt, NULL, 0);
	p = pb_put_str(p, PF_FORK_PARENT_COMM, f->parent_comm, SCX_COMM_LEN);
	p = pb_put_i64(p, PF_FORK_PARENT_PID, f->parent_pid);
	p = pb_put_str(p, PF_FORK_CHILD_COMM, f->child_comm, SCX_COMM_LEN);
	p = pb_put_i64(p, PF_FORK_CHILD_PID, f->child_pid);
	put_event(c, e->ts, (uint32_t)f->parent_pid, PF_EV_SCHED_PROCESS_FORK, pl, p - pl, NULL, 0);
	return maybe_flush(w, cpu);
}

/* The cpu's lost-events mark: the bundle that starts here says so. */
static int write_lost(struct scx_pf_writer *w, struct wcpu *c, int cpu, const struct scx_event *e)
{
	int rc;

	if ((rc = flush_cpu(w, cpu)))
		return rc;
	c->lost = true;
	c->lost_count = e->lost.count;
	c->lost_ts = e->ts;
	return 0;
}

int scx_pf_writer__event(struct scx_pf_writer *w, const struct scx_event *e)
{
	int cpu = e->cpu >= 0 ? e->cpu : 0; /* unknown cpu: bundled with cpu 0 */
	struct wcpu *c;
	uint8_t pl[256], *p;
	uint32_t id, common;
	int rc;

	if (w->err)
		return w->err;
	if (e->cpu < -1 || e->cpu >= SCX_MAX_CPUS)
		return -ERANGE;
	if (!w->header_done && (rc = scx_pf_writer__header(w, NULL)))
		return rc;
	c = cpu_get(w, cpu);
	if (w->readable && (rc = pf_readable_event(w->readable, e)))
		return rc;

	switch (e->type) {
	case SCX_EV_SWITCH:
		rc = write_switch(w, c, cpu, e);
		return rc ? rc : maybe_flush(w, cpu);
	case SCX_EV_WAKING:
	case SCX_EV_WAKEUP:
	case SCX_EV_WAKEUP_NEW:
		write_wake(w, c, e);
		return maybe_flush(w, cpu);
	case SCX_EV_LOST:
		return write_lost(w, c, cpu, e);
	case SCX_EV_FORK:
		return write_fork(w, c, cpu, e);
	}
	common = c->known ? (uint32_t)c->cur_pid : 0;
	if (!(id = encode_ftrace(w, e, pl, &p, &common)))
		return 0;
	put_event(c, e->ts, common, id, pl, p - pl, NULL, 0);
	return maybe_flush(w, cpu);
}

int scx_pf_writer__end(struct scx_pf_writer *w)
{
	if (w->err)
		return w->err;
	return w->readable ? pf_readable_finish(w->readable) : 0;
}

int scx_pf_writer__flush(struct scx_pf_writer *w)
{
	int rc;

	for (int i = 0; i < SCX_MAX_CPUS; i++)
		if (w->cpu[i] && (rc = flush_cpu(w, i)))
			return rc;
	if ((rc = flush_process_tree(w, 0)))
		return rc;
	return out_drain(w);
}

static struct scx_pf_writer *writer_new(int fd, bool own, const struct scx_pf_write_opts *o)
{
	struct scx_pf_writer *w = scx_xcalloc(1, sizeof(*w));

	w->fd = fd;
	w->own_fd = own;
	scx_map_init(&w->tids, sizeof(uint64_t));
	if (o)
		w->o = *o;
	if (w->o.readable)
		w->readable = pf_readable_new(emit_readable, w);
	return w;
}

struct scx_pf_writer *scx_pf_writer__fdopen(int fd, const struct scx_pf_write_opts *o)
{
	return writer_new(fd, false, o);
}

struct scx_pf_writer *scx_pf_writer__open(const char *path, const struct scx_pf_write_opts *o)
{
	int fd;

	if (!path || !strcmp(path, "-"))
		return writer_new(1, false, o);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	return writer_new(fd, true, o);
}

int scx_pf_writer__close(struct scx_pf_writer *w)
{
	int rc;

	if (!w)
		return 0;
	if (!w->header_done)
		scx_pf_writer__header(w, NULL);
	rc = scx_pf_writer__end(w);
	if (!rc)
		rc = scx_pf_writer__flush(w);
	if (!rc)
		rc = w->err;
	if (w->own_fd && close(w->fd) && !rc)
		rc = -errno;
	for (int i = 0; i < SCX_MAX_CPUS; i++) {
		struct wcpu *c = w->cpu[i];
		if (!c)
			continue;
		scx_buf_free(&c->ev);
		scx_buf_free(&c->itab);
		for (unsigned k = 0; k < SCX_ARRAY_SIZE(c->arr); k++)
			scx_buf_free(&c->arr[k]);
		free(c->comms);
		free(c);
	}
	scx_buf_free(&w->out);
	scx_buf_free(&w->pkt);
	scx_buf_free(&w->pt_threads);
	scx_buf_free(&w->pt_procs);
	scx_map_free(&w->tids);
	pf_readable_free(w->readable);
	free(w);
	return rc;
}

uint64_t scx_pf_writer__readable_dropped(const struct scx_pf_writer *w)
{
	return w->readable ? pf_readable_dropped(w->readable) : 0;
}

uint64_t scx_pf_writer__readable_late(const struct scx_pf_writer *w)
{
	return w->readable ? pf_readable_late(w->readable) : 0;
}

uint64_t scx_pf_writer__bytes(const struct scx_pf_writer *w)
{
	return w->bytes + w->out.len;
}
