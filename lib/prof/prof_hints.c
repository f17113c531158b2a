// SPDX-License-Identifier: GPL-2.0
/* hints.jsonl: writing recorder output, and joining hints to samples. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prof/prof.h"

void prof_hint_write(struct scx_buf *b, const struct prof_hint_rec *r)
{
	scx_buf_printf(b, "{\"pid\":%d,\"tgid\":%d,\"hints\":%llu,\"timestamp\":%llu}\n", r->pid,
		       r->tgid, (unsigned long long)r->hints, (unsigned long long)r->ts);
}

void prof_hints_dropped_msg(struct scx_buf *b, uint64_t dropped)
{
	scx_buf_printf(b,
		       "warning: %llu hint update%s dropped because the ring buffer was full; "
		       "hints.jsonl is incomplete (try a larger --hints-ring-mb)",
		       (unsigned long long)dropped, dropped == 1 ? " was" : "s were");
}

struct hent {
	uint32_t tid;
	uint64_t ts, hint;
	size_t seq; /* file order breaks timestamp ties: the later write wins */
};

struct prof_hints {
	struct hent *e;
	size_t n, cap;
	bool sorted;
};

struct prof_hints *prof_hints__new(void)
{
	return scx_xcalloc(1, sizeof(struct prof_hints));
}

void prof_hints__add(struct prof_hints *h, const struct prof_hint_rec *r)
{
	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 256;
		h->e = scx_xrealloc(h->e, h->cap * sizeof(*h->e));
	}
	h->e[h->n] = (struct hent){ (uint32_t)r->pid, r->ts, r->hints, h->n };
	h->n++;
	h->sorted = false;
}

static int hcmp(const void *a, const void *b)
{
	const struct hent *x = a, *y = b;

	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

bool prof_hints__lookup(struct prof_hints *h, uint32_t tid, uint64_t ts, uint64_t *hint)
{
	size_t lo = 0, hi;

	if (!h->sorted) {
		qsort(h->e, h->n, sizeof(*h->e), hcmp);
		h->sorted = true;
	}
	/* first entry after (tid, ts) */
	hi = h->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct hent *m = &h->e[mid];

		if (m->tid < tid || (m->tid == tid && m->ts <= ts))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || h->e[lo - 1].tid != tid)
		return false;
	*hint = h->e[lo - 1].hint;
	return true;
}

void prof_hints__free(struct prof_hints *h)
{
	if (!h)
		return;
	free(h->e);
	free(h);
}

int prof_hints__load(struct prof_hints *h, const char *path, char *err, size_t errsz)
{
	struct scx_buf b = { 0 };
	char chunk[65536];
	size_t lineno = 0, start = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0) {
		ret = -errno;
		snprintf(err, errsz, "cannot open '%s': %s", path, strerror(errno));
		return ret;
	}
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ret = -errno;
			snprintf(err, errsz, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		scx_buf_add(&b, chunk, (size_t)n);
	}
	while (start < b.len) {
		char *nl = memchr(b.data + start, '\n', b.len - start);
		size_t end = nl ? (size_t)(nl - b.data) : b.len;
		struct prof_hint_rec r;
		const char *why;

		lineno++;
		if (end > start) {
			if (prof_hint_parse(b.data + start, end - start, &r, &why)) {
				snprintf(err, errsz, "%s:%zu: %s", path, lineno, why);
				ret = -EINVAL;
				goto out;
			}
			prof_hints__add(h, &r);
		}
		start = end + 1;
	}
out:
	close(fd);
	scx_buf_free(&b);
	return ret;
}

bool prof_time_ns(struct scx_str t, uint64_t *ns)
{
	uint64_t sec = 0, frac = 0;
	size_t i = 0, digits = 0;

	if (!t.n)
		return false;
	for (; i < t.n && t.p[i] != '.'; i++) {
		if (t.p[i] < '0' || t.p[i] > '9' || sec > UINT64_MAX / 10 / 1000000000ULL)
			return false;
		sec = sec * 10 + (uint64_t)(t.p[i] - '0');
	}
	if (i < t.n) {
		for (i++; i < t.n; i++) {
			if (t.p[i] < '0' || t.p[i] > '9')
				return false;
			if (digits < 9) {
				frac = frac * 10 + (uint64_t)(t.p[i] - '0');
				digits++;
			}
		}
	}
	for (; digits < 9; digits++)
		frac *= 10;
	*ns = sec * 1000000000ULL + frac;
	return true;
}
