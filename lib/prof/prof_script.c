// SPDX-License-Identifier: GPL-2.0
/*
 * perf script lines (perf >= 6.3, PROF_SCRIPT_FIELDS) into samples, and
 * samples into perf.jsonl lines.  perf prints the fields in a fixed order
 * whatever -F says:
 *   COMM PID/TID TIME: ADDR [DATASYM (DATADSO)] CGROUP IP SYM (DSO) PHYS SIZE
 * comm and sym may hold spaces, sym and dso may hold parentheses, and the
 * data symbol appears only for events whose address correlates to a symbol
 * (page faults), so fields are found by shape, not by position.
 */
#include <ctype.h>
#include <errno.h>
#include <string.h>

#include "json/json.h"
#include "prof/prof.h"

static inline bool is_space(char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

struct tok {
	const char *p;
	size_t n;
};

/* next whitespace-separated token at or after *pos; false at the end */
static inline bool next_tok(const char *s, size_t len, size_t *pos, struct tok *t)
{
	size_t i = *pos;

	while (i < len && is_space(s[i]))
		i++;
	if (i == len)
		return false;
	t->p = s + i;
	while (i < len && !is_space(s[i]))
		i++;
	t->n = (size_t)(s + i - t->p);
	*pos = i;
	return true;
}

/* "123/456" with both parts u32 */
static bool parse_ids(struct tok t, uint32_t *a, uint32_t *b)
{
	uint64_t v[2] = { 0, 0 };
	size_t i = 0;

	for (int k = 0; k < 2; k++) {
		size_t start = i;

		while (i < t.n && t.p[i] >= '0' && t.p[i] <= '9') {
			v[k] = v[k] * 10 + (uint64_t)(t.p[i] - '0');
			if (v[k] > UINT32_MAX)
				return false;
			i++;
		}
		if (i == start)
			return false;
		if (k == 0) {
			if (i == t.n || t.p[i] != '/')
				return false;
			i++;
		}
	}
	if (i != t.n)
		return false;
	*a = (uint32_t)v[0];
	*b = (uint32_t)v[1];
	return true;
}

static bool is_cgroup(struct tok t)
{
	return t.n && (t.p[0] == '/' || (t.n == 7 && !memcmp(t.p, "unknown", 7)));
}

static bool is_hex(struct tok t)
{
	if (!t.n)
		return false;
	for (size_t i = 0; i < t.n; i++)
		if (!isxdigit((unsigned char)t.p[i]))
			return false;
	return true;
}

uint64_t prof_page_size(const char *s, size_t n)
{
	uint64_t v = 0, mult = 1;
	size_t i = 0;

	if (!n ||
	    (n == 3 && (s[0] == 'N' || s[0] == 'n') && s[1] == '/' && (s[2] == 'A' || s[2] == 'a')))
		return 0; /* perf did not know */
	switch (s[n - 1]) {
	case 'k':
	case 'K':
		mult = 1ULL << 10;
		n--;
		break;
	case 'm':
	case 'M':
		mult = 1ULL << 20;
		n--;
		break;
	case 'g':
	case 'G':
		mult = 1ULL << 30;
		n--;
		break;
	}
	if (!n)
		return PROF_PAGE_BAD;
	for (; i < n; i++) {
		if (s[i] < '0' || s[i] > '9' || v > (UINT64_MAX - 9) / 10)
			return PROF_PAGE_BAD;
		v = v * 10 + (uint64_t)(s[i] - '0');
	}
	/* a page is a power of two bytes */
	if (!v || v > UINT64_MAX / 2 / mult || (v & (v - 1)))
		return PROF_PAGE_BAD;
	return v * mult;
}

static struct scx_str trim(const char *p, size_t n)
{
	while (n && is_space(*p))
		p++, n--;
	while (n && is_space(p[n - 1]))
		n--;
	return (struct scx_str){ p, n };
}

/*
 * "sym (dso) phys size": dso is the last balanced parenthesised group.
 * False when the page size is there but no page size.
 */
static bool parse_tail(const char *p, size_t n, struct prof_sample *s)
{
	const char *close = NULL, *open = NULL;
	size_t pos, depth = 0;
	struct tok t;

	for (size_t i = n; i > 0; i--)
		if (p[i - 1] == ')') {
			close = p + i - 1;
			break;
		}
	if (!close) {
		/* no dso: nothing usable, the sample ends up "no phys_addr" */
		s->sym = (struct scx_str){ p, 0 };
		return true;
	}
	for (const char *q = close; q >= p; q--) {
		if (*q == ')')
			depth++;
		else if (*q == '(' && --depth == 0) {
			open = q;
			break;
		}
	}
	if (!open) {
		s->sym = trim(p, n);
		return true;
	}
	s->sym = trim(p, (size_t)(open - p));
	s->dso = (struct scx_str){ open + 1, (size_t)(close - open - 1) };
	pos = (size_t)(close + 1 - p);
	if (next_tok(p, n, &pos, &t)) {
		s->phys = (struct scx_str){ t.p, t.n };
		if (next_tok(p, n, &pos, &t))
			s->page_size = prof_page_size(t.p, t.n);
	}
	return s->page_size != PROF_PAGE_BAD;
}

int prof_script_parse(const char *line, size_t len, struct prof_sample *s, const char **why)
{
	struct tok t, prev = { 0 }, time, addr, r[3];
	size_t pos = 0, comm_end = 0, rest_pos;
	const char *comm_start = NULL;
	bool found = false;

	memset(s, 0, sizeof(*s));
	*why = NULL;
	while (len && is_space(line[len - 1]))
		len--;
	/*
	 * The PID/TID token is the first "N/N" followed by a "TIME:" token; a
	 * comm may itself contain "1/2".
	 */
	while (next_tok(line, len, &pos, &t)) {
		if (!comm_start)
			comm_start = t.p;
		if (parse_ids(t, &s->pid, &s->tid)) {
			size_t p2 = pos;

			if (next_tok(line, len, &p2, &time) && time.n > 1 &&
			    time.p[time.n - 1] == ':') {
				found = true;
				comm_end = prev.p ? (size_t)(prev.p + prev.n - line) : 0;
				pos = p2;
				break;
			}
		}
		prev = t;
	}
	if (!comm_start)
		return PROF_LINE_BLANK;
	if (!found) {
		*why = "no PID/TID and time fields";
		return PROF_LINE_BAD;
	}
	if (prev.p)
		s->comm = (struct scx_str){ comm_start, comm_end - (size_t)(comm_start - line) };
	else
		s->comm = (struct scx_str){ comm_start, 0 };
	s->time = (struct scx_str){ time.p, time.n - 1 };
	if (!next_tok(line, len, &pos, &addr)) {
		*why = "no addr field";
		return PROF_LINE_BAD;
	}
	s->addr = (struct scx_str){ addr.p, addr.n };

	/* the cgroup, possibly after the data address' "sym (dso)" */
	rest_pos = pos;
	if (!next_tok(line, len, &pos, &r[0])) {
		*why = "no cgroup field";
		return PROF_LINE_BAD;
	}
	if (!is_cgroup(r[0])) {
		struct tok a = r[0], b;
		size_t p2 = pos;
		bool ok = false;

		while (next_tok(line, len, &p2, &b)) {
			if (a.p[a.n - 1] == ')' && is_cgroup(b)) {
				ok = true;
				r[0] = b;
				pos = p2;
				break;
			}
			a = b;
		}
		if (!ok) {
			if (is_hex(r[0])) {
				*why = "no cgroup field";
				return PROF_LINE_NO_CGROUP;
			}
			*why = "no cgroup field";
			return PROF_LINE_BAD;
		}
	}
	(void)rest_pos;
	s->cgroup = (struct scx_str){ r[0].p, r[0].n };
	if (!next_tok(line, len, &pos, &r[1])) {
		*why = "no ip field";
		return PROF_LINE_BAD;
	}
	s->ip = (struct scx_str){ r[1].p, r[1].n };
	if (pos < len) {
		struct scx_str tail = trim(line + pos, len - pos);

		if (!parse_tail(tail.p, tail.n, s)) {
			*why = "bad data page size";
			return PROF_LINE_BAD;
		}
	} else {
		s->sym = (struct scx_str){ line + len, 0 };
	}
	return PROF_LINE_OK;
}

int prof_sample_filter(const struct prof_sample *s)
{
	if (!s->phys.n || scx_str_eq(s->phys, "0"))
		return PROF_SKIP_NO_PHYS;
	if (scx_str_eq(s->comm, "perf") || scx_str_eq(s->comm, "swapper"))
		return PROF_SKIP_COMM;
	return PROF_KEEP;
}

/* ---- JSON out --------------------------------------------------------------- */

size_t prof_utf8_prefix(const char *s, size_t n, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	n = n < max ? n : max;
	while (i < n) {
		size_t l = scx_utf8_seq(p + i, n - i);

		if (!l)
			break; /* invalid, or cut by max */
		i += l;
	}
	return i;
}

static inline void add_lit(struct scx_buf *b, const char *s, size_t n)
{
	memcpy(b->data + b->len, s, n);
	b->len += n;
}

static void add_u64(struct scx_buf *b, uint64_t v)
{
	char tmp[24];
	int i = sizeof(tmp);

	do {
		tmp[--i] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	scx_buf_add(b, tmp + i, sizeof(tmp) - (size_t)i);
}

#define LIT(b, s) \
	do { \
		scx_buf_reserve(b, sizeof(s)); \
		add_lit(b, s, sizeof(s) - 1); \
	} while (0)

void prof_jsonl_write(struct scx_buf *b, const struct prof_sample *s, const uint64_t *hint)
{
	LIT(b, "{\"comm\":");
	scx_json_escape(b, s->comm.p, s->comm.n);
	LIT(b, ",\"tid\":");
	add_u64(b, s->tid);
	LIT(b, ",\"pid\":");
	add_u64(b, s->pid);
	LIT(b, ",\"time\":");
	scx_json_escape(b, s->time.p, s->time.n);
	LIT(b, ",\"addr\":");
	scx_json_escape(b, s->addr.p, s->addr.n);
	LIT(b, ",\"cgroup\":");
	scx_json_escape(b, s->cgroup.p, s->cgroup.n);
	LIT(b, ",\"ip\":");
	scx_json_escape(b, s->ip.p, s->ip.n);
	LIT(b, ",\"sym\":");
	scx_json_escape(b, s->sym.p, s->sym.n);
	LIT(b, ",\"dso\":");
	scx_json_escape(b, s->dso.p, s->dso.n);
	LIT(b, ",\"phys_addr\":");
	scx_json_escape(b, s->phys.p, s->phys.n);
	LIT(b, ",\"data_page_size\":");
	add_u64(b, s->page_size);
	if (hint) {
		LIT(b, ",\"hint\":");
		add_u64(b, *hint);
	}
	LIT(b, "}\n");
}
