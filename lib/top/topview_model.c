// SPDX-License-Identifier: GPL-2.0
/* scx-top's model: the tables of rows one window fills, and the history carried between windows. */
#include <stdlib.h>
#include <string.h>

#include "top/topview.h"

/* ---- tables ---------------------------------------------------------------- */

struct top_row *top_table_find(const struct top_table *t, int64_t id)
{
	/* Tables are small and filled in id order by both feeders: try the slot
	 * the id would have if dense, then search. */
	if (id >= 0 && (uint64_t)id < t->n && t->rows[id].id == id)
		return &t->rows[id];
	for (unsigned i = 0; i < t->n; i++)
		if (t->rows[i].id == id)
			return &t->rows[i];
	return NULL;
}

struct top_row *top_table_get(struct top_table *t, int64_t id, int64_t parent)
{
	struct top_row *r = top_table_find(t, id);

	return r ? r : top_table_add(t, id, parent);
}

struct top_row *top_table_add(struct top_table *t, int64_t id, int64_t parent)
{
	struct top_row *r;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->rows = scx_xrealloc(t->rows, t->cap * sizeof(*t->rows));
	}
	r = &t->rows[t->n++];
	memset(r, 0, sizeof(*r));
	r->id = id;
	r->parent = parent;
	r->aux = -1;
	return r;
}

void top_table_clear(struct top_table *t)
{
	t->n = 0;
}

void top_model_reset(struct top_model *m)
{
	struct top_table t[TT__COUNT];

	memcpy(t, m->t, sizeof(t));
	memset(m, 0, sizeof(*m));
	memcpy(m->t, t, sizeof(t));
	for (int i = 0; i < TT__COUNT; i++)
		top_table_clear(&m->t[i]);
}

void top_model_free(struct top_model *m)
{
	for (int i = 0; i < TT__COUNT; i++)
		free(m->t[i].rows);
	memset(m, 0, sizeof(*m));
}

void top_model_copy(struct top_model *dst, const struct top_model *src)
{
	struct top_table t[TT__COUNT];

	memcpy(t, dst->t, sizeof(t));
	*dst = *src;
	for (int i = 0; i < TT__COUNT; i++) {
		struct top_table *d = &dst->t[i];

		*d = t[i];
		if (d->cap < src->t[i].n) {
			d->cap = src->t[i].n;
			d->rows = scx_xrealloc(d->rows, d->cap * sizeof(*d->rows));
		}
		d->n = src->t[i].n;
		if (d->n)
			memcpy(d->rows, src->t[i].rows, d->n * sizeof(*d->rows));
	}
}

void top_model_swap(struct top_model *a, struct top_model *b)
{
	struct top_model t = *a;

	*a = *b;
	*b = t;
}

static int cmp_id(const void *a, const void *b)
{
	int64_t x = (*(const struct top_row *const *)a)->id;
	int64_t y = (*(const struct top_row *const *)b)->id;

	return x < y ? -1 : x > y;
}

static bool ids_ascending(const struct top_table *t)
{
	for (unsigned j = 1; j < t->n; j++)
		if (t->rows[j - 1].id >= t->rows[j].id)
			return false;
	return true;
}

/* Append r's utilisation to the history of p, the same row a frame ago (or NULL). */
static void carry_row(struct top_row *r, const struct top_row *p)
{
	unsigned n = 0;

	if (p) {
		n = SCX_MIN(p->nr_hist, TOP_HIST - 1);
		memcpy(r->hist, p->hist + (p->nr_hist - n), n * sizeof(float));
	}
	r->hist[n++] = r->has[TC_UTIL] ? (float)r->v[TC_UTIL] : 0;
	r->nr_hist = n;
}

void top_model_carry_hist(struct top_model *m, const struct top_model *prev)
{
	const struct top_row **idx = NULL;
	unsigned cap = 0;

	for (int i = 0; i < TT__COUNT; i++) {
		const struct top_table *pt = prev ? &prev->t[i] : NULL;
		unsigned np = pt ? pt->n : 0;

		/*
		 * Aggregated tables come sorted by id (lib/agg sorts its groups):
		 * then one walk pairs the rows.  Otherwise (snapshots may come in
		 * any order) thousands of threads are looked up in a sorted index.
		 */
		if (!np || (ids_ascending(pt) && ids_ascending(&m->t[i]))) {
			unsigned k = 0;

			for (unsigned j = 0; j < m->t[i].n; j++) {
				struct top_row *r = &m->t[i].rows[j];

				while (k < np && pt->rows[k].id < r->id)
					k++;
				carry_row(r,
					  k < np && pt->rows[k].id == r->id ? &pt->rows[k] : NULL);
			}
			continue;
		}
		if (np > cap) {
			cap = np;
			idx = scx_xrealloc(idx, cap * sizeof(*idx));
		}
		for (unsigned j = 0; j < np; j++)
			idx[j] = &pt->rows[j];
		qsort(idx, np, sizeof(*idx), cmp_id);
		for (unsigned j = 0; j < m->t[i].n; j++) {
			struct top_row *r = &m->t[i].rows[j], key = { .id = r->id };
			const struct top_row *kp = &key, **hit;

			hit = bsearch(&kp, idx, np, sizeof(*idx), cmp_id);
			carry_row(r, hit ? *hit : NULL);
		}
	}
	free(idx);
}
