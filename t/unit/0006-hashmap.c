// SPDX-License-Identifier: GPL-2.0
/*
 * The hash map against a model that keeps every (key, value) in a plain
 * array.  Random runs of insertions, lookups, deletions (by key and during
 * iteration) and clears over key sets that collide a lot (small keys, key 0,
 * keys that differ only in high bits), through many growths; after every
 * step of a run the map must hold exactly the model's entries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "core/util.h"
#include "tap.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

struct val {
	uint64_t a;
	uint32_t b; /* 12-byte values: the stride rounds up */
};

struct model {
	uint64_t *k;
	struct val *v;
	size_t n, cap;
};

static long model_find(const struct model *m, uint64_t k)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->k[i] == k)
			return (long)i;
	return -1;
}

static void model_del(struct model *m, size_t i)
{
	m->k[i] = m->k[m->n - 1];
	m->v[i] = m->v[m->n - 1];
	m->n--;
}

static uint64_t pick_key(unsigned kind)
{
	uint64_t r = scx_xorshift64(&rng);

	switch (kind) {
	case 0:
		return r % 64; /* dense, key 0 included */
	case 1:
		return (r % 512) << 40; /* only high bits differ */
	default:
		return r % 4 ? r % 3000 : r; /* mostly repeats, some wide */
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every model entry is in the map with its value, and iteration yields each key once. */
static int same(const struct scx_map *s, const struct model *m)
{
	uint64_t *want = scx_xmalloc((m->n + 1) * sizeof(*want)), *got, k;
	size_t pos = 0, seen = 0;
	struct val *v;
	int ok = s->n == m->n;

	for (size_t i = 0; i < m->n && ok; i++) {
		v = scx_map_get(s, m->k[i]);
		ok = v && !memcmp(v, &m->v[i], sizeof(*v));
		want[i] = m->k[i];
	}
	got = scx_xmalloc((s->n + 1) * sizeof(*got));
	while (ok && (v = scx_map_next(s, &pos, &k))) {
		ok = seen < s->n && v == scx_map_get(s, k);
		if (ok)
			got[seen++] = k;
	}
	if (ok) {
		qsort(want, m->n, sizeof(*want), cmp_u64);
		qsort(got, seen, sizeof(*got), cmp_u64);
		ok = seen == m->n && !memcmp(want, got, seen * sizeof(*got));
	}
	free(want);
	free(got);
	return ok;
}

static unsigned run(unsigned kind, unsigned ops, size_t *peak)
{
	struct scx_map s;
	struct model m = { 0 };
	unsigned bad = 0;

	scx_map_init(&s, sizeof(struct val));
	for (unsigned op = 0; op < ops; op++) {
		unsigned what = scx_xorshift64(&rng) % 100;
		uint64_t k = pick_key(kind);
		long i = model_find(&m, k);

		if (what < 55) { /* insert or update */
			bool added;
			struct val *v = scx_map_put(&s, k, &added);

			if (added != (i < 0) || (added && (v->a || v->b)))
				bad++;
			if (i < 0) {
				if (m.n == m.cap) {
					m.cap = m.cap ? m.cap * 2 : 64;
					m.k = scx_xrealloc(m.k, m.cap * sizeof(*m.k));
					m.v = scx_xrealloc(m.v, m.cap * sizeof(*m.v));
				}
				i = (long)m.n++;
				m.k[i] = k;
			}
			v->a = scx_xorshift64(&rng);
			v->b = (uint32_t)op;
			m.v[i] = *v;
		} else if (what < 75) { /* lookup */
			struct val *v = scx_map_get(&s, k);

			if ((v != NULL) != (i >= 0) || (v && memcmp(v, &m.v[i], sizeof(*v))))
				bad++;
		} else if (what < 93) { /* delete */
			if (scx_map_del(&s, k) != (i >= 0))
				bad++;
			if (i >= 0)
				model_del(&m, (size_t)i);
		} else if (what < 99) { /* delete a third of the entries while iterating */
			size_t pos = 0;
			uint64_t key;

			while (scx_map_next(&s, &pos, &key)) {
				long j = model_find(&m, key);

				if (j < 0) { /* deleted, yet returned */
					bad++;
					break;
				}
				if (key % 3 == 0) {
					scx_map_del_at(&s, &pos);
					model_del(&m, (size_t)j);
				}
			}
		} else {
			scx_map_clear(&s);
			m.n = 0;
		}
		if ((op % 16 == 0 || what >= 93) && !same(&s, &m))
			bad++;
		*peak = SCX_MAX(*peak, m.n);
	}
	scx_map_free(&s);
	free(m.k);
	free(m.v);
	return bad;
}

int main(void)
{
	static const char *const kinds[] = { "dense keys with 0", "high-bit keys", "wide keys" };
	struct scx_map s;
	unsigned bad = 0;
	bool added;

	scx_map_init(&s, sizeof(uint64_t));
	ok(!scx_map_get(&s, 0) && !scx_map_get(&s, 7) && !scx_map_del(&s, 7),
	   "an empty map holds nothing and allocates nothing (%zu bytes)", scx_map_bytes(&s));
	for (uint64_t k = 0; k < 100000; k++)
		*(uint64_t *)scx_map_put(&s, k * 2654435761u, &added) = k;
	for (uint64_t k = 0; k < 100000; k++) {
		uint64_t *v = scx_map_get(&s, k * 2654435761u);

		bad += !v || *v != k;
	}
	ok(!bad && s.n == 100000 && s.cap >= 200000,
	   "100000 keys through %zu growths: each value found, the table at most half full",
	   (size_t)__builtin_ctzll(s.cap / 64));
	for (uint64_t k = 0; k < 100000; k += 2)
		bad += !scx_map_del(&s, k * 2654435761u);
	for (uint64_t k = 0; k < 100000; k++)
		bad += (scx_map_get(&s, k * 2654435761u) != NULL) != (k % 2 == 1);
	ok(!bad && s.n == 50000, "deleting every other key leaves the others reachable");
	scx_map_free(&s);

	for (unsigned kind = 0; kind < 3; kind++) {
		size_t peak = 0;

		bad = run(kind, 30000, &peak);
		is_int(bad, 0,
		       "%s: 30000 random operations agree with the model (%zu entries at most)",
		       kinds[kind], peak);
	}
	return done_testing();
}
