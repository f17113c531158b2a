// SPDX-License-Identifier: GPL-2.0
/*
 * Cgroup names for the engine: the ids of the events, named by the stream's
 * cgroup records, folded to the depth asked for (--cgroup-depth) and
 * interned, so a cgroup group is keyed by a small number and its name is
 * kept once.  Bounded: SCX_AGG_CGROUP_IDS ids, CG_NAMES_MAX folded names.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agg/agg_int.h"
#include "core/util.h"
#include "stream/stream.h"

const char *const scx_agg_cgsort_names[SCX_AGG_CGSORT__COUNT] = {
	"busy", "rq-delay", "rq-p99", "wakeups", "switches",
};

struct cg_id {
	char *path;   /* NULL: never named */
	uint32_t key; /* folded key + 1, 0 before the first use */
};

static uint64_t hash_str(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
}

/* The key of a folded name, interned on first use; "(other)" past the cap. */
static uint32_t intern(struct agg_cgroups *c, const char *name)
{
	uint32_t *slot;
	uint64_t k;

	for (k = hash_str(name); (slot = scx_map_get(&c->byname, k)); k++)
		if (!strcmp(c->names[*slot], name))
			return *slot;
	if (c->nr >= CG_NAMES_MAX)
		return CG_KEY_OTHER;
	if (c->nr == c->cap) {
		c->cap = c->cap ? c->cap * 2 : 64;
		c->names = scx_xrealloc(c->names, c->cap * sizeof(*c->names));
	}
	c->names[c->nr] = scx_xstrdup(name);
	*(uint32_t *)scx_map_put(&c->byname, k, NULL) = c->nr;
	return c->nr++;
}

void agg_cgroup_init(struct scx_agg *a)
{
	struct agg_cgroups *c = &a->cg;

	scx_map_init(&c->ids, sizeof(struct cg_id));
	scx_map_init(&c->byname, sizeof(uint32_t));
	scx_map_init(&c->preempts.map, sizeof(struct pair));
	intern(c, "(unknown)"); /* CG_KEY_UNKNOWN */
	intern(c, "(other)");	/* CG_KEY_OTHER */
}

void agg_cgroup_free(struct scx_agg *a)
{
	struct agg_cgroups *c = &a->cg;
	struct cg_id *ci;
	size_t pos = 0;

	while ((ci = scx_map_next(&c->ids, &pos, NULL)))
		free(ci->path);
	scx_map_free(&c->ids);
	scx_map_free(&c->byname);
	scx_map_free(&c->preempts.map);
	for (unsigned i = 0; i < c->nr; i++)
		free(c->names[i]);
	free(c->names);
}

size_t agg_cgroup_mem(const struct scx_agg *a)
{
	const struct agg_cgroups *c = &a->cg;
	size_t n = scx_map_bytes(&c->ids) + scx_map_bytes(&c->byname) +
		   scx_map_bytes(&c->preempts.map) + c->cap * sizeof(char *);
	const struct cg_id *ci;
	size_t pos = 0;

	for (unsigned i = 0; i < c->nr; i++)
		n += strlen(c->names[i]) + 1;
	while ((ci = scx_map_next(&c->ids, &pos, NULL)))
		n += ci->path ? strlen(ci->path) + 1 : 0;
	return n;
}

void scx_agg__cgroup_name(struct scx_agg *a, uint64_t id, const char *path)
{
	struct agg_cgroups *c = &a->cg;
	struct cg_id *ci = scx_map_get(&c->ids, id);

	if (id == SCX_CGROUP_NONE || !path || path[0] != '/')
		return;
	if (!ci) {
		if (c->ids.n >= SCX_AGG_CGROUP_IDS) {
			c->dropped++;
			return;
		}
		ci = scx_map_put(&c->ids, id, NULL);
		ci->path = NULL;
	} else if (ci->path && !strcmp(ci->path, path)) {
		return;
	}
	free(ci->path);
	ci->path = scx_xstrdup(path);
	ci->key = 0; /* folded again at its next use */
}

uint64_t scx_agg__cgroup_dropped(const struct scx_agg *a)
{
	return a->cg.dropped;
}

/* path folded to its first depth levels below the root ("/" stays "/"). */
static void fold_path(const char *path, unsigned depth, char *out, size_t size)
{
	const char *p = path;
	unsigned level = 0;

	if (depth) {
		while (*p) {
			if (*p == '/' && p != path && ++level == depth)
				break;
			p++;
		}
	} else {
		p = path + strlen(path);
	}
	/* the slash that ends level depth: "/a/b/c" at depth 2 is "/a/b" */
	snprintf(out, size, "%.*s", (int)(p - path), path);
	if (!out[0])
		snprintf(out, size, "/");
}

uint32_t agg_cgroup_key(struct scx_agg *a, uint64_t id)
{
	struct agg_cgroups *c = &a->cg;
	char buf[SCX_CGROUP_PATH_MAX];
	struct cg_id *ci;

	if (id == SCX_CGROUP_NONE)
		return CG_KEY_UNKNOWN;
	ci = scx_map_get(&c->ids, id);
	if (ci && ci->key)
		return ci->key - 1;
	if (ci && ci->path) {
		fold_path(ci->path, a->o.cgroup_depth, buf, sizeof(buf));
		ci->key = intern(c, buf) + 1;
		return ci->key - 1;
	}
	/* never named: by number, remembered only while the id table has room */
	snprintf(buf, sizeof(buf), "id:%llu", (unsigned long long)id);
	if (c->ids.n >= SCX_AGG_CGROUP_IDS)
		return intern(c, buf);
	ci = scx_map_put(&c->ids, id, NULL);
	ci->path = NULL;
	ci->key = intern(c, buf) + 1;
	return ci->key - 1;
}

const char *agg_cgroup_key_name(const struct scx_agg *a, uint32_t key)
{
	return key < a->cg.nr ? a->cg.names[key] : "(other)";
}
