// SPDX-License-Identifier: GPL-2.0
/*
 * Stream codecs: every kind with random and edge values round-trips through
 * NDJSON, binary, gzip and zstd (and conversions between them) unchanged;
 * truncated, corrupt, hostile and empty input fail with the offset.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stream/stream-int.h"
#include "tap.h"
#include "core/topo.h"
#include "core/util.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t rnd(void)
{
	/* xorshift64*: reproducible across runs */
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return rng * 2685821657736338717ull;
}

static int64_t edge_int(int kind)
{
	static const int64_t i32[] = { 0, -1, 1, INT32_MIN, INT32_MAX };
	static const int64_t u32[] = { 0, 1, UINT32_MAX, 0x80000000ll };
	static const int64_t i64[] = { 0, -1, INT64_MIN, INT64_MAX };
	static const uint64_t u64[] = { 0, 1, UINT64_MAX, UINT64_MAX - 1, 1ull << 63 };
	uint64_t r = rnd();

	switch (kind) {
	case SCX_F_I32:
		return r % 3 ? (int32_t)rnd() : i32[r % 5];
	case SCX_F_U32:
		return r % 3 ? (uint32_t)rnd() : (uint32_t)u32[r % 4];
	case SCX_F_I64:
		return r % 3 ? (int64_t)rnd() : i64[r % 4];
	default:
		return r % 3 ? (int64_t)rnd() : (int64_t)u64[r % 5];
	}
}

/* Bytes that stress the string codec: quotes, controls, valid and invalid UTF-8. */
static void rand_str(char *dst, unsigned size)
{
	static const char *pieces[] = {
		"a",	       "\"",	       "\\",
		"\n",	       "\x01",	       "\x7f",
		"\xc3\xa9",    "\xe2\x82\xac", "\xf0\x9f\x98\x80",
		"\xff",	       "\xc3",	       "\xed\xa0\x80",
		"\xc0\xaf",    "\x80",	       "/",
		"kworker/0:1",
	};
	unsigned len = rnd() % (size + 1), n = 0;

	memset(dst, 0, size);
	while (n < len) {
		const char *p = pieces[rnd() % SCX_ARRAY_SIZE(pieces)];
		size_t l = strlen(p);
		if (n + l > size)
			break;
		memcpy(dst + n, p, l);
		n += l;
	}
	if (rnd() % 8 == 0)
		memset(dst, 'x', size); /* full length, no NUL */
}

static void rand_event(struct scx_event *e, unsigned type)
{
	const struct scx_ev_desc *d = scx_ev_desc(type);

	scx_event_init(e, type);
	e->ts = edge_int(SCX_F_U64);
	/* readers refuse cpus outside -1 .. SCX_MAX_CPUS-1: the edges of that */
	static const int32_t cpu_edge[] = { -1, 0, SCX_MAX_CPUS - 1 };
	e->cpu = rnd() % 4 ? (int32_t)(rnd() % 512) : cpu_edge[rnd() % 3];
	for (unsigned i = 0; i < d->nr_fields; i++) {
		const struct scx_field *f = &d->fields[i];
		if (f->kind == SCX_F_STR)
			rand_str((char *)e + f->offset, f->size);
		else
			scx_field_set_int(e, f, edge_int(f->kind));
	}
	/* sched_ext fields exist only with a dsq: the codecs drop them otherwise */
	if (type == SCX_EV_SWITCH && (rnd() % 2 || e->sw.dsq_id == SCX_DSQ_NONE)) {
		struct scx_event z;
		scx_event_init(&z, type);
		e->sw.dsq_id = SCX_DSQ_NONE;
		e->sw.dsq_lat_ns = e->sw.dsq_vtime = e->sw.slice_ns = 0;
		e->sw.prev_slice_used_ns = 0;
		e->sw.dsq_depth = 0;
		e->sw.layer_id = -1;
		(void)z;
	}
}

#define NEV 20000
static struct scx_event evs[NEV];

static struct scx_header hdr;
static struct scx_trailer trl;

/* Write events (and header/trailer) to a memfd; returns the bytes in *out. */
static size_t write_stream(enum scx_format fmt, enum scx_compress c, const struct scx_event *ev,
			   size_t n, bool head, bool tail, char **out)
{
	struct scx_writer_opts o = { .format = fmt, .compress = c };
	int fd = memfd_create("stream", 0);
	struct scx_writer *w = scx_writer__fdopen(dup(fd), &o);
	int err = 0;

	if (head)
		err |= scx_writer__header(w, &hdr);
	for (size_t i = 0; i < n; i++)
		err |= scx_writer__event(w, &ev[i]);
	if (tail)
		err |= scx_writer__trailer(w, &trl);
	err |= scx_writer__close(w);
	if (err)
		printf("# write error %d\n", err);
	off_t len = lseek(fd, 0, SEEK_END);
	*out = malloc(len + 1);
	if (pread(fd, *out, len, 0) != len)
		len = 0;
	close(fd);
	return len;
}

static struct scx_event got[NEV + 16];

/* Read all events; returns count or -1 (error message printed). */
static long read_all(struct scx_reader *r)
{
	long n = 0;
	int k;

	while ((k = scx_reader__next(r, &got[n])) != SCX_READ_END) {
		if (k == SCX_READ_ERROR) {
			printf("# %s\n", scx_reader__error(r));
			return -1;
		}
		if (k == SCX_READ_EVENT && n < NEV + 15)
			n++;
	}
	return n;
}

static bool same_events(const struct scx_event *a, const struct scx_event *b, long n)
{
	for (long i = 0; i < n; i++) {
		if (memcmp(&a[i], &b[i], sizeof(a[i]))) {
			struct scx_buf x = { 0 }, y = { 0 };
			scx_event_to_json(&x, &a[i]);
			scx_event_to_json(&y, &b[i]);
			printf("# event %ld differs:\n# %.*s# %.*s", i, (int)x.len, x.data,
			       (int)y.len, y.data);
			scx_buf_free(&x);
			scx_buf_free(&y);
			return false;
		}
	}
	return true;
}

static bool same_header(const struct scx_header *a, const struct scx_header *b)
{
	if (!a || !b)
		return false;
	return a->version == b->version && !strcmp(a->producer, b->producer) &&
	       !strcmp(a->clock, b->clock) && !strcmp(a->hostname, b->hostname) &&
	       !strcmp(a->kernel, b->kernel) && a->nr_cpus == b->nr_cpus &&
	       !strcmp(a->scheduler, b->scheduler) && a->start_ns == b->start_ns &&
	       a->order == b->order && a->options_json && b->options_json &&
	       !strcmp(a->options_json, b->options_json) && a->topo && b->topo &&
	       a->topo->nr_cpus == b->topo->nr_cpus &&
	       !memcmp(a->topo->cpus, b->topo->cpus, a->topo->nr_cpus * sizeof(*a->topo->cpus)) &&
	       a->topo->nr_llcs == b->topo->nr_llcs && a->topo->nr_nodes == b->topo->nr_nodes;
}

static bool same_trailer(const struct scx_trailer *a, const struct scx_trailer *b)
{
	return a && b && !memcmp(a->counts, b->counts, sizeof(a->counts)) &&
	       a->nr_cpus == b->nr_cpus && !memcmp(a->lost, b->lost, a->nr_cpus * 8) &&
	       a->lost_total == b->lost_total && a->end_ns == b->end_ns;
}

static const char *fmt_name[] = { "auto", "ndjson", "binary" };
static const char *comp_name[] = { "plain", "gzip", "zstd" };

static void round_trips(void)
{
	for (int f = SCX_FMT_NDJSON; f <= SCX_FMT_BINARY; f++) {
		for (int c = SCX_COMP_NONE; c <= SCX_COMP_ZSTD; c++) {
			char *buf;
			size_t len = write_stream(f, c, evs, NEV, true, true, &buf);
			struct scx_reader *r = scx_reader__mem(buf, len, "mem");
			const char *what = fmt_name[f], *how = comp_name[c];

			ok(same_header(scx_reader__header(r), &hdr), "%s %s: header", what, how);
			is_int(scx_reader__format(r), f, "%s %s: format detected", what, how);
			is_int(scx_reader__compression(r), c, "%s %s: compression detected", what,
			       how);
			long n = read_all(r);
			is_int(n, NEV, "%s %s: all events read", what, how);
			ok(n == NEV && same_events(evs, got, NEV), "%s %s: events equal", what,
			   how);
			ok(same_trailer(scx_reader__trailer(r), &trl), "%s %s: trailer", what, how);
			ok(!scx_reader__warning(r), "%s %s: no warning", what, how);
			is_int(scx_reader__skipped(r), 0, "%s %s: nothing skipped", what, how);
			scx_reader__free(r);

			/* the same bytes through a file descriptor (buffer refills) */
			char path[] = "/tmp/scx-stream-XXXXXX";
			int fd = mkstemp(path);
			ok(fd >= 0 && write(fd, buf, len) == (ssize_t)len, "temp file");
			close(fd);
			r = scx_reader__open(path);
			n = read_all(r);
			ok(n == NEV && same_events(evs, got, NEV) &&
				   same_header(scx_reader__header(r), &hdr) &&
				   same_trailer(scx_reader__trailer(r), &trl),
			   "%s %s: from a file", what, how);
			scx_reader__free(r);
			unlink(path);

			/* concatenated: two captures back to back read as one */
			char *two = malloc(2 * len);
			memcpy(two, buf, len);
			memcpy(two + len, buf, len);
			r = scx_reader__mem(two, 2 * len, "two");
			static struct scx_event both[2 * NEV];
			long m = 0;
			int k;
			while ((k = scx_reader__next(r, &both[m % (2 * NEV)])) > 0)
				m += k == SCX_READ_EVENT;
			ok(k == SCX_READ_END && m == 2 * NEV && same_events(evs, both + NEV, NEV),
			   "%s %s: concatenated streams", what, how);
			scx_reader__free(r);
			free(two);
			free(buf);
		}
	}
}

/* NDJSON -> binary -> zstd NDJSON: each step keeps every byte. */
static void conversions(void)
{
	char *a, *b, *c2, *d;
	size_t la = write_stream(SCX_FMT_NDJSON, SCX_COMP_NONE, evs, NEV, true, true, &a);
	struct scx_reader *r = scx_reader__mem(a, la, "a");
	long n = read_all(r);
	size_t lb = write_stream(SCX_FMT_BINARY, SCX_COMP_GZIP, got, n, true, true, &b);
	scx_reader__free(r);
	r = scx_reader__mem(b, lb, "b");
	n = read_all(r);
	size_t lc = write_stream(SCX_FMT_NDJSON, SCX_COMP_ZSTD, got, n, true, true, &c2);
	scx_reader__free(r);
	r = scx_reader__mem(c2, lc, "c");
	n = read_all(r);
	size_t ld = write_stream(SCX_FMT_NDJSON, SCX_COMP_NONE, got, n, true, true, &d);
	ok(n == NEV && same_events(evs, got, NEV), "ndjson -> gzip binary -> zstd ndjson: events");
	ok(la == ld && !memcmp(a, d, la), "ndjson text is byte-identical after the trip");
	scx_reader__free(r);
	free(a);
	free(b);
	free(c2);
	free(d);
}

static void every_kind_text(void)
{
	/* one hand-checked line per detail of the format */
	struct scx_event e;
	struct scx_buf b = { 0 };

	scx_event_init(&e, SCX_EV_SWITCH);
	e.ts = 1000;
	e.cpu = 1;
	e.sw.prev_pid = 7;
	e.sw.prev_tgid = 7;
	memcpy(e.sw.prev_comm,
	       "a\xff"
	       "b\"",
	       4);
	e.sw.prev_prio = 120;
	e.sw.prev_state = SCX_STATE_PREEMPTED;
	e.sw.next_pid = 0;
	memcpy(e.sw.next_comm, "swapper/1", 9);
	e.sw.next_prio = 120;
	scx_event_to_json(&b, &e);
	scx_buf_add(&b, "", 1);
	is_str(b.data,
	       "{\"ts\":1000,\"cpu\":1,\"type\":\"sched_switch\",\"prev_pid\":7,\"prev_tgid\":7,"
	       "\"prev_comm\":\"a\\u00ffb\\\"\",\"prev_prio\":120,\"prev_state\":256,"
	       "\"next_pid\":0,\"next_tgid\":0,\"next_comm\":\"swapper/1\",\"next_prio\":120}\n",
	       "switch line without sched_ext fields");
	b.len = 0;
	e.sw.dsq_id = 0x8000000000000002ull;
	e.sw.dsq_depth = 3;
	scx_event_to_json(&b, &e);
	scx_buf_add(&b, "", 1);
	ok(strstr(b.data,
		  ",\"dsq_id\":9223372036854775810,\"dsq_lat_ns\":0,\"dsq_depth\":3,"
		  "\"dsq_vtime\":0,\"slice_ns\":0,\"prev_slice_used_ns\":0,\"layer_id\":-1}\n") !=
		   NULL,
	   "switch line with sched_ext fields");

	/* the binary writer cuts a dsq-less switch right before dsq_id */
	const struct scx_ev_desc *d = scx_ev_desc(SCX_EV_SWITCH);
	ok(!strcmp(d->fields[SCX_SW_SCX_FIRST].name, "dsq_id") &&
		   d->fields[SCX_SW_SCX_FIRST].offset ==
			   offsetof(struct scx_event, sw) + SCX_SW_SCX_OFFSET,
	   "dsq_id is switch field SCX_SW_SCX_FIRST, at byte SCX_SW_SCX_OFFSET of the payload");
	char rec[512];
	e.sw.dsq_id = SCX_DSQ_NONE;
	e.sw.dsq_depth = 0;
	size_t n = scx_bin_format_event(rec, &e);
	/* 8 header + 12 ts/cpu + 4*6 ints + 8 state + (1+4) + (1+9) comms */
	is_int(n, 8 + 12 + 24 + 8 + 5 + 10, "binary switch record size");
	ok(!memcmp(rec, "\x01\x00\x00\x00", 4) && rec[4] == (char)(n - 8), "record header");

	/* the example record of man/scx.7, byte for byte */
	static const unsigned char man_example[67] = {
		0x01, 0x00, 0x00, 0x00, 0x3b, 0x00, 0x00, 0x00, 0xe8, 0x03, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00, 0x07, 0x00, 0x00, 0x00,
		0x04, 'b',  'a',  's',	'h',  0x78, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09, 's',  'w',
		'a',  'p',  'p',  'e',	'r',  '/',  '1',  0x78, 0x00, 0x00, 0x00,
	};
	scx_event_init(&e, SCX_EV_SWITCH);
	e.ts = 1000;
	e.cpu = 1;
	e.sw.prev_pid = e.sw.prev_tgid = 7;
	strcpy(e.sw.prev_comm, "bash");
	e.sw.prev_prio = e.sw.next_prio = 120;
	e.sw.prev_state = SCX_STATE_INTERRUPTIBLE;
	strcpy(e.sw.next_comm, "swapper/1");
	n = scx_bin_format_event(rec, &e);
	ok(n == sizeof(man_example) && !memcmp(rec, man_example, n), "man page example record");
	scx_buf_free(&b);
}

static int read_err(const char *buf, size_t len, const char **msg)
{
	static char saved[512];
	struct scx_reader *r = scx_reader__mem(buf, len, "in");
	struct scx_event e;
	int k;

	while ((k = scx_reader__next(r, &e)) > 0)
		;
	snprintf(saved, sizeof(saved), "%s", k < 0 ? scx_reader__error(r) : "");
	*msg = saved;
	scx_reader__free(r);
	return k;
}

#define has(msg, s) (strstr((msg), (s)) != NULL)

static void errors(void)
{
	const char *m;
	char *buf;
	size_t len;
	int k;

	k = read_err("", 0, &m);
	ok(k < 0 && !strcmp(m, "in: empty input"), "empty input: %s", m);

	len = write_stream(SCX_FMT_NDJSON, SCX_COMP_NONE, evs, 3, true, false, &buf);
	k = read_err(buf, len, &m);
	ok(k == 0, "ndjson without trailer reads");
	struct scx_reader *r = scx_reader__mem(buf, len, "in");
	ok(read_all(r) == 3 && scx_reader__warning(r) &&
		   has(scx_reader__warning(r), "without a trailer"),
	   "missing trailer reported: %s", scx_reader__warning(r));
	scx_reader__free(r);
	free(buf);

	static const struct {
		const char *in, *msg, *what;
	} nd[] = {
		{ "{\"ts\":1,\"cpu\":0,\"type\":\"sched_waking\",\"pid\":1}\n{\"ts\":\n",
		  "in: line 2: unexpected end of JSON (column 7)", "truncated line" },
		{ "\n\n{\"type\":\"sched_waking\",\"pid\":\"x\"}\n",
		  "in: line 3: sched_waking.pid: expected an integer (column 31)",
		  "string for int" },
		{ "{\"type\":\"sched_waking\",\"pid\":2147483648}\n",
		  "in: line 1: sched_waking.pid: number out of range (column 30)", "int32 range" },
		{ "{\"type\":\"cpu_idle\",\"state\":-1}\n",
		  "in: line 1: cpu_idle.state: number out of range (column 28)", "u32 negative" },
		{ "{\"type\":\"sched_waking\",\"comm\":\"a\xff\"}\n",
		  "in: line 1: invalid UTF-8 (column 33)", "raw invalid UTF-8" },
		{ "{\"type\":\"sched_waking\",\"comm\":\"a\\ud800\"}\n",
		  "in: line 1: sched_waking.comm: bad string escape (column 32)",
		  "lone surrogate" },
		{ "[1]\n", "in: line 1: expected a JSON object (column 1)", "not an object" },
		{ "{\"type\":\"header\",\"version\":2}\n",
		  "in: line 1: header: unsupported version 2 (this reader knows 1) (column 28)",
		  "future version" },
		{ "{\"type\":\"header\"}\n",
		  "in: line 1: header: missing or bad \"version\" (column 1)", "no version" },
	};
	for (size_t i = 0; i < SCX_ARRAY_SIZE(nd); i++) {
		k = read_err(nd[i].in, strlen(nd[i].in), &m);
		ok(k < 0 && !strcmp(m, nd[i].msg), "%s: %s", nd[i].what, m);
	}
	k = read_err("{\"type\":\"x\"}\n{\"a\0\":1}\n", 22, &m);
	ok(k < 0 && !strcmp(m, "in: line 2: NUL byte (column 4)"), "NUL byte: %s", m);

	struct scx_buf deep = { 0 };
	for (int i = 0; i < 100; i++)
		scx_buf_add(&deep, "[", 1);
	k = read_err(deep.data, deep.len, &m);
	ok(k < 0 && !strcmp(m, "in: line 1: nesting too deep (column 65)"), "deep nesting: %s", m);
	scx_buf_free(&deep);

	/* lines that are not events: passed through and counted */
	const char *mix = "{\"type\":\"snapshot\",\"x\":[1]}\n"
			  "{\"ts\":5,\"cpu\":1,\"type\":\"sched_wakeup\",\"pid\":9,\"new\":1}\n"
			  "{\"no_type\":1}\r\n";
	struct scx_event e;
	size_t l;
	r = scx_reader__mem(mix, strlen(mix), "mix");
	ok(scx_reader__header(r) == NULL, "no header line: header is NULL");
	is_int(scx_reader__next(r, &e), SCX_READ_OTHER, "unknown type is OTHER");
	const char *line = scx_reader__line(r, &l);
	ok(l == 27 && !memcmp(line, "{\"type\":\"snapshot\",\"x\":[1]}", l), "raw line kept");
	const struct scx_json_doc *doc = scx_reader__doc(r);
	ok(doc && doc->js == line && doc->ntok == 6 &&
		   scx_json_eq(doc, scx_json_get(doc, 0, "type"), "snapshot"),
	   "the line comes parsed too (no second parse for snapshot readers)");
	is_int(scx_reader__next(r, &e), SCX_READ_EVENT, "event after it");
	ok(scx_reader__doc(r) == NULL, "no parsed line after an event");
	ok(e.type == SCX_EV_WAKEUP && e.wake.pid == 9 && e.ts == 5 && e.cpu == 1 &&
		   e.wake.tgid == 0,
	   "unknown field ignored, missing fields zero");
	is_int(scx_reader__next(r, &e), SCX_READ_OTHER, "object without type is OTHER");
	is_int(scx_reader__next(r, &e), SCX_READ_END, "end");
	is_int(scx_reader__skipped(r), 2, "two lines counted as skipped");
	scx_reader__free(r);

	/* \u00XX in event strings are bytes; elsewhere they are code points */
	const char *bytes = "{\"type\":\"sched_waking\",\"comm\":\"\\u00e9\\u00ff\\u0041\\u20ac\"}";
	r = scx_reader__mem(bytes, strlen(bytes), "b");
	ok(scx_reader__next(r, &e) == SCX_READ_EVENT && !strcmp(e.wake.comm, "\xe9\xff"
									     "A\xe2\x82\xac"),
	   "\\u00XX decodes to one byte");
	scx_reader__free(r);

	/* binary: cut at every byte, and a few hostile records */
	len = write_stream(SCX_FMT_BINARY, SCX_COMP_NONE, evs, 5, true, true, &buf);
	int crashes = 0, clean_end = 0;
	/* (a cut inside the 8-byte magic is not binary any more: NDJSON errors) */
	for (size_t cut = 8; cut < len; cut++) {
		k = read_err(buf, cut, &m);
		if (k == 0)
			clean_end++;
		else if (k < 0 && has(m, "in: byte "))
			;
		else
			crashes++;
	}
	is_int(crashes, 0, "every cut gives an error with a byte offset or a clean end");
	/* clean ends: after the file header and at the 6 boundaries after it */
	is_int(clean_end, 7, "cuts at record boundaries end cleanly (trailer then missing)");
	k = read_err(buf, len - 3, &m);
	ok(k < 0 && has(m, "truncated record (kind 32770"), "cut trailer: %s", m);

	char hostile[64];
	memcpy(hostile, SCX_BIN_MAGIC "\x01\0\0\0", 12);
	scx_bin_rec_hdr(hostile + 12, SCX_EV_SWITCH, 0xffffffffu);
	k = read_err(hostile, 20, &m);
	ok(k < 0 && !strcmp(m, "in: byte 12: record length 4294967295 exceeds the limit"),
	   "huge length: %s", m);
	scx_bin_rec_hdr(hostile + 12, SCX_EV_SWITCH, 5000);
	k = read_err(hostile, 20, &m);
	ok(k < 0 && has(m, "byte 12: record length 5000 exceeds"), "event over 4 KiB: %s", m);
	scx_bin_rec_hdr(hostile + 12, 0x7777, 4);
	memcpy(hostile + 20, "abcd", 4);
	scx_bin_rec_hdr(hostile + 24, SCX_EV_SOFTIRQ_ENTRY, 16);
	memset(hostile + 32, 0, 16);
	hostile[44] = 3;
	r = scx_reader__mem(hostile, 48, "in");
	ok(scx_reader__next(r, &e) == SCX_READ_EVENT && e.type == SCX_EV_SOFTIRQ_ENTRY &&
		   e.softirq.vec == 3 && scx_reader__skipped(r) == 1,
	   "unknown kind skipped");
	scx_reader__free(r);
	scx_bin_rec_hdr(hostile + 12, SCX_EV_TASK_RENAME, 12 + 4 + 4 + 1);
	memset(hostile + 20, 0, 21);
	hostile[40] = 17; /* oldcomm length 17 > 16 */
	k = read_err(hostile, 41, &m);
	ok(k < 0 && !strcmp(m, "in: byte 12: task_rename.oldcomm: string length 17 exceeds 16"),
	   "string longer than its field: %s", m);
	scx_bin_rec_hdr(hostile + 12, SCX_EV_FORK, 14);
	k = read_err(hostile, 34, &m);
	ok(k < 0 &&
		   !strcmp(m,
			   "in: byte 12: sched_process_fork.parent_pid: record ends inside the field"),
	   "field cut by the record length: %s", m);
	memcpy(hostile, SCX_BIN_MAGIC "\x02\0\0\0", 12);
	k = read_err(hostile, 12, &m);
	ok(k < 0 && has(m, "unsupported version 2"), "binary version 2: %s", m);
	free(buf);

	/* compressed: truncated and corrupt */
	for (int c = SCX_COMP_GZIP; c <= SCX_COMP_ZSTD; c++) {
		len = write_stream(SCX_FMT_NDJSON, c, evs, 200, true, true, &buf);
		k = read_err(buf, len - 5, &m);
		ok(k < 0 && has(m, "in: byte ") && has(m, "truncated"), "%s truncated: %s",
		   comp_name[c], m);
		buf[len / 2] ^= 0x55;
		buf[len / 2 + 1] ^= 0x55;
		k = read_err(buf, len, &m);
		ok(k < 0 && has(m, "in: "), "%s corrupt: %s", comp_name[c], m);
		free(buf);
	}
	/* gzip of nothing is empty input too */
	len = write_stream(SCX_FMT_NDJSON, SCX_COMP_GZIP, evs, 0, false, false, &buf);
	k = read_err(buf, len, &m);
	ok(k < 0 && !strcmp(m, "in: empty input"), "empty gzip: %s", m);
	free(buf);
}

/* A writer that trickles the stream through a pipe in random small pieces:
 * detection, the binary file header and records straddle every read. */
static void trickle(void)
{
	for (int f = SCX_FMT_NDJSON; f <= SCX_FMT_BINARY; f++) {
		for (int c = SCX_COMP_NONE; c <= SCX_COMP_ZSTD; c++) {
			char *buf;
			size_t len = write_stream(f, c, evs, 3000, true, true, &buf);
			int p[2];

			if (pipe(p))
				return;
			pid_t pid = fork();
			if (pid == 0) {
				close(p[0]);
				for (size_t off = 0; off < len;) {
					size_t n = 1 + rnd() % 700; /* SCX_MIN evaluates twice */
					n = SCX_MIN(len - off, n);
					if (write(p[1], buf + off, n) != (ssize_t)n)
						_exit(1);
					off += n;
				}
				_exit(0);
			}
			close(p[1]);
			struct scx_reader *r = scx_reader__fdopen(p[0], "pipe");
			long n = read_all(r);
			ok(n == 3000 && same_events(evs, got, 3000) &&
				   same_header(scx_reader__header(r), &hdr) &&
				   same_trailer(scx_reader__trailer(r), &trl),
			   "%s %s: trickled through a pipe", fmt_name[f], comp_name[c]);
			scx_reader__free(r);
			close(p[0]);
			waitpid(pid, NULL, 0);
			free(buf);
		}
	}
}

static void long_lines(void)
{
	size_t n = SCX_MAX_LINE + 100;
	char *big = malloc(n);
	const char *m;
	int k;

	memset(big, ' ', n);
	big[0] = '{';
	memcpy(big + 1, "\"type\":\"x\",\"pad\":\"", 18);
	big[n - 3] = '"';
	big[n - 2] = '}';
	big[n - 1] = '\n';
	k = read_err(big, n, &m);
	ok(k < 0 && !strcmp(m, "in: line 1: line longer than 16777216 bytes"),
	   "line over 16 MiB: %s", m);
	/* just under the cap is fine, and passes through as an other line */
	n = 1 << 20;
	big[n - 3] = '"';
	big[n - 2] = '}';
	big[n - 1] = '\n';
	k = read_err(big, n, &m);
	ok(k == 0, "a 1 MiB line is fine: %s", m);
	free(big);
}

/* The fast NDJSON path agrees with the jsmn path on numbers of every length. */
static void numbers(void)
{
	struct scx_json_doc d = { 0 };
	struct scx_header h = { 0 };
	struct scx_trailer t = { 0 };
	int bad = 0;

	for (int len = 1; len <= 21; len++) {
		for (int rep = 0; rep < 50; rep++) {
			char line[128], num[32], m1[128], m2[128];
			struct scx_event e1, e2;
			size_t c;
			int neg = rep % 5 == 0;
			for (int k = 0; k < len; k++)
				num[k] = '0' + (k == 0 && len > 1 ? 1 + rnd() % 9 : rnd() % 10);
			if (rep == 1)
				memset(num, '9', len);
			num[len] = 0;
			snprintf(line, sizeof(line),
				 "{\"ts\":%s,\"type\":\"lost\",\"count\":%s%s}  ", num,
				 neg ? "-" : "", num);
			size_t n = strlen(line) - 2 + rep % 3;
			scx_ndjson_no_fast = false;
			int r1 = scx_ndjson_parse(&d, line, n, &e1, &h, &t, m1, sizeof(m1), &c);
			scx_ndjson_no_fast = true;
			int r2 = scx_ndjson_parse(&d, line, n, &e2, &h, &t, m2, sizeof(m2), &c);
			scx_ndjson_no_fast = false;
			unsigned long long want = strtoull(num, NULL, 10);
			if (r1 != r2 ||
			    (r1 > 0 && (memcmp(&e1, &e2, sizeof(e1)) || e1.ts != want)) ||
			    (r1 < 0 && strcmp(m1, m2))) {
				printf("# %s: %d %d %s %s\n", line, r1, r2, r1 < 0 ? m1 : "",
				       r2 < 0 ? m2 : "");
				bad++;
			}
		}
	}
	is_int(bad, 0, "fast and jsmn paths agree on integers of 1 to 21 digits");
	scx_json_free(&d);
}

/* parse a line the way 'path' says: 0 canonical first, 1 flat first, 2 jsmn */
static int parse_by(int path, const char *line, size_t n, struct scx_event *e, char *m, size_t msz)
{
	static struct scx_json_doc d;
	struct scx_header h = { 0 };
	struct scx_trailer t = { 0 };
	size_t c;

	memset(e, 0, sizeof(*e));
	scx_ndjson_no_canon = path >= 1;
	scx_ndjson_no_fast = path == 2;
	int r = scx_ndjson_parse(&d, line, n, e, &h, &t, m, msz, &c);
	scx_ndjson_no_canon = scx_ndjson_no_fast = false;
	scx_header_free(&h);
	scx_trailer_free(&t);
	return r;
}

/*
 * The canonical-layout path takes every line the writer writes without an
 * escape, and on those and on mutated lines decodes exactly what the flat
 * and jsmn paths decode, or leaves the line to them.
 */
static void canonical_path(void)
{
	static const char bytes[] = {
		' ', '"', '\\', ',',  '}',    '{',    ':',    '0',    '9',    '-',
		'a', '.', 'e',	'\t', '\x1f', '\x80', '\xc3', '\xa9', '\xff',
	};
	char line[2048], mut[2048], m[3][256];
	struct scx_event e[3], ec;
	unsigned plain = 0, taken = 0, mismatch = 0, wrong = 0, mutants = 0, mut_taken = 0;

	for (unsigned i = 0; i < NEV; i++) {
		size_t n = scx_ndjson_format_event(line, &evs[i]) - 1; /* no '\n' */
		bool esc = memchr(line, '\\', n) != NULL;
		int r = scx_ndjson_canon(line, n, &ec);

		plain += !esc;
		taken += r == SCX_LINE_EVENT;
		if ((r == SCX_LINE_EVENT) == esc)
			wrong++;
		if (r == SCX_LINE_EVENT && (parse_by(2, line, n, &e[2], m[2], sizeof(m[2])) != r ||
					    memcmp(&ec, &e[2], sizeof(ec))))
			mismatch++;
		for (int k = 0; k < 10; k++) {
			size_t at = rnd() % n, mn = n;
			memcpy(mut, line, n);
			switch (rnd() % 5) {
			case 0: /* replace a byte */
				mut[at] = bytes[rnd() % sizeof(bytes)];
				break;
			case 1: /* delete one */
				memmove(mut + at, mut + at + 1, n - at - 1);
				mn--;
				break;
			case 2: /* insert one */
				memmove(mut + at + 1, mut + at, n - at);
				mut[at] = bytes[rnd() % sizeof(bytes)];
				mn++;
				break;
			case 3: /* cut the line */
				mn = at;
				break;
			case 4: /* a digit more or another digit: ranges and leading zeros */
				while (at < n && (unsigned char)(mut[at] - '0') > 9)
					at++;
				if (at == n)
					break;
				memmove(mut + at + 1, mut + at, n - at);
				mut[at] = '0' + rnd() % 10;
				mn++;
				break;
			}
			int r0 = parse_by(0, mut, mn, &e[0], m[0], sizeof(m[0]));
			int r1 = parse_by(1, mut, mn, &e[1], m[1], sizeof(m[1]));
			int r2 = parse_by(2, mut, mn, &e[2], m[2], sizeof(m[2]));
			mutants++;
			mut_taken += scx_ndjson_canon(mut, mn, &ec) == SCX_LINE_EVENT;
			if (r0 != r1 || r1 != r2 ||
			    (r0 == SCX_LINE_EVENT && (memcmp(&e[0], &e[1], sizeof(ec)) ||
						      memcmp(&e[1], &e[2], sizeof(ec)))) ||
			    (r0 < 0 && strcmp(m[0], m[1]))) {
				if (mismatch++ < 5)
					printf("# %.*s: %d %d %d\n", (int)mn, mut, r0, r1, r2);
			}
		}
	}
	ok(plain > NEV / 2, "most writer lines have no escape (%u of %u)", plain, NEV);
	is_int(wrong, 0, "canonical path takes exactly the %u lines without an escape", plain);
	is_int(taken, plain, "and no other line");
	is_int(mismatch, 0, "canonical, flat and jsmn paths agree on %u mutated lines", mutants);
	ok(mut_taken > mutants / 20 && mut_taken < mutants,
	   "mutants both taken and refused by the canonical path (%u of %u taken)", mut_taken,
	   mutants);
}

static void epipe(void)
{
	int p[2];
	struct scx_writer_opts o = { .format = SCX_FMT_NDJSON };
	int err = 0;

	signal(SIGPIPE, SIG_IGN);
	if (pipe(p))
		return;
	close(p[0]);
	struct scx_writer *w = scx_writer__fdopen(p[1], &o);
	for (int i = 0; i < NEV && !err; i++)
		err = scx_writer__event(w, &evs[i]);
	if (!err)
		err = scx_writer__flush(w);
	is_int(err, -EPIPE, "closed pipe gives -EPIPE");
	is_int(scx_writer__event(w, &evs[0]), -EPIPE, "and keeps giving it");
	is_int(scx_writer__close(w), -EPIPE, "close reports it");

	struct scx_header h = hdr;
	w = scx_writer__open("/dev/null", &o);
	h.options_json = "{\"a\":";
	is_int(scx_writer__header(w, &h), -EINVAL, "options that are not JSON rejected");
	h.options_json = "[1]";
	is_int(scx_writer__header(w, &h), -EINVAL, "options that are not an object rejected");
	h.options_json = NULL;
	is_int(scx_writer__header(w, &h), 0, "no options: {}");
	is_int(scx_writer__close(w), 0, "close");
}

/*
 * The binary decoder's fast paths (switch, wakeups) against the field table:
 * every random event of every kind, each of its prefixes, with bytes of a
 * newer version appended, and with a string length byte made too long.
 */
static void binary_fast_paths(void)
{
	unsigned records = 0, bad = 0, accepted = 0;

	for (unsigned i = 0; i < NEV; i++) {
		char rec[1024], m1[256], m2[256];
		size_t n = scx_bin_format_event(rec, &evs[i]) - SCX_BIN_REC_HDR;
		char *pl = rec + SCX_BIN_REC_HDR;

		memcpy(pl + n, "\x01\x02\x03\x04\x05", 5);
		for (int v = 0; v < 3; v++) {
			if (v == 2) {
				/* the first string's length byte, past its limit */
				if (evs[i].type != SCX_EV_SWITCH && evs[i].type != SCX_EV_WAKING)
					continue;
				pl[20] = (char)(SCX_COMM_LEN + 1 + rnd() % 3);
			}
			for (size_t len = 0; len <= n + (v == 1 ? 5 : 0); len++) {
				struct scx_event e1, e2;
				int r1, r2;

				memset(&e1, 0xa5, sizeof(e1));
				memset(&e2, 0x5a, sizeof(e2));
				r1 = scx_bin_parse_event(pl, len, evs[i].type, &e1, m1, sizeof(m1));
				r2 = scx_bin_parse_event_table(pl, len, evs[i].type, &e2, m2,
							       sizeof(m2));
				records++;
				accepted += !r1;
				bad += r1 != r2 || (!r1 && memcmp(&e1, &e2, sizeof(e1))) ||
				       (r1 && strcmp(m1, m2));
			}
		}
	}
	is_int(bad, 0,
	       "binary decoder: fast paths and the field table agree on %u records "
	       "(%u accepted)",
	       records, accepted);
}

/* Cgroup ids: left out when unknown; binary switches pull in the sched_ext fields. */
static void cgroup_fields(void)
{
	struct scx_event e, g;
	struct scx_buf b = { 0 };
	char rec[512], m[256];
	size_t n, n0;

	scx_event_init(&e, SCX_EV_SWITCH);
	e.ts = 1000;
	e.cpu = 1;
	e.sw.prev_pid = e.sw.prev_tgid = 7;
	strcpy(e.sw.prev_comm, "bash");
	e.sw.prev_prio = e.sw.next_prio = 120;
	strcpy(e.sw.next_comm, "swapper/1");
	n0 = scx_bin_format_event(rec, &e);
	e.sw.prev_cgroup = 44;
	scx_event_to_json(&b, &e);
	scx_buf_add(&b, "", 1);
	is_str(b.data,
	       "{\"ts\":1000,\"cpu\":1,\"type\":\"sched_switch\",\"prev_pid\":7,\"prev_tgid\":7,"
	       "\"prev_comm\":\"bash\",\"prev_prio\":120,\"prev_state\":0,"
	       "\"next_pid\":0,\"next_tgid\":0,\"next_comm\":\"swapper/1\",\"next_prio\":120,"
	       "\"prev_cgroup\":44}\n",
	       "switch line: a known cgroup, no unknown one, no sched_ext");
	ok(scx_ndjson_canon(b.data, b.len - 2, &g) == SCX_LINE_EVENT && !memcmp(&g, &e, sizeof(e)),
	   "the canonical reader takes the writer's cgroup layout");
	n = scx_bin_format_event(rec, &e);
	is_int(n, n0 + 48 + 16, "binary switch with a cgroup carries the sched_ext fields as none");
	memset(&g, 0x5a, sizeof(g));
	ok(!scx_bin_parse_event(rec + SCX_BIN_REC_HDR, n - SCX_BIN_REC_HDR, SCX_EV_SWITCH, &g, m,
				sizeof(m)) &&
		   !memcmp(&g, &e, sizeof(e)) && g.sw.dsq_id == SCX_DSQ_NONE,
	   "... and reads back without sched_ext data");

	scx_event_init(&e, SCX_EV_WAKING);
	e.wake.pid = e.wake.tgid = 9;
	strcpy(e.wake.comm, "w");
	n0 = scx_bin_format_event(rec, &e);
	memset(&g, 0x5a, sizeof(g));
	ok(!scx_bin_parse_event(rec + SCX_BIN_REC_HDR, n0 - SCX_BIN_REC_HDR, SCX_EV_WAKING, &g, m,
				sizeof(m)) &&
		   g.wake.cgroup == SCX_CGROUP_NONE,
	   "an old binary wakeup reads as cgroup unknown, not the root");
	e.wake.cgroup = 1;
	n = scx_bin_format_event(rec, &e);
	is_int(n, n0 + 8, "binary wakeup with a cgroup: 8 bytes more");
	b.len = 0;
	scx_event_to_json(&b, &e);
	scx_buf_add(&b, "", 1);
	ok(strstr(b.data, ",\"waker_tgid\":0,\"cgroup\":1}\n") != NULL,
	   "wakeup line ends in its cgroup");

	/* the side record */
	struct scx_json_doc d = { 0 };
	uint64_t id;
	char path[64];
	b.len = 0;
	scx_cgroup_rec_json(&b, 44, "/a/b\xff");
	scx_buf_add(&b, "", 1);
	is_str(b.data, "{\"type\":\"cgroup\",\"id\":44,\"path\":\"/a/b\\u00ff\"}", "cgroup record");
	ok(!scx_json_parse(&d, b.data, b.len - 1) &&
		   scx_cgroup_rec_parse(&d, &id, path, sizeof(path), m, sizeof(m)) == 1 &&
		   id == 44 && !strcmp(path, "/a/b\xff"),
	   "cgroup record reads back, bytes and all");
	static const char *const bad[] = {
		"{\"type\":\"cgroup\",\"id\":0,\"path\":\"/\"}",
		"{\"type\":\"cgroup\",\"id\":-3,\"path\":\"/\"}",
		"{\"type\":\"cgroup\",\"id\":5,\"path\":\"a\"}",
		"{\"type\":\"cgroup\",\"id\":5,\"path\":7}",
		"{\"type\":\"cgroup\",\"id\":5}",
		"{\"type\":\"cgroup\",\"id\":5,\"path\":\"/a\\u0000b\"}",
		"{\"type\":\"cgroup\",\"id\":5,\"path\":\"/0123456789012345678901234567890123456789012345678901234567890123\"}",
	};
	for (unsigned i = 0; i < SCX_ARRAY_SIZE(bad); i++)
		ok(!scx_json_parse(&d, bad[i], strlen(bad[i])) &&
			   scx_cgroup_rec_parse(&d, &id, path, sizeof(path), m, sizeof(m)) ==
				   -EINVAL &&
			   strstr(m, "cgroup record"),
		   "bad cgroup record %u: %s", i, m);
	ok(!scx_json_parse(&d, "{\"type\":\"snapshot\"}", 19) &&
		   scx_cgroup_rec_parse(&d, &id, path, sizeof(path), m, sizeof(m)) == 0,
	   "another object is not a cgroup record");
	scx_json_free(&d);
	scx_buf_free(&b);
}

/* The header's "order": what a reader checks, and the plan it makes consumers follow. */
static void order_promise(void)
{
	static const uint64_t ts[] = { 10, 5, 20, 20, 3 };
	struct scx_event ev[5];
	const struct scx_header saved = hdr;
	struct scx_header h = { .order = SCX_ORDER_UNKNOWN };

	for (unsigned i = 0; i < 5; i++) {
		scx_event_init(&ev[i], SCX_EV_IPI_ENTRY);
		ev[i].ts = ts[i];
		ev[i].cpu = 0;
	}
	hdr.order = SCX_ORDER_TIME;
	for (int f = SCX_FMT_NDJSON; f <= SCX_FMT_BINARY; f++) {
		char *buf;
		size_t len = write_stream(f, SCX_COMP_NONE, ev, 5, true, true, &buf);
		struct scx_reader *r = scx_reader__mem(buf, len, "mem");
		const char *msg = NULL;

		is_int(read_all(r), 5, "%s: a broken promise of time order still reads",
		       fmt_name[f]);
		is_int(scx_reader__header(r)->order, SCX_ORDER_TIME, "%s: \"order\" read back",
		       fmt_name[f]);
		is_int(scx_reader__disorder(r, &msg), 2, "%s: both late events counted",
		       fmt_name[f]);
		ok(msg &&
			   strstr(msg, f == SCX_FMT_NDJSON ? "mem: line 3: the header says" :
							     "mem: byte ") &&
			   strstr(msg, "5 ns older than one before it (2 events out of order)"),
		   "%s: the first named: %s", fmt_name[f], msg ? msg : "(none)");
		scx_reader__free(r);
		free(buf);
	}
	hdr.order = SCX_ORDER_CPU; /* a weaker promise: nothing to check */
	{
		char *buf;
		size_t len = write_stream(SCX_FMT_NDJSON, SCX_COMP_NONE, ev, 5, true, true, &buf);
		struct scx_reader *r = scx_reader__mem(buf, len, "mem");

		read_all(r);
		is_int(scx_reader__disorder(r, NULL), 0, "\"cpu\": no disorder to report");
		scx_reader__free(r);
		free(buf);
	}
	hdr = saved;

	struct scx_order_plan p = scx_order_plan(NULL, SCX_REORDER_UNSET, 7);
	ok(p.window_ns == 7 && !p.from_start, "no header: the consumer's old window, lazily");
	p = scx_order_plan(&h, SCX_REORDER_UNSET, 0);
	ok(p.window_ns == 0 && !p.from_start, "no \"order\": as before, here never");
	h.order = SCX_ORDER_CPU;
	p = scx_order_plan(&h, SCX_REORDER_UNSET, 0);
	ok(p.window_ns == SCX_REORDER_DEFAULT_NS && p.from_start, "\"cpu\": sorted from the start");
	p = scx_order_plan(&h, 0, 0);
	ok(p.window_ns == 0 && !p.from_start, "\"cpu\" with --reorder 0: never");
	h.order = SCX_ORDER_TIME;
	p = scx_order_plan(&h, SCX_REORDER_UNSET, 0);
	ok(p.window_ns == SCX_REORDER_DEFAULT_NS && !p.from_start,
	   "\"time\": a window only for a broken promise");
	p = scx_order_plan(&h, 5, 0);
	ok(p.window_ns == 5 && !p.from_start, "\"time\" with --reorder 5ns");
}

int main(void)
{
	static const struct scx_cpu_topo cpus[] = {
		{ 0, 0, 0, 0, true },
		{ 2, 1, 0, 0, true },
		{ 5, 2, 1, 1, false },
	};

	for (unsigned i = 0; i < NEV; i++)
		rand_event(&evs[i], 1 + i % (SCX_EV__COUNT - 1));
	hdr.version = 1;
	strcpy(hdr.producer, "t-0003");
	strcpy(hdr.clock, "boottime");
	strcpy(hdr.hostname, "h\"o\\st");
	strcpy(hdr.kernel, "6.18.0-test");
	hdr.nr_cpus = 6;
	hdr.topo = scx_topo__from_cpus(cpus, 3);
	strcpy(hdr.scheduler, "scx_rusty");
	hdr.options_json = scx_xstrdup("{\"duration\":30,\"events\":[\"switch\",\"wakeup\"]}");
	hdr.start_ns = UINT64_MAX;
	hdr.order = SCX_ORDER_CPU; /* the random events are in no order */
	for (unsigned k = 1; k < SCX_EV__COUNT; k++)
		trl.counts[k] = k * 1000 + 7;
	trl.nr_cpus = 6;
	trl.lost = scx_xcalloc(6, 8);
	trl.lost[5] = UINT64_MAX;
	trl.lost_total = 12;
	trl.end_ns = 123456789;

	every_kind_text();
	round_trips();
	binary_fast_paths();
	conversions();
	errors();
	trickle();
	long_lines();
	numbers();
	canonical_path();
	cgroup_fields();
	order_promise();
	epipe();
	scx_header_free(&hdr);
	scx_trailer_free(&trl);
	return done_testing();
}
