// SPDX-License-Identifier: GPL-2.0
/*
 * CPU topology (see topo.h).  From sysfs: possible and online cpus, the core
 * (package + core_id), the LLC (the cpus sharing the highest-level cache of
 * a cpu), the NUMA node (node<N>/cpulist).  Core and LLC ids are renumbered
 * densely in the order of their lowest cpu, so they are unique across the
 * machine; what sysfs does not say (an offline cpu's topology directory is
 * gone on x86) is -1.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/topo.h"
#include "core/util.h"

static int cmp_cpu(const void *a, const void *b)
{
	const struct scx_cpu_topo *x = a, *y = b;

	return (x->cpu > y->cpu) - (x->cpu < y->cpu);
}

static unsigned count_distinct(const struct scx_cpu_topo *c, unsigned n, size_t off)
{
	unsigned k = 0;

	/* n is small (cpus); quadratic keeps this allocation-free */
	for (unsigned i = 0; i < n; i++) {
		int32_t v;
		bool seen = false;
		memcpy(&v, (const char *)&c[i] + off, 4);
		if (v < 0)
			continue;
		for (unsigned j = 0; j < i && !seen; j++) {
			int32_t w;
			memcpy(&w, (const char *)&c[j] + off, 4);
			seen = w == v;
		}
		k += !seen;
	}
	return k;
}

static bool id_valid(int32_t id)
{
	return id >= -1 && id < SCX_MAX_CPUS;
}

bool scx_topo_cpu_valid(const struct scx_cpu_topo *c)
{
	return c->cpu >= 0 && c->cpu < SCX_MAX_CPUS && id_valid(c->core) && id_valid(c->llc) &&
	       id_valid(c->node);
}

struct scx_topo *scx_topo__from_cpus(const struct scx_cpu_topo *cpus, unsigned n)
{
	struct scx_topo *t;

	if (!n || n > SCX_MAX_CPUS) {
		errno = EINVAL;
		return NULL;
	}
	t = scx_xcalloc(1, sizeof(*t));
	t->cpus = scx_xmalloc(n * sizeof(*cpus));
	memcpy(t->cpus, cpus, n * sizeof(*cpus));
	qsort(t->cpus, n, sizeof(*cpus), cmp_cpu);
	t->nr_cpus = n;
	for (unsigned i = 0; i < n; i++) {
		if (!scx_topo_cpu_valid(&t->cpus[i]) ||
		    (i && t->cpus[i].cpu == t->cpus[i - 1].cpu)) {
			scx_topo__free(t);
			errno = EINVAL;
			return NULL;
		}
	}
	t->max_cpu = t->cpus[n - 1].cpu;
	t->cpu_index = scx_xmalloc((t->max_cpu + 1) * sizeof(int32_t));
	for (int32_t c = 0; c <= t->max_cpu; c++)
		t->cpu_index[c] = -1;
	for (unsigned i = 0; i < n; i++)
		t->cpu_index[t->cpus[i].cpu] = i;
	t->nr_cores = count_distinct(t->cpus, n, offsetof(struct scx_cpu_topo, core));
	t->nr_llcs = count_distinct(t->cpus, n, offsetof(struct scx_cpu_topo, llc));
	t->nr_nodes = count_distinct(t->cpus, n, offsetof(struct scx_cpu_topo, node));
	return t;
}

struct scx_topo *scx_topo__synthetic(unsigned nr_cpus, unsigned cpus_per_llc,
				     unsigned llcs_per_node)
{
	struct scx_cpu_topo *c;
	struct scx_topo *t;

	if (!nr_cpus || nr_cpus > SCX_MAX_CPUS) {
		errno = EINVAL;
		return NULL;
	}
	if (!cpus_per_llc)
		cpus_per_llc = nr_cpus;
	if (!llcs_per_node)
		llcs_per_node = 1;
	c = scx_xcalloc(nr_cpus, sizeof(*c));
	for (unsigned i = 0; i < nr_cpus; i++) {
		c[i].cpu = i;
		c[i].core = i;
		c[i].llc = i / cpus_per_llc;
		c[i].node = i / cpus_per_llc / llcs_per_node;
		c[i].online = true;
	}
	t = scx_topo__from_cpus(c, nr_cpus);
	free(c);
	return t;
}

struct scx_topo *scx_topo__dup(const struct scx_topo *t)
{
	struct scx_topo *d;

	if (!t) {
		errno = EINVAL;
		return NULL;
	}
	d = scx_topo__from_cpus(t->cpus, t->nr_cpus);
	if (d) {
		/* keep the counts as given (from_cpus recomputes the same) */
		d->nr_llcs = t->nr_llcs;
		d->nr_nodes = t->nr_nodes;
		d->nr_cores = t->nr_cores;
	}
	return d;
}

void scx_topo__free(struct scx_topo *t)
{
	if (!t)
		return;
	free(t->cpus);
	free(t->cpu_index);
	free(t);
}

const struct scx_cpu_topo *scx_topo__cpu(const struct scx_topo *t, int cpu)
{
	if (!t || cpu < 0 || cpu > t->max_cpu || t->cpu_index[cpu] < 0)
		return NULL;
	return &t->cpus[t->cpu_index[cpu]];
}

/* ---- sysfs -------------------------------------------------------------- */

/* First line of a small file, newline stripped; -errno. */
static int read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	int err = 0;

	if (!f)
		return -errno;
	if (!fgets(buf, size, f))
		buf[0] = 0;
	if (ferror(f))
		err = -EIO;
	fclose(f);
	buf[strcspn(buf, "\n")] = 0;
	return err;
}

static int read_cpulist(const char *path, uint8_t *mask)
{
	char buf[8192];
	int err = read_line(path, buf, sizeof(buf));

	memset(mask, 0, SCX_MAX_CPUS / 8);
	if (err)
		return err;
	if (!buf[0])
		return 0; /* e.g. an empty "offline" list */
	return scx_parse_cpulist(buf, mask, SCX_MAX_CPUS);
}

static int read_int(const char *path, int *v)
{
	char buf[64], *end;
	long x;
	int err = read_line(path, buf, sizeof(buf));

	if (err)
		return err;
	errno = 0;
	x = strtol(buf, &end, 10);
	if (end == buf || *end || errno || x < INT32_MIN || x > INT32_MAX)
		return -EINVAL;
	*v = x;
	return 0;
}

static bool bit(const uint8_t *m, int c)
{
	return m[c / 8] & (1u << (c % 8));
}

/* The lowest cpu sharing cpu's highest-level cache, or -1 if sysfs has no caches. */
static int llc_leader(const char *root, int cpu)
{
	char path[512];
	int best_level = -1, leader = -1;
	uint8_t *mask;

	for (int idx = 0; idx < 16; idx++) {
		int level, first = -1;

		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/cache/index%d/level",
			 root, cpu, idx);
		if (read_int(path, &level))
			continue;
		if (level <= best_level)
			continue;
		snprintf(path, sizeof(path),
			 "%s/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list", root, cpu,
			 idx);
		mask = scx_xcalloc(SCX_MAX_CPUS / 8, 1);
		if (!read_cpulist(path, mask)) {
			for (int b = 0; b < SCX_MAX_CPUS / 8 && first < 0; b++)
				if (mask[b])
					first = b * 8 + __builtin_ctz(mask[b]);
		}
		free(mask);
		if (first < 0)
			continue;
		best_level = level;
		leader = first;
	}
	return leader;
}

/* Renumber keys (>= 0) densely in order of first appearance by cpu. */
static void densify(struct scx_cpu_topo *c, unsigned n, int32_t *keys, size_t off)
{
	int32_t next = 0;

	for (unsigned i = 0; i < n; i++) {
		int32_t id = -1;
		if (keys[i] < 0) {
			memcpy((char *)&c[i] + off, &id, 4);
			continue;
		}
		for (unsigned j = 0; j < i; j++) {
			if (keys[j] == keys[i]) {
				memcpy(&id, (char *)&c[j] + off, 4);
				break;
			}
		}
		if (id < 0)
			id = next++;
		memcpy((char *)&c[i] + off, &id, 4);
	}
}

struct scx_topo *scx_topo__from_sysfs(const char *root)
{
	uint8_t *possible = scx_xcalloc(SCX_MAX_CPUS / 8, 1);
	uint8_t *online = scx_xcalloc(SCX_MAX_CPUS / 8, 1);
	uint8_t *mask = scx_xcalloc(SCX_MAX_CPUS / 8, 1);
	struct scx_cpu_topo *c = NULL;
	int32_t *core_key = NULL, *llc_key = NULL;
	struct scx_topo *t = NULL;
	char path[512];
	unsigned n = 0;
	int err;
	DIR *dir;
	struct dirent *de;

	if (!root)
		root = "/sys";
	snprintf(path, sizeof(path), "%s/devices/system/cpu/possible", root);
	err = read_cpulist(path, possible);
	if (err == -ENOENT) {
		snprintf(path, sizeof(path), "%s/devices/system/cpu/present", root);
		err = read_cpulist(path, possible);
	}
	if (err)
		goto cleanup;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online", root);
	err = read_cpulist(path, online);
	if (err == -ENOENT) {
		/* no online file: every possible cpu is online */
		memcpy(online, possible, SCX_MAX_CPUS / 8);
		err = 0;
	}
	if (err)
		goto cleanup;

	for (int i = 0; i < SCX_MAX_CPUS; i++)
		n += bit(possible, i);
	if (!n) {
		err = -ENOENT;
		goto cleanup;
	}
	c = scx_xcalloc(n, sizeof(*c));
	core_key = scx_xcalloc(n, sizeof(*core_key));
	llc_key = scx_xcalloc(n, sizeof(*llc_key));
	for (int i = 0, k = 0; i < SCX_MAX_CPUS; i++) {
		int pkg = 0, core;

		if (!bit(possible, i))
			continue;
		c[k].cpu = i;
		c[k].online = bit(online, i);
		c[k].node = -1;
		snprintf(path, sizeof(path), "%s/devices/system/cpu/cpu%d/topology/core_id", root,
			 i);
		if (read_int(path, &core)) {
			core_key[k] = -1;
		} else {
			snprintf(path, sizeof(path),
				 "%s/devices/system/cpu/cpu%d/topology/physical_package_id", root,
				 i);
			if (read_int(path, &pkg) || pkg < 0)
				pkg = 0;
			/* cores are numbered per package: make the key machine-wide */
			core_key[k] = (pkg & 0xffff) << 15 | (core & 0x7fff);
		}
		llc_key[k] = llc_leader(root, i);
		if (llc_key[k] < 0 && core_key[k] >= 0)
			llc_key[k] = SCX_MAX_CPUS + pkg; /* no cache info: one LLC per package */
		k++;
	}
	densify(c, n, core_key, offsetof(struct scx_cpu_topo, core));
	densify(c, n, llc_key, offsetof(struct scx_cpu_topo, llc));

	snprintf(path, sizeof(path), "%s/devices/system/node", root);
	dir = opendir(path);
	while (dir && (de = readdir(dir))) {
		char *end;
		long node;

		if (strncmp(de->d_name, "node", 4))
			continue;
		node = strtol(de->d_name + 4, &end, 10);
		if (end == de->d_name + 4 || *end || node < 0 || node > INT32_MAX)
			continue;
		snprintf(path, sizeof(path), "%s/devices/system/node/%s/cpulist", root, de->d_name);
		if (read_cpulist(path, mask))
			continue;
		for (unsigned k = 0; k < n; k++)
			if (bit(mask, c[k].cpu))
				c[k].node = node;
	}
	if (dir)
		closedir(dir);
	else
		for (unsigned k = 0; k < n; k++)
			c[k].node = 0; /* no NUMA support in the kernel: one node */

	t = scx_topo__from_cpus(c, n);
	if (!t)
		err = -errno;
cleanup:
	free(possible);
	free(online);
	free(mask);
	free(c);
	free(core_key);
	free(llc_key);
	if (!t)
		errno = err ? -err : EINVAL;
	return t;
}
