// SPDX-License-Identifier: GPL-2.0
/* process: a perf.script stream into a perf.jsonl stream, line by line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/prof.h"

static void verbose_line(struct prof_process *p, const char *what, const char *why,
			 const char *line, size_t len)
{
	if (!p->verbose)
		return;
	while (len && (line[len - 1] == '\r'))
		len--;
	struct scx_buf b = { 0 };

	scx_buf_add_printable(&b, line, len); /* the input's comms, to a terminal */
	if (why)
		fprintf(p->verbose, "%s (%s): %s\n", what, why, b.data);
	else
		fprintf(p->verbose, "%s: %s\n", what, b.data);
	scx_buf_free(&b);
}

static int one_line(struct prof_process *p, const char *line, size_t len, struct scx_buf *out)
{
	struct prof_sample s;
	const char *why;
	uint64_t hint, ns;
	int r;

	p->lineno++;
	r = prof_script_parse(line, len, &s, &why);
	switch (r) {
	case PROF_LINE_BLANK:
		return 0;
	case PROF_LINE_BAD:
		p->bad++;
		verbose_line(p, "unparseable", why, line, len);
		return 0;
	case PROF_LINE_NO_CGROUP:
		snprintf(p->err, sizeof(p->err),
			 "line %llu has no cgroup field: this perf.script was written by a perf "
			 "older than 6.3 or without the field list " PROF_SCRIPT_FIELDS
			 "; regenerate it with perf >= 6.3 ('perf script -F " PROF_SCRIPT_FIELDS
			 "')",
			 (unsigned long long)p->lineno);
		return -EPROTO;
	}
	switch (prof_sample_filter(&s)) {
	case PROF_SKIP_NO_PHYS:
		p->skipped++;
		verbose_line(p, "skipped (no phys_addr)", NULL, line, len);
		return 0;
	case PROF_SKIP_COMM:
		p->skipped++;
		verbose_line(p, "skipped (filtered comm)", NULL, line, len);
		return 0;
	}
	p->parsed++;
	if (p->hints && prof_time_ns(s.time, &ns) && prof_hints__lookup(p->hints, s.tid, ns, &hint))
		prof_jsonl_write(out, &s, &hint);
	else
		prof_jsonl_write(out, &s, NULL);
	return 0;
}

int prof_process__feed(struct prof_process *p, const char *data, size_t len, struct scx_buf *out)
{
	const char *end = data + len, *nl;
	int err;

	if (p->carry.len) {
		nl = memchr(data, '\n', len);
		if (!nl) {
			scx_buf_add(&p->carry, data, len);
			return 0;
		}
		scx_buf_add(&p->carry, data, (size_t)(nl - data));
		err = one_line(p, p->carry.data, p->carry.len, out);
		scx_buf_reset(&p->carry);
		if (err)
			return err;
		data = nl + 1;
	}
	while (data < end && (nl = memchr(data, '\n', (size_t)(end - data)))) {
		if ((err = one_line(p, data, (size_t)(nl - data), out)))
			return err;
		data = nl + 1;
	}
	if (data < end)
		scx_buf_add(&p->carry, data, (size_t)(end - data));
	return 0;
}

int prof_process__finish(struct prof_process *p, struct scx_buf *out)
{
	int err = 0;

	if (p->carry.len)
		err = one_line(p, p->carry.data, p->carry.len, out);
	scx_buf_reset(&p->carry);
	return err;
}

int prof_process__fd(struct prof_process *p, int in, int out)
{
	static const size_t chunk = 1 << 20;
	struct scx_buf o = { 0 };
	char *buf = scx_xmalloc(chunk);
	ssize_t n;
	int err = 0;

	for (;;) {
		if (p->stop && *p->stop) {
			err = -EINTR;
			snprintf(p->err, sizeof(p->err), "interrupted");
			break;
		}
		n = read(in, buf, chunk);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			err = -errno;
			snprintf(p->err, sizeof(p->err), "read error: %s", strerror(errno));
			break;
		}
		if (n == 0) {
			err = prof_process__finish(p, &o);
		} else {
			err = prof_process__feed(p, buf, (size_t)n, &o);
		}
		if (!err && o.len && (err = scx_write_all(out, o.data, o.len)))
			snprintf(p->err, sizeof(p->err), "write error: %s", strerror(-err));
		scx_buf_reset(&o);
		if (err || n == 0)
			break;
	}
	free(buf);
	scx_buf_free(&o);
	return err;
}

void prof_process__free(struct prof_process *p)
{
	scx_buf_free(&p->carry);
}

void prof_process__summary(const struct prof_process *p, struct scx_buf *b)
{
	scx_buf_printf(b, "Parsed %llu of %llu records (%llu skipped, %llu unparseable)\n",
		       (unsigned long long)p->parsed,
		       (unsigned long long)(p->parsed + p->skipped + p->bad),
		       (unsigned long long)p->skipped, (unsigned long long)p->bad);
}
