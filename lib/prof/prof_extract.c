// SPDX-License-Identifier: GPL-2.0
/*
 * extract: samples grouped by cgroup (allotment slices, the workload slice,
 * the rest), per-group comm counts, and the cell config built from them.
 * Only counts are kept, so memory grows with distinct (cgroup, comm) pairs,
 * not with samples.
 */
#include <errno.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "json/json.h"
#include "prof/prof.h"

enum { G_ALLOT, G_WL, G_REST };

/* An entry of the table: keyed by the hash of (tag, bytes), see core/hashmap.h */
struct ent {
	uint32_t off, len; /* key bytes in the arena */
	uint32_t tag;	   /* 0: cgroup -> group; g+1: comm in group g */
	uint64_t val;
};

struct group {
	uint32_t off, len; /* name in the arena */
	int kind;
	uint64_t n;
};

struct prof_extract {
	struct prof_extract_opts o;
	regex_t re;
	struct scx_buf arena;
	struct scx_map t;
	struct group *g;
	size_t ng, capg;
	uint64_t total;
	/* streaming */
	struct scx_buf carry, scratch;
	uint64_t lineno;
	char err[512];
};

static inline uint64_t hash_bytes(const char *p, size_t n, uint64_t seed)
{
	uint64_t h = seed ^ (n * 0x9e3779b97f4a7c15ULL);

	while (n >= 8) {
		uint64_t w;

		memcpy(&w, p, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
		p += 8;
		n -= 8;
	}
	if (n) {
		uint64_t w = 0;

		memcpy(&w, p, n);
		h = (h ^ w) * 0xc4ceb9fe1a85ec53ULL;
	}
	h ^= h >> 29;
	h *= 0xbf58476d1ce4e5b9ULL;
	return h ^ (h >> 32);
}

/* find or insert (tag, key); returns the entry, *fresh when inserted */
static struct ent *t_get(struct prof_extract *x, uint32_t tag, const char *p, size_t n, bool *fresh)
{
	uint64_t h;
	struct ent *e;

	for (h = hash_bytes(p, n, tag);; h++) {
		e = scx_map_get(&x->t, h);
		if (!e)
			break;
		if (e->tag == tag && e->len == n && !memcmp(x->arena.data + e->off, p, n)) {
			*fresh = false;
			return e;
		}
	}
	e = scx_map_put(&x->t, h, NULL);
	*e = (struct ent){ (uint32_t)x->arena.len, (uint32_t)n, tag, 0 };
	scx_buf_add(&x->arena, p, n);
	*fresh = true;
	return e;
}

static const char *astr(const struct prof_extract *x, uint32_t off)
{
	return x->arena.data + off;
}

struct prof_extract *prof_extract__new(const struct prof_extract_opts *o, char *err, size_t errsz)
{
	struct prof_extract *x = scx_xcalloc(1, sizeof(*x));
	int r;

	scx_map_init(&x->t, sizeof(struct ent));
	x->o = *o;
	if (!x->o.workload)
		x->o.workload = PROF_WORKLOAD_DEFAULT;
	if (!x->o.allotment_re)
		x->o.allotment_re = PROF_ALLOTMENT_RE;
	if (x->o.threshold <= 0 && x->o.threshold != 0)
		x->o.threshold = 0;
	r = regcomp(&x->re, x->o.allotment_re, REG_EXTENDED);
	if (r) {
		char msg[256];

		regerror(r, &x->re, msg, sizeof(msg));
		snprintf(err, errsz, "bad allotment regex '%s': %s", x->o.allotment_re, msg);
		free(x);
		errno = EINVAL;
		return NULL;
	}
	return x;
}

void prof_extract__free(struct prof_extract *x)
{
	if (!x)
		return;
	regfree(&x->re);
	scx_buf_free(&x->arena);
	scx_buf_free(&x->carry);
	scx_buf_free(&x->scratch);
	scx_map_free(&x->t);
	free(x->g);
	free(x);
}

static uint32_t group_id(struct prof_extract *x, int kind, const char *name, size_t n)
{
	bool fresh;
	struct ent *e;

	/* group names share the table under tag UINT32_MAX */
	e = t_get(x, UINT32_MAX, name, n, &fresh);
	if (fresh) {
		if (x->ng == x->capg) {
			x->capg = x->capg ? x->capg * 2 : 8;
			x->g = scx_xrealloc(x->g, x->capg * sizeof(*x->g));
		}
		x->g[x->ng] = (struct group){ e->off, e->len, kind, 0 };
		e->val = x->ng++;
	}
	return (uint32_t)e->val;
}

static uint32_t classify(struct prof_extract *x, struct scx_str cg)
{
	size_t wl = strlen(x->o.workload);
	regmatch_t m;
	char *s;
	uint32_t g;

	if (!memmem(cg.p, cg.n, x->o.workload, wl))
		return group_id(x, G_REST, "rest", 4);
	s = scx_xmalloc(cg.n + 1);
	memcpy(s, cg.p, cg.n);
	s[cg.n] = 0;
	if (!memchr(s, 0, cg.n) && !regexec(&x->re, s, 1, &m, 0) && m.rm_so >= 0)
		g = group_id(x, G_ALLOT, s + m.rm_so, (size_t)(m.rm_eo - m.rm_so));
	else
		g = group_id(x, G_WL, x->o.workload, wl);
	free(s);
	return g;
}

void prof_extract__add(struct prof_extract *x, struct scx_str cgroup, struct scx_str comm)
{
	bool fresh;
	struct ent *e = t_get(x, 0, cgroup.p, cgroup.n, &fresh);
	uint32_t g;

	if (fresh) {
		/* e may move while classify() inserts the group name: look it up again */
		g = classify(x, cgroup);
		e = t_get(x, 0, cgroup.p, cgroup.n, &fresh);
		e->val = g;
	}
	g = (uint32_t)e->val;
	x->g[g].n++;
	x->total++;
	e = t_get(x, g + 1, comm.p, comm.n, &fresh);
	e->val++;
}

static int one_line(struct prof_extract *x, const char *line, size_t len)
{
	struct prof_rec r;
	const char *why = "bad record";
	size_t off = 0;

	x->lineno++;
	if (prof_rec_parse(line, len, &r, &x->scratch, &off, &why)) {
		snprintf(x->err, sizeof(x->err), "line %llu, byte %zu: failed to parse record: %s",
			 (unsigned long long)x->lineno, off + 1, why);
		return -EINVAL;
	}
	prof_extract__add(x, r.cgroup, r.comm);
	return 0;
}

int prof_extract__feed(struct prof_extract *x, const char *data, size_t len)
{
	const char *end = data + len, *nl;
	int err;

	if (x->carry.len) {
		nl = memchr(data, '\n', len);
		if (!nl) {
			scx_buf_add(&x->carry, data, len);
			return 0;
		}
		scx_buf_add(&x->carry, data, (size_t)(nl - data));
		err = one_line(x, x->carry.data, x->carry.len);
		scx_buf_reset(&x->carry);
		if (err)
			return err;
		data = nl + 1;
	}
	while (data < end && (nl = memchr(data, '\n', (size_t)(end - data)))) {
		if ((err = one_line(x, data, (size_t)(nl - data))))
			return err;
		data = nl + 1;
	}
	if (data < end)
		scx_buf_add(&x->carry, data, (size_t)(end - data));
	return 0;
}

int prof_extract__finish(struct prof_extract *x)
{
	int err = 0;

	if (x->carry.len)
		err = one_line(x, x->carry.data, x->carry.len);
	scx_buf_reset(&x->carry);
	return err;
}

const char *prof_extract__error(const struct prof_extract *x)
{
	return x->err;
}

/* ---- ordering ------------------------------------------------------------- */

struct cnt {
	const char *s;
	size_t n;
	uint64_t c;
	uint32_t members; /* merged comms */
	const char *one;  /* the member when there is only one */
	size_t one_n;
};

static int bytecmp(const char *a, size_t an, const char *b, size_t bn)
{
	int r = memcmp(a, b, SCX_MIN(an, bn));

	return r ? r : (an > bn) - (an < bn);
}

static int by_count(const void *pa, const void *pb)
{
	const struct cnt *a = pa, *b = pb;

	if (a->c != b->c)
		return a->c > b->c ? -1 : 1;
	return bytecmp(a->s, a->n, b->s, b->n);
}

static int by_name(const void *pa, const void *pb)
{
	const struct cnt *a = pa, *b = pb;

	return bytecmp(a->s, a->n, b->s, b->n);
}

static const struct prof_extract *sort_x;

static int group_order(const void *pa, const void *pb)
{
	const struct group *a = &sort_x->g[*(const uint32_t *)pa];
	const struct group *b = &sort_x->g[*(const uint32_t *)pb];

	if (a->kind != b->kind)
		return a->kind - b->kind;
	return bytecmp(astr(sort_x, a->off), a->len, astr(sort_x, b->off), b->len);
}

/* group ids in output order: allotments by name, workload, rest */
static uint32_t *ordered_groups(const struct prof_extract *x)
{
	uint32_t *ids = scx_xmalloc((x->ng + 1) * sizeof(*ids));

	for (size_t i = 0; i < x->ng; i++)
		ids[i] = (uint32_t)i;
	sort_x = x;
	qsort(ids, x->ng, sizeof(*ids), group_order);
	return ids;
}

/* comm counts of groups whose kind is 'kind' (or group g when g >= 0), merged by comm */
static struct cnt *comm_counts(const struct prof_extract *x, long g, int kind, size_t *n)
{
	struct cnt *c = NULL;
	size_t nc = 0, cap = 0;

	const struct ent *e;
	size_t pos = 0;

	while ((e = scx_map_next(&x->t, &pos, NULL))) {
		if (!e->tag || e->tag == UINT32_MAX)
			continue;
		if (g >= 0 ? e->tag != (uint32_t)g + 1 : x->g[e->tag - 1].kind != kind)
			continue;
		if (nc == cap) {
			cap = cap ? cap * 2 : 16;
			c = scx_xrealloc(c, cap * sizeof(*c));
		}
		c[nc++] = (struct cnt){ astr(x, e->off), e->len, e->val, 1, NULL, 0 };
	}
	if (g < 0 && nc > 1) {
		/* the same comm in several allotments is one comm */
		size_t k = 0;

		qsort(c, nc, sizeof(*c), by_name);
		for (size_t i = 0; i < nc; i++) {
			if (k && !bytecmp(c[k - 1].s, c[k - 1].n, c[i].s, c[i].n))
				c[k - 1].c += c[i].c;
			else
				c[k++] = c[i];
		}
		nc = k;
	}
	*n = nc;
	return c;
}

void prof_extract__summary(struct prof_extract *x, int verbose, struct scx_buf *out)
{
	uint32_t *ids = ordered_groups(x);

	scx_buf_printf(out, "Total samples: %llu\n", (unsigned long long)x->total);
	for (size_t k = 0; k < x->ng; k++) {
		const struct group *gr = &x->g[ids[k]];
		size_t nc, below = 0;
		struct cnt *c;

		if (!gr->n)
			continue;
		scx_buf_addstr(out, "\n");
		scx_buf_add_printable(out, astr(x, gr->off), gr->len);
		scx_buf_printf(out, ": %llu samples (%.2f%%)\n", (unsigned long long)gr->n,
			       (double)gr->n / (double)x->total * 100.0);
		c = comm_counts(x, ids[k], 0, &nc);
		qsort(c, nc, sizeof(*c), by_count);
		for (size_t i = 0; i < nc; i++) {
			double pct = (double)c[i].c / (double)gr->n * 100.0;

			if (verbose >= 2 || pct > 1.0) {
				scx_buf_addstr(out, "  ");
				scx_buf_add_printable(out, c[i].s, c[i].n);
				scx_buf_printf(out, ": %llu (%.2f%%)\n", (unsigned long long)c[i].c,
					       pct);
			} else {
				below++;
			}
		}
		if (below)
			scx_buf_printf(out, "  ... %zu more below 1%%\n", below);
		free(c);
	}
	free(ids);
}

/* ---- config ----------------------------------------------------------------- */

size_t prof_comm_stem(const char *comm, size_t n)
{
	size_t k = n;

	while (k && comm[k - 1] >= '0' && comm[k - 1] <= '9')
		k--;
	return k ? k : n;
}

static void jstr(struct scx_buf *b, const char *s, size_t n)
{
	scx_json_escape(b, s, n);
}

static void jcstr(struct scx_buf *b, const char *s)
{
	scx_json_escape(b, s, strlen(s));
}

static bool significant(const struct prof_extract *x, uint64_t c, uint64_t total)
{
	/* strictly above the threshold: exactly 5% is not significant */
	return (double)c * 100.0 > x->o.threshold * (double)total;
}

/*
 * A subcell matching comms that start with prefix; false (nothing written,
 * a warning instead) when no byte of it can be written as it is.
 */
static bool subcell(struct scx_buf *b, struct scx_buf *warn, const char *name, size_t nn,
		    const char *prefix, size_t pn)
{
	/*
	 * mitosis compares at most 15 bytes of comm, as bytes: keep whole UTF-8
	 * characters only, since anything else would reach it as U+FFFD and
	 * neither fit nor match.
	 */
	size_t keep = prof_utf8_prefix(prefix, pn, PROF_MITOSIS_PREFIX_MAX);

	if (!keep) {
		/* an empty CommPrefix would match every task */
		scx_buf_addstr(warn, "comm ");
		jstr(warn, prefix, pn);
		scx_buf_addstr(warn, " does not start with valid UTF-8: no subcell for it, its "
				     "tasks stay in rest\n");
		return false;
	}
	if (keep < PROF_MITOSIS_PREFIX_MAX && prof_utf8_prefix(prefix, pn, pn) < pn) {
		/* cut by a bad byte, not by the 15-byte limit */
		scx_buf_addstr(warn, "comm ");
		jstr(warn, prefix, pn);
		scx_buf_printf(warn,
			       " is not valid UTF-8 after byte %zu: its subcell matches the "
			       "first %zu bytes\n",
			       keep, keep);
	}
	scx_buf_addstr(b, "{\"name\":");
	jstr(b, name, nn);
	scx_buf_addstr(b, ",\"matches\":[[{\"CommPrefix\":");
	jstr(b, prefix, keep);
	scx_buf_addstr(b, "}]]},");
	return true;
}

/* the allotment subcells; returns the number written (without rest) */
static size_t allot_subcells(struct prof_extract *x, struct scx_buf *b, struct scx_buf *warn,
			     uint64_t total)
{
	size_t nc, ns = 0, max = PROF_MITOSIS_MAX_SUBCELLS - 1;
	struct cnt *c = comm_counts(x, -1, G_ALLOT, &nc), *sig;

	if (x->o.format == PROF_FMT_PR) {
		/* the original: one subcell per comm above the threshold, no limit */
		qsort(c, nc, sizeof(*c), by_name);
		for (size_t i = 0; i < nc; i++)
			if (significant(x, c[i].c, total))
				ns += subcell(b, warn, c[i].s, c[i].n, c[i].s, c[i].n);
		free(c);
		return ns;
	}
	/* fold comms differing only in trailing digits (appworker0..3 -> appworker) */
	sig = scx_xcalloc(nc + 1, sizeof(*sig));
	qsort(c, nc, sizeof(*c), by_name);
	for (size_t i = 0; i < nc; i++) {
		size_t stem = prof_comm_stem(c[i].s, c[i].n);
		size_t j;

		/* ":PID" is perf's name for a task it never saw a comm for */
		if (c[i].n && c[i].s[0] == ':')
			continue;
		for (j = 0; j < ns; j++)
			if (!bytecmp(sig[j].s, sig[j].n, c[i].s, stem))
				break;
		if (j == ns)
			sig[ns++] = (struct cnt){ c[i].s, stem, 0, 0, c[i].s, c[i].n };
		sig[j].c += c[i].c;
		sig[j].members++;
	}
	nc = 0;
	for (size_t j = 0; j < ns; j++)
		if (significant(x, sig[j].c, total))
			sig[nc++] = sig[j];
	ns = nc;
	if (ns > max) {
		qsort(sig, ns, sizeof(*sig), by_count);
		scx_buf_printf(warn,
			       "%zu comm groups are above %g%% of the allotment samples but "
			       "scx_mitosis allows %d subcells: folding into rest:",
			       ns, x->o.threshold, PROF_MITOSIS_MAX_SUBCELLS);
		for (size_t j = max; j < ns; j++)
			scx_buf_printf(warn, " %.*s", (int)sig[j].n, sig[j].s);
		ns = max;
	}
	qsort(sig, ns, sizeof(*sig), by_name);
	nc = 0;
	for (size_t j = 0; j < ns; j++) {
		if (sig[j].members > 1)
			nc += subcell(b, warn, sig[j].s, sig[j].n, sig[j].s, sig[j].n);
		else
			nc += subcell(b, warn, sig[j].s, sig[j].n, sig[j].one, sig[j].one_n);
	}
	free(sig);
	free(c);
	return nc;
}

int prof_extract__config(struct prof_extract *x, struct scx_buf *out, struct scx_buf *warn)
{
	struct scx_buf b = { 0 };
	uint64_t na = 0, nw = 0, nr = 0;
	bool pr = x->o.format == PROF_FMT_PR;
	int err;

	for (size_t i = 0; i < x->ng; i++) {
		if (x->g[i].kind == G_ALLOT)
			na += x->g[i].n;
		else if (x->g[i].kind == G_WL)
			nw += x->g[i].n;
		else
			nr += x->g[i].n;
	}
	scx_buf_addstr(&b, "[");
	if (na) {
		size_t at;

		scx_buf_addstr(&b, pr ? "{\"name\":\"allotment\",\"match\":{\"CgroupRegex\":" :
					"{\"name\":\"allotment\",\"matches\":{\"CgroupRegex\":");
		jcstr(&b, x->o.allotment_re);
		scx_buf_addstr(&b, "},\"subcells\":[");
		at = b.len;
		if (allot_subcells(x, &b, warn, na)) {
			scx_buf_addstr(&b, "{\"name\":\"rest\",\"matches\":[[]]}]},");
		} else {
			/* no significant comm: no subcells key at all */
			b.len = at - strlen(",\"subcells\":[");
			scx_buf_addstr(&b, "},");
		}
	}
	if (nw) {
		scx_buf_addstr(&b, "{\"name\":");
		jcstr(&b, x->o.workload);
		scx_buf_addstr(&b, pr ? ",\"matches\":[[{\"CgroupContains\":" :
					",\"matches\":{\"CgroupContains\":");
		jcstr(&b, x->o.workload);
		scx_buf_addstr(&b, pr ? "}]]}," : "}},");
	}
	/* mitosis needs the final catch-all; the original emitted it only with samples */
	if (nr || (!pr && x->total))
		scx_buf_addstr(&b, pr ? "{\"name\":\"rest\",\"matches\":[[]]}," :
					"{\"name\":\"rest\",\"matches\":{}},");
	if (b.data[b.len - 1] == ',')
		b.len--;
	scx_buf_addstr(&b, "]");
	err = prof_json_pretty(b.data, b.len, out);
	if (!err)
		scx_buf_addstr(out, "\n");
	scx_buf_free(&b);
	return err;
}
