/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one hash map of the tree: 64-bit keys to values of a fixed size,
 * open addressing with linear probing in one array, the key beside its
 * value so that a lookup touches one cache line.  The table doubles when
 * half full and deletion shifts the probe cluster back (no tombstones), so a
 * lookup never walks past an empty slot however many deletions there were.
 *
 * Key 0 marks a free slot, so the entry of key 0, when there is one, lives in
 * an extra slot past the table.  Values start zeroed and are 8-byte aligned.
 *
 * A pointer into the map is valid until the next insertion or deletion (both
 * may move entries).
 *
 * Keys that are not numbers (strings, stacks) are looked up by their 64-bit
 * hash h; when the entry there holds another object, the next key h + 1 is
 * tried, and so on: the first key that is free is where a new object goes.
 */
#ifndef SCX_HASHMAP_H
#define SCX_HASHMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct scx_map {
	unsigned char *slots; /* cap + 1 slots of stride bytes: the key, then the value */
	size_t cap;	      /* a power of two; 0 before the first insertion */
	size_t n;	      /* entries */
	size_t val_size, stride;
	unsigned shift; /* 64 - log2(cap): the home slot is the top bits of the hash */
	bool has_zero;	/* key 0 is in slot cap */
};

/* An empty map of values of val_size bytes; it allocates at the first insertion. */
void scx_map_init(struct scx_map *m, size_t val_size);
#define SCX_MAP_INIT(type) { .val_size = sizeof(type), .stride = 8 + (sizeof(type) + 7) / 8 * 8 }
/* The value of key, inserted zeroed if absent (*added says which; may be NULL). */
void *scx_map_put(struct scx_map *m, uint64_t key, bool *added);
/* Remove key; false if it was absent. */
bool scx_map_del(struct scx_map *m, uint64_t key);
/* Remove every entry, keep the memory. */
void scx_map_clear(struct scx_map *m);
void scx_map_free(struct scx_map *m);
/* Bytes held by the table. */
size_t scx_map_bytes(const struct scx_map *m);

/*
 * Iteration in slot order: start with *pos = 0; each call returns the next
 * value (its key in *key when key is not NULL), NULL after the last, and
 * then *pos is cap + 1 and stays there.
 * scx_map_del_at() removes the entry just returned, and the entry shifted
 * into its slot is returned by the next call (an entry that a deletion
 * shifts from the start of the table to its end is returned twice).
 */
void *scx_map_next(const struct scx_map *m, size_t *pos, uint64_t *key);
void scx_map_del_at(struct scx_map *m, size_t *pos);

/*
 * The home slot of key: the top bits of key times 2^64 / phi (Fibonacci
 * hashing), which every key bit reaches; one multiplication, as the map is on
 * the per-event path of scx-agg.
 */
static inline size_t scx_map__home(const struct scx_map *m, uint64_t key)
{
	return (size_t)((key * 0x9e3779b97f4a7c15ULL) >> m->shift);
}

static inline uint64_t *scx_map__key(const struct scx_map *m, size_t i)
{
	return (uint64_t *)(void *)(m->slots + i * m->stride);
}

/* The value of key, NULL if absent.  Inline: it is on the per-event path of scx-agg. */
static inline void *scx_map_get(const struct scx_map *m, uint64_t key)
{
	size_t mask = m->cap - 1;

	if (!m->cap)
		return NULL;
	if (!key)
		return m->has_zero ? scx_map__key(m, m->cap) + 1 : NULL;
	for (size_t i = scx_map__home(m, key);; i = (i + 1) & mask) {
		uint64_t *k = scx_map__key(m, i);

		if (*k == key)
			return k + 1;
		if (!*k)
			return NULL;
	}
}

#endif
