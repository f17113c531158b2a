// SPDX-License-Identifier: GPL-2.0
/*
 * Stream readers and writers (see stream.h): format and compression
 * detection, buffering, line and record framing, and the error messages
 * ("name: line N: ..." for NDJSON, "name: byte N: ..." for binary and
 * compressed input).  The codecs themselves are in ndjson.c and binframe.c,
 * compression in zio.c.
 */
#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stream/stream-int.h"
#include "core/topo.h"
#include "core/util.h"

void scx_header_free(struct scx_header *h)
{
	if (!h)
		return;
	scx_topo__free(h->topo);
	free(h->options_json);
	h->topo = NULL;
	h->options_json = NULL;
}

void scx_trailer_free(struct scx_trailer *t)
{
	if (!t)
		return;
	free(t->lost);
	t->lost = NULL;
	t->nr_cpus = 0;
}

int scx_format_parse(const char *s, enum scx_format *f)
{
	if (!strcmp(s, "ndjson") || !strcmp(s, "json"))
		*f = SCX_FMT_NDJSON;
	else if (!strcmp(s, "binary") || !strcmp(s, "bin"))
		*f = SCX_FMT_BINARY;
	else if (!strcmp(s, "auto"))
		*f = SCX_FMT_AUTO;
	else
		return -EINVAL;
	return 0;
}

int scx_compress_parse(const char *s, enum scx_compress *c)
{
	if (!strcmp(s, "none") || !strcmp(s, "no"))
		*c = SCX_COMP_NONE;
	else if (!strcmp(s, "gzip") || !strcmp(s, "gz"))
		*c = SCX_COMP_GZIP;
	else if (!strcmp(s, "zstd") || !strcmp(s, "zst"))
		*c = SCX_COMP_ZSTD;
	else
		return -EINVAL;
	return 0;
}

/* ---- reader ------------------------------------------------------------- */

#define READ_CHUNK (256u << 10)

enum { ST_NEW, ST_RUN, ST_END, ST_ERROR };

struct scx_reader {
	char *name;
	int fd;
	bool own_fd;
	const void *mem;
	size_t memlen;
	struct scx_zin in;
	int state;

	/* decompressed bytes: data[pos..len) unread; data is buf or the caller's memory */
	const char *data;
	char *buf;
	size_t cap, pos, len;
	bool eof;
	uint64_t base; /* stream offset of data[0] */

	enum scx_format fmt;
	uint64_t line;
	struct scx_json_doc doc;
	struct scx_header hdr;
	bool have_hdr;
	struct scx_trailer trl;
	bool have_trl;
	const char *other;
	size_t other_len;
	bool other_parsed; /* doc holds other (the last item read) */
	uint64_t skipped;

	/* the first item, read early by scx_reader__header() */
	int pending;
	struct scx_event pending_ev;

	/* the header's promise of time order, checked (scx_reader__disorder()) */
	uint64_t newest;   /* the newest event since the header */
	uint64_t disorder; /* events older than it */
	char disorder_at[160];
	char disorder_msg[512];

	char err[512];
};

static struct scx_reader *reader_new(const char *name)
{
	struct scx_reader *r = scx_xcalloc(1, sizeof(*r));

	r->name = scx_xstrdup(name);
	r->fd = -1;
	return r;
}

struct scx_reader *scx_reader__open(const char *path)
{
	struct scx_reader *r;
	int fd;

	if (!path || !strcmp(path, "-"))
		return scx_reader__fdopen(STDIN_FILENO, "stdin");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	r = reader_new(path);
	r->fd = fd;
	r->own_fd = true;
	return r;
}

struct scx_reader *scx_reader__fdopen(int fd, const char *name)
{
	struct scx_reader *r;

	if (fd < 0) {
		errno = EBADF;
		return NULL;
	}
	r = reader_new(name ? name : "stdin");
	r->fd = fd;
	return r;
}

struct scx_reader *scx_reader__mem(const void *buf, size_t len, const char *name)
{
	struct scx_reader *r = reader_new(name ? name : "memory");

	r->mem = buf;
	r->memlen = len;
	return r;
}

void scx_reader__free(struct scx_reader *r)
{
	if (!r)
		return;
	scx_zin_close(&r->in);
	if (r->own_fd)
		close(r->fd);
	scx_json_free(&r->doc);
	scx_header_free(&r->hdr);
	scx_trailer_free(&r->trl);
	free(r->buf);
	free(r->name);
	free(r);
}

static int fail(struct scx_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(struct scx_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, sizeof(r->err), "%s: ", r->name);

	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(r->err))
		vsnprintf(r->err + n, sizeof(r->err) - n, fmt, ap);
	va_end(ap);
	r->state = ST_ERROR;
	return SCX_READ_ERROR;
}

/* Make at least 'need' unread bytes available, or hit the end; <0 on error. */
static int fill(struct scx_reader *r, size_t need)
{
	while (r->len - r->pos < need && !r->eof) {
		size_t avail = r->len - r->pos;

		if (r->pos && (r->cap - r->len < READ_CHUNK || need > r->cap - r->pos)) {
			memmove(r->buf, r->buf + r->pos, avail);
			r->base += r->pos;
			r->len = avail;
			r->pos = 0;
		}
		if (r->cap - r->len < READ_CHUNK || need > r->cap) {
			size_t cap = r->cap ? r->cap : 4 * READ_CHUNK;
			while (cap - r->len < READ_CHUNK || cap < need)
				cap *= 2;
			r->buf = scx_xrealloc(r->buf, cap);
			r->cap = cap;
		}
		r->data = r->buf;
		ssize_t n = scx_zin_read(&r->in, r->buf + r->len, r->cap - r->len);
		if (n < 0) {
			if (r->in.err[0])
				return fail(r, "%s", r->in.err);
			return fail(r, "byte %llu: read error: %s",
				    (unsigned long long)(r->base + r->len), strerror((int)-n));
		}
		if (n == 0)
			r->eof = true;
		r->len += n;
	}
	return 0;
}

/* The version of the binary file header at r->pos (the first, or a concatenated one). */
static int check_version(struct scx_reader *r, uint64_t off)
{
	uint32_t ver;

	memcpy(&ver, r->data + r->pos + SCX_BIN_MAGIC_LEN, 4);
	ver = le32toh(ver);
	if (ver < 1 || ver > SCX_WIRE_VERSION)
		return fail(r, "byte %llu: unsupported version %u (this reader knows %d)",
			    (unsigned long long)(off + SCX_BIN_MAGIC_LEN), ver, SCX_WIRE_VERSION);
	return 0;
}

static int start(struct scx_reader *r)
{
	int err;

	r->state = ST_RUN;
	err = scx_zin_open(&r->in, r->mem ? -1 : r->fd, r->mem, r->memlen);
	if (err) {
		if (r->in.err[0])
			return fail(r, "%s", r->in.err);
		return fail(r, "read error: %s", strerror(-err));
	}
	if (scx_zin_is_plain_mem(&r->in)) {
		r->data = r->mem;
		r->len = r->memlen;
		r->eof = true;
	} else if (fill(r, SCX_BIN_FILE_HDR) < 0) {
		return SCX_READ_ERROR;
	}
	if (r->len == 0)
		return fail(r, "empty input");
	if (r->len >= SCX_BIN_MAGIC_LEN && !memcmp(r->data, SCX_BIN_MAGIC, SCX_BIN_MAGIC_LEN)) {
		r->fmt = SCX_FMT_BINARY;
		if (r->len < SCX_BIN_FILE_HDR)
			return fail(r, "byte %zu: truncated file header", r->len);
		if (check_version(r, 0) < 0)
			return SCX_READ_ERROR;
		r->pos = SCX_BIN_FILE_HDR;
	} else {
		r->fmt = SCX_FMT_NDJSON;
	}
	return 0;
}

/* Per-cpu tables downstream are sized by SCX_MAX_CPUS: refuse, never misfile. */
static bool cpu_valid(int32_t cpu)
{
	return cpu >= -1 && cpu < SCX_MAX_CPUS;
}

/* One NDJSON item: EVENT, HEADER, TRAILER, OTHER, 0 at the end, or error. */
static int read_line(struct scx_reader *r, struct scx_event *e)
{
	for (;;) {
		size_t scanned = 0, n;
		const char *nl;
		char msg[256];
		size_t col;

		for (;;) {
			nl = memchr(r->data + r->pos + scanned, '\n', r->len - r->pos - scanned);
			if (nl || r->eof)
				break;
			if (r->len - r->pos >= SCX_MAX_LINE)
				return fail(r, "line %llu: line longer than %u bytes",
					    (unsigned long long)r->line + 1, SCX_MAX_LINE);
			scanned = r->len - r->pos;
			if (fill(r, scanned + 1) < 0)
				return SCX_READ_ERROR;
		}
		const char *s = r->data + r->pos;
		if (nl) {
			n = nl - s;
			r->pos += n + 1;
		} else {
			n = r->len - r->pos;
			if (!n)
				return 0;
			r->pos += n;
		}
		if (n > SCX_MAX_LINE)
			return fail(r, "line %llu: line longer than %u bytes",
				    (unsigned long long)r->line + 1, SCX_MAX_LINE);
		r->line++;
		if (n && s[n - 1] == '\r')
			n--;
		/* blank lines separate nothing; skip them */
		size_t i = 0;
		while (i < n && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i == n)
			continue;
		int k = scx_ndjson_parse(&r->doc, s, n, e, &r->hdr, &r->trl, msg, sizeof(msg),
					 &col);
		if (k < 0)
			return fail(r, "line %llu: %s", (unsigned long long)r->line, msg);
		if (k == SCX_LINE_EVENT && !cpu_valid(e->cpu))
			return fail(r, "line %llu: cpu %d out of range (-1 to %d)",
				    (unsigned long long)r->line, e->cpu, SCX_MAX_CPUS - 1);
		if (k == SCX_LINE_OTHER) {
			r->other = s;
			r->other_len = n;
			r->other_parsed = true;
		}
		return k;
	}
}

/* One binary record; same results as read_line(). */
static int read_record(struct scx_reader *r, struct scx_event *e)
{
	for (;;) {
		uint16_t kind;
		uint32_t len;
		uint64_t off;
		char msg[256];
		size_t col;

		if (r->len - r->pos < SCX_BIN_REC_HDR && fill(r, SCX_BIN_REC_HDR) < 0)
			return SCX_READ_ERROR;
		off = r->base + r->pos;
		if (r->len == r->pos)
			return 0;
		if (r->len - r->pos < SCX_BIN_REC_HDR)
			return fail(r, "byte %llu: truncated record header (%zu of %d bytes)",
				    (unsigned long long)off, r->len - r->pos, SCX_BIN_REC_HDR);
		if (r->data[r->pos] == SCX_BIN_MAGIC[0] &&
		    !memcmp(r->data + r->pos, SCX_BIN_MAGIC, SCX_BIN_MAGIC_LEN)) {
			/* concatenated captures: another file header, then its records */
			if (fill(r, SCX_BIN_FILE_HDR) < 0)
				return SCX_READ_ERROR;
			if (r->len - r->pos < SCX_BIN_FILE_HDR)
				return fail(r, "byte %llu: truncated file header",
					    (unsigned long long)off);
			if (check_version(r, off) < 0)
				return SCX_READ_ERROR;
			r->pos += SCX_BIN_FILE_HDR;
			continue;
		}
		memcpy(&kind, r->data + r->pos, 2);
		memcpy(&len, r->data + r->pos + 4, 4);
		kind = le16toh(kind);
		len = le32toh(len);
		if (len > SCX_BIN_MAX_RECORD ||
		    (kind < SCX_EV__COUNT && kind && len > SCX_BIN_MAX_EVENT))
			return fail(r, "byte %llu: record length %u exceeds the limit",
				    (unsigned long long)off, len);
		if (r->len - r->pos < SCX_BIN_REC_HDR + (size_t)len &&
		    fill(r, SCX_BIN_REC_HDR + (size_t)len) < 0)
			return SCX_READ_ERROR;
		if (r->len - r->pos < SCX_BIN_REC_HDR + (size_t)len)
			return fail(r,
				    "byte %llu: truncated record (kind %u, %u bytes, %zu present)",
				    (unsigned long long)off, kind, len,
				    r->len - r->pos - SCX_BIN_REC_HDR);
		const char *p = r->data + r->pos + SCX_BIN_REC_HDR;
		r->pos += SCX_BIN_REC_HDR + (size_t)len;
		r->line++;
		if (kind && kind < SCX_EV__COUNT) {
			if (scx_bin_parse_event(p, len, kind, e, msg, sizeof(msg)))
				return fail(r, "byte %llu: %s", (unsigned long long)off, msg);
			if (!cpu_valid(e->cpu))
				return fail(r, "byte %llu: cpu %d out of range (-1 to %d)",
					    (unsigned long long)off, e->cpu, SCX_MAX_CPUS - 1);
			return SCX_LINE_EVENT;
		}
		if (kind == SCX_REC_HEADER || kind == SCX_REC_TRAILER || kind == SCX_REC_JSON) {
			int k = scx_ndjson_parse(&r->doc, p, len, e, &r->hdr, &r->trl, msg,
						 sizeof(msg), &col);
			if (k < 0)
				return fail(r, "byte %llu: %s", (unsigned long long)(off + 8 + col),
					    msg);
			if ((kind == SCX_REC_HEADER && k != SCX_LINE_HEADER) ||
			    (kind == SCX_REC_TRAILER && k != SCX_LINE_TRAILER))
				return fail(r, "byte %llu: record kind %u does not hold a %s",
					    (unsigned long long)off, kind,
					    kind == SCX_REC_HEADER ? "header" : "trailer");
			if (k == SCX_LINE_OTHER) {
				r->other = p;
				r->other_len = len;
				r->other_parsed = true;
			}
			return k;
		}
		/* a kind from a newer version */
		r->skipped++;
	}
}

/* An event of a stream whose header promises time order: does it keep it? */
static void check_order(struct scx_reader *r, const struct scx_event *e, uint64_t off)
{
	if (e->ts >= r->newest) {
		r->newest = e->ts;
		return;
	}
	if (!r->disorder++)
		snprintf(r->disorder_at, sizeof(r->disorder_at),
			 "%s %llu: the header says the events are in time order, but this one is "
			 "%llu ns older than one before it",
			 r->fmt == SCX_FMT_BINARY ? "byte" : "line",
			 (unsigned long long)(r->fmt == SCX_FMT_BINARY ? off : r->line),
			 (unsigned long long)(r->newest - e->ts));
}

static int read_item(struct scx_reader *r, struct scx_event *e)
{
	uint64_t off = r->base + r->pos;
	int k;

	r->other_parsed = false;
	k = r->fmt == SCX_FMT_BINARY ? read_record(r, e) : read_line(r, e);
	if (k == SCX_LINE_EVENT && r->hdr.order == SCX_ORDER_TIME)
		check_order(r, e, off);
	else if (k == SCX_LINE_HEADER)
		r->newest = 0; /* a concatenated stream promises its own order only */
	return k;
}

/* Read up to and including the first item; keep it if it is not the header. */
static void prime(struct scx_reader *r)
{
	if (r->state != ST_NEW)
		return;
	if (start(r) < 0)
		return;
	int k = read_item(r, &r->pending_ev);
	if (k == SCX_LINE_HEADER)
		r->have_hdr = true;
	else if (k > 0)
		r->pending = k;
	else if (k == 0)
		r->pending = -1; /* nothing but a header-less empty stream */
}

int scx_reader__next(struct scx_reader *r, struct scx_event *e)
{
	int k;

	if (r->state == ST_NEW)
		prime(r);
	if (r->state == ST_ERROR)
		return SCX_READ_ERROR;
	if (r->state == ST_END)
		return SCX_READ_END;
	if (r->pending) {
		k = r->pending;
		r->pending = 0;
		if (k == SCX_LINE_EVENT) {
			*e = r->pending_ev;
			return SCX_READ_EVENT;
		}
		if (k == SCX_LINE_OTHER) {
			r->skipped++;
			return SCX_READ_OTHER;
		}
		if (k == SCX_LINE_TRAILER)
			r->have_trl = true;
		if (k < 0) {
			r->state = ST_END;
			return SCX_READ_END;
		}
	}
	for (;;) {
		k = read_item(r, e);
		switch (k) {
		case SCX_READ_ERROR:
			return SCX_READ_ERROR;
		case 0:
			r->state = ST_END;
			return SCX_READ_END;
		case SCX_LINE_EVENT:
			return SCX_READ_EVENT;
		case SCX_LINE_OTHER:
			r->skipped++;
			return SCX_READ_OTHER;
		case SCX_LINE_HEADER:
			/* a later header (concatenated captures) replaced the first one */
			r->have_hdr = true;
			break;
		case SCX_LINE_TRAILER:
			r->have_trl = true;
			break;
		}
	}
}

const struct scx_header *scx_reader__header(struct scx_reader *r)
{
	if (r->state == ST_NEW)
		prime(r);
	return r->have_hdr ? &r->hdr : NULL;
}

const struct scx_trailer *scx_reader__trailer(struct scx_reader *r)
{
	return r->state == ST_END && r->have_trl ? &r->trl : NULL;
}

const char *scx_reader__error(struct scx_reader *r)
{
	return r->state == ST_ERROR ? r->err : NULL;
}

const char *scx_reader__line(struct scx_reader *r, size_t *len)
{
	*len = r->other_len;
	return r->other;
}

const struct scx_json_doc *scx_reader__doc(struct scx_reader *r)
{
	return r->other_parsed ? &r->doc : NULL;
}

enum scx_format scx_reader__format(struct scx_reader *r)
{
	if (r->state == ST_NEW)
		prime(r);
	return r->fmt;
}

enum scx_compress scx_reader__compression(struct scx_reader *r)
{
	if (r->state == ST_NEW)
		prime(r);
	return r->in.comp;
}

uint64_t scx_reader__skipped(struct scx_reader *r)
{
	return r->skipped;
}

uint64_t scx_reader__offset(struct scx_reader *r)
{
	return r->base + r->pos;
}

const char *scx_reader__warning(struct scx_reader *r)
{
	if (r->state != ST_END || r->have_trl)
		return NULL;
	snprintf(r->err, sizeof(r->err), "%s: byte %llu: stream ends without a trailer", r->name,
		 (unsigned long long)(r->base + r->pos));
	return r->err;
}

uint64_t scx_reader__disorder(struct scx_reader *r, const char **msg)
{
	if (msg && r->disorder) {
		snprintf(r->disorder_msg, sizeof(r->disorder_msg),
			 "%s: %s (%llu event%s out of order)", r->name, r->disorder_at,
			 (unsigned long long)r->disorder, r->disorder == 1 ? "" : "s");
		*msg = r->disorder_msg;
	}
	return r->disorder;
}

const char *scx_order_name(enum scx_order o)
{
	return o == SCX_ORDER_TIME ? "time" : o == SCX_ORDER_CPU ? "cpu" : NULL;
}

struct scx_order_plan scx_order_plan(const struct scx_header *h, uint64_t forced_ns,
				     uint64_t legacy_ns)
{
	enum scx_order o = h ? h->order : SCX_ORDER_UNKNOWN;
	struct scx_order_plan p = {
		.window_ns = o == SCX_ORDER_UNKNOWN ? legacy_ns : SCX_REORDER_DEFAULT_NS,
		.from_start = o == SCX_ORDER_CPU,
	};

	if (forced_ns != SCX_REORDER_UNSET)
		p.window_ns = forced_ns;
	if (!p.window_ns)
		p.from_start = false;
	return p;
}

uint64_t scx_order_legacy_ns(const struct scx_header *h)
{
	return h && !strcmp(h->producer, "scx-events") ? SCX_REORDER_DEFAULT_NS : 0;
}

/* ---- writer ------------------------------------------------------------- */

#define WRITE_FLUSH (64u << 10)

struct scx_writer {
	int fd;
	bool own_fd;
	enum scx_format fmt;
	struct scx_zout z;
	struct scx_buf buf;
	size_t ev_max;
	int err;
};

struct scx_writer *scx_writer__open(const char *path, const struct scx_writer_opts *o)
{
	struct scx_writer *w;
	int fd;

	if (!path || !strcmp(path, "-"))
		return scx_writer__fdopen(STDOUT_FILENO, o);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	w = scx_writer__fdopen(fd, o);
	if (!w) {
		int saved = errno;
		close(fd);
		errno = saved;
	}
	return w;
}

struct scx_writer *scx_writer__fdopen(int fd, const struct scx_writer_opts *o)
{
	static const struct scx_writer_opts defaults;
	struct scx_writer *w;
	int err;

	if (!o)
		o = &defaults;
	if (fd < 0 || o->compress > SCX_COMP_ZSTD || o->format > SCX_FMT_BINARY) {
		errno = fd < 0 ? EBADF : EINVAL;
		return NULL;
	}
	w = scx_xcalloc(1, sizeof(*w));
	w->fd = fd;
	w->own_fd = fd > STDERR_FILENO;
	w->fmt = o->format == SCX_FMT_BINARY ? SCX_FMT_BINARY : SCX_FMT_NDJSON;
	err = scx_zout_open(&w->z, fd, o->compress, o->level);
	if (err) {
		scx_zout_close(&w->z);
		free(w);
		errno = -err;
		return NULL;
	}
	w->ev_max = w->fmt == SCX_FMT_BINARY ? scx_bin_event_max() : scx_ndjson_event_max();
	scx_buf_reserve(&w->buf, WRITE_FLUSH + w->ev_max + 4096);
	if (w->fmt == SCX_FMT_BINARY) {
		uint32_t ver = htole32(SCX_WIRE_VERSION);
		scx_buf_add(&w->buf, SCX_BIN_MAGIC, SCX_BIN_MAGIC_LEN);
		scx_buf_add(&w->buf, &ver, 4);
	}
	return w;
}

static int drain(struct scx_writer *w, int mode)
{
	if (w->err)
		return w->err;
	w->err = scx_zout_write(&w->z, w->buf.data, w->buf.len, mode);
	w->buf.len = 0;
	return w->err;
}

/* A JSON object as a line or as a record of 'kind'. */
static int put_json(struct scx_writer *w, unsigned kind, void (*fn)(struct scx_buf *, const void *),
		    const void *arg)
{
	if (w->err)
		return w->err;
	if (w->fmt == SCX_FMT_BINARY) {
		size_t at = w->buf.len;
		scx_buf_reserve(&w->buf, SCX_BIN_REC_HDR);
		w->buf.len += SCX_BIN_REC_HDR;
		fn(&w->buf, arg);
		size_t n = w->buf.len - at - SCX_BIN_REC_HDR;
		if (n > SCX_BIN_MAX_RECORD) {
			w->buf.len = at;
			return -E2BIG;
		}
		scx_bin_rec_hdr(w->buf.data + at, kind, n);
	} else {
		fn(&w->buf, arg);
		scx_buf_add(&w->buf, "\n", 1);
	}
	return w->buf.len >= WRITE_FLUSH ? drain(w, 0) : 0;
}

static void hdr_json(struct scx_buf *b, const void *h)
{
	scx_header_to_json(b, h);
}

static void trl_json(struct scx_buf *b, const void *t)
{
	scx_trailer_to_json(b, t);
}

static void raw_json(struct scx_buf *b, const void *s)
{
	const struct {
		const char *p;
		size_t n;
	} *r = s;

	scx_buf_add(b, r->p, r->n);
}

int scx_writer__header(struct scx_writer *w, const struct scx_header *h)
{
	/* options are copied raw: a bad object would break every reader */
	if (h->options_json && h->options_json[0]) {
		struct scx_json_doc d = { 0 };
		int bad = scx_json_parse(&d, h->options_json, strlen(h->options_json)) ||
			  d.tok[0].type != JSMN_OBJECT;
		scx_json_free(&d);
		if (bad)
			return -EINVAL;
	}
	return put_json(w, SCX_REC_HEADER, hdr_json, h);
}

int scx_writer__trailer(struct scx_writer *w, const struct scx_trailer *t)
{
	return put_json(w, SCX_REC_TRAILER, trl_json, t);
}

int scx_writer__raw(struct scx_writer *w, const char *json, size_t n)
{
	struct {
		const char *p;
		size_t n;
	} r = { json, n };

	while (n && (json[n - 1] == '\n' || json[n - 1] == '\r'))
		r.n = --n;
	if (memchr(json, '\n', n))
		return -EINVAL;
	return put_json(w, SCX_REC_JSON, raw_json, &r);
}

int scx_writer__event(struct scx_writer *w, const struct scx_event *e)
{
	size_t n;

	if (w->err)
		return w->err;
	if (w->buf.cap - w->buf.len < w->ev_max)
		scx_buf_reserve(&w->buf, w->ev_max);
	if (w->fmt == SCX_FMT_BINARY)
		n = scx_bin_format_event(w->buf.data + w->buf.len, e);
	else
		n = scx_ndjson_format_event(w->buf.data + w->buf.len, e);
	if (!n)
		return -EINVAL;
	w->buf.len += n;
	return w->buf.len >= WRITE_FLUSH ? drain(w, 0) : 0;
}

int scx_writer__flush(struct scx_writer *w)
{
	return drain(w, 1);
}

int scx_writer__close(struct scx_writer *w)
{
	int err;

	if (!w)
		return 0;
	err = drain(w, 2);
	scx_zout_close(&w->z);
	if (w->own_fd && close(w->fd) && !err)
		err = -errno;
	scx_buf_free(&w->buf);
	free(w);
	return err;
}
