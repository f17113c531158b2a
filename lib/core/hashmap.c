// SPDX-License-Identifier: GPL-2.0
/* The hash map of core/hashmap.h. */
#include <stdlib.h>
#include <string.h>

#include "core/hashmap.h"
#include "core/util.h"

void scx_map_init(struct scx_map *m, size_t val_size)
{
	*m = (struct scx_map){ .val_size = val_size, .stride = 8 + (val_size + 7) / 8 * 8 };
}

static void *val_at(const struct scx_map *m, size_t i)
{
	return scx_map__key(m, i) + 1;
}

/* The slot of key, or the free slot where it would go. */
static size_t probe(const struct scx_map *m, uint64_t key)
{
	size_t mask = m->cap - 1, i;

	for (i = scx_map__home(m, key);; i = (i + 1) & mask) {
		uint64_t k = *scx_map__key(m, i);

		if (k == key || !k)
			return i;
	}
}

static void grow(struct scx_map *m)
{
	struct scx_map o = *m;

	m->cap = o.cap ? o.cap * 2 : 64;
	m->shift = 64 - (unsigned)__builtin_ctzll(m->cap);
	m->slots = scx_xcalloc(m->cap + 1, m->stride);
	for (size_t i = 0; i < o.cap; i++) {
		uint64_t k = *scx_map__key(&o, i);

		if (k)
			memcpy(scx_map__key(m, probe(m, k)), scx_map__key(&o, i), o.stride);
	}
	if (o.has_zero)
		memcpy(scx_map__key(m, m->cap), scx_map__key(&o, o.cap), o.stride);
	free(o.slots);
}

void *scx_map_put(struct scx_map *m, uint64_t key, bool *added)
{
	size_t i;

	if (added)
		*added = false;
	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	if (!key) {
		if (!m->has_zero) {
			m->has_zero = true;
			m->n++;
			memset(val_at(m, m->cap), 0, m->val_size);
			if (added)
				*added = true;
		}
		return val_at(m, m->cap);
	}
	i = probe(m, key);
	if (!*scx_map__key(m, i)) {
		*scx_map__key(m, i) = key;
		memset(val_at(m, i), 0, m->val_size);
		m->n++;
		if (added)
			*added = true;
	}
	return val_at(m, i);
}

/* Empty slot i, shifting back the entries after it that probed past it. */
static void del_slot(struct scx_map *m, size_t i)
{
	size_t mask = m->cap - 1, j = i;

	m->n--;
	if (i == m->cap) {
		m->has_zero = false;
		return;
	}
	for (;;) {
		uint64_t k;
		size_t home;

		j = (j + 1) & mask;
		k = *scx_map__key(m, j);
		if (!k)
			break;
		home = scx_map__home(m, k);
		/* an entry stays if its home is cyclically in (i, j] */
		if (i <= j ? (home > i && home <= j) : (home > i || home <= j))
			continue;
		memcpy(scx_map__key(m, i), scx_map__key(m, j), m->stride);
		i = j;
	}
	*scx_map__key(m, i) = 0;
}

bool scx_map_del(struct scx_map *m, uint64_t key)
{
	size_t i;

	if (!m->cap)
		return false;
	if (!key) {
		if (!m->has_zero)
			return false;
		del_slot(m, m->cap);
		return true;
	}
	i = probe(m, key);
	if (!*scx_map__key(m, i))
		return false;
	del_slot(m, i);
	return true;
}

void *scx_map_next(const struct scx_map *m, size_t *pos, uint64_t *key)
{
	for (size_t i = *pos; i < m->cap; i++) {
		uint64_t k = *scx_map__key(m, i);

		if (k) {
			*pos = i + 1;
			if (key)
				*key = k;
			return val_at(m, i);
		}
	}
	if (*pos > m->cap) /* past the end: stay there */
		return NULL;
	*pos = m->cap + 1;
	if (!m->has_zero)
		return NULL;
	if (key)
		*key = 0;
	return val_at(m, m->cap);
}

void scx_map_del_at(struct scx_map *m, size_t *pos)
{
	del_slot(m, *pos - 1);
	(*pos)--;
}

void scx_map_clear(struct scx_map *m)
{
	if (m->slots)
		memset(m->slots, 0, (m->cap + 1) * m->stride);
	m->n = 0;
	m->has_zero = false;
}

void scx_map_free(struct scx_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->cap = m->n = 0;
	m->has_zero = false;
}

size_t scx_map_bytes(const struct scx_map *m)
{
	return m->cap ? (m->cap + 1) * m->stride : 0;
}
